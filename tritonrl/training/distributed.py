"""Data parallelism for GRPO, by hand: the process group torchrun describes, sums over ranks, summed gradients.

GRPO's ranks work on different tasks and meet only to agree on numbers
(is there any signal, how many tokens or responses normalise the loss, the
step's metrics) and to sum gradients before the optimizer step. Summing by
hand instead of wrapping the policy in DDP keeps one code path with or
without a process group, and cannot hang when ranks run different numbers
of micro-batches (DDP all-reduces inside every backward). Every rank holds
a full replica of the policy and its optimizer state: nothing is sharded
(no ZeRO/FSDP), so the policy must fit on one GPU.

Without a process group (one process, not started by torchrun) every
function here returns its input: the single-process run takes the same code.

Test: tests/training/test_grpo_distributed.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta

import torch
import torch.distributed as dist


@dataclass(frozen=True)
class Rank:
    """Where this process stands: its global rank among `world`, and its place among the processes of its host."""

    rank: int = 0
    world: int = 1
    local_rank: int = 0
    local_world: int = 1

    @property
    def main(self) -> bool:
        return self.rank == 0

    @property
    def device(self) -> str:
        return f"cuda:{self.local_rank}" if torch.cuda.is_available() else "cpu"


def start() -> Rank:
    """Join the process group torchrun's environment describes: nccl with each rank on cuda:LOCAL_RANK, or gloo."""
    env = os.environ
    rank = Rank(
        int(env.get("RANK", 0)),
        int(env.get("WORLD_SIZE", 1)),
        int(env.get("LOCAL_RANK", 0)),
        int(env.get("LOCAL_WORLD_SIZE", 1)),
    )
    if rank.world == 1:
        return rank
    if torch.cuda.is_available():
        if rank.local_rank >= torch.cuda.device_count():
            raise RuntimeError(
                f"process {rank.local_rank} of {rank.local_world} on this host has no GPU of its own "
                f"({torch.cuda.device_count()} visible): lower grpo.nproc_per_node to the GPUs per host"
            )
        torch.cuda.set_device(rank.local_rank)
    # Ranks meet after rank-local generation and verification, which can leave one many minutes behind another;
    # a rank that dies ends the run through torchrun anyway, so the wait may be long (NCCL's default is 10 min).
    dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo", timeout=timedelta(hours=1))
    return rank


def stop() -> None:
    if dist.is_initialized():
        dist.destroy_process_group()


def backend() -> str:
    """nccl, gloo, or "none" without a process group."""
    return dist.get_backend() if dist.is_initialized() else "none"


def _tensor_device() -> str:
    return "cuda" if backend() == "nccl" else "cpu"


def barrier() -> None:
    """Wait for every rank, so a timed section starts together (and holds no wait for a slower rank)."""
    if dist.is_initialized():
        dist.barrier(device_ids=[torch.cuda.current_device()] if backend() == "nccl" else None)


def reduce(values: Sequence[float], op: str = "sum") -> list[float]:
    """`values` summed (`op="sum"`) or maximised (`"max"`) element-wise over all ranks."""
    if not dist.is_initialized():
        return [float(v) for v in values]
    tensor = torch.tensor(values, dtype=torch.float64, device=_tensor_device())
    dist.all_reduce(tensor, op={"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX}[op])
    return tensor.tolist()


def broadcast_parameters(model: torch.nn.Module) -> None:
    """Rank 0's weights everywhere, so every replica starts equal (as DDP does)."""
    if dist.is_initialized():
        for tensor in model.state_dict().values():
            dist.broadcast(tensor, src=0)


def sum_gradients(parameters: Iterable[torch.nn.Parameter]) -> None:
    """Sum every gradient over the ranks (zeros where this rank computed none), so every replica takes the same step.

    Each rank's loss is already scaled by the global normaliser, so the sum is the gradient of the global loss.
    """
    if not dist.is_initialized():
        return
    grads = []
    for parameter in parameters:
        if parameter.requires_grad:
            if parameter.grad is None:
                parameter.grad = torch.zeros_like(parameter)
            grads.append(parameter.grad)
    for work in [dist.all_reduce(grad, async_op=True) for grad in grads]:
        work.wait()
