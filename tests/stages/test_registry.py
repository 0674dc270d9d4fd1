"""One list of stages (tritonrl.stages.registry): the flows and the Prefect deployments are checked against it."""

import yaml

from flows import stages as stage_flows
from tritonrl.stages import registry

from tests.support.paths import REPO

PREFECT_YAML = REPO / "infra" / "prefect.yaml"


def test_every_stage_and_shard_stage_has_its_flow_of_the_same_name():
    names = set(registry.STAGES) | set(registry.SHARD_STAGES.values())
    assert set(stage_flows.STAGE_FLOWS) == names
    assert {stage: flow.name for stage, flow in stage_flows.STAGE_FLOWS.items()} == {n: n for n in names}


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
