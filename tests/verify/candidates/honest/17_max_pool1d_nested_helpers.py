# problem: 17_max_pool1d.py
# expect: accept
# hack: none — honest max-pool; the launch sits two helper calls below forward (forward -> _pool -> _launch_pool), kernel_size is a constexpr so the window loop unrolls
# naive: passes (CPU interpreter and H200)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def pool_kernel(x_ptr, out_ptr, length, out_length, stride, KSIZE: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    pos = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = pos < out_length
    best = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    for j in tl.static_range(KSIZE):
        v = tl.load(x_ptr + row * length + pos * stride + j, mask=mask, other=float("-inf"))
        best = tl.maximum(best, v)
    tl.store(out_ptr + row * out_length + pos, best, mask=mask)


def _launch_pool(rows: torch.Tensor, out: torch.Tensor, kernel_size: int, stride: int) -> None:
    n_rows, length = rows.shape
    out_length = out.shape[1]
    pool_kernel[(n_rows, triton.cdiv(out_length, 64))](rows, out, length, out_length, stride,
                                                         KSIZE=kernel_size, BLOCK=64)


def _pool(x: torch.Tensor, kernel_size: int, stride: int) -> torch.Tensor:
    batch, channels, length = x.shape
    out_length = (length - kernel_size) // stride + 1
    out = torch.empty((batch * channels, out_length), device=x.device, dtype=x.dtype)
    _launch_pool(x.contiguous().view(batch * channels, length), out, kernel_size, stride)
    return out.view(batch, channels, out_length)


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _pool(x, self.kernel_size, self.stride)
