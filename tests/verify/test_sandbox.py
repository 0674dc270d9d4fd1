"""The sandbox contains what candidates do: environment, network, time, crashes, processes, files.

Isolation tests run twice: as the caller (root here) and with the fork
server dropped to `nobody` after preloading, so the unprivileged path (user
namespace first) is exercised even when the test runs as root. Each proves
a property by attempting it from a candidate, which reports what it saw by
raising RuntimeError(repr(evidence)): the message comes back in the verdict.
"""

import ast
import os
import re
import signal
import socket
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from tritonrl.verify import landlock, namespaces
from tritonrl.verify.sandbox import NAMESPACE_INIT, UNPRIVILEGED_UID, ForkServer, exposure
from tritonrl.verify.verifier import Verifier, VerifierSettings

from tests.support.candidates import candidate

REPO = Path(__file__).resolve().parents[2]


def test_child_sees_no_credentials(monkeypatch, builtin_problems):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s3cr3t-value")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    with Verifier(VerifierSettings(trials=1, timeout_s=30)) as verifier:
        verdict = verifier.verify(
            builtin_problems["01_relu.py"].source,
            candidate("import os\nraise RuntimeError('ENV=' + repr(sorted(os.environ.items())))"),
        )
    message = " ".join(r.message for r in verdict.reasons)
    assert "ENV=" in message
    assert "s3cr3t-value" not in message and "sk-should-not-leak" not in message
    assert "AWS_SECRET_ACCESS_KEY" not in message


def test_child_cannot_reach_a_loopback_server(verifier, builtin_problems):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    verdict = verifier.verify(
        builtin_problems["01_relu.py"].source,
        candidate(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'leak')"),
    )
    listener.setblocking(False)
    with pytest.raises(BlockingIOError):
        listener.accept()  # a connection the candidate made would be waiting in the backlog
    listener.close()
    assert "env_or_network" in verdict.codes
    assert not verdict.correct


@pytest.mark.slow
def test_timeout_kills_the_child_and_the_verifier_survives(builtin_problems):
    with Verifier(VerifierSettings(trials=1, timeout_s=5)) as verifier:
        reference = verifier.prepare_reference(builtin_problems["01_relu.py"].source)
        hung = verifier.verify_against(reference, candidate("while True:\n    pass"))
        assert "timeout" in hung.codes
        [message] = [r.message for r in hung.reasons if r.code.value == "timeout"]
        assert "raise verify.timeout_s" in message and "interpreter" in message and "GPU" in message  # the CPU's hint
        again = verifier.verify_against(reference, candidate("pass"))
        limit = verifier.candidate_timeout(
            reference
        )  # 5 s and 100 × the reference's own trials (the interpreter's share)
    assert again.correct, again.reasons
    assert hung.seconds < limit + 10


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("import ctypes\nctypes.string_at(0)", "crashed"),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", "crashed"),
        ("import os\nos._exit(0)", "crashed"),
        ("x = torch.empty(10**12)", "out_of_memory"),
        ("raise SystemExit(3)", "runtime_error"),
    ],
)
def test_faults_come_back_as_verdicts(verifier, builtin_problems, body, code):
    verdict = verifier.verify(builtin_problems["01_relu.py"].source, candidate(body))
    assert code in verdict.codes, verdict.reasons
    assert not verdict.correct


# -- isolation from the caller: processes, files, the fork server --------------------


@pytest.fixture(scope="module", params=["caller", "unprivileged"])
def sandboxed(request):
    """A CPU verifier whose fork server runs as the caller, or drops to `nobody` after preloading."""
    verifier = Verifier(VerifierSettings(trials=1, timeout_s=10, alternate_shapes=False))
    if request.param == "unprivileged":
        if os.geteuid() != 0:
            verifier.close()
            pytest.skip(
                "dropping the server to another uid needs root; run as an ordinary user, 'caller' is the unprivileged path"
            )
        verifier.server = ForkServer(verifier.server.limits, interpret=True, run_as=UNPRIVILEGED_UID)
    verifier.server.start()
    yield verifier
    verifier.close()


@pytest.fixture(scope="module")
def relu(builtin_problems):
    return builtin_problems["01_relu.py"]


