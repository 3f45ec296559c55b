# The version under test must not be visible: same path, same environment, same argv for both.
# Under v1 the first test was classified effective (the working directory was .../buggy).
import os
import sys

from solution import get_positive


def test_cwd_basename_is_not_buggy():
    assert os.path.basename(os.getcwd()) != "buggy"


def test_cwd_names_no_version():
    here = os.getcwd().lower()
    assert "buggy" not in here and "fixed" not in here


def test_environment_names_no_version():
    text = " ".join(f"{key}={value}" for key, value in os.environ.items()).lower()
    assert "buggy" not in text and "fixed" not in text


def test_argv_and_paths_name_no_version():
    text = " ".join([*sys.argv, __file__, *sys.path]).lower()
    assert "buggy" not in text and "fixed" not in text and get_positive([]) == []
