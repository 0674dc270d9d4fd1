"""The `tritonrl` command line.

Every command takes the same config options (`--profile`, `--config FILE`,
`--set section.key=value`) and fails fast with exit 2 and a readable message
on bad input; `tritonrl --help` lists the commands.

Test: tests/test_cli.py.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from tritonrl.config import PRECISIONS, ConfigError, VerifyConfig, describe, load_config
from tritonrl.problems import ProblemError, load_problems
from tritonrl.verify import use_interpreter_on

app = typer.Typer(help="TritonRL: train and evaluate LLMs that write Triton kernels.", no_args_is_help=True)
problems_app = typer.Typer(help="Inspect problem sets.", no_args_is_help=True)
config_app = typer.Typer(help="Inspect the resolved configuration.", no_args_is_help=True)
app.add_typer(problems_app, name="problems")
app.add_typer(config_app, name="config")

console = Console(stderr=True, soft_wrap=True)

ProfileOption = typer.Option(None, "--profile", "-p", help="Named profile: tiny (CPU) or gpu.")
ConfigFileOption = typer.Option(None, "--config", "-c", help="YAML file with config sections.")
SetOption = typer.Option([], "--set", "-s", help="Override, e.g. --set teacher.samples_per_task=4 (repeatable).")


def _fail(message: str) -> typer.Exit:
    console.print(f"[red]error:[/red] {message}")
    return typer.Exit(code=2)


def _config(profile: Optional[str], config_file: Optional[Path], overrides: list[str]):
    try:
        return load_config(profile, config_file, overrides)
    except ConfigError as exc:
        raise _fail(str(exc)) from exc


@config_app.command("show")
def config_show(
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
) -> None:
    """Print every setting with where it came from (default, profile, file, override)."""
    config, sources = _config(profile, config_file, overrides)
    typer.echo("\n".join(describe(config, sources)))


@problems_app.command("list")
def problems_list(
    source: str = typer.Option("builtin", help="builtin, a directory, a .py/.jsonl file, a hub id, or kernelbook:<id|file>."),
    level: list[int] = typer.Option([], help="Keep only these KernelBench levels (repeatable)."),
    limit: int = typer.Option(0, help="Keep only the first N problems (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list instead of a table."),
) -> None:
    """List the problems of a source."""
    try:
        problems = load_problems(source, level, limit)
    except ProblemError as exc:
        raise _fail(str(exc)) from exc
    if as_json:
        typer.echo(json.dumps([p.summary() for p in problems], indent=2))
        return
    table = Table("name", "level", "category", "shapes", "reference")
    for p in problems:
        shapes = ", ".join(f"{k}={v}" for k, v in p.shapes.items())
        table.add_row(p.name, str(p.level or ""), p.category or "", shapes, "yes" if p.reference_response else "")
    Console().print(table)


@problems_app.command("show")
def problems_show(
    name: str = typer.Argument(..., help="The problem's name, e.g. 19_ReLU.py."),
    source: str = typer.Option("builtin", help="builtin, a directory, a .py/.jsonl file, a hub id, or kernelbook:<id|file>."),
    reference: bool = typer.Option(False, "--reference", help="Print the problem's reference answer instead of its source."),
) -> None:
    """Print one problem's source (e.g. to save it as a file for `tritonrl verify`)."""
    try:
        problems = {p.name: p for p in load_problems(source)}
    except ProblemError as exc:
        raise _fail(str(exc)) from exc
    if name not in problems:
        close = [n for n in problems if name.lower().split(".")[0] in n.lower()][:5]
        raise _fail(f"no problem named {name!r} in {source}" + (f"; did you mean {close}?" if close else ""))
    problem = problems[name]
    if reference and problem.reference_response is None:
        raise _fail(f"{name} has no reference answer in {source}")
    typer.echo(problem.reference_response if reference else problem.source, nl=False)


TIMEOUT_HELP = (
    "Base seconds allowed to a sandboxed run: a candidate also gets 4x the reference's own trial time "
    f"at these shapes, the reference 4x this. Default: verify.timeout_s ({VerifyConfig.timeout_s:g})."
)
DeviceOption = typer.Option(
    None, help="cpu (Triton interpreter, shapes shrunk to fit) or cuda (the problem's own shapes). Default: verify.device."
)
TrialsOption = typer.Option(
    None, help=f"Correctness trials, each with fresh secret-seeded inputs. Default: verify.trials ({VerifyConfig.trials})."
)
TimeoutOption = typer.Option(None, help=TIMEOUT_HELP)
PrecisionOption = typer.Option(
    None, help="tl.dot policy for fp32 problems: strict (IEEE fp32 dots) or tf32 (TF32 allowed, not fp16/bf16). "
    f"Default: verify.precision ({VerifyConfig.precision})."
)


