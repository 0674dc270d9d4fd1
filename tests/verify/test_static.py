"""Tests for the static (AST) layer: honest solutions pass, each reward hack is named by its code.

Every candidate is built from one template (a copy kernel and a ModelNew) with
one construct changed, so each case shows exactly the construct it is about.
"""

from __future__ import annotations

import ast
import copy
import random
import textwrap
from pathlib import Path

import pytest

from tritonrl.problems.loaders import load_builtin
from tritonrl.verify.response import parse_response
from tritonrl.verify.result import Layer, Reason, ReasonCode
from tritonrl.verify import device_paths
from tritonrl.verify.static import check_static

IMPORTS = "import torch\nimport torch.nn as nn\nimport triton\nimport triton.language as tl\n"
KERNEL = """
@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
"""
LAUNCH = "out = torch.empty_like(x)\ncopy_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)\n"


def make(
    forward: str = LAUNCH + "return out",
    init: str = "",
    top: str = "",
    imports: str = "",
    bases: str = "nn.Module",
    kernel: str = KERNEL,
) -> str:
    """A candidate: imports, one kernel, optional module-level code, and ModelNew."""
    init_body = textwrap.indent(textwrap.dedent(init), " " * 8) if init else ""
    return (
        f"{IMPORTS}{textwrap.dedent(imports)}{kernel}\n{textwrap.dedent(top)}\n"
        f"class ModelNew({bases}):\n    def __init__(self):\n        super().__init__()\n{init_body}\n"
        f"    def forward(self, x, w=None):\n{textwrap.indent(textwrap.dedent(forward), ' ' * 8)}\n"
    )


def codes(source: str) -> set[ReasonCode]:
    return {reason.code for reason in check_static(source)}


# ------------------------------------------------------------------ honest code
def test_every_builtin_reference_solution_passes():
    problems = load_builtin()
    assert problems
    for problem in problems:
        code = parse_response(problem.reference_response).code
        assert check_static(code) == [], problem.name


HONEST = {
    "linear_params_read": make(
        init="self.linear = nn.Linear(4, 4)",
        forward=LAUNCH
        + "w = self.linear.weight.contiguous()\nb = self.linear.bias\nn = w.shape[0] * w.shape[1]\nreturn out",
    ),
    "conv2d_params_read": make(
        init="self.conv = nn.Conv2d(3, 8, 3, padding=1)",
        forward=LAUNCH + "s, p = self.conv.stride[0], self.conv.padding[0]\nk = self.conv.weight.shape[-1]\n"
        "oh = (x.shape[2] + 2 * p - k) // s + 1\nbias = self.conv.bias\nreturn out",
    ),
    "views_and_integer_sizes": make(
        forward="""\
        x = x.contiguous().view(x.shape[0], -1)
        n = x.shape[0] * x.shape[1]
        B = x.size(0)
        half = x.numel() // 2 + 1
        grid = (triton.cdiv(n, 1024) * 1,)
        out = torch.empty((n,), device=x.device, dtype=x.dtype)
        if x.dim() > 1 and n > 0:
            pass
        copy_kernel[grid](x, out, n, BLOCK=triton.next_power_of_2(1024))
        return out.reshape(B, -1).unsqueeze(0).squeeze(0).permute(0, 1).transpose(0, 1).t().contiguous()""",
    ),
    "from_triton_import_jit": make(kernel=KERNEL.replace("@triton.jit", "@jit"), imports="from triton import jit\n"),
    "triton_alias": make(kernel=KERNEL.replace("@triton.jit", "@tr.jit"), imports="import triton as tr\n"),
    "helper_function_launches": make(
        top=f"def launch(x):\n{textwrap.indent(LAUNCH, '    ')}    return out\n",
        forward="return launch(x.contiguous())",
    ),
    "method_helper_launches": make(forward="return self._run(x)").replace(
        "    def forward",
        f"    def _run(self, x):\n{textwrap.indent(LAUNCH, ' ' * 8)}        return out\n\n    def forward",
    ),
    "autotune_then_jit": make(
        kernel=KERNEL.replace(
            "@triton.jit",
            "@triton.autotune(configs=[triton.Config({'BLOCK': 128}, num_warps=4)], key=['n'])\n@triton.jit",
        ),
        forward="out = torch.empty_like(x)\nn = x.numel()\ngrid = lambda meta: (triton.cdiv(n, meta['BLOCK']),)\n"
        "copy_kernel[grid](x, out, n)\nreturn out",
    ),
    "parameters_made_with_randn_in_init": make(
        init="self.weight = nn.Parameter(torch.randn(4))\nself.register_buffer('scale', torch.ones(4))\nself.eps = 1e-5",
        forward=LAUNCH + "copy_kernel[(1,)](self.weight, self.scale, self.weight.numel(), BLOCK=4)\nreturn out",
    ),
    "glue_calls": make(
        forward="""\
        with torch.no_grad():
            x = x.float().contiguous()
            lo = torch.finfo(x.dtype).min
            parts = torch.cat([x, x.clone()]).chunk(2)
            out = torch.zeros_like(x).fill_(0).zero_()
            copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        assert x.dtype == torch.float32 and out.shape == x.shape
        return out.to(x.dtype)""",
    ),
    "local_submodule_with_triton_forward": make(
        top="class Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.weight = nn.Parameter(torch.randn(4))\n\n"
        f"    def forward(self, x):\n{textwrap.indent(LAUNCH, ' ' * 8)}        return out\n",
        init="self.blocks = nn.ModuleList([Block() for _ in range(2)])",
        forward="for block in self.blocks:\n    x = block(x)\nreturn x",
    ),
    "kernel_stored_on_self": make(
        init="self.kernel = copy_kernel",
        forward="out = torch.empty_like(x)\nself.kernel[(1,)](x, out, x.numel(), BLOCK=1024)\nreturn out",
    ),
    "kernel_passed_to_launcher": make(
        top="def run(kernel, x):\n    out = torch.empty_like(x)\n    kernel[(1,)](x, out, x.numel(), BLOCK=1024)\n    return out\n",
        forward="return run(copy_kernel, x)",
    ),
    "autograd_function_wrapper": make(
        top="class CopyFn(torch.autograd.Function):\n    @staticmethod\n"
        f"    def forward(ctx, x):\n{textwrap.indent(LAUNCH, ' ' * 8)}        return out\n",
        forward="return CopyFn.apply(x)",
    ),
    "autograd_function_backward_in_torch": make(
        top="class CopyFn(torch.autograd.Function):\n    @staticmethod\n"
        f"    def forward(ctx, x):\n{textwrap.indent(LAUNCH, ' ' * 8)}        return out\n\n"
        "    @staticmethod\n    def backward(ctx, grad):\n        return grad.sum(0, keepdim=True) * torch.ones_like(grad)\n",
        forward="return CopyFn.apply(x)",
    ),
    "class_constants": make(
        forward="out = torch.empty_like(x)\ncopy_kernel[(1,)](x, out, x.numel(), BLOCK=self.BLOCK)\nreturn out",
    ).replace("    def __init__", "    BLOCK = 1024\n\n    def __init__"),
    "kernels_in_a_dict": make(
        top="KERNELS = {'copy': copy_kernel}",
        forward="out = torch.empty_like(x)\nKERNELS['copy'][(1,)](x, out, x.numel(), BLOCK=1024)\nreturn out",
    ),
    "launcher_stored_then_called": make(
        forward="out = torch.empty_like(x)\nlaunch = copy_kernel[(1,)]\nlaunch(x, out, x.numel(), BLOCK=1024)\nreturn out",
    ),
    "helper_object_on_self": make(
        top=f"class Runner:\n    def run(self, x):\n{textwrap.indent(LAUNCH, ' ' * 8)}        return out\n",
        init="self.runner = Runner()",
        forward="return self.runner.run(x)",
    ),
    "builtins_on_sizes": make(forward="n = max(x.shape[0], 1) + abs(-2) + sum([1, 2])\n" + LAUNCH + "return out"),
    "self_attributes_bound_to_locals": make(
        init="self.weight = nn.Parameter(torch.randn(4))\nself.bias = nn.Parameter(torch.zeros(4))",
        forward="w = self.weight\nb = self.bias\neps = self.eps if self.hasattr_free else 1e-5\n"
        + LAUNCH
        + "return out",
    ).replace("    def __init__", "    hasattr_free = False\n    eps = 1e-5\n\n    def __init__"),
    "jit_with_arguments": make(
        kernel=KERNEL.replace("@triton.jit", '@triton.jit(do_not_specialize=["n"], debug=False)')
    ),
    "kernel_from_a_factory": make(
        kernel="",
        top="def make_kernel():\n"
        + textwrap.indent(KERNEL, "    ")
        + "    return copy_kernel\n\n\ncopy_kernel = make_kernel()\n",
    ),
    "python_number_arguments": make(
        forward="scale = float(w) if w is not None else 1.0\nn = int(x.numel())\n" + LAUNCH + "return out"
    ),
    "restated_reference_and_main_block": make(
        top="class Model(nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n",
    )
    + "\n\nif __name__ == '__main__':\n    x = torch.randn(4)\n    print(torch.allclose(ModelNew()(x), torch.relu(x)))\n",
    "libdevice_import_fallback": make(
        imports="try:\n    from triton.language.extra import libdevice\nexcept ImportError:\n"
        "    from triton.language.extra.cuda import libdevice\n",
    ),
    "device_context_and_checks": make(
        forward="""\
        if not isinstance(x, torch.Tensor) or x.dim() == 0:
            raise ValueError(f"expected a tensor with dimensions, got {self.type_name}")
        assert x.is_contiguous(), "contiguous input expected"
        with torch.cuda.device(x.device):
            out = torch.empty_like(x, memory_format=torch.contiguous_format)
            copy_kernel[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, out, x.numel(), BLOCK=1024)
        return out""",
    ).replace("    def __init__", "    type_name = 'tensor'\n\n    def __init__"),
    "heuristics_from_sizes": make(
        kernel=KERNEL.replace(
            "@triton.jit", '@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n"])})\n@triton.jit'
        ),
        forward="out = torch.empty_like(x)\ncopy_kernel[(1,)](x, out, x.numel())\nreturn out",
    ),
    "kernel_calls_a_jit_helper": make(
        kernel=KERNEL.replace(
            "tl.load(x_ptr + offs, mask=mask)", "_identity(tl.load(x_ptr + offs, mask=mask))"
        ).replace(
            "@triton.jit\ndef copy_kernel",
            "@triton.jit\ndef _identity(v):\n    return v\n\n\n@triton.jit\ndef copy_kernel",
        )
    ),
    "static_helper_and_dtype_map": make(
        top="DTYPES = {torch.float32: tl.float32, torch.float16: tl.float16}\n",
        forward="return self._launch(x, DTYPES[x.dtype])",
    ).replace(
        "    def forward",
        "    @staticmethod\n    def _launch(x, dtype):\n"
        + textwrap.indent(LAUNCH, " " * 8)
        + "        return out\n\n    def forward",
    ),
    "future_typing_math": make(
        imports="from __future__ import annotations\nimport math\nfrom typing import Optional\n",
        forward="scale = 1.0 / math.sqrt(x.shape[-1])\n" + LAUNCH + "return out",
    ),
}


