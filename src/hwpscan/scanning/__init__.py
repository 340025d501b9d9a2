"""Paths in, rows out: the scanning core, one module per job (listing and dating inputs,
one file, many files in the engine's pool, work items in guard processes, the Dask
executor, the row handed from a worker, the ``--fail-on`` exit gate). The processes,
their time and memory limits, belong to :mod:`hwpscan.execution`.
"""
