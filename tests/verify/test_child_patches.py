"""What a candidate's child changes in torch and Triton before candidate code runs."""

import os

import pytest
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

from tritonrl.verify import child_patches

needs_interpreter = pytest.mark.skipif(
    os.environ.get("TRITON_INTERPRET") != "1", reason="the program order is the CPU interpreter's"
)


def test_printed_tensors_show_shape_and_dtype_but_no_values(monkeypatch):
    monkeypatch.setattr(torch._tensor_str, "_str", torch._tensor_str._str)  # restored after the test
    x = torch.tensor([1.25, -3.5])
    child_patches.hide_tensor_values()
    for text in (str(x), repr(x), f"{x}", "{!r}".format(x), str(x.view(torch.int32))):
        assert "1.25" not in text and "3.5" not in text and "1067450368" not in text
        assert child_patches.HIDDEN_VALUES in text and "shape=(2,)" in text
    assert "dtype=torch.float32" in str(x)


@triton.jit
def _record_order(ticket_ptr, order_ptr):
    pid = tl.program_id(0) * tl.num_programs(1) + tl.program_id(1)
    ticket = tl.atomic_add(ticket_ptr, 1)
    tl.store(order_ptr + ticket, pid)


def _program_order(grid: tuple[int, int]) -> list[int]:
    ticket = torch.zeros(1, dtype=torch.int32)
    order = torch.full((grid[0] * grid[1],), -1, dtype=torch.int32)
    _record_order[grid](ticket, order)
    return order.tolist()


@needs_interpreter
def test_interpreter_runs_every_program_once_in_a_seeded_order(monkeypatch):
    from triton.runtime.interpreter import interpreter_builder

    for name in ("set_grid_dim", "set_grid_idx"):
        monkeypatch.setattr(interpreter_builder, name, getattr(interpreter_builder, name))
    assert _program_order((4, 8)) == list(range(32))  # Triton's own interpreter: in order
    child_patches.run_programs_in_secret_order(seed=7)
    first = _program_order((4, 8))
    assert sorted(first) == list(range(32)) and first != list(range(32))
    assert _program_order((4, 8)) != first  # each launch draws its own order


def _keep_launch_machinery(monkeypatch, interpreter) -> None:
    """Restore what the patches replace once the test ends."""
    for owner, name in (
        (interpreter.GridExecutor, "__call__"),
        (interpreter.InterpretedFunction, "__call__"),
        (interpreter.interpreter_builder, "set_grid_dim"),
        (interpreter.interpreter_builder, "set_grid_idx"),
    ):
        monkeypatch.setattr(owner, name, getattr(owner, name))


@triton.jit
def _libdevice_math(x_ptr, tanh_ptr, erf_ptr, pow_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(tanh_ptr + offsets, libdevice.tanh(x), mask=mask)
    tl.store(erf_ptr + offsets, libdevice.erf(x), mask=mask)
    tl.store(pow_ptr + offsets, libdevice.pow(x, 2.0), mask=mask)


@needs_interpreter
def test_interpreter_computes_libdevice_functions(monkeypatch):
    from triton.language.extra.cuda import libdevice as cuda_libdevice

    from triton.runtime import interpreter

    for module in (libdevice, cuda_libdevice):
        for name in vars(module).copy():
            monkeypatch.setattr(module, name, getattr(module, name))
    _keep_launch_machinery(monkeypatch, interpreter)
    child_patches.run_device_functions_only_in_programs()
    child_patches.run_libdevice_in_interpreter()
    x = torch.linspace(-3, 3, 50)
    tanh, erf, power = (torch.empty_like(x) for _ in range(3))
    _libdevice_math[(1,)](x, tanh, erf, power, x.numel(), BLOCK=64)
    assert torch.allclose(tanh, torch.tanh(x)) and torch.allclose(erf, torch.erf(x)) and torch.allclose(power, x * x)


@triton.jit
def _double(x):
    return x * 2


@triton.jit
def _double_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, _double(tl.load(x_ptr + offsets)))


@needs_interpreter
def test_jit_functions_run_only_inside_a_launched_kernel(monkeypatch):
    from triton.runtime import interpreter

    _keep_launch_machinery(monkeypatch, interpreter)
    child_patches.run_programs_in_secret_order(seed=1)
    child_patches.run_device_functions_only_in_programs()
    x, out = torch.arange(8.0), torch.empty(8)
    _double_kernel[(1,)](x, out, BLOCK=8)  # a device function called from a kernel's program
    assert torch.equal(out, x * 2)

    def grid(meta):
        _double(meta["x_ptr"])  # host code: refused, as on a GPU
        return (1,)

    with pytest.raises(RuntimeError, match="called outside a kernel"):
        _double_kernel[grid](x, out, BLOCK=8)


def _keep_interpreter_rewrites(monkeypatch, interpreter) -> None:
    """Restore the loop and reduction machinery the patches replace, and rewrite kernels afresh (rewrites are cached)."""
    monkeypatch.setattr(interpreter, "_patch_lang_core", interpreter._patch_lang_core)
    for name in ("ast_transformer", "_compile_and_exec"):
        monkeypatch.setattr(interpreter.FunctionRewriter, name, getattr(interpreter.FunctionRewriter, name))
    monkeypatch.setattr(interpreter.InterpretedFunction, "rewritten_fn", {})
    monkeypatch.setitem(globals(), child_patches._LOOP_ITERATOR, None)  # removed again after the test
    for owner, name in ((interpreter.ReduceOps, "generic_reduce"), (interpreter.ScanOps, "generic_scan")):
        monkeypatch.setattr(owner, name, getattr(owner, name))


