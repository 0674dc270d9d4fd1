"""The launcher shared by SFT and GRPO: one node standalone, several at a rendezvous; a failed launch is the stage's error."""

import sys
from dataclasses import replace

import pytest

from tritonrl.config import ConfigError, load_config
from tritonrl.stages.sft import SFTError
from tritonrl.training.launch import run_launcher, torchrun_command


def test_one_node_is_standalone_and_several_nodes_meet_at_the_rendezvous(tmp_path):
    spec = tmp_path / "sft-20261130" / "sft-spec.json"
    config, _ = load_config("tiny", overrides=["sft.nproc_per_node=2"])
    command = torchrun_command("sft", config.sft, "tritonrl.training.sft.worker", spec, SFTError)
    assert command[1:] == [
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nnodes=1",
        "--nproc_per_node=2",
        "-m",
        "tritonrl.training.sft.worker",
        "--spec",
        str(spec),
    ]
    with pytest.raises(ConfigError, match=r"sft.nnodes=2 needs sft.rdzv_endpoint=host:port of node 0"):
        load_config("tiny", overrides=["sft.nnodes=2"])  # refused before any stage starts
    with pytest.raises(SFTError, match=r"sft.nnodes=2 needs sft.rdzv_endpoint=host:port of node 0"):
        torchrun_command("sft", replace(config.sft, nnodes=2), "tritonrl.training.sft.worker", spec, SFTError)
    config, _ = load_config("tiny", overrides=["sft.nnodes=2", "sft.rdzv_endpoint=node0:29500"])
    command = torchrun_command("sft", config.sft, "tritonrl.training.sft.worker", spec, SFTError)
    assert {
        "--nnodes=2",
        "--rdzv-backend=c10d",
        "--rdzv-endpoint=node0:29500",
        "--rdzv-id=tritonrl-sft-sft-20261130",
    } <= set(command)  # the same id on every node
    assert "--standalone" not in command


def test_a_failed_launch_streams_its_output_and_raises_the_stages_error(tmp_path):
    lines = []
    command = [sys.executable, "-c", "print('rank 1 fell over'); raise SystemExit(3)"]
    with pytest.raises(SFTError, match=r"exit code 3\); nothing published") as failure:
        run_launcher(command, tmp_path, lines.append, SFTError)
    assert lines == ["rank 1 fell over"]
    assert "rank 1 fell over" in str(failure.value) and sys.executable in str(failure.value)
