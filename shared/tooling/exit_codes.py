"""Every exit code of every `hallubench` command, in one table: scripts and CI branch on these numbers.

A number means different things to different commands (3 is a prompt mismatch to `rescore`, missing
credentials to `push`), so the table names each code once with the commands it belongs to, and a
command imports its codes from here instead of defining its own. Numbers are a published interface:
change one only with a changelog line. `exit_code_table_markdown` renders the table for docs/cli.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class ExitCode:
    """One exit code: its constant's name, its number, what it tells the caller, and which commands give it."""

    name: str
    number: int
    meaning: str
    commands: tuple[str, ...]


EVERY_COMMAND = "every command"

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2
EXIT_NOT_STARTED: Final = 2
EXIT_PROMPT_MISMATCH: Final = 3
EXIT_SCORE_DISAGREES: Final = 4
EXIT_UNREADABLE: Final = 5
EXIT_CONFLICT: Final = 6
EXIT_JAIL: Final = 7
EXIT_UNREACHABLE: Final = 8
EXIT_HARNESS_ERROR: Final = 3
EXIT_GATE_UNREACHABLE: Final = 3
EXIT_UNVERIFIED: Final = 4
EXIT_PUSH_KAGGLE_ERROR: Final = 1
EXIT_CREDENTIALS: Final = 3
EXIT_HOSTED_DIFFERS: Final = 1
EXIT_HOSTED_NOTHING_TO_COMPARE: Final = 4
EXIT_HOSTED_KAGGLE_ERROR: Final = 5
EXIT_INTERNAL_ERROR: Final = 70  # EX_SOFTWARE: a bug in hallubench, not a problem of the input
EXIT_WORKER_FAILED: Final = 70
EXIT_STAGE_FAILED: Final = 71
EXIT_REFUSED: Final = 77
EXIT_INTERRUPTED: Final = 130  # 128 + SIGINT, as a shell reports Ctrl-C

_RESCORE = "rescore"
_RUN_HTML = "run"  # `run --html` rescores what it ran and returns rescore's code
_MISLED_CLASSIFY = "misled-tests classify"
_GATE = "hallucinated-packages gate"
_PUSH = ("push", "download")
_HOSTED = "verify --hosted"
_WORKER = "the jail worker"
_NOT_COMMANDS = frozenset({EVERY_COMMAND, _WORKER, "the jail's staging step", "the embedded model server"})

