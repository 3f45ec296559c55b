"""The Python symbol gate: does `module` (and `chain`) exist in the published distribution?

Verdicts: `found`, `missing-symbol`, `missing-submodule`, `removed-api` (absent now, present in
an older release: a stale API, not an invention), `unverified` (compiled without stubs,
dynamic, download failed, unmapped import). An import name can belong to several
distributions (`mt940`: `mt-940` and `mt940`), so every plausible candidate is checked: found
in any is found, naming it, and the other candidates are recorded as ambiguity. A definite
"missing" needs every candidate that ships the module to agree.
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .distmap import DistCandidate
from .evidence import Evidence, utc_now
from .pyindex import Lookup, ModuleTree
from .registry import RegistryClient
from .wheel_index import (
    ArchiveError,
    ArtifactChoice,
    choose_artifact,
    is_final_release,
    older_versions,
    open_artifact,
    release_files,
    version_key,
)

MISSING = ("missing-symbol", "missing-submodule", "missing-subpath")
EXTRA_SERIES = 5  # earlier minor series read beyond the spread picks, to name the last release with a name
_OPENED: weakref.WeakKeyDictionary[RegistryClient, dict[tuple[str, str], tuple[ModuleTree, ArtifactChoice]]] = (
    weakref.WeakKeyDictionary()
)


@dataclass(frozen=True)
class SymbolVerdict:
    """Symbol-level answer with the candidate it was decided in and the evidence read."""

    verdict: str
    reason: str
    candidate: str | None
    ambiguity: tuple[str, ...]
    evidence: tuple[Evidence, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "reason": self.reason,
            "candidate": self.candidate,
            "ambiguity": list(self.ambiguity),
            "evidence": [e.to_dict() for e in self.evidence],
        }


@dataclass(frozen=True)
class _Outcome:
    verdict: str  # a SymbolVerdict verdict, or "not-provided" / "package-missing"
    reason: str
    label: str  # "dist==version"
    evidence: tuple[Evidence, ...]


async def check_python_symbol(
    client: RegistryClient,
    candidates: Sequence[DistCandidate],
    module: str,
    chain: Sequence[str],
    *,
    instance: bool = False,
) -> SymbolVerdict:
    """Check `module` and up to two links of `chain` in each candidate distribution.

    `instance`: the chain is `(Class, attr)` reached through an object the answer built by calling
    the class, so a `__getattr__` on the class counts (it does not for `Class.attr` itself).
    """
    if not candidates:
        note = Evidence("", None, utc_now(), f"no distribution known for {module}")
        return SymbolVerdict("unverified", "unmapped-import: no candidate distribution", None, (), (note,))
    outcomes = [await _check_candidate(client, c, module, tuple(chain), instance) for c in candidates]
    labels = tuple(o.label for o in outcomes)
    evidence = tuple(e for o in outcomes for e in o.evidence)
    decisive = [o for o in outcomes if o.verdict not in ("not-provided", "package-missing")]
    for outcome in decisive:
        if outcome.verdict == "found":
            others = tuple(o.label for o in decisive if o.label != outcome.label)
            return SymbolVerdict("found", outcome.reason, outcome.label, others, evidence)
    if not decisive:
        why = "; ".join(f"{o.label}: {o.reason}" for o in outcomes)
        return SymbolVerdict("unverified", f"no candidate ships {module.split('.')[0]}: {why}", None, labels, evidence)
    unsure = [o for o in decisive if o.verdict == "unverified"]
    if unsure:
        why = "; ".join(f"{o.label}: {o.reason}" for o in unsure)
        others = tuple(o.label for o in decisive if o.label != unsure[0].label)
        return SymbolVerdict("unverified", why, unsure[0].label, others, evidence)
    chosen = next((o for o in decisive if o.verdict == "removed-api"), decisive[0])
    others = tuple(o.label for o in decisive if o.label != chosen.label)
    return SymbolVerdict(chosen.verdict, chosen.reason, chosen.label, others, evidence)


async def _check_candidate(
    client: RegistryClient, candidate: DistCandidate, module: str, chain: tuple[str, ...], instance: bool
) -> _Outcome:
    dist = candidate.distribution
    package, document = await client.document("pypi", dist)
    label = f"{package.canonical_name or dist}"
    if package.verdict == "missing":
        return _Outcome("package-missing", f"{dist} is not on PyPI", label, package.evidence)
    if package.verdict != "exists" or document is None:
        return _Outcome("unverified", f"registry: {package.reason}", label, package.evidence)
    version = candidate.version or package.latest_version or ""
    label = f"{label}=={version}"
    opened = await _open(client, document, package.canonical_name or dist, version)
    if isinstance(opened, _Outcome):
        return _Outcome(opened.verdict, opened.reason, label, package.evidence + opened.evidence)
    tree, choice = opened
    verdict, reason = await _judge(tree, module, chain, instance)
    evidence = (*package.evidence, *tree.archive.evidence, _summary(choice, tree))
    if verdict not in MISSING:
        return _Outcome(verdict, f"{reason} [{choice.filename}]", label, evidence)

    async def judge(old: ModuleTree) -> tuple[str, str]:
        return await _judge(old, module, chain, instance)

    older = await present_in_older(client, document, package.canonical_name or dist, version, judge)
    if older is not None:
        old_version, old_reason, old_evidence = older
        why = f"{reason} in {version}, but present in {old_version}, the last release read that has it ({old_reason})"
        return _Outcome("removed-api", why, label, evidence + old_evidence)
    return _Outcome(verdict, f"{reason} [{choice.filename}]", label, evidence)


async def _open(
    client: RegistryClient, document: dict[str, Any], dist: str, version: str
) -> tuple[ModuleTree, ArtifactChoice] | _Outcome:
    files = release_files(document, version)
    if files is None:
        return _Outcome("unverified", f"version {version} of {dist} is not on PyPI", "", ())
    choice = choose_artifact(dist, version, files, client.settings)
    if choice is None:
        return _Outcome("unverified", f"no usable wheel or sdist for {dist} {version}", "", ())
    opened = _OPENED.setdefault(client, {})
    if (dist, version) in opened:  # one read per release and client, however many names are asked
        return opened[(dist, version)]
    try:
        archive = await open_artifact(client, choice)
    except ArchiveError as exc:
        return _Outcome("unverified", f"download failed: {exc.reason}", "", exc.evidence)
    result = ModuleTree(archive, sdist=choice.kind == "sdist"), choice
    opened[(dist, version)] = result
    return result


async def open_release(client: RegistryClient, document: dict[str, Any], dist: str, version: str) -> ModuleTree | str:
    """The module tree of one release (read once per client), or why it cannot be read."""
    opened = await _open(client, document, dist, version)
    if isinstance(opened, _Outcome):
        return opened.reason
    return opened[0]


def _summary(choice: ArtifactChoice, tree: ModuleTree) -> Evidence:
    note = f"read {choice.kind} {choice.filename}: {tree.archive.bytes_read} bytes of {choice.size or '?'}"
    return Evidence(choice.url, 200, utc_now(), note)


async def _judge(tree: ModuleTree, module: str, chain: tuple[str, ...], instance: bool) -> tuple[str, str]:
    parts = module.split(".")
    if not tree.is_module(parts[0]):
        return "not-provided", f"does not ship top-level module {parts[0]}"
    for i in range(1, len(parts)):
        prefix = ".".join(parts[: i + 1])
        if tree.is_module(prefix):
            continue
        parent = ".".join(parts[:i])
        bound = await tree.lookup(parent, parts[i])
        if bound.kind == "dynamic":
            return "unverified", f"dynamic: {bound.reason}"
        if bound.kind == "found" and bound.module is None:
            return "unverified", f"{prefix} is an attribute, not a module file ({bound.reason})"
        return "missing-submodule", f"no module {prefix}"
    if not chain:
        return "found", f"module {module}"
    first = await tree.lookup(module, chain[0])
    name = f"{module}.{chain[0]}"
    if first.kind != "found":
        return _from_lookup(first, name, "missing-symbol")
    if len(chain) == 1:
        return "found", first.reason
    second_name = f"{name}.{chain[1]}"
    if first.module is not None:
        second = await tree.lookup(first.module, chain[1])
    elif first.class_ref is not None:
        second = await tree.class_member(*first.class_ref, chain[1], instance=instance)
    elif first.instance_of is not None:
        second = await tree.class_member(*first.instance_of, chain[1], instance=True)
    else:
        return "unverified", f"{name} is not a class or module here; {chain[1]!r} not checkable statically"
    verdict, reason = _from_lookup(second, second_name, "missing-symbol")
    if verdict == "found" and len(chain) > 2:
        reason += f" (links after {chain[1]} not checked)"
    return verdict, reason


def _from_lookup(lookup: Lookup, name: str, missing: str) -> tuple[str, str]:
    if lookup.kind == "found":
        return "found", lookup.reason
    if lookup.kind == "dynamic":
        return "unverified", f"dynamic: {lookup.reason}"
    return missing, f"{name} not found: {lookup.reason}"


def older_releases(document: dict[str, Any], current: str, limit: int) -> list[str]:
    """Earlier releases of a PyPI project worth checking for a removed API (files present only)."""
    releases = document.get("releases")
    if not isinstance(releases, dict):
        return []
    return older_versions([v for v, files in releases.items() if files], current, limit)


def older_series(document: dict[str, Any], current: str) -> list[str]:
    """The latest final release of each earlier minor series, newest first (files present only)."""
    releases = document.get("releases")
    if not isinstance(releases, dict):
        return []
    key = version_key(current)[0]
    latest: dict[tuple[int, ...], str] = {}
    for version, files in releases.items():
        series = version_key(version)[0][:2]
        if not files or not is_final_release(version) or series >= key[:2]:
            continue
        if series not in latest or version_key(version) > version_key(latest[series]):
            latest[series] = version
    return [latest[s] for s in sorted(latest, reverse=True)]


async def present_in_older(
    client: RegistryClient,
    document: dict[str, Any],
    dist: str,
    current: str,
    judge: Callable[[ModuleTree], Awaitable[tuple[str, str]]],
    series: Sequence[str] | None = None,
) -> tuple[str, str, tuple[Evidence, ...]] | None:
    """The last release read that has what `judge` looks for: (version, why, evidence), or None.

    First the spread picks of `older_releases` (previous minor, last of each previous major);
    then up to `EXTRA_SERIES` latest releases of the minor series in between, newest first: the
    series after the newest pick that has the name (to name the last release with it), or, when
    no pick has it, the series older than the oldest pick read without it (numpy's `float` is in
    1.23, not in 1.26). Removals are taken to be final: a name gone from a release stays gone.
    """
    evidence: list[Evidence] = []
    checked: set[str] = set()

    async def has_it(version: str) -> tuple[bool | None, str]:
        checked.add(version)
        opened = await _open(client, document, dist, version)
        if isinstance(opened, _Outcome):
            evidence.extend(opened.evidence)
            return None, opened.reason
        tree, choice = opened
        verdict, reason = await judge(tree)
        evidence.extend((*tree.archive.evidence, _summary(choice, tree)))
        if verdict == "found":
            return True, f"{reason} [{choice.filename}]"
        return (False if verdict in (*MISSING, "missing") else None), reason

    lacking = current
    hit: tuple[str, str] | None = None
    for version in older_releases(document, current, client.settings.older_releases_checked):
        present, why = await has_it(version)
        if present:
            hit = (version, why)
            break
        if not present:  # absent or undecidable there: the last release with it is older still
            lacking = version
    walk = list(series) if series is not None else older_series(document, current)
    if hit is not None:
        window = [v for v in walk if version_key(hit[0]) < version_key(v) < version_key(lacking)]
    else:
        window = [v for v in walk if version_key(v) < version_key(lacking)]
    for version in [v for v in window if v not in checked][:EXTRA_SERIES]:
        present, why = await has_it(version)
        if present:
            return version, why, tuple(evidence)
    if hit is not None:
        return hit[0], hit[1], tuple(evidence)
    return None
