"""What a trial draws from its secret seeds: the models' weights and arguments, and the inputs.

Why: an RL policy is paid for an answer the verifier calls correct, so an
answer that is right on every case drawn and wrong elsewhere earns full
reward. Nothing about a case may then be predictable from the problem file
or from the answer's own code:
- weights: every floating parameter and buffer of the reference is redrawn
  after construction (any size, one element included; random sign; a share
  of tiny magnitudes, so a variance near 0 needs its eps) and the same
  values are loaded into the answer, so a constant it hard-coded (a PReLU
  slope of 0.25, an identity-initialised weight, a scale folded into an
  unregistered copy in `__init__`) is wrong;
- arguments: float constructor arguments and the scalars `get_inputs`
  passes to `forward` (an exponent, a shift) are varied, and integer
  constructor arguments (a divisor, a group count) changed in odd variants,
  where the reference accepts other values;
- inputs: `torch.rand`/`randn` draws inside `get_inputs` are refilled from
  other distributions (offsets, scales, signs, zero and constant rows,
  outliers), and floats made from `torch.randint` (0/1 targets) become
  values between the integers; a distribution is dropped only for the draw
  it breaks.
Every draw falls back, step by step, to what the problem wrote when the
reference leaves its domain there (NaN/inf it did not have): a ladder of
`DrawMode`s, chosen in the sandboxed reference job (child.py).

Runs in the sandboxed children (it executes problem code).
Test: tests/verify/test_draws.py.
"""

from __future__ import annotations

import ast
import inspect
import math
import random
import re
import sys
import textwrap
import weakref
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from types import ModuleType

import torch
from torch.overrides import TorchFunctionMode

from tritonrl import syntax

# How far a draw departs from what the problem wrote, most telling first; the reference job takes the first
# the reference stays finite on. signed: any sign; mixed: the named tensors (those the reference needs
# positive, a variance: found one by one in the reference job) keep their signs and every other weight takes
# any sign (arguments keep theirs); kept_sign: each value keeps its sign; built: as the problem constructs it.
DRAW_MODES = ("signed", "mixed", "kept_sign", "built")
MIXED = "mixed:"  # a mixed mode names the tensors that keep their signs: "mixed:bn.running_var,ln.weight"
ZERO_SHARE = 1 / 32  # of a signed redrawn tensor's elements (32 or more) are exactly 0
TINY_SHARE = 0.25  # of a redrawn tensor's elements get a magnitude of 1e-6..1e-2 of its scale: a variance near 0
# A redrawn element's magnitude, as a multiple of its tensor's RMS, log-uniform; a varied float argument likewise,
# as a multiple of its value.
SCALE_RANGE = (0.1, 8.0)
# A one-element weight's magnitude, as a multiple of its built one or of 1 if larger: below 1 in even variants,
# above in odd ones, so a slope of 0.25 is tried above 1 (max(x, a·x) is PReLU only for a ≤ 1), a gain of 1 below;
# signed, it is negative in even variants and positive in odd ones (min(x, a·x) is PReLU only for a ≥ 1).
SCALAR_RANGES = ((0.05, 0.9), (1.25, 5.0))
ARGUMENT_RANGE = (0.25, 4.0)
ZERO_ARGUMENT = (0.05, 0.5)  # a float argument of 0.0 (a clamp bound) becomes a value in this range
# Buffers the verifier redraws: a norm's running statistics, and those the construction's seed decides (drawn in
# `__init__`: a calibration scale, a mean and std). Other buffers are structure the problem built (a causal mask, a
# sinusoidal table) and stay as built.
STATISTICS_PREFIX = "running_"
# What a trial's model is drawn as (`variant`): 0; 1, the odd one (signed draws negated, one-element weights above 1,
# constructor integers changed, float arguments between 0 and 1 moved above 1); STAY_SIDE, as 1 with float
# arguments left on their side of 1 (where the reference takes none above 1: a dropout's p); AS_BUILT, the problem
# as written (the first trial: a slope or eps of the problem's own, between the other variants' values).
STAY_SIDE, AS_BUILT = 3, 2
VARIANTS = (0, 1, STAY_SIDE, AS_BUILT)
SMALL_INT = 2  # constructor integers from this up may be hyper-parameters: a divisor, a group count (0/1: flags)
AXIS_NAME = re.compile(r"dim|axis", re.IGNORECASE)  # a constructor integer naming an axis: another is another problem


def split_init_inputs(values: list) -> tuple[list, dict]:
    """Constructor (args, kwargs) from `get_init_inputs()`.

    KernelBench returns positional args; KernelBook returns `[args, kwargs]`
    (exactly a list and a dict), which is taken as that form.
    """
    if len(values) == 2 and isinstance(values[0], (list, tuple)) and isinstance(values[1], dict):
        return list(values[0]), dict(values[1])
    return list(values), {}


def seed_everything(seed: int) -> None:
    """Seed every generator a problem's `get_inputs` or `Model` may draw from: torch's, Python's `random`, numpy's.

    Seeding torch alone left `np.random`/`random` inputs the same in every
    verification (not secret) and different between the reference's and the
    candidate's processes (an honest kernel judged wrong).
    """
    torch.manual_seed(seed)
    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed % 2**32)


# ---------------------------------------------------------------- arguments


def _log_uniform(rng: random.Random, low: float, high: float) -> float:
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def _varied_number(value, rng: random.Random, mode: str, flip: bool, cross: bool = False):
    """A float argument scaled (0.0 made a small value) and, in signed mode, negated at random, then all negated with
    `flip`; with `cross`, one between 0 and 1 made one above 1 of its own sign; an int (forward's only) moved by one
    or to 2n + 3 (0 and 1 too: a diagonal, a shift; far, so an exponent kept in three bits shows); tuples and lists
    element by element; else as is."""
    if type(value) in (tuple, list):
        return type(value)(_varied_number(v, rng, mode, flip, cross) for v in value)
    if type(value) is float:
        signed = mode == "signed" or mode.startswith(MIXED)  # a mixed mode keeps the signs of tensors, not arguments
        sign = rng.choice((-1.0, 1.0)) * (-1.0 if flip else 1.0) if signed else 1.0
        if value == 0.0:
            return sign * rng.uniform(*ZERO_ARGUMENT)
        scale = _log_uniform(rng, *ARGUMENT_RANGE)
        if cross and abs(value) < 1:  # a slope of 0.01 tried above 1 too, its sign kept: max(x, a·x) is LeakyReLU
            return math.copysign(_log_uniform(rng, *SCALAR_RANGES[1]), value)  # only for a ≤ 1, negative ones too
        return sign * value * scale
    if type(value) is int and mode != "built":
        return 2 * value + 3 if rng.random() < 0.5 else value + rng.choice((-1, 1))
    return value


def _sizes(values) -> bool:
    """Whether a tuple of constructor arguments is sizes (a kernel size, a shape): integers only."""
    return all(type(v) is int for v in values)


