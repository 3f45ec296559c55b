"""Run a task file the way Kaggle does: `python <task>.py` with the Model Proxy variables pointing at
a loopback OpenAI-compatible stub, so the real kaggle-benchmarks writes its run files."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from support.openai_stub import Fault, OpenAIStub, ReplyScript

STUB_MODEL = "stub/model-a"


def run_like_kaggle(
    task: Path,
    out: Path,
    replies: ReplyScript,
    *,
    env: Mapping[str, str] | None = None,
    faults: int = 0,
    timeout_s: float = 600,
    model: str = STUB_MODEL,
) -> OpenAIStub:
    """Run `task` in `out` against a stub answering with `replies` (after `faults` HTTP 500s); returns the
    stopped stub, whose recorded requests tests may inspect. Fails the test when the run fails."""
    out.mkdir(parents=True, exist_ok=True)
    with OpenAIStub(replies=replies, model=model) as stub:
        if faults:
            stub.add_faults(*[Fault.status(500)] * faults)
        child_env = {k: v for k, v in os.environ.items() if not k.startswith(("MODEL_PROXY", "LLM"))}
        child_env.update(MODEL_PROXY_URL=stub.proxy_url, MODEL_PROXY_API_KEY="dummy", LLM_DEFAULT=model)
        child_env.update(env or {})
        done = subprocess.run(
            [sys.executable, str(task)], cwd=out, env=child_env, capture_output=True, text=True, timeout=timeout_s
        )
    assert done.returncode == 0, done.stderr[-3000:]
    return stub