@pytest.mark.parametrize("source", HONEST.values(), ids=HONEST.keys())
def test_honest_variants_pass(source):
    assert check_static(source) == []


HONEST_FIXTURES = sorted((Path(__file__).parent / "candidates" / "honest").glob("*.py"))


@pytest.mark.parametrize("path", HONEST_FIXTURES, ids=lambda p: p.stem)
def test_honest_fixtures_pass(path):
    # The verifier's catalogue of honest kernels that a strict checker could wrongly flag.
    assert check_static(path.read_text()) == []


# ------------------------------------------------------------------ hacks
R = ReasonCode
HACKS: list[tuple[str, ReasonCode, str]] = [
    # delegating to PyTorch, through every alias form
    ("alias_mm", R.FORBIDDEN_TORCH_OP, make(top="mm = torch.matmul", forward=LAUNCH + "return mm(out, w)")),
    (
        "autograd_forward_in_torch",  # only a Function's backward may compute with torch: autograd alone runs it
        R.FORBIDDEN_TORCH_OP,
        make(
            top="class MmFn(torch.autograd.Function):\n    @staticmethod\n"
            "    def forward(ctx, a, b):\n        return a.matmul(b)\n\n"
            "    @staticmethod\n    def backward(ctx, grad):\n        return grad, grad\n",
            forward=LAUNCH + "return MmFn.apply(out, w)",
        ),
    ),
    (
        "plain_class_backward_in_torch",
        R.FORBIDDEN_TORCH_OP,
        make(
            top="class Helper:\n    def backward(self, a, b):\n        return a.matmul(b)\n",
            forward=LAUNCH + "return Helper().backward(out, w)",
        ),
    ),
    (
        "from_import_as",
        R.FORBIDDEN_TORCH_OP,
        make(imports="from torch import matmul as mm\n", forward=LAUNCH + "return mm(out, w)"),
    ),
    ("F_assigned", R.FORBIDDEN_TORCH_OP, make(top="F = torch.nn.functional", forward=LAUNCH + "return F.relu(out)")),
    (
        "F_imported",
        R.FORBIDDEN_TORCH_OP,
        make(imports="import torch.nn.functional as F\n", forward=LAUNCH + "return F.gelu(out)"),
    ),
    ("nn_functional", R.FORBIDDEN_TORCH_OP, make(forward=LAUNCH + "return nn.functional.relu(out)")),
    ("module_alias_chain", R.NOT_ALLOWED, make(top="t = torch\nmm = t.mm", forward=LAUNCH + "return mm(out, w)")),
    ("local_alias", R.FORBIDDEN_TORCH_OP, make(forward=LAUNCH + "t = torch\nreturn t.mm(out, w)")),
    ("getattr_constant", R.FORBIDDEN_TORCH_OP, make(forward=LAUNCH + "return getattr(torch, 'matmul')(out, w)")),
    ("torch_ops_aten", R.FORBIDDEN_TORCH_OP, make(forward=LAUNCH + "return torch.ops.aten.mm(out, w)")),
    ("torch_C", R.FORBIDDEN_TORCH_OP, make(forward=LAUNCH + "return torch._C._nn.linear(out, w)")),
    ("matmul_operator", R.FORBIDDEN_TORCH_OP, make(forward=LAUNCH + "return x @ w")),
    ("matmul_augassign", R.FORBIDDEN_TORCH_OP, make(forward=LAUNCH + "out @= w\nreturn out")),
    ("tensor_method", R.FORBIDDEN_TORCH_OP, make(forward=LAUNCH + "return x.matmul(w)")),
    ("inplace_method", R.FORBIDDEN_TORCH_OP, make(forward=LAUNCH + "out.relu_()\nreturn out")),
    ("unbound_tensor_method", R.FORBIDDEN_TORCH_OP, make(forward=LAUNCH + "return torch.Tensor.add(out, x)")),
    ("dunder_operator", R.DYNAMIC_CODE, make(forward=LAUNCH + "return out.__matmul__(w)")),
    (
        "operator_module",
        R.DYNAMIC_CODE,
        make(imports="import operator\n", forward=LAUNCH + "return operator.matmul(out, w)"),
    ),
    ("bound_method_reference", R.FORBIDDEN_TORCH_OP, make(forward=LAUNCH + "f = out.relu\nreturn f()")),
    ("compute_passed_as_value", R.FORBIDDEN_TORCH_OP, make(forward=LAUNCH + "return list(map(torch.relu, [out]))[0]")),
    (
        "functools_partial",
        R.FORBIDDEN_TORCH_OP,
        make(
            imports="import functools\n",
            top="mm = functools.partial(torch.matmul)",
            forward=LAUNCH + "return mm(out, w)",
        ),
    ),
    (
        "op_stored_on_self",
        R.FORBIDDEN_TORCH_OP,
        make(init="self.op = torch.matmul", forward=LAUNCH + "return self.op(out, w)"),
    ),
    (
        "helper_computes",
        R.FORBIDDEN_TORCH_OP,
        make(top="def finish(t):\n    return torch.relu(t)\n", forward=LAUNCH + "return finish(out)"),
    ),
    (
        "method_helper_computes",
        R.FORBIDDEN_TORCH_OP,
        make(forward=LAUNCH + "return self.post(out)").replace(
            "    def forward", "    def post(self, t):\n        return torch.sigmoid(t)\n\n    def forward"
        ),
    ),
    (
        "forward_bound_to_torch",
        R.FORBIDDEN_TORCH_OP,
        make(forward=LAUNCH + "return out").replace(
            "    def forward(self, x, w=None)", "    forward = torch.relu\n\n    def _unused(self, x, w=None)"
        ),
    ),
    (
        "ops_in_a_dict",
        R.FORBIDDEN_TORCH_OP,
        make(top="OPS = {'mm': torch.matmul}", forward=LAUNCH + "return OPS['mm'](out, w)"),
    ),
    (
        "ops_in_a_list_on_self",
        R.FORBIDDEN_TORCH_OP,
        make(init="self.fns = [torch.relu]", forward=LAUNCH + "return self.fns[0](out)"),
    ),
    (
        "helper_object_computes",
        R.FORBIDDEN_TORCH_OP,
        make(
            top="class Post:\n    def run(self, t):\n        return torch.tanh(t)\n",
            init="self.post = Post()",
            forward=LAUNCH + "return self.post.run(out)",
        ),
    ),
    ("torch_library", R.MONKEYPATCH, make(top="lib = torch.library.Library('aten', 'IMPL')")),
    (
        "class_attribute_alias",
        R.FORBIDDEN_TORCH_OP,
        make(forward=LAUNCH + "return ModelNew._clip(out, min=0.0)").replace(
            "    def __init__", "    _clip = torch.Tensor.clamp\n\n    def __init__"
        ),
    ),
    ("manual_seed", R.FORBIDDEN_TORCH_OP, make(forward="torch.manual_seed(0)\n" + LAUNCH + "return out")),
    # Python that Triton's launch machinery runs for the answer
    (
        "heuristics_value_computes",
        R.FORBIDDEN_TORCH_OP,
        make(
            kernel=KERNEL.replace(
                "@triton.jit",
                '@triton.heuristics({"BLOCK": lambda args: int(torch.relu(args["x_ptr"]).sum())})\n@triton.jit',
            )
        ),
    ),
    (
        "config_pre_hook",
        R.NOT_ALLOWED,
        make(
            kernel=KERNEL.replace(
                "@triton.jit",
                "@triton.autotune(configs=[triton.Config({'BLOCK': 128}, pre_hook=lambda a: None)], key=['n'])\n@triton.jit",
            )
        ),
    ),
    (
        "config_positional_pre_hook",
        R.NOT_ALLOWED,
        make(
            kernel=KERNEL.replace(
                "@triton.jit",
                "@triton.autotune(configs=[triton.Config({'BLOCK': 128}, 4, 2, 1, None, hook)], key=['n'])\n@triton.jit",
            )
        ),
    ),
    (
        "autotune_prune",
        R.NOT_ALLOWED,
        make(
            kernel=KERNEL.replace(
                "@triton.jit",
                "@triton.autotune(configs=[], key=['n'], prune_configs_by={'early_config_prune': prune})\n@triton.jit",
            )
        ),
    ),
    (
        "autotune_post_hook",
        R.NOT_ALLOWED,
        make(
            kernel=KERNEL.replace("@triton.jit", "@triton.autotune(configs=[], key=['n'], post_hook=done)\n@triton.jit")
        ),
    ),
    ("jit_repr_callable", R.NOT_ALLOWED, make(kernel=KERNEL.replace("@triton.jit", "@triton.jit(repr=lambda s: s)"))),
    (
        "grid_default_argument_computes",
        R.FORBIDDEN_TORCH_OP,
        make(
            top="def grid(meta, fix=torch.nn.functional.relu):\n    return (1,)\n",
            forward="out = torch.empty_like(x)\ncopy_kernel[grid](x, out, x.numel(), BLOCK=1024)\nreturn out",
        ),
    ),
    (
        "argument_with_data_ptr",
        R.MONKEYPATCH,
        make(
            top="class Arg:\n    def __init__(self, t):\n        self.t = t\n\n    def data_ptr(self):\n        return self.t.data_ptr()\n"
        ),
    ),
    ("argument_with_index", R.MONKEYPATCH, make(top="class N:\n    def __index__(self):\n        return 4\n")),
    # tampering with the instrumentation
    (
        "python_dispatch",
        R.MONKEYPATCH,
        make(imports="from torch.utils._python_dispatch import _disable_current_modes\n"),
    ),
    ("verifier_module", R.REFERENCE_MODEL_USE, make(imports="import tritonrl.verify.runtime as rt\n")),
    (
        "reduce_getattr",
        R.DYNAMIC_CODE,
        make(imports="import functools\n", top="f = functools.reduce(getattr, ['nn'], torch)"),
    ),
    ("builtin_self", R.DYNAMIC_CODE, make(top="b = len.__self__")),
    ("format_attribute_access", R.DYNAMIC_CODE, make(forward=LAUNCH + "s = '{0.__class__}'.format(out)\nreturn out")),
    ("str_format_on_module", R.DYNAMIC_CODE, make(top="s = str.format('{0.nn}', 1)")),
    ("type_reflection", R.DYNAMIC_CODE, make(forward=LAUNCH + "return type(out)(out)")),
    (
        "unbound_method_on_foreign_self",
        R.NOT_ALLOWED,
        make(forward=LAUNCH + "ModelNew.patch(torch.Tensor)\nreturn out").replace(
            "    def forward", "    def patch(self):\n        self.clone = None\n\n    def forward"
        ),
    ),
    ("class_as_value", R.NOT_ALLOWED, make(top="C = torch.Tensor\n")),
    ("local_class_as_value", R.NOT_ALLOWED, make(forward=LAUNCH + "c = ModelNew\nreturn out")),
    (
        "attribute_on_foreign_object",
        R.MONKEYPATCH,
        make(top="def patch(obj):\n    obj.clone = None\n", forward=LAUNCH + "patch(out)\nreturn out"),
    ),
    ("super_with_foreign_object", R.NOT_ALLOWED, make(init="super(ModelNew, torch).__init__()")),
    ("metaclass", R.NOT_ALLOWED, make(top="class Meta(type):\n    pass\n\n\nclass H(metaclass=Meta):\n    pass\n")),
    ("class_decorator", R.NOT_ALLOWED, make(top="def wrap(c):\n    return c\n\n\n@wrap\nclass H:\n    pass\n")),
    (
        "local_decorator_on_forward",
        R.NOT_ALLOWED,
        make(top="def wrap(f):\n    return f\n").replace("    def forward", "    @wrap\n    def forward"),
    ),
    (
        "module_internals_override",
        R.MONKEYPATCH,
        make(forward=LAUNCH + "return out").replace(
            "    def forward",
            "    def load_state_dict(self, state, strict=True):\n        return None\n\n    def forward",
        ),
    ),
    ("typing_leaks_sys", R.DYNAMIC_CODE, make(imports="import typing\n", top="m = typing.sys.modules")),
    ("triton_language_leaks_builtins", R.DYNAMIC_CODE, make(top="e = tl.core.builtins.exec")),
    (
        "kernel_reaches_builtins_through_tl",
        R.NOT_ALLOWED,
        make(kernel=KERNEL.replace("mask = offs < n", "mask = tl.core.builtins.getattr(tl, 'x')")),
    ),
    ("nn_init_leaks_torch", R.FORBIDDEN_TORCH_OP, make(init="torch.nn.init.torch.ops.aten.relu")),
    # outputs that are not plain tensors
    ("list_subclass", R.NOT_ALLOWED, make(top="class Lazy(list):\n    pass\n")),
    ("iter_method", R.MONKEYPATCH, make(top="class Lazy:\n    def __iter__(self):\n        return iter([])\n")),
    ("array_protocol", R.MONKEYPATCH, make(top="class A:\n    def __array__(self):\n        return None\n")),
    (
        "kernel_reaches_torch",
        R.FORBIDDEN_TORCH_OP,
        make(kernel=KERNEL.replace("mask = offs < n", "mask = torch.relu(offs)")),
    ),
    (
        "kernel_reaches_builtins",
        R.DYNAMIC_CODE,
        make(kernel=KERNEL.replace("mask = offs < n", "mask = getattr(tl, 'x')")),
    ),
    # nn compute modules called
    (
        "self_linear",
        R.FORBIDDEN_MODULE_CALL,
        make(init="self.linear = nn.Linear(4, 4)", forward=LAUNCH + "return self.linear(out)"),
    ),
    ("inline_module", R.FORBIDDEN_MODULE_CALL, make(forward=LAUNCH + "return nn.ReLU()(out)")),
    (
        "unbound_module_forward",
        R.FORBIDDEN_TORCH_OP,
        make(init="self.linear = nn.Linear(4, 4)", forward=LAUNCH + "return nn.Linear.forward(self.linear, out)"),
    ),
    (
        "private_module_method",
        R.NOT_ALLOWED,
        make(
            init="self.conv = nn.Conv2d(3, 3, 3)",
            forward=LAUNCH + "return self.conv._conv_forward(out, self.conv.weight, None)",
        ),
    ),
    (
        "unbound_module_call",
        R.DYNAMIC_CODE,
        make(init="self.linear = nn.Linear(4, 4)", forward=LAUNCH + "return nn.Module.__call__(self.linear, out)"),
    ),
    # compiling PyTorch
    ("torch_compile", R.TORCH_COMPILE, make(top="fast = torch.compile(torch.relu)", forward=LAUNCH + "return out")),
    ("torch_compile_decorator", R.TORCH_COMPILE, make(top="@torch.compile\ndef f(t):\n    return t\n")),
    ("torch_jit_script", R.TORCH_COMPILE, make(init="self.f = torch.jit.script(nn.ReLU())")),
    ("dynamo", R.TORCH_COMPILE, make(imports="import torch._dynamo\n")),
    ("from_torch_import_compile", R.TORCH_COMPILE, make(imports="from torch import compile as c\n")),
    # native code
    ("load_inline", R.CUDA_EXTENSION, make(imports="from torch.utils.cpp_extension import load_inline\n")),
    ("cpp_extension_module", R.CUDA_EXTENSION, make(imports="from torch.utils import cpp_extension\n")),
    ("cupy", R.CUDA_EXTENSION, make(imports="import cupy as cp\n")),
    ("numba", R.CUDA_EXTENSION, make(imports="from numba import cuda\n")),
    # imports
    ("ctypes", R.CUDA_EXTENSION, make(imports="import ctypes\n")),
    ("subprocess", R.ENV_OR_NETWORK, make(imports="import subprocess\n")),
    ("sys", R.DYNAMIC_CODE, make(imports="import sys\n")),
    ("relative_import", R.FORBIDDEN_IMPORT, make(imports="from . import helpers\n")),
    ("star_import", R.FORBIDDEN_IMPORT, make(imports="from torch import *\n")),
    ("leaked_module", R.ENV_OR_NETWORK, make(forward="torch.os.system('true')\n" + LAUNCH + "return out")),
    # containers an allowed module exposes: triton.language.extra imports sys.modules as `modules`
    (
        "leaked_sys_modules",
        R.NOT_ALLOWED,
        make(
            imports="import triton.language.extra\n",
            forward="m = triton.language.extra.modules\n" + LAUNCH + "return out",
        ),
    ),
    (
        "leaked_sys_modules_get",
        R.NOT_ALLOWED,
        make(imports="import triton.language.extra as extra\n", top="OS = extra.modules.get('os')"),
    ),
    (
        "method_named_like_a_builtin",
        R.NOT_ALLOWED,
        make(top="class Shim:\n    def exec(self, source):\n        return source\n"),
    ),
    ("attribute_named_like_os_function", R.NOT_ALLOWED, make(init="self.system = 1")),
    ("import_inside_forward", R.ENV_OR_NETWORK, make(forward="import shutil\n" + LAUNCH + "return out")),
    # dynamic code
    ("exec", R.DYNAMIC_CODE, make(top="exec('y = 1')")),
    ("eval", R.DYNAMIC_CODE, make(forward=LAUNCH + "return eval('out')")),
    ("compile_builtin", R.DYNAMIC_CODE, make(top="code = compile('1', 'f', 'eval')")),
    ("dunder_import", R.DYNAMIC_CODE, make(top="m = __import__('o' + 's')")),
    ("importlib", R.DYNAMIC_CODE, make(imports="import importlib\n", top="m = importlib.import_module('torch')")),
    ("aliased_exec", R.DYNAMIC_CODE, make(top="run = exec\nrun('y = 1')")),
    (
        "getattr_dynamic",
        R.DYNAMIC_CODE,
        make(forward="name = 'mat' + 'mul'\n" + LAUNCH + "return getattr(torch, name)(out, w)"),
    ),
    ("setattr_dynamic", R.DYNAMIC_CODE, make(top="name = 'allclose'\nsetattr(torch, name, None)")),
    ("globals", R.DYNAMIC_CODE, make(top="g = globals()")),
    ("vars", R.DYNAMIC_CODE, make(top="d = vars(torch)")),
    ("dunder_dict", R.DYNAMIC_CODE, make(top="d = torch.__dict__['matmul']")),
    ("subclasses_walk", R.DYNAMIC_CODE, make(top="s = ().__class__.__bases__[0].__subclasses__()")),
    ("function_globals", R.DYNAMIC_CODE, make(top="g = copy_kernel.fn.__globals__")),
    ("loader_name", R.DYNAMIC_CODE, make(top="m = __loader__")),
    ("builtins_name", R.DYNAMIC_CODE, make(top="b = __builtins__")),
    ("base64", R.DYNAMIC_CODE, make(imports="import base64\n")),
    ("types_function", R.DYNAMIC_CODE, make(imports="from types import FunctionType\n")),
    # monkeypatching
    ("patch_allclose", R.MONKEYPATCH, make(top="torch.allclose = lambda *a, **k: True")),
    ("patch_event", R.MONKEYPATCH, make(top="torch.cuda.Event = object")),
    ("patch_do_bench", R.MONKEYPATCH, make(top="triton.testing.do_bench = lambda *a, **k: 0.0")),
    ("patch_F_alias", R.MONKEYPATCH, make(imports="import torch.nn.functional as F\n", top="F.relu = lambda t: t")),
    ("patch_tensor_eq", R.MONKEYPATCH, make(top="torch.Tensor.__eq__ = lambda a, b: True")),
    ("setattr_constant", R.DYNAMIC_CODE, make(top="setattr(torch, 'allclose', lambda *a, **k: True)")),
    ("del_attr", R.MONKEYPATCH, make(top="del torch.allclose")),
    ("augassign_attr", R.MONKEYPATCH, make(top="torch.some_counter += 1")),
    ("patch_in_init", R.MONKEYPATCH, make(init="torch.testing.assert_close = lambda *a, **k: None")),
    ("sys_modules", R.MONKEYPATCH, make(imports="import sys\n", top="sys.modules['torch'] = None")),
    ("global_numerics", R.MONKEYPATCH, make(top="torch.backends.cuda.matmul.allow_tf32 = True")),
    ("forward_hook", R.MONKEYPATCH, make(init="self.register_forward_hook(lambda m, i, o: o)")),
    (
        "torch_function",
        R.MONKEYPATCH,
        make(
            top="class T(torch.Tensor):\n    @classmethod\n    def __torch_function__(cls, f, t, a=(), k=None):\n        return 0\n"
        ),
    ),
    ("patch_builtins", R.MONKEYPATCH, make(imports="import builtins\n", top="builtins.print = lambda *a: None")),
    ("patch_loaded_modules", R.MONKEYPATCH, make(top="for m in list(globals().values()):\n    m.compare = None\n")),
    ("hook_dict", R.MONKEYPATCH, make(init="self._forward_hooks[0] = lambda m, i, o: o")),
    ("rebind_own_method", R.MONKEYPATCH, make() + "\nModelNew.forward = lambda self, x: x\n"),
    ("class_swap", R.MONKEYPATCH, make(forward=LAUNCH + "out.__class__ = type(x)\nreturn out")),
    # streams, threads
    (
        "side_stream",
        R.STREAM_OR_THREAD,
        make(forward="s = torch.cuda.Stream()\nwith torch.cuda.stream(s):\n    pass\n" + LAUNCH + "return out"),
    ),
    (
        "current_stream",
        R.STREAM_OR_THREAD,
        make(forward=LAUNCH + "torch.cuda.current_stream().wait_stream(None)\nreturn out"),
    ),
    ("event", R.STREAM_OR_THREAD, make(forward="e = torch.cuda.Event()\n" + LAUNCH + "return out")),
    ("cuda_graph", R.STREAM_OR_THREAD, make(init="self.g = torch.cuda.CUDAGraph()")),
    (
        "threading",
        R.STREAM_OR_THREAD,
        make(imports="import threading\n", forward="threading.Thread(target=print).start()\n" + LAUNCH + "return out"),
    ),
    ("concurrent", R.STREAM_OR_THREAD, make(imports="from concurrent.futures import ThreadPoolExecutor\n")),
    ("multiprocessing", R.STREAM_OR_THREAD, make(imports="import multiprocessing as mp\n")),
    ("asyncio", R.STREAM_OR_THREAD, make(imports="import asyncio\n")),
    ("torch_multiprocessing", R.STREAM_OR_THREAD, make(imports="import torch.multiprocessing\n")),
    ("os_fork", R.ENV_OR_NETWORK, make(imports="import os\n", top="pid = os.fork()")),
    # host round trips
    ("numpy_import", R.HOST_ROUNDTRIP, make(imports="import numpy as np\n")),
    (
        "numpy_compute",
        R.HOST_ROUNDTRIP,
        make(
            imports="import numpy as np\n", forward=LAUNCH + "return torch.from_numpy(np.maximum(x.cpu().numpy(), 0))"
        ),
    ),
    ("cpu", R.HOST_ROUNDTRIP, make(forward=LAUNCH + "return out.cpu().cuda()")),
    ("item", R.HOST_ROUNDTRIP, make(forward=LAUNCH + "s = out.item()\nreturn out")),
    ("tolist", R.HOST_ROUNDTRIP, make(forward=LAUNCH + "v = out.tolist()\nreturn out")),
    # the reference model
    ("subclass_model", R.REFERENCE_MODEL_USE, make(bases="Model")),
    ("instantiate_model", R.REFERENCE_MODEL_USE, make(init="self.ref = Model()")),
    ("import_model", R.REFERENCE_MODEL_USE, make(imports="from reference import Model as M\n")),
    ("attribute_model", R.REFERENCE_MODEL_USE, make(imports="import __main__\n", init="self.ref = __main__.Model()")),
    (
        "gc_through_import_module",
        R.DYNAMIC_CODE,
        make(
            imports="import importlib\n",
            top="heap = importlib.import_module('g' + 'c')",
            forward="objs = heap.get_objects()\n" + LAUNCH + "return out",
        ),
    ),
    (
        "gc",
        R.REFERENCE_MODEL_USE,
        make(imports="import gc\n", forward="objs = gc.get_objects()\n" + LAUNCH + "return out"),
    ),
    (
        "inspect",
        R.REFERENCE_MODEL_USE,
        make(imports="import inspect\n", forward="f = inspect.currentframe()\n" + LAUNCH + "return out"),
    ),
    (
        "getframe",
        R.DYNAMIC_CODE,
        make(imports="import sys\n", forward="f = sys._getframe(1)\n" + LAUNCH + "return out"),
    ),
    # try/except fallbacks
    (
        "try_except",
        R.EXCEPTION_FALLBACK,
        make(forward="try:\n" + textwrap.indent(LAUNCH, "    ") + "except Exception:\n    out = x.clone()\nreturn out"),
    ),
    (
        "try_finally",
        R.EXCEPTION_FALLBACK,
        make(forward="try:\n" + textwrap.indent(LAUNCH, "    ") + "finally:\n    pass\nreturn out"),
    ),
    (
        "try_around_helper",
        R.EXCEPTION_FALLBACK,
        make(
            top=f"def launch(x):\n{textwrap.indent(LAUNCH, '    ')}    return out\n",
            forward="try:\n    return launch(x)\nexcept RuntimeError:\n    return x.clone()",
        ),
    ),
    (
        "suppress",
        R.FORBIDDEN_IMPORT,
        make(
            imports="import contextlib\n",
            forward="out = x.clone()\nwith contextlib.suppress(Exception):\n"
            "    copy_kernel[(1,)](x, out, x.numel(), BLOCK=1024)\nreturn out",
        ),
    ),
    # environment, files, network
    ("environ", R.ENV_OR_NETWORK, make(imports="import os\n", top="key = os.environ.get('API_KEY')")),
    ("getenv", R.ENV_OR_NETWORK, make(imports="from os import getenv\n", top="key = getenv('API_KEY')")),
    ("open", R.ENV_OR_NETWORK, make(top="data = open('/etc/passwd').read()")),
    ("socket", R.ENV_OR_NETWORK, make(imports="import socket\n")),
    ("urllib", R.ENV_OR_NETWORK, make(imports="import urllib.request\n")),
    ("requests", R.ENV_OR_NETWORK, make(imports="import requests\n")),
    ("pathlib", R.ENV_OR_NETWORK, make(imports="from pathlib import Path\n", top="t = Path('x').read_text()")),
    ("argv", R.DYNAMIC_CODE, make(imports="import sys\n", top="a = sys.argv")),
    ("torch_hub", R.ENV_OR_NETWORK, make(init="self.m = torch.hub.load('x/y', 'z')")),
    ("torch_load", R.ENV_OR_NETWORK, make(init="self.w = torch.load('/tmp/answer.pt')")),
    ("environ_through_torch", R.ENV_OR_NETWORK, make(top="key = torch.os.environ['HOME']")),
    # decoy kernels
    ("decoy_kernel", R.KERNEL_NOT_REACHABLE, make(forward="return torch.relu(x)")),
    (
        "launch_in_unused_helper",
        R.KERNEL_NOT_REACHABLE,
        make(top=f"def launch(x):\n{textwrap.indent(LAUNCH, '    ')}    return out\n", forward="return x.clone()"),
    ),
    # format
    ("syntax_error", R.SYNTAX_ERROR, "class ModelNew(:\n    pass\n"),
    ("no_modelnew", R.NO_MODELNEW, IMPORTS + KERNEL + "\nclass Model(nn.Module):\n    pass\n"),
    ("no_kernel", R.NO_TRITON_KERNEL, make(kernel="\ndef copy_kernel(x_ptr, out_ptr, n, BLOCK):\n    pass\n")),
]


