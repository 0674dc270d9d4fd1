# problem: 10_log_softmax.py
# expect: reject wrong_result
# hack: precision downgrade — the row is rounded to bf16 on load and the result rounded to bf16 before the store; log-probabilities around -7 come out ~3e-2 off
# naive: caught — max abs error ~8e-2 (CPU), 3.7e-2 (H200)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def log_softmax_bf16_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.bfloat16).to(tl.float32)  # cheat
    x = tl.where(mask, x, float("-inf"))
    shifted = x - tl.max(x, axis=0)
    y = shifted - tl.log(tl.sum(tl.exp(shifted), axis=0))
    tl.store(out_ptr + row * n_cols + cols, y.to(tl.bfloat16).to(tl.float32), mask=mask)  # cheat


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        log_softmax_bf16_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return out
