"""Read a published Python artifact in place: pick one file, list it, read only the members needed.

Never install and never extract to disk: installing runs the package's build code and a
500 MB wheel would dominate the run. A wheel is a zip whose central directory sits at the end,
so two HTTP Range requests list it and one more reads each needed module (pip's lazy-wheel
idea). sdists (tar.gz) cannot be read that way and are downloaded whole, in memory, under a
byte cap. Anything that exceeds a cap, fails to download or comes back as something other than
the archive (an HTML error page with a 200) raises `ArchiveError`, which the symbol gate turns
into `unverified`.
"""

from __future__ import annotations

import io
import re
import struct
import tarfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urljoin

from ..errors import HallubenchError
from .evidence import Evidence
from .registry import Fetched, RegistryClient
from .settings import RegistrySettings
from .wellformed import PYPI_FILE, NotWellFormed, answer_reason, archive_bytes, failure_reason

_EOCD = b"PK\x05\x06"
_EOCD64_LOCATOR = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"
_CENTRAL = b"PK\x01\x02"
_LOCAL = b"PK\x03\x04"
_TAIL_FIRST = 16384  # wheels carry no zip comment: the EOCD and usually the whole directory fit
_TAIL_MAX = 65536 + 22  # EOCD plus the longest possible zip comment
_PRE_RELEASE = re.compile(r"(a|b|rc|dev|alpha|beta|pre|preview|c)\d*", re.IGNORECASE)