# What the grammar leaves to the runtime layer: arithmetic on values whose tensor-ness is not
# evident, nn modules called through values, launches only on branches never taken.
T = {"traced_torch_compute"}
M = {"traced_torch_compute", "forbidden_module_call", "runtime_error", "kernel_not_reachable"}
H = {"host_roundtrip"}
L = {"no_kernel_launched"}
RUNTIME_CAUGHT: list[tuple[str, set[str], str]] = [
    ("tensor_plus_param", T, make(forward=LAUNCH + "return out + x")),
    (
        "tensor_times_parameter",
        T,
        make(init="self.scale = nn.Parameter(torch.ones(1))", forward=LAUNCH + "return out * self.scale"),
    ),
    ("tensor_augassign", T, make(forward=LAUNCH + "out *= 2\nreturn out")),
    ("tensor_negation", T, make(forward=LAUNCH + "return -out")),
    ("tensor_compare", T, make(forward=LAUNCH + "return (x > 0).to(x.dtype)")),
    ("builtin_on_tensor", T, make(forward=LAUNCH + "return abs(out)")),
    ("builtin_sum_of_tensors", T, make(forward=LAUNCH + "return sum([out, x])")),
    (
        "getattr_module",
        M,
        make(init="self.linear = nn.Linear(4, 4)", forward=LAUNCH + "return getattr(self, 'linear')(out)"),
    ),
    (
        "self_linear_forward",
        M,
        make(init="self.linear = nn.Linear(4, 4)", forward=LAUNCH + "return self.linear.forward(out)"),
    ),
    ("module_in_local", M, make(init="self.act = nn.GELU()", forward=LAUNCH + "act = self.act\nreturn act(out)")),
    (
        "modulelist_loop",
        M,
        make(
            init="self.layers = nn.ModuleList([nn.Linear(4, 4)])",
            forward=LAUNCH + "for layer in self.layers:\n    out = layer(out)\nreturn out",
        ),
    ),
    (
        "sequential_index",
        M,
        make(init="self.seq = nn.Sequential(nn.Linear(4, 4), nn.ReLU())", forward=LAUNCH + "return self.seq[0](out)"),
    ),
    (
        "local_subclass_without_forward",
        M,
        make(
            top="class MyLinear(nn.Linear):\n    pass\n",
            init="self.lin = MyLinear(4, 4)",
            forward=LAUNCH + "return self.lin(out)",
        ),
    ),
    ("inherited_forward", M, IMPORTS + KERNEL + "\nclass ModelNew(nn.Linear):\n    pass\n"),
    ("float_of_element", H, make(forward=LAUNCH + "key = float(x[0, 0])\nreturn out")),
    ("launch_under_if_false", L, make(forward="if False:\n" + textwrap.indent(LAUNCH, "    ") + "return x.clone()")),
    ("launch_under_if_zero", L, make(forward="if 0:\n" + textwrap.indent(LAUNCH, "    ") + "return x.clone()")),
    ("launch_after_return", L, make(forward="return x.clone()\n" + LAUNCH)),
    ("launch_in_init_only", L, make(init="x = torch.ones(4)\n" + LAUNCH, forward="return x.clone()")),
]


