"""HumanEvalPack (Python) from a pinned source, verified per problem, cached, never committed.

The data's licence allows redistribution, but this project keeps no copy of it: cases hold
problem ids and the sha256 of the fields they use, and the loader fetches the file from the
GitHub commit named below, checks every problem it hands out against those hashes, and caches
the file. A local file (`--data PATH` or the environment variable `HALLUBENCH_HUMANEVALPACK`)
replaces the download, for tests, CI and offline work; it is verified the same way, so a
different or edited file is an error, never a silent change of benchmark.
Embedded into task files: standard library only, and no I/O until a function is called.
"""

from __future__ import annotations

import contextlib
import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import HallubenchError
from ..hashing import sha256_bytes, sha256_json

ENV_VAR = "HALLUBENCH_HUMANEVALPACK"
SOURCE_COMMIT = "526627ac7b6b6ec1a2b19a20822fbcf16be35162"
SOURCE_URL = (
    "https://raw.githubusercontent.com/bigcode-project/octopack/"
    f"{SOURCE_COMMIT}/evaluation/create/humaneval-x/data/python/data/humanevalpack.jsonl"
)
SOURCE_FILE_SHA256 = "b1376d72be4bd016a62ad043d9de3846edb8d63edf1222da802a31330c14c3a7"
N_PROBLEMS = 164
# Only these fields are used (and hashed): the Hugging Face copy adds and drops other fields.
FIELDS = (
    "task_id",
    "entry_point",
    "prompt",
    "declaration",
    "canonical_solution",
    "buggy_solution",
    "test",
)


class DataError(HallubenchError):
    """The data could not be obtained, or it is not the pinned data."""


@dataclass(frozen=True)
class Problem:
    """One HumanEvalPack Python problem, reduced to the fields the benchmark uses."""

    task_id: str
    entry_point: str
    prompt: str
    declaration: str
    canonical_solution: str
    buggy_solution: str
    test: str

    @property
    def number(self) -> int:
        return int(self.task_id.split("/")[1])

    def fields(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in FIELDS}

    @property
    def sha256(self) -> str:
        return problem_sha256(self.fields())


def problem_sha256(fields: dict[str, Any]) -> str:
    """Hash of the used fields only, so any copy of the data with the same content verifies."""
    return sha256_json({name: fields[name] for name in FIELDS})


def parse_jsonl(data: bytes, origin: str) -> dict[str, Problem]:
    """Problems by task id; a malformed file is a DataError naming the line."""
    problems: dict[str, Problem] = {}
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{origin}:{number}: not JSON: {exc}") from exc
        missing = [name for name in FIELDS if not isinstance(row.get(name), str)]
        if missing:
            raise DataError(f"{origin}:{number}: missing or non-text fields {missing}")
        problem = Problem(**{name: row[name] for name in FIELDS})
        if problem.task_id in problems:
            raise DataError(f"{origin}:{number}: duplicate task id {problem.task_id}")
        problems[problem.task_id] = problem
    if not problems:
        raise DataError(f"{origin}: no problems in the file")
    return problems


def default_cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hallubench" / f"humanevalpack-python-{SOURCE_COMMIT[:12]}.jsonl"


def fetch_pinned(cache: Path, *, url: str = SOURCE_URL, timeout_s: float = 60.0) -> bytes:
    """The pinned file, from the cache or from `url` (GitHub); its whole-file sha256 must match."""
    if cache.is_file():
        data = cache.read_bytes()
        if sha256_bytes(data) == SOURCE_FILE_SHA256:
            return data
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            data = bytes(response.read())
    except (urllib.error.URLError, OSError) as exc:
        raise DataError(
            f"could not download HumanEvalPack from {url}: {exc}. Offline? Point "
            f"--data or ${ENV_VAR} at a local copy of humanevalpack.jsonl (it is verified)."
        ) from exc
    digest = sha256_bytes(data)
    if digest != SOURCE_FILE_SHA256:
        raise DataError(f"downloaded file has sha256 {digest}, expected {SOURCE_FILE_SHA256}")
    _store_in_cache(cache, data)
    return data


def _store_in_cache(cache: Path, data: bytes) -> None:
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_suffix(".partial")
    partial.write_bytes(data)
    partial.replace(cache)


def load_problems(path: str | os.PathLike[str] | None = None) -> dict[str, Problem]:
    """All problems: from `path`, else ${HALLUBENCH_HUMANEVALPACK}, else the pinned download."""
    chosen = path if path is not None else os.environ.get(ENV_VAR) or None
    if chosen is None:
        return parse_jsonl(fetch_pinned(default_cache_path()), SOURCE_URL)
    local = Path(chosen)
    try:
        data = local.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot read HumanEvalPack file {local}: {exc}") from exc
    problems = parse_jsonl(data, str(local))
    cache = default_cache_path()
    if sha256_bytes(data) == SOURCE_FILE_SHA256 and not cache.is_file():
        with contextlib.suppress(OSError):  # the pinned bytes, verified: later offline runs need no path
            _store_in_cache(cache, data)
    return problems


def verified_problem(problems: dict[str, Problem], task_id: str, expected_sha256: str) -> Problem:
    """The problem `task_id`, after checking its used fields hash to `expected_sha256`."""
    problem = problems.get(task_id)
    if problem is None:
        raise DataError(f"problem {task_id} is not in the data")
    actual = problem.sha256
    if actual != expected_sha256:
        raise DataError(
            f"hash mismatch for {task_id}: the data gives {actual}, the case expects {expected_sha256}; "
            "this is not the pinned HumanEvalPack"
        )
    return problem


_LOADED: dict[str, dict[str, Problem]] = {}


def cached_problems(path: str | None = None) -> dict[str, Problem]:
    """`load_problems`, remembered per source for the life of the process (play calls it per case)."""
    key = path if path is not None else os.environ.get(ENV_VAR) or "<pinned>"
    if key not in _LOADED:
        _LOADED[key] = load_problems(path)
    return _LOADED[key]
