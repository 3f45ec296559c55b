"""Which file a path names, judged with primitives bound before any test code runs.

The audit policy must judge the path the system call will use. Test code can replace
`os.path.realpath`, `os.getcwd` or `os.fsdecode`, and it can reach this module's globals (and the
builtins) through the frames of harness functions, so `make_path_tools` binds every primitive it
uses in a closure when it is called: the hook holds its own copies, which nothing else refers to.
It refuses what it cannot judge exactly:

* a relative path with a `..` component (it may be relative to a `dir_fd` the event does not name);
* a path-like object other than pathlib's own classes (unpatched, with the cached text pathlib
  stores when the call converted it): a `__fspath__` may answer differently the second time.

Symbolic links are followed the way the kernel follows them; a missing component ends the walk and
the rest is taken lexically (a missing directory cannot be a link).
"""

from __future__ import annotations

import pathlib
import posix
import stat
import sys
from collections.abc import Callable
from typing import NamedTuple

MAX_LINKS = 40


class PathTools(NamedTuple):
    text: Callable[[object], str | None]
    resolve: Callable[[str], str | None]
    inside: Callable[[str, str], bool]
    is_directory: Callable[[str], bool]


def make_path_tools() -> PathTools:
    """Fresh closures over primitives captured now (call it before test code exists)."""
    lstat, stat_of, readlink, getcwd = posix.lstat, posix.stat, posix.readlink, posix.getcwd
    is_link, is_dir = stat.S_ISLNK, stat.S_ISDIR
    decode, encoding = bytes.decode, sys.getfilesystemencoding()
    get_attribute = object.__getattribute__
    exact, plain_meta = type, type
    path_types = (pathlib.PosixPath, pathlib.PurePosixPath)
    own_fspath, own_str = pathlib.PurePath.__fspath__, pathlib.PurePath.__str__
    max_links = MAX_LINKS
    text_type, bytes_type, truth, os_error, attribute_error = str, bytes, bool, OSError, AttributeError

    def inside(path: str, root: str) -> bool:
        """Whether `path` is `root` or below it (both absolute and resolved)."""
        return path == root or path.startswith(root + "/") or root == "/"

    def text(raw: object) -> str | None:
        """The text of a path argument, or None when it cannot be read without asking the object."""
        kind = exact(raw)
        if kind is text_type:
            return raw  # type: ignore[return-value]
        if kind is bytes_type:
            return decode(raw, encoding, "surrogateescape")  # type: ignore[arg-type]
        if kind in path_types and exact(kind) is plain_meta:
            if kind.__fspath__ is not own_fspath or kind.__str__ is not own_str:
                return None
            try:
                cached = get_attribute(raw, "_str")
            except attribute_error:
                return None
            return cached if exact(cached) is text_type else None
        return None

    def resolve(path: str) -> str | None:
        """The absolute path `path` names, links followed; None for a form the policy refuses."""
        if not path or "\x00" in path:
            return None
        if path[0] != "/":
            if ".." in path.split("/"):
                return None
            path = getcwd() + "/" + path
        pending = [part for part in path.split("/") if part and part != "."]
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
                mode = lstat(candidate).st_mode
            except os_error:
                exists = False
                resolved = candidate
                continue
            if not is_link(mode):
                resolved = candidate
                continue
            links += 1
            if links > max_links:
                return None
            target = readlink(candidate)
            pending[:0] = [piece for piece in target.split("/") if piece and piece != "."]
            if target.startswith("/"):
                resolved = ""
        return resolved or "/"

    def is_directory(path: str) -> bool:
        try:
            return truth(is_dir(stat_of(path).st_mode))
        except os_error:
            return False

    return PathTools(text, resolve, inside, is_directory)


# For callers outside the sandbox (and tests): one shared set.
path_text, resolve, inside, is_directory = make_path_tools()
