"""Registry answers are believed only when well formed: golden (status, content type, body) table.

Each row of `tests/data/packages/registry_answers.json` makes one endpoint of the loopback fake
answer one way and drives the real client against it; a 200 that is not what that endpoint
serves must be `unverified`, with a reason naming the endpoint and the HTTP status.
"""

from __future__ import annotations

import asyncio

from registry_server import FakeRegistry

from hallubench.packages.registry import PackageVerdict, RegistryClient
from hallubench.packages.settings import RegistrySettings

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
