"""Run untrusted, model-written code in a disposable process the caller survives.

Design: a fork server (`tritonrl.verify.forkserver`) starts once with a
scrubbed environment and imports torch and triton; each job is a fresh child
forked from it, so isolation costs a few forks, not a multi-second import.
The child (`run_sandboxed`) builds its sandbox before touching the job,
runs it (`tritonrl.verify.child`), writes its observations to its job
directory and hands its outputs over through the job directory's socket
(`tritonrl.verify.handoff`). The server enforces the wall-clock limit by killing the
child's whole process group and reports how the child ended.

A job takes three processes. The relay, forked by the server, enters new
user, PID, mount, network and IPC namespaces (`tritonrl.verify.namespaces`),
starts `cat` as PID 1 of the new PID namespace (reading a pipe only the
relay holds) and forks the job. The job builds its private root, drops
every capability, restricts itself with Landlock (`tritonrl.verify.landlock`)
and runs. The relay waits for it and ends the same way (same exit status,
or the same signal), so the server sees what the job did; a job is never
PID 1, whose signal handling differs. When the relay ends, however it ends,
PID 1 reads end-of-file and exits, and the kernel kills everything left in
the namespace; the relay dies with the server (parent-death signal), so no
job outlives the server.

What the sandbox covers and what it does not (its threat model): docs/VERIFIER.md, "Sandbox".
Each protection is reported in the job's `isolation` (Verdict.sandbox).

Test: tests/verify/test_sandbox.py.
"""

from __future__ import annotations

import collections
import fcntl
import glob
import json
import logging
import os
import resource
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal, NoReturn

import tritonrl
from tritonrl.verify import landlock, namespaces

log = logging.getLogger(__name__)

# Variables a job legitimately needs; everything else (AWS_*, *_TOKEN,
# *_API_KEY, endpoints, proxies) is dropped before the server starts.
ENV_ALLOW = (
    "PATH",
    "LANG",
    "LC_ALL",
    "TRITON_INTERPRET",
    "CUDA_VISIBLE_DEVICES",
    "LD_LIBRARY_PATH",
    "CUDA_HOME",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
)
UNPRIVILEGED_UID = 65534  # `nobody`
SHM_MIN_FREE = 2 << 30  # room for several jobs' Triton caches, logs and results (outputs never go to files)
EXIT_HARNESS_FAILED = 70  # EX_SOFTWARE: the harness itself failed
SERVER_START_TIMEOUT_S = 600.0  # importing torch and triton from a slow shared file system
# What a child may read besides its job directory (see `exposure`): system
# trees, the few /etc files the loader, locale and user lookups need, devices.
SYSTEM_TREES = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/usr/local/cuda", "/sys")
ETC_FILES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "ld.so.preload",
    "passwd",
    "group",
    "nsswitch.conf",
    "localtime",
    "alternatives",
)
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
GPU_DEVICES = "/dev/nvidia*"  # also /dev/nvidia-caps (MIG)
ROOT_MOUNT_POINT = ".root"  # in the job directory: where the private root is assembled
# PID 1 of a job's PID namespace, never the job itself (PID 1 ignores signals
# it has no handler for, even SIGKILL from itself): `cat` reading a pipe only
# the relay holds lives exactly as long as the relay.
NAMESPACE_INIT = "/bin/cat"
LOG_KEEP_BYTES = (
    1 << 20
)  # a job's log (child.log: stdout and stderr) keeps this much of its output's start, and of its end
VERIFIER_FOLDER_PREFIX = (
    "tritonrl-verify-"  # then the owner's pid: one folder per verifier in the job root, its jobs' in it
)
MOUNTINFO = "/proc/self/mountinfo"  # where the caller's mount points are listed (mount point: 5th field)
OUTPUT_POLL_S = 0.05  # how often the relay looks whether the job ended while its output pipe is quiet


class SandboxError(RuntimeError):
    """The sandbox itself failed (not the candidate): the fork server cannot start or be reached."""


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 45.0
    memory_bytes: int = 8 << 30  # address-space budget above the preloaded server (CPU jobs only)
    max_processes: int = 512  # threads count too (torch spawns a pool); blocks fork bombs
    max_file_bytes: int = 64 << 30


@dataclass(frozen=True)
class ProcessOutcome:
    """How a sandboxed child ended; `server_lost`: the fork server died or stopped answering meanwhile."""

    status: Literal["exited", "signaled", "timeout", "server_lost"]
    exit_code: int | None
    signal: int | None
    seconds: float
    max_rss_kb: int


