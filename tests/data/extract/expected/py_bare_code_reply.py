import pytest
from solution import is_palindrome


@pytest.mark.parametrize("text", ["", "aba", "aaaaa"])
def test_palindromes(text):
    assert is_palindrome(text)


def test_not_palindrome():
    assert not is_palindrome("zbcd")
