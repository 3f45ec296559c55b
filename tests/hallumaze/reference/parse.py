"""Read a reply in the HalluMaze answer format: STEP lines, declarations, claimed counts, FINAL_PATH.

Parsing only records what the model *wrote*; whether any of it is true is decided by `verify`.
Tolerant where models vary (Markdown emphasis, fences, `Step 3`, arrows or letters or words for
directions, a target cell instead of a direction, `confidence: 80%`, `확신도: 80%`, `0.8`),
strict where tolerance would invent data: a STEP line without a readable cell and direction is
recorded as unreadable (a format failure), never guessed; a missing confidence stays missing.
`<think>...</think>` blocks are dropped first, as v1.1 did, since they are not the answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import compress, count, repeat
from operator import itemgetter, truediv
from typing import NamedTuple, TypeVar

from hallubench.hallumaze.grid import Cell, direction_between

_T = TypeVar("_T")
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_STEP = re.compile(r"(?:\d+[.)]\s*)?step\s*#?\s*(\d+)\s*[:.)\]]?", re.I)
_CELL = re.compile(r"\(\s*(\d+)\s*,\s*(\d+)\s*\)")
_SEPARATOR = re.compile(r"^\s*(?:->|=>|→|-|:|=)?\s*")
_DIRECTION_TOKEN = re.compile(
    r"\(\s*(\d+)\s*,\s*(\d+)\s*\)"
    r"|(?i:\b(north|south|east|west|up|down|left|right)\b)"
    r"|(?<![A-Za-z])([NSEW])(?![A-Za-z])"
    r"|([↑↓→←])"
    r"|([북남동서])"
)
_WORDS = {"north": "N", "up": "N", "south": "S", "down": "S", "east": "E", "right": "E", "west": "W", "left": "W"}
_ARROWS = {"↑": "N", "↓": "S", "→": "E", "←": "W"}
_KOREAN = {"북": "N", "남": "S", "동": "E", "서": "W"}
_CONFIDENCE = re.compile(r"(?:confidence|conf\.?|certainty|확신도)\s*[:=]?\s*(\d{1,3}(?:\.\d+)?)\s*(%?)", re.I)
_BARE_PERCENT = re.compile(r"\|\s*(\d{1,3}(?:\.\d+)?)\s*%")
_DEAD_END = re.compile(
    r"dead(?:_end(?:\s+(?:at|@))?\s*| end\s+(?:at|@)\s*(?=\())(?:\(\s*(\d+)\s*,\s*(\d+)\s*\))?", re.I
)
_LOOP = re.compile(r"loop[_ ]detected(?:\s+(?:at|@))?\s*(?:\(\s*(\d+)\s*,\s*(\d+)\s*\))?", re.I)
_STRATEGY = re.compile(r"strategy[_ ]change", re.I)
_BACKTRACK_COUNT = re.compile(r"backtrack_count\W{0,6}(\d+)", re.I)
_HALLUCINATION_COUNT = re.compile(r"hallucination_count\W{0,6}(\d+)", re.I)
_LOG_ENTRY = re.compile(r"step\s*(\d+)\s*[:=]\s*(\d{1,3}(?:\.\d+)?)\s*%?", re.I)
_PATH_ONLY = re.compile(r"^[\s\d,()→\->=.*`\[\]]*$")
# The answer format exactly as the prompt shows it, read in one match (the tolerant path costs
# several searches per line, and a reply can hold hundreds of STEP lines). Groups 5 and 6 are
# `_CONFIDENCE`'s, at the place its search would find them first.
# A whole raw line in the canonical format with a stated confidence, and a reason that names no
# dead end, loop or strategy change and holds nothing `_clean` removes: it yields exactly one
# StepLine and nothing else, so the line loop takes it in one match.
_PLAIN_STEP_LINE = re.compile(
    r"STEP (\d+): \((\d+),(\d+)\) → \[([NSEW])\] \| confidence: (100|\d{1,2})%"
    r"(?: \| (?i:(?!dead|loop|strategy)[^*`])*)?"
)
# The same lines read all at once: one multiline scan gives, per line, either the groups of a
# `_PLAIN_STEP_LINE` line (its cell as "r,c" in group 2, its reason in group 5), or a DEAD_END
# line as the prompt shows it (group 6, its cell in 7 and 8: it yields that one dead end and
# nothing else), or the whole line (group 9). Valid only where
# "\n" is the only line break `str.splitlines` knows: a canonical line holds no other, so
# `_ODD_BREAK` needs to look only at the other lines.
_EVERY_LINE = re.compile(
    r"^(?:STEP (\d+): \((\d+,\d+)\) → \[([NSEW])\] \| confidence: (100|\d{1,2})%"
    r"(?: \| ((?i:(?!dead|loop|strategy)[^*`\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029])*))?$"
    r"|(DEAD_END at \((\d+),(\d+)\)(?i:(?!dead|loop|strategy|step)[^*`_\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029])*)$"
    r"|(.*))",
    re.M,
)
_ODD_BREAK = re.compile("[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
# Non-ASCII characters outside a few caseless blocks (punctuation, arrows, box drawing, CJK
# punctuation, Hangul syllables): a text without them changes only its ASCII letters under
# `upper()`/`lower()`, so their positions, and every label match, are the same in it.
CASED_NON_ASCII = re.compile("[^\x00-\x7f\u2010-\u2027\u2190-\u21ff\u2500-\u257f\u3000-\u303f\uac00-\ud7a3]")
# A word a STEP reader (here or v1.1's) could start at: checked outside the canonical heads.
_STEP_WORD = re.compile(r"step\s", re.I)
_new_step = tuple.__new__
_FIRST, _SECOND = itemgetter(0), itemgetter(1)
_CANONICAL_STEP = re.compile(
    r"STEP (\d+): \((\d+),(\d+)\) → \[([NSEW])\](?: \| confidence: (\d{1,3}(?:\.\d+)?)\s*(%?))?"
)


class StepLine(NamedTuple):
    """One STEP line as written: the cell the model says it is in and the move it declares.

    A named tuple rather than a dataclass: replies carry hundreds of these and they are built
    on every rescore.
    """

    number: int
    cell: Cell
    direction: str | None
    target: Cell | None
    confidence: float | None
    line_no: int


@dataclass(frozen=True)
class ParsedReply:
    """Everything the reply states, nothing verified."""

    steps: tuple[StepLine, ...] = ()
    unreadable_steps: tuple[int, ...] = ()
    invalid_confidences: int = 0
    dead_ends: tuple[Cell | None, ...] = ()
    loops: tuple[Cell | None, ...] = ()
    strategy_changes: int = 0
    backtrack_count: int | None = None
    hallucination_count: int | None = None
    confidence_log: dict[int, float] = field(default_factory=dict)
    final_path: tuple[Cell, ...] | None = None
    # Not part of what the reply states (left out of equality): when not None, the reply held no
    # think block and no "step" word outside the heads of its canonical STEP lines (each of which
    # is one of `steps`); this is the rest of its text (other lines, reasons) joined by newlines,
    # which a reader that scans the whole reply for STEP lines or keywords may scan instead.
    outside_steps: str | None = field(default=None, compare=False, repr=False)


def _clean(line: str) -> str:
    return line.replace("**", "").replace("`", "").replace("__", "_").strip().lstrip("->#* ").strip()


def _confidence(text: str) -> tuple[float | None, bool]:
    """(confidence in [0, 1] or None, whether a stated value was out of range)."""
    match = _CONFIDENCE.search(text) or _BARE_PERCENT.search(text)
    if match is None:
        return None, False
    return _confidence_value(match.group(1), match.re is _BARE_PERCENT or bool(match.group(2)))


def _confidence_value(raw: str, has_percent: bool) -> tuple[float | None, bool]:
    value = float(raw)
    if "." in raw and not has_percent and value <= 1.0:
        return value, False
    if value > 100:
        return None, True
    return value / 100.0, False


def _direction(rest: str, origin: Cell) -> tuple[str | None, Cell | None]:
    """The declared move: a direction, or a non-adjacent target cell, or (None, None)."""
    rest = _SEPARATOR.sub("", rest, count=1)
    if rest.startswith("["):
        end = rest.find("]")
        segment = rest[1:end] if end > 0 else rest[1:]
    else:
        segment = rest.split("|", 1)[0]
    token = _DIRECTION_TOKEN.search(segment)
    if token is None:
        return None, None
    if token.group(1) is not None:
        target = (int(token.group(1)), int(token.group(2)))
        name = direction_between(origin, target)
        return (name, None) if name is not None else (None, target)
    if token.group(3) is not None:
        return _WORDS[token.group(3).lower()], None
    if token.group(4) is not None:
        return token.group(4), None
    if token.group(5) is not None:
        return _ARROWS[token.group(5)], None
    return _KOREAN[token.group(6)], None


def _step_line(line: str, head: re.Match[str], line_no: int) -> tuple[StepLine | None, bool]:
    """A STEP line's cell, move and confidence; None when no cell or no move can be read."""
    cell_match = _CELL.search(line, head.end())
    if cell_match is None or cell_match.start() - head.end() > 12:
        return None, False
    origin = (int(cell_match.group(1)), int(cell_match.group(2)))
    rest = line[cell_match.end() :]
    name, target = _direction(rest, origin)
    if name is None and target is None:
        return None, False
    conf, bad = _confidence(rest)
    return StepLine(int(head.group(1)), origin, name, target, conf, line_no), bad


