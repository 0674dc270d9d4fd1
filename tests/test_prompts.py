from tritonrl.problems.loaders import load_builtin
from tritonrl.prompts import PROMPT_VERSION, build_messages


def test_prompt_carries_the_problem_and_the_answer_format():
    problem = load_builtin()[0]
    messages = build_messages(problem.source)
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert problem.source.strip() in user
    assert "ModelNew" in user and "```python" in user and "@triton.jit" in user
    assert PROMPT_VERSION.startswith("tritonrl-prompt-v")
