"""Import name -> distribution candidates: declared first, curated table, then same-name (checked)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from registry_server import FakeRegistry

from hallubench.hallucinated_packages.curated_dists import CURATED_DISTRIBUTIONS
from hallubench.hallucinated_packages.distmap import DistCandidate, candidates, resolve_candidates
from hallubench.hallucinated_packages.names import is_valid_pypi_name
from hallubench.hallucinated_packages.registry import RegistryClient

CURATED_EXPECTATIONS = [
    ("yaml", ["PyYAML"]),
    ("cv2", ["opencv-python", "opencv-python-headless", "opencv-contrib-python"]),
    ("PIL", ["Pillow"]),
    ("sklearn.ensemble", ["scikit-learn"]),
    ("bs4", ["beautifulsoup4"]),
    ("dateutil.parser", ["python-dateutil"]),
    ("mt940", ["mt-940", "mt940"]),
    ("google.protobuf.json_format", ["protobuf"]),
    ("google.cloud.storage", ["google-cloud-storage"]),
]


@pytest.mark.parametrize(("import_name", "expected"), CURATED_EXPECTATIONS)
def test_curated_mapping_without_declarations(import_name: str, expected: list[str]) -> None:
    found = candidates(import_name)
    assert [c.distribution for c in found] == expected
    assert {c.how for c in found} == {"curated"}


def test_unknown_import_falls_back_to_a_labelled_same_name_match() -> None:
    assert candidates("requests.adapters") == [DistCandidate("requests", "same-name")]


def test_declared_distribution_wins_over_the_table() -> None:
    declared = [DistCandidate("mt940", "install-line", "0.8.1"), DistCandidate("requests", "install-line")]
    assert candidates("mt940", declared=declared) == [DistCandidate("mt940", "install-line", "0.8.1")]
    pinned_yaml = [DistCandidate("pyyaml", "requirement", "5.4")]
    assert candidates("yaml", declared=pinned_yaml) == pinned_yaml


def test_unrelated_declarations_do_not_capture_an_import() -> None:
    declared = [DistCandidate("requests", "install-line")]
    assert candidates("yaml", declared=declared) == [DistCandidate("PyYAML", "curated")]


def test_curated_table_is_well_formed() -> None:
    assert len(CURATED_DISTRIBUTIONS) >= 40
    for key, dists in CURATED_DISTRIBUTIONS.items():
        assert all(part.isidentifier() for part in key.split(".")), key
        assert dists and all(is_valid_pypi_name(d) for d in dists), key


def resolve(registry: FakeRegistry, name: str, declared: list[DistCandidate]) -> list[DistCandidate]:
    async def go() -> list[DistCandidate]:
        async with RegistryClient(registry.settings()) as client:
            return await resolve_candidates(client, name, declared=declared)

    return asyncio.run(go())


def test_resolution_reads_wheel_listings(tmp_path: Path) -> None:
    with FakeRegistry(tmp_path) as reg:
        reg.add_wheel("opencv-python-headless-fork", "4.10", {"cv2/__init__.py": "", "cv2/data/x.xml": ""})
        reg.add_wheel("requests", "2.32.3", {"requests/__init__.py": ""})
        reg.add_wheel("swift", "2.34.0", {"swift/__init__.py": ""})
        reg.add_wheel("telegraph", "1.0", {"telegraph_api/__init__.py": ""})
        declared = [
            DistCandidate("requests", "install-line"),
            DistCandidate("opencv-python-headless-fork", "install-line"),
        ]
        # A declared distribution with an unrelated name counts when its wheel ships the module.
        assert resolve(reg, "cv2", declared) == [DistCandidate("opencv-python-headless-fork", "install-line")]
        # Same-name confirmed by the wheel listing is relabelled; unconfirmed stays a name-only match.
        assert resolve(reg, "swift.parser", []) == [DistCandidate("swift", "wheel-record")]
        assert resolve(reg, "telegraph", []) == [DistCandidate("telegraph", "same-name")]
        assert resolve(reg, "nothere", []) == [DistCandidate("nothere", "same-name")]
