"""Run untrusted, model-written code in a disposable process the caller survives.

Design: a fork server (`tritonrl.verify.forkserver`) starts once with a
scrubbed environment and imports torch and triton; each job is a fresh child
forked from it, so isolation costs a fork, not a multi-second import. The
child isolates itself (`isolate_child`) before touching the job, runs it
(`tritonrl.verify.child`), and writes its results as files in its job
directory. The server enforces the wall-clock limit by killing the child's
whole process group and reports how the child ended.

Threat model.
Covered:
- credentials, tokens and endpoints in the caller's environment: the server
  starts from an allow-list environment, so they are not even in its memory;
- files of other jobs and the caller's reference outputs: reference outputs
  never enter a candidate's directory and are deleted from disk before any
  candidate runs; when running as root with a world-readable Python install,
  the child also drops to an unprivileged user (`nobody`);
- network: the child enters a new, empty network namespace where the OS
  allows it (root or unprivileged user namespaces); `network_isolated`
  in the outcome says whether it did;
- runaway code: wall-clock timeout killing the process group, CPU-time,
  address-space (CPU jobs), file-size, process-count and core-dump limits;
- crashes: segfaults, aborts, `os._exit`, OOM kills come back as the
  signal/exit status of the child, never as a failure of the caller;
- private temp dir, Triton cache and HOME per job.
Not covered:
- kernel-level escapes and GPU-driver bugs; GPU memory is not limited per job
  (jobs on one GPU share it; timed runs have it alone, gpu_lock.py, and the
  pool re-verifies alone a candidate that ran out of memory next to others);
- a candidate that subverts the in-process instrumentation (trace, launch
  counter, result files) by means the static layer does not see: the
  comparison with the reference happens in the caller on saved tensors,
  loaded with `weights_only=True`, so it cannot fake correct numbers, but
  it could hide its own behaviour from the trace;
- without root (or with Python installed in a private directory such as
  /root/.pyenv), the child keeps the caller's user and could read the
  caller's readable files; network and environment are still cut.

Test: tests/verify/test_sandbox.py.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import tritonrl

# Variables a job legitimately needs; everything else (AWS_*, *_TOKEN,
# *_API_KEY, endpoints, proxies) is dropped before the server starts.
ENV_ALLOW = (
    "PATH", "LANG", "LC_ALL", "TRITON_INTERPRET", "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "CUDA_HOME",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS",
)
UNPRIVILEGED_UID = 65534  # `nobody`
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
SHM_MIN_FREE = 16 << 30  # full-size KernelBench outputs are up to ~6.4 GB per trial


class SandboxError(RuntimeError):
    """The sandbox itself failed (not the candidate): cannot start or talk to the fork server."""


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 45.0
    memory_bytes: int = 8 << 30  # address-space budget above the preloaded server (CPU jobs only)
    max_processes: int = 512  # threads count too (torch spawns a pool); blocks fork bombs
    max_file_bytes: int = 64 << 30


@dataclass(frozen=True)
class ProcessOutcome:
    """How a sandboxed child ended."""

    status: Literal["exited", "signaled", "timeout"]
    exit_code: int | None
    signal: int | None
    seconds: float
    max_rss_kb: int


def scrubbed_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
    env["PYTHONPATH"] = str(Path(tritonrl.__file__).resolve().parents[1])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra or {})
    return env


def _unshare_network() -> bool:
    """Enter an empty network namespace; False where the OS does not allow it."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) == 0:
        return True
    if os.geteuid() != 0 and libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0:
        return True
    return False


def _world_traversable(path: Path) -> bool:
    """Every directory from / down to `path` lets others in, and `path` lets others read."""
    path = path.resolve()
    dirs_ok = all(p.stat().st_mode & 0o001 for p in [*reversed(path.parents), path] if p.is_dir())
    return dirs_ok and bool(path.stat().st_mode & 0o004)


@functools.lru_cache(maxsize=1)
def interpreter_world_readable() -> bool:
    """Whether an unprivileged user could still import modules (stdlib, site-packages, this package).

    If Python lives somewhere private (e.g. /root/.pyenv), dropping to `nobody`
    would break every import not yet loaded, so the child keeps its uid.
    """
    import site
    import sysconfig

    roots = [sysconfig.get_paths()["stdlib"], *site.getsitepackages(), str(Path(tritonrl.__file__).parent)]
    return all(_world_traversable(Path(r)) for r in roots if Path(r).exists())


