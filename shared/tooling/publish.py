"""Check a task file the way Kaggle will treat it, then push it with the real kaggle client.

A push that Kaggle accepts can still produce nothing: a file with two stored tasks, a slug
that names a different task than the one that runs, or no top-level `.run(...)` call ends
as "Not generated" hours later, on the server. `validate_task_file` finds those problems
locally, each with its line number, before any credentials or network are involved.
Frozen protocol files are also checked against `frozen_cases/protocols.lock`, so the bytes
that reach Kaggle are the bytes that were frozen.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..hashing import sha256_bytes
from .lockfile import LOCK_PATH, read_lock
from .repo import RepositoryNotFound, repo_root
from .taskfile.reader import TaskFileError, read_task_file

DATASET_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")

# The same patterns kaggle 2.2.5 blanks before its own `ast` check (`_strip_ipython_magics`).
_CELL_MAGIC = re.compile(r"^[ \t]*%%\w[^\n]*\n(?:[ \t]*\S[^\n]*\n)*", re.MULTILINE)
_LINE_MAGIC = re.compile(r"^[ \t]*(?:%(?!%)|!)\w[^\n]*$", re.MULTILINE)
_CELL_MARKER = re.compile(r"^# %%", re.MULTILINE)


@dataclass(frozen=True)
class Problem:
    """One reason the file must not be pushed; `code` is stable, `message` is for people."""

    code: str
    message: str
    line: int | None = None

    def render(self, path: str) -> str:
        where = f"{path}:{self.line}" if self.line is not None else path
        return f"{where}: [{self.code}] {self.message}"


@dataclass(frozen=True)
class TaskDecorator:
    """A `@task`/`@kbench.task` decorated function, as kaggle 2.2.5 names it."""

    function: str
    name: str
    line: int
    stored: bool


@dataclass
class Validation:
    """What `validate_task_source` found: the stored task, its slug, the notebook, problems."""

    path: str
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stored_task: TaskDecorator | None = None
    slug: str | None = None
    notebook: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def slugify_task_name(name: str) -> str:
    """The Kaggle task slug of a task name: python-slugify, exactly as kaggle 2.2.5 computes it."""
    from slugify import slugify

    return str(slugify(name))


def convert_to_notebook(source: str) -> str:
    """The ipynb text `kaggle b t push` sends (kaggle 2.2.5 `_convert_py_to_notebook`)."""
    import jupytext  # type: ignore[import-untyped]

    notebook = jupytext.reads(source, fmt="py:percent")
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    return str(jupytext.writes(notebook, fmt="ipynb"))


def convert_from_notebook(notebook_text: str, jupytext_options: dict[str, Any]) -> str:
    """The py:percent text of an ipynb, the inverse of `convert_to_notebook`.

    `jupytext_options` (the `metadata.jupytext` that `convert_to_notebook` recorded for the
    original file: which notebook and cell metadata the text keeps) replaces whatever the
    notebook carries, so metadata that Kaggle or Jupyter added on the way is left out, as is
    everything else that is not in the text format (outputs, execution counts, cell ids)."""
    import jupytext

    notebook = jupytext.reads(notebook_text, fmt="ipynb")
    notebook.metadata["jupytext"] = dict(jupytext_options)
    return str(jupytext.writes(notebook, fmt="py:percent"))


def _blank(match: re.Match[str]) -> str:
    return "\n" * match.group().count("\n")


def strip_ipython_magics(source: str) -> str:
    """Blank magic lines (keeping line numbers) as kaggle 2.2.5 does before parsing."""
    return _LINE_MAGIC.sub(_blank, _CELL_MAGIC.sub(_blank, source))


def _magic_problems(source: str, stripped: str) -> list[Problem]:
    problems = []
    for number, (original, kept) in enumerate(zip(source.splitlines(), stripped.splitlines(), strict=False), start=1):
        text = original.strip()
        if text and not kept.strip() and text[0] in "%!":
            problems.append(
                Problem(
                    "ipython-magic",
                    f"IPython magic `{text}` stops the file running under plain python; write it "
                    f"commented out, `# {text}` (jupytext turns that back into a magic in the notebook)",
                    number,
                )
            )
    return problems


def _parse(source: str, path: str, validation: Validation) -> ast.Module | None:
    """Parse the file. Uncommented magics are reported, then parsed around as kaggle does, so
    the other checks still run."""
    try:
        return ast.parse(source, filename=path)
    except SyntaxError as error:
        first_error = error
    stripped = strip_ipython_magics(source)
    magics = _magic_problems(source, stripped)
    validation.problems.extend(magics)
    if not magics:
        validation.problems.append(
            Problem("syntax-error", f"the file does not parse: {first_error.msg}", first_error.lineno)
        )
        return None
    try:
        return ast.parse(stripped, filename=path)
    except SyntaxError as error:
        validation.problems.append(Problem("syntax-error", f"the file does not parse: {error.msg}", error.lineno))
        return None


def _is_task_decorator(node: ast.expr) -> bool:
    func = node.func if isinstance(node, ast.Call) else node
    return (isinstance(func, ast.Name) and func.id == "task") or (
        isinstance(func, ast.Attribute) and func.attr == "task"
    )


def _decorator_name(
    decorator: ast.expr, function: ast.FunctionDef | ast.AsyncFunctionDef
) -> tuple[str, Problem | None]:
    """The task name as kaggle 2.2.5 reads it; a non-literal name is a problem, since kaggle
    then silently falls back to the function name while kbench uses the computed one."""
    default = function.name.title().replace("_", " ")
    if not isinstance(decorator, ast.Call):
        return default, None
    given: ast.expr | None = next((k.value for k in decorator.keywords if k.arg == "name"), None)
    if given is None and decorator.args:
        given = decorator.args[0]
    if given is None:
        return default, None
    if isinstance(given, ast.Constant) and isinstance(given.value, str) and given.value:
        return given.value, None
    return default, Problem(
        "task-name-not-literal",
        f"the name of task `{function.name}` is not a string literal; kaggle would take `{default}` "
        "as its name, which may not be the name the task runs under",
        decorator.lineno,
    )


def _decorator_stores_task(decorator: ast.expr, function: str) -> tuple[bool, Problem | None]:
    if not isinstance(decorator, ast.Call):
        return True, None
    value = next((k.value for k in decorator.keywords if k.arg == "store_task"), None)
    if value is None:
        return True, None
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        return value.value, None
    return True, Problem(
        "store-task-not-literal",
        f"`store_task=` of task `{function}` is not True/False literally, so it cannot be checked",
        decorator.lineno,
    )


def find_task_decorators(tree: ast.Module) -> tuple[list[TaskDecorator], list[Problem]]:
    """Every `@task`/`@x.task` function (as kaggle 2.2.5 finds them), with problems seen."""
    found: list[TaskDecorator] = []
    problems: list[Problem] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            if not _is_task_decorator(decorator):
                continue
            name, name_problem = _decorator_name(decorator, node)
            stored, stored_problem = _decorator_stores_task(decorator, node.name)
            problems.extend(p for p in (name_problem, stored_problem) if p is not None)
            found.append(TaskDecorator(node.name, name, decorator.lineno, stored))
    found.sort(key=lambda task: task.line)
    return found, problems


def _is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    parts = [node.test.left, *node.test.comparators]
    return any(isinstance(p, ast.Name) and p.id == "__name__" for p in parts) and any(
        isinstance(p, ast.Constant) and p.value == "__main__" for p in parts
    )


def _module_level_statements(body: Sequence[ast.stmt], guarded: bool = False) -> Iterator[tuple[ast.stmt, bool]]:
    """Statements that run when the module runs (not inside defs), with whether a
    `if __name__ == "__main__":` guard encloses them."""
    for statement in body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        yield statement, guarded
        inner_guarded = guarded or _is_main_guard(statement)
        for block in ("body", "orelse", "finalbody"):
            inner = getattr(statement, block, None)
            if isinstance(inner, list):
                yield from _module_level_statements(inner, inner_guarded)
        for handler in getattr(statement, "handlers", []):
            yield from _module_level_statements(handler.body, inner_guarded)


def _run_calls(node: ast.AST, function: str) -> Iterator[ast.Call]:
    """`function.run(...)` calls in a statement's own expressions (not in nested blocks)."""
    pending: list[ast.AST] = [node]
    while pending:
        current = pending.pop()
        for child in ast.iter_child_nodes(current):
            if isinstance(child, ast.stmt | ast.FunctionDef | ast.Lambda):
                continue
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and child.func.attr == "run"
                and isinstance(child.func.value, ast.Name)
                and child.func.value.id == function
            ):
                yield child
            pending.append(child)


