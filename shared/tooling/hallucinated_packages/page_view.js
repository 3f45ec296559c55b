// hallucinated-packages on the report page: a row's evidence is every name and symbol it checked, with its verdict
// and the registry lookups behind it (URL, status, time). See hallubench.tooling.report_html.view for `hb`.
window.hallubenchView = function (entry, hb) {
  "use strict";
  var el = hb.el;
  var row = entry.row || {};
  var box = el("div");
  var verdicts = row.verdicts || [];
  if (!verdicts.length) { box.appendChild(el("p", "note", "No package or symbol was checked: " + (row.detail || ""))); return box; }
  box.appendChild(hb.simpleTable(["level", "reference", "looked up as", "verdict", "why", "evidence"], verdicts.map(function (v) {
    var evidence = el("ul", "evidence");
    (v.evidence || []).forEach(function (e) {
      evidence.appendChild(el("li", null, (e.status === null || e.status === undefined ? "no reply" : e.status) + " " + e.url + (e.note ? " — " + e.note : "") + (e.checked_at ? " (" + e.checked_at + ")" : "")));
    });
    var verdict = el("span", "verdict v-" + (v.verdict === "exists" || v.verdict === "found" || v.verdict === "stdlib" ? "pass" : v.verdict === "unverified" ? "unscored" : "fail"), v.verdict);
    return [v.level, (v.ecosystem ? v.ecosystem + ": " : "") + (v.name || v.reference), v.candidate, verdict, v.reason, evidence];
  })));
  return box;
};