TABLE: Final = (
    ExitCode(
        "EXIT_OK",
        EXIT_OK,
        "success (`check`: pass; `verify --hosted`: every server version has the frozen code)",
        (EVERY_COMMAND,),
    ),
    ExitCode(
        "EXIT_FAILED",
        EXIT_FAILED,
        "the command ran and found a problem: stale task files, freeze problems, a failed check or run, "
        "a hallucinated reference, a failed gate or canary, a test that is not a clean discriminator",
        ("build", "freeze", "verify", "check", "run", "hallucinated-packages check", _GATE, _MISLED_CLASSIFY),
    ),
    ExitCode(
        "EXIT_USAGE",
        EXIT_USAGE,
        "bad arguments or an input that cannot be used (no path that exists, no row of this task, a check "
        "that errored, weights or a runtime the model server lacks): nothing was checked",
        (EVERY_COMMAND, "the embedded model server"),
    ),
    ExitCode("EXIT_NOT_STARTED", EXIT_NOT_STARTED, "the run did not start (the error says why)", ("run",)),
    ExitCode(
        "EXIT_PROMPT_MISMATCH",
        EXIT_PROMPT_MISMATCH,
        "a prompt differs from the frozen render, or a stored run cannot be verified whole",
        (_RESCORE, _RUN_HTML),
    ),
    ExitCode(
        "EXIT_SCORE_DISAGREES", EXIT_SCORE_DISAGREES, "a re-scored row or headline differs", (_RESCORE, _RUN_HTML)
    ),
    ExitCode(
        "EXIT_UNREADABLE",
        EXIT_UNREADABLE,
        "a run file, or a row of one, could not be read",
        (_RESCORE, _RUN_HTML, "plan"),
    ),
    ExitCode("EXIT_CONFLICT", EXIT_CONFLICT, "two different copies of one row: neither counted", (_RESCORE, _RUN_HTML)),
    ExitCode(
        "EXIT_JAIL",
        EXIT_JAIL,
        "the task runs model-written code and the jail lacks a layer the user did not accept: nothing ran",
        (_RESCORE, "plan", "run", _MISLED_CLASSIFY),
    ),
    ExitCode(
        "EXIT_UNREACHABLE",
        EXIT_UNREACHABLE,
        "a service the re-scoring needs gave no answer here: the rows it touched are not judged",
        (_RESCORE, _RUN_HTML),
    ),
    ExitCode(
        "EXIT_HARNESS_ERROR",
        EXIT_HARNESS_ERROR,
        "the sandbox could not run a test file (a harness error, not a verdict on the test)",
        (_MISLED_CLASSIFY,),
    ),
    ExitCode(
        "EXIT_GATE_UNREACHABLE",
        EXIT_GATE_UNREACHABLE,
        "the registries gave no answer, so nothing was decided",
        (_GATE,),
    ),
    ExitCode(
        "EXIT_UNVERIFIED",
        EXIT_UNVERIFIED,
        "nothing hallucinated, but some reference could not be decided",
        ("hallucinated-packages check",),
    ),
    ExitCode("EXIT_PUSH_KAGGLE_ERROR", EXIT_PUSH_KAGGLE_ERROR, "Kaggle refused or failed the request", _PUSH),
    ExitCode("EXIT_CREDENTIALS", EXIT_CREDENTIALS, "no usable Kaggle credentials", (*_PUSH, _HOSTED)),
    ExitCode(
        "EXIT_HOSTED_DIFFERS",
        EXIT_HOSTED_DIFFERS,
        "a server version's code differs from the frozen file (named with its run and first differing line)",
        (_HOSTED,),
    ),
    ExitCode(
        "EXIT_HOSTED_NOTHING_TO_COMPARE",
        EXIT_HOSTED_NOTHING_TO_COMPARE,
        "nothing to compare for some version and no difference anywhere (not on Kaggle, no finished run, "
        "no source): not verified",
        (_HOSTED,),
    ),
    ExitCode(
        "EXIT_HOSTED_KAGGLE_ERROR",
        EXIT_HOSTED_KAGGLE_ERROR,
        "Kaggle's API failed or sent something unreadable: not verified",
        (_HOSTED,),
    ),
    ExitCode(
        "EXIT_INTERNAL_ERROR",
        EXIT_INTERNAL_ERROR,
        "a bug in hallubench, not a problem of the input (EX_SOFTWARE)",
        (EVERY_COMMAND,),
    ),
    ExitCode(
        "EXIT_WORKER_FAILED",
        EXIT_WORKER_FAILED,
        "the jail worker could not read its configuration or apply its layers (not a refusal)",
        (_WORKER,),
    ),
    ExitCode(
        "EXIT_STAGE_FAILED",
        EXIT_STAGE_FAILED,
        "the jail could not stage its file system, or could not execute the program it was to become",
        ("the jail's staging step", _WORKER),
    ),
    ExitCode(
        "EXIT_REFUSED",
        EXIT_REFUSED,
        "the jail worker could not apply a layer the user did not accept missing: nothing ran",
        (_WORKER,),
    ),
    ExitCode("EXIT_INTERRUPTED", EXIT_INTERRUPTED, "interrupted (Ctrl-C)", (EVERY_COMMAND,)),
)


def exit_code_table_markdown() -> list[str]:
    """The table as Markdown lines (header, rule, one row per code, by number), for docs/cli.md."""
    lines = ["| Code | Name | Commands | Meaning |", "| ---: | --- | --- | --- |"]
    for code in sorted(TABLE, key=lambda entry: (entry.number, entry.name)):
        commands = ", ".join(command if command in _NOT_COMMANDS else f"`{command}`" for command in code.commands)
        meaning = code.meaning.replace("|", "\\|")
        lines.append(f"| {code.number} | `{code.name}` | {commands} | {meaning} |")
    return lines
