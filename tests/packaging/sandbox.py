#!/usr/bin/python3
"""sandbox — run a command under the parts of storbench.service's sandbox
that decide whether the daemon works, without systemd (the test machine's
PID 1 is not systemd, so systemd-run cannot start the unit).

    sandbox.py [--uid N --gid N] UNIT RW_PATH... -- COMMAND [ARG...]

From the unit's [Service] section, in the order systemd applies them:

- UMask=, LimitCORE=
- ProtectSystem=strict (root only): a private mount namespace in which every
  mount but /proc, /sys and /dev is read-only, and each RW_PATH is bound
  read-write (StateDirectory= and ReadWritePaths= in the unit)
- User=/Group= (root only): --uid/--gid, with no supplementary groups (the
  unit's user does not exist on a test machine); CapabilityBoundingSet= empty
  drops the whole bounding set first
- NoNewPrivileges=yes
- MemoryDenyWriteExecute=yes: prctl(PR_SET_MDWE) (Linux 6.3+), the kernel's
  own form of the rule systemd enforces with seccomp (no mapping both
  writable and executable, no mapping made executable later)
- SystemCallFilter=, SystemCallErrorNumber=, SystemCallArchitectures=native,
  RestrictAddressFamilies=: one seccomp filter (libseccomp, as systemd uses),
  groups expanded with `systemd-analyze syscall-filter`, plus what systemd
  allows implicitly (@default, execve, exit, exit_group, getrlimit,
  rt_sigreturn)

Other options (ProtectHome=, PrivateTmp=, PrivateDevices=, ProtectKernel*=,
RestrictNamespaces=, …) hide or forbid what the daemon never touches and are
only checked as text by tests/packaging/run.

Before exec it checks itself: a child process must be refused a writable and
executable mapping and a call outside the filter (setfsuid), and allowed
io_uring_setup.
Prints one line saying what it applied and what it could not. Exit 2 on a
usage or unit error, 3 if a check fails.
"""
import ctypes
import errno
import mmap
import os
import re
import resource
import shutil
import subprocess
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_void_p]
libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_MDWE = 24, 38, 65
PR_MDWE_REFUSE_EXEC_GAIN = 1
AF = {"AF_UNIX": 1, "AF_LOCAL": 1, "AF_INET": 2, "AF_INET6": 10,
      "AF_NETLINK": 16, "AF_PACKET": 17}


def die(code, msg):
    print(f"sandbox: {msg}", file=sys.stderr)
    sys.exit(code)


def service_section(path):
    """The [Service] assignments of a unit, in order, as (key, value)."""
    out, section = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line
            elif section == "[Service]" and "=" in line:
                k, v = line.split("=", 1)
                out.append((k.strip(), v.strip()))
    return out


def last(unit, key, default=None):
    vals = [v for k, v in unit if k == key]
    return vals[-1] if vals else default


def expand(names, seen=None):
    """Syscall names for a list of names and @groups (systemd's tables)."""
    seen = set() if seen is None else seen
    out = set()
    for n in names:
        if not n.startswith("@"):
            out.add(n)
            continue
        if n in seen:
            continue
        seen.add(n)
        r = subprocess.run(["systemd-analyze", "syscall-filter", n],
                           capture_output=True, text=True, check=True)
        members = [l.strip() for l in r.stdout.splitlines()[1:]
                   if l.startswith("    ") and not l.strip().startswith("#")]
        out |= expand(members, seen)
    return out


def syscall_sets(unit):
    """(allowed names, errno) from SystemCallFilter= lines (allow-list mode:
    the first line has no ~), or None when the unit sets no filter."""
    lines = [v for k, v in unit if k == "SystemCallFilter"]
    if not lines:
        return None
    if lines[0].startswith("~"):
        die(2, "a deny-list SystemCallFilter= is not emulated")
    allowed = expand(["@default", "execve", "exit", "exit_group", "getrlimit",
                      "rt_sigreturn"])
    for v in lines:
        names = [n.split(":")[0] for n in v.lstrip("~").split()]
        if v.startswith("~"):
            allowed -= expand(names)
        else:
            allowed |= expand(names)
    err = last(unit, "SystemCallErrorNumber")
    return allowed, getattr(errno, err) if err else None


def protect_system(rw_paths):
    """Private mount namespace: rw_paths bound read-write, every other mount
    outside /proc, /sys and /dev read-only. Returns (ro, failed) counts."""
    if libc.unshare(CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "mount --make-rprivate /")
    rw = [os.path.realpath(p) for p in rw_paths]
    for p in rw:
        if libc.mount(p.encode(), p.encode(), None, MS_BIND | MS_REC, None) != 0:
            raise OSError(ctypes.get_errno(), f"bind {p}")
    ro = failed = 0
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        mounts = [l.split() for l in f]
    for m in mounts:
        target = re.sub(r"\\([0-7]{3})", lambda x: chr(int(x.group(1), 8)), m[4])
        if target in rw or re.match(r"^/(proc|sys|dev)(/|$)", target):
            continue
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        opts = m[5].split(",")
        flags |= (MS_NOSUID if "nosuid" in opts else 0) | \
            (MS_NODEV if "nodev" in opts else 0) | \
            (MS_NOEXEC if "noexec" in opts else 0)
        if libc.mount(None, target.encode(), None, flags, None) == 0:
            ro += 1
        elif target == "/":
            raise OSError(ctypes.get_errno(), "remount / read-only")
        else:
            failed += 1
    return ro, failed


