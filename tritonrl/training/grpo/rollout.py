"""GRPO rollouts: G responses per task from the policy (or a server serving it), rewarded by the verifier."""

from __future__ import annotations

from dataclasses import dataclass

from tritonrl.config import Config
from tritonrl.problems import Problem
from tritonrl.prompts import build_messages
from tritonrl.training.grpo import hrd
from tritonrl.training.models import encode_example, generate
from tritonrl.verify.pool import ProblemBatch, VerifierPool


@dataclass
class Rollout:
    """One sampled response with what the update needs."""

    task: int
    prompt_ids: list[int]
    response_ids: list[int]
    text: str
    classes: list[int]
    r_code: float = 0.0
    r_plan: float = 0.0
    speedup: float | None = None


class Sampler:
    """Draws G responses per task from the policy, in one batched generate (or from a policy server)."""

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
        g = self.config.grpo
        prompts = [build_messages(task["problem_source"]) for task in tasks]
        if self.server is None:
            self.policy.eval()
            generations = generate(
                self.policy, self.tokenizer, prompts, g.max_new_tokens, g.temperature, g.group_size, g.top_p
            )
            return [
                Rollout(i // g.group_size, gen.prompt_ids, gen.response_ids, gen.text,
                        hrd.token_classes(self.tokenizer, gen.response_ids, gen.text))
                for i, gen in enumerate(generations)
            ]
        rollouts = []
        for index, (task, messages) in enumerate(zip(tasks, prompts)):
            problem = Problem(task["problem"], task["problem_source"], origin="grpo tasks")
            for completion in self.server.generate(problem, messages, g.group_size, g.temperature, g.max_new_tokens):
                text = completion.text or ""
                example = encode_example(self.tokenizer, messages, text)
                prompt, response = example.input_ids[: example.prompt_tokens], example.input_ids[example.prompt_tokens:]
                rollouts.append(Rollout(index, prompt, response, text, hrd.token_classes(self.tokenizer, response, text)))
        return rollouts


def reward(pool: VerifierPool, chosen: list[dict], rollouts: list[Rollout], config: Config) -> None:
    """Every rollout's (r_code, r_plan) from one verifier-pool batch over this rank's tasks."""
    verdicts = pool.verify_batches(
        ProblemBatch(f"{i}:{task['problem']}", task["problem_source"], [r.text for r in rollouts if r.task == i])
        for i, task in enumerate(chosen)
    )
    for i, task in enumerate(chosen):
        group = [r for r in rollouts if r.task == i]
        for rollout, verdict in zip(group, verdicts[f"{i}:{task['problem']}"]):
            rollout.r_code, rollout.r_plan = hrd.rewards(
                verdict, config.verify.device, config.grpo.speedup_cap, config.grpo.plan_reward)
            rollout.speedup = verdict.speedup if verdict.correct else None