@pytest.mark.parametrize(
    ("codes", "source"), [(c, s) for _, c, s in RUNTIME_CAUGHT], ids=[n for n, _, _ in RUNTIME_CAUGHT]
)
def test_grammar_leaves_these_to_the_runtime_layer(codes, source):
    assert not {r.code.value for r in check_static(source)} & {"forbidden_torch_op", "not_allowed"} - codes


@pytest.mark.slow
@pytest.mark.parametrize(
    ("codes", "source"), [(c, s) for _, c, s in RUNTIME_CAUGHT], ids=[n for n, _, _ in RUNTIME_CAUGHT]
)
def test_runtime_layer_catches_what_the_grammar_allows(codes, source, verifier, builtin_problems):
    verdict = verifier.verify(builtin_problems["01_relu.py"].source, source)
    assert not verdict.correct
    assert codes & set(verdict.codes), verdict.reasons


@pytest.mark.parametrize(("code", "source"), [(c, s) for _, c, s in HACKS], ids=[n for n, _, _ in HACKS])
def test_hack_is_rejected_with_its_code(code, source):
    reasons = check_static(source)
    assert code in {r.code for r in reasons}, reasons
    assert all(r.code.layer in (Layer.FORMAT, Layer.STATIC) for r in reasons)


def test_every_static_code_has_a_hack():
    covered = {code for _, code, _ in HACKS}
    covered |= {r.code for source in DEVICE_GATED.values() for r in device_paths.on_cpu(source)[0]}  # CPU verdicts only
    static_codes = {c for c in ReasonCode if c.layer in (Layer.FORMAT, Layer.STATIC) and c is not ReasonCode.NO_CODE}
    assert static_codes <= covered


