"""Read-only access to a checkout's git history: commits, their parents, and files as committed.

`verify` proves from history alone what was frozen, so it needs every commit reachable from
HEAD and the blob of a few paths in each. One `git rev-list` and one long-lived
`git cat-file --batch` process answer all of that, however long the history, instead of one
`git show` per commit and path.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import HallubenchError

# Replace objects and grafts change what git shows as history without changing the history itself: every
# read here ignores them (and `rewrites` reports any that exist, since somebody made them on purpose).
_ENVIRONMENT = {**os.environ, "GIT_NO_REPLACE_OBJECTS": "1"}


class HistoryUnavailable(HallubenchError):
    """The checkout's history cannot be read (no git, not a repository, a shallow clone)."""


@dataclass(frozen=True)
class Commit:
    sha: str
    parents: tuple[str, ...]
    subject: str
    committer_date: str  # ISO 8601 strict, as `git log --format=%cI` prints it
    body: str = ""  # the rest of the commit message

    @property
    def short(self) -> str:
        return self.sha[:10]

    def label(self) -> str:
        """`abc1234567 ("subject")`: how a commit is named in messages."""
        return f'{self.short} ("{self.subject}")'


def git(root: Path, *args: str, check: bool = True, input_bytes: bytes | None = None) -> bytes:
    """Run git in `root`; raise HistoryUnavailable (with git's own words) when `check` and it fails."""
    try:
        result = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, input=input_bytes, check=False, env=_ENVIRONMENT
        )
    except FileNotFoundError as exc:
        raise HistoryUnavailable("git is not installed: verifying the history needs it") from exc
    if check and result.returncode != 0:
        stderr = result.stderr.decode("utf-8", "replace").strip()
        raise HistoryUnavailable(f"git {' '.join(args)} failed: {stderr}")
    return result.stdout


def require_full_history(root: Path) -> None:
    """Raise HistoryUnavailable unless `root` is a git checkout with its whole history."""
    probe = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--is-inside-work-tree", "--is-shallow-repository"],
        capture_output=True,
        check=False,
        env=_ENVIRONMENT,
    )
    if probe.returncode != 0:
        raise HistoryUnavailable(
            f"{root} is not a git checkout: the freeze is anchored in the history of main, so verifying it "
            "needs a clone of the repository (git clone), not a copy of its files"
        )
    if probe.stdout.split()[-1:] == [b"true"]:
        raise HistoryUnavailable(
            "this is a shallow clone: the commits that froze each protocol are missing. Fetch the whole "
            "history (`git fetch --unshallow`, or clone without --depth) and run verify again"
        )


def commits(root: Path, start: str = "HEAD") -> list[Commit]:
    """Every commit reachable from `start`, parents before children."""
    out = git(root, "log", "--topo-order", "--reverse", "--format=%H%x00%P%x00%cI%x00%s%x00%b%x00", start)
    fields = out.decode("utf-8", "replace").split("\x00")
    found = []
    for index in range(0, len(fields) - 5, 5):
        sha, parents, date, subject, body = fields[index : index + 5]
        found.append(Commit(sha.strip(), tuple(parents.split()), subject, date, body))
    return found


def rewrites(root: Path) -> list[str]:
    """Replace refs and grafts in this repository: each makes git show a history other than the committed one."""
    found = []
    refs = git(root, "for-each-ref", "--format=%(refname)", "refs/replace/", check=False)
    names = [line for line in refs.decode("utf-8", "replace").splitlines() if line]
    if names:
        found.append(f"{len(names)} replace ref(s) ({', '.join(names[:3])}): remove them with `git replace -d`")
    common = git(root, "rev-parse", "--git-common-dir", check=False).decode("utf-8", "replace").strip()
    grafts = (root / common / "info" / "grafts") if common else None
    if grafts is not None and grafts.is_file() and grafts.read_bytes().strip():
        found.append(f"a grafts file ({grafts}) rewires parents: remove it")
    return found


