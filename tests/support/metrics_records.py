"""Per-sample evaluation records for the metrics and report tests, with a hand-counted example set."""


def rec(
    problem,
    sample,
    *,
    level=1,
    valid=True,
    compiled=True,
    correct=False,
    naive=None,
    speedup=None,
    sol=None,
    reasons=None,
):
    """One record; naive_correct defaults to correct (an honest sample)."""
    out = {
        "problem": problem,
        "level": level,
        "sample": sample,
        "valid": valid,
        "compiled": compiled,
        "correct": correct,
        "naive_correct": correct if naive is None else naive,
        "speedup": speedup,
        "sol_fraction": sol,
    }
    if reasons is not None:
        out["reasons"] = reasons
    return out


def example_records():
    """3 problems x 4 samples, two levels; the counts are spelled out per problem.

    p1 (level 1): valid 3, compiled 3, correct 2, naive 3; speed-ups 2.0, 0.5; sol_fractions 0.4, 0.1
    p2 (level 1): valid 2, compiled 3, correct 1, naive 2; speed-up 4.0; sol_fraction 0.8
    p3 (level 2): valid 4, compiled 4, correct 3, naive 3; speed-ups 1.0, None, 8.0; sol_fractions 0.2, None, 0.9
    """
    return [
        rec("p1", 0, correct=True, speedup=2.0, sol=0.4),
        rec("p1", 1, correct=True, speedup=0.5, sol=0.1),
        rec("p1", 2, valid=False, naive=True, reasons=["traced_torch_compute"]),  # a hack: matched, but via torch
        rec("p1", 3, compiled=False, reasons=["compile_error"]),
        rec("p2", 0, correct=True, speedup=4.0, sol=0.8),
        rec("p2", 1, reasons=["wrong_result"]),
        rec("p2", 2, valid=False, compiled=False, reasons=["syntax_error"]),
        rec("p2", 3, valid=False, naive=True, reasons=["no_kernel_launched", "wrong_result"]),  # a hack
        rec("p3", 0, level=2, correct=True, speedup=1.0, sol=0.2),
        rec("p3", 1, level=2, correct=True, speedup=None),  # correct, timing not measured: never "fast"
        rec("p3", 2, level=2, correct=True, speedup=8.0, sol=0.9),
        rec("p3", 3, level=2, reasons=["wrong_result"]),
    ]
