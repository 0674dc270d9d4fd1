"""Linux namespaces, a private root and capability dropping for the sandbox child, through libc (ctypes).

`enter` moves the calling process (just forked, so single-threaded) into a
new user namespace that maps the caller's uid and gid to themselves, so even
root keeps no capability outside it, then into new PID, mount, network and
IPC namespaces owned by it. Each step can fail on its own where the OS
forbids it (old kernels, user namespaces disabled); `enter` says which
succeeded. Processes forked afterwards live in the new PID namespace (the
first one is its PID 1). The job process calls `build_root`, which
replaces the whole file system view with a fresh
tmpfs holding only bind mounts of the allowed paths (read-only), the job
directory (writable), a few device nodes and a new /proc that shows only
the namespace's processes, pivots into it and detaches the old root. Files
outside the allowed set, other processes' /proc entries and path-named
UNIX sockets (/run, /tmp, home directories) then have no path at all.

Test: tests/verify/test_sandbox.py.
"""

from __future__ import annotations

import ctypes
import os
import signal
from pathlib import Path

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE, MS_RELATIME = 32, 4096, 16384, 1 << 18, 1 << 21
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 1, 24, 38, 47, 4
CAPABILITY_VERSION_3 = 0x20080522
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(os.uname().machine)
_KEPT_MOUNT_FLAGS = os.ST_NOSUID | os.ST_NODEV | os.ST_NOEXEC | os.ST_NOATIME | os.ST_NODIRATIME

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _unshare(flag: int) -> bool:
    return _libc.unshare(flag) == 0


def enter(user: bool, pid: bool) -> dict[str, bool]:
    """Enter new user and PID namespaces (where asked), mount, network and IPC ones, where allowed; which it entered."""
    entered = {"user": user and _enter_user_namespace(), "pid": pid and _unshare(CLONE_NEWPID)}
    for name, flag in (("mount", CLONE_NEWNS), ("network", CLONE_NEWNET), ("ipc", CLONE_NEWIPC)):
        entered[name] = _unshare(flag)
    return entered


def _enter_user_namespace() -> bool:
    uid, gid = os.geteuid(), os.getegid()
    if not _unshare(CLONE_NEWUSER):
        return False
    Path("/proc/self/setgroups").write_text("deny")  # required before an unprivileged gid map
    Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
    return True


def user_namespace_works() -> bool:
    """Whether a forked process can enter a user namespace and map its ids (probed once, in a throwaway child).

    Some systems let the unshare succeed but refuse the id maps (AppArmor's
    restriction of unprivileged user namespaces); a child caught half-way
    could not even create its files, so the sandbox asks first.
    """
    pid = os.fork()
    if pid == 0:
        try:
            os._exit(0 if _enter_user_namespace() else 1)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else os.fsencode(text)


def _mount(source: str | None, target: Path | str, fstype: str | None, flags: int, data: str | None = None) -> None:
    result = _libc.mount(_bytes(source), _bytes(str(target)), _bytes(fstype), ctypes.c_ulong(flags), _bytes(data))
    _check(result, f"mount {source or ''} on {target}")


def _bind(root: Path, source: Path, writable: bool = False) -> None:
    """Bind `source` at the same path inside `root`: read-only with the mounts under it, or writable alone."""
    target = root / source.relative_to("/")
    if source.is_dir():
        target.mkdir(parents=True, exist_ok=True)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()
    _mount(str(source), target, None, MS_BIND if writable else MS_BIND | MS_REC)
    if not writable:
        kept = os.statvfs(target).f_flag  # flags the kernel may lock on a mount from another namespace
        flags = (kept & _KEPT_MOUNT_FLAGS) | (MS_RELATIME if kept & os.ST_RELATIME else 0)
        _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)


def _reachable(path: Path) -> bool:
    """Whether `path` exists and this process may reach it (one it may not could not be read anyway)."""
    try:
        path.stat()
    except OSError:
        return False
    return True


def build_root(
    root: Path, read_only: list[Path], writable: list[Path], devices: list[Path], links: list[tuple[Path, str]]
) -> bool:
    """Make a tmpfs at `root` with only the given paths, pivot into it, detach the old root.

    Returns whether /proc is a new mount (it shows the caller's PID
    namespace); where the kernel refuses one, the old /proc is bound
    instead. Paths that do not exist or cannot be reached are skipped.
    """
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done here propagates back to the caller's mounts
    root.mkdir(exist_ok=True)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
    for link, target in links:
        (root / link.relative_to("/")).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / link.relative_to("/"))
    for path in read_only:
        if _reachable(path):
            _bind(root, path)
    for path in [*writable, *devices]:
        if _reachable(path):
            _bind(root, path, writable=True)
    (root / "proc").mkdir(exist_ok=True)
    try:
        _mount("proc", root / "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        own_proc = True
    except OSError:
        _bind(root, Path("/proc"))
        own_proc = False
    old = root / ".old-root"
    old.mkdir()
    _check(_libc.syscall(SYS_PIVOT_ROOT, os.fsencode(str(root)), os.fsencode(str(old))), "pivot_root")
    os.chdir("/")
    _check(_libc.umount2(b"/.old-root", MNT_DETACH), "detaching the old root")
    os.rmdir("/.old-root")
    _mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    return own_proc


def can_build_root() -> bool:
    return SYS_PIVOT_ROOT is not None


def die_with_parent() -> None:
    """Get SIGKILL when the parent dies (the fork server, or the relay above the job)."""
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl(PR_SET_PDEATHSIG)")


def drop_capabilities() -> bool:
    """Drop every capability (effective, permitted, inheritable, ambient, bounding) and forbid regaining any.

    After this even a uid-0 process inside the user namespace has no
    capability there, and executing a set-uid or file-capability program
    grants none (no_new_privs). False if the kernel refused the final capset.
    """
    for cap in range(64):  # past the kernel's last capability the call fails harmlessly
        _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    header = (ctypes.c_uint32 * 2)(CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # two 32-bit halves of effective, permitted, inheritable: all zero
    return _libc.capset(header, data) == 0