def _address_space_now() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def isolate_child(job_dir: Path, limits: Limits, device: str) -> dict[str, bool]:
    """Called in the forked child before any job code runs. Returns what isolation was achieved."""
    os.setsid()  # own process group: the server kills the whole group on timeout
    for name in ("tmp", "home", "triton-cache"):
        (job_dir / name).mkdir(exist_ok=True)
    env = scrubbed_env(
        {"HOME": str(job_dir / "home"), "TMPDIR": str(job_dir / "tmp"), "TRITON_CACHE_DIR": str(job_dir / "triton-cache")}
    )
    os.environ.clear()
    os.environ.update(env)
    os.chdir(job_dir)
    network_isolated = _unshare_network()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.max_file_bytes, limits.max_file_bytes))
    cpu_seconds = int(limits.timeout_s * 4) + 10  # all threads count; the wall clock is the real bound
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    if device == "cpu":
        # CUDA maps huge virtual ranges, so the address-space cap is for CPU jobs only.
        cap = _address_space_now() + limits.memory_bytes
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    dropped = False
    if os.geteuid() == 0 and interpreter_world_readable():
        for path in [job_dir, *job_dir.rglob("*")]:
            os.chown(path, UNPRIVILEGED_UID, UNPRIVILEGED_UID)
        os.setgroups([])
        os.setgid(UNPRIVILEGED_UID)
        os.setuid(UNPRIVILEGED_UID)
        dropped = True
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes))
    return {"network_isolated": network_isolated, "privileges_dropped": dropped}


def job_root() -> Path:
    """Where job directories live: $TRITONRL_JOB_ROOT, else /dev/shm when it has room, else the temp dir.

    Outputs travel between processes as files; in /dev/shm that is memory
    speed, but container /dev/shm is often tiny, so it must have
    `SHM_MIN_FREE` bytes free to be used.
    """
    if os.environ.get("TRITONRL_JOB_ROOT"):
        return Path(os.environ["TRITONRL_JOB_ROOT"])
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free >= SHM_MIN_FREE:
        return shm
    return Path(tempfile.gettempdir())


class ForkServer:
    """A preloaded server that forks one sandboxed child per job. Use as a context manager."""

    def __init__(self, limits: Limits = Limits(), interpret: bool = True, env: dict[str, str] | None = None) -> None:
        self.limits = limits
        self.interpret = interpret
        self.env = dict(env or {})  # e.g. CUDA_VISIBLE_DEVICES for a per-GPU worker, OMP_NUM_THREADS
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self.log_path: Path | None = None

    def start(self) -> None:
        extra = {**self.env, **({"TRITON_INTERPRET": "1"} if self.interpret else {})}
        log_dir = Path(os.environ.get("TMPDIR", "/tmp"))
        self.log_path = log_dir / f"tritonrl-forkserver-{os.getpid()}-{id(self)}.log"
        log = self.log_path.open("wb")
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tritonrl.verify.forkserver"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            env=scrubbed_env(extra),
            cwd=job_root(),
            start_new_session=True,
        )
        log.close()
        ready = self._proc.stdout.readline()
        if ready.strip() != b"ready":
            raise SandboxError(f"fork server failed to start; its log: {self.log_path}\n{self._log_tail()}")

    def _log_tail(self) -> str:
        try:
            return self.log_path.read_text()[-2000:]
        except OSError:
            return ""

    def run(self, job_dir: Path, device: str) -> ProcessOutcome:
        """Run the job in `job_dir` (job.json already written) in a fresh child; blocks until it ends."""
        request = {
            "job_dir": str(job_dir),
            "device": device,
            "timeout_s": self.limits.timeout_s,
            "memory_bytes": self.limits.memory_bytes,
            "max_processes": self.limits.max_processes,
            "max_file_bytes": self.limits.max_file_bytes,
        }
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self.start()
            try:
                self._proc.stdin.write((json.dumps(request) + "\n").encode())
                self._proc.stdin.flush()
                reply = self._proc.stdout.readline()
            except (BrokenPipeError, OSError) as exc:
                self.stop()
                raise SandboxError(f"fork server connection broke: {exc}; log: {self.log_path}") from exc
            if not reply:
                self.stop()
                raise SandboxError(f"fork server died; its log: {self.log_path}\n{self._log_tail()}")
        return ProcessOutcome(**json.loads(reply))

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


def remove_job_dir(job_dir: Path) -> None:
    """Delete a job directory, even one whose files the unprivileged child created."""
    shutil.rmtree(job_dir, ignore_errors=True)
