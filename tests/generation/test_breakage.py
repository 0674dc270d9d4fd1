"""Breaking reference answers for refinement data: each kind edits what it names, and the verifier rejects the result."""

import ast
import difflib

import pytest

from tritonrl.generation.breakage import ALL_KINDS, KINDS, WRONG_PROBLEM, break_response
from tritonrl.problems.loaders import load_builtin
from tritonrl.verify.pool import ProblemBatch, VerifierPool
from tritonrl.verify.response import parse_response
from tritonrl.verify.result import ReasonCode
from tritonrl.verify.verifier import VerifierSettings

# What the verifier answers each kind with on CPU (a bad mask or grid reads or writes out of bounds, which the
# interpreter shows as wrong values, NaNs or a crashed child; Triton's reductions on a block have only axis 0).
OUT_OF_BOUNDS = {ReasonCode.WRONG_RESULT, ReasonCode.NON_FINITE, ReasonCode.CRASHED}
FAMILIES = {
    "off_by_one_mask": OUT_OF_BOUNDS,
    "missing_mask": OUT_OF_BOUNDS,
    "short_grid": {ReasonCode.WRONG_RESULT, ReasonCode.NON_FINITE, ReasonCode.NO_KERNEL_LAUNCHED},
    "wrong_axis": {ReasonCode.RUNTIME_ERROR, ReasonCode.COMPILE_ERROR},
    "torch_op_in_forward": {ReasonCode.FORBIDDEN_TORCH_OP, ReasonCode.TRACED_TORCH_COMPUTE},
    "syntax_slip": {ReasonCode.SYNTAX_ERROR},
    WRONG_PROBLEM: {ReasonCode.WRONG_RESULT},
}


@pytest.fixture(scope="module")
def suite():
    return {p.name: p for p in load_builtin()}


def _changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    """(old, new) for each changed line; an edit that joins lines shows as one pair of line groups."""
    old, new = parse_response(before).code.splitlines(), parse_response(after).code.splitlines()
    changes = [c for c in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes() if c[0] != "equal"]
    return [
        pair
        for _, i1, i2, j1, j2 in changes
        for pair in (
            zip(old[i1:i2], new[j1:j2]) if i2 - i1 == j2 - j1 else [("\n".join(old[i1:i2]), "\n".join(new[j1:j2]))]
        )
    ]


def test_every_kind_applies_to_the_suite_and_changes_only_the_code(suite):
    found = {name: break_response(p.reference_response, p.source) for name, p in suite.items()}
    assert {b.kind for breakages in found.values() for b in breakages} == set(KINDS)
    for name, breakages in found.items():
        reference = suite[name].reference_response
        assert len({b.response for b in breakages}) == len(breakages) and reference not in {
            b.response for b in breakages
        }
        for b in breakages:
            assert parse_response(b.response).plan == parse_response(reference).plan
            assert _changed_lines(reference, b.response)


def test_each_kind_makes_its_own_mistake(suite):
    mse = suite["18_mse_loss.py"]
    edits = {
        b.kind: _changed_lines(mse.reference_response, b.response)
        for b in break_response(mse.reference_response, mse.source)
    }
    assert set(edits) == set(KINDS)
    assert edits["off_by_one_mask"] == [("    mask = offsets < n_elements", "    mask = offsets <= n_elements")]
    assert len(edits["missing_mask"]) == 3  # every masked load of both kernels, nothing else
    assert all("tl.load" in new and "mask" not in new and "other" not in new for _, new in edits["missing_mask"])
    assert edits["short_grid"] == [
        ("        n_partials = triton.cdiv(n_elements, 1024)", "        n_partials = n_elements // 1024")
    ]
    assert edits["wrong_axis"][0][1].endswith("tl.sum(d * d, axis=1))")
    assert edits["torch_op_in_forward"] == [
        ("        return out", "        return torch.mean((predictions - targets) ** 2)")
    ]
    [(old, new)] = edits["syntax_slip"]
    assert old.rstrip().endswith(":") and new == old.rstrip()[:-1]
    broken = {b.kind: parse_response(b.response).code for b in break_response(mse.reference_response, mse.source)}
    for kind, code in broken.items():
        if kind != "syntax_slip":
            ast.parse(code)  # the other mistakes still parse: the verifier must find them
    with pytest.raises(SyntaxError):
        ast.parse(broken["syntax_slip"])


def test_kinds_without_their_construct_give_nothing(suite):
    layer_norm = suite["11_layer_norm.py"]  # no cdiv grid; its Model calls an nn module, which forward cannot name
    kinds = {b.kind for b in break_response(layer_norm.reference_response, layer_norm.source)}
    assert "short_grid" not in kinds and "torch_op_in_forward" not in kinds
    assert break_response("I cannot write this kernel.", layer_norm.source) == []
    assert break_response("```python\ndef broken(:\n```", layer_norm.source) == []
    with pytest.raises(ValueError, match="unknown breakage kinds"):
        break_response(layer_norm.reference_response, layer_norm.source, ["off_by_two"])


def test_wrong_problem_answers_with_the_most_similar_other_answer(suite):
    answers = {name: p.reference_response for name, p in suite.items()}
    row_max = suite["08_row_max.py"]
    others = {name: answer for name, answer in answers.items() if name != row_max.name}
    [confused] = break_response(row_max.reference_response, row_max.source, [WRONG_PROBLEM], others)
    assert confused.response == answers["06_row_sum.py"]  # a row max mixed up with its row sum, as small students do
    matmul = suite["13_matmul.py"]
    [confused] = break_response(
        matmul.reference_response,
        matmul.source,
        [WRONG_PROBLEM],
        {name: answers[name] for name in ("01_relu.py", "14_batched_matmul.py", "18_mse_loss.py")},
    )
    assert confused.response == answers["14_batched_matmul.py"]
    assert break_response(matmul.reference_response, matmul.source, [WRONG_PROBLEM]) == []  # no other answers
    assert (
        break_response(
            matmul.reference_response, matmul.source, [WRONG_PROBLEM], {"13_matmul.py": matmul.reference_response}
        )
        == []
    )
    every = break_response(row_max.reference_response, row_max.source, others=others)
    assert [b.kind for b in every] == [k for k in ALL_KINDS if k != "short_grid"]  # one program per row: no cdiv grid


@pytest.mark.slow
def test_the_verifier_rejects_every_kind_with_its_reason_family(suite):
    # Row sum's answer shows five kinds, and row mean's answer in its place the sixth; relu's its grid. Each of these
    # mistakes changes the outputs at any shape the verifier draws (an extra or missing element, an uncomputed tail, a
    # mean for a sum) or never runs, so the verdict cannot be lucky.
    chosen = {"06_row_sum.py": set(ALL_KINDS) - {"short_grid"}, "01_relu.py": {"short_grid"}}
    others = {"07_row_mean.py": suite["07_row_mean.py"].reference_response}
    breakages = {
        name: break_response(suite[name].reference_response, suite[name].source, sorted(kinds), others)
        for name, kinds in chosen.items()
    }
    assert {b.kind for found in breakages.values() for b in found} == set(ALL_KINDS)
    with VerifierPool(VerifierSettings(trials=1)) as pool:
        verdicts = pool.verify_batches(
            [ProblemBatch(name, suite[name].source, [b.response for b in found]) for name, found in breakages.items()]
        )
    for name, found in breakages.items():
        for breakage, verdict in zip(found, verdicts[name]):
            codes = {r.code for r in verdict.reasons}
            assert not verdict.correct and codes & FAMILIES[breakage.kind], (name, breakage.kind, verdict.reasons)
