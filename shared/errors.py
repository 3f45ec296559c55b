"""The root of every exception hallubench defines, so a caller can catch "ours" apart from Python's.

Standard library only and import-free: it is embedded into task files (a benchmark's modules
import it relatively, `from ..errors import HallubenchError`) and shipped into the misled-tests
sandbox server with the modules that raise through it.
"""

from __future__ import annotations


class HallubenchError(Exception):
    """An error hallubench raises on purpose: a refused input, a missing service, a broken rule.

    A class that callers catch as a built-in keeps that built-in as a second base (shown as
    "also ..."). The tree below is checked against the code by tests/test_errors.py: every
    exception class in `hallubench` is in it, under its nearest listed ancestor.

    HallubenchError
      conversation.ModelCallError
      confine.errors.ConfinementError (also OSError)
      hallucinated_packages.decoys.PreflightError (also RuntimeError)
        hallucinated_packages.decoys.CanaryFailed
        hallucinated_packages.decoys.DecoyCompromised
      hallucinated_packages.extract_js.ParserUnavailable (also RuntimeError)
      hallucinated_packages.wellformed.NotWellFormed (also ValueError)
      hallucinated_packages.wheel_index.ArchiveError
      misled_tests.data.DataError
      misled_tests.pytest_setup.PytestUnavailable
      misled_tests.sandbox.SandboxError
      misled_tests.executor.guard.SandboxViolation (also PermissionError)
      misled_tests.executor.host.SandboxError
      misled_tests.executor.host._ServerDied
      misled_tests.executor.wire.WireError
      tooling.docs_table.MarkersMissing (also ValueError)
      tooling.embedded_model.weights.EmbeddedModelError (also RuntimeError)
      tooling.freeze.FreezeError
      tooling.git_history.HistoryUnavailable
      tooling.jail.frames.FrameError
      tooling.jail.policy.JailFailed (also RuntimeError)
      tooling.jail.policy.JailRefused (also RuntimeError)
      tooling.jail.worker.Refused
      tooling.kaggle_access.KaggleAccessError
      tooling.kaggle_runs.files.RunFileError
      tooling.kaggle_runs.parse.RunFormatError (also ValueError)
      tooling.lockfile.LockError (also ValueError)
      tooling.misled_tests.report.MisledReportInputError
      tooling.report_html.page.ReportInputError (also ValueError)
      tooling.repo.RepositoryNotFound
      tooling.rescore.newer.IncompatibleScorer (also ValueError)
      tooling.rescore.options.OptionError (also ValueError)
      tooling.rescore.parallel.WorkerFailed (also RuntimeError)
      tooling.runner.RunnerError
      tooling.scaffold.ScaffoldError
      tooling.specs.HookError
        tooling.contract_check.ContractError
      tooling.task_lookup.TaskNotFound
        tooling.task_lookup.AmbiguousTask
        tooling.task_lookup.MissingTaskFile
      tooling.taskfile.closure.EmbeddingError
      tooling.taskfile.reader.TaskFileError
      tooling.testing.ScriptExhausted (also AssertionError)

    Outside the tree: `misled_tests/sandbox_child.py` runs as a script with no package to import
    from.
    """
