"""Hand a sandboxed child's output tensors to the verifier: no files, no host copies on the GPU.

The child copies each output into memory it can export as a file
descriptor — GPU memory from the CUDA driver's virtual-memory API
(`cuMemCreate` with a POSIX-descriptor handle) on cuda, a memfd on cpu —
and sends the descriptors over the job directory's UNIX socket (SCM_RIGHTS),
one connection per trial: first a JSON header alone, which the verifier
checks (count, dtypes, shapes, total bytes against what the job may
return) before the child copies anything, then the descriptors, then it
waits for the verifier's acknowledgement. A candidate returning broadcast
views of one element is refused from its header, before gigabytes of
copies. The verifier (`Inbox`) imports the memory,
hands the tensors to a handler (compare, or copy for a reference) and
releases them. Descriptors cross the child's PID, user and mount
namespaces where legacy CUDA IPC handles cannot (the driver rejects a
handle from another PID namespace), and a 6.4 GB output stays on the GPU:
a device-to-device copy in the child, a comparison in the verifier.

Trust: the verifier never exports memory of its own, so nothing a child
sends maps the reference; a child can only send memory it owns, which is
as good as the outputs it returned. Headers are bounded and validated,
every received descriptor is closed, and a CPU descriptor must be a
regular file (never a pipe to block on).

Test: tests/verify/test_handoff.py (CPU; the GPU path on a CUDA machine).
"""

from __future__ import annotations

import array
import ctypes
import json
import math
import os
import socket
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import torch

SOCKET_NAME = "outputs.sock"  # in the job directory; the child connects by this relative name from its cwd
MAX_HEADER_BYTES = 64 << 10
MAX_TENSORS = 64  # outputs per message
ACK_TIMEOUT_S = 600.0  # a 6.4 GB comparison takes milliseconds; this only bounds a verifier that stopped
RECEIVE_TIMEOUT_S = 30.0  # for the header after a child connected
MAX_ERRORS = 8  # refused messages recorded per job (each becomes a reason in the verdict)
MAX_ERROR_CHARS = 300
ACCEPTED, REFUSED = b"\x01", b"\x00"  # the verifier's reply to a header, then to the descriptors
DESCRIPTORS = b"fds"  # the body of the message carrying the descriptors
DTYPES = {  # every dense dtype this torch has: an answer may return any the reference returns
    name: getattr(torch, name)
    for name in (
        "float64 float32 float16 bfloat16 float8_e4m3fn float8_e5m2 float8_e4m3fnuz float8_e5m2fnuz "
        "int64 int32 int16 int8 uint64 uint32 uint16 uint8 bool complex128 complex64 complex32"
    ).split()
    if isinstance(getattr(torch, name, None), torch.dtype)
}

# Bound at import, before any candidate code runs in a child.
_socket = socket.socket
_sendmsg = socket.socket.sendmsg
_memfd_create = os.memfd_create
_write = os.write


class HandoffError(RuntimeError):
    """Outputs could not be handed over: a malformed message, or the driver refused the memory."""


# -- the CUDA driver's virtual-memory API ------------------------------------

_POSIX_FD = 1  # CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
_PINNED = 1  # CU_MEM_ALLOCATION_TYPE_PINNED
_ON_DEVICE = 1  # CU_MEM_LOCATION_TYPE_DEVICE
_READ_WRITE = 3  # CU_MEM_ACCESS_FLAGS_PROT_READWRITE
_OUT_OF_MEMORY = 2  # CUDA_ERROR_OUT_OF_MEMORY
_U64 = ctypes.c_ulonglong
_SIZE = ctypes.c_size_t


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [
        ("compressionType", ctypes.c_ubyte),
        ("gpuDirectRDMACapable", ctypes.c_ubyte),
        ("usage", ctypes.c_ushort),
        ("reserved", ctypes.c_ubyte * 4),
    ]


class _AllocationProp(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("requestedHandleTypes", ctypes.c_int),
        ("location", _Location),
        ("win32HandleMetaData", ctypes.c_void_p),
        ("allocFlags", _AllocFlags),
    ]


class _AccessDesc(ctypes.Structure):
    _fields_ = [("location", _Location), ("flags", ctypes.c_int)]


