"""The run files of one rescore, read one at a time, with the counts, errors and progress kept on the way.

Reading lazily keeps memory at one run file plus the rows' results; the files read while looking
for the task file (when none is given) are kept and handed on first, so nothing is read twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TextIO

from ..kaggle_runs import LoadedRun, Run, RunFileError, collect_run_files, iter_loaded
from .progress import FileProgress


class RunFileFeed:
    """Call `find_task` (optional), then iterate `runs()` once; `file_errors` and `loaded` fill as files are read."""

    def __init__(self, paths: Iterable[Path], progress_stream: TextIO, *, show_progress: bool = True) -> None:
        files, errors = collect_run_files(list(paths))
        self.file_errors = [str(error) for error in errors]
        self.progress = FileProgress(len(files), progress_stream, enabled=show_progress)
        self.loaded = 0
        self.task_names: set[str] = set()  # the task names seen while looking for a known one
        self._items = iter_loaded(files, digest=False)  # rescoring never uses a file's digest
        self._early: list[LoadedRun] = []

    def _take(self, item: LoadedRun | RunFileError) -> LoadedRun | None:
        self.progress.advance((len(item.run.subruns) or 1) if isinstance(item, LoadedRun) else 0)
        if isinstance(item, RunFileError):
            self.file_errors.append(str(item))
            return None
        self.loaded += 1
        return item

    def find_task(self, known: Mapping[str, Path]) -> Path | None:
        """Read files until a run names a task in `known` (task name -> task file); None when none does."""
        for item in self._items:
            loaded = self._take(item)
            if loaded is None:
                continue
            self._early.append(loaded)
            self.task_names.add(loaded.run.task.name)
            if loaded.run.task.name in known:
                return known[loaded.run.task.name]
        return None

    def runs(self) -> Iterator[tuple[Run, str]]:
        """Every run with the path it came from: those `find_task` read, then the rest as they load."""
        while self._early:
            early = self._early.pop(0)
            yield early.run, str(early.path)
        for item in self._items:
            loaded = self._take(item)
            if loaded is not None:
                yield loaded.run, str(loaded.path)

    def close(self) -> None:
        self.progress.close()
