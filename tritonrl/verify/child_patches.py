"""Changes to torch and Triton that a candidate's child process makes before any candidate code runs.

Each closes a channel through which an answer could look right without
being right:
- torch prints tensors with every dispatch mode switched off, so `str(x)`,
  `print(x, file=...)` or `f"{x}"` would let host code read the inputs
  unseen by the aten trace and compute the answer itself. Printed tensors
  show their shape, dtype and device, never their values.
- the CPU interpreter runs a launch's programs one after another, in order,
  so a kernel in which program b reads what program b-1 stored (a carry
  with no synchronisation) is always right there and wrong on a GPU, where
  programs run at once in no set order. The interpreter runs them in an
  order drawn from the job's secret seed instead.
- the autotuner times configs through a GPU driver the interpreter does
  not have; there it takes the first config.
- the interpreter has no libdevice (`libdevice.tanh`, `libdevice.erf`...
  return None there); it computes them with the same torch functions.
- the interpreter runs a `@triton.jit` function called from host code (a
  grid callable, `forward`), where a GPU refuses to: host code would compute
  with Triton's language on real pointers, unseen by the aten trace. Device
  functions and libdevice run only while a launch's programs run.
And two that keep honest kernels from being judged by the interpreter's own
shortcomings (false rejects on CPU only):
- a kernel's `for i in range(...)` (and `tl.range`) counts in Python ints
  there, where compiled Triton's loop variable is a tensor (`i.to(tl.int64)`
  works): it becomes one (`tl.static_range` keeps ints, which compute as
  compiled Triton's constexprs do).
- `tl.reduce` and `tl.associative_scan` with a `@triton.jit` combine function
  (an argmax over (value, index) tuples) make one Python call per element
  there (7 s for one call over 16 rows of 4096): they combine whole blocks in
  log2(n) calls instead.
- `tl.dot` of bf16 operands multiplies their raw bits as integers there
  (bf16 is kept as uint16): they are widened to the fp32 values they hold
  first, exactly, as a GPU's MMA multiplies them.
"""

from __future__ import annotations

import random

HIDDEN_VALUES = "<values not shown while verifying>"
_launch = {"programs": False}  # True while the interpreter runs a launch's programs (not its grid or hooks)


def hide_tensor_values() -> None:
    import torch._tensor_str

    def shown_without_values(self, *, tensor_contents=None) -> str:
        return f"tensor({HIDDEN_VALUES}, shape={tuple(self.shape)}, dtype={self.dtype}, device={self.device})"

    torch._tensor_str._str = shown_without_values


def pin_autotuning_for_interpreter() -> None:
    from triton.runtime.autotuner import Autotuner

    Autotuner._bench = lambda self, *args, config, **meta: [float(self.configs.index(config))] * 3


