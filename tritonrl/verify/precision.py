"""The precision policy: judge what each dot and cast really computes, by the data it was computed from, not how
lucky its error was.

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
  launched kernel whose IR cannot be read is recorded as unknown, and a
  problem with fp32 (or wider) data then fails closed.
`precision_reason` (in the caller) applies `verify.precision` value by value
(a problem's dtypes alone let cheats through: an fp16 bias exempted an fp32
matmul in the same problem, fp64 data rounded to fp32 was "full precision",
fp32 weights kept as int16 fixed point had no narrow float anywhere). Every
dot, cast and bitcast is recorded with the widest dtype of the data it was
computed from (`from`: the element types the kernel loaded it from, followed
through every op), and it may keep no fewer significand bits than that data
has, capped by the widest float output (`Problem.need`: an fp32 problem with
an fp16 output may go through fp16). Where the data is unknown, it is the
problem's widest float data. So a dot needs operands as wide as its data,
and under `strict` also input_precision ieee on fp32 operands of fp32 data;
`tf32` allows TF32-class precisions (tf32, tf32x3, bf16x3, ...), as torch's
allow_tf32 does, but never operands rounded narrower. fp16 data in an fp16
dot is fine in any problem (the products are exact), fp32 data rounded to
fp16 for it is not, whatever other inputs the problem has. Under `tf32` the
comparison also gives fp32 outputs TF32's tolerance (runtime.tolerance), so
a TF32 dot passes by policy, not by luck.

Narrowing casts: rounding data to a narrower float and computing on it
(`x.half()` on the host, `a.to(tl.float16).to(tl.float32)` in a kernel, a
cumsum carry kept in fp16, `w.float()` or `.to(tl.float32)` of fp64 data)
loses the same precision without any narrow dot, and its error is again near
the tolerance. So is making float data integers (fixed point: `.to(torch.int16)`
of scaled weights on the host, `.to(tl.int16)` in a kernel, `.to(tl.int32)`
stored for a later kernel), whatever the width: the fraction below the step
is gone. Each such cast of the problem's data is a downgrade under both
policies (tf32 allows only TF32 dots), unless it makes a dtype the problem
outputs (an int64 bucket index). DotWatch records the kernels' casts: on CPU
the builder's `create_fp_trunc` / `create_fp_to_fp` / `create_fp_to_si` /
`create_fp_to_ui`, on GPU the TTIR's `arith.truncf`, `tt.fp_to_fp` and
`arith.fptosi` / `fptoui`; a conversion to integers wider than 16 bits only
where its integers are stored (`fixed_point_values`), since an index computed
from float data (a bilinear sample's) is no copy of it; a cast of constants
alone (`other=0.0` of an fp16 load) holds no data. The host's casts come from
runtime.AtenTrace (`aten._to_copy`, `aten.copy_`): their data is their source
tensor's dtype, and integers made narrower integers (int64 indices to int32),
bools and widening casts are none. Integer tensors hold integers (an index table, a mask), not the problem's
float data, unless the host made them by viewing wider elements in narrower
pieces (`x.view(torch.int16)`: fp32 bits read in halves) or a kernel turns them back
into floats by their bits: a bitcast of 16-bit integers to a float (fp16 bits
kept in int16), or an integer-to-float bitcast of a value computed from
16-bit integers the kernel loaded (bf16 bits shifted into place). That is
data flow, not the kernel's arguments: a value whose *address* came from an
int16 lane table is the problem's own fp32 data, and bitcasting its bits (a
ReLU on the sign bit) is exact. DotWatch follows all of these flows on CPU by
labelling the interpreter's values (`_TAINT`, `_DATA`, `_FIXED`; reductions,
scans and `x.T`, which compute past the builder, carry their inputs' labels),
on GPU through the TTIR's SSA values (`_flow`: `narrow_values`,
`value_origins`, `fixed_point_values`); a value stored to memory and loaded
again keeps `_TAINT` when the same kernel loads integers after storing such a
value. So an int16 lane table is fine, an int16 copy of a weight's bf16 bits
is not.

Where the data lies, not how it is addressed: a load's data is what the storage
it reads holds (`HeldData`), not only its pointer's element type, else fp32 data
laundered through integers was "int32 data" that needed no precision (red team
B: a TF32 dot of fp32 bits decoded by integer arithmetic, fp16 halves made of
them, int16 fixed point of weights read through an int32 pointer). fp32 data
handed over as `x.view(torch.int32)` (a copy of it, `triton.reinterpret`, such a
view of a weight made in `__init__`, an int32 buffer a kernel stored fp32 data
into) or read through a pointer cast in the kernel (`p.to(tl.pointer_type(tl.int32))`;
TTIR: `pointer_origins`) stays fp32 data through every op. Integers holding float
data made a narrower float (`m.to(tl.float32)` of fp64 bits rounded by integer
arithmetic: create_si_to_fp / arith.sitofp, or a bitcast) are a narrowing cast.
Moving bits (a sign-bit ReLU on int32 views) loses nothing and stays legal. A
buffer a kernel filled is followed from the interpreter's stores on CPU and the
TTIR's (`parse_held_stores`) on a GPU. A kernel's float tensor arguments narrower than fp64 are recorded
too: one narrower than the data the problem needs and of no dtype the problem
has is its data narrowed (an fp32 copy of an fp64 weight made in `__init__`).
A dot's `out_dtype` needs no check: Triton gives fp32 operands an fp32 result
whatever out_dtype says (semantic.dot), so a narrower result comes only
from narrow operands, which are judged already.

Test: tests/verify/test_precision.py (on a GPU host it also compiles and
reads real TTIR); the fixtures tests/verify/candidates/hacks/14_*_dot_*.py,
14_*_cast_*.py and 14_value_*.py, and honest/13_matmul_dot_precision_forms.py,
honest/42_matmul_dot_out_dtype_fp16.py, honest/57_*.py and
honest/58_matmul_mixed.py through tests/verify/test_hacks.py.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import torch
from torch.multiprocessing.reductions import StorageWeakRef

from tritonrl.verify.defaults import PRECISIONS
from tritonrl.verify.child_patches import launch_values, launched_tensors
from tritonrl.verify.result import Reason, ReasonCode

# Significand bits (the implicit one included) each float format keeps, by Triton and torch name: how much of a
# value survives a cast to it. tf32 is what a TF32 dot rounds fp32 operands to. Integers keep no fraction (0).
_SIGNIFICANDS = {
    "fp64": 53,
    "float64": 53,
    "fp32": 24,
    "float32": 24,
    "tf32": 11,
    "fp16": 11,
    "float16": 11,
    "bf16": 8,
    "bfloat16": 8,
}
_FP8 = re.compile(r"(?:fp8e|float8_e|^e)(\d)(?:m(\d))?")  # fp8e4nv, float8_e5m2, e2m1 (a dot_scaled format)
_MLIR_TYPES = {
    "f64": "fp64",
    "f32": "fp32",
    "f16": "fp16",
    "bf16": "bf16",
    "i8": "int8",
    "f8E4M3FN": "fp8e4nv",
    "f8E5M2": "fp8e5",
    "f8E4M3FNUZ": "fp8e4b8",
    "f8E5M2FNUZ": "fp8e5b16",
}
_DOT_LINE = re.compile(r"\btt\.dot(_scaled)?\s")
_ELEMENT = re.compile(r"tensor<(?:\d+x)+([A-Za-z][A-Za-z0-9]*)")
_PRECISION = re.compile(r"\binputPrecision\s*=\s*(\w+)")
_SCALED_FORMATS = re.compile(r"\blhs\s*=\s*(\w+)\s+rhs\s*=\s*(\w+)")
_CAST_LINE = re.compile(r"\b(?:arith\.truncf|tt\.fp_to_fp|arith\.fpto[su]i)\s")
_STORE_LINE = re.compile(r"\btt\.store\s")
# A pointer made to point at narrower elements (`p.to(tl.pointer_type(tl.int16))`): fp32 data read in halves.
_POINTER_CAST_LINE = re.compile(r"\btt\.(?:bitcast|int_to_ptr)\s")
_POINTER_TYPE = re.compile(r"!tt\.ptr<(\w+)")
# A value bitcast (`h.to(tl.float16, bitcast=True)`): integer bits made a float.
_BITCAST_VALUE = re.compile(r"\btt\.bitcast\s[^:]*:\s*(?:tensor<(?:\d+x)+)?(i\d+)[^-]*->\s*(?:tensor<(?:\d+x)+)?(\w+)")
# An element type (float or integer) in a cast's types; the integer a float-to-integer conversion makes.
_ELEMENT_TYPE = re.compile(r"(?:tensor<(?:\d+x)+|\b)(f64|f32|f16|bf16|f8E\w+?|i\d+)(?=[\s,>]|$)")
# Integers made floats: a conversion, or a value bitcast (`tt.bitcast %b : tensor<64xi32> -> tensor<64xf32>`).
_INT_TO_FLOAT_LINE = re.compile(
    r"\b(?:arith\.[su]itofp\s|tt\.bitcast\s(?=[^:]*:\s*(?:tensor<(?:\d+x)+)?i\d+[^-]*->\s*(?:tensor<(?:\d+x)+)?(?:f|bf)\d))"
)
_FLOAT_TO_INT = re.compile(r"\barith\.fpto[su]i\s[^:]*:[^:]*\bto\s+(?:tensor<(?:\d+x)+)?(i\d+)")


def _triton_name(mlir: str) -> str:
    """f32 -> fp32, i16 -> int16, f8E4M3FN -> fp8e4nv: MLIR element types as Triton names them."""
    return _MLIR_TYPES.get(mlir) or (f"int{mlir[1:]}" if mlir.startswith("i") else mlir)


@functools.cache
def significand(name: str) -> int:
    """Significand bits a Triton or torch dtype name keeps (fp32: 24, bfloat16: 8, fp8e4nv: 4, e2m1: 2); 0 for
    integers and bools, and for a name it does not know, so an unknown format counts as the narrowest."""
    if name in _SIGNIFICANDS:
        return _SIGNIFICANDS[name]
    fp8 = _FP8.search(name)
    if not fp8:
        return 0
    exponent, mantissa = fp8.groups()
    return int(mantissa) + 1 if mantissa else 8 - int(exponent)  # fp8e4*: 3 mantissa bits, fp8e5*: 2


def _widest(labels: Iterable[str | None]) -> str | None:
    """The label (a dtype name) that keeps the most significand bits; None when there is none."""
    return max((label for label in labels if label is not None), key=significand, default=None)


def check_policy(policy: str) -> None:
    if policy not in PRECISIONS:
        raise ValueError(f"precision must be one of {list(PRECISIONS)} (verify.precision), not {policy!r}")


def _enum_name(value) -> str:
    """ir.INPUT_PRECISION.TF32x3 -> 'tf32x3', ScaleDotElemTypeTY.E4M3 -> 'e4m3' (a string stays itself, lower-cased)."""
    return str(getattr(value, "name", value)).lower()


def _kernel_name(fn) -> str:
    return getattr(fn, "__name__", None) or getattr(getattr(fn, "fn", None), "__name__", "?")


def parse_ttir(text: str, arguments: dict[str, str] | None = None) -> list[tuple[str, str, str, str | None]]:
    """(a dtype, b dtype, input precision, data) of every `tt.dot` / `tt.dot_scaled` in TTIR (or TTGIR) text.

    Operand types are Triton dtype names (fp32, fp16, bf16, fp8e4nv, ...);
    a dot_scaled has its operand formats (e4m3, e2m1, ...) and precision 'scaled'.
    `data` is the widest dtype of the data its operands were computed from (`value_origins`, with `arguments`), None
    when none. Raises ValueError on a dot line it cannot read, so the caller can fail closed.
    """
    dots = []
    origins = value_origins(text, arguments) if _DOT_LINE.search(text) else {}
    for line in text.splitlines():
        match = _DOT_LINE.search(line)
        if not match:
            continue
        if match.group(1):
            formats = _SCALED_FORMATS.search(line)
            if not formats:
                raise ValueError(f"unreadable tt.dot_scaled: {line.strip()[:200]}")
            dots.append((formats.group(1), formats.group(2), "scaled", _operands_data(line, match.end(), origins)))
            continue
        types = _ELEMENT.findall(line[match.end() :])
        if len(types) < 2:
            raise ValueError(f"unreadable tt.dot: {line.strip()[:200]}")
        precision = _PRECISION.search(line)
        a, b = (_MLIR_TYPES.get(t, t) for t in types[:2])
        dots.append(
            (a, b, precision.group(1).lower() if precision else "ieee", _operands_data(line, match.end(), origins))
        )
    return dots


def _operands_data(line: str, start: int, origins: dict[str, str]) -> str | None:
    """The widest data the operands of the op at `start` of a TTIR line were computed from."""
    operands = line[start:].split(" loc(")[0].partition(" : ")[0]
    return _widest(origins.get(m.group(1)) for m in _SSA_NAME.finditer(operands))


def narrowing(src: str, dst: str) -> bool:
    """Whether a cast between Triton dtypes drops bits of float data where it is made: to a float that keeps fewer
    (fp64 -> fp32, fp32 -> fp16) or to integers of 16 bits or fewer (fp32 -> int16: fixed point loses the fraction
    below its step). Wider integers may be an index computed from floats: they count where stored (`_FIXED`)."""
    return significand(dst) < significand(src) and (significand(dst) > 0 or _bits(dst) <= 16)


def int_to_float_narrows(dst: str, data: str | None) -> bool:
    """Whether integers holding float `data` (its bits: fp64 read through an int64 pointer, fp32 through an int32
    view) made a float `dst` (a conversion or a bitcast) keep fewer significand bits than that data: fp64 rounded to
    fp32 by integer arithmetic on its bits, then `.to(tl.float32)`. Integers of integer data are numbers (indices)."""
    return bool(data) and significand(dst) < significand(data)


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
    """Whether a kernel's tensor argument may hold a problem's data narrowed: a float narrower than fp64 (an fp32
    copy of an fp64 weight, an fp16 one of an fp32 weight, made in `__init__` or cached), judged against the
    problem's own dtypes (`Problem`). Integers are integers: a host view of floats as narrower integers is judged
    where it is made (AtenTrace), their bits made floats again in the kernel (`bits_downgrade`)."""
    return dtype.is_floating_point and dtype != torch.float64


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


def _flow(text: str, load, op=None, seeds: dict[str, str] | None = None) -> dict[str, str]:
    """Labels (dtype names) of the SSA values of TTIR text, following the data, not the addresses.

    A load's values get `load(types, stored, uses)` from its types and operands (`stored`: the widest label a store
    wrote so far: integers loaded after the kernel stored a labelled value may be that value again), any other op's
    the widest of its operands' (or what `op(body, uses, that)` makes of it); a region op (scf.for, scf.if, tt.reduce)
    and its block arguments take what its operands or its yields carry, repeated until nothing changes (loops).
    `seeds` label values no line defines (the kernel's arguments).
    """
    lines = [(raw.strip(), raw.split(" loc(")[0]) for raw in text.splitlines()]  # braces and all, and without locations
    labels: dict[str, str] = dict(seeds or {})
    stored = None
    while True:
        before, regions = (dict(labels), stored), [set()]
        for raw, line in lines:
            defs = {m.group(1) for m in _SSA_NAME.finditer(d.group(1))} if (d := _SSA_DEFS.match(line)) else set()
            body = line[d.end() :] if d else line
            uses = [m.group(1) for m in _SSA_NAME.finditer(body)]
            closed = regions.pop() if raw.startswith("}") and len(regions) > 1 else None
            if raw.endswith("{"):  # a region op, or `} else {`: its results and block arguments
                region = closed if closed is not None else {*defs, *(m.group(1) for m in _BINDING.finditer(body))}
                regions.append(region)
                _label(labels, region, _widest(labels.get(u) for u in uses if u not in region))
                continue
            if _BLOCK_ARGS.match(line):
                regions[-1].update(uses)
                continue
            _, _, types = body.partition(" : ")
            carried = _widest(labels.get(u) for u in uses)
            if _LOAD_OPS.search(body):
                _label(labels, defs, load(types, stored, uses))
            else:
                made = op(body, uses, carried) if op else carried
                _label(labels, defs, made)
                if _REGION_END.search(body):
                    _label(labels, regions[-1], made)
            if _STORE_OPS.search(body) and carried is not None:
                stored = _widest([stored, carried])
        if (labels, stored) == before:
            return labels


def _label(labels: dict[str, str], names: Iterable[str], label: str | None) -> None:
    """Give `names` `label` where it is wider than what they carry."""
    for name in names if label is not None else ():
        if name not in labels or significand(label) > significand(labels[name]):
            labels[name] = label


def narrow_values(text: str) -> set[str]:
    """The SSA values of TTIR text computed from 16-bit integers a load read (not from an address computed so)."""

    def load(types: str, stored: str | None, uses: list[str]) -> str | None:
        return (
            "int16" if re.search(r"\bi16\b", types) or (stored and re.search(r"\bi(?:8|16|32|64)\b", types)) else None
        )

    return set(_flow(text, load))


def value_origins(text: str, arguments: dict[str, str] | None = None) -> dict[str, str]:
    """The widest dtype of the data each SSA value of TTIR text was computed from: a load's own element type (an
    integer one for indices and masks) or, wider, the data of the storage its pointer points into (`pointer_origins`:
    fp32 data read through an int32 pointer is fp32 data), and an integer-to-float bitcast's float type (bits made
    floats are float data). `arguments`: the kernel's parameters whose bits hold wider float data than their type says
    (HeldData, by parameter name)."""
    pointers = pointer_origins(text, arguments)

    def load(types: str, stored: str | None, uses: list[str]) -> str | None:
        return _widest([_loaded(types), pointers.get(uses[0]) if uses else None])

    def op(body: str, uses: list[str], carried: str | None) -> str | None:
        bits = _BITCAST_VALUE.search(body)
        return (
            _widest([carried, _triton_name(bits.group(2))]) if bits and not bits.group(2).startswith("i") else carried
        )

    return _flow(text, load, op)


_FUNC_LINE = re.compile(r"\btt\.func\b")
_FUNC_ARGUMENT = re.compile(r"%([\w.$-]+):\s*([^%]*)")
_ARGUMENT_NAME = re.compile(r'loc\("([^"]+)"\(')


def func_arguments(text: str) -> list[tuple[str, str, str | None]]:
    """(SSA name, parameter name, pointer element as a Triton dtype name or None) of each argument of the `tt.func`s
    in TTIR text. The parameter's name is its location's (`%arg0: !tt.ptr<f32> loc("x_ptr"(#loc))`), else the SSA name
    (Triton 3.9 names SSA values after the parameters)."""
    found = []
    for line in text.splitlines():
        if not _FUNC_LINE.search(line):
            continue
        signature = line.split("(", 1)[1] if "(" in line else ""
        for match in _FUNC_ARGUMENT.finditer(signature):
            name, rest = match.groups()
            pointer = _POINTER_TYPE.match(rest.strip())
            named = _ARGUMENT_NAME.search(rest)
            found.append((name, named.group(1) if named else name, _triton_name(pointer.group(1)) if pointer else None))
    return found


def pointer_origins(text: str, arguments: dict[str, str] | None = None) -> dict[str, str]:
    """The float data each pointer of TTIR text points into: that of the kernel argument it was made from (its element
    type, or the wider data `arguments` names for it), followed through address arithmetic and pointer casts
    (`tt.bitcast %x : !tt.ptr<f64> -> !tt.ptr<i64>` still points at fp64 data), not through loaded values."""
    seeds = {}
    for ssa, name, element in func_arguments(text):
        data = _widest([element if element and significand(element) else None, (arguments or {}).get(name)])
        if data:
            seeds[ssa] = data
    return _flow(text, lambda types, stored, uses: None, seeds=seeds) if seeds else {}


def fixed_point_values(text: str, origins: dict[str, str]) -> dict[str, str]:
    """The SSA values of TTIR text computed from float data turned into integers wider than 16 bits
    (`arith.fptosi`), labelled with that data's dtype: fixed point once stored (`parse_fixed_stores`)."""

    def op(body: str, uses: list[str], carried: str | None) -> str | None:
        cast = _FLOAT_TO_INT.search(body)
        if not cast or _bits(_triton_name(cast.group(1))) <= 16:
            return carried
        data = _widest(origins.get(u) for u in uses)
        return _widest([carried, data]) if data and significand(data) else carried

    return _flow(text, lambda types, stored, uses: None, op)


