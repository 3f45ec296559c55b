"""The Python symbol gate on real wheels and sdists served by the loopback registry.

Golden cases live in tests/hallucinated_packages/data/python_symbols.toml (distributions and expected verdicts).
"""

from __future__ import annotations

import asyncio
import random
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from registry_server import FakeRegistry, Fault

from hallubench.hallucinated_packages.distmap import DistCandidate, candidates
from hallubench.hallucinated_packages.pysymbols import SymbolVerdict, check_python_symbol, older_releases
from hallubench.hallucinated_packages.registry import RegistryClient
from hallubench.hallucinated_packages.settings import RegistrySettings
from hallubench.hallucinated_packages.wheel_index import choose_artifact

DATA = Path(__file__).parent / "data" / "python_symbols.toml"
SPEC = tomllib.loads(DATA.read_text(encoding="utf-8"))


def publish(registry: FakeRegistry, dists: list[dict[str, Any]]) -> None:
    for dist in dists:
        if dist.get("kind") == "sdist":
            registry.add_sdist(dist["name"], dist["version"], dist["files"])
        else:
            registry.add_wheel(dist["name"], dist["version"], dist["files"], tag=dist.get("tag", "py3-none-any"))


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeRegistry]:
    with FakeRegistry(tmp_path_factory.mktemp("pyreg")) as reg:
        publish(reg, SPEC["dist"])
        yield reg


def gate(
    settings: RegistrySettings, module: str, chain: list[str], declared: list[DistCandidate] | None = None
) -> SymbolVerdict:
    async def go() -> SymbolVerdict:
        async with RegistryClient(settings) as client:
            return await check_python_symbol(client, candidates(module, declared=declared or []), module, chain)

    return asyncio.run(go())


@pytest.mark.parametrize("case", SPEC["case"], ids=[c["id"] for c in SPEC["case"]])
def test_golden_symbol_cases(registry: FakeRegistry, case: dict[str, Any]) -> None:
    declared = [DistCandidate(d, how, version) for d, how, version in case.get("declared", [])]
    verdict = gate(registry.settings(), case["module"], case["chain"], declared)
    assert verdict.verdict == case["verdict"], verdict.reason
    if "candidate" in case:
        assert verdict.candidate == case["candidate"]
    if "ambiguity" in case:
        assert list(verdict.ambiguity) == case["ambiguity"]
    assert verdict.evidence, "every symbol verdict carries evidence"


def test_removed_api_names_both_versions(registry: FakeRegistry) -> None:
    verdict = gate(registry.settings(), "tabular", ["DataFrame", "append"])
    assert "2.2.3" in verdict.reason and "1.5.3" in verdict.reason
    notes = [e.note for e in verdict.evidence]
    assert any("tabular-1.5.3-cp311" in n for n in notes)
    assert not any("win_amd64" in n for n in notes), "the Windows wheel must never be read"


def test_download_failure_is_unverified_never_missing(tmp_path: Path) -> None:
    with FakeRegistry(tmp_path) as reg:
        reg.add_wheel("swift", "2.34.0", {"swift/__init__.py": ""})
        wheel = "/files/swift-2.34.0-py3-none-any.whl"
        reg.script(wheel, *[Fault("status", 503)] * 3)
        verdict = gate(reg.settings(), "swift.parser", [])
        assert verdict.verdict == "unverified"
        assert "download failed" in verdict.reason
        assert gate(reg.settings(), "swift.parser", []).verdict == "missing-submodule"


def test_server_ignoring_range_is_read_whole_within_the_cap(tmp_path: Path) -> None:
    with FakeRegistry(tmp_path) as reg:
        wheel = reg.add_wheel("norange", "1.0", {"norange/__init__.py": "def ok():\n    pass\n"})
        reg.script(
            "/files/" + wheel.name,
            Fault("status", 200, body=wheel.read_bytes(), content_type="application/octet-stream"),
        )
        assert gate(reg.settings(), "norange", ["ok"]).verdict == "found"
        assert len(reg.requests_to("/files/")) == 1
        reg.script(
            "/files/" + wheel.name,
            Fault("status", 200, body=wheel.read_bytes(), content_type="application/octet-stream"),
        )
        capped = gate(reg.settings(max_artifact_bytes=100), "norange", ["ok"])
        assert capped.verdict == "unverified" and "cap" in capped.reason


def test_byte_cap_turns_a_huge_read_into_unverified(tmp_path: Path) -> None:
    with FakeRegistry(tmp_path) as reg:
        blob = random.Random(0).randbytes(400_000)
        reg.add_wheel("bulky", "1.0", {"bulky/__init__.py": "X = 1\n", "bulky/blob.bin": blob})
        verdict = gate(reg.settings(max_artifact_bytes=50_000), "bulky", ["X"])
        assert verdict.verdict == "found"
        capped = gate(reg.settings(max_artifact_bytes=50_000, max_member_bytes=3), "bulky", ["Y"])
        assert capped.verdict == "unverified"


