"""Checks on model output that keep a model's failure apart from a harness error.

A `CheckResult` is exactly one of three things:

* **pass**: the output meets the check;
* **fail**: the output does not, and that is the model's doing (wrong format, wrong content);
* **error**: the check itself could not decide: a `where` callback raised or returned a
  non-bool, a regex does not compile, an empty substring would pass everything, the output is
  not text. An error is never a pass (`passed` is False) and must never be counted as a fail;
  reports show it apart so a broken harness is not mistaken for a failing model.

This is the Python counterpart of the `Check`/`CheckResult` pair of the Dart package
`llm_eval` (pub.dev, MIT); no code is copied from it.

Fenced JSON: the contract of `Check.is_valid_json`
--------------------------------------------------
Models often wrap JSON in a markdown code fence. The raw output is always tried first. Only if
that fails, and only if ONE fence encloses the WHOLE trimmed reply, the fence is removed and
the body is parsed again; a pass that way carries the detail "parsed after stripping a markdown
code fence" and `provenance == "fenced"`, so reports can show each model's share of fenced
answers. A fence here is: an opening line of 3+ backticks or 3+ tildes, optional spaces, an
optional tag made of `[A-Za-z0-9_+-]` in any case (``json``, ``JSON``, ``jsonc``, ``js``, none),
optional spaces, a line break (LF or CRLF), the body, then a closing line of the same character
at least as long as the opening one (up to 3 leading spaces, trailing spaces or tabs allowed),
and nothing after it. The first closing line ends the fence, as in CommonMark. `strict=True`
turns the unwrapping off (a fenced reply then fails, with a detail saying why), for tasks
whose contract is "reply with JSON only".

Decisions, and where they differ from llm_eval 0.3.1, whose fallback is
``RegExp(r'```(?:json)?\\s*\\n?(.*?)\\n?```', dotAll: true).firstMatch(output)``:

=====================================  ==============  =============================================
reply                                  llm_eval 0.3.1  here, and why
=====================================  ==============  =============================================
```` ```json ```` fence around JSON     pass            pass (fenced)
bare ```` ``` ```` fence around JSON    pass            pass (fenced)
fence, then prose after it             pass            FAIL: the reply is not JSON, a consumer that
                                                       parses the message breaks, and the prose may
                                                       qualify the value; we unwrap, we don't search
prose, then a fence                    pass            FAIL, same reason
`where` sees the decoded fence body    yes             yes
fenced non-JSON                        fail            fail (never an error: the model's doing)
plain prose                            fail            fail
```` ```JSON ```` (upper-case tag)      fail (bug)      pass: tags are matched case-insensitively
```` ```jsonc ```` / other tags         fail (bug)      pass: any `[A-Za-z0-9_+-]*` tag is accepted;
                                                       the JSON parser decides, not the label
```` ~~~ ```` fences                    fail (bug)      pass: CommonMark fences of either character
backticks inside a JSON string         fail (bug)      pass: the body is cut at a closing *line*,
                                                       and a JSON string cannot contain a newline
a non-JSON block, then a JSON block    fail            fail: the reply is two blocks, not one
                                                       fence; the first block closes before the end
two JSON blocks, one after the other   pass            fail: two answers are not one JSON reply
a 4+ backtick fence                    fail (bug)      pass: CommonMark; the closing line may be longer
unclosed fence (no closing line)       fail            fail: usually a truncated reply; we do not
                                                       guess where the JSON ends
one-line ```` ```{"a": 1}``` ````       pass            fail: not a fence (a fence needs its own
                                                       opening and closing lines)
a `where` callback that raises         error           error
a `where` that returns a non-bool      (typed away)    error: `lambda v: v.get("k")` must not pass
                                                       by being truthy
NaN / Infinity literals                fail            fail: not JSON (RFC 8259), though Python's
                                                       `json` would accept them
=====================================  ==============  =============================================

Embedded into task files: standard library only, relative imports only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["pass", "fail", "error"]
STATUSES: tuple[Status, ...] = ("pass", "fail", "error")

FENCE_DETAIL = "parsed after stripping a markdown code fence"
WHERE_FALSE_DETAIL = "JSON parsed but the where condition returned false"

_WHOLE_REPLY_ONLY = "only a fence around the whole reply is removed"
_OPENING_FENCE = re.compile(r"(?P<fence>`{3,}|~{3,})[ \t]*(?P<tag>[A-Za-z0-9_+-]*)[ \t]*")
_CLOSING_FENCE = re.compile(r" {0,3}(?P<fence>`{3,}|~{3,})[ \t]*")


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check on one output: pass, fail or error, with a reason.

    `value` carries what the check extracted (the decoded JSON, the matched text), when it got
    that far. `provenance` says how the output was read, where that matters: `"raw"` or
    `"fenced"` for JSON.
    """

    status: Status
    detail: str = ""
    value: Any = None
    provenance: str | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, not {self.status!r}")

    @classmethod
    def pass_(cls, detail: str = "", value: Any = None, provenance: str | None = None) -> CheckResult:
        return cls("pass", detail, value, provenance)

    @classmethod
    def fail(cls, detail: str, value: Any = None, provenance: str | None = None) -> CheckResult:
        return cls("fail", detail, value, provenance)

    @classmethod
    def error(cls, detail: str, value: Any = None, provenance: str | None = None) -> CheckResult:
        return cls("error", detail, value, provenance)

    @property
    def passed(self) -> bool:
        """True only for a pass; an error is not a pass."""
        return self.status == "pass"

    @property
    def failed(self) -> bool:
        """True only for a fail; an error is not a fail."""
        return self.status == "fail"

    @property
    def is_error(self) -> bool:
        return self.status == "error"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able record of the result (for rows, reports and `hallubench check --json`)."""
        return {
            "status": self.status,
            "passed": self.passed,
            "detail": self.detail,
            "provenance": self.provenance,
            "value": self.value,
        }


def _describe_exception(context: str, exc: BaseException) -> str:
    return f"{context}: {type(exc).__name__}: {exc}"


@dataclass(frozen=True)
class Check:
    """A named test of one model output; `run` never raises, whatever the output or callback."""

    name: str
    evaluate: Callable[[str], CheckResult] = field(repr=False)

    def run(self, output: object) -> CheckResult:
        """Run the check; non-text output and unexpected exceptions become errors, not fails."""
        if not isinstance(output, str):
            return CheckResult.error(f"{self.name}: output is {type(output).__name__}, not text")
        try:
            return self.evaluate(output)
        except Exception as exc:
            return CheckResult.error(_describe_exception(f"{self.name} raised", exc))

    @staticmethod
    def is_valid_json(where: Callable[[Any], bool] | None = None, *, strict: bool = False) -> Check:
        """Passes when the output is JSON, or (unless `strict`) one fence around JSON; see the module doc."""

        def evaluate(output: str) -> CheckResult:
            return _check_json(output, where, strict)

        return Check("is_valid_json", evaluate)

    @staticmethod
    def contains(substring: str, case_sensitive: bool = True) -> Check:
        """Passes when `substring` occurs in the output; an empty one is an error (it passes anything)."""

        def evaluate(output: str) -> CheckResult:
            if not substring:
                return CheckResult.error("contains: the substring is empty, so the check could not fail")
            haystack, needle = (output, substring) if case_sensitive else (output.casefold(), substring.casefold())
            if needle in haystack:
                return CheckResult.pass_(f"output contains {substring!r}")
            how = "" if case_sensitive else " (ignoring case)"
            return CheckResult.fail(f"output does not contain {substring!r}{how}")

        return Check("contains", evaluate)

    @staticmethod
    def matches(pattern: str | re.Pattern[str], flags: int = 0) -> Check:
        """Passes when the regex is found anywhere in the output (`re.search`); `value` is the matched text.

        A pattern that does not compile is an error on every run, not an exception at build time:
        the broken check then shows up in each row it touched instead of losing them.
        """
        compiled: re.Pattern[str] | None = None
        compile_error = ""
        try:
            compiled = pattern if isinstance(pattern, re.Pattern) else re.compile(pattern, flags)
        except re.error as exc:
            compile_error = _describe_exception(f"matches: the regex {pattern!r} does not compile", exc)

        def evaluate(output: str) -> CheckResult:
            if compiled is None:
                return CheckResult.error(compile_error)
            found = compiled.search(output)
            if found is None:
                return CheckResult.fail(f"no match for /{compiled.pattern}/")
            return CheckResult.pass_(f"matched /{compiled.pattern}/ at {found.start()}", value=found.group(0))

        return Check("matches", evaluate)

    @staticmethod
    def equals(expected: str, strip: bool = True) -> Check:
        """Passes when the output equals `expected` (both stripped of surrounding whitespace if `strip`)."""

        def evaluate(output: str) -> CheckResult:
            got, want = (output.strip(), expected.strip()) if strip else (output, expected)
            if got == want:
                return CheckResult.pass_("output equals the expected text")
            return CheckResult.fail(f"expected {_preview(want)}, got {_preview(got)}")

        return Check("equals", evaluate)


def _preview(text: str, limit: int = 80) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} chars)"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _decode_json(text: str) -> tuple[bool, Any, str]:
    """(ok, value, error message); strict RFC 8259: NaN and Infinity are refused."""
    try:
        return True, json.loads(text, parse_constant=_reject_constant), ""
    except (ValueError, RecursionError) as exc:
        return False, None, str(exc)


def unwrap_whole_fence(text: str) -> tuple[str, str] | None:
    """(body, opening fence line) when one fence encloses the whole trimmed text, else None.

    The body is returned with LF line ends. The first closing line ends the fence, so a reply
    made of two blocks, or a block followed by prose, is not a whole-reply fence.
    """
    body, opening_line, _ = _split_whole_fence(text)
    return None if body is None else (body, opening_line)


def _split_whole_fence(text: str) -> tuple[str | None, str, str]:
    """(body or None, opening fence line, why there is no whole-reply fence: "" when there is)."""
    lines = [line.removesuffix("\r") for line in text.strip().split("\n")]
    opening = _OPENING_FENCE.fullmatch(lines[0])
    if opening is None:
        if any(_OPENING_FENCE.fullmatch(line.strip()) for line in lines[1:]):
            return (
                None,
                "",
                f"the reply has text before its first code fence; {_WHOLE_REPLY_ONLY}",
            )
        return None, "", ""
    fence = opening.group("fence")
    for position in range(1, len(lines)):
        closing = _CLOSING_FENCE.fullmatch(lines[position])
        if closing and closing.group("fence")[0] == fence[0] and len(closing.group("fence")) >= len(fence):
            if position != len(lines) - 1:
                return (
                    None,
                    lines[0],
                    f"the code fence opened by {lines[0]!r} closes on line {position + 1} "
                    f"and more text follows; {_WHOLE_REPLY_ONLY}",
                )
            return "\n".join(lines[1:position]), lines[0].strip(), ""
    return None, lines[0], f"the code fence opened by {lines[0]!r} is never closed"


def _check_json(output: str, where: Callable[[Any], bool] | None, strict: bool) -> CheckResult:
    ok, value, raw_error = _decode_json(output)
    fence_note = ""
    if not ok:
        body, opening_line, problem = _split_whole_fence(output)
        if body is None:
            return CheckResult.fail(f"not valid JSON: {raw_error}" + (f" ({problem})" if problem else ""))
        if strict:
            return CheckResult.fail(
                f"not valid JSON: the output is wrapped in a markdown code fence ({opening_line}), "
                "which strict mode does not remove"
            )
        ok, value, fenced_error = _decode_json(body)
        if not ok:
            return CheckResult.fail(
                f"not valid JSON, also after stripping a markdown code fence ({opening_line}): {fenced_error}"
            )
        fence_note = f"{FENCE_DETAIL} ({opening_line})"
    provenance = "fenced" if fence_note else "raw"
    if where is None:
        return CheckResult.pass_(fence_note or "parsed as JSON", value, provenance)
    try:
        verdict = where(value)
    except Exception as exc:
        return CheckResult.error(_describe_exception("is_valid_json where callback threw", exc), value, provenance)
    if not isinstance(verdict, bool):
        return CheckResult.error(
            f"is_valid_json where callback returned {type(verdict).__name__}, not bool", value, provenance
        )
    if not verdict:
        suffix = f" ({fence_note})" if fence_note else ""
        return CheckResult.fail(WHERE_FALSE_DETAIL + suffix, value, provenance)
    return CheckResult.pass_(fence_note or "parsed as JSON; the where condition held", value, provenance)


@dataclass(frozen=True)
class CheckSummary:
    """Counts over many results with errors kept apart, and rates that say their denominators."""

    total: int
    passed: int
    failed: int
    errors: int
    by_provenance: dict[str, int]

    @property
    def scored(self) -> int:
        """Results that said something about the model: passes plus fails (errors excluded)."""
        return self.passed + self.failed

    @property
    def pass_rate(self) -> float | None:
        """Passes over scored results; None when nothing was scored (never a made-up 0 or 1)."""
        return self.passed / self.scored if self.scored else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "pass": self.passed,
            "fail": self.failed,
            "error": self.errors,
            "scored": self.scored,
            "pass_rate": self.pass_rate,
            "by_provenance": dict(sorted(self.by_provenance.items())),
        }

    def line(self) -> str:
        """One human line, e.g. `pass 7/9 scored (77.8%), fail 2, error 1 of 10 total`."""
        rate = f"{self.pass_rate:.1%}" if self.pass_rate is not None else "n/a"
        text = (
            f"pass {self.passed}/{self.scored} scored ({rate}), fail {self.failed}, "
            f"error {self.errors} of {self.total} total"
        )
        if self.by_provenance:
            parts = ", ".join(f"{name} {count}" for name, count in sorted(self.by_provenance.items()))
            text += f"; read as: {parts}"
        return text


def summarize(results: Iterable[CheckResult]) -> CheckSummary:
    """Count pass/fail/error; provenance is counted over passes only (how the passing outputs were read)."""
    counts = {status: 0 for status in STATUSES}
    by_provenance: dict[str, int] = {}
    for result in results:
        counts[result.status] += 1
        if result.passed and result.provenance is not None:
            by_provenance[result.provenance] = by_provenance.get(result.provenance, 0) + 1
    return CheckSummary(
        total=sum(counts.values()),
        passed=counts["pass"],
        failed=counts["fail"],
        errors=counts["error"],
        by_provenance=by_provenance,
    )
