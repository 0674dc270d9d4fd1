"""GRPO on several processes: the update equals one process's, the stage runs on 2 processes, failures publish nothing.

Two gloo processes on CPU stand in for 8 GPUs: the code path is the same,
only the backend and the devices differ. The `nccl` variants run the same
checks on two GPUs where a host has them (marked gpu).
"""

import json
import multiprocessing
import os
import shutil
import socket
import threading
from collections import Counter
from dataclasses import replace

import pytest
import torch

from tritonrl.artifacts.datasets_io import DatasetError
from tritonrl.artifacts.store import MANIFEST_FILE
from tritonrl.config import load_config
from tritonrl.problems.loaders import load_builtin
from tritonrl.stages import grpo
from tritonrl.training import distributed
from tritonrl.training.distributed import Rank
from tritonrl.training.grpo import update as grpo_update
from tritonrl.training.grpo import worker as grpo_worker
from tritonrl.training.models import MODEL_DIR, load_model, load_model_and_tokenizer, resolve_model_source

from tests.support.grpo_inputs import RELU, make_rollout, publish_tasks
from tests.support.openai_server import Reply, ScriptedServer, chat_body

SILU = {p.name: p for p in load_builtin()}["03_silu.py"]
BACKENDS = [pytest.param("gloo", id="gloo-cpu"), pytest.param("nccl", id="nccl-2-gpus", marks=pytest.mark.gpu)]


@pytest.fixture
def backend(request, monkeypatch):
    """The processes' backend: gloo hides the GPUs from them (so also on a GPU host); nccl needs two GPUs."""
    if request.param == "gloo":
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    elif torch.cuda.device_count() < 2:
        pytest.skip(f"two nccl processes need two GPUs; this host has {torch.cuda.device_count()}")
    return request.param


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _gradients(source: str, rollouts, config, pad_id: int, device: str) -> dict:
    """Per loss_norm: the stats and the (clipped) gradients one policy_update leaves; lr 0 keeps the weights."""
    policy = load_model(source, device=device)
    optimizer = torch.optim.SGD(policy.parameters(), lr=0.0)
    results = {}
    for norm in ("token", "sequence"):
        overridden = load_config("tiny", overrides=[*config, f"grpo.loss_norm={norm}"])[0]
        stats = grpo_update.policy_update(policy, None, optimizer, rollouts, overridden, pad_id)
        results[norm] = (stats, {name: p.grad.cpu().clone() for name, p in policy.named_parameters()})
    return results


def _rank_process(rank: int, port: int, source: str, scenarios, config, pad_id: int, out: str) -> None:
    os.environ.update(
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
        RANK=str(rank),
        WORLD_SIZE="2",
        LOCAL_RANK=str(rank),
        LOCAL_WORLD_SIZE="2",
    )
    torch.set_num_threads(1)
    me = distributed.start()
    try:
        results = [_gradients(source, shares[me.rank], config, pad_id, me.device) for shares in scenarios]
        if me.main:
            torch.save(results, out)
    finally:
        distributed.stop()


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_two_processes_make_the_update_one_process_makes_on_all_rollouts(backend, tritonrl_home, tmp_path):
    """Each rank holds one group; the ranks' responses differ in number of tokens.

    Two cases: both groups have signal (the gradients must be summed over the ranks), and only rank 0's
    (rank 1 must still take part, and its tokens still count). Normalising by a rank's own token or
    response count, skipping the sum, or skipping the update on the rank without signal (a hang) fails.
    """
    source = resolve_model_source("tiny-local", tritonrl_home)
    _, tokenizer = load_model_and_tokenizer("tiny-local", tritonrl_home)
    good, bad = make_rollout(tokenizer, 0, RELU.reference_response), make_rollout(tokenizer, 0, "I am not sure.")
    fair = make_rollout(tokenizer, 1, "Load, add, store: one program per block.")
    poor = make_rollout(tokenizer, 1, "Pass.")
    flat = [make_rollout(tokenizer, 1, "No idea at all, sorry."), make_rollout(tokenizer, 1, "Pass.")]
    good.r_code = good.r_plan = fair.r_code = fair.r_plan = 1.0
    scenarios = [[[good, bad], [fair, poor]], [[good, bad], flat]]
    config = ["grpo.micro_batch=1", "grpo.learning_rate=0.0"]
    out = tmp_path / "rank0.pt"
    port = _free_port()
    spawn = multiprocessing.get_context("spawn")
    processes = [
        spawn.Process(target=_rank_process, args=(r, port, source, scenarios, config, tokenizer.pad_token_id, str(out)))
        for r in range(2)
    ]
    for p in processes:
        p.start()
    for p in processes:
        p.join(timeout=120)
    for p in processes:
        if p.is_alive():
            p.kill()
    assert [p.exitcode for p in processes] == [0, 0]

    apart = torch.load(out)
    device = "cuda:0" if backend == "nccl" else "cpu"
    for case, shares in enumerate(scenarios):
        together = _gradients(source, [*shares[0], *shares[1]], config, tokenizer.pad_token_id, device)
        for norm in ("token", "sequence"):
            (stats_apart, grads_apart), (stats_together, grads_together) = apart[case][norm], together[norm]
            assert stats_apart == pytest.approx(stats_together, rel=1e-5, abs=1e-7), (case, norm)
            assert stats_together["loss"] != 0
            for name, grad in grads_together.items():
                assert torch.allclose(grads_apart[name], grad, rtol=1e-4, atol=1e-7), (case, norm, name)