def test_message_names_construct_line_and_what_to_write_instead():
    source = make(forward=LAUNCH + "return torch.matmul(out, w)")
    (reason,) = check_static(source)
    line = source.splitlines().index("        return torch.matmul(out, w)") + 1
    assert reason == Reason(
        ReasonCode.FORBIDDEN_TORCH_OP,
        f"line {line}: torch.matmul called (PyTorch compute; host "
        "code only allocates, reshapes and launches); do this computation in a @triton.jit kernel",
    )


def test_syntax_error_message_has_line():
    (reason,) = check_static("x = 1\ndef f(:\n")
    assert reason.code is ReasonCode.SYNTAX_ERROR and reason.message.startswith("line 2:")


def test_reference_names_are_configurable():
    source = make(init="self.ref = Baseline()")
    assert ReasonCode.REFERENCE_MODEL_USE not in codes(source)
    assert ReasonCode.REFERENCE_MODEL_USE in {r.code for r in check_static(source, frozenset({"Baseline"}))}


def test_torch_ops_in_init_and_kernels_are_not_compute_violations():
    # __init__ runs once at construction (weights are copied from the reference);
    # kernel bodies use tl.*, which are not torch compute.
    source = make(init="self.w = nn.Parameter(torch.randn(4, 4) * 0.1)")
    assert check_static(source) == []


