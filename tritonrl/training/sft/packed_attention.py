"""Attention over packed (padding-free) batches without a mask: `attn_implementation="tritonrl_varlen"`.

SFT packs a batch's examples end to end into one row (no padding tokens).
With sdpa, transformers turns that row into one block-diagonal mask over
all of it: attention then runs over the whole row (quadratic in the row,
not in each example) and off the flash kernels. Measured on an H200 for a
Qwen3-0.6B shape, the mask alone cost 40% of a training step
(bench/results/2026-11-30-training-h200.md). This implementation attends
within each example: with CUDA through PyTorch's variable-length flash
attention (`torch.nn.attention.varlen`), elsewhere (and on PyTorch builds
without it) through one causal sdpa call per example.

The example boundaries come from the collator
(`DataCollatorWithFlattening(return_flash_attn_kwargs=True)`: cu_seq_lens,
max_length), so the GPU never waits for the host to find them; without them
they are read off `position_ids` (restarts at 0).

Test: tests/stages/test_sft.py.
"""

from __future__ import annotations

import functools
import inspect

import torch
import torch.nn.functional as F

NAME = "tritonrl_varlen"


def _boundaries(kwargs: dict, length: int) -> tuple[torch.Tensor, int]:
    cu = kwargs.get("cu_seq_lens_q")
    if cu is not None:
        return cu, int(kwargs["max_length_q"])
    position_ids = kwargs.get("position_ids")
    if position_ids is None:
        return torch.tensor([0, length]), length
    starts = torch.nonzero(position_ids[0] == 0).flatten()
    cu = torch.cat([starts, torch.tensor([length], device=starts.device)]).to(torch.int32)
    return cu, int((cu[1:] - cu[:-1]).max())


@functools.lru_cache(maxsize=1)
def _flash_varlen():
    """PyTorch's varlen flash attention and its fixed keyword arguments, or None where this PyTorch lacks it.

    Looked up once: the attention function runs in every layer of every step.
    Releases spell 'causal' differently (a window (-1, 0) or is_causal=True),
    and only some take `enable_gqa` (otherwise kv heads are repeated).
    """
    try:
        from torch.nn.attention.varlen import varlen_attn
    except ImportError:
        return None
    params = inspect.signature(varlen_attn).parameters
    causal = {"window_size": (-1, 0)} if "window_size" in params else {"is_causal": True}
    return varlen_attn, causal, "enable_gqa" in params


def varlen_attention(module, query, key, value, attention_mask, dropout: float = 0.0, scaling=None, **kwargs):
    """transformers attention function: q/k/v [1, heads, T, dim] → ([1, T, heads, dim], None)."""
    if query.shape[0] != 1 or attention_mask is not None:
        raise ValueError(
            f"{NAME} expects one packed row without an attention mask; set sft.packing=true "
            f"(got batch {query.shape[0]}, mask {'present' if attention_mask is not None else 'absent'})"
        )
    if dropout:
        raise ValueError(f"{NAME} has no attention dropout (got {dropout}); use sdpa for models trained with it")
    length = query.shape[2]
    cu, longest = _boundaries(kwargs, length)
    groups = query.shape[1] // key.shape[1]
    flash = _flash_varlen() if query.is_cuda else None
    if flash is not None:
        attend, causal, takes_gqa = flash
        # Flash kernels take fp16/bf16 only; under autocast, rotary embeddings can hand over fp32 q/k.
        half = torch.get_autocast_dtype("cuda") if torch.is_autocast_enabled("cuda") else value.dtype
        q, k, v = (t[0].transpose(0, 1).to(half) for t in (query, key, value))  # [T, heads, dim]
        options = dict(causal)
        if takes_gqa:
            options["enable_gqa"] = groups > 1
        elif groups > 1:
            k, v = k.repeat_interleave(groups, dim=1), v.repeat_interleave(groups, dim=1)
        cu = cu.to(device=q.device, dtype=torch.int32)
        out = attend(q, k, v, cu, cu, longest, longest, scale=scaling, **options)
        return out.unsqueeze(0), None
    pieces = []
    for start, end in zip(cu[:-1].tolist(), cu[1:].tolist()):
        pieces.append(
            F.scaled_dot_product_attention(
                query[:, :, start:end],
                key[:, :, start:end],
                value[:, :, start:end],
                is_causal=True,
                scale=scaling,
                enable_gqa=groups > 1,
            )
        )
    return torch.cat(pieces, dim=2).transpose(1, 2), None


def kernel(cuda: bool) -> str:
    """Which path attends on this machine, for the training log."""
    return (
        "flash varlen (torch.nn.attention.varlen)" if cuda and _flash_varlen() else "one causal sdpa call per example"
    )


def register() -> None:
    """Make `attn_implementation="tritonrl_varlen"` known to transformers (idempotent)."""
    from transformers import AttentionInterface
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, flash_attention_mask

    AttentionInterface.register(NAME, varlen_attention)
    ALL_MASK_ATTENTION_FUNCTIONS.register(NAME, flash_attention_mask)
