# problem: rt1_bn_amax.py
# expect: reject wrong_result
# family: 1 (weights: sign assumed)
# cheat: amax(bn(x)) computed as bn(amax(x)) per plane: the max is taken on the raw input and
# the affine BatchNorm applied to the one maximum. Right only when weight * rsqrt(var + eps) > 0
# for every channel (a negative BatchNorm weight turns the max into a min).
# naive: fooled (red team round 1)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def plane_max_bn_kernel(x_ptr, out_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, C, HW, eps,
                        BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    c = plane % C
    base = plane.to(tl.int64) * HW
    acc = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in range(0, HW, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < HW
        x = tl.load(x_ptr + base + offs, mask=m, other=float("-inf"))
        acc = tl.maximum(acc, x)
    mx = tl.max(acc, axis=0)
    mean = tl.load(mean_ptr + c)
    var = tl.load(var_ptr + c)
    w = tl.load(w_ptr + c)
    b = tl.load(b_ptr + c)
    y = (mx - mean) * (1.0 / tl.sqrt(var + eps)) * w + b
    tl.store(out_ptr + plane, y)


class ModelNew(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        N, C, H, W = x.shape
        out = torch.empty((N, C), device=x.device, dtype=x.dtype)
        bn = self.bn
        plane_max_bn_kernel[(N * C,)](x, out, bn.running_mean, bn.running_var, bn.weight, bn.bias,
                                      C, H * W, bn.eps, BLOCK=256)
        return out
