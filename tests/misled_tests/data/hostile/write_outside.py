import os

from solution import get_positive

MARKER = "{MARKER}"


def test_writes_outside():
    with open(MARKER, "w") as handle:
        handle.write("escaped")
    assert get_positive([1]) == [1]


def test_makes_dir_outside():
    os.mkdir(MARKER + ".d")
    assert get_positive([1]) == [1]
