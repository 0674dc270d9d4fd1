"""Landlock: an unprivileged process restricts its own file, TCP and IPC reach (Linux 5.13 and later).

The sandbox child calls `restrict` on itself just before running a job:
from then on it (and everything it forks or executes) may read and execute
only beneath the read-only paths, write only beneath the writable ones, use
the listed device files, bind or connect no TCP port (ABI 4 and later), and,
with ABI 6 and later, signal no process and reach no abstract UNIX socket
outside its own Landlock domain. It also cannot ptrace a process outside the
domain, which keeps it out of every other process's /proc files. Every file
system right the running kernel's ABI knows is handled (denied unless a rule
grants it); rights newer than the kernel are not enforced, and `restrict`
says what was, so the caller can report it instead of assuming it.

The three system calls (444-446, the same on every architecture) are made
through ctypes; no library is needed.
"""

from __future__ import annotations

import ctypes
import os
import stat
from dataclasses import dataclass
from pathlib import Path

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
ABI1_FS = (1 << 13) - 1  # execute, read, write and every make/remove right
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # the rights a rule on a non-directory may grant
READ_ONLY = EXECUTE | READ_FILE | READ_DIR
DEVICE = READ_FILE | WRITE_FILE | TRUNCATE | IOCTL_DEV
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@dataclass(frozen=True)
class Enforced:
    """What `restrict` put in force."""

    filesystem: bool = False
    tcp: bool = False
    scopes: bool = False  # signals and abstract UNIX sockets stay inside the domain


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 where Landlock is missing or disabled."""
    version = _libc.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(int(version), 0)


def handled_fs_rights(abi: int) -> int:
    rights = ABI1_FS
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict(read_only: list[Path], writable: list[Path], devices: list[Path]) -> Enforced:
    """Restrict the calling process for good; paths it cannot reach (or that do not exist) are skipped.

    Sets no_new_privs first (Landlock requires it of an unprivileged process,
    and it stops set-uid programs from regaining rights).
    """
    abi = abi_version()
    if abi < 1:
        return Enforced()
    handled = handled_fs_rights(abi)
    attr = _RulesetAttr(handled, NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0, 0)
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
    size = 8 if abi < 4 else 16 if abi < 6 else 24  # the struct grew with the ABI; older kernels reject the longer one
    ruleset = _libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), f"landlock_create_ruleset: {os.strerror(ctypes.get_errno())}")
    try:
        for paths, rights in ((read_only, READ_ONLY), (writable, handled), (devices, DEVICE)):
            for path in paths:
                _allow(int(ruleset), path, rights & handled)
        if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if _libc.syscall(SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_restrict_self: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(ruleset)
    return Enforced(filesystem=True, tcp=abi >= 4, scopes=abi >= 6)


def _allow(ruleset: int, path: Path, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError, PermissionError):  # nothing this process could open anyway
        return
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= FILE_RIGHTS
        attr = _PathBeneathAttr(rights, fd)
        added = _libc.syscall(
            SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(attr), ctypes.c_uint32(0)
        )
        if added != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule({path}): {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)
