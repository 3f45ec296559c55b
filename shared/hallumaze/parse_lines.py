"""What a reply in the HalluMaze answer format states, read line by line: the definition of parsing.

Parsing only records what the model *wrote*; whether any of it is true is decided by `verify`.
Tolerant where models vary (Markdown emphasis, fences, `Step 3`, arrows or letters or words for
directions, a target cell instead of a direction, `confidence: 80%`, `확신도: 80%`, `0.8`),
strict where tolerance would invent data: a STEP line without a readable cell and direction is
recorded as unreadable (a format failure), never guessed; a missing confidence stays missing.
`<think>...</think>` blocks are dropped first, as v1.1 did, since they are not the answer.

`parse_by_lines` is the reading every faster reader (`parse_fast`) must equal. Every pattern
here runs in time linear in its input: no two adjacent quantifiers can match the same
character (hallumaze v2's `step\\s*#?\\s*(\\d+)` and `confidence\\s*[:=]?\\s*` tried every split
of a run of spaces, quadratic on a degenerate reply); each rewritten one accepts exactly the
same text with the same groups. Labels are found by `labels.Label`, in the text itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache, partial
from itertools import compress, repeat
from operator import contains, itemgetter
from typing import NamedTuple

from .grid import Cell, direction_between
from .labels import Label

_THINK_OPEN = re.compile("<think>", re.I)
_THINK_CLOSE = re.compile("</think>", re.I)
STEP_HEAD = re.compile(r"(?:\d+[.)]\s*)?step\s*(?:#\s*)?(\d+)\s*[:.)\]]?", re.I)
CELL = re.compile(r"\(\s*(\d+)\s*,\s*(\d+)\s*\)")
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
_CONFIDENCE = re.compile(r"(?:confidence|conf\.?|certainty|확신도)\s*(?:[:=]\s*)?(\d{1,3}(?:\.\d+)?)\s*(%?)", re.I)
_BARE_PERCENT = re.compile(r"\|\s*(\d{1,3}(?:\.\d+)?)\s*%")
DEAD_END = re.compile(r"dead(?:_end(?:\s+(?:at|@))?\s*| end\s+(?:at|@)\s*(?=\())(?:\(\s*(\d+)\s*,\s*(\d+)\s*\))?", re.I)
LOOP = re.compile(r"loop[_ ]detected(?:\s+(?:at|@))?\s*(?:\(\s*(\d+)\s*,\s*(\d+)\s*\))?", re.I)
STRATEGY = re.compile(r"strategy[_ ]change", re.I)
BACKTRACK_COUNT = Label("backtrack_count", r"backtrack_count\W{0,6}(\d+)")
HALLUCINATION_COUNT = Label("hallucination_count", r"hallucination_count\W{0,6}(\d+)")
CONFIDENCE_LOG = Label("confidence_log", "confidence_log")
FINAL_PATH = Label("final_path", "final_path")
LOG_ENTRY = re.compile(r"step\s*(\d+)\s*[:=]\s*(\d{1,3}(?:\.\d+)?)\s*%?", re.I)
PATH_ONLY = re.compile(r"^[\s\d,()→\->=.*`\[\]]*$")
# whole percentages as the canonical STEP line writes them ("0" to "100", "00" to "09") -> confidence
PERCENT_OF = {token: int(token) / 100.0 for token in [*map(str, range(101)), *(f"0{d}" for d in range(10))]}
_LINE_NO = itemgetter(5)
_SECOND_FIELD = itemgetter(1)
_new_tuple = tuple.__new__


class StepLine(NamedTuple):
    """One STEP line as written: the cell the model says it is in and the move it declares.

    A named tuple rather than a dataclass: replies carry hundreds of these.
    """

    number: int
    cell: Cell
    direction: str | None
    target: Cell | None
    confidence: float | None
    line_no: int


class StepColumns(NamedTuple):
    """Canonical STEP lines as the fast reader found them, column by column (see `parse_fast`).

    A cell is kept as its label "r,c" and a confidence as its percent text: a scorer that knows
    the maze maps them to what it needs with one lookup each, and `ParsedReply.steps` turns them
    into StepLines only when asked. Step numbers have at most `MAX_DIGITS` digits (`int()` reads them).
    """

    numbers: list[str]
    cells: list[str]
    directions: list[str]
    percents: list[str]
    line_nos: list[int]


_UNREAD: object = object()  # a label field not read from the text yet
_FIELDS = ("steps", "unreadable_steps", "invalid_confidences", "dead_ends", "loops", "strategy_changes",
           "backtrack_count", "hallucination_count", "confidence_log", "final_path")  # fmt: skip


class ParsedReply:
    """Everything the reply states, nothing verified; compared and shown field by field, like a dataclass.

    A parser builds it with `ParsedReply.of_text`, which reads the label fields (FINAL_PATH,
    CONFIDENCE_LOG, the claimed counts) and the StepLines of canonical lines only when first asked
    for: the interactive mode parses a dozen replies per trial and needs the labels of one, and a
    replay whose every step states its confidence never looks at CONFIDENCE_LOG. Treat it as frozen.
    """

    __slots__ = ("_backtrack_count", "_columns", "_confidence_log", "_final_path", "_final_path_of",
                 "_hallucination_count", "_other_steps", "_steps", "_text", "dead_ends", "invalid_confidences",
                 "loops", "outside_steps", "strategy_changes", "unreadable_steps")  # fmt: skip

    def __init__(
        self,
        steps: tuple[StepLine, ...] = (),
        unreadable_steps: tuple[int, ...] = (),
        invalid_confidences: int = 0,
        dead_ends: tuple[Cell | None, ...] = (),
        loops: tuple[Cell | None, ...] = (),
        strategy_changes: int = 0,
        backtrack_count: int | None = None,
        hallucination_count: int | None = None,
        confidence_log: dict[int, float] | None = None,
        final_path: tuple[Cell, ...] | None = None,
        outside_steps: str | None = None,
    ) -> None:
        self._steps: tuple[StepLine, ...] | None = steps
        self._columns: StepColumns | None = None
        self._other_steps: list[StepLine] = []
        self.unreadable_steps = unreadable_steps
        self.invalid_confidences = invalid_confidences
        self.dead_ends = dead_ends
        self.loops = loops
        self.strategy_changes = strategy_changes
        self._backtrack_count: object = backtrack_count
        self._hallucination_count: object = hallucination_count
        self._confidence_log: object = {} if confidence_log is None else confidence_log
        self._final_path: object = final_path
        self._final_path_of: Callable[[], tuple[Cell, ...] | None] | None = None
        self._text = ""
        # Not part of what the reply states (left out of equality): when not None, the reply held no
        # think block and no "step" word outside the heads of its canonical STEP lines (each of which
        # is one of `steps`); this is the rest of its text (other lines, reasons) joined by newlines,
        # which a reader that scans the whole reply for STEP lines or keywords may scan instead.
        self.outside_steps = outside_steps

    @classmethod
    def of_text(
        cls,
        text: str,
        reader: LineReader,
        columns: StepColumns | None,
        final_path_of: Callable[[], tuple[Cell, ...] | None],
        outside: str | None,
    ) -> ParsedReply:
        """The reply of a (think-stripped) `text` whose lines `reader` has read; canonical steps in `columns`."""
        parsed = cls(
            unreadable_steps=tuple(reader.unreadable),
            invalid_confidences=reader.invalid,
            dead_ends=tuple(reader.dead_ends),
            loops=tuple(reader.loops),
            strategy_changes=reader.strategy,
            outside_steps=outside,
        )
        parsed._text = text
        parsed._backtrack_count = parsed._hallucination_count = parsed._confidence_log = _UNREAD
        parsed._final_path = _UNREAD
        parsed._final_path_of = final_path_of
        if columns is not None and columns.numbers:
            parsed._steps = None
            parsed._columns = columns
            parsed._other_steps = reader.steps
        else:
            parsed._steps = tuple(reader.steps)
        return parsed

    @property
    def steps(self) -> tuple[StepLine, ...]:
        if self._steps is None:
            assert self._columns is not None
            numbers, cells, directions, percents, line_nos = self._columns
            confidences = map(PERCENT_OF.__getitem__, percents)
            fields = zip(map(int, numbers), map(cell_of, cells), directions, repeat(None), confidences, line_nos)
            steps = list(map(_new_tuple, repeat(StepLine), fields))  # StepLine(*f), without a Python frame each
            if self._other_steps:
                steps = sorted(steps + self._other_steps, key=_LINE_NO)
            self._steps = tuple(steps)
        return self._steps

    @property
    def step_count(self) -> int:
        """len(steps), without building them."""
        if self._steps is None and self._columns is not None:
            return len(self._columns.numbers) + len(self._other_steps)
        return len(self.steps)

    @property
    def step_columns(self) -> StepColumns | None:
        """The steps as columns when every one of them is a canonical line (the fast reader's), else None."""
        return self._columns if self._columns is not None and not self._other_steps else None

    @property
    def backtrack_count(self) -> int | None:
        if self._backtrack_count is _UNREAD:
            self._backtrack_count, self._hallucination_count = claimed_counts(self._text)
        return self._backtrack_count  # type: ignore[return-value]

    @property
    def hallucination_count(self) -> int | None:
        if self._hallucination_count is _UNREAD:
            self._backtrack_count, self._hallucination_count = claimed_counts(self._text)
        return self._hallucination_count  # type: ignore[return-value]

    @property
    def confidence_log(self) -> dict[int, float]:
        if self._confidence_log is _UNREAD:
            self._confidence_log = confidence_log_of(self._text)
        return self._confidence_log  # type: ignore[return-value]

    @property
    def final_path(self) -> tuple[Cell, ...] | None:
        if self._final_path is _UNREAD:
            assert self._final_path_of is not None
            self._final_path = self._final_path_of()
        return self._final_path  # type: ignore[return-value]

    def fields(self) -> tuple[object, ...]:
        """What the reply states, in field order (what equality compares)."""
        return tuple(getattr(self, name) for name in _FIELDS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ParsedReply):
            return NotImplemented
        return self.fields() == other.fields()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "ParsedReply(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS) + ")"


