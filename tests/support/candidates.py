"""Verifier candidates: a ReLU kernel wrapped around a snippet, and the header of a tests/verify/candidates/ file."""

from pathlib import Path

RELU_SOURCE_HEAD = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < n), 0.0), mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
{body}
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out
"""


def candidate(body: str) -> str:
    return RELU_SOURCE_HEAD.format(body="\n".join("        " + line for line in body.splitlines()))


def candidate_header(path: Path) -> dict[str, str]:
    """The `# key: value` lines a catalogue candidate starts with (problem, expect), as a dict."""
    fields = {}
    for line in path.read_text().splitlines():
        if not line.startswith("# "):
            break
        key, sep, value = line[2:].partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    return fields