class _Driver:
    """The few libcuda calls that export, import and map device memory (torch has no public API for them)."""

    _lib: ctypes.CDLL | None = None

    def __init__(self, ordinal: int) -> None:
        if _Driver._lib is None:
            _Driver._lib = ctypes.CDLL("libcuda.so.1")
        self.lib, self.ordinal = _Driver._lib, ordinal
        torch.cuda.init()
        torch.cuda.set_device(ordinal)
        torch.cuda.synchronize(ordinal)  # makes the primary context current in this thread
        self.prop = _AllocationProp(_PINNED, _POSIX_FD, _Location(_ON_DEVICE, ordinal))
        granularity = _SIZE()
        self._check(
            self.lib.cuMemGetAllocationGranularity(ctypes.byref(granularity), ctypes.byref(self.prop), 0), "granularity"
        )
        self.granularity = granularity.value

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            text = ctypes.c_char_p()
            self.lib.cuGetErrorString(status, ctypes.byref(text))
            message = f"CUDA driver: {what} failed ({(text.value or b'?').decode()})"
            # Out of memory is the GPU's state, not the candidate's fault: the pool verifies such a candidate again alone.
            raise torch.OutOfMemoryError(message) if status == _OUT_OF_MEMORY else HandoffError(message)

    def size_for(self, nbytes: int) -> int:
        return max(-(-nbytes // self.granularity), 1) * self.granularity

    def create(self, size: int) -> int:
        handle = _U64()
        self._check(
            self.lib.cuMemCreate(ctypes.byref(handle), _SIZE(size), ctypes.byref(self.prop), _U64(0)), "cuMemCreate"
        )
        return handle.value

    def export(self, handle: int) -> int:
        fd = ctypes.c_int()
        self._check(self.lib.cuMemExportToShareableHandle(ctypes.byref(fd), _U64(handle), _POSIX_FD, _U64(0)), "export")
        return fd.value

    def import_fd(self, fd: int) -> int:
        handle = _U64()
        self._check(
            self.lib.cuMemImportFromShareableHandle(ctypes.byref(handle), ctypes.c_void_p(fd), _POSIX_FD), "import"
        )
        return handle.value

    def release(self, handle: int) -> None:
        self._check(self.lib.cuMemRelease(_U64(handle)), "cuMemRelease")

    @contextmanager
    def mapped(self, handle: int, size: int) -> Iterator[torch.Tensor]:
        """The allocation as a uint8 tensor on this device, unmapped (after a device sync) on exit."""
        pointer = _U64()
        self._check(
            self.lib.cuMemAddressReserve(ctypes.byref(pointer), _SIZE(size), _SIZE(0), _U64(0), _U64(0)), "reserve"
        )
        try:
            self._check(self.lib.cuMemMap(pointer, _SIZE(size), _SIZE(0), _U64(handle), _U64(0)), "cuMemMap")
            try:
                access = _AccessDesc(_Location(_ON_DEVICE, self.ordinal), _READ_WRITE)
                self._check(self.lib.cuMemSetAccess(pointer, _SIZE(size), ctypes.byref(access), _SIZE(1)), "access")
                try:
                    yield torch.as_tensor(_DeviceArray(pointer.value, size), device=f"cuda:{self.ordinal}")
                finally:
                    torch.cuda.synchronize(self.ordinal)  # no kernel may still use the range when it goes
            finally:
                self.lib.cuMemUnmap(pointer, _SIZE(size))
        finally:
            self.lib.cuMemAddressFree(pointer, _SIZE(size))


class _DeviceArray:
    """Raw device bytes in the CUDA array interface, so torch wraps them without a copy."""

    def __init__(self, pointer: int, size: int) -> None:
        self.__cuda_array_interface__ = {"shape": (size,), "typestr": "|u1", "data": (pointer, False), "version": 3}


def _as_bytes(tensor: torch.Tensor) -> torch.Tensor:
    flat = tensor.detach().resolve_conj().resolve_neg().contiguous().reshape(-1)
    return flat.view(torch.uint8) if flat.numel() else torch.empty(0, dtype=torch.uint8, device=flat.device)


def _spec(tensor: torch.Tensor) -> dict:
    return {
        "dtype": str(tensor.dtype).removeprefix("torch."),
        "shape": list(tensor.shape),
        "nbytes": tensor.numel() * tensor.element_size(),
    }


# -- child side ---------------------------------------------------------------


def _export(tensor: torch.Tensor) -> tuple[int, Callable[[], None]]:
    """A descriptor holding a copy of `tensor`'s bytes, and what to release once the verifier has them."""
    data = _as_bytes(tensor)
    if tensor.device.type == "cuda":
        driver = _Driver(tensor.device.index or 0)
        torch.cuda.empty_cache()  # blocks the caching allocator holds are memory cuMemCreate cannot have
        size = driver.size_for(data.numel())
        handle = driver.create(size)
        try:
            with driver.mapped(handle, size) as buffer:
                buffer[: data.numel()].copy_(data)
            return driver.export(handle), lambda: driver.release(handle)
        except BaseException:
            driver.release(handle)
            raise
    fd = _memfd_create("tritonrl-output", os.MFD_CLOEXEC)
    view = memoryview(data.cpu().numpy()).cast("B")
    while view:
        view = view[_write(fd, view) :]
    return fd, lambda: None


def send_outputs(label: int | str, tensors: list[torch.Tensor], socket_path: str = SOCKET_NAME) -> None:
    """In the child: hand `tensors` to the verifier as trial `label`; returns once it has them.

    Nothing is copied until the verifier has accepted the header (a refused one raises here).
    """
    header = json.dumps({"label": label, "tensors": [_spec(t) for t in tensors]}).encode()
    exported = []
    with _socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as connection:
        connection.settimeout(ACK_TIMEOUT_S)
        connection.connect(socket_path)
        _sendmsg(connection, [header])
        try:
            if connection.recv(1) == ACCEPTED:
                for tensor in tensors:
                    exported.append(_export(tensor))
                fds = array.array("i", [fd for fd, _ in exported])
                _sendmsg(connection, [DESCRIPTORS], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)] if exported else [])
                if connection.recv(1) == ACCEPTED:
                    return
        finally:
            for fd, release in exported:
                os.close(fd)
                release()
    raise HandoffError(f"the verifier did not take outputs {label}")


