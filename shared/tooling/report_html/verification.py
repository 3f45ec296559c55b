"""The page's first section: did every prompt verify, does every score agree, and where not, why.

A prompt mismatch shows both texts around the first differing character, which is marked in
each (a space or line break is shown by a visible sign), so the reader sees the difference
rather than a sentence about it. A score disagreement lists each differing field with both values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .markup import esc, number, table
from .rowset import PageRow

CONTEXT = 300  # characters shown either side of the first difference
MAX_LISTED = 200  # problems listed on the page; the drill-down still has every row

_VISIBLE = {"\n": "⏎", "\r": "␍", "\t": "⇥", " ": "␠"}


def marked_window(text: str, offset: int) -> str:
    """HTML of `text` around `offset`, with the character there (or the end of the text) marked."""
    start = max(0, offset - CONTEXT)
    before = ("…" if start else "") + text[start:offset]
    if offset < len(text):
        char = text[offset]
        shown = _VISIBLE.get(char, char)
        code = f"U+{ord(char):04X}"
        mark = f'<mark class="first-diff" title="first difference: {code}">{esc(shown)}</mark>'
        if char == "\n":
            mark += "\n"
        after = text[offset + 1 : offset + 1 + CONTEXT] + ("…" if offset + 1 + CONTEXT < len(text) else "")
    else:
        mark = '<mark class="first-diff end" title="the text ends here">⟨end of text⟩</mark>'
        after = ""
    return esc(before) + mark + esc(after)


def mismatch_html(row: PageRow) -> str:
    """One prompt mismatch: where, and both texts with the first difference marked."""
    head = (
        f'<p><a href="#row-{row.index}">{esc(row.model)} · case <code>{esc(row.case_id)}</code></a> '
        f'<span class="source">{esc(row.source)}</span></p><p class="problem">{esc(row.problem)}</p>'
    )
    mismatch = row.data.get("mismatch")
    if not isinstance(mismatch, Mapping) or mismatch.get("logged_role") is None:
        return f'<div class="mismatch">{head}</div>'
    offset = int(mismatch.get("offset") or 0)
    rendered = str(mismatch.get("rendered_text") or mismatch.get("rendered_context") or "")
    logged = str(mismatch.get("logged_text") or mismatch.get("logged_context") or "")
    if not mismatch.get("rendered_text"):  # an older result: only the contexts, the difference in their middle
        offset = min(len(rendered), len(logged), 30 + (1 if rendered.startswith("…") else 0))
    return (
        f'<div class="mismatch">{head}<div class="pair">'
        f'<div><h4>rendered by the frozen task file</h4><pre class="text">{marked_window(rendered, offset)}</pre></div>'
        f'<div><h4>logged in the run file</h4><pre class="text">{marked_window(logged, offset)}</pre></div>'
        "</div></div>"
    )


def _summary_table(summary: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    for line in summary:
        verified = f"{line.get('prompts_verified')}/{line.get('rows')}"
        agree = f"{line.get('scores_agree')}/{line.get('scores_compared')}"
        ok = line.get("prompts_verified") == line.get("rows") and line.get("scores_agree") == line.get(
            "scores_compared"
        )
        rows.append(
            [
                esc(line.get("model")),
                esc(line.get("rows")),
                f'<span class="{"ok" if ok else "bad"}">{esc(verified)}</span>',
                esc(agree),
                esc(line.get("error_rows")),
                f"{esc(line.get('headline'))} <small>({esc(line.get('headline_name'))})</small>",
                esc(line.get("hosted_headline")),
            ]
        )
    headers = ["model", "rows", "prompts verified", "scores agree", "error rows", "re-scored headline", "hosted"]
    return table(headers, rows, css="summary", numeric=frozenset({1, 2, 3, 4}))


def _score_html(row: PageRow) -> str:
    items = "".join(f"<li><code>{esc(d)}</code></li>" for d in row.data.get("differences") or [])
    return (
        f'<div class="disagreement"><p><a href="#row-{row.index}">{esc(row.model)} · case '
        f'<code>{esc(row.case_id)}</code></a> <span class="source">{esc(row.source)}</span></p>'
        f"<ul>{items}</ul></div>"
    )


KIND_NAMES = {
    "file": "run file(s) or path(s) could not be read",
    "unreadable": "row(s) could not be read",
    "conflict": "row(s) have conflicting copies (none counted)",
    "incomplete": "stored run(s) cannot be verified whole",
    "prompt": "prompt(s) differ",
    "unreachable": "row(s) not judged: registries unreachable where the rescore ran",
    "score": "score(s) disagree",
    "headline": "headline(s) differ",
}


def _problems(data: Mapping[str, Any], rows: Sequence[PageRow]) -> tuple[list[Mapping[str, Any]], int]:
    """The report's problems and rows checked; a result saved before it listed them gets them rebuilt."""
    if "problems" in data:
        found = [problem for problem in data.get("problems") or [] if isinstance(problem, Mapping)]
        return found, int(data.get("rows_checked") or 0)
    rebuilt: list[Mapping[str, Any]] = [{"kind": "file", "text": str(e)} for e in data.get("file_errors") or []]
    rebuilt += [{"kind": "conflict", "text": str(c)} for c in data.get("conflicts") or []]
    rebuilt += [{"kind": "prompt", "text": ""} for row in rows if not row.data.get("prompt_verified")]
    rebuilt += [{"kind": "score", "text": ""} for row in rows if row.data.get("score_agrees") is False]
    for block in (data.get("models") or {}).values():
        rebuilt += [{"kind": "headline", "text": ""} for p in block.get("parents") or [] if p.get("agrees") is False]
    return rebuilt, len(rows)


