"""A Markdown report of one model's hallucinated-packages metrics (from `aggregate`).

Every rate is printed with its numerator, denominator, Wilson interval and unverified share,
because a rate without its denominator hid the original benchmark's failure (0 % of nothing).
Flags come first. Pure text formatting: standard library only.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from ..headline import Headline
from ..leaderboard import board_of, units_from
from ..rescore.scorer_changes import Explain, field_changes

_RATES = (
    ("per_reference", "hallucinated_package_rate", "hallucinated packages (per reference)"),
    ("per_sample", "hallucinated_package_rate", "samples with a hallucinated package"),
    ("per_reference", "hallucinated_function_rate", "hallucinated functions (per reference)"),
    ("per_sample", "hallucinated_function_rate", "samples with a hallucinated function"),
    ("per_reference", "removed_api_rate", "removed APIs used (per reference)"),
    ("per_sample", "adversarial_pass_rate", "adversarial pass rate (group B samples)"),
)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def format_rate(rate: Mapping[str, Any]) -> str:
    """`12.5 % (1/8, 95 % CI 2.2-47.1 %), unverified 2 (20.0 %)`."""
    ci = rate.get("ci95")
    interval = f", 95 % CI {_pct(ci[0])}-{_pct(ci[1])}" if ci else ""
    share = rate.get("unverified_share")
    return (
        f"{_pct(rate.get('rate'))} ({rate['numerator']}/{rate['denominator']}{interval}), "
        f"unverified {rate['unverified']} ({_pct(share)})"
    )


def format_uses(uses: Mapping[str, Any] | None) -> str:
    """`12/15 (80.0 %), receiver unknown 3, possible removed-API 1`: how much of the function rate was decided."""
    if not uses:
        return "n/a"
    text = f"{uses['decided']}/{uses['all']} ({_pct(uses.get('decided_share'))})"
    if uses.get("receiver_unknown"):
        text += f", receiver unknown {uses['receiver_unknown']}"
    if uses.get("possible_removed_api"):
        text += f", possible removed-API {uses['possible_removed_api']}"
    return text


def _table(title: str, blocks: Mapping[str, Mapping[str, Any]]) -> list[str]:
    header = " | ".join(label for _, _, label in _RATES)
    lines = [f"### {title}", "", f"| | samples | {header} | uses decided (of all uses) |"]
    lines.append("|---" * (len(_RATES) + 3) + "|")
    for key, block in blocks.items():
        cells = [format_rate(block[level][name]) for level, name, _ in _RATES]
        lines.append(f"| {key} | {block['samples']} | " + " | ".join(cells) + f" | {format_uses(block.get('uses'))} |")
    return [*lines, ""]


def markdown_report(result: Mapping[str, Any], *, model: str = "") -> str:
    """The whole report for one model as Markdown."""
    metrics = result["metrics"]
    lines = [f"## hallucinated-packages{': ' + model if model else ''}", ""]
    for flag in result.get("flags", []):
        lines.append(f"> **flag:** {flag}")
    if result.get("flags"):
        lines.append("")
    verdicts = metrics["verdicts"]
    lines.append(
        f"Rows: {metrics['rows']} (pass {verdicts['pass']}, fail {verdicts['fail']}, unscored {verdicts['unscored']}, "
        f"error {verdicts['error']}); references extracted: {metrics['references_extracted']} "
        f"({metrics['third_party_references']} third-party); partially parsed rows: {metrics['partially_parsed_rows']}."
    )
    lines.append("")
    lines += _table("Overall", {"all": metrics["overall"]})
    lines += _table("By group", metrics["by_group"])
    lines += _table("By language", metrics["by_language"])
    lines += ["### Attempts per prompt", "", "| prompt | attempts | fail | pass | unscored |", "|---|---|---|---|---|"]
    for prompt, counts in metrics["per_prompt"].items():
        lines.append(
            f"| {prompt} | {counts['attempts']} | {counts['fail']} | {counts['pass']} | {counts['unscored']} |"
        )
    return "\n".join(lines) + "\n"


def headline(rows: Sequence[Mapping[str, Any]]) -> Headline:
    """One model's hallucinated package rate per reference: per sample (missing, decided) references, the k
    samples of one prompt clustered (they share the prompt's difficulty)."""
    scored = [r for r in rows if isinstance(r.get("scores"), Mapping) and r.get("verdict") != "error"]
    packages = [(str(r.get("case_id")), str(r.get("prompt_id") or r.get("case_id")), r["scores"]["packages"])
                for r in scored]  # fmt: skip
    units = units_from((case, p["missing"], p["exists"] + p["missing"]) for case, _, p in packages)
    counts = {
        "references decided": int(sum(d for _, d in units.values())),
        "unverified": sum(int(p["unverified"]) for _, _, p in packages),
        "samples": len(rows),
        "error rows": len(rows) - len(scored),
    }
    clusters = {case: prompt for case, prompt, _ in packages}
    symbols = [(str(r.get("case_id")), r["scores"].get("symbols")) for r in scored]
    functions = units_from(
        (case, s.get("hallucinated", 0), s.get("found", 0) + s.get("hallucinated", 0))
        for case, s in symbols
        if isinstance(s, Mapping)
    )
    also = {"hallucinated function rate (per symbol)": functions}
    return Headline("hallucinated package rate (per reference)", False, "prompt", units, clusters, counts, also)


def separability(rows_by_model: Mapping[str, Sequence[dict[str, Any]]]) -> dict[str, Any]:
    """The headline rate per model (per reference), every paired difference over shared prompts, and the groups."""
    return board_of({model: headline(rows) for model, rows in sorted(rows_by_model.items())})


def rescore_report(
    rows_by_model: Mapping[str, Sequence[dict[str, Any]]],
    hosted_by_model: Mapping[str, Sequence[dict[str, Any] | None]] | None = None,
    explain: Explain = field_changes,
) -> dict[str, Any]:
    """`hallubench rescore`'s hallucinated-packages section: the three rates per model, with denominators.

    With the hosted rows (aligned with the re-scored ones), names whose existence changed since
    the run are listed first: a name registered since is a possible slopsquat. Where another
    version's scorer made the rows (`rescore --scorer`), every row whose verdict it changed is
    listed with the reason `explain` gives (the version pair's declared explanation: the reference
    verdicts behind the change, `changes.explain`, for v7 -> v8).
    """
    from ...hallucinated_packages.scoring import aggregate_rows
    from ..csv_cells import cells
    from .changes import change_lines as scorer_change_lines
    from .changes import scorer_changes
    from .registry_changes import change_lines, registry_changes

    results = {model: aggregate_rows(list(rows)) for model, rows in sorted(rows_by_model.items())}
    changes = [
        change
        for model, rows in sorted(rows_by_model.items())
        for change in registry_changes(zip(rows, (hosted_by_model or {}).get(model, ()), strict=False), model=model)
    ]
    body = "\n".join(markdown_report(result, model=model) for model, result in results.items())
    text_parts: list[str] = []
    markdown_parts: list[str] = []
    if changes:
        heading = f"## Registry changes since the hosted run ({len(changes)})"
        text_parts += [heading, "", *change_lines(changes), ""]
        markdown_parts += [heading, "", *change_lines(changes), ""]
    rescored = scorer_changes(rows_by_model, hosted_by_model or {}, explain)
    if rescored:
        lines = scorer_change_lines(rescored)
        text_parts += ["Rows the newer scorer changed, and why:", *lines, ""]
        nested = [f"{' ' * (len(x) - len(x.lstrip()))}- {x.strip()}" for x in lines]
        markdown_parts += ["## Rows the newer scorer changed, and why", "", *nested, ""]
    markdown = "\n".join([*markdown_parts, body])
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["model", "level", "rate", "value", "numerator", "denominator", "ci_low", "ci_high", "unverified"])
    for model, result in results.items():
        overall = result["metrics"]["overall"]
        for level, name, _ in _RATES:
            rate = overall[level][name]
            ci = rate.get("ci95") or (None, None)
            writer.writerow(
                cells(
                    [
                        model,
                        level,
                        name,
                        rate.get("rate"),
                        rate["numerator"],
                        rate["denominator"],
                        ci[0],
                        ci[1],
                        rate["unverified"],
                    ]
                )
            )
    data: dict[str, Any] = {
        "models": results,
        "registry_changes": changes,
        "scorer_changes": rescored,
        "leaderboard": separability(rows_by_model),
    }
    text = "\n".join([*text_parts, body])
    return {"text": text, "markdown": markdown, "json": data, "csv": buffer.getvalue()}
