#!/bin/sh
# check_ptx.sh - validate the NVIDIA lowering of Crisp's warp forms
# (docs/warps.md) without a GPU: compile FILE.cl as NVIDIA's OpenCL would
# see it (CRISP_WARP_PTX: inline PTX, shfl.sync, %laneid) with clang for
# nvptx64--nvidiacl and libclc, then assemble the PTX with ptxas for the
# H100 (sm_90).  Prints what it ran; exit 0 when ptxas accepts the code,
# 1 when a step fails, 77 when a tool is missing (the caller skips).
#   sh scripts/check_ptx.sh FILE.cl [-cl-std=CL1.2]
# Environment: CLANG (default clang), PTXAS (default ptxas on PATH or
# /usr/local/cuda/bin/ptxas), LIBCLC (the nvptx64--nvidiacl.bc), PTX_ARCH;
# PTX_DEFINES (default -DCRISP_WARP_PTX=1; -Dcl_nv_pragma_unroll=1 makes the
# .cl take every NVIDIA path, the float atomics' too) and PTX_EXPECT (a grep
# pattern the PTX must contain, default shfl.sync or %laneid), PTX_TRIPLE
# (default nvptx64--nvidiacl, crisp's BASE.ptx; nvptx64-nvidia-nvcl is the
# triple of BASE_nvcl.ptx, the PTX the OpenCL hoists load on NVIDIA's
# OpenCL: docs/targets.md).
set -eu
cl=${1:?usage: check_ptx.sh FILE.cl [-cl-std=CLx.y]}
std=${2:--cl-std=CL1.2}
CLANG=${CLANG:-clang}
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
LIBCLC=${LIBCLC:-/usr/lib/clc/nvptx64--nvidiacl.bc}
ARCH=${PTX_ARCH:-sm_90}
TRIPLE=${PTX_TRIPLE:-nvptx64--nvidiacl}
for t in "$CLANG" "$PTXAS" "$LIBCLC"; do
    if ! [ -e "$t" ] && ! command -v "$t" >/dev/null 2>&1; then
        echo "check_ptx: $t not found"
        exit 77
    fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# libclc 14 has no get_global_offset for nvptx (NVIDIA's driver does):
# a stub returning 0 stands in for it.
cat >"$tmp/stub.cl" <<'STUB'
__attribute__((overloadable)) size_t get_global_offset(uint dim) { return 0; }
STUB
"$CLANG" -x cl -cl-std=CL1.2 -target nvptx64--nvidiacl -Xclang -finclude-default-header \
    -c -emit-llvm -o "$tmp/stub.bc" "$tmp/stub.cl" 2>/dev/null ||
    "$CLANG" -x cl -cl-std=CL1.2 -target nvptx64--nvidiacl -c -emit-llvm -o "$tmp/stub.bc" "$tmp/stub.cl"
defines=${PTX_DEFINES:--DCRISP_WARP_PTX=1}
expect=${PTX_EXPECT:-'shfl.sync\|%laneid'}
echo "check_ptx: $CLANG -target $TRIPLE $defines $std $cl"
# shellcheck disable=SC2086
"$CLANG" -x cl "$std" -target "$TRIPLE" -Wno-linker-warnings -march=sm_80 $defines -Xclang -finclude-default-header \
    -Xclang -mlink-bitcode-file -Xclang "$LIBCLC" -Xclang -mlink-bitcode-file -Xclang "$tmp/stub.bc" \
    -O2 -S -o "$tmp/out.ptx" "$cl"
grep -q "$expect" "$tmp/out.ptx" || { echo "check_ptx: no $expect in the PTX"; exit 1; }
echo "check_ptx: $PTXAS -arch=$ARCH ($(grep -c 'shfl.sync' "$tmp/out.ptx") shfl.sync)"
"$PTXAS" -arch="$ARCH" -o "$tmp/out.cubin" "$tmp/out.ptx"
echo "check_ptx: ok"
