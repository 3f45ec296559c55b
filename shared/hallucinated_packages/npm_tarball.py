"""Fetch one npm package version's tarball into memory: never `npm install`, never touch disk.

npm tarballs are gzip'd tar files without an index, so they are read whole, under a byte cap,
and only the files a symbol check can use (JavaScript, TypeScript declarations, JSON) are kept.
The full member list is kept too: without an `exports` map a subpath is a file path, and
"no such file in the tarball" is then a definite answer. A download that is not a gzip'd tarball
(an HTML error page with a 200) is `ArchiveError`, never an empty package.
"""

from __future__ import annotations

import io
import json
import re
import tarfile
import zlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from .evidence import Evidence
from .registry import RegistryClient
from .wellformed import NPM_TARBALL, NotWellFormed, answer_reason, archive_bytes, failure_reason
from .wheel_index import ArchiveError, version_key

_KEPT = (".js", ".mjs", ".cjs", ".json", ".ts", ".mts", ".cts")


@dataclass
class NpmPackageFiles:
    """One version of an npm package, read from its tarball."""

    name: str
    version: str
    tarball_url: str
    manifest: dict[str, Any]
    paths: frozenset[str]
    texts: dict[str, str] = field(default_factory=dict)
    bytes_read: int = 0
    evidence: list[Evidence] = field(default_factory=list)
    versions: tuple[str, ...] = ()
    parsed: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)  # declaration files read


def pick_version(document: dict[str, Any], wanted: str | None) -> str | None:
    """Exact version, dist-tag, or the highest release matching a simple range (`^4`, `~4.17`, `4.x`)."""
    versions = document.get("versions") if isinstance(document.get("versions"), dict) else {}
    tags = document.get("dist-tags") if isinstance(document.get("dist-tags"), dict) else {}
    assert isinstance(versions, dict) and isinstance(tags, dict)
    if not wanted:
        latest = tags.get("latest")
        return latest if isinstance(latest, str) and latest in versions else None
    if wanted in versions:
        return wanted
    if isinstance(tags.get(wanted), str):
        return str(tags[wanted])
    match = re.match(r"^\s*[\^~=v]*\s*(\d+)(?:\.(\d+|x|\*))?", wanted)
    if match is None:
        return None
    major, minor = match.group(1), match.group(2)
    tilde = wanted.strip().startswith("~")
    chosen = [
        v
        for v in versions
        if "-" not in v
        and v.split(".")[0] == major
        and (not tilde or minor in (None, "x", "*") or v.split(".")[1:2] == [minor])
    ]
    return max(chosen, key=version_key) if chosen else None


async def load_npm_package(client: RegistryClient, name: str, version: str | None = None) -> NpmPackageFiles:
    """Download and list the tarball of `name@version` (latest when None); ArchiveError if impossible."""
    package, document = await client.document("npm", name)
    if package.verdict != "exists" or document is None:
        raise ArchiveError(f"registry: {package.verdict}: {package.reason}", package.evidence)
    chosen = pick_version(document, version)
    if chosen is None:
        raise ArchiveError(f"no version of {name} matches {version!r}", package.evidence)
    manifest = document["versions"][chosen]
    dist = manifest.get("dist") if isinstance(manifest, dict) else None
    tarball = dist.get("tarball") if isinstance(dist, dict) else None
    if not isinstance(tarball, str):
        raise ArchiveError(f"{name}@{chosen} has no tarball URL", package.evidence)
    url = urljoin(str(document.get("_source_url") or ""), tarball)
    cached = client.cache.artifact(url)
    if isinstance(cached, NpmPackageFiles):
        return cached
    cap = client.settings.max_npm_tarball_bytes
    fetched = await client.fetch(url, max_bytes=cap)
    if not fetched.ok:
        raise ArchiveError(failure_reason(NPM_TARBALL, url, fetched.error, fetched.status), fetched.evidence)
    try:
        archive_bytes(fetched.content, fetched.content_type, "gzip")
    except NotWellFormed as exc:
        reason = answer_reason(NPM_TARBALL, url, fetched.status, fetched.content_type, str(exc))
        raise ArchiveError(reason, fetched.evidence) from None
    paths: set[str] = set()
    texts: dict[str, str] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(fetched.content), mode="r:*") as tar:
            for member in tar:
                if not member.isfile():
                    continue
                path = member.name.split("/", 1)[1] if "/" in member.name else member.name
                paths.add(path)
                if path.endswith(_KEPT) and member.size <= client.settings.max_member_bytes:
                    handle = tar.extractfile(member)
                    if handle is not None:
                        texts[path] = handle.read().decode("utf-8", errors="replace")
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        reason = answer_reason(NPM_TARBALL, url, fetched.status, fetched.content_type, f"unreadable tarball: {exc}")
        raise ArchiveError(reason, fetched.evidence) from exc
    real_manifest = manifest
    if "package.json" in texts:
        try:
            parsed = json.loads(texts["package.json"])
            if isinstance(parsed, dict):
                real_manifest = parsed
        except ValueError:
            pass
    versions = tuple(v for v in document.get("versions", {}) if isinstance(v, str))
    loaded = NpmPackageFiles(
        name, chosen, url, dict(real_manifest), frozenset(paths), texts, len(fetched.content),
        [*package.evidence, *fetched.evidence], versions,
    )  # fmt: skip
    client.cache.put_artifact(url, loaded)
    return loaded
