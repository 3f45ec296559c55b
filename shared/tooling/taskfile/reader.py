"""Read a task file's identity, embedded modules and cases without executing it.

`hallubench rescore`, `verify` and `push` use this: the file is parsed with `ast` and only
literal assignments are read, so reading a task file never imports kaggle-benchmarks and
never runs its glue. The declared payload sha256 is checked against the bytes.
"""

from __future__ import annotations

import ast
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ...embedding import EmbeddedModules
from ...errors import HallubenchError
from ...hashing import sha256_text
from .layout import HEADER_CONSTANTS, MODULES_NAME, PAYLOAD_CONSTANTS, PAYLOAD_MARKER


class TaskFileError(HallubenchError):
    """The file is not a well-formed hallubench task file."""


@dataclass(frozen=True)
class TaskFile:
    """What a task file declares and embeds."""

    path: Path
    text: str
    protocol_id: str
    version: int
    payload_sha256: str
    tag: str
    entry: str
    package: str
    task_name: str
    row_task_name: str
    modules: dict[str, str]
    cases: list[dict[str, Any]]
    payload_verified: bool = field(default=False)

    @property
    def file_sha256(self) -> str:
        return sha256_text(self.text)

    def case_by_id(self) -> dict[str, dict[str, Any]]:
        return {str(case["id"]): case for case in self.cases}


def _literal_assignments(tree: ast.Module) -> tuple[dict[str, Any], dict[str, str]]:
    constants: dict[str, Any] = {}
    modules: dict[str, str] = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id in (*HEADER_CONSTANTS, *PAYLOAD_CONSTANTS):
            constants[target.id] = ast.literal_eval(node.value)
        elif (
            isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == MODULES_NAME
        ):
            key = ast.literal_eval(target.slice)
            value = ast.literal_eval(node.value)
            if not isinstance(key, str) or not isinstance(value, str):
                raise TaskFileError(f"line {node.lineno}: embedded module entry is not a string pair")
            modules[key] = value
    return constants, modules


def read_task_file(path: Path) -> TaskFile:
    """Parse `path`; raise TaskFileError with a clear message when it is not a valid task file."""
    try:
        text = path.read_bytes().decode("utf-8")  # bytes as they are: no newline translation hides a converted file
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskFileError(f"{path}: cannot read: {exc}") from exc
    return parse_task_file_text(text, path)


def _verifies(text: str) -> bool:
    """Whether `text` holds a payload that hashes to the sha256 its header declares."""
    if PAYLOAD_MARKER not in text:
        return False
    try:
        constants, _ = _literal_assignments(ast.parse(text))
    except (SyntaxError, ValueError, TaskFileError):
        return False
    return sha256_text(text.split(PAYLOAD_MARKER, 1)[1]) == constants.get("HB_PAYLOAD_SHA256")


def parse_task_file_text(text: str, path: Path) -> TaskFile:
    """Parse task-file text (`path` only names it in messages)."""
    if "\r\n" in text and _verifies(text.replace("\r\n", "\n")):
        raise TaskFileError(
            f"{path}: its line endings were converted to CRLF (core.autocrlf or .gitattributes): the payload no "
            "longer hashes to its header; check it out unconverted (`git config core.autocrlf false`, then "
            "`git checkout -- .`)"
        )
    if PAYLOAD_MARKER not in text:
        raise TaskFileError(f"{path}: no hallubench payload marker; not a generated task file")
    try:
        tree = ast.parse(text, filename=str(path))
        constants, modules = _literal_assignments(tree)
    except (SyntaxError, ValueError) as exc:
        raise TaskFileError(f"{path}: cannot parse: {exc}") from exc
    missing = [name for name in (*HEADER_CONSTANTS, *PAYLOAD_CONSTANTS) if name not in constants]
    if missing:
        raise TaskFileError(f"{path}: missing {', '.join(missing)}")
    payload = text.split(PAYLOAD_MARKER, 1)[1]
    actual = sha256_text(payload)
    if (
        actual != constants["HB_PAYLOAD_SHA256"]
        and sha256_text(payload.replace("\r\n", "\n")) == constants["HB_PAYLOAD_SHA256"]
    ):
        raise TaskFileError(
            f"{path}: its line endings were converted to CRLF (core.autocrlf or .gitattributes): the payload no "
            "longer hashes to its header; check it out unconverted (`git config core.autocrlf false`, then "
            "`git checkout -- .`)"
        )
    if actual != constants["HB_PAYLOAD_SHA256"]:
        raise TaskFileError(
            f"{path}: payload sha256 is {actual}, but the header declares {constants['HB_PAYLOAD_SHA256']}; "
            "the file was edited after it was built"
        )
    try:
        cases = json.loads(constants["HB_CASES_JSON"])
    except json.JSONDecodeError as exc:
        raise TaskFileError(f"{path}: embedded cases are not JSON: {exc}") from exc
    return TaskFile(
        path=path,
        text=text,
        protocol_id=str(constants["HB_PROTOCOL_ID"]),
        version=int(constants["HB_PROTOCOL_VERSION"]),
        payload_sha256=str(constants["HB_PAYLOAD_SHA256"]),
        tag=str(constants["HB_TAG"]),
        entry=str(constants["HB_ENTRY"]),
        package=str(constants["HB_PACKAGE"]),
        task_name=str(constants["HB_TASK_NAME"]),
        row_task_name=str(constants["HB_ROW_TASK_NAME"]),
        modules=modules,
        cases=cases,
        payload_verified=True,
    )


_isolation_counter = itertools.count()


class FrozenProtocol:
    """A task file's embedded modules loaded in isolation from the installed hallubench."""

    def __init__(self, task: TaskFile) -> None:
        self.task = task
        package = f"_hallubench_frozen_{task.payload_sha256[:12]}_{next(_isolation_counter)}"
        self._finder = EmbeddedModules(package, task.modules)
        self._finder.install()
        entry = task.entry[: -len(".py")].replace("/", ".")
        if entry.endswith(".__init__"):
            entry = entry[: -len(".__init__")]
        self.entry: ModuleType = self._finder.load(entry)
        self.rows: ModuleType = self._finder.load("rows")
        self.model_call_error: type[Exception] = self._finder.load("conversation").ModelCallError

    def load(self, name: str) -> ModuleType:
        """Another module the task file embeds, by its dotted name below the package root (`misled.classify`)."""
        module: ModuleType = self._finder.load(name)
        return module

    def close(self) -> None:
        self._finder.uninstall()

    def __enter__(self) -> FrozenProtocol:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