def strip_think_blocks(text: str) -> str:
    """`re.sub(r"<think>.*?</think>", "", text, flags=re.S | re.I)`, in linear time.

    The regex tries every "<think>" against the rest of the text, so a reply of thousands of
    unclosed tags (a model stuck in a loop) took quadratic time: 140 KB of them, 15 s. Here each
    opening tag is paired with the first closing tag after it, as the lazy regex pairs them.
    """
    if "<" not in text:  # no tag (a search for "<" runs at C speed; the case-insensitive one does not)
        return text
    opens = [m.start() for m in _THINK_OPEN.finditer(text)]
    if not opens:
        return text
    closes = [(m.start(), m.end()) for m in _THINK_CLOSE.finditer(text)]
    kept: list[str] = []
    cursor = 0  # text before it is settled
    close_index = 0
    for start in opens:
        if start < cursor:
            continue  # inside a block already removed
        while close_index < len(closes) and closes[close_index][0] < start + len("<think>"):
            close_index += 1
        if close_index == len(closes):
            break  # no closing tag after this one, nor after any later one
        kept.append(text[cursor:start])
        cursor = closes[close_index][1]
    kept.append(text[cursor:])
    return "".join(kept)


MAX_DIGITS = 4300  # CPython's default limit on int() of a string (sys.get_int_max_str_digits), which hosted runs use
_LARGEST = 10**MAX_DIGITS - 1


