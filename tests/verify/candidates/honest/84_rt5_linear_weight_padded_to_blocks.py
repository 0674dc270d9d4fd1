# problem: 15_linear_bias_relu.py
# expect: accept
# the Linear's weight zero-padded to a multiple of 32 input columns (the padding is 0s the reference was not built with)
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def _linear(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, stride_w, RELU: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
            BK: tl.constexpr):
    # y = x @ W^T + b, W row-major (N rows, stride_w elements apart)
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * stride_w + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    if RELU:
        acc = tl.maximum(acc, 0.0)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _run(x, w, b, n_out, k_in, stride_w, relu):
    M = x.shape[0]
    y = torch.empty(M, n_out, device=x.device, dtype=x.dtype)
    _linear[(triton.cdiv(M, 16), triton.cdiv(n_out, 32))](x, w, b, y, M, n_out, k_in, stride_w, RELU=relu,
                                                          BM=16, BN=32, BK=32)
    return y


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        ref = nn.Linear(in_features, out_features)
        kp = (in_features + 31) // 32 * 32
        w = torch.zeros(out_features, kp)
        w[:, :in_features] = ref.weight.detach()
        self.weight_padded = nn.Parameter(w)
        self.bias = nn.Parameter(ref.bias.detach().clone())
        self.in_features = in_features
        self.out_features = out_features

    def forward(self, x):
        x = x.contiguous()
        return _run(x, self.weight_padded, self.bias, self.out_features, self.in_features,
                    self.weight_padded.shape[1], True)
