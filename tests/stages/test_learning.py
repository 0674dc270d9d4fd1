"""The main job's stages on a reduced budget still teach: after SFT the student solves held-out problems the base cannot.

distill → filter → augment → SFT on three built-in problems, then the
pipeline's evaluation (held-out shapes, greedy, the real CPU verifier) of the
SFT model beside the base model (`evaluate.compare`). A change that breaks
learning anywhere on that path (prompts, data, tokenization, the training
loop, generation) fails here. Slow: a few minutes on 2 cores.
"""

import pytest

from tritonrl.config import load_config
from tritonrl.stages import augment, distill, sft
from tritonrl.stages import filter as filter_stage
from tritonrl.stages.evaluate import evaluate_model

# Three short elementwise problems, five shape variants each; enough steps for the tiny model to write them
# at shapes it never saw (measured: the full tiny profile reaches 15-17 of 18 problems).
REDUCED = [
    "problems.limit=3",
    "teacher.samples_per_task=1",
    "verify.trials=1",
    "sft.max_steps=120",
    "sft.learning_rate=4e-3",
    "sft.eval_fraction=0",
    "sft.logging_steps=20",
    "evaluate.limit=3",
]


@pytest.mark.slow
@pytest.mark.timeout(1800)  # ~5 min alone on 2 cores; a loaded machine made 120 steps take over 10 (2026-12-06)
def test_sft_model_solves_held_out_problems_the_base_model_cannot(tritonrl_home):
    config, _ = load_config("tiny", overrides=REDUCED)
    assert config.evaluate.shapes == "held_out" and config.evaluate.temperature == 0
    samples = distill.run(config).dataset.uri
    accepted = filter_stage.run(config, samples).accepted.uri
    pairs = augment.run(config, accepted).pairs.uri
    model = sft.run(config, pairs).output_uri

    summary = evaluate_model(config, model, on_log=lambda line: None, compare={"base": config.student.base_model})

    base, trained = summary.metrics["compare"]["base"]["correct"], summary.metrics["correct"]
    assert base == 0.0, "the untrained model cannot write a kernel"
    assert trained >= 2 / 3, (
        f"after SFT only {trained:.0%} of the held-out problems are correct; see {summary.outputs['report']}"
    )
    assert "same evaluation: base 0%" in summary.line
