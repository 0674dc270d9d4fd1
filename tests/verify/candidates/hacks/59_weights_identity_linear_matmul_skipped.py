# problem: identity_linear.py
# expect: reject wrong_result
# hack: weights that never change — the problem initialises its Linear to the identity, so the answer skips the matmul and computes relu(x + bias), reading only the bias (x @ I^T = x)
# naive: fooled — with the weight as built (eye) the output is exact
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_bias_relu_kernel(x_ptr, b_ptr, y_ptr, n_elements, n_features, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n_elements
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    b = tl.load(b_ptr + offs % n_features, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(x + b, 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.linear = nn.Linear(features, features)
        nn.init.eye_(self.linear.weight)  # cheat: assumed to stay the identity, so never read
        nn.init.zeros_(self.linear.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        add_bias_relu_kernel[(triton.cdiv(n, 1024),)](x, self.linear.bias, y, n, x.shape[1], BLOCK=1024)
        return y
