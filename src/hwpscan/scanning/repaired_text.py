"""Writing a document's repaired body text, and where each file's text goes."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hwpscan.atomic import atomic_write
from hwpscan.forensics.guard import OrphanPolicy, PuaMode, repair_body
from hwpscan.models import Document, RepairSummary


@dataclass(frozen=True, slots=True)
class RepairSettings:
    """Write each readable body's repaired UTF-8 text below *out* (``--emit-repaired``,
    ``repair --out``): orphans dropped, replaced, escaped or boxed; private use kept,
    mapped, replaced by a placeholder or dropped as *pua* says."""

    out: Path
    orphans: OrphanPolicy = "drop"
    pua: PuaMode = "keep"

    def to(self, target: Path) -> Repair:
        """This policy for one file whose text goes to *target*."""
        return Repair(target, self.orphans, self.pua)


@dataclass(frozen=True, slots=True)
class Repair:
    """Where a file's repaired text goes and how orphans and PUA are treated."""

    target: Path
    orphans: OrphanPolicy = "drop"
    pua: PuaMode = "keep"


def write_repaired(doc: Document, repair: Repair) -> RepairSummary:
    """Write the document's body as UTF-8 after repair (:func:`repair_body`), atomically,
    ending with one newline; say what was done."""
    done = repair_body(doc.format, doc.body, orphans=repair.orphans, pua=repair.pua)
    text = done.text if done.text.endswith("\n") else done.text + "\n"
    atomic_write(repair.target, text, shared=True)  # for other tools: 0644, as open() makes
    counts = {f.name: getattr(done, f.name) for f in dataclasses.fields(done) if f.name != "text"}
    return RepairSummary(**counts, pua=repair.pua, target=str(repair.target))


def repair_targets(paths: Sequence[Path], repair_dir: Path) -> dict[Path, Path]:
    """Where each file's repaired text goes: its path below the files' common folder.

    Two inputs never share a target: a name already taken gets ``-2``, ``-3``... so a
    file repaired in one folder cannot overwrite another's text.

    >>> inputs = [Path("/in/a/x.hwp"), Path("/in/b/x.hwp"), Path("/in/b/y.pdf")]
    >>> t = repair_targets(inputs, Path("out"))
    >>> [p.as_posix() for p in t.values()]
    ['out/a/x.hwp.txt', 'out/b/x.hwp.txt', 'out/b/y.pdf.txt']
    >>> same = [Path("/in/x.hwp"), Path("/in/x.hwp")]
    >>> [p.as_posix() for p in repair_targets(same, Path("o")).values()]
    ['o/x.hwp.txt']
    """
    resolved = {p: Path(os.path.abspath(p)) for p in paths}
    if not resolved:
        return {}
    root = Path(os.path.commonpath([r.parent for r in resolved.values()]))
    targets: dict[Path, Path] = {}
    taken: set[Path] = set()
    for path, full in resolved.items():
        rel = full.relative_to(root)
        target = repair_dir / rel.with_name(rel.name + ".txt")
        n = 1
        while target in taken:
            n += 1
            target = repair_dir / rel.with_name(f"{rel.name}-{n}.txt")
        taken.add(target)
        targets[path] = target
    return targets
