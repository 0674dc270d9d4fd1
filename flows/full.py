"""The whole pipeline as one Prefect flow named `tritonrl` (deployment `full`: `prefect deployment run tritonrl/full`).

suite check → distill → filter → augment → SFT → HRD-GRPO → evaluate →
register (the final model logged as an MLflow model on the parent run, which
also gets the final evaluation's metrics and report; a `tritonrl-coder`
version, alias `candidate`; `champion` if it scores above 0 and beats the
current one). Each arrow passes URIs. The evaluation also
answers with the base and SFT models (`evaluate.compare`); the table of the
three goes to the MLflow parent run and the Prefect `learning` artifact.
With `gpu_deployments` the GPU stages (tritonrl.stages.registry.GPU_STAGES)
run as their `<stage>/cuda` deployments on the `cuda` work pool; without it (`tritonrl run`) everything runs in this process.
Filter and evaluate with `shards.<stage>` > 1 fan out one flow run per shard
instead (flows/stages.py `run_shards`).

One MLflow parent run per pipeline run, tagged with the config digest and
the host/pid running it; a rerun after a kill closes the dead run's leftovers
(status KILLED) and reuses every finished stage through the tasks' cache.

Run: `tritonrl run --profile tiny` (in-process) or the `tritonrl/full`
deployment. Test: tests/test_flows.py, tests/test_stack.py.
"""

from __future__ import annotations

import os
import socket
from typing import Any

from prefect import flow, runtime
from prefect.artifacts import create_markdown_artifact

from flows.stages import PipelineInterrupted, call_stage, stage_config
from tritonrl import tracking
from tritonrl.artifacts.store import utc_stamp
from tritonrl.evaluation import learning
from tritonrl.stages import registry

DIGEST_TAG, HOST_TAG, PID_TAG = "tritonrl.config_digest", "tritonrl.host", "tritonrl.pid"


def _dead_here(run) -> bool:
    """A run started by a process of this host that no longer exists (killed before it could end the run)."""
    tags = run.data.tags
    if tags.get(HOST_TAG) != socket.gethostname() or not tags.get(PID_TAG, "").isdigit():
        return False
    try:
        os.kill(int(tags[PID_TAG]), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _show_learning(config, tracker: tracking.Tracker, parent: str, summaries: dict[str, dict[str, Any]]) -> None:
    """The base/SFT/final comparison on the MLflow parent run and as the Prefect run's `learning` artifact."""
    rows = learning.learning_rows(summaries)
    if not rows:
        return
    table = learning.learning_markdown(rows, summaries["evaluate"]["metrics"].get("samples"))
    tracking.StageRun(tracker.client, parent, config).learning(
        table, learning.learning_png(rows, summaries), learning.learning_metrics(rows)
    )
    create_markdown_artifact(
        key="learning", markdown=table, description="the same evaluation for the base, SFT and final model"
    )


@flow(name="tritonrl")
def tritonrl_flow(
    profile: str = "tiny", config_file: str = "", overrides: list[str] | None = None, gpu_deployments: bool = False
) -> dict[str, Any]:
    """The TritonRL pipeline; returns where everything went (stage summaries, tracking, registered model)."""
    params = {"profile": profile, "config_file": config_file, "overrides": list(overrides or [])}
    config = stage_config(**params)
    tracker = tracking.Tracker(config)
    digest = registry.config_digest(config)
    closed = tracker.close_stale(DIGEST_TAG, digest, _dead_here)
    stamp = utc_stamp()
    parent = tracker.start_pipeline(
        f"tritonrl-{config.profile}-{stamp}",
        tags={
            DIGEST_TAG: digest,
            HOST_TAG: socket.gethostname(),
            PID_TAG: str(os.getpid()),
            "prefect.flow_run_id": str(runtime.flow_run.id),
            "tritonrl.resumed_after": ",".join(closed),
        },
    )
    summaries: dict[str, dict[str, Any]] = {}

    running = [""]

    def stage(name: str, **inputs: str) -> dict[str, str]:
        running[0] = name
        summary = call_stage(name, config, params, parent, gpu_deployments, **inputs)
        summaries[name] = summary
        running[0] = ""
        return summary["outputs"]

    try:
        stage("suite-check")
        samples = stage("distill")["samples"]
        accepted = stage("filter", samples=samples)["accepted"]
        augmented = stage("augment", accepted=accepted)
        sft_model = stage("sft", pairs=augmented["pairs"])["output"]
        final_model = stage("grpo", tasks=augmented["tasks"], model=sft_model)["output"]
        earlier = {"base": config.student.base_model, "sft": sft_model}
        stage("evaluate", model=final_model, compare={name: earlier[name] for name in config.evaluate.compare})
        registration = tracking.register_model(config, final_model, parent, summaries)
    except Exception:
        tracker.end_run(parent, "FAILED")
        raise
    except BaseException as exc:  # Ctrl-C, or SIGTERM (Prefect's flow engine raises it as TerminationSignal)
        tracker.end_run(parent, "KILLED")
        raise PipelineInterrupted(list(summaries), running[0]) from exc
    _show_learning(config, tracker, parent, summaries)
    tracker.client.set_tag(parent, "tritonrl.registered_version", registration.version)
    tracker.client.set_tag(parent, "tritonrl.promotion", registration.reason)
    tracker.end_run(parent)
    return {
        "tracking_uri": config.tracking_uri,
        "experiment": config.tracking.experiment,
        "parent_run_id": parent,
        "artifact_root": config.artifact_root,
        "model": final_model,
        "registered": {
            "name": tracking.MODEL_NAME,
            "version": registration.version,
            "aliases": list(registration.aliases),
            "metric": registration.metric,
            "value": registration.value,
            "champion_value_before": registration.champion_value,
            "reason": registration.reason,
            "source": registration.source,
        },
        "stages": summaries,
    }
