"""Propose other shape sets for a problem (shape augmentation).

TritonRL turns each task into several tasks with other input shapes. This
module only *proposes* override dicts for `with_shapes` (module-level
constants, `get_inputs:<k>` size literals and `get_inputs:<local>` locals,
`get_init_inputs:<parameter>` constructor arguments, see shapes.py);
whether the reference really runs on a variant is checked later by the
caller.

Rules (the constraint inference is static, from the AST, and deliberately
simple; a wrong guess costs the caller one failed reference run):

* Only sites with value > MIN_VALUE change; smaller ones are structural
  (kernel size, stride, dim index, small channel or group counts). Sites
  named like kernel/stride/padding/dilation/window/patch never change
  whatever their value: scaling them changes the operation, not its size.
* Sites that share an original value form one group and move together
  (a square matrix's N, `in_features` equal to the input's last dim).
* A group is frozen when its value is wired into the model: it appears as
  an integer literal in a class or function other than `get_inputs`
  (`nn.Linear(64, 32)`), or as the default of a `Model.__init__` parameter
  that `get_init_inputs` does not pass (`image_size=32`). An argument
  `get_init_inputs` returns (KernelBook's `{'in_features': 64}`, `[256]`)
  is no wiring but a site, judged like a constant of its parameter's name
  (seen by the model): it moves with the input sizes of its value.
* When a problem names its sizes as module-level constants (KernelBench),
  size literals left in `get_inputs` (not its locals) are deliberate and stay: in
  KernelBench they are exactly the 224x224 / 32x32 images of CNNs whose
  classifier input is hard-coded. Problems without constants (KernelBook)
  vary their literals.
* Divisibility: a group stays a multiple of every *fixed divisor* it was a
  multiple of (an unchanged site the model sees that is named like
  groups/heads/patch or appears as `x % name` in the model, an unpassed
  `num_groups=4`-style default, a literal `d` in the model's `x % d`), and
  an integer multiple of the new value of its largest *changing divisor*
  (a changing site the model sees: passed to `get_init_inputs` or read in
  a class). Sizes used only in `get_inputs`
  (batch, length) are never divisors: the model cannot divide by them,
  and tying them would forbid odd sizes for no reason.
* A changing divisor whose original is a power of two ≥ 64 (e.g. an embed
  dim that head counts divide) is only halved or doubled, so its
  power-of-two relations with other sizes survive.
* No size is scaled below the receptive field of the largest module-level
  kernel-like constant ((kernel - 1) * dilation + 1, tuples included):
  pooling and convolutions fail on inputs smaller than their window.
* Every other group is scaled by a factor from FACTORS, and made odd with
  probability ODD_PROBABILITY so kernels must mask ragged tails.
* `Scaling` changes the draw for the verifier's alternate-shape trial: other
  factors (only larger sizes), always odd, every changeable group changed,
  small sizes varied too (KernelBook's `torch.rand([4, 4, 4, 4])`, `batch_size = 8`,
  `b = 8` in `torch.rand(b, i, j, l)`), structural constants (kernel size,
  stride, ...) stepped by one, since the model takes them as arguments and a
  kernel must not hard-code them, other parities (a valuation drawn anew,
  `two_adic`), one size boosted several times while the others shrink, and
  one size the model does not see (the batch where there is one) set to 1.

Test: tests/verify/test_variants.py.
"""

from __future__ import annotations

import ast
import math
import random
import re
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from tritonrl import syntax
from tritonrl.problems.shapes import (
    INIT_PREFIX,
    LITERAL_PREFIX,
    batch_sites,
    input_dimension_sites,
    shape_sites,
    site_spans,
    with_shapes,
)
from tritonrl.verify.shrink import MIN_VALUE, element_count