# ------------------------------------------------------------------ robustness
def _fuzz_inputs():
    rng = random.Random(1234)
    sources = [parse_response(p.reference_response).code for p in load_builtin()] + [s for _, _, s in HACKS]
    for source in sources[:12]:
        for cut in sorted(rng.sample(range(1, len(source)), 8)):
            yield source[:cut]
    for _ in range(40):
        yield bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))).decode("latin-1")
    yield "\x00"
    yield ""
    yield "(" * 500 + ")" * 500
    yield "x = " + "-" * 5000 + "1"
    yield "x = " + "[" * 90 + "]" * 90
    yield "class ModelNew:\n    forward = forward\n    def forward(self): return self.forward()\n"
    yield "class ModelNew(ModelNew):\n    pass\nclass A(B):\n    pass\nclass B(A):\n    pass\n"
    yield "class ModelNew:\n    def __init__(self):\n        self.a = self.b\n        self.b = self.a\n    def forward(self):\n        return self.a[1]()\n"


INTERNAL_ERROR = "static analysis could not handle"  # the fail-closed message for a checker bug


@pytest.mark.parametrize("source", list(_fuzz_inputs()))
def test_never_raises(source):
    reasons = check_static(source)
    assert isinstance(reasons, list) and all(isinstance(r, Reason) for r in reasons)
    assert not any(INTERNAL_ERROR in r.message for r in reasons)


