"""The server process: `python -m hallubench.tooling.embedded_model --port 0 --threads 1`.

Loads the verified GGUF into llama.cpp's own HTTP server (xllamacpp), listening on 127.0.0.1
only, prints one line `ready <url> load=<seconds>s` on stdout for the parent to wait for, then
sleeps until SIGTERM/SIGINT (clean exit, code 0) or, with `--watch-stdin`, until its stdin
closes: a parent that dies without stopping it then never leaves an orphan server behind.
Errors before `ready` go to stderr as one `error: ...` line and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from ..exit_codes import EXIT_USAGE
from .weights import MODEL_NAME, EmbeddedModelError, verified_gguf

XLLAMACPP_PIN = "xllamacpp==2026.10.11549"
DEFAULT_CONTEXT = 8192
DEFAULT_MAX_TOKENS = 768
LOOPBACK = "127.0.0.1"


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m hallubench.tooling.embedded_model",
        description=f"Serve {MODEL_NAME} (OpenAI-compatible) on {LOOPBACK}.",
    )
    parser.add_argument("--port", type=int, default=0, help="TCP port; 0 picks a free one (default 0)")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="llama.cpp threads (default 1: steady under CPU contention; 2 only on a quiet box)",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=DEFAULT_MAX_TOKENS,
        help=(
            "tokens generated for a request that sends no max_tokens (server n_predict, "
            f"default {DEFAULT_MAX_TOKENS}); kaggle-benchmarks never sends max_tokens"
        ),
    )
    parser.add_argument("--ctx", type=int, default=DEFAULT_CONTEXT, help=f"context size (default {DEFAULT_CONTEXT})")
    parser.add_argument("--watch-stdin", action="store_true", help="exit when stdin reaches EOF (the parent went away)")
    return parser


def build_params(gguf: Path, *, port: int, threads: int, ctx: int, max_tokens: int) -> Any:
    """llama.cpp server parameters; imported lazily so `--help` works without xllamacpp."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(gguf)
    params.model_alias = {MODEL_NAME}  # a set: a plain string would make one alias per character
    params.n_ctx = ctx
    params.n_predict = max_tokens
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.hostnames = [LOOPBACK]
    params.port = port
    return params


def _exit_now() -> NoReturn:
    """Leave without running the llama.cpp server's destructor.

    Tearing the server down joins its HTTP threads, which now and then hung past the 15 s a
    caller waits (seen once in CI); the process holds nothing that needs an orderly release.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    _exit_now()


def _exit_when_stdin_closes() -> None:
    # Raw fd reads: a daemon thread blocked in sys.stdin's buffered reader would hold its
    # lock at interpreter shutdown and abort the process.
    while os.read(0, 4096):
        pass  # returns b"" at EOF, i.e. when the parent closed the pipe or died
    os.kill(os.getpid(), signal.SIGTERM)


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    for name, value in (("--threads", args.threads), ("--max-tokens", args.max_tokens), ("--ctx", args.ctx)):
        if value < 1:
            print(f"error: {name} must be at least 1, got {value}", file=sys.stderr)
            return EXIT_USAGE
    try:
        gguf = verified_gguf()
    except EmbeddedModelError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    if importlib.util.find_spec("xllamacpp") is None:
        print(
            f"error: the llama.cpp runtime is not installed; install it with: pip install {XLLAMACPP_PIN}"
            " (or pip install 'hallubench[model]')",
            file=sys.stderr,
        )
        return EXIT_USAGE
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    import xllamacpp

    started = time.monotonic()
    try:
        params = build_params(gguf, port=args.port, threads=args.threads, ctx=args.ctx, max_tokens=args.max_tokens)
        server = xllamacpp.Server(params)
    except Exception as error:  # the runtime reports load failures as plain exceptions
        print(f"error: llama.cpp could not load {gguf}: {error}", file=sys.stderr)
        return EXIT_USAGE
    load_seconds = time.monotonic() - started
    print(f"ready {server.listening_address} load={load_seconds:.1f}s", flush=True)
    if args.watch_stdin:
        threading.Thread(target=_exit_when_stdin_closes, name="stdin-watch", daemon=True).start()
    try:
        while True:
            signal.pause()
    except KeyboardInterrupt:
        _exit_now()