# -- verifier side ------------------------------------------------------------


def _parse(header: bytes) -> tuple[int | str, list[dict]]:
    message = json.loads(header)
    if not isinstance(message, dict) or not isinstance(message.get("tensors"), list):
        raise HandoffError("the message is not {label, tensors}")
    label, specs = message.get("label"), message["tensors"]
    if not isinstance(label, (int, str)) or isinstance(label, bool):
        raise HandoffError(f"bad label {label!r}")
    if len(specs) > MAX_TENSORS:
        raise HandoffError(f"{len(specs)} tensors described, more than the {MAX_TENSORS} allowed")
    for spec in specs:
        if not isinstance(spec, dict) or spec.get("dtype") not in DTYPES:
            raise HandoffError(f"bad tensor description {spec!r}")
        shape, nbytes = spec.get("shape"), spec.get("nbytes")
        if not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape) or type(nbytes) is not int:
            raise HandoffError(f"bad tensor description {spec!r}")
        if nbytes != math.prod(shape) * DTYPES[spec["dtype"]].itemsize:
            raise HandoffError(f"{nbytes} bytes do not make a {spec['dtype']} tensor of shape {shape}")
    return label, specs


@contextmanager
def _imported(fd: int, spec: dict, device: str) -> Iterator[torch.Tensor]:
    """One received tensor; on cuda it is the child's memory mapped here, valid inside the block only."""
    nbytes, dtype, shape = spec["nbytes"], DTYPES[spec["dtype"]], spec["shape"]
    if device.startswith("cuda"):
        driver = _Driver(torch.device(device).index or 0)
        handle = driver.import_fd(fd)
        try:
            with driver.mapped(handle, driver.size_for(nbytes)) as buffer:
                yield buffer[:nbytes].view(dtype).reshape(shape)
        finally:
            driver.release(handle)
        return
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size < nbytes:
        raise HandoffError("a CPU output descriptor is not a file holding the described bytes")
    data = torch.empty(nbytes, dtype=torch.uint8)
    view, offset = memoryview(data.numpy()), 0
    while offset < nbytes:
        read = os.preadv(fd, [view[offset:]], offset)
        if read <= 0:
            raise HandoffError("a CPU output descriptor ended early")
        offset += read
    yield data.view(dtype).reshape(shape)


