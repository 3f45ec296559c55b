"""`hallubench freeze` and `hallubench verify`: lock a protocol version's bytes, then guard them.

Freezing records the task file's sha256 (and those of its payload, cases and golden prompt
hashes) in `frozen_cases/protocols.lock`, commits them, and creates the annotated tag
`<benchmark>/v<N>` whose message carries the hashes. The commit is the anchor; the tag is a
name for it that may not reach every clone. Verifying re-hashes every locked file on disk,
proves from the history of HEAD which commit froze each protocol and that no later commit
changed its files or its lock entry (`freeze_history`), and checks a tag where one exists.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import HallubenchError
from ..hashing import sha256_bytes
from . import git_history
from .build import build_protocol, load_specs, stale_files
from .freeze_history import Anchor, History, read_history
from .freeze_tags import RestoredTag, TagCheck, check_tag, restore_tags, tag_message
from .git_history import HistoryUnavailable
from .lockfile import LOCK_PATH, Lock, LockEntry, read_lock, write_lock
from .specs import ProtocolSpec
from .taskfile.reader import TaskFileError, read_task_file


class FreezeError(HallubenchError):
    """Freezing was refused; the message says why and what to do."""


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=check)


def _tag_exists(root: Path, tag: str) -> bool:
    return git_history.tag_target(root, tag) is not None


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
        result = _git(root, "tag", "-a", spec.tag, "-m", tag_message(entry), check=False)
        if result.returncode != 0:
            raise FreezeError(f"git tag failed: {result.stderr.decode(errors='replace').strip()}")
    return entry


@dataclass(frozen=True)
class VerifyProblem:
    protocol: str
    message: str


@dataclass
class ProtocolCheck:
    """One locked protocol: its freezing commit (None when history does not anchor it) and its tag."""

    entry: LockEntry
    anchor: Anchor | None
    tag: TagCheck | None


@dataclass
class VerifyReport:
    """Everything `verify` found; `history_error` says why the history could not be read at all."""

    checks: list[ProtocolCheck] = field(default_factory=list)
    problems: list[VerifyProblem] = field(default_factory=list)
    history_error: str | None = None

    @property
    def verified(self) -> list[ProtocolCheck]:
        failing = {problem.protocol for problem in self.problems}
        return [check for check in self.checks if check.entry.protocol not in failing and check.anchor is not None]

    @property
    def missing_tags(self) -> list[ProtocolCheck]:
        return [check for check in self.checks if check.tag is not None and not check.tag.present]


def verify(root: Path) -> VerifyReport:
    """Check every locked protocol against its lock entry, the history of HEAD, and its tag when present."""
    report = VerifyReport()
    try:
        lock = read_lock(root)
    except ValueError as exc:
        report.problems.append(VerifyProblem("(lock)", f"{LOCK_PATH}: {exc}"))
        return report
    registered = {spec.protocol_id for spec in load_specs(root)}
    for protocol in sorted(set(lock.protocols) - registered):
        report.problems.append(
            VerifyProblem(protocol, f"{LOCK_PATH} locks {protocol!r}, which no benchmark of this checkout declares")
        )
    for protocol, entry in sorted(lock.protocols.items()):
        report.problems.extend(VerifyProblem(protocol, message) for message in _verify_files(root, entry))
    try:
        history = read_history(root)
    except HistoryUnavailable as exc:
        report.history_error = str(exc)
        report.checks = [ProtocolCheck(entry, None, None) for _, entry in sorted(lock.protocols.items())]
        return report
    report.problems.extend(VerifyProblem(p.protocol, p.message) for p in history.problems)
    report.problems.extend(_working_lock_against_head(lock, history))
    for protocol, entry in sorted(lock.protocols.items()):
        anchor = history.anchors.get(protocol) if protocol in history.head_lock.protocols else None
        tag = check_tag(root, entry, anchor.commit.sha) if anchor is not None else None
        if tag is not None:
            report.problems.extend(VerifyProblem(protocol, message) for message in tag.problems)
        report.checks.append(ProtocolCheck(entry, anchor, tag))
    return report


def restore_missing_tags(root: Path) -> tuple[list[RestoredTag], list[VerifyProblem]]:
    """Re-create the missing tags of every protocol whose history verifies; refuse the others."""
    history = read_history(root)
    refused = {problem.protocol for problem in history.problems}
    if refused & {"(lock)", "(history)"}:  # a lock or a history that does not hold anchors nothing
        refused |= set(history.anchors)
    anchors = {p: a for p, a in history.anchors.items() if p not in refused and p in history.head_lock.protocols}
    problems = [VerifyProblem(p.protocol, p.message) for p in history.problems]
    return restore_tags(root, anchors), problems


def _working_lock_against_head(lock: Lock, history: History) -> list[VerifyProblem]:
    """The lock on disk may add entries only by committing them; it may never drop or alter a committed one."""
    problems = []
    committed = history.head_lock.protocols
    for protocol, entry in sorted(lock.protocols.items()):
        if protocol not in committed:
            problems.append(
                VerifyProblem(
                    protocol,
                    f"locked in the working tree but not committed: history does not anchor it until {LOCK_PATH} "
                    "is committed",
                )
            )
        elif committed[protocol] != entry:
            problems.append(VerifyProblem(protocol, f"the working tree's {LOCK_PATH} changes its committed entry"))
    for protocol in sorted(set(committed) - set(lock.protocols)):
        problems.append(VerifyProblem(protocol, f"the working tree's {LOCK_PATH} drops its committed entry"))
    return problems


def _verify_files(root: Path, entry: LockEntry) -> list[str]:
    """The files on disk against the lock entry."""
    messages: list[str] = []
    task_path = root / entry.task_file
    if not task_path.exists():
        return [f"{entry.task_file} is missing"]
    for path, expected in entry.locked_files().items():
        on_disk = root / path
        if not on_disk.exists():
            messages.append(f"{path} is missing")
        elif (actual := sha256_bytes(data := on_disk.read_bytes())) != expected:
            if sha256_bytes(data.replace(b"\r\n", b"\n")) == expected:
                messages.append(
                    f"{path}: differs from the lock only in its line endings (CRLF): this checkout converts them "
                    "(core.autocrlf or .gitattributes); check it out unconverted (`git config core.autocrlf false`, "
                    "then `git checkout -- .`)"
                )
            else:
                messages.append(f"{path}: sha256 {actual} differs from the lock's {expected}")
    try:
        task = read_task_file(task_path)
        if task.payload_sha256 != entry.payload_sha256:
            messages.append(f"{entry.task_file}: payload sha256 {task.payload_sha256} differs from the lock")
    except TaskFileError as exc:
        messages.append(str(exc))
    return messages