def _run_call_problems(tree: ast.Module, task: TaskDecorator) -> list[Problem]:
    guarded_lines = []
    for statement, guarded in _module_level_statements(tree.body):
        for call in _run_calls(statement, task.function):
            if not guarded:
                return []
            guarded_lines.append(call.lineno)
    if guarded_lines:
        return [
            Problem(
                "run-under-main-guard",
                f'`{task.function}.run(...)` is inside `if __name__ == "__main__":`; Kaggle\'s guidance is '
                "to call it at top level so every notebook run writes a run file",
                guarded_lines[0],
            )
        ]
    return [
        Problem(
            "no-top-level-run",
            f"no top-level `{task.function}.run(...)` call: the push would succeed but Kaggle would get "
            "no run file (add `" + task.function + ".run(kbench.llm)` at the end of the file)",
            None,
        )
    ]


def _stored_task(tasks: list[TaskDecorator], validation: Validation) -> TaskDecorator | None:
    stored = [task for task in tasks if task.stored]
    if len(stored) == 1:
        return stored[0]
    if not tasks:
        validation.problems.append(
            Problem("no-task", "no `@task`/`@kbench.task` decorated function: there is nothing to push")
        )
    elif not stored:
        validation.problems.append(
            Problem("no-stored-task", "every task has `store_task=False`: Kaggle would register no task")
        )
    else:
        names = ", ".join(f"`{task.name}` (line {task.line})" for task in stored)
        for task in stored[1:]:
            validation.problems.append(
                Problem(
                    "several-stored-tasks",
                    f"{len(stored)} stored tasks ({names}); Kaggle keeps one task per notebook: "
                    "add `store_task=False` to all but the one to publish",
                    task.line,
                )
            )
    return None


