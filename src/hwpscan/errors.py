"""The one error tree of hwpscan.

::

    HwpscanError
    ├── FormatError              a file could not be read as what it claims to be
    │   ├── CorruptFileError     damaged structure (truncated stream, bad record size)
    │   │   └── BudgetError      a package went over a per-file budget (entries, depth)
    │   └── EncryptedFileError   password, DRM or distribution protection
    ├── UsageError               bad arguments: dates, options (exit 2)
    │   ├── StateDirError        the state folder (HWPSCAN_HOME) cannot be created
    │   ├── RunNotFoundError     no stored run matches the id, prefix or ``latest``
    │   ├── ReportWriteError     the report bundle (--report) could not be written
    │   ├── CatalogueError       an emulator ``--data`` folder that cannot be served
    │   └── LedgerError          the quota ledger cannot be used
    │       └── LedgerBusyError  another run held the ledger past the timeout
    ├── StoreError               the run store cannot be opened or written
    │   └── StoreBusyError       another run held the run store past the timeout
    ├── SchedulerLostError       the Dask scheduler went away: the run cannot go on
    └── ApiError                 the API or its limits stopped the run (exit 3)
        ├── QuotaExceededError   the daily call limit is (or would be) passed
        │   └── DailyLimitError  the API itself answered 033 (the call counted)
        ├── ApiRefusedError      a result code that is not success or "no data"
        ├── ApiResponseError     an HTML page or unparseable body instead of JSON
        ├── ApiNetworkError      connection, timeout or 5xx on the way
        ├── RunBudgetError       the per-run budget (files or bytes) is used up
        └── UnsafeUrlError       an attachment URL failed validation

Two more derive from the standard library's classes, so that the ``except`` clauses
written for those keep catching them::

    sqlite3.OperationalError
    └── BusyError                a SQLite database stayed locked past the timeout
    ValueError
    └── TooDeepError             a JSON document nested deeper than the parser follows

Control-flow signals private to one function (``_Retry``, ``_Decline``...) stay in
their modules: they never leave them.

Third-party errors (olefile, zlib, zipfile, pypdf, httpx) are translated where they
enter, with ``raise ... from exc``. Messages never contain the API key.
"""

from __future__ import annotations

import sqlite3


class HwpscanError(Exception):
    """Base class of every error hwpscan raises on purpose."""


class FormatError(HwpscanError):
    """A file could not be read as the format its content claims."""


class CorruptFileError(FormatError):
    """The file's structure is damaged (truncated, inconsistent, over a size cap)."""


class EncryptedFileError(FormatError):
    """The file's text is protected: password, DRM, certificate or distribution."""


class UsageError(HwpscanError):
    """The user asked for something malformed (a bad date, a bad option)."""


class StateDirError(UsageError):
    """The state folder (``HWPSCAN_HOME`` or the platform's data folder) is unusable."""


class ReportWriteError(UsageError):
    """The report bundle (``--report DIR``) could not be written; the run is recorded."""


class StoreError(HwpscanError):
    """The run store (runs.sqlite) cannot be opened or written."""


class ApiError(HwpscanError):
    """The API, its limits or the network stopped the run."""


class QuotaExceededError(ApiError):
    """The daily call limit for the key is reached or would be passed."""


class ApiRefusedError(ApiError):
    """The API answered with a refusal result code (e.g. 030, 033)."""

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class ApiResponseError(ApiError):
    """The API answered with something that is not its JSON (an HTML error page...)."""


class UnsafeUrlError(ApiError):
    """A URL handed out by the API failed validation (scheme, host, userinfo, path)."""


class BudgetError(CorruptFileError):
    """A package went over one of the per-file budgets (entries, bytes, depth, paragraphs)."""


class RunNotFoundError(UsageError):
    """No run matches the id, prefix or ``latest`` asked for (or the prefix is ambiguous)."""


class CatalogueError(UsageError):
    """A ``--data`` folder that cannot be served (missing file, bad JSON, path escape)."""


class LedgerError(UsageError):
    """The ledger file cannot be used (not SQLite, damaged, locked, unwritable)."""


class LedgerBusyError(LedgerError):
    """Another run held the ledger longer than the timeout: a lock, not damage."""


class StoreBusyError(StoreError):
    """Another run held the run store for longer than the timeout: a lock, not damage."""


class SchedulerLostError(HwpscanError):
    """The scheduler went away (or could not be reached): the run cannot go on."""


class DailyLimitError(QuotaExceededError):
    """The API answered code 033: the key's daily limit is used up (the call counted)."""

    #: the API's result code for this refusal (``hwpscan.api.client.CODE_DAILY_LIMIT``)
    code = "033"


class ApiNetworkError(ApiError):
    """The request failed on the way (connection, timeout, 5xx); the key is scrubbed."""

    def __init__(self, message: str, *, retryable: bool, sent: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.sent = sent  # False when the request never reached the server


class RunBudgetError(ApiError):
    """A fetch stopped because its per-run budget (files or bytes) is used up."""


class BusyError(sqlite3.OperationalError):
    """Another process held the database longer than the timeout allows."""


class TooDeepError(ValueError):
    """A document nested deeper than the parser can follow."""