FACTORS = (0.5, 0.75, 1.25, 1.5, 2.0)  # within 2x of the original: same regime of the problem, new tiling/masking
POW2_FACTORS = (0.5, 2.0)  # power-of-two divisors stay powers of two
POW2_MIN = 64  # smaller powers of two are ordinary sizes (batch 16, 32 channels)
ODD_PROBABILITY = 0.35  # odd sizes exercise tail masking; the rest keep roughly the original parity
DIVISOR_NAME = re.compile(r"group|head|patch", re.IGNORECASE)  # names that divide other sizes even when fixed
STRUCTURAL_NAME = re.compile(r"kernel|stride|pad|dilation|window|patch", re.IGNORECASE)  # operation, not size
SIZE_NAME = re.compile(
    r"batch|channel|feature|length|height|width|depth|seq|token", re.IGNORECASE
)  # a size even when small
PADDING_NAME = re.compile(r"pad", re.IGNORECASE)
KERNEL_NAME = re.compile(r"kernel|window|patch|pool", re.IGNORECASE)  # their extent bounds the input sizes
DILATION_NAME = re.compile(r"dilation", re.IGNORECASE)
ATTEMPTS_PER_VARIANT = 25  # bounded search: duplicates, no-ops and over-budget draws are retried this often


@dataclass(frozen=True)
class Scaling:
    """How new sizes are drawn; the defaults are shape augmentation's."""

    factors: tuple[float, ...] = FACTORS
    odd_probability: float = ODD_PROBABILITY
    every_group: bool = False  # a variant must change every changeable group (every size the problem lets change)
    # sizes ≤ MIN_VALUE vary too (down to 2): size literals without constants, constants named like sizes, and any
    # constant that sizes a get_inputs tensor
    small_sizes: bool = False
    structural: bool = (
        False  # structural constants ≥ 1 (kernel, stride, pad, dilation, window, patch) step by ±1, a pad of 0 to 1
    )
    # instead of odd_probability: "mixed" makes each size odd or 2 mod 4 (even, no multiple of any block size ≥ 4)
    # at random, "two_mod_four" always the latter; "two_adic" makes it 2^j × odd, j uniform in 2..v2 − 1 (v2: the
    # original's exponent of 2), so the primary sizes' multiples of 4, 8, 16, ... are not the only ones and a
    # size's valuation cannot tell which trial runs
    parity: str = ""
    # one changeable size drawn at random is scaled by one of these instead of `factors` (the plan's others shrink):
    # a grid or loop capped a few times above the problem's own size is caught
    boost: tuple[float, ...] = ()
    split: bool = False  # sites sharing a value may each move on their own (a square matrix turns oblong)
    keep_share: float = 0.0  # chance that a group keeps the problem's own value (sizes move one by one)
    # only the sizes the model's integer literals freeze move (a batch of 32 beside a group count of 32 in
    # `x.view(b, 32, -1)` is no group count): the reference decides whether the problem runs there
    collided_only: bool = False
    # one size the model does not see is 1, the first input's first dimension where it is one (a batch, a matmul's
    # M): a batch of one or a GEMV, where answers often take another path
    unit: bool = False


@dataclass
class _Group:
    """Sites sharing one original value; they always get the same new value."""

    value: int
    names: list[str]
    changeable: bool
    divisor: bool = False  # the model sees it, so other groups may have to stay multiples of it
    parent: int | None = None  # largest changing divisor (by original value)
    step: int = 1  # lcm of the fixed divisors it must stay a multiple of
    pow2: bool = False  # only halved or doubled
    smallest: int = MIN_VALUE + 1  # the least value it may take
    structural: bool = False  # an operation parameter: stepped by one, never a divisor
    batch: bool = False  # it sizes the first dimension of get_inputs' first tensor (shapes.batch_sites)


