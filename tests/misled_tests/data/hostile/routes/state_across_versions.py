# Each test passes the first time it runs and fails when it finds what an earlier run left behind:
# if anything survived from one version to the next, the file would be classified misled or
# effective by the order of the runs alone.
import os
import shutil
import tempfile

import pytest

MARKER = "{MARKER}"
TOKEN = "{TOKEN}"


def _left_behind(path):
    try:
        return os.path.lexists(path)
    except OSError:
        return False


PLACES = {
    "working_directory": "seen-here",
    "tempfile": os.path.join(tempfile.gettempdir(), "seen-tempfile"),
    "home": os.path.join(os.path.expanduser("~"), ".seen-home"),
    "tmp": "/tmp/hb-hostile-" + TOKEN,
    "dev_shm": "/dev/shm/hb-hostile-" + TOKEN,
    "marker": os.path.join(MARKER, "seen-" + TOKEN),
    "pytest_basetemp": os.path.join(os.getcwd(), ".pytest-tmp", "seen"),
}


@pytest.mark.parametrize("place", sorted(PLACES))
def test_nothing_left_by_the_other_run(place):
    path = PLACES[place]
    assert not _left_behind(path)
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w", encoding="ascii") as handle:
            handle.write("seen")
    except OSError:
        pass


def _sqlite(path):
    import sqlite3

    sqlite3.connect(path).execute("create table seen (x)")


def _mkfifo(path):
    os.mkfifo(path)


def _mknod(path):
    os.mknod(path)


def _dir_fd(path):
    folder = os.open(os.path.dirname(path), os.O_RDONLY)
    os.close(os.open(os.path.basename(path), os.O_WRONLY | os.O_CREAT, dir_fd=folder))


def _copy(path):
    shutil.copy("solution.py", path)


def _rename(path):
    with open("made-here", "w", encoding="ascii") as handle:
        handle.write("seen")
    os.rename("made-here", path)


def _symlink(path):
    os.symlink(os.getcwd(), path)


def _link(path):
    os.link("solution.py", path)


ROUTES = {
    "sqlite3": _sqlite,
    "mkfifo": _mkfifo,
    "mknod": _mknod,
    "dir_fd": _dir_fd,
    "shutil_copy": _copy,
    "rename": _rename,
    "symlink": _symlink,
    "hard_link": _link,
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_no_route_leaves_a_file_outside(route):
    path = os.path.join(MARKER, f"{route}-{TOKEN}")
    assert not _left_behind(path)
    try:
        ROUTES[route](path)
    except OSError:
        pass
