from solution import strlen


def test_strlen():
    assert strlen("") == 0
    assert strlen("abc") == 3

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
