# Looks everywhere a test can look for something that switches the guard off, then writes outside.
import sys

from solution import get_positive


def _switch_off_everything():
    for module in list(sys.modules.values()):
        for name in ("GUARD_STATE", "STATE", "GUARD"):
            state = getattr(module, name, None)
            if isinstance(state, dict):
                state["active"] = False
    frame = sys._getframe()
    while frame is not None:
        for scope in (frame.f_locals, frame.f_globals):
            for value in list(scope.values()):
                if isinstance(value, dict) and "active" in value:
                    value["active"] = False
        frame = frame.f_back


def test_switch_off_then_write_outside():
    _switch_off_everything()
    with open("{MARKER}/searched", "w", encoding="ascii") as handle:
        handle.write("escaped")
    assert get_positive([]) == []
