"""`hallubench run`: try a task file locally under the real kaggle-benchmarks library.

Exit codes: 0 the task ran and every stored task run COMPLETED; 1 the task file ran but
failed (its log tail is shown); 2 nothing ran (bad arguments, task file or kaggle-benchmarks
missing, endpoint unreachable, embedded model unavailable).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path

from ..exit_codes import EXIT_FAILED, EXIT_JAIL, EXIT_NOT_STARTED
from ..jail.policy import JailPolicy, JailRefused, parse_accepted
from .rescore import add_jail_option

DESCRIPTION = """\
Run a task file (a name from the protocol registry, or a path to a .py file) under the real
kaggle-benchmarks library, as Kaggle would, against the embedded SmolLM2-135M model (default,
started and stopped by this command, no network needed), any OpenAI-compatible endpoint
(--base-url), or kaggle-benchmarks' own Model Proxy configuration (--model proxy: MODEL_PROXY_URL,
MODEL_PROXY_API_KEY, LLM_DEFAULT, or a .env file). The task's *.task.json and *.run.json files,
run.log (the task's console output) and progress.jsonl are written to the output directory."""

EPILOG = """\
examples:
  hallubench run hallumaze --limit 3
  hallubench run tasks/hallumaze_v2.py --base-url http://127.0.0.1:8000/v1 --model-name my-model
  OPENAI_API_KEY=... hallubench run hallumaze --base-url https://api.openai.com/v1 \\
      --model-name gpt-4o-mini --api-key-env OPENAI_API_KEY

exit codes: 0 every stored task run completed; 1 the task file failed; 2 nothing ran;
with --html, 3-5 when the rescore of the run files finds a problem (as `hallubench rescore`)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a task file locally under kaggle-benchmarks (embedded model or any endpoint)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "task", metavar="TASK_OR_FILE", help="registry name (e.g. hallumaze) or path to a .py task file"
    )
    model = parser.add_argument_group("model (default: --model embedded)")
    model.add_argument(
        "--model",
        choices=("embedded", "proxy"),
        default=None,
        help="embedded: SmolLM2-135M-Instruct on 127.0.0.1; proxy: kaggle-benchmarks' MODEL_PROXY_* configuration",
    )
    model.add_argument("--base-url", metavar="URL", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    model.add_argument(
        "--model-name", metavar="NAME", help="model name sent to --base-url (and the run files' model slug)"
    )
    model.add_argument(
        "--api-key-env", metavar="VAR", help="environment variable holding the API key for --base-url (default: none)"
    )
    model.add_argument("--threads", type=int, metavar="N", help="embedded model: llama.cpp threads (default 1)")
    model.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="embedded model: tokens generated per reply (default 768; kaggle-benchmarks sends no max_tokens)",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="run only the first N cases")
    parser.add_argument(
        "--cases",
        metavar="PATTERNS",
        help="only cases whose id matches one of these comma-separated patterns, e.g. '*-int-*' (before --limit)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set one of the version's declared run options (repeatable); hosted runs use the defaults, "
        "every row records the values it was played under",
    )
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="output directory (default runs/<task>/<model>/<UTC timestamp>)"
    )
    parser.add_argument("--no-progress", action="store_true", help="do not draw the progress bar on stderr")
    add_jail_option(parser)
    parser.add_argument(
        "--html",
        type=Path,
        metavar="OUT",
        help="then rescore the run files (as `hallubench rescore DIR --html OUT` would) and write the HTML report",
    )
    parser.set_defaults(handler=handle)


def _error(message: str) -> int:
    print(f"hallubench run: error: {message}", file=sys.stderr)
    return EXIT_NOT_STARTED


def resolve_task_file(task: str) -> Path:
    """A path as given, or the newest version's task file of a protocol name."""
    from ..runner import RunnerError
    from ..task_lookup import TaskNotFound, find_task

    try:
        return find_task(task).require_built()
    except TaskNotFound as error:
        raise RunnerError(str(error)) from None


def handle(args: argparse.Namespace) -> int:
    from ..jail.describe import describe_layers
    from ..rescore.options import OptionError, parse_options
    from ..runner import (
        KAGGLE_INSTALL_HINT,
        Model,
        ModelEndpoint,
        ModelProxy,
        RunnerError,
        default_out_dir,
        kaggle_benchmarks_installed,
        run_task_file,
    )

    embedded = args.model == "embedded" or (args.model is None and args.base_url is None)
    if args.base_url is not None and args.model is not None:
        return _error("--model and --base-url exclude each other")
    if args.base_url is not None and not args.model_name:
        return _error("--base-url needs --model-name")
    if args.base_url is None and (args.model_name or args.api_key_env):
        return _error("--model-name and --api-key-env need --base-url")
    if not embedded and (args.threads is not None or args.max_tokens is not None):
        return _error("--threads and --max-tokens apply to the embedded model only")
    for name, value in (("--limit", args.limit), ("--threads", args.threads), ("--max-tokens", args.max_tokens)):
        if value is not None and value < 1:
            return _error(f"{name} must be at least 1, got {value}")
    try:
        task_file = resolve_task_file(args.task)
        run_options = parse_options(args.option)
        jail = _jail_for(task_file, args.jail_without)
    except (RunnerError, OptionError, ValueError) as error:
        return _error(str(error))
    missing_data = _data_problem(task_file)
    if missing_data is not None:
        return _error(missing_data)
    unreachable = _unreachable_services(task_file, run_options)
    if unreachable is not None:
        return _error(unreachable)
    if not kaggle_benchmarks_installed():
        return _error(f"kaggle-benchmarks is not installed; install it with: {KAGGLE_INSTALL_HINT}")

    api_key = "none"
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env, "")
        if not api_key:
            return _error(f"environment variable {args.api_key_env} (from --api-key-env) is not set")

    from ..embedded_model import DEFAULT_MAX_TOKENS, MODEL_NAME, EmbeddedModelError, EmbeddedModelServer

    planned: Model
    if embedded:
        planned = ModelEndpoint(base_url="http://127.0.0.1/v1", model_name=MODEL_NAME)
    elif args.model == "proxy":
        planned = ModelProxy()
    else:
        planned = ModelEndpoint(base_url=args.base_url, model_name=args.model_name, api_key=api_key)
    out_dir: Path = args.out if args.out is not None else default_out_dir(task_file, planned)
    print(f"hallubench run: {task_file} -> {out_dir}", file=sys.stderr)

    with ExitStack() as stack:
        model: Model = planned
        if embedded:
            out_dir.mkdir(parents=True, exist_ok=True)
            server = EmbeddedModelServer(
                threads=args.threads or 1,
                max_tokens=args.max_tokens or DEFAULT_MAX_TOKENS,
                log_path=out_dir / "embedded-model.log",
            )
            try:
                stack.enter_context(server)
            except EmbeddedModelError as error:
                return _error(str(error))
            print(
                f"hallubench run: embedded model {server.model_name} ready at {server.base_url}"
                f" (load {server.load_seconds}s)",
                file=sys.stderr,
            )
            model = ModelEndpoint(base_url=server.base_url, model_name=server.model_name)
        try:
            outcome = run_task_file(
                task_file,
                model=model,
                out_dir=out_dir,
                limit=args.limit,
                cases=args.cases,
                run_options=run_options,
                progress=not args.no_progress,
                jail=jail,
                readable=_data_files(),
            )
        except RunnerError as error:
            return _error(str(error))
        except JailRefused as refused:
            print(f"hallubench run: {refused}", file=sys.stderr)
            return EXIT_JAIL

    stored = outcome.stored_runs
    row_files = [run for run in outcome.run_files if run not in stored]
    print(
        f"wrote {len(outcome.run_files)} run files and {len(outcome.task_files)} task file in {outcome.seconds:.1f}s:"
    )
    for path in outcome.task_files:
        print(f"  {path.name}  (the task's definition)")
    for run in stored:
        print(f"  {run.path.name}  {run.state.removeprefix('BENCHMARK_TASK_RUN_STATE_')}  {run.subruns} rows")
    if row_files:
        print(
            f"  {len(row_files)} row run files, one per row, each repeating a row of the run above "
            "(rescore counts each row once)"
        )
    print(f"output: {outcome.out_dir}")
    if outcome.jail is not None:
        print(f"model-written code ran in the jail: {describe_layers(outcome.jail)}")
    if outcome.problem is not None:
        print(f"hallubench run: failed: {outcome.problem}", file=sys.stderr)
        tail = outcome.log_tail()
        if tail:
            print(f"--- last lines of {outcome.log_path} ---\n{tail}", file=sys.stderr)
        return EXIT_FAILED
    if args.html is not None:
        return _rescore_with_page(task_file, outcome.out_dir, args.html)
    return 0


