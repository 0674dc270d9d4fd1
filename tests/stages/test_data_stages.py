"""distill → filter → augment on CPU: the tiny profile's numbers add up; resume; failures; KernelBook."""

import pytest

from tritonrl.artifacts.datasets_io import read_dataset, read_manifest
from tritonrl.artifacts.store import ArtifactStore
from tritonrl.config import load_config
from tritonrl.generation import OpenAITeacher
from tritonrl.stages import augment, distill
from tritonrl.stages import filter as filter_stage

from tests.support.openai_server import Reply, ScriptedServer
from tests.support.paths import FIXTURES
from tests.support.teachers import CountingTeacher


def _config(*overrides):
    return load_config("tiny", None, ["verify.trials=1", *overrides])[0]


@pytest.mark.slow
def test_tiny_profile_distill_filter_augment_over_the_builtin_suite():
    # Every problem once, two variants each: the counts, the pairing and the kept share over the whole suite.
    # Several samples per problem and their deduplication: the KernelBook test below; five runnable variants
    # per problem: tests/verify/test_variants.py.
    config = _config("teacher.samples_per_task=1", "augment.variants_per_task=2")
    store = ArtifactStore()
    samples_per_task = config.teacher.samples_per_task

    distilled = distill.run(config)
    assert (distilled.problems, distilled.samples, distilled.failures) == (18, 18 * samples_per_task, 0)

    filtered = filter_stage.run(config, distilled.dataset.uri)
    assert filtered.accepted.rows == distilled.samples and filtered.rejected.rows == 0
    assert filtered.acceptance_rate == 1.0

    augmented = augment.run(config, filtered.accepted.uri)
    counts = read_manifest(store, augmented.pairs.uri)["counts"]
    assert augmented.problems == 18
    assert augmented.variants_proposed == 18 * config.augment.variants_per_task
    assert augmented.variants_kept >= 0.9 * augmented.variants_proposed
    # reference answers are identical per problem (deduplicated to one) and shape-generic: one pair per kept variant
    assert augmented.variant_pairs == augmented.variants_kept
    assert augmented.pairs.rows == 18 + augmented.variant_pairs == counts["pairs"]
    assert augmented.tasks.rows == 18 + augmented.variants_kept
    tasks = read_dataset(store, augmented.tasks.uri)
    variant = next(t for t in tasks if t["variant"] == 1)
    original = next(t for t in tasks if t["problem"] == variant["base_problem"])
    assert variant["shapes"] != original["shapes"]
    pair = next(p for p in read_dataset(store, augmented.pairs.uri) if p["problem"] == variant["problem"])
    assert "```python" in pair["response"] and variant["problem_source"].strip() in pair["prompt"][1]["content"]


def test_distill_resumes_without_asking_the_teacher_again():
    config = _config("problems.limit=3")
    first_teacher, second_teacher = CountingTeacher(), CountingTeacher()
    first = distill.run(config, teacher=first_teacher)
    second = distill.run(config, teacher=second_teacher)
    assert len(first_teacher.calls) == 3 and second_teacher.calls == []
    assert second.resumed_problems == 3 and second.dataset.uri == first.dataset.uri


@pytest.mark.slow
def test_teacher_failure_is_recorded_and_rejected_not_fatal():
    config = _config("problems.limit=2", "teacher.samples_per_task=2")
    result = distill.run(config, teacher=CountingTeacher(fail_on="02_gelu.py"))
    assert (result.samples, result.failures) == (4, 2)
    samples = read_dataset(ArtifactStore(), result.dataset.uri)
    failed = [s for s in samples if s["problem"] == "02_gelu.py"]
    assert all(s["response"] is None and "HTTP 500" in s["error"] for s in failed)
    filtered = filter_stage.run(config, result.dataset.uri)
    assert filtered.accepted.rows == 2 and filtered.reasons == {"teacher_error": 2}


@pytest.fixture
def kernelbook_teacher_server():
    """A chat-completions server that answers KernelBook prompts with honest Triton solutions."""
    solutions = {
        "torch.tanh": (FIXTURES / "kernelbook_solutions" / "ScaledTanh.md").read_text(),
        "torch.sum": (FIXTURES / "kernelbook_solutions" / "SumAggregator.md").read_text(),
    }

    def script(index):
        prompt = server.requests[index].body["messages"][-1]["content"]
        answer = next(text for marker, text in solutions.items() if marker in prompt)
        return Reply(
            body={
                "choices": [{"message": {"role": "assistant", "content": answer}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 200},
            }
        )

    server = ScriptedServer(script)
    yield server.endpoint
    server.close()


@pytest.mark.slow
def test_kernelbook_fixture_through_distill_filter_augment(kernelbook_teacher_server):
    source = f"kernelbook:{FIXTURES / 'kernelbook_sample.jsonl'}"
    config = _config(f"problems.source={source}", "teacher.samples_per_task=2", "augment.variants_per_task=2")
    teacher = OpenAITeacher(kernelbook_teacher_server, "test-teacher", backoff_s=0.01)
    distilled = distill.run(config, teacher=teacher)
    assert (distilled.problems, distilled.samples, distilled.failures) == (2, 4, 0)
    samples = read_dataset(ArtifactStore(), distilled.dataset.uri)
    assert {s["teacher"] for s in samples} == {teacher.id} and all(s["completion_tokens"] == 200 for s in samples)

    filtered = filter_stage.run(config, distilled.dataset.uri)
    assert filtered.accepted.rows == 4, read_dataset(ArtifactStore(), filtered.rejected.uri)

    augmented = augment.run(config, filtered.accepted.uri)
    assert augmented.problems == 2
    assert augmented.variants_kept >= 1 and augmented.variant_pairs == augmented.variants_kept
    assert augmented.pairs.rows == 2 + augmented.variant_pairs
