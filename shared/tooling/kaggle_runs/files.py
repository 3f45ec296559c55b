"""Finding and loading run files, one bad file never costing the others.

Accepts loose `*.run.json` files and directories. A directory is searched recursively, which
covers the layout `kaggle benchmarks tasks download` writes:
`<out>/<task slug>/<server version or "unset">/<normalized model slug>/<run id>/...`
(kaggle 2.2.5 `benchmarks_tasks_download_cli`). When a file sits under such a path, the
server version, model directory and run id are recorded beside the run; run files do not
contain them.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeAlias

from ...errors import HallubenchError
from ...hashing import sha256_bytes
from .model import Run, TaskVersion
from .parse import RunFormatError, parse_run, parse_task_version
from .unencodable import UnencodableText, find_unencodable, made_printable

StrPath: TypeAlias = str | os.PathLike[str]

RUN_SUFFIX = ".run.json"
_LAST_TOKENS = ("true", "false", "null")
_NUMBER_PREFIX = re.compile(r"-?[0-9]*\.?[0-9]*(?:[eE][-+]?[0-9]*)?")
COMPANION_SUFFIXES = (".atif.json", ".result.json")  # written beside the run file with WRITE_ATIF=True


class RunFileError(HallubenchError):
    """A file that could not be read as a run (or task) file: where, and why."""

    def __init__(self, path: Path, message: str, location: str = "") -> None:
        self.path = path
        self.message = message
        self.location = location
        where = f" at {location}" if location else ""
        super().__init__(f"{path}{where}: {message}")


@dataclass(frozen=True)
class DownloadLayout:
    """Where a run file sits in the `kaggle benchmarks tasks download` tree."""

    task_slug: str
    server_version: int | None  # None when the CLI wrote "unset"
    model_dir: str  # the normalized model slug, e.g. "claude-sonnet-4-6-default"
    run_id: str
    run_dir: Path


@dataclass(frozen=True)
class LoadedRun:
    path: Path
    run: Run
    sha256: str | None  # of the file's bytes: identical copies (same run under two names) share it; None unasked
    layout: DownloadLayout | None = None
    companions: list[Path] = field(default_factory=list)  # existing .atif.json / .result.json beside it


def load_run(path: StrPath, *, digest: bool = True) -> LoadedRun:
    """Load one run file. Raises `RunFileError`.

    `digest`: record the sha256 of the file's bytes (`LoadedRun.sha256`); rescoring does not use it.
    """
    with _collector_paused():
        return _load_run(Path(path), digest)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a file is decoded and read into the model.

    Decoding a run file allocates hundreds of thousands of dicts, lists and model objects, none of
    them in a reference cycle; each collection the allocations set off walks all of them again,
    a third of the cost of reading. Left as it was when the collector was already off.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _load_run(file: Path, digest: bool) -> LoadedRun:
    data, raw = _read_json(file)
    unencodable = find_unencodable(data, raw)
    own = [found for found in unencodable if found.subrun is None]
    if own:
        more = f" (and {len(unencodable) - 1} more place(s))" if len(unencodable) > 1 else ""
        raise RunFileError(file, f"{own[0].message}: not encodable text, a damaged file{more}", own[0].location)
    try:
        run = parse_run(made_printable(data) if unencodable else data, numbers_are_floats=True)
    except RunFormatError as exc:
        raise RunFileError(file, exc.message, exc.location) from exc
    except RecursionError as exc:
        raise RunFileError(file, "subruns nested too deeply to read") from exc
    if unencodable:
        run = _mark_unreadable_subruns(run, unencodable)
    return LoadedRun(
        path=file,
        run=run,
        sha256=sha256_bytes(raw) if digest else None,
        layout=download_layout(file),
        companions=_companions(file),
    )


def _mark_unreadable_subruns(run: Run, found: list[UnencodableText]) -> Run:
    """The run with each top-level subrun that held unencodable text carrying where (see `Run.unreadable_text`)."""
    by_subrun: dict[int, list[str]] = {}
    for item in found:
        if item.subrun is not None:
            by_subrun.setdefault(item.subrun, []).append(f"{item.location}: {item.message}")
    subruns = [
        replace(sub, unreadable_text=tuple(by_subrun[index])) if index in by_subrun else sub
        for index, sub in enumerate(run.subruns)
    ]
    return replace(run, subruns=subruns)


def load_task_file(path: StrPath) -> TaskVersion:
    """Load one `*.task.json` file. Raises `RunFileError`."""
    file = Path(path)
    data, _ = _read_json(file)
    try:
        return parse_task_version(data)
    except RunFormatError as exc:
        raise RunFileError(file, exc.message, exc.location) from exc


def load_runs(paths: StrPath | Iterable[StrPath]) -> tuple[list[LoadedRun], list[RunFileError]]:
    """Load every run file named or found under the given paths.

    Directories are searched for `*.run.json` (task files and ATIF companions are skipped);
    files named explicitly are loaded whatever their name. A missing path, a directory without
    run files, or a file that does not load becomes a `RunFileError` in the second list; the
    other files still load. A file reached twice is loaded once. Order: as given, directory
    contents sorted by path. Holds every run in memory: `collect_run_files` + `iter_loaded`
    read one file at a time.
    """
    files, errors = collect_run_files(paths)
    loaded: list[LoadedRun] = []
    for item in iter_loaded(files):
        if isinstance(item, RunFileError):
            errors.append(item)
        else:
            loaded.append(item)
    return loaded, errors


def collect_run_files(paths: StrPath | Iterable[StrPath]) -> tuple[list[Path], list[RunFileError]]:
    """The run files named or found under `paths`, each once, in `load_runs` order; paths that give none are errors."""
    roots = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    files: list[Path] = []
    errors: list[RunFileError] = []
    seen: set[Path] = set()
    for root in roots:
        found, problems = scan_run_files(root)
        errors.extend(problems)
        for file in found:
            key = file.resolve()
            if key not in seen:
                seen.add(key)
                files.append(file)
    return files, errors


def iter_loaded(files: Iterable[Path], *, digest: bool = True) -> Iterator[LoadedRun | RunFileError]:
    """Load the files one at a time: a run, or the error that file gave (the next file is still read)."""
    for file in files:
        try:
            yield load_run(file, digest=digest)
        except RunFileError as exc:
            yield exc


_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
)


def not_a_file(path: Path) -> str | None:
    """None for a regular file (or a link to one); else why it is not read (it is never opened)."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        if path.is_symlink():
            return "a link to nothing (dangling, or a loop of links): not read"
        return f"cannot be examined ({exc.strerror or exc})"
    if stat.S_ISREG(mode):
        return None
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return f"{kind}, not a regular file: not read"


