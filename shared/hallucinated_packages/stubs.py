"""Stub distributions: where the types of a package that ships no annotations are published.

typeshed publishes `types-<dist>` (types-requests) and projects publish `<dist>-stubs`
(pandas-stubs); both are stub-only packages (PEP 561) whose wheels hold `<module>-stubs/*.pyi`.
They are read like any artifact, through the same registry client and range reader, never
installed; the folder is presented under the module's own name so the index reads it as the
package's declaration. Looked up once per distribution and client. Embedded: stdlib + httpx.
"""

from __future__ import annotations

import weakref

from .evidence import Evidence
from .pyindex import ModuleTree
from .registry import RegistryClient
from .wheel_index import Archive, ArchiveError, ArtifactChoice, choose_artifact, open_artifact, release_files

_SUFFIX = "-stubs"


def stub_distributions(dist: str) -> tuple[str, ...]:
    """The two published conventions for a distribution's stubs, typeshed's first."""
    return (f"types-{dist}", f"{dist}{_SUFFIX}")


class StubArchive:
    """An archive whose `<module>-stubs/` folders are seen as `<module>/` (and nothing else is)."""

    def __init__(self, inner: Archive) -> None:
        self.inner = inner
        self.choice: ArtifactChoice = inner.choice
        self.evidence: list[Evidence] = inner.evidence
        self._real: dict[str, str] = {}
        for member in inner.members:
            head, sep, rest = member.partition("/")
            if sep and head.endswith(_SUFFIX):
                self._real[f"{head[: -len(_SUFFIX)]}/{rest}"] = member
        self.members: tuple[str, ...] = tuple(sorted(self._real))
        self.bytes_read: int = inner.bytes_read

    async def read(self, member: str) -> bytes:
        data = await self.inner.read(self._real.get(member, member))
        self.bytes_read = self.inner.bytes_read
        return data


_TREES: weakref.WeakKeyDictionary[RegistryClient, dict[str, ModuleTree | None]] = weakref.WeakKeyDictionary()


async def stub_tree(client: RegistryClient, dist: str) -> ModuleTree | None:
    """The newest published stubs of `dist` as a module tree; None when there are none or they cannot be read."""
    cache = _TREES.setdefault(client, {})
    if dist in cache:
        return cache[dist]
    tree: ModuleTree | None = None
    for name in stub_distributions(dist):
        tree = await _open_stub(client, name)
        if tree is not None:
            break
    cache[dist] = tree
    return tree


async def _open_stub(client: RegistryClient, name: str) -> ModuleTree | None:
    package, document = await client.document("pypi", name)
    if package.verdict != "exists" or document is None or not package.latest_version:
        return None
    files = release_files(document, package.latest_version)
    if not files:
        return None
    choice = choose_artifact(package.canonical_name or name, package.latest_version, files, client.settings)
    if choice is None or choice.kind == "sdist":
        return None
    try:
        archive = await open_artifact(client, choice)
    except ArchiveError:
        return None
    renamed = StubArchive(archive)
    if not renamed.members:  # not a stub-only package (`types-x` that is something else)
        return None
    return ModuleTree(renamed)
