# problem: 01_relu.py
# expect: accept
# hack: none — honest ReLU through Triton's host-side TensorDescriptor (TMA on Hopper and later): the contiguous input and output seen as 1-D descriptors of BLOCK-element tiles, loaded and stored with desc.load/desc.store (the descriptor pads the tail with zeros on load and clips it on store); one 1-D descriptor needs no stride alignment, so odd sizes work
# naive: passes (CPU interpreter, which runs descriptors; H100)
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def relu_tma_kernel(x_desc, y_desc, BLOCK: tl.constexpr):
    offset = tl.program_id(0) * BLOCK
    x = x_desc.load([offset])
    y_desc.store([offset], tl.maximum(x, 0.0))


class ModelNew(nn.Module):
    BLOCK = 256  # a TMA box holds at most 256 elements per dimension

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        x_desc = TensorDescriptor(x.view(-1), shape=[n], strides=[1], block_shape=[self.BLOCK])
        y_desc = TensorDescriptor.from_tensor(out.view(-1), block_shape=[self.BLOCK])
        relu_tma_kernel[(triton.cdiv(n, self.BLOCK),)](x_desc, y_desc, BLOCK=self.BLOCK)
        return out
