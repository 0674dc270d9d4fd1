"""Nightly evaluation: re-evaluate the registry's `champion` and `candidate` with today's code and problems.

Why nightly: the verifier and the evaluation problems change under a fixed
model (new anti-hack checks, new KernelBench levels); a champion's numbers
are only as good as the last check. Each alias's version is evaluated once
(fresh, never from cache), under an MLflow parent run `nightly-<date>`, and
the results land on the version as `nightly.*` tags.

Deployment `nightly-evaluation/nightly` (infra/prefect.yaml), cron `0 2 * * *` UTC.
Test: tests/test_flows.py.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from prefect import flow
from prefect.logging import get_run_logger

from flows.stages import call_stage, stage_config
from tritonrl import tracking
from tritonrl.stages.summary import PipelineError
from tritonrl.tracking import numeric_metrics


@flow(name="nightly-evaluation")
def nightly_evaluation_flow(
    profile: str = "tiny",
    config_file: str = "",
    overrides: list[str] | None = None,
    aliases: list[str] | None = None,
    gpu_deployments: bool = False,
) -> dict[str, Any]:
    """Evaluate each alias's registered version; returns {alias: {version, model, metrics}}."""
    params = {"profile": profile, "config_file": config_file, "overrides": list(overrides or [])}
    config = stage_config(**params)
    registered = tracking.registry_aliases(config)
    wanted = aliases or [tracking.CHAMPION, tracking.CANDIDATE]
    if not any(alias in registered for alias in wanted):
        raise PipelineError(
            f"no version of {tracking.MODEL_NAME} has alias {wanted} in {config.tracking_uri}; "
            "run the pipeline first (tritonrl/full or `tritonrl run`)"
        )
    tracker = tracking.Tracker(config)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    parent = tracker.start_pipeline(f"nightly-{stamp}", tags={"tritonrl.kind": "nightly"})
    results: dict[str, Any] = {}
    evaluated: dict[str, dict[str, Any]] = {}
    try:
        for alias in wanted:
            version = registered.get(alias)
            if version is None:
                get_run_logger().warning("no %s version registered; skipping it", alias)
                continue
            version = str(version)
            if version not in evaluated:
                model = tracking.resolve_model_uri(config, f"models:/{tracking.MODEL_NAME}/{version}")
                summary = call_stage("evaluate", config, params, parent, gpu_deployments, model=model, fresh=True)
                evaluated[version] = {
                    "version": version,
                    "model": model,
                    "metrics": summary["metrics"],
                    "report": summary["outputs"]["report"],
                }
                tags = {f"nightly.{k}": v for k, v in numeric_metrics(summary["metrics"]).items()}
                tracking.tag_version(
                    config, version, {**tags, "nightly.date": stamp, "nightly.report": summary["outputs"]["report"]}
                )
            results[alias] = evaluated[version]
    except BaseException:
        tracker.end_run(parent, "FAILED")
        raise
    tracker.end_run(parent)
    return results