def _jail_for(task_file: Path, without: list[str]) -> JailPolicy | None:
    """The jail for a task file whose protocol runs model-written code (None for the others)."""
    from ..specs import installed_registry
    from ..taskfile.reader import TaskFileError, read_task_file

    try:
        spec = installed_registry().spec(read_task_file(task_file).protocol_id)
    except TaskFileError:
        spec = None
    if spec is None or not spec.executes_model_code:
        return None
    return JailPolicy(nested_namespaces=spec.executor_namespaces, accept_missing=parse_accepted(without))


def _data_problem(task_file: Path) -> str | None:
    """Why the task cannot start for want of the data its `prepare` loads (said before anything runs), or None."""
    from ..contract_check import resolve_hooks
    from ..specs import HookError, installed_registry
    from ..taskfile.reader import FrozenProtocol, TaskFileError, read_task_file

    try:
        task = read_task_file(task_file)
    except TaskFileError:
        return None  # the run itself reports it
    registry = installed_registry()
    spec = registry.spec(task.protocol_id)
    if spec is None or not spec.prepare:
        return None
    frozen = FrozenProtocol(task)
    try:
        resolve_hooks(frozen.entry, task.cases, spec)
    except HookError as exc:
        benchmark = registry.benchmark_of(task.protocol_id)
        help_text = benchmark.data_help if benchmark is not None and benchmark.data_help else ""
        return f"{task.protocol_id} cannot start: {exc}" + (f"\n{help_text}" if help_text else "")
    finally:
        frozen.close()
    return None