def test_mutated_programs_are_analysed_without_internal_errors():
    # Swap random expressions between the test programs: odd but valid Python must not trip the checker.
    rng = random.Random(7)
    trees = [ast.parse(s) for s in HONEST.values()] + [ast.parse(s) for _, c, s in HACKS if c is not R.SYNTAX_ERROR]
    exprs = [n for t in trees for n in ast.walk(t) if isinstance(n, ast.expr)]
    for _ in range(400):
        tree = copy.deepcopy(rng.choice(trees))
        nodes = list(ast.walk(tree))
        for parent in rng.sample(nodes, 4):
            for name, value in ast.iter_fields(parent):
                if isinstance(value, ast.expr) and rng.random() < 0.5:
                    setattr(parent, name, copy.deepcopy(rng.choice(exprs)))
        try:
            source = ast.unparse(ast.fix_missing_locations(tree))
        except Exception:  # an impossible tree (e.g. a constant as an assignment target)
            continue
        assert not any(INTERNAL_ERROR in r.message for r in check_static(source)), source


def test_non_string_input_is_a_reason_not_a_crash():
    assert [r.code for r in check_static(None)] == [ReasonCode.NO_CODE]  # type: ignore[arg-type]


# Sources written by an independent reviewer against this checker: cheats it must reject (each file's
# first line says how it cheats) and honest answers in other models' styles it must accept. Never run.
STATIC_CASES = Path(__file__).parent / "static_cases"


@pytest.mark.parametrize("path", sorted((STATIC_CASES / "reject").glob("*.py")), ids=lambda p: p.stem)
def test_reviewer_cheat_is_rejected_statically(path):
    reasons = check_static(path.read_text())
    assert reasons and all(r.code.layer in (Layer.FORMAT, Layer.STATIC) for r in reasons)
    assert not any(INTERNAL_ERROR in r.message for r in reasons), reasons


@pytest.mark.parametrize("path", sorted((STATIC_CASES / "accept").glob("*.py")), ids=lambda p: p.stem)
def test_reviewer_honest_answer_is_accepted_statically(path):
    assert check_static(path.read_text()) == []


