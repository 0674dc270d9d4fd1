"""One record per stage (tritonrl.stages.registry): the flows, tasks, commands and deployments are checked against it."""

import typer
import yaml
from prefect import Task

from flows import stages as stage_flows
from tasks import stages as stage_tasks
from tritonrl.cli import app
from tritonrl.config import load_config
from tritonrl.stages import registry

from tests.support.paths import REPO

PREFECT_YAML = REPO / "infra" / "prefect.yaml"


def test_every_stage_and_shard_stage_has_its_flow_of_the_same_name():
    names = set(registry.STAGES) | set(registry.SHARD_STAGES.values())
    assert set(stage_flows.STAGE_FLOWS) == names
    assert {stage: flow.name for stage, flow in stage_flows.STAGE_FLOWS.items()} == {n: n for n in names}


def test_every_step_has_its_task_of_the_same_name():
    tasks = {value.name for value in vars(stage_tasks).values() if isinstance(value, Task)}
    assert tasks == set(registry.BY_NAME)


def test_every_stage_command_the_records_name_exists():
    commands = set(typer.main.get_command(app).commands)
    named = {stage.command for stage in registry.RECORDS if stage.command}
    assert named <= commands, f"missing commands: {sorted(named - commands)}"


def test_shard_steps_are_steps_of_their_own_outside_the_pipeline():
    for stage, step in registry.SHARD_STAGES.items():
        assert registry.BY_NAME[stage].in_pipeline and not registry.BY_NAME[step].in_pipeline
        assert registry.BY_NAME[f"{stage}-merge"].reads, stage


def test_the_cuda_pool_deploys_exactly_the_gpu_stages():
    deployments = yaml.safe_load(PREFECT_YAML.read_text())["deployments"]
    deployed = []
    for deployment in deployments:
        if deployment["name"] != stage_flows.CUDA_DEPLOYMENT:
            continue
        path, function = deployment["entrypoint"].split(":")
        assert path == "flows/stages.py", deployment
        deployed.append(getattr(stage_flows, function).name)
    assert sorted(deployed) == sorted(registry.GPU_STAGES)
    assert all(d["work_pool"]["name"] == "cuda" for d in deployments if d["name"] == stage_flows.CUDA_DEPLOYMENT)


def test_a_stage_cache_key_changes_with_what_the_stage_reads_and_nothing_else():
    config, _ = load_config("tiny", None, [])
    changed, _ = load_config("tiny", None, ["grpo.learning_rate=0.5"])
    inputs = {"pairs": "file:///pairs"}
    assert registry.stage_cache_key("sft", config, inputs) == registry.stage_cache_key("sft", changed, inputs)
    assert registry.stage_cache_key("grpo", config, inputs) != registry.stage_cache_key("grpo", changed, inputs)
    assert registry.stage_cache_key("sft", config, inputs) != registry.stage_cache_key("sft", config, {"pairs": "x"})
    assert registry.stage_params(changed, "grpo")["grpo"]["learning_rate"] == 0.5
    sharded, _ = load_config("tiny", None, ["shards.filter=2", "shards.evaluate=2"])
    for stage in ("filter", "evaluate"):  # a sharded run publishes what an unsharded one does: reused either way
        assert registry.stage_cache_key(stage, config, inputs) == registry.stage_cache_key(stage, sharded, inputs)


def test_the_source_digest_follows_the_package_files_and_ignores_bytecode(tmp_path):
    (tmp_path / "stage.py").write_text("STEPS = 1\n")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "stage.cpython-311.pyc").write_bytes(b"old")
    before = registry.source_digest.__wrapped__(tmp_path)
    (tmp_path / "__pycache__" / "stage.cpython-311.pyc").write_bytes(b"new")
    assert registry.source_digest.__wrapped__(tmp_path) == before
    (tmp_path / "stage.py").write_text("STEPS = 2\n")
    assert registry.source_digest.__wrapped__(tmp_path) != before
