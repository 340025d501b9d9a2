"""Arguments and summaries made safe to store: no keys, tokens or passwords.

Any argument whose name looks like a key, token, secret or password is dropped, secret
query parameters (and userinfo) are cut from URLs, and the value of
``HWPSCAN_API_KEY`` is blanked wherever it appears.

>>> clean_args({"api_key": "x", "authKey": "y", "from": "2025-07-21", "jobs": 2})
{'from': '2025-07-21', 'jobs': 2}
"""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["API_KEY_ENV", "REDACTED", "clean_args"]

API_KEY_ENV = "HWPSCAN_API_KEY"
REDACTED = "***"

#: Argument names that may carry a secret: never stored.
_SECRET_NAME_RE = re.compile(r"(?i)(key|token|secret|passw|auth|credential|cookie)")


def clean_args(args: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments safe to store: secret-looking names dropped, URLs and values scrubbed.

    >>> clean_args({"api_url": "http://h/x?serviceKey=abc&a=1", "paths": [PurePath("f")]})
    {'api_url': 'http://h/x?a=1', 'paths': ['f']}
    """
    secret = os.environ.get(API_KEY_ENV) or None
    return {
        str(k): _clean_value(v, secret)
        for k, v in args.items()
        if not _SECRET_NAME_RE.search(str(k))
    }


def _clean_value(value: Any, secret: str | None) -> Any:
    if isinstance(value, Mapping):
        return {
            str(k): _clean_value(v, secret)
            for k, v in value.items()
            if not _SECRET_NAME_RE.search(str(k))
        }
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_clean_value(v, secret) for v in value]
    if isinstance(value, enum.Enum):
        value = value.value
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = _strip_url_secrets(os.fsdecode(value) if isinstance(value, PurePath) else str(value))
    if secret and secret in text:
        text = text.replace(secret, REDACTED)
    return text


def _strip_url_secrets(text: str) -> str:
    """Drop secret-looking query parameters (and userinfo) from a URL; other text as is.

    >>> _strip_url_secrets("https://u:p@h/a?authKey=k")
    'https://h/a'
    >>> _strip_url_secrets("fixtures/2025-07-21")
    'fixtures/2025-07-21'
    """
    if "://" not in text:
        return text
    try:
        parts = urlsplit(text)
        query = [
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not _SECRET_NAME_RE.search(k)
        ]
        netloc = parts.hostname or ""
        if parts.port is not None:
            netloc += f":{parts.port}"
    except ValueError:
        return REDACTED
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(query), parts.fragment))