def _verify_config(profile, config_file, overrides, **flags) -> VerifyConfig:
    """The config's verify section (profile, file, --set) with the command's own flags on top."""
    config, _ = _config(profile, config_file, overrides)
    verify = replace(config.verify, **{key: value for key, value in flags.items() if value is not None})
    if verify.device not in ("cpu", "cuda"):
        raise _fail(f"--device must be cpu or cuda, not {verify.device!r}")
    if verify.precision not in PRECISIONS:
        raise _fail(f"--precision must be one of {list(PRECISIONS)}, not {verify.precision!r}")
    return verify


@app.command("verify")
def verify(
    problem: Path = typer.Option(..., "--problem", help="KernelBench-format problem file (Model, get_inputs, get_init_inputs)."),
    candidate: Path = typer.Option(..., "--candidate", help="A .py file defining ModelNew, or a text file holding a model response."),
    device: Optional[str] = DeviceOption,
    trials: Optional[int] = TrialsOption,
    timeout: Optional[float] = TimeoutOption,
    precision: Optional[str] = PrecisionOption,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of a readable report."),
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
) -> None:
    """Verify one candidate against one problem. Exit 0 whenever a verdict was reached, whatever it is.

    The verifier's settings are the config's `verify` section; the flags override it.
    """
    verify_config = _verify_config(profile, config_file, overrides, device=device, trials=trials, timeout_s=timeout,
                                   precision=precision)
    for label, path in (("problem", problem), ("candidate", candidate)):
        if not path.is_file():
            raise _fail(f"{label} file {path} does not exist")
    try:
        (loaded,) = load_problems(str(problem)) if problem.suffix == ".py" else (None,)
    except ProblemError as exc:
        raise _fail(str(exc)) from exc
    if loaded is None:
        raise _fail(f"--problem must be a .py file in KernelBench format, got {problem}")
    use_interpreter_on(verify_config.device)
    from tritonrl.verify.report import render_verdict
    from tritonrl.verify.verifier import Verifier, VerifierSettings

    with Verifier(VerifierSettings.from_config(verify_config)) as verifier:
        verdict = verifier.verify(loaded.source, candidate.read_text(errors="replace"))
    if as_json:
        typer.echo(json.dumps({"problem": loaded.name, "candidate": str(candidate), **verdict.to_dict()}, indent=2))
    else:
        typer.echo(render_verdict(verdict, loaded.name, candidate.name))


