"""Tokenized training examples on disk as flat numpy arrays, read back memory-mapped.

SFT tokenizes once in the parent (tritonrl/stages/sft.py) and every training
process (tritonrl/training/sft/worker.py) reads the same files: `ids.npy` (all token
ids end to end, int32), `offsets.npy` (where each example starts; one extra
entry for the end) and `prompt_tokens.npy` (how many leading tokens of each
example are prompt, so get no loss). Memory-mapped, a large set costs the
workers no RAM copy, and the workers need only numpy and torch — no arrow
stack on GPU hosts.

Test: tests/stages/test_sft.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tritonrl.training.models import IGNORE_INDEX, Example

FILES = ("ids.npy", "offsets.npy", "prompt_tokens.npy")


def save_examples(examples: list[Example], directory: Path) -> None:
    """Write `examples` under `directory` (created)."""
    directory.mkdir(parents=True, exist_ok=True)
    lengths = np.array([len(e.input_ids) for e in examples], dtype=np.int64)
    offsets = np.zeros(len(examples) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    ids = np.fromiter((t for e in examples for t in e.input_ids), dtype=np.int32, count=int(offsets[-1]))
    np.save(directory / "ids.npy", ids)
    np.save(directory / "offsets.npy", offsets)
    np.save(directory / "prompt_tokens.npy", np.array([e.prompt_tokens for e in examples], dtype=np.int64))


class TokenizedExamples:
    """A map-style dataset of {input_ids, labels} lists (what transformers' collators take)."""

    def __init__(self, directory: Path | str) -> None:
        directory = Path(directory)
        missing = [name for name in FILES if not (directory / name).is_file()]
        if missing:
            raise FileNotFoundError(
                f"{directory} lacks {missing}: not written by tritonrl.training.sft.token_store.save_examples"
            )
        self.ids = np.load(directory / "ids.npy", mmap_mode="r")
        self.offsets = np.load(directory / "offsets.npy")
        self.prompt_tokens = np.load(directory / "prompt_tokens.npy")

    def __len__(self) -> int:
        return len(self.prompt_tokens)

    def __getitem__(self, index: int) -> dict[str, list[int]]:
        ids = self.ids[self.offsets[index] : self.offsets[index + 1]].tolist()
        prompt = int(self.prompt_tokens[index])
        return {"input_ids": ids, "labels": [IGNORE_INDEX] * prompt + ids[prompt:]}
