"""misled-tests: do models asked to test buggy code write tests that enshrine the bug?"""
