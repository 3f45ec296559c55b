"""Registry verdicts against the loopback fake: only a confirmed 404 is missing; every fault is unverified."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from registry_server import FakeRegistry, Fault

from hallubench.hallucinated_packages.registry import PackageVerdict, RegistryClient, VerdictCache
from hallubench.hallucinated_packages.settings import RegistrySettings


def check(settings: RegistrySettings, ecosystem: str, name: str, **kw: Any) -> PackageVerdict:
    async def go() -> PackageVerdict:
        async with RegistryClient(settings, **kw) as client:
            return await client.package(ecosystem, name)

    return asyncio.run(go())


def test_existing_pypi_project_records_canonical_name_latest_and_first_upload(fake_registry: FakeRegistry) -> None:
    fake_registry.add_wheel("PyYAML", "5.4", {"yaml/__init__.py": ""}, upload_time="2021-01-20T10:00:00Z")
    fake_registry.add_wheel("PyYAML", "6.0.2", {"yaml/__init__.py": ""}, upload_time="2024-08-06T10:00:00Z")
    verdict = check(fake_registry.settings(), "pypi", "pyyaml")
    assert verdict.verdict == "exists"
    assert verdict.name == "pyyaml"
    assert verdict.canonical_name == "PyYAML"
    assert verdict.latest_version == "6.0.2"
    assert verdict.first_upload == "2021-01-20T10:00:00Z"
    assert [e.status for e in verdict.evidence] == [200]
    assert verdict.evidence[0].url.endswith("/pypi/pyyaml/json")


def test_non_normalized_pypi_name_is_looked_up_in_pep503_form(fake_registry: FakeRegistry) -> None:
    fake_registry.add_wheel("python-dateutil", "2.9.0", {"dateutil/__init__.py": ""})
    verdict = check(fake_registry.settings(), "pypi", "Python_DateUtil")
    assert verdict.verdict == "exists"
    assert fake_registry.requests_to("/pypi/")[0].path == "/pypi/python-dateutil/json"


def test_pypi_missing_only_after_simple_api_confirms(fake_registry: FakeRegistry) -> None:
    verdict = check(fake_registry.settings(), "pypi", "pygeo-tilesmith")
    assert verdict.verdict == "missing"
    assert [e.status for e in verdict.evidence] == [404, 404]
    assert "/simple/pygeo-tilesmith/" in verdict.evidence[1].url
    assert "confirmed" in verdict.evidence[1].note
    simple = fake_registry.requests_to("/simple/")
    assert simple and "application/vnd.pypi.simple.v1+json" in (simple[0].accept or "")


def test_project_without_files_is_unverified_not_exists(fake_registry: FakeRegistry) -> None:
    """JSON 404, and a Simple API page that names the project but lists none of its files: no confirmation."""
    fake_registry.add_empty_project("placeholder-proj")
    verdict = check(fake_registry.settings(), "pypi", "placeholder-proj")
    assert verdict.verdict == "unverified"
    assert "pypi simple /simple/placeholder-proj/" in verdict.reason and "lists none of its files" in verdict.reason


def test_project_with_files_on_the_simple_api_exists_after_a_json_404(fake_registry: FakeRegistry) -> None:
    fake_registry.add_wheel("listed-proj", "1.0", {"listed_proj/__init__.py": ""})
    fake_registry.answer("/pypi/listed-proj/json", 404, "application/json", b'{"message": "Not Found"}')
    verdict = check(fake_registry.settings(), "pypi", "listed-proj")
    assert verdict.verdict == "exists"
    assert "listed on the Simple API" in verdict.reason


def test_quarantined_project_is_a_hold_not_missing(fake_registry: FakeRegistry) -> None:
    fake_registry.add_empty_project("quarantined-proj")
    fake_registry.simple_status["quarantined-proj"] = "quarantined"
    verdict = check(fake_registry.settings(), "pypi", "quarantined-proj")
    assert verdict.verdict == "unverified"
    assert "quarantined" in verdict.reason


FAULTS = {
    "timeout": [Fault("timeout", seconds=1.5)],
    "dropped connection": [Fault("drop")] * 3,
    "503 every time": [Fault("status", 503)] * 3,
    "429 with a Retry-After beyond the bound": [Fault("status", 429, {"Retry-After": "3600"})],
    "malformed JSON": [Fault("malformed")],
    "redirect loop": [Fault("redirect-loop")],
    "401": [Fault("status", 401)],
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_fault_on_the_json_api_is_unverified_even_for_an_unknown_name(
    fake_registry: FakeRegistry, fault: str
) -> None:
    fake_registry.script("/pypi/ghost-pkg/json", *FAULTS[fault])
    settings = fake_registry.settings(timeout_s=0.5, max_retries=0 if fault == "timeout" else 2)
    verdict = check(settings, "pypi", "ghost-pkg")
    assert verdict.verdict == "unverified", verdict
    assert verdict.evidence, "an unverified verdict must still carry evidence"
    assert all(e.status != 404 for e in verdict.evidence)


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_404_whose_confirmation_fails_is_unverified(fake_registry: FakeRegistry, fault: str) -> None:
    fake_registry.script("/simple/ghost-pkg/", *FAULTS[fault])
    settings = fake_registry.settings(timeout_s=0.5, max_retries=0 if fault == "timeout" else 2)
    verdict = check(settings, "pypi", "ghost-pkg")
    assert verdict.verdict == "unverified", verdict
    assert verdict.evidence[0].status == 404
    assert "not confirmed" in verdict.reason


def test_refused_connection_is_unverified() -> None:
    url = FakeRegistry.refused_url()
    settings = RegistrySettings(
        pypi_json_url=f"{url}/pypi", pypi_simple_url=f"{url}/simple", npm_url=f"{url}/npm",
        max_retries=1, backoff_base_s=0.01, timeout_s=1.0,
    )  # fmt: skip
    for ecosystem in ("pypi", "npm"):
        verdict = check(settings, ecosystem, "anything")
        assert verdict.verdict == "unverified"
        assert len(verdict.evidence) == 2 and all(e.status is None for e in verdict.evidence)


def test_429_retry_after_is_honoured_then_the_answer_counts(fake_registry: FakeRegistry) -> None:
    fake_registry.add_wheel("requests", "2.32.3", {"requests/__init__.py": ""})
    fake_registry.script("/pypi/requests/json", Fault("status", 429, {"Retry-After": "1"}))
    started = time.monotonic()
    verdict = check(fake_registry.settings(), "pypi", "requests")
    assert time.monotonic() - started >= 0.9
    assert verdict.verdict == "exists"
    assert [e.status for e in verdict.evidence] == [429, 429, 200]
    assert "Retry-After 1s honoured" in verdict.evidence[1].note
    assert len(fake_registry.requests_to("/pypi/requests/json")) == 2


def test_retry_after_beyond_the_bound_is_not_waited_for(fake_registry: FakeRegistry) -> None:
    fake_registry.add_wheel("requests", "2.32.3", {"requests/__init__.py": ""})
    fake_registry.script("/pypi/requests/json", Fault("status", 429, {"Retry-After": "3600"}))
    started = time.monotonic()
    verdict = check(fake_registry.settings(max_retry_after_s=1.0), "pypi", "requests")
    assert time.monotonic() - started < 1.0
    assert verdict.verdict == "unverified"
    assert "exceeds" in verdict.reason


def test_npm_exists_missing_and_scoped(fake_registry: FakeRegistry) -> None:
    fake_registry.add_npm("express", "5.1.0", {"index.js": "module.exports = {}"}, created="2010-12-29T19:38:25Z")
    fake_registry.add_npm("@types/node", "22.0.0", {"index.d.ts": ""})
    settings = fake_registry.settings()
    express = check(settings, "npm", "express")
    assert (express.verdict, express.latest_version, express.first_upload) == (
        "exists", "5.1.0", "2010-12-29T19:38:25Z",
    )  # fmt: skip
    assert check(settings, "npm", "@types/node").verdict == "exists"
    assert fake_registry.requests_to("/npm/@types")[0].path in ("/npm/@types%2fnode", "/npm/@types%2Fnode")
    missing = check(settings, "npm", "pg-safe-query")
    assert missing.verdict == "missing"
    assert [e.status for e in missing.evidence] == [404, 404]
    assert missing.evidence[1].url.endswith("/pg-safe-query/latest")


def test_npm_security_holds_are_unverified(fake_registry: FakeRegistry) -> None:
    fake_registry.add_npm("held-pkg", "0.0.1-security", {"README.md": "security holding package"})
    settings = fake_registry.settings()
    held = check(settings, "npm", "held-pkg")
    assert held.verdict == "unverified" and held.reason.startswith("hold")
    fake_registry.script("/npm/legal-hold", Fault("status", 451))
    assert check(settings, "npm", "legal-hold").verdict == "unverified"


def test_npm_404_not_confirmed_is_unverified(fake_registry: FakeRegistry) -> None:
    fake_registry.script("/npm/flaky-name/latest", Fault("status", 503), Fault("status", 503), Fault("status", 503))
    verdict = check(fake_registry.settings(), "npm", "flaky-name")
    assert verdict.verdict == "unverified"


def test_invalid_names_are_unverified_without_a_request(fake_registry: FakeRegistry) -> None:
    settings = fake_registry.settings()
    assert check(settings, "pypi", "not a name").verdict == "unverified"
    assert check(settings, "npm", "@/components").verdict == "unverified"
    assert fake_registry.requests == []


def test_many_lookups_are_deduplicated_and_concurrency_is_bounded(fake_registry: FakeRegistry) -> None:
    names = [f"pkg-{i}" for i in range(6)]
    for name in names:
        fake_registry.add_wheel(name, "1.0", {f"{name}/__init__.py": ""})
    fake_registry.latency_s = 0.05
    items = [("pypi", n) for n in names] * 5 + [("pypi", "PKG-0"), ("pypi", "Pkg_1")]

    async def go() -> dict[tuple[str, str], PackageVerdict]:
        async with RegistryClient(fake_registry.settings(max_concurrency=2)) as client:
            return await client.packages(items)

    verdicts = asyncio.run(go())
    assert set(verdicts) == set(items)
    assert all(v.verdict == "exists" for v in verdicts.values())
    assert verdicts[("pypi", "PKG-0")].name == "PKG-0"
    assert len(fake_registry.requests_to("/pypi/")) == len(names)
    assert fake_registry.max_inflight <= 2


def test_cache_keeps_answers_but_never_an_unverified_one(fake_registry: FakeRegistry) -> None:
    fake_registry.add_wheel("requests", "2.32.3", {"requests/__init__.py": ""})
    fake_registry.script("/pypi/requests/json", Fault("status", 503))
    cache = VerdictCache()
    settings = fake_registry.settings(max_retries=0)
    assert check(settings, "pypi", "requests", cache=cache).verdict == "unverified"
    assert check(settings, "pypi", "requests", cache=cache).verdict == "exists"
    assert check(settings, "pypi", "requests", cache=cache).verdict == "exists"
    assert check(settings, "pypi", "nosuch-pkg", cache=cache).verdict == "missing"
    assert check(settings, "pypi", "nosuch-pkg", cache=cache).verdict == "missing"
    assert len(fake_registry.requests_to("/pypi/requests/json")) == 2
    assert len(fake_registry.requests_to("/pypi/nosuch-pkg/json")) == 1


def test_cache_entries_expire(fake_registry: FakeRegistry) -> None:
    now = [0.0]
    cache = VerdictCache(exists_s=10.0, missing_s=1.0, clock=lambda: now[0])
    settings = fake_registry.settings()
    assert check(settings, "pypi", "later-registered", cache=cache).verdict == "missing"
    now[0] = 2.0
    fake_registry.add_wheel("later-registered", "0.0.1", {"later_registered.py": ""})
    assert check(settings, "pypi", "later-registered", cache=cache).verdict == "exists"


@pytest.mark.live
def test_live_yaml_exists_via_pyyaml_and_a_fake_name_is_missing() -> None:
    from hallubench.hallucinated_packages.distmap import candidates

    settings = RegistrySettings()
    (dist,) = candidates("yaml")
    verdict = check(settings, "pypi", dist.distribution)
    assert (verdict.verdict, verdict.canonical_name) == ("exists", "PyYAML")
    assert verdict.first_upload is not None
    assert check(settings, "pypi", "pygeo-tilesmith").verdict == "missing"
    assert check(settings, "npm", "express").verdict == "exists"


def test_a_body_declared_over_the_cap_is_refused_before_reading(fake_registry: FakeRegistry) -> None:
    """Content-Length over the cap: nothing is read (and no body iteration is abandoned half way,
    which leaves httpcore's inner generator to be closed by the garbage collector, outside its task)."""
    path = fake_registry.add_wheel("bulky", "1.0", {"bulky/blob.bin": bytes(range(256)) * 4000})

    async def go() -> tuple[Any, int]:
        async with RegistryClient(fake_registry.settings()) as client:
            fetched = await client.fetch(f"{fake_registry.base_url}/files/{path.name}", max_bytes=1000)
            return fetched, client.bytes_read

    fetched, bytes_read = asyncio.run(go())
    assert fetched.error == "body exceeds the byte cap of 1000 bytes; stopped reading"
    assert fetched.content == b"" and bytes_read == 0