def make_variants(
    source: str, count: int = 5, seed: int = 0, max_elements: int | None = None, scaling: Scaling = Scaling()
) -> list[dict[str, int]]:
    """Up to `count` distinct shape overrides, each different from the original shapes.

    Each dict maps the changed sites to their new values (unchanged sites are
    left out). Deterministic for a given `seed`. With `max_elements`, a
    variant whose inputs + weights + outputs (measured on the meta device by
    `element_count`, which imports and runs the problem's module code)
    exceed it is skipped, as is one the model cannot even be built at.
    Without it, nothing is executed. Returns fewer than `count` (maybe none)
    when the problem has too few changeable sites or too many draws are
    rejected; the number of draws is bounded.
    """
    if count <= 0:
        return []
    sites = shape_sites(source)
    tree = syntax.parse(source)
    groups = _groups(
        tree,
        sites,
        input_dimension_sites(source),
        scaling.small_sizes,
        scaling.structural,
        scaling.collided_only,
        set(site_spans(source).values()),
    )
    changeable = [value for value, g in groups.items() if g.changeable]
    if not changeable:
        return []
    batch = batch_sites(source)
    for group in groups.values():
        group.batch = any(name in batch for name in group.names)
    floor = _window_floor(tree, sites)
    rng = random.Random(seed)
    seen = {tuple(sorted(sites.items()))}
    variants: list[dict[str, int]] = []
    with tempfile.TemporaryDirectory(prefix="tritonrl-variants-") as tmp:
        for _ in range(count * ATTEMPTS_PER_VARIANT):
            if len(variants) == count:
                break
            new_values = _draw(groups, floor, rng, scaling)
            if scaling.every_group and any(new_values.get(value, value) == value for value in changeable):
                continue
            assignment = {name: new_values.get(value, value) for name, value in sites.items()}
            if scaling.split:
                _split(assignment, groups, changeable, floor, rng, scaling)
            key = tuple(sorted(assignment.items()))
            if key in seen:  # no-op (clamped back to the original) or duplicate
                continue
            seen.add(key)
            overrides = {name: value for name, value in assignment.items() if value != sites[name]}
            if max_elements is not None and not _fits(source, overrides, max_elements, Path(tmp)):
                continue
            variants.append(overrides)
    return variants


def unmoved_sizes(source: str) -> str:
    """Why no trial can run at other shapes than the problem's own, for a verdict's `untried`: it has no shape site
    (shapes.py), or none that may move even under the verifier's widest scaling (small sizes and structural
    constants too), or the reference ran at none of the shapes proposed. Call it where no trial at other shapes ran."""
    what = "the problem's sizes other than its own"
    sites = shape_sites(source)
    if not sites:
        return (
            f"{what}: it has no size the verifier can move (no module-level integer constant, no size literal or "
            "local of get_inputs' tensor factories, no integer argument of get_init_inputs), so every trial ran "
            "at its own sizes and an answer hard-coding them is not caught"
        )
    groups = _groups(
        syntax.parse(source),
        sites,
        input_dimension_sites(source),
        small_sizes=True,
        structural=True,
        spans=set(site_spans(source).values()),
    )
    if not any(g.changeable for g in groups.values()):
        listed = ", ".join(f"{name}={value}" for name, value in sites.items())
        return (
            f"{what}: none of its sizes may move ({listed}: each too small to be a size, wired into the model "
            "by a literal or an unpassed default, or a get_inputs literal beside named constants), so every trial "
            "ran at its own sizes"
        )
    return f"{what}: the reference ran at none of the shapes proposed, so every trial ran at its own sizes"


def _fits(source: str, overrides: dict[str, int], max_elements: int, workdir: Path) -> bool:
    try:
        return element_count(with_shapes(source, overrides), workdir) <= max_elements
    except Exception:  # the model cannot even be built at these shapes (e.g. channels no longer divisible)
        return False


