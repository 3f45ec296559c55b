"""Per model, the rows a newer scorer changed against the hosted rows: the part every benchmark report shares.

Each benchmark explains one changed row in its own terms, per version pair, through the
`scorer_changes` hook it declares (`ScorerChange(old, new, "module:function")`, see
`hallubench.tooling.specs`): `explain(hosted, rescored)` returns a dict with `verdict` as (hosted,
rescored) and `reasons`, or None when nothing changed. A pair that declares none is explained
field by field (`field_changes`). Pairing the rows and counting them is the same for all, so it
lives here once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..specs import Registry, load_hook

Row = Mapping[str, Any]
Explain = Callable[[Row, Row], dict[str, Any] | None]
IDENTITY = ("protocol", "payload_sha256", "prompt_sha256", "row_format")  # always differ between two scorers


def explanation(registry: Registry, old_protocol: str, new_protocol: str) -> Explain:
    """How rows of `old_protocol` re-scored by `new_protocol` are explained: the hook declared for the pair, or
    `field_changes`. Raises HookError when the declared hook is missing or does not import."""
    old, new = registry.spec(old_protocol), registry.spec(new_protocol)
    benchmark = registry.benchmark_of(new_protocol)
    if old is None or new is None or benchmark is None or old.benchmark != new.benchmark:
        return field_changes
    reference = benchmark.scorer_change(old.version, new.version)
    if reference is None:
        return field_changes
    function: Explain = load_hook(reference, f"the scorer changes of {old_protocol} -> {new_protocol}")
    return function


def flat(value: Any, prefix: str = "") -> dict[str, Any]:
    """A row as dotted paths to its leaves (`scores.brs`), the way changes are named."""
    if not isinstance(value, Mapping):
        return {prefix: value}
    out: dict[str, Any] = {}
    for key, item in value.items():
        out.update(flat(item, f"{prefix}.{key}" if prefix else str(key)))
    return out


def same(a: Any, b: Any) -> bool:
    """Equal as a run file stores them: 3 and 3.0 are equal, True and 1 are not."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(same, a, b))
    return bool(a == b)


def changed_fields(hosted: Row, rescored: Row) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """Both rows flattened without their identity fields, and the paths whose values differ, sorted."""
    old = {k: v for k, v in flat(dict(hosted)).items() if k.split(".")[0] not in IDENTITY}
    new = {k: v for k, v in flat(dict(rescored)).items() if k.split(".")[0] not in IDENTITY}
    return old, new, sorted(key for key in old.keys() | new.keys() if not same(old.get(key), new.get(key)))


def field_changes(hosted: Row, rescored: Row) -> dict[str, Any] | None:
    """The explanation of a pair that declares none: the fields that changed, no reason claimed; None if none did."""
    _, _, changed = changed_fields(hosted, rescored)
    if not changed:
        return None
    shown = ", ".join(changed[:12]) + (f" and {len(changed) - 12} more" if len(changed) > 12 else "")
    return {
        "case_id": rescored.get("case_id"),
        "verdict": [hosted.get("verdict"), rescored.get("verdict")],
        "changed": changed,
        "reasons": [f"fields changed (no explanation declared for this version pair): {shown}"],
        "reason_ids": ["unexplained"],
    }


def changes_by_model(
    rows_by_model: Mapping[str, Sequence[Row]],
    hosted_by_model: Mapping[str, Sequence[Row | None]],
    explain: Explain,
) -> dict[str, dict[str, Any]]:
    """Per model (in the order given), the rows another protocol scored, those `explain` found changed, and how.

    Only rows that a different protocol scored count (a rescore without `--scorer` re-scores with
    the frozen file itself, and `rescore` reports any disagreement there).
    """
    out: dict[str, dict[str, Any]] = {}
    for model, rows in rows_by_model.items():
        pairs = [(h, r) for h, r in zip(hosted_by_model.get(model, []), rows, strict=False) if h is not None]
        compared = [(h, r) for h, r in pairs if h.get("protocol") != r.get("protocol")]
        if not compared:
            continue
        found = [change for h, r in compared if (change := explain(h, r)) is not None]
        out[model] = {
            "from": compared[0][0].get("protocol"),
            "to": compared[0][1].get("protocol"),
            "rows": len(compared),
            "rows_changed": len(found),
            "verdict_changes": [c for c in found if c["verdict"][0] != c["verdict"][1]],
            "changed": found,
        }
    return out