class BlobReader:
    """Blob ids of `<commit>:<path>` (`git cat-file --batch-check`) and blob contents (`--batch`), on demand.

    Ids are asked for many times (every commit x every locked path); contents only for the few
    blobs that are actually read, so a large task file is never streamed once per commit.
    """

    def __init__(self, root: Path) -> None:
        self._check = _cat_file(root, "--batch-check")
        self._batch = _cat_file(root, "--batch")
        self._ids: dict[str, str | None] = {}
        self._contents: dict[str, bytes] = {}

    def close(self) -> None:
        for process in (self._check, self._batch):
            if process.stdin:
                process.stdin.close()
            process.wait()
            if process.stdout:
                process.stdout.close()

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def _header(process: subprocess.Popen[bytes], name: str) -> tuple[str | None, bytes, int]:
        stdin, stdout = process.stdin, process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(name.encode("utf-8") + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3:  # "<name> missing" (or ambiguous): no such object
            return None, b"", 0
        return header[0].decode(), header[1], int(header[2])

    def blob_id(self, commit: str, path: str) -> str | None:
        """The blob id of `path` in `commit`, None when the commit has no such file."""
        name = f"{commit}:{path}"
        if name not in self._ids:
            blob_id, kind, _ = self._header(self._check, name)
            self._ids[name] = blob_id if kind == b"blob" else None
        return self._ids[name]

    def content(self, blob_id: str) -> bytes:
        """The bytes of a blob returned by `blob_id`."""
        if blob_id not in self._contents:
            found, _, size = self._header(self._batch, blob_id)
            stdout = self._batch.stdout
            assert stdout is not None
            data = stdout.read(size) if found is not None else b""
            if found is not None:
                stdout.read(1)  # the newline after each object
            self._contents[blob_id] = data
        return self._contents[blob_id]


def _cat_file(root: Path, mode: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        ["git", "-C", str(root), "cat-file", mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_ENVIRONMENT,
    )


def tag_names(root: Path) -> set[str]:
    out = git(root, "tag", "-l")
    return {line for line in out.decode("utf-8", "replace").splitlines() if line}


def tag_target(root: Path, tag: str) -> str | None:
    """The commit an existing tag points at (annotated tags peeled), None when there is no such tag."""
    out = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "-q", "--verify", f"refs/tags/{tag}^{{commit}}"],
        capture_output=True,
        check=False,
        env=_ENVIRONMENT,
    )
    if out.returncode != 0:
        return None
    return out.stdout.decode().strip() or None


def tag_message(root: Path, tag: str) -> str:
    return git(root, "tag", "-l", "--format=%(contents)", tag).decode("utf-8", "replace")


def tag_is_annotated(root: Path, tag: str) -> bool:
    return git(root, "cat-file", "-t", f"refs/tags/{tag}", check=False).strip() == b"tag"


def show(root: Path, revision: str, path: str) -> bytes | None:
    """`git show <revision>:<path>`, None when it does not exist."""
    result = subprocess.run(
        ["git", "-C", str(root), "show", f"{revision}:{path}"], capture_output=True, check=False, env=_ENVIRONMENT
    )
    return result.stdout if result.returncode == 0 else None


def has_identity(root: Path) -> bool:
    """Whether git knows who is committing (a fresh machine may not)."""
    return all(git(root, "config", key, check=False).strip() for key in ("user.name", "user.email"))


def create_annotated_tag(
    root: Path, tag: str, commit: str, message: str, *, date: str | None = None, env: Sequence[tuple[str, str]] = ()
) -> None:
    """`git tag -a tag commit -m message`, dated `date` when given (so a restored tag says when it was frozen)."""
    environment = dict(_ENVIRONMENT)
    environment.update(env)
    if date is not None:
        environment["GIT_COMMITTER_DATE"] = date
    result = subprocess.run(
        ["git", "-C", str(root), "tag", "-a", tag, commit, "-m", message],
        capture_output=True,
        env=environment,
        check=False,
    )
    if result.returncode != 0:
        raise HistoryUnavailable(f"git tag {tag} failed: {result.stderr.decode('utf-8', 'replace').strip()}")
