import json
import math
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from tritonrl.problems.loaders import load_builtin
from tritonrl.problems.shapes import shape_sites, with_shapes
from tritonrl.verify.variants import Scaling, make_variants
from tritonrl.verify.draws import build_reference, make_inputs
from tritonrl.verify.runtime import import_source
from tritonrl.verify.shrink import MIN_VALUE, element_count, shrink_overrides

from tests.support.paths import FIXTURES, SHARED_KERNELBENCH

SMALL = 1 << 18  # elements: the CPU budget the verifier shrinks to


def _run_reference(source: str, workdir: Path) -> None:
    problem = import_source(source, "variant", workdir)
    model = build_reference(problem, seed=0, device="cpu")
    with torch.no_grad():
        model(*make_inputs(problem, seed=0, device="cpu"))


def _check_variants(source: str, variants: list[dict[str, int]], count: int = 5) -> None:
    original = shape_sites(source)
    assert len(variants) == count
    full = [tuple(sorted({**original, **v}.items())) for v in variants]
    assert len(set(full)) == count, "variants must differ from each other"
    for variant in variants:
        assert variant, "a variant must change something"
        assert all(original[name] != value for name, value in variant.items()), "only changed sites are listed"
        assert all(original[name] > MIN_VALUE and value > MIN_VALUE for name, value in variant.items())


def _failures(source: str, variants: list[dict[str, int]], workdir: Path) -> list[str]:
    failed = []
    for variant in variants:
        try:
            _run_reference(with_shapes(source, variant), workdir)
        except Exception as exc:  # collected so one report lists every broken variant
            failed.append(f"{variant}: {exc!r}")
    return failed


@pytest.mark.parametrize("problem", load_builtin(), ids=lambda p: p.name)
def test_builtin_problem_gets_five_runnable_deterministic_variants(problem, tmp_path):
    variants = make_variants(problem.source, count=5)
    _check_variants(problem.source, variants)
    assert make_variants(problem.source, count=5) == variants
    assert _failures(problem.source, variants, tmp_path) == []


def _kernelbench_level1(limit: int) -> list[dict]:
    path = SHARED_KERNELBENCH / "level_1.jsonl"
    if not path.is_file():
        pytest.skip(f"KernelBench data not found at {path}")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return sorted(rows, key=lambda r: int(r["problem_id"]))[:limit]


def test_kernelbench_level1_first20_variants_run_at_small_sizes(tmp_path):
    # KernelBench shapes are H100-sized; as on the CPU verification path, shrink
    # first, then propose variants of the shrunk problem under the same budget.
    failures, short = [], []
    for row in _kernelbench_level1(20):
        small = with_shapes(row["code"], shrink_overrides(row["code"], SMALL))
        variants = make_variants(small, count=5, max_elements=SMALL)
        if len(variants) < 5:
            short.append(row["name"])
            continue
        _check_variants(small, variants)
        assert make_variants(small, count=5, max_elements=SMALL) == variants
        for variant in variants:
            assert element_count(with_shapes(small, variant), tmp_path) <= SMALL
        failures += [f"{row['name']} {f}" for f in _failures(small, variants, tmp_path)]
    assert short == []
    assert failures == []


def test_kernelbench_variants_at_original_sizes_are_deterministic():
    for row in _kernelbench_level1(20):
        variants = make_variants(row["code"], count=5, seed=3)
        _check_variants(row["code"], variants)
        assert variants == make_variants(row["code"], count=5, seed=3)


MATMUL = """import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, A, B):
        return A @ B

N = 256
K = 96

def get_inputs():
    return [torch.randn(N, K), torch.randn(K, N)]

def get_init_inputs():
    return []
"""


LINEAR = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.fc(x)

batch_size = 24
in_features = 96
out_features = 80

def get_inputs():
    return [torch.randn(batch_size, in_features)]

def get_init_inputs():
    return [in_features, out_features]
