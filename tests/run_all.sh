#!/bin/sh
# run_all.sh - every test suite, for `make test` (which first builds ./crisp
# and the unit-test binaries).  Order: layers codes unit golden neg e2e docs
# install asan fuzz
# (layers: the include graph between folders points one way).
#   run_all.sh --asan   the suites that run the compiler itself (unit,
#                       golden, neg) against the build-asan/ binaries; this is
#                       what `make asan` runs after building them.
# Each suite ends with `NAME: N passed, N failed`; a suite that stops without
# such a line counts as one failure.  The last line is the overall
# `N passed, N failed`; the exit status is 1 when anything failed.
# codes: the diagnostics registry (core/diag_codes.h) against the sources,
# tests/neg/ and `crisp --explain` (tests/check_diag_codes.py); install:
# make install into a temporary DESTDIR, a C program built against it, and
# make uninstall (tests/run_install.sh); docs: the README's and the
# tutorial's code samples (tests/run_docs.py).
# Environment: SUITES (subset to run, e.g. SUITES="golden neg"), FUZZ_SECONDS
# (default 30), PY (default: $VIRTUAL_ENV/bin/python3 in a virtual
# environment, else /usr/bin/python3), MAKE.
cd "$(dirname "$0")/.." || exit 2
if [ -z "${PY:-}" ]; then
    if [ -n "${VIRTUAL_ENV:-}" ]; then PY=$VIRTUAL_ENV/bin/python3; else PY=/usr/bin/python3; fi
fi
MAKE=${MAKE:-make}
export PY
# Sanitizer reports must not look like crisp's own exit statuses (1, 2).
export ASAN_OPTIONS="${ASAN_OPTIONS:-exitcode=86:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=86}"

if [ "${1:-}" = --asan ]; then
    mode=asan
    B=build-asan
    crisp_bin=build-asan/crisp
    default_suites="unit golden neg"
else
    mode=all
    B=build
    crisp_bin=crisp
    default_suites="layers codes unit golden neg e2e docs install asan fuzz"
fi
suites=${SUITES:-$default_suites}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
: >"$tmp/summary"
total_p=0
total_f=0
start=$(date +%s)

# step LABEL COMMAND... : run, show, and add up its last summary line.
step() {
    label=$1
    shift
    t0=$(date +%s)
    echo "=== $label: $*"
    { "$@"; echo $? >"$tmp/rc"; } 2>&1 | tee "$tmp/log"
    rc=$(cat "$tmp/rc")
    line=$(grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed$' "$tmp/log" | tail -n 1)
    if [ -z "$line" ]; then
        p=0 f=1
        line="$label: 0 passed, 1 failed"
        note=" (stopped without a summary, exit status $rc)"
    else
        p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\1/')
        f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\2/')
        note=""
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
            f=1
            note=" (but exit status $rc)"
        fi
    fi
    total_p=$((total_p + p))
    total_f=$((total_f + f))
    echo "$line$note  [$(($(date +%s) - t0))s]" >>"$tmp/summary"
}

unit_bins=""
for t in tests/unit/test_*.c; do
    [ -e "$t" ] && unit_bins="$unit_bins $B/unit/$(basename "$t" .c)"
done

for s in $suites; do
    case $s in
    layers) step layers "$PY" scripts/check_layers.py ;;
    codes)  step codes env CRISP="$crisp_bin" "$PY" tests/check_diag_codes.py ;;
    unit)   step unit env UNIT_LABEL="unit" sh tests/run_unit.sh $unit_bins ;;
    golden) step golden env CRISP="$crisp_bin" "$PY" tests/run_golden.py ;;
    neg)    step neg env CRISP="$crisp_bin" "$PY" tests/run_neg.py ;;
    e2e)    step e2e "$PY" tests/run_e2e.py ;;
    docs)   step docs "$PY" tests/run_docs.py ;;
    install) step install env MAKE="$MAKE" sh tests/run_install.sh ;;
    asan)   step asan "$MAKE" --no-print-directory asan ;;
    fuzz)   step fuzz sh tests/fuzz/run_fuzz.sh --quick ;;
    *)      echo "run_all: unknown suite '$s'"; total_f=$((total_f + 1)) ;;
    esac
done

echo
echo "=== summary ($mode, $(($(date +%s) - start))s)"
cat "$tmp/summary"
if [ $mode = asan ]; then
    echo "asan: $total_p passed, $total_f failed"
else
    echo "$total_p passed, $total_f failed"
fi
[ "$total_f" -eq 0 ]