def _loaded(types: str) -> str | None:
    """The element type a load reads, from its types: `tensor<64x!tt.ptr<f32>>`, or the result after `->`."""
    if "->" in types:
        found = _ELEMENT_TYPE.findall(types.rsplit("->", 1)[1])
    else:
        found = _POINTER_TYPE.findall(types)
    return _triton_name(found[-1]) if found else None


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
            found.append(
                (
                    _triton_name(match.group(1)),
                    _MLIR_TYPES[match.group(2)],
                    bool(operand and operand.group(1) in narrow),
                )
            )
    return found


def parse_casts(text: str, arguments: dict[str, str] | None = None) -> list[tuple[str, str, str | None]]:
    """(source, destination, data) Triton dtypes of every narrowing `arith.truncf` / `tt.fp_to_fp` in TTIR text and
    every `arith.fptosi` / `fptoui` to 16-bit or narrower integers (wider ones count where they are stored:
    `parse_fixed_stores`), with the widest data the cast value was computed from (`value_origins` with `arguments`;
    None when none), every integer made a float (`arith.sitofp` / `uitofp`, a value `tt.bitcast`) narrower than the
    data the integers hold (`int_to_float_narrows`), and ('ptr<fp32>', 'ptr<int16>', None) for a pointer cast to
    narrower elements (`tt.bitcast`, `tt.int_to_ptr`).

    Raises ValueError on a cast line whose types it cannot read, so the caller can fail closed.
    """
    casts = []
    origins = value_origins(text, arguments) if _CAST_LINE.search(text) or _INT_TO_FLOAT_LINE.search(text) else {}
    for line in text.splitlines():
        made = _INT_TO_FLOAT_LINE.search(line)
        if made:
            found = _ELEMENT_TYPE.findall(line[made.end() :].split(" loc(")[0].partition(" : ")[2])
            data = _operands_data(line, made.end(), origins)
            if len(found) == 2 and int_to_float_narrows(_triton_name(found[1]), data):
                casts.append((_triton_name(found[0]), _triton_name(found[1]), data))
            continue
        if _POINTER_CAST_LINE.search(line):
            _, colon, types = line.split(" loc(")[0].partition(" : ")
            pointers = _POINTER_TYPE.findall(types)
            if pointers:
                src = pointers[0] if len(pointers) > 1 else "int"
                src, dst = (_triton_name(t) if t != "int" else t for t in (src, pointers[-1]))
                if narrowing_pointer(src, dst):
                    casts.append((f"ptr<{src}>", f"ptr<{dst}>", None))
            continue
        match = _CAST_LINE.search(line)
        if not match:
            continue
        _, colon, types = line[match.end() :].split(" loc(")[0].partition(" : ")
        found = _ELEMENT_TYPE.findall(types) if colon else []
        if len(found) != 2:
            raise ValueError(f"unreadable cast: {line.strip()[:200]}")
        src, dst = (_triton_name(t) for t in found)
        if narrowing(src, dst):
            casts.append((src, dst, _operands_data(line, match.end(), origins)))
    return casts


