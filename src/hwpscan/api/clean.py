"""Display-only cleaning of the API's text fields: HTML tags, entities, and JSON escapes
that lost their backslash (``nn`` for a blank line, ``rn``, ``u203B`` for ※).

>>> clean_text("<p>금융감독원은nn이번 u203B 조치를 &quot;강화&quot;한다</p>")
'금융감독원은\\n\\n이번 ※ 조치를 "강화"한다'
"""

from __future__ import annotations

import html
import re

_TAG_RE = re.compile(r"<\s*(br|/p|/div|/li|/tr)\b[^>]*>|<[^>]+>", re.IGNORECASE)
#: A run of remnants (``u203B``, ``rn``, ``nn``) not glued to a Latin letter before it,
#: so "return" and "menu2018" survive while "안내nnu203B" is repaired.
_RUN_RE = re.compile(r"(?<![A-Za-z])(?:\\?u[0-9A-Fa-f]{4}|\\?r\\?n|\\?n\\?n)+")
_TOKEN_RE = re.compile(r"\\?u([0-9A-Fa-f]{4})|\\?r\\?n|\\?n\\?n")
_SPACES_RE = re.compile(r"[ \t\u00a0]+")
_BLANKS_RE = re.compile(r"\n{3,}")


def unescape_lost_backslashes(text: str) -> str:
    """Turn ``u203B``-style and ``nn``/``rn`` remnants back into characters.

    >>> unescape_lost_backslashes("u2018인용u2019 끝rn다음")
    '‘인용’ 끝\\n다음'
    >>> unescape_lost_backslashes("return menu2018 running")
    'return menu2018 running'
    >>> unescape_lost_backslashes("안내u203Bnnu2018A")
    '안내※\\n\\n‘A'
    """

    def _token(match: re.Match[str]) -> str:
        if match.group(1) is None:
            return "\n" * match.group(0).count("n")
        code = int(match.group(1), 16)
        if 0xD800 <= code <= 0xDFFF:  # never manufacture a lone surrogate
            return match.group(0)
        return chr(code)

    return _RUN_RE.sub(lambda run: _TOKEN_RE.sub(_token, run.group(0)), text)


def clean_text(text: str | None) -> str:
    """Tags, entities, lost escapes and extra blank space removed, for display only.

    >>> clean_text("  A&amp;B  "), clean_text("<p>가</p><p>나<br/>다</p>")
    ('A&B', '가\\n나\\n다')
    >>> clean_text(None)
    ''
    """
    if not text:
        return ""
    out = _TAG_RE.sub(lambda m: "\n" if m.group(1) else "", text)  # a line-breaking tag: a newline
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