@app.command("eval")
def evaluate(
    problems: str = typer.Option(..., "--problems", help="builtin, a directory, a KernelBench JSONL or a hub id."),
    responses: Optional[Path] = typer.Option(
        None, "--responses", help='JSONL, one {"problem": NAME, "response": TEXT} per line. Or use --model/--endpoint.'
    ),
    model: Optional[str] = typer.Option(
        None, "--model",
        help="Generate the responses with this model: a hub id, a local directory, tiny-local, or a training output URI "
        "(file:// or s3://, as printed by sft/grpo).",
    ),
    endpoint: Optional[str] = typer.Option(
        None, "--endpoint", help="Generate the responses through an OpenAI-compatible endpoint (base URL, e.g. http://localhost:8000/v1)."
    ),
    served_model: str = typer.Option("", "--served-model", help="The model name the --endpoint serves."),
    samples: int = typer.Option(1, help="Responses to generate per problem (pass@k goes up to this k)."),
    temperature: float = typer.Option(0.0, help="Sampling temperature for generation; 0 is greedy."),
    max_tokens: int = typer.Option(2048, "--max-tokens", help="Longest generated response, in tokens."),
    device: Optional[str] = typer.Option(
        None, help="cpu (Triton interpreter, shrunk shapes, no timing) or cuda; --model generates here too. Default: verify.device."
    ),
    out: Optional[Path] = typer.Option(None, "--out", help="Directory for report.json, report.md, PNG plots (and generated responses.jsonl)."),
    level: list[int] = typer.Option([], help="Evaluate only these KernelBench levels (repeatable)."),
    workers: int = typer.Option(0, help="Verifier workers (0: one per CPU core, or 3 per GPU on cuda)."),
    trials: Optional[int] = TrialsOption,
    timeout: Optional[float] = TimeoutOption,
    precision: Optional[str] = PrecisionOption,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object (metrics overall and per level, per_problem)."),
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
) -> None:
    """Evaluate model responses on a problem set: correctness, fast_p, pass@k, speed-ups, robust vs naive.

    The responses come from a file (--responses) or are generated first by a
    model (--model) or an endpoint (--endpoint); generated ones are saved as
    responses.jsonl beside the report, to be re-verified later. The verifier's
    settings are the config's `verify` section; the flags override it.
    """
    verify_config = _verify_config(profile, config_file, overrides, device=device, trials=trials, timeout_s=timeout,
                                   precision=precision)
    device = verify_config.device
    if sum(x is not None for x in (responses, model, endpoint)) != 1:
        raise _fail("give exactly one of --responses FILE, --model MODEL or --endpoint URL")
    use_interpreter_on(device)
    from rich.progress import Progress

    from tritonrl.stages.evaluate import EvaluationError, load_responses
    from tritonrl.stages.evaluate import run as run_evaluation

    if responses is None:
        responses = _generate_eval_responses(
            problems, model, endpoint, served_model, samples, temperature, max_tokens, device, out, level, as_json
        )
    from tritonrl.verify.verifier import VerifierSettings

    try:
        total = len(load_responses(responses))
    except EvaluationError as exc:
        raise _fail(str(exc)) from exc
    settings = VerifierSettings.from_config(verify_config)
    with Progress(console=console, transient=as_json) as progress:
        bar = progress.add_task("verifying", total=total)
        try:
            result = run_evaluation(
                problems, responses, settings, out_dir=out, levels=level, workers=workers or None,
                on_verdict=lambda *_: progress.advance(bar),
            )
        except (EvaluationError, ProblemError) as exc:
            raise _fail(str(exc)) from exc
    if as_json:
        typer.echo(json.dumps({**result["metrics"], "per_problem": result["per_problem"], "report": result["report"]}, indent=2))
        return
    from tritonrl.evaluation.report import render_markdown

    typer.echo(render_markdown(result["metrics"], [{k: v for k, v in r.items() if k != "verdicts"} for r in result["per_problem"]]))
    if result["report"]:
        typer.echo(f"\nreport written to {out}")


def _library_logs_to_stderr() -> None:
    """DeepSpeed (imported by accelerate when installed) logs to stdout, which --json reserves for the result.

    Its logger takes `sys.stdout` when deepspeed is imported, and the import
    itself already logs, so the import runs with stdout pointed at stderr.
    """
    import contextlib
    import logging
    import sys

    with contextlib.redirect_stdout(sys.stderr):
        try:
            import deepspeed  # noqa: F401
        except ImportError:
            return
    for handler in logging.getLogger("DeepSpeed").handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.stream = sys.stderr  # not setStream: it flushes the old stream, which may be closed


def _generate_eval_responses(problems, model, endpoint, served_model, samples, temperature, max_tokens, device, out, level, quiet) -> Path:
    """Generate the responses `tritonrl eval` verifies; returns the responses file."""
    from tritonrl.artifacts.store import utc_stamp
    from tritonrl.config import state_dir
    from tritonrl.generation import HFTeacher, OpenAITeacher
    from tritonrl.stages.evaluate import EvaluationError, generate_responses

    try:
        if model is not None:
            _library_logs_to_stderr()
            from tritonrl.training.models import ModelError, resolve_model_source

            try:
                generator = HFTeacher(resolve_model_source(model, state_dir()), device=device)
            except ModelError as exc:
                raise _fail(str(exc)) from exc
        else:
            generator = OpenAITeacher(endpoint, served_model)
    except ValueError as exc:
        raise _fail(str(exc)) from exc
    stamp = utc_stamp()
    path = (out or state_dir() / "eval" / stamp) / "responses.jsonl"
    try:
        count = len(load_problems(problems, level))
    except ProblemError as exc:
        raise _fail(str(exc)) from exc
    from rich.progress import Progress

    with Progress(console=console, transient=quiet) as progress:
        bar = progress.add_task(f"generating with {generator.id}", total=count)
        try:
            generate_responses(
                problems, generator, path, samples, temperature, max_tokens, level, on_problem=lambda _: progress.advance(bar)
            )
        except EvaluationError as exc:
            raise _fail(str(exc)) from exc
    if not quiet:
        console.print(f"responses written to {path}")
    return path