def parse_held_stores(text: str, arguments: dict[str, str] | None = None) -> dict[str, str]:
    """Parameter name -> the float data a kernel's `tt.store`s write into it as narrower elements (fp32 bits bitcast
    to int32 and stored in an int32 buffer): the tensor handed for it holds that data from then on (HeldData), so the
    next kernel's loads of it read that data, on a GPU too, where the stores themselves are not seen."""
    stores = []
    for line in text.splitlines():
        match = _STORE_LINE.search(line)
        operands, _, types = line[match.end() :].split(" loc(")[0].partition(" : ") if match else ("", "", "")
        names, element = [m.group(1) for m in _SSA_NAME.finditer(operands)], _POINTER_TYPE.findall(types)
        if len(names) > 1 and element:
            stores.append((names[0], names[1], _triton_name(element[0])))
    origins = value_origins(text, arguments) if stores else {}
    wider = [
        (pointer, origins[value])
        for pointer, value, element in stores
        if significand(origins.get(value) or "") > significand(element)
    ]
    found: dict[str, str] = {}
    for ssa, name, element in func_arguments(text) if wider else ():
        reached = _flow(text, lambda types, stored, uses: None, seeds={ssa: "fp64"})  # what is made from this argument
        for pointer, data in wider:
            if pointer in reached:
                found[name] = _widest([found.get(name), data])
    return found