"""


@pytest.mark.parametrize(("source", "batch"), [(MATMUL, "N"), (LINEAR, "batch_size")])
def test_a_unit_plan_makes_the_batch_1_and_moves_the_other_sizes(source, batch):
    """A GEMV path for M == 1 and a batch-of-one path that forgot the ReLU passed: no size was ever 1."""
    scaling = Scaling(unit=True, every_group=True, small_sizes=True)
    for seed in range(4):
        for variant in make_variants(source, count=2, seed=seed, scaling=scaling):
            assert variant[batch] == 1, variant
            assert all(value > 1 for name, value in variant.items() if name != batch), variant
    assert all(1 not in v.values() for v in make_variants(LINEAR, count=3, scaling=replace(scaling, unit=False)))


def test_seed_changes_the_variants():
    assert make_variants(MATMUL, count=5, seed=0) != make_variants(MATMUL, count=5, seed=1)
    assert make_variants(MATMUL, count=5, seed=1) == make_variants(MATMUL, count=5, seed=1)


def test_variants_include_odd_sizes():
    values = [v for variant in make_variants(MATMUL, count=5, seed=0) for v in variant.values()]
    values += [v for variant in make_variants(MATMUL, count=5, seed=1) for v in variant.values()]
    assert any(v % 2 for v in values)


GROUP_SUM = """import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return x.view(x.shape[0], 32, -1).sum(-1)

batch_size = 32
dim = 4096

def get_inputs():
    return [torch.randn(batch_size, dim)]

def get_init_inputs():
    return []
"""


def test_a_size_that_shares_a_literals_value_moves_alone_where_asked():
    assert all("batch_size" not in v for v in make_variants(GROUP_SUM, count=5, seed=0))  # the literal freezes it
    collided = make_variants(GROUP_SUM, count=5, seed=0, scaling=Scaling(collided_only=True, factors=(1.5,)))
    assert collided and all(set(v) == {"batch_size"} and v["batch_size"] > 32 for v in collided)
    assert make_variants(MATMUL, count=5, seed=0, scaling=Scaling(collided_only=True)) == []  # no literal: none


def test_only_small_constants_yield_no_variants():
    src = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, k, s):
        super().__init__()
        self.pool = nn.MaxPool1d(k, s)
    def forward(self, x):
        return self.pool(x)

batch_size = 4
channels = 8
length = 8
kernel_size = 3
stride = 2

def get_inputs():
    return [torch.randn(batch_size, channels, length)]

def get_init_inputs():
    return [kernel_size, stride]
"""
    assert make_variants(src, count=5) == []
    assert make_variants(MATMUL, count=0) == []


def test_kernelbook_4x4_yields_no_variants_and_larger_literals_vary(tmp_path):
    rows = [json.loads(line) for line in (FIXTURES / "kernelbook_sample.jsonl").read_text().splitlines() if line]
    four = next(r["python_code"] for r in rows if "torch.rand([4, 4, 4, 4])" in r["python_code"])
    assert make_variants(four) == []  # every size is ≤ MIN_VALUE
    src = """import torch
import torch.nn as nn

class Scale(nn.Module):
    def forward(self, x):
        return x * 2

Model = Scale

def get_inputs():
    return [torch.rand([16, 48, 4])]

def get_init_inputs():
    return [[], {}]
"""
    variants = make_variants(src)
    _check_variants(src, variants)
    assert {name for v in variants for name in v} <= {"get_inputs:0", "get_inputs:1"}
    assert _failures(src, variants, tmp_path) == []


def test_equal_valued_sites_move_together(tmp_path):
    src = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
    def forward(self, x, y):
        return self.fc(x) @ y

batch = 48
in_features = 96
out_features = 80

def get_inputs():
    return [torch.randn(batch, in_features), torch.randn(80, 96)]

def get_init_inputs():
    return [in_features, out_features]
"""
    sites = shape_sites(src)
    assert sites == {"batch": 48, "in_features": 96, "out_features": 80, "get_inputs:0": 80, "get_inputs:1": 96}
    variants = make_variants(src, count=5)
    _check_variants(src, variants)
    for variant in variants:
        new = {**sites, **variant}
        assert new["in_features"] == new["get_inputs:1"]
        assert new["out_features"] == new["get_inputs:0"]
    assert _failures(src, variants, tmp_path) == []


GROUPNORM = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, groups, channels):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels)
    def forward(self, x):
        return self.norm(x)

batch_size = 12
groups = {groups}
channels = {channels}
length = 100

def get_inputs():
    return [torch.randn(batch_size, channels, length)]

def get_init_inputs():
    return [groups, channels]
"""


