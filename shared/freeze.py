"""`hallubench freeze` and `hallubench verify`: lock a protocol version's bytes, then guard them.

Freezing records the task file's sha256 (and those of its payload, cases and golden prompt
hashes) in `frozen_cases/protocols.lock`, commits them, and creates the annotated tag
`<benchmark>/v<N>` whose message carries the hashes. Verifying re-hashes every locked file
and, where the tag exists, the file as committed under the tag.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from .build import build_protocol, stale_files
from .hashing import sha256_bytes
from .lockfile import LOCK_PATH, LockEntry, read_lock, write_lock
from .specs import ProtocolSpec
from .taskfile.reader import TaskFileError, read_task_file


class FreezeError(Exception):
    """Freezing was refused; the message says why and what to do."""


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=check)


def _tag_exists(root: Path, tag: str) -> bool:
    return _git(root, "rev-parse", "-q", "--verify", f"refs/tags/{tag}", check=False).returncode == 0


def lock_entry(root: Path, spec: ProtocolSpec) -> LockEntry:
    """Hash the built files of `spec` as they are on disk."""
    task = read_task_file(root / spec.task_path)
    return LockEntry(
        protocol=spec.protocol_id,
        tag=spec.tag,
        task_file=str(spec.task_path),
        task_sha256=sha256_bytes((root / spec.task_path).read_bytes()),
        payload_sha256=task.payload_sha256,
        cases_sha256=sha256_bytes((root / spec.cases_path).read_bytes()),
        golden_sha256=sha256_bytes((root / spec.golden_path).read_bytes()),
        cases=len(task.cases),
    )


def freeze(root: Path, spec: ProtocolSpec, *, commit: bool = True) -> LockEntry:
    """Lock `spec`: refuse when it is already locked, stale, or its tag exists."""
    lock = read_lock(root)
    if spec.protocol_id in lock.protocols:
        raise FreezeError(f"{spec.protocol_id} is already frozen; a change needs a new version")
    if _tag_exists(root, spec.tag):
        raise FreezeError(f"tag {spec.tag} already exists; refusing to move it")
    stale = stale_files(root, build_protocol(root, spec))
    if stale:
        names = ", ".join(str(p) for p in stale)
        raise FreezeError(f"{spec.protocol_id}: stale files ({names}); run `hallubench build {spec.benchmark}` first")
    entry = lock_entry(root, spec)
    lock.protocols[spec.protocol_id] = entry
    write_lock(root, lock)
    if commit:
        paths = [str(LOCK_PATH), str(spec.task_path), str(spec.cases_path), str(spec.golden_path)]
        _git(root, "add", "--", *paths)
        message = f"Freeze {spec.protocol_id}\n\ntask {entry.task_file} sha256 {entry.task_sha256}\n"
        result = _git(root, "commit", "-m", message, "--", *paths, check=False)
        if result.returncode != 0:
            raise FreezeError(f"git commit failed: {result.stderr.decode(errors='replace').strip()}")
        tag_message = (
            f"{spec.protocol_id} frozen\n\n"
            f"task_file {entry.task_file}\ntask_sha256 {entry.task_sha256}\n"
            f"payload_sha256 {entry.payload_sha256}\ncases_sha256 {entry.cases_sha256}\n"
            f"golden_sha256 {entry.golden_sha256}\n"
        )
        result = _git(root, "tag", "-a", spec.tag, "-m", tag_message, check=False)
        if result.returncode != 0:
            raise FreezeError(f"git tag failed: {result.stderr.decode(errors='replace').strip()}")
    return entry


@dataclass(frozen=True)
class VerifyProblem:
    protocol: str
    message: str


def verify(root: Path) -> tuple[list[str], list[VerifyProblem]]:
    """Check every locked protocol; return (verified ids, problems)."""
    lock = read_lock(root)
    ok: list[str] = []
    problems: list[VerifyProblem] = []
    for protocol, entry in sorted(lock.protocols.items()):
        found = _verify_entry(root, entry)
        if found:
            problems.extend(VerifyProblem(protocol, message) for message in found)
        else:
            ok.append(protocol)
    return ok, problems


def _verify_entry(root: Path, entry: LockEntry) -> list[str]:
    messages: list[str] = []
    task_path = root / entry.task_file
    if not task_path.exists():
        return [f"{entry.task_file} is missing"]
    actual = sha256_bytes(task_path.read_bytes())
    if actual != entry.task_sha256:
        messages.append(f"{entry.task_file}: sha256 {actual} differs from the lock's {entry.task_sha256}")
    try:
        task = read_task_file(task_path)
        if task.payload_sha256 != entry.payload_sha256:
            messages.append(f"{entry.task_file}: payload sha256 {task.payload_sha256} differs from the lock")
    except TaskFileError as exc:
        messages.append(str(exc))
    base = Path(entry.task_file).stem
    benchmark, _, version = entry.protocol.partition("/")
    folder = root / "frozen_cases" / benchmark / version
    for name, expected in (("cases.json", entry.cases_sha256), ("prompts.sha256.json", entry.golden_sha256)):
        path = folder / name
        if not path.exists():
            messages.append(f"{path.relative_to(root)} is missing")
        elif sha256_bytes(path.read_bytes()) != expected:
            messages.append(f"{path.relative_to(root)}: sha256 differs from the lock")
    if _tag_exists(root, entry.tag):
        shown = _git(root, "show", f"{entry.tag}:{entry.task_file}", check=False)
        if shown.returncode != 0:
            messages.append(f"tag {entry.tag} does not contain {entry.task_file}")
        elif sha256_bytes(shown.stdout) != entry.task_sha256:
            messages.append(f"{entry.task_file} as committed under tag {entry.tag} differs from the lock")
        tag_message = _git(root, "tag", "-l", "--format=%(contents)", entry.tag, check=False).stdout.decode()
        if entry.task_sha256 not in tag_message:
            messages.append(f"tag {entry.tag} message does not carry the locked sha256")
    del base
    return messages