def vary_arguments(
    args: list, kwargs: dict, seed: int, mode: str, ints: bool = False, variant: int = 0
) -> tuple[list, dict]:
    """Constructor or forward arguments with their numbers varied from `seed` (`mode` from DRAW_MODES); an odd
    `variant` negates what the even one drew (signed mode), so trials of both variants see both signs, and
    variant 1 moves floats between 0 and 1 above 1 (VARIANTS).

    Constructor integers are sizes, dims and flags, whose change the shape plans make where the problem allows
    (`ints=False`); forward's small integers are the problem's hyper-parameters (`ints=True`).
    """
    if mode == "built" or variant == AS_BUILT:
        return list(args), dict(kwargs)
    rng = random.Random(seed)

    def vary(value):
        if (type(value) is int and not ints) or (type(value) in (tuple, list) and not ints and _sizes(value)):
            return value
        return _varied_number(value, rng, mode, flip=variant % 2 == 1, cross=variant == 1)

    return [vary(a) for a in args], {k: vary(v) for k, v in sorted(kwargs.items())}


# ---------------------------------------------------------------- weights

# The values each reference tensor was built with (before `redraw_weights`), by name: what an answer's own
# tensors are matched against (`_shared_weights`).
_BUILT: weakref.WeakKeyDictionary[torch.nn.Module, dict[str, torch.Tensor]] = weakref.WeakKeyDictionary()
# A candidate -> how its tensors that hold the reference's weights are made from a reference state (build_candidate)
_LAYOUT: weakref.WeakKeyDictionary[torch.nn.Module, Callable[[dict], dict]] = weakref.WeakKeyDictionary()


def _redrawn(value: torch.Tensor, generator: torch.Generator, signed: bool, variant: int) -> torch.Tensor:
    """New values for one tensor: magnitudes around its RMS (a share of them tiny, a few exactly 0; one element:
    SCALAR_RANGES by `variant`), signs random or kept."""
    original = value.detach().to(torch.float32)
    rms = float(original.pow(2).mean().sqrt()) if original.numel() else 0.0
    scale = rms if rms > 0 and rms == rms and rms != float("inf") else 0.5
    span = SCALE_RANGE
    if original.numel() == 1:
        scale, span = max(scale, 1.0), SCALAR_RANGES[variant % 2]
    shape = original.shape
    low, high = math.log(span[0]), math.log(span[1])
    magnitude = scale * torch.exp(low + (high - low) * torch.rand(shape, generator=generator))
    if original.numel() > 1:
        tiny = torch.rand(shape, generator=generator) < TINY_SHARE
        exponent = -6 + 4 * torch.rand(shape, generator=generator)
        magnitude = torch.where(tiny, scale * torch.pow(10.0, exponent), magnitude)
    random_sign = torch.where(torch.rand(shape, generator=generator) < 0.5, -1.0, 1.0)
    if original.numel() == 1:  # negative and small, and (negated by the odd variant) positive and large
        random_sign = -torch.ones(shape)
    if signed:
        sign = random_sign
    else:
        sign = torch.where(original == 0, random_sign, torch.sign(original))
    if signed and original.numel() >= 1 / ZERO_SHARE:  # exact zeros: a gain divided out of a bias meets them
        sign = torch.where(torch.rand(shape, generator=generator) < ZERO_SHARE, 0.0, sign)
    return (sign * magnitude).to(value.dtype)


def redraw_weights(
    model: torch.nn.Module, seed: int, mode: str, variant: int = 0, seeded: frozenset[str] = frozenset()
) -> dict[str, torch.Tensor]:
    """Redraw every floating parameter, running statistic and `seeded` buffer of `model` in place (unless `mode` is
    built); returns the values they were built with, by name. An odd `variant` negates the signed draw: a
    one-element weight takes both signs over the trials (max(x·g) is max(x)·g for one of them only), and magnitudes
    on both sides of 1."""
    generator = torch.Generator().manual_seed(seed)
    flip = -1.0 if (mode == "signed" or mode.startswith(MIXED)) and variant % 2 else 1.0
    kept = set(mode.removeprefix(MIXED).split(",")) if mode.startswith(MIXED) else set()
    parameters = {name for name, _ in model.named_parameters()}
    built = {}
    with torch.no_grad():
        for name, value in model.state_dict(keep_vars=True).items():
            if not value.is_floating_point() or not _drawn(name, parameters, seeded):
                continue
            built[name] = value.detach().clone()
            if mode != "built":
                signed = mode == "signed" or (mode.startswith(MIXED) and name not in kept)
                value.copy_((flip if signed else 1.0) * _redrawn(value, generator, signed, variant))
    return built


def _drawn(name: str, parameters, seeded) -> bool:
    """Whether redraw_weights redraws a state entry of this name: a parameter, a running statistic or a seeded buffer."""
    return name in parameters or name in seeded or name.rsplit(".", 1)[-1].startswith(STATISTICS_PREFIX)


def constructor_integers(problem: ModuleType) -> list[tuple[str, int]]:
    """(key, value) of the constructor's integer arguments that may be hyper-parameters (a divisor, a group count):
    from SMALL_INT up, not bools, not named as an axis. Keys: a position ("0") or a keyword."""
    args, kwargs = split_init_inputs(problem.get_init_inputs())
    try:
        names = list(inspect.signature(problem.Model.__init__).parameters)[1:]
    except (TypeError, ValueError):  # a constructor without a readable signature: its positions have no names
        names = []
    named = [(str(i), names[i] if i < len(names) else "", v) for i, v in enumerate(args)]
    named += [(k, k, v) for k, v in sorted(kwargs.items())]
    return [
        (key, value)
        for key, name, value in named
        if type(value) is int and value >= SMALL_INT and not AXIS_NAME.search(name)
    ]


