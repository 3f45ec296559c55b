"""Only the registry's own origin decides (issue 21): a redirect elsewhere is unverified whatever it answers.

Two loopback registries on two ports are two origins. The registry under test redirects a lookup,
or a download of a file its document names, to the other one; the client must not follow, whatever
the other origin would say (a 404 that would "confirm" a missing name, or a valid document), and
must say which origin it refused. Redirects within one origin are still followed, each hop leaving
its own evidence, and a loop ends as unverified.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from registry_server import FakeRegistry

from hallubench.hallucinated_packages.checker import AnswerCheck, check_answer
from hallubench.hallucinated_packages.registry import PackageVerdict, RegistryClient
from hallubench.hallucinated_packages.settings import RegistrySettings

# The two endpoints each ecosystem asks, in order: the lookup, then the confirmation of a 404.
ENDPOINTS = {
    "pypi": ("/pypi/ghost-pkg/json", "/simple/ghost-pkg/"),
    "npm": ("/npm/ghost-pkg", "/npm/ghost-pkg/latest"),
}


@pytest.fixture
def foreign(tmp_path: Path) -> Iterator[FakeRegistry]:
    """Another registry on its own port: another origin, which answers whatever it is asked."""
    with FakeRegistry(tmp_path / "foreign") as registry:
        yield registry


def lookup(settings: RegistrySettings, ecosystem: str, name: str) -> PackageVerdict:
    async def go() -> PackageVerdict:
        async with RegistryClient(settings) as client:
            return await client.package(ecosystem, name)

    return asyncio.run(go())


def check(settings: RegistrySettings, answer: str) -> AnswerCheck:
    async def go() -> AnswerCheck:
        async with RegistryClient(settings) as client:
            return await check_answer(client, answer)

    return asyncio.run(go())


def publish(registry: FakeRegistry, ecosystem: str, name: str) -> None:
    """A well-formed project `name` on `registry`, with one file."""
    if ecosystem == "pypi":
        registry.add_wheel(name, "1.0", {f"{name.replace('-', '_')}/__init__.py": ""})
    else:
        registry.add_npm(name, "1.0.0", {"index.js": "module.exports = {};\n"})


def origin_of(registry: FakeRegistry) -> str:
    return registry.base_url.rstrip("/")


# ---------------------------------------------------------------------- package lookups
@pytest.mark.parametrize("ecosystem", sorted(ENDPOINTS))
def test_redirect_to_another_origin_that_answers_404_is_unverified_not_missing(
    fake_registry: FakeRegistry, foreign: FakeRegistry, ecosystem: str
) -> None:
    """Both "confirmations" would be the same foreign 404: neither is the registry's answer."""
    for path in ENDPOINTS[ecosystem]:
        fake_registry.redirect(path, f"{foreign.base_url}{path}")
    verdict = lookup(fake_registry.settings(), ecosystem, "ghost-pkg")
    assert verdict.verdict == "unverified", verdict
    assert f"redirect to another origin {origin_of(foreign)}" in verdict.reason
    assert foreign.requests == [], "the foreign origin must not even be asked"


@pytest.mark.parametrize("ecosystem", sorted(ENDPOINTS))
def test_redirect_to_another_origin_that_answers_a_valid_document_is_unverified_not_exists(
    fake_registry: FakeRegistry, foreign: FakeRegistry, ecosystem: str
) -> None:
    publish(foreign, ecosystem, "ghost-pkg")
    lookup_path = ENDPOINTS[ecosystem][0]
    fake_registry.redirect(lookup_path, f"{foreign.base_url}{lookup_path}", 301)
    verdict = lookup(fake_registry.settings(), ecosystem, "ghost-pkg")
    assert verdict.verdict == "unverified", verdict
    assert f"HTTP 301 redirect to another origin {origin_of(foreign)}" in verdict.reason
    assert verdict.latest_version is None and foreign.requests == []


@pytest.mark.parametrize("foreign_has_it", [False, True], ids=["foreign-404", "foreign-200"])
@pytest.mark.parametrize("ecosystem", sorted(ENDPOINTS))
def test_a_404_confirmed_only_by_another_origin_is_unverified(
    fake_registry: FakeRegistry, foreign: FakeRegistry, ecosystem: str, foreign_has_it: bool
) -> None:
    """The registry's own lookup says 404; its confirmation endpoint redirects elsewhere."""
    if foreign_has_it:
        publish(foreign, ecosystem, "ghost-pkg")
    confirmation = ENDPOINTS[ecosystem][1]
    fake_registry.redirect(confirmation, f"{foreign.base_url}{confirmation}", 307)
    verdict = lookup(fake_registry.settings(), ecosystem, "ghost-pkg")
    assert verdict.verdict == "unverified", verdict
    assert verdict.reason.startswith("404 not confirmed: ")
    assert f"HTTP 307 redirect to another origin {origin_of(foreign)}" in verdict.reason
    assert [e.status for e in verdict.evidence] == [404, 307]
    assert foreign.requests == []


