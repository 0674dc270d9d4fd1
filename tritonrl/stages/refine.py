"""Answers in turns: ask a model, verify its answers, hand each unfinished one the verifier's feedback, ask again.

Turn 1 asks every problem `samples` times (`build_messages`); each sample is
then a conversation of its own. While it is not done (`Verdict.done`: correct and,
where speed is measured (GPU), at least `stop_speedup` times faster than
PyTorch; on CPU correct is enough) and turns remain, its next prompt is
`refinement_messages(messages, answer, verdict)`. A turn's prompts are
generated together (a model that batches, HFTeacher, batches them) and
verified together in the caller's pool. With one turn this is the
single-turn evaluation: ask, verify.

Every answer is one responses.jsonl line (`rows`' "line"): problem, sample,
turn, response, model, error and, from turn 2, the feedback it answered, so
a conversation can be rebuilt (build_messages, then per earlier turn its
answer and the next line's feedback) and re-verified (`verify_answers`).

Test: tests/stages/test_refine.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tritonrl.config import EvaluateConfig
from tritonrl.evaluation.metrics import FIRST_TURN, verdict_record
from tritonrl.problems import Problem
from tritonrl.prompts import build_messages, refinement_messages
from tritonrl.verify.pool import ProblemBatch, VerifierPool
from tritonrl.verify.result import Verdict

OnVerdict = Callable[[ProblemBatch, int, Verdict], None]


def _ignore(*_: Any) -> None:
    pass


@dataclass(frozen=True)
class Watch:
    """What a caller sees of each turn: `answering(turn, prompts)` and `verifying(turn, answers)` return its callbacks.

    `prompts` is how many are asked, `answers` the turn's answers (responses.jsonl fields); `answering`'s callback is
    called with the Problems of the prompts answered together once they are (a batch, or one prompt: `ask`),
    `verifying`'s is the pool's `on_verdict`.
    """

    answering: Callable[[int, int], Callable[[list[Problem]], None]] = field(default=lambda turn, prompts: _ignore)
    verifying: Callable[[int, list[dict[str, Any]]], OnVerdict] = field(default=lambda turn, answers: _ignore)


@dataclass
class _Conversation:
    problem: Problem
    sample: int
    messages: list[dict[str, str]]


def ask(
    model: Any,
    requests: list[tuple[Problem, list[dict[str, str]]]],
    n: int,
    temperature: float,
    max_tokens: int,
    on_answered: Callable[[list[Problem]], None] = _ignore,
) -> list[list[Any]]:
    """`n` Completions per (problem, messages) from a `tritonrl.generation` Teacher, in request order.

    A batching one (HFTeacher) gets `batch_size` prompts per call, and `on_answered` the batch's problems once it is
    done; an endpoint's (OpenAITeacher) prompts are in flight together up to its `concurrency`, so a turn of many
    conversations is not asked one at a time, and `on_answered` gets each prompt's problem as it is answered.
    """
    answers: list[list[Any]] = []
    batched = getattr(model, "generate_many", None)
    if batched:
        for first in range(0, len(requests), model.batch_size):
            chunk = requests[first : first + model.batch_size]
            answers += batched(chunk, n, temperature, max_tokens)
            on_answered([problem for problem, _ in chunk])
        return answers
    pool = ThreadPoolExecutor(max_workers=getattr(model, "concurrency", 1), thread_name_prefix="evaluate-ask")
    try:
        futures = [
            pool.submit(model.generate, problem, messages, n, temperature, max_tokens) for problem, messages in requests
        ]
        for (problem, _), future in zip(requests, futures):
            answers.append(future.result())
            on_answered([problem])
    finally:  # interrupted: the prompts not yet sent never are
        pool.shutdown(wait=False, cancel_futures=True)
    return answers


def answer_record(problem: Problem, answer: dict[str, Any], verdict: Verdict) -> dict[str, Any]:
    """The metrics record (tritonrl/evaluation/metrics.py) of one verified answer."""
    return {
        "problem": problem.name,
        "level": problem.level,
        "sample": answer["sample"],
        "turn": answer["turn"],
        **verdict_record(verdict),
        "reasons": verdict.codes,
    }


def verify_answers(
    pool: VerifierPool, problems: dict[str, Problem], answers: list[dict[str, Any]], on_verdict: OnVerdict = _ignore
) -> list[tuple[dict[str, Any], Verdict]]:
    """(answer, verdict) for every answer, grouped by problem in first-appearance order, answers in their order."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for answer in answers:
        grouped.setdefault(answer["problem"], []).append(answer)
    batches = [
        ProblemBatch(name, problems[name].source, [a["response"] for a in group]) for name, group in grouped.items()
    ]
    verdicts = pool.verify_batches(batches, on_verdict)
    return [(answer, verdict) for name, group in grouped.items() for answer, verdict in zip(group, verdicts[name])]


def answer_row(problem: Problem, answer: dict[str, Any], verdict: Verdict) -> dict[str, Any]:
    """One verified answer as plain data: its responses.jsonl line, its record, its verdict (a dict)."""
    return {"line": json.dumps(answer), "record": answer_record(problem, answer, verdict), "verdict": verdict.to_dict()}


def answer_in_turns(
    problems: list[Problem], model: Any, pool: VerifierPool, settings: EvaluateConfig, watch: Watch = Watch()
) -> list[dict[str, Any]]:
    """Every answer of every conversation, verified: `row`s, in turn order (`settings`: samples, sampling, turns)."""
    by_name = {p.name: p for p in problems}
    first = [(problem, build_messages(problem.source)) for problem in problems]
    pending = [
        _Conversation(problem, sample, messages) for problem, messages in first for sample in range(settings.samples)
    ]
    rows: list[dict[str, Any]] = []
    for turn in range(FIRST_TURN, settings.turns + 1):
        if turn == FIRST_TURN:  # one prompt per problem, `samples` answers to it
            requests, n = first, settings.samples
        else:
            requests, n = [(c.problem, c.messages) for c in pending], 1
        answered = ask(
            model, requests, n, settings.temperature, settings.max_tokens, watch.answering(turn, len(requests))
        )
        completions = [completion for completions in answered for completion in completions]
        answers = [
            _answer(model, conversation, turn, completion) for conversation, completion in zip(pending, completions)
        ]
        verified = verify_answers(pool, by_name, answers, watch.verifying(turn, answers))
        verdicts = {(a["problem"], a["sample"]): verdict for a, verdict in verified}
        rows += [answer_row(by_name[a["problem"]], a, verdict) for a, verdict in verified]
        still = []
        for conversation, answer in zip(pending, answers):
            verdict = verdicts[(answer["problem"], answer["sample"])]
            if not verdict.done(settings.stop_speedup):
                conversation.messages = refinement_messages(conversation.messages, answer["response"], verdict)
                still.append(conversation)
        pending = still
        if not pending:
            break
    return rows


def _answer(model: Any, conversation: _Conversation, turn: int, completion: Any) -> dict[str, Any]:
    """The responses.jsonl fields of one answer; a failed request is an empty response (no code: invalid)."""
    answer = {
        "problem": conversation.problem.name,
        "sample": conversation.sample,
        "turn": turn,
        "response": completion.text or "",
        "model": model.id,
        "error": completion.error,
    }
    if turn > FIRST_TURN:
        answer["feedback"] = conversation.messages[-1]["content"]
    return answer
