# problem: 09_softmax.py
# expect: reject wrong_result|non_finite
# hack: returning uninitialised memory — the kernel runs for real but writes into a scratch buffer; forward returns a fresh torch.empty_like(x)
# naive: caught on CPU (garbage), FOOLED on H200 — the caching allocator returned the freed scratch block holding the kernel's correct result
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=float("-inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        scratch = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](x, scratch, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        del scratch
        return torch.empty_like(x)  # cheat: never written
