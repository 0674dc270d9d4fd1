# problem: rt7_small_head.py
# expect: accept
# honest: a classifier head's weight and bias copied in __init__ into zero-padded 16 x 32 tiles, more than half of each
# padding (refused in every verdict while padding was capped at half a tensor)
# naive: passes
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def head_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, N, K, KP: tl.constexpr, NP: tl.constexpr, BLOCK_M: tl.constexpr):
    pid = tl.program_id(0)
    offs_m = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, KP)
    offs_n = tl.arange(0, NP)
    x = tl.load(x_ptr + offs_m[:, None] * K + offs_k[None, :],
                mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
    w = tl.load(w_ptr + offs_n[None, :] * KP + offs_k[:, None])   # padded: no mask needed
    acc = tl.dot(x, w, input_precision="ieee")
    acc += tl.load(b_ptr + offs_n)[None, :]
    tl.store(out_ptr + offs_m[:, None] * N + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _pad(n):
    return max(16, triton.next_power_of_2(n))


class ModelNew(nn.Module):
    def __init__(self, in_features: int, num_classes: int):
        super().__init__()
        fc = nn.Linear(in_features, num_classes)
        self.n, self.k = num_classes, in_features
        self.np_, self.kp = _pad(num_classes), _pad(in_features)
        w = torch.zeros(self.np_, self.kp)
        b = torch.zeros(self.np_)
        with torch.no_grad():
            w[:num_classes, :in_features].copy_(fc.weight)
            b[:num_classes].copy_(fc.bias)
        self.weight = nn.Parameter(w)
        self.bias = nn.Parameter(b)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        M = x.shape[0]
        out = torch.empty((M, self.n), device=x.device, dtype=x.dtype)
        head_kernel[(triton.cdiv(M, 32),)](x, self.weight, self.bias, out, M, self.n, self.k,
                                          KP=self.kp, NP=self.np_, BLOCK_M=32)
        return out
