"""MLflow tracking and model registry for pipeline runs, through MlflowClient (no fluent globals).

Why a client and explicit run ids rather than `mlflow.start_run`: stages run
in Prefect task threads, in other processes, or on other machines (workers
of the `cuda` pool), so the parent run cannot live in a thread-local stack;
it travels as a run id, like the data travels as URIs.

The run tree: experiment `config.tracking.experiment` (`tritonrl`) → one
parent run per pipeline run → one nested run per stage, named after it
(tag `mlflow.parentRunId`). A stage run gets the stage's config section as
params, its summary numbers as metrics, its input and output datasets via
`log_inputs` (contexts `input` / `output`, digest from the dataset's
manifest) and manifests and reports as artifacts. A stage whose outputs were
reused from an earlier run (resume) still gets its run, tagged
`tritonrl.reused=true`, so every parent run shows the whole pipeline.
Every run carries MLflow's source tags (`source_tags`: the command, LOCAL,
the checkout's git commit, the user), which its UI shows.

Registry: the final model is logged as an MLflow model (transformers
flavour, task `llm/v1/chat`: chat messages in, a chat completion out, the
tokenizer's own chat template between them) on the parent run, linked to
the final evaluation's metrics, which the parent run also carries with the
evaluation report (`report/`; at held-out shapes also the evaluation at the
problems' own shapes: `original_shapes.*`, `report-original-shapes/`). It
becomes a version of `tritonrl-coder` through MLflow's own registration
(`mlflow.register_model`, so the logged model lists its version), whose
source is that model (`models:/m-…`), with the training output URI as
tag `tritonrl.model_uri`, the evaluation metrics as `metric.*` tags and a
generated description (base model, the datasets with their digests, every
stage's line, the evaluation table), alias `candidate`, and `champion` when
its metric is above 0 and beats the current champion's. So
`mlflow.transformers.load_model("models:/tritonrl-coder@champion")`,
`mlflow.pyfunc.load_model` and `mlflow models serve` work on it, while
`resolve_model_uri` gives the training output URI back, for `tritonrl
generate` and the nightly evaluation. A resumed pipeline whose stages were
all reused registers nothing new: the version already holding its training
output gets the new evaluation's tags.

Storage: `tracking.tracking_uri`, else MLflow's own `MLFLOW_TRACKING_URI`
(and `MLFLOW_REGISTRY_URI` for the registry), else the embedded SQLite store
(`sqlite:///$TRITONRL_HOME/mlflow.db`; MLflow ≥ 3.13 rejects the file store);
a registry lookup (`resolve_model_uri`, `registry_aliases`) never creates a
store, and a server that does not answer fails at once (`_check_store`). A
newly created experiment keeps its artifacts under `<artifact_root>/mlflow`
(on S3 when the artifact root is); against an MLflow server, the server's
artifact proxy decides.

Test: tests/test_tracking.py (a real SQLite store, the tiny model; its slow test loads the registered
model through MLflow in a fresh process).
"""

from __future__ import annotations

import functools
import json
import math
import os
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tritonrl.artifacts.store import ArtifactStore, join
from tritonrl.config import Config, dump_config
from tritonrl.evaluation import learning
from tritonrl.evaluation.learning import ORIGINAL_SHAPES
from tritonrl.evaluation.report import overall_section
from tritonrl.problems import load_problems
from tritonrl.prompts import build_messages
from tritonrl.stages.summary import read_manifest_text
from tritonrl.training.models import load_model, load_tokenizer, resolve_model_source

MODEL_NAME = "tritonrl-coder"
CANDIDATE, CHAMPION = "candidate", "champion"
REUSED_TAG = "tritonrl.reused"
STAGE_TAG = "tritonrl.stage"
METRIC_TAG_PREFIX = "metric."  # version tags holding evaluation metrics
SOURCE_TAG = "tritonrl.model_uri"  # the training output URI a registered version was logged from
MODEL_TASK = "llm/v1/chat"  # MLflow's chat task over a transformers text-generation pipeline
DESCRIPTION_LIMIT = 5000  # characters MLflow's SQL registry keeps of a description
REGISTRY_DESCRIPTION = (
    "TritonRL student: writes Triton kernels for PyTorch modules. Each version is an MLflow transformers model "
    f"(task {MODEL_TASK}: send the messages of tritonrl.prompts.build_messages); its tag {SOURCE_TAG} is the training "
    "output it was logged from, its description says what trained and evaluated it."
)