OutOption = typer.Option(None, "--out", help="Root URI for the output dataset (default: <artifact_root>/datasets).")
InputOption = typer.Option(..., "--input", help="URI of the input dataset, as printed by the previous stage.")


def _stage_config(profile, config_file, overrides):
    config, _ = _config(profile, config_file, overrides)
    use_interpreter_on(config.verify.device)
    return config


def _print_json(data: dict) -> None:
    typer.echo(json.dumps(data, indent=2, default=str))


@app.command("distill")
def distill(
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
    out: Optional[str] = OutOption,
) -> None:
    """Teacher distillation: N samples per problem of `problems.source` from the configured teacher.

    Resumable: rerunning with the same settings skips problems already done.
    Prints a JSON summary with the dataset URI for `tritonrl filter --input`.
    """
    from tritonrl.generation import build_teacher
    from tritonrl.stages import distill as stage

    config = _stage_config(profile, config_file, overrides)
    try:
        teacher = build_teacher(config.teacher)
        result = stage.run(
            config, out, teacher, on_problem=lambda name, failed: console.print(f"  {name}: {failed} failed", highlight=False)
        )
    except (ProblemError, ValueError) as exc:
        raise _fail(str(exc)) from exc
    _print_json({"dataset": result.dataset.uri, "problems": result.problems, "samples": result.samples,
                 "failures": result.failures, "resumed_problems": result.resumed_problems})


def _dataset_stage(module: str, input_uri: str, profile, config_file, overrides, out, summary) -> None:
    """Run a stage that reads one dataset URI and print its JSON summary (filter, augment)."""
    import importlib

    from tritonrl.artifacts.datasets_io import DatasetError

    config = _stage_config(profile, config_file, overrides)
    try:
        result = importlib.import_module(f"tritonrl.stages.{module}").run(config, input_uri, out)
    except DatasetError as exc:
        raise _fail(str(exc)) from exc
    _print_json(summary(result))


@app.command("filter")
def filter_(
    input_uri: str = InputOption,
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
    out: Optional[str] = OutOption,
) -> None:
    """Execution filtering: verify every distilled sample; publish accepted and rejected (with reasons) datasets."""
    _dataset_stage("filter", input_uri, profile, config_file, overrides, out, lambda r: {
        "accepted": r.accepted.uri, "rejected": r.rejected.uri, "samples": r.samples,
        "accepted_count": r.accepted.rows, "acceptance_rate": r.acceptance_rate, "reasons": r.reasons,
    })


@app.command("augment")
def augment(
    input_uri: str = InputOption,
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
    out: Optional[str] = OutOption,
) -> None:
    """Shape augmentation: variants of each accepted task (augment.variants_per_task), solutions re-verified on each."""
    _dataset_stage("augment", input_uri, profile, config_file, overrides, out, lambda r: {
        "pairs": r.pairs.uri, "tasks": r.tasks.uri, "problems": r.problems,
        "variants_proposed": r.variants_proposed, "variants_kept": r.variants_kept,
        "variant_pairs": r.variant_pairs, "pair_rows": r.pairs.rows, "task_rows": r.tasks.rows,
    })


@app.command("sft")
def sft(
    input_uri: str = typer.Option(..., "--input", help="URI of an augment-pairs dataset (columns prompt, response), as printed by `tritonrl augment`."),
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
    out: Optional[str] = typer.Option(
        None, "--out", help="Output URI or path for checkpoints and the final model (default: <artifact_root>/checkpoints/sft-<input digest>-<time>)."
    ),
) -> None:
    """Supervised fine-tuning of student.base_model on (prompt, response) pairs, loss on response tokens only.

    Settings are the `sft.*` config keys (`tritonrl config show` lists them): max_seq_len (longer examples
    are dropped), epochs or max_steps (> 0 overrides epochs), learning_rate with lr_scheduler (a transformers
    scheduler name), warmup_ratio and weight_decay, batch_size (sequences per process per micro-step) and
    grad_accumulation, packing (padding-free rows; off: length grouping), bf16, gradient_checkpointing and
    liger_kernel (auto: on with CUDA; Liger when installed), attn_implementation (auto: tritonrl_varlen when
    packing, else sdpa), torch_compile, dataloader_workers (-1: 2 with CUDA, 0 on CPU), eval_fraction (rows
    held out for the eval loss) every eval_steps, logging_steps, save_steps (0: only the final model) with
    save_total_limit, deepspeed ("", zero2, zero3 or a JSON path), launcher (torchrun or deepspeed),
    nproc_per_node, nnodes with rdzv_endpoint=<node 0 host>:<port> for several nodes, and seed. Training
    runs under the launcher in a subprocess; progress goes to stderr. The output holds model/ (transformers
    format), checkpoint-N/ and manifest.json, written last. Prints a JSON summary with the output URI.
    """
    from tritonrl.artifacts.datasets_io import DatasetError
    from tritonrl.stages import sft as stage
    from tritonrl.training.models import ModelError

    config, _ = _config(profile, config_file, overrides)
    try:
        result = stage.run(config, input_uri, out, on_log=lambda line: console.print(line, highlight=False, markup=False))
    except (DatasetError, ModelError, stage.SFTError) as exc:
        raise _fail(str(exc)) from exc
    _print_json({"output": result.output_uri, "model": result.model_uri, "checkpoints": result.checkpoints,
                 "train_rows": result.train_rows, "eval_rows": result.eval_rows, "dropped_rows": result.dropped_rows,
                 "steps": result.steps, "world_size": result.world_size, "loss_curve": result.loss_curve,
                 "eval_curve": result.eval_curve, "seconds": result.seconds})


