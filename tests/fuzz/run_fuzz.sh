#!/bin/sh
# run_fuzz.sh [--quick] [NAME...] - build and run the libFuzzer targets
# tests/fuzz/fuzz_NAME.c (--quick, what `make test` runs: not the targets
# whose source says FUZZ_LONG_ONLY, which `make fuzz` runs).
# The library sources ($(LIB_SRC) from the Makefile, plus the generated
# prelude) are compiled with -fsanitize=fuzzer-no-link,address,undefined into
# build-fuzz/obj, archived as build-fuzz/libcrisp-fuzz.a and linked into each
# build-fuzz/fuzz_NAME (which pulls in the modules it uses).  All targets then
# run side by side for FUZZ_SECONDS (default 30) each, starting from
#   build-fuzz/corpus/NAME   (kept between runs; new inputs go here)
#   build-fuzz/seeds         (examples/, tests/golden/, tests/neg/ programs)
#   tests/fuzz/corpus_NAME/  (checked-in seeds, if present; never written)
# with -timeout=$FUZZ_TIMEOUT (seconds an input may take, default 5; a
# long run on a loaded machine may raise it, so CPU starvation is not
# reported as a hang) -rss_limit_mb=2048 (and -dict=tests/fuzz/NAME.dict if
# present).  A target that does not build or finds a crash fails; crashing
# inputs are saved as build-fuzz/artifacts/NAME-crash-*.
# Ends with `fuzz: N passed, N failed`.
cd "$(dirname "$0")/../.." || exit 2
CLANG=${CLANG:-clang}
MAKE=${MAKE:-make}
secs=${FUZZ_SECONDS:-30}
tmo=${FUZZ_TIMEOUT:-5}
jobs=$(nproc 2>/dev/null || echo 2)
B=build-fuzz
CFLAGS_FUZZ="-std=c11 -D_POSIX_C_SOURCE=200809L -I. -g -O1 -fno-omit-frame-pointer
  -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
passed=0
failed=0

quick=0
if [ "${1:-}" = --quick ]; then
    quick=1
    shift
fi
if [ $# -gt 0 ]; then
    targets=""
    for n in "$@"; do targets="$targets tests/fuzz/fuzz_${n#fuzz_}.c"; done
else
    targets=$(ls tests/fuzz/fuzz_*.c 2>/dev/null)
    [ $quick = 1 ] && targets=$(grep -L FUZZ_LONG_ONLY $targets)
fi
if [ -z "$targets" ]; then
    echo "fuzz: no tests/fuzz/fuzz_*.c targets"
    echo "fuzz: 0 passed, 0 failed"
    exit 0
fi

# 1. the library, instrumented (sources listed by the Makefile itself)
mkdir -p $B/obj $B/artifacts $B/seeds
lib_src=$(printf 'print-lib-src:\n\t@echo $(LIB_SRC)\n' |
          $MAKE --no-print-directory -s -f Makefile -f - print-lib-src)
lib_ok=1
gen_src=$(printf 'print-gen-src:\n\t@echo $(GEN_SRC)\n' |
          $MAKE --no-print-directory -s B=$B -f Makefile -f - print-gen-src)
if ! $MAKE --no-print-directory -s B=$B $gen_src; then
    echo "fuzz: cannot generate $gen_src"
    lib_ok=0
fi
objs=""
for s in $lib_src $gen_src; do
    objs="$objs $B/obj/$(echo "$s" | tr / _ | sed 's/\.c$/.o/')"
done
# Always rebuilt (headers are not tracked here); xargs runs $jobs at a time.
# shellcheck disable=SC2086
if [ $lib_ok = 1 ] && ! printf '%s\n' $lib_src $gen_src | xargs -P "$jobs" -I{} sh -c '
        o="$0/obj/$(echo "$1" | tr / _ | sed "s/\.c\$/.o/")"
        $2 $3 -Wno-missing-prototypes -c -o "$o" "$1"' $B {} "$CLANG" "$CFLAGS_FUZZ" \
        >$B/lib.build.log 2>&1; then
    echo "fuzz: the library does not compile with $CLANG -fsanitize=fuzzer-no-link:"
    grep -E 'error|Error' $B/lib.build.log | head -30 | sed 's/^/    /'
    lib_ok=0
fi
# An archive, as for the unit tests: a target pulls in what it uses.
# shellcheck disable=SC2086
[ $lib_ok = 1 ] && { rm -f $B/libcrisp-fuzz.a; ar rcs $B/libcrisp-fuzz.a $objs || lib_ok=0; }

# 2. the targets
built=""
for t in $targets; do
    name=$(basename "$t" .c)
    name=${name#fuzz_}
    if [ ! -f "$t" ]; then
        echo "FAIL fuzz_$name: no $t"
        failed=$((failed + 1))
        continue
    fi
    # shellcheck disable=SC2086
    if [ $lib_ok = 1 ] && $CLANG $CFLAGS_FUZZ -fsanitize=fuzzer -o $B/fuzz_$name "$t" $B/libcrisp-fuzz.a -lm \
            >$B/fuzz_$name.build.log 2>&1; then
        built="$built $name"
    else
        echo "FAIL fuzz_$name: did not build"
        [ -s $B/fuzz_$name.build.log ] && sed 's/^/    /' $B/fuzz_$name.build.log | head -40
        failed=$((failed + 1))
    fi
done

# 3. seeds: every Crisp program in the repository (but the few large ones,
#    which would only slow the fuzzers down)
rm -f $B/seeds/*
for f in $(find examples tests/golden tests/neg tests/e2e docs/tutorial -name '*.crisp' -size -65k 2>/dev/null); do
    cp "$f" "$B/seeds/$(echo "$f" | tr / _)"
done

# 4. run them side by side
pids=""
for name in $built; do
    mkdir -p $B/corpus/$name
    dirs="$B/corpus/$name $B/seeds"
    [ -d tests/fuzz/corpus_$name ] && dirs="$dirs tests/fuzz/corpus_$name"
    dict=""
    [ -f tests/fuzz/$name.dict ] && dict="-dict=tests/fuzz/$name.dict"
    echo "fuzz_$name: running for ${secs}s"
    # shellcheck disable=SC2086
    $B/fuzz_$name -max_total_time="$secs" -timeout="$tmo" -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix=$B/artifacts/$name- $dict $dirs \
        </dev/null >$B/fuzz_$name.log 2>&1 &
    pids="$pids $!:$name"
done
for pn in $pids; do
    pid=${pn%%:*}
    name=${pn#*:}
    if wait "$pid"; then
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' $B/fuzz_$name.log | grep -o '[0-9]*$')
        echo "ok fuzz_$name (${runs:-?} runs in ${secs}s)"
        passed=$((passed + 1))
    else
        echo "FAIL fuzz_$name: see $B/fuzz_$name.log; reproduce with $B/fuzz_$name FILE"
        grep -E 'Test unit written|^SUMMARY' $B/fuzz_$name.log | sed 's/^/    /'
        { sed -n '/ERROR: \|runtime error:\|ALARM\|out-of-memory\|deadly signal/,$p' \
              $B/fuzz_$name.log | grep . || tail -n 20 $B/fuzz_$name.log; } |
            head -n 40 | sed 's/^/    | /'
        failed=$((failed + 1))
    fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