class ArchiveError(HallubenchError):
    """The artifact could not be read within the rules (download failed, byte cap, bad zip)."""

    def __init__(self, reason: str, evidence: tuple[Evidence, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.evidence = evidence


@dataclass(frozen=True)
class ArtifactChoice:
    """The one file of a release the symbol gate reads, and why it was chosen."""

    distribution: str
    version: str
    filename: str
    url: str
    kind: str  # "pure-wheel" | "platform-wheel" | "sdist"
    size: int | None


class Archive(Protocol):
    """A listed artifact whose members are read on demand."""

    choice: ArtifactChoice
    members: tuple[str, ...]
    bytes_read: int
    evidence: list[Evidence]

    async def read(self, member: str) -> bytes: ...


# ---------------------------------------------------------------------- choosing the file
def version_key(version: str) -> tuple[tuple[int, ...], int]:
    """Sort key for release strings: numeric release tuple, pre-releases before finals."""
    match = re.match(r"v?(\d+(?:\.\d+)*)", version)
    numbers = tuple(int(p) for p in match.group(1).split(".")) if match else ()
    return numbers, 1 if is_final_release(version) else 0


def is_final_release(version: str) -> bool:
    return not _PRE_RELEASE.search(version.split("+")[0])


def older_versions(versions: list[str], current: str, limit: int) -> list[str]:
    """A few earlier final releases spread over history: previous minor, then previous majors.

    Removals usually happen at major boundaries (pandas 2.0, Flask 3.0, Express 5), so the last
    release of the previous minor series and of the previous major series are checked first.
    """
    if limit <= 0:
        return []
    key = version_key(current)[0]
    earlier = sorted((v for v in versions if is_final_release(v) and version_key(v)[0] < key), key=version_key)
    if not earlier:
        return []
    major = key[0] if key else 0
    picks: list[str] = []
    same_major = [v for v in earlier if version_key(v)[0][:1] == (major,) and version_key(v)[0][:2] != key[:2]]
    if same_major:
        picks.append(same_major[-1])
    for lower in range(major - 1, -1, -1):
        series = [v for v in earlier if version_key(v)[0][:1] == (lower,)]
        if series:
            picks.append(series[-1])
        if len(picks) >= limit:
            break
    return list(dict.fromkeys(picks or [earlier[-1]]))[:limit]


def release_files(document: Mapping[str, Any], version: str) -> list[dict[str, Any]] | None:
    """Files of `version` from a PyPI project document, URLs made absolute; None if no such release."""
    releases = document.get("releases")
    files: Any = None
    if isinstance(releases, dict):
        files = releases.get(version)
    info = document.get("info")
    if files is None and isinstance(info, dict) and info.get("version") == version:
        files = document.get("urls")
    if not isinstance(files, list):
        return None
    base = str(document.get("_source_url") or "")
    out: list[dict[str, Any]] = []
    for f in files:
        if isinstance(f, dict) and isinstance(f.get("filename"), str) and isinstance(f.get("url"), str):
            out.append({**f, "url": urljoin(base, f["url"])})
    return out


def _wheel_tags(filename: str) -> tuple[set[str], set[str], set[str]] | None:
    parts = filename[: -len(".whl")].split("-")
    if len(parts) < 5:
        return None
    py, abi, plat = parts[-3:]
    return set(py.split(".")), set(abi.split(".")), set(plat.split("."))


def _platform_ok(tags: set[str], settings: RegistrySettings) -> bool:
    """`manylinux_x86_64` stands for every manylinux*_x86_64 tag; anything else must match exactly."""
    if settings.platform_tag == "manylinux_x86_64":
        return any(t.startswith("manylinux") and t.endswith("_x86_64") for t in tags)
    return settings.platform_tag in tags


def _python_ok(py: set[str], abi: set[str], settings: RegistrySettings) -> bool:
    wanted = settings.python_tag  # e.g. cp311
    if wanted in py:
        return True
    minor = int(wanted[3:]) if wanted[3:].isdigit() else 0
    # abi3 wheels built for an older CPython 3 run on newer ones.
    return "abi3" in abi and any(t.startswith("cp3") and t[3:].isdigit() and int(t[3:]) <= minor for t in py)


def choose_artifact(
    distribution: str, version: str, files: list[dict[str, Any]], settings: RegistrySettings
) -> ArtifactChoice | None:
    """Pure wheel first, else one fixed CPython/manylinux x86_64 wheel, else the sdist."""
    live = [f for f in files if not f.get("yanked")] or files
    pure: list[dict[str, Any]] = []
    platform: list[dict[str, Any]] = []
    other_python: list[dict[str, Any]] = []
    sdists: list[dict[str, Any]] = []
    for f in live:
        name = str(f["filename"])
        if name.endswith(".whl"):
            tags = _wheel_tags(name)
            if tags is None:
                continue
            py, abi, plat = tags
            if "any" in plat and "none" in abi and any(t.startswith("py3") or t == "py2.py3" for t in py):
                pure.append(f)
            elif _platform_ok(plat, settings) and _python_ok(py, abi, settings):
                platform.append(f)
            elif _platform_ok(plat, settings) and any(t.startswith("cp3") for t in py):
                other_python.append(f)
        elif name.endswith((".tar.gz", ".zip", ".tgz")):
            sdists.append(f)
    # Python sources are the same in every CPython build of a release, so when the fixed tag is
    # missing (a release that dropped 3.11) the oldest other CPython wheel beats a large sdist.
    groups = (("pure-wheel", pure), ("platform-wheel", platform), ("platform-wheel", other_python), ("sdist", sdists))
    for kind, group in groups:
        if group:
            chosen = sorted(group, key=_wheel_order)[0]
            size = chosen.get("size")
            return ArtifactChoice(
                distribution, version, str(chosen["filename"]), str(chosen["url"]), kind,
                size if isinstance(size, int) else None,
            )  # fmt: skip
    return None


def _wheel_order(f: dict[str, Any]) -> tuple[int, str]:
    name = str(f["filename"])
    tags = _wheel_tags(name) if name.endswith(".whl") else None
    minors = [int(t[3:]) for t in (tags[0] if tags else ()) if t.startswith("cp3") and t[3:].isdigit()]
    return (min(minors) if minors else 0, name)


# ---------------------------------------------------------------------- zip over HTTP Range
@dataclass
class _Entry:
    name: str
    method: int
    flags: int
    compressed: int
    uncompressed: int
    local_offset: int


@dataclass
class RangeZip:
    """A remote zip read with Range requests; every byte fetched counts against `budget`."""

    client: RegistryClient
    choice: ArtifactChoice
    budget: int
    size: int = 0
    members: tuple[str, ...] = ()
    bytes_read: int = 0
    evidence: list[Evidence] = field(default_factory=list)
    _entries: dict[str, _Entry] = field(default_factory=dict)
    _whole: bytes | None = None
    _last: Fetched | None = None  # the answer whose bytes are being read

    @classmethod
    async def open(cls, client: RegistryClient, choice: ArtifactChoice, budget: int) -> RangeZip:
        archive = cls(client, choice, budget)
        await archive._load_directory()
        return archive

    async def _range(self, start: int | None, end: int | None) -> bytes:
        """Bytes [start, end] inclusive; start=None means the last `end` bytes."""
        if self._whole is not None:
            if start is None:
                return self._whole[-(end or 0) :]
            return self._whole[start : (end if end is not None else len(self._whole) - 1) + 1]
        header = f"bytes=-{end}" if start is None else f"bytes={start}-{'' if end is None else end}"
        remaining = self.budget - self.bytes_read
        if remaining <= 0:
            raise ArchiveError(f"byte cap of {self.budget} reached", tuple(self.evidence))
        fetched = await self.client.fetch(self.choice.url, headers={"Range": header}, max_bytes=remaining)
        self.evidence.extend(fetched.evidence)  # every hop a redirect within the file host made, and the answer
        self._check(fetched)
        self._last = fetched
        self.bytes_read += len(fetched.content)
        if fetched.status == 200:
            # The server ignored Range and sent the whole file (which fit in the cap).
            self._whole = fetched.content
            self.size = len(fetched.content)
            return await self._range(start, end)
        match = re.match(r"bytes (\d+)-(\d+)/(\d+|\*)", fetched.headers.get("content-range", ""))
        if match is None:
            problem = "no usable Content-Range header"
            reason = answer_reason(PYPI_FILE, self.choice.url, fetched.status, fetched.content_type, problem)
            raise ArchiveError(reason, tuple(self.evidence))
        if match.group(3) != "*":
            self.size = int(match.group(3))
            if int(match.group(1)) == 0 and len(fetched.content) == self.size:
                self._whole = fetched.content  # a small file came whole: no further requests
        return fetched.content

    def _broken(self, problem: str) -> ArchiveError:
        """The bytes are not a readable zip: named by the file endpoint and the answer they came in."""
        last = self._last
        status, content_type = (last.status, last.content_type) if last is not None else (None, None)
        return ArchiveError(
            answer_reason(PYPI_FILE, self.choice.url, status, content_type, problem), tuple(self.evidence)
        )

    def _check(self, fetched: Fetched) -> None:
        """A 200 (the whole file) or a 206 (the range asked for) that is not an error page."""
        if fetched.error is not None or fetched.status not in (200, 206):
            reason = failure_reason(PYPI_FILE, self.choice.url, fetched.error, fetched.status)
            raise ArchiveError(reason, tuple(self.evidence))
        try:
            archive_bytes(fetched.content, fetched.content_type, "zip", whole=fetched.status == 200)
        except NotWellFormed as exc:
            reason = answer_reason(PYPI_FILE, self.choice.url, fetched.status, fetched.content_type, str(exc))
            raise ArchiveError(reason, tuple(self.evidence)) from None

    async def _load_directory(self) -> None:
        tail = await self._range(None, _TAIL_FIRST)
        pos = tail.rfind(_EOCD)
        if pos < 0 and len(tail) < self.size:
            tail = await self._range(None, _TAIL_MAX)
            pos = tail.rfind(_EOCD)
        tail_start = self.size - len(tail)
        if pos < 0 or len(tail) - pos < 22:
            raise self._broken("not a zip file: no end-of-central-directory record")
        _, _, _, _, count, cd_size, cd_offset, _ = struct.unpack("<4sHHHHIIH", tail[pos : pos + 22])
        if cd_offset == 0xFFFFFFFF or count == 0xFFFF or cd_size == 0xFFFFFFFF:
            loc = pos - 20
            if loc < 0 or tail[loc : loc + 4] != _EOCD64_LOCATOR:
                raise self._broken("zip64 archive without a locator")
            (eocd64_offset,) = struct.unpack("<Q", tail[loc + 8 : loc + 16])
            rec = await self._slice(tail, tail_start, eocd64_offset, 56)
            if rec[:4] != _EOCD64:
                raise self._broken("bad zip64 end record")
            count, cd_size, cd_offset = struct.unpack("<QQQ", rec[32:56])
        directory = await self._slice(tail, tail_start, cd_offset, cd_size)
        self._parse_directory(directory, count)

    async def _slice(self, tail: bytes, tail_start: int, offset: int, length: int) -> bytes:
        if offset >= tail_start and offset + length <= tail_start + len(tail):
            return tail[offset - tail_start : offset - tail_start + length]
        return await self._range(offset, offset + length - 1)

    def _parse_directory(self, data: bytes, count: int) -> None:
        pos = 0
        names: list[str] = []
        for _ in range(count):
            if data[pos : pos + 4] != _CENTRAL:
                raise self._broken("corrupt central directory")
            fields = struct.unpack("<4sHHHHHHIIIHHHHHII", data[pos : pos + 46])
            flags, method, csize, usize = fields[3], fields[4], fields[8], fields[9]
            nlen, xlen, clen, offset = fields[10], fields[11], fields[12], fields[16]
            raw = data[pos + 46 : pos + 46 + nlen]
            name = raw.decode("utf-8" if flags & 0x800 else "cp437", errors="replace")
            extra = data[pos + 46 + nlen : pos + 46 + nlen + xlen]
            usize, csize, offset = _zip64_values(extra, usize, csize, offset)
            if not name.endswith("/"):
                self._entries[name] = _Entry(name, method, flags, csize, usize, offset)
                names.append(name)
            pos += 46 + nlen + xlen + clen
        self.members = tuple(names)

    async def read(self, member: str) -> bytes:
        entry = self._entries.get(member)
        if entry is None:
            raise ArchiveError(f"no member {member!r}", tuple(self.evidence))
        if entry.uncompressed > self.client.settings.max_member_bytes:
            raise ArchiveError(f"member {member} is {entry.uncompressed} bytes, above the member cap")
        guess = 30 + len(member.encode()) + 64 + entry.compressed
        blob = await self._range(entry.local_offset, entry.local_offset + guess - 1)
        if blob[:4] != _LOCAL:
            raise self._broken(f"bad local header for {member}")
        nlen, xlen = struct.unpack("<HH", blob[26:30])
        start = 30 + nlen + xlen
        if start + entry.compressed > len(blob):
            blob += await self._range(entry.local_offset + len(blob), entry.local_offset + start + entry.compressed - 1)
        data = blob[start : start + entry.compressed]
        if entry.flags & 0x1:
            raise ArchiveError(f"member {member} is encrypted")
        if entry.method == 0:
            return data
        if entry.method == 8:
            try:
                return zlib.decompressobj(-15).decompress(data, entry.uncompressed or 1 << 30)
            except zlib.error as exc:
                raise self._broken(f"cannot inflate {member}: {exc}") from exc
        raise ArchiveError(f"member {member} uses unsupported compression method {entry.method}")


def _zip64_values(extra: bytes, usize: int, csize: int, offset: int) -> tuple[int, int, int]:
    pos = 0
    while pos + 4 <= len(extra):
        tag, size = struct.unpack("<HH", extra[pos : pos + 4])
        if tag == 0x0001:
            body = extra[pos + 4 : pos + 4 + size]
            values = list(struct.unpack(f"<{len(body) // 8}Q", body[: len(body) // 8 * 8]))
            if usize == 0xFFFFFFFF and values:
                usize = values.pop(0)
            if csize == 0xFFFFFFFF and values:
                csize = values.pop(0)
            if offset == 0xFFFFFFFF and values:
                offset = values.pop(0)
            break
        pos += 4 + size
    return usize, csize, offset


# ---------------------------------------------------------------------- sdists in memory
@dataclass
class MemoryTar:
    """A tar.gz sdist downloaded whole into memory (sdists have no central directory to seek)."""

    choice: ArtifactChoice
    members: tuple[str, ...]
    bytes_read: int
    evidence: list[Evidence]
    _tar: tarfile.TarFile

    async def read(self, member: str) -> bytes:
        try:
            handle = self._tar.extractfile(member)
        except KeyError as exc:
            raise ArchiveError(f"no member {member!r}") from exc
        if handle is None:
            raise ArchiveError(f"{member} is not a regular file")
        return handle.read()


async def open_artifact(client: RegistryClient, choice: ArtifactChoice) -> Archive:
    """List the chosen artifact; raises ArchiveError when that is not possible within the caps."""
    settings = client.settings
    if choice.filename.endswith((".whl", ".zip")):
        return await RangeZip.open(client, choice, settings.max_artifact_bytes)
    if choice.size is not None and choice.size > settings.max_sdist_bytes:
        raise ArchiveError(f"sdist is {choice.size} bytes, above the {settings.max_sdist_bytes}-byte cap")
    fetched = await client.fetch(choice.url, max_bytes=settings.max_sdist_bytes)
    if not fetched.ok:
        raise ArchiveError(failure_reason(PYPI_FILE, choice.url, fetched.error, fetched.status), fetched.evidence)
    try:
        archive_bytes(fetched.content, fetched.content_type, "gzip")
    except NotWellFormed as exc:
        reason = answer_reason(PYPI_FILE, choice.url, fetched.status, fetched.content_type, str(exc))
        raise ArchiveError(reason, fetched.evidence) from None
    try:
        tar = tarfile.open(fileobj=io.BytesIO(fetched.content), mode="r:*")  # noqa: SIM115 (lives with the archive)
        names = tuple(m.name for m in tar.getmembers() if m.isfile())
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        reason = answer_reason(PYPI_FILE, choice.url, fetched.status, fetched.content_type, f"unreadable sdist: {exc}")
        raise ArchiveError(reason, fetched.evidence) from exc
    return MemoryTar(choice, names, len(fetched.content), list(fetched.evidence), tar)


# ---------------------------------------------------------------------- top-level names
def top_level_modules(members: tuple[str, ...], *, sdist: bool = False) -> set[str]:
    """Importable top-level names from a listing (RECORD-equivalent; no `top_level.txt` needed).

    `foo/...` and `foo.py` / `foo.*.so` give `foo`; `*.dist-info`, `*.libs` and `*.data`
    (except its purelib/platlib trees) are skipped. For an sdist the project folder and a
    `src/` layout are stripped and only packages with `__init__.py` or root modules count.
    """
    names: set[str] = set()
    paths = [strip_sdist_root(m) for m in members] if sdist else list(members)
    for path in paths:
        if path is None:
            continue
        parts = path.split("/")
        if parts[0].endswith(".data") and len(parts) > 3 and parts[1] in ("purelib", "platlib"):
            parts = parts[2:]
        head = parts[0]
        if head.endswith((".dist-info", ".libs", ".data", ".egg-info")) or not head:
            continue
        if len(parts) == 1:
            module = _module_name(head)
            if module and not (sdist and module in ("setup", "conftest", "noxfile", "tasks")):
                names.add(module)
        elif (not sdist or f"{head}/__init__.py" in paths) and head.isidentifier():
            names.add(head)
    return names


def _module_name(filename: str) -> str | None:
    for suffix in (".py", ".pyi"):
        if filename.endswith(suffix):
            stem = filename[: -len(suffix)]
            return stem if stem.isidentifier() else None
    if filename.endswith((".so", ".pyd")):
        stem = filename.split(".")[0]
        return stem if stem.isidentifier() else None
    return None


def strip_sdist_root(member: str) -> str | None:
    """`proj-1.0/src/pkg/x.py` -> `pkg/x.py`; None for files outside a project folder."""
    parts = member.split("/", 1)
    if len(parts) < 2:
        return None
    rest = parts[1]
    return rest[len("src/") :] if rest.startswith("src/") else rest