def _draw(groups: dict[int, _Group], floor: int, rng: random.Random, scaling: Scaling) -> dict[int, int]:
    """New value per changeable group, keyed by original value."""
    new: dict[int, int] = {}
    directions = {f > 1 for f in scaling.factors}  # halve and/or double power-of-two divisors, as the factors go
    boostable = [v for v, g in sorted(groups.items()) if g.changeable and not g.structural and not g.pow2]
    boosted = rng.choice(boostable) if scaling.boost and boostable else None
    unseen = [v for v in boostable if not groups[v].divisor and v != boosted]
    unseen = [v for v in unseen if groups[v].batch] or unseen
    unit = rng.choice(unseen) if scaling.unit and unseen else None
    for value in sorted(groups):  # ascending: divisors are drawn before their multiples
        group = groups[value]
        if not group.changeable or (scaling.keep_share and rng.random() < scaling.keep_share):
            continue
        factors = scaling.boost if value == boosted else scaling.factors
        if value == unit:
            new[value] = 1
            continue
        if group.structural:
            new[value] = value + 1 if value <= 1 else value + rng.choice((-1, 1))
            continue
        lowest = max(group.smallest, min(floor, value))  # stay a size, and cover the largest window
        base = group.step
        if group.parent is not None:
            base = math.lcm(base, new.get(group.parent, group.parent))
        if group.pow2 and base == group.step:  # no changing divisor: halve or double, keeping the fixed ones
            options = [
                int(value * f)
                for f in POW2_FACTORS
                if (f > 1) in directions and int(value * f) >= lowest and int(value * f) % base == 0
            ]
            new[value] = rng.choice(options) if options else value
        elif base > 1:  # keep the multiple, near the drawn size
            target = value * rng.choice(factors)
            new[value] = base * max(1, round(target / base), -(-lowest // base))
        else:
            factor = rng.choice(factors)
            scaled = round(value * factor)
            if scaled == value:  # a small literal that rounding put back
                scaled += 1 if factor > 1 else -1
            if scaling.parity:
                scaled = _ragged(scaled, rng, scaling.parity, value)
            elif rng.random() < scaling.odd_probability and scaled % 2 == 0:  # growing, up: past a cap at 1.25x
                scaled += 1 if min(factors) > 1 else rng.choice((-1, 1))
            new[value] = max(lowest, scaled)
    return new


def _split(
    assignment: dict[str, int],
    groups: dict[int, _Group],
    changeable: list[int],
    floor: int,
    rng: random.Random,
    scaling: Scaling,
) -> None:
    """Give the other sites of each group of several sites values of their own, at least one differing from the
    first site's (a square problem turns oblong whether or not the first site kept its value). A constructor
    argument keeps the first site's value where that is no constructor argument: it is the size of an input
    dimension of its value (a LayerNorm's width), which split from it breaks the reference."""
    moving = replace(scaling, keep_share=0.0)
    for value in changeable:
        first, *others = groups[value].names
        if not first.startswith(INIT_PREFIX):
            others = [name for name in others if not name.startswith(INIT_PREFIX)]
        if not others:
            continue
        for _ in range(ATTEMPTS_PER_VARIANT):
            drawn = {name: _draw(groups, floor, rng, moving).get(value, value) for name in others}
            if any(v != assignment[first] for v in drawn.values()):
                assignment.update(drawn)
                break


def _ragged(size: int, rng: random.Random, parity: str, original: int) -> int:
    """`size` moved to a near number of the parity Scaling.parity asks for: a ragged tail for block sizes."""
    if parity == "two_adic":  # 2^j × the odd number nearest size / 2^j (at least 1), j between the other parities'
        power = 2 ** rng.randint(2, max(2, (original & -original).bit_length() - 2))
        return power * max(1, 2 * round((size / power - 1) / 2) + 1)
    if parity == "mixed" and rng.random() < 0.5:
        return size if size % 2 else size + rng.choice((-1, 1))
    return size + (2 - size % 4 if size % 4 != 3 else 3)


def _groups(
    tree: ast.Module,
    sites: dict[str, int],
    dimensions: set[str],
    small_sizes: bool = False,
    structural: bool = False,
    collided_only: bool = False,
    spans: set[tuple[int, int, int, int]] = frozenset(),
) -> dict[int, _Group]:
    """Sites grouped by original value, with frozen groups and divisibility links filled in.

    With `small_sizes`, a group of sizes may be as small as 2 (1 is a
    broadcast dimension), and the model's small integer literals then wire
    sizes too (KernelBook's `nn.Linear(4, 4)` for a 4×4×4×4 input). Sizes:
    get_inputs literals and locals, constants and constructor arguments named
    like sizes (SIZE_NAME) and, whatever
    their name, the `dimensions` (constant sites that size a get_inputs
    tensor: `b = 8` of `torch.rand(b, i, j, l)` is the batch an answer could
    hard-code). A small constant that only reaches the model stays: a group
    count or dim index, not a size.
    With `structural`, groups holding a structural constant are changeable; with `collided_only`, only the groups
    of sizes the model's literals alone freeze are. `spans`: where the sites' values are written (a constructor
    argument that is a site is no literal of the model's).
    """
    smallest_size = 2 if small_sizes else MIN_VALUE + 1
    literals, fixed_divisors = _model_wiring(tree, smallest_size, spans)
    parameters = {_parameter(n) for n in sites if n.startswith(INIT_PREFIX)}
    operation = {value for name, value in sites.items() if STRUCTURAL_NAME.search(name)}
    frozen = set() if structural else set(operation)  # frozen whatever the model's literals
    if any(not name.startswith((LITERAL_PREFIX, INIT_PREFIX)) for name in sites):
        frozen |= {value for name, value in sites.items() if _input_literal(name)}
    wired = literals | frozen
    visible = _model_visible_names(tree)
    modulo_names = _modulo_names(tree)

    by_value: dict[int, list[str]] = {}
    for name, value in sites.items():
        by_value.setdefault(value, []).append(name)
    groups = {}
    for value, names in by_value.items():
        if structural and value in operation:
            # a padding of 0 steps to 1 (an answer that ignores the padding is right at 0 only)
            stepped = value >= 1 or all(PADDING_NAME.search(n) for n in names)
            changeable = stepped and value not in wired and not collided_only
            groups[value] = _Group(value, names, changeable=changeable, smallest=1, structural=True)
            continue
        sizes = all(n.startswith(LITERAL_PREFIX) or SIZE_NAME.search(n) or n in dimensions for n in names)
        smallest = smallest_size if sizes else MIN_VALUE + 1
        free = value in literals and value not in frozen if collided_only else value not in wired
        groups[value] = _Group(value, names, changeable=value >= smallest and free, smallest=smallest)
    for group in groups.values():
        # a tuple constant's element is seen (`input_shape:0`) where the tuple is
        seen_by_model = [_parameter(n) for n in group.names if n.startswith(INIT_PREFIX)]  # passed to the model
        seen_by_model += [n.split(":")[0] for n in group.names if not n.startswith((LITERAL_PREFIX, INIT_PREFIX))]
        seen_by_model = [n for n in seen_by_model if n in visible or n in parameters]
        # a changing size the model sees may be divided by; a fixed one only when it looks like a divisor
        group.divisor = (
            not group.structural
            and group.value > 1
            and any((group.changeable or DIVISOR_NAME.search(n) or n in modulo_names) for n in seen_by_model)
        )
        if group.divisor and not group.changeable:
            fixed_divisors.add(group.value)
    for group in groups.values():
        if not group.changeable:
            continue
        fixed = [d for d in fixed_divisors if 1 < d < group.value and group.value % d == 0]
        group.step = math.lcm(*fixed) if fixed else 1
        changing = [
            d.value
            for d in groups.values()
            if d.divisor and d.changeable and d.value < group.value and group.value % d.value == 0
        ]
        group.parent = max(changing, default=None)
    parents = {g.parent for g in groups.values()}
    for group in groups.values():
        v = group.value
        group.pow2 = group.changeable and v in parents and v >= POW2_MIN and v & (v - 1) == 0
    return groups


def _window_floor(tree: ast.Module, sites: dict[str, int]) -> int:
    """Receptive field of the largest kernel-like constant or constructor argument (ints or tuples of ints); 0 if
    none."""
    kernels, dilations = [0], [1]
    for name, value in sites.items():
        if name.startswith(INIT_PREFIX):
            parameter = _parameter(name)
            if KERNEL_NAME.search(parameter):
                kernels.append(value)
            elif DILATION_NAME.search(parameter):
                dilations.append(value)
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        name, value = node.targets[0].id, node.value
        elements = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
        ints = [e.value for e in elements if isinstance(e, ast.Constant) and type(e.value) is int]
        if KERNEL_NAME.search(name):
            kernels += ints
        elif DILATION_NAME.search(name):
            dilations += ints
    return (max(kernels) - 1) * max(dilations) + 1 if max(kernels) > 0 else 0


def _is_int(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _model_wiring(
    tree: ast.Module,
    smallest: int = MIN_VALUE + 1,
    sites: set[tuple[int, int, int, int]] = frozenset(),
) -> tuple[set[int], set[int]]:
    """(values wired into the model, fixed divisors the model imposes).

    Wired: integer literals ≥ `smallest` in classes and in functions other
    than get_inputs (module-level statements such as the shape constants or
    `depth, height, width = ...` are test configuration, not wiring), and
    the defaults of Model.__init__ parameters that get_init_inputs does not
    pass. Parameter defaults otherwise are overridden, so they do not count,
    nor do the values of `sites` (spans of shapes.site_spans): the arguments
    get_init_inputs returns are sites that move.
    Fixed divisors: literals d > 1 in the model's `x % d`, and unpassed
    defaults of parameters named like groups/heads.
    """
    wired: set[int] = set()
    divisors: set[int] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.arguments):
            return
        if isinstance(node, ast.expr) and (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset) in sites:
            return
        if _is_int(node) and node.value >= smallest:
            wired.add(node.value)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_int(node.right):
            if node.right.value > 1:
                divisors.add(node.right.value)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for node in tree.body:
        if isinstance(node, ast.ClassDef) or (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name != "get_inputs"
        ):
            visit(node)
    for name, default in _unpassed_defaults(tree).items():
        if _is_int(default):
            if default.value >= smallest:
                wired.add(default.value)
            if DIVISOR_NAME.search(name) and default.value > 1:
                divisors.add(default.value)
    return wired, divisors


def _unpassed_defaults(tree: ast.Module) -> dict[str, ast.expr]:
    """Defaults of Model.__init__ parameters that get_init_inputs() does not pass (all if it is not a literal)."""
    init = next(
        (
            item
            for node in tree.body
            if isinstance(node, ast.ClassDef) and node.name == "Model"
            for item in node.body
            if isinstance(item, ast.FunctionDef) and item.name == "__init__"
        ),
        None,
    )
    if init is None:
        return {}
    args = init.args
    positional = args.posonlyargs + args.args
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults) :]], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    passed_positional, passed_names = _init_arguments(tree)
    if passed_positional is None:
        return defaults
    names = [a.arg for a in positional[1:]]  # after self
    passed = set(names[:passed_positional]) | passed_names
    return {name: value for name, value in defaults.items() if name not in passed}


