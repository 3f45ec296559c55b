"""One answer in, one verdict per reference and level out, each with its evidence.

Order of judgement for a reference: standard library / Node builtin -> `stdlib`; defined by
the answer, relative or an alias -> `local`; a planted decoy -> `decoy`; otherwise the registry
(package level: `exists` / `missing` / `unverified`) and then, for a package that exists, the
symbol gate (symbol level: `found` / `missing-symbol` / `missing-submodule` / `missing-subpath`
/ `removed-api` / `unverified`). A Python import is checked against every plausible
distribution (declared in the answer first, then the curated map, then the same name), so
`import yaml` exists via PyYAML and `mt940.parse` is found in `mt-940` unless the answer pinned
`mt940==0.8.1`. Chains reached through an object the answer built (`df = pd.DataFrame(); df.append`,
`app = express(); app.listen`, `new Command().option`) are decided like any other: missing only
when the class (Python) or the declarations of what the call returns (JavaScript) are read
completely.
Uses of what a package gives back (`Reference.uses`: `pd.read_csv(...).append`, `df.append` on a
parameter `df: pd.DataFrame`) are followed by the gate through return annotations and stubs.
A use whose receiver's type nobody can establish is recorded `unverified` ("receiver type
unknown"), never dropped, in either language; where the case declares the removed API it targets
(group D), such a use of that name, or one on an untyped value (`UntypedUse`), is reported as a
"possible removed-API use (receiver type unknown)".
Whatever goes wrong inside one check becomes that reference's `unverified` verdict with the
error named, so one bad reference never loses the others. Embedded: stdlib + httpx.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .decoys import PLANTED, DecoyHit, decoy_hits, denies_existence, match_decoy
from .distmap import DistCandidate, candidates
from .evidence import Evidence, uploaded_after, utc_now
from .extract_answer import AnswerExtraction, extract_answer
from .names import canonical_pypi
from .pyflow import ON_MISSING, RECEIVER_UNKNOWN, check_python_use
from .pysymbols import SymbolVerdict, check_python_symbol
from .references import Reference, UntypedUse, Use
from .registry import PackageVerdict, RegistryClient
from .removed_apis import lookup as removed_lookup
from .removed_apis import removed_at

SYMBOL_HALLUCINATIONS = frozenset({"missing-symbol", "missing-submodule", "missing-subpath", "removed-api"})
VERDICTS = (
    "stdlib",
    "local",
    "exists",
    "missing",
    "decoy",
    "found",
    "missing-symbol",
    "missing-submodule",
    "missing-subpath",
    "removed-api",
    "unverified",
)
POSSIBLE_REMOVED = "possible removed-API use (receiver type unknown)"


@dataclass(frozen=True)
class ReferenceVerdict:
    """The verdict on one reference at one level ("package" or "symbol")."""

    reference: Reference
    level: str
    verdict: str
    reason: str
    name: str
    candidate: str | None = None
    ambiguity: tuple[str, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    first_upload: str | None = None
    registered_since: bool = False
    decoy: str | None = None
    instance: bool = False
    latest_version: str | None = None
    line: int | None = None  # where the use is written (a `Use`); None: the reference's line
    use: str | None = None  # "typed" | "unknown" | "untyped" for uses of returned values; None for chains
    possible_removed_api: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "reference": self.reference.text,
            "ecosystem": self.reference.ecosystem,
            "level": self.level,
            "verdict": self.verdict,
            "reason": self.reason,
            "name": self.name,
            "candidate": self.candidate,
            "ambiguity": list(self.ambiguity),
            "evidence": [e.to_dict() for e in self.evidence],
            "first_upload": self.first_upload,
            "registered_since": self.registered_since,
            "decoy": self.decoy,
            "instance": self.instance,
            "latest_version": self.latest_version,
            "source": self.reference.source,
            "line": self.line if self.line is not None else self.reference.line,
            "use": self.use,
            "possible_removed_api": self.possible_removed_api,
            "optional": self.reference.optional,
            "package": self.reference.package,
        }


@dataclass(frozen=True)
class AnswerCheck:
    """Everything the checker learned about one answer."""

    extraction: AnswerExtraction
    verdicts: tuple[ReferenceVerdict, ...]
    decoy_hits: tuple[DecoyHit, ...]
    denies_decoy: bool
    checked_at: str
    errors: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "checked_at": self.checked_at,
            "references": [r.to_dict() for r in self.extraction.references],
            "verdicts": [v.to_dict() for v in self.verdicts],
            "decoy_hits": [h.to_dict() for h in self.decoy_hits],
            "denies_decoy": self.denies_decoy,
            "local_modules": list(self.extraction.local_modules),
            "partially_parsed": self.extraction.partially_parsed,
            "js_parser_unavailable": self.extraction.js_parser_unavailable,
            "problems": list(self.extraction.problems),
            "untyped_uses": [u.to_dict() for u in self.extraction.untyped_uses],
            "errors": list(self.errors),
        }


def _declared(references: Sequence[Reference]) -> list[DistCandidate]:
    """Distributions the answer itself names (install lines, requirements), with their pins."""
    seen: dict[str, DistCandidate] = {}
    for reference in references:
        if reference.ecosystem == "pypi" and reference.source in ("install", "requirement"):
            how = "install-line" if reference.source == "install" else "requirement"
            key = canonical_pypi(reference.package)
            if key not in seen or (reference.version and not seen[key].version):
                seen[key] = DistCandidate(reference.package, how, reference.version)
    return list(seen.values())


class _Checker:
    def __init__(
        self,
        client: RegistryClient,
        extraction: AnswerExtraction,
        decoys: Sequence[str],
        run_started_at: str | None,
        targets: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        self.client = client
        self.extraction = extraction
        self.decoys = decoys
        self.targets = tuple(targets)
        self.run_started_at = run_started_at
        self.declared = _declared(extraction.references)
        self.errors: list[str] = []
        self._symbol_memo: dict[tuple[Any, ...], asyncio.Task[SymbolVerdict]] = {}

    # ------------------------------------------------------------------ package level
    def _candidates_for(self, reference: Reference) -> list[DistCandidate]:
        if reference.source in ("install", "requirement"):
            return [DistCandidate(reference.package, reference.source, reference.version)]
        return candidates(reference.package, declared=self.declared)

    async def package_level(self, reference: Reference) -> tuple[ReferenceVerdict, list[DistCandidate]]:
        if reference.ecosystem == "npm":
            verdict = await self.client.package("npm", reference.package)
            return self._from_package(reference, verdict, verdict.name, ()), []
        dists = self._candidates_for(reference)
        found = await self.client.packages(("pypi", d.distribution) for d in dists)
        verdicts = [found[("pypi", d.distribution)] for d in dists]
        existing = [d for d, v in zip(dists, verdicts, strict=True) if v.verdict == "exists"]
        evidence = tuple(e for v in verdicts for e in v.evidence)
        others = tuple(d.distribution for d in existing[1:])
        if existing:
            chosen = verdicts[dists.index(existing[0])]
            how = existing[0].how
            reason = f"exists as {chosen.canonical_name or existing[0].distribution} ({how})"
            return self._from_package(reference, chosen, existing[0].distribution, others, reason, evidence), existing
        if verdicts and all(v.verdict == "missing" for v in verdicts):
            names = ", ".join(d.distribution for d in dists)
            return (
                ReferenceVerdict(
                    reference,
                    "package",
                    "missing",
                    f"no distribution found: {names}",
                    dists[0].distribution,
                    evidence=evidence,
                ),
                [],
            )
        unsure = next((v for v in verdicts if v.verdict == "unverified"), None)
        reason = unsure.reason if unsure else "no candidate distribution"
        return (
            ReferenceVerdict(
                reference,
                "package",
                "unverified",
                reason,
                dists[0].distribution if dists else reference.package,
                evidence=evidence,
            ),
            [],
        )

    def _from_package(
        self,
        reference: Reference,
        verdict: PackageVerdict,
        name: str,
        others: tuple[str, ...],
        reason: str | None = None,
        evidence: tuple[Evidence, ...] | None = None,
    ) -> ReferenceVerdict:
        return ReferenceVerdict(
            reference,
            "package",
            verdict.verdict,
            reason or verdict.reason,
            name,
            candidate=verdict.canonical_name,
            ambiguity=others,
            evidence=evidence if evidence is not None else verdict.evidence,
            first_upload=verdict.first_upload,
            registered_since=uploaded_after(verdict.first_upload, self.run_started_at),
            latest_version=verdict.latest_version,
        )

    # ------------------------------------------------------------------ symbol level
    def _memo(self, key: tuple[Any, ...], make: Any) -> Awaitable[SymbolVerdict]:
        task = self._symbol_memo.get(key)
        if task is None:
            task = asyncio.ensure_future(make())
            self._symbol_memo[key] = task
        return task

    async def _python_symbol(
        self, dists: list[DistCandidate], module: str, chain: tuple[str, ...], instance: bool
    ) -> SymbolVerdict:
        key = ("py", tuple(dists), module, chain, instance)
        return await self._memo(key, lambda: check_python_symbol(self.client, dists, module, chain, instance=instance))

    async def _python_use(self, dists: list[DistCandidate], module: str, path: tuple[str, ...]) -> SymbolVerdict:
        key = ("py-use", tuple(dists), module, path)
        return await self._memo(key, lambda: check_python_use(self.client, dists, module, path))

    async def _js_use(self, package: str, subpath: str | None, use: Any, version: str | None) -> SymbolVerdict:
        from .jssymbols import check_js_use  # the JS gate loads its tree-sitter parts on first use

        key = ("js", package, subpath, use, version)
        uses = (use,) if use is not None else ()
        return await self._memo(key, lambda: check_js_use(self.client, package, subpath, uses, version))

    def _version_in_use(self, reference: Reference, package_verdict: ReferenceVerdict) -> str | None:
        if reference.version:
            return reference.version
        for declared in self.extraction.references:
            if (
                declared.source in ("install", "requirement", "package-json")
                and declared.ecosystem == reference.ecosystem
                and declared.version
                and canonical_pypi(declared.package) == canonical_pypi(reference.package)
            ):
                return declared.version
        return None

    async def symbol_level(
        self, reference: Reference, package_verdict: ReferenceVerdict, dists: list[DistCandidate], latest: str | None
    ) -> list[ReferenceVerdict]:
        out: list[ReferenceVerdict] = []
        version = self._version_in_use(reference, package_verdict)
        if reference.ecosystem == "pypi":
            module = reference.module or reference.package
            chains: list[tuple[tuple[str, ...], bool]] = [(c, False) for c in reference.symbols]
            chains += [(c, True) for c in reference.instance_symbols if c not in reference.symbols]
            if not chains and module != reference.package:
                chains = [((), False)]
            for chain, instance in chains:
                verdict = await self._guarded(self._python_symbol(dists, module, chain, instance))
                if verdict.verdict == "unverified" and "is not a class or module here" in verdict.reason:
                    # `flask.request.get_json`: a module variable; its declared type may say what it has
                    typed = await self._guarded(self._python_use(dists, module, chain))
                    if typed.verdict != "unverified":
                        verdict = typed
                name = ".".join((module, *chain))
                out.append(self._symbol_verdict(reference, name, verdict, chain, instance, version or latest))
        else:
            from .jssymbols import STEPS, use_from_chain

            source = reference.source
            uses = [(c, use_from_chain(c, strong=True, source=source), False) for c in reference.symbols]
            uses += [(c, use_from_chain(c, strong=False, source=source), True) for c in reference.instance_symbols]
            if not uses and reference.subpath:
                verdict = await self._guarded(self._js_use(reference.package, reference.subpath, None, version))
                out.append(self._symbol_verdict(reference, reference.text, verdict, (), False, version or latest))
            for chain, use, weak in uses:
                verdict = await self._guarded(self._js_use(reference.package, reference.subpath, use, version))
                name = use.label(reference.text)
                flows = any(step in STEPS for step in chain)  # a use of a value the package gave back
                if flows and verdict.verdict == "unverified" and verdict.reason.startswith(RECEIVER_UNKNOWN):
                    unknown = Use(chain, reference.line, "unknown")
                    out.append(self._undecided(reference, name, unknown, verdict.reason, verdict))
                    continue
                judged = self._symbol_verdict(reference, name, verdict, chain, weak, version or latest)
                out.append(replace(judged, use="typed") if flows else judged)
        out.extend(await self.uses_level(reference, dists, version or latest))
        return out

    async def uses_level(
        self, reference: Reference, dists: list[DistCandidate], version: str | None
    ) -> list[ReferenceVerdict]:
        """One verdict per `Use`: followed by the gate when typed, undecided when its receiver is unknown."""
        out: list[ReferenceVerdict] = []
        module = (reference.module or reference.package) if reference.ecosystem == "pypi" else reference.text
        for use in reference.uses:
            name = use.label(module)
            if use.receiver == "unknown":
                why = f"{RECEIVER_UNKNOWN}: {use.note}" if use.note else RECEIVER_UNKNOWN
                out.append(self._undecided(reference, name, use, why))
                continue
            if reference.ecosystem == "pypi":
                verdict = await self._guarded(self._python_use(dists, module, use.path))
            else:
                verdict = await self._guarded(self._js_path(reference, use, version))
            if verdict.verdict == "unverified" and verdict.reason.startswith(ON_MISSING):
                continue  # `pkg.missing().x`: the missing name is the reference's own verdict
            if verdict.verdict == "unverified" and verdict.reason.startswith(RECEIVER_UNKNOWN):
                out.append(self._undecided(reference, name, use, verdict.reason, verdict))
                continue
            judged = self._symbol_verdict(reference, name, verdict, (), True, version)
            out.append(replace(judged, line=use.line, use=use.receiver))
        return out

    async def _js_path(self, reference: Reference, use: Use, version: str | None) -> SymbolVerdict:
        """A typed JavaScript use: its path read as a weak chain from the binding (the JS gate follows `()`)."""
        from .jssymbols import use_from_chain

        js_use = use_from_chain(use.path, strong=False, source=reference.source)
        return await self._js_use(reference.package, reference.subpath, js_use, version)

    def _target(self, ecosystem: str, package: str | None, name: str) -> Mapping[str, Any] | None:
        """The removed API the case targets, when `name` is its last link (and `package` its package, if given)."""
        for target in self.targets:
            chain = target.get("chain") or ()
            if target.get("ecosystem") != ecosystem or not chain or chain[-1] != name:
                continue
            wanted = str(target.get("package") or "")
            if package is None or _same_package(ecosystem, package, wanted):
                return target
        return None

    def _undecided(
        self,
        reference: Reference,
        name: str,
        use: Use | UntypedUse,
        reason: str,
        verdict: SymbolVerdict | None = None,
    ) -> ReferenceVerdict:
        """`unverified` for a use of an unknown receiver type; a possible removed-API use if the case targets it."""
        kind = use.receiver if isinstance(use, Use) else "untyped"
        target = self._target(reference.ecosystem, reference.package, use.name)
        if target is not None:
            chain = ".".join(c for c in target.get("chain", ()) if c != "()")
            reason = (
                f"{POSSIBLE_REMOVED}: {name} may be {target.get('package')} {chain}, removed in "
                f"{target.get('removed_in')} (use {target.get('replacement')}); {reason}"
            )
        return ReferenceVerdict(
            reference,
            "symbol",
            "unverified",
            reason,
            name,
            candidate=verdict.candidate if verdict else None,
            ambiguity=verdict.ambiguity if verdict else (),
            evidence=verdict.evidence if verdict else (),
            instance=True,
            line=use.line,
            use=kind,
            possible_removed_api=target is not None,
        )

    def untyped_level(self, checked: Sequence[ReferenceVerdict]) -> list[ReferenceVerdict]:
        """Possible removed-API uses among the answer's untyped uses, each on the import of the targeted package."""
        out: list[ReferenceVerdict] = []
        for use in self.extraction.untyped_uses:
            target = self._target(use.ecosystem, None, use.name)
            if target is None:
                continue
            wanted = str(target.get("package") or "")
            home = next(
                (
                    v.reference
                    for v in checked
                    if v.level == "package"
                    and v.verdict == "exists"
                    and v.reference.ecosystem == use.ecosystem
                    and v.reference.source not in ("install", "requirement", "package-json")
                    and _same_package(use.ecosystem, v.reference.package, wanted)
                ),
                None,
            )
            if home is not None:
                name = f"{use.receiver}.{use.name}"
                out.append(self._undecided(home, name, use, f"{RECEIVER_UNKNOWN}: {use.receiver} is untyped"))
        return out

    async def _guarded(self, awaitable: Awaitable[SymbolVerdict]) -> SymbolVerdict:
        try:
            return await awaitable
        except Exception as exc:  # one broken check must not lose the answer's other verdicts
            message = f"symbol check raised {type(exc).__name__}: {exc}"
            self.errors.append(message)
            return SymbolVerdict("unverified", message, None, (), ())

    def _symbol_verdict(
        self,
        reference: Reference,
        name: str,
        verdict: SymbolVerdict,
        chain: tuple[str, ...],
        instance: bool,
        version: str | None,
    ) -> ReferenceVerdict:
        label, reason = verdict.verdict, verdict.reason
        curated = removed_lookup(reference.ecosystem, reference.package, chain) if chain else None
        past = removed_at(curated, version) if curated is not None else None
        if curated is not None and label == "missing-symbol" and past:
            # The gate decided the name is missing; the table names the release that removed it, which
            # no published file of an older release shows (Express's typings never declared app.del).
            label = "removed-api"
            last = f", last in {curated.package} {curated.last_in}" if curated.last_in else ""
            reason = (
                f"{reason}; removed in {curated.package} {curated.removed_in}{last}, use {curated.replacement} "
                f"({curated.source})"
            )
        elif curated is not None and label == "missing-symbol" and past is False:
            # The declarations omit a name the release still has at run time: never missing.
            label = "unverified"
            reason = f"{reason}; but {curated.package} {version} still has it (removed in {curated.removed_in})"
        return ReferenceVerdict(
            reference,
            "symbol",
            label,
            reason,
            name,
            candidate=verdict.candidate,
            ambiguity=verdict.ambiguity,
            evidence=verdict.evidence,
            instance=instance,
        )

    # ------------------------------------------------------------------ one reference
    async def check(self, reference: Reference) -> list[ReferenceVerdict]:
        if reference.classification in ("stdlib", "builtin"):
            why = "Python 3.11 standard library" if reference.ecosystem == "pypi" else "Node.js builtin"
            return [ReferenceVerdict(reference, "package", "stdlib", why, reference.package)]
        if reference.classification == "local":
            return [
                ReferenceVerdict(
                    reference, "package", "local", reference.note or "defined in the answer", reference.text
                )
            ]
        decoy = next((m for m in (match_decoy(t, self.decoys) for t in (reference.text, reference.package)) if m), None)
        try:
            package_verdict, dists = await self.package_level(reference)
        except Exception as exc:
            message = f"package check raised {type(exc).__name__}: {exc}"
            self.errors.append(message)
            package_verdict, dists = (
                ReferenceVerdict(reference, "package", "unverified", message, reference.package),
                [],
            )
        out = [package_verdict]
        if decoy and decoy[1] != "near":
            out[0] = ReferenceVerdict(
                reference,
                "package",
                "decoy",
                f"planted name {decoy[0]} ({decoy[1]} match on {decoy[2]!r}); registry: {package_verdict.verdict}",
                package_verdict.name,
                evidence=package_verdict.evidence,
                first_upload=package_verdict.first_upload,
                registered_since=package_verdict.registered_since,
                decoy=decoy[0],
            )
        if package_verdict.verdict == "exists" and reference.source not in ("install", "requirement", "package-json"):
            out.extend(await self.symbol_level(reference, package_verdict, dists, package_verdict.latest_version))
        return out


