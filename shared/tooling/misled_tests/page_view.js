// misled-tests on the report page: a row's evidence is each test it ran on the buggy and the fixed program, and
// its class. See hallubench.tooling.report_html.view for `hb`.
window.hallubenchView = function (entry, hb) {
  "use strict";
  var el = hb.el;
  var row = entry.row || {};
  var box = el("div");
  var c = row.classification || {};
  box.appendChild(hb.facts([["problem", row.problem], ["condition", row.condition], ["thinking", row.thinking],
    ["extraction", (row.extraction || {}).status], ["unusable", (row.scores || {}).unusable_reason], ["classification", c.status]]));
  var tests = c.tests || [];
  if (tests.length) {
    box.appendChild(hb.simpleTable(["test", "on buggy", "on fixed", "class"], tests.map(function (t) {
      return [t.id, t.buggy + (t.buggy_detail ? " — " + t.buggy_detail : ""), t.fixed + (t.fixed_detail ? " — " + t.fixed_detail : ""), el("b", "outcome o-" + t.outcome, t.outcome)];
    })));
  } else {
    box.appendChild(el("p", "note", "No test ran: " + (c.detail || row.detail || "")));
  }
  return box;
};
