"""KernelBench evaluation metrics from per-sample verdict records.

The evaluate stage verifies every (problem, sample) candidate and turns each
Verdict (tritonrl/verify/result.py) into one flat record:

    {"problem": str, "level": int | None, "sample": int,
     "valid": bool, "compiled": bool, "correct": bool,
     "naive_correct": bool, "speedup": float | None, "sol_fraction": float | None}

`naive_correct` is what a naive harness (outputs match, no anti-hack layers)
would have accepted (Verdict.matches_reference); `speedup` and `sol_fraction`
(the share of the speed of light reached, tritonrl/verify/speed_of_light.py)
are measured on a GPU for correct samples only, and are None on CPU.
`verdict_record` builds the Verdict's part of a record, the one place every
producer takes it from. An optional "reasons" field (list of reason-code
strings) is used by `per_problem_rows` only.

Multi-turn refinement (tritonrl/stages/refine.py): an optional "turn" field
(default 1) numbers a sample's answers; a sample is one conversation. Its
final answer is its best so far (`final_answers`: correct beats incorrect,
then faster; a conversation without a correct answer ends with its last),
and every block and per-problem row counts final answers only. With more
than one turn, a "turns" block gives correct@t and fast_1@t (the share of
samples whose best answer within the first t turns is correct / correct and
faster than PyTorch) and how many conversations answered at turn t.

`compute_metrics` aggregates the records overall and per KernelBench level:
the share of valid / compiled / correct / naive-correct samples, the gap
between naive and robust correctness, fast_p, unbiased pass@k and mean /
geometric-mean speed-up, median and p90 sol_fraction. fast_p counts a sample only when it is correct AND
its measured speed-up exceeds p; a sample without a speed-up counts as not
fast. Speed-ups are only measured on a GPU, so on a CPU run every fast_p is 0
and the mean speed-ups are None: a speed-up nobody measured is never assumed
(the CPU interpreter's timings say nothing about GPU performance).
Everything is pure Python (math only), so it runs anywhere, including on the
GPU machine without the orchestration stack.

Test: `.venv/bin/python -m pytest tests/evaluation/test_metrics.py -q` (hand-counted
examples, pass@k against brute-force enumeration, edge cases, validation).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from fractions import Fraction
from typing import Any, Iterable

# Field name -> accepted types. bool is checked separately because it is a subclass of int.
_FIELDS: dict[str, tuple[type, ...]] = {
    "problem": (str,),
    "level": (int, type(None)),
    "sample": (int,),
    "valid": (bool,),
    "compiled": (bool,),
    "correct": (bool,),
    "naive_correct": (bool,),
    "speedup": (int, float, type(None)),
    "sol_fraction": (int, float, type(None)),
}
FIRST_TURN = 1  # the turn of a record without a "turn" field: a single-turn evaluation's only one
NO_LEVEL = "none"  # the per_level key of records without a level
_BOOL_FIELDS = ("valid", "compiled", "correct", "naive_correct")

# Up to this n, pass@k is computed with exact integer binomials and rounded once
# (bit-exact against enumeration); above it, the float product form is used
# (O(c) work, relative error ~ c * 1e-16, no huge integers).
_EXACT_MAX_N = 1000


def verdict_record(verdict) -> dict[str, Any]:
    """A record's fields that come from a tritonrl.verify.result.Verdict (the producer adds problem, level, sample, reasons).

    Timings count for correct samples only: an incorrect kernel's time says nothing about a solution.
    """
    return {
        "valid": verdict.valid,
        "compiled": verdict.compiled,
        "correct": verdict.correct,
        "naive_correct": verdict.matches_reference,
        "speedup": verdict.speedup if verdict.correct else None,
        "sol_fraction": verdict.sol_fraction if verdict.correct else None,
    }


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one problem with n samples of which c are correct (Chen et al. 2021).

    pass@k = 1 - C(n-c, k) / C(n, k): the chance that k samples drawn without
    replacement from the n contain at least one correct one.
    """
    for name, value in (("n", n), ("c", c), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"pass_at_k: {name} must be an int, got {value!r}")
    if n < 1 or not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass_at_k: need n >= 1, 0 <= c <= n and 1 <= k <= n; got n={n}, c={c}, k={k}")
    # Fewer than k wrong samples: every k-subset holds a correct one.
    if n - c < k:
        return 1.0
    if n <= _EXACT_MAX_N:
        # Exact rational, rounded once: matches enumeration over subsets bit for bit.
        total = math.comb(n, k)
        return float(Fraction(total - math.comb(n - c, k), total))
    # C(n-c, k) / C(n, k) = prod_{i=n-c+1}^{n} (1 - k/i): no factorials, every factor in (0, 1].
    miss = 1.0
    for i in range(n - c + 1, n + 1):
        miss *= 1.0 - k / i
    return 1.0 - miss


