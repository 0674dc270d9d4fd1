"""Baseline timings persist across runs, keyed so that a different GPU, version or problem never reuses them."""

from tritonrl.verify.baseline_cache import BaselineCache

SOURCE = "import torch\nclass Model(torch.nn.Module):\n    pass\n"
SETTINGS = {"budget_s": 2.0, "compile": False}


def test_an_entry_round_trips_under_its_key(tmp_path):
    cache = BaselineCache(tmp_path / "baselines")
    key = BaselineCache.key(SOURCE, "NVIDIA H200", SETTINGS)
    assert cache.get(key) is None
    cache.put(key, {"baseline": {"median_ms": 0.5}, "compile": None})
    assert BaselineCache(tmp_path / "baselines").get(key) == {"baseline": {"median_ms": 0.5}, "compile": None}


def test_the_key_changes_with_problem_gpu_and_settings():
    base = BaselineCache.key(SOURCE, "NVIDIA H200", SETTINGS)
    assert base == BaselineCache.key(SOURCE, "NVIDIA H200", dict(SETTINGS))
    assert base != BaselineCache.key(SOURCE + "# other shapes\n", "NVIDIA H200", SETTINGS)
    assert base != BaselineCache.key(SOURCE, "NVIDIA H100 80GB HBM3", SETTINGS)
    assert base != BaselineCache.key(SOURCE, "NVIDIA H200", {**SETTINGS, "compile": True})


def test_a_damaged_entry_counts_as_missing(tmp_path):
    cache = BaselineCache(tmp_path)
    key = BaselineCache.key(SOURCE, "gpu", SETTINGS)
    (tmp_path / f"{key}.json").write_text('{"baseline": ')
    assert cache.get(key) is None
    (tmp_path / f"{key}.json").write_text('["not", "an", "entry"]')
    assert cache.get(key) is None


def test_a_gpu_models_peaks_have_their_own_entry(tmp_path):
    cache = BaselineCache(tmp_path)
    key = BaselineCache.peaks_key("NVIDIA H200")
    assert key != BaselineCache.peaks_key("NVIDIA H100 80GB HBM3")
    cache.put(key, {"peaks": {"bandwidth": 4.3e12, "flops": {}, "l2_bytes": 52428800}})
    assert cache.get(key, "peaks")["peaks"]["bandwidth"] == 4.3e12
    assert cache.get(key) is None  # not a baseline
