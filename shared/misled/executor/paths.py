"""Which file a path names, judged with primitives captured before any test code runs.

The audit policy must judge the path the system call will use. Test code can replace
`os.path.realpath`, `os.getcwd` or `os.fsdecode`, so this module resolves paths with the C
functions it captured when it was loaded (in the sandbox, long before a test file is imported).
It refuses what it cannot judge exactly:

* a relative path with a `..` component (it may be relative to a `dir_fd` the event does not name);
* a path-like object other than pathlib's own classes with their own methods: a `__fspath__` may
  answer differently the second time it is asked, so only objects whose answer is fixed are read.

Symbolic links are followed the way the kernel follows them; a missing component ends the walk and
the rest is taken lexically (a missing directory cannot be a link).
"""

from __future__ import annotations

import pathlib
import posix
import stat
import sys

_lstat = posix.lstat
_stat = posix.stat
_readlink = posix.readlink
_getcwd = posix.getcwd
_is_link = stat.S_ISLNK
_is_dir = stat.S_ISDIR
_is_regular = stat.S_ISREG
_decode = bytes.decode
_ENCODING = sys.getfilesystemencoding()
_PATH_TYPES = (pathlib.PosixPath, pathlib.PurePosixPath)
_PATH_FSPATH = pathlib.PurePath.__fspath__
_PATH_STR = pathlib.PurePath.__str__
MAX_LINKS = 40


def inside(path: str, root: str) -> bool:
    """Whether `path` is `root` or below it (both absolute and resolved)."""
    return path == root or path.startswith(root + "/") or root == "/"


def path_text(raw: object) -> str | None:
    """The text of a path argument, or None when it cannot be read without asking the object twice."""
    kind = type(raw)
    if kind is str:
        return raw  # type: ignore[return-value]
    if kind is bytes:
        return _decode(raw, _ENCODING, "surrogateescape")  # type: ignore[arg-type]
    if kind in _PATH_TYPES and kind.__fspath__ is _PATH_FSPATH and kind.__str__ is _PATH_STR:
        text: object = _PATH_STR(raw)
        return text if isinstance(text, str) and type(text) is str else None
    return None


def resolve(text: str) -> str | None:
    """The absolute path `text` names, links followed; None for a form the policy refuses."""
    if not text or "\x00" in text:
        return None
    if text[0] != "/":
        if ".." in text.split("/"):
            return None
        text = _getcwd() + "/" + text
    pending = [part for part in text.split("/") if part and part != "."]
    resolved = ""
    links = 0
    exists = True
    while pending:
        part = pending.pop(0)
        if part == "..":
            resolved = resolved[: resolved.rfind("/")] if resolved else ""
            continue
        candidate = resolved + "/" + part
        if not exists:
            resolved = candidate
            continue
        try:
            mode = _lstat(candidate).st_mode
        except OSError:
            exists = False
            resolved = candidate
            continue
        if not _is_link(mode):
            resolved = candidate
            continue
        links += 1
        if links > MAX_LINKS:
            return None
        target = _readlink(candidate)
        pending[:0] = [piece for piece in target.split("/") if piece and piece != "."]
        if target.startswith("/"):
            resolved = ""
    return resolved or "/"


def is_directory(path: str) -> bool:
    try:
        return _is_dir(_stat(path).st_mode)
    except OSError:
        return False


def is_regular_file(path: str) -> bool:
    try:
        return _is_regular(_lstat(path).st_mode)
    except OSError:
        return False
