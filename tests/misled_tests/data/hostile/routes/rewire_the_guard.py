# Rewires everything the guard could look up when it runs: the builtins, and the module globals of
# the harness's own modules, found through the frames (path helpers that now answer "inside",
# emptied lists of refused events), then writes outside and forks.
import builtins
import os
import sys

from solution import get_positive

MARKER = "{MARKER}"


def _yes(*args, **kwargs):
    return True


def _same(value, *args, **kwargs):
    return value if isinstance(value, str) else str(value)


def _inside_unless_pass(path, root):
    return "/pass" not in root  # everywhere counts as inside the working directory, except where passes are


def _harness_namespaces():
    found = {}
    frame = sys._getframe()
    while frame is not None:
        for value in [frame.f_globals, *frame.f_globals.values()]:
            namespace = value if isinstance(value, dict) else getattr(value, "__dict__", None)
            if isinstance(namespace, dict) and ("make_hook" in namespace or "make_path_tools" in namespace):
                found[id(namespace)] = namespace
                for function in list(namespace.values()):
                    more = getattr(function, "__globals__", None)
                    if isinstance(more, dict):
                        found[id(more)] = more
        frame = frame.f_back
    return list(found.values())


def _rewire():
    for namespace in _harness_namespaces():
        for name, fake in (
            ("inside", _inside_unless_pass),
            ("resolve", _same),
            ("path_text", _same),
            ("readable", _yes),
            ("is_directory", lambda path: False),
        ):
            if name in namespace:
                namespace[name] = fake
        for name in ("DENIED_EVENTS", "DENIED_MODULES", "ALLOWED_FAST"):
            if name in namespace:
                namespace[name] = frozenset()
        if "DENIED_PREFIXES" in namespace:
            namespace["DENIED_PREFIXES"] = ()


def test_rewired_guard_still_refuses_writes_outside():
    _rewire()
    target = os.path.join(MARKER, "rewired")
    saved = builtins.any, builtins.isinstance, builtins.bool
    builtins.any, builtins.isinstance, builtins.bool = _yes, _yes, _yes
    try:
        handle = open(target, "w", encoding="ascii")
    finally:
        builtins.any, builtins.isinstance, builtins.bool = saved
    handle.write("escaped")
    handle.close()
    assert get_positive([]) == []


def test_rewired_guard_still_refuses_forks():
    _rewire()
    if os.fork() == 0:
        os._exit(0)
    assert get_positive([]) == []


def test_the_harness_namespaces_were_found():
    assert _harness_namespaces() and get_positive([]) == []
