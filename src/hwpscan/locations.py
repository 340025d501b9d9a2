"""Whether a command-line argument names a local path or a URL, and how a URL is shown:
the cheap checks every scan makes, apart from :mod:`hwpscan.scanning.sources`, so that a
scan of local files loads none of the listing code.

>>> shown_url("s3://key:secret@bucket/fixtures/a.hwp")
's3://bucket/fixtures/a.hwp'
>>> url_from_argument("s3:/bucket/prefix"), url_from_argument("fixtures")
('s3://bucket/prefix', None)
"""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit, urlunsplit

from hwpscan.redaction import host_without_userinfo

_SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+)://")
_COLLAPSED_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):/+(?=[^/])")


def url_from_argument(arg: str | os.PathLike[str]) -> str | None:
    """The URL a command-line argument names (``scheme://``, a scheme of two letters or
    more: never ``C:\\``), or None for a local path (one that exists always is). A
    :class:`~pathlib.Path` folds ``s3://b/k`` into ``s3:/b/k``: the scheme's slashes are
    restored.

    >>> from pathlib import Path
    >>> url_from_argument(Path("file:///tmp/x")), url_from_argument("gs://b/p/")
    ('file:///tmp/x', 'gs://b/p/')
    """
    text = os.fspath(arg)
    if _SCHEME_RE.match(text):
        return text
    match = _COLLAPSED_RE.match(text)
    if match is None or os.path.lexists(text):
        return None
    scheme = match.group(1)
    rest = text[match.end() :]
    return f"{scheme}:///{rest}" if scheme == "file" else f"{scheme}://{rest}"


def shown_url(url: str) -> str:
    """A URL as results and logs show it: no userinfo, no query, no fragment."""
    try:
        parts = urlsplit(url)
        host = host_without_userinfo(parts)
    except ValueError:
        return "(an unparsable URL)"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
