"""Rehearsal: what lets hwpscan be tried and tested without the real API or real files.

Not the product, and not a supported API: :mod:`~hwpscan.rehearsal.synth` generates the
fixture documents and :mod:`~hwpscan.rehearsal.emulator` serves the press-release API on
loopback. Only the CLI, the tests and the benchmarks import it (an import-linter
contract keeps the scanning core out).
"""
