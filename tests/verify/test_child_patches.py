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
    for owner, name in ((interpreter.GridExecutor, "__call__"), (interpreter.InterpretedFunction, "__call__"),
                        (interpreter.interpreter_builder, "set_grid_dim"), (interpreter.interpreter_builder, "set_grid_idx")):
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
