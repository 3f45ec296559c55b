"""The audit policy of a test process: one permanent hook, no off switch, a tripwire that records.

misled-tests v3: this hook is not the boundary. The kernel is (fresh namespaces per program version,
Landlock, a seccomp filter, limits: `version.py`), and the harness never runs in a process that ran
test code. The hook keeps the semantics a test sees the same on every machine (a write outside the
working directory fails whether or not the kernel there offers Landlock) and records what it refused,
so a row shows what a test tried. It is installed in each item process (and the collector) before
the test file is imported, and decides on every audited route:

* files: writes only inside the working directory, reads only there and in the interpreter's own
  library folders (plus /dev/null and friends); no directory descriptor outside the working
  directory, so no `dir_fd` can point elsewhere; no links, no bytecode or native module from the
  working directory; `sqlite3` refused (it opens files the audit cannot see);
* processes: no fork, exec, spawn, `subprocess`, `os.system` or pty; signals only to the process
  itself; no limit changes;
* native and interpreter escapes: no ctypes, subinterpreters, tracing or profiling, new code
  objects, `gc` object search, further audit hooks, or replacing the harness's own functions' code
  and defaults.

Routes that raise no audit event at all are closed by `lockdown.py`.
"""

from __future__ import annotations

import importlib._bootstrap_external as _bootstrap_external
import os
import posix
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType, FunctionType
from typing import Any

from ...errors import HallubenchError
from .paths import make_path_tools

_getframe = sys._getframe
_getpid = posix.getpid
_COMPILE_BYTECODE = _bootstrap_external._compile_bytecode.__code__  # type: ignore[attr-defined]
_GET_CODE = (
    _bootstrap_external.SourceLoader.get_code.__code__,
    _bootstrap_external.SourcelessFileLoader.get_code.__code__,
)
_SOURCE_TO_CODE = _bootstrap_external.SourceLoader.source_to_code.__code__
_WITH_FRAMES_REMOVED = _bootstrap_external._bootstrap._call_with_frames_removed.__code__  # type: ignore[attr-defined]
_LOADER_TYPES = (_bootstrap_external.SourceFileLoader, _bootstrap_external.SourcelessFileLoader)
_GET_DATA = _bootstrap_external.FileLoader.get_data
_GET_FILENAME = _bootstrap_external.FileLoader.get_filename
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
HARNESS_FILENAME_PREFIX = "<_hb_sandbox/"

DENIED_PREFIXES = (
    "socket.",
    "ctypes.",
    "sqlite3.",
    "subprocess.",
    "os.exec",
    "os.spawn",
    "os.posix_spawn",
    "pty.",
    "syslog.",
    "webbrowser.",
    "resource.",
    "ftplib.",
    "smtplib.",
    "imaplib.",
    "nntplib.",
    "poplib.",
    "telnetlib.",
    "http.client.",
    "urllib.",
    "ensurepip.",
    "msvcrt.",
    "winreg.",
    "sys.monitoring.",
    "_thread.",
    "cpython._thread.",
)
DENIED_EVENTS = frozenset(
    {
        "os.system",
        "os.forkpty",
        "os.killpg",
        "os.link",
        "os.symlink",
        "os.startfile",
        "os.add_dll_directory",
        "os.unshare",
        "os.setns",
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        "sys.addaudithook",
        "sys.setprofile",
        "setopencodehook",
        "cpython.PyInterpreterState_New",
        "builtins.breakpoint",
        "fcntl.ioctl",
        "marshal.load",
    }
)
ALLOWED_FAST = frozenset({"object.__getattr__", "sys._getframe", "exec", "builtins.id", "marshal.dumps", "time.sleep"})
# Modules test code may not import: native memory access, processes or files the audit cannot see.
DENIED_MODULES = frozenset(
    {
        "ctypes",
        "_ctypes",
        "_ctypes_test",
        "_sqlite3",
        "sqlite3",
        "_dbm",
        "_gdbm",
        "dbm",
        "readline",
        "_curses",
        "_curses_panel",
        "_posixshmem",
        "_multiprocessing",
        "_lsprof",
        "_xxsubinterpreters",
        "_xxinterpchannels",
        "_xxinterpqueues",
        "_interpreters",
        "_interpchannels",
        "_interpqueues",
        "_testcapi",
        "_testinternalcapi",
        "_testbuffer",
        "_testmultiphase",
        "_testimportmultiple",
        "_testclinic",
        "_testsinglephase",
        "xxlimited",
        "xxlimited_35",
        "_tkinter",
    }
)
_PROTECTED_ATTRIBUTES = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__dict__", "__class__"})


