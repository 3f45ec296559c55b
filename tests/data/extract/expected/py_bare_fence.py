from solution import has_close_elements


def test_close_pair_found():
    assert has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)


def test_no_close_pair():
    assert not has_close_elements([1.0, 2.0, 3.0], 0.5)