def _same_package(ecosystem: str, a: str, b: str) -> bool:
    return canonical_pypi(a) == canonical_pypi(b) if ecosystem == "pypi" else a == b


async def check_answer(
    client: RegistryClient,
    text: str,
    *,
    lang: str = "auto",
    decoys: Sequence[str] = PLANTED,
    run_started_at: str | None = None,
    removed_api: Mapping[str, Any] | None = None,
) -> AnswerCheck:
    """Extract every reference of `text` and judge each one (concurrently, deduplicated).

    `removed_api`: the removed API the case targets (a prompt's `removed_api`: ecosystem, package,
    chain, removed_in, replacement); uses of its name whose receiver has no known type are reported
    as possible removed-API uses.
    """
    extraction = extract_answer(text, lang=lang)
    checker = _Checker(client, extraction, decoys, run_started_at, (removed_api,) if removed_api else ())
    per_reference = await asyncio.gather(*(checker.check(r) for r in extraction.references))
    verdicts = tuple(v for group in per_reference for v in group)
    verdicts += tuple(checker.untyped_level(verdicts))
    hits = tuple(decoy_hits(extraction.references, text, decoys))
    return AnswerCheck(
        extraction=extraction,
        verdicts=verdicts,
        decoy_hits=hits,
        denies_decoy=denies_existence(text) if hits else False,
        checked_at=utc_now(),
        errors=tuple(checker.errors),
    )
