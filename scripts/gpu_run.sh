#!/bin/sh
# gpu_run.sh - the H100 run (docs/performance.md): on a machine with
# NVIDIA's OpenCL, run the library's end-to-end tests there and every
# benchmark of `make bench` that has an NVIDIA side, each with a time limit,
# writing one log per step into $OUT (default ./gpu-out).  The machine has
# no clang: tests run with CLANG=none (validation happens here, in make test).
# Usage (see ../shared/gpu/README.md for the set-up lines before it):
#   sh scripts/gpu_run.sh [STEP...]     (default: every step)
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
PY=${PY:-python3}
export CLANG=none CRISPTEST_PLATFORM=NVIDIA CRISP_PLATFORM=NVIDIA PYTHONPATH=tests:${PYTHONPATH:-}
step() {  # step NAME SECONDS COMMAND...
    name=$1 limit=$2
    shift 2
    start=$(date +%s)
    timeout "$limit" "$@" >"$OUT/$name.txt" 2>&1
    rc=$?
    echo "$name: rc=$rc $(( $(date +%s) - start ))s  $(tail -1 "$OUT/$name.txt")"
}
want() { [ -z "$STEPS" ] || case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
STEPS="$*"
nvidia-smi -L >"$OUT/device.txt" 2>&1
want tests && for t in reduce reduce_warps scan_workgroup scan_grid filter warps warps_reduce library vector_add sort tile matmul orchestration; do
    step "test_$t" 120 "$PY" tests/e2e/$t.py
done
want reduce && BENCH_REDUCE_N=${BENCH_REDUCE_N:-268435456} step bench_reduce 240 "$PY" scripts/bench_reduce.py
# the same with the workgroup tree forced instead of the warp path (docs/performance.md)
want reduce && BENCH_REDUCE_N=${BENCH_REDUCE_N:-268435456} step bench_reduce_tree 240 env BENCH_CL_OPTIONS=-DCRISP_WARP_LOCAL=1 "$PY" scripts/bench_reduce.py
want scan && BENCH_SCAN_N=${BENCH_SCAN_N:-268435456} step bench_scan 240 "$PY" scripts/bench_scan.py
# issue 8: the hand-written CUB-style scan's main variants (scripts/bench_scan_fast.cl, docs/performance.md)
want scan_fast && BENCH_SCAN_N=${BENCH_SCAN_N:-268435456} step bench_scan_fast 120 env BENCH_SCAN_FAST_ONLY=1 \
    BENCH_SCAN_FAST_SWEEP="${BENCH_SCAN_FAST_SWEEP:-IPT=32;IPT=16;LOOKBACK=1;LOAD=2;PERSIST=0;REREAD=1}" "$PY" scripts/bench_scan.py
# BENCH_WARPS_ARGS: more bench_warps.py options, e.g. a sweep:
#   --kernel warp_sum4,warp_sum4_x2,warp_sum4_x4 --threads-per-cu 1024,2048 --n 268435456
want warps && step bench_warps 120 "$PY" scripts/bench_warps.py --platform NVIDIA ${BENCH_WARPS_ARGS:-}
want warps3 && step bench_warps_30 120 "$PY" scripts/bench_warps.py --platform NVIDIA --ocl-version 3.0 ${BENCH_WARPS_ARGS:-}
want hoist && step bench_hoist 180 "$PY" scripts/bench_hoist.py
# issue 8: each kernel's local memory as the device and crisp see it, launches past the check (docs/performance.md)
want local_mem && step local_mem_probe 60 "$PY" scripts/local_mem_probe.py tests/e2e/lib/filter.crisp \
    filter_small_double_tuned filter_big_ulong_tuned filter_small_double filter_even_int --wg 64,128,192,256 --launch
want sort && BENCH_SORT_PROFILE=1 step bench_sort 300 "$PY" scripts/bench_sort.py --platform NVIDIA
# gen-radix-sort-vector's defaults for 8- and 16-byte pairs (tiles that fit 32 KiB) next to the
# shapes they replaced (docs/performance.md "Radix sort of other types")
want sort && BENCH_SORT_ONLY=typed BENCH_SORT_N=1048576 BENCH_SORT_TYPED_N=${BENCH_SORT_TYPED_N:-8388608} \
    BENCH_SORT_TYPED=${BENCH_SORT_TYPED:-"uint32 float32/int32 float32/int32:4:128:24 float64 float64:4:128:24 int64/uint64 int64/uint64:4:128:16 int32/float64 int32/float64:4:128:16"} \
    step bench_sort_typed 240 "$PY" scripts/bench_sort.py --platform NVIDIA
want matmul && step bench_matmul 240 "$PY" scripts/bench_matmul.py --platform NVIDIA
want orch && step bench_orch 300 "$PY" scripts/bench_orch.py --platform NVIDIA --bytes ${BENCH_ORCH_BYTES:-4294967296} --sweep
# the CUDA hoists and the OpenCL hoists over the PTX (docs/hoisting-cuda.md): DIR is built where
# clang and PoCL are (python3 tests/gpu/cuda_hoists.py build DIR) and carried here
CH=${CUDA_HOISTS_DIR:-tests/out/cuda_hoists}
if want cuda_hoists; then
    if [ -f "$CH/manifest.json" ]; then
        step cuda_hoists 600 "$PY" tests/gpu/cuda_hoists.py run "$CH"
        step cuda_hoists_opencl 600 "$PY" tests/gpu/cuda_hoists.py run-opencl "$CH"
    else
        echo "cuda_hoists: skipped, no $CH/manifest.json (build it with clang and PoCL: python3 tests/gpu/cuda_hoists.py build $CH)"
    fi
fi
for extra in ${GPU_EXTRA:-}; do  # further scripts: GPU_EXTRA="scripts/bench_sort.py ..."
    want extra && step "$(basename "$extra" .py)" 240 "$PY" "$extra"
done
exit 0
