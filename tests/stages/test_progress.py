"""Progress a person can follow: a line per problem (no flood), through the stages, the CLI and Prefect's artifacts."""

import json
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from typer.testing import CliRunner

from tritonrl.cli import app
from tritonrl.config import load_config
from tritonrl.problems import load_problems
from tritonrl.stages import distill
from tritonrl.stages.progress import Progress


def _config(*overrides):
    return load_config("tiny", None, ["verify.trials=1", *overrides])[0]


def test_a_line_per_problem_but_at_most_one_per_interval_the_first_and_last_always():
    now, lines, updates = [0.0], [], []
    progress = Progress(lines.append, lambda *update: updates.append(update), interval_s=5, clock=lambda: now[0])
    tally = progress.start("filter", 4)
    for at, detail in (
        (1, "a: 1/1 accepted"),
        (2, "b: 0/1 accepted"),
        (7, "c: 1/1 accepted"),
        (125, "d: 2/2 accepted"),
    ):
        now[0] = at
        tally.advance(detail)
    assert lines == [
        "filter: 0/4 problems, 0s",
        "filter: 1/4 problems (a: 1/1 accepted), 1s, 1.0s each, ~3s left",
        "filter: 3/4 problems (c: 1/1 accepted), 7s, 2.3s each, ~2s left",
        "filter: 4/4 problems (d: 2/2 accepted), 2m05s, 31s each",
    ]
    assert updates == [("filter", done, 4, line) for done, line in zip((0, 1, 3, 4), lines)]


def test_batched_generation_reports_each_batch_where_the_loop_is_with_the_time_left():
    """18 prompts in batches of 8 that take minutes each: a line per batch saying 8/18, 16/18, 18/18 (the
    evaluate stage once logged `1/18`, then `9/18` four minutes later)."""
    from tritonrl.generation.base import Completion
    from tritonrl.stages.progress import together
    from tritonrl.stages.refine import ask

    now, lines = [0.0], []
    problems = load_problems("builtin")

    class Batching:
        batch_size = 8

        def generate_many(self, requests, n, temperature, max_tokens):
            now[0] += 120  # two minutes a batch
            return [[Completion("x", None, 120.0)] * n for _ in requests]

    tally = Progress(lines.append, interval_s=5, clock=lambda: now[0]).start("evaluate", 18, "problems answered")
    answers = ask(
        Batching(),
        [(p, []) for p in problems],
        1,
        0.0,
        8,
        lambda answered: tally.advance(together([p.name for p in answered]), count=len(answered)),
    )
    assert len(answers) == 18
    assert lines == [
        "evaluate: 0/18 problems answered, 0s",
        "evaluate: 8/18 problems answered (01_relu.py … 08_row_max.py, 8 in one batch), 2m00s, 15s each, ~2m30s left",
        "evaluate: 16/18 problems answered (09_softmax.py … 16_cumsum.py, 8 in one batch), 4m00s, 15s each, ~30s left",
        "evaluate: 18/18 problems answered (17_max_pool1d.py … 18_mse_loss.py, 2 in one batch), 6m00s, 20s each",
    ]


def test_problems_finished_on_several_threads_are_each_counted_once():
    lines = []
    tally = Progress(lines.append, interval_s=0).start("distill", 200)
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda i: tally.advance(str(i)), range(200)))
    assert [int(re.match(r"distill: (\d+)/200 problems", line)[1]) for line in lines] == list(range(201))


def test_distill_reports_each_problem_once_with_its_samples():
    lines = []
    result = distill.run(_config("teacher.samples_per_task=2"), progress=Progress(lines.append, interval_s=0))
    assert len(lines) == result.problems + 1 and lines[0] == f"distill: 0/{result.problems} problems, 0s"
    names = [re.search(r"\((\S+): 2/2 samples answered\)", line)[1] for line in lines[1:]]
    assert sorted(names) == sorted(p.name for p in load_problems("builtin"))


@pytest.mark.slow
def test_the_filter_and_augment_commands_print_a_line_per_problem():
    # Two problems: the first and the last line always come, whatever the interval.
    config = _config("problems.limit=2", "teacher.samples_per_task=1")
    samples = distill.run(config).dataset.uri
    runner, common = CliRunner(), ["--set", "problems.limit=2", "--set", "verify.trials=1"]
    filtered = runner.invoke(app, ["filter", "--input", samples, *common])
    assert filtered.exit_code == 0, filtered.output
    shown = [line for line in filtered.stderr.splitlines() if line.startswith("filter: ")]
    assert [line.split(" (")[0] for line in shown] == [
        "filter: 0/2 problems, 0s",
        "filter: 1/2 problems",
        "filter: 2/2 problems",
    ]
    assert all(
        re.search(r"\(0\d_\w+\.py: 1/1 accepted\), \d+s(, [\d.]+s each(, ~\d+s left)?)?$", line) for line in shown[1:]
    ), shown
    accepted = json.loads(filtered.stdout[filtered.stdout.index("{") :])["accepted"]

    augmented = runner.invoke(app, ["augment", "--input", accepted, *common, "--set", "augment.variants_per_task=2"])
    assert augmented.exit_code == 0, augmented.output
    shown = [line for line in augmented.stderr.splitlines() if line.startswith("augment: ")]
    assert len(shown) == 3 and shown[-1].startswith("augment: 2/2 problems (")
    assert all(re.search(r"\(0\d_\w+\.py: \d/2 shapes verified\)", line) for line in shown[1:]), shown


@pytest.mark.slow
def test_a_stage_task_shows_its_progress_as_a_prefect_artifact_and_in_the_pipeline_runs_log(tritonrl_home, monkeypatch):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    (tritonrl_home / "prefect").mkdir(parents=True)
    monkeypatch.setenv("PREFECT_HOME", str(tritonrl_home / "prefect"))
    from prefect import flow
    from prefect.artifacts import Artifact
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId
    from prefect.logging.handlers import APILogHandler

    import tasks.stages as stage_tasks

    @flow
    def distill_stage(config):  # as flows/stages.py runs every stage: a subflow of the pipeline
        return stage_tasks.distill(config)

    @flow
    def pipeline(config):
        return distill_stage(config)

    state = pipeline(_config("problems.limit=3", "teacher.samples_per_task=1"), return_state=True)
    line = r"distill: 3/3 problems \(0\d_\w+\.py: 1/1 samples answered\), \d+s(, [\dms.]+ each)?"
    artifact = Artifact.get("distill-progress")
    assert artifact.type == "progress" and float(artifact.data) == 100.0
    assert re.fullmatch(line, artifact.description)
    APILogHandler().flush()  # logs reach the server in the background
    with get_client(sync_client=True) as client:
        logs = client.read_logs(LogFilter(flow_run_id=LogFilterFlowRunId(any_=[state.state_details.flow_run_id])))
    messages = [log.message for log in logs]
    assert "distill: 0/3 problems, 0s" in messages and any(re.fullmatch(line, m) for m in messages), messages