class SandboxViolation(HallubenchError, PermissionError):
    """Raised by the audit hook when test code does something the sandbox forbids."""


@dataclass(frozen=True)
class Rules:
    """Where test code may read and write (absolute, resolved paths)."""

    work: str
    read_roots: tuple[str, ...]
    readable_files: tuple[str, ...]
    listable: tuple[str, ...] = ()  # folders whose entries may be listed, not read (site-packages)
    fork_code: Any = None  # the code object of the one function that forks a test process (the collector's loop)


TRIPPED_LIMIT = 20


def make_hook(rules: Rules) -> tuple[Callable[[str, tuple[Any, ...]], None], Callable[[], list[str]]]:
    """The audit hook for one test process, and a function returning what it refused so far (a copy).

    Every name the hook uses is bound here, as a cell of its closure: test code can reach this
    module's globals and the builtins through the frames of harness functions, never these cells.
    """
    text_of, resolve, inside, is_directory = make_path_tools()
    getframe, getpid, exact, length = _getframe, _getpid, type, len
    text_type, bytes_type, int_type, dict_type, as_repr, truth = str, bytes, int, dict, repr, bool
    get_attribute, plain_meta, function_type, violation_type = (
        object.__getattribute__,
        type,
        FunctionType,
        SandboxViolation,
    )
    denied_prefixes, denied_events, allowed_fast = DENIED_PREFIXES, DENIED_EVENTS, ALLOWED_FAST
    denied_modules, protected, harness_prefix = DENIED_MODULES, _PROTECTED_ATTRIBUTES, HARNESS_FILENAME_PREFIX
    compile_bytecode, get_code, source_to_code, frames_removed = (
        _COMPILE_BYTECODE,
        _GET_CODE,
        _SOURCE_TO_CODE,
        _WITH_FRAMES_REMOVED,
    )
    loader_types, own_get_data, own_get_filename = _LOADER_TYPES, _GET_DATA, _GET_FILENAME
    write_flags = _WRITE_FLAGS
    work, read_roots, readable_files, listable_only = rules.work, rules.read_roots, rules.readable_files, rules.listable
    fork_code = rules.fork_code
    tripped: list[str] = []
    record, limit, as_list = tripped.append, TRIPPED_LIMIT, list

    def violation(event: str, detail: object = "") -> SandboxViolation:
        # Only text is shown, never the repr of an object test code made (it would run test code here).
        shown = detail[:200] if exact(detail) is text_type else ""  # type: ignore[index]
        text = f"{event} {shown}".strip()
        if length(tripped) < limit:
            record(text[:200])
        return violation_type(f"sandbox: {text} is not allowed in tests")

    def shown(raw: object) -> str:
        text = text_of(raw)
        return as_repr(text) if text is not None else "(a path object)"

    def in_read_roots(target: str) -> bool:
        for root in read_roots:  # noqa: SIM110 (no `any`: builtins are test code's to replace)
            if inside(target, root):
                return True
        return False

    def target_of(event: str, raw: object) -> str:
        text = text_of(raw)
        resolved = resolve(text) if text is not None else None
        if resolved is None:
            raise violation(event, shown(raw))
        return resolved

    def readable(target: str) -> bool:
        if inside(target, work):
            return not target.endswith(".pyc")
        return target in readable_files or in_read_roots(target)

    def writable(event: str, raw: object, dir_fd: object = None, fd_allowed: bool = False) -> None:
        if exact(raw) is int_type:
            if fd_allowed:
                return
            raise violation(event, "a descriptor")
        if dir_fd is not None and dir_fd != -1 and dir_fd != -100:  # -1: none given; -100: AT_FDCWD
            text = text_of(raw)
            if text is None or not text or "/" in text or text == "." or text == "..":
                raise violation(event, shown(raw))
            return  # a plain name in a directory descriptor, which can only be inside the working directory
        target = target_of(event, raw)
        if not inside(target, work) or target.endswith(".pyc"):
            raise violation(event, shown(raw))

    def listable(event: str, raw: object) -> None:
        if raw is None or exact(raw) is int_type:
            return
        target = target_of(event, raw)
        if not readable(target) and target not in listable_only:
            raise violation(event, shown(raw))

    def on_open(event: str, args: tuple[Any, ...]) -> None:
        raw, mode, flags = args[0], args[1], args[2]
        if exact(raw) is int_type:
            return  # an open descriptor, obtained through this policy
        target = target_of(event, raw)
        wants_write = (exact(mode) is text_type and ("w" in mode or "a" in mode or "x" in mode or "+" in mode)) or (
            exact(flags) is int_type and truth(flags & write_flags)
        )
        if wants_write:
            if (inside(target, work) and not target.endswith(".pyc")) or target == "/dev/null":
                return
            raise violation(event, shown(raw))
        if not readable(target):
            if target.endswith(".pyc"):  # the import system looking for cached bytecode: expected, not recorded
                raise violation_type(f"sandbox: {event} of cached bytecode is not allowed")
            raise violation(event, shown(raw))
        if not inside(target, work) and is_directory(target):
            raise violation(event, f"{shown(raw)} (a directory descriptor outside the working directory)")

    def on_fork(event: str, args: tuple[Any, ...]) -> None:
        # The collector's own loop forks each item; test code that tricks it into forking gains a process in
        # its own version's instance, which the kernel contains like any other (this hook is not the boundary).
        if fork_code is not None and getframe(2).f_code is fork_code:
            return
        raise violation(event)

    def on_kill(event: str, args: tuple[Any, ...]) -> None:
        pid = args[0]
        if exact(pid) is int_type and pid == getpid():
            return
        raise violation(event, f"(to process {pid})" if exact(pid) is int_type else "")

    def on_import(event: str, args: tuple[Any, ...]) -> None:
        name = args[0]
        if exact(name) is not text_type or name.split(".")[0] in denied_modules:
            raise violation(event, name if exact(name) is text_type else "")
        filename = args[1] if length(args) > 1 else None
        if filename is not None:  # a native module: only from the interpreter's own library folders
            target = target_of(event, filename)
            if inside(target, work) or not in_read_roots(target):
                raise violation(event, f"{name} from {shown(filename)}")

    def genuine_loader(frame: FrameType | None) -> bool:
        """`frame` is the import system's get_code, reading a library file through its own, unpatched methods."""
        if frame is None or frame.f_code not in get_code:
            return False
        loader: Any = frame.f_locals.get("self")
        kind = exact(loader)
        if kind not in loader_types or exact(kind) is not plain_meta:
            return False
        if kind.get_data is not own_get_data or kind.get_filename is not own_get_filename:
            return False
        own = get_attribute(loader, "__dict__")
        if exact(own) is not dict_type or "get_data" in own or "get_filename" in own:
            return False
        path = own.get("path")
        target = resolve(path) if exact(path) is text_type else None
        return target is not None and not inside(target, work) and readable(target)

    def on_marshal_loads(event: str, args: tuple[Any, ...]) -> None:
        caller = getframe(2)
        if caller.f_code is compile_bytecode and genuine_loader(caller.f_back):
            return
        raise violation(event, "bytes that the import system did not read from the library")

    def library_file(name: object) -> bool:
        return exact(name) is text_type and in_read_roots(name)  # type: ignore[arg-type]

    def on_compile(event: str, args: tuple[Any, ...]) -> None:
        """Code that claims a library file as its origin comes only from that file, read by the import system."""
        filename = args[1] if length(args) > 1 else None
        if exact(filename) is bytes_type:
            filename = text_of(filename)
        if not library_file(filename):
            return
        caller = getframe(2)
        converter = caller.f_back
        if (
            caller.f_code is frames_removed
            and converter is not None
            and converter.f_code is source_to_code
            and genuine_loader(converter.f_back)
        ):
            return
        raise violation(event, f"code claiming to come from {filename!r}")

    def on_settrace(event: str, args: tuple[Any, ...]) -> None:
        """Tracing could change the harness's frames; doctest's runner only clears it (and restores nothing)."""
        caller = getframe(2).f_code
        if caller.co_name == "run" and caller.co_filename.endswith("/doctest.py") and library_file(caller.co_filename):
            return
        raise violation(event)

    def on_code_new(event: str, args: tuple[Any, ...]) -> None:
        """New code objects (whose bytecode nothing checks) only from library code, e.g. hypothesis."""
        if library_file(getframe(2).f_code.co_filename):
            return
        raise violation(event)

    def on_setattr(event: str, args: tuple[Any, ...]) -> None:
        target, name = args[0], args[1]
        if (
            exact(target) is function_type
            and name in protected
            and target.__code__.co_filename.startswith(harness_prefix)
        ):
            raise violation(event, f"{name} of a harness function")

    def on_chdir(event: str, args: tuple[Any, ...]) -> None:
        if exact(args[0]) is int_type or not inside(target_of(event, args[0]), work):
            raise violation(event, shown(args[0]))

    def on_listing(event: str, args: tuple[Any, ...]) -> None:
        listable(event, args[0] if args else None)

    def on_read(event: str, args: tuple[Any, ...]) -> None:
        if exact(args[0]) is not int_type and not readable(target_of(event, args[0])):
            raise violation(event, shown(args[0]))

    def first_path(position: int, dir_fd: int | None = None, fd_allowed: bool = False) -> Callable[..., None]:
        def check(event: str, args: tuple[Any, ...]) -> None:
            found_dir_fd = args[dir_fd] if dir_fd is not None and length(args) > dir_fd else None
            writable(event, args[position], found_dir_fd, fd_allowed)

        return check

    def on_rename(event: str, args: tuple[Any, ...]) -> None:
        writable(event, args[0], args[2] if length(args) > 2 else None)
        writable(event, args[1], args[3] if length(args) > 3 else None)

    def both_written(event: str, args: tuple[Any, ...]) -> None:
        writable(event, args[0])
        writable(event, args[1])

    def source_read_target_written(event: str, args: tuple[Any, ...]) -> None:
        on_read(event, args)
        writable(event, args[1])

    def on_archive(event: str, args: tuple[Any, ...]) -> None:
        writable(event, args[0])
        if length(args) > 2 and args[2] is not None:
            listable(event, args[2])

    handlers: dict[str, Callable[[str, tuple[Any, ...]], None]] = {
        "open": on_open,
        "os.fork": on_fork,
        "os.kill": on_kill,
        "import": on_import,
        "marshal.loads": on_marshal_loads,
        "compile": on_compile,
        "code.__new__": on_code_new,
        "sys.settrace": on_settrace,
        "object.__setattr__": on_setattr,
        "object.__delattr__": on_setattr,
        "os.chdir": on_chdir,
        "os.listdir": on_listing,
        "os.scandir": on_listing,
        "os.walk": on_listing,
        "os.fwalk": on_listing,
        "glob.glob": on_listing,
        "glob.glob/2": on_listing,
        "pathlib.Path.glob": on_listing,
        "pathlib.Path.rglob": on_listing,
        "os.getxattr": on_read,
        "os.listxattr": on_read,
        "os.mkdir": first_path(0, dir_fd=2),
        "os.rmdir": first_path(0, dir_fd=1),
        "os.remove": first_path(0, dir_fd=1),
        "os.chmod": first_path(0, dir_fd=2),
        "os.chown": first_path(0, dir_fd=3),
        "os.utime": first_path(0, dir_fd=3),
        "os.truncate": first_path(0, fd_allowed=True),
        "os.setxattr": first_path(0),
        "os.removexattr": first_path(0),
        "os.chflags": first_path(0),
        "os.lchflags": first_path(0),
        "os.rename": on_rename,
        "shutil.rmtree": first_path(0, dir_fd=1),
        "shutil.chown": first_path(0),
        "shutil.copyfile": source_read_target_written,
        "shutil.copymode": source_read_target_written,
        "shutil.copystat": source_read_target_written,
        "shutil.copytree": source_read_target_written,
        "shutil.move": both_written,
        "shutil.make_archive": on_archive,
        "shutil.unpack_archive": source_read_target_written,
        "tempfile.mkstemp": first_path(0),
        "tempfile.mkdtemp": first_path(0),
    }
    find_handler = handlers.get

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in allowed_fast:
            return
        handler = find_handler(event)
        if handler is not None:
            handler(event, args)
        elif event in denied_events or event.startswith(denied_prefixes):
            raise violation(event)

    def tripped_so_far() -> list[str]:
        return as_list(tripped)

    return hook, tripped_so_far
