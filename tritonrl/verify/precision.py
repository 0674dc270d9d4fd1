"""The precision policy for fp32 problems: judge what each dot and cast really computes, not how lucky its error was.

Why: a TF32 or fp16 tensor-core dot in an fp32 problem has an error near
the fp32 tolerance, so it passed or failed from run to run (and from
problem to problem, with the size of K). Reading the dot's operand types and
input precision from what Triton executes makes the verdict the same on
every run and on both devices.

How: `DotWatch` runs in the sandboxed child around each trial, like the
launch counter, and records every dot the launched kernels execute:
- CPU (TRITON_INTERPRET=1): it wraps the interpreter builder's
  `create_dot` / `create_dot_scaled`, which receive the operands (with their
  Triton dtypes) and the input precision Triton resolved. That precision is
  tf32 for a plain `tl.dot` there too, as on a GPU, although the interpreter
  then computes in fp32, so both devices are judged alike.
- GPU: it reads the TTIR of the compiled kernel that `JITFunction.run`
  returns: each `tt.dot` line carries its operand types and an
  `inputPrecision` attribute (absent when it is ieee, the default). A
  launched kernel whose IR cannot be read is recorded as unknown, and an
  fp32 problem then fails closed.
`precision_reason` (in the caller) applies `verify.precision`: a problem
whose float inputs and outputs are all fp32 (or fp64) needs dots on
fp32/fp64 operands, and under `strict` also input_precision ieee on fp32
operands; `tf32` allows TF32-class precisions (tf32, tf32x3, bf16x3, ...),
as torch's allow_tf32 does, but never operands rounded to fp16/bf16/fp8.
Problems with fp16/bf16 data may use any dot. Under `tf32` the comparison
also gives fp32 outputs TF32's tolerance (runtime.tolerance), so a TF32 dot
passes by policy, not by luck.

Narrowing casts: rounding fp32 data to fp16/bf16/fp8 and computing on it
(`x.half()` on the host, `a.to(tl.float16).to(tl.float32)` in a kernel, a
cumsum carry kept in fp16) loses the same precision without any half dot,
and its error is again near the tolerance. So every such cast the candidate
executes is a downgrade in an fp32 problem, under both policies (tf32 allows
only TF32 dots). DotWatch records the kernels' casts: on CPU the builder's
`create_fp_trunc` / `create_fp_to_fp`, on GPU the TTIR's `arith.truncf` and
`tt.fp_to_fp`; the host's casts come from runtime.AtenTrace (`aten._to_copy`,
`aten.copy_`). Integer tensors hold integers (an index table, a mask), not the problem's
float data, unless the host made them by viewing wider elements in narrower
pieces (`x.view(torch.int16)`: fp32 bits read in halves) or a kernel turns them back
into floats by their bits: a bitcast of 16-bit integers to a float (fp16 bits
kept in int16), or an integer-to-float bitcast of a value computed from
16-bit integers the kernel loaded (bf16 bits shifted into place). That is
data flow, not the kernel's arguments: a value whose *address* came from an
int16 lane table is the problem's own fp32 data, and bitcasting its bits (a
ReLU on the sign bit) is exact. DotWatch follows it on CPU by marking the
interpreter's values (`_TAINT`), on GPU through the TTIR's SSA values
(`narrow_values`); a value stored to memory and loaded again keeps it when
the same kernel loads integers after storing such a value. So an int16 lane
table is fine, an int16 copy of a weight's bf16 bits is not.
fp64 -> fp32 is no narrowing to half here, and a dot's
`out_dtype` needs no check: Triton gives fp32 operands an fp32 result
whatever out_dtype says (semantic.dot), so a narrower result comes only
from narrow operands, which are judged already.

Test: tests/verify/test_precision.py (on a GPU host it also compiles and
reads real TTIR); the fixtures tests/verify/candidates/hacks/14_*_dot_*.py
and 14_*_cast_*.py, and honest/13_matmul_dot_precision_forms.py and
honest/42_matmul_dot_out_dtype_fp16.py through tests/verify/test_hacks.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import torch

from tritonrl.config import PRECISIONS
from tritonrl.verify.child_patches import launch_values
from tritonrl.verify.result import Reason, ReasonCode

_FULL_OPERANDS = {"fp32", "fp64"}  # Triton dtype names of dot operands that keep fp32 data exact
_FULL_TENSORS = {"float32", "float64"}  # torch dtype names of an fp32 problem's float tensors
_MLIR_TYPES = {
    "f64": "fp64", "f32": "fp32", "f16": "fp16", "bf16": "bf16", "i8": "int8",
    "f8E4M3FN": "fp8e4nv", "f8E5M2": "fp8e5", "f8E4M3FNUZ": "fp8e4b8", "f8E5M2FNUZ": "fp8e5b16",
}
_DOT_LINE = re.compile(r"\btt\.dot(_scaled)?\s")
_ELEMENT = re.compile(r"tensor<(?:\d+x)+([A-Za-z][A-Za-z0-9]*)")
_PRECISION = re.compile(r"\binputPrecision\s*=\s*(\w+)")
_SCALED_FORMATS = re.compile(r"\blhs\s*=\s*(\w+)\s+rhs\s*=\s*(\w+)")
_CAST_LINE = re.compile(r"\b(?:arith\.truncf|tt\.fp_to_fp)\s")
# A pointer made to point at narrower elements (`p.to(tl.pointer_type(tl.int16))`): fp32 data read in halves.
_POINTER_CAST_LINE = re.compile(r"\btt\.(?:bitcast|int_to_ptr)\s")
_POINTER_TYPE = re.compile(r"!tt\.ptr<(\w+)")
# A value bitcast (`h.to(tl.float16, bitcast=True)`): integer bits made a float.
_BITCAST_VALUE = re.compile(r"\btt\.bitcast\s[^:]*:\s*(?:tensor<(?:\d+x)+)?(i\d+)[^-]*->\s*(?:tensor<(?:\d+x)+)?(\w+)")


def _triton_name(mlir: str) -> str:
    """f32 -> fp32, i16 -> int16, f8E4M3FN -> fp8e4nv: MLIR element types as Triton names them."""
    return _MLIR_TYPES.get(mlir) or (f"int{mlir[1:]}" if mlir.startswith("i") else mlir)
_FLOAT_TYPE = re.compile(r"(?:tensor<(?:\d+x)+|\b)(f64|f32|f16|bf16|f8E\w+?)(?=[\s,>]|$)")


def check_policy(policy: str) -> None:
    if policy not in PRECISIONS:
        raise ValueError(f"precision must be one of {list(PRECISIONS)} (verify.precision), not {policy!r}")


def _enum_name(value) -> str:
    """ir.INPUT_PRECISION.TF32x3 -> 'tf32x3', ScaleDotElemTypeTY.E4M3 -> 'e4m3' (a string stays itself, lower-cased)."""
    return str(getattr(value, "name", value)).lower()


def _kernel_name(fn) -> str:
    return getattr(fn, "__name__", None) or getattr(getattr(fn, "fn", None), "__name__", "?")


def parse_ttir(text: str) -> list[tuple[str, str, str]]:
    """(a dtype, b dtype, input precision) of every `tt.dot` / `tt.dot_scaled` in TTIR (or TTGIR) text.

    Operand types are Triton dtype names (fp32, fp16, bf16, fp8e4nv, ...);
    a dot_scaled has its operand formats (e4m3, e2m1, ...) and precision 'scaled'.
    Raises ValueError on a dot line it cannot read, so the caller can fail closed.
    """
    dots = []
    for line in text.splitlines():
        match = _DOT_LINE.search(line)
        if not match:
            continue
        if match.group(1):
            formats = _SCALED_FORMATS.search(line)
            if not formats:
                raise ValueError(f"unreadable tt.dot_scaled: {line.strip()[:200]}")
            dots.append((formats.group(1), formats.group(2), "scaled"))
            continue
        types = _ELEMENT.findall(line[match.end():])
        if len(types) < 2:
            raise ValueError(f"unreadable tt.dot: {line.strip()[:200]}")
        precision = _PRECISION.search(line)
        a, b = (_MLIR_TYPES.get(t, t) for t in types[:2])
        dots.append((a, b, precision.group(1).lower() if precision else "ieee"))
    return dots


def narrowing(src: str, dst: str) -> bool:
    """Whether a cast between Triton dtypes rounds fp32/fp64 data to fp16/bf16/fp8."""
    return src in _FULL_OPERANDS and (dst in ("fp16", "bf16") or dst.startswith("fp8"))


def narrowing_pointer(src: str, dst: str) -> bool:
    """Whether a pointer cast makes a pointer to narrower elements than it had (fp32 -> int16, int32 -> int16 as
    a second step), or one to 16-bit or narrower elements from an integer address ("int"): the kernel then
    reads data in pieces. (Triton's own int1 -> int8 for bool tensors widens.)"""
    if src == "int":
        return _bits(dst) <= 16
    return _bits(dst) < _bits(src)


def _bits(name: str) -> int:
    """Element width of a Triton dtype name (fp32, int16, uint8, fp8e4nv, int1...); 0 when unknown."""
    return 8 if name.startswith("fp8") else int("".join(c for c in name if c.isdigit()) or 0)


def narrow_argument(dtype: torch.dtype) -> bool:
    """Whether a kernel's tensor argument, in an fp32 problem, holds fp32 data narrowed: a float of 16 bits or fewer.
    Integers are integers: a host view of floats as narrower integers is judged where it is made (AtenTrace), their
    bits made floats again in the kernel (`bits_downgrade`)."""
    return dtype.is_floating_point and dtype.itemsize <= 2


def bits_downgrade(src: str, from_narrow_loads: bool) -> bool:
    """Whether a kernel's integer-to-float bitcast from `src` (a Triton integer dtype name) decodes narrowed float
    data: 16-bit (or narrower) integers made a float, or a value computed from 16-bit integers the kernel loaded."""
    return _bits(src) <= 16 or from_narrow_loads


_NARROW_INTEGERS = ("int16", "uint16")  # Triton dtype names of loaded integers that may hold fp16/bf16 bits
_SSA_NAME = re.compile(r"%([\w.$-]+)(?:#\d+)?")
_SSA_DEFS = re.compile(r"^\s*((?:%[\w.$-]+(?::\d+)?(?:,\s*)?)+)\s=\s")
_LOAD_OPS = re.compile(r"\btt\.(?:load|descriptor_load|descriptor_gather|atomic_rmw|atomic_cas)\b")
_STORE_OPS = re.compile(r"\btt\.(?:store|descriptor_store|descriptor_scatter|atomic_rmw|atomic_cas)\b")
_REGION_END = re.compile(r"\b(?:scf\.yield|scf\.condition|tt\.reduce\.return|tt\.scan\.return)\b")
_BLOCK_ARGS = re.compile(r"^\s*\^bb\d+")
_BINDING = re.compile(r"%([\w.$-]+)\s=\s")  # iter_args(%arg6 = %cst): a region's own values


def narrow_values(text: str) -> set[str]:
    """The SSA values of TTIR text computed from 16-bit integers a load read (not from an address computed so).

    A load's value comes from its element type alone, any other op's from its operands; a region op (scf.for,
    scf.if, tt.reduce) and its block arguments take what its operands or its yields carry, repeated until nothing
    changes (loops). Integers loaded after the kernel stored such a value may be that value again.
    """
    lines = [(raw.strip(), raw.split(" loc(")[0]) for raw in text.splitlines()]  # braces and all, and without locations
    narrow: set[str] = set()
    stored = False
    while True:
        before, regions = len(narrow) + stored, [set()]
        for raw, line in lines:
            defs = {m.group(1) for m in _SSA_NAME.finditer(d.group(1))} if (d := _SSA_DEFS.match(line)) else set()
            body = line[d.end():] if d else line
            uses = {m.group(1) for m in _SSA_NAME.finditer(body)}
            closed = regions.pop() if raw.startswith("}") and len(regions) > 1 else None
            if raw.endswith("{"):  # a region op, or `} else {`: its results and block arguments
                region = closed if closed is not None else {*defs, *(m.group(1) for m in _BINDING.finditer(body))}
                regions.append(region)
                if uses - region & narrow:
                    narrow |= region
                continue
            if _BLOCK_ARGS.match(line):
                regions[-1].update(uses)
                continue
            _, _, types = body.partition(" : ")
            if _LOAD_OPS.search(body):
                if re.search(r"\bi16\b", types) or (stored and re.search(r"\bi(?:8|16|32|64)\b", types)):
                    narrow |= defs
            elif uses & narrow:
                narrow |= defs
                if _REGION_END.search(body):
                    narrow |= regions[-1]
            if _STORE_OPS.search(body) and uses & narrow:
                stored = True
        if len(narrow) + stored == before:
            return narrow


def parse_bitcasts(text: str) -> list[tuple[str, str, bool]]:
    """(integer, float, from narrow loads) of every value `tt.bitcast` from integers to a float in TTIR text; the
    last says whether the integers were computed from 16-bit integers the kernel loaded (`narrow_values`)."""
    found = []
    narrow = None
    for line in text.splitlines():
        match = _BITCAST_VALUE.search(line.split(" loc(")[0])
        if match and match.group(2) in _MLIR_TYPES and not match.group(2).startswith("i"):
            narrow = narrow_values(text) if narrow is None else narrow
            operand = _SSA_NAME.search(line.split("tt.bitcast", 1)[1])
            found.append((_triton_name(match.group(1)), _MLIR_TYPES[match.group(2)], bool(operand and operand.group(1) in narrow)))
    return found


def parse_casts(text: str) -> list[tuple[str, str]]:
    """(source, destination) Triton dtypes of every narrowing `arith.truncf` / `tt.fp_to_fp` in TTIR text, and
    ('ptr<fp32>', 'ptr<int16>') for a pointer cast to narrower elements (`tt.bitcast`, `tt.int_to_ptr`).

    Raises ValueError on a cast line whose types it cannot read, so the caller can fail closed.
    """
    casts = []
    for line in text.splitlines():
        if _POINTER_CAST_LINE.search(line):
            _, colon, types = line.split(" loc(")[0].partition(" : ")
            pointers = _POINTER_TYPE.findall(types)
            if pointers:
                src = pointers[0] if len(pointers) > 1 else "int"
                src, dst = (_triton_name(t) if t != "int" else t for t in (src, pointers[-1]))
                if narrowing_pointer(src, dst):
                    casts.append((f"ptr<{src}>", f"ptr<{dst}>"))
            continue
        match = _CAST_LINE.search(line)
        if not match:
            continue
        _, colon, types = line[match.end():].split(" loc(")[0].partition(" : ")
        found = _FLOAT_TYPE.findall(types) if colon else []
        if len(found) != 2:
            raise ValueError(f"unreadable cast: {line.strip()[:200]}")
        src, dst = (_MLIR_TYPES.get(t, t) for t in found)
        if narrowing(src, dst):
            casts.append((src, dst))
    return casts


_TAINT = "_tritonrl_from_narrow_loads"  # set on an interpreter value computed from 16-bit integer loads


def _narrow(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_narrow(v) for v in value)
    return getattr(value, _TAINT, False)


def _mark(result, narrow: bool) -> None:
    for value in result if isinstance(result, (list, tuple)) else (result,):
        if narrow and hasattr(value, "__dict__"):
            setattr(value, _TAINT, True)


class DotWatch:
    """Records the dots and narrowing casts of the Triton kernels launched while active (as LaunchCounter records launches)."""

    def __init__(self, device: str) -> None:
        self.device = device
        self._found: dict[tuple, dict] = {}  # each distinct dot seen, in order
        self._running: list[str] = []  # kernels being interpreted (CPU)
        self._read: set[int] = set()  # compiled kernels already parsed (GPU)
        self._saved: list[tuple[type, str, object]] = []
        self._stored: set[str] = set()  # kernels that stored a value computed from 16-bit integer loads (CPU)

    def __enter__(self) -> DotWatch:
        if self.device == "cpu":
            from triton.runtime.interpreter import InterpretedFunction, InterpreterBuilder

            self._patch(InterpretedFunction, "run", self._interpreted_run)
            self._patch(InterpreterBuilder, "create_dot", self._create_dot)
            self._patch(InterpreterBuilder, "create_fp_trunc", self._create_cast)
            self._patch(InterpreterBuilder, "create_fp_to_fp", self._create_cast)
            self._patch(InterpreterBuilder, "create_bitcast", self._create_bitcast)
            self._patch(InterpreterBuilder, "create_int_to_ptr", self._create_bitcast)
            if "create_dot_scaled" in InterpreterBuilder.__dict__:
                self._patch(InterpreterBuilder, "create_dot_scaled", self._create_dot_scaled)
            for name in [n for n in InterpreterBuilder.__dict__ if n.startswith("create_")]:
                self._patch(InterpreterBuilder, name, lambda original, name=name: self._data_flow(name, original))
        else:
            from triton.runtime.jit import JITFunction

            self._patch(JITFunction, "run", self._compiled_run)
        return self

    def __exit__(self, *exc) -> None:
        for cls, name, original in reversed(self._saved):
            setattr(cls, name, original)
        self._saved.clear()

    def _patch(self, cls: type, name: str, make) -> None:
        original = cls.__dict__[name]
        self._saved.append((cls, name, original))
        setattr(cls, name, make(original))

    def _note(self, **dot: str) -> None:
        self._found.setdefault(tuple(dot.items()), dot)

    def _kernel(self) -> str:
        return self._running[-1] if self._running else "?"

    def _note_arguments(self, kernel, args: tuple, kwargs: dict) -> None:
        """Tensors a kernel reads in a narrower format than fp32 (however they were made: a cast, a copy made in
        `__init__`, a cache, integer bit tricks), judged like a cast in fp32 problems."""
        for value in launch_values(kernel, args, kwargs):
            if not isinstance(value, torch.Tensor):
                continue
            if narrow_argument(value.dtype):
                self._note(kernel=_kernel_name(kernel), argument=str(value.dtype).removeprefix("torch."))

    def _interpreted_run(self, original):
        watch = self

        def run(fn, *args, **kwargs):
            watch._running.append(_kernel_name(fn))
            watch._note_arguments(fn, args, kwargs)
            try:
                return original(fn, *args, **kwargs)
            finally:
                watch._running.pop()

        return run

    def _create_dot(self, original):
        watch = self

        def create_dot(builder, a, b, *args, **kwargs):
            precision = kwargs.get("input_precision", args[1] if len(args) > 1 else "?")
            watch._note(kernel=watch._kernel(), a=str(a.dtype), b=str(b.dtype), precision=_enum_name(precision))
            return original(builder, a, b, *args, **kwargs)

        return create_dot

    def _create_cast(self, original):
        watch = self

        def create_cast(builder, src, dst_type, *args, **kwargs):
            a, b = str(src.dtype.scalar), str(dst_type.scalar)
            if narrowing(a, b):
                watch._note(kernel=watch._kernel(), cast=f"{a}->{b}")
            return original(builder, src, dst_type, *args, **kwargs)

        return create_cast

    def _create_bitcast(self, original):
        watch = self

        def create_bitcast(builder, src, dst_type, *args, **kwargs):
            source, target = src.dtype.scalar, dst_type.scalar
            if target.is_ptr():
                a = str(source.element_ty) if source.is_ptr() else "int"
                if narrowing_pointer(a, str(target.element_ty)):
                    watch._note(kernel=watch._kernel(), cast=f"ptr<{a}>->ptr<{target.element_ty}>")
            elif source.is_int() and target.is_floating():
                watch._note_bits(watch._kernel(), f"{source}->{target}", _narrow(src))
            return original(builder, src, dst_type, *args, **kwargs)

        return create_bitcast

    def _note_bits(self, kernel: str, bits: str, from_narrow_loads: bool) -> None:
        self._note(kernel=kernel, bits=bits, **({"loaded": "16-bit integers"} if from_narrow_loads else {}))

    def _data_flow(self, name: str, original):
        """An interpreter op that marks its result (`_TAINT`) when computed from 16-bit integers a load read: a load
        by the integers it reads, any other op by its operands; a store of a marked value marks the kernel's later
        integer loads."""
        watch = self
        ttir = f"tt.{name.removeprefix('create_').removeprefix('masked_')}"  # create_masked_load: tt.load
        load, store = _LOAD_OPS.search(ttir), _STORE_OPS.search(ttir)

        def op(builder, *args, **kwargs):
            result = original(builder, *args, **kwargs)
            operands = any(_narrow(v) for v in (*args, *kwargs.values()))
            if store and operands:
                watch._stored.add(watch._kernel())
            if load:
                dtype = str(getattr(getattr(result, "dtype", None), "scalar", ""))
                _mark(result, dtype in _NARROW_INTEGERS or (watch._kernel() in watch._stored and dtype.startswith(("int", "uint"))))
            elif operands:
                _mark(result, True)
            return result

        return op

    def _create_dot_scaled(self, original):
        watch = self

        def create_dot_scaled(builder, *args, **kwargs):
            lhs, rhs = (_enum_name(args[i]) if len(args) > i else "?" for i in (2, 5))
            watch._note(kernel=watch._kernel(), a=lhs, b=rhs, precision="scaled")
            return original(builder, *args, **kwargs)

        return create_dot_scaled

    def _compiled_run(self, original):
        watch = self

        def run(fn, *args, **kwargs):
            kernel = original(fn, *args, **kwargs)
            if not kwargs.get("warmup", False):
                watch._read_compiled(_kernel_name(fn), kernel)
                watch._note_arguments(fn, args, kwargs)
            return kernel

        return run

    def _read_compiled(self, name: str, kernel) -> None:
        if id(kernel) in self._read:
            return
        self._read.add(id(kernel))
        try:
            ttir = kernel.asm["ttir"]
        except (AttributeError, KeyError, TypeError) as exc:
            self._note(kernel=name, unknown=f"no TTIR on what JITFunction.run returned ({type(kernel).__name__}: {exc!r})")
            return
        try:
            dots, casts = parse_ttir(ttir), parse_casts(ttir)
        except ValueError as exc:
            self._note(kernel=name, unknown=str(exc))
            return
        for a, b, precision in dots:
            self._note(kernel=name, a=a, b=b, precision=precision)
        for a, b in casts:
            self._note(kernel=name, cast=f"{a}->{b}")
        for a, b, from_narrow_loads in parse_bitcasts(ttir):
            self._note_bits(name, f"{a}->{b}", from_narrow_loads)

    def observation(self, inputs: list, host_casts: dict[str, int]) -> dict:
        """What the trial's dots and casts were (`host_casts`: AtenTrace.narrowings), and its inputs' float dtypes, for `precision_reason`."""
        dtypes = {str(v.dtype).removeprefix("torch.") for v in inputs if isinstance(v, torch.Tensor) and v.is_floating_point()}
        host = [{"kernel": "host", "cast": cast} for cast in host_casts]
        return {"dots": [*self._found.values(), *host], "input_dtypes": sorted(dtypes)}


def full_precision_problem(dtypes: Iterable[str]) -> bool:
    """A problem whose float tensors are all fp32 or fp64 (fp16/bf16 data may use half-precision dots)."""
    floats = [d for d in dtypes if d.startswith(("float", "bfloat"))]
    return bool(floats) and all(d in _FULL_TENSORS for d in floats)


def downgrade(dot: dict, policy: str) -> str | None:
    """Why this dot (or narrowing cast) loses the precision of fp32 data under `policy`; None when it does not."""
    kernel = dot["kernel"]
    if "bits" in dot:
        src = dot["bits"].split("->")[0]
        if not bits_downgrade(src, "loaded" in dot):
            return None
        of = f" of bits computed from loaded {dot['loaded']}" if "loaded" in dot else ""
        return (f"kernel {kernel}: a {dot['bits']} bitcast{of} decodes fp32 data kept narrowed in integers "
                "(fp16/bf16 bits); keep every float tensor fp32 (fp64 may be used)")
    if "argument" in dot:
        return (f"kernel {kernel}: reads a {dot['argument']} tensor, which holds this fp32 problem's data narrowed; "
                "keep every float tensor fp32 (fp64 may be used)")
    if "cast" in dot:
        where = f"host code: {dot['cast']}" if kernel == "host" else f"kernel {kernel}: a {dot['cast']} cast"
        if dot["cast"].endswith(" view"):
            return f"{where} reads this fp32 problem's data in narrower pieces; keep it fp32 (fp64 may be used)"
        return f"{where} rounds this fp32 problem's data to a narrower float; keep it fp32 (fp64 may be used)"
    if "unknown" in dot:
        return (
            f"kernel {kernel}: the precision of its dots could not be read ({dot['unknown']}); "
            "an fp32 problem fails closed until tritonrl/verify/precision.py can read this Triton's compiled kernels"
        )
    a, b, precision = dot["a"], dot["b"], dot["precision"]
    if a not in _FULL_OPERANDS or b not in _FULL_OPERANDS:
        op = "tl.dot_scaled" if precision == "scaled" else "tl.dot"
        also = ' (or "tf32", which verify.precision=tf32 allows)' if policy == "tf32" else ""
        return (
            f"kernel {kernel}: {op} on {a} x {b} operands rounds this fp32 problem's data; "
            f'keep the tiles fp32 and write tl.dot(a, b, input_precision="ieee"){also}'
        )
    if policy == "strict" and "fp32" in (a, b) and precision != "ieee":
        how = " (what a plain tl.dot or allow_tf32=True gives)" if precision == "tf32" else ""
        return (
            f"kernel {kernel}: tl.dot on fp32 operands with input_precision={precision}{how} is not IEEE fp32; "
            'write tl.dot(a, b, input_precision="ieee"), or set verify.precision=tf32 to allow TF32'
        )
    return None


def precision_reason(trials: list[dict], output_dtypes: Iterable[str], policy: str) -> Reason | None:
    """The precision_downgrade reason for a candidate's trials, or None.

    `output_dtypes` are the reference outputs' torch dtype names; with the
    inputs' float dtypes recorded by the child they decide whether the
    problem is an fp32 one.
    """
    check_policy(policy)
    trials = [t for t in trials if "precision" in t]
    inputs = [d for t in trials for d in t["precision"]["input_dtypes"]]
    if not full_precision_problem([*output_dtypes, *inputs]):
        return None
    found: dict[str, None] = {}
    for t in trials:
        for dot in t["precision"]["dots"]:
            message = downgrade(dot, policy)
            if message:
                found[message] = None
    if not found:
        return None
    messages = list(found)
    more = f" (and {len(messages) - 3} more)" if len(messages) > 3 else ""
    return Reason(ReasonCode.PRECISION_DOWNGRADE, f"verify.precision={policy}: " + "; ".join(messages[:3]) + more)