def whole_number(digits: str) -> int:
    """A run of digits as an int; a run longer than `MAX_DIGITS` as the largest number of that many digits.

    Such a number means nothing in a maze (any cell it names lies outside the grid, any count it
    claims is wrong), and `int()` refuses it: v2 crashed on it, losing the reply's score.
    """
    return int(digits) if len(digits) <= MAX_DIGITS else _LARGEST


def cells_of(pairs: list[tuple[str, str]]) -> list[Cell]:
    """`[(whole_number(r), whole_number(c)) for r, c in pairs]`, converted at C speed when no run is too long."""
    if not pairs:
        return []
    rows, columns = zip(*pairs, strict=True)
    if max(map(len, rows)) <= MAX_DIGITS and max(map(len, columns)) <= MAX_DIGITS:
        return list(zip(map(int, rows), map(int, columns), strict=True))
    return [(whole_number(r), whole_number(c)) for r, c in pairs]


@lru_cache(maxsize=1 << 16)
def cell_of(token: str) -> Cell:
    """ "3,4" -> (3, 4), for a cell of any size; cached, since a reply names the same cells again and again."""
    r, c = token.split(",")
    return (whole_number(r), whole_number(c))


def clean(line: str) -> str:
    """The line without Markdown emphasis and code marks, and without leading bullets and arrows."""
    return line.replace("**", "").replace("`", "").replace("__", "_").strip().lstrip("->#* ").strip()