@dataclass(frozen=True)
class Exposure:
    """What a child may read besides its job directory: real paths of trees and files, devices, symlinks to recreate."""

    read_only: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)  # (path, target): symlinks met on the way to read_only


def scrubbed_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The allow-listed variables, and a PYTHONPATH that imports this package and the caller's other packages.

    The caller's PYTHONPATH entries that `exposure` lets a child read come along, so the fork server and its
    children import the same numpy, triton... as the verifier (packages added with `pip install --target DIR`
    and PYTHONPATH=DIR were silently replaced by the system's own); entries it hides (home, checkout) do not.
    """
    env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(tritonrl.__file__).resolve().parents[1]), *_shared_python_path()])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra or {})
    return env


def _under(path: str, tree: str) -> bool:
    return path == tree or path.startswith(tree.rstrip("/") + "/")


def _guarded() -> tuple[list[str], list[str]]:
    """(trees a child may neither read into nor see a parent of: the checkout, the caller's home and the state
    directory (TRITONRL_HOME: artifacts, databases); trees it may not see a parent of: the job root, which is the
    temp dir where /dev/shm is small, so a package directory in /tmp stays usable)."""
    from tritonrl.home import state_dir

    def real(paths) -> list[str]:
        return [os.path.realpath(p) for p in paths if os.path.exists(p) and os.path.realpath(p) != "/"]

    package = Path(tritonrl.__file__).resolve().parent
    return real((str(package.parent), os.path.expanduser("~"), str(state_dir()))), real((str(job_root()),))


def _ancestors(path: str) -> list[str]:
    """`path` and every directory above it, up to but excluding /."""
    chain = []
    while path not in ("/", ""):
        chain.append(path)
        path = os.path.dirname(path)
    return chain


def _same_or_inside(inner: str, outer: str) -> bool:
    """`inner` is `outer` or lies below it, by inode as well as by name (a bind mount or second mount point of the
    home reaches the same files under another name)."""
    if _under(inner, outer):
        return True
    target = os.stat(outer)
    return any(os.path.samestat(os.stat(a), target) for a in _ancestors(inner))


def _mounts_below(path: str) -> bool:
    """Something is mounted under `path` (binds are recursive: a mount of the home there would come along)."""
    try:
        with open(MOUNTINFO) as handle:
            points = [line.split()[4].replace("\\040", " ") for line in handle]
    except OSError:
        return False
    return any(point != path and _under(point, path) for point in points)


def _admitted(entry: str) -> bool:
    """An existing absolute path that neither lies in a guarded tree nor holds one (nor the job root, nor a mount),
    and is no shared scratch space (a world-writable directory such as /tmp holds other users' files and sockets)."""
    if not os.path.isabs(entry) or not os.path.exists(entry):
        return False
    real = os.path.realpath(entry)
    if real == "/" or (os.path.isdir(real) and os.stat(real).st_mode & 0o002) or _mounts_below(real):
        return False
    private, job_roots = _guarded()
    if any(_same_or_inside(real, g) or _same_or_inside(g, real) for g in private):
        return False
    return not any(
        _same_or_inside(g, real)
        or (_under(real, g) and real != g and os.path.relpath(real, g).startswith(VERIFIER_FOLDER_PREFIX))
        for g in job_roots
    )  # other verifiers' job folders, never a package next to them


PYTHON_FILES = (".py", ".pyc", ".pth", ".so", ".dist-info", ".egg-info")  # what Python imports or reads on a path entry
CHECKOUT_MARKERS = (".git", ".hg", ".svn")  # a project checkout (its secrets, history) is no package directory


def _python_package_directory(directory: str) -> bool:
    """What `pip install --target` makes: modules, packages, .pth or package metadata (every install writes a
    .dist-info) at the top level; no project checkout and no socket anywhere in it (a read-only bind does not stop
    connect()). /etc, /run and a repository root are not package directories."""
    found = False
    try:
        with os.scandir(directory) as entries:
            for item in entries:
                if item.name in CHECKOUT_MARKERS:
                    return False
                found = (
                    found
                    or item.name.endswith(PYTHON_FILES)
                    or (item.is_dir(follow_symlinks=False) and os.path.exists(os.path.join(item.path, "__init__.py")))
                )
        for root, _, files in os.walk(directory):
            if any(stat.S_ISSOCK(os.lstat(os.path.join(root, f)).st_mode) for f in files):
                return False
    except OSError:
        return False
    return found


_reported_dropped: set[str] = set()


def _shared_python_path() -> list[str]:
    """The real paths of the caller's PYTHONPATH directories a child may read (see `exposure`); a dropped one is
    logged once, since the child then imports something else than the caller (the checkout, holding this package,
    is passed on its own)."""
    shared = []
    package_parent = str(Path(tritonrl.__file__).resolve().parents[1])
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        real = os.path.realpath(entry) if entry else ""
        if not entry or real == package_parent or real in shared:
            continue
        if os.path.isabs(entry) and os.path.isdir(real) and _admitted(real) and _python_package_directory(real):
            shared.append(real)
        elif entry not in _reported_dropped:
            _reported_dropped.add(entry)
            log.warning(
                "PYTHONPATH entry %s is not visible to sandboxed candidates (it must be an absolute, existing "
                "package directory outside the home, the checkout and TRITONRL_HOME, not world-writable, with "
                "no repository, socket or mount in it)",
                entry,
            )
    return shared


def exposure() -> Exposure:
    """The allow-list, computed in the caller (who knows HOME): interpreter, packages, system trees.

    Directories named by PATH, LD_LIBRARY_PATH and CUDA_HOME (compilers,
    CUDA on clusters) are added, a `bin` or `lib` directory with the prefix
    around it (a compiler needs its libexec and include directories too),
    unless they lie in or hold the checkout, the caller's home, the job root
    or TRITONRL_HOME (by name or by inode: a second mount point of the home
    counts), or are world-writable; so are PYTHONPATH's package directories,
    under the same rule, by their real path. The package directory is
    exposed, never the checkout around it.
    """
    import site
    import sysconfig

    package = Path(tritonrl.__file__).resolve().parent
    wanted = [
        sys.base_prefix,
        sys.prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        *site.getsitepackages(),
        *([site.getusersitepackages()] if site.ENABLE_USER_SITE else []),
        *sysconfig.get_paths().values(),
        str(package),
        *SYSTEM_TREES,
        *(f"/etc/{name}" for name in ETC_FILES),
    ]
    for variable in ("PATH", "LD_LIBRARY_PATH", "CUDA_HOME"):
        for entry in os.environ.get(variable, "").split(os.pathsep):
            if os.path.basename(entry.rstrip("/")) in ("bin", "sbin", "lib", "lib64"):
                entry = os.path.dirname(entry.rstrip("/"))
            if _admitted(entry):
                wanted.append(entry)
    wanted += _shared_python_path()
    wanted = [p for p in wanted if os.path.exists(p)]
    trees: list[str] = []
    for real in sorted({os.path.realpath(p) for p in wanted}):  # a tree sorts before the paths under it
        if not any(_under(real, tree) for tree in trees):
            trees.append(real)
    links: dict[str, str] = {}
    for path in wanted:
        walked = "/"
        for part in Path(path).parts[1:]:
            step = os.path.join(walked, part)
            if os.path.islink(step) and not any(_under(step, tree) for tree in trees):
                links[step] = os.readlink(step)
            walked = os.path.realpath(step)
    devices = [d for d in DEVICES if os.path.exists(d)] + sorted(glob.glob(GPU_DEVICES))
    return Exposure(trees, devices, sorted(links.items()))


def _address_space_now() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _exit_with(body: Callable[[], int]) -> NoReturn:
    """End this forked process with `body`'s status; a harness failure prints its traceback and exits 70."""
    code = EXIT_HARNESS_FAILED
    try:
        code = body()
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


def _redirect_output(job_dir: Path) -> None:
    """stdout/stderr to the job's log, stdin from /dev/null, every other inherited descriptor closed.

    Called in the relay, which alone writes the log: the job's output reaches it through `_relay_output`.
    """
    log_fd = os.open(job_dir / "child.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    null_fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null_fd, 0)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.closerange(3, max(int(fd) for fd in os.listdir("/proc/self/fd")) + 1)  # not to SC_OPEN_MAX: it can be 2**30


def _relay_output(source: int, job_pid: int) -> int:
    """Copy the job's output from the pipe `source` to the log (stdout) until the job ends; returns its wait status.

    The log keeps the first and the last LOG_KEEP_BYTES (where a traceback is), with a line
    saying how much was dropped between them: a candidate printing gigabytes neither fills the job root
    (RAM, in /dev/shm) nor stops, and still gets the verdict its outputs earn.
    """
    status, written, dropped, after_end = None, 0, 0, 0
    tail: collections.deque[bytes] = collections.deque()
    tail_bytes = 0
    while True:
        if status is None:
            done, wait_status = os.waitpid(job_pid, os.WNOHANG)
            if done:
                status = wait_status
                os.set_blocking(source, False)  # drain what is left, then stop
            elif not select.select([source], [], [], OUTPUT_POLL_S)[0]:
                continue
        try:
            chunk = os.read(source, 1 << 16)
        except BlockingIOError:
            break
        if not chunk:  # every writer is gone
            status = os.waitpid(job_pid, 0)[1] if status is None else status
            break
        if status is not None:
            after_end += len(chunk)
            if after_end > LOG_KEEP_BYTES:  # something the job left running keeps writing; the namespace's end kills it
                break
        head = chunk[: max(LOG_KEEP_BYTES - written, 0)]
        _write_all(1, head)
        written += len(head)
        if len(head) < len(chunk):
            tail.append(chunk[len(head) :])
            tail_bytes += len(tail[-1])
            while tail_bytes - len(tail[0]) >= LOG_KEEP_BYTES:
                dropped += len(tail[0])
                tail_bytes -= len(tail.popleft())
    end = b"".join(tail)
    dropped += max(len(end) - LOG_KEEP_BYTES, 0)
    if dropped:
        _write_all(
            1,
            f"\n[sandbox: {dropped} bytes of output dropped here (the log keeps its first and last "
            f"{LOG_KEEP_BYTES} bytes)]\n".encode(),
        )
    _write_all(1, end[-LOG_KEEP_BYTES:])
    return status


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _end_like(status: int) -> int:
    """Exit as a job with wait status `status` ended: the same signal, or the same exit status."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number != signal.SIGKILL:
            signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
        os.kill(os.getpid(), number)
        return 128 + number  # a signal whose default is to continue
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else EXIT_HARNESS_FAILED


def run_sandboxed(
    server_pid: int,
    job_dir: Path,
    limits: Limits,
    device: str,
    exposure: Exposure,
    user_namespace: bool,
    job: Callable[[Path, dict[str, bool]], int],
) -> NoReturn:
    """The relay: called in the server's freshly forked child; ends as the job ended."""

    def relay() -> int:
        _redirect_output(job_dir)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # also for the relay's own ending by the job's signal
        os.setsid()  # own process group: the server kills the whole group on timeout
        entered = namespaces.enter(user_namespace, pid=os.access(NAMESPACE_INIT, os.X_OK))
        namespaces.die_with_parent()
        if os.getppid() != server_pid:
            return EXIT_HARNESS_FAILED  # the server is already gone
        init_stdin = None
        if entered["pid"]:
            init_stdin, holder = os.pipe()
            init = os.posix_spawn(
                NAMESPACE_INIT,
                [NAMESPACE_INIT],
                {},
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, init_stdin, 0),
                    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                ],
            )
            os.close(init_stdin)
        relay_pid = 0 if entered["pid"] else os.getpid()  # as the job sees it: a parent outside its namespace is 0
        output, job_output = os.pipe()
        job_pid = os.fork()
        if job_pid == 0:
            os.dup2(job_output, 1)
            os.dup2(job_output, 2)
            for fd in (output, job_output, *([holder] if entered["pid"] else [])):
                os.close(fd)
            _exit_with(lambda: job(job_dir, _prepare_job(relay_pid, job_dir, limits, device, exposure, entered)))
        os.close(job_output)
        status = _relay_output(output, job_pid)
        os.close(output)
        if entered["pid"]:
            os.close(holder)  # the namespace's init reads end-of-file and exits, killing what the job left running
            os.waitpid(init, 0)
        return _end_like(status)

    _exit_with(relay)


def _prepare_job(
    relay_pid: int, job_dir: Path, limits: Limits, device: str, exposure: Exposure, entered: dict[str, bool]
) -> dict[str, bool]:
    """In the job process: build the private root, then `isolate_child`; returns the isolation achieved."""
    namespaces.die_with_parent()
    if os.getppid() != relay_pid:
        raise SandboxError("the relay died before the job started")
    private_root = own_proc = False
    if entered["mount"] and namespaces.can_build_root():
        try:
            own_proc = namespaces.build_root(
                job_dir / ROOT_MOUNT_POINT,
                [Path(p) for p in exposure.read_only],
                [job_dir],
                [Path(d) for d in exposure.devices],
                [(Path(link), target) for link, target in exposure.links],
            )
            private_root = True
        except OSError as exc:
            print(f"sandbox: no private root ({exc}); relying on Landlock alone", file=sys.stderr)
    achieved = {
        "user_namespace": entered["user"],
        "pid_namespace": entered["pid"] and own_proc,
        "network_isolated": entered["network"],
        "ipc_isolated": entered["ipc"],
        "private_root": private_root,
    }
    return isolate_child(job_dir, limits, device, exposure, achieved)


def isolate_child(
    job_dir: Path, limits: Limits, device: str, exposure: Exposure, achieved: dict[str, bool]
) -> dict[str, bool]:
    """Called in the job process before any job code runs. Returns what isolation was achieved."""
    for name in ("tmp", "home", "triton-cache"):
        (job_dir / name).mkdir(exist_ok=True)
    env = scrubbed_env(
        {
            "HOME": str(job_dir / "home"),
            "TMPDIR": str(job_dir / "tmp"),
            "TRITON_CACHE_DIR": str(job_dir / "triton-cache"),
        }
    )
    os.environ.clear()
    os.environ.update(env)
    tempfile.tempdir = env["TMPDIR"]  # the server may have cached another one
    os.chdir(job_dir)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.max_file_bytes, limits.max_file_bytes))
    cpu_seconds = int(limits.timeout_s * 4) + 10  # all threads count; the wall clock is the real bound
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    if device == "cpu":
        # CUDA maps huge virtual ranges, so the address-space cap is for CPU jobs only.
        cap = _address_space_now() + limits.memory_bytes
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    capabilities_dropped = namespaces.drop_capabilities()
    enforced = landlock.restrict(
        read_only=[Path(p) for p in [*exposure.read_only, "/proc"]],
        writable=[job_dir, Path(f"/proc/{os.getpid()}")],  # its own /proc entries: the CUDA driver writes there
        devices=[Path(d) for d in exposure.devices],
    )
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes))
    return {
        **achieved,
        "capabilities_dropped": capabilities_dropped,
        "filesystem_restricted": enforced.filesystem,
        "signals_scoped": enforced.scopes,
    }


