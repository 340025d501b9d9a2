"""PDF engines side by side: pages read per engine, against the best, and files/s.

    python benchmarks/pdf_engines.py [--stories N] [--found DIR ...] [--repeat N]

The corpus, all built or found at run time (nothing is committed):

- ``generated``: *N* press-release PDFs of our generator (one to three copies of a
  story's pages, a third with a broken CMap);
- ``hostile``: each variant a real file has carried that one engine loses: ``/A85``,
  104-bit RC4, an unknown filter name over plain content, content really encoded with
  an unknown filter, a self-drawing form, page trees 500 and 2,000 deep, a linearized
  file, a 100,000-deep ``/Resources``;
- ``found``: every ``*.pdf`` under the ``--found`` folders (by default the PDFs that
  installed packages put under ``site-packages`` and ``/usr/share/doc``), up to 8 MB.

For each file: the pages each engine reads on its own (pypdf, pdfminer.six when
installed, PDFium through pypdfium2; a page counts when the engine returns its text
without raising), the best of the three, and the pages hwpscan's reader counts as read.
Then files/s for hwpscan's reader today (PDFium first, pypdf second opinion) and for its
pypdf-only reading (the reader before PDFium), measured in the same run, and the ratio.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import site
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from hwpscan.formats import pdf as pdf_reader
from hwpscan.formats import pdfium_text
from hwpscan.rehearsal.synth.pdf_writer import PdfExtras, build_pdf

MAX_FOUND_BYTES = 8 * 2**20
B = chr(0xF02B1)


def deep_resources(depth: int) -> bytes:
    """Page 1's resources nest *depth* dictionaries (objects keep their offsets only up
    to that page; both engines rebuild the cross-reference table)."""
    data = build_pdf([["가나다"], ["둘째"]])
    plain = b"/Resources << /Font << /F1 3 0 R >> >>"
    deep = b"/Resources << /Font << /F1 3 0 R >> /X " + b"<< /A " * depth + b"1"
    deep += b" >>" * depth + b" >>"
    at = data.index(plain)
    return data[:at] + deep + data[at + len(plain) :]


def hostile() -> dict[str, bytes]:
    pages = [[f"{n}쪽 본문 {B}", "둘째 줄"] for n in range(1, 6)]
    variants = {
        "a85": PdfExtras(a85_pages=(1, 3)),
        "rc4-104": PdfExtras(encryption="rc4-104"),
        "plain-unknown-filter": PdfExtras(plain_unknown_filter_pages=(2,)),
        "encoded-unknown-filter": PdfExtras(bad_filter_pages=(2,)),
        "self-drawing-form": PdfExtras(self_drawing_pages=(0,)),
        "linearized": PdfExtras(linearized=True),
        "linearized-tree-500": PdfExtras(linearized=True, page_tree_depth=500),
        "tree-2000": PdfExtras(page_tree_depth=2000),
    }
    out = {name: build_pdf(pages, broken_cmap=True, extras=x) for name, x in variants.items()}
    out["resources-100000-deep"] = deep_resources(100_000)
    return out


def generated(count: int) -> dict[str, bytes]:
    from hwpscan.rehearsal.synth.press import STORIES, pdf_pages

    out = {}
    for i in range(count):
        story = STORIES[i % len(STORIES)]
        pua = frozenset({"lead", "body", "table"}) if i % 3 == 0 else frozenset()
        out[f"gen-{i:04d}"] = build_pdf(pdf_pages(story, pua) * (1 + i % 3), broken_cmap=i % 3 == 0)
    return out


def found(folders: list[Path]) -> dict[str, bytes]:
    out = {}
    for folder in folders:
        for path in sorted(folder.rglob("*.pdf")):
            if path.is_file() and path.stat().st_size <= MAX_FOUND_BYTES:
                out[str(path)] = path.read_bytes()
    return out


# --- each engine alone: pages read ----------------------------------------------------


def pages_pypdf(data: bytes) -> tuple[int, int]:
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            reader.decrypt("")
        pages = reader.pages
        count = len(pages)
    except Exception:
        return 0, 0
    read = 0
    for n in range(count):
        try:
            pages[n].extract_text()
        except Exception:
            continue
        read += 1
    return read, count


def pages_pdfminer(data: bytes) -> tuple[int, int] | None:
    try:
        from pdfminer.high_level import extract_pages
    except ImportError:
        return None
    read = 0
    try:
        for page in extract_pages(io.BytesIO(data)):
            for _ in page:
                pass
            read += 1
    except Exception:
        pass
    return read, read


def pages_pdfium(data: bytes) -> tuple[int, int]:
    try:
        doc, _ = pdfium_text.open_document(data)
    except ValueError:
        return 0, 0
    try:
        count = pdfium_text.page_count(doc)
        read = 0
        for n in range(count):
            try:
                if pdfium_text.page_text(doc, n):  # PDFium reports no failure: text or not
                    read += 1
            except ValueError:
                continue
        return read, count
    finally:
        pdfium_text.close(doc)


def pages_hwpscan(data: bytes) -> tuple[int, int, str]:
    try:
        doc = pdf_reader.read_pdf(data)
    except Exception as exc:
        return 0, 0, type(exc).__name__
    status = doc.status.value if doc.status is not None else "read"
    return doc.info.pages_read or 0, doc.info.pages or 0, status


def read_pypdf_only(data: bytes) -> None:
    """hwpscan's reader as it was: pypdf alone."""
    with pdf_reader._quiet() as _, contextlib.suppress(Exception):
        pdf_reader._extract_pypdf(data, pdf_reader.MAX_PAGES, [])


