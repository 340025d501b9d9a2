"""The one error tree of hwpscan.

::

    HwpscanError
    ├── FormatError            a file could not be read as what it claims to be
    │   ├── CorruptFileError   damaged structure (truncated stream, bad record size)
    │   └── EncryptedFileError password, DRM or distribution protection
    ├── UsageError             bad arguments: dates, options (exit 2)
    │   └── StateDirError      the state folder (HWPSCAN_HOME) cannot be created
    ├── StoreError             the run store cannot be opened or written
    └── ApiError               the API or its limits stopped the run (exit 3)
        ├── QuotaExceededError the daily call limit is (or would be) passed
        ├── ApiRefusedError    a result code that is not success or "no data"
        ├── ApiResponseError   an HTML page or unparseable body instead of JSON
        └── UnsafeUrlError     an attachment URL failed validation

Third-party errors (olefile, zlib, zipfile, pypdf, httpx) are translated where they
enter, with ``raise ... from exc``. Messages never contain the API key.
"""

from __future__ import annotations


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