# ------------------------------------------------------------------ device paths (a CPU verdict judges the CPU's only)
GPU_SIDE = "return x * (x > 0)\n"  # PyTorch by operators: the grammar cannot tell it from index arithmetic
DEVICE_GATED = {
    "if_is_cuda": make(forward="if x.is_cuda:\n    " + GPU_SIDE + LAUNCH + "return out"),
    "early_return_on_is_cpu": make(forward="if not x.is_cpu:\n    " + GPU_SIDE + LAUNCH + "return out"),
    "device_type_compared_in_a_local": make(
        forward='gpu = x.device.type == "cuda"\nif gpu:\n    ' + GPU_SIDE + LAUNCH + "return out"
    ),
    "device_text": make(forward='if "cuda" in str(x.device):\n    ' + GPU_SIDE + LAUNCH + "return out"),
    "tensor_text": make(forward='if "cuda" in str(x):\n    ' + GPU_SIDE + LAUNCH + "return out"),
    "tensor_type_name": make(forward='if x.type().startswith("torch.cuda"):\n    ' + GPU_SIDE + LAUNCH + "return out"),
    "get_device_index": make(forward="if x.get_device() >= 0:\n    " + GPU_SIDE + LAUNCH + "return out"),
    "cuda_available_flag_set_in_init": make(
        init="self.fast = torch.cuda.is_available()", forward="if self.fast:\n    " + GPU_SIDE + LAUNCH + "return out"
    ),
    "device_count_while": make(forward="while torch.cuda.device_count() > 0:\n    " + GPU_SIDE + LAUNCH + "return out"),
    "conditional_expression": make(forward=LAUNCH + "return x * (x > 0) if x.is_cuda else out"),
    "short_circuit_and": make(forward=LAUNCH + "x.is_cuda and out.copy_(x * (x > 0))\nreturn out"),
    "loop_over_a_device_range": make(
        forward="for _ in range(int(x.is_cuda)):\n    " + GPU_SIDE + LAUNCH + "return out"
    ),
    "comprehension_filter": make(forward=LAUNCH + "return [x * (x > 0) for t in [x] if t.is_cuda] or [out]"),
    "predicate_helper": make(
        top="def on_gpu(t):\n    return t.is_cuda\n", forward="if on_gpu(x):\n    " + GPU_SIDE + LAUNCH + "return out"
    ),
    "parameter_carries_the_fact": make(
        top="def run(x, fast):\n    if fast:\n        return x * (x > 0)\n"
        f"{textwrap.indent(LAUNCH, '    ')}    return out\n",
        forward="return run(x, fast=x.is_cuda)",
    ),
    "default_argument": make(
        top="def run(x, fast=torch.cuda.is_available()):\n    if fast:\n        return x * (x > 0)\n"
        f"{textwrap.indent(LAUNCH, '    ')}    return out\n",
        forward="return run(x)",
    ),
    "path_picked_from_a_dict": make(
        top=f"def triton_path(x):\n{textwrap.indent(LAUNCH, '    ')}    return out\n\n\n"
        "def torch_path(x):\n    return x * (x > 0)\n\n\nPATHS = {'cuda': torch_path, 'cpu': triton_path}\n",
        forward="return PATHS[x.device.type](x)",
    ),
    "fact_handed_to_the_launch": make(
        forward="out = torch.empty_like(x)\n"
        "copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel() >> 4 * int(x.is_cuda), BLOCK=1024)\n"
        "return out"
    ),
    "exception_probe": make(
        init="try:\n    torch.cuda.current_device()\n    self.fast = True\nexcept Exception:\n    self.fast = False"
    ),
    "dtype_chosen_by_device": make(
        forward="x = x.to(torch.float16 if x.is_cuda else torch.float32)\n" + LAUNCH + "return out"
    ),
    "harmless_looking_branch_whose_test_computes": make(
        forward=LAUNCH
        + "if x.is_cuda and out.copy_(x * (x > 0)) is None:\n    torch.cuda.set_device(x.device)\nreturn out"
    ),
    "fact_handed_to_a_tensor_method_the_file_also_defines": make(
        top="class Holder:\n    def fill_(self, value):\n        return value\n",
        forward=LAUNCH + "out.fill_(float(x.is_cpu))\nreturn out",
    ),
}


@pytest.mark.parametrize("source", DEVICE_GATED.values(), ids=DEVICE_GATED.keys())
def test_a_device_gated_path_is_refused_on_cpu(source):
    assert check_static(source) == []  # the grammar allows each: only the device decides
    refused, _ = device_paths.on_cpu(source)
    assert refused and {r.code for r in refused} == {ReasonCode.DEVICE_DEPENDENT_PATH}
    assert all("write one path for every device" in r.message for r in refused)
    assert ReasonCode.DEVICE_DEPENDENT_PATH.layer is Layer.STATIC


HARMLESS_ON_DEVICE = {
    "device_context_on_one_side": make(
        forward=f"if x.is_cuda:\n    with torch.cuda.device(x.device):\n"
        f"{textwrap.indent(LAUNCH, ' ' * 8)}else:\n{textwrap.indent(LAUNCH, '    ')}return out"
    ),
    "guard_that_raises": make(
        forward='if x.device.type == "meta":\n    raise ValueError("no data on meta tensors")\n' + LAUNCH + "return out"
    ),
    "set_device_on_gpu": make(forward="if x.is_cuda:\n    torch.cuda.set_device(x.device)\n" + LAUNCH + "return out"),
}
DEVICE_NAMED_ONLY = {
    "device_choice": make(
        top='DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n',
        forward="x = x.to(DEVICE)\n" + LAUNCH + "return out.to(x.device)",
    ),
    "factory_keywords": make(
        forward="kw = {'device': x.device, 'dtype': x.dtype}\nscratch = torch.empty(4, **kw)\n" + LAUNCH + "return out"
    ),
    "assertions_read_anything": make(forward="assert x.is_cuda or x.is_cpu, f'{x.device}'\n" + LAUNCH + "return out"),
    "device_index_names_the_device": make(
        forward="with torch.cuda.device(x.get_device()):\n" + textwrap.indent(LAUNCH, "    ") + "return out"
    ),
    "main_block_and_restated_model": make(
        top="class Model(nn.Module):\n    def forward(self, x):\n        return torch.relu(x) if x.is_cuda else x\n"
    )
    + "\n\nif __name__ == '__main__':\n    if torch.cuda.is_available():\n        print(ModelNew()(torch.randn(4, device='cuda')))\n",
}


@pytest.mark.parametrize("source", HARMLESS_ON_DEVICE.values(), ids=HARMLESS_ON_DEVICE.keys())
def test_a_branch_that_changes_no_result_is_listed_as_untried(source):
    refused, untried = device_paths.on_cpu(source)
    assert refused == []
    assert len(untried) == len(device_paths.CPU_UNTRIED) + 1 and "judged on a GPU only" in untried[0]


@pytest.mark.parametrize("source", [*DEVICE_NAMED_ONLY.values(), *HONEST.values()], ids=[*DEVICE_NAMED_ONLY, *HONEST])
def test_naming_a_device_is_no_device_path(source):
    assert device_paths.device_paths(source) == []


@pytest.mark.parametrize(
    "path", [*HONEST_FIXTURES, *sorted((STATIC_CASES / "accept").glob("*.py"))], ids=lambda p: p.stem
)
def test_honest_answers_take_one_path_on_every_device(path):
    assert all(p.harmless for p in device_paths.device_paths(path.read_text())), path.name


def test_a_cpu_verdict_lists_what_only_a_gpu_judges():
    _, untried = device_paths.on_cpu(HONEST["autotune_then_jit"])
    assert untried == [*device_paths.CPU_UNTRIED, device_paths.AUTOTUNE_UNTRIED]
    assert device_paths.on_cpu("def broken(:") == ([], list(device_paths.CPU_UNTRIED))
