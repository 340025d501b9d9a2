"""Secrets kept out of everything hwpscan prints, stores or sends back: every hidden value
becomes :data:`REDACTED`, in URLs, free text, raw bytes and stored arguments.

>>> redact_url("https://h/api?authKey=abc123")
'https://h/api?authKey=REDACTED'
>>> clean_args({"api_key": "x", "authKey": "y", "from": "2025-07-21", "jobs": 2})
{'from': '2025-07-21', 'jobs': 2}

An API key is named by :func:`key_hash` where it must be told apart from another.
"""

from __future__ import annotations

import base64
import enum
import functools
import hashlib
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import PurePath
from typing import Any
from urllib.parse import (
    SplitResult,
    parse_qsl,
    quote,
    unquote,
    urlencode,
    urlsplit,
    urlunsplit,
)

from hwpscan.lazy import lazy_pattern

#: What every hidden secret is replaced by.
REDACTED = "REDACTED"
#: The environment variable the API key may come from (its value is hidden everywhere).
API_KEY_ENV = "HWPSCAN_API_KEY"
#: Environment variables whose values are credentials for the sources (fsspec, cloud SDKs).
CREDENTIAL_ENV = (
    *("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_ACCESS_KEY_ID"),
    *("GOOGLE_APPLICATION_CREDENTIALS", "AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN"),
    *("AZURE_STORAGE_CONNECTION_STRING", "HWPSCAN_API_KEY"),
)

#: Query parameters whose values are secrets (compared case-insensitively).
SECRET_PARAMS = frozenset(
    {"authkey", "auth_key", "servicekey", "service_key", "apikey", "api_key", "key", "token"}
    | {"access_token", "crtfckey", "crtfc_key", "secret", "client_secret", "password"}
)
#: ``name=value`` for a secret name anywhere in free text (query, path parameter, fragment).
SECRET_PAIR_RE = re.compile(
    r"(?i)(?<![A-Za-z0-9_])("
    + "|".join(sorted(SECRET_PARAMS, key=len, reverse=True))
    + r")(=|%3D)[^&;#\s\"'<>]*"
)


def key_hash(key: str) -> str:
    """The one-way name of an API key: its SHA-256, hex (what the quota ledger stores).

    >>> key_hash("abc")[:16]
    'ba7816bf8f01cfea'
    >>> len(key_hash("k" * 32))
    64
    """
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def redact_params(text: str) -> str:
    """Free text with the value of every secret ``name=value`` pair replaced.

    >>> redact_params("500 Error at /api?apiType=json&authKey=abc123&x=1")
    '500 Error at /api?apiType=json&authKey=REDACTED&x=1'
    >>> redact_params("/f.do;crtfc_key=abc#token=xyz")
    '/f.do;crtfc_key=REDACTED#token=REDACTED'
    """
    return SECRET_PAIR_RE.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)


#: Credentials as a command line or a header spells them: an ``Authorization`` header, a
#: bearer token, a secret-looking ``NAME=value`` or ``Name: value``, a secret-named flag
#: and its value. Compiled on first use, as are the other rarely needed patterns here.
_SECRET_WORD = r"(?:token|secret|passw(?:or)?d|api[_-]?key|auth[_-]?key|credentials?)"
_AUTH_RES = (
    lazy_pattern(
        r"(?i)(\b(?:proxy-)?authorization\s*[:=]\s*"
        r"(?:(?:bearer|basic|digest|token|negotiate)\s+)?)[^\s'\"]+"
    ),
    lazy_pattern(r"(?i)(\bbearer\s+)[^\s'\"]+"),
    lazy_pattern(rf"(?i)(\b[\w.-]*{_SECRET_WORD}\s*[=:]\s*)[^\s&;'\"]+"),
    lazy_pattern(rf"(?i)((?<!\S)--?[\w-]*{_SECRET_WORD}\s+)(?!-)[^\s'\"]+"),
)