def parse_fixed_stores(text: str, arguments: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(stored integer dtype, data) of every `tt.store` in TTIR text that writes integers computed from float data
    by a float-to-integer conversion (`fixed_point_values`): the data kept as fixed point for a later read."""
    if not _FLOAT_TO_INT.search(text):
        return []
    fixed = fixed_point_values(text, value_origins(text, arguments))
    found = []
    for line in text.splitlines():
        match = _STORE_LINE.search(line)
        if not match:
            continue
        operands, _, types = line[match.end() :].split(" loc(")[0].partition(" : ")
        names = [m.group(1) for m in _SSA_NAME.finditer(operands)]
        element = _POINTER_TYPE.findall(types)
        if len(names) > 1 and names[1] in fixed and element and _bits(_triton_name(element[0])) > 1:
            found.append((_triton_name(element[0]), fixed[names[1]]))
    return found


# Labels (dtype names) DotWatch keeps on the interpreter's values, as the TTIR flows do on SSA values:
_TAINT = "_tritonrl_from_narrow_loads"  # computed from 16-bit integer loads (narrow_values)
_DATA = "_tritonrl_data"  # the widest data it was computed from (value_origins)
_FIXED = "_tritonrl_fixed_point"  # float data turned into wide integers, by that data's dtype (fixed_point_values)
_LABELS = (_TAINT, _DATA, _FIXED)
_CONSTANT = "_tritonrl_constant"  # made from constants alone (`other=0.0` cast to an fp16 load's type): no data


def _carried(values, label: str) -> str | None:
    """The widest `label` a value (or a list or tuple of values) carries."""
    if isinstance(values, (list, tuple)):
        return _widest(_carried(v, label) for v in values)
    return getattr(values, label, None)


def _mark(result, label: str, value: str | None) -> None:
    """Give `result` (a value, or a list or tuple of them) `label` = `value` where it is wider than what it carries."""
    if value is None:
        return
    for handle in result if isinstance(result, (list, tuple)) else (result,):
        if hasattr(handle, "__dict__") and _widest([_carried(handle, label), value]) == value:
            setattr(handle, label, value)


def _from(data: str | None) -> dict[str, str]:
    """A record's `from`: the widest dtype of the data it was computed from, when known."""
    return {"from": data} if data else {}


_untyped_storage = torch.Tensor.untyped_storage
_FLOAT_NAMES = {"float64": "fp64", "float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}


def _element(dtype) -> str:
    """A torch or Triton dtype's Triton name: torch.float32 -> fp32, torch.int32 -> int32, tl.int32 -> int32."""
    name = str(dtype).removeprefix("torch.")
    return _FLOAT_NAMES.get(name, name)


def _own_float(tensor: torch.Tensor) -> str | None:
    return _element(tensor.dtype) if tensor.dtype.is_floating_point else None


@functools.cache
def _keeps(dtype) -> int:
    """Significand bits a torch or Triton dtype keeps (0 for integers)."""
    return significand(_element(dtype))


def _storage(tensor: torch.Tensor) -> torch.UntypedStorage | None:
    try:
        return _untyped_storage(tensor)
    except (RuntimeError, NotImplementedError, TypeError):  # a tensor without one storage (sparse, nested)
        return None


def _tensors(values: list):
    """The tensors among an aten op's arguments or results (lists of them too: cat's, split's)."""
    for value in values:
        if isinstance(value, torch.Tensor):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from (v for v in value if isinstance(v, torch.Tensor))


def _tensor_of(value):
    """The tensor a kernel argument hands over: itself, or what Triton's own wrappers (`triton.reinterpret`) wrap."""
    return getattr(value, "base", None) if type(value).__module__.split(".")[0] == "triton" else value


class _Storage:
    """A storage's addresses and the float data it holds (None: integers), for HeldData and the loads that read it."""

    def __init__(self, storage: torch.UntypedStorage, data: str | None) -> None:
        self.ref, self.data = StorageWeakRef(storage), data  # the reference reserves its identity
        self.start = storage.data_ptr()
        self.end = self.start + storage.nbytes()

    def hit(self, addresses: np.ndarray) -> bool:
        return bool(np.any((addresses >= self.start) & (addresses < self.end)))


class HeldData:
    """The float data a storage's bytes hold, where its tensors call them something else: the storage of
    `x.view(torch.int32)` holds fp32 data still (its int32 elements are fp32 bits), as does whatever moves those
    integers on the host (a clone, a contiguous copy, a cat) and an integer buffer a kernel stored fp32 data into.

    Why: dots and casts are judged by the data their values were computed from, and a kernel's loads were labelled
    by the pointer's element type, so fp32 data handed over as int32 counted as integers and was exempt (a TF32 dot of
    fp32 bits decoded by integer arithmetic, int16 fixed point of weights read through an int32 pointer). The
    provenance is the dtype of the data the bytes hold, however they travel: AtenTrace passes every host op to
    `note`, DotWatch learns the problem's own tensors (`hold`: views of weights made in `__init__`, raw addresses),
    reads `of` / `storages` at each launch and `mark`s what kernels store. Storages are told apart by identity,
    whose weak reference keeps it from being reused (as LaunchCounter does).
    """

    def __init__(self) -> None:
        self._held: dict[int, _Storage] = {}  # storage identity -> its addresses and data
        self._widest = 0  # significand bits of the widest data held: tensors at least as wide hold no other data

    def of(self, tensor: torch.Tensor) -> str | None:
        """The widest float data `tensor`'s bytes hold: its own float dtype, or the floats' whose bits it holds."""
        storage = _storage(tensor) if self._held else None
        entry = self._held.get(storage._cdata) if storage is not None else None
        return _widest([_own_float(tensor), entry.data if entry else None])

    def entry(self, tensor: torch.Tensor) -> _Storage | None:
        """`tensor`'s storage as held (registered now if it was not), with its current addresses."""
        storage = _storage(tensor)
        if storage is None:
            return None
        entry = self._held.get(storage._cdata)
        if entry is None:
            entry = self._held[storage._cdata] = _Storage(storage, None)
        entry.start, entry.end = storage.data_ptr(), storage.data_ptr() + storage.nbytes()  # a resize_ moves it
        self.mark(tensor, _own_float(tensor))
        return entry

    def mark(self, tensor: torch.Tensor, data: str | None) -> None:
        """Note that `tensor`'s storage holds `data` (a Triton float name) where that is wider than it held."""
        storage = _storage(tensor) if data else None
        if storage is not None:
            entry = self._held.get(storage._cdata)
            if entry is None:
                entry = self._held[storage._cdata] = _Storage(storage, data)
            self.widen(entry, data)

    def widen(self, entry: _Storage, data: str) -> None:
        entry.data = _widest([entry.data, data])
        self._widest = max(self._widest, significand(data))

    def at(self, address: int) -> str | None:
        """The float data held where a raw address (`x.data_ptr()` handed to a kernel as an integer) points."""
        return _widest(s.data for s in self.storages() if s.start <= address < s.end)

    def storages(self) -> list[_Storage]:
        """The storages holding float data that are still alive; freed ones are forgotten (their memory may hold
        anything now, and a kernel launched in a loop on fresh buffers must not make the list grow)."""
        for key in [key for key, s in self._held.items() if s.ref.expired()]:
            del self._held[key]
        return [s for s in self._held.values() if s.data]

    def hold(self, values: Iterable) -> None:
        """Note the float storages of the problem's inputs and of a model's parameters, buffers and tensor attributes:
        an integer view of its weights made in `__init__`, before any trace, is that model's float data too, and so is
        memory a kernel reaches by a raw address. Modules are read from their own dicts and only plain tensors and
        parameters are asked their dtype, so no code of the candidate runs here."""
        pending = list(values)
        while pending:
            value = pending.pop()
            if type(value) in (torch.Tensor, torch.nn.Parameter) and value.dtype.is_floating_point:
                self.mark(value, _own_float(value))
            elif isinstance(value, torch.nn.Module):
                state = vars(value)
                pending.extend(m for m in state.get("_modules", {}).values() if isinstance(m, torch.nn.Module))
                pending.extend(
                    v
                    for v in [
                        *state.get("_parameters", {}).values(),
                        *state.get("_buffers", {}).values(),
                        *state.values(),
                    ]
                    if isinstance(v, torch.Tensor)
                )

    def note(self, name: str, args: tuple, kwargs: dict, out) -> None:
        """A host op (an aten op name): a view as another dtype reinterprets its source's data; any other op's outputs
        narrower than the reinterpreted bits among its inputs hold them too (a copy moves the bits; bits computed on
        are derived from them still). Floats computed into integers (argmax, a cast) hold no bits of floats."""
        if name == "view" and len(args) > 1 and isinstance(args[1], torch.dtype) and isinstance(args[0], torch.Tensor):
            data = self.of(args[0])
        elif self._held:
            tensors = _tensors([*args, *kwargs.values()])
            data = _widest(self._reinterpreted(t) for t in tensors if _keeps(t.dtype) < self._widest)
        else:
            return
        for tensor in _tensors([out]) if data else ():
            if _keeps(tensor.dtype) < significand(data):
                self.mark(tensor, data)

    def _reinterpreted(self, tensor: torch.Tensor) -> str | None:
        data = self.of(tensor)
        return data if data and significand(data) > _keeps(tensor.dtype) else None


class DotWatch:
    """Records the dots and narrowing casts of the Triton kernels launched while active (as LaunchCounter records launches).

    `held`: the trial's HeldData (AtenTrace.held), which the host's reinterpreting views went into (a fresh one if
    none); `problem_data`: the candidate model and the trial's inputs, whose float storages it learns (HeldData.hold)."""

    def __init__(self, device: str, held: HeldData | None = None, problem_data: Iterable = ()) -> None:
        self.device = device
        self._held = held if held is not None else HeldData()
        self._held.hold(problem_data)
        self._launches: list[list[_Storage]] = []  # the handed storages of each kernel being interpreted (CPU)
        self._found: dict[tuple, dict] = {}  # each distinct dot seen, in order
        self._running: list[str] = []  # kernels being interpreted (CPU)
        self._read: dict[tuple, dict[str, str]] = {}  # (compiled kernel, arguments' data) -> its stores' data (GPU)
        self._saved: list[tuple[type, str, object]] = []
        self._stored: set[str] = set()  # kernels that stored a value computed from 16-bit integer loads (CPU)
        self._handle: type | None = None  # the interpreter's value type (CPU)

    def __enter__(self) -> DotWatch:
        if self.device == "cpu":
            from triton.runtime import interpreter
            from triton.runtime.interpreter import InterpretedFunction, InterpreterBuilder, TensorHandle

            self._handle = TensorHandle

            self._patch(InterpretedFunction, "run", self._interpreted_run)
            self._patch(InterpreterBuilder, "create_dot", self._create_dot)
            for name in (
                "create_fp_trunc",
                "create_fp_to_fp",
                "create_fp_to_si",
                "create_fp_to_ui",
                "create_si_to_fp",
                "create_ui_to_fp",
            ):
                self._patch(InterpreterBuilder, name, self._create_cast)
            self._patch(InterpreterBuilder, "create_bitcast", self._create_bitcast)
            self._patch(InterpreterBuilder, "create_int_to_ptr", self._create_bitcast)
            if "create_dot_scaled" in InterpreterBuilder.__dict__:
                self._patch(InterpreterBuilder, "create_dot_scaled", self._create_dot_scaled)
            for name in [n for n in InterpreterBuilder.__dict__ if n.startswith("create_")]:
                self._patch(InterpreterBuilder, name, lambda original, name=name: self._data_flow(name, original))
            for name in [n for n in InterpreterBuilder.__dict__ if n.startswith("get_")]:
                self._patch(InterpreterBuilder, name, self._constant)
            self._patch(interpreter.ReduceScanOpInterface, "apply", self._reduce_scan)
            self._patch(interpreter, "_patch_lang_tensor", self._lang_tensor)
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
            handed = [watch._held.entry(t) for t in launched_tensors(fn, args, kwargs)]
            watch._launches.append(list({id(s): s for s in [*handed, *watch._held.storages()] if s}.values()))
            watch._note_arguments(fn, args, kwargs)
            try:
                return original(fn, *args, **kwargs)
            finally:
                watch._running.pop()
                watch._launches.pop()

        return run

    def _create_dot(self, original):
        watch = self

        def create_dot(builder, a, b, *args, **kwargs):
            precision = kwargs.get("input_precision", args[1] if len(args) > 1 else "?")
            data = _from(_carried([a, b], _DATA))
            watch._note(kernel=watch._kernel(), a=str(a.dtype), b=str(b.dtype), precision=_enum_name(precision), **data)
            return original(builder, a, b, *args, **kwargs)

        return create_dot

    def _create_cast(self, original):
        watch = self

        def create_cast(builder, src, dst_type, *args, **kwargs):
            a, b, data = str(src.dtype.scalar), str(dst_type.scalar), _carried(src, _DATA)
            made = not significand(a) and significand(b) and int_to_float_narrows(b, data)  # si_to_fp of fp64 bits
            if (narrowing(a, b) or made) and not getattr(src, _CONSTANT, False):
                watch._note(kernel=watch._kernel(), cast=f"{a}->{b}", **_from(data))
            result = original(builder, src, dst_type, *args, **kwargs)
            if not significand(b) and _bits(b) > 16 and data and significand(data):
                _mark(result, _FIXED, data)  # judged where it is stored (`_note_fixed`)
            return result

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
                watch._note_bits(watch._kernel(), f"{source}->{target}", _carried(src, _TAINT) is not None)
                if int_to_float_narrows(str(target), data := _carried(src, _DATA)):  # fp64 bits made fp32 bits
                    watch._note(kernel=watch._kernel(), cast=f"{source}->{target}", **_from(data))
            result = original(builder, src, dst_type, *args, **kwargs)
            if target.is_floating():
                _mark(result, _DATA, str(target))  # bits made floats are float data
            return result

        return create_bitcast

    def _note_bits(self, kernel: str, bits: str, from_narrow_loads: bool) -> None:
        self._note(kernel=kernel, bits=bits, **({"loaded": "16-bit integers"} if from_narrow_loads else {}))

    def _data_flow(self, name: str, original):
        """An interpreter op that labels its result as the TTIR flows label SSA values: a load by the element type it
        reads (`_DATA`; `_TAINT` for 16-bit integers), any other op by its operands. A store of a `_TAINT` value
        marks the kernel's later integer loads; one of `_FIXED` integers is noted (`_note_fixed`)."""
        watch = self
        ttir = f"tt.{name.removeprefix('create_').removeprefix('masked_')}"  # create_masked_load: tt.load
        load, store = _LOAD_OPS.search(ttir), _STORE_OPS.search(ttir)

        def op(builder, *args, **kwargs):
            result = original(builder, *args, **kwargs)
            handles = watch._handles([*args, *kwargs.values()])
            if store:
                watch._note_fixed(handles)
                if _carried(handles, _TAINT):
                    watch._stored.add(watch._kernel())
                watch._hold_stored(handles)
            if load:
                dtype = str(getattr(getattr(result, "dtype", None), "scalar", ""))
                narrow = dtype in _NARROW_INTEGERS or (
                    watch._kernel() in watch._stored and dtype.startswith(("int", "uint"))
                )
                _mark(result, _TAINT, dtype if narrow else None)
                _mark(result, _DATA, dtype or None)
                _mark(result, _DATA, watch._held_at(handles, dtype))
            elif handles:
                for label in _LABELS:
                    _mark(result, label, _widest([h.__dict__.get(label) for h in handles]))
                if all(h.__dict__.get(_CONSTANT) for h in handles) and isinstance(result, watch._handle):
                    setattr(result, _CONSTANT, True)  # a compiler folds these: no cast is left on a GPU either
            return result

        return op

    def _addressed(self, handles: list, wider_than: str | None = None) -> list[_Storage]:
        """The storages handed to the running kernel (those holding wider data than `wider_than`, when given) that the
        pointers among a load's or store's `handles` address (where its mask, the first int1 operand after them, is set)."""
        storages = [
            s
            for s in (self._launches[-1] if self._launches else ())
            if wider_than is None or significand(s.data or "") > significand(wider_than)
        ]
        pointer = next((h for h in handles if h.dtype.is_ptr()), None)
        if not storages or pointer is None:
            return []
        addresses = pointer.data.ravel()
        mask = next((h for h in handles[handles.index(pointer) + 1 :] if str(h.dtype) == "int1"), None)
        if mask is not None:
            try:
                addresses = pointer.data[np.broadcast_to(mask.data, pointer.data.shape)]
            except ValueError:  # not this pointer's mask: every address counts
                pass
        return [s for s in storages if s.hit(addresses)]

    def _held_at(self, handles: list, element: str) -> str | None:
        """The float data a load of `element`s reads, by where it reads: fp32 bits loaded as int32 are fp32 data."""
        return _widest(s.data for s in self._addressed(handles, element))

    def _hold_stored(self, handles: list) -> None:
        """A store of values computed from float data into narrower elements (fp32 bits kept in an int32 buffer):
        the storages it writes hold that data from now on, for this kernel's later loads and the next kernel's."""
        pointer = next((h for h in handles if h.dtype.is_ptr()), None)
        values = [h for h in handles if not h.dtype.is_ptr() and str(h.dtype) != "int1"]
        data = _carried(values, _DATA)
        if pointer is None or not data or significand(data) <= significand(str(pointer.get_element_ty())):
            return
        for storage in self._addressed(handles):
            self._held.widen(storage, data)

    def _handles(self, operands: list) -> list:
        """The interpreter values among a builder call's operands (and in its list operands: a descriptor's indices)."""
        handles = []
        for value in operands:
            if isinstance(value, self._handle):
                handles.append(value)
            elif isinstance(value, (list, tuple)):
                handles.extend(v for v in value if isinstance(v, self._handle))
        return handles

    def _constant(self, original):
        """The builder's `get_fp32(0.0)`, `get_int32(1)`...: values made from constants, which hold no data."""
        watch = self

        def get(builder, *args, **kwargs):
            result = original(builder, *args, **kwargs)
            if isinstance(result, watch._handle):
                setattr(result, _CONSTANT, True)
            return result

        return get

    def _note_fixed(self, operands: list) -> None:
        """A store's integer operands that hold float data turned into integers: fixed point kept for a later read."""
        for value in operands:
            dtype = str(getattr(getattr(value, "dtype", None), "scalar", ""))
            data = _carried(value, _FIXED)
            if data and dtype.startswith(("int", "uint")) and dtype != "int1":
                self._note(kernel=self._kernel(), fixed=dtype, **_from(data))

    def _reduce_scan(self, original):
        """The interpreter's reductions and scans (`tl.sum`, `tl.max`, `tl.cumsum`, `tl.reduce`) compute in numpy,
        past the builder: their results carry what their inputs did."""

        def apply(op, values):
            result = original(op, values)
            handles = [getattr(t, "handle", None) for t in (values if isinstance(values, tuple) else (values,))]
            made = [getattr(t, "handle", None) for t in (result if isinstance(result, tuple) else (result,))]
            for label in _LABELS:
                _mark(made, label, _carried(handles, label))
            return result

        return apply

    def _lang_tensor(self, original):
        """The interpreter's `x.T` makes its value past the builder: it carries what `x` did."""

        def patch_lang_tensor(tensor, scope) -> None:
            original(tensor, scope)
            transpose = tensor.T.fget

            def carrying_transpose(x):
                result = transpose(x)
                for label in _LABELS:
                    _mark(result.handle, label, _carried(x.handle, label))
                return result

            scope.set_attr(tensor, "T", property(carrying_transpose))

        return patch_lang_tensor

    def _create_dot_scaled(self, original):
        watch = self

        def create_dot_scaled(builder, *args, **kwargs):
            lhs, rhs = (_enum_name(args[i]) if len(args) > i else "?" for i in (2, 5))
            watch._note(kernel=watch._kernel(), a=lhs, b=rhs, precision="scaled", **_from(_carried(args, _DATA)))
            return original(builder, *args, **kwargs)

        return create_dot_scaled

    def _compiled_run(self, original):
        watch = self

        def run(fn, *args, **kwargs):
            kernel = original(fn, *args, **kwargs)
            if not kwargs.get("warmup", False):
                names = list(getattr(fn, "arg_names", None) or ())
                bound = {**dict(zip(names, args)), **{k: v for k, v in kwargs.items() if k in names}}
                stores = watch._read_compiled(_kernel_name(fn), kernel, watch._held_arguments(bound))
                for parameter, data in stores.items():  # what this launch's buffers hold now
                    if isinstance(tensor := _tensor_of(bound.get(parameter)), torch.Tensor):
                        watch._held.mark(tensor, data)
                watch._note_arguments(fn, args, kwargs)
            return kernel

        return run

    def _held_arguments(self, bound: dict) -> dict[str, str]:
        """Parameter name -> float data of each tensor argument whose bytes hold wider floats than its dtype says (a
        host `x.view(torch.int32)`, `triton.reinterpret`, a buffer an earlier kernel stored them into) and of each
        integer argument that is an address of float data (`x.data_ptr()`): the TTIR's loads through them read that
        data (GPU)."""
        found = {}
        for name, value in bound.items():
            if isinstance(tensor := _tensor_of(value), torch.Tensor):
                data = self._held.of(tensor)
                if data and significand(data) > significand(_element(value.dtype)):
                    found[name] = data
            elif type(value) is int and (data := self._held.at(value)):  # an address made a pointer in the kernel
                found[name] = data
        return found

    def _read_compiled(self, name: str, kernel, arguments: dict[str, str]) -> dict[str, str]:
        """Record a compiled kernel's dots and casts (once per kernel and arguments' data); returns what its stores
        make its arguments hold (`parse_held_stores`)."""
        key = (id(kernel), tuple(sorted(arguments.items())))
        if key in self._read:
            return self._read[key]
        self._read[key] = {}
        try:
            ttir = kernel.asm["ttir"]
        except (AttributeError, KeyError, TypeError) as exc:
            self._note(
                kernel=name, unknown=f"no TTIR on what JITFunction.run returned ({type(kernel).__name__}: {exc!r})"
            )
            return {}
        lost = set(arguments) - {parameter for _, parameter, _ in func_arguments(ttir)}
        if lost:
            lost = f"arguments {sorted(lost)} hold float data as other elements and are not in its TTIR"
            self._note(kernel=name, unknown=lost)
        try:
            dots, casts = parse_ttir(ttir, arguments), parse_casts(ttir, arguments)
        except ValueError as exc:
            self._note(kernel=name, unknown=str(exc))
            return {}
        self._read[key] = parse_held_stores(ttir, arguments)
        for a, b, precision, data in dots:
            self._note(kernel=name, a=a, b=b, precision=precision, **_from(data))
        for a, b, data in casts:
            self._note(kernel=name, cast=f"{a}->{b}", **_from(data))
        for stored, data in parse_fixed_stores(ttir, arguments):
            self._note(kernel=name, fixed=stored, **_from(data))
        for a, b, from_narrow_loads in parse_bitcasts(ttir):
            self._note_bits(name, f"{a}->{b}", from_narrow_loads)
        return self._read[key]

    def observation(self, inputs: list, host_casts: dict[str, int]) -> dict:
        """What the trial's dots and casts were (`host_casts`: AtenTrace.narrowings), and its inputs' float dtypes, for `precision_reason`."""
        dtypes = {
            str(v.dtype).removeprefix("torch.") for v in inputs if isinstance(v, torch.Tensor) and v.is_floating_point()
        }
        host = [{"kernel": "host", "cast": cast} for cast in host_casts]
        return {"dots": [*self._found.values(), *host], "input_dtypes": sorted(dtypes)}


_HALF = significand("fp16")  # a problem that needs no more than this may use half-precision dots and loads
_NAMES = {53: "fp64", 24: "fp32", 11: "fp16", 8: "bf16"}
_TORCH_NAMES = {
    "fp64": "float64",
    "fp32": "float32",
    "fp16": "float16",
    "bf16": "bfloat16",
    "fp8e4nv": "float8_e4m3fn",
    "fp8e5": "float8_e5m2",
    "fp8e4b8": "float8_e4m3fnuz",
    "fp8e5b16": "float8_e5m2fnuz",
}


@dataclass(frozen=True)
class Problem:
    """What a problem's own tensors hold, which every dot and narrowing is judged against: `floats`, the torch dtype
    names of its float inputs, outputs, parameters and buffers; `outputs`, those of its outputs (integers among them
    too); `makes_integers`: the reference itself turns floats into integers (a fake quantisation, a bucket index),
    so integers made of float data are its computation, not fixed point."""

    floats: frozenset[str]
    outputs: frozenset[str]
    makes_integers: bool = False

    def need(self, data: str | None = None) -> int:
        """Significand bits a value computed from `data` (a dtype name; None when unknown: the problem's widest float
        data) must keep: its data's, capped by the widest float output's (an fp16 output may go through fp16)."""
        bits = significand(data) if data else max(map(significand, self.floats), default=0)
        cap = [significand(d) for d in self.outputs if significand(d)]
        return min(bits, max(cap)) if cap else bits

    def outputs_a(self, dtype: str) -> bool:
        """Whether the problem outputs this (Triton or torch) dtype: a cast to it may be how that output is made
        (an int64 bucket index of float data)."""
        return _TORCH_NAMES.get(dtype, dtype) in self.outputs


def _name(bits: int) -> str:
    return _NAMES.get(bits, f"{bits}-bit")


def downgrade(dot: dict, policy: str, problem: Problem) -> str | None:
    """Why this record (a dot, cast, bitcast, argument or fixed-point store) loses precision that the data it was
    computed from has in `problem`, under `policy`; None when it does not."""
    kernel = dot["kernel"]
    if "cast" in dot:
        return _cast_downgrade(dot, problem)
    need = problem.need(dot.get("from"))
    keep = f"keep every float tensor {_name(need)}" + (" (fp64 may be used)" if need == 24 else "")
    if "bits" in dot:
        if not bits_downgrade(dot["bits"].split("->")[0], "loaded" in dot) or need <= _HALF:
            return None
        of = f" of bits computed from loaded {dot['loaded']}" if "loaded" in dot else ""
        return f"kernel {kernel}: a {dot['bits']} bitcast{of} decodes {_name(need)} data kept narrowed in integers (fp16/bf16 bits); {keep}"
    if "argument" in dot:
        if significand(dot["argument"]) >= need or dot["argument"] in problem.floats:
            return None
        return f"kernel {kernel}: reads a {dot['argument']} tensor, which holds this problem's {_name(need)} data narrowed; {keep}"
    if "fixed" in dot:
        if not need or problem.outputs_a(dot["fixed"]) or problem.makes_integers:
            return None
        return (
            f"kernel {kernel}: stores {dot['fixed']} integers converted from {dot.get('from', 'float')} data: fixed point, "
            f"which loses what lies below its step; {keep}"
        )
    if "unknown" in dot:
        if problem.need() <= _HALF:
            return None
        return (
            f"kernel {kernel}: the precision of its dots could not be read ({dot['unknown']}); "
            "a problem with fp32 data fails closed until tritonrl/verify/precision.py can read this Triton's compiled kernels"
        )
    a, b, precision = dot["a"], dot["b"], dot["precision"]
    if min(significand(a), significand(b)) < need:
        op = "tl.dot_scaled" if precision == "scaled" else "tl.dot"
        also = ' (or "tf32", which verify.precision=tf32 allows)' if policy == "tf32" and need == 24 else ""
        return (
            f"kernel {kernel}: {op} on {a} x {b} operands rounds this problem's {_name(need)} data; "
            f'keep the tiles {_name(need)} and write tl.dot(a, b, input_precision="ieee"){also}'
        )
    if policy == "strict" and "fp32" in (a, b) and precision != "ieee" and significand("tf32") < need:
        how = " (what a plain tl.dot or allow_tf32=True gives)" if precision == "tf32" else ""
        return (
            f"kernel {kernel}: tl.dot on fp32 operands with input_precision={precision}{how} is not IEEE fp32; "
            'write tl.dot(a, b, input_precision="ieee"), or set verify.precision=tf32 to allow TF32'
        )
    return None


def _cast_downgrade(dot: dict, problem: Problem) -> str | None:
    """A cast's downgrade: a float made narrower, or integers made of float data (fixed point), than the data it
    holds needs (a host cast's data: its source tensor's dtype); a view or pointer cast that reads data in narrower
    pieces, in a problem that needs more than half precision."""
    host = dot["kernel"] == "host"
    cast = dot["cast"].split(" ", 1)[1] if host else dot["cast"]
    where = f"host code: {dot['cast']}" if host else f"kernel {dot['kernel']}: a {cast} cast"
    src, dst = cast.removesuffix(" view").split("->")
    pieces = cast.endswith(" view") or cast.startswith("ptr<")
    need = problem.need(dot.get("from", src if host and not pieces else None))
    keep = f"keep it {_name(need)}" + (" (fp64 may be used)" if need == 24 else "")
    if pieces:
        return f"{where} reads this problem's {_name(need)} data in narrower pieces; {keep}" if need > _HALF else None
    if significand(dst) >= need or problem.outputs_a(dst):
        return None
    if not significand(dst) and problem.makes_integers:
        return None
    if not significand(dst):
        return f"{where} turns {_name(need)} data into integers (fixed point: what lies below its step is lost); {keep}"
    return f"{where} rounds this problem's {_name(need)} data to a narrower float; {keep}"


def precision_reason(
    trials: list[dict],
    output_dtypes: Iterable[str],
    policy: str,
    model_dtypes: Iterable[str] = (),
    makes_integers: bool = False,
) -> Reason | None:
    """The precision_downgrade reason for a candidate's trials, or None.

    `output_dtypes` are the reference outputs' torch dtype names and `model_dtypes` its parameters' and buffers'
    (an fp16 parameter of the problem's own is its data, not a narrowed copy); with the inputs' float dtypes
    recorded by the child they make the `Problem` each dot and cast is judged against. `makes_integers`: the
    reference turns floats into integers itself (Problem.makes_integers).
    """
    check_policy(policy)
    trials = [t for t in trials if "precision" in t]
    inputs = [d for t in trials for d in t["precision"]["input_dtypes"]]
    outputs = frozenset(output_dtypes)
    floats = frozenset(d for d in [*outputs, *inputs, *model_dtypes] if significand(d))
    problem = Problem(floats, outputs, makes_integers or any(not significand(d) for d in outputs))
    found: dict[str, None] = {}
    for t in trials:
        for dot in t["precision"]["dots"]:
            message = downgrade(dot, policy, problem)
            if message:
                found[message] = None
    if not found:
        return None
    messages = list(found)
    more = f" (and {len(messages) - 3} more)" if len(messages) > 3 else ""
    return Reason(ReasonCode.PRECISION_DOWNGRADE, f"verify.precision={policy}: " + "; ".join(messages[:3]) + more)
