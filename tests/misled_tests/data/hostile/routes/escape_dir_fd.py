# v1: a descriptor of a folder outside, then os.open(name, O_CREAT, dir_fd=...), wrote outside (pass/pass).
import os

from solution import get_positive


def test_create_through_a_directory_descriptor():
    folder = os.open("{MARKER}", os.O_RDONLY)
    os.close(os.open("dir-fd-{TOKEN}", os.O_CREAT | os.O_WRONLY, dir_fd=folder))
    assert get_positive([]) == []


def test_create_through_the_root_descriptor():
    root = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
    os.close(os.open("tmp/hb-hostile-dirfd-{TOKEN}", os.O_CREAT | os.O_WRONLY, dir_fd=root))
    assert get_positive([]) == []


def test_create_through_the_parent_descriptor():
    parent = os.open("..", os.O_RDONLY)
    os.close(os.open("dir-fd-parent-{TOKEN}", os.O_CREAT | os.O_WRONLY, dir_fd=parent))
    assert get_positive([]) == []


def test_create_through_a_relative_climb():
    inside = os.open(".", os.O_RDONLY)
    os.close(os.open("../../dir-fd-climb-{TOKEN}", os.O_CREAT | os.O_WRONLY, dir_fd=inside))
    assert get_positive([]) == []
