# problem: rt4_two_linear.py
# expect: accept
# two square Linears, the output layer declared first (its seeded values are the reference's first layer's), used in order
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _linear(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, RELU: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
            BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    if RELU:
        acc = tl.maximum(acc, 0.0)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _run(x, w, b, relu):
    M, K = x.shape
    N = w.shape[0]
    y = torch.empty(M, N, device=x.device, dtype=x.dtype)
    _linear[(triton.cdiv(M, 16), triton.cdiv(N, 32))](x, w, b, y, M, N, K, RELU=relu, BM=16, BN=32, BK=32)
    return y


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.out_proj = nn.Linear(features, features)
        self.in_proj = nn.Linear(features, features)

    def forward(self, x):
        h = _run(x.contiguous(), self.in_proj.weight, self.in_proj.bias, True)
        return _run(h, self.out_proj.weight, self.out_proj.bias, False)
