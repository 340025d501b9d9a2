"""An HWPX section declared in a multi-byte encoding (``euc-kr``, ``cp949``) is read as
declared, and its row says so; bytes that are not that encoding make it ``corrupt``
with a reason. Never an ``error`` row: that would be a bug of ours."""

from __future__ import annotations

import io
import zipfile

import pytest

from hwpscan.formats import hwpx
from hwpscan.models import Status
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from hwpscan.scanning.one_file import scan_bytes

TEXT = ["보도자료 본문", "둘째 문단"]


def _declared(encoding: str, *, body_as: str | None = None) -> bytes:
    """Our HWPX with section0.xml's declaration naming *encoding*, its bytes in
    *body_as* (default: *encoding* itself)."""
    source = zipfile.ZipFile(io.BytesIO(build_hwpx(TEXT)))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "Contents/section0.xml":
                xml = data.decode("utf-8")
                head, sep, rest = xml.partition("?>")
                assert sep and 'encoding="UTF-8"' in head, head
                xml = head.replace('encoding="UTF-8"', f'encoding="{encoding}"') + sep + rest
                data = xml.encode(body_as or encoding)
            target.writestr(info, data)
    return out.getvalue()


@pytest.fixture(params=["native", "python"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(hwpx.fast_readers, "hwpx_package", None)
    return str(request.param)


@pytest.mark.parametrize("encoding", ["euc-kr", "cp949", "EUC-KR", "utf-16"])
def test_a_section_in_a_declared_multibyte_encoding_is_read(encoding: str, path: str) -> None:
    row = scan_bytes(_declared(encoding), path="a.hwpx")
    assert row.status is Status.CLEAN, (row.status, row.reason)
    assert row.body.chars == sum(len(t) for t in TEXT)
    if encoding.lower() != "utf-16":  # expat reads UTF-16 itself
        assert any("decoded as its declaration says" in w for w in row.warnings), row.warnings


def test_bytes_that_are_not_the_declared_encoding_make_the_file_corrupt(path: str) -> None:
    row = scan_bytes(_declared("euc-kr", body_as="utf-8"), path="a.hwpx")
    assert row.status is Status.CORRUPT, (row.status, row.reason)
    assert row.reason and "section0.xml" in row.reason and "euc_kr" in row.reason


def test_an_encoding_python_lacks_is_corrupt(path: str) -> None:
    row = scan_bytes(_declared("x-no-such-code", body_as="utf-8"), path="a.hwpx")
    assert row.status is Status.CORRUPT, (row.status, row.reason)