class TrackingError(RuntimeError):
    """The tracking store or registry does not hold what was asked for."""


def _mlflow_env(config: Config) -> None:
    """boto3 inside MLflow reads the S3 endpoint from the environment, not from our config."""
    if config.storage.s3_endpoint_url:
        os.environ["MLFLOW_S3_ENDPOINT_URL"] = config.storage.s3_endpoint_url


def _client(config: Config, lookup: bool = False):
    """A client on the config's tracking store and registry (Config.tracking_uri, Config.registry_uri).

    `lookup`: only to read the registry, so a local store that does not exist is not created (MLflow would make an
    empty one): TrackingError says where it looked and what to do. Its client's tracking store is the registry too:
    MLflow opens (and creates) a client's tracking store at once, and a registry lookup needs none.
    """
    from mlflow import MlflowClient
    from mlflow.exceptions import MlflowException

    _mlflow_env(config)
    for uri in [config.registry_uri] if lookup else {config.tracking_uri, config.registry_uri}:
        _check_store(uri, lookup)
    uri = config.registry_uri if lookup else config.tracking_uri
    try:
        return MlflowClient(tracking_uri=uri, registry_uri=config.registry_uri)
    except MlflowException as exc:  # e.g. a file store, which MLflow >= 3.13 refuses
        raise TrackingError(f"MLflow cannot open {uri}: {exc.message}") from exc


