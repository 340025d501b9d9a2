"""The one error tree of hwpscan: :class:`HwpscanError` and its subclasses, each saying
what went wrong; :class:`UsageError` exits 2, :class:`ApiError` 3. Two more derive from
the standard library's classes, so that ``except`` clauses written for those keep
catching them: :class:`BusyError` (``sqlite3.OperationalError``) and
:class:`TooDeepError` (``ValueError``).

Third-party errors are translated where they enter, with ``raise ... from exc``.
Messages never contain the API key.
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