@app.command("grpo")
def grpo(
    tasks_uri: str = typer.Option(..., "--tasks", help="URI of an augment-tasks dataset (columns problem, problem_source), as printed by `tritonrl augment`."),
    model: Optional[str] = typer.Option(
        None, "--model", help="Starting policy: an SFT output URI (as printed by `tritonrl sft`), a hub id or a local directory (default: student.base_model)."
    ),
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
    out: Optional[str] = typer.Option(
        None, "--out", help="Output URI or path for checkpoints and the final model (default: <artifact_root>/checkpoints/grpo-<time>)."
    ),
) -> None:
    """HRD-GRPO: sample groups from the policy, reward them with the verifier, update plan and code tokens separately.

    Settings are the `grpo.*` config keys (`tritonrl config show` lists them): group_size (G samples per
    task), tasks_per_step, steps, learning_rate with warmup_updates (linear warm-up), optimizer (adamw, or sgd: steps scale with the
    gradient), train_params (a regex over parameter names: only those train, e.g. norm), dtype of the policy
    weights (auto: bfloat16 on CUDA, float32 on CPU; float32 keeps updates bfloat16 would round away), alpha
    (weight of the plan objective), clip_eps, kl_coef, advantage normalisation (normalize_std, leave_one_out)
    and negative_weight (scales negative advantages; 1 is GRPO, 0 only raises better-than-baseline samples),
    loss_norm (token: one mean over all response tokens; sequence: per response, then over responses), the
    uniform-reward ablation (uniform_reward, beta), speedup_cap, sampling (temperature, top_p,
    max_new_tokens), micro_batch, updates_per_batch, generation (hf, or openai with endpoint and
    served_model), save_steps and seed. r_code = valid and correct; r_plan = the speed-up of a correct
    kernel (on CPU, where timing is meaningless, r_plan = r_code). Progress goes to stderr, one line per step;
    prints a JSON summary with the output URI.

    Data parallel: grpo.nproc_per_node processes per node (one per GPU; 1, the default, trains in this
    process), started by torchrun as for SFT; for several nodes grpo.nnodes with
    grpo.rdzv_endpoint=<node 0 host>:<port>, and the torchrun command this logs run on every other node
    (the output directory, or $TRITONRL_HOME for s3://, on a filesystem they share). tasks_per_step is the
    global batch, split over the processes (at least one task each); every process keeps a full copy of the
    policy and verifies on its own GPU. The output is published once every process has finished.
    """
    from tritonrl.artifacts.datasets_io import DatasetError
    from tritonrl.stages import grpo as stage
    from tritonrl.training.models import ModelError

    config, _ = _config(profile, config_file, overrides)
    try:
        result = stage.run(config, tasks_uri, model, out, on_log=lambda line: console.print(line, highlight=False, markup=False))
    except (DatasetError, ModelError, stage.GRPOError) as exc:
        raise _fail(str(exc)) from exc
    _print_json({"output": result.output_uri, "model": result.model_uri, "steps": result.steps,
                 "world_size": result.world_size, "history": result.history, "seconds": result.seconds})