def test_the_same_server_under_another_host_name_is_another_origin(fake_registry: FakeRegistry) -> None:
    """An origin is scheme, host and port as written, not whichever server happens to answer."""
    port = fake_registry.base_url.rsplit(":", 1)[1]
    for path in ENDPOINTS["pypi"]:
        fake_registry.redirect(path, f"http://localhost:{port}{path}")
    verdict = lookup(fake_registry.settings(), "pypi", "ghost-pkg")
    assert verdict.verdict == "unverified", verdict
    assert f"redirect to another origin http://localhost:{port}" in verdict.reason
    assert [r.path for r in fake_registry.requests] == ["/pypi/ghost-pkg/json"]


def _legacy_settings(registry: FakeRegistry) -> RegistrySettings:
    """The client configured on old paths of the registry's origin, which redirect to the current ones."""
    base = registry.base_url
    return registry.settings(
        pypi_json_url=f"{base}/legacy", pypi_simple_url=f"{base}/legacy-simple", npm_url=f"{base}/legacy-npm"
    )


def _move(registry: FakeRegistry, ecosystem: str, name: str, *, absolute: bool) -> None:
    """Redirect the old paths of `name`'s endpoints to the current ones, within the registry's origin."""
    prefix = registry.base_url if absolute else ""
    if ecosystem == "pypi":
        moves = {f"/legacy/{name}/json": f"/pypi/{name}/json", f"/legacy-simple/{name}/": f"/simple/{name}/"}
    else:
        moves = {f"/legacy-npm/{name}": f"/npm/{name}", f"/legacy-npm/{name}/latest": f"/npm/{name}/latest"}
    for old, new in moves.items():
        registry.redirect(old, prefix + new)


@pytest.mark.parametrize("absolute", [False, True], ids=["relative-location", "absolute-location"])
@pytest.mark.parametrize("ecosystem", sorted(ENDPOINTS))
def test_a_redirect_within_the_registrys_origin_is_followed_and_each_hop_is_evidence(
    fake_registry: FakeRegistry, ecosystem: str, absolute: bool
) -> None:
    publish(fake_registry, ecosystem, "real-pkg")
    for name in ("real-pkg", "ghost-pkg"):
        _move(fake_registry, ecosystem, name, absolute=absolute)
    settings = _legacy_settings(fake_registry)
    current = "/pypi/real-pkg/json" if ecosystem == "pypi" else "/npm/real-pkg"

    found = lookup(settings, ecosystem, "real-pkg")
    assert found.verdict == "exists", found
    hop, answer = found.evidence
    assert hop.status == 302 and "/legacy" in hop.url
    assert hop.note == f"redirect within {origin_of(fake_registry)} to {fake_registry.base_url}{current}"
    assert (answer.status, answer.url) == (200, f"{fake_registry.base_url}{current}")

    missing = lookup(settings, ecosystem, "ghost-pkg")
    assert missing.verdict == "missing", missing
    assert [e.status for e in missing.evidence] == [302, 404, 302, 404]
    assert all("redirect within" in e.note for e in missing.evidence[::2])


@pytest.mark.parametrize("ecosystem", sorted(ENDPOINTS))
@pytest.mark.parametrize("where", ["lookup", "confirmation"])
def test_a_redirect_loop_is_unverified_and_bounded(fake_registry: FakeRegistry, ecosystem: str, where: str) -> None:
    lookup_path, confirmation = ENDPOINTS[ecosystem]
    path = lookup_path if where == "lookup" else confirmation
    fake_registry.redirect(path, f"{path}-again")
    fake_registry.redirect(f"{path}-again", path)
    settings = fake_registry.settings(max_redirects=4)
    verdict = lookup(settings, ecosystem, "ghost-pkg")
    assert verdict.verdict == "unverified", verdict
    assert "redirect loop: more than 4 redirects" in verdict.reason
    looped = [r for r in fake_registry.requests if r.path in (path, f"{path}-again")]
    assert 1 < len(looped) <= 5, "followed within the origin, but no further than max_redirects allows"


def test_a_loop_through_another_origin_stops_at_the_first_hop(
    fake_registry: FakeRegistry, foreign: FakeRegistry
) -> None:
    path = ENDPOINTS["npm"][0]
    fake_registry.redirect(path, f"{foreign.base_url}{path}")
    foreign.redirect(path, f"{fake_registry.base_url}{path}")
    verdict = lookup(fake_registry.settings(), "npm", "ghost-pkg")
    assert verdict.verdict == "unverified" and origin_of(foreign) in verdict.reason
    assert foreign.requests == [] and len(fake_registry.requests_to(path)) == 1


