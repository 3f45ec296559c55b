"""Kernel-enforced containment primitives: Landlock, seccomp, privileges, namespaces.

Standard library only (ctypes for the system calls), because the misled-tests executor embeds
these modules into task files that run on Kaggle, where nothing else can be installed; the
tooling's outer jail (`hallubench.tooling.jail`) applies the same code around every executor.
Each function reports what it applied and raises `ConfinementError` naming the layer it could
not apply, so a caller can refuse or record, never guess.
"""
