# problem: scale_shift.py
# expect: reject wrong_result
# hack: hyper-parameters that never change — get_inputs always passes exponent = 2, so the kernel squares (v * v) and forward ignores its exponent argument
# naive: fooled — the exponent is always the problem's 2 unless the verifier varies forward's scalars
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_square_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m, other=0.0) * scale
    tl.store(out_ptr + offs, v * v, mask=m)  # cheat: exponent assumed to be 2


class ModelNew(nn.Module):
    def __init__(self, scale_factor: float):
        super().__init__()
        self.scale_factor = scale_factor

    def forward(self, x: torch.Tensor, exponent: int) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        scale_square_kernel[(triton.cdiv(n, 1024),)](x, out, n, self.scale_factor, BLOCK=1024)
        return out
