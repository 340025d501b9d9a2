"""HWP 5.0 format knowledge as data, each fact with where it comes from.

Source, unless a line says otherwise: Hancom, "한글 문서 파일 형식 5.0" (Hwp Document
File Formats 5.0), revision 1.3 (2018-11-08), cited below as "spec" with its section and
table numbers. Both the reader (:mod:`hwpscan.formats.hwp5`) and the fixture writer
(:mod:`hwpscan.rehearsal.synth.hwp5_writer`) take their constants from here, so they
cannot drift apart.

>>> version_text(0x05010001)
'5.1.0.1'
>>> flag_names(0b101)
('compressed', 'distribution')
"""

from __future__ import annotations

import functools
import re
from typing import Final

# --- Container: spec §3.1 "파일 구조 요약", §3.2 "스토리지별 저장 정보" -------------------

FILE_HEADER_STREAM: Final = "FileHeader"  # spec §3.2.1 파일 인식 정보
DOCINFO_STREAM: Final = "DocInfo"  # spec §3.2.2 문서 정보
BODYTEXT_STORAGE: Final = "BodyText"  # spec §3.2.3 본문
VIEWTEXT_STORAGE: Final = "ViewText"  # spec §3.2.3: distribution documents keep it here
PRVTEXT_STREAM: Final = "PrvText"  # spec §3.2.6 미리보기 텍스트 (UTF-16LE, never compressed)
SUMMARY_STREAM: Final = "\x05HwpSummaryInformation"  # spec §3.2.4 문서 요약
#: FMTID of the one property set in the summary stream (spec §3.2.4; Hancom also puts it
#: in the stream header's CLSID).
SUMMARY_FMTID: Final = "9fa2b660-1061-11d4-b4c6-006097c09d8c"
#: ``BodyText/Section0`` ...: sections are ordered by this number (spec §3.2.3).
SECTION_RE: Final = re.compile(r"^(BodyText|ViewText)/Section(\d+)$", re.IGNORECASE)

# --- FileHeader: spec §3.2.1 (256 bytes) ---------------------------------------------------

#: 32-byte signature, NUL padded.
SIGNATURE_TEXT: Final = b"HWP Document File"
SIGNATURE: Final = SIGNATURE_TEXT.ljust(32, b"\0")
FILE_HEADER_SIZE: Final = 256
#: The version DWORD is 0xMMnnPPrr: major, minor, build, revision.
VERSION_OFFSET: Final = 32
#: First property DWORD.
PROPERTIES_OFFSET: Final = 36

# Property bits of the first property DWORD (spec §3.2.1, "속성" table).
FLAG_COMPRESSED: Final = 1 << 0  # 압축 여부
FLAG_PASSWORD: Final = 1 << 1  # 암호 설정 여부
FLAG_DISTRIBUTION: Final = 1 << 2  # 배포용 문서 여부
FLAG_SCRIPT: Final = 1 << 3  # 스크립트 저장 여부
FLAG_DRM: Final = 1 << 4  # DRM 보안 문서 여부
FLAG_XML_TEMPLATE: Final = 1 << 5  # XMLTemplate 스토리지 존재 여부
FLAG_HISTORY: Final = 1 << 6  # 문서 이력 관리 존재 여부
FLAG_SIGNATURE: Final = 1 << 7  # 전자 서명 정보 존재 여부
FLAG_CERT_ENCRYPTION: Final = 1 << 8  # 공인 인증서 암호화 여부
FLAG_SIGNATURE_SPARE: Final = 1 << 9  # 전자 서명 예비 저장 여부
FLAG_CERT_DRM: Final = 1 << 10  # 공인 인증서 DRM 보안 문서 여부
FLAG_CCL: Final = 1 << 11  # CCL 문서 여부

FLAG_NAMES: Final[dict[int, str]] = {
    FLAG_COMPRESSED: "compressed",
    FLAG_PASSWORD: "password",
    FLAG_DISTRIBUTION: "distribution",
    FLAG_SCRIPT: "script",
    FLAG_DRM: "drm",
    FLAG_XML_TEMPLATE: "xml_template",
    FLAG_HISTORY: "history",
    FLAG_SIGNATURE: "signature",
    FLAG_CERT_ENCRYPTION: "cert_encryption",
    FLAG_SIGNATURE_SPARE: "signature_spare",
    FLAG_CERT_DRM: "cert_drm",
    FLAG_CCL: "ccl",
}
#: Bits that make the body unreadable without a key (spec §3.2.1; DRM and certificate
#: encryption wrap the streams, a password encrypts them).
ENCRYPTION_FLAGS: Final = FLAG_PASSWORD | FLAG_DRM | FLAG_CERT_ENCRYPTION | FLAG_CERT_DRM

# --- Records: spec §4.1 데이터 레코드 ----------------------------------------------------------
# Header: one little-endian DWORD; tag id bits 0-9, level bits 10-19, size bits 20-31.
# Size 0xFFF: the real size follows as another DWORD.

TAG_MASK: Final = 0x3FF
LEVEL_SHIFT: Final = 10
SIZE_SHIFT: Final = 20
EXTENDED_SIZE: Final = 0xFFF

HWPTAG_BEGIN: Final = 0x10

