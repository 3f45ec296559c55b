"""What the history of main proves about each frozen protocol: where it was frozen, and that nothing changed since.

Tags do not travel with every clone, so the anchor of a freeze is the commit that first added the
protocol's entry to `frozen_cases/protocols.lock`. From the history alone this module finds that
commit for every entry, checks that the files it pins hash, as committed there, to the locked
values, and walks every commit (merges against each parent) to enforce two rules:

* the lock only grows: no commit changes or removes an entry its parent had;
* no commit changes a file an entry of its parent's lock pins (task file, cases, golden hashes).

An edit of a frozen task file together with a matching rewrite of its lock entry, made in one
commit, therefore still names that commit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from ..hashing import sha256_bytes
from .git_history import BlobReader, Commit, commits, require_full_history, rewrites
from .lockfile import LOCK_PATH, Lock, LockEntry, parse_lock

_LOCK = str(LOCK_PATH)


@dataclass(frozen=True)
class Anchor:
    """A protocol's freezing commit: the first commit whose lock holds its entry."""

    entry: LockEntry
    commit: Commit


@dataclass(frozen=True)
class HistoryProblem:
    """A commit that broke a rule, or an anchor that does not hold."""

    protocol: str
    message: str


@dataclass
class History:
    """The anchors found and the problems met, for the lock as committed at HEAD."""

    head: Commit | None
    head_lock: Lock
    anchors: dict[str, Anchor] = field(default_factory=dict)
    problems: list[HistoryProblem] = field(default_factory=list)

    def problem(self, protocol: str, message: str) -> None:
        found = HistoryProblem(protocol, message)
        if found not in self.problems:
            self.problems.append(found)


def read_history(root: Path) -> History:
    """Walk the whole history of HEAD; raises HistoryUnavailable for a shallow clone or a non-checkout.

    Git is read with replace objects ignored; replace refs and grafts that exist are problems, since
    they make git show a history other than the committed one.
    """
    require_full_history(root)
    ordered = commits(root)
    with BlobReader(root) as blobs:
        locks = _LockHistory(blobs)
        history = History(head=ordered[-1] if ordered else None, head_lock=Lock())
        by_sha = {commit.sha: commit for commit in ordered}
        for commit in ordered:
            lock = locks.at(commit, history)
            parent_locks = [(by_sha[p], locks.at(by_sha[p], history)) for p in commit.parents if p in by_sha]
            _find_anchors(commit, lock, parent_locks, history, blobs)
            for parent, parent_lock in parent_locks:
                _check_growth(commit, lock, parent_lock, history)
                _check_pinned_files(commit, parent, parent_lock, history, blobs)
        if history.head is not None:
            history.head_lock = locks.at(history.head, history)
    for rewrite in rewrites(root):
        history.problem("(history)", rewrite)
    for protocol, anchor in history.anchors.items():
        message = f"{anchor.commit.subject}\n{anchor.commit.body}"
        if anchor.entry.task_sha256 not in message or anchor.entry.task_file not in message:
            history.problem(
                protocol,
                f"the freezing commit {anchor.commit.label()} does not record the locked sha256 of "
                f"{anchor.entry.task_file} in its message (`freeze` always does): the history was rewritten from "
                "the freeze on, or the entry was not made by `freeze`",
            )
    return history


class _LockHistory:
    """The lock as committed at each commit, parsed once per distinct blob."""

    def __init__(self, blobs: BlobReader) -> None:
        self._blobs = blobs
        self._parsed: dict[str | None, Lock] = {None: Lock()}

    def at(self, commit: Commit, history: History) -> Lock:
        blob_id = self._blobs.blob_id(commit.sha, _LOCK)
        if blob_id not in self._parsed:
            try:
                self._parsed[blob_id] = parse_lock(self._blobs.content(str(blob_id)))
            except (ValidationError, ValueError) as exc:
                history.problem("(lock)", f"commit {commit.label()}: {_LOCK} is not a valid lock: {_first_line(exc)}")
                self._parsed[blob_id] = Lock()
        return self._parsed[blob_id]


def _find_anchors(
    commit: Commit, lock: Lock, parent_locks: list[tuple[Commit, Lock]], history: History, blobs: BlobReader
) -> None:
    """Record `commit` as the freezing commit of every entry none of its parents had, and check its bytes there."""
    for protocol, entry in lock.protocols.items():
        if protocol in history.anchors or any(protocol in parent.protocols for _, parent in parent_locks):
            continue
        history.anchors[protocol] = Anchor(entry, commit)
        for path, expected in entry.locked_files().items():
            blob_id = blobs.blob_id(commit.sha, path)
            if blob_id is None:
                history.problem(protocol, f"the freezing commit {commit.label()} does not contain {path}")
            elif sha256_bytes(blobs.content(blob_id)) != expected:
                history.problem(
                    protocol, f"{path} as committed in the freezing commit {commit.label()} differs from its lock entry"
                )


def _check_growth(commit: Commit, lock: Lock, parent_lock: Lock, history: History) -> None:
    """The lock only grows: every entry of the parent is still there, unchanged."""
    for protocol, before in parent_lock.protocols.items():
        frozen_in = _frozen_in(history, protocol)
        after = lock.protocols.get(protocol)
        if after is None:
            history.problem(protocol, f"commit {commit.label()} removes its lock entry (frozen in {frozen_in})")
        elif after != before:
            fields = sorted(name for name in type(before).model_fields if getattr(before, name) != getattr(after, name))
            history.problem(
                protocol,
                f"commit {commit.label()} changes its lock entry ({', '.join(fields)}; frozen in {frozen_in})",
            )


def _check_pinned_files(commit: Commit, parent: Commit, parent_lock: Lock, history: History, blobs: BlobReader) -> None:
    """No commit changes a file that an entry of its parent's lock pins."""
    for protocol, entry in parent_lock.protocols.items():
        for path in entry.locked_files():
            if blobs.blob_id(commit.sha, path) != blobs.blob_id(parent.sha, path):
                change = "deletes" if blobs.blob_id(commit.sha, path) is None else "changes"
                history.problem(
                    protocol,
                    f"commit {commit.label()} {change} {path} after it was frozen in {_frozen_in(history, protocol)}",
                )


def _frozen_in(history: History, protocol: str) -> str:
    anchor = history.anchors.get(protocol)
    return anchor.commit.label() if anchor else "an unknown commit"


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