def _check_store(uri: str, lookup: bool) -> None:
    """Say what is wrong before MLflow hides it: a server that does not answer (MLflow retries silently for minutes),
    or, for a lookup, a local store that is not there (MLflow would create an empty one)."""
    import socket
    import urllib.error
    import urllib.request

    if uri.startswith(("http://", "https://")):
        try:
            urllib.request.urlopen(f"{uri.rstrip('/')}/health", timeout=10).close()
        except urllib.error.HTTPError:
            pass  # it answered (a proxy may refuse /health); MLflow's own calls say more
        except (urllib.error.URLError, TimeoutError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(
                reason, (ConnectionError, TimeoutError, socket.gaierror)
            ):  # not TLS: MLflow may be set for it
                raise TrackingError(
                    f"no MLflow server answers at {uri} ({reason}): start it (`tritonrl stack up` for the local stack) "
                    "or set MLFLOW_TRACKING_URI (or --set tracking.tracking_uri) to one that runs"
                ) from exc
        return
    path = _local_store(uri)
    if path is None:
        return
    sqlite = uri.startswith("sqlite:")
    if lookup and not (path.is_file() if sqlite else path.is_dir()):
        raise TrackingError(
            f"no MLflow {'database' if sqlite else 'store'} at {path} (the store {uri}): nothing was tracked there; run "
            "the pipeline first (tritonrl run), or set MLFLOW_TRACKING_URI (or --set tracking.tracking_uri) to the "
            "tracking URI it printed"
        )
    if not lookup and sqlite:
        path.parent.mkdir(parents=True, exist_ok=True)  # SQLite creates the file, not its directory


def _local_store(uri: str) -> Path | None:
    """Where a store on this machine lives: a SQLite database's file, a file store's directory (file:// or a plain
    path, as MLflow reads them); None for a server or a database elsewhere."""
    import urllib.parse
    import urllib.request

    if uri.startswith("sqlite:///"):
        return Path(uri[len("sqlite:///") :])
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme == "file":
        return Path(urllib.request.url2pathname(parsed.path))
    return Path(uri) if not parsed.scheme else None


@functools.cache
def source_tags() -> dict[str, str]:
    """MLflow's tags for where a run comes from, which its UI shows: the command that started the process
    (`mlflow.source.name`, type LOCAL), the commit of the checkout tritonrl runs from (none for an installed
    package) and the user."""
    from mlflow.utils.mlflow_tags import MLFLOW_GIT_COMMIT, MLFLOW_SOURCE_NAME, MLFLOW_SOURCE_TYPE, MLFLOW_USER

    tags = {MLFLOW_SOURCE_NAME: _source_name(), MLFLOW_SOURCE_TYPE: "LOCAL", MLFLOW_USER: _user()}
    commit = _git_commit()
    if commit:
        tags[MLFLOW_GIT_COMMIT] = commit
    return tags


def _source_name() -> str:
    """`tritonrl run --profile tiny` for the CLI; a Prefect deployment's flow run by its id; else the program's name."""
    import shlex
    import sys

    program = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python"
    if os.environ.get("PREFECT__FLOW_RUN_ID") and program != "tritonrl":
        return f"prefect flow run {os.environ['PREFECT__FLOW_RUN_ID']}"
    return shlex.join([program, *sys.argv[1:]])[:500]


def _user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return str(os.getuid())


def _git_commit() -> str:
    """The full commit of the checkout the package runs from; "" when it is not one (or git is missing)."""
    import subprocess

    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        return ""
    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _flat_params(values: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """Nested config values as `section.key` params (MLflow caps a value at 6000 characters)."""
    flat = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flat_params(value, f"{name}."))
        else:
            flat[name] = json.dumps(value) if isinstance(value, (list, tuple)) else str(value)
    return {k: v[:6000] for k, v in flat.items()}


def numeric_metrics(values: Mapping[str, Any], prefix: str = "") -> dict[str, float]:
    """The finite numbers of a nested summary, keyed `a.b.c` (bools count as 0/1; None and text skipped)."""
    out: dict[str, float] = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(numeric_metrics(value, f"{name}."))
        elif isinstance(value, (int, float)) and not (isinstance(value, float) and not math.isfinite(value)):
            out[name] = float(value)
    return out


def final_metrics(metrics: Mapping[str, Any]) -> dict[str, float]:
    """The evaluated model's own numbers of an evaluate summary's metrics (its `compare` block holds the other models')."""
    return numeric_metrics({k: v for k, v in metrics.items() if k != "compare"})


class Tracker:
    """Pipeline and stage runs in one experiment; see the module docstring."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.client = _client(config)
        self.experiment_id = self._experiment()

    def _experiment(self) -> str:
        name = self.config.tracking.experiment
        found = self.client.get_experiment_by_name(name)
        if found is not None:
            return found.experiment_id
        # Without a server MLflow would put artifacts in ./mlruns of whatever directory the process runs in;
        # they belong beside the pipeline's other artifacts (S3 when the artifact root is). A server decides itself.
        location = join(self.config.artifact_root, "mlflow") if self.config.tracking_uri.startswith("sqlite:") else None
        from mlflow.exceptions import MlflowException

        try:
            return self.client.create_experiment(name, artifact_location=location)
        except MlflowException:  # created meanwhile by another stage process
            return self.client.get_experiment_by_name(name).experiment_id

    def start_pipeline(self, run_name: str, tags: Mapping[str, str] = ()) -> str:
        """A parent run holding the resolved config; returns its id (pass it to every stage)."""
        run = self.client.create_run(self.experiment_id, run_name=run_name, tags={**source_tags(), **dict(tags or {})})
        run_id = run.info.run_id
        self.client.log_batch(run_id, params=_params(_flat_params(self.config.to_dict())))
        self.client.log_text(run_id, dump_config(self.config), "config.yaml")
        return run_id

    def end_run(self, run_id: str, status: str = "FINISHED") -> None:
        self.client.set_terminated(run_id, status=status)

    @contextmanager
    def stage(self, stage: str, parent_run_id: str = "", params: Mapping[str, Any] = ()) -> Iterator["StageRun"]:
        """A run named `stage` (nested under `parent_run_id` when given); FAILED if the block raises."""
        tags = {**source_tags(), STAGE_TAG: stage}
        if parent_run_id:
            tags["mlflow.parentRunId"] = parent_run_id
        run = self.client.create_run(self.experiment_id, run_name=stage, tags=tags)
        stage_run = StageRun(self.client, run.info.run_id, self.config)
        if params:
            self.client.log_batch(run.info.run_id, params=_params(_flat_params(params)))
        try:
            yield stage_run
        except BaseException as exc:
            status = "FAILED" if isinstance(exc, Exception) else "KILLED"  # Ctrl-C, SIGTERM, exit: killed
            self.client.set_tag(run.info.run_id, "tritonrl.error", f"{type(exc).__name__}: {exc}"[:5000])
            self.client.set_terminated(run.info.run_id, status=status)
            raise
        self.client.set_terminated(run.info.run_id, status="FINISHED")

    def close_stale(self, tag: str, value: str, is_stale: Callable[[Any], bool]) -> list[str]:
        """Mark RUNNING runs tagged `tag=value` for which `is_stale(run)` KILLED, with their RUNNING descendants.

        A process killed mid-stage cannot end its runs; on resume the rerun
        closes them, so no run claims to be running forever. Descendants, not
        only children: a sharded stage's shard runs nest under its stage run.
        Returns the ids closed.
        """
        runs = self.client.search_runs(
            [self.experiment_id], filter_string=f"tags.`{tag}` = '{value}' and attributes.status = 'RUNNING'"
        )
        closed = []
        for run in filter(is_stale, runs):
            self._kill_running_below(run.info.run_id)
            self.client.set_terminated(run.info.run_id, status="KILLED")
            closed.append(run.info.run_id)
        return closed

    def _kill_running_below(self, run_id: str) -> None:
        for child in self.client.search_runs(
            [self.experiment_id], filter_string=f"tags.`mlflow.parentRunId` = '{run_id}'"
        ):
            self._kill_running_below(child.info.run_id)
            if child.info.status == "RUNNING":
                self.client.set_terminated(child.info.run_id, status="KILLED")


def _params(values: Mapping[str, str]):
    from mlflow.entities import Param

    return [Param(k, v) for k, v in values.items()]


@dataclass
class StageRun:
    """What a stage logs: metrics, datasets, artifacts (its params go in at the start). Thin over MlflowClient, bound to one run."""

    client: Any
    run_id: str
    config: Config

    def metrics(self, values: Mapping[str, Any], step: int = 0, model_id: str | None = None) -> None:
        """The numbers of `values` (`numeric_metrics`); with `model_id` they are also that logged model's metrics."""
        from mlflow.entities import Metric

        stamp = int(time.time() * 1000)
        numbers = numeric_metrics(values)
        self.client.log_batch(
            self.run_id, metrics=[Metric(k, v, stamp, step, model_id=model_id) for k, v in numbers.items()]
        )

    def curve(self, name: str, points: list[tuple[int, float]]) -> None:
        """A metric over steps, e.g. the training loss."""
        from mlflow.entities import Metric

        stamp = int(time.time() * 1000)
        self.client.log_batch(self.run_id, metrics=[Metric(name, float(v), stamp, int(s)) for s, v in points])

    def tag(self, key: str, value: str) -> None:
        self.client.set_tag(self.run_id, key, value)

    def dataset(self, uri: str, context: str, manifest: Mapping[str, Any]) -> None:
        """Log a published dataset (or training output) by URI, with its manifest's digest and name."""
        from mlflow.data.dataset_source_registry import resolve_dataset_source
        from mlflow.data.meta_dataset import MetaDataset
        from mlflow.entities import DatasetInput, InputTag

        with warnings.catch_warnings():  # a file:// URI matches two equivalent local sources
            warnings.simplefilter("ignore", UserWarning)
            source = resolve_dataset_source(uri)
        name = uri.rstrip("/").rsplit("/", 1)[-1]
        digest = str(manifest.get("digest", "")).removeprefix("sha256-")[:12] or None  # as in the URI's name
        entity = MetaDataset(source=source, name=name, digest=digest)._to_mlflow_entity()
        self.client.log_inputs(self.run_id, [DatasetInput(entity, [InputTag("mlflow.data.context", context)])])

    def text(self, text: str, artifact_file: str) -> None:
        self.client.log_text(self.run_id, text, artifact_file)

    def json(self, value: Any, artifact_file: str) -> None:
        self.client.log_text(self.run_id, json.dumps(value, indent=2, default=str), artifact_file)

    def files(self, local_dir: Path, artifact_path: str) -> None:
        """Upload a local directory's files (e.g. an evaluation report with its plots)."""
        self.client.log_artifacts(self.run_id, str(local_dir), artifact_path)

    def report(self, report_uri: str, artifact_path: str = "report") -> None:
        """The files of an evaluation report's folder (report.json, report.md, plots, responses.jsonl) under `report/`."""
        store = ArtifactStore.of(self.config.storage)
        with tempfile.TemporaryDirectory(prefix="tritonrl-report-") as tmp:
            for uri in store.list(report_uri.rsplit("/", 1)[0]):
                (Path(tmp) / uri.rsplit("/", 1)[-1]).write_bytes(store.read_bytes(uri))
            self.files(Path(tmp), artifact_path)

    def reports(self, outputs: Mapping[str, str]) -> None:
        """An evaluate summary's reports: the evaluated model's under `report/`, at the problems' own shapes (when it
        was also evaluated there) under `report-original-shapes/`."""
        for key, path in (("report", "report"), (f"report.{ORIGINAL_SHAPES}", "report-original-shapes")):
            if outputs.get(key):
                self.report(outputs[key], path)

    def evaluation(self, summary: Mapping[str, Any], model_id: str | None = None) -> None:
        """A pipeline's final evaluation (an evaluate StageSummary dict) on its parent run: the metrics (at the problems'
        own shapes too, `original_shapes.*`) and the reports."""
        self.metrics(final_metrics(summary["metrics"]), model_id=model_id)
        self.reports(summary["outputs"])

    def learning(self, markdown: str, png: bytes, metrics: Mapping[str, float]) -> None:
        """A pipeline run's base/SFT/final comparison (tritonrl/evaluation/learning.py): metrics, learning.md, learning.png."""
        self.metrics(metrics)
        with tempfile.TemporaryDirectory(prefix="tritonrl-learning-") as tmp:
            (Path(tmp) / "learning.md").write_text(markdown + "\n")
            (Path(tmp) / "learning.png").write_bytes(png)
            self.files(Path(tmp), "learning")


@dataclass(frozen=True)
class Registration:
    version: str
    aliases: tuple[str, ...]
    metric: str
    value: float | None
    champion_value: float | None  # the champion's metric before this registration; None if there was none
    promoted: bool
    reason: str  # why it was or was not made champion, for the user
    source: str  # the version's MLflow model, `models:/m-…`


def register_model(
    config: Config, model_uri: str, run_id: str, summaries: Mapping[str, Mapping[str, Any]]
) -> Registration:
    """The pipeline's final model, the training output `model_uri`, as a `tritonrl-coder` version; see the module docstring.

    `summaries` are the pipeline's stage summaries (StageSummary dicts by
    stage; `evaluate` is the final evaluation). The model is logged on the
    parent run `run_id` and registered from there, unless a version already
    holds `model_uri` (a resumed pipeline whose stages were all reused). A
    model whose `evaluate.metric` is missing or 0 is never champion (a demo
    that learned nothing must not be served as the best model); otherwise it
    must beat the champion's metric, or be the first. `Registration.reason`
    says which rule decided.
    """
    from mlflow.exceptions import MlflowException

    client = _client(config)
    try:
        client.update_registered_model(MODEL_NAME, description=REGISTRY_DESCRIPTION)
    except MlflowException:  # not registered yet
        client.create_registered_model(MODEL_NAME, description=REGISTRY_DESCRIPTION)
    evaluation = summaries["evaluate"]
    numbers = final_metrics(evaluation["metrics"])
    tags = {f"{METRIC_TAG_PREFIX}{k}": repr(v) for k, v in numbers.items()}
    run = StageRun(client, run_id, config)
    existing = [
        v for v in client.search_model_versions(f"name = '{MODEL_NAME}'") if v.tags.get(SOURCE_TAG) == model_uri
    ]
    if existing:  # the same model, not a new version
        version = existing[0]
        run.evaluation(evaluation)
        for key, value in tags.items():
            client.set_model_version_tag(MODEL_NAME, version.version, key, value)
    else:
        description = model_description(config, run_id, model_uri, summaries)
        model_id = _log_model(config, client, run_id, model_uri, description)
        run.evaluation(evaluation, model_id)
        version = _register(config, client, model_id, {SOURCE_TAG: model_uri, **tags}, _capped(description))
    client.set_registered_model_alias(MODEL_NAME, CANDIDATE, version.version)
    try:
        champion = client.get_model_version_by_alias(MODEL_NAME, CHAMPION)
    except MlflowException:  # no champion yet
        champion = None
    metric = config.evaluate.metric
    value = numbers.get(metric)
    champion_value = None
    if champion is not None and str(champion.version) != str(version.version):
        raw = champion.tags.get(f"{METRIC_TAG_PREFIX}{metric}")
        champion_value = float(raw) if raw is not None else None
    promoted, reason = _promotion(metric, value, champion, champion_value, str(version.version))
    if promoted:
        client.set_registered_model_alias(MODEL_NAME, CHAMPION, version.version)
    aliases = (CANDIDATE, CHAMPION) if promoted else (CANDIDATE,)
    return Registration(str(version.version), aliases, metric, value, champion_value, promoted, reason, version.source)


def _log_model(config: Config, client, run_id: str, model_uri: str, description: str) -> str:
    """The training output at `model_uri` as an MLflow transformers model (MODEL_TASK) logged on run `run_id`; its id.

    Loaded once, in the dtype it was saved in: MLflow 3.17 cannot log a
    checkpoint directory without loading it under transformers 5 (it expects
    a class where transformers' task table now names one). Requirements are
    pinned by hand: MLflow's default list wants torchvision, which the model
    does not need. The card (model_card.md) is the description, whole.
    """
    import mlflow.transformers
    from huggingface_hub import ModelCard, ModelCardData
    from mlflow.entities import LoggedModelOutput, LoggedModelStatus
    from mlflow.models import Model

    source = resolve_model_source(model_uri, config.home, config.storage.s3_endpoint_url)
    logged = client.create_logged_model(
        client.get_run(run_id).info.experiment_id,
        name=MODEL_NAME,
        source_run_id=run_id,
        tags={SOURCE_TAG: model_uri},
        params=_flat_params(config.to_dict()),
    )
    card = ModelCardData(
        base_model=config.student.base_model,
        library_name="transformers",
        pipeline_tag="text-generation",
        tags=["triton", "tritonrl"],
    )
    try:
        with tempfile.TemporaryDirectory(prefix="tritonrl-model-") as tmp:
            mlflow.transformers.save_model(
                {"model": load_model(source, dtype="auto"), "tokenizer": load_tokenizer(source)},
                str(Path(tmp) / "model"),
                task=MODEL_TASK,
                mlflow_model=Model(
                    artifact_path=logged.artifact_location,
                    model_uuid=logged.model_id,
                    run_id=run_id,
                    model_id=logged.model_id,
                ),
                input_example=input_example(config),
                model_config=_decoding(config),
                pip_requirements=_requirements(),
                model_card=ModelCard(f"---\n{card.to_yaml()}\n---\n\n{description}\n"),
            )
            client.log_model_artifacts(logged.model_id, str(Path(tmp) / "model"))
    except BaseException:
        client.finalize_logged_model(logged.model_id, LoggedModelStatus.FAILED)
        raise
    client.finalize_logged_model(logged.model_id, LoggedModelStatus.READY)
    client.log_outputs(run_id, [LoggedModelOutput(logged.model_id, step=0)])
    return logged.model_id


def input_example(config: Config) -> dict[str, Any]:
    """A request as the pipeline's evaluation makes one: the prompt of a built-in problem, the answer length."""
    problem = load_problems("builtin")[0]
    return {"messages": build_messages(problem.source), "max_tokens": config.evaluate.max_tokens}


def _decoding(config: Config) -> dict[str, Any]:
    """How the served model answers: as the evaluation does (greedy at evaluate.temperature 0), at most its max_tokens."""
    settings = config.evaluate
    sampling = (
        {"do_sample": True, "temperature": settings.temperature} if settings.temperature > 0 else {"do_sample": False}
    )
    return {"max_new_tokens": settings.max_tokens, **sampling}


def _requirements() -> list[str]:
    from importlib.metadata import version

    return [f"{name}=={version(name).split('+')[0]}" for name in ("torch", "transformers")]  # no local build label


def _register(config: Config, client, model_id: str, tags: Mapping[str, str], description: str):
    """The logged model `model_id` as a new version of MODEL_NAME, through MLflow's own registration
    (`mlflow.register_model`): it also records the version on the logged model (tag `mlflow.modelVersions`), so the
    logged model's page lists the version instead of offering to register it. The version's run is the logged
    model's source run; the description is set after (register_model takes none)."""
    import contextlib
    import io

    import mlflow

    # Its "Registered model … already exists. Creating a new version…" lines would interrupt the run's own; the
    # run summary says which version it made.
    with _process_uris(config), contextlib.redirect_stderr(io.StringIO()):
        version = mlflow.register_model(f"models:/{model_id}", MODEL_NAME, tags=dict(tags), await_registration_for=0)
    return client.update_model_version(MODEL_NAME, version.version, description=description)


@contextmanager
def _process_uris(config: Config) -> Iterator[None]:
    """MLflow's fluent registration, and its SQL registry looking a `models:/m-…` source up (a TODO in its
    create_model_version), use the process-wide tracking and registry URIs, not a client's: point them at the
    config's for the call, then put back what was there, their variables included."""
    from mlflow.tracking._model_registry import utils as registry
    from mlflow.tracking._tracking_service import utils as tracking

    variables = {name: os.environ.get(name) for name in ("MLFLOW_TRACKING_URI", "MLFLOW_REGISTRY_URI")}
    tracking_before, registry_before = tracking._tracking_uri, registry._registry_uri
    try:
        tracking.set_tracking_uri(config.tracking_uri)
        registry.set_registry_uri(config.registry_uri)
        yield
    finally:
        tracking.set_tracking_uri(tracking_before)
        registry._registry_uri = registry_before
        for name, value in variables.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def model_description(config: Config, run_id: str, model_uri: str, summaries: Mapping[str, Mapping[str, Any]]) -> str:
    """What a registered version is, in Markdown: its base model, the data with digests, every stage's line, the evaluation."""
    sections = [  # the evaluation first: a description too long for the registry loses its last sections
        f"TritonRL student trained by pipeline run `{run_id}` (profile `{config.profile}`) from base model "
        f"`{config.student.base_model}`; training output `{model_uri}`.",
        _evaluation_section(config, summaries),
        _data_table(config, summaries),
        _table(
            ["stage", "result"],
            [[stage, ("reused: " if s.get("reused") else "") + s["line"]] for stage, s in summaries.items()],
            "### Stages",
        ),
    ]
    return "\n\n".join(section for section in sections if section)


def _data_table(config: Config, summaries: Mapping[str, Mapping[str, Any]]) -> str:
    """Every dataset the pipeline published: the stage that made it, those that read it, its rows and digest (its manifest's)."""
    rows = []
    for stage, summary in summaries.items():
        for key, uri in summary["outputs"].items():
            if uri not in summary.get("datasets", ()):
                continue
            manifest = json.loads(read_manifest_text(config, uri) or "{}")
            readers = [name for name, other in summaries.items() if uri in other["inputs"].values()]
            rows.append(
                [
                    f"`{uri.rsplit('/', 1)[-1]}`",
                    f"{stage} `{key}`",
                    ", ".join(readers) or "–",
                    str(manifest.get("rows", "–")),
                    f"`{manifest.get('digest', '–')}`",
                ]
            )
    return _table(["dataset", "made by", "read by", "rows", "digest"], rows, "### Training data") if rows else ""


def _evaluation_section(config: Config, summaries: Mapping[str, Mapping[str, Any]]) -> str:
    """The final evaluation's report table (report.md up to its per-problem section), the base/SFT/final comparison,
    and the final model's table at the problems' own shapes when the evaluation was at held-out ones."""
    evaluation = summaries.get("evaluate")
    if evaluation is None:
        return ""
    settings = config.evaluate
    shapes = "held-out shapes (no training prompt has them)" if settings.shapes == "held_out" else "their own shapes"
    parts = [f"### Evaluation: `{settings.problems}` problems at {shapes}; `{settings.metric}` here decides champion"]
    store = ArtifactStore.of(config.storage)
    report = evaluation["outputs"].get("report")
    if report:
        parts.append(overall_section(store.read_text(join(report.rsplit("/", 1)[0], "report.md"))))
    rows = learning.learning_rows(summaries)
    if rows:
        parts.append(learning.learning_markdown(rows, evaluation["metrics"].get("samples")))
    original = evaluation["outputs"].get(f"report.{ORIGINAL_SHAPES}")
    if original:
        parts += [
            "### The same model at the problems' own shapes (as `tritonrl generate` asks)",
            overall_section(store.read_text(join(original.rsplit("/", 1)[0], "report.md"))),
        ]
    return "\n\n".join(parts)


def _table(header: list[str], rows: list[list[str]], title: str) -> str:
    cells = [header, ["---"] * len(header), *rows]
    return "\n".join([title, "", *("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells)])


def _capped(description: str) -> str:
    """At most DESCRIPTION_LIMIT characters, cut between sections; the model's card keeps the whole text."""
    if len(description) <= DESCRIPTION_LIMIT:
        return description
    note = "\n\n(cut to fit the registry; the whole description is the model's model_card.md)"
    head = description[: DESCRIPTION_LIMIT - len(note)]
    cut = head.rfind("\n\n### ")  # where the last section that fits whole ends
    return (head[:cut] if cut > 0 else head) + note


def _promotion(
    metric: str, value: float | None, champion, champion_value: float | None, version: str
) -> tuple[bool, str]:
    """Whether a registered version becomes champion, and why: it must score above 0 and above the champion."""
    if value is None:
        return False, f"not champion: its evaluation has no {metric}"
    if value <= 0:
        return False, f"not champion: {metric} = {value:g}; a model that solves nothing is never promoted"
    if champion is None:
        return True, f"champion: the first model with {metric} above 0 ({value:g})"
    if str(champion.version) == version:
        return True, f"champion: the same model as the champion ({metric} = {value:g})"
    if champion_value is None:
        return True, f"champion: {metric} = {value:g}; the champion (version {champion.version}) has no {metric}"
    if value > champion_value:
        return True, f"champion: {metric} = {value:g} beats version {champion.version}'s {champion_value:g}"
    return False, f"not champion: {metric} = {value:g} does not beat version {champion.version}'s {champion_value:g}"


def resolve_model_uri(config: Config, uri: str) -> str:
    """`models:/NAME@ALIAS` or `models:/NAME/VERSION` → the training output URI it was logged from (tag SOURCE_TAG).

    Anything else is returned unchanged (a path, hub id or output URI).
    """
    if not uri.startswith("models:/"):
        return uri
    from mlflow.exceptions import MlflowException

    client = _client(config, lookup=True)
    ref = uri[len("models:/") :]
    name, alias = ref.split("@", 1) if "@" in ref else (ref.partition("/")[0], None)
    try:
        version = (
            client.get_model_version_by_alias(name, alias)
            if alias is not None
            else client.get_model_version(name, ref.partition("/")[2])
        )
    except MlflowException as exc:
        raise TrackingError(_not_registered(client, config, uri, name, alias)) from exc
    if SOURCE_TAG not in version.tags:
        raise TrackingError(
            f"{uri} (version {version.version}, source {version.source}) has no {SOURCE_TAG} tag: it was not registered by "
            f"a pipeline run; load it with mlflow.transformers.load_model({uri!r}) instead"
        )
    return version.tags[SOURCE_TAG]


def _not_registered(client, config: Config, uri: str, name: str, alias: str | None) -> str:
    """Why `uri` names nothing in the registry, with what does exist there: "run the pipeline first" only when the
    registry holds no model at all."""
    from mlflow.exceptions import MlflowException

    where = f"the model registry at {config.registry_uri}"
    try:
        model = client.get_registered_model(name)
    except MlflowException:
        names = sorted(m.name for m in client.search_registered_models())
        if not names:
            return (
                f"{uri}: {where} holds no models; run the pipeline first (tritonrl run), or set MLFLOW_TRACKING_URI "
                "(or --set tracking.tracking_uri) to the tracking URI it printed"
            )
        return f"{uri}: {where} has no model named {name!r}; it has {', '.join(names)}"
    versions = sorted((v.version for v in client.search_model_versions(f"name = '{name}'")), key=int)
    numbers = ", ".join(str(v) for v in versions) or "none"
    if alias is None:
        return f"{uri}: {name} has no such version; its versions: {numbers} (models:/{name}/VERSION)"
    aliases = ", ".join(f"{key} (version {value})" for key, value in sorted(model.aliases.items()))
    return (
        f"{uri}: {name} has no alias {alias!r}; its aliases: {aliases or 'none'}; its versions: {numbers} "
        f"(models:/{name}@ALIAS or models:/{name}/VERSION)"
    )


def tag_version(config: Config, version: str, tags: Mapping[str, Any]) -> None:
    """Set tags on a registered version, e.g. the nightly evaluation's metrics."""
    client = _client(config)
    for key, value in tags.items():
        client.set_model_version_tag(MODEL_NAME, version, key, str(value))


def registry_aliases(config: Config) -> dict[str, str]:
    """Alias → version of `tritonrl-coder` (empty if nothing is registered yet)."""
    from mlflow.exceptions import MlflowException

    try:
        return dict(_client(config, lookup=True).get_registered_model(MODEL_NAME).aliases)
    except (MlflowException, TrackingError):  # nothing registered, or no store at all (a lookup creates none)
        return {}


def log_summary(run: StageRun, summary, reused: bool) -> None:
    """Everything a finished stage's `StageSummary` (tritonrl/stages/summary.py) says, on its stage run.

    Datasets among the inputs/outputs are logged with `log_inputs` (context
    `input`/`output`) and their manifests as artifacts under `manifests/`; an
    evaluation's report files are copied as artifacts under `report/`.
    """
    run.tag(REUSED_TAG, "true" if reused else "false")
    run.metrics(summary.metrics)
    for name, points in summary.curves.items():
        if points:
            run.curve(name, points)
    for context, uris in (("input", summary.inputs), ("output", summary.outputs)):
        for key, uri in uris.items():
            manifest = read_manifest_text(run.config, uri) if "://" in uri else None
            if manifest is None:
                continue
            if uri in summary.datasets:
                run.dataset(uri, context, json.loads(manifest))
            run.text(manifest, f"manifests/{context}-{key}.json")
    run.json(summary.to_dict(), "summary.json")
    if summary.stage == "evaluate":
        run.reports(summary.outputs)
