#!/usr/bin/env bash
# Training speed measurements on an H200, run on a 2-GPU H200 machine; JSON and logs under $1 (default .).
# `first` (the first session call): padding-free packing with and without Liger, padded batches with Liger,
# the GRPO step split, ZeRO-3 across both GPUs. `second`: the step profile (bench/sft_step_profile.py),
# padded batches without Liger, with batch 8, with torch.compile, and padded ZeRO-3 across both GPUs.
# `third`: packed rows with per-example flash attention (tritonrl/training/sft/packed_attention.py, the new default), with
# and without Liger, batch 8, and ZeRO-3 across both GPUs; `fourth`: the runs of `third` that failed, after the fix.
# One GPU per run, two runs at a time; each run has its own time limit.
set -u
part=${1:?first, second, third, fourth or fifth}
out=${2:-.}
run() {  # name gpus args...
    local name=$1 gpus=$2; shift 2
    CUDA_VISIBLE_DEVICES=$gpus timeout 240 python3 -m bench.train_throughput_gpu --out "$out/$name.json" "$@" \
        >"$out/$name.log" 2>&1
    local status=$?
    [ $status -eq 0 ] || echo "$name failed ($status): $(tail -3 "$out/$name.log")"
    [ $status -eq 0 ] && python3 -c "import json, sys; d = json.load(open(sys.argv[1]))['sft']; print(sys.argv[2], 'tokens/s', d['tokens_per_s'], 'MFU', d['mfu'])" "$out/$name.json" "$name"
    return $status
}
if [ "$part" = first ]; then
    (run sft-plain 0 --attn sdpa; run sft-liger-padded 0 --liger true --packing false) &
    (run sft-liger 1 --attn sdpa --liger true --grpo-steps 2) &
    wait
    run sft-liger-zero3-2gpu 0,1 --attn sdpa --liger true --nproc 2 --deepspeed zero3 || run sft-zero3-2gpu 0,1 --attn sdpa --nproc 2 --deepspeed zero3
elif [ "$part" = second ]; then
    (CUDA_VISIBLE_DEVICES=0 timeout 300 python3 -m bench.sft_step_profile --out "$out/step-profile.json" >"$out/step-profile.log" 2>&1
     grep '^{' "$out/step-profile.log"; run sft-liger-padded-b8 0 --liger true --packing false --batch 8) &
    (run sft-padded 1 --packing false; run sft-liger-padded-compile 1 --liger true --packing false --compile) &
    wait
    run sft-liger-padded-zero3-2gpu 0,1 --liger true --packing false --nproc 2 --deepspeed zero3
elif [ "$part" = third ]; then
    (run sft-varlen 0; run sft-varlen-b8 0 --batch 8) &
    (run sft-varlen-liger 1 --liger true --grpo-steps 2) &
    wait
    run sft-varlen-zero3-2gpu 0,1 --nproc 2 --deepspeed zero3
elif [ "$part" = fourth ]; then  # the two `third` runs that failed (fp32 q/k under autocast), after the fix
    run sft-varlen 0 & run sft-varlen-b8 1 --batch 8 &
    wait
else  # fifth: batch 8 with Liger (without, it runs out of memory on the logits)
    run sft-varlen-liger-b8 0 --liger true --batch 8 & run sft-varlen-liger-b12 1 --liger true --batch 12 &
    wait
fi
