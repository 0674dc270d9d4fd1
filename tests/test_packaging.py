"""The package as `pip install` leaves it, run from an empty directory: nothing may need the checkout."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

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


def test_an_installed_wheel_works_outside_the_checkout(tmp_path):
    dist, site, empty = tmp_path / "dist", tmp_path / "site", tmp_path / "empty"
    empty.mkdir()
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(REPO)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = dist.glob("tritonrl-*.whl")
    subprocess.run([*pip, "install", "--no-deps", "--no-compile", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    env = {**os.environ, "PYTHONPATH": str(site), "TRITONRL_HOME": str(tmp_path / "home"), "TRITON_INTERPRET": "1"}
    checked = subprocess.run([sys.executable, "-c", INSTALLED_CHECK], cwd=empty, env=env, capture_output=True,
                             text=True, timeout=300)
    assert checked.returncode == 0, checked.stderr[-2000:]
    facts = json.loads(checked.stdout.splitlines()[-1])
    assert facts["package"].startswith(str(site)) and "+" not in facts["version"]  # no checkout, no commit
    assert Path(facts["zero3"]).is_file() and facts["zero3"].startswith(str(site))  # DeepSpeed configs are package data
    verified = subprocess.run(
        [sys.executable, "-c", "from tritonrl.cli import main; main()", "verify", "--problem", "relu.py",
         "--candidate", "answer.md", "--json"],
        cwd=empty, env=env, capture_output=True, text=True, timeout=300,
    )
    assert verified.returncode == 0, verified.stderr[-2000:]
    assert json.loads(verified.stdout)["correct"] is True
