#!/bin/sh
# deps.sh - install what `make test` / `make demo` need (Debian bookworm).
# Idempotent: when every package is present it prints one status line and
# touches nothing (no apt-get update).  As root it installs the missing
# packages with apt-get; otherwise it prints the command to run and exits 1.
# CRISP_SKIP_DEPS=1 skips the check (non-Debian machines, your own setup).
set -eu

PACKAGES="make gcc clang libclang-rt-dev libcmocka-dev tcc libtcc-dev
pocl-opencl-icd ocl-icd-opencl-dev opencl-c-headers clinfo oclgrind
python3 python3-pyopencl python3-numpy"
# libclang-rt-dev holds the sanitizer and libFuzzer runtimes; clang only
# recommends it, so a --no-install-recommends image lacks it.

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

echo "deps: missing:$missing"
if [ "$(id -u)" != 0 ]; then
    echo "deps: not root; run:" >&2
    echo "  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends$missing" >&2
    exit 1
fi

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
