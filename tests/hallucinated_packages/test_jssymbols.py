"""The JavaScript symbol gate on real npm tarballs served by the loopback registry.

Golden cases live in tests/hallucinated_packages/data/js_symbols.toml.
"""

from __future__ import annotations

import asyncio
import json
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from registry_server import FakeRegistry, Fault

from hallubench.hallucinated_packages.jssymbols import check_js_symbol
from hallubench.hallucinated_packages.npm_tarball import pick_version
from hallubench.hallucinated_packages.pysymbols import SymbolVerdict
from hallubench.hallucinated_packages.registry import RegistryClient
from hallubench.hallucinated_packages.settings import RegistrySettings

DATA = Path(__file__).parent / "data" / "js_symbols.toml"
SPEC = tomllib.loads(DATA.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeRegistry]:
    with FakeRegistry(tmp_path_factory.mktemp("npmreg")) as reg:
        for pkg in SPEC["pkg"]:
            manifest = json.loads(pkg.get("package_json", "{}"))
            reg.add_npm(
                pkg["name"], pkg["version"], pkg["files"], package_json=manifest, latest=pkg.get("latest", True)
            )
        yield reg


def gate(
    settings: RegistrySettings, package: str, subpath: str | None, names: list[str], version: str | None = None
) -> SymbolVerdict:
    async def go() -> SymbolVerdict:
        async with RegistryClient(settings) as client:
            return await check_js_symbol(client, package, subpath, names, version)

    return asyncio.run(go())


@pytest.mark.parametrize("case", SPEC["case"], ids=[c["id"] for c in SPEC["case"]])
def test_golden_js_cases(registry: FakeRegistry, case: dict[str, Any]) -> None:
    verdict = gate(registry.settings(), case["package"], case.get("subpath"), case["names"], case.get("version"))
    assert verdict.verdict == case["verdict"], verdict.reason
    assert verdict.evidence


def test_removed_export_names_the_old_version(registry: FakeRegistry) -> None:
    verdict = gate(registry.settings(), "oldapi", None, ["oldThing"])
    assert verdict.candidate == "oldapi@2.0.0"
    assert "1.4.0" in verdict.reason


def test_tarball_download_failure_is_unverified(tmp_path: Path) -> None:
    with FakeRegistry(tmp_path) as reg:
        reg.add_npm("flaky", "1.0.0", {"index.js": "exports.a = 1;"})
        reg.script("/files/npm-flaky-1.0.0.tgz", *[Fault("status", 503)] * 3)
        assert gate(reg.settings(), "flaky", None, ["zzz"]).verdict == "unverified"
        assert gate(reg.settings(), "flaky", None, ["zzz"]).verdict == "missing-symbol"


def test_tarball_byte_cap(tmp_path: Path) -> None:
    with FakeRegistry(tmp_path) as reg:
        reg.add_npm("chunky", "1.0.0", {"index.js": "exports.a = 1;", "blob.bin": bytes(range(256)) * 4000})
        verdict = gate(reg.settings(max_npm_tarball_bytes=500), "chunky", None, ["a"])
        assert verdict.verdict == "unverified" and "cap" in verdict.reason


VERSIONS = {"versions": {v: {} for v in ["3.10.1", "4.16.0", "4.17.21", "4.18.0-beta.1", "5.0.0"]},
            "dist-tags": {"latest": "5.0.0", "next": "4.18.0-beta.1"}}  # fmt: skip


@pytest.mark.parametrize(
    ("wanted", "expected"),
    [(None, "5.0.0"), ("4.16.0", "4.16.0"), ("^4.0.0", "4.17.21"), ("~4.16", "4.16.0"), ("4.x", "4.17.21"),
     ("next", "4.18.0-beta.1"), ("^6", None), ("3", "3.10.1")],
)  # fmt: skip
def test_version_picking(wanted: str | None, expected: str | None) -> None:
    assert pick_version(VERSIONS, wanted) == expected


@pytest.mark.live
def test_live_js_controls() -> None:
    settings = RegistrySettings()
    assert gate(settings, "lodash", "fakefn", []).verdict == "missing-subpath"
    assert gate(settings, "express", None, ["application.del"]).verdict in ("removed-api", "unverified")
    assert gate(settings, "express", None, ["Router"]).verdict == "found"