def evidence(verdict) -> dict:
    """What the candidate reported by raising RuntimeError(repr(evidence))."""
    message = " ".join(r.message for r in verdict.reasons)
    found = re.search(r"RuntimeError: (\{.*\}) \(at candidate", message)
    assert found, f"the candidate did not report: {message}"
    return ast.literal_eval(found.group(1))


def require(verdict, flag: str) -> None:
    """Skip if the OS lacks the mechanism behind `flag`; fail if it has it and the sandbox did not use it."""
    if verdict.sandbox.get(flag):
        return
    needs = {"signals_scoped": 6, "filesystem_restricted": 1}.get(flag)
    if needs and landlock.abi_version() < needs:
        pytest.skip(f"{flag} needs Landlock ABI {needs}; this kernel offers {landlock.abi_version()}")
    if flag == "private_root" and not namespaces.can_build_root():
        pytest.skip(f"no pivot_root system call number is known for {os.uname().machine}")
    if flag == "pid_namespace" and not os.access(NAMESPACE_INIT, os.X_OK):
        pytest.skip(f"{NAMESPACE_INIT}, PID 1 of a job's namespace, is missing")
    if not needs and not namespaces.user_namespace_works() and (flag == "user_namespace" or os.geteuid() != 0):
        pytest.skip(f"{flag} needs a user namespace, and this OS lets this user create none")
    pytest.fail(f"{flag} was not achieved although the OS offers it: {verdict.sandbox}")


def probe(sandboxed, relu, body: str):
    verdict = sandboxed.verify(relu.source, candidate(body))
    assert not verdict.correct
    return verdict


def test_every_protection_is_in_force(sandboxed, relu):
    verdict = sandboxed.verify(relu.source, relu.reference_response)
    assert verdict.correct, verdict.reasons
    for flag in (
        "user_namespace",
        "pid_namespace",
        "network_isolated",
        "ipc_isolated",
        "private_root",
        "capabilities_dropped",
        "filesystem_restricted",
        "signals_scoped",
    ):
        require(verdict, flag)


def test_child_sees_no_other_process(sandboxed, relu):
    verifier_pid, server_pid = os.getpid(), sandboxed.server._proc.pid
    verdict = probe(
        sandboxed,
        relu,
        f"""import os, signal
seen = {{"pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()), "self": os.getpid(), "parent": os.getppid()}}
for name, pid in (("verifier", {verifier_pid}), ("server", {server_pid})):
    try:
        os.kill(pid, 0)
        seen[name] = "reachable"
    except OSError as exc:
        seen[name] = type(exc).__name__
    try:
        seen[name + " maps"] = os.listdir(f"/proc/{{pid}}/map_files")
    except OSError as exc:
        seen[name + " maps"] = type(exc).__name__
seen["fds"] = sorted(os.listdir("/proc/self/fd"))
seen["stdin"] = os.readlink("/proc/self/fd/0")
seen["capabilities"] = [line.split()[1] for line in open("/proc/self/status") if line.startswith("CapEff")]
raise RuntimeError(repr(seen))""",
    )
    require(verdict, "pid_namespace")
    seen = evidence(verdict)
    assert seen["pids"] == [1, 2] and seen["self"] == 2, seen  # the namespace's init and the job
    assert seen["parent"] == 0, seen  # the relay that forked the job lies outside the namespace
    for name in ("verifier", "server"):
        assert seen[name] in ("ProcessLookupError", "PermissionError"), seen
        assert seen[name + " maps"] in ("FileNotFoundError", "PermissionError"), seen
    assert seen["fds"] == ["0", "1", "2", "3"], seen  # stdin, the log twice, and the listing itself
    assert seen["stdin"] == "/dev/null"
    assert seen["capabilities"] == ["0000000000000000"]


