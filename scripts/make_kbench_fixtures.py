"""Regenerate the kaggle-benchmarks 0.6.2 run files that `tests/test_kaggle_runs.py` reads.

Why: the run-file reader (`hallubench.tooling.kaggle_runs`) must be tested on files the real library wrote, and a
clone must carry them. This script makes them: it runs the small demo tasks in `scripts/kbench_fixtures/` with the
installed kaggle-benchmarks (0.6.2, as pinned), each in its own subprocess and empty folder with a controlled
environment, against the project's loopback OpenAI-compatible stub (`tests/support/openai_stub.py`, on 127.0.0.1
only, reached through `MODEL_PROXY_URL` as on Kaggle) or against in-process fake models. It then copies the files
kbench wrote to their fixture names. The only edit is to errored runs' tracebacks: machine paths become the neutral
`/home/user/demo/...`. Nothing is written by hand; see `tests/data/kaggle_runs/kbench/README.md` for what each file
shows.

    .venv/bin/python scripts/make_kbench_fixtures.py --facts           # the fixtures, and expected_runs.json
    .venv/bin/python scripts/make_kbench_fixtures.py --out DIR         # elsewhere (the slow test does this)
    .venv/bin/python scripts/make_kbench_fixtures.py --facts --no-run  # only the facts, from the files in --out

Fixtures go to `tests/data/kaggle_runs/kbench/`, facts to `tests/data/kaggle_runs/expected_runs.json`; regenerate
both together, and commit them.

Values that differ between runs: timestamps, conversation ids (random suffixes) and, for the dataset rows that run
in two threads, which row gets `Run #1`. The rest does not (the stub's token counts are word counts, its cost and
latency fixed); the slow test in `tests/test_kaggle_runs.py` regenerates everything and compares.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEMOS = REPO / "scripts" / "kbench_fixtures"
DEFAULT_OUT = REPO / "tests" / "data" / "kaggle_runs" / "kbench"
DEFAULT_FACTS = REPO / "tests" / "data" / "kaggle_runs" / "expected_runs.json"
NEUTRAL_HOME = "/home/user/demo"
DEMO_TIMEOUT_S = 300

sys.path.insert(0, str(REPO / "tests"))  # the loopback stub the tests use
from support.loopback import LoopbackServer  # noqa: E402
from support.openai_stub import OpenAIStub  # noqa: E402

Message = dict[str, Any]

# -- the loopback model ------------------------------------------------------------------------------------------------

MODEL = "stub/model-a"  # native structured output (kbench's default for this name)
LLAMA = "meta/stub-llama"  # kbench turns native structured output off for `meta` models: schemas go in the prompt
SCHEMA_INSTRUCTION = "Output JSON using this schema"  # kbench's prompt-instructed schema message (prompting.py)
# The Model Proxy adds these to `usage` and kbench records them (int64 fields, written as strings); fixed values.
PROXY_USAGE = {"cost": {"input_tokens_cost_nanodollars": 1100, "output_tokens_cost_nanodollars": 500}}
PROXY_LATENCY_MS = 42
SLOW_QUESTION = "What's the capital of France"  # the dataset row answered late, so the other row finishes first
SLOW_REPLY_S = 1.5

PLAIN_REPLIES = {
    "What gets wetter as it dries?": "A towel.",
    "What's the capital of France": "The capital of France is Paris.",
    "What's the capital of Singapore": "Singapore City.",
    "What is the capital of France?": "The capital of France is Paris.",
    # kbench moves the <think> block into `reasoningTraces` because the call asked for reasoning
    "How many r's are in 'strawberry'?": "<think>Count r in s-t-r-a-w-b-e-r-r-y: 3.</think>There are 3 r's.",
}
STRUCTURED_REPLIES = {
    "Extract name, age and occupation: Marie Curie, 66, physicist.": (
        '{"name": "Marie Curie", "age": 66, "occupation": "physicist"}'
    ),
    "Pick a number.": '{"value": 7}',
}


def model_reply(messages: list[Message], *, always_fenced: bool = False) -> str:
    """The stub's answer to the last user message: JSON as a fenced block when the schema was asked for in the prompt
    (as chat models do), bare JSON for native structured output, unless `always_fenced` (the parse failure)."""
    question = next(str(m.get("content")) for m in reversed(messages) if m.get("role") == "user")
    if question in STRUCTURED_REPLIES:
        in_prompt = any(str(m.get("content", "")).startswith(SCHEMA_INSTRUCTION) for m in messages)
        raw = STRUCTURED_REPLIES[question]
        return f"```json\n{raw}\n```" if in_prompt or always_fenced else raw
    if question == SLOW_QUESTION:
        time.sleep(SLOW_REPLY_S)
    return PLAIN_REPLIES[question]  # an unplanned prompt is a KeyError: HTTP 500, and the demo fails loudly


def _with_proxy_usage(handler: type[BaseHTTPRequestHandler]) -> type[BaseHTTPRequestHandler]:
    """The stub's handler, adding the Model Proxy's cost and latency extras to every completion's `usage`."""

    class ProxyUsageHandler(handler):  # type: ignore[misc, valid-type]
        def _send_json(self, status: int, obj: Any) -> None:
            if isinstance(obj, dict) and isinstance(obj.get("usage"), dict):
                obj["usage"].update(PROXY_USAGE, total_backend_latency_ms=PROXY_LATENCY_MS)
            super()._send_json(status, obj)

    return ProxyUsageHandler


