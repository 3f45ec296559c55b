# Tries to create a pass file directly, by every route, from the test and from import time.
import glob
import os
import pathlib
import sys

from solution import get_positive


def _candidates():
    found = set()
    frame = sys._getframe()
    while frame is not None:
        for value in list(frame.f_locals.values()) + list(frame.f_globals.values()):
            if isinstance(value, str) and "/pass" in value:
                found.add(value)
            for attribute in ("pass_dir", "pass_root", "work"):
                text = getattr(value, attribute, None)
                if isinstance(text, str):
                    found.add(text)
            rules = getattr(value, "rules", None)
            if rules is not None:
                found.add(str(getattr(rules, "pass_dir", "")))
        frame = frame.f_back
    here = os.getcwd()
    try:
        found.update(glob.glob(os.path.join(os.path.dirname(here), "pass", "*")))
    except OSError:
        pass
    return sorted(path for path in found if path)


def _attempts(base):
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    for index in range(4):
        path = os.path.join(base, str(index))
        for attempt in (
            lambda: os.close(os.open(path, flags)),
            lambda: pathlib.Path(path).touch(),
            lambda: open(path, "x").close(),
            lambda: os.close(os.open(str(index), flags, dir_fd=os.open(base, os.O_RDONLY))),
            lambda: os.symlink("solution.py", path),
            lambda: os.link("solution.py", path),
            lambda: os.rename("solution.py", path),
        ):
            try:
                attempt()
            except Exception:
                pass


for _base in _candidates():
    _attempts(_base)


def test_claim_a_pass_directly():
    for base in _candidates():
        _attempts(base)
    assert get_positive([1]) == ["never"]
