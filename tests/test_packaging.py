"""The package as `pip install` leaves it, run from an empty directory: nothing may need the checkout."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.flows import SMALL
from tests.support.paths import REPO

pytestmark = pytest.mark.xdist_group(__name__)  # one pytest worker builds this module's fixtures

INSTALLED_CHECK = """
import json
from pathlib import Path

import tritonrl
from tritonrl.artifacts.datasets_io import code_version
from tritonrl.problems import load_problems
from tritonrl.stages.sft import deepspeed_config_path

relu = next(p for p in load_problems("builtin") if p.name == "01_relu.py")
Path("relu.py").write_text(relu.source)
Path("answer.md").write_text(relu.reference_response)
print(json.dumps({"package": tritonrl.__file__, "version": code_version(), "zero3": deepspeed_config_path("zero3")}))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The wheel built from a copy of the tracked sources (no stale build/ of the checkout), installed with --target."""
    tmp = tmp_path_factory.mktemp("wheel")
    source, dist, site = tmp / "source", tmp / "dist", tmp / "site"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    for name in filter(None, tracked.split("\0")):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = dist.glob("tritonrl-*.whl")
    subprocess.run(
        [*pip, "install", "--no-deps", "--no-compile", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return site


def _outside(site: Path, tmp_path: Path, *command: str, timeout: int = 300) -> subprocess.CompletedProcess:
    """Run `command` (python arguments) in an empty directory, with the installed package first on the path."""
    empty = tmp_path / "empty"
    empty.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(site), "TRITONRL_HOME": str(tmp_path / "home"), "TRITON_INTERPRET": "1"}
    env.pop("PREFECT_API_URL", None)
    return subprocess.run(
        [sys.executable, *command], cwd=empty, env=env, capture_output=True, text=True, timeout=timeout
    )


def test_an_installed_wheel_works_outside_the_checkout(installed, tmp_path):
    checked = _outside(installed, tmp_path, "-c", INSTALLED_CHECK)
    assert checked.returncode == 0, checked.stderr[-2000:]
    facts = json.loads(checked.stdout.splitlines()[-1])
    assert facts["package"].startswith(str(installed)) and "+" not in facts["version"]  # no checkout, no commit
    assert Path(facts["zero3"]).is_file() and facts["zero3"].startswith(
        str(installed)
    )  # DeepSpeed configs are package data
    verified = _outside(
        installed,
        tmp_path,
        "-m",
        "tritonrl.cli",
        "verify",
        "--problem",
        "relu.py",
        "--candidate",
        "answer.md",
        "--json",
    )
    assert verified.returncode == 0, verified.stderr[-2000:]
    assert json.loads(verified.stdout)["correct"] is True


@pytest.mark.slow
def test_the_main_job_runs_from_an_installed_wheel_in_an_empty_directory(installed, tmp_path):
    overrides = [arg for item in SMALL for arg in ("--set", item)]
    ran = _outside(installed, tmp_path, "-m", "tritonrl.cli", "run", "--profile", "tiny", *overrides, timeout=1200)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "registered:   models:/tritonrl-coder@" in ran.stderr
    assert (tmp_path / "home" / "mlflow.db").is_file() and not (tmp_path / "empty" / ".tritonrl").exists()
