"""Semantics (route E): unittest's expectedFailure on a test that passes is an unexpected success, a failure."""
import unittest

from solution import get_positive


class TestExpected(unittest.TestCase):
    @unittest.expectedFailure
    def test_expected_failure_that_passes(self):
        self.assertEqual(get_positive([2]), get_positive([2]))