def job_root() -> Path:
    """Where job directories live: $TRITONRL_JOB_ROOT, else /dev/shm when it has room, else the temp dir.

    A job writes its Triton cache, result and log there; /dev/shm keeps
    them in memory, but container /dev/shm is often tiny, so it must have
    `SHM_MIN_FREE` bytes free to be used.
    """
    if os.environ.get("TRITONRL_JOB_ROOT"):
        return Path(os.environ["TRITONRL_JOB_ROOT"])
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free >= SHM_MIN_FREE:
        return shm
    return Path(tempfile.gettempdir())


def claim_verifier_folder(root: Path) -> tuple[Path, int]:
    """A new verifier folder in `root` (the job root) and a descriptor locking it (flock) while this process lives.

    Folders of verifiers that died without closing (SIGKILL, the OOM killer) are swept first: nothing holds
    their lock any more. The lock decides, not the pid in the name (kept for people): pids are reused, and
    processes in other PID namespaces sharing /dev/shm have pids this one cannot see.
    """
    for folder in root.glob(f"{VERIFIER_FOLDER_PREFIX}[0-9]*-*"):
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            shutil.rmtree(folder, ignore_errors=True)
        except BlockingIOError:
            pass  # its verifier is alive
        finally:
            os.close(fd)
    while True:  # another verifier's sweep may remove the new folder before it is locked: then take another
        folder = Path(tempfile.mkdtemp(prefix=f"{VERIFIER_FOLDER_PREFIX}{os.getpid()}-", dir=root))
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        except FileNotFoundError:  # swept between mkdtemp and open
            continue
        fcntl.flock(fd, fcntl.LOCK_EX)
        if os.fstat(fd).st_nlink:  # not swept between open and flock
            return folder, fd
        os.close(fd)