def find_run_files(path: StrPath) -> list[Path]:
    """`path` itself if it is a file, else every `*.run.json` below it, sorted. Raises `RunFileError`.

    Use `scan_run_files` to also learn which entries named like run files are not regular files.
    """
    files, errors = scan_run_files(path)
    if errors and not files:
        raise errors[0]
    return files


def scan_run_files(path: StrPath) -> tuple[list[Path], list[RunFileError]]:
    """The run files at or below `path`, and an error for each entry that is not one (a FIFO, a dangling link...)."""
    root = Path(path)
    if not root.exists() and not root.is_symlink():
        return [], [RunFileError(root, "no such file or directory")]
    if not root.is_dir():
        why = not_a_file(root)
        return ([], [RunFileError(root, why)]) if why is not None else ([root], [])
    files: list[Path] = []
    errors: list[RunFileError] = []
    for entry in sorted(root.rglob(f"*{RUN_SUFFIX}")):
        why = not_a_file(entry)
        if why is None:
            files.append(entry)
        elif not (entry.is_dir() and not entry.is_symlink()):
            errors.append(RunFileError(entry, why))
    if not files and not errors:
        errors.append(RunFileError(root, f"no {RUN_SUFFIX} files in this directory"))
    return files, errors


def download_layout(path: StrPath) -> DownloadLayout | None:
    """The download-tree coordinates of a run file, or None when its path does not fit the layout.

    Looks upward from the file for `<task>/<version>/<model>/<run id>/` where the version is
    digits or "unset" and the run id is digits; the nearest match wins, so files the run wrote
    into sub-folders of its output are placed too.
    """
    file = Path(path)
    parts = file.parts[:-1]
    for run_index in range(len(parts) - 1, 2, -1):
        run_id, model_dir, version = parts[run_index], parts[run_index - 1], parts[run_index - 2]
        task_slug = parts[run_index - 3]
        if task_slug == file.anchor:
            continue
        if run_id.isdigit() and (version.isdigit() or version == "unset"):
            return DownloadLayout(
                task_slug=task_slug,
                server_version=int(version) if version.isdigit() else None,
                model_dir=model_dir,
                run_id=run_id,
                run_dir=Path(*parts[: run_index + 1]),
            )
    return None


def _read_json(file: Path) -> tuple[object, bytes]:
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise RunFileError(file, f"cannot read: {exc.strerror or exc}") from exc
    if not raw.strip():
        raise RunFileError(file, "file is empty")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RunFileError(file, f"not UTF-8 text (byte offset {exc.start}); kbench writes ASCII JSON") from exc
    try:
        # Every number as a float, as the protobuf behind the file holds them (`parse_run` relies on it).
        return json.loads(text, parse_int=float), raw
    except json.JSONDecodeError as exc:
        hint = " (the file ends early: truncated?)" if _ran_out_of_input(text, exc) else ""
        raise RunFileError(file, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}{hint}") from exc
    except RecursionError as exc:
        raise RunFileError(file, "JSON nested too deeply to read") from exc


def _ran_out_of_input(text: str, error: json.JSONDecodeError) -> bool:
    """Whether the JSON error comes from the text stopping early rather than from bad syntax."""
    if error.msg.startswith("Unterminated string"):
        return True  # JSON strings cannot span a raw newline, so this one ran to the end
    rest = text[error.pos :].rstrip()
    # Nothing left, or only the start of a literal or number that was cut off.
    return any(word.startswith(rest) for word in _LAST_TOKENS) or bool(_NUMBER_PREFIX.fullmatch(rest))


def _companions(file: Path) -> list[Path]:
    if not file.name.endswith(RUN_SUFFIX):
        return []
    stem = file.name.removesuffix(RUN_SUFFIX)
    return [companion for suffix in COMPANION_SUFFIXES if (companion := file.with_name(stem + suffix)).is_file()]
