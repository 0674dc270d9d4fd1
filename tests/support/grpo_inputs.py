"""Inputs for the GRPO tests: the ReLU problem, a published task dataset, rollouts encoded by the tiny tokenizer."""

from tritonrl.artifacts.datasets_io import publish_dataset
from tritonrl.artifacts.store import ArtifactStore
from tritonrl.problems.loaders import load_builtin
from tritonrl.prompts import build_messages
from tritonrl.training.grpo import hrd
from tritonrl.training.grpo.rollout import Rollout
from tritonrl.training.models import encode_example

RELU = {p.name: p for p in load_builtin()}["01_relu.py"]


def publish_tasks(config, problems=(RELU,)):
    rows = [{"problem": p.name, "problem_source": p.source, "level": None} for p in problems]
    return publish_dataset(
        ArtifactStore(), f"{config.artifact_root}/datasets", "augment-tasks", rows, {"stage": "test"}
    ).uri


def make_rollout(tokenizer, task, text):
    messages = build_messages(RELU.source)
    example = encode_example(tokenizer, messages, text)
    response = example.input_ids[example.prompt_tokens :]
    return Rollout(
        task, example.input_ids[: example.prompt_tokens], response, text, hrd.token_classes(tokenizer, response, text)
    )
