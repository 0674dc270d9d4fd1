"""The local stack: Prefect server, MLflow server (S3 artifacts), an S3 endpoint and one worker per pool, on loopback.

Why: `tritonrl run` needs no server, but deployments, schedules, work pools
and the MLflow UI do. `tritonrl stack up` starts, as background processes
under `$TRITONRL_HOME/stack/` (logs, databases, state.json with pids and
ports):
- `moto_server` — an S3-compatible endpoint (bucket `tritonrl`), standing in
  for S3/MinIO;
- `mlflow server` — SQLite backend, artifacts proxied to `s3://tritonrl/mlflow`;
- `prefect server start` — its own PREFECT_HOME, so it never touches the user's;
  its UI told this stack's API (PREFECT_SERVER_UI_API_URL; `--port` alone
  leaves the UI asking :4200), and its log spared SQLiteHeartbeatRace's errors;
- `prefect worker start --pool cpu` and `--pool cuda` — process pools.
It writes `stack/config.yaml` (storage on the S3 endpoint, tracking at the
MLflow server), which `tritonrl deploy` hands to the deployments as their
`config_file`, so every flow run sends its artifacts and runs there.
`tritonrl stack down` stops them (process groups: TERM, then KILL).

Everything binds to 127.0.0.1 with throwaway S3 credentials; this is a
development stack, not a way to expose services (infra/docker-compose.yaml is).

Test: tests/test_stack.py (slow, integration).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

from tritonrl.home import state_dir

BUCKET = "tritonrl"
HOST = "127.0.0.1"
POOLS = ("cpu", "cuda")
# Throwaway credentials: moto accepts any; boto3 refuses to sign without some.
S3_ENV = {
    "AWS_ACCESS_KEY_ID": "tritonrl-local",
    "AWS_SECRET_ACCESS_KEY": "tritonrl-local",
    "AWS_DEFAULT_REGION": "us-east-1",
}
START_TIMEOUT_S = 120  # measured: Prefect server 13 s, MLflow server ~10 s on 2 cores; slack for a loaded CI box
WORKER_POLL_S = "2"  # how often a worker asks for runs; Prefect's default (10 s) adds up over seven stage runs


class StackError(RuntimeError):
    """The stack could not start, or a command needs it and it is not up."""


@dataclass
class Service:
    name: str
    pid: int
    log: str
    health: str  # URL answering 200 when up; "" for workers


class SQLiteHeartbeatRace(logging.Filter):
    """Drops the Prefect server's error for a worker heartbeat that lost SQLite's write lock (expected, harmless).

    The server records a worker channel's heartbeat in a deferred transaction
    (read the pool, then write); while another request writes, SQLite refuses
    that upgrade at once ("database is locked", no busy wait). The server then
    closes the channel as retryable, and the worker heartbeats over REST and
    reconnects: it stays online and no run is touched, yet each race logged
    an ERROR with a 100-line traceback. Any other heartbeat failure still shows.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        lost_lock = bool(record.exc_info) and "database is locked" in str(record.exc_info[1])
        return not (lost_lock and str(record.msg).startswith("Worker channel heartbeat persistence failed"))


def server_logging_config(home: Path) -> Path:
    """Prefect's own logging config plus SQLiteHeartbeatRace on its worker channel's logger, written for the server.

    Read from the installed prefect each time (PREFECT_LOGGING_SETTINGS_PATH replaces the default whole).
    """
    default = Path(importlib.util.find_spec("prefect").origin).parent / "logging" / "logging.yml"
    config = yaml.safe_load(default.read_text())
    config.setdefault("filters", {})["sqlite_heartbeat_race"] = {"()": f"{__name__}.{SQLiteHeartbeatRace.__name__}"}
    config["loggers"]["prefect.server.utilities.worker_channel"] = {"filters": ["sqlite_heartbeat_race"]}
    path = home / "prefect-server-logging.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def checkout() -> Path | None:
    """The source checkout whose infra/prefect.yaml deployments come from: $TRITONRL_REPO, else the one this package is in.

    An installed wheel has none: the stack runs without it, `tritonrl deploy` says what to set.
    """
    candidate = Path(os.environ.get("TRITONRL_REPO") or Path(__file__).resolve().parents[1])
    return candidate if (candidate / "infra" / "prefect.yaml").is_file() else None