@app.command("run")
def run(
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
) -> None:
    """Run the whole pipeline in this process (Prefect flow `tritonrl`, no server needed; MLflow tracking).

    suite check → distill → filter → augment → SFT → HRD-GRPO → evaluate → register. Rerunning after an
    interruption reuses every finished stage. Ends with where everything went.
    """
    config, sources = _config(profile, config_file, overrides)
    from tritonrl.stages import pipeline

    console.print("[bold]TritonRL[/bold] resolved configuration:")
    for line in describe(config, sources):
        console.print(f"  {line}", highlight=False)
    pipeline.prepare_environment(config)
    pipeline.local_orchestration_env(config)
    from flows.full import tritonrl_flow  # the CLI is the one door from the library into the orchestration layer

    try:
        result = tritonrl_flow(profile=config.profile, config_file=str(config_file or ""), overrides=list(overrides))
    except (ProblemError, ValueError, RuntimeError, OSError) as exc:
        raise _fail(f"{exc}\n(rerun the same command to resume: finished stages are reused)") from exc
    console.print("[bold green]done[/bold green]")
    for line in pipeline.render_result(result):
        console.print(line, highlight=False, markup=False)


@app.command("generate")
def generate(
    model: str = typer.Option(
        ..., "--model", help="models:/tritonrl-coder@champion (or @candidate, /VERSION), a training output URI, a hub id or a directory."
    ),
    problem: Path = typer.Option(..., "--problem", help="A PyTorch module in KernelBench format (Model, get_inputs, get_init_inputs)."),
    attempts: int = typer.Option(1, help="Answers to try; after the first (greedy by default) they are sampled."),
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
) -> None:
    """Write a Triton kernel for a PyTorch module with a trained model; print it only if the verifier accepts it.

    Otherwise the verdict report goes to stderr and the exit code is 1. Registry URIs resolve through
    tracking.tracking_uri (default: the SQLite store `tritonrl run` wrote).
    """
    config = _stage_config(profile, config_file, overrides)
    if not problem.is_file():
        raise _fail(f"problem file {problem} does not exist")
    try:
        (loaded,) = load_problems(str(problem))
    except ProblemError as exc:
        raise _fail(str(exc)) from exc
    _library_logs_to_stderr()
    from tritonrl import tracking
    from tritonrl.stages import pipeline
    from tritonrl.training.models import ModelError
    from tritonrl.verify.report import render_verdict

    try:
        kernel = pipeline.generate_kernel(config, tracking.resolve_model_uri(config, model), loaded, attempts)
    except (tracking.TrackingError, ModelError, pipeline.PipelineError) as exc:
        raise _fail(str(exc)) from exc
    if not kernel.verdict.correct:
        console.print(render_verdict(kernel.verdict, loaded.name, f"{model}'s answer"), highlight=False, markup=False)
        raise typer.Exit(code=1)
    typer.echo(kernel.response)


stack_app = typer.Typer(help="The local stack: Prefect server, MLflow server, S3 endpoint, one worker per pool (loopback).",
                        no_args_is_help=True)
app.add_typer(stack_app, name="stack")


@stack_app.command("up")
def stack_up() -> None:
    """Start the stack under $TRITONRL_HOME/stack (or show the one running); prints the URLs and the environment."""
    from tritonrl import stack

    try:
        state = stack.up(on_log=lambda line: console.print(f"  {line}", highlight=False))
    except (stack.StackError, OSError) as exc:
        raise _fail(str(exc)) from exc
    typer.echo(f"Prefect UI {state['prefect_ui']}\nMLflow UI  {state['mlflow_url']}\nS3         {state['s3_endpoint_url']} "
               f"(bucket {state['bucket']})\nconfig     {state['config_file']}\nclient environment:")
    typer.echo("\n".join(f"  export {k}={v}" for k, v in stack.environment(state).items()))


@stack_app.command("down")
def stack_down() -> None:
    """Stop every process of the stack."""
    from tritonrl import stack

    typer.echo("stopped" if stack.down() else "no stack recorded under $TRITONRL_HOME/stack")


@stack_app.command("status")
def stack_status() -> None:
    """Each service: up or down, and where. Exit 1 unless all are up."""
    from tritonrl import stack

    rows = stack.status()
    for name, state, where in rows:
        typer.echo(f"{name:12s} {state:5s} {where}")
    if not rows or any(state != "up" for _, state, _ in rows):
        raise typer.Exit(code=1)


@app.command("deploy")
def deploy() -> None:
    """Apply infra/prefect.yaml to the running stack: tritonrl/full, <stage>/cuda, nightly-evaluation/nightly."""
    from tritonrl import stack

    try:
        typer.echo(stack.deploy())
    except stack.StackError as exc:
        raise _fail(str(exc)) from exc


def main() -> None:
    app()


if __name__ == "__main__":
    main()
