"""Paths in, rows out: the scanning core, one module per job.

- :mod:`~hwpscan.scanning.inputs`: listing the files of paths and folders, and dating them;
- :mod:`~hwpscan.scanning.one_file`: scanning one file (:func:`scan_file`, :func:`scan_bytes`);
- :mod:`~hwpscan.scanning.repaired_text`: writing a body's repaired text;
- :mod:`~hwpscan.scanning.many_files`: scanning many files in the isolation engine's
  workers (:func:`scan_paths`);
- :mod:`~hwpscan.scanning.row_handoff`: a row on its way from a worker to the output;
- :mod:`~hwpscan.scanning.exit_gate`: the exit code a ``--fail-on`` gate gives;
- :mod:`~hwpscan.scanning.work_items`: a file where it lives (a path or a URL), scanned in
  a guard process: the scaled path's and a Dask task's unit;
- :mod:`~hwpscan.scanning.on_dask`: the Dask executor.

The processes files are scanned in, their time and memory limits, belong to the
isolation engine (:mod:`hwpscan.execution`).
"""
