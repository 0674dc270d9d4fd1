"""Settings shared by the full-flow tests (tests/test_flows.py in process, tests/test_stack.py through the stack)."""

# Overrides that keep a whole `tiny` pipeline run to a few minutes on 2 cores.
SMALL = [
    "verify.trials=1",
    "problems.limit=1",
    "teacher.samples_per_task=1",
    "augment.variants_per_task=1",
    "sft.max_steps=2",
    "sft.eval_steps=1",
    "grpo.steps=1",
    "grpo.group_size=2",
    "grpo.tasks_per_step=1",
    "grpo.max_new_tokens=64",
    "evaluate.limit=1",
    "evaluate.max_tokens=64",
]
