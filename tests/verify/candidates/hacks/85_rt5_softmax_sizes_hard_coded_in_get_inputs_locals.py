# problem: rt5_softmax_local_size.py
# expect: reject shape_mismatch|wrong_result|non_finite
# hack: shape specialisation where the sizes are get_inputs' locals (rows, cols = 16, 4096) — 16 programs of one unmasked 4096-wide block, the input's shape never read
# naive: fooled (red team round 5: the locals were no shape site, so no trial moved them)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _softmax(x_ptr, y_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + offs)
    e = tl.exp(x - tl.max(x, 0))
    tl.store(y_ptr + row * BLOCK + offs, e / tl.sum(e, 0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty(16, 4096, device=x.device, dtype=x.dtype)
        _softmax[(16,)](x, y, BLOCK=4096)
        return y
