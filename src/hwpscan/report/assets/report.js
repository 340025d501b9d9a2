"use strict";
(function () {
  const table = document.getElementById("files");
  if (!table) return;
  const files = Array.from(table.tBodies);
  const q = document.getElementById("q");
  const fStatus = document.getElementById("f-status");
  const fFormat = document.getElementById("f-format");
  const fDate = document.getElementById("f-date");
  const shown = document.getElementById("shown");
  const none = document.getElementById("none");
  const cleanTable = document.getElementById("clean");
  const cleanMore = document.getElementById("clean-more");
  const cleanSource = document.getElementById("clean-data");
  // [path under the folder, date, format, chars, "U+XXXXX×n ...", PUA names]
  const cleanFiles = cleanSource ? JSON.parse(cleanSource.textContent) : [];
  const CLEAN_SHOWN = 200;
  let cleanSearch = null;

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function cleanMatches(needle) {
    if (fStatus.value && fStatus.value !== "clean") return [];
    if (!cleanSearch) {
      cleanSearch = cleanFiles.map((c) =>
        [c[0], c[1], c[2], "clean", "정상", c[4], c[5]].join(" ").toLowerCase());
    }
    const out = [];
    for (let i = 0; i < cleanFiles.length; i += 1) {
      const c = cleanFiles[i];
      if (fFormat.value && c[2] !== fFormat.value) continue;
      if (fDate.value && (c[1] || "unknown") !== fDate.value) continue;
      if (needle && cleanSearch[i].indexOf(needle) === -1) continue;
      out.push(c);
    }
    return out;
  }

  function drawClean(found) {
    if (!cleanTable) return;
    const body = cleanTable.tBodies[0];
    body.textContent = "";
    for (const c of found.slice(0, CLEAN_SHOWN)) {
      const tr = el("tr", null, "clean-file");
      const path = el("td", c[0], "path c-path");
      tr.append(path, el("td", c[1] || "—", "mono nw c-date"), el("td", c[2], "c-fmt"),
        el("td", Number(c[3]).toLocaleString("en-US"), "n c-chars"), el("td", c[4], "pua c-pua"));
      tr.cells[1].dataset.label = "날짜 date";
      tr.cells[2].dataset.label = "형식 format";
      tr.cells[3].dataset.label = "글자 chars";
      tr.cells[4].dataset.label = "PUA";
      body.appendChild(tr);
    }
    const more = found.length - CLEAN_SHOWN;
    cleanMore.hidden = more <= 0;
    cleanMore.textContent = more > 0
      ? "외 " + more.toLocaleString("en-US") + "개: 검색으로 좁히세요 · " + more.toLocaleString("en-US") + " more: narrow the search"
      : "";
    cleanTable.dataset.count = String(found.length);
  }

  // The labels of a detail's facts (html_rows.FACT_LABELS holds the same table).
  const FACT_LABELS = {
    path: "경로 path", sha: "sha256", size: "크기 bytes", why: "사유 reason", body: "본문 body",
    utf8: "UTF-8 오류 error", defects: "결함 defects", fffd: "U+FFFD", prv: "미리보기 PrvText",
    docinfo: "문서 정보 DocInfo", warn: "경고 warning",
  };

  // A file's detail is drawn from its data the first time it is opened.
  function drawDetail(body) {
    const cell = body.querySelector("tr.detail > td");
    const source = body.querySelector('script[type="application/json"]');
    if (!cell || !source || cell.dataset.drawn) return;
    const d = JSON.parse(source.textContent);
    const names = d.n || {};
    const dl = el("dl");
    dl.append(el("dt", FACT_LABELS.path), el("dd", body.dataset.kPath));
    for (const [k, v] of d.f) dl.append(el("dt", FACT_LABELS[k] || k), el("dd", v));
    cell.appendChild(dl);
    if (d.p.length) {
      cell.appendChild(el("h4", "사용자 정의 영역 문자 private-use characters"));
      const t = el("table", null, "locs pua");
      const head = el("tr");
      head.append(el("th", "코드 포인트"), el("th", "이름 name"), el("th", "개수"));
      t.appendChild(head);
      for (const [cp, n] of d.p) {
        const tr = el("tr");
        tr.append(el("td", cp, "mono"), el("td", names[cp] || "(알 수 없음 unknown)"),
          el("td", Number(n).toLocaleString("en-US"), "n"));
        t.appendChild(tr);
      }
      cell.appendChild(t);
    }
    if (d.l.length) {
      cell.appendChild(el("h4", "결함 위치 defect locations (처음 " + d.l.length + "개 first)"));
      const t = el("table", null, "locs");
      const head = el("tr");
      for (const h of ["스트림 stream", "문단 paragraph", "오프셋 offset", "종류 kind",
        "코드 포인트 code point", "PUA 이름 name", "코드 단위 units", "문맥 context"]) {
        head.appendChild(el("th", h));
      }
      t.appendChild(head);
      for (const [stream, paragraph, offset, kind, cp, units, context] of d.l.map(
        (l) => [d.s[l[0]], ...l.slice(1)])) {
        const tr = el("tr");
        tr.dataset.kind = kind;
        const ctx = el("td");
        ctx.appendChild(el("span", context, "ctx"));
        tr.append(el("td", stream, "mono"), el("td", paragraph, "n"), el("td", offset, "n"),
          el("td", kind), el("td", cp, "mono"), el("td", names[cp] || ""), el("td", units, "mono"), ctx);
        t.appendChild(tr);
      }
      cell.appendChild(t);
    }
    cell.dataset.drawn = "1";
  }

  function matches(body, needle) {
    if (fStatus.value && body.dataset.status !== fStatus.value) return false;
    if (fFormat.value && body.dataset.format !== fFormat.value) return false;
    if (fDate.value && body.dataset.date !== fDate.value) return false;
    if (!needle) return true;
    return (body.dataset.kPath + " " + body.dataset.search).toLowerCase().indexOf(needle) !== -1;
  }

  function applyFilter() {
    const needle = q.value.trim().toLowerCase();
    let n = 0;
    for (const body of files) {
      const ok = matches(body, needle);
      body.hidden = !ok;
      if (ok) n += 1;
    }
    const clean = cleanMatches(needle);
    drawClean(clean);
    n += clean.length;
    shown.value = n + " / " + (files.length + cleanFiles.length) + " 파일 표시 shown";
    shown.textContent = shown.value;
    shown.dataset.count = String(n);
    none.hidden = n !== 0;
  }

  function sortBy(th) {
    const key = th.dataset.sort;
    const numeric = th.dataset.type === "num";
    const asc = th.getAttribute("aria-sort") !== "ascending";
    for (const other of table.tHead.rows[0].cells) other.removeAttribute("aria-sort");
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    // date, format and status sort by the row's own data-date, data-format, data-status
    const value = (body) => body.dataset["k" + key[0].toUpperCase() + key.slice(1)] || body.dataset[key] || "";
    const sorted = files.slice().sort((a, b) => {
      const x = value(a), y = value(b);
      const c = numeric ? Number(x) - Number(y) : x.localeCompare(y, "ko");
      return asc ? c : -c;
    });
    for (const body of sorted) table.appendChild(body);
  }

  table.tHead.addEventListener("click", (ev) => {
    const th = ev.target.closest("th[data-sort]");
    if (th) sortBy(th);
  });

  table.addEventListener("click", (ev) => {
    const button = ev.target.closest("button.toggle");
    if (!button) return;
    const detail = button.closest("tbody").querySelector("tr.detail");
    const open = button.getAttribute("aria-expanded") !== "true";
    if (open) drawDetail(button.closest("tbody"));
    button.setAttribute("aria-expanded", String(open));
    detail.hidden = !open;
  });

  for (const el of [q, fStatus, fFormat, fDate]) {
    el.addEventListener("input", applyFilter);
    el.addEventListener("change", applyFilter);
  }
  document.getElementById("reset").addEventListener("click", () => {
    q.value = ""; fStatus.value = ""; fFormat.value = ""; fDate.value = "";
    for (const old of document.querySelectorAll(".picked")) old.classList.remove("picked");
    applyFilter();
  });

  function pickCell(cell) {
    if (!cell || cell.classList.contains("empty")) return;
    fDate.value = cell.dataset.date;
    fFormat.value = cell.dataset.format;
    fStatus.value = "";
    applyFilter();
    document.getElementById("files-section").scrollIntoView({ behavior: "smooth" });
  }
  const heat = document.getElementById("heatmap");
  if (heat) {
    heat.addEventListener("click", (ev) => pickCell(ev.target.closest("td.cell")));
    heat.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); pickCell(ev.target.closest("td.cell")); }
    });
  }

  // Every date on the page filters the list to that day: the banner's dates, the
  // heatmap's row headings and day badges, calendar days, the date in a file's row.
  const DATE_TARGETS = "button.date-pick, #heatmap tbody th[data-date], td.daystate .badge[data-date], .cal .day.has";
  function pickDate(el) {
    const day = el && el.dataset.date;
    if (!day) return;
    fDate.value = day;
    fFormat.value = "";
    fStatus.value = "";
    applyFilter();
    for (const old of document.querySelectorAll(".picked")) old.classList.remove("picked");
    for (const same of document.querySelectorAll('.cal .day[data-date="' + day + '"], #heatmap tr[data-date="' + day + '"]')) {
      same.classList.add("picked");
    }
    if (!el.closest("#files")) {
      document.getElementById("files-section").scrollIntoView({ behavior: "smooth" });
    }
  }
  document.addEventListener("click", (ev) => {
    const el = ev.target.closest(DATE_TARGETS);
    if (el) pickDate(el);
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" && ev.key !== " ") return;
    const el = ev.target.closest(DATE_TARGETS);
    if (el && el.tagName !== "BUTTON") { ev.preventDefault(); pickDate(el); }
  });

  // Without a Korean font every Hangul label is a box: say so (the English labels stay).
  function hasKoreanFont() {
    const canvas = document.createElement("canvas");
    canvas.width = 48; canvas.height = 24;
    const g = canvas.getContext("2d");
    if (!g) return true;
    const family = getComputedStyle(document.body).fontFamily;
    const draw = (ch) => {
      g.clearRect(0, 0, 48, 24);
      g.font = "20px " + family;
      g.fillText(ch, 2, 20);
      return Array.from(g.getImageData(0, 0, 48, 24).data).join(",");
    };
    // U+E000 (private use) has no glyph in any Korean font: drawn the same as a
    // missing Hangul syllable, it means the syllable is missing too.
    return draw("\uD55C") !== draw("\uE000");
  }
  const korean = hasKoreanFont();
  document.documentElement.dataset.koreanFont = korean ? "yes" : "no";
  document.getElementById("font-note").hidden = korean;

  applyFilter();
})();
