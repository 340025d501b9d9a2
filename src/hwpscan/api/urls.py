"""URL checks: the ``--api-url``, and every attachment URL the API hands out (input, not
instruction: scheme, userinfo, host allowlist, private addresses and path are checked).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterable, Sequence
from urllib.parse import unquote, urlsplit, urlunsplit

from hwpscan.errors import UnsafeUrlError, UsageError
from hwpscan.redaction import redact_url

#: Ports an attachment may use on a host without an explicit ``--allow-host host:port``.
WEB_PORTS = frozenset({80, 443})
#: Where the portal serves attachments (the real site and the emulator alike).
DEFAULT_DOWNLOAD_PATHS = ("/fss/cmmn/file/fileDown.do",)

#: Returns the IP addresses a host name resolves to.
Resolver = Callable[[str], Sequence[str]]


def short_url(url: str) -> str:
    """A URL as a line of output names it: host, port and path, without the scheme, the
    user part or the query (where a key travels).

    >>> short_url("https://u:p@www.fss.or.kr/fss/kr/openApi/api/bodoInfo.jsp?authKey=K&x=1")
    'www.fss.or.kr/fss/kr/openApi/api/bodoInfo.jsp'
    >>> short_url("http://127.0.0.1:8123/api")
    '127.0.0.1:8123/api'
    >>> short_url("not a url")
    'not a url'
    """
    try:
        parts = urlsplit(url)
        if parts.hostname:
            return (f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname) + parts.path
    except ValueError:
        pass
    return redact_url(url)


_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def is_internal(address: str) -> bool:
    """True for any address that is not plainly public, or that embeds an IPv4 address
    (mapped, compatible, 6to4, Teredo, NAT64) that is not.

    >>> [is_internal(a) for a in ("93.184.216.34", "100.64.0.1", "2002:7f00:1::", "::1")]
    [False, True, True, True]
    >>> is_internal("::ffff:10.0.0.1"), is_internal("64:ff9b::7f00:1"), is_internal("fe80::1%eth0")
    (True, True, True)
    """
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if not ip.is_global or ip.is_multicast:
        return True
    if not isinstance(ip, ipaddress.IPv6Address):
        return False
    inner = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
    if ip.packed[:12] == bytes(12) or ip in _NAT64:
        inner.append(ipaddress.IPv4Address(ip.packed[12:]))
    return any(v4 is not None and (not v4.is_global or v4.is_multicast) for v4 in inner)


def check_api_url(url: str) -> str:
    """The ``--api-url`` as given, or :class:`UsageError` when no request could be made to it.

    >>> check_api_url("not a url")
    Traceback (most recent call last):
    ...
    hwpscan.errors.UsageError: --api-url 'not a url' contains spaces or control characters
    """
    text = url or ""
    if not text.strip():
        raise UsageError("--api-url is empty")
    if any(ord(c) < 0x21 or c in "\\\x7f" for c in text):
        raise UsageError(f"--api-url {redact_url(text)!r} contains spaces or control characters")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise UsageError(f"--api-url {redact_url(text)!r} cannot be parsed ({exc})") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise UsageError(
            f"--api-url must be an http or https URL, not scheme {parts.scheme or '(none)'!r}"
        )
    if not parts.hostname:
        raise UsageError(f"--api-url {redact_url(text)!r} has no host")
    if "@" in parts.netloc:
        raise UsageError("--api-url must not carry a user name or password")
    if port == 0:
        raise UsageError("--api-url has port 0")
    return text


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
    """The cleaned attachment URL (``&amp;`` unescaped), or :class:`UnsafeUrlError`: http(s)
    only, no userinfo, the API's host or an allowed public one, a path that does not
    climb and lies under one of ``path_prefixes`` (when given).

    >>> api = "http://127.0.0.1:8000/fss/kr/openApi/api/bodoInfo.jsp"
    >>> validate_attachment_url("http://127.0.0.1:8000/f.do?a=1&amp;fileSn=1", api_url=api)
    'http://127.0.0.1:8000/f.do?a=1&fileSn=1'
    """
    text = unescape_amp((raw or "").strip())
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
    port = _default_port(scheme) if port is None else port
    _check_host(host, port, api_url, allow_hosts, resolver)
    if ".." in re.split(r"[/;]", unquote(parts.path)):  # even percent-encoded
        raise _refuse("its path climbs with '..'")
    if path_prefixes and not any(path_matches(parts.path, p) for p in path_prefixes):
        raise _refuse(f"path {parts.path!r} is not an expected download path")
    return urlunsplit((scheme, parts.netloc, parts.path or "/", parts.query, ""))


def _check_host(
    host: str, port: int, api_url: str, allow_hosts: Iterable[str], resolver: Resolver | None
) -> None:
    """The API's own host and port, or an allowed host at a public address on 80/443, the
    API's port on its host, or a port named with ``--allow-host HOST:PORT``."""
    api = urlsplit(api_url)
    api_host = (api.hostname or "").lower().rstrip(".")
    api_port = api.port or _default_port(api.scheme)
    if host == api_host and port == api_port:
        return  # the API's own host: where the API itself is, private or not
    ports = _allowed_ports(allow_hosts)
    if host != api_host and host not in ports:
        raise _refuse(f"host {host} is not the API's host {api_host} nor allowed with --allow-host")
    _check_addresses(host, resolver)
    permitted = ports.get(host) or set(WEB_PORTS)
    if host == api_host:
        permitted |= {api_port}
    if port not in permitted:
        raise _refuse(
            f"port {port} on {host} is not the API's port or 80/443 "
            "(allow it with --allow-host HOST:PORT)"
        )


