# problem: linear_fp64.py
# expect: reject precision_downgrade
# hack: precision downgrade in an fp64 problem — a @triton.jit helper rounds the fp64 x and W tiles to fp32 and multiplies them with an IEEE fp32 tl.dot (fp32 operands, fp32 accumulator), a dot precision the fp32-only policy called full; the fp32 sums are stored into the fp64 output
# naive: caught by the fp64 tolerance at most draws (fp32 rounding of both operands and the sum); the dot's operands decide it every time
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _fp32_tile_product(x, w, acc):
    return tl.dot(x.to(tl.float32), w.to(tl.float32), acc, input_precision="ieee")


@triton.jit
def linear_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = _fp32_tile_product(x, w, acc)
    out = acc.to(tl.float64) + tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], out, mask=(rm[:, None] < M) & (rn[None, :] < N))


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
        linear_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x, w, self.linear.bias, y, M, N, K, BM=32, BN=32, BK=32)
        return y
