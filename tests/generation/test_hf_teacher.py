"""HFTeacher on a tiny GPT-2 and word-level tokenizer built offline in tmp_path (no downloads)."""

from __future__ import annotations

import pytest

from tritonrl.config import ConfigError, TeacherConfig
from tritonrl.generation import HFTeacher, build_teacher
from tritonrl.problems import Problem
from tritonrl.prompts import SYSTEM, build_messages

pytestmark = pytest.mark.timeout(120)

CHAT_TEMPLATE = (
    "{% for m in messages %}<{{ m['role'] }}> {{ m['content'] }} <eos> {% endfor %}"
    "{% if add_generation_prompt %}<assistant>{% endif %}"
)
CORPUS = [
    SYSTEM,
    "Plan: one program per block. Load, compute relu, store.",
    "import torch import triton class ModelNew def forward x y return kernel grid block mask",
    "<system> <user> <assistant>",
]
PROBLEM = Problem(
    name="1_relu.py",
    source="import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n",
    origin="test",
)


def build_tiny_model(path, chat_template: str | None = CHAT_TEMPLATE):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.train_from_iterator(CORPUS, trainers.WordLevelTrainer(special_tokens=["<unk>", "<pad>", "<eos>"]))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>")
    if chat_template is not None:
        tokenizer.chat_template = chat_template
    tokenizer.save_pretrained(path)

    config = GPT2Config(
        n_layer=1,
        n_head=2,
        n_embd=32,
        n_positions=2048,
        vocab_size=len(tokenizer),
        bos_token_id=tokenizer.eos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    GPT2LMHeadModel(config).save_pretrained(path)
    return tokenizer


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny-teacher")
    tokenizer = build_tiny_model(path)
    return path, tokenizer


def messages():
    return build_messages(PROBLEM.source)


def test_samples_n_completions_with_token_counts(tiny_model):
    path, tokenizer = tiny_model
    teacher = HFTeacher(str(path), batch_size=8)
    assert teacher.id == f"hf:{path}"

    completions = teacher.generate(PROBLEM, messages(), n=2, temperature=1.0, max_tokens=8)

    prompt = tokenizer.apply_chat_template(messages(), add_generation_prompt=True, tokenize=False)
    assert prompt.endswith("<assistant>")
    expected_prompt_tokens = len(tokenizer(prompt, add_special_tokens=False)["input_ids"])
    assert len(completions) == 2
    for c in completions:
        assert c.error is None and isinstance(c.text, str)
        assert c.prompt_tokens == expected_prompt_tokens
        assert 1 <= c.completion_tokens <= 8
        assert len(c.text.split()) <= c.completion_tokens  # word-level tokens: only the new ones are decoded
        assert c.latency_s > 0


def test_batches_cover_n_and_greedy_repeats_one_answer(tiny_model):
    path, _ = tiny_model
    teacher = HFTeacher(str(path), batch_size=2)
    sampled = teacher.generate(PROBLEM, messages(), n=5, temperature=1.0, max_tokens=4)
    assert len(sampled) == 5 and all(c.error is None for c in sampled)
    greedy = teacher.generate(PROBLEM, messages(), n=3, temperature=0.0, max_tokens=6)
    assert len(greedy) == 3 and len({(c.text, c.completion_tokens) for c in greedy}) == 1
    assert teacher.generate(PROBLEM, messages(), n=0, temperature=1.0, max_tokens=4) == []


def test_many_prompts_batched_answer_as_each_would_alone(tiny_model):
    """Left-padded prompts of different lengths in one batch: greedy answers equal the unbatched ones."""
    path, _ = tiny_model
    teacher = HFTeacher(str(path), batch_size=3)
    longer = Problem(
        name="2_add.py", source=PROBLEM.source.replace("torch.relu(x)", "x + x + x  # a longer prompt"), origin="test"
    )
    requests = [(PROBLEM, messages()), (longer, build_messages(longer.source)), (PROBLEM, messages())]
    batched = teacher.generate_many(requests, n=2, temperature=0.0, max_tokens=6)
    alone = [teacher.generate(problem, msgs, n=2, temperature=0.0, max_tokens=6) for problem, msgs in requests]
    assert [[(c.text, c.completion_tokens, c.prompt_tokens) for c in cs] for cs in batched] == [
        [(c.text, c.completion_tokens, c.prompt_tokens) for c in cs] for cs in alone
    ]
    sampled = teacher.generate_many(requests, n=2, temperature=1.0, max_tokens=4)
    assert [len(cs) for cs in sampled] == [2, 2, 2] and all(c.error is None for cs in sampled for c in cs)


def test_model_is_loaded_lazily_and_once(tiny_model, monkeypatch):
    import transformers

    path, _ = tiny_model
    calls = []
    original = transformers.AutoModelForCausalLM.from_pretrained

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", counting)
    teacher = HFTeacher(str(path))
    assert calls == []
    teacher.generate(PROBLEM, messages(), n=1, temperature=1.0, max_tokens=2)
    teacher.generate(PROBLEM, messages(), n=1, temperature=1.0, max_tokens=2)
    assert len(calls) == 1


def test_generation_errors_become_failures(tiny_model, monkeypatch):
    path, _ = tiny_model
    teacher = HFTeacher(str(path))
    teacher.generate(PROBLEM, messages(), n=1, temperature=1.0, max_tokens=1)  # load

    def out_of_memory(*args, **kwargs):
        raise RuntimeError("CUDA out of memory (simulated)")

    monkeypatch.setattr(teacher._model, "generate", out_of_memory)
    completions = teacher.generate(PROBLEM, messages(), n=3, temperature=1.0, max_tokens=4)
    assert len(completions) == 3
    assert all(c.text is None and "out of memory (simulated)" in c.error for c in completions)


def test_a_model_that_cannot_load_gives_failures(tmp_path):
    empty = tmp_path / "not-a-model"
    empty.mkdir()
    teacher = HFTeacher(str(empty))
    for _ in range(2):  # the load error is remembered
        completions = teacher.generate(PROBLEM, messages(), n=2, temperature=1.0, max_tokens=4)
        assert len(completions) == 2
        assert all(c.text is None and "could not load model" in c.error for c in completions)


def test_a_tokenizer_without_chat_template_gives_failures(tmp_path):
    build_tiny_model(tmp_path, chat_template=None)
    completions = HFTeacher(str(tmp_path)).generate(PROBLEM, messages(), n=2, temperature=1.0, max_tokens=4)
    assert len(completions) == 2
    assert all(c.text is None and "chat template" in c.error for c in completions)


def test_build_teacher_hf():
    teacher = build_teacher(TeacherConfig(kind="hf", model="/models/my-teacher"))
    assert isinstance(teacher, HFTeacher) and teacher.id == "hf:/models/my-teacher"
    with pytest.raises(ConfigError, match="needs teacher.model"):
        build_teacher(TeacherConfig(kind="hf"))
