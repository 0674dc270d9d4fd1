#!/usr/bin/env bash
# Several bench/grpo_learning.py runs side by side on one many-core machine (the lent GPU hosts have 16-32
# cores), each from the same weak SFT checkpoint and task set, each writing its own results file.
#
#   bash bench/grpo_sweep.sh OUT_DIR SFT_URI TASKS_URI "NAME ARGS..." ["NAME ARGS..." ...]
#
# ARGS are grpo_learning.py options for that run (e.g. "sgd-1 --lr 1.0 --set grpo.optimizer=sgd").
# With GPUs present the runs are spread over them round-robin (the policy trains there; give
# --set grpo.dtype=float32 for CPU-like numerics); the verifier runs on the CPU (TRITON_INTERPRET=1). With Triton 3.6
# (the lent H200 host's) put numpy<2.4 first on PYTHONPATH (pip install --target DIR): the verifier refuses the pair
# otherwise, as its interpreter fails every loop over a runtime size.
set -euo pipefail
out=$1 sft=$2 tasks=$3
shift 3
mkdir -p "$out"
# Each run's torch gets its share of the cores: 4 runs × all cores of threads stalled a 32-core host.
threads=${OMP_NUM_THREADS:-$(( $(nproc) / $# > 0 ? $(nproc) / $# : 1 ))}
export OMP_NUM_THREADS=$threads MKL_NUM_THREADS=$threads
gpus=$(python3 -c 'import torch; print(torch.cuda.device_count())')
index=0
for spec in "$@"; do
  read -r name args <<<"$spec"
  device=$(( gpus > 0 ? index % gpus : 0 ))
  # shellcheck disable=SC2086
  CUDA_VISIBLE_DEVICES=$([ "$gpus" -gt 0 ] && echo "$device" || echo "") TRITON_INTERPRET=1 \
    python3 -m bench.grpo_learning --home "/tmp/grpo-sweep-$name" --sft-model "$sft" --tasks-data "$tasks" \
    --results "$out/$name.md" --plot "$out/$name.png" $args >"$out/$name.log" 2>&1 &
  index=$((index + 1))
done
status=0
for job in $(jobs -p); do wait "$job" || status=1; done
exit $status
