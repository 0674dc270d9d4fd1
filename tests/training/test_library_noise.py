"""A CPU run prints none of the libraries' expected warnings and progress bars; a cuda run that sees no GPU still warns."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tritonrl.artifacts.datasets_io import publish_dataset
from tritonrl.artifacts.store import ArtifactStore
from tritonrl.config import load_config
from tritonrl.problems import load_problems
from tritonrl.prompts import build_messages

from tests.support.paths import REPO

# DeepSpeed's accelerator warning, transformers' weight bars, accelerate's thread-count warning.
NOISE = ("Setting accelerator to CPU", "Writing model shards", "Loading weights", "OMP_NUM_THREADS")
# A stage process: set up as flows and `tritonrl run` do, then build and load the tiny student (DeepSpeed comes with it).
STAGE_PROCESS = """
import sys
from pathlib import Path
from tritonrl.config import load_config
from tritonrl.stages.pipeline import prepare_environment
from tritonrl.training.models import load_model_and_tokenizer

prepare_environment(load_config("tiny", None, sys.argv[2:])[0])
load_model_and_tokenizer("tiny-local", Path(sys.argv[1]))
print("deepspeed imported:", "deepspeed" in sys.modules)
"""


def _run(command: list[str]) -> str:
    """stdout and stderr of `command`, started without the switches this test process may have set for itself."""
    env = {k: v for k, v in os.environ.items() if k not in ("DS_ACCELERATOR", "HF_HUB_DISABLE_PROGRESS_BARS")}
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout + done.stderr


@pytest.mark.slow  # importing DeepSpeed and transformers in a fresh process: ~20 s here
@pytest.mark.skipif(torch.cuda.is_available(), reason="what a machine without a GPU prints")
@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_a_cpu_run_prints_no_library_noise_and_a_cuda_run_without_a_gpu_is_warned(tritonrl_home, device):
    output = _run([sys.executable, "-c", STAGE_PROCESS, str(tritonrl_home), f"verify.device={device}"])
    assert "deepspeed imported: True" in output  # so its warning could have come
    if device == "cpu":
        assert not [noise for noise in NOISE if noise in output], output
    else:
        assert "Setting accelerator to CPU. If you have GPU" in output


@pytest.mark.slow
def test_the_sft_command_on_cpu_prints_training_lines_and_no_library_noise(tritonrl_home):
    config, _ = load_config("tiny")
    rows = [
        {"problem": p.name, "prompt": build_messages(p.source), "response": p.reference_response}
        for p in load_problems("builtin")[:2]
    ]
    pairs = publish_dataset(
        ArtifactStore(), f"{config.artifact_root}/datasets", "augment-pairs", rows, {"stage": "test"}
    )
    output = _run(
        [
            str(Path(sys.executable).with_name("tritonrl")),
            "sft",
            "--profile",
            "tiny",
            "--input",
            pairs.uri,
            "--set",
            "sft.max_steps=1",
            "--set",
            "sft.eval_fraction=0",
        ]
    )
    assert "sft: step 1/1" in output
    assert not [noise for noise in NOISE if noise in output], output
