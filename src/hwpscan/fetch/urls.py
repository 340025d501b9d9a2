"""Attachment URL validation and secret redaction.

An attachment URL comes from the API's answer, so it is input, not instruction: it is
checked before any request (scheme, userinfo, host allowlist, private addresses, path).

>>> api = "https://www.fss.or.kr/fss/kr/openApi/api/bodoInfo.jsp"
>>> validate_attachment_url(
...     "https://www.fss.or.kr/fss/cmmn/file/fileDown.do?atchFileId=ab&amp;fileSn=1", api_url=api)
'https://www.fss.or.kr/fss/cmmn/file/fileDown.do?atchFileId=ab&fileSn=1'
>>> validate_attachment_url("javascript:alert(1)", api_url=api)
Traceback (most recent call last):
...
hwpscan.errors.UnsafeUrlError: attachment URL refused: scheme 'javascript' is not http or https
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable, Sequence
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

from hwpscan.errors import UnsafeUrlError

#: Query parameters whose values are secrets (compared case-insensitively).
SECRET_PARAMS = frozenset(
    {"authkey", "servicekey", "apikey", "api_key", "key", "token", "access_token", "crtfckey"}
)
REDACTED = "REDACTED"
#: Where the portal serves attachments (the real site and the emulator alike).
DEFAULT_DOWNLOAD_PATHS = ("/fss/cmmn/file/fileDown.do",)

#: Returns the IP addresses a host name resolves to.
Resolver = Callable[[str], Sequence[str]]


def redact_url(url: str) -> str:
    """The URL with every secret query value replaced by ``REDACTED``.

    >>> redact_url("https://h/api?apiType=json&authKey=abc123&startDate=2025-07-21")
    'https://h/api?apiType=json&authKey=REDACTED&startDate=2025-07-21'
    >>> redact_url("https://user:pw@h/x")
    'https://REDACTED@h/x'
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
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_text(text: str, secrets: Iterable[str]) -> str:
    """Replace every occurrence of each secret (raw and URL-quoted) with ``REDACTED``.

    >>> redact_text("GET /x?authKey=s3cr%2Bt failed", ["s3cr+t"])
    'GET /x?authKey=REDACTED failed'
    """
    for secret in secrets:
        if not secret:
            continue
        for form in {secret, quote(secret, safe=""), quote(secret)}:
            text = text.replace(form, REDACTED)
    return text


def host_of(url: str) -> str:
    """The lower-case host name of a URL (empty when there is none).

    >>> host_of("https://WWW.fss.or.kr:443/x")
    'www.fss.or.kr'
    """
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def _is_internal(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
    )


def system_resolver(host: str) -> Sequence[str]:
    """Resolve a host name with the operating system (no caching)."""
    infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    return [str(info[4][0]) for info in infos]


def _refuse(why: str) -> UnsafeUrlError:
    return UnsafeUrlError(f"attachment URL refused: {why}")


def validate_attachment_url(
    raw: str,
    *,
    api_url: str,
    allow_hosts: Iterable[str] = (),
    path_prefixes: Sequence[str] = (),
    resolver: Resolver | None = system_resolver,
) -> str:
    """Return the cleaned attachment URL, or raise :class:`UnsafeUrlError`.

    Rules: ``&amp;`` unescaped; ``http``/``https`` only; no userinfo; the host must be
    the API's own host or in ``allow_hosts``; a host (IP literal, or a name resolved
    with ``resolver``) pointing at a private, loopback or link-local address is refused
    unless it is the API's own host; the path must not climb (``..``) and, when
    ``path_prefixes`` is given, must start with one of them.

    >>> api = "http://127.0.0.1:8000/fss/kr/openApi/api/bodoInfo.jsp"
    >>> validate_attachment_url("http://127.0.0.1:8000/fss/cmmn/file/f.do?fileSn=1", api_url=api)
    'http://127.0.0.1:8000/fss/cmmn/file/f.do?fileSn=1'
    >>> validate_attachment_url("http://u:p@127.0.0.1:8000/f", api_url=api)
    Traceback (most recent call last):
    ...
    hwpscan.errors.UnsafeUrlError: attachment URL refused: it carries a user name or password
    >>> validate_attachment_url("https://10.0.0.5/f", api_url=api, allow_hosts=["10.0.0.5"])
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hwpscan.errors.UnsafeUrlError: attachment URL refused: host 10.0.0.5 is a private, ... address
    """
    text = (raw or "").strip().replace("&amp;", "&")
    if not text:
        raise _refuse("empty URL")
    if any(ord(c) < 0x21 or c in "\\\x7f" for c in text):
        raise _refuse("it contains spaces, control characters or backslashes")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise _refuse(f"it cannot be parsed ({exc})") from exc
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise _refuse(f"scheme {scheme or '(none)'!r} is not http or https")
    if "@" in parts.netloc:
        raise _refuse("it carries a user name or password")
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        raise _refuse("it has no host")
    api = urlsplit(api_url)
    api_host = (api.hostname or "").lower()
    own = host == api_host and (port or _default_port(scheme)) == (
        api.port or _default_port(api.scheme)
    )
    allowed = {api_host, *(h.lower().rstrip(".") for h in allow_hosts)}
    if host not in allowed:
        raise _refuse(f"host {host} is not the API's host {api_host} nor allowed with --allow-host")
    if not own:
        _check_addresses(host, resolver)
    path = unquote(parts.path)
    if ".." in path.split("/"):
        raise _refuse("its path climbs with '..'")
    if path_prefixes and not any(parts.path.startswith(p) for p in path_prefixes):
        raise _refuse(f"path {parts.path!r} is not an expected download path")
    return urlunsplit((scheme, parts.netloc, parts.path or "/", parts.query, ""))


def _default_port(scheme: str) -> int:
    return 443 if scheme.lower() == "https" else 80


def _ip_literal(host: str) -> str | None:
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return None


def _check_addresses(host: str, resolver: Resolver | None) -> None:
    literal = _ip_literal(host)
    if literal is not None:
        if _is_internal(literal):
            raise _refuse(f"host {host} is a private, loopback or link-local address")
        return
    if resolver is None:
        return
    try:
        addresses = resolver(host)
    except OSError as exc:
        raise _refuse(f"host {host} does not resolve ({exc.strerror or exc})") from exc
    bad = [a for a in addresses if _is_internal(a)]
    if bad:
        raise _refuse(f"host {host} resolves to the internal address {bad[0]}")
