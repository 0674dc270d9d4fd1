"""tritonrl.evaluation.metrics: every number checked against a hand count (arithmetic in the comments)."""

import itertools
import math
from fractions import Fraction

import pytest

from tritonrl.evaluation import metrics as M
from tritonrl.evaluation.metrics import compute_metrics, pass_at_k, per_problem_rows, verdict_record
from tritonrl.verify.result import Reason, ReasonCode, Verdict

from tests.support.metrics_records import example_records, rec

# ---------------------------------------------------------------------------------------------- pass@k


def brute_force_pass_at_k(n, c, k):
    """Share of all k-subsets of n samples (the first c correct) holding at least one correct sample."""
    hits = total = 0
    for subset in itertools.combinations(range(n), k):
        total += 1
        hits += any(i < c for i in subset)
    return Fraction(hits, total)


@pytest.mark.parametrize("n", range(1, 9))
def test_pass_at_k_equals_enumeration_over_subsets(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == float(brute_force_pass_at_k(n, c, k)), (n, c, k)


@pytest.mark.parametrize("n", range(1, 9))
def test_pass_at_k_product_form_agrees_with_enumeration(monkeypatch, n):
    monkeypatch.setattr(M, "_EXACT_MAX_N", 0)  # force the float product form
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(float(brute_force_pass_at_k(n, c, k)), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    "n,c,k", [(2000, 1, 1), (2000, 7, 10), (2000, 500, 100), (5000, 4990, 5), (3000, 0, 50), (4000, 3999, 1)]
)
def test_pass_at_k_large_n_matches_exact_binomials(n, c, k):
    exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    assert pass_at_k(n, c, k) == pytest.approx(float(exact), rel=1e-12, abs=1e-15)


def test_pass_at_k_simple_values():
    assert pass_at_k(4, 2, 1) == 0.5  # c / n
    assert pass_at_k(4, 2, 2) == 5 / 6  # 1 - C(2,2)/C(4,2) = 1 - 1/6
    assert pass_at_k(4, 0, 4) == 0.0  # nothing correct
    assert pass_at_k(4, 1, 4) == 1.0  # all samples drawn
    assert pass_at_k(10, 8, 3) == 1.0  # only 2 wrong: every 3-subset has a correct one


@pytest.mark.parametrize("n,c,k", [(0, 0, 1), (4, 5, 1), (4, -1, 1), (4, 2, 0), (4, 2, 5), (4.0, 2, 1), (4, True, 1)])
def test_pass_at_k_rejects_bad_arguments(n, c, k):
    with pytest.raises(ValueError, match="pass_at_k"):
        pass_at_k(n, c, k)


# ---------------------------------------------------------------------------------------------- the example


def test_overall_block_by_hand():
    m = compute_metrics(example_records())
    o = m["overall"]
    assert o["problems"] == 3
    assert o["samples"] == 12
    assert o["valid"] == 9 / 12  # 3 + 2 + 4
    assert o["compiled"] == 10 / 12  # 3 + 3 + 4
    assert o["correct"] == 6 / 12  # 2 + 1 + 3
    assert o["naive_correct"] == 8 / 12  # 3 + 2 + 3
    assert o["robust_vs_naive_gap"] == 2 / 12  # (8 - 6) / 12: p1 s2 and p2 s3 fooled a naive harness
    # correct speed-ups: 2.0, 0.5, 4.0, 1.0, 8.0 (p3 s1 is correct with no speed-up)
    assert o["fast_0"] == 5 / 12  # all five are > 0
    assert o["fast_1"] == 3 / 12  # 2.0, 4.0, 8.0 (1.0 is not > 1)
    assert o["fast_2"] == 2 / 12  # 4.0, 8.0 (2.0 is not > 2)
    # per problem (n=4): p1 c=2, p2 c=1, p3 c=3
    # k=1: (2/4 + 1/4 + 3/4) / 3 = 1/2
    # k=2: p1 1 - C(2,2)/C(4,2) = 5/6; p2 1 - C(3,2)/C(4,2) = 1/2; p3 1 (one wrong) -> (5/6 + 1/2 + 1) / 3 = 7/9
    # k=3: p1 1; p2 1 - C(3,3)/C(4,3) = 3/4; p3 1 -> (1 + 3/4 + 1) / 3 = 11/12
    # k=4: every sample drawn, every problem has a correct one -> 1
    assert list(o["pass_at_k"]) == ["1", "2", "3", "4"]
    assert o["pass_at_k"]["1"] == pytest.approx(1 / 2)
    assert o["pass_at_k"]["2"] == pytest.approx(7 / 9)
    assert o["pass_at_k"]["3"] == pytest.approx(11 / 12)
    assert o["pass_at_k"]["4"] == pytest.approx(1.0)
    assert o["mean_speedup"] == pytest.approx(3.1)  # (2 + 0.5 + 4 + 1 + 8) / 5 = 15.5 / 5
    assert o["geomean_speedup"] == pytest.approx(2.0)  # (2 * 0.5 * 4 * 1 * 8) ** (1/5) = 32 ** 0.2
    assert m["speedups"] == [0.5, 1.0, 2.0, 4.0, 8.0]


def test_per_level_blocks_by_hand():
    levels = compute_metrics(example_records())["per_level"]
    assert list(levels) == ["1", "2"]
    one, two = levels["1"], levels["2"]
    # level 1 = p1 + p2, 8 samples
    assert (one["problems"], one["samples"]) == (2, 8)
    assert one["valid"] == 5 / 8  # 3 + 2
    assert one["compiled"] == 6 / 8  # 3 + 3
    assert one["correct"] == 3 / 8  # 2 + 1
    assert one["naive_correct"] == 5 / 8  # 3 + 2
    assert one["robust_vs_naive_gap"] == 2 / 8
    assert (one["fast_0"], one["fast_1"], one["fast_2"]) == (3 / 8, 2 / 8, 1 / 8)  # 2.0, 0.5, 4.0
    assert one["pass_at_k"] == pytest.approx(
        {"1": 3 / 8, "2": 2 / 3, "3": 7 / 8, "4": 1.0}
    )  # (1/2+1/4)/2, (5/6+1/2)/2, (1+3/4)/2
    assert one["mean_speedup"] == pytest.approx(6.5 / 3)
    assert one["geomean_speedup"] == pytest.approx(4 ** (1 / 3))  # 2 * 0.5 * 4 = 4
    # level 2 = p3, 4 samples
    assert (two["problems"], two["samples"]) == (1, 4)
    assert (two["valid"], two["compiled"], two["correct"], two["naive_correct"]) == (1.0, 1.0, 3 / 4, 3 / 4)
    assert two["robust_vs_naive_gap"] == 0.0
    assert (two["fast_0"], two["fast_1"], two["fast_2"]) == (2 / 4, 1 / 4, 1 / 4)  # 1.0, 8.0
    assert two["pass_at_k"] == pytest.approx({"1": 3 / 4, "2": 1.0, "3": 1.0, "4": 1.0})
    assert two["mean_speedup"] == pytest.approx(4.5)  # (1 + 8) / 2
    assert two["geomean_speedup"] == pytest.approx(math.sqrt(8))


def test_fast_threshold_keys_follow_the_g_format():
    o = compute_metrics(example_records(), fast_thresholds=(1.5, 3, 10.0))["overall"]
    assert (o["fast_1.5"], o["fast_3"], o["fast_10"]) == (3 / 12, 2 / 12, 0.0)  # >1.5: 2,4,8; >3: 4,8; >10: none
    assert "fast_1" not in o


def test_record_order_does_not_matter():
    records = example_records()
    assert compute_metrics(list(reversed(records))) == compute_metrics(records)


# ---------------------------------------------------------------------------------------------- edge cases


def test_all_wrong():
    records = [rec(p, s, compiled=s % 2 == 0, reasons=["wrong_result"]) for p in ("a", "b") for s in range(3)]
    o = compute_metrics(records)["overall"]
    assert (o["valid"], o["compiled"], o["correct"], o["naive_correct"]) == (1.0, 4 / 6, 0.0, 0.0)
    assert (o["fast_0"], o["fast_1"], o["fast_2"]) == (0.0, 0.0, 0.0)
    assert o["pass_at_k"] == {"1": 0.0, "2": 0.0, "3": 0.0}
    assert o["mean_speedup"] is None and o["geomean_speedup"] is None


def test_one_sample_per_problem_gives_only_pass_at_1():
    records = [
        rec("a", 0, correct=True, speedup=3.0),
        rec("b", 0),
        rec("c", 0, correct=True, speedup=0.75),
        rec("d", 0),
    ]
    o = compute_metrics(records)["overall"]
    assert o["pass_at_k"] == {"1": 0.5}  # 2 of 4 problems solved by their only sample
    assert o["correct"] == 0.5


def test_pass_at_k_stops_at_the_smallest_sample_count():
    records = [rec("a", s, correct=s == 0) for s in range(2)] + [rec("b", s, correct=s < 2) for s in range(5)]
    o = compute_metrics(records)["overall"]
    # k <= 2 (problem a has 2 samples); a: n=2 c=1, b: n=5 c=2
    # k=1: (1/2 + 2/5) / 2 = 0.45; k=2: (1 + (1 - C(3,2)/C(5,2))) / 2 = (1 + 7/10) / 2 = 0.85
    assert o["pass_at_k"] == pytest.approx({"1": 0.45, "2": 0.85})


def test_no_speedups_on_cpu_gives_zero_fast_p_and_no_means():
    records = [rec("a", s, correct=True) for s in range(3)]  # all correct, none timed (CPU)
    m = compute_metrics(records)
    o = m["overall"]
    assert o["correct"] == 1.0
    assert (o["fast_0"], o["fast_1"], o["fast_2"]) == (0.0, 0.0, 0.0)
    assert o["mean_speedup"] is None and o["geomean_speedup"] is None
    assert m["speedups"] == []


def test_speedup_of_an_incorrect_sample_is_ignored():
    records = [rec("a", 0, correct=True, speedup=2.0), rec("a", 1, speedup=100.0, reasons=["wrong_result"])]
    m = compute_metrics(records)
    assert m["overall"]["fast_2"] == 0.0  # 2.0 is not > 2, and 100x from a wrong kernel does not count
    assert m["overall"]["mean_speedup"] == 2.0
    assert m["speedups"] == [2.0]


def test_sol_fraction_median_and_p90_per_level_over_correct_samples():
    m = compute_metrics(example_records() + [rec("p4", 0, sol=0.99, reasons=["wrong_result"])])  # incorrect: ignored
    one, two, overall = m["per_level"]["1"], m["per_level"]["2"], m["overall"]
    assert (one["median_sol_fraction"], one["p90_sol_fraction"]) == (0.4, 0.8)  # 0.1 0.4 0.8: rank ceil(2.7) = 3
    assert (two["median_sol_fraction"], two["p90_sol_fraction"]) == (pytest.approx(0.55), 0.9)  # 0.2 0.9
    assert (overall["median_sol_fraction"], overall["p90_sol_fraction"]) == (0.4, 0.9)  # 0.1 0.2 0.4 0.8 0.9
    cpu = compute_metrics([rec("a", 0, correct=True)])["overall"]
    assert cpu["median_sol_fraction"] is None and cpu["p90_sol_fraction"] is None


def test_a_verdicts_record_fields_come_from_one_place():
    timed = Verdict(ran=True, matches_reference=True, speedup=2.0, sol_fraction=0.5, device="cuda")
    assert verdict_record(timed) == {
        "valid": True,
        "compiled": True,
        "correct": True,
        "naive_correct": True,
        "speedup": 2.0,
        "sol_fraction": 0.5,
    }
    wrong = Verdict(ran=True, reasons=[Reason(ReasonCode.WRONG_RESULT, "")], speedup=2.0, sol_fraction=0.5)
    assert (verdict_record(wrong)["speedup"], verdict_record(wrong)["sol_fraction"]) == (None, None)
    record = {"problem": "p", "level": 1, "sample": 0, **verdict_record(timed)}
    assert compute_metrics([record])["overall"]["median_sol_fraction"] == 0.5  # a complete, valid record


def test_level_none_and_numeric_level_order():
    records = [rec("x", 0, level=None, correct=True), rec("a", 0, level=10), rec("b", 0, level=2), rec("c", 0, level=1)]
    m = compute_metrics(records)
    assert list(m["per_level"]) == ["1", "2", "10", "none"]
    assert m["per_level"]["none"]["correct"] == 1.0
    assert m["per_level"]["none"]["problems"] == 1
    assert m["overall"]["problems"] == 4


def test_no_records():
    m = compute_metrics([])
    o = m["overall"]
    assert (o["problems"], o["samples"]) == (0, 0)
    assert o["correct"] is None and o["fast_1"] is None and o["robust_vs_naive_gap"] is None
    assert o["pass_at_k"] == {}
    assert m["per_level"] == {} and m["speedups"] == []


def test_per_problem_rows():
    rows = per_problem_rows(example_records())
    assert rows == [
        # p1 reasons: traced_torch_compute 1, compile_error 1 -> tie, alphabetical first
        {
            "problem": "p1",
            "level": 1,
            "samples": 4,
            "correct": 2,
            "best_speedup": 2.0,
            "best_sol_fraction": 0.4,
            "top_reason": "compile_error",
        },
        # p2 reasons: wrong_result 2, syntax_error 1, no_kernel_launched 1
        {
            "problem": "p2",
            "level": 1,
            "samples": 4,
            "correct": 1,
            "best_speedup": 4.0,
            "best_sol_fraction": 0.8,
            "top_reason": "wrong_result",
        },
        {
            "problem": "p3",
            "level": 2,
            "samples": 4,
            "correct": 3,
            "best_speedup": 8.0,
            "best_sol_fraction": 0.9,
            "top_reason": "wrong_result",
        },
    ]
    assert per_problem_rows([rec("q", 0, level=None)]) == [
        {
            "problem": "q",
            "level": None,
            "samples": 1,
            "correct": 0,
            "best_speedup": None,
            "best_sol_fraction": None,
            "top_reason": None,
        }
    ]


# ---------------------------------------------------------------------------------------------- validation


def _with(index, **changes):
    records = example_records()
    records[index] = {**records[index], **changes}
    return records


@pytest.mark.parametrize(
    "records,pattern",
    [
        (_with(3, level="1"), r"record 3: field 'level' must be int \| None"),
        (_with(2, sample=True), r"record 2: field 'sample' must be int"),
        (_with(2, sample=1.0), r"record 2: field 'sample' must be int"),
        (_with(5, correct=1), r"record 5: field 'correct' must be bool"),
        (_with(0, naive_correct=None), r"record 0: field 'naive_correct' must be bool"),
        (_with(1, problem=7), r"record 1: field 'problem' must be str"),
        (_with(4, speedup="4x"), r"record 4: field 'speedup' must be int \| float \| None"),
        (_with(4, speedup=float("nan")), r"record 4: field 'speedup' must be a finite number > 0"),
        (_with(4, speedup=float("inf")), r"record 4: field 'speedup' must be a finite number > 0"),
        (_with(4, speedup=0.0), r"record 4: field 'speedup' must be a finite number > 0"),
        (_with(4, sol_fraction="50%"), r"record 4: field 'sol_fraction' must be int \| float \| None"),
        (_with(4, sol_fraction=float("nan")), r"record 4: field 'sol_fraction' must be a finite number > 0"),
        (_with(4, sol_fraction=-0.5), r"record 4: field 'sol_fraction' must be a finite number > 0"),
        (_with(4, valid=False), r"record 4: field 'correct' is true but valid=False"),
        (_with(4, reasons="wrong_result"), r"record 4: field 'reasons' must be a list"),
        (_with(5, sample=0), r"record 5: duplicate \(problem, sample, turn\) \('p2', 0, 1\), first seen at record 4"),
        (_with(6, level=3), r"record 6: field 'level' is 3 but problem 'p2' had level 1 at record 4"),
        (example_records() + ["not a record"], r"record 12: expected a dict"),
        (tuple(example_records()), r"records must be a list"),
    ],
)
def test_validation_names_field_and_record(records, pattern):
    with pytest.raises(ValueError, match=pattern):
        compute_metrics(records)


@pytest.mark.parametrize("field", list(M._FIELDS))
def test_missing_field_is_named(field):
    records = example_records()
    del records[7][field]
    with pytest.raises(ValueError, match=rf"record 7: missing field '{field}'"):
        compute_metrics(records)
    with pytest.raises(ValueError, match=rf"record 7: missing field '{field}'"):
        per_problem_rows(records)


@pytest.mark.parametrize("thresholds", [(-1.0,), (float("nan"),), ("1",), (1, 1.0), (True,)])
def test_bad_fast_thresholds(thresholds):
    with pytest.raises(ValueError, match="fast_thresholds"):
        compute_metrics(example_records(), fast_thresholds=thresholds)
