# Ordinary things model-written tests do, on HumanEvalPack Python/30 (get_positive): the v2 sandbox must
# not get in their way. Expected classifications are in tests/misled/test_executor.py.
import collections, dataclasses, enum, typing, math, itertools, functools, re, random, decimal, fractions, statistics, heapq, bisect, string, json, copy, logging, warnings, io, os, sys, unittest
import pytest
from solution import get_positive

Point = collections.namedtuple("Point", "x y")
class Color(enum.Enum):
    RED = 1
Shade = enum.Enum("Shade", "LIGHT DARK")
T = typing.TypeVar("T")
class NT(typing.NamedTuple):
    a: int
@dataclasses.dataclass
class D:
    x: int = 1

def test_stdlib_things():
    assert Point(1, 2).x == 1 and Color.RED.value == 1 and Shade.LIGHT and NT(1).a == 1 and D().x == 1
    assert math.isclose(statistics.mean([1, 2, 3]), 2) and decimal.Decimal("1.1") + 1 and fractions.Fraction(1, 3)
    assert list(itertools.permutations([1, 2])) and heapq.nsmallest(1, [3, 1]) == [1]
    assert get_positive([1, -1]) == [1]

def test_tmp_path_and_files(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text("hello")
    assert p.read_text() == "hello"
    with open("local.txt", "w") as f: f.write("x")
    os.remove("local.txt")
    assert get_positive([2]) == [2]

def test_monkeypatch_capsys_caplog(monkeypatch, capsys, caplog):
    monkeypatch.setattr(math, "pi", 3)
    monkeypatch.setenv("X", "1")
    print("out")
    logging.getLogger("t").warning("warned")
    assert capsys.readouterr().out == "out\n"
    assert "warned" in caplog.text
    assert get_positive([3]) == [3]

def test_raises_approx_warns():
    with pytest.raises(ZeroDivisionError):
        1 / 0
    assert 0.1 + 0.2 == pytest.approx(0.3)
    with pytest.warns(UserWarning):
        warnings.warn("w")
    assert get_positive([-1]) == []

@pytest.mark.parametrize("v,e", [([1], [1]), ([-1], [])])
def test_param(v, e):
    assert get_positive(v) == e

@pytest.fixture
def data():
    yield [1, -2, 3]

def test_fixture(data):
    assert get_positive(data) == [1, 3]

class TestClass:
    def setup_method(self):
        self.v = [5]
    def test_m(self):
        assert get_positive(self.v) == [5]

class TestUnit(unittest.TestCase):
    def setUp(self):
        self.v = [4, -4]
    def test_u(self):
        self.assertEqual(get_positive(self.v), [4])
    def test_sub(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertEqual(get_positive([i + 1]), [i + 1])

def test_recursion_and_big():
    sys.setrecursionlimit(5000)
    assert len(get_positive(list(range(-1000, 1000)))) == 999

def test_hypothesis():
    from hypothesis import given, settings, strategies as st
    @settings(max_examples=20, database=None)
    @given(st.lists(st.integers()))
    def inner(xs):
        assert all(x > 0 for x in get_positive(xs))
    inner()

def test_tempfile_and_pathlib():
    import tempfile, pathlib
    with tempfile.TemporaryDirectory() as d:
        pathlib.Path(d, "a").write_text("1")
        assert os.listdir(d) == ["a"]
    with tempfile.NamedTemporaryFile("w") as f:
        f.write("x")
    assert get_positive([1]) == [1]

def test_inspect_source():
    import inspect, solution
    assert "return" in inspect.getsource(solution.get_positive)

def test_doctest_of_solution():
    import doctest, solution
    doctest.testmod(solution)
    assert get_positive([1]) == [1]

def test_skip_is_error():
    pytest.skip("not here")

@pytest.mark.xfail
def test_xfail_failing():
    assert False

async def test_async():
    assert True
