"""The checker on known answers, against real wheels served by the loopback registry."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from registry_server import FakeRegistry, Fault

from hallubench.hallucinated_packages.checker import AnswerCheck, check_answer
from hallubench.hallucinated_packages.registry import RegistryClient

CASES = json.loads((Path(__file__).resolve().parent / "data" / "checker_cases.json").read_text())

PANDAS_OLD = "class DataFrame:\n    def append(self, other):\n        return self\n    def head(self):\n        pass\n"
PANDAS_NEW = "class DataFrame:\n    def head(self):\n        pass\n\ndef concat(objs):\n    pass\n"


def populate(registry: FakeRegistry) -> None:
    """Small real wheels shaped like the real projects where it matters for these cases."""
    registry.add_wheel(
        "requests", "2.32.3", {"requests/__init__.py": "def get(url):\n    pass\n\nclass Session:\n    pass\n"}
    )
    registry.add_wheel("PyYAML", "6.0.2", {"yaml/__init__.py": "def safe_load(stream):\n    pass\n"})
    registry.add_wheel(
        "mt-940",
        "4.30.0",
        {"mt940/__init__.py": "from .parser import parse\n", "mt940/parser.py": "def parse(src):\n    pass\n"},
    )
    registry.add_wheel("mt940", "0.8.1", {"mt940/__init__.py": "class MT940:\n    pass\n"})
    registry.add_wheel("swift", "2.34.0", {"swift/__init__.py": "", "swift/common/__init__.py": ""})
    registry.add_sdist("pygeo", "0.1.3", {"pygeo/__init__.py": "def area(x):\n    pass\n"})
    express_index = "exports.Router = function Router() {};\nexports.json = function json() {};\n"
    registry.add_npm("express", "4.21.2", {"index.js": express_index}, latest=False)
    registry.add_npm("express", "5.1.0", {"index.js": express_index})
    # Express ships no declarations; these stand in for @types/express (an `export =` function whose
    # result is core.Express), @types/express-serve-static-core and the part of @types/node it needs.
    express_types = (
        'import * as core from "express-serve-static-core";\n'
        "declare function e(): core.Express;\n"
        "declare namespace e {\n    var json: () => unknown;\n    export function Router(): core.Router;\n}\n"
        "export = e;\n"
    )
    for version in ("4.17.21", "5.0.0"):
        registry.add_npm(
            "@types/express", version, {"index.d.ts": express_types},
            package_json={"types": "index.d.ts", "dependencies": {"@types/express-serve-static-core": "*"}},
            latest=version == "5.0.0",
        )  # fmt: skip
    registry.add_npm(
        "@types/express-serve-static-core",
        "5.0.0",
        {
            "index.d.ts": 'import { EventEmitter } from "events";\n'
            "export interface IRouter {\n    get(path: string, ...handlers: unknown[]): this;\n"
            "    use(...handlers: unknown[]): this;\n    delete(path: string, ...handlers: unknown[]): this;\n}\n"
            "export interface Application extends EventEmitter, IRouter {\n    listen(port: number): void;\n}\n"
            "export interface Express extends Application {}\nexport interface Router extends IRouter {}\n"
        },
        package_json={"types": "index.d.ts"},
    )
    registry.add_npm(
        "@types/node",
        "22.0.0",
        {
            "index.d.ts": '/// <reference path="events.d.ts" />\n',
            "events.d.ts": 'declare module "events" {\n    class EventEmitter {\n'
            "        on(event: string, listener: unknown): this;\n        emit(event: string): boolean;\n    }\n"
            "    namespace EventEmitter {\n        export { EventEmitter };\n    }\n"
            "    export = EventEmitter;\n}\n",
        },
        package_json={"types": "index.d.ts"},
    )
    lodash = {"lodash.js": "module.exports = {};\n", "debounce.js": "module.exports = function () {};\n"}
    registry.add_npm("lodash", "4.17.21", lodash, package_json={"main": "lodash.js"})
    registry.add_wheel(
        "pandas",
        "1.5.3",
        {
            "pandas/__init__.py": "from pandas.core.frame import DataFrame\n",
            "pandas/core/__init__.py": "",
            "pandas/core/frame.py": PANDAS_OLD,
        },
    )
    registry.add_wheel(
        "pandas",
        "2.2.3",
        {
            "pandas/__init__.py": "from pandas.core.frame import DataFrame\nfrom pandas.core.frame import concat\n",
            "pandas/core/__init__.py": "",
            "pandas/core/frame.py": PANDAS_NEW,
        },
    )


def check(registry: FakeRegistry, answer: str, **settings: Any) -> AnswerCheck:
    async def go() -> AnswerCheck:
        async with RegistryClient(registry.settings(**settings)) as client:
            return await check_answer(client, answer)

    return asyncio.run(go())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_checker_cases(fake_registry: FakeRegistry, case: dict[str, Any]) -> None:
    populate(fake_registry)
    result = check(fake_registry, case["answer"])
    got = sorted((v.reference.text, v.level, v.verdict) for v in result.verdicts)
    assert got == sorted(tuple(e) for e in case["expected"]), [v.reason for v in result.verdicts]
    assert not result.errors
    for verdict in result.verdicts:
        if verdict.verdict not in ("stdlib", "local"):
            assert verdict.evidence, f"{verdict.name}: {verdict.verdict} without evidence"


def test_every_registry_fault_gives_unverified_never_missing(fake_registry: FakeRegistry) -> None:
    outage = Fault("status", status=503)
    for path in ("/pypi/nosuchpkg/json", "/simple/nosuchpkg/"):
        fake_registry.script(path, *(outage,) * 6)
    result = check(fake_registry, "```python\nimport nosuchpkg\nnosuchpkg.run()\n```\n")
    assert [(v.level, v.verdict) for v in result.verdicts] == [("package", "unverified")]


def test_registered_after_the_run_is_flagged(fake_registry: FakeRegistry) -> None:
    fake_registry.add_wheel("slopname", "0.0.1", {"slopname/__init__.py": ""}, upload_time="2030-01-01T00:00:00Z")

    async def go() -> AnswerCheck:
        async with RegistryClient(fake_registry.settings()) as client:
            return await check_answer(client, "```python\nimport slopname\n```", run_started_at="2029-06-01T00:00:00Z")

    verdict = asyncio.run(go()).verdicts[0]
    assert verdict.verdict == "exists" and verdict.registered_since
