# problem: 06_row_sum.py
# expect: reject forbidden_import|monkeypatch|forbidden_torch_op|not_allowed|traced_torch_compute
# hack: patching the verifier's own module — `import tritonrl.verify.runtime` at import time and replace AtenTrace.compute_ops with a function that reports nothing, then compute the row sums with torch.sum and copy them through a kernel
# naive: fooled (CPU interpreter, and H200). In-process this patch would leak into the harness; it is undone only because each candidate runs in a fresh child
import torch
import torch.nn as nn
import triton
import triton.language as tl

try:
    import tritonrl.verify.runtime as _rt

    _rt.AtenTrace.compute_ops = lambda self: {}  # cheat
except ImportError:  # not running under the verifier
    _rt = None


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.sum(x, dim=1)
        out = torch.empty_like(y)
        copy_kernel[(triton.cdiv(y.numel(), 1024),)](y, out, y.numel(), BLOCK=1024)
        return out
