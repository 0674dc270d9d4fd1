# problem: prelu.py
# expect: accept
# hack: none — honest PReLU whose slope is its own one-element parameter `negative_slope` (initialised to nn.PReLU's 0.25), not an nn.PReLU submodule: the verifier must load the reference's slope into it by what it was built with
# naive: passes
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _prelu_fwd(X, A, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    a = tl.load(A + tl.zeros_like(offs), mask=m)  # the slope broadcast over the block
    tl.store(Y + offs, tl.maximum(x, 0.0) + a * tl.minimum(x, 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self, init: float = 0.25):
        super().__init__()
        self.negative_slope = nn.Parameter(torch.full((1,), init))

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        _prelu_fwd[(triton.cdiv(n, 2048),)](x, self.negative_slope, y, n, BLOCK=2048)
        return y