def _canonical_step_line(line: str, match: re.Match[str], line_no: int) -> tuple[StepLine, bool]:
    """`_step_line` for a line in the canonical format, without its searches (same result)."""
    if match[5] is not None:
        conf, bad = _confidence_value(match[5], bool(match[6]))
    else:
        conf, bad = _confidence(line[match.end() :])
    return StepLine(int(match[1]), (int(match[2]), int(match[3])), match[4], None, conf, line_no), bad


def _final_path(lines: list[str]) -> tuple[Cell, ...] | None:
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        at = line.upper().find("FINAL_PATH")
        if at < 0:
            continue
        text = line[at + len("FINAL_PATH") :]
        for follower in lines[index + 1 :]:
            if not follower.strip() or not _PATH_ONLY.match(follower):
                break
            text += follower
        cells = tuple([(int(r), int(c)) for r, c in _CELL.findall(text)])
        if cells:
            return cells
    return None


def anchored_matches(
    pattern: re.Pattern[str], text: str, underscore_at: int, *, from_end: bool = False
) -> Iterator[re.Match[str]]:
    """Matches of a case-insensitive `pattern` whose every match has "_" at `underscore_at`, in order.

    The same matches a scan finds when matches cannot overlap (a label such as
    BACKTRACK_COUNT holds one "_"), but tried only at the few places a "_" allows: a
    case-insensitive scan visits every position of a long reply, and "_" has no other case.
    """
    if from_end:
        at = text.rfind("_")
        while at >= underscore_at:
            match = pattern.match(text, at - underscore_at)
            if match is not None:
                yield match
            at = text.rfind("_", underscore_at, at)
    else:
        at = text.find("_", underscore_at)
        while at >= 0:
            match = pattern.match(text, at - underscore_at)
            if match is not None:
                yield match
            at = text.find("_", at + 1)


