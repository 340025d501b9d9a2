"""Rehearsal: what lets hwpscan be tried and tested without the real API or real files.

Not the product, and not a supported API: :mod:`~hwpscan.rehearsal.synth` generates the
fixture documents (``python -m hwpscan.rehearsal.synth fixtures/``) and
:mod:`~hwpscan.rehearsal.emulator` serves the press-release API on loopback, quirks
included. Only the CLI (``hwpscan emulator``, ``hwpscan demo``), the tests and the
benchmarks import this package; the scanning core never does (an import-linter contract
in ``pyproject.toml`` checks that).
"""