def load_filter(allowed, err, families):
    import seccomp  # python3-seccomp (libseccomp, as systemd uses)

    f = seccomp.SyscallFilter(seccomp.ERRNO(err) if err else seccomp.KILL)
    unknown = 0
    for name in sorted(allowed):
        if families and name == "socket":
            continue
        try:
            f.add_rule(seccomp.ALLOW, name)
        except (RuntimeError, ValueError, OSError):
            unknown += 1  # a name this libseccomp does not know
    if families and "socket" in allowed:
        for fam in sorted(families):
            f.add_rule(seccomp.ALLOW, "socket", seccomp.Arg(0, seccomp.EQ, fam))
    f.load()
    return unknown


CHILD_CHECK = r"""
import ctypes, mmap, sys
libc = ctypes.CDLL(None, use_errno=True)
bad = []
try:
    mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    if sys.argv[1] == "1": bad.append("a writable+executable mapping was allowed")
except OSError:
    pass
if libc.syscall(425, 1, ctypes.create_string_buffer(120)) < 0:  # io_uring_setup
    bad.append("io_uring_setup refused: errno %d" % ctypes.get_errno())
if sys.argv[2] == "1" and libc.setfsuid(-1) >= 0:  # outside the filter
    bad.append("setfsuid was allowed")
print("; ".join(bad))
"""


def main():
    args = sys.argv[1:]
    uid = gid = None
    while args and args[0] in ("--uid", "--gid"):
        if len(args) < 2:
            die(2, "usage: sandbox.py [--uid N --gid N] UNIT RW_PATH... -- CMD...")
        if args[0] == "--uid":
            uid = int(args[1])
        else:
            gid = int(args[1])
        args = args[2:]
    if "--" not in args or args.index("--") < 1 or args[-1] == "--":
        die(2, "usage: sandbox.py [--uid N --gid N] UNIT RW_PATH... -- CMD...")
    sep = args.index("--")
    unit = service_section(args[0])
    rw_paths, cmd = args[1:sep], args[sep + 1:]
    done, skipped = [], []
    root = os.geteuid() == 0
    # whether io_uring works here at all (a kernel or container may forbid it)
    r = subprocess.run([sys.executable, "-c", CHILD_CHECK, "0", "0"],
                       capture_output=True, text=True)
    uring = "io_uring_setup refused" not in r.stdout

    um = last(unit, "UMask")
    if um is not None:
        os.umask(int(um, 8))
        done.append(f"umask {um}")
    if last(unit, "LimitCORE") == "0":
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        done.append("no core dumps")

    if last(unit, "ProtectSystem") == "strict":
        if root:
            ro, failed = protect_system(rw_paths)
            done.append(f"{ro} mounts read-only ({failed} could not be), "
                        f"read-write: {' '.join(rw_paths)}")
        else:
            skipped.append("ProtectSystem (needs root)")

    if last(unit, "CapabilityBoundingSet", None) == "":
        if root:
            with open("/proc/sys/kernel/cap_last_cap") as f:
                for cap in range(int(f.read()) + 1):
                    libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
            done.append("capability bounding set empty")
        else:
            skipped.append("CapabilityBoundingSet (needs root; none held)")
    if last(unit, "User"):
        if root and uid is not None:
            os.setgroups([])
            os.setgid(gid if gid is not None else uid)
            os.setuid(uid)
            done.append(f"uid {uid} gid {gid}")
        elif root:
            skipped.append("User (no --uid)")
    if last(unit, "NoNewPrivileges") == "yes":
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            die(3, "PR_SET_NO_NEW_PRIVS failed")
        done.append("no new privileges")

    mdwe = last(unit, "MemoryDenyWriteExecute") == "yes"
    if mdwe:
        if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0:
            skipped.append("MemoryDenyWriteExecute (PR_SET_MDWE: %s; Linux 6.3+)"
                           % os.strerror(ctypes.get_errno()))
            mdwe = False
        else:
            done.append("memory-deny-write-execute")

    sets = syscall_sets(unit) if shutil.which("systemd-analyze") else None
    if sets is None and last(unit, "SystemCallFilter"):
        skipped.append("SystemCallFilter (no systemd-analyze to expand its "
                       "groups)")
    fams = last(unit, "RestrictAddressFamilies")
    families = {AF[a] for a in fams.split()} if fams else None
    try:
        import seccomp  # noqa: F401 (python3-seccomp)
    except ImportError:
        if sets:
            skipped.append("SystemCallFilter, RestrictAddressFamilies "
                           "(python3-seccomp missing)")
        sets = None
    if sets:
        allowed, err = sets
        for need in ("io_uring_setup", "io_uring_enter", "io_uring_register"):
            if need not in allowed:
                die(3, f"the unit's SystemCallFilter= does not allow {need}")
        unknown = load_filter(allowed, err, families)
        done.append(f"seccomp allow-list of {len(allowed)} calls"
                    f" ({unknown} unknown to libseccomp), others "
                    f"{errno.errorcode.get(err, 'SIGSYS')}"
                    + (f", sockets {fams}" if families else ""))
    # the child inherits all of it, as the exec'd daemon will
    # (setfsuid: harmless, in @privileged, so outside this unit's filter)
    probe = sets is not None and "setfsuid" not in sets[0] and sets[1] is not None
    r = subprocess.run([sys.executable, "-c", CHILD_CHECK, "1" if mdwe else "0",
                        "1" if probe else "0"], capture_output=True, text=True)
    bad = r.stdout.strip() if uring else \
        "; ".join(b for b in r.stdout.strip().split("; ")
                  if b and not b.startswith("io_uring_setup refused"))
    if r.returncode != 0 or bad:
        die(3, "self-check: " + (bad or r.stderr.strip()))
    done.append("io_uring works" if uring else
                "io_uring: unavailable on this machine even without the sandbox")
    print("sandbox: " + "; ".join(done)
          + ("; not applied: " + ", ".join(skipped) if skipped else ""),
          file=sys.stderr, flush=True)
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
