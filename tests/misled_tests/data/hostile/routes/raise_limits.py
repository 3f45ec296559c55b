# Raising (or changing) the resource limits the harness set.
import os
import resource

from solution import get_positive


def test_raise_the_memory_limit():
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    assert get_positive([]) == []


def test_change_the_parents_limits():
    resource.prlimit(os.getppid(), resource.RLIMIT_CPU, (1, 1))
    assert get_positive([]) == []


def test_new_session_and_root():
    os.setsid()
    os.chroot("/")
    assert get_positive([]) == []