def integer_alternatives(value: int, rng: random.Random) -> list[int]:
    """Other values to try for a constructor integer, in a random order: one more or less, twice, half."""
    options = list(dict.fromkeys(v for v in (value + 1, value - 1, 2 * value, value // 2) if v >= 1 and v != value))
    rng.shuffle(options)
    return options


def init_arguments(
    problem: ModuleType, seed: int, mode: str, variant: int, integers: dict[str, int] | None = None
) -> tuple[list, dict]:
    """The constructor arguments both models are built with (what decides whether two trials may share one): an odd
    `variant` also takes `integers` (constructor_integers' keys -> values the reference job found it accepts)."""
    args, kwargs = vary_arguments(*split_init_inputs(problem.get_init_inputs()), seed, mode, variant=variant)
    if integers and variant % 2:
        args = [integers.get(str(i), a) for i, a in enumerate(args)]
        kwargs = {k: integers.get(k, v) for k, v in kwargs.items()}
    return args, kwargs


def positive_tensors(model: torch.nn.Module) -> list[str]:
    """Names of the tensors redraw_weights redraws that were built all positive: those a mixed mode may keep."""
    parameters, drawn = {name for name, _ in model.named_parameters()}, _BUILT.get(model, {})
    return [
        name
        for name, value in model.state_dict().items()
        if value.is_floating_point() and bool((value > 0).all()) and _drawn(name, parameters, drawn)
    ]


def _seeded_buffers(problem: ModuleType, model: torch.nn.Module, args: list, kwargs: dict, seed: int) -> frozenset[str]:
    """The float buffers of `model` (built from `seed`) other than running statistics that another seed builds
    otherwise: drawn data, not structure (a causal mask or a position table comes out the same)."""
    parameters = {name for name, _ in model.named_parameters()}
    buffers = {
        name: value
        for name, value in model.state_dict().items()
        if value.is_floating_point() and not _drawn(name, parameters, ())
    }
    if not buffers:
        return frozenset()
    seed_everything(seed + 1)
    other = problem.Model(*args, **kwargs).state_dict()
    return frozenset(
        name
        for name, value in buffers.items()
        if name in other and not torch.equal(value, other[name].to(value.device))
    )


def build_reference(
    problem: ModuleType,
    seed: int,
    device: str,
    mode: str = "built",
    variant: int = 0,
    integers: dict[str, int] | None = None,
) -> torch.nn.Module:
    """`Model(*init_inputs)` built from `seed`, then its arguments and weights drawn in `mode` (DRAW_MODES) and
    `variant` (VARIANTS; the odd ones take `integers`)."""
    mode = "built" if variant == AS_BUILT else mode
    seed_everything(seed)
    args, kwargs = init_arguments(problem, seed, mode, variant, integers)
    seed_everything(seed)
    model = problem.Model(*args, **kwargs)
    seeded = _seeded_buffers(problem, model, args, kwargs, seed)
    built = redraw_weights(model, seed, mode, variant, seeded)
    model = model.to(device).eval()
    _BUILT[model] = {name: value.to(device) for name, value in built.items()}
    return model


def build_candidate(
    problem: ModuleType,
    solution: ModuleType,
    reference: torch.nn.Module,
    seed: int,
    device: str,
    mode: str = "built",
    variant: int = 0,
    integers: dict[str, int] | None = None,
):
    """`ModelNew` with the reference's constructor arguments and the reference's weights (see `_shared_weights`)."""
    mode = "built" if variant == AS_BUILT else mode
    seed_everything(seed)
    args, kwargs = init_arguments(problem, seed, mode, variant, integers)
    seed_everything(seed)
    candidate = solution.ModelNew(*args, **kwargs).to(device).eval()
    state, built = reference.state_dict(), _BUILT.get(reference, {})
    uses, mine = (_first_uses(reference), _first_uses(candidate)), candidate.state_dict()
    # Seeded values tell what a tensor was built with, not its role: two square Linears declared the other way round,
    # or parameters of its own initialised in another order, hold the reference's values in other places; two
    # LayerNorms built alike (ones, zeros) used in one fused kernel have no order of use to tell them apart. Where the
    # mappings by values, by names, shapes and order of use alone, and by values with such ties given the other way
    # round differ, the one that answers like the reference on public inputs is taken, decided once per answer (at
    # its first instance whose weights tell them apart: built ones and zeros may not).
    mappings = [
        _shared_weights(state, evidence, mine, *uses, reverse_ties=reverse)
        for evidence, reverse in ((built, False), ({}, False), (built, True))
    ]
    pristine = {k: v.clone() for k, v in mine.items()}  # as built: what the layout is told from, and the probe's base
    distinct = [
        i for i, mapping in enumerate(mappings) if not any(_same_mapping(mapping, mappings[j]) for j in range(i))
    ]
    if len(distinct) > 1 and type(candidate) not in _MAPPING:
        nearest = _answering_like(problem, reference, candidate, pristine, [mappings[i] for i in distinct], device)
        if nearest is not None:
            _MAPPING[type(candidate)] = distinct[nearest]
    chosen = _MAPPING.get(type(candidate), 0) if len(distinct) > 1 else 0
    evidence, reverse = {} if chosen == 1 else built, chosen == 2
    _LAYOUT[candidate] = lambda state: _shared_weights(state, evidence, pristine, *uses, reverse_ties=reverse)
    candidate.load_state_dict(mappings[chosen], strict=False)
    return candidate


def _same_mapping(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


PROBE_SEED = 0  # the public inputs two weight mappings are told apart on (build_candidate), never a trial's
# An answer's class -> the weight mapping it takes (build_candidate): 0 by seeded values, 1 by role (names, shapes,
# order of use), 2 by seeded values with tied tensors given the other way round
_MAPPING: weakref.WeakKeyDictionary[type, int] = weakref.WeakKeyDictionary()


def _answering_like(
    problem: ModuleType,
    reference: torch.nn.Module,
    candidate: torch.nn.Module,
    pristine: dict,
    mappings: list[dict],
    device: str,
) -> int | None:
    """Which of `mappings` makes the candidate's output on public inputs nearest the reference's; None where several
    are nearest alike (weights as built, ones and zeros, tell a LayerNorm's bias from a zero buffer of the answer's
    by nothing: a later instance, on drawn weights, decides). What a mapping leaves out keeps its `pristine` (as
    built) value, as the candidate is left."""
    with torch.no_grad():
        try:
            expected = reference(*make_inputs(problem, PROBE_SEED, device))
        except Exception:  # no inputs to tell them apart on: the trials judge the first
            return 0
        errors = []
        for mapping in mappings:
            candidate.load_state_dict({**pristine, **mapping}, strict=False)
            try:
                errors.append(_relative_error(candidate(*make_inputs(problem, PROBE_SEED, device)), expected))
            except Exception:  # the trials will say what is wrong with it
                errors.append(math.inf)
        candidate.load_state_dict(pristine, strict=False)
    best = min(errors)
    return errors.index(best) if sum(error <= best * (1 + 1e-6) for error in errors) == 1 else None


def _relative_error(got, expected) -> float:
    """Squared error over the squared reference, summed over the outputs (inf where they do not line up)."""
    pairs = (
        list(zip(got, expected))
        if isinstance(expected, (list, tuple)) and isinstance(got, (list, tuple)) and len(got) == len(expected)
        else [(got, expected)]
    )
    total = 0.0
    for mine, theirs in pairs:
        if not (isinstance(mine, torch.Tensor) and isinstance(theirs, torch.Tensor)) or mine.shape != theirs.shape:
            return math.inf
        mine, theirs = torch.Tensor.double(mine), theirs.double()
        error = float(((mine - theirs) ** 2).sum() / ((theirs**2).sum() + 1e-300))
        total += error if error == error else math.inf
    return total


@contextmanager
def changed_weights(model: torch.nn.Module, seed: int, reference: torch.nn.Module | None = None):
    """Some of the model's float weights and buffers given new values in place for the block, as drawn from `seed`:
    each element times a factor log-uniform between 1/2 and 2, of either sign where the tensor holds both, and its
    zeros made values of the tensor's size — the same storages with new values, as an optimiser step or
    `load_state_dict` leaves them, so a cache of them keyed on anything but their versions, checked on a few elements
    or keeping their signs, zeros or exponents only, is stale. Where there are several, a seed changes some but not
    all of them and its negative the others, so a cache keyed on one tensor's version is stale on one of the two
    calls. A candidate's (`reference`: the model it took its weights from) change where they hold the reference's,
    in their layout. They are copied back after the block: the instance's later trials get its weights exactly as
    they were. Seed 0 changes nothing."""
    if not seed:
        yield
        return
    source = model if reference is None else reference
    state = source.state_dict()
    changed = dict((name, index) for index, name in _changed(state, _BUILT.get(source, {}), seed))
    # every drawn tensor has a change (none where it stays), so the layout maps them as it maps the weights
    changes = {
        name: _change(state[name], abs(seed) + changed[name])
        if name in changed
        else (torch.ones_like(state[name]), torch.zeros_like(state[name]))
        for name in _BUILT.get(source, {})
        if name in state and state[name].is_floating_point()
    }
    factors, fills = ({name: change[part] for name, change in changes.items()} for part in (0, 1))
    if reference is not None:
        factors, fills = _LAYOUT[model](factors), _LAYOUT[model](fills)
    state = torch.nn.Module.state_dict(model, keep_vars=True)
    targets = [
        (
            state[name],
            torch.where(factor == 0, 1.0, factor).to(state[name].dtype),  # a padding's 0: none
            fills[name].to(state[name].dtype),
        )
        for name, factor in factors.items()
        if name in state
        and state[name].is_floating_point()
        and state[name].shape == factor.shape
        and not (bool((factor == 1).all()) and not bool(fills[name].any()))
    ]
    with torch.no_grad():
        kept = [tensor.clone() for tensor, _, _ in targets]
        for tensor, factor, fill in targets:
            torch.Tensor.add_(torch.Tensor.mul_(tensor, factor), fill)
        try:
            yield
        finally:
            for (tensor, _, _), before in zip(targets, kept):
                torch.Tensor.copy_(tensor, before)


def _change(value: torch.Tensor, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(factors, fills) of one tensor's change: new = value × factor + fill, the fill nonzero only where it is 0."""
    generator = torch.Generator().manual_seed(seed)
    magnitude = torch.pow(2.0, 2 * torch.rand(value.shape, generator=generator) - 1).to(value.dtype).to(value.device)
    flip = torch.rand(value.shape, generator=generator).to(value.device) < 0.5
    both_signs = bool((value > 0).any()) and bool((value < 0).any())
    factor = torch.where(flip, -magnitude, magnitude) if both_signs else magnitude
    size = value.abs()[value != 0].mean() if bool((value != 0).any()) else torch.ones((), dtype=value.dtype)
    side = -1.0 if bool((value <= 0).all()) and bool((value < 0).any()) else 1.0
    fill = torch.where(value == 0, (factor if both_signs else side * magnitude) * size.to(value.device), 0.0)
    return factor, fill.to(value.dtype)


def changes_weights(model: torch.nn.Module, seed: int) -> bool:
    """Whether changed_weights(model, seed) changes any of the model's weights."""
    return bool(_changed(model.state_dict(), _BUILT.get(model, {}), seed))


def _changed(state: dict, drawn, seed: int) -> list[tuple[int, str]]:
    """(index, name) of the redrawn (`drawn`) float tensors of a model's `state` a weights seed changes: a position
    table or a mask is the problem's structure."""
    names = [name for name, value in state.items() if name in drawn and value.is_floating_point()]
    chosen = _changed_part(len(names), abs(seed)) if seed else [False] * len(names)
    return [(index, name) for index, name in enumerate(names) if chosen[index] == (seed > 0)]


def _changed_part(count: int, seed: int) -> list[bool]:
    """Which of `count` tensors a positive weights seed changes: each at random, never none, and never all of two
    or more (its negative changes the rest)."""
    chance = random.Random(seed)
    chosen = [chance.random() < 0.5 for _ in range(count)]
    if count > 1 and all(chosen):
        chosen[chance.randrange(count)] = False
    if count and not any(chosen):
        chosen[chance.randrange(count)] = True
    return chosen


def _shared_weights(
    reference: dict,
    built: dict[str, torch.Tensor],
    candidate: dict,
    reference_uses: dict[str, tuple] | None = None,
    candidate_uses: dict[str, tuple] | None = None,
    reverse_ties: bool = False,
) -> dict:
    """The reference's weights under the candidate's names, each reference tensor given out once.

    First to a candidate tensor that holds what a reference tensor was built
    with, as it is or transposed: the same seeded draws (another name, a
    pre-transposed copy) or the same constant (`nn.Parameter(torch.ones(n))`
    for LayerNorm's weight); the transposed get the reference's values
    transposed. Among several such, the same name is preferred, then the same
    last name part (`weight` for `ln.weight`; `gamma`, `scale` too), then the
    order of first use in `forward` where both forwards use their weights in as
    many steps (`_first_uses`: two LayerNorms built alike, declared in either
    order), then declaration order (the last first with `reverse_ties`). Then a tensor whose every element is one a
    reference tensor was built with (`_by_elements`: `[W|b]`, a reshaped or
    permuted copy) gets the reference's values at those places, and one that is
    several reference tensors as built, one after another (`_by_concatenation`:
    a norm's gain and bias stacked), gets theirs. Tensors left over get the
    tensor of the same name and shape, then one of the same last name part,
    shape and dtype, then the next of the same shape and dtype.
    """
    claimed: set[str] = set()
    shared: dict = {}
    unused = (math.inf,)
    reference_uses, candidate_uses = reference_uses or {}, candidate_uses or {}
    if len(set(reference_uses.values())) != len(set(candidate_uses.values())):
        reference_uses = candidate_uses = {}  # used in other steps (a fused kernel): their order tells nothing
    candidate = dict(sorted(candidate.items(), key=lambda item: candidate_uses.get(item[0], unused)))
    declared = {k: -i if reverse_ties else i for i, k in enumerate(reference)}

    def give(name: str, pick) -> None:
        found = {k: value for k in reference if k not in claimed and (value := pick(k)) is not None}
        if found:
            best = min(
                found,
                key=lambda k: (
                    k != name,
                    _last_part(k) != _last_part(name),
                    reference_uses.get(k, unused),
                    declared[k],
                ),
            )
            claimed.add(best)
            shared[name] = found[best]

    for name, mine in candidate.items():
        give(name, lambda k: _as_built(mine, reference[k], built.get(k)))
    for name, mine in candidate.items():
        if name not in shared:
            gathered = _by_elements(mine, reference, built)
            gathered = _by_concatenation(mine, reference, built) if gathered is None else gathered
            if gathered is not None:
                shared[name] = gathered
                claimed |= {
                    k
                    for k, v in built.items()
                    if k in reference
                    and v.dtype == mine.dtype
                    and v.numel()
                    and bool(torch.isin(v.flatten(), mine.detach().flatten()).all())
                }  # a [W | b] holds both
    for rule in (
        lambda mine, theirs, a, b: a == b and mine.shape == theirs.shape,
        lambda mine, theirs, a, b: _last_part(a) == _last_part(b) and _same_kind(mine, theirs),
        lambda mine, theirs, a, b: _same_kind(mine, theirs),
    ):
        for name, mine in candidate.items():
            if name not in shared:
                give(name, lambda k: reference[k] if rule(mine, reference[k], name, k) else None)
    return shared


# Last name parts that mean the same parameter (`scale`/`gamma` for a norm's `weight`).
_SYNONYMS = {
    name: group for group in ({"weight", "gamma", "scale", "w"}, {"bias", "beta", "shift", "b"}) for name in group
}


def _last_part(name: str) -> str:
    last = name.rsplit(".", 1)[-1]
    return min(_SYNONYMS.get(last.lower(), {last}))


def _same_kind(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype


def _first_uses(module: torch.nn.Module) -> dict[str, tuple]:
    """Per state-dict name, when the module's `forward` first uses it, as a place in its source: where the innermost
    call that `self.<path>` reaches it in ends (`self.ln_out(relu(self.ln_in(x)))` uses `ln_in.weight` first), or
    the mention itself outside calls; names it does not mention (or a source that cannot be read) are left out."""
    try:
        function = syntax.parse(textwrap.dedent(inspect.getsource(type(module).forward))).body[0]
        me = function.args.args[0].arg
    except (OSError, TypeError, SyntaxError, IndexError, AttributeError):
        return {}
    calls = {
        id(child): node
        for node in ast.walk(function)
        if isinstance(node, ast.Call)
        for child in ast.walk(node)
        if child is not node
    }  # ast.walk is outside in: the innermost call is last
    mentions = []
    for node in ast.walk(function):
        chain, inner = [], node
        while isinstance(inner, ast.Attribute):
            chain.insert(0, inner.attr)
            inner = inner.value
        if chain and isinstance(inner, ast.Name) and inner.id == me:
            used = calls.get(id(node), node)
            mentions.append(((used.end_lineno, used.end_col_offset), chain))
    uses = {}
    for name in module.state_dict():
        parts = name.split(".")
        places = [place for place, chain in mentions if chain[: len(parts)] == parts[: len(chain)]]
        if places:
            uses[name] = min(places)
    return uses


def _by_concatenation(mine: torch.Tensor, reference: dict, built: dict[str, torch.Tensor]) -> torch.Tensor | None:
    """The reference's current values of consecutive reference tensors (in declaration order or reversed) whose
    values as built, flattened one after another, are `mine`'s: a gain and a bias stacked into one (2, D) parameter,
    either first."""
    names = [
        k
        for k in built
        if k in reference
        and built[k].dtype == mine.dtype
        and built[k].device == mine.device
        and reference[k].shape == built[k].shape
    ]
    wanted = mine.detach().flatten()
    for start in range(len(names)):
        count = 0
        for end in range(start, len(names)):
            count += built[names[end]].numel()
            if count > wanted.numel():
                break
            if count == wanted.numel() and end > start:
                for parts in (names[start : end + 1], names[start : end + 1][::-1]):
                    if torch.equal(torch.cat([built[k].flatten() for k in parts]), wanted):
                        return torch.cat([reference[k].detach().flatten() for k in parts]).view(mine.shape).clone()
    return None


def _by_elements(mine: torch.Tensor, reference: dict, built: dict[str, torch.Tensor]) -> torch.Tensor | None:
    """`mine` refilled from the reference's current values where each of its elements is a value a reference tensor
    was built with (a `[W|b]`, a reshaped or permuted copy made in `__init__`), or 0 where it holds a 0 the
    reference was not built with (a weight padded to a whole number of blocks); else None.

    Seeded random inits are nearly all distinct; the few values two elements
    share (fp32 draws collide among thousands) are placed by their neighbours:
    the candidate nearest where the nearest distinct values before or after
    put it.
    """
    names = [
        k
        for k in built
        if k in reference
        and built[k].dtype == mine.dtype
        and built[k].device == mine.device
        and reference[k].shape == built[k].shape
    ]
    if mine.numel() < 2 or not mine.is_floating_point() or not names:
        return None
    was = torch.cat([built[k].flatten() for k in names])
    now = torch.cat([reference[k].detach().flatten() for k in names])
    order = torch.argsort(was)
    ordered = was[order]
    wanted = mine.detach().flatten()
    first = torch.searchsorted(ordered, wanted)
    last = torch.searchsorted(ordered, wanted, right=True)
    padding = (last == first) & (wanted == 0)
    if (
        bool(((last == first) & ~padding).any())
        or int((~padding).sum()) < 2
        or bool(((last - first) > 1).sum() > max(1, wanted.numel() // 100))
    ):
        return None  # an element the reference was not built with, or a constant rather than random draws
    position = order[first.clamp(max=len(order) - 1)]
    distinct = (last - first == 1).nonzero().flatten()
    taken = set(position[distinct].tolist())
    choices = []  # (how far from where its neighbours put it, element, place) for every element that collides
    for index in (last - first > 1).nonzero().flatten().tolist():
        at = int(torch.searchsorted(distinct, index))
        before = int(distinct[at - 1]) if at > 0 else None
        after = int(distinct[at]) if at < len(distinct) else None
        known = [i for i in (before, after) if i is not None]
        if not known:
            return None
        # from either neighbour, at the pace between them or one by one (a [W|b] row starts after another's bias)
        expected = torch.tensor(
            [float(position[i]) + (index - i) * pace for i in known for pace in (_step(position, before, after), 1.0)],
            dtype=torch.float64,
        )
        places = order[first[index] : last[index]]
        distance = (places.double()[:, None] - expected).abs().amin(dim=1)
        choices += [(float(d), index, int(place)) for d, place in zip(distance, places)]
    # nearest first, each place once: a [W|b]'s bias sharing a value with a weight lies far from both its
    # neighbours, which are weights, and gets the place the weight that lies right beside its own leaves
    placed: set[int] = set()
    for _, index, place in sorted(choices):
        if index not in placed and place not in taken:
            position[index] = place
            placed.add(index)
            taken.add(place)
    return torch.where(padding, 0.0, now[position]).to(mine.dtype).view(mine.shape)


def _step(position: torch.Tensor, before: int | None, after: int | None) -> float:
    """How far apart in the reference consecutive elements of the candidate's tensor lie, between two known ones."""
    if before is None or after is None or after == before:
        return 1.0
    return (float(position[after]) - float(position[before])) / (after - before)


def _as_built(mine: torch.Tensor, theirs: torch.Tensor, built: torch.Tensor | None):
    """`theirs` in `mine`'s layout when `mine` holds what `theirs` was built with (`built`), as it is, transposed or
    reshaped; else None."""
    if built is None or mine.dtype != theirs.dtype or mine.device != theirs.device:
        return None
    layouts = [(theirs, built)] + ([(theirs.t(), built.t())] if theirs.dim() == 2 else [])
    if theirs.numel() == mine.numel():  # a slope kept 0-d, a gain kept (1, D)
        layouts.append((theirs.reshape(mine.shape), built.reshape(mine.shape)))
    for layout, as_built in layouts:
        if layout.shape == mine.shape and torch.equal(mine, as_built):
            return layout.contiguous()
    return None


# ---------------------------------------------------------------- inputs

PROBLEM_DISTRIBUTION = "problem"  # get_inputs() exactly as the problem wrote it


def _heavy_tailed(shape: torch.Size, device: torch.device) -> torch.Tensor:
    """Student's t with 2 degrees of freedom (normal / sqrt(Exp(1))): outliers hundreds of times the typical value."""
    scale = -torch.log1p(-torch.rand(shape, device=device))
    return torch.randn(shape, device=device) / scale.clamp_min(1e-4).sqrt()


def _zeros_and_ties(shape: torch.Size, device: torch.device) -> torch.Tensor:
    """Values in {-1, -0.5, 0, 0.5, 1}; with two or more rows (last dimension) some rows are all 0, some all -0.5 and
    some nearly constant (±1 with a relative spread of 1e-3..1e-2: finer, float32's own x − mean is off by near the
    tolerance in the reference too), and one zero slab across each leading dimension, so lines along every dimension
    are constant somewhere.

    Constant lines are what a missing eps (0/0 variance or norm, over
    whichever dimension it reduces) or a max started at 0 instead of -inf
    gets wrong; random data never has them. Nearly constant rows have a
    variance near a typical eps (an eps ignored, or replaced by a clamp,
    shows) and products that neither vanish nor explode along the row (a
    product cut short shows).
    """
    values = torch.randint(-2, 3, shape, device=device) / 2
    slabs = torch.zeros(shape[:-1] if values.dim() else (), dtype=torch.bool, device=device)
    for axis in range(values.dim() - 1):  # a zero slab per leading dimension: every line through it is constant
        if shape[axis] >= 2:
            index = int(torch.randint(0, shape[axis], (), device=device))
            values.select(axis, index).zero_()
            slabs.select(axis, index).fill_(True)
    rows = values.view(-1, shape[-1]) if values.dim() and values.numel() else values.view(1, -1)
    free = (~slabs).reshape(-1).nonzero().flatten() if values.dim() > 1 else torch.arange(rows.shape[0], device=device)
    if len(free) >= 2:  # rows of a slab are all 0 already: the others get the constant rows
        kind = torch.randint(0, 8, (len(free),), device=device)  # half of the rows (nearly) constant, at least three
        kind[torch.randperm(len(free), device=device)[:3]] = torch.tensor([0, 1, 2], device=device)[: len(free)]
        rows[free[kind == 0]] = 0.0
        rows[free[kind == 1]] = -0.5
        near = free[(kind == 2) | (kind == 3)]
        sign = torch.where(torch.rand((len(near), 1), device=device) < 0.5, -1.0, 1.0)
        spread = torch.pow(10.0, -3 + torch.rand((len(near), 1), device=device))
        rows[near] = sign * (1 + spread * torch.randn((len(near), rows.shape[1]), device=device))
    return values


def _offset(shape: torch.Size, device: torch.device) -> torch.Tensor:
    """Normal values around an offset of ±300..1000 with a scale of 0.5..2: centred data hides one-pass
    E[x²]−E[x]² variances and sums kept in too few bits (near an offset of 100 their error is about the tolerance)."""
    centre = torch.where(torch.rand((), device=device) < 0.5, -1.0, 1.0) * torch.pow(
        10.0, 2.5 + 0.5 * torch.rand((), device=device)
    )
    spread = torch.pow(2.0, 2 * torch.rand((), device=device) - 1)
    return centre + spread * torch.randn(shape, device=device)


# The lowest level of _magnitudes' tiny rows: the square root of float32's smallest normal, below which a row's sum
# of squares underflows in the reference as in the answer, so lower rows would tell nothing apart.
TINY_BOTTOM = math.log10(math.sqrt(torch.finfo(torch.float32).tiny))


def _magnitudes(highest: float) -> Callable[[torch.Size, torch.device], torch.Tensor]:
    """Rows of four kinds, each on some row wherever there are 5 rows or more: elements of magnitudes log-uniform
    between 1/`highest` (or 1e-3) and `highest` with signs at random (a range reduction or an accumulator's precision
    fails at the top, a floor or guard short of the range shows, a shift by one element overflows), rows whose every
    element lies 1 to 2 times a level between -highest/10 and -highest (a running max or a logit floor started at a
    finite sentinel), rows whose every element is tiny, any sign (an eps larger than the
    problem's, a norm clamped too high: their levels are spread evenly over the decades from TINY_BOTTOM to 1e-3,
    one stratum per tiny row, so a clamp a few decades too high always meets a row between the two), and normal
    values times 3."""
    top, bottom = math.log10(highest), min(-3.0, -math.log10(highest))
    lowest = max(bottom, TINY_BOTTOM)

    def draw(shape: torch.Size, device: torch.device) -> torch.Tensor:
        rows = shape[:-1] + (1,) if len(shape) else ()
        signs = torch.where(torch.rand(shape, device=device) < 0.5, -1.0, 1.0)
        spread = signs * torch.pow(10.0, bottom + (top - bottom) * torch.rand(shape, device=device))
        floor = -torch.pow(10.0, top - 1 + torch.rand(rows, device=device)) * (1 + torch.rand(shape, device=device))
        kind = (torch.randperm(math.prod(rows), device=device) % 5).reshape(rows)
        stratum = (torch.cumsum((kind == 3).flatten(), 0) - 1).reshape(rows)
        strata = max(int((kind == 3).sum()), 1)
        level = lowest + (-3 - lowest) * (stratum + torch.rand(rows, device=device)) / strata
        tiny = signs * torch.pow(10.0, level) * (1 + torch.rand(shape, device=device))
        return torch.where(
            kind <= 1,
            spread,
            torch.where(kind == 2, floor, torch.where(kind == 3, tiny, 3 * torch.randn(shape, device=device))),
        )

    return draw


# A third call at the primary shapes (child._widest_range) draws _magnitudes up to the widest top the reference stays
# finite on: the first of these tops it takes, then, between it and the one before, the largest found by halving the
# gap in decades (an exp meets values up to ~88, where a guard at 80 shows), less RANGE_MARGIN of its decades above
# 100 (at the edge where the reference's own sums of squares stay finite, an honest two-pass variance's overflow).
# Its name is RANGE_PREFIX + the top.
RANGE_PREFIX = "range:"
RANGE_TOPS = (1e30, 1e5, 30.0)
RANGE_HALVINGS = 7  # within a factor of 1.07 of the edge found: an exp guarded at 80 meets values above it
RANGE_MARGIN = 0.25


def range_name(top: float) -> str:
    return f"{RANGE_PREFIX}{top:.4g}"


def value_families(distribution: str) -> tuple[str, ...]:
    """The kinds of values a distribution shares with others: the largest values trials take (an exp overflows there,
    a square loses the small ones) and outliers among ordinary values (a clamp, a saturation, a guard meets them)."""
    widest = distribution.startswith(RANGE_PREFIX)
    largest = widest or distribution in ("large_magnitude", "offset", *APART)
    return ("largest values",) * largest + ("outliers",) * (widest or distribution == "heavy_tailed")


# Other float distributions for trials, by name, most telling first (the reference job takes them in this
# order, skipping those the reference is not finite on): exact zeros, ties and constant rows, an offset far
# from 0 (which also overflows an unguarded exp), signs, magnitudes that leave a clamped range or pass a
# finite sentinel (a running max started at -100), outliers among ordinary values — all of which the
# problem's own (often non-negative torch.rand) inputs may never show.
DISTRIBUTIONS: dict[str, Callable[[torch.Size, torch.device], torch.Tensor]] = {
    "zeros_and_ties": _zeros_and_ties,
    "offset": _offset,
    "normal": lambda shape, device: torch.randn(shape, device=device),
    "signed_uniform": lambda shape, device: torch.rand(shape, device=device) * 2 - 1,
    "large_magnitude": lambda shape, device: (torch.rand(shape, device=device) * 2 - 1) * 1e3,
    "heavy_tailed": _heavy_tailed,
}
# Another distribution with the draws of get_inputs scaled by this and its inverse in turn (which first, at random):
# inputs a million apart in scale, where every other distribution draws all inputs alike (x·s computed as
# ((x+s)² − (x−s)²)/4 loses x·s entirely there).
APART = {"offset_apart": ("offset", 1e3)}
# Drawn in the again trial's tensors after the extremes (a fourth call; the first the reference stays finite on), not
# by the primary trials: state an answer keeps from its first call at a shape (a centre for a one-pass variance, a
# shift) is stale on values far from 0.
LATER = ("offset_apart", "offset")
# Drawn in the again trial's tensors last (a fifth call), the first the reference stays finite on: ordinary values.
ORDINARY = ("normal", "signed_uniform")
# Distributions whose values make an O(1) error invisible under tolerances relative to the output: constant
# rows of -0.5 give row sums in the thousands, an offset of 1000 too. Trials at other shapes, which are there
# to catch uncomputed tails and extra elements, never take these.
MASKING = frozenset({"zeros_and_ties", "offset"})
# The order trials at other shapes take distributions in (those of MASKING only where they do not mask, measured per
# problem): constant rows first, then normal values (under large ones a softmax is one-hot, and a dropped column
# shows only where it held the maximum), then large magnitudes (an exp that overflows, a log of an underflowed
# softmax), outliers among ordinary values, offsets, signed uniform.
AT_OTHER_SHAPES = ("zeros_and_ties", "normal", "large_magnitude", "heavy_tailed", "offset", "signed_uniform")
_REDRAWN = frozenset(
    {
        torch.rand,
        torch.randn,
        torch.rand_like,
        torch.randn_like,
        torch.normal,
        torch.poisson,
        torch.Tensor.normal_,
        torch.Tensor.uniform_,
        torch.Tensor.exponential_,  # in-place samplers
        torch.Tensor.log_normal_,
        torch.Tensor.cauchy_,
        torch.Tensor.geometric_,
    }
)  # fill their tensor
# Draws of 0/1 floats: refilled, like floats made from randint, with values between the lowest and highest they took.
_ZERO_ONE_DRAWS = frozenset({torch.bernoulli, torch.Tensor.bernoulli_})
_INTEGER_DRAWS = frozenset({torch.randint, torch.randint_like})
# Float tensors made without a sampler (a gain of ones, a temperature by `full`, positions by `linspace`, a 0-d
# `torch.tensor` slope): refilled like a draw where get_inputs returns one as an input as it was made. Made into
# something else first (`tril(ones)`, a one-hot), it is structure and stays.
_CONSTANT_FLOATS = frozenset(
    {
        torch.ones,
        torch.zeros,
        torch.full,
        torch.ones_like,
        torch.zeros_like,
        torch.full_like,
        torch.tensor,
        torch.as_tensor,
        torch.linspace,
        torch.logspace,
        torch.arange,
        torch.eye,
    }
)
# Ops that pick among other tensors' values by an integer or bool tensor rather than compute floats from it: their
# float results keep the values picked.
_SELECTING = frozenset(
    {
        torch.where,
        torch.Tensor.where,
        torch.Tensor.masked_fill,
        torch.masked_fill,
        torch.Tensor.__getitem__,
        torch.index_select,
        torch.gather,
        torch.take,
    }
)


# Integer inputs of another distribution than the problem's own: magnitudes log-uniform from 1 to INTEGER_TOP, any
# sign, whole rows negative (a row max started at 0, a floor division that truncates, sums past 2^24 accumulated in fp32 or products past
# 2^31 in int32), and one element INDEX_PROBE, past any index range, so a reference that indexes with them raises and
# keeps the problem's draw there (child._fitting_draw): negative indices, which wrap silently, never reach it.
INTEGER_TOP = 1e6
INDEX_PROBE = 2**21
_WIDE_INTEGERS = (torch.int32, torch.int64)


def _integer_values(like: torch.Tensor, positive: bool) -> torch.Tensor:
    """Signs at random, except in a third of the rows, all negative (a max started at 0)."""
    device = like.device
    magnitudes = torch.pow(10.0, math.log10(INTEGER_TOP) * torch.rand(like.shape, device=device)).round()
    rows = like.shape[:-1] + (1,) if like.dim() else ()
    negative = torch.rand(rows, device=device) < 1 / 3
    signs = 1.0 if positive else torch.where(negative | (torch.rand(like.shape, device=device) < 0.5), -1.0, 1.0)
    values = (signs * magnitudes).to(like.dtype)
    values.view(-1)[torch.randint(values.numel(), (1,), device=like.device)] = INDEX_PROBE
    return values


def _is_bool(value) -> bool:
    """A bool tensor (`(torch.rand(n) > 0.5)`): made a float, it is 0/1 data like randint's."""
    return isinstance(value, torch.Tensor) and value.dtype == torch.bool


def _integer_range(func, args: tuple, kwargs: dict) -> tuple[int, int] | None:
    """(lowest, highest) value a `torch.randint(low, high, size)` / `randint_like(x, low, high)` call can give."""
    numbers = [a for a in (args[1:] if func is torch.randint_like else args) if type(a) is int]
    low, high = (0, numbers[0]) if len(numbers) == 1 else tuple(numbers[:2]) if len(numbers) >= 2 else (None, None)
    low, high = kwargs.get("low", low), kwargs.get("high", high)
    return (low, high - 1) if low is not None and high is not None and high - 1 > low else None


class _Redraw(TorchFunctionMode):
    """Refills what torch.rand/randn(_like) and the other float samplers (_REDRAWN) return inside get_inputs() from
    another distribution, and floats made from torch.randint draws or bool masks (by a cast or arithmetic: `.float()`,
    `* 2.0 - 1`) or drawn 0/1 (`torch.bernoulli`) with values between the lowest and highest they took.

    Replacing the draws, not the finished inputs, keeps what get_inputs builds
    from them (symmetric or triangular matrices, softmaxed probabilities, 0/1
    targets become probabilities), and leaves bool inputs alone; integer inputs
    are refilled last (`refill_returned`), and where the reference indexes with
    them it raises, so the problem's draw stays there; before them, float
    inputs returned as a constant factory made them (_CONSTANT_FLOATS). `kept`
    names the draws (by order) left as the problem drew them.
    """

    def __init__(
        self,
        draw: Callable[[torch.Size, torch.device], torch.Tensor],
        kept: frozenset[int] = frozenset(),
        apart: float = 1.0,
    ) -> None:
        super().__init__()
        self.draw = draw
        self.kept = kept
        self.apart = apart  # draws scaled by apart and 1/apart in turn (APART)
        self._first_up: bool | None = None
        self.draws = 0  # draws seen, in order
        self.replaced = 0  # draws refilled: none when get_inputs draws with numpy or Python's random
        self._integers: dict[int, torch.Tensor] = {}  # id -> a randint result of more than one value (kept alive)
        self._constants: dict[int, torch.Tensor] = {}  # id -> a float tensor a constant factory made (kept alive)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if func in _REDRAWN and isinstance(out, torch.Tensor) and out.is_floating_point():
            scale = self._scale(self.draws)
            self._refill(out, lambda: scale * self.draw(out.shape, out.device))
        elif func in _INTEGER_DRAWS and isinstance(out, torch.Tensor) and _integer_range(func, args, kwargs):
            self._integers[id(out)] = out
        elif func in _CONSTANT_FLOATS and isinstance(out, torch.Tensor) and out.is_floating_point():
            self._constants[id(out)] = out
        elif (
            func not in _SELECTING
            and args
            and isinstance(out, torch.Tensor)
            and out.is_floating_point()
            and (func in _ZERO_ONE_DRAWS or out is not args[0] and (id(args[0]) in self._integers or _is_bool(args[0])))
            and out.numel()
        ):
            low, high = float(out.min()), float(out.max())  # `.float()`, `* 2.0 - 1`: values between the integers
            if high > low:
                self._refill(out, lambda: low + (high - low) * torch.rand(out.shape, device=out.device))
        return out

    def refill_returned(self, values: list, positive: bool) -> None:
        """After get_inputs' other draws, refill the float inputs it returns as a constant factory made them, then
        its integer input tensors drawn by randint (`_integer_values`)."""
        for value in values:
            if isinstance(value, torch.Tensor) and id(value) in self._constants and value.numel():
                scale = self._scale(self.draws)
                self._refill(value, lambda like=value: scale * self.draw(like.shape, like.device).to(like.dtype))
        for value in values:
            if isinstance(value, torch.Tensor) and id(value) in self._integers and value.dtype in _WIDE_INTEGERS:
                self._refill(value, lambda like=value: _integer_values(like, positive))

    def _scale(self, index: int) -> float:
        if self.apart == 1.0:
            return 1.0
        if self._first_up is None:
            self._first_up = bool(torch.rand(()) < 0.5)
        return self.apart if (index % 2 == 0) == self._first_up else 1 / self.apart

    def _refill(self, out: torch.Tensor, values: Callable[[], torch.Tensor]) -> None:
        index, self.draws = self.draws, self.draws + 1
        if index in self.kept:
            return
        with torch.no_grad():
            out.copy_(values())
        self.replaced += 1


def vary_scalars(values: list, seed: int, mode: str) -> list:
    """`get_inputs()`'s non-tensor values (an exponent, a scale) varied from `seed` in `mode` (DRAW_MODES)."""
    varied, _ = vary_arguments([v for v in values if not isinstance(v, torch.Tensor)], {}, seed, mode, ints=True)
    scalars = iter(varied)
    return [v if isinstance(v, torch.Tensor) else next(scalars) for v in values]


def draw_inputs(
    problem: ModuleType,
    seed: int,
    device: str,
    distribution: str = PROBLEM_DISTRIBUTION,
    kept: frozenset[int] = frozenset(),
    scalars: str = "built",
    positive: bool = False,
) -> tuple[list, int]:
    """`make_inputs`, and how many of get_inputs' draws `distribution` replaced (0 for the problem's own): a
    distribution that replaced none drew the problem's own inputs. `kept`: draws left as the problem drew them;
    `scalars`: how its non-tensor values are varied (DRAW_MODES); `positive`: the distribution's magnitudes only
    (for a reference whose domain is positive: a log, a sqrt)."""
    seed_everything(seed)
    name, apart = APART.get(distribution, (distribution, 1.0))
    draw = _magnitudes(float(name[len(RANGE_PREFIX) :])) if name.startswith(RANGE_PREFIX) else DISTRIBUTIONS.get(name)
    if draw is not None and positive:
        draw = lambda shape, device, sample=draw: sample(shape, device).abs()  # noqa: E731
    redraw = None if draw is None else _Redraw(draw, kept, apart)
    with torch.device(device), redraw or nullcontext():
        values = problem.get_inputs()
    if redraw is not None:
        redraw.refill_returned(list(values), positive)
    values = vary_scalars(list(values), seed, scalars)
    return [v.to(device) if isinstance(v, torch.Tensor) else v for v in values], redraw.replaced if redraw else 0


def count_draws(problem: ModuleType, seed: int, device: str) -> int:
    """How many draws of get_inputs another distribution would refill (what `kept` indexes)."""
    seed_everything(seed)
    redraw = _Redraw(DISTRIBUTIONS["normal"])
    with torch.device(device), redraw:
        values = problem.get_inputs()
    redraw.refill_returned(list(values), False)
    return redraw.draws


def make_inputs(
    problem: ModuleType,
    seed: int,
    device: str,
    distribution: str = PROBLEM_DISTRIBUTION,
    kept: frozenset[int] = frozenset(),
    scalars: str = "built",
) -> list:
    """`get_inputs()` drawn from `seed` (and `distribution`), created directly on `device` (no host round trip)."""
    return draw_inputs(problem, seed, device, distribution, kept, scalars)[0]


def _same_value(a, b) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or (a.shape, a.dtype) != (
            b.shape,
            b.dtype,
        ):
            return False
        if a.is_floating_point() or a.is_complex():
            return torch.allclose(a, b, rtol=0, atol=0, equal_nan=True)
        return torch.equal(a, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    return a == b or (a != a and b != b)  # NaN equals NaN here


def reproducible_inputs(problem: ModuleType, seed: int, device: str) -> tuple[list, int | None]:
    """`get_inputs()` drawn from `seed`, and the index of the first input a second draw from it gives otherwise (None:
    none does).

    The candidate's process draws its inputs from the same seed as the reference's: inputs the seed does not decide
    (an unseeded `np.random.default_rng()`, the clock) differ there, and an honest kernel would be judged wrong.
    """
    first, second = make_inputs(problem, seed, device), make_inputs(problem, seed, device)
    if len(first) != len(second):
        return first, min(len(first), len(second))
    return first, next((i for i, (a, b) in enumerate(zip(first, second)) if not _same_value(a, b)), None)