def _init_arguments(tree: ast.Module) -> tuple[int | None, set[str]]:
    """(number of positional args, keyword names) get_init_inputs passes; (None, ∅) if not a plain literal."""
    function = next(
        (n for n in reversed(tree.body) if isinstance(n, ast.FunctionDef) and n.name == "get_init_inputs"), None
    )
    returns = [n for n in ast.walk(function) if isinstance(n, ast.Return)] if function else []
    if len(returns) != 1 or not isinstance(returns[0].value, (ast.List, ast.Tuple)):
        return None, set()
    elements = returns[0].value.elts
    if any(isinstance(e, ast.Starred) for e in elements):
        return None, set()
    # KernelBook form: [[args...], {kwargs...}]
    if len(elements) == 2 and isinstance(elements[0], (ast.List, ast.Tuple)) and isinstance(elements[1], ast.Dict):
        keys = elements[1].keys
        if any(isinstance(e, ast.Starred) for e in elements[0].elts) or not all(
            isinstance(k, ast.Constant) and isinstance(k.value, str) for k in keys
        ):
            return None, set()
        return len(elements[0].elts), {k.value for k in keys}
    return len(elements), set()


def _modulo_names(tree: ast.Module) -> set[str]:
    """Names (`d`, `self.d`) used as the right operand of `%` in classes and functions (assertions, checks)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            if isinstance(node.right, ast.Name):
                names.add(node.right.id)
            elif isinstance(node.right, ast.Attribute):
                names.add(node.right.attr)
    return names


def _model_visible_names(tree: ast.Module) -> set[str]:
    """Module-level names the model can see: read in a class body or in get_init_inputs."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef) or (isinstance(node, ast.FunctionDef) and node.name == "get_init_inputs"):
            names.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
    return names


def _input_literal(name: str) -> bool:
    """A `get_inputs:<k>` size literal (not a local of get_inputs)."""
    return name.startswith(LITERAL_PREFIX) and name[len(LITERAL_PREFIX) :].isdigit()


def _parameter(name: str) -> str:
    """The constructor parameter (or keyword, or position) a `get_init_inputs:...` site binds."""
    return name[len(INIT_PREFIX) :].split(":")[0]
