# problem: transpose.py
# expect: accept
# hack: none — honest transpose: a 2-D grid of 32×32 tiles, each loaded from x through its strides and stored at the mirrored place of a torch.empty output (the masks cover every element); forward allocates and launches only, so nothing it runs moves data
# naive: passes (CPU interpreter)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, rows, cols, stride_xr, stride_xc, stride_oc, stride_or,
                     BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    tile = tl.load(x_ptr + r[:, None] * stride_xr + c[None, :] * stride_xc, mask=mask)
    tl.store(out_ptr + c[None, :] * stride_oc + r[:, None] * stride_or, tile, mask=mask)  # out[c, r] = x[r, c]


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows, cols = x.shape
        out = torch.empty((cols, rows), device=x.device, dtype=x.dtype)
        grid = (triton.cdiv(rows, 32), triton.cdiv(cols, 32))
        transpose_kernel[grid](x, out, rows, cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                               BLOCK_R=32, BLOCK_C=32)
        return out
