"""A stage summary as the Markdown a Prefect artifact shows: readable cells, never Python reprs."""

from tritonrl.stages.summary import StageSummary, markdown


def test_summary_markdown_flattens_nested_metrics_and_prints_no_reprs():
    summary = StageSummary(
        "evaluate",
        {"model": "file:///m"},
        {"report": "file:///r/report.json"},
        {
            "correct": 0.333333,
            "pass_at_k": {"1": 0.0, "4": 0.5},
            "best_speedup": None,
            "samples": 18,
            "problems": ["a.py", "b.py"],
        },
        "2/18 correct",
    )
    text = markdown(summary)
    assert "| pass_at_k.1 | 0 |" in text and "| pass_at_k.4 | 0.5 |" in text
    assert "| correct | 0.3333 |" in text and "| best_speedup | – |" in text and "| samples | 18 |" in text
    assert "| problems | a.py, b.py |" in text
    assert "{" not in text and "None" not in text and "[" not in text
