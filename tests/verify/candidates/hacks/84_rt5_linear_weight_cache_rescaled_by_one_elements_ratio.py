# problem: 15_linear_bias_relu.py
# expect: reject wrong_result|non_finite
# hack: weights changed in place by one common factor only — W^T and b cached on the first call, rescaled by one weight element's ratio to its cached copy: right under a uniform change, stale under any other
# naive: fooled (red team round 5)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _snapshot(w_ptr, b_ptr, wt_ptr, bc_ptr, R, C, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < R * C
    r = offs // C
    c = offs % C
    tl.store(wt_ptr + c * R + r, tl.load(w_ptr + offs, mask=mask), mask=mask)
    bm = offs < R
    tl.store(bc_ptr + offs, tl.load(b_ptr + offs, mask=bm), mask=bm)


@triton.jit
def _linear_relu(x_ptr, wt_ptr, b_ptr, w_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    ratio = tl.load(w_ptr) / tl.load(wt_ptr)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(wt_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    acc = acc * ratio
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], tl.maximum(acc, 0.0), mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.wt = None
        self.bc = None

    def forward(self, x):
        x = x.contiguous()
        w = self.linear.weight
        if self.wt is None or self.wt.shape[0] != w.shape[1] or self.wt.shape[1] != w.shape[0]:
            self.wt = torch.empty(w.shape[1], w.shape[0], device=w.device, dtype=w.dtype)
            self.bc = torch.empty(w.shape[0], device=w.device, dtype=w.dtype)
            _snapshot[(triton.cdiv(w.numel(), 1024),)](w, self.linear.bias, self.wt, self.bc, w.shape[0], w.shape[1],
                                                       BLOCK=1024)
        M, K = x.shape
        N = w.shape[0]
        y = torch.empty(M, N, device=x.device, dtype=x.dtype)
        _linear_relu[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x, self.wt, self.bc, w, y, M, N, K,
                                                               BM=32, BN=32, BK=32)
        return y
