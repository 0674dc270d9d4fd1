"""What a finished stage run says about itself, in one JSON-able shape, and where that summary travels.

Prefect tasks (tasks/), flows (flows/), MLflow logging (tritonrl/tracking.py)
and the CLI all need the same few facts about a finished stage: which URIs
went in, which came out, which of them are datasets, the numbers worth a
metric, one line for a human. A summary crosses process and machine
boundaries as JSON: a `cuda` worker publishes it under
`<artifact_root>/flow-runs/` for the parent flow to read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from tritonrl.artifacts.store import MANIFEST_FILE, ArtifactStore, join
from tritonrl.config import Config

Log = Callable[[str], None]


class PipelineError(RuntimeError):
    """A stage finished but its result means the pipeline must not go on (e.g. the suite check failed)."""


@dataclass(frozen=True)
class StageSummary:
    """What one stage run produced. `datasets` names the inputs/outputs that are published datasets."""

    stage: str
    inputs: dict[str, str]
    outputs: dict[str, str]
    metrics: dict[str, Any]
    line: str
    datasets: tuple[str, ...] = ()
    curves: dict[str, list[tuple[int, float]]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "StageSummary":
        return cls(
            **{
                **data,
                "datasets": tuple(data.get("datasets", ())),
                "curves": {k: [tuple(p) for p in v] for k, v in data.get("curves", {}).items()},
            }
        )


def outputs_exist(config: Config, summary: StageSummary) -> bool:
    """Whether every output a (possibly cached) summary names is still complete in the store."""
    store = ArtifactStore.of(config.storage)
    for name, uri in summary.outputs.items():
        marker = uri if name == "report" or name.startswith("report.") else join(uri, MANIFEST_FILE)
        if not store.exists(marker):
            return False
    return True


def summary_uri(config: Config, flow_run_id: str) -> str:
    """Where a stage flow run publishes its summary, for a parent on another machine to read."""
    return join(config.artifact_root, "flow-runs", f"{flow_run_id}.json")


def publish_summary(config: Config, flow_run_id: str, summary: dict[str, Any]) -> str:
    """Write a stage flow run's summary dict (StageSummary fields plus `reused`) as JSON."""
    uri = summary_uri(config, flow_run_id)
    ArtifactStore.of(config.storage).write_text(uri, json.dumps(summary, indent=2, default=str))
    return uri


def read_summary(config: Config, flow_run_id: str) -> dict[str, Any]:
    return json.loads(ArtifactStore.of(config.storage).read_text(summary_uri(config, flow_run_id)))


def read_manifest_text(config: Config, uri: str) -> str | None:
    """The manifest.json beside an output, or None when it has none (e.g. a report file)."""
    store = ArtifactStore.of(config.storage)
    marker = join(uri, MANIFEST_FILE)
    return store.read_text(marker) if store.exists(marker) else None


def markdown(summary: StageSummary) -> str:
    """A stage summary as Markdown (a Prefect artifact): the line, inputs, outputs and metrics."""
    rows = [f"## {summary.stage}", "", summary.line, "", "| | |", "|---|---|"]
    rows += [f"| input `{k}` | `{v}` |" for k, v in summary.inputs.items()]
    rows += [f"| output `{k}` | `{v}` |" for k, v in summary.outputs.items()]
    rows += [f"| {k} | {v} |" for k, v in _metric_cells(summary.metrics)]
    return "\n".join(rows)


def _metric_cells(values: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """Metrics as (name, text) rows a reader can take in: nested blocks flattened to `a.b`, no Python reprs."""
    cells: list[tuple[str, str]] = []
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            cells += _metric_cells(value, f"{name}.")
        elif value is None:
            cells.append((name, "–"))
        elif isinstance(value, float):
            cells.append((name, f"{value:.4g}"))
        elif isinstance(value, (list, tuple)):
            cells.append((name, ", ".join(map(str, value)) or "–"))
        else:
            cells.append((name, str(value)))
    return cells