def _claimed_counts(text: str) -> tuple[int | None, int | None]:
    """The last BACKTRACK_COUNT and the last HALLUCINATION_COUNT the text states."""
    counts: list[int | None] = []
    for pattern, underscore_at in ((_BACKTRACK_COUNT, 9), (_HALLUCINATION_COUNT, 13)):
        last = next(anchored_matches(pattern, text, underscore_at, from_end=True), None)
        counts.append(int(last.group(1)) if last is not None else None)
    return counts[0], counts[1]


class _Other:
    """What the lines outside the one-match format add up to (the tolerant, per-line reader)."""

    __slots__ = ("dead_end_lines", "dead_ends", "invalid", "loops", "steps", "strategy", "unreadable")

    def __init__(self) -> None:
        self.steps: list[StepLine] = []
        self.unreadable: list[int] = []
        self.invalid = 0
        self.dead_ends: list[Cell | None] = []
        self.dead_end_lines: list[int] = []
        self.loops: list[Cell | None] = []
        self.strategy = 0

    def read(self, raw: str, line_no: int) -> None:
        line = _clean(raw)
        if not line:
            return
        lower = line.lower()
        if "step" in lower[:12]:
            canonical = _CANONICAL_STEP.match(line)
            head = canonical or _STEP.match(line)
            if head is not None:
                step: StepLine | None
                if canonical is not None:
                    step, bad = _canonical_step_line(line, canonical, line_no)
                else:
                    step, bad = _step_line(line, head, line_no)
                self.invalid += int(bad)
                if step is None:
                    self.unreadable.append(line_no)
                else:
                    self.steps.append(step)
        if "dead" in lower:
            for m in _DEAD_END.finditer(line):
                self.dead_ends.append((int(m.group(1)), int(m.group(2))) if m.group(1) is not None else None)
                self.dead_end_lines.append(line_no)
        if "loop" in lower:
            for m in _LOOP.finditer(line):
                self.loops.append((int(m.group(1)), int(m.group(2))) if m.group(1) is not None else None)
        if "strategy" in lower:
            self.strategy += len(_STRATEGY.findall(line))