class ProxyStub(OpenAIStub):
    """`OpenAIStub` on 127.0.0.1 whose completions also carry the Model Proxy's usage extras."""

    def __init__(self, replies: Callable[[list[Message]], str]) -> None:
        super().__init__(replies=replies, model=MODEL)
        self._http = LoopbackServer(_with_proxy_usage(self._http.handler), name="kbench-fixture-stub")


# -- the demos ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Demo:
    """One run of a demo file and what to keep: fixture name -> the file kbench wrote (in the demo's folder)."""

    name: str
    script: str
    keep: Mapping[str, str]
    stub: Callable[[list[Message]], str] | None = None  # None: no server; the demo's fake models are in-process
    chat_calls: int = 0  # requests the stub must see: a demo that silently missed the stub is an error
    stdin: bool = False  # fed to `python -`, so kbench finds no source and writes no `definition`
    env: Mapping[str, str] = field(default_factory=dict)


RIDDLE = "riddle_check-run_id_Run_1_stub_model-a"
QA = "qa_dataset-run_id_Run_1_stub_model-a"
STRUCTURED = "structured_and_reasoning-run_id_Run_{n}_{model}.run.json"
STRUCTURED_A = STRUCTURED.format(n=1, model="stub_model-a")
STRUCTURED_LLAMA = STRUCTURED.format(n=2, model="meta_stub-llama")

DEMOS_TO_RUN = (
    Demo(
        "riddle",
        "riddle_check.py",
        {
            "riddle_check.task.json": "riddle_check.task.json",
            f"{RIDDLE}.run.json": f"{RIDDLE}.run.json",
            f"{RIDDLE}.atif.json": f"{RIDDLE}.atif.json",
            f"{RIDDLE}.result.json": f"{RIDDLE}.result.json",
            "riddle_check-minimal-example.run.json": f"{RIDDLE}.run.json",
        },
        stub=model_reply,
        chat_calls=1,
    ),
    Demo(
        "qa",
        "qa_dataset.py",
        {
            "qa_dataset.task.json": "qa_dataset.task.json",
            f"{QA}.run.json": f"{QA}.run.json",
            f"{QA}.atif.json": f"{QA}.atif.json",
            "qa_row-run_param_id_fr_stub_model-a.run.json": "qa_row-run_param_id_fr_stub_model-a.run.json",
            "qa_row-run_param_id_sg_stub_model-a.run.json": "qa_row-run_param_id_sg_stub_model-a.run.json",
        },
        stub=model_reply,
        chat_calls=2,
    ),
    Demo(
        "structured",
        "structured_and_reasoning.py",
        {
            "structured_and_reasoning.task.json": "structured_and_reasoning.task.json",
            STRUCTURED_A: STRUCTURED_A,
            STRUCTURED_LLAMA: STRUCTURED_LLAMA,
            STRUCTURED_LLAMA.replace(".run.json", ".atif.json"): STRUCTURED_LLAMA.replace(".run.json", ".atif.json"),
        },
        stub=model_reply,
        chat_calls=8,
    ),
    Demo(
        "structured-errored",
        "structured_and_reasoning.py",
        {
            "structured_and_reasoning-ERRORED-example.run.json": STRUCTURED_A,
            "errored_run_example.run.json": STRUCTURED_A,
        },
        stub=lambda messages: model_reply(messages, always_fenced=True),
        chat_calls=5,  # model-a fails on its first reply; meta/stub-llama, run next, completes
        env={"KAGGLE_KERNEL_RUN_TYPE": "batch"},  # Kaggle's batch mode: the error is recorded, the file goes on
    ),
    Demo(
        "capital",
        "capital_eval.py",
        {"capital_eval-CACHED-SUBRUNS-example.run.json": "capital_eval-run_id_Run_2_fake_canned-1.run.json"},
    ),
    Demo(
        "unicode",
        "unicode_zero_score.py",
        {"unicode_zero_score-example.run.json": "unicode_check-run_id_Run_1_echo.run.json"},
        stdin=True,
    ),
    Demo(
        "no-llm",
        "no_llm_passcount_zero.py",
        {"no_llm_passcount_zero-example.run.json": "no_llm-run_id_Run_1.run.json"},
    ),
)


