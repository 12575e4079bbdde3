#!/bin/sh
# run_unit.sh BINARY... - run cmocka unit-test binaries and count their tests.
# A test counts as passed on `[       OK ]`, failed on `[  FAILED  ]` or when
# its binary dies inside it; skipped tests are not counted.  A binary that is
# missing (did not build) or exits non-zero without a failed test counts as
# one failure.  Full output is shown for failing binaries only (VERBOSE=1: all).
# Ends with `unit: N passed, N failed` (UNIT_LABEL overrides `unit`).
label=${UNIT_LABEL:-unit}
timeout_s=${UNIT_TIMEOUT:-120}
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT INT TERM
for bin in "$@"; do
    name=$(basename "$bin")
    if [ ! -x "$bin" ]; then
        echo "FAIL $name: $bin was not built"
        failed=$((failed + 1))
        continue
    fi
    CMOCKA_MESSAGE_OUTPUT=stdout timeout "$timeout_s" "$bin" >"$log" 2>&1 </dev/null
    status=$?
    # "P F": passed / failed tests of this binary
    counts=$(awk '
        /^\[==========\] .* run\./ { done = 1 }
        done { next }
        /^\[ RUN      \] / { if (open) f++; open = 1; next }
        /^\[       OK \] / { if (open) p++; open = 0; next }
        /^\[  FAILED  \] / { if (open) f++; open = 0; next }
        /^\[  SKIPPED \] / { open = 0; next }
        END { if (open) f++; print p + 0, f + 0 }' "$log")
    p=${counts% *}
    f=${counts#* }
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
        why=" (exit status $status$([ "$status" -eq 124 ] && echo ": timed out"))"
    else
        why=""
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$f" -ne 0 ]; then
        echo "FAIL $name: $p passed, $f failed$why"
        sed 's/^/    /' "$log"
    else
        echo "ok $name ($p tests)"
        [ "${VERBOSE:-0}" = 1 ] && sed 's/^/    /' "$log"
    fi
done
echo "$label: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
