#!/usr/bin/env bash
# GRPO learning evidence with all weights training: one SFT checkpoint, then GRPO from it with several seeds and an
# lr-0 control (the start policy on seed 0's tasks), side by side (bench/grpo_sweep.sh), each probed at held-out shapes
# before and after.
#
#   bash bench/grpo_seeds.sh OUT_DIR [SEEDS] [grpo_learning.py options for every run...]
#
# SEEDS defaults to "0 1 2". OUT_DIR gets prepare.md (the data and SFT), one results file, log and plot per run, and
# the SFT checkpoint and task set under OUT_DIR/prepared/ (give them to bench/grpo_sweep.sh to run more).
# Within one 10-minute device call: prepare on another machine, run only the GRPO seeds there (bench/grpo_sweep.sh,
# --probe-samples 0; an lr-0 run ends bit-identical to its start checkpoint) and probe the models afterwards with
# bench/held_out_probe.py (bench/results/2026-12-04-grpo-seeds-h200.md).
set -euo pipefail
out=$1 seeds=${2:-0 1 2}
shift $(( $# > 1 ? 2 : 1 ))
mkdir -p "$out"
home=/tmp/grpo-seeds-prepare
python3 -m bench.grpo_learning --prepare-only --home "$home" --results "$out/prepare.md" "$@" --set sft.bf16=false
reuse=$(grep -o -- '--sft-model [^ ]* --tasks-data [^ )]*' "$out/prepare.md" | tail -1)
read -r _ sft _ tasks <<<"$reuse"
mkdir -p "$out/prepared" && cp -r "${sft#file://}" "${tasks#file://}" "$out/prepared/"
runs=()
for seed in $seeds; do runs+=("seed$seed $* --set grpo.seed=$seed"); done
bash bench/grpo_sweep.sh "$out" "$sft" "$tasks" "${runs[@]}" "lr0 $* --lr 0 --set grpo.seed=${seeds%% *}"
