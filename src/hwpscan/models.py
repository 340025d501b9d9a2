"""The data that flows through hwpscan, frozen and typed: a reader turns bytes into a
:class:`Document`, the detectors turn it into a :class:`FileResult`, reports render it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import NamedTuple


class Format(str, enum.Enum):
    """What a file is, decided by its content (never by its extension)."""

    HWP5 = "hwp5"
    HWPX = "hwpx"
    PDF = "pdf"
    HWP3 = "hwp3"
    HTML = "html"
    OLE = "ole"
    ZIP = "zip"
    EMPTY = "empty"
    UNKNOWN = "unknown"


class Status(str, enum.Enum):
    """The verdict on one file (``contaminated``: the codeunit view of the body holds a
    surrogate, so the text a naive pipeline produces cannot be encoded as UTF-8)."""

    CLEAN = "clean"
    CONTAMINATED = "contaminated"
    ENCRYPTED = "encrypted"
    DISTRIBUTION = "distribution"
    UNSUPPORTED = "unsupported"
    CORRUPT = "corrupt"
    ERROR = "error"

    @property
    def scanned(self) -> bool:
        """True when the body text could be read and judged."""
        return self in (Status.CLEAN, Status.CONTAMINATED)


class ExitCode(enum.IntEnum):
    """Process exit codes; when a command has several outcomes (the files, the matrix, a
    stopped fetch), :func:`combine_exit_codes` picks the one."""

    OK = 0
    FINDINGS = 1  # --fail-on matched, verify mismatch, check-json found bad strings
    USAGE = 2  # bad arguments or dates
    API = 3  # the API or its limits stopped the run (quota, refusal, network)
    INCONCLUSIVE = 4  # verify: no date failed, but some date proved nothing
    INTERNAL = 70  # a bug in hwpscan (EX_SOFTWARE): never confused with --fail-on's 1


#: ``verify``'s order: a proven failure outranks a stopped fetch, which outranks a date
#: that proved nothing (a scan, by default, lets the highest code win instead).
VERIFY_PRECEDENCE = (ExitCode.FINDINGS, ExitCode.API, ExitCode.INCONCLUSIVE)


def combine_exit_codes(*codes: int, precedence: tuple[int, ...] = ()) -> int:
    """The one exit code of a command that has several outcomes: the first code of
    *precedence* present, else the highest (a bug's 70 over all, a stopped fetch's 3 over
    findings' 1); nothing at all is OK.

    >>> combine_exit_codes()
    <ExitCode.OK: 0>
    >>> combine_exit_codes(ExitCode.FINDINGS, ExitCode.OK, ExitCode.API)
    <ExitCode.API: 3>
    >>> combine_exit_codes(ExitCode.INCONCLUSIVE, ExitCode.FINDINGS, precedence=VERIFY_PRECEDENCE)
    <ExitCode.FINDINGS: 1>
    >>> combine_exit_codes(ExitCode.OK, 130)
    130
    """
    present = set(codes)
    chosen = next((c for c in precedence if c in present), max(present, default=0))
    try:
        return ExitCode(chosen)
    except ValueError:
        return chosen


class Segment(NamedTuple):
    """A run of extracted text and where it came from (a named tuple: readers make tens
    of thousands a second).

    ``text`` is the *codeunit view*: for HWP 5 every UTF-16 code unit became one code
    point, as the defective pipeline parser produced it (a PUA-A character is two
    surrogates); for HWPX and PDF, what the extractor returned. For HWP 5, ``paragraph``
    counts every PARA_HEADER record of the section stream at any level in document order
    (a table cell's paragraphs follow the one holding the control) and ``offset`` is in
    code units of its PARA_TEXT record; elsewhere ``offset`` counts characters.
    """

    stream: str
    paragraph: int
    offset: int
    text: str


class PlainCounts(NamedTuple):
    """What the segments of a text without surrogate or private-use units would hold,
    counted by a reader instead of segmented: ``chars`` as
    :func:`hwpscan.forensics.surrogates.analyze` counts them (line ends not counted),
    ``units`` every character of their text."""

    chars: int
    units: int


@dataclass(frozen=True, slots=True)
class ReadInfo:
    """What a reader tells besides the text (``None`` where a format has no such field).

    HWP 5: ``version``, ``compressed``, ``flags`` (FileHeader bits set, by name),
    ``paragraphs``, ``sections``; with ``count_plain_body``, a plain body, preview or set
    of DocInfo names is counted, not segmented (``plain_body``, ``plain_preview``,
    ``plain_meta``; the :class:`Document`'s field is then empty). Another OLE file:
    ``streams``. HWPX: ``sections``, ``paragraphs``. PDF: ``pages``, ``pages_read``, the
    ``engine`` (``"pdfium"`` or ``"pypdf"``).
    """

    version: str | None = None
    compressed: bool | None = None
    flags: tuple[str, ...] = ()
    paragraphs: int | None = None
    sections: int | None = None
    streams: int | None = None
    pages: int | None = None
    pages_read: int | None = None
    engine: str | None = None
    plain_body: PlainCounts | None = None
    plain_preview: PlainCounts | None = None
    plain_meta: PlainCounts | None = None


#: What a reader that says nothing more tells.
NO_INFO = ReadInfo()


@dataclass(frozen=True, slots=True)
class Document:
    """What a reader extracted from one file: the ``body`` text, and apart from it the
    ``preview`` (HWP 5 ``PrvText``) and ``meta`` (DocInfo names). ``status`` and
    ``reason`` are set by a reader that could not read the body; ``warnings`` collect
    damage that did not stop the read.
    """

    format: Format
    body: tuple[Segment, ...] = ()
    preview: tuple[Segment, ...] = ()
    meta: tuple[Segment, ...] = ()
    status: Status | None = None
    reason: str | None = None
    warnings: tuple[str, ...] = ()
    info: ReadInfo = NO_INFO


class Location(NamedTuple):
    """One defect: where it is and what it is, with an escaped context snippet."""

    stream: str
    paragraph: int
    offset: int
    codepoint: str  # "U+F02B1" for a pair (the character it encodes), "U+DC00" for an orphan
    kind: str  # "pair" (a high+low pair, reported at its high half), "orphan", "pua"
    units: str  # the UTF-16 code units involved, e.g. "DB80 DEB1"
    context: str  # escaped, e.g. "앞 글자 \\udb80\\udeb1 뒤"


@dataclass(frozen=True, slots=True)
class TextStats:
    """Forensic counts over a sequence of segments."""

    chars: int = 0  # characters in the strict view, line ends not counted
    surrogates: int = 0  # surrogate code points in the codeunit view
    pairs: int = 0  # adjacent high+low pairs (each pair counts once)
    orphans: int = 0  # surrogate code points with no partner
    utf8_ok: bool = True
    utf8_error: str | None = None
    pua: dict[str, int] = field(default_factory=dict)  # {"U+F02B1": 3}
    replacement_chars: int = 0  # U+FFFD present in the text
    locations: tuple[Location, ...] = ()


#: The ways HWP text goes wrong, in the order every report lists them (see
#: :class:`Defects`).
DEFECT_CLASSES = (
    "split_pairs",
    "lone_halves",
    "folded_symbols",
    "pdf_folded",
    "old_hangul_pua",
    "unmapped_pua",
)


@dataclass(frozen=True, slots=True)
class Defects:
    """How often each way of going wrong occurs in a file's body text: ``split_pairs``
    (a character outside the BMP left as two halves: restored without loss),
    ``lone_halves`` (a half with no partner), ``folded_symbols`` (HWP 5: a plane-15
    symbol ``U+F0000|X`` stored as the BMP unit ``0xA000|X``), ``pdf_folded`` (PDF: a
    symbol written as U+F000 or U+FFFF, lost), ``old_hangul_pua`` (Hanyang private use,
    which has standard jamo) and ``unmapped_pua`` (private use with no known
    equivalent). One character can count in two classes.

    >>> Defects(split_pairs=2, unmapped_pua=1).present()
    ('split_pairs', 'unmapped_pua')
    >>> Defects().as_dict()["folded_symbols"]
    0
    """

    split_pairs: int = 0
    lone_halves: int = 0
    folded_symbols: int = 0
    pdf_folded: int = 0
    old_hangul_pua: int = 0
    unmapped_pua: int = 0

    def as_dict(self) -> dict[str, int]:
        """The counts by class name, in :data:`DEFECT_CLASSES` order."""
        return {name: getattr(self, name) for name in DEFECT_CLASSES}

    def present(self) -> tuple[str, ...]:
        """The classes that occur at least once, in :data:`DEFECT_CLASSES` order."""
        return tuple(name for name in DEFECT_CLASSES if getattr(self, name))

    @property
    def total(self) -> int:
        return sum(getattr(self, name) for name in DEFECT_CLASSES)

    @property
    def lossy(self) -> bool:
        """True when characters are shown as others though the text encodes (folded
        symbols, PDF folds: :data:`LOSSY_CLASSES`)."""
        return bool(self.folded_symbols or self.pdf_folded)

    @property
    def mask(self) -> int:
        """The classes present as bits (bit *i*: ``DEFECT_CLASSES[i]``), what a row
        carries so a tally needs no result built.

        >>> Defects(lone_halves=3, pdf_folded=1).mask, classes_of(0b1010), NO_DEFECTS.mask
        (10, ('lone_halves', 'pdf_folded'), 0)
        """
        if self is NO_DEFECTS:  # most files: nothing to look at
            return 0
        return sum(1 << i for i, name in enumerate(DEFECT_CLASSES) if getattr(self, name))


#: The counts of a body without any defect, shared (most rows have it).
NO_DEFECTS = Defects()

#: The classes whose characters a pipeline shows as other characters, or loses.
LOSSY_CLASSES = ("folded_symbols", "pdf_folded")


def classes_of(mask: int) -> tuple[str, ...]:
    """The class names of a :attr:`Defects.mask`."""
    return tuple(name for i, name in enumerate(DEFECT_CLASSES) if mask >> i & 1)


@dataclass(frozen=True, slots=True)
class RepairSummary:
    """What repairing a file's body text did (``--emit-repaired``, ``repair``)."""

    restored_pairs: int = 0
    removed_orphans: int = 0  # dropped, replaced or escaped, per the orphan policy
    pua_replaced: dict[str, int] = field(default_factory=dict)  # by a known standard character
    pua_kept: dict[str, int] = field(default_factory=dict)  # private-use with no known stand-in
    pua: str = "keep"  # the private-use mode: keep, map, placeholder or drop
    folded_restored: int = 0  # HWP 5 folded symbols turned back into their plane-15 code point
    old_hangul_mapped: int = 0  # Hanyang private-use characters written as standard jamo
    pua_dropped: dict[str, int] = field(default_factory=dict)  # removed (--pua drop)
    pua_placeheld: dict[str, int] = field(default_factory=dict)  # written as U+25A1
    target: str | None = None  # the file the repaired text was written to (older rows: none)


@dataclass(frozen=True, slots=True)
class FileResult:
    """The machine output contract: one object per file (its JSON Lines record:
    :func:`hwpscan.rowcodec.encode_row`). When no body text was read (``body_read``
    false) the record carries ``null`` for the body counts, so an unread file is never
    taken for a clean one; a file read in part keeps the counts of what was read.
    """

    path: str
    sha256: str
    bytes: int
    format: Format
    status: Status
    reason: str | None = None
    date: str | None = None
    body: TextStats = field(default_factory=TextStats)
    preview: TextStats | None = None
    meta: TextStats | None = None
    warnings: tuple[str, ...] = ()
    seconds: float = 0.0
    body_read: bool = True
    repair: RepairSummary | None = None
    #: The file's place in the scan's input (rows stream in as they complete).
    index: int | None = None
    #: The defect classes of the body (None: not counted; see :meth:`defect_counts`).
    defects: Defects | None = None

    @property
    def contaminated(self) -> bool:
        return self.status is Status.CONTAMINATED

    @property
    def lossy(self) -> bool:
        """True when the body read shows characters as others (folded symbols, PDF
        folds), whatever its status says of UTF-8."""
        found = self.defect_counts()
        return found is not None and found.lossy

    def defect_counts(self) -> Defects | None:
        """The body's defects: None when the body was not read; for a result made
        without them (an older record), the two classes its counts tell.

        >>> r = FileResult("a.hwp", "", 0, Format.HWP5, Status.CONTAMINATED,
        ...                body=TextStats(surrogates=3, pairs=1, orphans=1))
        >>> r.defect_counts().present()
        ('split_pairs', 'lone_halves')
        """
        if not self.body_read:
            return None
        if self.defects is not None:
            return self.defects
        return Defects(split_pairs=self.body.pairs, lone_halves=self.body.orphans)