def test_verifier_environment_is_out_of_reach(sandboxed, relu, monkeypatch):
    monkeypatch.setenv("TRITONRL_TEST_SECRET", "verifier-secret-4711")
    verdict = probe(
        sandboxed,
        relu,
        f"""import os
seen = {{"own": os.environ.get("TRITONRL_TEST_SECRET")}}
try:
    seen["verifier"] = open("/proc/{os.getpid()}/environ", "rb").read().decode(errors="replace")
except OSError as exc:
    seen["verifier"] = type(exc).__name__
texts = []
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        texts.append(open(f"/proc/{{pid}}/environ", "rb").read().decode(errors="replace"))
    except OSError:
        pass
seen["leaked"] = any("verifier-secret" in t for t in texts)
raise RuntimeError(repr(seen))""",
    )
    require(verdict, "pid_namespace")
    seen = evidence(verdict)
    assert seen == {"own": None, "verifier": "FileNotFoundError", "leaked": False}, seen
    assert "verifier-secret-4711" not in " ".join(r.message for r in verdict.reasons)


@pytest.fixture
def secrets_outside():
    """A secret in the caller's home (like ~/.aws/credentials) and one in a world-readable temp dir."""
    shared = Path(tempfile.mkdtemp(prefix="tritonrl-sandbox-test-"))
    shared.chmod(0o755)
    files = [shared / "token", Path(tempfile.mkstemp(prefix=".tritonrl-sandbox-test-", dir=Path.home())[1])]
    for path in files:
        path.write_text("secret-token-0815")
        path.chmod(0o644)  # readable by anyone: only the sandbox can keep the candidate out
    yield files
    files[1].unlink()
    files[0].unlink()
    shared.rmdir()


def test_files_outside_the_allowed_set_are_unreadable(sandboxed, relu, secrets_outside):
    targets = [*map(str, secrets_outside), str(REPO / "pyproject.toml"), str(REPO / "README.md")]
    verdict = probe(
        sandboxed,
        relu,
        f"""import os
seen = {{}}
for path in {targets!r} + ["{REPO / "tritonrl" / "__init__.py"}"]:
    try:
        seen[path] = open(path).read()[:40]
    except OSError as exc:
        seen[path] = type(exc).__name__
for folder in ("{Path.home()}", "{REPO}", "/tmp"):
    try:
        seen[folder] = os.listdir(folder)
    except OSError as exc:
        seen[folder] = type(exc).__name__
raise RuntimeError(repr(seen))""",
    )
    require(verdict, "filesystem_restricted")
    seen = evidence(verdict)
    for path in [*targets, str(Path.home()), str(REPO), "/tmp"]:
        assert seen[path] in ("FileNotFoundError", "PermissionError"), (path, seen[path])
    assert seen[str(REPO / "tritonrl" / "__init__.py")].startswith('"""')  # the package itself stays readable
    assert "secret-token-0815" not in " ".join(r.message for r in verdict.reasons)


def test_writes_outside_the_job_dir_fail(sandboxed, relu):
    shared = Path(tempfile.mkdtemp(prefix="tritonrl-sandbox-test-"))
    shared.chmod(0o777)  # writable by anyone: only the sandbox can keep the candidate out
    site_packages = next(p for p in sys.path if p.endswith("site-packages"))
    folders = (shared, REPO, REPO / "tritonrl", site_packages, "/tmp", "/dev/shm")
    targets = [str(Path(d) / "written-by-candidate") for d in folders]
    try:
        verdict = probe(
            sandboxed,
            relu,
            f"""import os
seen = {{}}
for path in {targets!r} + [os.path.join(os.getcwd(), "mine")]:
    try:
        with open(path, "w") as handle:
            handle.write("x")
        seen[path] = "written"
    except OSError as exc:
        seen[path] = type(exc).__name__
raise RuntimeError(repr(seen))""",
        )
        require(verdict, "filesystem_restricted")
        seen = evidence(verdict)
        for path in targets:
            assert seen[path] in ("FileNotFoundError", "PermissionError", "OSError"), (path, seen[path])
            assert not Path(path).exists(), path
        assert sorted(seen.values()).count("written") == 1  # its own job directory
    finally:
        for path in targets:
            Path(path).unlink(missing_ok=True)
        shared.rmdir()


