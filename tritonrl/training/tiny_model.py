"""Build the `tiny-local` student: a few-million-parameter Qwen3 and a BPE tokenizer, offline, in seconds.

The tiny profile must train on a laptop CPU with no model hub, yet exercise
exactly the code a hub model goes through. So this module builds a standard
`transformers` architecture from a config (random weights, fixed seed) and a
byte-level BPE tokenizer trained with `tokenizers` on the project's own corpus
(the built-in problems, their reference answers, the prompt template), with
ChatML special tokens and a Jinja chat template, and saves both with
`save_pretrained`. Callers then load the directory with `from_pretrained`
like any hub checkpoint (tritonrl/training/models.py). The directory name carries a
digest of everything that went into the build, so a changed corpus or
architecture builds a new model instead of silently reusing a stale one; the
build goes to a temporary sibling and is renamed into place, so concurrent
builders (several ranks) never see half a model.

Test: tests/training/test_models.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from tritonrl.training.progress_bars import quiet_progress_bars

TINY_LOCAL = "tiny-local"
BUILD_VERSION = 1  # bump when the build recipe changes in a way the digest cannot see

PAD, IM_START, IM_END = "<|endoftext|>", "<|im_start|>", "<|im_end|>"
SPECIAL_TOKENS = [PAD, IM_START, IM_END]

# ChatML, as Qwen models use: every message is `<|im_start|>role\ncontent<|im_end|>\n`.
CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<|im_start|>assistant\\n' }}{%- endif -%}"
)

VOCAB_SIZE = 2048
ARCHITECTURE = {
    "hidden_size": 256,
    "intermediate_size": 768,
    "num_hidden_layers": 4,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 64,
    "max_position_embeddings": 8192,
    "rope_theta": 10000.0,
    "tie_word_embeddings": True,
}


def corpus() -> list[str]:
    """The texts the tokenizer learns from: every built-in prompt (template + problem) and reference answer."""
    from tritonrl.problems import load_problems
    from tritonrl.prompts import build_messages

    texts = []
    for problem in load_problems("builtin"):
        texts += [message["content"] for message in build_messages(problem.source)]
        texts.append(problem.reference_response or "")
    return texts


def build_digest(texts: list[str]) -> str:
    spec = {
        "version": BUILD_VERSION,
        "vocab": VOCAB_SIZE,
        "arch": ARCHITECTURE,
        "template": CHAT_TEMPLATE,
        "corpus": texts,
    }
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:12]


def train_tokenizer(texts: list[str]):
    """Byte-level BPE (any byte sequence is representable), ChatML specials, chat template attached."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        min_frequency=2,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token=IM_END,
        pad_token=PAD,
        additional_special_tokens=[IM_START],
        chat_template=CHAT_TEMPLATE,
        model_max_length=ARCHITECTURE["max_position_embeddings"],
    )


def build_model(tokenizer):
    """A randomly initialised Qwen3 sized to the tokenizer; seeded so every build is identical."""
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    eos, pad = tokenizer.convert_tokens_to_ids([IM_END, PAD])
    config = Qwen3Config(
        vocab_size=len(tokenizer), bos_token_id=None, eos_token_id=eos, pad_token_id=pad, **ARCHITECTURE
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = Qwen3ForCausalLM(config)
    model.generation_config.eos_token_id = eos
    model.generation_config.pad_token_id = pad
    return model


def ensure_tiny_model(models_dir: Path) -> Path:
    """The directory holding the tiny model and tokenizer, building it on first use."""
    texts = corpus()
    target = models_dir / f"{TINY_LOCAL}-{build_digest(texts)}"
    if (target / "config.json").is_file():
        return target
    quiet_progress_bars()
    models_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{TINY_LOCAL}-", dir=models_dir))
    try:
        tokenizer = train_tokenizer(texts)
        tokenizer.save_pretrained(staging)
        build_model(tokenizer).save_pretrained(staging)
        try:
            os.rename(staging, target)
        except OSError:
            if not (target / "config.json").is_file():  # not merely another builder winning the race
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
