"""Every built-in reference answer is correct, at the suite's shapes and at a second shape.

Runs the kernels for real: in Triton's CPU interpreter here, natively on a GPU.
"""

import ast

import pytest

from tritonrl.problems.loaders import load_builtin
from tritonrl.problems.shapes import with_shapes
from tritonrl.verify.response import parse_response
from tritonrl.verify.runtime import check_correctness

PROBLEMS = load_builtin()


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.name)
def test_reference_response_is_a_plan_then_one_python_block_with_triton(problem):
    parsed = parse_response(problem.reference_response)
    assert len(parsed.plan.split()) >= 15, "the plan should explain the kernel design"
    assert problem.reference_response.count("```python") == 1
    tree = ast.parse(parsed.code)
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    assert "ModelNew" in classes and "Model" not in classes
    jitted = [
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in n.decorator_list)
    ]
    assert jitted, "a reference answer launches at least one @triton.jit kernel"


@pytest.mark.parametrize("shape_set", ["suite", "alt"])
@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.name)
def test_reference_solution_is_correct(problem, shape_set):
    source = problem.source if shape_set == "suite" else with_shapes(problem.source, problem.alt_shapes)
    code = parse_response(problem.reference_response).code
    result = check_correctness(source, code, trials=2)
    assert result.correct, result.message
