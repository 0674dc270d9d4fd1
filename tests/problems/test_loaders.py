import json

import pytest

from tritonrl.problems import ProblemError, load_problems
from tritonrl.problems.loaders import load_builtin

from tests.support.paths import FIXTURES

REQUIRED_CATEGORIES = {
    "elementwise activation",
    "broadcasting binary op",
    "row reduction",
    "softmax",
    "normalization",
    "matmul",
    "batched matmul",
    "fused matmul",
    "scan",
    "pooling",
    "loss",
}

GOOD = """import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return x * 2

n = 8

def get_inputs():
    return [torch.randn(n)]

def get_init_inputs():
    return []
"""


def test_builtin_suite_has_16_plus_problems_covering_every_category():
    problems = load_builtin()
    assert len(problems) >= 16
    assert len({p.name for p in problems}) == len(problems)
    assert REQUIRED_CATEGORIES <= {p.category for p in problems}
    for p in problems:
        assert p.reference_response, p.name
        assert p.shapes, f"{p.name} has no module-level shape constants"
        assert p.alt_shapes and p.alt_shapes != {k: p.shapes[k] for k in p.alt_shapes}, p.name


def test_builtin_suite_covers_sum_mean_max_and_both_softmaxes():
    names = " ".join(p.name for p in load_builtin())
    for op in ("sum", "mean", "max", "log_softmax", "layer_norm", "rms_norm", "softmax"):
        assert op in names


def test_kernelbench_jsonl_levels(kernelbench_dir):
    counts = {}
    for level in (1, 2, 3):
        problems = load_problems(str(kernelbench_dir / f"level_{level}.jsonl"))
        assert {p.level for p in problems} == {level}
        counts[level] = len(problems)
    assert counts == {1: 100, 2: 100, 3: 50}
    relu = next(p for p in load_problems(str(kernelbench_dir / "level_1.jsonl")) if p.name == "19_ReLU.py")
    assert relu.problem_id == 19
    assert relu.shapes == {"batch_size": 4096, "dim": 393216}


def test_level_filter_and_limit(kernelbench_dir):
    problems = load_problems(str(kernelbench_dir / "level_2.jsonl"), levels=[2], limit=5)
    assert len(problems) == 5
    assert load_problems(str(kernelbench_dir / "level_2.jsonl"), levels=[1]) == []


def test_directory_of_py_files(tmp_path):
    (tmp_path / "b_second.py").write_text(GOOD)
    (tmp_path / "a_first.py").write_text(GOOD)
    (tmp_path / "notes.txt").write_text("ignored")
    problems = load_problems(str(tmp_path))
    assert [p.name for p in problems] == ["a_first.py", "b_second.py"]
    assert problems[0].origin == str(tmp_path / "a_first.py")
    assert load_problems(str(tmp_path / "a_first.py"))[0].shapes == {"n": 8}


def test_hub_dataset_layout_via_datasets(tmp_path, kernelbench_dir):
    """The hub loader goes through `datasets.load_dataset`; here on a local copy in the hub's layout."""
    import datasets

    data = tmp_path / "KernelBench" / "data"
    data.mkdir(parents=True)
    for level in (1, 2):
        rows = [json.loads(line) for line in (kernelbench_dir / f"level_{level}.jsonl").read_text().splitlines()[:3]]
        datasets.Dataset.from_list(rows).to_parquet(str(data / f"level_{level}-00000-of-00001.parquet"))
    problems = load_problems(str(tmp_path / "KernelBench"))
    assert sorted((p.level, p.problem_id) for p in problems) == [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3)]
    assert "[level_1]" in problems[0].origin


def test_unreachable_hub_id_is_a_clear_error(monkeypatch):
    import datasets
    import huggingface_hub

    # Offline, as HF_HUB_OFFLINE=1 at start-up would make it: both libraries read the variable once, when first
    # imported (an earlier test may have imported them), and online the lookup waits out the network's timeouts.
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    with pytest.raises(ProblemError, match="cannot load hub dataset 'nobody/no-such-dataset'"):
        load_problems("nobody/no-such-dataset")


def test_kernelbook_rows_become_problems_with_model_and_modelnew():
    problems = load_problems(f"kernelbook:{FIXTURES / 'kernelbook_sample.jsonl'}")
    assert [p.name for p in problems] == ["kernelbook_101_ScaledTanh.py", "kernelbook_102_SumAggregator.py"]
    tanh, agg = problems
    assert "class Model(nn.Module)" in tanh.source
    assert "super(Model, self).__init__()" in tanh.source
    assert "the name ScaledTanh in this string must stay" in tanh.source
    assert "class ModelNew(nn.Module)" in tanh.reference_response
    assert "ScaledTanhNew" not in tanh.reference_response
    assert agg.reference_response is None


def test_kernelbook_parquet(tmp_path):
    import datasets

    rows = [json.loads(line) for line in (FIXTURES / "kernelbook_sample.jsonl").read_text().splitlines()]
    path = tmp_path / "kb.parquet"
    datasets.Dataset.from_list(rows).to_parquet(str(path))
    assert len(load_problems(f"kernelbook:{path}")) == 2


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (GOOD.replace("class Model", "class Net"), "missing top-level Model"),
        (GOOD.replace("def get_inputs", "def make_inputs"), "missing top-level get_inputs"),
        (GOOD.replace("def get_init_inputs", "def init_inputs"), "missing top-level get_init_inputs"),
        (GOOD.replace("return x * 2", "return x *"), "syntax error at line 6"),
    ],
)
def test_malformed_problem_names_file_and_what_is_missing(tmp_path, source, message):
    path = tmp_path / "broken_problem.py"
    path.write_text(source)
    with pytest.raises(ProblemError, match=message) as info:
        load_problems(str(tmp_path))
    assert str(path) in str(info.value)


def test_malformed_jsonl_rows_name_file_and_line(tmp_path):
    path = tmp_path / "set.jsonl"
    good = {"code": GOOD, "level": 1, "name": "ok.py", "problem_id": 1}
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "code": "class Model: pass"}) + "\n")
    with pytest.raises(ProblemError, match=rf"{path}:2: missing top-level get_inputs"):
        load_problems(str(path))
    path.write_text(json.dumps(good) + "\n{not json\n")
    with pytest.raises(ProblemError, match=rf"{path}:2: not valid JSON"):
        load_problems(str(path))
    path.write_text(json.dumps({"code": GOOD, "name": "x.py"}) + "\n")
    with pytest.raises(ProblemError, match=r"missing KernelBench columns \['level', 'problem_id'\]"):
        load_problems(str(path))


def test_kernelbook_row_without_python_code_is_named(tmp_path):
    path = tmp_path / "kb.jsonl"
    path.write_text(json.dumps({"entry_point": "X", "python_code": ""}) + "\n")
    with pytest.raises(ProblemError, match=rf"{path}:1: KernelBook row has no 'python_code'"):
        load_problems(f"kernelbook:{path}")


def test_unknown_source_explains_what_is_accepted(tmp_path):
    with pytest.raises(ProblemError, match="is not 'builtin', a directory"):
        load_problems("no_such_thing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ProblemError, match="holds no .py problem files"):
        load_problems(str(tmp_path / "empty"))