def _bin(name: str) -> str:
    return str(Path(sys.executable).parent / name)


def stack_dir() -> Path:
    return state_dir() / "stack"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=3) as response:
            return response.status == 200
    except OSError:
        return False


def not_recorded() -> str:
    """What `stack status` and `stack down` say when no stack was started under this $TRITONRL_HOME."""
    return f"no stack recorded under {stack_dir()}; start one with `tritonrl stack up`"


def read_state() -> dict | None:
    path = stack_dir() / "state.json"
    return json.loads(path.read_text()) if path.is_file() else None


def environment(state: dict) -> dict[str, str]:
    """What a client of the stack needs: its Prefect API, S3 credentials and endpoint, the shared config file."""
    repo = checkout()
    return {
        **S3_ENV,
        "PREFECT_API_URL": state["prefect_api_url"],
        "MLFLOW_S3_ENDPOINT_URL": state["s3_endpoint_url"],
        "TRITONRL_CONFIG_FILE": state["config_file"],
        **({"TRITONRL_REPO": str(repo)} if repo else {}),
    }


def _start(name: str, command: list[str], env: dict[str, str], health: str) -> Service:
    log = stack_dir() / "logs" / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        proc = subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **env},
            cwd=checkout() or stack_dir(),
            start_new_session=True,
        )
    return Service(name, proc.pid, str(log), health)


def _wait_healthy(service: Service) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not healthy(service.health):
        if not _alive(service.pid):
            tail = Path(service.log).read_text(errors="replace")[-2000:]
            raise StackError(f"{service.name} exited while starting; its log {service.log} ends:\n{tail}")
        if time.monotonic() > deadline:
            raise StackError(
                f"{service.name} did not answer {service.health} within {START_TIMEOUT_S}s; see {service.log}"
            )
        time.sleep(0.5)