def unescape_amp(text: str) -> str:
    """Undo ``&amp;`` however many times it was escaped (and nothing else).

    >>> unescape_amp("a=1&amp;amp;amp;b=2&amp;c=3&copy=4")
    'a=1&b=2&c=3&copy=4'
    """
    while "&amp;" in text:
        text = text.replace("&amp;", "&")
    return text


def path_matches(path: str, prefix: str) -> bool:
    """True when ``path`` is ``prefix`` itself or lies under it (a whole segment, not a string).

    >>> [path_matches(p, "/f/fileDown.do") for p in ("/f/fileDown.do", "/f/fileDown.doEVIL")]
    [True, False]
    >>> path_matches("/f/fileDown.do;jsessionid=1", "/f/fileDown.do"), path_matches("/f/a", "/f/")
    (True, True)
    """
    if not prefix:
        return False
    if path == prefix or (prefix.endswith("/") and path.startswith(prefix)):
        return True
    return path.startswith(prefix) and path[len(prefix)] in "/;"


def _allowed_ports(allow_hosts: Iterable[str]) -> dict[str, set[int]]:
    """``--allow-host`` entries (``host`` or ``host:port``) as host -> extra ports."""
    out: dict[str, set[int]] = {}
    for entry in allow_hosts:
        text = entry.strip()
        try:
            parts = urlsplit("//" + text)
            host, port = (parts.hostname or "").lower().rstrip("."), parts.port
        except ValueError:
            host, port = text.lower().rstrip("."), None
        if host:
            out.setdefault(host, set()).update({port} if port else set())
    return out


def _default_port(scheme: str) -> int:
    return 443 if scheme.lower() == "https" else 80


def _check_addresses(host: str, resolver: Resolver | None) -> None:
    try:
        literal: str | None = str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        literal = None
    if literal is not None:
        if is_internal(literal):
            raise _refuse(
                f"host {host} is not a public address (private, loopback, link-local, "
                "shared or reserved)"
            )
        return
    if resolver is None:
        return
    try:
        addresses = resolver(host)
    except OSError as exc:
        raise _refuse(f"host {host} does not resolve ({exc.strerror or exc})") from exc
    except ValueError as exc:  # UnicodeError from IDNA: a label over 63 characters
        raise _refuse(f"host {host} is not a valid host name ({exc})") from exc
    for address in addresses:
        try:
            bad = is_internal(address)
        except ValueError:
            bad = True
        if bad:
            raise _refuse(f"host {host} resolves to the internal address {address}")
