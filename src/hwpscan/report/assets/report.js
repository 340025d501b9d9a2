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

  function matches(body, needle) {
    if (fStatus.value && body.dataset.status !== fStatus.value) return false;
    if (fFormat.value && body.dataset.format !== fFormat.value) return false;
    if (fDate.value && body.dataset.date !== fDate.value) return false;
    if (!needle) return true;
    return body.dataset.search.indexOf(needle) !== -1;
  }

  function applyFilter() {
    const needle = q.value.trim().toLowerCase();
    let n = 0;
    for (const body of files) {
      const ok = matches(body, needle);
      body.hidden = !ok;
      if (ok) n += 1;
    }
    shown.value = n + " / " + files.length + " 파일 표시 shown";
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
    const value = (body) => body.dataset["k" + key[0].toUpperCase() + key.slice(1)] || "";
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
