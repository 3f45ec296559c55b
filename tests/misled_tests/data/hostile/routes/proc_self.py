# /proc: the process's own memory, descriptors (re-opened for writing), working directory link,
# environment and command line; and the process table.
import os

from solution import get_positive


def test_memory():
    with open("/proc/self/mem", "rb") as handle:
        handle.read(1)


def test_reopen_a_descriptor_for_writing():
    for name in os.listdir("/proc/self/fd"):
        with open(f"/proc/self/fd/{name}", "w", encoding="ascii") as handle:
            handle.write('{"outcome": "pass", "kind": "returned", "detail": ""}\n')
    assert get_positive([1]) == ["never"]


def test_working_directory_link_out():
    with open("/proc/self/cwd/../through-proc", "w", encoding="ascii") as handle:
        handle.write("escaped")


def test_environment_and_command_line():
    with open("/proc/self/environ", "rb") as handle:
        environ = handle.read()
    with open("/proc/self/cmdline", "rb") as handle:
        cmdline = handle.read()
    assert environ and cmdline and get_positive([]) == []


def test_process_table():
    assert [entry for entry in os.listdir("/proc") if entry.isdigit()] and get_positive([]) == []


def test_parent_memory():
    with open(f"/proc/{os.getppid()}/mem", "rb") as handle:
        handle.read(1)