def confidence_value(raw: str, has_percent: bool) -> tuple[float | None, bool]:
    """A stated confidence in [0, 1]: "0.8" is a fraction, "80" or "80%" a percentage; over 100 is invalid."""
    value = float(raw)
    if "." in raw and not has_percent and value <= 1.0:
        return value, False
    if value > 100:
        return None, True
    return value / 100.0, False


def _confidence(text: str) -> tuple[float | None, bool]:
    """(confidence in [0, 1] or None, whether a stated value was out of range)."""
    low = text.lower()  # `_CONFIDENCE` needs "conf", "cert" or "확신도", whose letters have no special case folds
    named = _CONFIDENCE.search(text) if "conf" in low or "cert" in low or "확신도" in text else None
    match = named or _BARE_PERCENT.search(text)
    if match is None:
        return None, False
    return confidence_value(match.group(1), match.re is _BARE_PERCENT or bool(match.group(2)))


def _direction(rest: str, origin: Cell) -> tuple[str | None, Cell | None]:
    """The declared move: a direction, or a non-adjacent target cell, or (None, None)."""
    separator = _SEPARATOR.match(rest)  # it matches at the start of any text
    rest = rest[separator.end() :] if separator is not None else rest
    if rest.startswith("["):
        end = rest.find("]")
        segment = rest[1:end] if end > 0 else rest[1:]
    else:
        segment = rest.split("|", 1)[0]
    token = _DIRECTION_TOKEN.search(segment)
    if token is None:
        return None, None
    kind = token.lastindex  # which alternative matched: 2 a cell, 3 a word, 4 a letter, 5 an arrow, 6 Korean
    if kind == 2:
        target = (whole_number(token[1]), whole_number(token[2]))
        name = direction_between(origin, target)
        return (name, None) if name is not None else (None, target)
    if kind == 3:
        return _WORDS[token[3].lower()], None
    if kind == 4:
        return token[4], None
    if kind == 5:
        return _ARROWS[token[5]], None
    return _KOREAN[token[6]], None


def _step_line(line: str, head: re.Match[str], line_no: int) -> tuple[StepLine | None, bool]:
    """A STEP line's cell, move and confidence; None when no cell or no move can be read."""
    cell_match = CELL.search(line, head.end())
    if cell_match is None or cell_match.start() - head.end() > 12:
        return None, False
    origin = (whole_number(cell_match.group(1)), whole_number(cell_match.group(2)))
    rest = line[cell_match.end() :]
    name, target = _direction(rest, origin)
    if name is None and target is None:
        return None, False
    conf, bad = _confidence(rest)
    return StepLine(whole_number(head.group(1)), origin, name, target, conf, line_no), bad


def _cell_or_none(match: re.Match[str]) -> Cell | None:
    """The cell of a DEAD_END or LOOP declaration (groups 1 and 2), None when it names none."""
    return (whole_number(match.group(1)), whole_number(match.group(2))) if match.group(1) is not None else None


