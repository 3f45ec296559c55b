"""The outer jail: every execution of model-written code on the user's machine happens inside it.

`hallubench rescore` executes the tests inside run files that come from elsewhere, and a frozen
executor's own isolation cannot be trusted to hold (misled-tests v1 and v2 relied on an audit hook
in the same interpreter). So the tooling never lets an executor run on the host: it starts a
worker process in a jail enforced by the kernel, hands it what it needs over a pipe, and reads
back JSON. The layers, each applied below anything code inside can reach:

* an unprivileged user: when hallubench runs as root it first drops to a dedicated uid/gid
  (`HALLUBENCH_JAIL_UID`, default 64833), so root inside a user namespace is never root outside;
* bubblewrap (Debian's `bubblewrap`): fresh user, mount, PID, IPC, UTS and network namespaces, a
  read-only view of the interpreter and the system libraries only, a size-limited scratch tmpfs,
  `--die-with-parent`, so nothing outlives the jail;
* Landlock (`hallubench.confine.landlock`): writes only to the scratch area, execution of the
  interpreter only, no TCP, signals and abstract sockets scoped to the jail;
* a seccomp filter compiled by libseccomp (`hallubench.confine.seccomp`): no ptrace, mount, bpf,
  io_uring, userfaultfd, keyctl, SysV IPC, perf_event_open, personality or new namespaces;
* resource limits, no_new_privs, and a worker other processes cannot read (not dumpable).

A layer this machine lacks stops the command with its name and how to get it, unless the user
accepts running without it (`--jail-without LAYER`); the layers in force are recorded with every
result.
"""