def up(on_log=lambda line: None) -> dict:
    """Start the stack (or report the running one); returns its state (ports, pids, URLs, config file)."""
    state = read_state()
    if state and all(_alive(s["pid"]) for s in state["services"]):
        return state
    if state:
        down()
    home = stack_dir()
    home.mkdir(parents=True, exist_ok=True)
    s3_port, mlflow_port, prefect_port = free_port(), free_port(), free_port()
    s3_url = f"http://{HOST}:{s3_port}"
    prefect_api = f"http://{HOST}:{prefect_port}/api"
    prefect_env = {"PREFECT_HOME": str(home / "prefect"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    services: list[Service] = []
    try:
        on_log(f"S3 endpoint (moto) on {s3_url}")
        services.append(
            _start("s3", [_bin("moto_server"), "-H", HOST, "-p", str(s3_port)], S3_ENV, f"{s3_url}/moto-api/")
        )
        _wait_healthy(services[-1])
        _create_bucket(s3_url)
        on_log(f"MLflow server on http://{HOST}:{mlflow_port} (artifacts in s3://{BUCKET}/mlflow)")
        services.append(
            _start(
                "mlflow",
                [
                    _bin("mlflow"),
                    "server",
                    "--host",
                    HOST,
                    "--port",
                    str(mlflow_port),
                    "--workers",
                    "1",
                    "--backend-store-uri",
                    f"sqlite:///{home / 'mlflow.db'}",
                    "--artifacts-destination",
                    f"s3://{BUCKET}/mlflow",
                ],
                {**S3_ENV, "MLFLOW_S3_ENDPOINT_URL": s3_url},
                f"http://{HOST}:{mlflow_port}/health",
            )
        )
        on_log(f"Prefect server on http://{HOST}:{prefect_port}")
        # `--port` moves the API only: the UI asks /ui-settings where the API is, and without this it says :4200.
        services.append(
            _start(
                "prefect",
                [_bin("prefect"), "server", "start", "--host", HOST, "--port", str(prefect_port)],
                {
                    **prefect_env,
                    "PREFECT_SERVER_UI_API_URL": prefect_api,
                    "PREFECT_LOGGING_SETTINGS_PATH": str(server_logging_config(home)),
                },
                f"{prefect_api}/health",
            )
        )
        _wait_healthy(services[-2])
        _wait_healthy(services[-1])
        config_file = home / "config.yaml"
        config_file.write_text(
            yaml.safe_dump(
                {
                    "storage": {"artifact_root": f"s3://{BUCKET}/artifacts", "s3_endpoint_url": s3_url},
                    "tracking": {"tracking_uri": f"http://{HOST}:{mlflow_port}"},
                }
            )
        )
        state = {
            "prefect_api_url": prefect_api,
            "prefect_ui": f"http://{HOST}:{prefect_port}",
            "mlflow_url": f"http://{HOST}:{mlflow_port}",
            "s3_endpoint_url": s3_url,
            "bucket": BUCKET,
            "config_file": str(config_file),
            "services": [asdict(s) for s in services],
        }
        client_env = {
            **environment(state),
            **prefect_env,
            "TRITONRL_HOME": str(state_dir()),
            "PREFECT_WORKER_QUERY_SECONDS": WORKER_POLL_S,
        }
        for pool in POOLS:
            created = subprocess.run(
                [_bin("prefect"), "work-pool", "create", pool, "--type", "process", "--overwrite"],
                env={**os.environ, **client_env},
                capture_output=True,
                text=True,
                timeout=120,
            )
            if created.returncode != 0:
                raise StackError(f"could not create work pool {pool}: {created.stdout[-1500:]}{created.stderr[-1500:]}")
            on_log(f"worker for pool {pool}")
            services.append(
                _start(f"worker-{pool}", [_bin("prefect"), "worker", "start", "--pool", pool], client_env, "")
            )
        state["services"] = [asdict(s) for s in services]
    except BaseException:
        _stop(services)
        raise
    (home / "state.json").write_text(json.dumps(state, indent=2))
    return state


def _create_bucket(endpoint: str) -> None:
    import boto3

    boto3.client(
        "s3",
        endpoint_url=endpoint,
        **{k.lower(): v for k, v in S3_ENV.items() if k != "AWS_DEFAULT_REGION"},
        region_name=S3_ENV["AWS_DEFAULT_REGION"],
    ).create_bucket(Bucket=BUCKET)


def _stop(services: list[Service]) -> None:
    for service in reversed(services):  # workers first, the store they write to last
        if _alive(service.pid):
            os.killpg(service.pid, signal.SIGTERM)
    deadline = time.monotonic() + 20
    for service in services:
        while _alive(service.pid) and time.monotonic() < deadline:
            try:
                os.waitpid(service.pid, os.WNOHANG)  # reap when it is our child (stack up in this process)
            except ChildProcessError:
                pass
            time.sleep(0.2)
        if _alive(service.pid):
            os.killpg(service.pid, signal.SIGKILL)


def down() -> bool:
    """Stop every process of the stack; False when none was recorded.

    The MLflow and Prefect databases stay under stack/; moto keeps S3 objects in memory, so they go.
    """
    state = read_state()
    if state is None:
        return False
    _stop([Service(**s) for s in state["services"]])
    (stack_dir() / "state.json").unlink()
    return True


def status() -> list[tuple[str, str, str]]:
    """(service, "up"/"down", where) for each recorded service; empty when the stack was never started."""
    state = read_state()
    if state is None:
        return []
    rows = []
    for s in state["services"]:
        up_now = _alive(s["pid"]) and (not s["health"] or healthy(s["health"]))
        rows.append(
            (s["name"], "up" if up_now else "down", s["health"].rsplit("/", 1)[0] or f"pid {s['pid']}, log {s['log']}")
        )
    return rows


def deploy() -> str:
    """Apply the checkout's infra/prefect.yaml to the running stack (`prefect deploy --all`); returns prefect's output."""
    state = read_state()
    if state is None or not all(_alive(s["pid"]) for s in state["services"]):
        raise StackError("the stack is not up; start it with `tritonrl stack up`")
    repo = checkout()
    if repo is None:
        raise StackError(
            "deployments are applied from a source checkout's infra/prefect.yaml, and none was found "
            f"(tritonrl is installed at {Path(__file__).resolve().parent}): clone the repository and set "
            "TRITONRL_REPO=<its path> for `tritonrl stack up` and `tritonrl deploy`"
        )
    result = subprocess.run(
        [_bin("prefect"), "--no-prompt", "deploy", "--all", "--prefect-file", str(repo / "infra" / "prefect.yaml")],
        env={**os.environ, **environment(state)},
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode != 0:
        raise StackError(
            f"prefect deploy failed (exit {result.returncode}):\n{result.stdout[-3000:]}{result.stderr[-3000:]}"
        )
    return result.stdout
