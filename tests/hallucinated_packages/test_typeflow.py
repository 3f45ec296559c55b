"""Types flow to the uses a Python reply makes: annotations, returns, stubs, chains, `with`, iterables.

Real wheels on the loopback registry (tests/hallucinated_packages/data/typeflow.toml): an
annotated package with an older release that still had a removed method, a package without
annotations and its typeshed-style `types-*` stubs, another with `<dist>-stubs`. Each case is a
reply; each use it makes must get the verdict written beside it, and controls must get none.
"""

from __future__ import annotations

import asyncio
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from registry_server import FakeRegistry

from hallubench.hallucinated_packages.checker import AnswerCheck, check_answer
from hallubench.hallucinated_packages.extract_python import extract_python
from hallubench.hallucinated_packages.pysymbols import older_series
from hallubench.hallucinated_packages.registry import RegistryClient
from hallubench.hallucinated_packages.scoring import row_verdict, sample_scores
from hallubench.tooling.hallucinated_packages.report import format_uses

SPEC = tomllib.loads((Path(__file__).parent / "data" / "typeflow.toml").read_text(encoding="utf-8"))
CASES = {case["id"]: case for case in SPEC["case"]}


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeRegistry]:
    with FakeRegistry(tmp_path_factory.mktemp("typeflow")) as reg:
        for dist in SPEC["dist"]:
            reg.add_wheel(dist["name"], dist["version"], dist["files"])
        yield reg


def run(registry: FakeRegistry, reply: str, target: Mapping[str, Any] | None = None) -> AnswerCheck:
    async def go() -> AnswerCheck:
        async with RegistryClient(registry.settings()) as client:
            return await check_answer(client, f"```python\n{reply}\n```\n", removed_api=target)

    return asyncio.run(go())


def symbol_verdicts(check: AnswerCheck) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for verdict in check.verdicts:
        if verdict.level == "symbol":
            out.setdefault(verdict.name, []).append((verdict.verdict, verdict.reason))
    return out


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_each_use_gets_its_verdict(registry: FakeRegistry, case_id: str) -> None:
    case = CASES[case_id]
    check = run(registry, case["reply"], case.get("target"))
    judged = symbol_verdicts(check)
    for expected in case.get("expect", []):
        assert expected["name"] in judged, f"{expected['name']} not judged; got {sorted(judged)}"
        verdicts = judged[expected["name"]]
        assert any(v == expected["verdict"] for v, _ in verdicts), verdicts
        if "reason" in expected:
            assert any(expected["reason"] in r for v, r in verdicts if v == expected["verdict"]), verdicts
    for name in case.get("absent", []):
        assert name not in judged, f"{name} must not be judged: {judged.get(name)}"
    assert not check.errors


def test_uses_carry_their_lines_and_receiver_kind(registry: FakeRegistry) -> None:
    check = run(registry, CASES["receiver-unknown"]["reply"])
    uses = {v.name: v for v in check.verdicts if v.level == "symbol" and v.use}
    lost = uses["tabula.read_table()<?>.strip"]
    assert lost.use == "unknown" and lost.to_dict()["line"] == 4  # the reply's line 3, after the fence
    untyped_result = uses["tabula.raw().anything"]
    assert untyped_result.use == "typed" and "no return annotation" in untyped_result.reason


def test_the_possible_removed_api_use_keeps_the_row_from_passing(registry: FakeRegistry) -> None:
    case = CASES["untyped-d-case"]
    check = run(registry, case["reply"], case["target"])
    scores = sample_scores(check, {"group": "D"})
    assert scores["uses"]["possible_removed_api"] == ["frame.append"]
    verdict, detail = row_verdict(scores)
    assert verdict == "unscored" and "possible removed-API use" in detail
    plain = run(registry, case["reply"])
    assert row_verdict(sample_scores(plain, {"group": "D"}))[0] == "pass"


def test_rows_count_decided_uses_out_of_all(registry: FakeRegistry) -> None:
    check = run(registry, CASES["receiver-unknown"]["reply"] + "\nframe.head()\n")
    uses = sample_scores(check, {"group": "A"})["uses"]
    assert (uses["all"], uses["decided"], uses["receiver_unknown"]) == (3, 1, 2)
    block = {"all": 3, "decided": 1, "decided_share": 1 / 3, "receiver_unknown": 2, "possible_removed_api": 0}
    assert format_uses(block) == "1/3 (33.3 %), receiver unknown 2"


def test_stub_distributions_are_read_once_per_client(registry: FakeRegistry) -> None:
    before = len(registry.requests_to("/files/types_plainreq"))
    run(registry, CASES["typeshed-stubs"]["reply"])
    assert len(registry.requests_to("/files/types_plainreq")) > before
    assert not registry.requests_to("/files/types_tabula"), "a package without stubs needs no stub download"
    run(registry, CASES["union-return"]["reply"] + CASES["star-reexport-typevar-self"]["reply"])
    assert not registry.requests_to("/files/types_asyncweb"), "annotations in the package itself need no stubs"


def test_extraction_follows_every_form_without_a_registry() -> None:
    code = "\n".join(case["reply"] for case in SPEC["case"] if case["form"] != "control")
    result = extract_python(code)
    labels = {use.label(r.module or r.package) for r in result.references for use in r.uses}
    assert "tabula.read_table().head().to_csv" in labels
    assert "tabula.open_store()<with>.get().head" in labels
    assert "tabula.read_chunks()[].to_csv" in labels
    assert any(u.name == "append" and u.receiver == "frame" for u in result.untyped_uses)


def test_older_series_are_the_latest_of_each_earlier_minor_newest_first() -> None:
    files = [{"filename": "x.whl"}]
    releases = {v: files for v in ("1.22.0", "1.22.4", "1.23.5", "1.23.0", "1.24.0rc1", "2.0.2", "2.1.0", "2.1.3")}
    releases["1.25.0"] = []  # a release without files is never read
    document = {"releases": releases}
    assert older_series(document, "2.1.3") == ["2.0.2", "1.23.5", "1.22.4"]
    assert older_series(document, "1.22.4") == []
