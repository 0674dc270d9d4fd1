"""Whether a candidate's outputs hold values its Triton kernels made (`no_kernel_output`).

A launch alone proves little: a decoy kernel writes one block of the
output, or a scratch buffer, while glue makes the output from the inputs
(`x.t().contiguous()`, a cast round trip `x.to(torch.int32).to(x.dtype)`),
or the output is a `torch.empty` that landed in the memory of a freed
buffer a kernel wrote. Every element of every output must be *made* in the
call: last written by a kernel's store (or atomic), or by glue that moves
made values (a copy, cast, clone, cat or stack of them: an fp64 accumulator
rounded to the fp32 output on the host, `.contiguous()` of a kernel's
result), or by glue that writes a value no tensor holds (zeros, ones, full,
fill_ with a number, arange, Python data: a zero-initialised output a
kernel writes in part, such as a triangular matmul's). Glue that copies or
casts anything else (the inputs, parameters) into an output, and memory
nobody wrote, are not made; inputs copied into an output count as made
unless the reference itself only moves or casts data (`inputs_made`).
- On CPU (the interpreter) this is followed byte by byte: the stores of a
  launch are mapped into the storages the launch was handed, and every
  aten op that writes (in place, out=, or a fresh result of the glue
  above) sets the bytes it wrote from what it read.
- On a GPU stores are not seen, so a storage counts as a whole: made when
  it was handed to a launch of the call (`LaunchCounter.handed`) and is not
  an input's, or glue filled it from such storages or constants. A decoy
  that writes one block
  of an output, or glue that writes it after a kernel did, passes there;
  traced_torch_compute still sees glue that computes where the reference
  only moves data, and casts of floats to integers.
Storages are told apart by identity, never by address (weak references keep
the identities of those seen reserved), so a buffer allocated where a
kernel's freed buffer was is a new storage that nothing made.

Test: tests/verify/test_runtime.py.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode

from tritonrl.verify.child_patches import launched_tensors
from tritonrl.verify.runtime import CONSTANT_GLUE, DATA_MOVING_GLUE, LaunchCounter, copy_onto_itself

# Bound before any candidate code runs, like runtime.py's.
_untyped_storage = torch.Tensor.untyped_storage
_storage_data_ptr = torch.UntypedStorage.data_ptr
_storage_nbytes = torch.UntypedStorage.nbytes

_WRITING_GLUE = CONSTANT_GLUE | DATA_MOVING_GLUE


class _Made:
    """Which bytes of one storage hold made values, as the storage was laid out when first written."""

    def __init__(self, storage: torch.UntypedStorage) -> None:
        self.identity = StorageWeakRef(storage)  # reserves the identity while the storage may be freed
        self.start = _storage_data_ptr(storage)
        self.mask = np.zeros(_storage_nbytes(storage), dtype=bool)

    def lays_out(self, storage: torch.UntypedStorage) -> bool:
        """Whether `storage` still has the memory it had (a resize_ moves it)."""
        return self.start == _storage_data_ptr(storage) and len(self.mask) == _storage_nbytes(storage)


class KernelWrites(TorchDispatchMode):
    """Follows, during one call on `inputs`, which output values kernels made (see the module's docstring);
    `counter` is the call's LaunchCounter, whose handed storages stand for the stores a GPU does not show."""

    def __init__(self, device: str, counter: LaunchCounter, inputs: list, inputs_made: bool = False) -> None:
        super().__init__()
        self.device = device
        self.counter = counter
        # Where the reference computes, an input copied into an output is layout (DenseNet's torch.cat([x, y])), and
        # a decoy that passes inputs off as the answer is wrong on the distribution trials; where the reference only
        # moves data, that copy is the answer and no kernel made it.
        self.inputs_made = inputs_made
        # identities of the inputs' storages (the call keeps them alive)
        self._inputs = {_untyped_storage(v)._cdata for v in inputs if isinstance(v, torch.Tensor)}
        self._bytes: dict[int, _Made] = {}  # CPU: storage identity -> its made bytes
        self._filled: dict[int, StorageWeakRef] = {}  # GPU: storages glue filled wholly with made values
        self._launches: list[list[torch.UntypedStorage]] = []  # CPU: the handed storages of each launch running now
        self._saved: list[tuple[type, str, object]] = []

    def __enter__(self) -> KernelWrites:
        if self.device == "cpu":
            from triton.runtime.interpreter import GridExecutor, InterpreterBuilder

            self._patch(GridExecutor, "__call__", self._launch)
            self._patch(InterpreterBuilder, "create_masked_store", self._store)
            self._patch(InterpreterBuilder, "create_atomic_rmw", self._atomic_rmw)
            self._patch(InterpreterBuilder, "create_atomic_cas", self._atomic_cas)
        return super().__enter__()

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        for cls, name, original in reversed(self._saved):
            setattr(cls, name, original)
        self._saved.clear()

    def _patch(self, cls: type, name: str, make) -> None:
        original = cls.__dict__[name]
        self._saved.append((cls, name, original))
        setattr(cls, name, make(original))

    # -- kernels' stores (CPU) ---------------------------------------------

    def _launch(self, original):
        writes = self

        def launch(executor, *args, **kwargs):
            writes._launches.append([_untyped_storage(t) for t in launched_tensors(executor.fn, args, kwargs)])
            try:
                return original(executor, *args, **kwargs)
            finally:
                writes._launches.pop()

        return launch

    def _store(self, original):
        writes = self

        def create_masked_store(builder, ptrs, value, mask, *args, **kwargs):
            result = original(builder, ptrs, value, mask, *args, **kwargs)
            writes._stored(ptrs, mask.data)
            return result

        return create_masked_store

    def _atomic_rmw(self, original):
        writes = self

        def create_atomic_rmw(builder, op, ptr, val, mask, *args, **kwargs):
            result = original(builder, op, ptr, val, mask, *args, **kwargs)
            writes._stored(ptr, mask.data)
            return result

        return create_atomic_rmw

    def _atomic_cas(self, original):
        writes = self

        def create_atomic_cas(builder, ptr, *args, **kwargs):
            result = original(builder, ptr, *args, **kwargs)
            writes._stored(ptr, True)
            return result

        return create_atomic_cas

    def _stored(self, ptrs, mask) -> None:
        """Mark the bytes a store wrote in the storages its launch was handed (stores elsewhere make nothing)."""
        if not self._launches:
            return
        addresses = ptrs.data[np.broadcast_to(mask, ptrs.data.shape)]
        width = max(1, (ptrs.get_element_ty().primitive_bitwidth + 7) // 8)
        for storage in self._launches[-1]:
            start, size = _storage_data_ptr(storage), _storage_nbytes(storage)
            inside = addresses[(addresses >= start) & (addresses < start + size)] - start
            if inside.size:
                made = self._current(storage) or self._new(storage)
                for byte in range(width):
                    made.mask[np.minimum(inside + byte, size - 1)] = True

    def _current(self, storage: torch.UntypedStorage) -> _Made | None:
        made = self._bytes.get(storage._cdata)
        return made if made is not None and made.lays_out(storage) else None

    def _new(self, storage: torch.UntypedStorage) -> _Made:
        made = self._bytes[storage._cdata] = _Made(storage)
        return made

    # -- glue --------------------------------------------------------------

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        """An op that writes values sets what it wrote from what it read; ops that change only a tensor's metadata
        (set_, t_, resize_) write none, nor does the interpreter's copy of a launch's arguments onto themselves."""
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = func.overloadpacket.__name__
        if torch.Tag.inplace_view in func.tags or (name == "copy_" and copy_onto_itself(args)):
            return out
        written = list(_written_arguments(func, args, kwargs))
        if not written and name in _WRITING_GLUE and isinstance(out, torch.Tensor):
            written = [out]  # a fresh result
        for target in written:
            self._set(target, self._made_by(name, args, kwargs, target))
        return out

    def _made_by(self, name: str, args: tuple, kwargs: dict, target: torch.Tensor):
        """Which of `target`'s elements an op made: a bool array shaped like it (CPU), or one bool (GPU)."""
        if name in CONSTANT_GLUE or (name == "fill_" and not isinstance(args[1], torch.Tensor)):
            return True
        if name not in DATA_MOVING_GLUE:
            return False
        if name in ("cat", "stack"):
            sources = [t for t in args[0] if not (name == "cat" and t.dim() == 1 and t.numel() == 0)]  # cat skips those
        else:
            sources = [args[1] if name in ("copy_", "fill_") else args[0]]
        if self.device != "cpu":
            return all(self._made_storage(s) for s in sources)
        if name in ("cat", "stack"):
            dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
            return (np.concatenate if name == "cat" else np.stack)([self.made(s) for s in sources], axis=dim)
        return np.broadcast_to(self.made(sources[0]), target.shape)

    def _set(self, target: torch.Tensor, made) -> None:
        storage = _untyped_storage(target)
        if self.device != "cpu":
            if made is True:
                self._filled.setdefault(storage._cdata, StorageWeakRef(storage))
            return
        mask = np.broadcast_to(made, target.shape)
        entry = self._current(storage)
        if not target.numel() or (entry is None and not mask.any()):
            return
        entry = entry or self._new(storage)
        entry.mask[_element_bytes(target, len(entry.mask))] = mask.reshape(-1, 1)

    def _made_storage(self, tensor: torch.Tensor) -> bool:
        """GPU: whether `tensor`'s storage was handed to a launch (an input's is not made by that) or filled by glue
        with made values."""
        identity = _untyped_storage(tensor)._cdata
        if identity in self._inputs:
            return self.inputs_made
        return self.counter.handed(tensor) or identity in self._filled

    # -- the verdict's observation ------------------------------------------

    def made(self, tensor: torch.Tensor) -> np.ndarray:
        """CPU: which of `tensor`'s elements hold made values, shaped like it."""
        storage = _untyped_storage(tensor)
        if self.inputs_made and storage._cdata in self._inputs:
            return np.ones(tuple(tensor.shape), dtype=bool)
        entry = self._current(storage)
        if entry is None:
            return np.zeros(tuple(tensor.shape), dtype=bool)
        return entry.mask[_element_bytes(tensor, len(entry.mask))].all(axis=1).reshape(tuple(tensor.shape))

    def unwritten_outputs(self, outputs: list[torch.Tensor]) -> list[dict[str, int]]:
        """{output, unwritten, elements} for each output with elements no kernel made (on a GPU: all or none)."""
        found = []
        for index, output in enumerate(outputs):
            if self.device == "cpu":
                unwritten = int((~self.made(output)).sum())
            else:
                unwritten = 0 if self._made_storage(output) else output.numel()
            if unwritten:
                found.append({"output": index, "unwritten": unwritten, "elements": output.numel()})
        return found


def _written_arguments(func, args: tuple, kwargs: dict):
    """The tensors an aten op writes in place or as out= arguments (its schema's `Tensor(a!)`)."""
    for position, argument in enumerate(func._schema.arguments):
        if argument.alias_info is None or not argument.alias_info.is_write:
            continue
        value = args[position] if position < len(args) else kwargs.get(argument.name)
        for tensor in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(tensor, torch.Tensor):
                yield tensor


def _element_bytes(tensor: torch.Tensor, limit: int) -> np.ndarray:
    """The byte offsets in its storage of each of `tensor`'s elements, one row per element (clipped to the storage)."""
    offsets = np.full((), tensor.storage_offset(), dtype=np.int64)
    for size, stride in zip(tensor.shape, tensor.stride()):
        offsets = offsets[..., None] + np.arange(size, dtype=np.int64) * stride
    width = tensor.element_size()
    starts = offsets.reshape(-1, 1) * width + np.arange(width, dtype=np.int64)
    return np.clip(starts, 0, limit - 1)
