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
set -eu

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
'
PACKAGES=$(printf '%s' "$NEEDS" | awk 'NF { print $1 }')
why() { printf '%s' "$NEEDS" | awk -v p="$1" '$1 == p { $1 = ""; sub(/^ +/, ""); print }'; }

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
    exit 0
fi

echo "deps: missing packages, and what they are for:"
for p in $missing; do
    printf '  %-20s %s\n' "$p" "$(why "$p")"
done
if [ "${CRISP_NO_APT:-0}" = 1 ]; then
    echo "deps: not installing them (CRISP_NO_APT=1); what needs them may fail"
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