def run_programs_in_secret_order(seed: int) -> None:
    """Every program of a launch still runs exactly once; program k of the loop gets the grid index order[k]."""
    from triton.runtime.interpreter import interpreter_builder

    draw = random.Random(seed)
    launch: dict[str, object] = {}
    set_grid_dim, set_grid_idx = interpreter_builder.set_grid_dim, interpreter_builder.set_grid_idx

    def grid_dim(nx: int, ny: int, nz: int) -> None:
        order = list(range(nx * ny * nz))
        draw.shuffle(order)
        launch.update(dims=(nx, ny, nz), order=order)
        set_grid_dim(nx, ny, nz)

    def grid_idx(x: int, y: int, z: int) -> None:
        _, ny, nz = launch["dims"]
        k = launch["order"][(x * ny + y) * nz + z]
        set_grid_idx(k // (ny * nz), (k // nz) % ny, k % nz)

    interpreter_builder.set_grid_dim = grid_dim
    interpreter_builder.set_grid_idx = grid_idx


def _libdevice_as_torch() -> dict:
    """libdevice's elementwise float functions, as the torch functions that compute the same."""
    import math

    import torch

    same = (
        "abs acos acosh asin asinh atan atanh ceil cos cosh erf erfc erfinv exp exp2 expm1 floor lgamma log log10 "
        "log1p log2 rsqrt sin sinh sqrt tan tanh trunc atan2 fmod hypot copysign pow"
    )
    table = {name: getattr(torch, name) for name in same.split()}
    table.update({f"fast_{name}f": table[name] for name in "cos exp log log2 log10 sin tan tanh".split()})
    table.update(
        {
            "exp10": lambda x: torch.pow(10.0, x),
            "cbrt": lambda x: torch.sign(x) * x.abs().pow(1 / 3),
            "rint": torch.round,
            "nearbyint": torch.round,
            "sqrt_rn": torch.sqrt,
            "rsqrt_rn": torch.rsqrt,
            "normcdf": lambda x: 0.5 * torch.erfc(-x / math.sqrt(2)),
            "normcdfinv": lambda x: math.sqrt(2) * torch.erfinv(2 * x - 1),
            "cyl_bessel_i0": torch.special.i0,
            "cyl_bessel_i1": torch.special.i1,
            "j0": torch.special.bessel_j0,
            "j1": torch.special.bessel_j1,
            "y0": torch.special.bessel_y0,
            "y1": torch.special.bessel_y1,
            "div_rn": torch.div,
            "fma": lambda x, y, z: x * y + z,
            "round": lambda x: torch.sign(x) * torch.floor(x.abs() + 0.5),  # half away from zero, unlike torch.round
            "fdim": lambda x, y: torch.clamp(x - y, min=0),
            "nextafter": torch.nextafter,
            "remainder": lambda x, y: x - torch.round(x / y) * y,  # IEEE: the quotient rounded half to even
            "saturatef": lambda x: torch.clamp(x, 0, 1),
            "logb": lambda x: torch.floor(torch.log2(x.abs())),
        }
    )
    table.update({f"div_{mode}": torch.div for mode in ("rz", "rd", "ru")})
    table.update({f"rcp_{mode}": torch.reciprocal for mode in ("rn", "rz", "rd", "ru")})
    table.update(
        {
            "fast_exp10f": table["exp10"],
            "rcbrt": lambda x: 1 / table["cbrt"](x),
            "fast_dividef": torch.div,
            "fast_powf": torch.pow,
        }
    )
    return table


# libdevice predicates: an int32 per element, as on the GPU.
_LIBDEVICE_PREDICATES = {
    "isnan": "isnan",
    "isinf": "isinf",
    "signbit": "signbit",
    "isfinited": "isfinite",
    "finitef": "isfinite",
    "isnand": "isnan",
    "isinfd": "isinf",
}


def run_device_functions_only_in_programs() -> None:
    """A launch evaluates its grid and hooks (host code), then sets the grid's size and runs the programs."""
    from triton.runtime import interpreter

    execute, device_call = interpreter.GridExecutor.__call__, interpreter.InterpretedFunction.__call__
    set_grid_dim = interpreter.interpreter_builder.set_grid_dim

    def programs_start(nx: int, ny: int, nz: int) -> None:
        set_grid_dim(nx, ny, nz)
        _launch["programs"] = True

    def launch(self, *args, **kwargs):
        for value in launch_values(self.fn, args, kwargs):
            _refuse_python_objects(value)
        _launch["programs"] = False  # grid callables and pre-run hooks are host code
        try:
            return execute(self, *args, **kwargs)
        finally:
            _launch["programs"] = False

    def call(self, *args, **kwargs):
        _outside_a_kernel_refused(self.__name__)
        return device_call(self, *args, **kwargs)

    interpreter.GridExecutor.__call__ = launch
    interpreter.InterpretedFunction.__call__ = call
    interpreter.interpreter_builder.set_grid_dim = programs_start


def launch_values(kernel, args: tuple, kwargs: dict):
    """Every value a launch hands its kernel: the arguments, the defaults of those not passed (a default the
    interpreter fills in is handed over too), and what tuples, lists and constexprs among them hold; a tensor
    descriptor stands for the tensor it reads and writes (an fp16 copy behind one is judged as one handed over)."""
    import inspect

    import triton.language as tl
    from triton.tools.tensor_descriptor import TensorDescriptor

    try:
        parameters = list(inspect.signature(getattr(kernel, "fn", kernel)).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    given = {p.name for p in parameters[: len(args)]} | set(kwargs)
    pending = [
        *args,
        *kwargs.values(),
        *(p.default for p in parameters if p.name not in given and p.default is not inspect.Parameter.empty),
    ]
    while pending:
        value = pending.pop()
        if isinstance(value, (tuple, list)):
            pending.extend(value)
        elif isinstance(value, tl.constexpr):
            pending.append(value.value)
        elif isinstance(value, TensorDescriptor):
            pending.append(value.base)
        else:
            yield value


def _refuse_python_objects(value) -> None:
    """A kernel takes tensors, numbers, strings, dtypes and @triton.jit functions (in tuples and constexprs too),
    as a GPU launch does; the interpreter would pass any other object through, and a kernel could call it
    (a host function or method handed tl.load and its pointers)."""
    import torch
    import triton.language as tl
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    if value is None or isinstance(
        value, (torch.Tensor, int, float, bool, str, torch.dtype, tl.dtype, JITFunction, InterpretedFunction)
    ):
        return
    if type(value).__module__.split(".")[0] == "triton":
        return  # Triton's own launch objects (tensor descriptors, configs)
    raise TypeError(
        f"a kernel argument of type {type(value).__name__}: kernels take tensors, numbers, dtypes and "
        "@triton.jit functions, as on a GPU; pass the data as a tensor"
    )


def _outside_a_kernel_refused(name: str) -> None:
    if not _launch["programs"]:
        raise RuntimeError(
            f"{name} called outside a kernel: @triton.jit functions and libdevice run only inside "
            "a launched kernel (as on a GPU); launch the kernel with kernel[grid](...)"
        )


def run_libdevice_in_interpreter() -> None:
    """Honest kernels call `libdevice.tanh`, `libdevice.erf`...; Triton's CPU interpreter has none of them.

    Like device functions, they run only inside a launch's programs (`run_device_functions_only_in_programs`).
    """
    import importlib

    import numpy as np
    import torch
    import triton.language as tl
    from torch.utils._python_dispatch import _disable_current_modes
    from triton.runtime.interpreter import TensorHandle

    def interpreted(name, compute):
        def call(*args, **_builder):
            _outside_a_kernel_refused(f"libdevice.{name}")
            values = [getattr(a, "value", a) for a in args]  # tl.constexpr holds a plain number
            if not all(isinstance(v, (tl.tensor, bool, int, float)) for v in values):
                raise TypeError(f"libdevice.{name} takes Triton tensors and numbers")
            first = next(v for v in values if isinstance(v, tl.tensor))
            with (
                _disable_current_modes()
            ):  # the kernel's own math, as the interpreter's numpy is: not the candidate's torch
                arrays = [
                    torch.from_numpy(np.asarray(v.handle.data if isinstance(v, tl.tensor) else v)) for v in values
                ]
                data = compute(*arrays).numpy()
            if name in _LIBDEVICE_PREDICATES:
                kind = first.type.with_element_ty(tl.int32) if first.type.is_block() else tl.int32
                return tl.tensor(TensorHandle(data.astype(np.int32), tl.int32), kind)
            return tl.tensor(TensorHandle(data.astype(first.handle.data.dtype), first.handle.dtype.scalar), first.type)

        return call

    table = {**_libdevice_as_torch(), **{name: getattr(torch, op) for name, op in _LIBDEVICE_PREDICATES.items()}}
    for module_name in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice"):
        module = importlib.import_module(module_name)
        for name, compute in table.items():
            if hasattr(module, name):
                setattr(module, name, interpreted(name, compute))


_LOOP_ITERATOR = "_tritonrl_loop_iterator"  # the name the rewritten kernels call their loops' iterators through


def count_loops_as_compiled_triton() -> None:
    """Loop variables as compiled Triton makes them: a tensor of the bounds' promoted integer type for `range(...)`
    and `tl.range(...)` (a persistent kernel's `for blk in range(pid, n_blocks, nprog): blk.to(tl.int64)`).

    The interpreter runs a kernel's own Python source, where `range` is Python's and `tl.range` returns a Python
    range: every loop variable is an int, which has no `.to` or `.dtype`, so an honest kernel was a runtime_error
    on CPU only. `tl.static_range` keeps its Python ints: compiled Triton makes its variable a tl.constexpr,
    which computes as an int does.
    """
    import ast
    import builtins

    from triton.runtime import interpreter

    class CompiledLoops(interpreter.ASTTransformer):
        def visit_For(self, node: ast.For) -> ast.For:
            node = self.generic_visit(node)
            if isinstance(node.iter, ast.Call):  # compiled Triton loops only over range(...) and tl.(static_)range(...)
                node.iter.func = ast.Call(
                    func=ast.Name(id=_LOOP_ITERATOR, ctx=ast.Load()), args=[node.iter.func], keywords=[]
                )
            return node

    def loop_iterator(iterator):
        return _typed_range if iterator is builtins.range else iterator

    patch_core, compile_and_exec = interpreter._patch_lang_core, interpreter.FunctionRewriter._compile_and_exec

    def lang_core(lang, scope) -> None:
        patch_core(lang, scope)
        scope.set_attr(lang, "range", _typed_range)

    def rewritten(self, transformed_ast):
        self.fn.__globals__[_LOOP_ITERATOR] = loop_iterator  # where the interpreter puts its own names for the kernel
        return compile_and_exec(self, transformed_ast)

    interpreter._patch_lang_core = lang_core
    interpreter.FunctionRewriter.ast_transformer = CompiledLoops()
    interpreter.FunctionRewriter._compile_and_exec = rewritten


def _typed_range(arg1, arg2=None, step=None, **_compiler_hints):
    """The values of `range(arg1[, arg2[, step]])` in a kernel, each a scalar tensor of the type compiled Triton gives
    the loop variable: the bounds and step promoted to one integer type."""
    import numpy as np
    import triton.language as tl
    from triton.runtime.interpreter import TensorHandle, _get_np_dtype, interpreter_semantic

    start, end = (0, arg1) if arg2 is None else (arg1, arg2)
    bounds = [interpreter_semantic.to_tensor(v) for v in (start, end, 1 if step is None else step)]
    kind = bounds[0].dtype
    for bound in bounds[1:]:
        kind = interpreter_semantic.integer_promote_impl(kind, bound.dtype)
    for value in range(*(int(b.handle.data.item()) for b in bounds)):
        yield tl.tensor(TensorHandle(np.array([value], dtype=_get_np_dtype(kind)), kind), kind)


def combine_whole_blocks_in_interpreter() -> None:
    """`tl.reduce` and `tl.associative_scan` with a `@triton.jit` combine function, in log2(n) calls on whole blocks.

    The interpreter calls the combine function once per element (an argmax over (value, index) tuples of 16 rows
    of 4096 took 7 s a call, and the answer timed out on CPU only). A reduction combines neighbouring pairs, a scan
    each element with the one 1, 2, 4... before it, keeping every call's operands in their order, so any
    associative combine function (as Triton requires) gives the element-by-element result; a GPU combines in a
    tree too. A combine function that computes on scalars only (a Python `if` on its arguments) still runs one
    element at a time.
    """
    from triton.runtime import interpreter

    reduce, scan = interpreter.ReduceOps.generic_reduce, interpreter.ScanOps.generic_scan

    def tree_reduce(self, input):
        try:
            flat = (
                input if self.axis is not None else tuple(self.to_tensor(t.handle.data.ravel(), t.dtype) for t in input)
            )
            reduced = _reduce_pairs(self, flat, self.axis or 0)
        except Exception:
            return reduce(self, input)
        return reduce(self, reduced)  # one element left along the axis: Triton's own code only shapes the result

    def doubling_scan(self, input):
        try:
            return _scan_by_doubling(self, input)
        except Exception:
            return scan(self, input)

    interpreter.ReduceOps.generic_reduce = tree_reduce
    interpreter.ScanOps.generic_scan = doubling_scan


def _reduce_pairs(op, tensors: tuple, axis: int) -> list:
    """`tensors` reduced along `axis` to one element, combining elements 2k and 2k+1 (Triton's block sizes are powers
    of two, so every level pairs them all)."""
    import numpy as np

    arrays = [t.handle.data for t in tensors]
    while (n := arrays[0].shape[axis]) > 1:
        arrays = _combine(
            op,
            tensors,
            [np.take(a, np.arange(0, n, 2), axis) for a in arrays],
            [np.take(a, np.arange(1, n, 2), axis) for a in arrays],
        )
    return [op.to_tensor(a, t.dtype) for a, t in zip(arrays, tensors)]


def _scan_by_doubling(op, tensors: tuple) -> list:
    """The inclusive scan of `tensors` along the op's axis: at step d each element from d on combines the one d
    before it (the left operand) with itself. Blocks keep their power-of-two shape: the first d elements are
    combined with themselves, and that result is dropped."""
    import numpy as np

    arrays = [t.handle.data for t in tensors]
    n, step = arrays[0].shape[op.axis], 1
    later = np.expand_dims(np.arange(n), tuple(d for d in range(arrays[0].ndim) if d != op.axis))
    while step < n:
        before = np.concatenate([np.arange(step), np.arange(n - step)])  # the element d before, or itself
        combined = _combine(op, tensors, [np.take(a, before, op.axis) for a in arrays], arrays)
        arrays = [np.where(later >= step, c, a) for c, a in zip(combined, arrays)]
        step *= 2
    return [op.to_tensor(a, t.dtype) for a, t in zip(arrays, tensors)]


def _combine(op, tensors: tuple, left: list, right: list) -> list:
    """The combine function on blocks of left and right operands, as arrays of the operands' shape and dtypes.

    A Python `if` on a block (the interpreter takes any block as true) or a block result of another shape mean the
    function is not elementwise: that raises, and the caller falls back to Triton's element-by-element loop.
    """
    import numpy as np
    import triton.language as tl

    def scalar_truth(value) -> bool:
        if value.handle.data.size != 1:
            raise TypeError("a combine function branches on a block")
        return bool(value.handle.data)

    truth = tl.tensor.__bool__
    tl.tensor.__bool__ = scalar_truth
    try:
        results = op.combine_fn.fn(*(op.to_tensor(a, t.dtype) for a, t in zip(left + right, tensors + tensors)))
    finally:
        tl.tensor.__bool__ = truth
    results = results if isinstance(results, tuple) else (results,)
    if len(results) != len(tensors):
        raise TypeError("a combine function returns another number of values")

    def block(result, like):
        if isinstance(result, tl.tensor) and result.type.is_block() and result.handle.data.shape != like.shape:
            raise TypeError("a combine function returns a block of another shape")
        data = result.handle.data if isinstance(result, tl.tensor) else tl.core._unwrap_if_constexpr(result)
        return np.broadcast_to(np.asarray(data), like.shape).astype(like.dtype)  # a scalar result: every element

    return [block(r, a) for r, a in zip(results, left)]


def multiply_bf16_values_in_interpreter() -> None:
    """bf16 operands of `tl.dot` widened to fp32 before the interpreter multiplies (it holds bf16 as the uint16 bits:
    an honest bf16 matmul came out 1e10 off). Patched on the class, under the precision check's own patch
    (precision.DotWatch), which still sees the bf16 operands."""
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter

    create_dot = interpreter.InterpreterBuilder.create_dot

    def widened(handle):
        if handle.dtype.scalar != tl.bfloat16:
            return handle
        values = (handle.data.astype(np.uint32) << 16).view(np.float32)
        return interpreter.TensorHandle(values, tl.float32)

    def dot(builder, a, b, *args, **kwargs):
        return create_dot(builder, widened(a), widened(b), *args, **kwargs)

    interpreter.InterpreterBuilder.create_dot = dot


def launched_tensors(kernel, args: tuple, kwargs: dict):
    """The tensors a launch hands its kernel (`launch_values`: in tuples, constexprs and defaults too), and those
    behind Triton's own wrappers (`triton.reinterpret`, tensor descriptors: their `base`)."""
    import torch

    for value in launch_values(kernel, args, kwargs):
        if type(value).__module__.split(".")[0] == "triton":  # only Triton's own types are asked for a base
            value = getattr(value, "base", None)
        if isinstance(value, torch.Tensor):
            yield value