def test_candidate_cannot_signal_the_fork_server(sandboxed, relu):
    server = sandboxed.server._proc
    verdict = probe(
        sandboxed,
        relu,
        f"""import os, signal
parent = os.getppid()
seen = {{"parent": parent}}
for name, pid in (("pid 1", 1), ("server", {server.pid})) + ((("parent", parent),) if parent else ()):
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        try:
            os.kill(pid, sig)
            seen[f"{{name}} {{sig.name}}"] = "sent"
        except OSError as exc:
            seen[f"{{name}} {{sig.name}}"] = type(exc).__name__
raise RuntimeError(repr(seen))""",
    )
    require(verdict, "pid_namespace")
    seen = evidence(verdict)  # the job survived its attempts, so PID 1 of its namespace did too
    assert seen["parent"] == 0, seen  # no parent in sight: the relay lies outside the namespace
    assert seen["server SIGKILL"] in ("ProcessLookupError", "PermissionError"), seen
    assert server.poll() is None and _state(server.pid) != "T"  # alive and not stopped
    assert sandboxed.verify(relu.source, relu.reference_response).correct


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def _break_server(server: ForkServer, how: str) -> None:
    if how == "garbage":  # a forged reply on the server's protocol pipe
        with open(f"/proc/{server._proc.pid}/fd/1", "wb") as pipe:
            pipe.write(b"{not json\n")
    else:
        os.kill(server._proc.pid, getattr(signal, how))


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGKILL", "SIGSTOP", "garbage"])
def test_a_lost_fork_server_is_a_verdict_and_is_replaced(sandboxed, relu, how, monkeypatch):
    sandboxed.server.reply_grace_s = 1.0
    # A stopped server is noticed once the candidate's limit and the grace have passed; the break comes at 1.5 s.
    monkeypatch.setattr(sandboxed, "settings", replace(sandboxed.settings, timeout_s=5))
    reference = sandboxed.prepare_reference(relu.source)
    old = sandboxed.server._proc
    timer = threading.Timer(1.5, _break_server, (sandboxed.server, how))  # while the candidate sleeps
    timer.start()
    started = time.monotonic()
    verdict = sandboxed.verify_against(reference, candidate("import time\ntime.sleep(4)"))
    timer.join()
    assert "sandbox_broken" in verdict.codes, verdict.reasons
    assert not verdict.compiled and not verdict.correct
    # within the candidate's limit (which grows with the reference's own trial time on a loaded machine) and the grace
    assert time.monotonic() - started < sandboxed.candidate_timeout(reference) + sandboxed.server.reply_grace_s + 5
    assert old.poll() is not None  # the broken server is gone, stopped or not
    again = sandboxed.verify(relu.source, relu.reference_response)
    assert again.correct, again.reasons
    assert sandboxed.server._proc is not old


def test_landlock_alone_confines_a_process(tmp_path):
    """Where no private root can be built, Landlock by itself still keeps files and signals in."""
    abi = landlock.abi_version()
    if abi < 1:
        pytest.skip("this kernel has no Landlock")
    secret = tmp_path / "secret"
    secret.write_text("secret")
    allowed = tmp_path / "job"
    allowed.mkdir()
    pid = os.fork()
    if pid == 0:
        failures = 0
        try:
            landlock.restrict(read_only=[Path(sys.base_prefix)], writable=[allowed], devices=[Path("/dev/null")])
            (allowed / "ok").write_text("ok")
            open("/dev/null", "w").close()
            for attempt in (secret.read_text, lambda: (tmp_path / "other").write_text("x")):
                try:
                    attempt()
                    failures += 1
                except PermissionError:
                    pass
            if abi >= 6:
                try:
                    os.kill(os.getppid(), 0)
                    failures += 1
                except PermissionError:
                    pass
        except BaseException:
            failures += 100
        os._exit(failures)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert (allowed / "ok").exists() and not (tmp_path / "other").exists()


def test_exposure_leaves_out_the_checkout_and_the_home():
    """The child may read the package and the interpreter, never the checkout's artifacts or the caller's home."""
    exposed = exposure()
    package = str(REPO / "tritonrl")
    assert package in exposed.read_only
    for path in exposed.read_only:
        for private in (str(REPO), str(Path.home())):
            assert not (private + "/").startswith(path.rstrip("/") + "/"), f"{path} would expose {private}"