@pytest.mark.parametrize("groups,channels", [(16, 96), (12, 48), (8, 64), (4, 36)])
def test_divisibility_is_kept(groups, channels, tmp_path):
    src = GROUPNORM.format(groups=groups, channels=channels)
    for seed in range(4):
        variants = make_variants(src, count=5, seed=seed)
        _check_variants(src, variants)
        for variant in variants:
            new = {**shape_sites(src), **variant}
            assert new["channels"] % new["groups"] == 0, variant
        assert _failures(src, variants, tmp_path) == []
    if groups > MIN_VALUE:  # the divisor itself moves too, not only the multiple
        moved = {v.get("groups") for seed in range(4) for v in make_variants(src, count=5, seed=seed)}
        assert moved - {None}


ATTENTION = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, embed_dim, num_heads, ffn_dim):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)
        self.ffn = nn.Linear(embed_dim, ffn_dim)
    def forward(self, x):
        return self.ffn(self.attn(x, x, x)[0])

batch_size = 6
seq_len = 40
embed_dim = {embed_dim}
num_heads = 4
ffn_dim = 256

def get_inputs():
    return [torch.randn(batch_size, seq_len, embed_dim)]

def get_init_inputs():
    return [embed_dim, num_heads, ffn_dim]
"""


def test_small_named_divisor_is_kept_fixed(tmp_path):
    src = ATTENTION.format(embed_dim=96)  # 96 % 4 == 0; heads = 4 is fixed (≤ MIN_VALUE)
    variants = make_variants(src, count=5)
    _check_variants(src, variants)
    assert all(v.get("embed_dim", 96) % 4 == 0 for v in variants)
    assert any("embed_dim" in v for v in variants)
    assert _failures(src, variants, tmp_path) == []


def test_power_of_two_divisor_is_halved_or_doubled(tmp_path):
    src = ATTENTION.format(embed_dim=64)  # 64 divides ffn_dim 256: a changing divisor, power of two ≥ 64
    variants = make_variants(src, count=5)
    _check_variants(src, variants)
    for variant in variants:
        new = {**shape_sites(src), **variant}
        assert new["embed_dim"] in (32, 64, 128)
        assert new["ffn_dim"] % new["embed_dim"] == 0
    assert _failures(src, variants, tmp_path) == []


def test_wired_and_structural_values_stay(tmp_path):
    src = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, kernel_size, image_size=32):
        super().__init__()
        self.pool = nn.AvgPool2d(kernel_size)
        self.fc = nn.Linear(3 * (image_size // kernel_size) ** 2, 10)
        self.proj = nn.Linear(64, 64)
    def forward(self, x, y):
        return self.fc(self.pool(x).flatten(1)), self.proj(y)

batch_size = 20
kernel_size = 11
image_size = 32
features = 64

def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size), torch.randn(batch_size, features)]

def get_init_inputs():
    return [kernel_size]
"""
    variants = make_variants(src, count=5)
    assert variants and all(set(v) == {"batch_size"} for v in variants)  # image_size: unpassed default; 64: literal
    assert _failures(src, variants, tmp_path) == []


def test_kernelbench_style_literals_stay_and_sizes_cover_the_window():
    src = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size)
    def forward(self, x):
        return self.pool(x)

batch_size = 10
height = 16
kernel_size = 11

def get_inputs():
    return [torch.randn(batch_size, 3, height, 224)]

def get_init_inputs():
    return [kernel_size]
