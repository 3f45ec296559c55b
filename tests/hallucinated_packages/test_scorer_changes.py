"""Why a newer hallucinated-packages scorer changed a row: reference verdicts compared by level and name."""

from __future__ import annotations

from hallubench.tooling.hallucinated_packages.changes import change_lines, explain, scorer_changes


def _row(protocol: str, verdict: str, *verdicts: tuple[str, str, str]) -> dict[str, object]:
    return {
        "protocol": protocol,
        "case_id": "v7-A01-js-k1",
        "verdict": verdict,
        "detail": "d",
        "verdicts": [{"level": level, "name": name, "verdict": v, "reason": f"why {v}"} for level, name, v in verdicts],
    }


def test_a_verdict_change_names_each_reference_that_moved_and_a_name_only_one_side_checks() -> None:
    hosted = _row("p/v7", "pass", ("package", "react", "exists"), ("symbol", "react:useState,useFetch", "found"))
    rescored = _row(
        "p/v8", "fail", ("package", "react", "exists"), ("symbol", "react:useState", "found"),
        ("symbol", "react:useFetch", "missing-symbol"),
    )  # fmt: skip
    change = explain(hosted, rescored)
    assert change is not None and change["verdict"] == ("pass", "fail")
    assert change["reasons"] == [
        "symbol react:useFetch: not checked -> missing-symbol (why missing-symbol)",
        "symbol react:useState: not checked -> found (why found)",
        "symbol react:useState,useFetch: found -> not checked (why found)",
    ]


def test_unchanged_rows_are_not_listed_and_rows_of_the_same_protocol_are_not_compared() -> None:
    same = _row("p/v7", "pass", ("package", "requests", "exists"))
    assert explain(same, dict(same, protocol="p/v8")) is None
    assert scorer_changes({"m": [same]}, {"m": [same]}) == {}
    moved = dict(same, protocol="p/v8", verdict="unscored")
    changes = scorer_changes({"m": [moved]}, {"m": [same]})
    assert changes["m"]["verdict_changes"][0]["reasons"] == ["the row's detail: d"]
    assert change_lines(changes)[:2] == [
        "m: 1 of 1 rows changed from p/v7 to p/v8, 1 verdict(s)",
        "  case v7-A01-js-k1: pass -> unscored",
    ]
