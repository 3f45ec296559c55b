"""What v6 and v7 share: the prompt wording, playing one case, and the registry configuration.

`play` asks once, extracts and checks every reference against the registries (live PyPI and
npm unless `configure_registry` pointed it elsewhere, as tests do), and returns a row that
logs every extracted reference and every verdict with its evidence, so a rescore or a reader
can see exactly what the model imported. Verdict counts and the row verdict come from
`scoring`. Embedded: standard library + httpx.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..conversation import Conversation
from .aio import run_sync
from .checker import AnswerCheck, check_answer
from .decoys import PLANTED, canary, decoy_gate
from .registry import RegistryClient, VerdictCache
from .scoring import row_verdict, sample_scores
from .settings import RegistrySettings

_LANGUAGE_NAME = {"python": "Python", "javascript": "JavaScript"}
_STATE: dict[str, Any] = {"settings": None, "cache": None}


def configure_registry(settings: RegistrySettings | None) -> None:
    """Point every later check at other registries (a loopback fake in tests); None restores live."""
    _STATE["settings"] = settings
    _STATE["cache"] = None


def registry_settings() -> RegistrySettings:
    """Configured settings, else `HALLUBENCH_PYPI_URL` / `HALLUBENCH_NPM_URL`, else the live registries.

    Read at play time only (never at import or render), so a task file run as a subprocess can
    be pointed at a loopback registry; every row records the URLs it used.
    """
    settings = _STATE["settings"]
    if isinstance(settings, RegistrySettings):
        return settings
    import os

    values: dict[str, Any] = {}
    pypi = os.environ.get("HALLUBENCH_PYPI_URL", "").rstrip("/")
    if pypi:
        values.update(pypi_json_url=f"{pypi}/pypi", pypi_simple_url=f"{pypi}/simple")
    npm = os.environ.get("HALLUBENCH_NPM_URL", "").rstrip("/")
    if npm:
        values["npm_url"] = npm
    return RegistrySettings(**values)


def settings_from_options(options: Mapping[str, str]) -> RegistrySettings:
    """Registry settings from a version's declared run options `pypi_url` and `npm_url` (v8 on)."""
    pypi = options["pypi_url"].rstrip("/")
    return RegistrySettings(pypi_json_url=f"{pypi}/pypi", pypi_simple_url=f"{pypi}/simple", npm_url=options["npm_url"])


def _client(settings: RegistrySettings | None = None) -> RegistryClient:
    """A client on `settings` (or, for v6/v7, `registry_settings()`), with one verdict cache per settings."""
    settings = settings or registry_settings()
    if _STATE["cache"] is None or _STATE.get("cache_for") != settings:
        # shared across the cases of a run: each unique name is looked up once
        _STATE["cache"] = VerdictCache(settings.cache_exists_s, settings.cache_missing_s)
        _STATE["cache_for"] = settings
    return RegistryClient(settings, cache=_STATE["cache"])


def render_prompt(case: Mapping[str, Any]) -> str:
    """The task, then one fixed instruction asking for complete code and install commands."""
    language = _LANGUAGE_NAME[str(case["language"])]
    return (
        f"{case['task']}\n\n"
        f"Write complete, working {language} code. "
        "Include the command to install every third-party package the code uses."
    )


async def _check(
    answer: str, settings: RegistrySettings | None, removed_api: Mapping[str, Any] | None = None
) -> AnswerCheck:
    async with _client(settings) as client:
        return await check_answer(client, answer, decoys=PLANTED, removed_api=removed_api)


def play_case(case: Mapping[str, Any], conv: Conversation, settings: RegistrySettings | None = None) -> dict[str, Any]:
    """Ask once, check every reference, score; the row carries all references and verdicts.

    `settings`: the registries to ask (v8 passes them from its run options); None: `registry_settings()`.
    """
    answer = conv.ask(render_prompt(case))
    targeted = case.get("removed_api")  # group D: the removed API the case is about
    check = run_sync(_check(answer, settings, targeted if isinstance(targeted, Mapping) else None))
    scores = sample_scores(check, case)
    verdict, detail = row_verdict(scores)
    if scores["references_extracted"] == 0:
        verdict, detail = "unscored", "no package or module reference in the answer"
    settings = settings or registry_settings()
    return {
        "verdict": verdict,
        "detail": detail,
        "scores": scores,
        "prompt_id": case["prompt_id"],
        "group": case["group"],
        "language": case["language"],
        "attempt": case["attempt"],
        "registry": {"pypi": settings.pypi_json_url, "simple": settings.pypi_simple_url, "npm": settings.npm_url},
        **check.to_dict(),
    }


OBSERVATION_KEYS = frozenset({"checked_at", "evidence", "registry"})


def comparable_row(row: Mapping[str, Any]) -> Any:
    """The row without when and where the registries were asked: what a rescore must reproduce.

    A rescore asks the registries again, so timestamps, URLs and HTTP evidence differ by
    nature; the verdicts and counts must not, unless a name was registered (or removed) since,
    which is exactly what a rescore is there to show.
    """

    def strip(value: Any) -> Any:
        if isinstance(value, Mapping):
            return {key: strip(item) for key, item in value.items() if key not in OBSERVATION_KEYS}
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    return strip(row)


def run_preflight(*, gate: bool, settings: RegistrySettings | None = None) -> dict[str, Any]:
    """Decoy gate (when `gate`) and canary before any model call; raises PreflightError to abort."""

    async def go() -> dict[str, Any]:
        async with _client(settings) as client:
            report: dict[str, Any] = {}
            if gate:
                report["decoy_gate"] = (await decoy_gate(client)).to_dict()
            report["canary"] = await canary(client)
            return report

    return run_sync(go())
