"""The prompt every model sees: a PyTorch module in, reasoning then one Python block with `ModelNew` out.

Shared by distillation (teacher prompts), augmentation (prompts for shape
variants), SFT (the supervised prompt) and GRPO (rollout prompts), so the
student is trained on exactly what it is later asked. The template is
versioned: change the text, bump PROMPT_VERSION, and every dataset records
which version produced it.

Test: tests/test_prompts.py.
"""

from __future__ import annotations

PROMPT_VERSION = "tritonrl-prompt-v1"

SYSTEM = (
    "You are an expert GPU kernel engineer. You rewrite PyTorch modules as fast, correct Triton kernels."
)

USER_TEMPLATE = """Rewrite the PyTorch module below as `ModelNew`, a drop-in replacement whose computation runs in \
Triton kernels (`@triton.jit`) that its `forward` launches.

Rules:
- `ModelNew` takes the same constructor arguments as `Model` and returns the same outputs (shape, dtype, values).
- `forward` may allocate outputs (`torch.empty`, ...), reshape or make tensors contiguous, and launch kernels;
  all arithmetic happens in Triton. No torch compute ops, no calls to nn modules, no other libraries.
- Handle any input size (masks for ragged edges); fp32 inputs need fp32 accuracy (`input_precision="ieee"` for `tl.dot`).

First explain your plan briefly: how the work is split across programs, what each program loads, computes
and stores. Then give the complete code in one ```python block (imports, kernels, `ModelNew`).

```python
{source}
```"""


def build_messages(problem_source: str) -> list[dict[str, str]]:
    """Chat messages for one problem (OpenAI chat format)."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": USER_TEMPLATE.format(source=problem_source.strip())},
    ]