def redact_auth(text: str) -> str:
    """Free text (a command line, a header dump) with credentials in it replaced.

    >>> redact_auth("curl -H 'Authorization: Bearer abc.def' http://h/t")
    "curl -H 'Authorization: Bearer REDACTED' http://h/t"
    >>> redact_auth("authorization=abc Bearer xyz")
    'authorization=REDACTED Bearer REDACTED'
    >>> redact_auth("env GITHUB_TOKEN=ghp_1 tool --token s3 --api-key=k1 -H 'X-Api-Key: k2'")
    "env GITHUB_TOKEN=REDACTED tool --token REDACTED --api-key=REDACTED -H 'X-Api-Key: REDACTED'"
    >>> redact_auth("tool 2025-07-21 --out result.json")
    'tool 2025-07-21 --out result.json'
    """
    for pattern in _AUTH_RES:
        text = pattern().sub(lambda m: m.group(1) + REDACTED, text)
    return text


def redact_url(url: str) -> str:
    """The URL with every secret query value (and path parameter, and fragment pair)
    replaced by ``REDACTED``.

    >>> redact_url("https://h/api?apiType=json&authKey=abc123&startDate=2025-07-21")
    'https://h/api?apiType=json&authKey=REDACTED&startDate=2025-07-21'
    >>> redact_url("https://user:pw@h/x")
    'https://REDACTED@h/x'
    >>> redact_url("https://h/x;authKey=s#crtfc_key=t")
    'https://h/x;authKey=REDACTED#crtfc_key=REDACTED'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED
    netloc = parts.netloc
    if "@" in netloc:
        netloc = REDACTED + "@" + netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(k.lower() in SECRET_PARAMS for k, _ in pairs):
            query = urlencode(
                [(k, REDACTED if k.lower() in SECRET_PARAMS else v) for k, v in pairs],
                quote_via=quote,
                safe=":/",
            )
    path, fragment = redact_params(parts.path), redact_params(parts.fragment)
    return urlunsplit((parts.scheme, netloc, path, query, fragment))


def _char_forms(char: str) -> str:
    """A regex for one character of a secret in every way a server may spell it: raw,
    percent-encoded (either case, or twice: ``%2541``), a JSON ``\\u`` escape (either
    case) or an HTML character reference."""
    forms = [re.escape(char)]
    if char == " ":
        forms.append(r"\+")
    forms.append("".join(f"%(?:25)?{byte:02x}" for byte in char.encode("utf-8")))
    units = char.encode("utf-16-be")
    forms.append(
        "".join(
            rf"\\u{int.from_bytes(units[i : i + 2], 'big'):04x}" for i in range(0, len(units), 2)
        )
    )
    forms.append(rf"&#0*{ord(char)};?")
    forms.append(rf"&#x0*{ord(char):x};?")
    return "(?:" + "|".join(forms) + ")"


#: Secrets shorter than this (in UTF-8 bytes) are not looked for in base64: what of their
#: encoding does not depend on the bytes around them is too short not to occur by chance.
MIN_BASE64_SECRET = 8
#: ``+`` and ``/`` of base64 also percent-encoded or JSON-escaped, as a URL or JSON carries them.
_BASE64_CHARS = {
    "+": r"(?:\+|%2[bB]|\\u002[bB])",
    "/": r"(?:/|\\/|%2[fF]|\\u002[fF])",
}


def base64_forms(secret: str) -> list[str]:
    """What every base64 (and base64url) encoding of a text holding *secret* contains, at
    each of the three byte alignments: the characters that depend on its bytes alone.

    >>> import base64
    >>> forms = base64_forms("Qm7Tz2Kx9Wv4")
    >>> [any(f in base64.b64encode(p + b"Qm7Tz2Kx9Wv4 ").decode() for f in forms)
    ...  for p in (b"", b"k", b"ke")]
    [True, True, True]
    >>> base64_forms("short")
    []
    """
    raw = secret.encode("utf-8")
    if len(raw) < MIN_BASE64_SECRET:
        return []
    forms: list[str] = []
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + raw + bytes(2)).decode("ascii")
        core = encoded[-(-8 * offset // 6) : 8 * (offset + len(raw)) // 6]
        for form in (core, core.replace("+", "-").replace("/", "_")):
            if form not in forms:
                forms.append(form)
    return forms


@functools.lru_cache(maxsize=16)
def secret_pattern(secret: str) -> re.Pattern[str]:
    r"""A regex that finds ``secret`` however it was encoded, character by character (raw,
    percent-encoded, JSON or HTML escapes, in any mix) or in base64 (:func:`base64_forms`).

    >>> bool(secret_pattern("Ab1").fullmatch("%41%62\\u0031"))
    True
    >>> bool(secret_pattern("Ab1").fullmatch("\\U0041b%2531"))
    True
    >>> secret_pattern("Qm7Tz2Kx9Wv4").sub("R", "bad key UW03VHoyS3g5V3Y0 a2V5PVFtN1R6Mkt4OVd2NA==")
    'bad key R a2V5PVRA=='
    """
    forms = ["".join(_char_forms(c) for c in secret)]
    # base64 is case-sensitive: (?-i:...) around each form
    forms += [
        "(?-i:" + "".join(_BASE64_CHARS.get(c, c) for c in form) + ")"
        for form in base64_forms(secret)
    ]
    return re.compile("|".join(forms), re.IGNORECASE)


@functools.lru_cache(maxsize=16)
def _secret_pattern_bytes(secret: str) -> re.Pattern[bytes]:
    return re.compile(secret_pattern(secret).pattern.encode("utf-8"), re.IGNORECASE)


def redact_text(text: str, secrets: Iterable[str]) -> str:
    r"""Replace every occurrence of each secret, however encoded (:func:`secret_pattern`),
    with ``REDACTED``.

    >>> redact_text("GET /x?authKey=s3cr%2Bt failed", ["s3cr+t"])
    'GET /x?authKey=REDACTED failed'
    >>> redact_text("a %73%33%63%72%2b%74 b \\u0073\\u0033\\u0063\\u0072\\u002B\\u0074", ["s3cr+t"])
    'a REDACTED b REDACTED'
    """
    for secret in filter(None, secrets):
        text = secret_pattern(secret).sub(REDACTED, text)
    return text


def redact_bytes(data: bytes, secrets: Iterable[str]) -> bytes:
    r""":func:`redact_text` for raw bytes in any ASCII-compatible encoding (UTF-8, CP949).

    >>> redact_bytes(b'{"msg": "bad key s3cr+t", "u": "/f?k=s3cr%2Bt"}', ["s3cr+t"])
    b'{"msg": "bad key REDACTED", "u": "/f?k=REDACTED"}'
    >>> redact_bytes(b'"\\u0073\\u0033cr%2b%74"', ["s3cr+t"])
    b'"REDACTED"'
    """
    for secret in filter(None, secrets):
        data = _secret_pattern_bytes(secret).sub(REDACTED.encode("ascii"), data)
    return data


def redact_credentials(text: str, environ: Mapping[str, str] | None = None) -> str:
    """*text* with the value of every credential variable set here replaced by ``REDACTED``.

    >>> redact_credentials("denied for fake-1234", {"AWS_SECRET_ACCESS_KEY": "fake-1234"})
    'denied for REDACTED'
    """
    environ = os.environ if environ is None else environ
    for name in CREDENTIAL_ENV:
        value = environ.get(name)
        if value and len(value) >= 4 and value in text:
            text = text.replace(value, REDACTED)
    return text


#: Environment variable names that look like a credential (searched, case-insensitively).
_secret_env_name_re = lazy_pattern(
    r"(?i)(key|token|secret|passw|passphrase|credential|auth|cookie|session|private|"
    r"\bsas\b|_sas_|connection_string|dsn)"
)
#: Cloud and CI prefixes whose variables are credentials or point at them.
_SECRET_ENV_PREFIXES = ("AWS_", "AZURE_", "GOOGLE_", "GCP_", "GCLOUD_", "GH_", "GITHUB_", "VAULT_")
#: A value holding a URL with a password in it (``postgres://user:pw@host/db``).
_userinfo_re = lazy_pattern(r"://[^/\s@:]*:[^/\s@]*@")


def scrubbed_environment(
    passthrough: Iterable[str] = (), environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Our environment without anything that looks secret (a known credential, a name
    holding KEY, TOKEN, SECRET, PASSW, AUTH..., a cloud or CI prefix, a URL with a
    password): what every outside program hwpscan runs gets. The names in *passthrough*
    are passed on whatever they look like.

    >>> env = {"PATH": "/bin", "LANG": "C.UTF-8", "HWPSCAN_API_KEY": "k", "GH_TOKEN": "t",
    ...        "AWS_REGION": "x", "DB": "postgres://u:pw@h/d", "MY_PASSWORD": "p"}
    >>> sorted(scrubbed_environment(environ=env))
    ['LANG', 'PATH']
    >>> sorted(scrubbed_environment(["AWS_REGION", "NOT_SET"], environ=env))
    ['AWS_REGION', 'LANG', 'PATH']
    """
    environ = os.environ if environ is None else environ
    chosen = set(passthrough)
    return {
        name: value
        for name, value in environ.items()
        if name in chosen
        or not (
            name in CREDENTIAL_ENV
            or _secret_env_name_re().search(name)
            or name.upper().startswith(_SECRET_ENV_PREFIXES)
            or _userinfo_re().search(value)
        )
    }


