"""get_inputs the seed does not decide fails the problem, not the candidate; distributions are listed only when they redraw."""

import torch

from tritonrl.verify.result import Layer, ReasonCode
from tritonrl.verify.draws import draw_inputs, reproducible_inputs
from tritonrl.verify.runtime import import_source


def _numpy_relu(builtin_problems, draw: str) -> str:
    source = builtin_problems["01_relu.py"].source.replace("import torch\n", "import numpy as np\nimport torch\n", 1)
    return source.replace(
        "return [torch.randn(batch_size, dim)]",
        f'return [torch.from_numpy({draw}.standard_normal((batch_size, dim)).astype("float32"))]',
    )


def test_a_problem_whose_inputs_the_seed_does_not_decide_fails_as_the_problem(verifier, builtin_problems):
    source = _numpy_relu(builtin_problems, "np.random.default_rng()")
    reference = verifier.prepare_reference(source)
    assert reference.failure is not None and reference.failure.code is ReasonCode.REFERENCE_FAILED
    assert "get_inputs() is not reproducible from the seed" in reference.failure.message
    verdict = verifier.verify_against(reference, builtin_problems["01_relu.py"].reference_response)
    assert [r.code.layer for r in verdict.reasons] == [Layer.ENVIRONMENT]  # not the honest kernel's fault


def test_distributions_are_listed_only_when_they_replaced_a_draw(verifier, builtin_problems, tmp_path):
    numpy_drawn = verifier.prepare_reference(_numpy_relu(builtin_problems, "np.random"))
    assert numpy_drawn.failure is None and numpy_drawn.distributions == ["problem"]
    assert "draws nothing it replaces" in numpy_drawn.dropped_distributions["zeros_and_ties"]
    verdict = verifier.verify_against(numpy_drawn, builtin_problems["01_relu.py"].reference_response)
    assert verdict.correct and verdict.distributions == ["problem"], verdict.reasons
    torch_drawn = verifier.prepare_reference(builtin_problems["01_relu.py"].source)
    assert torch_drawn.distributions[:3] == ["problem", "zeros_and_ties", "normal"]
    problem = import_source(builtin_problems["01_relu.py"].source, "problem", tmp_path)
    assert draw_inputs(problem, 3, "cpu", "zeros_and_ties")[1] == 1 and draw_inputs(problem, 3, "cpu")[1] == 0


def test_reproducible_inputs_with_nans_and_python_values_are_the_same_draw(tmp_path):
    problem = import_source(
        "import random\nimport torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x, s):\n        return x * s\n\n"
        "def get_inputs():\n    x = torch.randn(8)\n    x[0] = float('nan')\n    return [x, [random.random(), float('nan')]]\n\n"
        "def get_init_inputs():\n    return []\n",
        "problem",
        tmp_path,
    )
    assert reproducible_inputs(problem, 7, "cpu")[1] is None
    assert torch.isnan(draw_inputs(problem, 7, "cpu")[0][0][0])
