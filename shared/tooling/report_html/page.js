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

  // -- hallumaze: the walk over the case's maze layer ------------------------------------------------
  function cellsOf(text) {
    return (text || "").split(" ").filter(Boolean).map(function (item) {
      var parts = item.split(","); return [Number(parts[0]), Number(parts[1])];
    });
  }
  function intsOf(text) { return (text || "").split(" ").filter(Boolean).map(Number); }
  function same(a, b) { return a[0] === b[0] && a[1] === b[1]; }

  function backtrackMoves(path, teleports) {
    // The scorer's rule (a move back onto the cell below the top of the walk's stack), as draw.py applies it.
    var stack = path.length ? [path[0]] : [];
    var jumped = new Set(teleports);
    var found = [];
    for (var i = 1; i < path.length; i++) {
      var target = path[i];
      if (jumped.has(i)) { if (!same(target, stack[stack.length - 1])) stack.push(target); continue; }
      if (same(target, path[i - 1])) continue;
      if (stack.length >= 2 && same(target, stack[stack.length - 2])) { stack.pop(); found.push(i); }
      else if (!same(target, stack[stack.length - 1])) stack.push(target);
    }
    return found;
  }

  function colour(key) {
    var item = (getData().legend || []).find(function (entry) { return entry[0] === key; });
    return item ? item[2] : "#000";
  }

  function mazeSvg(layer, trajectory) {
    var u = layer.unit, m = layer.margin;
    function centre(c) { return [m + (c[1] + 0.5) * u, m + (c[0] + 0.5) * u]; }
    var path = cellsOf(trajectory.cells);
    var walls = new Set(intsOf(trajectory.hallucination_moves));
    var teleports = intsOf(trajectory.teleport_moves);
    var jumped = new Set(teleports);
    var parts = [layer.svg];
    backtrackMoves(path, teleports).forEach(function (i) {
      var a = centre(path[i - 1]), b = centre(path[i]);
      parts.push('<line class="backtrack" x1="' + a[0] + '" y1="' + a[1] + '" x2="' + b[0] + '" y2="' + b[1] + '" stroke="' + colour("backtrack") + '" stroke-width="' + Math.max(2, u / 4) + '" stroke-linecap="round" opacity="0.7"><title>move ' + i + ': backtrack</title></line>');
    });
    if (path.length) {
      var points = path.map(function (c) { return centre(c).join(","); }).join(" ");
      parts.push('<polyline class="walk" points="' + points + '" fill="none" stroke="' + colour("walk") + '" stroke-width="' + Math.max(1, u / 10) + '" stroke-linejoin="round" stroke-linecap="round" opacity="0.8"/>');
    }
    for (var i = 1; i < path.length; i++) {
      var a = centre(path[i - 1]), b = centre(path[i]);
      if (walls.has(i)) {
        var mx = (a[0] + b[0]) / 2, my = (a[1] + b[1]) / 2, s = u / 4;
        parts.push('<path class="crossing" d="M' + (mx - s) + "," + (my - s) + "L" + (mx + s) + "," + (my + s) + "M" + (mx - s) + "," + (my + s) + "L" + (mx + s) + "," + (my - s) + '" stroke="' + colour("wall") + '" stroke-width="' + Math.max(1.5, u / 8) + '"><title>move ' + i + ": through a wall</title></path>");
      } else if (jumped.has(i)) {
        parts.push('<line class="teleport" x1="' + a[0] + '" y1="' + a[1] + '" x2="' + b[0] + '" y2="' + b[1] + '" stroke="' + colour("teleport") + '" stroke-dasharray="4 3"><title>move ' + i + ": teleport</title></line>");
      }
    }
    var side = layer.side;
    return '<svg xmlns="http://www.w3.org/2000/svg" width="' + side + '" height="' + side + '" viewBox="0 0 ' + side + " " + side + '" role="img" aria-label="the walk on the maze">' + parts.join("") + "</svg>";
  }

  function legendList() {
    var list = el("ul", "legend");
    (getData().legend || []).forEach(function (entry) {
      var li = el("li");
      var swatch = el("span", "swatch");
      swatch.style.background = entry[2];
      li.appendChild(swatch);
      li.appendChild(document.createTextNode(entry[1]));
      list.appendChild(li);
    });
    return list;
  }

  function mazeView(entry) {
    var row = entry.row || {}, scores = row.scores;
    var box = el("div");
    if (!scores || typeof scores !== "object") { box.appendChild(el("p", "note", "No scores: " + (row.detail || row.verdict))); return box; }
    var title = el("h4", "maze-title");
    title.appendChild(withAbbr("trial " + entry.case_id + " — score " + fmt(scores.score) + ", SR " + fmt(scores.sr, 0) + ", " + fmt(scores.hc) + " move(s) through walls"));
    box.appendChild(title);
    var view = el("div", "maze-view");
    var layer = (getData().mazes || {})[entry.maze];
    if (layer && scores.trajectory) {
      var holder = el("div", "maze-picture");
      holder.innerHTML = mazeSvg(layer, scores.trajectory); // built from the case's maze and numbers only
      view.appendChild(holder);
    }
    var side = el("div");
    side.appendChild(legendList());
    var claims = scores.claims || {};
    function claim(name) { var c = claims[name] || {}; return "claimed " + fmt(c.claimed) + ", verified " + fmt(c.verified); }
    var lures = scores.lures || {};
    side.appendChild(facts([
      ["BT (backtracks)", claim("backtrack")], ["HC (wall crossings)", claim("hallucination")], ["LT (loops)", claim("loop")],
      ["moves", scores.moves], ["teleports", scores.teleports], ["FHR (first wall crossing, move)", scores.fhr],
      ["lures", "exposures " + fmt(lures.exposures) + ", followed " + fmt(lures.follows) + ", resisted " + fmt(lures.resists)],
      ["MEI", scores.mei], ["BRS", scores.brs], ["CE", scores.ce], ["v1.1", (scores.v11 || {}).score]
    ]));
    view.appendChild(side);
    box.appendChild(view);
    return box;
  }

  // -- hallucinated-packages: every name and symbol with its registry evidence -----------------------
  function packagesView(entry) {
    var row = entry.row || {};
    var box = el("div");
    var verdicts = row.verdicts || [];
    if (!verdicts.length) { box.appendChild(el("p", "note", "No package or symbol was checked: " + (row.detail || ""))); return box; }
    box.appendChild(simpleTable(["level", "reference", "looked up as", "verdict", "why", "evidence"], verdicts.map(function (v) {
      var evidence = el("ul", "evidence");
      (v.evidence || []).forEach(function (e) {
        evidence.appendChild(el("li", null, (e.status === null || e.status === undefined ? "no reply" : e.status) + " " + e.url + (e.note ? " — " + e.note : "") + (e.checked_at ? " (" + e.checked_at + ")" : "")));
      });
      var verdict = el("span", "verdict v-" + (v.verdict === "exists" || v.verdict === "found" || v.verdict === "stdlib" ? "pass" : v.verdict === "unverified" ? "unscored" : "fail"), v.verdict);
      return [v.level, (v.ecosystem ? v.ecosystem + ": " : "") + (v.name || v.reference), v.candidate, verdict, v.reason, evidence];
    })));
    return box;
  }

  // -- misled-tests: each test on the buggy and the fixed program, and its class ---------------------
  function misledView(entry) {
    var row = entry.row || {};
    var box = el("div");
    var c = row.classification || {};
    box.appendChild(facts([["problem", row.problem], ["condition", row.condition], ["thinking", row.thinking],
      ["extraction", (row.extraction || {}).status], ["unusable", (row.scores || {}).unusable_reason], ["classification", c.status]]));
    var tests = c.tests || [];
    if (tests.length) {
      box.appendChild(simpleTable(["test", "on buggy", "on fixed", "class"], tests.map(function (t) {
        return [t.id, t.buggy + (t.buggy_detail ? " — " + t.buggy_detail : ""), t.fixed + (t.fixed_detail ? " — " + t.fixed_detail : ""), el("b", "outcome o-" + t.outcome, t.outcome)];
      })));
    } else {
      box.appendChild(el("p", "note", "No test ran: " + (c.detail || row.detail || "")));
    }
    return box;
  }

  var VIEWS = { "hallumaze": mazeView, "hallucinated-packages": packagesView, "misled-tests": misledView };

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
    var view = VIEWS[d.benchmark];
    if (view) { box.appendChild(el("h4", null, "evidence")); box.appendChild(view(entry)); }
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
