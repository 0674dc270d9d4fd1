# honest (problem 01_relu): KernelBook/inductor-style `call(args)` wrapper with literal block sizes, args.clear(), del, 1-tuple return
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def triton_poi_fused_relu_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + x0, xmask)
    tmp1 = tl.full([1], 0, tl.int32)
    tmp2 = tl.maximum(tmp1, tmp0)
    tl.store(out_ptr0 + x0, tmp2, xmask)


def call(args):
    arg0_1, = args
    args.clear()
    xnumel = arg0_1.numel()
    buf0 = torch.empty_strided(arg0_1.shape, arg0_1.stride(), device=arg0_1.device, dtype=torch.float32)
    triton_poi_fused_relu_0[(triton.cdiv(xnumel, 256),)](arg0_1, buf0, xnumel, XBLOCK=256, num_warps=4, num_stages=1)
    del arg0_1
    return buf0,


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, input_0):
        arg0_1 = input_0.contiguous()
        output = call([arg0_1])
        return output[0]


def get_inputs():
    return [torch.rand([16, 1024])]


def get_init_inputs():
    return [[], {}]
