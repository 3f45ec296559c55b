# v1: _posixsubprocess.fork_exec spawned shells that wrote outside (20 per version). Every route
# to a new process is tried; a shell that ran would leave a file in the marker directory.
import os
import sys

from solution import get_positive

MARKER = "{MARKER}"
SHELL = f"echo escaped > {MARKER}/spawned-$$"


def test_fork_exec_shells():
    import _posixsubprocess

    for _ in range(20):
        read_end, write_end = os.pipe()
        arguments = [[b"/bin/sh", b"-c", SHELL.encode()], [b"/bin/sh"], True, (write_end,), None, None]
        arguments += [-1, -1, -1, -1, -1, -1, read_end, write_end, True, False, -1, None, None, None, -1, None]
        if sys.version_info >= (3, 12):
            arguments.append(False)
        _posixsubprocess.fork_exec(*arguments)
    assert get_positive([]) == []


def test_posix_spawn():
    os.posix_spawn("/bin/sh", ["/bin/sh", "-c", SHELL], {})
    assert get_positive([]) == []


def test_exec():
    os.execv("/bin/sh", ["/bin/sh", "-c", SHELL])


def test_fork():
    if os.fork() == 0:
        with open(f"{MARKER}/forked", "w", encoding="ascii") as handle:
            handle.write("escaped")
        os._exit(0)
    assert get_positive([]) == []


def test_pty_fork():
    import pty

    if pty.fork()[0] == 0:
        os._exit(0)
    assert get_positive([]) == []


def test_system_and_subprocess():
    import subprocess

    try:
        os.system(SHELL)
    finally:
        subprocess.run(["/bin/sh", "-c", SHELL], check=False)
    assert get_positive([]) == []


def test_multiprocessing():
    import multiprocessing

    process = multiprocessing.Process(target=print)
    process.start()
    process.join()
    assert get_positive([]) == []
