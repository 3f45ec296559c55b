# v1: walking the frames to main()'s config gave the nonce and the result descriptor. Here the
# test walks every frame and tries everything it finds: paths that look like pass files, the
# harness's own claim function, and locals that decide the verdict; then it asserts something wrong.
import functools
import os
import sys

from solution import get_positive


def _frames():
    frame = sys._getframe()
    while frame is not None:
        yield frame
        frame = frame.f_back


def _try(call):
    try:
        call()
    except Exception:
        pass


def test_forge_from_frames():
    for frame in _frames():
        for name, value in list(frame.f_locals.items()) + list(frame.f_globals.items()):
            if isinstance(value, str) and "/pass/" in value:
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
                _try(lambda: os.close(os.open(value, flags)))
                _try(lambda: open(value, "w").close())
                _try(lambda: list(map(os.open, [value], [flags])))
                _try(lambda: functools.partial(os.open, value, flags)())
                _try(lambda: os.mkdir(value))
            if callable(value) and getattr(value, "__name__", "") in ("claim", "_claim"):
                for other in list(frame.f_locals.values()):
                    if isinstance(other, str):
                        _try(lambda: value(other))
                        _try(lambda: list(map(value, [other])))
            if name in ("raised", "failed", "after"):
                _try(lambda: frame.f_locals.__setitem__(name, None))
    assert get_positive([1]) == ["never"]