def compute_metrics(
    records: list[dict], fast_thresholds: Iterable[float] = (0.0, 1.0, 2.0), turns: int | None = None
) -> dict[str, Any]:
    """Aggregate per-sample records into {"overall": block, "per_level": {level: block}, "speedups": [...]}.

    Blocks count each sample's final answer (`final_answers`). `turns` is how many turns the evaluation allowed
    (None: the highest turn among the records); above 1 a "turns" block is added (`turn_metrics`).

    Level keys are str(level), or NO_LEVEL ("none") for records without a level; they are
    ordered numerically with NO_LEVEL last. Each block holds:
      problems, samples                      counts
      valid, compiled, correct, naive_correct  shares of samples (0..1)
      robust_vs_naive_gap                    naive_correct - correct
      fast_<p>                               share of all samples correct with speedup > p
      pass_at_k                              {"1": ..., ..., str(min samples per problem)}
      mean_speedup, geomean_speedup          over correct samples with a speedup; None if none
      median_sol_fraction, p90_sol_fraction  over correct samples with a sol_fraction (p90: nearest rank); None if none
    With no records at all, the overall block's shares and speed-ups are None and pass_at_k is {}.
    "speedups" lists every correct sample's speed-up (sorted), for the report's histogram.
    """
    everything = _validate(records)
    thresholds = _fast_keys(fast_thresholds)
    checked = final_answers(everything)

    by_level: dict[int | None, list[dict]] = {}
    for rec in checked:
        by_level.setdefault(rec["level"], []).append(rec)
    ordered = sorted(by_level, key=lambda lv: (lv is None, lv if lv is not None else 0))
    metrics = {
        "overall": _block(checked, thresholds),
        "per_level": {(NO_LEVEL if lv is None else str(lv)): _block(by_level[lv], thresholds) for lv in ordered},
        "speedups": sorted(_speedups(checked)),
    }
    highest = max((_turn(rec) for rec in everything), default=FIRST_TURN)
    turns = highest if turns is None else turns
    if turns < highest:
        raise ValueError(f"turns={turns}, but the records hold answers up to turn {highest}")
    if turns > FIRST_TURN:
        metrics["turns"] = turn_metrics(everything, turns)
    return metrics


def final_answers(records: list[dict]) -> list[dict]:
    """Each sample's best answer over its turns, in first-appearance order of the samples.

    Correct beats incorrect; among correct ones the faster (a speed-up not measured counts as none), ties
    keeping the earlier; among incorrect ones the later, where the conversation ended.
    """
    order: dict[tuple[str, int], int] = {}
    for rec in records:
        order.setdefault(_sample(rec), len(order))
    best: dict[tuple[str, int], dict] = {}
    for rec in sorted(records, key=_turn):
        if _sample(rec) not in best or _better(rec, best[_sample(rec)]):
            best[_sample(rec)] = rec
    return sorted(best.values(), key=lambda rec: order[_sample(rec)])


def turn_metrics(records: list[dict], turns: int) -> dict[str, dict[str, float | int | None]]:
    """{"correct", "fast_1", "answered"}, each {str(t): value} for t in 1..turns (best so far within t turns).

    correct and fast_1 are shares of all samples (conversations); answered counts the conversations that
    answered at turn t (the others had stopped, correct and fast enough).
    """
    checked = _validate(records)
    samples = len({_sample(r) for r in checked})
    out: dict[str, dict[str, float | int | None]] = {"correct": {}, "fast_1": {}, "answered": {}}
    for t in range(FIRST_TURN, turns + 1):
        best = final_answers([r for r in checked if _turn(r) <= t])
        out["correct"][str(t)] = sum(r["correct"] for r in best) / samples if samples else None
        out["fast_1"][str(t)] = sum(_fast(r, 1.0) for r in best) / samples if samples else None
        out["answered"][str(t)] = sum(_turn(r) == t for r in checked)
    return out


