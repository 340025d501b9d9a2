"""The run store's parts; :mod:`hwpscan.store` is the API the rest of hwpscan uses.

:mod:`~hwpscan.runstore.records` (what a run is), :mod:`~hwpscan.runstore.scrub`
(secrets kept out of stored arguments) and :mod:`~hwpscan.runstore.db` (SQLite).
"""
