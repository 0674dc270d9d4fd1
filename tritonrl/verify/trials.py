"""Plan the verifier's trials at other shapes, and judge which input distributions the reference allows.

A kernel can be right only where it is tested: at the sizes it was shown
(hard-coded, a single block, a capped grid or loop) or on the problem's own
inputs (KernelBench draws nearly all of them with torch.rand, so an identity
copy passes as ReLU). So besides the trials at the primary shapes (shrunk on
CPU), one trial per `SHAPE_PLANS` entry runs at other shapes:
- every size the problem lets change moved, larger than the primary ones
  where the element limit allows, odd, structural constants stepped by one;
- every size moved again, each even but no multiple of 4, one size at
  random 3 to 8 times larger and the others smaller (a grid or loop capped
  a few times above a size is caught: the other plans stay within 2x of
  the primary sizes); where no such set fits, at ordinary factors;
- every size moved, odd and smaller, one the model does not see (a batch,
  a matmul's M) 1: a batch of one or a GEMV, where answers take another path;
- sizes moved one by one (first, where the model has an integer literal
  of a size's value, that size alone and larger: a batch of 32 beside a
  group count of 32 is no group count): some keep the problem's own
  value, sizes that share a value part (a square matrix turns oblong),
  each 2^j × odd with j
  between 2 and one less than the original's (a multiple of 4, 8, ... that
  is no multiple of the primary size's power of two); on CPU, when the
  problem was shrunk, its own sizes come first where they fit
  `OWN_SIZE_FACTOR` × the CPU budget.
So the valuations 0 (odd), 1 and those in between the primary sizes' are
all met: no `size % 2**k` tells the primary trial from the others.
A distribution is used only where the reference stays finite on it.

Shape proposals come from tritonrl.verify.variants, which knows which
sizes may change together; both run problem code, so they run inside the
sandboxed reference job.

Test: tests/verify/test_trials.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import torch

from tritonrl.verify.variants import FACTORS, Scaling, make_variants
from tritonrl.verify.shrink import element_count

ALT_ELEMENT_FACTOR = 1.5  # the alternate shapes may hold this many times the primary (or, on CPU, shrunk) elements
# On a GPU the alternate trial grows too, up to this many elements (inputs + weights + outputs, ~1 GiB in fp32):
# at fewer elements than the primary trial a kernel hard-coded to the primary size reads and writes past the
# smaller tensors without a fault and is right where it is compared (seen on the H200). Larger problems keep
# the primary count, so a pool of them fits in GPU memory: there such a kernel is not caught (docs/VERIFIER.md).
GPU_GROW_ELEMENTS = 1 << 28
# Growing by a quarter or a half in every size where the limit allows: a grid or loop capped just above the primary
# size is caught (a cap above every size tried is seen only at larger sizes: on CPU, not at all; `untried`).
_GROW = Scaling(factors=(1.25, 1.5), odd_probability=1.0, every_group=True, small_sizes=True, structural=True)
_EVERY = Scaling(factors=FACTORS, odd_probability=1.0, every_group=True, small_sizes=True, structural=True)
_SIZES = Scaling(factors=FACTORS, odd_probability=1.0, every_group=True, small_sizes=True)
_SOME = Scaling(factors=FACTORS, odd_probability=1.0, small_sizes=True)
_EVEN = Scaling(factors=FACTORS, every_group=True, small_sizes=True, parity="two_mod_four")
# The even plan is the lopsided one: it moves every size anyway (the shrunk ones move too), while the odd plan grows
# every size and, on CPU, the one-by-one plan runs the problem's own sizes first. The boosted size ends at least 3x
# larger (the parity rounding moves it by at most its original value); the others shrink, so the elements fit the
# cap where the problem has more than one size to trade, but to no less than a quarter: at 2 rows a reduction that
# drops a few columns is within tolerance on each row with a chance of ~1/5, so on both too often.
_LOPSIDED = replace(_EVEN, factors=(0.25, 0.375, 0.5), boost=(4.0, 5.0, 6.0, 8.0))
# A ragged trial that costs less than a primary one, for the variant whose other trial is the one-by-one plan; one
# size the model does not see is 1 (a batch of one, a GEMV)
_FEWER = replace(_SIZES, factors=(0.5, 0.75), unit=True)
_ONE_BY_ONE = Scaling(factors=FACTORS, small_sizes=True, parity="two_adic", split=True, keep_share=1 / 3)
# Tried first where there are any: the sizes a literal of the model freezes move alone (a batch of 32 beside a group
# count of 32 is no group count), larger (below it, a count hard-coded and masked is right), where the reference runs
_COLLIDED = replace(_ONE_BY_ONE, factors=(1.25, 1.5), collided_only=True, keep_share=0.0)
# On CPU the problem's own sizes are tried when its elements are at most this many times the interpreter's budget
# (a grid capped below the real size is caught only there); larger problems are judged at their own sizes on a GPU.
OWN_SIZE_FACTOR = 8
_PER_PLAN = 2  # proposals per plan: the reference may fail at one (a constraint variants.py cannot see)


def alternate_budget(primary_elements: int, shrink_budget: int | None) -> tuple[int, bool]:
    """(element limit, grow) for the alternate trial: larger shapes where memory allows, else no more elements.

    `shrink_budget`: the CPU interpreter's element budget the primary shapes were shrunk to (None on a GPU).
    """
    if shrink_budget:
        return int(ALT_ELEMENT_FACTOR * shrink_budget), True
    # The room is the whole GPU budget, not 1.5 × a small problem: one more in each of four sizes of 4 is 2.4 ×.
    fits = ALT_ELEMENT_FACTOR * primary_elements <= GPU_GROW_ELEMENTS
    return (GPU_GROW_ELEMENTS, True) if fits else (primary_elements, False)


def alternate_shapes(source: str, max_elements: int, grow: bool, seed: int) -> Iterator[dict[str, int]]:
    """Shape overrides for the alternate trial, best first; the caller keeps the first the reference runs at.

    Best: every changeable size differs from `source`'s and (with `grow`)
    is larger, within `max_elements` (inputs + weights + outputs), and the
    structural constants (kernel size, stride, ...) differ by one. Then
    every size differs, some smaller; then structural constants stay (the
    reference may not take their change); then as many sizes change as the
    problem allows. Sizes come out odd where no divisibility rule keeps them
    even, so kernels must mask their ragged tails.
    """
    plans = ([_GROW] if grow else []) + [_EVERY, _SIZES, _SOME]
    seen: list[dict[str, int]] = []
    for scaling in plans:
        for variant in make_variants(source, count=_PER_PLAN, seed=seed, max_elements=max_elements, scaling=scaling):
            if variant not in seen:
                seen.append(variant)
                yield variant


@dataclass(frozen=True)
class ShapePlan:
    """One trial at other shapes: `proposals` yields (shape overrides of the original source, purpose), best first."""

    name: str

    def proposals(
        self,
        original: str,
        source: str,
        overrides: dict[str, int],
        primary_elements: int,
        shrink_budget: int,
        seed: int,
        workdir: Path,
    ) -> Iterator[tuple[dict[str, int], str]]:
        limit, grow = alternate_budget(primary_elements, shrink_budget or None)
        if self.name == "every size":
            for variant in alternate_shapes(source, limit, grow, seed):
                yield {**overrides, **variant}, "every size moved" + (", larger" if grow else "")
            return
        # The others cost no more than a primary trial where they can; else as much as the first.
        caps = dict.fromkeys((min(limit, primary_elements or element_count(source, workdir)), limit))
        if self.name == "every size, fewer elements":
            for shapes, purpose in _first_fitting(
                source, overrides, seed, list(caps)[:1], _FEWER, "every size moved, odd, smaller"
            ):
                yield shapes, purpose + (", one of them 1" if 1 in shapes.values() else "")
            return
        if self.name == "every size even":
            even = "every size moved, even but no multiple of 4"
            yield from _first_fitting(source, overrides, seed, caps, _LOPSIDED, f"{even}, one 3 to 8 times larger")
            yield from _first_fitting(source, overrides, seed, caps, _EVEN, even)
            return
        if overrides and element_count(original, workdir) <= OWN_SIZE_FACTOR * shrink_budget:
            yield {}, "the problem's own sizes"
        yield from _first_fitting(source, overrides, seed, caps, _COLLIDED, "sizes a literal of the model shares moved")
        yield from _first_fitting(source, overrides, seed, caps, _ONE_BY_ONE, "sizes moved one by one")


def _first_fitting(source: str, overrides: dict[str, int], seed: int, caps, scaling: Scaling, purpose: str):
    """Proposals of `scaling` under the first element cap any fits."""
    for cap in caps:
        variants = make_variants(source, count=_PER_PLAN, seed=seed, max_elements=cap, scaling=scaling)
        if variants:
            for variant in variants:
                yield {**overrides, **variant}, purpose
            return


# The last is for the variant the one-by-one plan runs in (child._reference_job): every candidate instance meets
# ragged sizes (`ragged`), whichever one a candidate would let skip the tails.
SHAPE_PLANS = (
    ShapePlan("every size"),
    ShapePlan("every size even"),
    ShapePlan("one by one"),
    ShapePlan("every size, fewer elements"),
)


def ragged(shapes: dict[str, int]) -> bool:
    """Whether no size of a trial is a multiple of 4: no block of 4 or more tiles any of them, or their product."""
    return all(value % 4 or value == 0 for value in shapes.values())


def untried_own_sizes(original: str, shrink_budget: int, workdir: Path) -> int | None:
    """The problem's own element count when a CPU verification cannot try it (over OWN_SIZE_FACTOR × budget)."""
    count = element_count(original, workdir)
    return count if count > OWN_SIZE_FACTOR * shrink_budget else None


def unfit_distribution(own_finite: list[bool], outputs: list[torch.Tensor]) -> str | None:
    """Why the reference's `outputs` on another distribution rule it out, or None.

    `own_finite`: per output, whether the reference's output on the
    problem's own inputs was all finite. New NaN/inf means the inputs left
    the problem's domain (log or sqrt of negatives, division by exact zeros,
    overflow), where a candidate cannot be asked to match.
    """
    if len(outputs) != len(own_finite):
        return f"the reference returned {len(outputs)} outputs instead of {len(own_finite)}"
    for index, (finite_before, output) in enumerate(zip(own_finite, outputs)):
        if finite_before and not bool(torch.isfinite(output).all()):
            return f"the reference's output {index} has NaN/inf on them (none on the problem's own inputs)"
    return None


def constant_output(outputs: list[list[torch.Tensor]]) -> bool:
    """Whether the reference gave bit-identical outputs on every input set (at least two): then matching it proves nothing."""
    first = outputs[0] if outputs else []
    return len(outputs) >= 2 and all(
        len(other) == len(first) and all(a.shape == b.shape and torch.equal(a, b) for a, b in zip(first, other))
        for other in outputs[1:]
    )
