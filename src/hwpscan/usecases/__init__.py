"""Use cases: what each command does, as library functions over typed settings.

Each module here takes a frozen settings object, runs one job end to end (listing,
scanning, recording the run, deciding the exit code) and returns a result object. They
know nothing of the terminal: progress and warnings reach the caller through callbacks,
so the CLI (:mod:`hwpscan.cli`) only maps options to settings, calls, and renders.

- :mod:`hwpscan.usecases.scan`: :func:`~hwpscan.usecases.scan.scan` (``hwpscan scan``
  and ``hwpscan repair``), :class:`~hwpscan.usecases.scan.ScanSettings`.
- :mod:`hwpscan.usecases.scaled`: URL sources, the Dask executor and ``--resume``;
  what they are asked (:class:`~hwpscan.usecases.scale_settings.ScaleSettings`) is
  :mod:`hwpscan.usecases.scale_settings`, which a scan of local files loads alone.
"""