def test_each_process_verifies_on_its_own_gpu_or_its_share_of_the_cores(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4,5,6,7")
    config, _ = load_config("tiny", overrides=["verify.device=cuda"])
    with grpo_worker._verifier_pool(config, Rank(rank=5, world=8, local_rank=1, local_world=4)) as pool:
        assert pool.gpus == ["5"] and pool._worker_env(0) == {"CUDA_VISIBLE_DEVICES": "5"}
    with grpo_worker._verifier_pool(config, Rank()) as pool:
        assert pool.gpus == ["4", "5", "6", "7"]  # one process: every GPU, as before
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    config, _ = load_config("tiny")
    with grpo_worker._verifier_pool(config, Rank(rank=1, world=2, local_rank=1, local_world=2)) as pool:
        assert pool.workers == 8


def _relu_half_right_silu_never():
    """A policy server: every other ReLU request answered right (whatever order they arrive in), SiLU never."""
    relu_requests, lock = Counter(), threading.Lock()

    def script(index):
        if RELU.source.strip() not in server.requests[index].body["messages"][-1]["content"]:
            return Reply(body=chat_body("no idea"))
        with lock:
            relu_requests["seen"] += 1
            right = relu_requests["seen"] % 2 == 1
        return Reply(body=chat_body(RELU.reference_response if right else "no idea"))

    server = ScriptedServer(script)
    return server


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_grpo_on_two_processes_averages_over_both_and_publishes_once(backend, tritonrl_home, tmp_path):
    """Each step both tasks are drawn, one per process: ReLU's group half right, SiLU's all wrong.

    The logged rewards are means over both processes (0.25), and the process holding SiLU takes part in the
    update although its own group has no signal.
    """
    server = _relu_half_right_silu_never()
    try:
        config, _ = load_config(
            "tiny",
            overrides=[
                "grpo.generation=openai",
                f"grpo.endpoint={server.endpoint}",
                "grpo.served_model=policy",
                "grpo.steps=2",
                "grpo.group_size=2",
                "grpo.tasks_per_step=2",
                "grpo.nproc_per_node=2",
                "grpo.save_steps=1",
                "verify.trials=1",
                f"verify.device={'cuda' if backend == 'nccl' else 'cpu'}",
            ],
        )
        lines = []
        out = tmp_path / "grpo"
        result = grpo.run(
            config, publish_tasks(config, (RELU, SILU)), model="tiny-local", out_uri=str(out), on_log=lines.append
        )
    finally:
        server.close()
    assert result.world_size == 2 and result.steps == 2 and len(server.requests) == 8
    for step in result.history:
        assert step["reward_code"] == 0.25 and step["correct"] == 0.25 and step["loss"] != 0
    assert any(f"policy on 2 processes ({backend}, a replica each)" in line for line in lines)
    assert any("torch.distributed.run" in line and "--nproc_per_node=2" in line for line in lines)
    assert any("grpo step 2/2: r_code 0.25" in line for line in lines)
    assert sum("grpo step" in line for line in lines) == 2  # rank 0 alone reports
    assert len((out / grpo_worker.HISTORY_FILE).read_text().splitlines()) == 2
    assert (out / "checkpoint-1" / "config.json").is_file() and not (out / grpo.TASKS_FILE).exists()
    assert json.loads((out / MANIFEST_FILE).read_text())["world_size"] == 2
    trained, _ = load_model_and_tokenizer(str(out), tritonrl_home)
    start, _ = load_model_and_tokenizer("tiny-local", tritonrl_home)
    assert not torch.equal(trained.lm_head.weight, start.lm_head.weight)


@pytest.mark.slow
def test_a_failing_process_fails_the_stage_and_publishes_nothing(tritonrl_home, tmp_path, monkeypatch):
    """A model whose tokenizer loads but whose weights are missing: every process fails after the launch."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # two CPU processes, also on a host with one GPU
    broken = tmp_path / "no-weights"
    shutil.copytree(
        resolve_model_source("tiny-local", tritonrl_home), broken, ignore=shutil.ignore_patterns("*.safetensors")
    )
    config, _ = load_config("tiny", overrides=["grpo.tasks_per_step=2", "grpo.nproc_per_node=2", "grpo.group_size=2"])
    out = tmp_path / "failed"
    with pytest.raises(grpo.GRPOError, match=r"training failed \(launcher exit code 1\); nothing published") as failure:
        grpo.run(
            config, publish_tasks(config, (RELU, SILU)), model=str(broken), out_uri=str(out), on_log=lambda line: None
        )
    assert "torch.distributed.run" in str(failure.value)  # the command, to rerun by hand
    assert not (out / MANIFEST_FILE).exists() and not (out / MODEL_DIR).exists()


def test_process_settings_that_cannot_work_are_refused_before_anything_starts(tritonrl_home):
    config, _ = load_config("tiny")
    config = replace(config, grpo=replace(config.grpo, nproc_per_node=2, nnodes=2, tasks_per_step=3))
    with pytest.raises(
        grpo.GRPOError,
        match=r"grpo.nnodes=2 needs grpo.rdzv_endpoint=host:port of node 0.*"
        r"tasks_per_step=3 is the global batch .* >= the 4 processes",
    ):
        grpo.run(config, "unused", on_log=lambda line: None)
    config, _ = load_config("tiny", overrides=["grpo.nproc_per_node=2", "grpo.tasks_per_step=2"])
    with pytest.raises(DatasetError, match="has 1 task\\(s\\), fewer than the 2 GRPO processes"):
        grpo.run(config, publish_tasks(config), on_log=lambda line: None)
