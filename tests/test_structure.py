"""The code's shape, held where anyone can check it: complexity, command length, parameters.

- every function's cyclomatic complexity is at most grade C (radon: 20 or less);
- no function of the command-line layer is longer than 40 lines: a command maps options
  to settings, calls a use case and renders, and its helpers do one step each;
- no function takes more than 8 parameters (``self``/``cls`` aside): what travels
  together is a settings object (a frozen dataclass, whose generated ``__init__`` is not
  in the source).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from radon.complexity import cc_rank, cc_visit

SRC = Path(__file__).resolve().parents[1] / "src" / "hwpscan"
MAX_CLI_LINES = 40
MAX_PARAMS = 8


def _sources() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def _functions(path: Path) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(SRC.parent)}:{getattr(node, 'lineno', '?')}"


@pytest.mark.slow
def test_no_function_is_above_grade_c() -> None:
    over = [
        f"{path.relative_to(SRC.parent)}:{block.lineno} {block.fullname} "
        f"{cc_rank(block.complexity)} ({block.complexity})"
        for path in _sources()
        for block in cc_visit(path.read_text(encoding="utf-8"))
        if cc_rank(block.complexity) not in "ABC"
    ]
    assert not over, "split into named steps:\n" + "\n".join(over)


def _working_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """A function's lines, less the imports at the top of its body (the CLI's lazy ones)."""
    imports = sum(
        (s.end_lineno or s.lineno) - s.lineno + 1
        for s in node.body
        if isinstance(s, (ast.Import, ast.ImportFrom))
    )
    return (node.end_lineno or node.lineno) - node.lineno + 1 - imports


def test_cli_functions_are_short() -> None:
    long = [
        f"{_where(path, node)} {node.name}: {_working_lines(node)} lines"
        for path in _sources()
        if "cli" in path.relative_to(SRC).parts
        for node in _functions(path)
        if _working_lines(node) > MAX_CLI_LINES
    ]
    assert not long, "a command maps, calls and renders; move the rest out:\n" + "\n".join(long)


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return len(names)


@pytest.mark.slow
def test_no_function_takes_more_than_eight_parameters() -> None:
    many = [
        f"{_where(path, node)} {node.name}: {_parameters(node)} parameters"
        for path in _sources()
        for node in _functions(path)
        if _parameters(node) > MAX_PARAMS
    ]
    assert not many, "pass a settings object instead:\n" + "\n".join(many)


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("def f(a, b, c, d, e, f, g, h, i): pass", 9),
        ("class C:\n    def m(self, a, *, b, c): pass", 3),
    ],
)
def test_the_parameter_count_counts_what_it_should(source: str, found: int) -> None:
    nodes = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)]
    assert _parameters(nodes[0]) == found


def test_radon_grades_as_expected() -> None:
    nested = "def f(x):\n" + "".join(f"    if x == {i}:\n        return {i}\n" for i in range(25))
    (block,) = cc_visit(nested)
    assert cc_rank(block.complexity) not in "ABC"  # the gate would see a function like it


def _lazy_own_imports(path: Path) -> list[tuple[int, str, bool]]:
    """Imports of our own modules inside functions: (line, module, has a reason comment).

    The reason is a comment on the import's first or last line, or on the line above;
    one comment above a run of adjacent imports covers the run. Imports under
    ``if TYPE_CHECKING:`` at module level are not inside a function.
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for func in _functions(path):
        covered_until = -1  # the last line of a run of imports that has its reason
        for node in sorted(ast.walk(func), key=lambda n: getattr(n, "lineno", 0)):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                module = node.module
            elif isinstance(node, ast.Import):
                module = node.names[0].name
            else:
                continue
            first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
            above = lines[first - 1].strip() if first > 0 else ""
            reason = "#" in lines[first] or "#" in lines[last] or above.startswith("#")
            reason = reason or covered_until == first - 1
            covered_until = last if reason else -1
            if module.split(".")[0] != "hwpscan":
                continue
            found.append((node.lineno, module, reason))
    return found


def test_every_lazy_import_of_our_own_modules_says_why() -> None:
    """A function-level import hides the dependency graph; it is kept only for a reason
    written beside it (a heavy third-party module behind it, --help start-up, a cycle).
    The CLI is the exception: every command loads its work when it runs."""
    silent = [
        f"{path.relative_to(SRC.parent)}:{line} {module}"
        for path in _sources()
        if path.parent.name != "cli"  # the CLI's reason is in its package docstring
        for line, module, reason in _lazy_own_imports(path)
        if not reason
    ]
    assert not silent, "import at the top, or say why not:\n" + "\n".join(silent)


def test_no_module_is_over_800_lines() -> None:
    """A module a newcomer can read in one sitting: split a longer one by job."""
    long = {
        str(p.relative_to(SRC)): n
        for p in SRC.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800
    }
    assert not long, long


def test_no_two_modules_share_a_name() -> None:
    """A module's name says its job, once: ``scan`` in three packages says nothing."""
    names: dict[str, list[str]] = {}
    for p in SRC.rglob("*"):
        if p.suffix == ".py" and p.stem not in ("__init__", "__main__"):
            names.setdefault(p.stem, []).append(str(p.relative_to(SRC)))
        elif p.is_dir() and (p / "__init__.py").exists():
            names.setdefault(p.name, []).append(str(p.relative_to(SRC)) + "/")
    shared = {name: places for name, places in names.items() if len(places) > 1}
    assert not shared, shared
