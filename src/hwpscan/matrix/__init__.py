"""The parser matrix: run several extractors on every file and point at the defective one.

Each extractor runs in a subprocess with a timeout (:mod:`~hwpscan.matrix.runner`,
failures worded by :mod:`~hwpscan.matrix.failures`); its text is aligned exactly with
our strict reference view and the differences sorted into leaked, lost, replaced and
markup (:mod:`~hwpscan.matrix.compare`), then judged in a
:class:`~hwpscan.matrix.matrix_rows.MatrixRow`. Rendering lives in
:mod:`~hwpscan.matrix.render` (imported on demand: the worker process stays light).

Typical use::

    from hwpscan.matrix import parse_parser_options, run_matrix, verdict
    specs = parse_parser_options("codeunit,strict,mypkg.text:extract", ["cli='mytool {path}'"])
    rows = list(run_matrix(paths, specs, timeout=10, jobs=4, on_row=print))  # rows as they come
    print(verdict(rows))          # {"a.hwp": ("codeunit", "mypkg.text:extract")}
    print(verdict(rows, strict_markup=True))  # markup and replaced text count too
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hwpscan.lazy import lazy_names
from hwpscan.matrix.matrix_rows import (
    Extraction,
    MatrixRow,
    build_row,
    matrix_exit_code,
    ranking,
    summarize,
    verdict,
)
from hwpscan.matrix.parsers import BUILTINS, ParserSpec, parse_parser_options

if TYPE_CHECKING:
    from hwpscan.matrix.render import jsonl_row_writer, matrix_table
    from hwpscan.matrix.runner import run_batch, run_matrix

__all__ = [
    "BUILTINS",
    "Extraction",
    "MatrixRow",
    "ParserSpec",
    "build_row",
    "jsonl_row_writer",
    "matrix_exit_code",
    "matrix_table",
    "parse_parser_options",
    "ranking",
    "run_batch",
    "run_matrix",
    "summarize",
    "verdict",
]

_LAZY = {
    "run_matrix": "hwpscan.matrix.runner",
    "run_batch": "hwpscan.matrix.runner",
    "matrix_table": "hwpscan.matrix.render",
    "jsonl_row_writer": "hwpscan.matrix.render",
}


# the runner (it pulls in the scanner) and rich load only when asked for
__getattr__ = lazy_names(__name__, _LAZY)