@triton.jit
def _grid_stride_double(x_ptr, out_ptr, n, n_blocks, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    for blk in range(pid, n_blocks, tl.num_programs(0)):
        offs = blk.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
    for i in tl.range(0, 1):
        tl.store(out_ptr + i.to(tl.int64), tl.load(x_ptr + i) * 2)  # tl.range's variable is a tensor too
    for j in tl.static_range(1):
        tl.store(out_ptr + j, tl.load(x_ptr + j) * 2)  # tl.static_range's stays a plain number (a constexpr)


@needs_interpreter
def test_loop_variables_are_tensors_as_in_compiled_triton(monkeypatch):
    from triton.runtime import interpreter

    _keep_interpreter_rewrites(monkeypatch, interpreter)
    x, out = torch.randn(1000), torch.empty(1000)
    with pytest.raises(Exception, match="'int' object has no attribute 'to'|0-dimensional arrays"):
        _grid_stride_double[(3,)](x, out, 1000, 16, BLOCK=64)  # Triton's interpreter counts in ints (< 3.7 with
        # numpy >= 2.4: fails earlier, on the loop's tensor bounds)
    monkeypatch.setattr(interpreter.InterpretedFunction, "rewritten_fn", {})
    child_patches.count_loops_as_compiled_triton()
    _grid_stride_double[(3,)](x, out, 1000, 16, BLOCK=64)
    assert torch.equal(out, x * 2)
    values = list(child_patches._typed_range(tl.constexpr(2), 2**33, 2**33))
    assert [v.dtype for v in values] == [tl.int64] and values[0].handle.data.item() == 2  # the bounds' promoted type


@triton.jit
def _first_max(value_a, index_a, value_b, index_b):
    keep_a = (value_a > value_b) | ((value_a == value_b) & (index_a < index_b))
    return tl.where(keep_a, value_a, value_b), tl.where(keep_a, index_a, index_b)


@triton.jit
def _first_max_by_branch(value_a, index_a, value_b, index_b):
    if value_b > value_a:  # a combine function written for scalars, as compiled Triton calls it
        return value_b, index_b
    return value_a, index_a


@triton.jit
def _argmax_and_running_max(x_ptr, index_ptr, running_ptr, keep_ptr, COLS: tl.constexpr, BY_BRANCH: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, COLS)
    values = tl.load(x_ptr + row * COLS + cols)
    if BY_BRANCH:
        _, index = tl.reduce((values, cols), 0, _first_max_by_branch)
    else:
        _, index = tl.reduce((values, cols), 0, _first_max)
    tl.store(index_ptr + row, index)
    running, _ = tl.associative_scan((values, cols), 0, _first_max)
    tl.store(running_ptr + row * COLS + cols, running)
    _, kept = tl.reduce((values[None, :], cols[None, :]), None, _first_max, keep_dims=True)
    tl.store(keep_ptr + row, tl.max(kept))


@needs_interpreter
def test_combine_functions_run_on_whole_blocks_with_the_element_by_element_results(monkeypatch):
    from triton.runtime import interpreter

    _keep_interpreter_rewrites(monkeypatch, interpreter)
    calls = []
    combine = child_patches._combine
    monkeypatch.setattr(child_patches, "_combine", lambda *args: calls.append(1) or combine(*args))
    child_patches.combine_whole_blocks_in_interpreter()
    x = torch.randn(4, 64)
    x[1] = 1.0  # ties everywhere: the first index wins
    x[2, [5, 40]] = 9.0
    index, kept = torch.empty(4, dtype=torch.int32), torch.empty(4, dtype=torch.int32)
    running = torch.empty(4, 64)
    for by_branch in (False, True):
        calls.clear()
        _argmax_and_running_max[(4,)](x, index, running, kept, COLS=64, BY_BRANCH=by_branch)
        assert index.tolist() == torch.argmax(x, dim=1).tolist() == kept.tolist()
        assert torch.equal(running, torch.cummax(x, dim=1).values)
        # log2(64) calls per reduction and scan, not one per element; the scalar combine fails on its first block and
        # runs element by element as Triton's interpreter runs it
        assert len(calls) == 4 * (1 + 6 + 6 if by_branch else 6 + 6 + 6)


@triton.jit
def _square_dot(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    rows = tl.arange(0, N)
    at = rows[:, None] * N + rows[None, :]
    tl.store(c_ptr + at, tl.dot(tl.load(a_ptr + at), tl.load(b_ptr + at)).to(tl.bfloat16))


@needs_interpreter
def test_bf16_dots_multiply_the_values_not_their_bits(monkeypatch):
    from triton.runtime import interpreter

    monkeypatch.setattr(interpreter.InterpreterBuilder, "create_dot", interpreter.InterpreterBuilder.create_dot)
    child_patches.multiply_bf16_values_in_interpreter()
    a, b = torch.randn(16, 16, dtype=torch.bfloat16), torch.randn(16, 16, dtype=torch.bfloat16)
    c = torch.empty_like(a)
    _square_dot[(1,)](a, b, c, N=16)
    assert torch.allclose(c.float(), a.float() @ b.float(), atol=0.05, rtol=0.02)


def test_a_tensor_descriptor_hands_its_kernel_the_tensor_behind_it():
    """An fp16 copy behind a host-side TensorDescriptor is judged as one handed to the kernel itself (precision.py)."""
    from triton.tools.tensor_descriptor import TensorDescriptor

    half = torch.zeros(64, dtype=torch.float16)
    handed = list(child_patches.launch_values(_double_kernel, (TensorDescriptor.from_tensor(half, [16]),), {}))
    assert any(value is half for value in handed)
