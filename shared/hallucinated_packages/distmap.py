"""Which distribution(s) does an import name come from? Needed before any symbol check.

Checking `import yaml` against `/pypi/yaml` is wrong (404; the project is PyYAML), and so is
checking `sklearn` (a dummy shell) or `swift` (an unrelated OpenStack project). Order of
evidence: what the answer itself declared (install lines, requirements) first, then a curated
table of known mismatches, then the same-name distribution, confirmed against the top-level
modules its wheel actually ships (labelled `wheel-record`) or else labelled `same-name` (a
name-only match). An import name can map to several distributions (`mt940`); all are returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from .curated_dists import CURATED_DISTRIBUTIONS
from .names import canonical_pypi
from .registry import RegistryClient
from .wheel_index import ArchiveError, choose_artifact, open_artifact, release_files, top_level_modules

HOWS = ("install-line", "requirement", "curated", "wheel-record", "same-name")


@dataclass(frozen=True)
class DistCandidate:
    """A distribution that may provide an import name, and how that was decided."""

    distribution: str
    how: str
    version: str | None = None


def curated(import_name: str) -> tuple[str, ...]:
    """Curated distributions for the longest matching dotted prefix of `import_name`."""
    parts = import_name.split(".")
    for depth in range(len(parts), 0, -1):
        found = CURATED_DISTRIBUTIONS.get(".".join(parts[:depth]))
        if found:
            return found
    return ()


def _declared_match(import_name: str, declared: Sequence[DistCandidate]) -> list[DistCandidate]:
    top = import_name.split(".")[0]
    known = {canonical_pypi(d) for d in curated(import_name)} | {canonical_pypi(top)}
    return [d for d in declared if canonical_pypi(d.distribution) in known]


def candidates(import_name: str, *, declared: Sequence[DistCandidate] = ()) -> list[DistCandidate]:
    """Candidates without network: declared ones that plausibly match, else curated + same-name.

    When the answer declared a distribution that matches the import by name or by the curated
    table, only the declared ones count (`pip install mt940==0.8.1` decides `mt940`).
    """
    matched = _declared_match(import_name, declared)
    if matched:
        return list(dict.fromkeys(matched))
    known = curated(import_name)
    if known:
        # The same-name project of a curated import is a dummy or unrelated (sklearn, Crypto).
        return [DistCandidate(d, "curated") for d in known]
    return [DistCandidate(import_name.split(".")[0], "same-name")]


async def provides(client: RegistryClient, distribution: str, version: str | None, top: str) -> bool | None:
    """Does the distribution's chosen artifact ship top-level module `top`? None when unknown."""
    package, document = await client.document("pypi", distribution)
    if package.verdict != "exists" or document is None:
        return None
    chosen_version = version or package.latest_version or ""
    files = release_files(document, chosen_version)
    choice = choose_artifact(distribution, chosen_version, files or [], client.settings)
    if choice is None:
        return None
    try:
        archive = await open_artifact(client, choice)
    except ArchiveError:
        return None
    return top in top_level_modules(archive.members, sdist=choice.kind == "sdist")


async def resolve_candidates(
    client: RegistryClient, import_name: str, *, declared: Sequence[DistCandidate] = ()
) -> list[DistCandidate]:
    """Like `candidates`, but reads wheel listings to confirm matches and unnamed declarations.

    A declared distribution whose name says nothing (`pip install opencv-python-headless` for
    `cv2` when the table lacks it) counts once its listing ships the module; a same-name
    candidate whose listing ships it is relabelled `wheel-record`.
    """
    top = import_name.split(".")[0]
    matched = _declared_match(import_name, declared)
    if matched:
        return list(dict.fromkeys(matched))
    shipped = [d for d in declared if await provides(client, d.distribution, d.version, top)]
    if shipped:
        return shipped
    out = candidates(import_name)
    confirmed: list[DistCandidate] = []
    for candidate in out:
        if candidate.how == "same-name" and await provides(client, candidate.distribution, None, top):
            candidate = replace(candidate, how="wheel-record")
        confirmed.append(candidate)
    return confirmed