def _sample(rec: dict) -> tuple[str, int]:
    return rec["problem"], rec["sample"]


def _turn(rec: dict) -> int:
    return rec.get("turn", FIRST_TURN)


def _better(answer: dict, best: dict) -> bool:
    """Whether a later `answer` of a sample replaces its `best` so far."""
    if answer["correct"] != best["correct"]:
        return answer["correct"]
    if answer["correct"]:
        return (answer["speedup"] or 0.0) > (best["speedup"] or 0.0)
    return True


def _fast(rec: dict, p: float) -> bool:
    """KernelBench's fast_p for one sample: correct AND a measured speed-up above p."""
    return rec["correct"] and rec["speedup"] is not None and rec["speedup"] > p


def per_problem_rows(records: list[dict]) -> list[dict[str, Any]]:
    """One row per problem for report.write_report, in first-appearance order; each sample's final answer counts.

    Row: problem, level, samples, correct (count), best_speedup and
    best_sol_fraction (float | None, over correct samples), top_reason: the most frequent reason code over the problem's samples (from
    each record's optional "reasons" list; ties broken alphabetically so the
    report is deterministic), None when no sample carries a reason.
    """
    checked = final_answers(_validate(records))
    groups: dict[str, list[dict]] = {}
    for rec in checked:
        groups.setdefault(rec["problem"], []).append(rec)
    rows = []
    for problem, recs in groups.items():
        speedups = _speedups(recs)
        codes = Counter(code for rec in recs for code in rec.get("reasons") or ())
        top = min(codes.items(), key=lambda item: (-item[1], item[0]))[0] if codes else None
        rows.append(
            {
                "problem": problem,
                "level": recs[0]["level"],
                "samples": len(recs),
                "correct": sum(rec["correct"] for rec in recs),
                "best_speedup": max(speedups) if speedups else None,
                "best_sol_fraction": max(_sol_fractions(recs), default=None),
                "top_reason": top,
            }
        )
    return rows


def _fast_keys(fast_thresholds: Iterable[float]) -> list[tuple[str, float]]:
    """[(key, p)] with key "fast_{p:g}"; thresholds must be finite, >= 0 and give distinct keys."""
    out: list[tuple[str, float]] = []
    for p in fast_thresholds:
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p) or p < 0:
            raise ValueError(f"fast_thresholds: {p!r} is not a finite number >= 0")
        key = f"fast_{p:g}"
        if key in (k for k, _ in out):
            raise ValueError(f"fast_thresholds: {p!r} repeats key {key!r}")
        out.append((key, float(p)))
    return out


def _validate(records: list[dict]) -> list[dict]:
    """Check every record's fields and types, sample identity and consistency; return them unchanged."""
    if not isinstance(records, list):
        raise ValueError(f"records must be a list of dicts, got {type(records).__name__}")
    seen: dict[tuple[str, int, int], int] = {}
    level_of: dict[str, tuple[int | None, int]] = {}
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            raise ValueError(f"record {i}: expected a dict, got {type(rec).__name__}")
        for name, types in _FIELDS.items():
            if name not in rec:
                raise ValueError(f"record {i}: missing field {name!r}")
            value = rec[name]
            bool_ok = name in _BOOL_FIELDS
            if not isinstance(value, types) or (isinstance(value, bool) and not bool_ok):
                wanted = " | ".join("None" if t is type(None) else t.__name__ for t in types)
                raise ValueError(f"record {i}: field {name!r} must be {wanted}, got {value!r}")
        for name in ("speedup", "sol_fraction"):
            # Time ratios: anything but a finite positive number is a harness bug (and breaks the geomean).
            ratio = rec[name]
            if ratio is not None and not (math.isfinite(ratio) and ratio > 0):
                raise ValueError(f"record {i}: field {name!r} must be a finite number > 0 or None, got {ratio!r}")
        # Verdict.correct implies valid and compiled; a record that says otherwise was built wrongly.
        if rec["correct"] and not (rec["valid"] and rec["compiled"]):
            raise ValueError(
                f"record {i}: field 'correct' is true but valid={rec['valid']}, compiled={rec['compiled']}"
            )
        reasons = rec.get("reasons")
        if reasons is not None and not (isinstance(reasons, list) and all(isinstance(r, str) for r in reasons)):
            raise ValueError(f"record {i}: field 'reasons' must be a list of reason-code strings, got {reasons!r}")
        turn = _turn(rec)
        if isinstance(turn, bool) or not isinstance(turn, int) or turn < FIRST_TURN:
            raise ValueError(f"record {i}: field 'turn' must be an int >= {FIRST_TURN}, got {turn!r}")
        ident = (rec["problem"], rec["sample"], turn)
        if ident in seen:
            raise ValueError(
                f"record {i}: duplicate (problem, sample, turn) {ident!r}, first seen at record {seen[ident]}"
            )
        seen[ident] = i
        first = level_of.setdefault(rec["problem"], (rec["level"], i))
        # A problem belongs to one level; otherwise per-level problem counts would double-count it.
        if first[0] != rec["level"]:
            raise ValueError(
                f"record {i}: field 'level' is {rec['level']!r} but problem {rec['problem']!r} "
                f"had level {first[0]!r} at record {first[1]}"
            )
    return records