class _Table(dict[str, _T]):
    """A lookup table of small tokens ("3,4" -> (3, 4), "85" -> 0.85) that computes, without storing, what it lacks."""

    def __init__(self, convert: Callable[[str], _T], keys: Iterable[str]) -> None:
        super().__init__((key, convert(key)) for key in keys)
        self._convert = convert

    def __missing__(self, key: str) -> _T:
        return self._convert(key)


def _cell_of(token: str) -> Cell:
    r, c = token.split(",")
    return (int(r), int(c))


_CELL_OF = _Table(_cell_of, (f"{r},{c}" for r in range(64) for c in range(64)))
_PERCENT_OF = _Table(lambda token: int(token) / 100.0, [*map(str, range(101)), *(f"0{d}" for d in range(10))])


def _plain_steps(columns: list[tuple[str, ...]]) -> list[StepLine]:
    """The StepLines of the `_PLAIN_STEP_LINE` lines, from the columns of `_EVERY_LINE` matches."""
    numbers, cells, names, confidences = columns[:4]
    return list(
        map(
            _new_step,
            repeat(StepLine),
            zip(
                map(int, filter(None, numbers)),
                map(_CELL_OF.__getitem__, filter(None, cells)),
                filter(None, names),
                repeat(None),
                map(_PERCENT_OF.__getitem__, filter(None, confidences)),
                compress(count(1), numbers),
            ),
        )
    )


def _final_path_of_text(text: str) -> tuple[Cell, ...] | None:
    """`_final_path(text.splitlines())` for a text whose only line break is "\\n".

    Only lines holding a "_" can hold FINAL_PATH (no character upper-cases to "_"), so only
    those are looked at, from the last one up.
    """
    at = text.rfind("_")
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        stop = text.find("\n", at)
        if stop < 0:
            stop = len(text)
        line = text[start:stop]
        label = line.upper().find("FINAL_PATH")
        if label >= 0:
            found = line[label + len("FINAL_PATH") :]
            follower_at = stop + 1
            while follower_at <= len(text):
                end = text.find("\n", follower_at)
                if end < 0:
                    end = len(text)
                follower = text[follower_at:end]
                if not follower.strip() or not _PATH_ONLY.match(follower):
                    break
                found += follower
                follower_at = end + 1
            pairs = _CELL.findall(found)
            if pairs:
                return tuple(zip(map(int, map(_FIRST, pairs)), map(int, map(_SECOND, pairs)), strict=True))
        at = text.rfind("_", 0, start)
    return None


def _confidence_log_at(text: str, caseless: bool) -> int:
    """`text.upper().rfind("CONFIDENCE_LOG")`; `caseless`: the text has no `CASED_NON_ASCII` character.

    Such a text keeps its positions under upper(), so only the places a "_" allows are tried.
    """
    if not caseless:
        return text.upper().rfind("CONFIDENCE_LOG")
    at = text.rfind("_")  # the label's one "_" is its 11th character
    while at >= 10:
        if text[at - 10 : at + 4].upper() == "CONFIDENCE_LOG":
            return at - 10
        at = text.rfind("_", 0, at)
    return -1


