// hallubench report: filters for the rows table and a drill-down per row, built from the embedded JSON.
// Model-written text only ever reaches the page through textContent, never as markup.
(function () {
  "use strict";
  var dataElement = document.getElementById("hb-data");
  var table = document.getElementById("hb-rows");
  var data = null;

  function getData() {
    if (data === null) {
      data = JSON.parse(dataElement.textContent);
    }
    return data;
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function fmt(value, digits) {
    if (value === null || value === undefined) return "n/a";
    if (typeof value === "number" && !Number.isInteger(value)) return value.toFixed(digits === undefined ? 3 : digits);
    return String(value);
  }

  // -- metric names: each one the glossary explains goes into <abbr title>, as in the tables --------
  function glossary() { return getData().glossary || {}; }
  function abbr(label) {
    var title = glossary()[label];
    if (!title) return document.createTextNode(label);
    var node = el("abbr", null, label);
    node.title = title;
    return node;
  }
  function withAbbr(text) {
    // The text stays text: it is split around the glossary's labels that stand as words.
    var fragment = document.createDocumentFragment();
    var labels = Object.keys(glossary()).filter(function (label) { return /^[A-Z]{2,3}$/.test(label); });
    if (!labels.length) { fragment.appendChild(document.createTextNode(text)); return fragment; }
    var words = new RegExp("(^|[^\\w.])(" + labels.join("|") + ")(?!\\w)", "g");
    var last = 0, match;
    while ((match = words.exec(text)) !== null) {
      var start = match.index + match[1].length;
      fragment.appendChild(document.createTextNode(text.slice(last, start)));
      fragment.appendChild(abbr(match[2]));
      last = start + match[2].length;
    }
    fragment.appendChild(document.createTextNode(text.slice(last)));
    return fragment;
  }

  function facts(pairs) {
    var box = el("div", "facts");
    pairs.forEach(function (pair) {
      var line = el("div");
      var label = el("b");
      label.appendChild(glossary()[pair[0]] ? abbr(pair[0]) : withAbbr(pair[0]));
      label.appendChild(document.createTextNode(": "));
      line.appendChild(label);
      line.appendChild(document.createTextNode(fmt(pair[1])));
      box.appendChild(line);
    });
    return box;
  }

  function wide(node) {
    // A table in its own horizontal scroll box: a long URL or name never widens the page.
    var box = el("div", "wide");
    box.appendChild(node);
    return box;
  }

  function simpleTable(headers, rows) {
    var t = el("table");
    var head = t.createTHead().insertRow();
    headers.forEach(function (h) { head.appendChild(el("th", null, h)); });
    var body = t.createTBody();
    rows.forEach(function (cells) {
      var tr = body.insertRow();
      cells.forEach(function (cell) {
        var td = tr.insertCell();
        if (cell instanceof Node) td.appendChild(cell); else td.textContent = cell === null || cell === undefined ? "" : String(cell);
      });
    });
    return wide(t);
  }

  // -- mismatch: both texts around the first difference, the character marked -----------------------
  var VISIBLE = { "\n": "⏎", "\r": "␍", "\t": "⇥", " ": "␠" };
  var CONTEXT = 300;

  function markedText(text, offset) {
    var pre = el("pre", "text");
    var start = Math.max(0, offset - CONTEXT);
    pre.appendChild(document.createTextNode((start ? "…" : "") + text.slice(start, offset)));
    var mark = el("mark", "first-diff");
    if (offset < text.length) {
      var ch = text.charAt(offset);
      mark.textContent = VISIBLE[ch] || ch;
      mark.title = "first difference: U+" + ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
      pre.appendChild(mark);
      var end = offset + 1 + CONTEXT;
      pre.appendChild(document.createTextNode((ch === "\n" ? "\n" : "") + text.slice(offset + 1, end) + (end < text.length ? "…" : "")));
    } else {
      mark.className += " end";
      mark.textContent = "⟨end of text⟩";
      pre.appendChild(mark);
    }
    return pre;
  }

  function mismatchView(m) {
    var box = el("div", "mismatch");
    box.appendChild(el("p", "problem", "message " + (m.message_index + 1) + " (model call " + m.call_index + "): " + m.reason + " at character " + m.offset));
    var pair = el("div", "pair");
    var left = el("div"); left.appendChild(el("h4", null, "rendered by the frozen task file")); left.appendChild(markedText(m.rendered_text || "", m.offset));
    var right = el("div"); right.appendChild(el("h4", null, "logged in the run file")); right.appendChild(markedText(m.logged_text || "", m.offset));
    pair.appendChild(left); pair.appendChild(right); box.appendChild(pair);
    return box;
  }

  // -- the benchmark's evidence: drawn by the script its page view adds (hallubench.tooling.report_html.view) ------
  var HELPERS = {
    el: el, fmt: fmt, facts: facts, simpleTable: simpleTable, abbr: abbr, withAbbr: withAbbr,
    data: function () { return getData().view || {}; }
  };

  function conversation(entry) {
    var box = el("div", "conversation");
    var texts = getData().texts;
    (entry.messages || []).forEach(function (message, index) {
      box.appendChild(el("div", "message-role", (index + 1) + ". " + message[0]));
      box.appendChild(el("pre", "text message", texts[message[1]]));
    });
    if (!entry.messages) {
      box.appendChild(el("p", "note", entry.kind === "baseline"
        ? "A simulated baseline: its replies were written by the agent's code from its walk and scored by the same scorer; no conversation is logged."
        : entry.kind === "human" ? "A human baseline: its reply is in the human baseline file, scored by the same scorer."
        : "The result holds no conversation for this row."));
    }
    return box;
  }

  function detailView(index) {
    var d = getData();
    var entry = d.rows[index];
    var box = el("div", "drilldown");
    var row = entry.row || {};
    var checked = entry.kind === "model" || !entry.kind;
    box.appendChild(facts([["model", entry.model], ["case", entry.case_id], ["verdict", row.verdict], ["state", entry.state],
      ["prompt verified", checked ? entry.prompt_verified : "– (" + entry.kind + ")"],
      ["score agrees", checked ? entry.score_agrees : "– (" + entry.kind + ")"]]));
    var detailLine = el("p", "detail");
    detailLine.appendChild(withAbbr(row.detail || ""));
    box.appendChild(detailLine);
    box.appendChild(el("p", "source", entry.source));
    if (entry.problem) box.appendChild(el("p", "problem bad", entry.problem));
    if (entry.mismatch && entry.mismatch.logged_role !== null) box.appendChild(mismatchView(entry.mismatch));
    if (entry.differences && entry.differences.length) {
      var diffs = el("ul", "differences");
      entry.differences.forEach(function (text) { diffs.appendChild(el("li", null, text)); });
      box.appendChild(el("h4", null, "re-scored vs hosted"));
      box.appendChild(diffs);
    }
    if (typeof window.hallubenchView === "function") {
      box.appendChild(el("h4", null, "evidence"));
      box.appendChild(window.hallubenchView(entry, HELPERS));
    }
    box.appendChild(el("h4", null, "conversation (as logged)"));
    box.appendChild(conversation(entry));
    var raw = el("details");
    raw.appendChild(el("summary", null, "the row as re-scored (JSON)"));
    raw.appendChild(el("pre", "text", JSON.stringify(row, null, 1)));
    box.appendChild(raw);
    if (entry.newer_row || entry.newer_problem) {
      var newer = el("details");
      newer.appendChild(el("summary", null, "the row as the newer scorer scored it"));
      newer.appendChild(el("pre", "text", entry.newer_row ? JSON.stringify(entry.newer_row, null, 1) : entry.newer_problem));
      box.appendChild(newer);
    }
    return box;
  }

  function toggle(tr) {
    var button = tr.querySelector("button.hb-open");
    var next = tr.nextElementSibling;
    if (next && next.classList.contains("hb-detail")) {
      next.remove();
      button.setAttribute("aria-expanded", "false");
      return;
    }
    var detail = document.createElement("tr");
    detail.className = "hb-detail";
    var cell = detail.insertCell();
    cell.colSpan = tr.cells.length;
    cell.appendChild(detailView(Number(tr.dataset.i)));
    tr.after(detail);
    button.setAttribute("aria-expanded", "true");
  }

  // -- filters ---------------------------------------------------------------------------------------
  var form = document.getElementById("hb-filters");
  var count = document.getElementById("hb-count");
  function applyFilters() {
    var model = form.elements.model.value, verdict = form.elements.verdict.value;
    var status = form.elements.status.value, query = form.elements.q.value.trim().toLowerCase();
    var rows = table.tBodies[0].rows, shown = 0, total = 0, parentHidden = false;
    for (var i = 0; i < rows.length; i++) {
      var tr = rows[i];
      if (tr.classList.contains("hb-detail")) { tr.hidden = parentHidden; continue; }
      total++;
      var s = tr.dataset.status;
      var ok = (!model || tr.dataset.model === model) && (!verdict || tr.dataset.verdict === verdict) &&
        (!status || (status === "problem" ? s === "prompt" || s === "score" : s === status)) &&
        (!query || tr.cells[2].textContent.toLowerCase().indexOf(query) >= 0);
      tr.hidden = !ok;
      parentHidden = !ok;
      if (ok) shown++;
    }
    count.textContent = shown + " of " + total + " rows";
  }

  if (table) {
    table.addEventListener("click", function (event) {
      var button = event.target.closest("button.hb-open");
      if (button) toggle(button.closest("tr"));
    });
  }
  if (form) {
    form.hidden = false;
    form.addEventListener("input", applyFilters);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    applyFilters();
  }
  var powerPair = document.getElementById("hb-power-pair");
  if (powerPair) {
    powerPair.addEventListener("change", function () {
      document.querySelectorAll("figure.power").forEach(function (figure) {
        figure.hidden = figure.getAttribute("data-pair") !== powerPair.value;
      });
    });
  }
  function openFromHash() {
    var match = /^#row-(\d+)$/.exec(location.hash);
    if (!match) return;
    var tr = document.getElementById("row-" + match[1]);
    if (tr && !(tr.nextElementSibling && tr.nextElementSibling.classList.contains("hb-detail"))) toggle(tr);
  }
  window.addEventListener("hashchange", openFromHash);
  openFromHash();
  document.documentElement.setAttribute("data-hb-ready", "1");
  if (window.performance && performance.mark) performance.mark("hb-ready");
})();