def read_now(data: bytes) -> None:
    with contextlib.suppress(Exception):
        pdf_reader.read_pdf(data)


def rate(files: list[bytes], read: Callable[[bytes], None], repeat: int) -> float:
    best = 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        for data in files:
            read(data)
        best = max(best, len(files) / (time.perf_counter() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stories", type=int, default=150, help="generated PDF files")
    parser.add_argument("--found", type=Path, nargs="*", default=None)
    parser.add_argument("--repeat", type=int, default=3, help="rate runs (the best is kept)")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    folders = args.found
    if folders is None:
        folders = [Path(p) for p in site.getsitepackages()] + [Path("/usr/share/doc")]
    groups = {
        "generated": generated(args.stories),
        "hostile": hostile(),
        "found": found([f for f in folders if f.is_dir()]),
    }
    print(
        f"{sys.version.split()[0]}; files: " + ", ".join(f"{k} {len(v)}" for k, v in groups.items())
    )
    print(
        f"{'file':<34} {'pages':>5} {'pypdf':>5} {'miner':>5} {'pdfium':>6} {'best':>5} "
        f"{'hwpscan':>7}  status"
    )
    totals = {"pypdf": 0, "pdfminer": 0, "pdfium": 0, "best": 0, "hwpscan": 0}
    for group, files in groups.items():
        sums = dict.fromkeys(totals, 0)
        for name, data in files.items():
            p_read, p_count = pages_pypdf(data)
            miner = pages_pdfminer(data)
            m_read = miner[0] if miner else 0
            f_read, f_count = pages_pdfium(data)
            h_read, h_count, status = pages_hwpscan(data)
            best = max(p_read, m_read, f_read)
            row = {
                "pypdf": p_read,
                "pdfminer": m_read,
                "pdfium": f_read,
                "best": best,
                "hwpscan": h_read,
            }
            for key, value in row.items():
                sums[key] += value
            if group != "generated":
                shown = name if len(name) <= 34 else "..." + name[-31:]
                pages = max(p_count, f_count, h_count, m_read)
                print(
                    f"{shown:<34} {pages:>5} {p_read:>5} {m_read if miner else '-':>5} "
                    f"{f_read:>6} {best:>5} {h_read:>7}  {status}"
                )
        for key in totals:
            totals[key] += sums[key]
        print(
            f"{'[' + group + ']':<34} {'':>5} {sums['pypdf']:>5} {sums['pdfminer']:>5} "
            f"{sums['pdfium']:>6} {sums['best']:>5} {sums['hwpscan']:>7}"
        )
    best = totals["best"] or 1
    print(
        "pages read against the best engine per file: "
        + ", ".join(f"{k} {v / best:.1%}" for k, v in totals.items() if k != "best")
    )
    files = [d for g in groups.values() for d in g.values()]
    gen = list(groups["generated"].values())
    for label, subset in (("generated", gen), ("all", files)):
        old = rate(subset, read_pypdf_only, args.repeat)
        new = rate(subset, read_now, args.repeat)
        print(
            f"files/s ({label}, {len(subset)} files): pypdf-only reader {old:,.1f}, "
            f"PDFium + pypdf reader {new:,.1f}: {new / old:.2f}x"
        )


if __name__ == "__main__":
    main()
