#!/bin/bash
# The GPU checks of a session that is lent a device machine (docs/BENCHMARKS.md, "On a GPU" and
# "Second GPU run"), prepared so that its 15 minutes go to measuring.
#
#   here:  bash tests/bench/gpu_session.sh pack     # a stripped ckptx and its libraries in .dev/ (ignored)
#   there: bash tests/bench/gpu_session.sh run SECONDS [MODELS [GPU_MODELS]]
#          (device `run`, carry [".dev"]; results under $OUT)
#
# `run` spends about SECONDS: the package's unit tests on the machine's CPU (torch 2.x) beside the
# acceptance suite on CUDA at batch 8 (also under bfloat16 autocast), then a cuDNN LSTM's re-forwarded gradients, then a memory
# snapshot of ResNet-50's feng-acg step, read by `ckptx import-snapshot` and by snapshot_blocks.py
# (which blocks are live at each step's peak).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
case "${1:-}" in
pack)
    mkdir -p "$here/.dev/bin" "$here/.dev/lib" "$here/.git/info"
    grep -qx "/.dev/" "$here/.git/info/exclude" 2>/dev/null || echo "/.dev/" >> "$here/.git/info/exclude"
    strip -o "$here/.dev/bin/ckptx" "$here/build/bin/ckptx"
    ldd "$here/build/bin/ckptx" | awk '/=>/ {print $3}' |
        grep -v -E 'lib(c|m|gcc_s|stdc\+\+|pthread|z)\.so' | xargs -I{} cp -L {} "$here/.dev/lib/"
    du -sh "$here/.dev"
    ;;
run)
    budget=${2:?seconds}
    models=${3:-mobilenet_v2:8x3x224x224,inception_v3:8x3x299x299,resnet50:8x3x224x224}
    export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH="$here/.dev/lib" PYTHONPATH="$here/app/python"
    ckptx="$here/.dev/bin/ckptx"
    out=${OUT:-/tmp/out}; mkdir -p "$out" /tmp/k
    nvidia-smi -L; python3 -c "import torch; print(torch.__version__, torch.cuda.get_device_name())"
    (CUDA_VISIBLE_DEVICES= CKPT_BIN_DIR="$here/.dev/bin" OMP_NUM_THREADS=1 timeout $((budget * 2 / 3)) \
        python3 -m pytest -q -n 6 -p no:cacheprovider "$here/tests/python" > "$out/unit.log" 2>&1
     echo "unit tests rc $?" >> "$out/unit.log") &
    # Recompute priced by measured forward time: on a GPU at batch 8 launches and apply_plan's Python,
    # not FLOPs, make the step (the first two runs measured overheads far above the FLOPs prediction).
    suite="python3 $here/tests/bench/bench_acceptance.py --ckptx $ckptx --device cuda --iterations 3 --time-limit 8 --cost time --keep /tmp/k"
    solvers=checkpoint-all,feng-acg,optimal:memory-model=pytorch,hong-dynamic
    timeout $((budget / 2)) $suite --solvers $solvers --models "$models" > "$out/acceptance.log" 2>&1
    echo "acceptance rc $?" >> "$out/acceptance.log"
    gpu_models=${4:-nanogpt:8x256:int64:8192+8x256:int64:8192,hf_gpt2:8x256:int64:8192,timm_vit:8x3x224x224}
    timeout $((budget / 5)) $suite --solvers $solvers --module "$here/tests/bench/gpu_models.py" \
        --models "$gpu_models" > "$out/gpu_models.log" 2>&1
    echo "gpu models rc $?" >> "$out/gpu_models.log"
    # Mixed precision, as most GPU training runs: bfloat16 autocast (measured on the CPU only so far),
    # and a channels-last CNN with it, the usual recipe for convolutions on tensor cores (P40).
    timeout $((budget / 6)) $suite --solvers $solvers --autocast bfloat16 \
        --models gpt_bench:8x128:int64:1000,resnet50:8x3x224x224,channels_last_resnet:8x3x224x224 > "$out/autocast.log" 2>&1
    echo "autocast rc $?" >> "$out/autocast.log"
    # P35 on CUDA, where torch 2.x's AdamW picks foreach by itself (measured on torch 1.13's CPU so far).
    timeout $((budget / 10)) python3 "$here/tests/bench/bench_optimizer_step.py" --ckptx $ckptx --device cuda \
        --optimizers adamw-default,adamw,momentum > "$out/optimizer.log" 2>&1
    echo "optimizer rc $?" >> "$out/optimizer.log"
    # cuDNN's LSTM with dropout, re-forwarded (ap-sqrtn re-forwards the embedding with it): profile
    # refuses a plan whose step's gradients are not the regular step's.
    l=/tmp/k/lstm; mkdir -p $l
    {
        python3 -m checkpoint_explorer export "$here/tests/python/models.py:lstm_lm" --input 8x128:int64:500 \
            --device cuda -o $l/graph.json &&
        "$ckptx" solve $l/graph.json --solver ap-sqrtn -o $l/plan.json &&
        python3 -m checkpoint_explorer profile "$here/tests/python/models.py:lstm_lm" --graph $l/graph.json \
            --plan $l/plan.json --input 8x128:int64:500 --device cuda --iterations 1 -o $l/trace.json &&
        "$ckptx" simulate $l/graph.json --plan $l/plan.json --model pytorch --trace $l/trace.json | head -2
    } > "$out/lstm.log" 2>&1
    r=/tmp/k/snapshot; mkdir -p $r
    {
        python3 -m checkpoint_explorer export "$here/tests/python/models.py:resnet50" --input 8x3x224x224 \
            --device cuda -o $r/graph.json &&
        "$ckptx" solve $r/graph.json --solver feng-acg -o $r/plan.json &&
        python3 -m checkpoint_explorer profile "$here/tests/python/models.py:resnet50" --graph $r/graph.json \
            --plan $r/plan.json --input 8x3x224x224 --device cuda --iterations 1 --snapshot /tmp/r.pickle \
            -o $r/trace.json &&
        "$ckptx" import-snapshot /tmp/r.pickle --graph $r/graph.json -o $r/imported.json &&
        "$ckptx" simulate $r/graph.json --plan $r/plan.json --model pytorch --trace $r/trace.json | head -2 &&
        "$ckptx" simulate $r/graph.json --plan $r/plan.json --model pytorch --trace $r/imported.json | head -2 &&
        python3 "$here/tests/bench/snapshot_blocks.py" /tmp/r.pickle > "$out/blocks.txt"
    } > "$out/snapshot.log" 2>&1
    wait
    tar -C /tmp -cJf "$out/keep.tar.xz" k
    ;;
*)
    sed -n 2,13p "$0"; exit 2 ;;
esac
