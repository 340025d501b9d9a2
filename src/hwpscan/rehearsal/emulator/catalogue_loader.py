"""The releases the emulator serves: the bundled incident catalogue or a ``--data`` folder.

A data folder holds ``catalogue.json`` and the attachment files it names::

    {"format": "hwpscan-emulator-catalogue/1",
     "releases": [{"content_id": "41851", "reg_date": "2025-07-21 10:00:00",
                   "subject": "...", "body_html": "<p>...</p>", "view_cnt": 12,
                   "attachments": [{"name": "보도자료.hwp", "file": "files/41851-1.hwp"}]}]}

File paths are relative to the folder and stay inside it. :func:`write_data_dir`
(``hwpscan emulator --write-data DIR``) writes any catalogue so, to start from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from hwpscan.errors import CatalogueError

FORMAT_TAG = "hwpscan-emulator-catalogue/1"
_REG_FORMAT = "%Y-%m-%d %H:%M:%S"


@dataclass(frozen=True, slots=True)
class Attachment:
    """One attached file of a release."""

    name: str
    data: bytes = field(repr=False)


@dataclass(frozen=True, slots=True)
class Post:
    """One press release as the emulator serves it (``reg_date`` is Korea local time)."""

    content_id: str
    reg_date: datetime
    subject: str
    body_html: str
    attachments: tuple[Attachment, ...] = ()
    view_cnt: int = 0

    @property
    def day(self) -> date:
        """The release's calendar day (Korea time)."""
        return self.reg_date.date()


def _field(obj: Any, name: str, default: Any = None) -> Any:
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


def _reg_datetime(day: Any, reg: Any) -> datetime:
    """The registration moment from a full ``YYYY-MM-DD HH:MM:SS`` or a datetime, else
    from *day* and a time (a ``time`` or ISO string; default 10:00)."""
    if isinstance(reg, datetime):
        return reg.replace(tzinfo=None)
    if isinstance(reg, str) and len(reg) >= 19:
        return datetime.strptime(reg[:19], _REG_FORMAT)
    base = day if isinstance(day, date) else date.fromisoformat(str(day))
    at = time.fromisoformat(reg) if isinstance(reg, str) and reg else reg
    return datetime.combine(base, at if isinstance(at, time) else time(10, 0))


def from_releases(releases: Iterable[Any]) -> tuple[Post, ...]:
    """Adapt catalogue objects (``hwpscan.rehearsal.synth.catalogue.Release``, or dicts
    with its field names whose attachments may be ``(name, data)`` pairs).

    >>> from datetime import date, time
    >>> p, = from_releases([{"date": date(2025, 7, 21), "content_id": 7, "subject": "s",
    ...                      "body_html": "<p>b</p>", "reg_time": time(9, 30),
    ...                      "attachments": [("a.hwp", b"x")]}])
    >>> p.content_id, str(p.reg_date), p.attachments[0].name
    ('7', '2025-07-21 09:30:00', 'a.hwp')
    """
    posts = [
        Post(
            content_id=str(_field(rel, "content_id")),
            reg_date=_reg_datetime(_field(rel, "date"), _field(rel, "reg_time")),
            subject=str(_field(rel, "subject", "")),
            body_html=str(_field(rel, "body_html", "")),
            attachments=tuple(
                Attachment(str(a[0]), bytes(a[1]))
                if isinstance(a, tuple | list)
                else Attachment(str(a.name), bytes(a.data))
                for a in _field(rel, "attachments", ())
            ),
            view_cnt=int(_field(rel, "view_cnt", 0) or 0),
        )
        for rel in releases
    ]
    return tuple(sorted(posts, key=lambda p: (p.reg_date, p.content_id)))


def bundled_posts() -> tuple[Post, ...]:
    """The incident catalogue shipped with hwpscan (2025-07-21 .. 2025-08-11)."""
    from hwpscan.rehearsal.synth.catalogue import incident_catalogue  # built on first use

    return from_releases(incident_catalogue())


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def write_data_dir(posts: Iterable[Post], folder: Path) -> Path:
    """Write ``posts`` as a data folder (``catalogue.json`` + ``files/``); return the JSON path."""
    files = folder / "files"
    files.mkdir(parents=True, exist_ok=True)
    releases = []
    for post in posts:
        entries = []
        for n, att in enumerate(post.attachments, start=1):
            suffix = _UNSAFE.sub("_", Path(att.name).suffix)[:10]
            rel = f"files/{_UNSAFE.sub('_', post.content_id)}-{n}{suffix}"
            (folder / rel).write_bytes(att.data)
            entries.append({"name": att.name, "file": rel})
        releases.append(
            {
                "content_id": post.content_id,
                "reg_date": post.reg_date.strftime(_REG_FORMAT),
                "subject": post.subject,
                "body_html": post.body_html,
                "view_cnt": post.view_cnt,
                "attachments": entries,
            }
        )
    target = folder / "catalogue.json"
    doc = {"format": FORMAT_TAG, "releases": releases}
    target.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
    return target


def _inside(folder: Path, rel: str) -> Path:
    root = folder.resolve()
    path = (root / rel).resolve()
    if Path(rel).is_absolute() or not path.is_relative_to(root):
        raise CatalogueError(f"attachment path leaves the data folder: {rel!r}")
    return path


def load_data_dir(folder: Path) -> tuple[Post, ...]:
    """Read a data folder written by :func:`write_data_dir` (or by hand)."""
    source = folder / "catalogue.json"
    try:
        doc = json.loads(source.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CatalogueError(f"cannot read {source}: {exc.strerror}") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise CatalogueError(f"{source} is not valid UTF-8 JSON: {exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("releases"), list):
        raise CatalogueError(f"{source} needs a top-level object with a 'releases' list")
    releases = []
    for i, rel in enumerate(doc["releases"]):
        try:
            atts = []
            for att in rel.get("attachments", []):
                path = _inside(folder, att["file"])
                atts.append(Attachment(str(att["name"]), path.read_bytes()))
            reg_date = datetime.strptime(rel["reg_date"], _REG_FORMAT)
            subject, body = str(rel.get("subject", "")), str(rel.get("body_html", ""))
            views = int(rel.get("view_cnt", 0))
            releases.append(
                Post(str(rel["content_id"]), reg_date, subject, body, tuple(atts), views)
            )
        except OSError as exc:
            raise CatalogueError(f"release #{i}: cannot read attachment: {exc.strerror}") from exc
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CatalogueError(f"release #{i} in {source} is malformed: {exc!r}") from exc
    return tuple(sorted(releases, key=lambda p: (p.reg_date, p.content_id)))
