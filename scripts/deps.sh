#!/bin/sh
# deps.sh - install what `make test` / `make demo` need (Debian bookworm).
# Idempotent: when every package is present it prints one status line and
# touches nothing (no apt-get update).  Otherwise it says which packages are
# missing and why each is needed; as root it installs them with apt-get, as
# another user it prints the command to run and exits 1.
# CRISP_NO_APT=1 turns installing off: the missing packages are listed and
# the build goes on with what the machine has (your own setup, a virtual
# environment with pip's pyopencl and numpy).
# CRISP_SKIP_DEPS=1 skips the check (non-Debian machines).
#
# Then (intel_ocl below) Intel's CPU OpenCL runtime, the second test device
# (OpenCL C 3.0 with sub-groups, docs/warps.md): pip installs it into
# build/intel-ocl/ once; a failure is reported and leaves the tests on PoCL
# alone.  CRISP_INTEL_OCL=0 skips it.
set -eu
cd "$(dirname "$0")/.."

# One package a line: NAME, then why crisp needs it.
NEEDS='
make                building crisp
gcc                 compiling crisp (C11)
clang               checking the emitted OpenCL C; the ASan and fuzz builds
libclang-rt-dev     sanitizer and libFuzzer runtimes (clang only recommends it)
libcmocka-dev       the unit tests
tcc                 checking the C hoist with a third C compiler
libtcc-dev          running C hoists in-process in the tests
pocl-opencl-icd     OpenCL on the CPU: runs every kernel in the tests and the demo
ocl-icd-opencl-dev  the OpenCL ICD loader the C hoist links with (-lOpenCL)
opencl-c-headers    CL/cl.h for the C hoist
clinfo              listing the OpenCL platforms of a machine
oclgrind            checking kernels memory accesses on a simulated device
python3             the test runners
python3-pyopencl    running kernels from Python (tests, demo, PyOpenCL hoist)
python3-numpy       host references in the tests
pkgconf             the install test (pkg-config --cflags --libs crisp)
clang-14            --ir-target=spv/ptx: the same LLVM as llvm-spirv-14 and libclc-14
llvm-spirv-14       --ir-target=spv: LLVM to SPIR-V
libclc-14           --ir-target=ptx: the OpenCL built-ins for NVPTX
spirv-tools         spirv-val checks the SPIR-V in the tests
binutils            nm, ld -r and objcopy for libcrisp.a (only the API exported)
python3-pip         installing the Intel CPU OpenCL runtime (the second test device); pip install of crisp
python3-venv        ... into a virtual environment
python3-setuptools  ... built by setup.py
'
PACKAGES=$(printf '%s' "$NEEDS" | awk 'NF { print $1 }')
why() { printf '%s' "$NEEDS" | awk -v p="$1" '$1 == p { $1 = ""; sub(/^ +/, ""); print }'; }

# intel_ocl: Intel's CPU runtime from PyPI (intel-opencl-rt with tbb and
# intel-cmplr-lib-rt) under build/intel-ocl/, with
#   vendors/   the system's ICD files (PoCL) and intel-cpu.icd, for
#              OCL_ICD_VENDORS: the system ICD loader sees both platforms;
#   env        OCL_ICD_VENDORS and LD_LIBRARY_PATH (the packages' lib/) for
#              tests/run_e2e.py; the wheel's own libOpenCL.so is removed so
#              the system loader stays the one in use;
#   ok / failed  the outcome (failed holds the reason).
intel_ocl() {
    dir=build/intel-ocl
    [ "${CRISP_INTEL_OCL:-1}" = 0 ] && { echo "deps: Intel CPU OpenCL skipped (CRISP_INTEL_OCL=0)"; return 0; }
    [ -f "$dir/ok" ] && { echo "deps: Intel CPU OpenCL present ($dir)"; return 0; }
    rm -rf "$dir"
    mkdir -p "$dir"
    log="$dir/install.log"
    py=${PY:-/usr/bin/python3}
    if ! "$py" -m pip install --quiet --no-deps --no-warn-script-location --disable-pip-version-check \
            --prefix "$dir/prefix" intel-opencl-rt tbb intel-cmplr-lib-rt >"$log" 2>&1; then
        intel_failed "pip install failed (see $log)"
        return 0
    fi
    lib=$(find "$dir/prefix" -name libintelocl.so -print | head -n 1)
    [ -n "$lib" ] || { intel_failed "the wheels hold no libintelocl.so"; return 0; }
    libdir=$(cd "$(dirname "$lib")" && pwd)
    rm -f "$libdir"/libOpenCL.so*
    mkdir -p "$dir/vendors"
    for f in /etc/OpenCL/vendors/*.icd; do [ -e "$f" ] && cp "$f" "$dir/vendors/"; done
    echo "$libdir/libintelocl.so" >"$dir/vendors/intel-cpu.icd"
    vendors=$(cd "$dir/vendors" && pwd)
    printf 'OCL_ICD_VENDORS=%s\nLD_LIBRARY_PATH=%s\n' "$vendors" "$libdir" >"$dir/env"
    if ! OCL_ICD_VENDORS=$vendors LD_LIBRARY_PATH=$libdir "$py" -c '
import sys, pyopencl as cl
names = [p.name for p in cl.get_platforms()]
sys.exit(0 if any("Intel" in n for n in names) else "no Intel platform among %s" % names)' >>"$log" 2>&1; then
        intel_failed "installed, but OpenCL does not list it (see $log)"
        return 0
    fi
    date >"$dir/ok"
    echo "deps: Intel CPU OpenCL installed ($dir)"
}

intel_failed() {
    echo "$1" >build/intel-ocl/failed
    echo "deps: Intel CPU OpenCL not available: $1; the tests run on PoCL only" >&2
}

if [ "${CRISP_SKIP_DEPS:-0}" = 1 ]; then
    echo "deps: skipped (CRISP_SKIP_DEPS=1)"
    exit 0
fi
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps: no dpkg-query: not a Debian system; install the equivalents of:" >&2
    # shellcheck disable=SC2086
    echo "  "$PACKAGES >&2
    echo "  (or set CRISP_SKIP_DEPS=1)" >&2
    exit 1
fi

missing=""
count=0
for p in $PACKAGES; do
    count=$((count + 1))
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = installed ] || missing="$missing $p"
done

if [ -z "$missing" ]; then
    echo "deps: all $count packages present"
    intel_ocl
    exit 0
fi

echo "deps: missing packages, and what they are for:"
for p in $missing; do
    printf '  %-20s %s\n' "$p" "$(why "$p")"
done
if [ "${CRISP_NO_APT:-0}" = 1 ]; then
    echo "deps: not installing them (CRISP_NO_APT=1); what needs them may fail"
    intel_ocl
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "deps: not root; run:" >&2
    echo "  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends$missing" >&2
    exit 1
fi

echo "deps: installing them with apt-get (CRISP_NO_APT=1 turns this off)"
export DEBIAN_FRONTEND=noninteractive
apt_opts="-y -q --no-install-recommends -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"
# One retry: mirrors occasionally fail transiently on fresh machines.
apt-get update -q || { sleep 5; apt-get update -q; }
# shellcheck disable=SC2086
apt-get install $apt_opts $missing </dev/null ||
    { sleep 5; apt-get update -q; apt-get install $apt_opts $missing </dev/null; }

still=""
for p in $missing; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = installed ] || still="$still $p"
done
if [ -n "$still" ]; then
    echo "deps: still missing after apt-get:$still" >&2
    exit 1
fi
echo "deps: installed$missing"
intel_ocl