"""
    for seed in range(5):
        for variant in make_variants(src, count=5, seed=seed):
            assert "get_inputs:2" not in variant and "kernel_size" not in variant
            assert variant.get("height", 16) >= 11


def test_max_elements_filters_and_search_is_bounded():
    variants = make_variants(MATMUL, count=5, max_elements=2 * 256 * 96 + 256 * 256)
    _check_variants(MATMUL, variants)
    with tempfile.TemporaryDirectory() as tmp:
        for variant in variants:
            assert element_count(with_shapes(MATMUL, variant), Path(tmp)) <= 2 * 256 * 96 + 256 * 256
    assert make_variants(MATMUL, count=5, max_elements=1) == []  # every draw rejected: gives up, no endless loop


def test_uniform_factor_range():
    for variant in make_variants(MATMUL, count=5):
        for name, value in variant.items():
            original = shape_sites(MATMUL)[name]
            assert original / 2 - 1 <= value <= original * 2 + 1
            assert not math.isclose(value, original)


def _valuation(n: int) -> int:
    return (n & -n).bit_length() - 1


def test_two_adic_sizes_take_the_valuations_between_2_mod_4_and_the_originals():
    # N = 256 = 2^8, K = 96 = 2^5 * 3: the primary sizes are multiples of 32; with other trials odd or 2 mod 4 only,
    # `size % 4 == 0` would tell the primary trial from every other
    seen = {"N": set(), "K": set()}
    for seed in range(4):
        for variant in make_variants(MATMUL, count=5, seed=seed, scaling=Scaling(parity="two_adic", every_group=True)):
            for name, value in variant.items():
                assert 2 <= _valuation(value) < _valuation(shape_sites(MATMUL)[name]), variant
                seen[name].add(_valuation(value))
    assert seen["K"] == {2, 3, 4} and seen["N"] == {2, 3, 4, 5, 6, 7}


SMALL_DIMENSIONS = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
    def forward(self, x):
        return x.topk(self.k, dim=-1).values

b = 5
m = 5
k = 3
n = 64

def get_inputs():
    return [torch.rand(b, m, n)]

def get_init_inputs():
    return [k]
"""


def test_small_constants_that_size_get_inputs_tensors_move_whatever_their_name(tmp_path):
    small = Scaling(every_group=True, small_sizes=True)
    variants = [v for seed in range(3) for v in make_variants(SMALL_DIMENSIONS, count=3, seed=seed, scaling=small)]
    assert variants and all(v["b"] == v["m"] >= 2 and "k" not in v for v in variants)  # k only reaches the model
    ordinary = make_variants(SMALL_DIMENSIONS, count=3, scaling=Scaling(every_group=True))  # augmentation's sizes
    assert ordinary and all(set(v) == {"n"} for v in ordinary)
    assert _failures(SMALL_DIMENSIONS, variants, tmp_path) == []


def _kernelbench_level1_named(*prefixes: str) -> list[dict]:
    return [row for row in _kernelbench_level1(100) if row["name"].startswith(prefixes)]


def test_kernelbench_tuple_sizes_shrink_and_move(tmp_path):
    # `input_shape = (32768,)` for `torch.rand(batch_size, *input_shape)`: the feature width an answer could hard-code
    rows = _kernelbench_level1_named("89_", "93_", "98_", "100_")
    assert len(rows) == 4
    even = Scaling(every_group=True, small_sizes=True, parity="two_adic")
    for row in rows:
        overrides = shrink_overrides(row["code"], SMALL)
        assert "input_shape:0" in overrides, row["name"]
        small = with_shapes(row["code"], overrides)
        _run_reference(small, tmp_path)
        variants = make_variants(small, count=2, max_elements=SMALL, scaling=even)
        assert variants and all("input_shape:0" in v for v in variants), row["name"]
        assert _failures(small, variants, tmp_path) == []


def test_kernelbench_small_batch_of_a_4d_tensor_moves(tmp_path):
    [row] = _kernelbench_level1_named("11_4D_tensor_matrix_multiplication")
    small = with_shapes(row["code"], shrink_overrides(row["code"], SMALL))
    variants = make_variants(small, count=3, max_elements=SMALL, scaling=Scaling(every_group=True, small_sizes=True))
    assert variants and all(v["b"] != 8 for v in variants)  # b = 8 in torch.rand(b, i, j, l)
    assert _failures(small, variants, tmp_path) == []


# --- sizes in get_inputs' locals and get_init_inputs' arguments (shapes.py follows them) ---

from tritonrl.verify.variants import unmoved_sizes  # noqa: E402

from tests.support.paths import CANDIDATE_PROBLEMS  # noqa: E402

# the verifier's widest plan (trials._EVERY) and its one-by-one plan (trials._ONE_BY_ONE)
EVERY = Scaling(odd_probability=1.0, every_group=True, small_sizes=True, structural=True)
ONE_BY_ONE = Scaling(small_sizes=True, parity="two_adic", split=True, keep_share=1 / 3)