class DemoError(RuntimeError):
    """A demo failed, or did not write or send what it should have."""


def child_env(home: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """A small, explicit environment: nothing from the caller's kbench, Model Proxy, proxy or cache settings."""
    env = {key: os.environ[key] for key in ("PATH", "SYSTEMROOT", "TMPDIR") if key in os.environ}
    env.update(
        HOME=str(home),
        LANG="C.UTF-8",
        LC_ALL="C.UTF-8",
        TZ="UTC",
        PYTHONHASHSEED="0",
        PYTHONIOENCODING="utf-8",
        PYTHONDONTWRITEBYTECODE="1",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
        WRITE_ATIF="True",  # the ATIF and result companions
    )
    env.update(extra)
    return env


def run_demo(demo: Demo, work: Path) -> Path:
    """Run `demo` in a fresh folder under `work` with the installed kaggle-benchmarks; returns that folder."""
    folder = work / demo.name
    home = work / f"{demo.name}.home"
    folder.mkdir(parents=True)
    home.mkdir()
    script = DEMOS / demo.script
    command = [sys.executable, "-"] if demo.stdin else [sys.executable, str(script)]
    stdin = script.read_text(encoding="utf-8") if demo.stdin else None
    stub = ProxyStub(demo.stub) if demo.stub else None
    extra = dict(demo.env)
    if stub is not None:
        stub.start()
        extra.update(
            MODEL_PROXY_URL=stub.proxy_url,
            MODEL_PROXY_API_KEY="dummy-key",
            LLM_DEFAULT=MODEL,
            LLMS_AVAILABLE=f"{MODEL},{LLAMA}",
        )
    try:
        done = subprocess.run(
            command,
            cwd=folder,
            env=child_env(home, extra),
            input=stdin,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=DEMO_TIMEOUT_S,
        )
    finally:
        if stub is not None:
            stub.stop()
    (work / f"{demo.name}.log").write_text(done.stdout + done.stderr, encoding="utf-8")
    if done.returncode != 0:
        raise DemoError(f"{demo.script} ({demo.name}) exited {done.returncode}:\n{done.stderr[-4000:]}")
    if stub is not None and len(stub.chat_requests()) != demo.chat_calls:
        raise DemoError(
            f"{demo.name}: the stub saw {len(stub.chat_requests())} chat requests, expected {demo.chat_calls}"
            " (is there a .env file in a folder above the virtualenv? kaggle-benchmarks loads it over the environment)"
        )
    return folder


# -- machine paths -----------------------------------------------------------------------------------------------------


def _path_forms(path: str) -> set[str]:
    return {path, os.path.realpath(path)}


def machine_paths(work: Path) -> list[tuple[str, str]]:
    """(machine path, neutral path) pairs, longest first, for the places a traceback can name."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    venv = f"{NEUTRAL_HOME}/.venv"
    pairs: dict[str, str] = {}
    for key in ("purelib", "platlib"):
        for form in _path_forms(sysconfig.get_paths()[key]):
            pairs[form] = f"{venv}/lib/{version}/site-packages"
    for key in ("stdlib", "platstdlib"):
        for form in _path_forms(sysconfig.get_paths()[key]):
            pairs[form] = f"/usr/lib/{version}"
    for prefix in (sys.prefix, sys.exec_prefix):
        for form in _path_forms(prefix):
            pairs[form] = venv
    for place in (DEMOS, work, REPO):
        for form in _path_forms(str(place)):
            pairs[form] = NEUTRAL_HOME
    return sorted(pairs.items(), key=lambda pair: len(pair[0]), reverse=True)


def neutralise(text: str, pairs: list[tuple[str, str]]) -> str:
    """Replace machine paths in a file's text (JSON-escaped, so only paths without escapes are found: POSIX)."""
    for machine, neutral in pairs:
        text = text.replace(machine + "/", neutral + "/").replace(f'"{machine}"', f'"{neutral}"')
    return text


def _leftover_paths(text: str) -> list[str]:
    home = os.path.expanduser("~")
    places = {str(REPO), sys.prefix, sys.base_prefix, tempfile.gettempdir(), *([home] if home != "/" else [])}
    return sorted(place for place in places if place + "/" in text)


# -- generation --------------------------------------------------------------------------------------------------------


def generate(out: Path, *, jobs: int | None = None, log: Callable[[str], None] = print) -> list[Path]:
    """Run every demo and write the fixtures into `out` (other files there are left alone); returns them."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="kbench-fixtures-") as scratch:
        work = Path(scratch)
        pairs = machine_paths(work)
        workers = jobs or min(len(DEMOS_TO_RUN), os.cpu_count() or 1)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            folders = list(pool.map(lambda demo: run_demo(demo, work), DEMOS_TO_RUN))
        for demo, folder in zip(DEMOS_TO_RUN, folders, strict=True):
            for fixture, produced in demo.keep.items():
                source = folder / produced
                if not source.is_file():
                    found = sorted(p.name for p in folder.iterdir())
                    raise DemoError(f"{demo.name}: kbench did not write {produced}; it wrote {found}")
                text = neutralise(source.read_text(encoding="utf-8"), pairs)
                if leftover := _leftover_paths(text):
                    raise DemoError(f"{fixture}: machine paths left after neutralising: {leftover}")
                target = out / fixture
                target.write_text(text, encoding="utf-8")
                written.append(target)
                log(f"  {fixture}  ({demo.script}: {produced})")
    return written


# -- facts for the tests -----------------------------------------------------------------------------------------------

ROLE_PREFIX = "CONTENT_ROLE_"
ROLES = {"USER": "user", "ASSISTANT": "assistant", "SYSTEM": "system", "DEVELOPER": "developer", "CONTEXT": "tool"}


def _timestamp(value: str | None) -> str | None:
    """RFC 3339 `...Z` (0/3/6/9 fraction digits) as Python's isoformat of the microsecond-truncated moment."""
    if value is None:
        return None
    base, _, fraction = value.removesuffix("Z").partition(".")
    micros = fraction.ljust(6, "0")[:6]
    return datetime.fromisoformat(f"{base}.{micros}+00:00").isoformat()


def _message(content: Mapping[str, Any]) -> list[str]:
    role = str(content.get("role", "CONTENT_ROLE_UNSPECIFIED")).removeprefix(ROLE_PREFIX)
    text = "".join(str(part["text"]) for part in content.get("parts", []) if "text" in part)
    return [ROLES.get(role, "unspecified"), text]


def _conversation_facts(conversation: Mapping[str, Any]) -> dict[str, Any]:
    """The calls of one chat, by kbench's grouping: a reply closes a request, each call sees all that came before."""
    name = str(conversation["id"]).rsplit("-", 1)[0]
    history: list[list[str]] = []
    calls: list[dict[str, Any]] = []
    pending = False
    for request in conversation.get("requests", []):
        for content in request.get("contents", []):
            message = _message(content)
            if message[0] == "assistant":
                metrics = request.get("metrics", {})
                calls.append(
                    {
                        "messages": list(history),
                        "reply": message,
                        "input_tokens": int(metrics.get("inputTokens", 0)),
                        "output_tokens": int(metrics.get("outputTokens", 0)),
                    }
                )
                pending = False
            else:
                pending = True
            history.append(message)
    facts: dict[str, Any] = {"name": name, "calls": calls}
    if pending:
        facts["unanswered"] = history
    return facts


def _result_facts(result: Mapping[str, Any]) -> dict[str, Any]:
    if "booleanResult" in result:
        return {"boolean": result["booleanResult"]}
    if "numericResult" in result:
        numeric = result["numericResult"]
        return {"numeric": float(numeric.get("value", 0.0)), "confidence_interval": numeric.get("confidenceInterval")}
    return {"dict": result["dictResult"]}


def run_facts(run: Mapping[str, Any]) -> dict[str, Any]:
    """What the tests expect the reader to find in one run (subruns nested), read straight from the JSON."""
    return {
        "task": run["taskVersion"]["name"],
        "version_number": run["taskVersion"].get("versionNumber"),
        "model_slug": run.get("modelVersion", {}).get("slug"),
        "state": str(run["state"]).removeprefix("BENCHMARK_TASK_RUN_STATE_"),
        "cached": "conversations" not in run and "startTime" not in run,
        "start_time": _timestamp(run.get("startTime")),
        "end_time": _timestamp(run.get("endTime")),
        "result": _result_facts(run["results"][0]),
        "assertions": [
            str(a["status"]).removeprefix("BENCHMARK_TASK_RUN_ASSERTION_STATUS_") for a in run.get("assertions", [])
        ],
        "conversations": [_conversation_facts(c) for c in run.get("conversations", [])],
        "subruns": [run_facts(subrun) for subrun in run.get("subruns", [])],
    }


def write_facts(fixtures: Path, target: Path) -> None:
    """`expected_runs.json`: one entry per run file in `fixtures`."""
    try:
        shown = fixtures.resolve().relative_to(REPO)
    except ValueError:
        shown = fixtures
    facts: dict[str, Any] = {
        "_comment": (
            f"Written by scripts/make_kbench_fixtures.py --facts from {shown}/*.run.json (kaggle-benchmarks 0.6.2"
            " output), read straight from the JSON, not through the reader under test. One entry per run file;"
            " subruns nest. A call is the [role, text] messages sent, then the reply. Texts are as stored (after"
            " JSON string decoding). Regenerate this file whenever the fixtures are regenerated."
        )
    }
    for path in sorted(fixtures.glob("*.run.json")):
        facts[path.name] = run_facts(json.loads(path.read_text(encoding="utf-8")))
    target.write_text(json.dumps(facts, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


# -- command line ------------------------------------------------------------------------------------------------------


def fixture_names() -> list[str]:
    """Every file `generate` writes."""
    return sorted(name for demo in DEMOS_TO_RUN for name in demo.keep)


def _stale(out: Path) -> Iterator[Path]:
    keep = set(fixture_names())
    return (path for path in sorted(out.glob("*.json")) if path.name not in keep)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"target folder (default {DEFAULT_OUT})")
    parser.add_argument(
        "--facts",
        type=Path,
        nargs="?",
        const=DEFAULT_FACTS,
        help=f"also write the tests' facts about the run files (default path {DEFAULT_FACTS})",
    )
    parser.add_argument("--no-run", action="store_true", help="run nothing; use the files already in --out")
    parser.add_argument("--jobs", type=int, default=None, help="demos run at once (default: all, up to the CPUs)")
    args = parser.parse_args(argv)

    if not args.no_run:
        started = time.monotonic()
        print(f"running {len(DEMOS_TO_RUN)} demos with kaggle-benchmarks into {args.out}")
        written = generate(args.out, jobs=args.jobs)
        print(f"wrote {len(written)} files in {time.monotonic() - started:.1f} s")
    for path in _stale(args.out):
        print(f"warning: {path} is not a fixture this script writes (left alone)", file=sys.stderr)
    if args.facts:
        write_facts(args.out, args.facts)
        print(f"wrote facts to {args.facts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
