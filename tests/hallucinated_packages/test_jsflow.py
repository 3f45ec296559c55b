"""JavaScript uses of what a package gives back, judged from its declaration files on the loopback registry.

The packages and answers are in tests/hallucinated_packages/data/js_flow.toml: real npm tarballs with
`.d.ts` files (or an `@types/` package), answers in the forms models write, and per used name the verdict
the whole checker (`check_answer`) must give.
"""

from __future__ import annotations

import asyncio
import json
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from registry_server import FakeRegistry

from hallubench.hallucinated_packages.checker import AnswerCheck, ReferenceVerdict, check_answer
from hallubench.hallucinated_packages.extract_js import parser_available
from hallubench.hallucinated_packages.prompt_sets import V7_PROMPTS
from hallubench.hallucinated_packages.registry import RegistryClient

pytestmark = pytest.mark.skipif(not parser_available(), reason="tree-sitter grammars not installed (.[js])")

SPEC = tomllib.loads((Path(__file__).parent / "data" / "js_flow.toml").read_text(encoding="utf-8"))
WRONG = ("missing-symbol", "missing-subpath", "removed-api")


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeRegistry]:
    with FakeRegistry(tmp_path_factory.mktemp("jsflow")) as reg:
        for pkg in SPEC["pkg"]:
            reg.add_npm(pkg["name"], pkg["version"], pkg["files"], package_json=json.loads(pkg["package_json"]))
        yield reg


def check(registry: FakeRegistry, answer: str) -> AnswerCheck:
    async def go() -> AnswerCheck:
        async with RegistryClient(registry.settings()) as client:
            return await check_answer(client, answer)

    return asyncio.run(go())


def uses_named(result: AnswerCheck, name: str) -> list[ReferenceVerdict]:
    return [v for v in result.verdicts if v.level == "symbol" and v.name.endswith((f".{name}", f":{name}"))]


@pytest.mark.parametrize("case", SPEC["case"], ids=[c["id"] for c in SPEC["case"]])
def test_uses_of_returned_values(registry: FakeRegistry, case: dict[str, Any]) -> None:
    result = check(registry, case["answer"])
    assert not result.errors
    seen = [(v.name, v.verdict, v.reason) for v in result.verdicts if v.level == "symbol"]
    for want in case.get("expect", []):
        got = uses_named(result, want["name"])
        assert len(got) == 1, (want["name"], seen)
        assert got[0].verdict == want["verdict"], (want["name"], got[0].reason)
        assert want.get("reason", "") in got[0].reason
        assert got[0].evidence
    for name in case.get("never_missing", []):
        assert not [v for v in uses_named(result, name) if v.verdict in WRONG], (name, seen)


def test_a_receiver_unknown_use_carries_the_python_gate_wording(registry: FakeRegistry) -> None:
    result = check(registry, "```javascript\nimport http from 'httpc';\nhttp.raw('/x').size;\n```\n")
    (use,) = uses_named(result, "size")
    assert use.reason.startswith("receiver type unknown")
    assert use.to_dict()["use"] == "unknown"  # counted among the row's uses, undecided


def test_uses_of_returned_values_count_as_uses_and_module_names_do_not(registry: FakeRegistry) -> None:
    answer = "```javascript\nimport http from 'httpc';\nconst api = http.create();\napi.fetch('/x');\n```\n"
    result = check(registry, answer)
    (fetch,) = uses_named(result, "fetch")
    (create,) = uses_named(result, "create")
    assert (fetch.verdict, fetch.use) == ("missing-symbol", "typed")
    assert create.use is None


CORPUS = tomllib.loads(
    (Path(__file__).parent / "data" / "recall_corpus" / "javascript.toml").read_text(encoding="utf-8")
)
CORPUS_VERDICTS = {
    "found",
    "missing-symbol",
    "missing-submodule",
    "removed-api",
    "unverified",
    "possible-removed-api",
    "none",
}
LIVE_IDS = ("js-axios-await-data", "js-express-app-listen", "js-pg-query-rows", "js-express-ts-handler")


def test_the_javascript_recall_corpus_is_in_the_documented_format() -> None:
    replies = CORPUS["reply"]
    assert len(replies) >= 35
    assert len({r["id"] for r in replies}) == len(replies)
    for reply in replies:
        assert set(reply) <= {"id", "form", "language", "control", "case", "reply", "uses"}, reply["id"]
        assert reply["language"] == "javascript" and isinstance(reply["control"], bool), reply["id"]
        assert "```" in reply["reply"] and reply["uses"], reply["id"]
        for use in reply["uses"]:
            assert set(use) <= {"name", "line", "verdict", "knowable"}, reply["id"]
            assert use["verdict"] in CORPUS_VERDICTS and isinstance(use["knowable"], bool), reply["id"]
            assert use["name"] in reply["reply"], (reply["id"], use["name"])
            if reply["control"]:
                assert use["verdict"] in ("none", "found"), reply["id"]


@pytest.mark.live
@pytest.mark.parametrize("reply_id", LIVE_IDS)
def test_live_corpus_replies_against_the_real_packages(reply_id: str) -> None:
    from hallubench.hallucinated_packages.settings import RegistrySettings

    reply = next(r for r in CORPUS["reply"] if r["id"] == reply_id)

    async def go() -> AnswerCheck:
        async with RegistryClient(RegistrySettings()) as client:
            return await check_answer(client, reply["reply"])

    result = asyncio.run(go())
    for use in reply["uses"]:
        verdicts = {v.verdict for v in uses_named(result, use["name"])}
        assert verdicts == {use["verdict"]}, (use["name"], [v.reason for v in uses_named(result, use["name"])])


D02_ANSWER = """```javascript
const express = require('express');

function registerRoutes(app) {
  app.del('/items/:id', (req, res) => res.sendStatus(204));
}

const app = express();
app.use(express.json());
registerRoutes(app);
```
"""


def test_the_targeted_removed_api_on_an_untyped_parameter_is_a_possible_removed_api_use(
    registry: FakeRegistry,
) -> None:
    target = next(p.removed_api for p in V7_PROMPTS if p.prompt_id == "D02")

    async def go(removed_api: dict[str, Any] | None) -> AnswerCheck:
        async with RegistryClient(registry.settings()) as client:
            return await check_answer(client, D02_ANSWER, removed_api=removed_api)

    flagged = [v for v in asyncio.run(go(target)).verdicts if v.possible_removed_api]
    assert [(v.name, v.verdict, v.reference.package) for v in flagged] == [("app.del", "unverified", "express")]
    assert flagged[0].reason.startswith("possible removed-API use (receiver type unknown)")
    assert not [v for v in asyncio.run(go(None)).verdicts if v.possible_removed_api]