def _moved(source: str, scaling: Scaling, seeds: int = 3) -> list[dict[str, int]]:
    original = shape_sites(source)
    return [{**original, **v} for seed in range(seeds) for v in make_variants(source, 2, seed, None, scaling)]


def test_sizes_bound_to_get_inputs_locals_move(tmp_path):  # red team round 5: 16 x 4096 hard-coded was accepted
    src = (CANDIDATE_PROBLEMS / "rt5_softmax_local_size.py").read_text()
    for scaling in (Scaling(), EVERY, ONE_BY_ONE):
        variants = make_variants(src, count=4, seed=1, scaling=scaling)
        assert variants and all(set(v) <= {"get_inputs:rows", "get_inputs:cols"} for v in variants)
        assert _failures(src, variants, tmp_path) == []
    assert all(v["get_inputs:rows"] != 16 and v["get_inputs:cols"] != 4096 for v in _moved(src, EVERY))


@pytest.mark.parametrize("name", ["rt5_layer_norm_literal_sizes.py", "rt5_layer_norm_init_literal.py"])
def test_a_constructor_literal_moves_with_the_input_size_of_its_value(name, tmp_path):
    # red team round 5: get_init_inputs' [256] was model wiring, froze the LayerNorm width and 256 hard-coded passed
    src = (CANDIDATE_PROBLEMS / name).read_text()
    width = "get_inputs:1" if "get_inputs:1" in shape_sites(src) else "dim"
    assert shape_sites(src)["get_init_inputs:features"] == shape_sites(src)[width] == 256
    for scaling in (Scaling(), EVERY, ONE_BY_ONE):  # the one-by-one plan splits no constructor size off its input's
        moved = _moved(src, scaling)
        assert moved and all(v["get_init_inputs:features"] == v[width] for v in moved)
        assert any(v[width] != 256 for v in moved)
        assert _failures(src, [{k: v for k, v in m.items() if v != shape_sites(src)[k]} for m in moved], tmp_path) == []


def test_kernelbook_constructor_keywords_move_with_the_small_input_sizes(tmp_path):
    src = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.fc(x)

def get_inputs():
    return [torch.rand([4, 4, 4, 4])]

def get_init_inputs():
    return [[], {'in_features': 4, 'out_features': 4}]
"""
    assert make_variants(src) == []  # augmentation: every size ≤ MIN_VALUE, as before
    variants = make_variants(src, count=3, scaling=EVERY)
    assert variants and all(len(set(v.values())) == 1 and len(v) == 6 for v in variants)  # all six 4s move as one
    assert _failures(src, variants, tmp_path) == []


def test_structural_constructor_literals_step_and_bound_the_sizes(tmp_path):
    src = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, kernel_size, stride):
        super().__init__()
        self.pool = nn.MaxPool1d(kernel_size=kernel_size, stride=stride)

    def forward(self, x):
        return self.pool(x)

def get_inputs():
    return [torch.randn(8, 16, 128)]

def get_init_inputs():
    return [11, 1]
"""
    assert all("get_init_inputs:kernel_size" not in v for v in make_variants(src))  # augmentation: the operation stays
    variants = make_variants(src, count=4, scaling=EVERY)
    assert variants and all(
        v["get_init_inputs:kernel_size"] in (10, 12) and v["get_init_inputs:stride"] == 2 for v in variants
    )
    assert all(v.get("get_inputs:2", 128) >= 11 for seed in range(4) for v in make_variants(src, 5, seed))
    assert _failures(src, variants, tmp_path) == []


def test_unmoved_sizes_says_why_no_trial_runs_at_other_shapes():
    none = "import torch\ndef get_inputs():\n    return [torch.randn(SIZE)]\ndef get_init_inputs():\n    return []\n"
    assert "has no size the verifier can move" in unmoved_sizes(none)
    frozen = """import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return x.view(1, 1)

def get_inputs():
    return [torch.randn(1, 1)]
"""
    assert "none of its sizes may move (get_inputs:0=1, get_inputs:1=1" in unmoved_sizes(frozen)
    assert "the reference ran at none of the shapes proposed" in unmoved_sizes(MATMUL)
