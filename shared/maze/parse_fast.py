"""`parse_lines.parse_by_lines` at C speed for replies in the answer format: same result, fewer Python steps.

A reply can hold hundreds of STEP lines and every rescore reads every reply again. Here each
line is classified by one C-level pattern call, with no Python step per line: a STEP line
exactly as the prompt shows it (with a stated confidence, and a reason that names no dead end,
loop or strategy change and holds nothing `clean` removes) yields exactly one StepLine and
nothing else, so its groups become the step's columns directly; a DEAD_END line as the prompt
shows it yields that one dead end; blank lines and lines that can state nothing are passed
over; only the rest goes through the line-by-line reader. This holds only where "\\n" is the
only line break that `str.splitlines` knows, so `read_whole` returns None for any other text
(after turning "\\r\\n" into "\\n") and the caller falls back to the definition.
`tests/maze/test_parse_fast.py` checks the two agree on generated replies.

Besides the parse, `read_whole` records `outside_steps` (see `ParsedReply`), which lets the v1.1
scorer skip its own scan for STEP lines.
"""

from __future__ import annotations

import re
from functools import partial
from itertools import compress
from operator import itemgetter, not_

from .grid import Cell
from .parse_lines import (
    CELL,
    FINAL_PATH,
    PATH_ONLY,
    LineReader,
    ParsedReply,
    StepColumns,
    cell_of,
    cells_of,
    strip_think_blocks,
)

# A STEP line as the prompt shows it, with a confidence and a plain reason (groups: number, cell "r,c",
# direction, percent, reason; a step number `int()` reads, so its column converts at C speed), and a
# DEAD_END line as the prompt shows it (groups: row, column).
_CANONICAL_STEP = re.compile(
    r"STEP (\d{1,4300}): \((\d+,\d+)\) → \[([NSEW])\] \| confidence: (100|\d{1,2})%"
    r"(?: \| ((?i:(?!dead|loop|strategy)[^*`\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029])*))?"
)
_CANONICAL_DEAD_END = re.compile(
    r"DEAD_END at \((\d+),(\d+)\)(?i:(?!dead|loop|strategy|step)[^*`_\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029])*"
)
_ODD_BREAK = re.compile("[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")  # line breaks of `splitlines` besides "\n"
# Non-ASCII characters outside a few caseless blocks (punctuation, arrows, box drawing, CJK
# punctuation, Hangul syllables): a text without them changes only its ASCII letters under
# `lower()`, so a case-sensitive search in its lower-cased copy finds what `re.I` finds in it.
CASED_NON_ASCII = re.compile("[^\x00-\x7f\u2010-\u2027\u2190-\u21ff\u2500-\u257f\u3000-\u303f\uac00-\ud7a3]")
# A word a STEP reader (here or v1.1's) could start at: checked outside the canonical heads.
_STEP_WORD = re.compile(r"step\s", re.I)
_STEP_WORD_LOWER = re.compile(r"step\s")
_TIGHT_CELL = re.compile(r"\((\d+,\d+)\)")
_SPACE = re.compile(r"\s")
_FIRST, _SECOND = itemgetter(0), itemgetter(1)
_GROUPS = re.Match.groups


def _read_lines(text: str) -> tuple[StepColumns, LineReader, str] | None:
    """Canonical steps, the other lines read, the text outside canonical heads; None unless "\n" is the only break."""
    split = text.split("\n")
    numbered = list(compress(enumerate(split, start=1), split))  # empty lines state nothing
    lines = list(map(_SECOND, numbered))
    step_matches = list(map(_CANONICAL_STEP.fullmatch, lines))
    steps = list(map(_GROUPS, filter(None, step_matches)))
    others = list(compress(numbered, map(not_, step_matches)))
    dead_matches = list(map(_CANONICAL_DEAD_END.fullmatch, map(_SECOND, others)))
    plain = list(compress(others, map(not_, dead_matches)))
    columns = list(zip(*steps, strict=True)) or [(), (), (), (), ()]
    rest = "\n".join([*map(_SECOND, plain), *(m.group() for m in filter(None, dead_matches)),
                      *filter(None, columns[4])]) + "\n"  # fmt: skip
    if _ODD_BREAK.search(rest) is not None:
        return None
    reader = LineReader()
    reader.read_lines(plain)
    if any(dead_matches):
        dead_lines = list(compress(map(_FIRST, others), dead_matches))
        cells: list[Cell | None] = [cell_of(f"{m.group(1)},{m.group(2)}") for m in filter(None, dead_matches)]
        if reader.dead_ends:  # both kinds of line: back into line order (one line, one source)
            merged = sorted(
                zip([*dead_lines, *reader.dead_end_lines], [*cells, *reader.dead_ends], strict=True), key=_FIRST
            )
            reader.dead_ends = list(map(_SECOND, merged))
        else:
            reader.dead_ends = cells
    numbers, cells_column, directions, percents = (list(column) for column in columns[:4])
    line_nos = list(compress(map(_FIRST, numbered), step_matches))
    return StepColumns(numbers, cells_column, directions, percents, line_nos), reader, rest


def tight_cells(text: str) -> list[Cell] | None:
    """The cells `(r,c)` in a text with no whitespace from its first "(" on; None for any other text.

    There every `\\s*` of a cell pattern matches the empty string, so one capture per cell gives
    the same cells as `parse_lines.CELL` (or v1.1's coordinate pattern).
    """
    at = text.find("(")
    if at < 0:
        return []
    if _SPACE.search(text, at) is not None:
        return None
    return list(map(cell_of, _TIGHT_CELL.findall(text, at)))


def final_path_of_text(text: str) -> tuple[Cell, ...] | None:
    """`parse_lines.final_path_of_lines(text.splitlines())` for a text whose only line break is "\\n"."""
    labels = list(FINAL_PATH.finditer(text))
    index = len(labels) - 1
    while index >= 0:
        line_start = text.rfind("\n", 0, labels[index].start()) + 1
        while index > 0 and labels[index - 1].start() >= line_start:
            index -= 1  # the first label of the line counts
        label = labels[index]
        line_end = text.find("\n", label.end())
        if line_end < 0:
            line_end = len(text)
        found = [text[label.end() : line_end]]
        while line_end < len(text):
            follower_end = text.find("\n", line_end + 1)
            if follower_end < 0:
                follower_end = len(text)
            follower = text[line_end + 1 : follower_end]
            if not follower.strip() or not PATH_ONLY.match(follower):
                break
            found.append(follower)
            line_end = follower_end
        joined = "".join(found)
        tight = tight_cells(joined)
        if tight is None:
            tight = cells_of(CELL.findall(joined))
        if tight:
            return tuple(tight)
        index -= 1
    return None


def read_whole(text: str) -> ParsedReply | None:
    """`parse_by_lines(text)` with `outside_steps`, or None for a text with line breaks other than "\\n"."""
    stripped = strip_think_blocks(text)
    unix = stripped.replace("\r\n", "\n") if "\r" in stripped else stripped
    read = _read_lines(unix)
    if read is None:
        return None
    columns, reader, rest = read
    if CASED_NON_ASCII.search(rest) is None:  # canonical heads are ASCII and "→"
        step_word = _STEP_WORD_LOWER.search(rest.lower())
    else:
        step_word = _STEP_WORD.search(rest)
    outside = rest if not reader.steps and len(stripped) == len(text) and step_word is None else None
    return ParsedReply.of_text(stripped, reader, columns, partial(final_path_of_text, unix), outside)
