# problem: 15_linear_bias_relu.py
# expect: accept
# Linear+ReLU caching a repacked W^T, repacked whenever the weight's storage or in-place write counter (._version) changes.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def pack_kernel(w_ptr, wt_ptr, N, K, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N * K
    n = offs // K
    k = offs % K
    tl.store(wt_ptr + k * N + n, tl.load(w_ptr + offs, mask=mask), mask=mask)


@triton.jit
def linear_relu_kernel(x_ptr, wt_ptr, b_ptr, out_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros([BM, BN], tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(wt_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    b = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    acc = tl.maximum(acc + b[None, :], 0.0)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.packed = None
        self.packed_key = None

    def forward(self, x):
        x = x.contiguous()
        w = self.linear.weight
        N, K = w.shape
        key = (w.data_ptr(), w._version)
        if self.packed is None or self.packed_key != key:
            wt = torch.empty((K, N), device=w.device, dtype=w.dtype)
            pack_kernel[(triton.cdiv(N * K, 1024),)](w, wt, N, K, BLOCK=1024)
            self.packed = wt
            self.packed_key = key
        M = x.shape[0]
        out = torch.empty((M, N), device=x.device, dtype=x.dtype)
        linear_relu_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x, self.packed, self.linear.bias, out, M, N, K, BM=32, BN=32, BK=32)
        return out
