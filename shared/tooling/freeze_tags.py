"""The annotated tags `<benchmark>/v<N>`: a convenience that names each freezing commit, restorable from history.

A tag is not the anchor (history is, see `freeze_history`): tags made by `freeze` stay in the
clone that made them unless somebody pushes them. So a missing tag is reported, not an error,
and `restore_tags` re-creates it at the protocol's freezing commit with the hashes in its
message, dated as that commit. An existing tag is only ever checked, never moved.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..hashing import sha256_bytes
from . import git_history
from .freeze_history import Anchor
from .lockfile import LockEntry

FALLBACK_IDENTITY = (
    ("GIT_COMMITTER_NAME", "hallubench freeze"),
    ("GIT_COMMITTER_EMAIL", "hallubench@localhost"),
)


def tag_message(entry: LockEntry) -> str:
    """The tag's message: every locked hash, so the tag alone says what it pins."""
    return (
        f"{entry.protocol} frozen\n\n"
        f"task_file {entry.task_file}\ntask_sha256 {entry.task_sha256}\n"
        f"payload_sha256 {entry.payload_sha256}\ncases_sha256 {entry.cases_sha256}\n"
        f"golden_sha256 {entry.golden_sha256}\n"
    )


@dataclass(frozen=True)
class TagCheck:
    tag: str
    present: bool
    problems: tuple[str, ...] = ()


def check_tag(root: Path, entry: LockEntry, freezing_commit: str) -> TagCheck:
    """A present tag must point at the freezing commit, hold the locked task file and carry its sha256."""
    target = git_history.tag_target(root, entry.tag)
    if target is None:
        return TagCheck(entry.tag, present=False)
    problems = []
    if target != freezing_commit:
        problems.append(
            f"tag {entry.tag} points at {target[:10]}, not at the freezing commit {freezing_commit[:10]} "
            "(a tag is only a name for that commit: delete it and run `hallubench freeze --restore-tags`)"
        )
    shown = git_history.show(root, f"refs/tags/{entry.tag}", entry.task_file)
    if shown is None:
        problems.append(f"tag {entry.tag} does not contain {entry.task_file}")
    elif sha256_bytes(shown) != entry.task_sha256:
        problems.append(f"{entry.task_file} as committed under tag {entry.tag} differs from the lock")
    if entry.task_sha256 not in git_history.tag_message(root, entry.tag):
        problems.append(f"tag {entry.tag} message does not carry the locked sha256")
    return TagCheck(entry.tag, present=True, problems=tuple(problems))


@dataclass(frozen=True)
class RestoredTag:
    protocol: str
    tag: str
    commit: str
    created: bool  # False: the tag existed already and was left where it is


def restore_tags(root: Path, anchors: dict[str, Anchor]) -> list[RestoredTag]:
    """Create every missing tag at its freezing commit; existing tags are left untouched."""
    identity = () if git_history.has_identity(root) else FALLBACK_IDENTITY
    restored = []
    for protocol, anchor in sorted(anchors.items()):
        tag = anchor.entry.tag
        existing = git_history.tag_target(root, tag)
        if existing is not None:
            restored.append(RestoredTag(protocol, tag, existing, created=False))
            continue
        git_history.create_annotated_tag(
            root, tag, anchor.commit.sha, tag_message(anchor.entry), date=anchor.commit.committer_date, env=identity
        )
        restored.append(RestoredTag(protocol, tag, anchor.commit.sha, created=True))
    return restored
