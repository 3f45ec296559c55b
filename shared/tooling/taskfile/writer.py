"""Render a protocol version into one self-contained task file (jupytext percent format).

Layout: a header cell with the identity constants, the payload marker, then the payload:
a description cell, one cell per embedded module (source kept byte-exact as a string
literal), the cases as canonical JSON, a bootstrap that loads the modules under a package
of their own, and the kaggle-benchmarks glue (one stored task, row sub-tasks with
`store_task=False`, `.run(kbench.llm)` at top level). The same inputs always give the same
bytes: no clock, no absolute paths, no version strings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from ...hashing import canonical_json, sha256_text
from ..specs import ProtocolSpec
from .layout import LOADER_MODULE, MODULES_NAME, PAYLOAD_MARKER
from .literals import string_literal


@dataclass(frozen=True)
class TaskFileText:
    """A rendered task file and the hashes it declares."""

    text: str
    payload_sha256: str
    modules: dict[str, str]


def _markdown(text: str) -> str:
    return "\n".join(f"# {line}".rstrip() for line in text.strip().splitlines()) + "\n"


def _cases_literal(cases: Sequence[Mapping[str, Any]]) -> str:
    lines = ",\n".join(canonical_json(case) for case in cases)
    return string_literal(f"[\n{lines}\n]\n")


def _module_name(entry: str) -> str:
    path = PurePosixPath(entry)
    parts = list(path.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


GLUE = '''\
# %% [markdown]
# ## Running the protocol with kaggle-benchmarks
#
# One stored task runs every case as a row sub-task (`store_task=False`), so each row has its
# own conversation in the run file. Rows return self-identifying dicts; errored rows stay in
# the denominators. For local runs only, `HALLUBENCH_CASES` (comma-separated id patterns) selects
# cases and `HALLUBENCH_LIMIT` caps their number; hosted runs set neither and run every case.

# %%
import fnmatch
import json
import os
import threading

import kaggle_benchmarks as kbench
import pandas as pd

HB_CASES = json.loads(HB_CASES_JSON)
_hb_entry = _hb_finder.load(_HB_ENTRY_MODULE)
{prepare}_hb_rows = _hb_finder.load("rows")
_hb_progress_lock = threading.Lock()
_hb_progress_done = [0]


def _hb_report_progress(case_id, total):
    """Append one JSON line per finished row when a local runner asks for progress."""
    path = os.environ.get("HALLUBENCH_PROGRESS_FILE")
    if not path:
        return
    with _hb_progress_lock:
        _hb_progress_done[0] += 1
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({{"done": _hb_progress_done[0], "total": total, "case_id": case_id}}) + "\\n")


def _hb_selected_cases():
    patterns = [p.strip() for p in os.environ.get("HALLUBENCH_CASES", "").split(",") if p.strip()]
    cases = [c for c in HB_CASES if not patterns or any(fnmatch.fnmatchcase(c["id"], p) for p in patterns)]
    if not cases:
        raise ValueError(f"HALLUBENCH_CASES={{','.join(patterns)}} matches no case id of {{HB_PROTOCOL_ID}}")
    limit = os.environ.get("HALLUBENCH_LIMIT", "").strip()
    return cases[: int(limit)] if limit else cases


class _HbKbenchConversation:
    """hallubench's Conversation on top of the kbench chat: plain text in, plain text out."""

    def __init__(self, llm):
        self._llm = llm

    def system(self, text):
        kbench.system.send(text)

    def ask(self, text):
        return self._llm.prompt(text)


{run_options}@kbench.task(name={row_task_name!r}, store_task=False)
def {row_function}(llm, case_json: str) -> dict:
    case = json.loads(case_json)
    row = _hb_rows.play_row(
        {play},
        case,
        _HbKbenchConversation(llm),
        protocol_id=HB_PROTOCOL_ID,
        payload_sha256=HB_PAYLOAD_SHA256,
    )
{record_options}    _hb_report_progress(case["id"], len(_hb_selected_cases()))
    return row


@kbench.task(name={task_name!r}, description={description!r}, version={version!r})
def {task_function}(llm) -> float:
    cases = _hb_selected_cases()
{preflight}    frame = pd.DataFrame(
        {{"case_json": [json.dumps(case, sort_keys=True) for case in cases]}},
        index=[case["id"] for case in cases],
    )
    runs = {row_function}.evaluate(llm=[llm], evaluation_data=frame, n_jobs={n_jobs!r}, on_failure="continue")
    rows = []
    for run in runs:
        result = run.result
        if isinstance(result, dict) and result.get("case_id") is not None:
            rows.append(result)
        else:
            detail = (run.error_message or "row run returned no result")[-1500:]
            rows.append(_hb_rows.error_row(HB_PROTOCOL_ID, HB_PAYLOAD_SHA256, str(run.param_id), "run_errored", detail))
    summary = _hb_entry.aggregate(rows)
    report = _hb_rows.json_safe({{"protocol": HB_PROTOCOL_ID, "rows": len(rows), **summary}})
    print(json.dumps(report, sort_keys=True, default=str)[:20000])
    return _hb_rows.headline_value(summary)