def validate_task_source(
    source: str, path: str, expected_slug: str | None = None, *, convert: bool = True
) -> Validation:
    """Every problem that would make Kaggle reject the file or produce no result.

    `convert=False` skips the notebook conversion (importing jupytext takes seconds) for
    callers that only need the stored task and its slug."""
    validation = Validation(path=path)
    tree = _parse(source, path, validation)
    if tree is not None:
        tasks, decorator_problems = find_task_decorators(tree)
        validation.problems.extend(decorator_problems)
        task = _stored_task(tasks, validation)
        if task is not None:
            validation.stored_task = task
            validation.slug = slugify_task_name(task.name)
            if not validation.slug:
                validation.problems.append(Problem("empty-slug", f"task name `{task.name}` has an empty slug"))
            elif expected_slug is not None and slugify_task_name(expected_slug) != validation.slug:
                validation.problems.append(
                    Problem(
                        "slug-mismatch",
                        f"the stored task `{task.name}` has slug `{validation.slug}`, but the push is for "
                        f"`{slugify_task_name(expected_slug)}`",
                        task.line,
                    )
                )
            validation.problems.extend(_run_call_problems(tree, task))
    try:
        if convert:
            validation.notebook = convert_to_notebook(source)
    except Exception as error:  # jupytext raises many types; any of them stops the push
        validation.problems.append(
            Problem("notebook-conversion", f"jupytext cannot convert the file to a notebook: {error}")
        )
    if not _CELL_MARKER.search(source):
        validation.notes.append("no `# %%` cell markers: the whole file becomes one notebook cell")
    validation.problems.sort(key=lambda p: (p.line is None, p.line or 0, p.code))
    return validation


