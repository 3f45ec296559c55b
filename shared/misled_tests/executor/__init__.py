"""misled-tests v2's executor: model-written pytest files run on each program version, contained.

The sandbox side (`wire`, `paths`, `guard`, `lockdown`, `namespaces`, `items`, `version`, `server`)
is sent as source to a fresh interpreter and loaded there outside `sys.modules`; those modules use
the standard library and each other only. The host side (`host`) starts and drives that interpreter.
`server.py` describes the design; v1's executor (`misled_tests/sandbox.py`) is left as it was, for the
frozen v1 task files that embed it.
"""
