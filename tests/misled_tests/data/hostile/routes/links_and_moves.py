# Links, renames, shutil and pathlib towards the marker directory outside the working directory.
import os
import pathlib
import shutil
import tempfile

from solution import get_positive

MARKER = "{MARKER}"


def test_symlink_out_then_write_through_it():
    os.symlink(MARKER, "out")
    with open("out/through-symlink", "w", encoding="ascii") as handle:
        handle.write("escaped")


def test_hard_link_in_then_write_through_it():
    os.link(os.path.join(MARKER, "keep.txt"), "linked.txt")
    with open("linked.txt", "a", encoding="ascii") as handle:
        handle.write("escaped")


def test_rename_out():
    os.rename("solution.py", os.path.join(MARKER, "moved.py"))


def test_shutil_copy_move_and_rmtree():
    try:
        shutil.copy("solution.py", MARKER)
    finally:
        try:
            shutil.move("solution.py", MARKER)
        finally:
            shutil.rmtree(MARKER)


def test_shutil_copytree_out():
    shutil.copytree(".", os.path.join(MARKER, "tree"))


def test_pathlib_write_out():
    pathlib.Path(MARKER, "pathlib.txt").write_text("escaped")


def test_tempfile_out():
    tempfile.mkstemp(dir=MARKER)


def test_relative_climb():
    with open("../climbed.txt", "w", encoding="ascii") as handle:
        handle.write("escaped")


def test_change_directory_out():
    os.chdir(MARKER)
    with open("chdir.txt", "w", encoding="ascii") as handle:
        handle.write("escaped")


def test_change_directory_to_the_parent():
    os.chdir("..")
    assert get_positive([]) == []


def test_modes_and_times_outside():
    os.chmod(os.path.join(MARKER, "keep.txt"), 0o777)
    os.utime(os.path.join(MARKER, "keep.txt"), (0, 0))


def test_delete_outside():
    os.remove(os.path.join(MARKER, "keep.txt"))


def test_listing_outside_is_refused():
    assert os.listdir("/") and os.listdir(MARKER) and get_positive([]) == []


class Crafty(pathlib.PurePosixPath):
    """A path that names the working directory when checked and the marker when used."""

    asked = 0

    def __fspath__(self):
        Crafty.asked += 1
        return "inside.txt" if Crafty.asked % 2 == 0 else os.path.join(MARKER, "crafty.txt")


def test_path_like_that_changes_its_answer():
    with open(Crafty("x"), "w", encoding="ascii") as handle:
        handle.write("escaped")
