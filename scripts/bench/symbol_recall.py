"""Symbol recall: does the gate see the uses a reply makes, and decide them right? Per form and per language.

Reads every `*.toml` in the recall corpus (tests/hallucinated_packages/data/recall_corpus, format in its
README), runs each reply through the symbol gate (`check_answer`, language `auto`, told the removed API of
the v7 case a reply names), and matches the gate's symbol verdicts to the labelled uses: a verdict matches
a use when the last name of its symbol is the use's name and, when the use gives a line, the verdict is a use
written on that line (an import chain such as `requests.get` has no line of its own).

Targets, checked per language (exit code 1 when one is missed):

* recall >= 90 % on knowable uses (the receiver's type follows from annotations, returns, stubs or a
  constructor): the gate gives the labelled verdict;
* no wrong `missing-*` / `removed-api` on a control reply, nor on any use labelled `none`;
* every other use (not knowable, not `none`) is recorded as unverified (or as the labelled possible
  removed-API use), never dropped and never decided wrong.

Precision: of the gate's `missing-*` / `removed-api` verdicts on labelled uses, the share that the label
agrees with. The gate runs offline from cached registry answers: the first run fetches what it needs from
the live registries (PyPI, npm: a few dozen documents and ranged reads of a few artifacts) into the cache
folder; later runs, and any run with `--offline`, answer every request from it.

    .venv/bin/python scripts/bench/symbol_recall.py [--cache DIR] [--offline] [--language python] [--show]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import sys
import tomllib
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from hallubench.hallucinated_packages.checker import AnswerCheck, ReferenceVerdict, check_answer
from hallubench.hallucinated_packages.prompt_sets import V7_PROMPTS
from hallubench.hallucinated_packages.registry import RegistryClient
from hallubench.hallucinated_packages.settings import RegistrySettings

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "hallucinated_packages" / "data" / "recall_corpus"
HALLUCINATIONS = frozenset({"missing-symbol", "missing-submodule", "missing-subpath", "removed-api"})
RECALL_TARGET = 0.90


class CachedTransport(httpx.AsyncBaseTransport):
    """Every answer the gate gets, kept on disk by request (method, URL, range): fetched once, replayed after."""

    def __init__(self, folder: Path, *, offline: bool) -> None:
        self.folder = folder
        self.offline = offline
        self.live = httpx.AsyncHTTPTransport()
        self.fetched = 0
        self.replayed = 0
        folder.mkdir(parents=True, exist_ok=True)

    def _key(self, request: httpx.Request) -> str:
        parts = [request.method, str(request.url), request.headers.get("range", ""), request.headers.get("accept", "")]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        key = self._key(request)
        meta_path, body_path = self.folder / f"{key}.json", self.folder / f"{key}.body"
        if meta_path.exists() and body_path.exists():
            meta = json.loads(meta_path.read_text())
            self.replayed += 1
            return httpx.Response(meta["status"], headers=meta["headers"], content=body_path.read_bytes())
        if self.offline:
            raise httpx.ConnectError(f"offline and not cached: {request.url}", request=request)
        response = await self.live.handle_async_request(request)
        body = await response.aread()
        dropped = ("content-encoding", "transfer-encoding", "content-length")  # the body is kept decoded
        headers = [(k, v) for k, v in response.headers.items() if k.lower() not in dropped]
        body_path.write_bytes(body)
        meta_path.write_text(json.dumps({"status": response.status_code, "headers": headers, "url": str(request.url)}))
        self.fetched += 1
        return httpx.Response(response.status_code, headers=headers, content=body)

    async def aclose(self) -> None:
        await self.live.aclose()


@dataclass
class Tally:
    """Counts for one form or language."""

    knowable: int = 0
    knowable_right: int = 0
    flagged: int = 0  # missing-*/removed-api verdicts given on labelled uses
    flagged_right: int = 0
    control_wrong: int = 0
    other: int = 0
    other_recorded: int = 0
    other_wrong: int = 0
    no_result: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("knowable", "knowable_right", "flagged", "flagged_right", "control_wrong", "other",
                     "other_recorded", "other_wrong", "no_result"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.misses.extend(other.misses)


def last_name(symbol: str) -> str:
    names = re.findall(r"[A-Za-z_$][\w$]*", symbol)
    return names[-1] if names else symbol


def label_of(verdict: ReferenceVerdict) -> str:
    return "possible-removed-api" if verdict.possible_removed_api else verdict.verdict


def matching(use: Mapping[str, Any], verdicts: list[ReferenceVerdict]) -> list[ReferenceVerdict]:
    out = []
    for verdict in verdicts:
        if last_name(verdict.name) != use["name"]:
            continue
        if "line" in use and verdict.line != use["line"]:  # a labelled line names a use, not an import chain
            continue
        out.append(verdict)
    return out


def score_reply(reply: Mapping[str, Any], check: AnswerCheck | None) -> Tally:
    tally = Tally()
    verdicts = [v for v in (check.verdicts if check else ()) if v.level == "symbol"]
    where = reply["id"]
    for use in reply["uses"]:
        labelled = use["verdict"]
        found = matching(use, verdicts)
        labels = [label_of(v) for v in found]
        if check is None:
            tally.no_result += 1
            tally.misses.append(f"{where}: {use['name']}: no result from the gate")
            continue
        for label in labels:
            if label in HALLUCINATIONS:
                tally.flagged += 1
                tally.flagged_right += label == labelled
        wrong_flag = any(label in HALLUCINATIONS and label != labelled for label in labels)
        if (reply.get("control") or labelled == "none") and wrong_flag:
            tally.control_wrong += 1
            tally.misses.append(f"{where}: {use['name']}: control got {labels}")
            continue
        if labelled == "none":
            continue
        if use.get("knowable"):
            tally.knowable += 1
            if labelled in labels:
                tally.knowable_right += 1
            else:
                tally.misses.append(f"{where}: {use['name']}: want {labelled}, got {labels or 'nothing'}")
            continue
        tally.other += 1
        if labels:
            tally.other_recorded += 1
        if labelled not in labels and (not labels or wrong_flag):
            tally.other_wrong += 1
            tally.misses.append(f"{where}: {use['name']}: want {labelled}, got {labels or 'nothing'}")
    return tally


def pct(num: int, den: int) -> str:
    return f"{100 * num / den:5.1f} % ({num}/{den})" if den else "   n/a"


def line_for(name: str, tally: Tally) -> str:
    return (
        f"{name:28} recall {pct(tally.knowable_right, tally.knowable):20} "
        f"precision {pct(tally.flagged_right, tally.flagged):20} "
        f"others recorded {pct(tally.other_recorded, tally.other):18} control wrong {tally.control_wrong}"
        + (f"  no result {tally.no_result}" if tally.no_result else "")
    )


def load(corpus: Path, languages: set[str] | None) -> list[dict[str, Any]]:
    replies: list[dict[str, Any]] = []
    for path in sorted(corpus.glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            print(f"{path.name}: not readable ({exc}); skipped")
            continue
        for reply in data.get("reply", []):
            if languages is None or reply.get("language") in languages:
                replies.append({**reply, "file": path.name})
    return replies


async def run(replies: list[dict[str, Any]], transport: CachedTransport) -> list[tuple[AnswerCheck | None, str]]:
    targets = {p.prompt_id: p.removed_api for p in V7_PROMPTS if p.removed_api}
    async with RegistryClient(RegistrySettings(), transport=transport) as client:

        async def one(reply: Mapping[str, Any]) -> tuple[AnswerCheck | None, str]:
            try:
                target = targets.get(str(reply.get("case") or ""))
                return await check_answer(client, reply["reply"], lang="auto", removed_api=target), ""
            except Exception as exc:  # a gate that cannot read this language yet: printed, not fatal
                return None, f"{type(exc).__name__}: {exc}"

        return list(await asyncio.gather(*(one(r) for r in replies)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "hallubench" / "recall")
    parser.add_argument("--offline", action="store_true", help="answer every request from the cache only")
    parser.add_argument("--language", action="append", help="only this language (repeatable)")
    parser.add_argument("--show", action="store_true", help="print every miss")
    args = parser.parse_args(argv)
    replies = load(args.corpus, set(args.language) if args.language else None)
    transport = CachedTransport(args.cache, offline=args.offline)
    results = asyncio.run(run(replies, transport))
    by_form: dict[tuple[str, str], Tally] = defaultdict(Tally)
    by_language: dict[str, Tally] = defaultdict(Tally)
    for reply, (check, error) in zip(replies, results, strict=True):
        tally = score_reply(reply, check)
        if error:
            tally.misses.insert(0, f"{reply['id']}: gate raised {error}")
        by_form[(reply["language"], reply["form"])].add(tally)
        by_language[reply["language"]].add(tally)
    print(f"{len(replies)} replies; registry answers: {transport.fetched} fetched, {transport.replayed} from cache")
    failed: list[str] = []
    for language in sorted(by_language):
        print(f"\n== {language}")
        for (lang, form), tally in sorted(by_form.items()):
            if lang == language:
                print("  " + line_for(form, tally))
        total = by_language[language]
        print("  " + line_for("ALL", total))
        recall = total.knowable_right / total.knowable if total.knowable else 1.0
        checks = [
            (recall >= RECALL_TARGET, f"recall {100 * recall:.1f} % >= {100 * RECALL_TARGET:.0f} % on knowable uses"),
            (total.control_wrong == 0, f"no wrong missing/removed on controls ({total.control_wrong})"),
            (total.other_wrong == 0, f"every other use recorded as unverified ({total.other_wrong} not)"),
        ]
        for ok, text in checks:
            print(f"  {'PASS' if ok else 'FAIL'} {text}")
            if not ok:
                failed.append(f"{language}: {text}")
        if total.misses and (args.show or any(not ok for ok, _ in checks)):
            print("  misses:")
            for miss in total.misses:
                print(f"    {miss}")
    print("\nall targets met" if not failed else f"\n{len(failed)} target(s) missed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
