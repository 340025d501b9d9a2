"""The parser matrix: run several extractors on every file and point at the defective one.

Each extractor runs in a subprocess with a timeout (:mod:`~hwpscan.matrix.runner`);
its text is aligned with our strict reference view (:mod:`~hwpscan.matrix.compare`)
and judged in a :class:`~hwpscan.matrix.rows.MatrixRow`. Rendering lives in
:mod:`~hwpscan.matrix.render` (imported on demand: the worker process stays light).

Typical use::

    from hwpscan.matrix import parse_parser_options, run_matrix, verdict
    specs = parse_parser_options("codeunit,strict,mypkg.text:extract", ["cli='mytool {path}'"])
    rows = list(run_matrix(paths, specs, timeout=10, jobs=4))
    print(verdict(rows))          # {"a.hwp": ("codeunit", "mypkg.text:extract")}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hwpscan.matrix.parsers import BUILTINS, ParserSpec, parse_parser_options
from hwpscan.matrix.rows import Extraction, MatrixRow, build_row, matrix_exit_code, verdict

if TYPE_CHECKING:
    from hwpscan.matrix.render import matrix_table, write_matrix_jsonl
    from hwpscan.matrix.runner import run_matrix

__all__ = [
    "BUILTINS",
    "Extraction",
    "MatrixRow",
    "ParserSpec",
    "build_row",
    "matrix_exit_code",
    "matrix_table",
    "parse_parser_options",
    "run_matrix",
    "verdict",
    "write_matrix_jsonl",
]

_LAZY = {
    "run_matrix": "hwpscan.matrix.runner",
    "matrix_table": "hwpscan.matrix.render",
    "write_matrix_jsonl": "hwpscan.matrix.render",
}


def __getattr__(name: str) -> Any:
    """Import the runner (it pulls in the scanner) and rich only when asked for."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
