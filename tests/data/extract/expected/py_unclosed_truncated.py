from solution import fib


def test_base_cases():
    assert fib(0) == 0
    assert fib(1) == 1


def test_tenth():
    assert fib(10) == 55


def test_negative_raises():
    import pytest
    with pytest.raises(ValueError):
        fib(-