def _confidence_log(line: str) -> dict[int, float]:
    """CONFIDENCE_LOG entries: step number -> confidence in [0, 1]; values over 100 are left out."""
    entries = _LOG_ENTRY.findall(line)
    values = list(map(_SECOND, entries))
    if not entries or "." in "".join(values) or max(map(float, values)) > 100:  # the general reading
        log: dict[int, float] = {}
        for number, value in entries:
            v = float(value)
            if v <= 100:
                log[int(number)] = v if ("." in value and v <= 1.0) else v / 100.0
        return log
    # whole percentages, none over 100 (the answer format): the same values, column-wise
    return dict(zip(map(int, map(_FIRST, entries)), map(truediv, map(float, values), repeat(100.0)), strict=True))


def _read_lines(text: str) -> tuple[list[StepLine], _Other, str] | None:
    """Steps, other lines and the text outside canonical heads, when "\\n" is the only line break."""
    found = _EVERY_LINE.findall(text)
    columns = list(zip(*found, strict=True))
    wholes = columns[8]
    others = list(compress(zip(count(1), wholes), wholes))
    dead_end_lines = columns[5]
    rest = "\n".join([*(raw for _, raw in others), *filter(None, dead_end_lines), *filter(None, columns[4])]) + "\n"
    if _ODD_BREAK.search(rest) is not None:
        return None
    other = _Other()
    for line_no, raw in others:
        other.read(raw, line_no)
    if any(dead_end_lines):
        cells: list[Cell | None] = list(
            zip(map(int, filter(None, columns[6])), map(int, filter(None, columns[7])), strict=True)
        )
        if other.dead_ends:  # both kinds of line: back into line order (one line, one source)
            merged = sorted(
                zip(
                    [*compress(count(1), dead_end_lines), *other.dead_end_lines],
                    [*cells, *other.dead_ends],
                    strict=True,
                ),
                key=_FIRST,
            )
            other.dead_ends = list(map(_SECOND, merged))
        else:
            other.dead_ends = cells
    steps = _plain_steps(columns)
    if other.steps:
        steps = sorted(steps + other.steps, key=itemgetter(5))
    return steps, other, rest


def parse_reply(text: str) -> ParsedReply:
    """Parse a reply; never raises on any text."""
    raw_text = text
    text = _THINK.sub("", text)
    outside: str | None = None
    read = _read_lines(text)
    if read is None and "\r\n" in text:
        read = _read_lines(text.replace("\r\n", "\n"))
    if read is not None:
        steps, other, rest = read
        caseless = CASED_NON_ASCII.search(rest) is None  # canonical heads are ASCII and "→"
        if not other.steps and len(text) == len(raw_text) and _STEP_WORD.search(rest) is None:
            outside = rest
        final_path = _final_path_of_text(text.replace("\r\n", "\n") if "\r" in text else text)
    else:
        other = _Other()
        steps = []
        lines = text.splitlines()
        for line_no, raw in enumerate(lines, start=1):
            plain = _PLAIN_STEP_LINE.fullmatch(raw)
            if plain is not None:
                steps.append(StepLine(int(plain[1]), (int(plain[2]), int(plain[3])), plain[4], None,
                                      int(plain[5]) / 100.0, line_no))  # fmt: skip
            else:
                other.read(raw, line_no)
        if other.steps:
            steps = sorted(steps + other.steps, key=itemgetter(5))
        final_path = _final_path(lines)
        caseless = False
    log: dict[int, float] = {}
    log_at = _confidence_log_at(text, caseless)
    if log_at >= 0:
        log = _confidence_log(text[log_at:].split("\n", 1)[0])
    backtrack_count, hallucination_count = _claimed_counts(text)
    return ParsedReply(
        steps=tuple(steps),
        unreadable_steps=tuple(other.unreadable),
        invalid_confidences=other.invalid,
        dead_ends=tuple(other.dead_ends),
        loops=tuple(other.loops),
        strategy_changes=other.strategy,
        backtrack_count=backtrack_count,
        hallucination_count=hallucination_count,
        confidence_log=log,
        final_path=final_path,
        outside_steps=outside,
    )