def _banner(data: Mapping[str, Any], rows: Sequence[PageRow]) -> str:
    """Green only when the report's one list of problems is empty and at least one row was checked."""
    found, checked = _problems(data, rows)
    if not found and checked:
        return (
            f'<p class="banner ok" id="verdict">All {checked} rows: every prompt verified byte for byte '
            "and every re-scored row agrees with the hosted one.</p>"
        )
    if not found:
        return '<p class="banner bad" id="verdict">No row of this task was checked: nothing is verified.</p>'
    counts: dict[str, int] = {}
    for problem in found:
        kind = str(problem.get("kind"))
        counts[kind] = counts.get(kind, 0) + 1
    parts = [f"{count} {KIND_NAMES.get(kind, kind)}" for kind, count in counts.items()]
    return f'<p class="banner bad" id="verdict">{len(rows)} rows: ' + ", ".join(parts) + ".</p>"


def _problem_list(data: Mapping[str, Any]) -> str:
    """Every problem the rows below do not show: unreadable inputs, conflicts, stored runs not verified whole."""
    shown_elsewhere = {"prompt", "score", "headline"}
    found = [p for p in data.get("problems") or [] if isinstance(p, Mapping) and p.get("kind") not in shown_elsewhere]
    if "problems" not in data:
        found = [{"kind": "file", "text": str(error)} for error in data.get("file_errors") or []]
    if not found:
        return ""
    items = [
        f'<li><span class="bad">{esc(str(p.get("kind", "")).upper())}</span> {esc(p.get("model"))} '
        f'<span class="source">{esc(p.get("source"))}</span>: {esc(p.get("text"))}</li>'
        for p in found[:MAX_LISTED]
    ]
    return f'<h3 id="problems">Problems ({len(found)})</h3><ul>' + "".join(items) + "</ul>" + _more(len(found))


def verification_section(data: Mapping[str, Any], rows: Sequence[PageRow]) -> str:
    """The whole verification section."""
    prompts = [row for row in rows if not row.data.get("prompt_verified")]
    scores = [row for row in rows if row.data.get("score_agrees") is False]
    headlines = [
        (model, parent)
        for model, block in sorted((data.get("models") or {}).items())
        for parent in block.get("parents") or []
        if parent.get("agrees") is False
    ]
    banner = _banner(data, rows)
    out = ['<section id="verification"><h2>Verification</h2>', banner, _summary_table(data.get("summary") or [])]
    out.append(_problem_list(data))
    copies = int(data.get("row_file_copies") or 0)
    if copies:
        out.append(
            f'<p class="note">{copies} row run file(s) repeat rows of a stored-task run (kaggle-benchmarks writes '
            "both); each row is counted once.</p>"
        )
    if prompts:
        out.append(f'<h3 id="prompt-mismatches">Prompts that differ ({len(prompts)})</h3>')
        out.extend(mismatch_html(row) for row in prompts[:MAX_LISTED])
        out.append(_more(len(prompts)))
    if scores:
        out.append(f'<h3 id="score-disagreements">Scores that disagree ({len(scores)}): re-scored vs hosted</h3>')
        out.extend(_score_html(row) for row in scores[:MAX_LISTED])
        out.append(_more(len(scores)))
    if headlines:
        out.append("<h3>Headlines that differ</h3><ul>")
        out.extend(
            f'<li>{esc(model)} <span class="source">{esc(p.get("source"))}</span>: hosted '
            f"{number(p.get('hosted_headline'), 6)} vs re-scored {number(p.get('local_headline'), 6)}</li>"
            for model, p in headlines
        )
        out.append("</ul>")
    foreign = list(data.get("foreign_runs") or [])
    if foreign:
        out.append(f'<p class="note">{len(foreign)} run(s) of other tasks were left alone.</p>')
    out.append(_newer(data.get("newer_scorer")))
    out.append("</section>")
    return "\n".join(out)


def _more(count: int) -> str:
    return f'<p class="note">… and {count - MAX_LISTED} more (see the rows below).</p>' if count > MAX_LISTED else ""


def _newer(newer: Any) -> str:
    if not isinstance(newer, Mapping):
        return ""
    rows = [
        [
            esc(line.get("model")),
            f"{esc(line.get('scored'))}/{esc(line.get('rows'))}",
            esc(line.get("verdicts_changed")),
            f"{number(line.get('frozen_headline'))} → {number(line.get('headline'))}",
        ]
        for line in newer.get("summary") or []
    ]
    return f"<h3>Scored again with <code>{esc(newer.get('protocol'))}</code></h3>" + table(
        ["model", "rows scored", "verdicts changed", "headline (frozen → newer)"], rows, numeric=frozenset({1, 2})
    )