def _unreachable_services(task_file: Path, options: Mapping[str, str]) -> str | None:
    """Why the run cannot start because a service it needs gives no answer here (the registries), or None."""
    from ..specs import installed_registry, load_hook
    from ..taskfile.reader import TaskFileError, read_task_file

    try:
        protocol_id = read_task_file(task_file).protocol_id
    except TaskFileError:
        return None  # the run itself reports it
    registry = installed_registry()
    benchmark, spec = registry.benchmark_of(protocol_id), registry.spec(protocol_id)
    if benchmark is None or spec is None or benchmark.reachability is None:
        return None
    resolved = {option.name: option.default for option in spec.run_options} | dict(options)
    print(f"hallubench run: checking that the services {protocol_id} needs answer", file=sys.stderr)
    found: list[str] = load_hook(benchmark.reachability, "reachability")(resolved)
    if not found:
        return None
    return (
        f"registries unreachable: {'; '.join(found)}. {protocol_id} checks every package against them, so "
        "nothing was run; run where they answer, or point it at a mirror"
        + (
            " (--option pypi_url=URL --option npm_url=URL)"
            if spec.run_options
            else " ($HALLUBENCH_PYPI_URL, $HALLUBENCH_NPM_URL)"
        )
    )


def _data_files() -> tuple[str, ...]:
    """Files a task file reads by path that the jail must show (HumanEvalPack, for misled-tests' `prepare`)."""
    from ...misled_tests.data import ENV_VAR, default_cache_path

    return tuple(path for path in (os.environ.get(ENV_VAR, ""), str(default_cache_path())) if path)


def _rescore_with_page(task_file: Path, out_dir: Path, html: Path) -> int:
    """Verify and score the run just made, exactly as `hallubench rescore` does, and write its HTML page."""
    from ..cli import make_parser

    print(f"\nhallubench rescore {out_dir} --task {task_file} --html {html}\n")
    rescore = make_parser().parse_args(["rescore", str(out_dir), "--task", str(task_file), "--html", str(html)])
    code: int = rescore.handler(rescore)
    return code