#: Argument names that may carry a secret: never stored.
_SECRET_NAME_RE = re.compile(r"(?i)(key|token|secret|passw|auth|credential|cookie)")


def clean_args(args: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments safe to store: secret-looking names dropped, URLs and values scrubbed.

    >>> clean_args({"api_url": "http://h/x?serviceKey=abc&a=1", "paths": [PurePath("f")]})
    {'api_url': 'http://h/x?a=1', 'paths': ['f']}
    >>> clean_args({"stopped": "calling http://h/x?authKey=k1 for 2025-07-21: refused"})
    {'stopped': 'calling http://h/x?authKey=REDACTED for 2025-07-21: refused'}
    """
    cleaned: dict[str, Any] = _clean_value(args, os.environ.get(API_KEY_ENV) or None)
    return cleaned


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
    text = os.fsdecode(value) if isinstance(value, PurePath) else str(value)
    # a whole URL loses its secret parameters and userinfo; free text only their values
    text = _strip_url_secrets(text) if _WHOLE_URL_RE.fullmatch(text) else redact_params(text)
    text = redact_credentials(text)
    return redact_text(text, [secret]) if secret else text


_WHOLE_URL_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S*")


def _strip_url_secrets(text: str) -> str:
    """Drop secret-looking query parameters (and userinfo) from a whole URL.

    >>> _strip_url_secrets("https://u:p@h/a?authKey=k")
    'https://h/a'
    """
    try:
        parts = urlsplit(text)
        query = [
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not _SECRET_NAME_RE.search(k)
        ]
        netloc = host_without_userinfo(parts)
    except ValueError:
        return REDACTED
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(query), parts.fragment))


_userinfo_in_text_re = lazy_pattern(r"[A-Za-z][A-Za-z0-9+.-]*://([^/\s@]+)@")


def userinfo_secrets(texts: Iterable[str]) -> list[str]:
    """The user names and passwords in the URLs of *texts* (``s3://KEY:SECRET@bucket``),
    as written and percent-decoded, for :func:`redact_text` to hide wherever a library
    repeats them.

    >>> userinfo_secrets(["s3://AKIA1:pa%2Fss@bucket/x", "fixtures", "http://h/p"])
    ['AKIA1', 'pa%2Fss', 'pa/ss']
    """
    forms = (
        form
        for text in texts
        for match in _userinfo_in_text_re().finditer(text)
        for part in match.group(1).split(":", 1)
        for form in (part, unquote(part))
    )
    return list(dict.fromkeys(filter(None, forms)))


def host_without_userinfo(parts: SplitResult) -> str:
    """The ``host[:port]`` of a split URL, userinfo dropped, IPv6 kept in brackets.

    >>> host_without_userinfo(urlsplit("http://u:p@[::1]:9000/b"))
    '[::1]:9000'
    """
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return host if parts.port is None else f"{host}:{parts.port}"