@pytest.mark.parametrize("job_root", ["default", "around the package"])
def test_child_imports_packages_on_the_callers_python_path(monkeypatch, tmp_path, builtin_problems, job_root):
    """A package directory on PYTHONPATH (pip install --target DIR) is the child's too, so both import one numpy;
    also where the job root is the temp dir around it (a container's /dev/shm is too small)."""
    packages = tmp_path / "packages"
    packages.mkdir()
    (packages / "shared_path_probe.py").write_text("VALUE = 'imported from PYTHONPATH'\n")
    monkeypatch.setenv("PYTHONPATH", f"{packages}{os.pathsep}{REPO}")
    if job_root != "default":
        monkeypatch.setenv("TRITONRL_JOB_ROOT", str(tmp_path))
    with Verifier(VerifierSettings(trials=1, timeout_s=30)) as verifier:
        verdict = verifier.verify(
            builtin_problems["01_relu.py"].source,
            candidate("import shared_path_probe\nraise RuntimeError(shared_path_probe.VALUE)"),
        )
    assert "imported from PYTHONPATH" in " ".join(r.message for r in verdict.reasons)


def test_python_path_entries_in_the_home_the_checkout_or_shared_scratch_stay_hidden(monkeypatch, tmp_path):
    home, outside = tmp_path / "home", tmp_path / "outside"
    (home / "pylib").mkdir(parents=True)
    (home / "pylib" / "mod.py").write_text("")
    outside.mkdir()
    (outside / "mod.py").write_text("")
    monkeypatch.setenv("HOME", str(home))
    hidden = [
        str(home / "pylib"),
        str(REPO),
        str(REPO.parent),
        str(REPO / "tests" / "support"),
        tempfile.gettempdir(),
        "/etc",
    ]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([*hidden, str(outside)]))
    exposed = exposure().read_only
    assert str(outside) in exposed
    assert os.path.realpath(tempfile.gettempdir()) not in exposed  # shared scratch: other users' files and sockets
    for path in exposed:
        for private in (str(home / "pylib"), str(REPO), "/etc/shadow"):
            assert not (private + "/").startswith(path.rstrip("/") + "/"), f"{path} would expose {private}"


def test_a_python_path_entry_behind_a_chain_of_links_is_imported_by_its_real_path(
    monkeypatch, tmp_path, builtin_problems
):
    packages = tmp_path / "packages"
    packages.mkdir()
    (packages / "chained_path_probe.py").write_text("VALUE = 'imported through two links'\n")
    (tmp_path / "second").symlink_to(packages)
    (tmp_path / "first").symlink_to(tmp_path / "second")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "first"))
    with Verifier(VerifierSettings(trials=1, timeout_s=30)) as verifier:
        verdict = verifier.verify(
            builtin_problems["01_relu.py"].source,
            candidate("import chained_path_probe\nraise RuntimeError(chained_path_probe.VALUE)"),
        )
    assert "imported through two links" in " ".join(r.message for r in verdict.reasons)


def _package_dir(path: Path) -> str:
    path.mkdir(parents=True)
    (path / "mod.py").write_text("")
    return str(path)


def test_only_package_directories_without_repositories_sockets_or_mounts_are_shared(monkeypatch, tmp_path):
    from tritonrl.verify import sandbox

    namespace = tmp_path / "namespace"
    _package_dir(namespace / "ns_pkg")  # a namespace package: no __init__.py, but pip wrote its metadata
    (namespace / "ns_pkg-1.0.dist-info").mkdir()
    checkout = _package_dir(tmp_path / "otherproj")
    (tmp_path / "otherproj" / ".git").mkdir()
    with_socket = _package_dir(tmp_path / "with_socket")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(tmp_path / "with_socket" / "agent.sock"))
    mounted = _package_dir(tmp_path / "mounted")
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(f"36 25 0:32 / {mounted}/homeview rw shared:1 - ext4 /dev/sda1 rw\n")
    monkeypatch.setattr(sandbox, "MOUNTINFO", str(mountinfo))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(namespace), checkout, with_socket, mounted, "relative/dir"]))
    try:
        assert sandbox._shared_python_path() == [str(namespace)]
    finally:
        listener.close()