def validate_task_file(path: Path, expected_slug: str | None = None, *, convert: bool = True) -> Validation:
    """`validate_task_source` on a file; an unreadable or non-.py file is a problem too."""
    shown = str(path)
    if path.suffix != ".py":
        return Validation(shown, [Problem("not-python", "a task file must be a .py file")])
    try:
        source = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return Validation(shown, [Problem("unreadable", f"cannot read the file as UTF-8: {error}")])
    return validate_task_source(source, shown, expected_slug, convert=convert)


@dataclass(frozen=True)
class FrozenCheck:
    """How the file relates to `frozen_cases/protocols.lock`: `problem` set means refuse."""

    summary: str
    problem: Problem | None = None
    protocol: str | None = None  # the lock entry the file is frozen as (its bytes may differ: see problem)


def _declared_protocol(task_file: Path) -> str | None:
    """The protocol id a hallubench task file declares in its header (None for other files)."""
    try:
        return read_task_file(task_file).protocol_id
    except TaskFileError:
        return None


def check_frozen(task_file: Path) -> FrozenCheck:
    """A file the lock lists (by path, or by the protocol its header declares) must have the
    locked sha256; no checkout, no lock or no entry means the file is not frozen."""
    try:
        root = repo_root(task_file.resolve().parent)
    except RepositoryNotFound:
        return FrozenCheck("no hallubench checkout around the file: not a frozen protocol")
    lock_path = root / LOCK_PATH
    try:
        lock = read_lock(root)
    except (OSError, ValueError) as error:
        return FrozenCheck(
            f"{lock_path} is unreadable",
            Problem("lock-unreadable", f"cannot read {lock_path} to check whether the file is frozen: {error}"),
        )
    target = task_file.resolve()
    declared = _declared_protocol(task_file)
    for entry in sorted(lock.protocols.values(), key=lambda e: e.protocol):
        if (root / entry.task_file).resolve() != target and entry.protocol != declared:
            continue
        actual = sha256_bytes(task_file.read_bytes())
        if actual != entry.task_sha256:
            return FrozenCheck(
                f"{entry.protocol} is frozen and the file differs",
                protocol=entry.protocol,
                problem=Problem(
                    "frozen-file-changed",
                    f"the file is frozen as {entry.protocol} but its sha256 is {actual}, not "
                    f"{entry.task_sha256} as in {lock_path}; a frozen task never changes "
                    "(make a new protocol version instead)",
                ),
            )
        return FrozenCheck(f"frozen as {entry.protocol}; sha256 matches {lock_path}", protocol=entry.protocol)
    return FrozenCheck(f"not frozen (no entry in {lock_path})")


def dataset_problems(datasets: Sequence[str]) -> list[Problem]:
    """Attached datasets must be `owner/dataset-slug`, as `kaggle b t push -d` expects."""
    return [
        Problem("bad-dataset", f"dataset `{name}` is not in the form owner/dataset-slug")
        for name in datasets
        if not DATASET_PATTERN.match(name)
    ]


def push_task(
    api: Any,
    task_file: Path,
    slug: str,
    *,
    datasets: Sequence[str] = (),
    wait: int | None = None,
    poll_interval: int = 60,
) -> None:
    """Push with `KaggleApi.benchmarks_tasks_push_cli`, the function behind `kaggle b t push`.

    `wait=None` returns after the upload, `0` waits for task creation without a limit, N>0
    waits up to N seconds. Errors from Kaggle propagate (ValueError, requests exceptions).
    """
    api.benchmarks_tasks_push_cli(
        slug,
        str(task_file),
        wait=wait,
        poll_interval=poll_interval,
        kaggle_datasets=list(datasets) or None,
    )