{task_function}.run(kbench.llm)
'''


_PREFLIGHT = """\
    # the version declares a preflight (ProtocolSpec.preflight): once, before any model call; it may abort the run
    print("preflight:", json.dumps(_hb_entry.preflight(cases{options}), sort_keys=True, default=str))
"""


_RUN_OPTIONS = """\
HB_RUN_OPTION_DEFAULTS = {defaults!r}


def _hb_run_options():
    \"\"\"The version's declared run options: their defaults, or for a local run what HALLUBENCH_RUN_OPTIONS sets.\"\"\"
    given = json.loads(os.environ.get("HALLUBENCH_RUN_OPTIONS") or "{{}}")
    unknown = sorted(set(given) - set(HB_RUN_OPTION_DEFAULTS))
    if unknown:
        known = ", ".join(sorted(HB_RUN_OPTION_DEFAULTS))
        raise ValueError(f"{{HB_PROTOCOL_ID}} has no run option {{', '.join(unknown)}} (it has: {{known}})")
    return {{**HB_RUN_OPTION_DEFAULTS, **{{str(k): str(v) for k, v in given.items()}}}}


HB_RUN_OPTIONS = _hb_run_options()


"""
_PREPARE = (
    "HB_CASES = _hb_entry.prepare(HB_CASES)  # the version declares prepare: the data its cases refer to, verified\n"
)
_PLAY_WITH_OPTIONS = "lambda case, conv: _hb_entry.play(case, conv, HB_RUN_OPTIONS)"
_RECORD_OPTIONS = '    row["run_options"] = dict(HB_RUN_OPTIONS)  # which settings this row was played under\n'


def render_task_file(
    spec: ProtocolSpec,
    sources: Mapping[str, str],
    cases: Sequence[Mapping[str, Any]],
) -> TaskFileText:
    """Render the task file for `spec`; `sources` maps paths under shared/ to their text."""
    if LOADER_MODULE not in sources:
        raise ValueError(f"sources must include the loader {LOADER_MODULE}")
    package = f"hallubench_{spec.stem}"
    row_task_name = f"{spec.stem}_row"
    payload: list[str] = []
    payload.append(f"\n# %% [markdown]\n# # {spec.title}\n#\n{_markdown(spec.description)}")
    payload.append(
        "\n# %%\n"
        f"HB_ENTRY = {spec.entry!r}\n"
        f"HB_PACKAGE = {package!r}\n"
        f"HB_TASK_NAME = {spec.task_name!r}\n"
        f"HB_ROW_TASK_NAME = {row_task_name!r}\n"
        f"{MODULES_NAME} = {{}}\n"
    )
    for path in sorted(sources):
        text = sources[path]
        payload.append(
            f"\n# %% embedded module {path} sha256={sha256_text(text)}\n"
            f"{MODULES_NAME}[{path!r}] = {string_literal(text)}\n"
        )
    payload.append(f"\n# %% cases: {len(cases)}\nHB_CASES_JSON = {_cases_literal(cases)}\n")
    payload.append(
        "\n# %% load the embedded modules under a package of their own\n"
        "import sys as _hb_sys\n"
        "import types as _hb_types\n\n\n"
        "def _hb_bootstrap():\n"
        "    loader = _hb_types.ModuleType(HB_PACKAGE + '_loader')\n"
        f"    source = {MODULES_NAME}[{LOADER_MODULE!r}]\n"
        "    exec(compile(source, '<' + HB_PACKAGE + '/embedding.py>', 'exec'), loader.__dict__)\n"
        "    _hb_sys.modules[loader.__name__] = loader\n"
        f"    finder = loader.EmbeddedModules(HB_PACKAGE, {MODULES_NAME})\n"
        "    finder.install()\n"
        "    return finder\n\n\n"
        "_hb_finder = _hb_bootstrap()\n"
        f"_HB_ENTRY_MODULE = {_module_name(spec.entry)!r}\n"
    )
    payload.append(
        "\n"
        + GLUE.format(
            row_task_name=row_task_name,
            row_function=f"{spec.stem}_row",
            task_name=spec.task_name,
            task_function=spec.stem,
            description=" ".join(spec.description.split())[:1000],
            version=spec.version,
            n_jobs=spec.n_jobs,
            preflight=_PREFLIGHT.format(options=", HB_RUN_OPTIONS" if spec.run_options else "")
            if spec.preflight
            else "",
            prepare=_PREPARE if spec.prepare else "",
            run_options=_RUN_OPTIONS.format(defaults=spec.option_defaults()) if spec.run_options else "",
            play=_PLAY_WITH_OPTIONS if spec.run_options else "_hb_entry.play",
            record_options=_RECORD_OPTIONS if spec.run_options else "",
        )
    )
    payload_text = "".join(payload)
    payload_sha256 = sha256_text(payload_text)
    header = (
        "# %% [markdown]\n"
        f"# hallubench task file for `{spec.protocol_id}`: generated by `hallubench build`, never edited by hand.\n"
        "# Its bytes are locked in frozen_cases/protocols.lock once frozen; `hallubench rescore` re-renders\n"
        "# every prompt from this file and checks hosted run files against it byte for byte.\n"
        "\n# %%\n"
        f"HB_PROTOCOL_ID = {spec.protocol_id!r}\n"
        f"HB_PROTOCOL_VERSION = {spec.version!r}\n"
        f"HB_PAYLOAD_SHA256 = {payload_sha256!r}\n"
        f"HB_TAG = {spec.tag!r}\n"
        f"{PAYLOAD_MARKER}"
    )
    return TaskFileText(text=header + payload_text, payload_sha256=payload_sha256, modules=dict(sources))
