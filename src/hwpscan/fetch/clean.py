"""Display-only cleaning of the API's body and subject text.

The API's text fields carry HTML tags, entities, and JSON escapes that lost their
backslash (``nn`` for a blank line, ``rn``, ``u203B`` for ※). These functions make a
readable string for display; the raw answer stays untouched in the response cache.

>>> clean_text("<p>금융감독원은nn이번 u203B 조치를 &quot;강화&quot;한다</p>")
'금융감독원은\\n\\n이번 ※ 조치를 "강화"한다'
"""

from __future__ import annotations

import html
import re

_TAG_RE = re.compile(r"<\s*(br|/p|/div|/li|/tr)\b[^>]*>|<[^>]+>", re.IGNORECASE)
#: ``u`` + four hex digits with no letter or digit just before (so "menu2018" stays).
_UESC_RE = re.compile(r"(?<![A-Za-z0-9])\\?u([0-9A-Fa-f]{4})")
#: Runs of ``rn``/``nn`` that were ``\r\n``/``\n\n``: only next to a non-Latin
#: character or a boundary, so English words such as "return" survive.
_NL_RE = re.compile(r"(?<![A-Za-z])(?:\\?r\\?n|\\?n\\?n|\\n|\\r)+(?![a-z])")
_SPACES_RE = re.compile(r"[ \t\u00a0]+")
_BLANKS_RE = re.compile(r"\n{3,}")


def strip_tags(text: str) -> str:
    """Drop HTML tags; line-breaking tags become a newline.

    >>> strip_tags("<p>가</p><p>나<br/>다</p>")
    '가\\n나\\n다\\n'
    """
    return _TAG_RE.sub(lambda m: "\n" if m.group(1) else "", text)


def unescape_lost_backslashes(text: str) -> str:
    """Turn ``u203B``-style and ``nn``/``rn`` remnants back into characters.

    >>> unescape_lost_backslashes("u2018인용u2019 끝rn다음")
    '‘인용’ 끝\\n다음'
    >>> unescape_lost_backslashes("return menu2018 running")
    'return menu2018 running'
    """

    def _char(match: re.Match[str]) -> str:
        code = int(match.group(1), 16)
        if 0xD800 <= code <= 0xDFFF:  # never manufacture a lone surrogate
            return match.group(0)
        return chr(code)

    text = _UESC_RE.sub(_char, text)

    return _NL_RE.sub(lambda m: "\n" * m.group(0).count("n"), text)


def clean_text(text: str | None) -> str:
    """Tags, entities, lost escapes and extra blank space removed, for display only.

    >>> clean_text("  A&amp;B  ")
    'A&B'
    >>> clean_text(None)
    ''
    """
    if not text:
        return ""
    out = strip_tags(text)
    out = html.unescape(out)
    out = unescape_lost_backslashes(out)
    out = _SPACES_RE.sub(" ", out)
    out = "\n".join(line.strip() for line in out.splitlines())
    return _BLANKS_RE.sub("\n\n", out).strip()


def one_line(text: str | None, width: int = 80) -> str:
    """A cleaned single line, cut to ``width`` characters with an ellipsis.

    >>> one_line("<b>제목</b>nn부제", 6)
    '제목 부제'
    >>> one_line("가나다라마바사", 4)
    '가나다…'
    """
    flat = " ".join(clean_text(text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
