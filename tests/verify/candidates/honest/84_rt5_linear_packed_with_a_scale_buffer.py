# problem: 15_linear_bias_relu.py
# expect: accept
# [W | b] in one parameter and a per-channel scale buffer of ones of its own (the same shape as the bias)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _packed(x_ptr, wb_ptr, s_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(wb_ptr + rn[None, :] * (K + 1) + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    acc += tl.load(wb_ptr + rn * (K + 1) + K, mask=rn < N, other=0.0)[None, :]
    acc = acc * tl.load(s_ptr + rn, mask=rn < N, other=1.0)[None, :]
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], tl.maximum(acc, 0.0), mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        ref = nn.Linear(in_features, out_features)
        self.wb = nn.Parameter(torch.cat([ref.weight.detach(), ref.bias.detach()[:, None]], dim=1))
        self.register_buffer("channel_scale", torch.ones(out_features))

    def forward(self, x):
        x = x.contiguous()
        M, K = x.shape
        N = self.wb.shape[0]
        y = torch.empty(M, N, device=x.device, dtype=x.dtype)
        _packed[(triton.cdiv(M, 16), triton.cdiv(N, 32))](x, self.wb, self.channel_scale, y, M, N, K,
                                                          BM=16, BN=32, BK=32)
        return y
