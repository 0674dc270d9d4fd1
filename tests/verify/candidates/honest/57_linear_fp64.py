# problem: linear_fp64.py
# expect: accept
# hack: none — honest double-precision linear layer: x, W and b are read as fp64 and every product is accumulated in fp64 (an explicit multiply-accumulate over K, no fp32 copy anywhere), so the precision policy must find nothing narrowed
# naive: passes (CPU interpreter)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_fp64_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K,
                       stride_xm, stride_wn, stride_ym,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    m_ok = rm < M
    n_ok = rn < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float64)
    for k in range(0, K):
        x = tl.load(x_ptr + rm * stride_xm + k, mask=m_ok, other=0.0)  # fp64 column of x
        w = tl.load(w_ptr + rn * stride_wn + k, mask=n_ok, other=0.0)  # fp64 column of W^T
        acc += x[:, None] * w[None, :]
    acc += tl.load(b_ptr + rn, mask=n_ok, other=0.0)[None, :]
    tl.store(y_ptr + rm[:, None] * stride_ym + rn[None, :], acc, mask=m_ok[:, None] & n_ok[None, :])


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, dtype=torch.float64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        w = self.linear.weight.contiguous()
        M, K = x.shape
        N = w.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=torch.float64)
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))
        linear_fp64_kernel[grid](x, w, self.linear.bias, y, M, N, K, x.stride(0), w.stride(0), y.stride(0),
                                 BLOCK_M=16, BLOCK_N=32)
        return y
