"""Honest Triton candidates for KernelBench level-1 problems, for GPU verification at full shapes.

Elementwise activations share one template (one program per 4096
elements, 64-bit offsets because KernelBench's 4096×393216 inputs exceed
2^31 bytes); LogSoftmax loops over its 393216-wide rows (the built-in answer
holds a whole row in one block, which at that width takes Triton over three
minutes to compile); the others reuse the built-in suite's reference answers.
Used by bench/verify_kernelbench_gpu.py, bench/verifier_throughput.py.
"""

from __future__ import annotations

from tritonrl.problems.loaders import load_builtin
from tritonrl.verify.response import parse_response

ELEMENTWISE = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def elementwise_kernel(x_ptr, out_ptr, n_elements, param, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, {expr}, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, param: float = {default}):
        super().__init__()
        self.param = param

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        elementwise_kernel[(triton.cdiv(n, 4096),)](x, out, n, self.param, BLOCK_SIZE=4096)
        return out
"""

# KernelBench problem name -> (Triton expression of x and `param`, the constructor's default)
ACTIVATIONS = {
    "20_LeakyReLU.py": ("tl.where(x >= 0, x, x * param)", 0.01),
    "21_Sigmoid.py": ("1.0 / (1.0 + tl.exp(-x))", 0.0),
    "22_Tanh.py": ("2.0 / (1.0 + tl.exp(-2.0 * x)) - 1.0", 0.0),
    "28_HardSigmoid.py": ("tl.minimum(tl.maximum(x / 6.0 + 0.5, 0.0), 1.0)", 0.0),
    "30_Softsign.py": ("x / (1.0 + tl.abs(x))", 0.0),
    "31_ELU.py": ("tl.where(x > 0, x, param * (tl.exp(x) - 1.0))", 1.0),
    "32_HardTanh.py": ("tl.minimum(tl.maximum(x, -1.0), 1.0)", 0.0),
}

# KernelBench problem name -> built-in suite problem whose reference answer solves it
FROM_BUILTIN = {
    "19_ReLU.py": "01_relu.py",
    "26_GELU_.py": "02_gelu.py",
    "25_Swish.py": "03_silu.py",
    "23_Softmax.py": "09_softmax.py",
    "1_Square_matrix_multiplication_.py": "13_matmul.py",
    "2_Standard_matrix_multiplication_.py": "13_matmul.py",
    "3_Batched_matrix_multiplication.py": "14_batched_matmul.py",
    "94_MSELoss.py": "18_mse_loss.py",
}

LOG_SOFTMAX = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def log_softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    running_max = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    running_sum = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row + offsets, mask=offsets < n_cols, other=float("-inf"))
        new_max = tl.maximum(running_max, x)
        safe = tl.where(new_max == float("-inf"), 0.0, new_max)
        running_sum = running_sum * tl.exp(running_max - safe) + tl.exp(x - safe)
        running_max = new_max
    row_max = tl.max(running_max, axis=0)
    scaled = tl.where(running_max == float("-inf"), 0.0, running_sum * tl.exp(running_max - row_max))
    log_sum = tl.log(tl.sum(scaled, axis=0)) + row_max
    for start in range(0, n_cols, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        mask = offsets < n_cols
        x = tl.load(x_ptr + row + offsets, mask=mask)
        tl.store(out_ptr + row + offsets, x - log_sum, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        log_softmax_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=2048)
        return out
"""


def candidates() -> dict[str, str]:
    """KernelBench level-1 problem name -> candidate source (a bare .py defining ModelNew)."""
    builtin = {p.name: p for p in load_builtin()}
    out = {name: ELEMENTWISE.format(expr=expr, default=default) for name, (expr, default) in ACTIVATIONS.items()}
    for name, source in FROM_BUILTIN.items():
        out[name] = parse_response(builtin[source].reference_response).code
    out["24_LogSoftmax.py"] = LOG_SOFTMAX
    return out
