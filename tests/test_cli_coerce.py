"""The options' plain converters (hwpscan.cli.coerce) against Typer's own, on every
option of every command: a value taken is the value Typer gives, and a value declined
goes to Typer, so its error is Typer's."""

from __future__ import annotations

import subprocess
import sys
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

coercion = pytest.importorskip("typer._coercion", reason="a Typer without its runtime layer")

import typer  # noqa: E402

from hwpscan.cli import app  # noqa: E402  (every command loaded)
from hwpscan.cli.coerce import DECLINE, install, plain_converter  # noqa: E402


def _params() -> list[tuple[str, Any]]:
    group = typer.main.get_command(app)
    ctx = typer.Context(group)
    found = []
    for name in group.list_commands(ctx):
        params = getattr(group.get_command(ctx, name), "params", ())
        found += [(f"{name} {p.name}", p) for p in params if hasattr(p, "type_descriptor")]
    return found


PARAMS = _params()


CTX = typer.Context(typer.main.get_command(app))
_BUILT: dict[int, Any] = {}


def _reference(param: Any, value: Any) -> tuple[str, Any]:
    """What Typer's own converter makes of *value*: ("ok", value) or ("error", text)."""
    ctx = CTX
    converter = _BUILT.get(id(param))
    if converter is None:
        converter = _BUILT[id(param)] = coercion.build_runtime_param(param.type_descriptor)
    try:
        return "ok", converter.coerce(value, param=param, ctx=ctx)
    except typer.BadParameter as exc:
        return "error", exc.message
    except Exception as exc:  # the framework's own failure is an outcome too
        return "error", f"{type(exc).__name__}: {exc}"


def _ours(param: Any, value: Any) -> tuple[str, Any]:
    ctx = CTX
    kept = param._runtime_param
    param._runtime_param = None
    try:
        assert install(param) or kept is not None  # a flag has its pass-through already
        try:
            return "ok", param._runtime_param.coerce(value, param=param, ctx=ctx)
        except typer.BadParameter as exc:
            return "error", exc.message
        except Exception as exc:
            return "error", f"{type(exc).__name__}: {exc}"
    finally:
        param._runtime_param = kept


def _same(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    return a[0] == b[0] and a[1] == b[1] and type(a[1]) is type(b[1])


def test_every_option_of_every_command_has_a_plain_converter() -> None:
    """The kinds of option hwpscan declares are all handled: no command line imports
    the validation library for a plain value."""
    missing = [name for name, p in PARAMS if plain_converter(p.type_descriptor) is None]
    assert not missing
    assert len(PARAMS) > 100


def _samples(param: Any, tmp: Path) -> list[Any]:
    """Values a command line or a default may bring to *param*."""
    annotation = param.type_descriptor.annotation
    leaf = annotation.__args__[0] if getattr(annotation, "__args__", None) else annotation
    base: list[Any] = [param.default, "", "0", "1", "-1", "12", "007", "2.5", "-0", "1e3",
                       " 1", "1_0", "x", "-", "9" * 30, str(tmp), str(tmp / "none"),
                       str(tmp / "file.txt"), 3, 0.5, True, None]  # fmt: skip
    if isinstance(leaf, type) and issubclass(leaf, Enum):
        for member in leaf:
            base += [member, member.value, str(member.value).upper(), member.name]
    if param.multiple or param.nargs == -1:
        base = [(), ("a", "b")] + [(v,) for v in base if isinstance(v, str)] + base
    return base


@pytest.mark.parametrize(("name", "param"), PARAMS, ids=[n for n, _ in PARAMS])
def test_plain_values_convert_as_the_framework_converts_them(
    name: str, param: Any, tmp_path: Path
) -> None:
    (tmp_path / "file.txt").write_text("x")
    for value in _samples(param, tmp_path):
        assert _same(_ours(param, value), _reference(param, value)), (name, value)


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    index=st.integers(min_value=0, max_value=len(PARAMS) - 1),
    text=st.one_of(
        st.text(max_size=12),
        st.from_regex(r"-?[0-9]{1,20}(\.[0-9]{0,20})?", fullmatch=True),
        st.sampled_from(["inf", "nan", "+5", "٣", "１", "1.", ".5", "-0.0"]),
    ),
)
@pytest.mark.slow
def test_any_text_converts_as_the_framework_converts_it(index: int, text: str) -> None:
    name, param = PARAMS[index]
    value: Any = (text,) if param.multiple or param.nargs == -1 else text
    assert _same(_ours(param, value), _reference(param, value)), (name, value)


def test_a_plain_value_is_taken_without_the_framework() -> None:
    """The converters take what they should: a default, a number written plainly, a
    path, an enum's value (a declined one would hide behind the equal results)."""
    by_name = dict(PARAMS)
    ctx = CTX
    jobs, fmt, paths = by_name["scan jobs"], by_name["scan fmt"], by_name["scan paths"]
    for param, value in [(jobs, "2"), (jobs, None), (fmt, "jsonl"), (paths, ("a", "b"))]:
        convert = plain_converter(param.type_descriptor)
        assert convert is not None and convert(value or param.default, param, ctx) is not DECLINE
    assert plain_converter(jobs.type_descriptor)("2.5", jobs, ctx) is DECLINE  # type: ignore[misc]


@pytest.mark.slow
def test_a_scan_imports_no_validation_library(tmp_path: Path) -> None:
    code = (
        "import sys; from hwpscan.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('pydantic' in sys.modules)"
    )
    args = ["scan", str(tmp_path), "--format", "jsonl", "--output", str(tmp_path / "o"),
            "--jobs", "2", "--no-progress", "--file-timeout", "30"]  # fmt: skip
    env = {"HWPSCAN_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=False
    )
    assert done.stdout.strip().splitlines()[-1] == "False", done.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "hwpscan", "scan", str(tmp_path), "--jobs", "x"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert bad.returncode == 2 and "not a whole number" in bad.stderr
