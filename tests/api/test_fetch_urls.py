"""Attachment URL validation: every refusal rule, and the redaction helpers."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from hwpscan.api.urls import validate_attachment_url
from hwpscan.errors import UnsafeUrlError
from hwpscan.redaction import redact_text, redact_url

API = "https://www.fss.or.kr/fss/kr/openApi/api/bodoInfo.jsp"
LOCAL_API = "http://127.0.0.1:8765/fss/kr/openApi/api/bodoInfo.jsp"
GOOD = "https://www.fss.or.kr/fss/cmmn/file/fileDown.do?menuNo=1&atchFileId=ab&fileSn=1"
PREFIXES = ("/fss/cmmn/file/fileDown.do",)


def fake_dns(table: dict[str, Sequence[str]]):
    def resolve(host: str) -> Sequence[str]:
        if host not in table:
            raise OSError(-2, "Name or service not known")
        return table[host]

    return resolve


DNS = fake_dns(
    {
        "files.example.org": ["93.184.216.34"],
        "rebind.example.org": ["10.1.2.3"],
        "v6local.example.org": ["fe80::1"],
    }
)

REFUSED = [
    ("javascript:alert(1)", API, (), "scheme 'javascript'"),
    ("file:///etc/passwd", API, (), "scheme 'file'"),
    ("ftp://www.fss.or.kr/x", API, (), "scheme 'ftp'"),
    ("//www.fss.or.kr/fss/cmmn/file/fileDown.do", API, (), r"scheme '\(none\)'"),
    ("https://user:pw@www.fss.or.kr/fss/cmmn/file/fileDown.do", API, (), "user name or password"),
    (
        "https://www.fss.or.kr@evil.example/fss/cmmn/file/fileDown.do",
        API,
        (),
        "user name or password",
    ),
    ("https://evil.example/fss/cmmn/file/fileDown.do", API, (), "not the API's host"),
    ("https://www.fss.or.kr.evil.example/fss/cmmn/file/fileDown.do", API, (), "not the API's host"),
    ("http://127.0.0.1/fss/cmmn/file/fileDown.do", API, ("127.0.0.1",), "loopback"),
    ("http://127.0.0.1:9999/fss/cmmn/file/fileDown.do", LOCAL_API, (), "loopback"),
    ("http://169.254.169.254/fss/cmmn/file/fileDown.do", API, ("169.254.169.254",), "link-local"),
    ("http://[::1]/fss/cmmn/file/fileDown.do", API, ("::1",), "loopback"),
    ("http://192.168.0.10/fss/cmmn/file/fileDown.do", API, ("192.168.0.10",), "private"),
    (
        "https://rebind.example.org/fss/cmmn/file/fileDown.do",
        API,
        ("rebind.example.org",),
        "internal address 10.1.2.3",
    ),
    (
        "https://v6local.example.org/fss/cmmn/file/fileDown.do",
        API,
        ("v6local.example.org",),
        "internal address",
    ),
    (
        "https://nowhere.example.org/fss/cmmn/file/fileDown.do",
        API,
        ("nowhere.example.org",),
        "does not resolve",
    ),
    ("https://www.fss.or.kr/fss/cmmn/file/../../admin/fileDown.do", API, (), "climbs"),
    ("https://www.fss.or.kr/fss/cmmn/file/%2e%2e/x", API, (), "climbs"),
    ("https://www.fss.or.kr/admin/delete.do?id=1", API, (), "not an expected download path"),
    ("https://www.fss.or.kr/fss/cmmn/file/fileDown.do?a=1 b", API, (), "spaces"),
    ("https://www.fss.or.kr\\@evil.example/x", API, (), "backslashes"),
    ("", API, (), "empty URL"),
]


@pytest.mark.parametrize(("url", "api", "allow", "why"), REFUSED)
def test_unsafe_urls_are_refused_with_the_rule_that_caught_them(
    url: str, api: str, allow: tuple[str, ...], why: str
) -> None:
    with pytest.raises(UnsafeUrlError, match=why):
        validate_attachment_url(
            url, api_url=api, allow_hosts=allow, path_prefixes=PREFIXES, resolver=DNS
        )


def test_real_shape_is_accepted_and_amp_unescaped() -> None:
    raw = GOOD.replace("&", "&amp;")
    assert validate_attachment_url(raw, api_url=API, path_prefixes=PREFIXES, resolver=DNS) == GOOD


def test_the_api_host_may_be_loopback_same_port() -> None:
    url = "http://127.0.0.1:8765/fss/cmmn/file/fileDown.do?fileSn=1"
    assert (
        validate_attachment_url(url, api_url=LOCAL_API, path_prefixes=PREFIXES, resolver=None)
        == url
    )


def test_allow_host_adds_a_public_host() -> None:
    url = "https://files.example.org/fss/cmmn/file/fileDown.do?x=1"
    assert (
        validate_attachment_url(
            url,
            api_url=API,
            allow_hosts=["FILES.example.org"],
            path_prefixes=PREFIXES,
            resolver=DNS,
        )
        == url
    )


def test_redact_url_hides_every_secret_parameter() -> None:
    url = "https://h/p?apiType=json&authKey=K1&serviceKey=K2&startDate=2025-07-21"
    out = redact_url(url)
    assert "K1" not in out and "K2" not in out
    assert (
        out == "https://h/p?apiType=json&authKey=REDACTED&serviceKey=REDACTED&startDate=2025-07-21"
    )
    assert redact_url("https://h/p?a=1") == "https://h/p?a=1"


def test_redact_text_catches_quoted_forms() -> None:
    secret = "TEST/KEY+1="
    text = f"url ?authKey=TEST%2FKEY%2B1%3D and raw {secret}"
    assert secret not in redact_text(text, [secret]) and "TEST%2FKEY" not in redact_text(
        text, [secret]
    )


# Review findings: gaps a hostile answer could use.
PUBLIC_DNS = fake_dns({"www.fss.or.kr": ["211.252.1.10"], "cdn.example.org": ["93.184.216.34"]})
HARDENED = [
    ("https://www.fss.or.kr/fss/cmmn/file/fileDown.doEVIL", (), "not an expected download path"),
    ("https://www.fss.or.kr/fss/cmmn/file/fileDown.do.bak", (), "not an expected download path"),
    ("https://www.fss.or.kr/fss/cmmn/file/fileDown.do;x=/../../a", (), "climbs"),
    ("http://100.64.0.1/fss/cmmn/file/fileDown.do", ("100.64.0.1",), "not a public address"),
    ("http://[2002:7f00:1::]/fss/cmmn/file/fileDown.do", ("[2002:7f00:1::]",), "not a public"),
    ("http://[::127.0.0.1]/fss/cmmn/file/fileDown.do", ("[::127.0.0.1]",), "not a public"),
    ("http://[64:ff9b::a00:1]/fss/cmmn/file/fileDown.do", ("[64:ff9b::a00:1]",), "not a public"),
    ("https://www.fss.or.kr:0/fss/cmmn/file/fileDown.do", (), "port 0 "),
    ("http://www.fss.or.kr:6379/fss/cmmn/file/fileDown.do", (), "port 6379"),
    ("https://cdn.example.org:8443/fss/cmmn/file/fileDown.do", ("cdn.example.org",), "port 8443"),
]


@pytest.mark.parametrize(("url", "allow", "why"), HARDENED)
def test_review_gaps_are_refused(url: str, allow: tuple[str, ...], why: str) -> None:
    with pytest.raises(UnsafeUrlError, match=why):
        validate_attachment_url(
            url, api_url=API, allow_hosts=allow, path_prefixes=PREFIXES, resolver=PUBLIC_DNS
        )


def test_an_allowed_port_is_accepted_and_the_path_may_continue_below_the_prefix() -> None:
    url = "https://cdn.example.org:8443/fss/cmmn/file/fileDown.do;jsessionid=1?fileSn=1"
    accepted = validate_attachment_url(
        url,
        api_url=API,
        allow_hosts=["cdn.example.org:8443"],
        path_prefixes=PREFIXES,
        resolver=PUBLIC_DNS,
    )
    assert accepted == url


def test_nested_amp_escapes_are_all_undone() -> None:
    raw = GOOD.replace("&", "&amp;amp;amp;")
    assert validate_attachment_url(raw, api_url=API, path_prefixes=PREFIXES, resolver=DNS) == GOOD


@pytest.mark.parametrize("error", [UnicodeError("label empty or too long"), ValueError("bad")])
def test_a_resolver_error_of_any_kind_is_a_refusal(error: Exception) -> None:
    def resolver(host: str) -> Sequence[str]:
        raise error

    with pytest.raises(UnsafeUrlError, match="not a valid host name"):
        validate_attachment_url(
            "https://cdn.example.org/fss/cmmn/file/fileDown.do",
            api_url=API,
            allow_hosts=["cdn.example.org"],
            path_prefixes=PREFIXES,
            resolver=resolver,
        )


def test_an_over_long_label_through_the_system_resolver_is_a_refusal() -> None:
    host = "a" * 70 + ".example"
    with pytest.raises(UnsafeUrlError):
        validate_attachment_url(
            f"https://{host}/fss/cmmn/file/fileDown.do",
            api_url=API,
            allow_hosts=[host],
            path_prefixes=PREFIXES,
        )


@pytest.mark.parametrize(
    "url",
    [
        "https://h/f.do?fileSn=1&crtfc_key=K3yZ9q",
        "https://h/f.do;authKey=K3yZ9q?fileSn=1",
        "https://h/f.do?fileSn=1#token=K3yZ9q",
    ],
)
def test_redact_url_covers_path_parameters_fragments_and_more_names(url: str) -> None:
    assert "K3yZ9q" not in redact_url(url)


@pytest.mark.parametrize("bad", ["ftp://x/y", "not a url", "http://", "https://h:99999/x", ""])
def test_check_api_url_refuses_what_no_request_can_use(bad: str) -> None:
    from hwpscan.api.urls import check_api_url
    from hwpscan.errors import UsageError

    with pytest.raises(UsageError, match="--api-url"):
        check_api_url(bad)