# ---------------------------------------------------------------------- artifacts for the symbol gates
ANSWER = (
    "```python\nimport requests\nimport tilecalc\n\n"
    "requests.get('https://example.org')\nrequests.fetch_json('https://example.org')\n"
    "tilecalc.area(2)\ntilecalc.perimeter(2)\n```\n"
    "```js\nimport debounce from 'lodash/debounce';\nimport fakefn from 'lodash/fakefn';\n```\n"
)
# (reference, the name used) -> symbol verdict when the files are read
READ = {
    ("requests", "requests.get"): "found",
    ("requests", "requests.fetch_json"): "missing-symbol",
    ("tilecalc", "tilecalc.area"): "found",
    ("tilecalc", "tilecalc.perimeter"): "missing-symbol",
    ("lodash/debounce", "lodash/debounce"): "found",
    ("lodash/fakefn", "lodash/fakefn"): "missing-subpath",
}
FILES = {
    "requests": "requests-2.32.3-py3-none-any.whl",
    "tilecalc": "tilecalc-0.1.0.tar.gz",
    "lodash": "npm-lodash-4.17.21.tgz",
}


@pytest.fixture
def file_host(fake_registry: FakeRegistry, tmp_path: Path) -> Iterator[FakeRegistry]:
    """A file host on its own origin, named as the files' URL in every document of `fake_registry`."""
    with FakeRegistry(tmp_path / "file-host", shares_files_with=fake_registry) as host:
        fake_registry.files_url = host.base_url
        fake_registry.add_wheel("requests", "2.32.3", {"requests/__init__.py": "def get(url):\n    pass\n"})
        fake_registry.add_sdist("tilecalc", "0.1.0", {"tilecalc/__init__.py": "def area(side):\n    pass\n"})
        lodash = {"lodash.js": "module.exports = {};\n", "debounce.js": "module.exports = function () {};\n"}
        fake_registry.add_npm("lodash", "4.17.21", lodash, package_json={"main": "lodash.js"})
        yield host


def symbol_verdicts(result: AnswerCheck) -> dict[tuple[str, str], Any]:
    return {(v.reference.text, v.name): v for v in result.verdicts if v.level == "symbol"}


def test_files_on_the_host_the_registry_document_names_are_read(
    fake_registry: FakeRegistry, file_host: FakeRegistry
) -> None:
    result = check(fake_registry.settings(), ANSWER)
    got = {key: v.verdict for key, v in symbol_verdicts(result).items()}
    assert got == READ, [v.reason for v in result.verdicts]
    assert {r.path for r in file_host.requests_to("/files/")} == {f"/files/{f}" for f in FILES.values()}
    assert fake_registry.requests_to("/files/") == []


def test_a_file_host_redirecting_to_another_origin_makes_the_symbol_check_unverified(
    fake_registry: FakeRegistry, file_host: FakeRegistry, tmp_path: Path
) -> None:
    with FakeRegistry(tmp_path / "elsewhere", shares_files_with=fake_registry) as elsewhere:
        for filename in FILES.values():
            file_host.redirect(f"/files/{filename}", f"{elsewhere.base_url}/files/{filename}")
        result = check(fake_registry.settings(), ANSWER)
        verdicts = symbol_verdicts(result)
        assert {key: v.verdict for key, v in verdicts.items()} == dict.fromkeys(READ, "unverified")
        for verdict in verdicts.values():
            assert f"redirect to another origin {origin_of(elsewhere)}" in verdict.reason, verdict.reason
        assert elsewhere.requests == []
    packages = {v.reference.text: v.verdict for v in result.verdicts if v.level == "package"}
    assert set(packages.values()) == {"exists"}, "the registry itself answered: the packages exist"


@pytest.mark.parametrize(
    "package",
    [
        "tilecalc",
        "lodash",
        "requests",
    ],
)
def test_a_file_host_redirect_within_its_own_origin_is_followed_and_recorded(
    fake_registry: FakeRegistry, file_host: FakeRegistry, package: str
) -> None:
    filename = FILES[package]
    file_host.redirect(f"/files/{filename}", f"/blobs/{filename}")
    result = check(fake_registry.settings(), ANSWER)
    verdicts = {key: v for key, v in symbol_verdicts(result).items() if key[0].startswith(package)}
    expected = {key: verdict for key, verdict in READ.items() if key[0].startswith(package)}
    assert {key: v.verdict for key, v in verdicts.items()} == expected
    for verdict in verdicts.values():
        target = f"{file_host.base_url}/blobs/{filename}"
        hops = [e for e in verdict.evidence if e.status == 302]
        assert hops and hops[0].url == f"{file_host.base_url}/files/{filename}", verdict.evidence
        assert hops[0].note == f"redirect within {origin_of(file_host)} to {target}"
        assert any(e.url == target and e.status in (200, 206) for e in verdict.evidence)
    assert file_host.requests_to("/blobs/")