class ForkServer:
    """A preloaded server that forks one sandboxed child per job. Use as a context manager.

    `run_as` (for tests): the server drops to that uid and gid after
    preloading, so a root caller can exercise the unprivileged path; job
    directories are then handed to that user.
    """

    def __init__(
        self,
        limits: Limits = Limits(),
        interpret: bool = True,
        env: dict[str, str] | None = None,
        run_as: int | None = None,
    ) -> None:
        self.limits = limits
        self.interpret = interpret
        self.env = dict(env or {})  # e.g. CUDA_VISIBLE_DEVICES for a per-GPU worker, OMP_NUM_THREADS
        self.run_as = run_as
        self.reply_grace_s = 30.0  # beyond the job's timeout: the server kills the child, then CUDA tears down
        self._proc: subprocess.Popen | None = None
        self._pending = b""
        self._lock = threading.Lock()
        self._interrupted = False  # set by `interrupt`: no job runs any more
        self.log_path: Path | None = None

    def start(self) -> None:
        extra = {**self.env, **({"TRITON_INTERPRET": "1"} if self.interpret else {})}
        log_dir = Path(os.environ.get("TMPDIR", "/tmp"))
        self.log_path = log_dir / f"tritonrl-forkserver-{os.getpid()}-{id(self)}.log"
        config = {"exposure": asdict(exposure()), "run_as": self.run_as}
        log = self.log_path.open("wb")
        self._proc = subprocess.Popen(
            # -P: the job root (the working directory) must not shadow modules the server imports later
            [sys.executable, "-P", "-m", "tritonrl.verify.forkserver", json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            env=scrubbed_env(extra),
            cwd=job_root(),
            start_new_session=True,
        )
        log.close()
        self._pending = b""
        ready = self._read_line(time.monotonic() + SERVER_START_TIMEOUT_S)
        if ready != b"ready":
            self._kill()
            raise SandboxError(f"fork server failed to start; its log: {self.log_path}\n{self._log_tail()}")

    def _log_tail(self) -> str:
        try:
            return self.log_path.read_text()[-2000:]
        except OSError:
            return ""

    def _read_line(self, deadline: float) -> bytes | None:
        """One line from the server, or None if it closed the pipe or said nothing before `deadline`."""
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._pending:
            ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0.0))
            chunk = os.read(fd, 65536) if ready else b""
            if not chunk:
                return None
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return line.strip()

    def _send(self, request: dict) -> None:
        self._proc.stdin.write((json.dumps(request) + "\n").encode())
        self._proc.stdin.flush()

    def run(
        self, job_dir: Path, device: str, shared: Sequence[Path] = (), timeout_s: float | None = None
    ) -> ProcessOutcome:
        """Run the job in `job_dir` (job.json already written) in a fresh child; blocks until it ends.

        `shared`: files outside the job directory the job may read (the GPU's lock files).
        `timeout_s`: this job's wall-clock limit, when not the server's `limits.timeout_s`.

        A server that dies, stops answering or answers garbage while the job
        runs (a candidate that escaped could do that) is killed and the job
        ends `server_lost`; the next job starts a new server.
        """
        timeout_s = self.limits.timeout_s if timeout_s is None else timeout_s
        request = {
            "job_dir": str(job_dir),
            "device": device,
            "timeout_s": timeout_s,
            "memory_bytes": self.limits.memory_bytes,
            "max_processes": self.limits.max_processes,
            "max_file_bytes": self.limits.max_file_bytes,
            "shared": [str(path) for path in shared],
        }
        if self.run_as is not None:
            for path in [job_dir, *job_dir.iterdir()]:
                os.chown(path, self.run_as, self.run_as)
        with self._lock:
            if self._interrupted:
                raise SandboxError("the verifier was interrupted; no more candidates run")
            if self._proc is None or self._proc.poll() is not None:
                self.start()
            started = time.monotonic()
            try:
                self._send(request)
            except OSError:  # it died between jobs: nothing of this job ran yet
                self._kill()
                self.start()
                try:
                    self._send(request)
                except OSError as exc:
                    raise SandboxError(f"fork server connection broke: {exc}; log: {self.log_path}") from exc
            reply = self._read_line(started + timeout_s + self.reply_grace_s)
            try:
                return ProcessOutcome(**json.loads(reply))
            except (TypeError, ValueError):
                self._kill()
                return ProcessOutcome("server_lost", None, None, time.monotonic() - started, 0)

    def _kill(self) -> None:
        """Kill the server (stopped or not); its children die with it (parent-death signal)."""
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None

    def interrupt(self) -> None:
        """Kill the server now, from any thread: a job it is running ends `server_lost` at once.

        For an interrupted caller (Ctrl-C, SIGTERM): nothing waits for a
        running candidate's trials. The thread in `run` sees the closed pipe
        and tidies up under its lock; later jobs are refused (SandboxError),
        so no worker starts a new server while the pool closes.
        """
        self._interrupted = True
        proc = self._proc
        if proc is not None:
            proc.kill()

    def stop(self) -> None:
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.stdin.close()
                try:
                    self._proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                    self._proc.wait()
            self._proc = None

    def __enter__(self) -> ForkServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
