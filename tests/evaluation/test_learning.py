"""The base/SFT/final comparison a pipeline run ends with: rows from stage summaries, table, metrics, figure."""

from tritonrl.evaluation.learning import learning_markdown, learning_metrics, learning_png, learning_rows, learning_text

STAGES = {
    "sft": {"metrics": {"steps": 300}, "curves": {"loss": [(1, 7.07), (150, 0.4), (300, 0.006)]}},
    "grpo": {"metrics": {"steps": 2}, "curves": {"reward_code": [(1, 0.75), (2, 0.875)]}},
    "evaluate": {
        "inputs": {"model": "file:///a/grpo-1", "compare.base": "tiny-local", "compare.sft": "file:///a/sft-1"},
        "metrics": {
            "correct": 0.8333,
            "valid": 1.0,
            "compiled": 0.9,
            "fast_1": None,
            "samples": 18,
            "compare": {
                "base": {"correct": 0.0, "valid": 0.0, "compiled": 0.0, "fast_1": None},
                "sft": {"correct": 0.7778, "valid": 1.0, "compiled": 0.9, "fast_1": None},
            },
        },
    },
}


def test_rows_set_the_base_sft_and_final_model_side_by_side_with_what_trained_them():
    rows = learning_rows(STAGES)
    assert [(r.model, r.uri, r.metrics["correct"]) for r in rows] == [
        ("base", "tiny-local", 0.0),
        ("sft", "file:///a/sft-1", 0.7778),
        ("grpo", "file:///a/grpo-1", 0.8333),
    ]
    assert rows[1].training == "300 SFT steps, loss 7.070 → 0.006"
    assert rows[2].training == "2 GRPO steps, reward 0.750 → 0.875"
    assert learning_metrics(rows) == {
        "base.correct": 0.0,
        "base.valid": 0.0,
        "base.compiled": 0.0,
        "sft.correct": 0.7778,
        "sft.valid": 1.0,
        "sft.compiled": 0.9,
        "grpo.correct": 0.8333,
        "grpo.valid": 1.0,
        "grpo.compiled": 0.9,
    }


def test_table_and_terminal_lines_show_shares_and_dashes_for_what_was_not_measured():
    rows = learning_rows(STAGES)
    table = learning_markdown(rows, 18)
    assert "(18 answers each)" in table
    assert "| sft | 78% | 100% | 90% | – | 300 SFT steps, loss 7.070 → 0.006 |" in table
    lines = learning_text(rows)
    assert lines[0].split()[:5] == ["model", "correct", "valid", "compiled", "fast_1"]
    assert lines[3].split()[:5] == ["grpo", "83%", "100%", "90%", "–"]


def test_no_comparison_no_rows_and_the_figure_is_a_png():
    assert learning_rows({"evaluate": {"inputs": {}, "metrics": {"correct": 0.5}}}) == []
    assert learning_png(learning_rows(STAGES), STAGES).startswith(b"\x89PNG")