def _speedups(records: list[dict]) -> list[float]:
    """Speed-ups of correct samples only: an incorrect kernel's time says nothing about a solution."""
    return [float(r["speedup"]) for r in records if r["correct"] and r["speedup"] is not None]


def _sol_fractions(records: list[dict]) -> list[float]:
    """Shares of the speed of light reached by correct samples."""
    return [float(r["sol_fraction"]) for r in records if r["correct"] and r["sol_fraction"] is not None]


def _quantile(values: list[float], q: float) -> float | None:
    """Nearest-rank quantile: the smallest value with at least a share q of the values at or below it."""
    ordered = sorted(values)
    return ordered[max(math.ceil(q * len(ordered)) - 1, 0)] if ordered else None


def _block(records: list[dict], thresholds: list[tuple[str, float]]) -> dict[str, Any]:
    n = len(records)
    per_problem: dict[str, list[dict]] = {}
    for rec in records:
        per_problem.setdefault(rec["problem"], []).append(rec)

    def share(count: int) -> float | None:
        # Share of samples, not of problems: every sample is one draw from the model.
        return count / n if n else None

    correct = sum(r["correct"] for r in records)
    naive = sum(r["naive_correct"] for r in records)
    block: dict[str, Any] = {
        "problems": len(per_problem),
        "samples": n,
        "valid": share(sum(r["valid"] for r in records)),
        "compiled": share(sum(r["compiled"] for r in records)),
        "correct": share(correct),
        "naive_correct": share(naive),
        # Samples a harness without anti-hack layers would have been fooled into accepting.
        "robust_vs_naive_gap": share(naive - correct),
    }
    for key, p in thresholds:
        # KernelBench fast_p: correct AND speedup > p, over ALL samples. No speed-up (CPU run) counts as
        # not fast, so fast_p is 0 on CPU: a speed-up that was not measured must not be reported.
        block[key] = share(sum(_fast(r, p) for r in records))

    # pass@k only for k every problem can supply (k <= its sample count); averaged so each problem weighs the same.
    k_max = min((len(recs) for recs in per_problem.values()), default=0)
    block["pass_at_k"] = {
        str(k): sum(pass_at_k(len(recs), sum(r["correct"] for r in recs), k) for recs in per_problem.values())
        / len(per_problem)
        for k in range(1, k_max + 1)
    }

    speedups = _speedups(records)
    # Arithmetic mean: the headline KernelBench number; dominated by a few large speed-ups.
    block["mean_speedup"] = sum(speedups) / len(speedups) if speedups else None
    # Geometric mean: the right average of ratios (a 2x and a 0.5x cancel); via logs, no overflow.
    block["geomean_speedup"] = math.exp(sum(math.log(s) for s in speedups) / len(speedups)) if speedups else None
    # Against the GPU's limits, not the eager reference: comparable across problems whose baselines differ.
    fractions = _sol_fractions(records)
    block["median_sol_fraction"] = statistics.median(fractions) if fractions else None
    block["p90_sol_fraction"] = _quantile(fractions, 0.9)
    return block
