"""The harness states a candidate's calls run under, drawn per job.

An answer computes the same whatever its caller's harness: `ModelNew` in training or eval mode (where the reference
agrees in both), autograd on or off, its float inputs requiring grad or not, its parameters frozen or not. A path
taken in one state only (or one combination, like the plain call: autograd on, inputs not requiring grad) is right
wherever no call puts it on the values it gets wrong, so each state is on and off among the calls of each kind of
values and shapes. Between the calls of one trial, whose weights change in place from call to call, each state
follows CHAIN_PATTERN, so a snapshot taken under one state and used under the other, and a cache kept under one
state only (dropped under the other), meet changed weights. Among the assignments that do all this (as far as the
calls allow) one is found from a random start, so no call's state can be told from its place.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass

TRAINING, GRAD, INPUTS_GRAD, FROZEN = "training", "grad", "inputs_grad", "frozen"
# States drawn together, with the combinations of them that must each be on and off too.
_JOINT: tuple[tuple[tuple[str, ...], dict[str, Callable[[dict], bool]]], ...] = (
    ((TRAINING,), {}),
    ((GRAD, INPUTS_GRAD), {"plain call": lambda state: state[GRAD] and not state[INPUTS_GRAD]}),
    ((FROZEN,), {}),
)
# Whether a trial's k-th call (0: its own) takes the other state than its first: s, s, !s, !s, s. Each state
# holds across a weight change (calls 0-1, 2-3) and changes to the other across one, both ways (1-2, 3-4).
CHAIN_PATTERN = (False, False, True, True, False)
_STARTS = 32  # random starts per set of states: enough for every group to see both values, where it can
_NOTES = {
    TRAINING: "ModelNew in training mode",
    GRAD: "autograd on",
    INPUTS_GRAD: "inputs requiring grad",
    FROZEN: "ModelNew's parameters frozen",
}


@dataclass(frozen=True)
class Call:
    """One call of a scheduled trial: its trial, its place after the trial's own call (0 for that one), the groups of
    calls it belongs to (a distribution, a kind of shapes, the largest values) and whether its weights are drawn."""

    trial: int
    index: int
    groups: tuple[str, ...]
    drawn: bool


def draw_states(chance: secrets.SystemRandom, calls: Sequence[Call], training: bool) -> list[list[dict[str, bool]]]:
    """Per trial, per call, the harness state: {state name: on}; training mode only where `training` (the reference
    computes the same in both modes)."""
    trials = 1 + max(call.trial for call in calls)
    drawn: dict[str, list[bool]] = {}
    for names, combinations in _JOINT:
        if names != (TRAINING,) or training:
            drawn.update(_draw(chance, calls, trials, names, combinations))
    states: list[list[dict[str, bool]]] = [[] for _ in range(trials)]
    for call in sorted(calls, key=lambda c: (c.trial, c.index)):
        states[call.trial].append({name: state[call.trial][call.index] for name, state in drawn.items()})
    return states


def describe(state: dict[str, bool]) -> str:
    """', ModelNew in training mode, autograd on, …' for the states that are on."""
    return "".join(f", {_NOTES[name]}" for name, on in state.items() if on)


def _draw(
    chance: secrets.SystemRandom,
    calls: Sequence[Call],
    trials: int,
    names: tuple[str, ...],
    combinations: dict[str, Callable[[dict], bool]],
) -> dict[str, list[list[bool]]]:
    """Per state of `names`, per trial, its calls' states (a first state, then CHAIN_PATTERN), drawn until each of
    `names` and `combinations` is on in a call on drawn weights and off in another, and on and off within each group
    of two calls or more (the best found where none fits): random starts, each improved one trial's state at a time."""
    checks = [lambda state, name=name: state[name] for name in names] + list(combinations.values())
    members: dict[str, list[int]] = {}
    for position, call in enumerate(calls):
        for group in call.groups:
            members.setdefault(group, []).append(position)
    groups = [positions for positions in members.values() if len(positions) >= 2]
    drawn = [position for position, call in enumerate(calls) if call.drawn] or list(range(len(calls)))
    length = [1 + max(call.index for call in calls if call.trial == trial) for trial in range(trials)]
    perfect = (len(checks), len(checks) * len(groups))

    def chains(first: dict[str, list[bool]]) -> dict[str, list[list[bool]]]:
        return {
            name: [
                [on != CHAIN_PATTERN[k % len(CHAIN_PATTERN)] for k in range(n)] for on, n in zip(first[name], length)
            ]
            for name in names
        }

    def fit(first: dict[str, list[bool]]) -> tuple[int, int]:
        chain = chains(first)
        states = [{name: chain[name][c.trial][c.index] for name in names} for c in calls]
        values = [[check(state) for state in states] for check in checks]
        return (
            sum(any(v[p] for p in drawn) and (len(calls) < 2 or not all(v)) for v in values),
            sum(len({v[p] for p in positions}) == 2 for v in values for positions in groups),
        )

    # random starts, each improved one flip at a time, until one fits
    best, best_fit = {}, (-1, -1)
    bits = [(name, trial) for name in names for trial in range(trials)]
    for _ in range(_STARTS):
        first = {name: [chance.random() < 0.5 for _ in range(trials)] for name in names}
        current, improved = fit(first), True
        while improved and current != perfect:
            improved = False
            for name, trial in chance.sample(bits, len(bits)):
                first[name][trial] = not first[name][trial]
                if (tried := fit(first)) > current:
                    current, improved = tried, True
                else:
                    first[name][trial] = not first[name][trial]
        if current > best_fit:
            best, best_fit = first, current
            if current == perfect:
                break
    return chains(best)
