"""The run store's parts; :mod:`hwpscan.store` is the API the rest of hwpscan uses.

:mod:`~hwpscan.runstore.records` (what a run is) and :mod:`~hwpscan.runstore.db`
(SQLite); secrets are kept out of stored arguments by :func:`hwpscan.redaction.clean_args`.
"""
