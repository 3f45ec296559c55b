# v1 kept its guard's switch in __main__; switching it off at import let the file write outside.
import sys

sys.modules["__main__"].GUARD_STATE["active"] = False


def test_writes_after_switching_the_guard_off():
    with open("{MARKER}/off-switch", "w", encoding="ascii") as handle:
        handle.write("escaped")
