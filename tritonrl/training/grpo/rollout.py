"""GRPO rollouts: G trajectories per task from the policy (or a server serving it), every turn rewarded by the verifier.

A trajectory's first turn answers the task's prompt; while `grpo.turns`
remain and its answer is not done (the evaluation's stop rule: correct and,
where speed is measured, at least `evaluate.stop_speedup` times faster than
PyTorch), the next turn answers the conversation so far plus the verifier's
feedback (`refinement_messages`). Each turn is one Rollout: its prompt is
the whole conversation, so only the turn's own answer is trained on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from tritonrl.config import Config
from tritonrl.problems import Problem
from tritonrl.prompts import build_messages, refinement_messages
from tritonrl.training.grpo import hrd
from tritonrl.training.models import encode_example, generate
from tritonrl.verify.pool import ProblemBatch, VerifierPool
from tritonrl.verify.result import Verdict


@dataclass(eq=False)
class Rollout:
    """One sampled response (one turn of a trajectory) with what the update needs."""

    task: int
    prompt_ids: list[int]
    response_ids: list[int]
    text: str
    classes: list[int]
    r_code: float = 0.0
    r_plan: float = 0.0
    speedup: float | None = None
    turn: int = 1
    messages: list[dict[str, str]] = field(default_factory=list, repr=False)  # the prompt this turn answered
    previous: Rollout | None = field(default=None, repr=False)  # the trajectory's turn before this one


class Sampler:
    """Draws G responses per task from the policy, in one batched generate (or from a policy server); then one
    answer per unfinished trajectory each later turn."""

    def __init__(self, config: Config, policy, tokenizer) -> None:
        self.config, self.policy, self.tokenizer = config, policy, tokenizer
        self.server = None
        if config.grpo.generation == "openai":
            from tritonrl.generation import OpenAITeacher

            self.server = OpenAITeacher(config.grpo.endpoint, config.grpo.served_model)

    def close(self) -> None:
        if self.server is not None:
            self.server.close()

    def __call__(self, tasks: list[dict]) -> list[Rollout]:
        """The first turn: G answers to every task's prompt."""
        requests = [(i, build_messages(task["problem_source"]), None) for i, task in enumerate(tasks)]
        return self._sample(tasks, requests, self.config.grpo.group_size)

    def refine(self, tasks: list[dict], pending: list[tuple[Rollout, Verdict]]) -> list[Rollout]:
        """The next turn of each pending trajectory: one answer to its conversation plus the feedback on its last answer."""
        requests = [(r.task, refinement_messages(r.messages, r.text, verdict), r) for r, verdict in pending]
        return self._sample(tasks, requests, 1)

    def _rollout(
        self,
        request: tuple[int, list[dict[str, str]], Rollout | None],
        prompt: list[int],
        response: list[int],
        text: str,
    ) -> Rollout:
        task, messages, previous = request
        return Rollout(
            task,
            prompt,
            response,
            text,
            hrd.token_classes(self.tokenizer, response, text),
            turn=previous.turn + 1 if previous else 1,
            messages=messages,
            previous=previous,
        )

    def _sample(
        self, tasks: list[dict], requests: list[tuple[int, list[dict[str, str]], Rollout | None]], n: int
    ) -> list[Rollout]:
        g = self.config.grpo
        if self.server is None:
            self.policy.eval()
            generations = generate(
                self.policy,
                self.tokenizer,
                [messages for _, messages, _ in requests],
                g.max_new_tokens,
                g.temperature,
                n,
                g.top_p,
            )
            return [
                self._rollout(requests[i // n], gen.prompt_ids, gen.response_ids, gen.text)
                for i, gen in enumerate(generations)
            ]
        rollouts = []
        for request in requests:
            task, messages, _ = request
            problem = Problem(tasks[task]["problem"], tasks[task]["problem_source"], origin="grpo tasks")
            for completion in self.server.generate(problem, messages, n, g.temperature, g.max_new_tokens):
                text = completion.text or ""
                example = encode_example(self.tokenizer, messages, text)
                rollouts.append(
                    self._rollout(
                        request,
                        example.input_ids[: example.prompt_tokens],
                        example.input_ids[example.prompt_tokens :],
                        text,
                    )
                )
        return rollouts


def reward(pool: VerifierPool, chosen: list[dict], rollouts: list[Rollout], config: Config) -> list[Verdict]:
    """Every rollout's (r_code, r_plan) from one verifier-pool batch over this rank's tasks; the verdicts, in order."""
    groups = {i: [r for r in rollouts if r.task == i] for i in range(len(chosen))}
    groups = {i: group for i, group in groups.items() if group}  # a later turn: tasks whose trajectories all stopped
    verdicts = pool.verify_batches(
        ProblemBatch(f"{i}:{chosen[i]['problem']}", chosen[i]["problem_source"], [r.text for r in group])
        for i, group in groups.items()
    )
    verdict_of: dict[int, Verdict] = {}
    for i, group in groups.items():
        for rollout, verdict in zip(group, verdicts[f"{i}:{chosen[i]['problem']}"]):
            rollout.r_code, rollout.r_plan = hrd.rewards(
                verdict, config.verify.device, config.grpo.speedup_cap, config.grpo.plan_reward
            )
            rollout.speedup = verdict.speedup if verdict.correct else None
            verdict_of[id(rollout)] = verdict
    return [verdict_of[id(r)] for r in rollouts]


def trajectories(
    sampler: Sampler, pool: VerifierPool, chosen: list[dict], config: Config
) -> tuple[list[Rollout], dict[str, float]]:
    """Every turn's rollouts of `chosen`, verified, in turn order; the seconds spent generating and verifying."""
    seconds = {"generate": 0.0, "verify": 0.0}
    every: list[Rollout] = []
    pending: list[tuple[Rollout, Verdict]] = []
    for turn in range(1, config.grpo.turns + 1):
        t0 = time.perf_counter()
        rollouts = sampler(chosen) if turn == 1 else sampler.refine(chosen, pending)
        t1 = time.perf_counter()
        verdicts = reward(pool, chosen, rollouts, config)
        seconds["generate"] += t1 - t0
        seconds["verify"] += time.perf_counter() - t1
        every += rollouts
        pending = [(r, v) for r, v in zip(rollouts, verdicts) if not v.done(config.evaluate.stop_speedup)]
        if not pending:
            break
    return every, seconds
