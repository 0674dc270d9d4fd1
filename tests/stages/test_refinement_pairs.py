"""Refinement rows in the SFT pairs: augment adds them when asked, SFT trains only their fixed answer."""

import re

import pytest

from tritonrl.artifacts.datasets_io import read_dataset, read_manifest
from tritonrl.artifacts.store import ArtifactStore
from tritonrl.config import ConfigError, load_config
from tritonrl.generation.breakage import break_response
from tritonrl.problems.loaders import load_builtin
from tritonrl.prompts import FIX_REQUEST, build_messages, refinement_messages
from tritonrl.stages import augment, distill, sft
from tritonrl.stages import filter as filter_stage
from tritonrl.stages.progress import Progress
from tritonrl.training.models import IGNORE_INDEX, load_tokenizer, prompt_text
from tritonrl.training.tiny_model import IM_END, ensure_tiny_model
from tritonrl.verify.response import parse_response
from tritonrl.verify.verifier import Verifier, VerifierSettings

pytestmark = pytest.mark.xdist_group(__name__)  # one pytest worker builds this module's fixtures

LIMIT = 3  # of the relu answer's five breakages (one per kind it has)
SINGLE_TURN_COLUMNS = {"problem", "base_problem", "variant", "level", "problem_source", "shapes", "prompt", "response"}


@pytest.fixture(scope="module")
def refined(tmp_path_factory):
    """augment over relu's accepted answer, without and with refinement rows (no shape variants: only breakages verified)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TRITONRL_HOME", str(tmp_path_factory.mktemp("home")))
        base = ["verify.trials=1", "problems.limit=1", "teacher.samples_per_task=1", "augment.variants_per_task=0"]
        off = load_config("tiny", None, base)[0]
        on = load_config("tiny", None, [*base, f"augment.refinement_pairs={LIMIT}"])[0]
        accepted = filter_stage.run(off, distill.run(off).dataset.uri).accepted.uri
        lines = []
        yield (
            augment.run(off, accepted),
            augment.run(on, accepted, progress=Progress(lines.append, interval_s=0)),
            lines,
        )


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    return load_tokenizer(str(ensure_tiny_model(tmp_path_factory.mktemp("models"))))


@pytest.fixture(scope="module")
def single_turn():
    relu = load_builtin()[0]
    return {"prompt": build_messages(relu.source), "response": relu.reference_response, "source": relu.source}


@pytest.fixture(scope="module")
def conversation(single_turn):
    """The single-turn row and the refinement row made from it: relu's answer with a syntax slip, the verifier's real verdict."""
    [slip] = break_response(single_turn["response"], single_turn["source"], ["syntax_slip"])
    with Verifier(VerifierSettings(trials=1)) as verifier:
        verdict = verifier.verify(single_turn["source"], slip.response)
    return single_turn, {
        "prompt": refinement_messages(single_turn["prompt"], slip.response, verdict),
        "response": single_turn["response"],
    }


@pytest.mark.slow
def test_augment_adds_verified_refinement_rows_counted_by_kind(refined):
    off, on, lines = refined
    assert re.fullmatch(
        r"augment: 1/1 problems \(01_relu\.py: no shape variants, [3-5]/5 breakages rejected\), .+", lines[-1]
    )
    store = ArtifactStore()
    single, rows = read_dataset(store, off.pairs.uri), read_dataset(store, on.pairs.uri)
    assert (off.refinement_pairs, on.refinement_pairs) == (0, LIMIT)
    assert rows[: len(single)] == single and all(
        set(row) == SINGLE_TURN_COLUMNS for row in rows
    )  # single-turn rows as before
    manifest = read_manifest(store, on.pairs.uri)
    assert (
        manifest["counts"]["refinement_pairs"] == LIMIT
        and manifest["counts"]["pairs"] == len(rows) == len(single) + LIMIT
    )
    refinement = manifest["refinement"]
    assert sum(refinement["kept"].values()) == LIMIT and len(refinement["proposed"]) == 5  # relu has no reduction axis
    assert all(
        refinement["kept"][kind] <= count
        for kind, count in refinement["proposed"].items()
        if kind in refinement["kept"]
    )
    assert read_manifest(store, off.pairs.uri)["refinement"] == {"proposed": {}, "kept": {}, "reasons": {}}
    fixed = single[0]["response"]
    for row in rows[len(single) :]:
        first, answer, feedback = row["prompt"][:2], row["prompt"][2], row["prompt"][3]
        assert first == build_messages(row["problem_source"]) and row["response"] == fixed and len(row["prompt"]) == 4
        assert answer["role"] == "assistant" and parse_response(answer["content"]).code != parse_response(fixed).code
        assert feedback["role"] == "user" and feedback["content"].startswith("The verifier rejected your answer:")
        assert feedback["content"].endswith(FIX_REQUEST) and "What to do:" in feedback["content"]
    assert len({row["prompt"][2]["content"] for row in rows[len(single) :]}) == LIMIT  # three different mistakes


@pytest.mark.slow
def test_a_refinement_row_trains_only_the_fixed_answer(conversation, tokenizer):
    examples, dropped = sft.tokenize_pairs(tokenizer, list(conversation), max_seq_len=1 << 20)
    assert dropped == 0 and len(examples) == 2
    for row, example in zip(conversation, examples):
        prompt, trained = example.input_ids[: example.prompt_tokens], example.labels[example.prompt_tokens :]
        assert (
            example.labels[: example.prompt_tokens] == [IGNORE_INDEX] * example.prompt_tokens
            and IGNORE_INDEX not in trained
        )
        assert (
            tokenizer.decode(trained) == row["response"] + IM_END + "\n"
        )  # the fixed answer and its end of turn, nothing else
        assert tokenizer.decode(prompt) == prompt_text(tokenizer, row["prompt"])
    single, refinement = examples
    broken, feedback = conversation[1]["prompt"][2]["content"], conversation[1]["prompt"][3]["content"]
    assert "[syntax_error]" in feedback
    seen = tokenizer.decode(refinement.input_ids[: refinement.prompt_tokens])
    assert broken in seen and feedback in seen  # the mistake and its feedback are context, never trained
    assert refinement.labels[refinement.prompt_tokens :] == single.labels[single.prompt_tokens :]


def test_single_turn_rows_tokenize_as_before(single_turn, tokenizer):
    # A single-turn row is the generation prompt, then the response and its end of turn, tokenized apart (the
    # multi-turn path must not change a single-turn row's ids, its prompt length or its labels).
    row = single_turn
    [example], _ = sft.tokenize_pairs(tokenizer, [row], max_seq_len=1 << 20)
    prompt = tokenizer(prompt_text(tokenizer, row["prompt"]), add_special_tokens=False)["input_ids"]
    response = tokenizer(row["response"] + IM_END + "\n", add_special_tokens=False)["input_ids"]
    assert (example.input_ids, example.prompt_tokens) == (prompt + response, len(prompt))
    assert example.labels == [IGNORE_INDEX] * len(prompt) + response


def test_negative_refinement_pairs_is_refused():
    with pytest.raises(ConfigError, match=r"augment.refinement_pairs=-1 must be >= 0"):
        load_config("tiny", None, ["augment.refinement_pairs=-1"])
