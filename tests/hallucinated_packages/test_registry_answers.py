"""Registry answers are believed only when well formed: golden (status, content type, body) table.

Each row of `tests/hallucinated_packages/data/registry_answers.json` makes one endpoint of the loopback fake
answer one way and drives the real client against it; a 200 that is not what that endpoint
serves must be `unverified`, with a reason naming the endpoint and the HTTP status.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from registry_server import FakeRegistry

from hallubench.hallucinated_packages.distmap import DistCandidate
from hallubench.hallucinated_packages.evidence import Evidence
from hallubench.hallucinated_packages.jssymbols import check_js_symbol
from hallubench.hallucinated_packages.pysymbols import check_python_symbol
from hallubench.hallucinated_packages.registry import PackageVerdict, RegistryClient
from hallubench.hallucinated_packages.settings import RegistrySettings

TABLE: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "registry_answers.json").read_text(encoding="utf-8")
)
CASES: list[dict[str, Any]] = TABLE["cases"]
REGISTRY_ENDPOINTS = {"pypi json": "pypi", "pypi simple": "pypi", "npm packument": "npm", "npm latest": "npm"}
FILE_LABELS = {"pypi wheel": "pypi file", "pypi sdist": "pypi file", "npm tarball": "npm tarball"}
MODULE = "def ok():\n    pass\n"

SERVICE_UNAVAILABLE = (
    b"<!DOCTYPE html><html><head><title>Service temporarily unavailable</title></head>"
    b"<body><h1>Service temporarily unavailable</h1><p>Please try again later.</p></body></html>"
)


def check(settings: RegistrySettings, ecosystem: str, name: str) -> PackageVerdict:
    async def go() -> PackageVerdict:
        async with RegistryClient(settings) as client:
            return await client.package(ecosystem, name)

    return asyncio.run(go())


def test_json_404_then_a_simple_api_html_error_page_is_unverified_never_exists(fake_registry: FakeRegistry) -> None:
    """The issue's case: PyPI JSON 404, then the Simple API answers 200 text/html 'Service temporarily unavailable'."""
    fake_registry.answer("/simple/ghost-pkg/", 200, "text/html; charset=utf-8", SERVICE_UNAVAILABLE)
    verdict = check(fake_registry.settings(), "pypi", "ghost-pkg")
    assert verdict.verdict == "unverified", verdict
    assert [e.status for e in verdict.evidence] == [404, 200]
    assert "pypi simple /simple/ghost-pkg/" in verdict.reason
    assert "HTTP 200 text/html" in verdict.reason


def test_a_5xx_that_outlasts_the_retries_names_its_status_and_endpoint(fake_registry: FakeRegistry) -> None:
    fake_registry.answer("/pypi/ghost-pkg/json", 503, "text/html", SERVICE_UNAVAILABLE)
    verdict = check(fake_registry.settings(max_retries=1), "pypi", "ghost-pkg")
    assert verdict.verdict == "unverified", verdict
    assert "pypi json /pypi/ghost-pkg/json" in verdict.reason
    assert "HTTP 503" in verdict.reason


def _add_artifact(registry: FakeRegistry, endpoint: str) -> bytes:
    """The package exists in the fake, with the one file that `endpoint` serves."""
    if endpoint == "pypi wheel":
        path = registry.add_wheel("ghost-pkg", "1.0", {"ghost_pkg/__init__.py": MODULE})
    elif endpoint == "pypi sdist":
        path = registry.add_sdist("ghost-pkg", "1.0", {"ghost_pkg/__init__.py": MODULE})
    else:
        path = registry.add_npm("ghost-pkg", "1.0.0", {"index.js": "exports.ok = function () {};\n"})
    return path.read_bytes()


def _body(name: str, artifact: bytes) -> bytes:
    if name == "artifact":
        return artifact
    if name == "artifact-half":
        return artifact[: len(artifact) // 2]
    return str(TABLE["bodies"][name]).encode("utf-8")


async def _ask(client: RegistryClient, endpoint: str) -> tuple[str, str, tuple[Evidence, ...]]:
    if endpoint in REGISTRY_ENDPOINTS:
        package = await client.package(REGISTRY_ENDPOINTS[endpoint], "ghost-pkg")
        return package.verdict, package.reason, package.evidence
    if endpoint == "npm tarball":
        symbol = await check_js_symbol(client, "ghost-pkg", None, ["ok"])
    else:
        symbol = await check_python_symbol(client, [DistCandidate("ghost-pkg", "same-name")], "ghost_pkg", ["ok"])
    return symbol.verdict, symbol.reason, symbol.evidence


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_golden_registry_answer(fake_registry: FakeRegistry, case: dict[str, Any]) -> None:
    endpoint, status = case["endpoint"], case["status"]
    path = TABLE["endpoints"][endpoint]
    artifact = b"" if endpoint in REGISTRY_ENDPOINTS else _add_artifact(fake_registry, endpoint)
    if status is not None:
        fake_registry.answer(path, status, case["content_type"], _body(case["body"], artifact))

    async def go() -> tuple[str, str, tuple[Evidence, ...]]:
        async with RegistryClient(fake_registry.settings(max_retries=1)) as client:
            return await _ask(client, endpoint)

    verdict, reason, evidence = asyncio.run(go())
    assert verdict == case["verdict"], reason
    for fragment in case["reason"]:
        assert fragment in reason
    asked = [e.status for e in evidence if urlsplit(e.url).path == path]
    assert asked, f"no evidence of asking {path}"
    if status is not None:
        assert asked[-1] == status
    if verdict == "unverified" and not case.get("hold"):
        label = f"{FILE_LABELS.get(endpoint, endpoint)} {path}"
        assert label in reason and f"HTTP {status}" in reason, "an unverified reason names the endpoint and status"


@pytest.mark.parametrize("endpoint", sorted(TABLE["endpoints"]))
def test_the_golden_table_tries_every_kind_of_answer_on_every_endpoint(endpoint: str) -> None:
    tried = {(c["status"], c["body"]) for c in CASES if c["endpoint"] == endpoint}
    statuses = {status for status, _ in tried}
    assert {(200, "html-error"), (200, "empty")} <= tried
    assert {404, 500, 503} <= statuses
    if endpoint in REGISTRY_ENDPOINTS:
        assert {410, 429, 502} <= statuses
        assert any(status == 200 and "truncated" in body for status, body in tried)
    decided = {c["verdict"] for c in CASES if c["endpoint"] == endpoint}
    assert decided & {"exists", "missing", "found"}, "each endpoint has a well-formed answer that decides"


def test_json_nested_past_the_parser_limit_is_unverified_not_a_crash(fake_registry: FakeRegistry) -> None:
    fake_registry.answer("/pypi/ghost-pkg/json", 200, "application/json", b"[" * 100_000)
    verdict = check(fake_registry.settings(), "pypi", "ghost-pkg")
    assert verdict.verdict == "unverified"
    assert "pypi json /pypi/ghost-pkg/json: HTTP 200 application/json: body is JSON nested too deeply" in verdict.reason