def test_large_wheel_is_read_with_ranges_only(tmp_path: Path) -> None:
    with FakeRegistry(tmp_path) as reg:
        padding = {f"heavy/data/blob{i}.bin": random.Random(i).randbytes(500_000) for i in range(6)}
        path = reg.add_wheel("heavy", "1.0", {"heavy/__init__.py": "def go():\n    pass\n", **padding})
        verdict = gate(reg.settings(), "heavy", ["go"])
        assert verdict.verdict == "found"
        ranged = reg.requests_to("/files/")
        assert ranged and all(r.range for r in ranged)
        assert reg.bytes_served < path.stat().st_size * 0.05


def test_zip64_and_stored_wheels_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeRegistry(tmp_path) as reg:
        monkeypatch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 2)
        monkeypatch.setattr(zipfile, "ZIP64_LIMIT", 16)
        reg.add_wheel("zsixtyfour", "1.0", {"zsixtyfour/__init__.py": "def deep():\n    pass\n"})
        monkeypatch.undo()
        reg.add_wheel("storedpkg", "1.0", {"storedpkg/__init__.py": "V = 2\n"}, compression=zipfile.ZIP_STORED)
        assert gate(reg.settings(), "zsixtyfour", ["deep"]).verdict == "found"
        assert gate(reg.settings(), "zsixtyfour", ["shallow"]).verdict == "missing-symbol"
        assert gate(reg.settings(), "storedpkg", ["V"]).verdict == "found"


def test_no_candidate_is_unverified() -> None:
    async def go() -> SymbolVerdict:
        async with RegistryClient(RegistrySettings()) as client:
            return await check_python_symbol(client, [], "x", ["y"])

    verdict = asyncio.run(go())
    assert verdict.verdict == "unverified" and "unmapped" in verdict.reason


ARTIFACT_CHOICES = [
    (["pkg-1.0.tar.gz", "pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl", "pkg-1.0-py3-none-any.whl"],
     "pkg-1.0-py3-none-any.whl", "pure-wheel"),
    (["pkg-1.0.tar.gz", "pkg-1.0-cp311-cp311-win_amd64.whl", "pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"],
     "pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl", "platform-wheel"),
    (["pkg-1.0.tar.gz", "pkg-1.0-cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"],
     "pkg-1.0-cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", "platform-wheel"),
    (["pkg-1.0.tar.gz", "pkg-1.0-cp313-cp313-manylinux_2_17_x86_64.whl",
      "pkg-1.0-cp312-cp312-manylinux_2_17_x86_64.whl"],
     "pkg-1.0-cp312-cp312-manylinux_2_17_x86_64.whl", "platform-wheel"),
    (["pkg-1.0.tar.gz", "pkg-1.0-cp311-cp311-macosx_11_0_arm64.whl", "pkg-1.0-cp311-cp311-win_amd64.whl"],
     "pkg-1.0.tar.gz", "sdist"),
    (["pkg-1.0-cp312-cp312-manylinux_2_17_aarch64.whl"], None, None),
    (["pkg-1.0-py2.py3-none-any.whl"], "pkg-1.0-py2.py3-none-any.whl", "pure-wheel"),
]  # fmt: skip


@pytest.mark.parametrize(("names", "expected", "kind"), ARTIFACT_CHOICES)
def test_artifact_choice(names: list[str], expected: str | None, kind: str | None) -> None:
    files = [{"filename": n, "url": f"https://files.example/{n}"} for n in names]
    choice = choose_artifact("pkg", "1.0", files, RegistrySettings())
    assert (choice.filename if choice else None) == expected
    assert (choice.kind if choice else None) == kind


def test_yanked_files_are_avoided() -> None:
    files = [
        {"filename": "pkg-1.0-py3-none-any.whl", "url": "u1", "yanked": True},
        {"filename": "pkg-1.0.tar.gz", "url": "u2"},
    ]
    choice = choose_artifact("pkg", "1.0", files, RegistrySettings())
    assert choice is not None and choice.kind == "sdist"


def test_older_releases_span_minor_and_major_series() -> None:
    versions = ["0.25.3", "1.0.0", "1.5.2", "1.5.3", "2.0.0rc1", "2.0.0", "2.1.4", "2.2.0", "2.2.3", "3.0.0"]
    document = {"releases": {v: [{"filename": "f"}] for v in versions} | {"1.9.9": []}}
    assert older_releases(document, "2.2.3", 3) == ["2.1.4", "1.5.3", "0.25.3"]
    assert older_releases(document, "1.0.0", 3) == ["0.25.3"]
    assert older_releases(document, "0.25.3", 3) == []


@pytest.mark.live
def test_live_issue_controls() -> None:
    settings = RegistrySettings()
    assert gate(settings, "swift.parser", ["MT940"]).verdict == "missing-submodule"
    found = gate(settings, "mt940", ["parse"])
    assert (found.verdict, (found.candidate or "").split("==")[0]) == ("found", "mt-940")
    pinned = gate(settings, "mt940", ["parse"], [DistCandidate("mt940", "install-line", "0.8.1")])
    assert pinned.verdict == "missing-symbol"
    assert gate(settings, "pandas", ["DataFrame", "append"]).verdict == "removed-api"