class LineReader:
    """What the lines of a reply add up to: STEP lines, declarations; one `read` per line, in order."""

    __slots__ = ("dead_end_lines", "dead_ends", "invalid", "loops", "steps", "strategy", "unreadable")

    def __init__(self) -> None:
        self.steps: list[StepLine] = []
        self.unreadable: list[int] = []
        self.invalid = 0
        self.dead_ends: list[Cell | None] = []
        self.dead_end_lines: list[int] = []  # the line of each of `dead_ends`
        self.loops: list[Cell | None] = []
        self.strategy = 0

    def read_lines(self, numbered: Sequence[tuple[int, str]]) -> None:
        """`read` every (line number, line), passing over at C speed the lines that can state nothing.

        `read` looks at a line only if its cleaned, lower-cased text holds "step", "dead", "loop" or
        "strategy"; removing `clean`'s marks ("**", "`") from the whole text and lower-casing it at
        once gives, line by line, a text that holds every word the cleaned line holds.
        """
        if not numbered:
            return
        low = "\n".join(map(_SECOND_FIELD, numbered)).replace("**", "").replace("`", "").lower().split("\n")
        words = [map(contains, low, repeat(word)) for word in ("step", "dead", "loop", "strategy")]
        for line_no, raw in compress(numbered, map(any, zip(*words, strict=True))):
            self.read(raw, line_no)

    def read(self, raw: str, line_no: int) -> None:
        """Take one line: a STEP line whose head stands in its first 12 characters, and any declarations."""
        line = clean(raw)
        if not line:
            return
        lower = line.lower()
        if "step" in lower[:12]:
            head = STEP_HEAD.match(line)
            if head is not None:
                step, bad = _step_line(line, head, line_no)
                self.invalid += bad
                if step is None:
                    self.unreadable.append(line_no)
                else:
                    self.steps.append(step)
        if "dead" in lower:
            for m in DEAD_END.finditer(line):
                self.dead_ends.append(_cell_or_none(m))
                self.dead_end_lines.append(line_no)
        if "loop" in lower:
            for m in LOOP.finditer(line):
                self.loops.append(_cell_or_none(m))
        if "strategy" in lower:
            self.strategy += len(STRATEGY.findall(line))


def final_path_of_lines(lines: Sequence[str]) -> tuple[Cell, ...] | None:
    """The cells after the last FINAL_PATH label that is followed by any, continued on path-only lines.

    Within a line the first label counts; lines after it that hold only path characters
    (cells, arrows, commas) continue the path, up to the first blank or other line.
    """
    labelled = compress(range(len(lines)), map(contains, lines, repeat("_")))  # a label's "_" has no other case
    for index in reversed(list(labelled)):
        line = lines[index]
        label = FINAL_PATH.first(line)
        if label is None:
            continue
        text = [line[label.end() :]]
        follower = index + 1
        while follower < len(lines) and lines[follower].strip() and PATH_ONLY.match(lines[follower]):
            text.append(lines[follower])
            follower += 1
        cells = cells_of(CELL.findall("".join(text)))
        if cells:
            return tuple(cells)
    return None


def confidence_log_of(text: str) -> dict[int, float]:
    """The entries after the last CONFIDENCE_LOG label, up to the end of its line ("\\n").

    Step number -> confidence in [0, 1]; values over 100 are left out; a later entry for the
    same step replaces an earlier one.
    """
    label = CONFIDENCE_LOG.last(text)
    if label is None:
        return {}
    end = text.find("\n", label.end())
    log: dict[int, float] = {}
    for number, value in LOG_ENTRY.findall(text, label.start(), len(text) if end < 0 else end):
        v = float(value)
        if v <= 100:
            log[whole_number(number)] = v if ("." in value and v <= 1.0) else v / 100.0
    return log


def claimed_counts(text: str) -> tuple[int | None, int | None]:
    """The last BACKTRACK_COUNT and the last HALLUCINATION_COUNT the text states."""
    backtrack = BACKTRACK_COUNT.last(text)
    hallucination = HALLUCINATION_COUNT.last(text)
    return (
        whole_number(backtrack.group(1)) if backtrack is not None else None,
        whole_number(hallucination.group(1)) if hallucination is not None else None,
    )


def parse_by_lines(text: str) -> ParsedReply:
    """The definition: strip think blocks, read every line (`str.splitlines`), find the labels."""
    text = strip_think_blocks(text)
    lines = text.splitlines()
    reader = LineReader()
    reader.read_lines(list(compress(enumerate(lines, start=1), lines)))  # an empty line states nothing
    return ParsedReply.of_text(text, reader, None, partial(final_path_of_lines, lines), None)
