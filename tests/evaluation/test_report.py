"""tritonrl.evaluation.report: the files exist, the JSON round-trips, the Markdown holds the hand-counted rows, the PNGs are PNGs."""

import json
import struct

import pytest

from tritonrl.evaluation import report as R
from tritonrl.evaluation.metrics import compute_metrics, per_problem_rows
from tritonrl.evaluation.report import render_markdown, write_report

from tests.support.metrics_records import example_records, rec

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path):
    """(width, height) from the IHDR chunk, after checking the signature."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.fixture
def example():
    records = example_records()
    return compute_metrics(records), per_problem_rows(records)


def test_writes_all_four_files(tmp_path, example):
    metrics, rows = example
    out = tmp_path / "new dir:1%20" / "report"  # created if missing; ':' and '%' must not be read as URI syntax
    paths = write_report(metrics, rows, out, title="Nightly eval")
    assert set(paths) == {"json", "markdown", "speedup_hist", "per_level"}
    assert paths == {
        "json": out / "report.json",
        "markdown": out / "report.md",
        "speedup_hist": out / "speedup_hist.png",
        "per_level": out / "per_level.png",
    }
    for path in paths.values():
        assert path.is_file() and path.stat().st_size > 0
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in paths.values())  # no temp files left


def test_json_round_trips(tmp_path, example):
    metrics, rows = example
    paths = write_report(metrics, rows, tmp_path, title="Nightly eval")
    assert json.loads(paths["json"].read_text()) == {"title": "Nightly eval", "metrics": metrics, "per_problem": rows}


def test_markdown_rows_and_percentages(tmp_path, example):
    metrics, rows = example
    text = write_report(metrics, rows, tmp_path)["markdown"].read_text()
    assert text.startswith("# KernelBench evaluation\n")
    header = (
        "| level | problems | samples | valid | compiled | correct | naive correct | fast_1 | fast_2 | pass@1 | pass@4 "
        "| mean speed-up | geomean speed-up | median SoL | p90 SoL |"
    )
    assert header in text
    # numbers from tests/evaluation/test_metrics.py: level 1 = 8 samples (valid 5, compiled 6, correct 3, naive 5,
    # fast_1 2, fast_2 1), pass@1 3/8, mean 6.5/3 = 2.17, geomean 4^(1/3) = 1.59, sol_fractions 0.1 0.4 0.8
    assert (
        "| 1 | 2 | 8 | 62.5% | 75.0% | 37.5% | 62.5% | 25.0% | 12.5% | 37.5% | 100.0% | 2.17× | 1.59× | 40.0% | 80.0% |"
        in text
    )
    assert (
        "| 2 | 1 | 4 | 100.0% | 100.0% | 75.0% | 75.0% | 25.0% | 25.0% | 75.0% | 100.0% | 4.50× | 2.83× | 55.0% | 90.0% |"
        in text
    )
    # all: 12 samples, valid 9, compiled 10, correct 6, naive 8, fast_1 3, fast_2 2, mean 3.1, geomean 2
    assert (
        "| all | 3 | 12 | 75.0% | 83.3% | 50.0% | 66.7% | 25.0% | 16.7% | 50.0% | 100.0% | 3.10× | 2.00× | 40.0% | 90.0% |"
        in text
    )
    # level rows come before the "all" row
    assert text.index("| 1 | 2 | 8 |") < text.index("| 2 | 1 | 4 |") < text.index("| all |")
    assert "66.7% of samples correct (8 of 12)" in text
    assert "the robust verifier counts 50.0% (6), a gap of 16.7 percentage points" in text
    assert "| problem | level | samples | correct | best speed-up | best SoL | top reason |" in text
    assert "| p1 | 1 | 4 | 2 | 2.00× | 40.0% | `compile_error` |" in text
    assert "| p3 | 2 | 4 | 3 | 8.00× | 90.0% | `wrong_result` |" in text


def test_pngs_are_valid(tmp_path, example):
    metrics, rows = example
    paths = write_report(metrics, rows, tmp_path)
    for name in ("speedup_hist", "per_level"):
        width, height = png_size(paths[name])
        assert width > 200 and height > 200


def test_no_speedups_figure_and_dashes(tmp_path, monkeypatch):
    messages = []
    original = R._message_png
    monkeypatch.setattr(R, "_message_png", lambda plt, text, title: messages.append(text) or original(plt, text, title))
    records = [rec("a", s, correct=s < 2) for s in range(3)] + [
        rec("b", 0, level=None, reasons=["timeout"])
    ]  # CPU: no timing
    metrics = compute_metrics(records)
    paths = write_report(metrics, per_problem_rows(records), tmp_path)
    assert messages == ["no speed-ups measured (CPU run or no correct samples)"]
    png_size(paths["speedup_hist"])
    png_size(paths["per_level"])
    text = paths["markdown"].read_text()
    # pass@k stops at k=1 (problem b has one sample), so there is no second pass@k column
    assert "| pass@1 | mean speed-up |" in text
    assert "| no level | 1 | 1 | 100.0% | 100.0% | 0.0% | 0.0% | 0.0% | 0.0% | 0.0% | – | – | – | – |" in text
    assert "| b | no level | 1 | 0 | – | – | `timeout` |" in text  # the table's and the plot's name for it


def test_empty_evaluation(tmp_path, monkeypatch):
    messages = []
    original = R._message_png
    monkeypatch.setattr(R, "_message_png", lambda plt, text, title: messages.append(text) or original(plt, text, title))
    paths = write_report(compute_metrics([]), [], tmp_path)
    assert messages == ["no speed-ups measured (CPU run or no correct samples)", "no samples evaluated"]
    text = paths["markdown"].read_text()
    assert "| all | 0 | 0 | – | – | – | – | – | – | – | – | – | – | – |" in text
    assert "no samples were evaluated" in text
    assert "No problems were evaluated." in text
    for name in ("speedup_hist", "per_level"):
        png_size(paths[name])


def test_rewrite_replaces_the_files(tmp_path, example):
    metrics, rows = example
    write_report(metrics, rows, tmp_path, title="first")
    paths = write_report(metrics, rows, tmp_path, title="second")
    assert json.loads(paths["json"].read_text())["title"] == "second"
    assert paths["markdown"].read_text().startswith("# second\n")
    assert len(list(tmp_path.iterdir())) == 4


def test_pipes_in_problem_names_are_escaped():
    records = [rec("a|b", 0, correct=True, speedup=1.5)]
    text = render_markdown(compute_metrics(records), per_problem_rows(records))
    assert "| a\\|b | 1 | 1 | 1 | 1.50× | – | – |" in text


def test_rejects_inputs_that_are_not_metrics(tmp_path, example):
    metrics, rows = example
    with pytest.raises(ValueError, match="compute_metrics"):
        write_report({"overall": {}}, rows, tmp_path)
    with pytest.raises(ValueError, match="per_problem row 1: missing key 'top_reason'"):
        write_report(metrics, [rows[0], {k: v for k, v in rows[1].items() if k != "top_reason"}], tmp_path)
    with pytest.raises(ValueError, match="no 'speedups' list"):
        write_report({k: v for k, v in metrics.items() if k != "speedups"}, rows, tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing written when the input is rejected


def test_refinement_turns_table_and_plot(tmp_path):
    """Two conversations over three turns: a (wrong, then correct at 1.5x) and b (never correct)."""
    records = [
        {**rec("a", 0, reasons=["wrong_result"]), "turn": 1},
        {**rec("a", 0, correct=True, speedup=1.5), "turn": 2},
        {**rec("b", 0, reasons=["compile_error"]), "turn": 1},
        {**rec("b", 0, reasons=["wrong_result"]), "turn": 2},
        {**rec("b", 0, reasons=["wrong_result"]), "turn": 3},
    ]
    paths = write_report(compute_metrics(records, turns=3), per_problem_rows(records), tmp_path)
    text = paths["markdown"].read_text()
    assert "| turn | answered | correct@t | fast_1@t |" in text
    assert (
        "| 1 | 2 | 0.0% | 0.0% |" in text
        and "| 2 | 2 | 50.0% | 50.0% |" in text
        and "| 3 | 1 | 50.0% | 50.0% |" in text
    )
    assert "| a | 1 | 1 | 1 | 1.50× | – | – |" in text  # each sample's best answer: a's turn 2
    width, height = png_size(paths["turns"])
    assert paths["turns"] == tmp_path / "turns.png" and width > 200 and height > 200
    assert "Refinement turns" not in render_markdown(compute_metrics(records[:1]), per_problem_rows(records[:1]))