class Inbox:
    """The verifier's end of one job's socket: receives trials and calls `handler(label, tensors)` for each.

    The tensors are valid only during the call (a handler keeps copies).
    The first message for a label counts; a malformed one is recorded in
    `errors` (label or "?" -> message) and acknowledged as refused; labels
    refused because the GPU ran out of memory are also in `out_of_memory`.
    """

    def __init__(
        self, job_dir: Path, device: str, handler: Callable[[int | str, list[torch.Tensor]], None], limit: int
    ) -> None:
        """`limit`: the most bytes one message's tensors may hold together (they are all imported at once)."""
        self.device, self.handler, self.limit = device, handler, limit
        self.errors: dict[str, str] = {}
        self.out_of_memory: set[str] = set()
        self.seen: set = set()
        self._stop = threading.Event()
        self._current: socket.socket | None = None
        self._listener = _socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        directory = os.open(job_dir, os.O_PATH)
        try:  # through /proc/self/fd: socket paths are limited to 108 bytes, job roots are not
            self._listener.bind(f"/proc/self/fd/{directory}/{SOCKET_NAME}")
        finally:
            os.close(directory)
        self.path = job_dir / SOCKET_NAME
        self._listener.listen(4)
        self._listener.settimeout(0.05)
        self._thread = threading.Thread(target=self._serve, name=f"inbox-{job_dir.name}", daemon=True)

    def __enter__(self) -> Inbox:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        """Called once the job has ended: connections it left open or queued are cut, not waited for."""
        self._stop.set()
        current = self._current
        if current is not None:
            try:
                current.shutdown(socket.SHUT_RDWR)  # a header still missing never comes; a handler running finishes
            except OSError:
                pass
        self._thread.join()
        self._listener.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with connection:
                self._current = connection
                if not self._stop.is_set():
                    self._receive(connection)
                self._current = None

    def _receive(self, connection: socket.socket) -> None:
        fds: list[int] = []  # every descriptor received, closed at the end
        label: int | str = "?"
        try:
            header = self._message(connection, RECEIVE_TIMEOUT_S, fds)
            if fds:
                raise HandoffError("descriptors came with the header, before the verifier accepted it")
            label, specs = _parse(header)
            total = sum(spec["nbytes"] for spec in specs)
            if total > self.limit:
                raise HandoffError(
                    f"outputs of {total} bytes exceed what this job's outputs may hold (a few times the reference's)"
                )
            if label in self.seen:
                raise HandoffError(f"outputs {label} were sent twice")
            self.seen.add(label)
            connection.sendall(ACCEPTED)
            if self._message(connection, ACK_TIMEOUT_S, fds) != DESCRIPTORS or len(fds) != len(specs):
                raise HandoffError(f"{len(specs)} tensors described, {len(fds)} descriptors sent")
            self._deliver(label, specs, fds)
            connection.sendall(ACCEPTED)
        except Exception as exc:  # a malformed message, or the handler failing on what it got
            key = str(label)[:40]
            if len(self.errors) < MAX_ERRORS:
                self.errors.setdefault(key, str(exc)[:MAX_ERROR_CHARS])
            if isinstance(exc, torch.OutOfMemoryError):
                self.out_of_memory.add(key)
            try:
                connection.sendall(REFUSED)
            except OSError:
                pass
        finally:
            for fd in fds:
                os.close(fd)

    @staticmethod
    def _message(connection: socket.socket, timeout_s: float, fds: list[int]) -> bytes:
        """One message's body; the descriptors it carried are appended to `fds`."""
        connection.settimeout(timeout_s)
        body, ancillary, flags, _ = connection.recvmsg(
            MAX_HEADER_BYTES, socket.CMSG_SPACE(MAX_TENSORS * 4), socket.MSG_CMSG_CLOEXEC
        )
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.extend(array.array("i", data[: len(data) - len(data) % 4]))
        if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
            raise HandoffError("the message was larger than allowed")
        return body

    def _deliver(self, label: int | str, specs: list[dict], fds: list[int]) -> None:
        with ExitStack() as stack:
            tensors = [stack.enter_context(_imported(fd, spec, self.device)) for fd, spec in zip(fds, specs)]
            self.handler(label, tensors)