# DocInfo tags (spec §4.2, 표 13 "문서 정보").
DOCUMENT_PROPERTIES: Final = HWPTAG_BEGIN + 0  # 16, 표 14
ID_MAPPINGS: Final = HWPTAG_BEGIN + 1  # 17, 표 15
FACE_NAME: Final = HWPTAG_BEGIN + 3  # 19, 표 19
BORDER_FILL: Final = HWPTAG_BEGIN + 4  # 20, 표 23
CHAR_SHAPE: Final = HWPTAG_BEGIN + 5  # 21, 표 33
TAB_DEF: Final = HWPTAG_BEGIN + 6  # 22, 표 36
BULLET: Final = HWPTAG_BEGIN + 8  # 24, 표 42
PARA_SHAPE: Final = HWPTAG_BEGIN + 9  # 25, 표 43
STYLE: Final = HWPTAG_BEGIN + 10  # 26, 표 47
DISTRIBUTE_DOC_DATA: Final = HWPTAG_BEGIN + 12  # 28, 표 51 (256 bytes)

# FACE_NAME property bits (spec 표 19): an alternative font name follows the name (after
# a type byte), 10 bytes of font type information follow, a default font name follows.
FACE_HAS_ALTERNATIVE: Final = 0x80
FACE_HAS_TYPE_INFO: Final = 0x40
FACE_HAS_DEFAULT: Final = 0x20
FACE_TYPE_INFO_BYTES: Final = 10

# BodyText tags (spec §4.3, 표 57 "본문").
PARA_HEADER: Final = HWPTAG_BEGIN + 50  # 66, 표 58
PARA_TEXT: Final = HWPTAG_BEGIN + 51  # 67, 표 60
PARA_CHAR_SHAPE: Final = HWPTAG_BEGIN + 52  # 68, 표 61
PARA_LINE_SEG: Final = HWPTAG_BEGIN + 53  # 69, 표 62
CTRL_HEADER: Final = HWPTAG_BEGIN + 55  # 71, 표 64
LIST_HEADER: Final = HWPTAG_BEGIN + 56  # 72, 표 65
PAGE_DEF: Final = HWPTAG_BEGIN + 57  # 73
FOOTNOTE_SHAPE: Final = HWPTAG_BEGIN + 58  # 74
PAGE_BORDER_FILL: Final = HWPTAG_BEGIN + 59  # 75
SHAPE_COMPONENT: Final = HWPTAG_BEGIN + 60  # 76
TABLE: Final = HWPTAG_BEGIN + 61  # 77
SHAPE_COMPONENT_RECTANGLE: Final = HWPTAG_BEGIN + 63  # 79

# --- PARA_TEXT control characters: spec §3.2.3, 표 6 "제어 문자" ------------------------------
# Units 0-31 are controls. char: 1 unit. inline and extended: 8 units (the code, six
# parameter units, the code again); an extended control's parameters begin with the
# control id of its CTRL_HEADER record.

INLINE_CONTROLS: Final = frozenset({4, 5, 6, 7, 8, 9, 19, 20})
EXTENDED_CONTROLS: Final = frozenset({1, 2, 3, 11, 12, 14, 15, 16, 17, 18, 21, 22, 23})
CONTROL_UNITS: Final = 8

LINE_BREAK: Final = 10  # 한 줄 끝 (line break)
PARA_BREAK: Final = 13  # 문단 끝
HYPHEN: Final = 24  # 하이픈
NBSP: Final = 30  # 묶음 빈칸
FIXED_SPACE: Final = 31  # 고정폭 빈칸
TAB: Final = 9  # 탭 (inline)
SECTION_COLUMN_DEF: Final = 2  # 구역 정의/단 정의 (extended)
DRAWING_TABLE: Final = 11  # 그리기 개체/표 (extended)
HEADER_FOOTER: Final = 16  # 머리말/꼬리말 (extended)
FOOTNOTE_ENDNOTE: Final = 17  # 각주/미주 (extended)

#: What hwpscan puts in the text for a control that stands for a character. Widths are
#: kept: a 1-unit control becomes 1 character, so offsets stay exact. TAB (8 units) is
#: emitted as its own one-character segment. Every other control is dropped.
CHAR_REPLACEMENTS: Final[dict[int, str]] = {
    LINE_BREAK: "\n",
    HYPHEN: "-",
    NBSP: "\u00a0",
    FIXED_SPACE: " ",
}

# --- MS-CFB names of other OLE containers (facts from [MS-OFFCRYPTO] §2.3.4) --------------
#: Streams whose presence means an encrypted Office document (ECMA-376 encryption).
OFFICE_ENCRYPTION_STREAMS: Final = ("EncryptedPackage", "EncryptionInfo", "\x06DataSpaces")


def ctrl_id_word(name: str) -> int:
    """The DWORD of a four-character control id.

    >>> hex(ctrl_id_word("tbl "))
    '0x74626c20'
    """
    raw = name.encode("ascii")
    if len(raw) != 4:
        raise ValueError(f"a control id has four characters, not {name!r}")
    return int.from_bytes(raw, "big")


@functools.lru_cache(maxsize=256)  # files of one writer share the few words there are
def version_text(word: int) -> str:
    """``major.minor.build.revision`` of a FileHeader version DWORD."""
    return ".".join(str((word >> shift) & 0xFF) for shift in (24, 16, 8, 0))


@functools.lru_cache(maxsize=256)
def flag_names(flags: int) -> tuple[str, ...]:
    """Names of the property bits set in *flags*, lowest bit first."""
    return tuple(name for bit, name in FLAG_NAMES.items() if flags & bit)
