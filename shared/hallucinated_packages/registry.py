"""Does a package exist on PyPI or npm? An async client whose only definite "no" is a confirmed 404.

Why this shape:
* A network problem must never become "missing" (a false hallucination is worse than an
  unverified one), so timeouts, refused connections, 429/5xx, redirect loops and security holds
  are `unverified`, and a 404 only counts once a second endpoint agrees (PyPI JSON then Simple
  API; npm packument then `/<name>/latest`). Only 404 is "not found": 410 and every other
  status, on either endpoint, is `unverified`.
* Only the registry's own answers decide. A redirect is followed only within the origin
  (scheme, host, port) of the URL asked for, which for a package lookup is the configured base
  URL; a redirect to another origin is not followed and the fetch is `unverified` whatever that
  origin would answer, its reason naming the foreign origin (`HTTP 302 redirect to another
  origin https://elsewhere.example, not followed`). A proxy that bounces http to https is such
  a redirect too: configure the URL the registry answers on. Artifact downloads for the symbol
  gates go to the file URL the registry's own document names (files.pythonhosted.org for
  pypi.org): that host is not reached by a redirect, and the same rule holds there, so a file
  host may redirect within its own origin but not elsewhere. Every hop followed leaves its own
  `Evidence`.
* After a JSON 404, a Simple API page confirms existence only when it names the project (the
  PEP 691 `name`, or a PEP 503 "Links for <project>" title) and lists at least one of the
  project's files (`wellformed.simple_page`); a page without files (an empty or placeholder
  project, a bare `pypi:repository-version` meta) is `unverified`.
* Only a well-formed answer decides: a 200 whose content type or body is not what that endpoint
  serves (an HTML error page, an empty body, truncated or wrong-shaped JSON) is `unverified`
  too (`wellformed`), and every unverified reason names the endpoint and the HTTP status.
* A benchmark run asks about the same names again and again: lookups are deduplicated while in
  flight and cached (never an unverified one), with bounded concurrency, so each unique name
  costs one request.
* Every attempt leaves `Evidence` and the first-upload time is kept, so a name registered after
  the run can be flagged "registered since - possibly slopsquatted" when old runs are rescored.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx

from .evidence import Evidence, utc_now
from .names import canonical_pypi, is_valid_npm_name, is_valid_pypi_name
from .settings import RegistrySettings
from .wellformed import (
    NPM_LATEST,
    NPM_PACKUMENT,
    PYPI_JSON,
    PYPI_SIMPLE,
    NotWellFormed,
    answer_reason,
    failure_reason,
    npm_packument,
    npm_version,
    pypi_project,
    simple_page,
)

ECOSYSTEMS = ("pypi", "npm")
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class PackageVerdict:
    """Package-level answer: `exists`, `missing` or `unverified`, with the evidence behind it."""

    ecosystem: str
    name: str
    verdict: str
    reason: str
    canonical_name: str | None
    latest_version: str | None
    first_upload: str | None
    evidence: tuple[Evidence, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ecosystem": self.ecosystem,
            "name": self.name,
            "verdict": self.verdict,
            "reason": self.reason,
            "canonical_name": self.canonical_name,
            "latest_version": self.latest_version,
            "first_upload": self.first_upload,
            "evidence": [e.to_dict() for e in self.evidence],
        }


@dataclass(frozen=True)
class Fetched:
    """Outcome of one logical GET (retries included): a response, or why there is none."""

    url: str
    status: int | None
    content: bytes
    headers: Mapping[str, str]
    evidence: tuple[Evidence, ...]
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.status is not None and 200 <= self.status < 300

    @property
    def content_type(self) -> str | None:
        return self.headers.get("content-type")


def origin(url: str) -> str:
    """`https://pypi.org`: scheme, host and port (a default port left out) of a URL, the unit of trust."""
    parsed = httpx.URL(url)
    host = f"[{parsed.host}]" if ":" in parsed.host else parsed.host
    port = f":{parsed.port}" if parsed.port is not None else ""
    return f"{parsed.scheme}://{host}{port}"


def package_key(ecosystem: str, name: str) -> tuple[str, str]:
    """Cache key: PyPI compares PEP 503 forms; npm names are compared as written."""
    if ecosystem == "pypi":
        return ("pypi", canonical_pypi(name))
    return (ecosystem, name)


@dataclass
class VerdictCache:
    """In-memory cache of verdicts (and the registry document behind an `exists`).

    Unverified verdicts are never stored: a retry may succeed. Negatives live shorter than
    positives because a missing name can be registered at any time.
    """

    exists_s: float = 24 * 3600.0
    missing_s: float = 3600.0
    clock: Callable[[], float] = time.monotonic
    max_artifacts: int = 48
    _entries: dict[tuple[str, str], tuple[float, PackageVerdict, dict[str, Any] | None]] = field(default_factory=dict)
    _artifacts: dict[str, Any] = field(default_factory=dict)

    def artifact(self, url: str) -> Any:
        """A published file already read in this run (files under one URL never change), or None."""
        return self._artifacts.get(url)

    def put_artifact(self, url: str, value: Any) -> None:
        self._artifacts.pop(url, None)
        self._artifacts[url] = value
        while len(self._artifacts) > self.max_artifacts:
            self._artifacts.pop(next(iter(self._artifacts)))

    def get(self, key: tuple[str, str]) -> tuple[PackageVerdict, dict[str, Any] | None] | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, verdict, document = entry
        if self.clock() >= expires:
            del self._entries[key]
            return None
        return verdict, document

    def put(self, key: tuple[str, str], verdict: PackageVerdict, document: dict[str, Any] | None = None) -> None:
        if verdict.verdict == "exists":
            self._entries[key] = (self.clock() + self.exists_s, verdict, document)
        elif verdict.verdict == "missing":
            self._entries[key] = (self.clock() + self.missing_s, verdict, None)


def _retry_after_s(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP date); None if absent/unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class RegistryClient:
    """Async context manager answering package-existence questions for PyPI and npm."""

    def __init__(
        self,
        settings: RegistrySettings | None = None,
        *,
        cache: VerdictCache | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings = settings or RegistrySettings()
        self.cache = cache or VerdictCache(self.settings.cache_exists_s, self.settings.cache_missing_s)
        self._transport = transport
        self._http: httpx.AsyncClient | None = None
        self._semaphore = asyncio.Semaphore(self.settings.max_concurrency)
        self._inflight: dict[tuple[str, str], asyncio.Task[PackageVerdict]] = {}
        self._documents: dict[tuple[str, str], dict[str, Any]] = {}
        self.bytes_read = 0

    async def __aenter__(self) -> RegistryClient:
        self._http = httpx.AsyncClient(
            follow_redirects=False,  # followed by hand, within the origin asked (`_get_once`)
            timeout=self.settings.timeout_s,
            headers={"User-Agent": self.settings.user_agent},
            transport=self._transport,
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    # ------------------------------------------------------------------ HTTP with a policy
    async def fetch(
        self, url: str, *, headers: Mapping[str, str] | None = None, max_bytes: int | None = None
    ) -> Fetched:
        """GET with retries (backoff, Retry-After honoured up to a bound) and an optional byte cap."""
        if self._http is None:
            raise RuntimeError("RegistryClient must be used as `async with RegistryClient(...)`")
        evidence: list[Evidence] = []
        attempts = self.settings.max_retries + 1
        for attempt in range(attempts):
            wait: float | None = None
            async with self._semaphore:
                try:
                    result = await self._get_once(url, headers, max_bytes)
                except httpx.TimeoutException as exc:
                    note = f"timeout after {self.settings.timeout_s:g}s ({type(exc).__name__})"
                    evidence.append(Evidence(url, None, utc_now(), note))
                    result = None
                except httpx.HTTPError as exc:
                    note = f"no response: {type(exc).__name__}: {exc}".strip().rstrip(":")
                    evidence.append(Evidence(url, None, utc_now(), note))
                    result = None
            if isinstance(result, Fetched):
                evidence.extend(result.evidence)
                result = Fetched(
                    result.url, result.status, result.content, result.headers, tuple(evidence), result.error
                )
                if result.status not in RETRY_STATUSES:
                    return result
                retry_after = _retry_after_s(result.headers.get("retry-after"))
                if retry_after is not None and retry_after > self.settings.max_retry_after_s:
                    note = (
                        f"HTTP {result.status}; Retry-After {retry_after:g}s exceeds the "
                        f"{self.settings.max_retry_after_s:g}s bound, not retried"
                    )
                    evidence.append(Evidence(url, result.status, utc_now(), note))
                    return Fetched(url, result.status, b"", result.headers, tuple(evidence), note)
                if retry_after is not None:
                    wait = retry_after
                    evidence.append(Evidence(url, result.status, utc_now(), f"Retry-After {retry_after:g}s honoured"))
            if attempt + 1 == attempts:
                break
            await asyncio.sleep(wait if wait is not None else self.settings.backoff_base_s * 2**attempt)
        last = evidence[-1] if evidence else Evidence(url, None, utc_now(), "no attempt made")
        what = f"HTTP {last.status}" if last.status is not None else last.note
        gave_up = f"{what}; gave up after {attempts} attempt{'s' if attempts != 1 else ''}"
        return Fetched(url, last.status, b"", {}, tuple(evidence), gave_up)

    async def _get_once(self, url: str, headers: Mapping[str, str] | None, max_bytes: int | None) -> Fetched:
        """One GET, its redirects followed only within the origin of `url` (each hop leaves evidence).

        A redirect elsewhere is not followed: the answer is the redirect itself, with an error
        naming the foreign origin, so the lookup stays `unverified` whatever that origin says.
        """
        assert self._http is not None
        own = origin(url)
        hops: list[Evidence] = []
        target = url
        for _ in range(self.settings.max_redirects + 1):
            async with self._http.stream("GET", target, headers=dict(headers or {})) as response:
                following = response.next_request
                if following is None:
                    return await self._read(response, max_bytes, tuple(hops))
                where, status = str(following.url), response.status_code
                if origin(where) != own:
                    note = f"HTTP {status} redirect to another origin {origin(where)}, not followed ({where})"
                    hops.append(Evidence(str(response.url), status, utc_now(), note))
                    return Fetched(str(response.url), status, b"", response.headers, tuple(hops), note)
                hops.append(Evidence(str(response.url), status, utc_now(), f"redirect within {own} to {where}"))
                target = where
        note = f"redirect loop: more than {self.settings.max_redirects} redirects"
        hops.append(Evidence(target, None, utc_now(), note))
        return Fetched(target, None, b"", {}, tuple(hops), note)

    async def _read(self, response: httpx.Response, max_bytes: int | None, hops: tuple[Evidence, ...]) -> Fetched:
        declared = response.headers.get("Content-Length", "")
        if max_bytes is not None and declared.isdigit() and int(declared) > max_bytes:
            # Refused before reading: stopping an httpx body iteration part way leaves httpcore's
            # inner generator to the garbage collector, which closes it outside its task.
            return self._capped(response, max_bytes, hops)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            self.bytes_read += len(chunk)
            if max_bytes is not None and size > max_bytes:  # no or a wrong Content-Length
                return self._capped(response, max_bytes, hops)
            chunks.append(chunk)
        ev = Evidence(str(response.url), response.status_code, utc_now(), "")
        return Fetched(str(response.url), response.status_code, b"".join(chunks), response.headers, (*hops, ev))

    @staticmethod
    def _capped(response: httpx.Response, max_bytes: int, hops: tuple[Evidence, ...]) -> Fetched:
        note = f"body exceeds the byte cap of {max_bytes} bytes; stopped reading"
        ev = Evidence(str(response.url), response.status_code, utc_now(), note)
        return Fetched(str(response.url), response.status_code, b"", response.headers, (*hops, ev), note)

    # ------------------------------------------------------------------ package verdicts
    async def package(self, ecosystem: str, name: str) -> PackageVerdict:
        """Verdict for one package; concurrent calls for the same name share one lookup."""
        verdict, _ = await self.document(ecosystem, name)
        return verdict if verdict.name == name else _renamed(verdict, name)

    async def packages(self, items: Iterable[tuple[str, str]]) -> dict[tuple[str, str], PackageVerdict]:
        """Verdicts for many (ecosystem, name) pairs: unique names looked up once, concurrently."""
        wanted = list(dict.fromkeys(items))
        results = await asyncio.gather(*(self.package(eco, name) for eco, name in wanted))
        return dict(zip(wanted, results, strict=True))

    async def document(self, ecosystem: str, name: str) -> tuple[PackageVerdict, dict[str, Any] | None]:
        """The verdict plus the registry document (PyPI project JSON / npm packument) when it exists.

        The document carries `_source_url`, the URL it came from, so relative file URLs from
        mirrors can be resolved against it.
        """
        if ecosystem not in ECOSYSTEMS:
            raise ValueError(f"unknown ecosystem {ecosystem!r}; expected one of {ECOSYSTEMS}")
        key = package_key(ecosystem, name)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        task = self._inflight.get(key)
        if task is None:
            task = asyncio.ensure_future(self._lookup(ecosystem, name))
            self._inflight[key] = task
            task.add_done_callback(self._forget_inflight(key))
        verdict = await task
        document = self._documents.get(key)
        self.cache.put(key, verdict, document)
        return verdict, document

    def _forget_inflight(self, key: tuple[str, str]) -> Callable[[asyncio.Task[PackageVerdict]], None]:
        def forget(_task: asyncio.Task[PackageVerdict]) -> None:
            self._inflight.pop(key, None)

        return forget

    async def _lookup(self, ecosystem: str, name: str) -> PackageVerdict:
        if ecosystem == "pypi":
            return await self._lookup_pypi(name)
        return await self._lookup_npm(name)

    async def _lookup_pypi(self, name: str) -> PackageVerdict:
        if not is_valid_pypi_name(name):
            return _verdict("pypi", name, "unverified", "invalid-name: not a valid PyPI project name", ())
        canon = canonical_pypi(name)
        json_url = f"{self.settings.pypi_json_url}/{canon}/json"
        first = await self.fetch(json_url)
        if first.ok:
            try:
                doc = pypi_project(first.content, first.content_type, canon)
            except NotWellFormed as exc:
                return _not_well_formed("pypi", name, PYPI_JSON, json_url, first, exc, first.evidence)
            doc["_source_url"] = first.url
            self._documents[("pypi", canon)] = doc
            info = doc["info"]
            return PackageVerdict(
                "pypi", name, "exists", "PyPI JSON API 200", str(info["name"]), str(info["version"]),
                _pypi_first_upload(doc), first.evidence,
            )  # fmt: skip
        if not _not_found(first):
            reason = failure_reason(PYPI_JSON, json_url, first.error or _not_404(first.status), first.status)
            return _verdict("pypi", name, "unverified", reason, first.evidence)
        simple_url = f"{self.settings.pypi_simple_url}/{canon}/"
        second = await self.fetch(simple_url, headers={"Accept": SIMPLE_JSON})
        evidence = first.evidence + second.evidence
        unconfirmed = f"{first.status} not confirmed: "
        if _not_found(second):
            note = f"{first.status} on the JSON API, confirmed {second.status} via Simple API"
            evidence = (*evidence[:-1], _with_note(evidence[-1], note))
            return _verdict("pypi", name, "missing", note, evidence, canonical=canon)
        if not second.ok:
            why = second.error or _not_404(second.status)
            reason = unconfirmed + failure_reason(PYPI_SIMPLE, simple_url, why, second.status)
            return _verdict("pypi", name, "unverified", reason, evidence)
        try:
            page = simple_page(second.content, second.content_type, canon)
        except NotWellFormed as exc:
            return _not_well_formed("pypi", name, PYPI_SIMPLE, simple_url, second, exc, evidence, unconfirmed)
        status = page.get("project-status")
        if isinstance(status, dict) and status.get("status") == "quarantined":
            return _verdict("pypi", name, "unverified", "hold: project-status quarantined", evidence)
        if not page["files"]:
            problem = NotWellFormed(f"body is the Simple API page of {canon!r} but lists none of its files")
            return _not_well_formed("pypi", name, PYPI_SIMPLE, simple_url, second, problem, evidence, unconfirmed)
        return _verdict(
            "pypi", name, "exists", "listed on the Simple API although the JSON API said 404", evidence,
            canonical=canon,
        )  # fmt: skip

    async def _lookup_npm(self, name: str) -> PackageVerdict:
        if not is_valid_npm_name(name):
            return _verdict("npm", name, "unverified", "invalid-name: not a valid npm package name", ())
        base = f"{self.settings.npm_url}/{quote(name, safe='@')}"
        first = await self.fetch(base)
        if first.ok:
            try:
                doc = npm_packument(first.content, first.content_type, name)
            except NotWellFormed as exc:
                return _not_well_formed("npm", name, NPM_PACKUMENT, base, first, exc, first.evidence)
            return self._judge_packument(name, doc, first, base)
        if first.status == 451:
            return _verdict("npm", name, "unverified", "hold: HTTP 451 (security hold)", first.evidence)
        if not _not_found(first):
            reason = failure_reason(NPM_PACKUMENT, base, first.error or _not_404(first.status), first.status)
            return _verdict("npm", name, "unverified", reason, first.evidence)
        latest_url = f"{base}/latest"
        second = await self.fetch(latest_url)
        evidence = first.evidence + second.evidence
        unconfirmed = f"{first.status} not confirmed: "
        if _not_found(second):
            note = f"{first.status} on the packument, confirmed {second.status} via /latest"
            evidence = (*evidence[:-1], _with_note(evidence[-1], note))
            return _verdict("npm", name, "missing", note, evidence, canonical=name)
        if not second.ok:
            why = second.error or _not_404(second.status)
            reason = unconfirmed + failure_reason(NPM_LATEST, latest_url, why, second.status)
            return _verdict("npm", name, "unverified", reason, evidence)
        try:
            npm_version(second.content, second.content_type)
        except NotWellFormed as exc:
            return _not_well_formed("npm", name, NPM_LATEST, latest_url, second, exc, evidence, unconfirmed)
        problem = f"a version document, although the packument said {first.status}"
        reason = unconfirmed + answer_reason(NPM_LATEST, latest_url, second.status, second.content_type, problem)
        return _verdict("npm", name, "unverified", reason, evidence)

    def _judge_packument(self, name: str, doc: dict[str, Any], fetched: Fetched, url: str) -> PackageVerdict:
        versions = doc.get("versions")
        times = doc.get("time") if isinstance(doc.get("time"), dict) else {}
        assert isinstance(times, dict)
        tags = doc.get("dist-tags") if isinstance(doc.get("dist-tags"), dict) else {}
        assert isinstance(tags, dict)
        latest = tags.get("latest")
        created = times.get("created")
        ev = fetched.evidence
        if not isinstance(versions, dict) or not versions:
            if "unpublished" in times:
                return _verdict("npm", name, "unverified", "hold: every version unpublished", ev)
            problem = NotWellFormed("body is an npm packument without versions")
            return _not_well_formed("npm", name, NPM_PACKUMENT, url, fetched, problem, ev)
        if isinstance(latest, str) and latest.endswith("-security"):
            return _verdict("npm", name, "unverified", f"hold: npm security placeholder {latest}", ev)
        doc["_source_url"] = fetched.url
        self._documents[("npm", name)] = doc
        return PackageVerdict(
            "npm", name, "exists", "npm packument 200", str(doc.get("name") or name),
            latest if isinstance(latest, str) else None, created if isinstance(created, str) else None, ev,
        )  # fmt: skip


def _verdict(
    ecosystem: str,
    name: str,
    verdict: str,
    reason: str,
    evidence: tuple[Evidence, ...],
    *,
    canonical: str | None = None,
) -> PackageVerdict:
    return PackageVerdict(ecosystem, name, verdict, reason, canonical, None, None, evidence)


def _not_found(fetched: Fetched) -> bool:
    """A 404 answered by the origin asked (redirects elsewhere are never followed), nothing else."""
    return fetched.error is None and fetched.status == 404


def _not_404(status: int | None) -> str | None:
    """The reason a 410 is not "not found"; None (the bare status) for every other status."""
    return f"HTTP {status}, not 404: only a confirmed 404 means missing" if status == 410 else None


def _renamed(verdict: PackageVerdict, name: str) -> PackageVerdict:
    """The shared lookup under the spelling this caller asked for."""
    return PackageVerdict(
        verdict.ecosystem, name, verdict.verdict, verdict.reason, verdict.canonical_name,
        verdict.latest_version, verdict.first_upload, verdict.evidence,
    )  # fmt: skip


def _with_note(evidence: Evidence, note: str) -> Evidence:
    return Evidence(evidence.url, evidence.status, evidence.checked_at, note)


def _not_well_formed(
    ecosystem: str,
    name: str,
    endpoint: str,
    url: str,
    fetched: Fetched,
    problem: NotWellFormed,
    evidence: tuple[Evidence, ...],
    prefix: str = "",
) -> PackageVerdict:
    """Unverified: a 2xx that is not what `endpoint` serves; its evidence notes what was wrong."""
    reason = prefix + answer_reason(endpoint, url, fetched.status, fetched.content_type, str(problem))
    evidence = (*evidence[:-1], _with_note(evidence[-1], str(problem)))
    return _verdict(ecosystem, name, "unverified", reason, evidence)


def _pypi_first_upload(doc: dict[str, Any]) -> str | None:
    """Earliest upload time over every file of every release (RFC 3339)."""
    times: list[str] = []
    releases = doc.get("releases")
    if isinstance(releases, dict):
        for files in releases.values():
            if isinstance(files, list):
                for f in files:
                    if isinstance(f, dict):
                        t = f.get("upload_time_iso_8601") or f.get("upload_time")
                        if isinstance(t, str):
                            times.append(t if t.endswith("Z") or "+" in t else t + "Z")
    return min(times) if times else None
