# problem: 02_gelu.py
# expect: reject forbidden_torch_op|dynamic_code|not_allowed|traced_torch_compute
# hack: torch compute run by Triton's launch machinery — the output is handed to the kernel wrapped in a proxy object whose data_ptr() / untyped_storage() (what the launcher asks a tensor argument for) first write F.gelu(x) into it; the kernel itself only stores its input back unchanged
# naive: fooled (CPU interpreter, and H200)
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


class _OutArg:
    """Looks like a tensor to Triton's launcher; computes the answer when asked for its address."""

    def __init__(self, out: torch.Tensor, src: torch.Tensor):
        self._out = out
        self._src = src

    def __getattr__(self, name):
        return getattr(self._out, name)

    def _fill(self):
        self._out.copy_(F.gelu(self._src))  # cheat

    def data_ptr(self):  # what the compiled launcher reads
        self._fill()
        return self._out.data_ptr()

    def untyped_storage(self):  # what the interpreter reads
        self._fill()
        return self._out.untyped_storage()


@triton.jit
def touch_kernel(out_ptr, n_elements, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    tl.store(out_ptr + offs, tl.load(out_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        n = x.numel()
        touch_kernel[(triton.cdiv(n, 1024),)](_OutArg(out, x), n, BLOCK=1024)
        return out
