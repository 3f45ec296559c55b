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
`tests/hallumaze/test_parse_fast.py` checks the two agree on generated replies.

Besides the parse, `read_whole` records `outside_steps` (see `ParsedReply`), which lets the v1.1
scorer skip its own scan for STEP lines.
"""

from __future__ import annotations

import re
from functools import partial
from itertools import accumulate, compress, repeat
from operator import itemgetter

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

# One match per line that is not empty (and one for the first, empty or not) of a text whose only line
# break is "\n", with the breaks after it (group 9: how many lines on the next match stands; in
# MULTILINE mode `^` matches where a line starts, and the breaks a match takes end at one): a STEP line
# exactly as the prompt shows it, with a confidence and a plain reason (groups 1-5: number, cell "r,c",
# direction, percent, reason; a step number `int()` reads, so its column converts at C speed); a line
# the line reader need not see (group 6): a DEAD_END line as the prompt shows it (its tail: group 7),
# or a line of the final block as the prompt shows it, which holds none of the reader's words nor any
# keyword v1.1 counts; or any other line, whole (group 8; "" for an empty first line).
_LINE = re.compile(
    r"^(?:STEP (\d{1,4300}): \((\d+,\d+)\) → \[([NSEW])\] \| confidence: (100|\d{1,2})%"
    r"(?: \| ((?i:(?!dead|loop|strategy)[^*`\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029])*))?$"
    r"|(DEAD_END at \(\d+,\d+\)((?i:(?!dead|loop|strategy|step)[^*`_\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029])*)"
    r"|(?:BACKTRACK|HALLUCINATION)_COUNT: \d+|CONFIDENCE_LOG: step\d+:\d+(?:, step\d+:\d+)*"
    r"|FINAL_PATH: [\d,()→]*)$"
    r"|(.*))(\n*)",
    re.M,
)
# `_LINE` in fewer steps, tried first: ASCII digits only (`\d` tests every character of a non-ASCII text for
# Unicode digits) and the tails of STEP and DEAD_END lines taken whole (group 5: " | reason", or "").
# Where every tail is one `_LINE` takes (`_plain_tails`), the lines are the same lines with the same
# groups; where one is not, `_LINE` reads the text.
_QUICK_LINE = re.compile(
    r"^(?:STEP ([0-9]{1,4300}): \(([0-9]+,[0-9]+)\) → \[([NSEW])\] \| confidence: (100|[0-9]{1,2})%(.*)"
    r"|(DEAD_END at \([0-9]+,[0-9]+\)(.*)|(?:BACKTRACK|HALLUCINATION)_COUNT: [0-9]+$"
    r"|CONFIDENCE_LOG: step[0-9]+:[0-9]+(?:, step[0-9]+:[0-9]+)*$|FINAL_PATH: [0-9,()→]*$)"
    r"|(.*))(\n*)",
    re.M,
)
_NOT_IN_REASON = re.compile(r"(?i:dead|loop|strategy)|[*`\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_NOT_IN_DEAD_END_TAIL = re.compile(r"(?i:dead|loop|strategy|step)|[*`_\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_DEAD_END_CELL = re.compile(r"DEAD_END at \((\d+),(\d+)\)")  # the cell of a DEAD_END line of group 6
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


def _plain_tails(reasons: list[str], dead_end_tails: list[str]) -> bool:
    """Whether the tails `_QUICK_LINE` took whole are what `_LINE` takes: " | " and a plain reason; a plain tail."""
    if reasons and (
        not all(map(str.startswith, reasons, repeat(" | "))) or _NOT_IN_REASON.search("\n".join(reasons)) is not None
    ):
        return False
    return not dead_end_tails or _NOT_IN_DEAD_END_TAIL.search("\n".join(dead_end_tails)) is None


def _read_lines(text: str) -> tuple[StepColumns, LineReader, str] | None:
    """Canonical steps, the other lines read, and the text outside canonical heads and final-block lines (where
    every "step" word and every keyword v1.1 counts stands); None unless "\n" is the only line break."""
    numbers, cells, directions, percents, tails, aside, dead_tails, others, breaks = zip(
        *_QUICK_LINE.findall(text), strict=True
    )
    reasons = list(filter(None, tails))
    if not _plain_tails(reasons, list(filter(None, dead_tails))):
        numbers, cells, directions, percents, tails, aside, _, others, breaks = zip(*_LINE.findall(text), strict=True)
        reasons = list(filter(None, tails))
    line_nos = list(accumulate(map(len, breaks), initial=1))  # the line each match stands on (one more at the end)
    plain = list(compress(zip(line_nos, others, strict=False), others))  # empty lines state nothing
    dead = (
        [(line_no, match) for line_no, line in compress(zip(line_nos, aside, strict=False), aside)
         if (match := _DEAD_END_CELL.match(line)) is not None]
        if any(aside)
        else []
    )  # fmt: skip
    rest = "\n".join([*map(_SECOND, plain), *(match.string for _, match in dead), *reasons]) + "\n"
    if _ODD_BREAK.search(rest) is not None:
        return None
    reader = LineReader()
    if plain:
        reader.read_lines(plain)
    if dead:
        dead_cells: list[Cell | None] = list(cells_of([(match[1], match[2]) for _, match in dead]))
        if reader.dead_ends:  # both kinds of line: back into line order (one line, one source)
            merged = sorted(
                zip([*map(_FIRST, dead), *reader.dead_end_lines], [*dead_cells, *reader.dead_ends], strict=True),
                key=_FIRST,
            )
            reader.dead_ends = list(map(_SECOND, merged))
        else:
            reader.dead_ends = dead_cells
    columns = StepColumns(
        list(compress(numbers, cells)),
        list(filter(None, cells)),
        list(compress(directions, cells)),
        list(compress(percents, cells)),
        list(compress(line_nos, cells)),
    )
    return columns, reader, rest


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
    labels = arrow_path(text[at:] if at else text)
    return list(map(cell_of, labels if labels is not None else _TIGHT_CELL.findall(text, at)))


def arrow_path(text: str) -> list[str] | None:
    """The labels "r,c" of a path written exactly `(r,c)→(r,c)→...→(r,c)`, split at C speed; else None.

    For such a text they are what `_TIGHT_CELL.findall` captures: each label is two runs of
    decimal digits (what `\\d` matches) around one comma, and only "→" stands between cells.
    """
    if not text.startswith("(") or not text.endswith(")"):
        return None
    labels = text[1:-1].split(")→(")
    parts = ",".join(labels).split(",")
    if len(parts) != 2 * len(labels) or "" in parts or not "".join(parts).isdecimal():
        return None
    return labels


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
