#!/bin/sh
# shim_parts.sh - the runtime shims' shared parts, written once.
#
# runtime-shim/crisp_runtime.h and crisp_runtime_cuda.h (and the two .py
# shims) share code: element types, demo data, launch sizes, debug
# decoding, argument checks.  Each shared part lives once, in
# runtime-shim/parts/NAME.h (or .py); in the shims it sits between the
# lines "@shim-part NAME: ..." and "@shim-part end NAME", and this script
# rewrites those regions from the parts, so that each shim stays one
# standalone file (crisp writes it beside a hoist, make install copies it).
# The Makefile runs it before embedding the shims.
#
#   sh scripts/shim_parts.sh FILE...          rewrite FILEs' parts (only when they changed)
#   sh scripts/shim_parts.sh --check FILE...  exit 1, naming them, when a FILE's parts are stale
set -eu
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
dir=$(dirname "$0")/../runtime-shim/parts
status=0
for f in "$@"; do
    ext=${f##*.}
    tmp="$f.parts.tmp"
    awk -v dir="$dir" -v ext="$ext" -v file="$f" '
        index($0, "@shim-part end ") { if (!open) { print file ": @shim-part end without a start" > "/dev/stderr"; exit 2 }
                                       open = 0; print; next }
        open { next }
        index($0, "@shim-part ") {
            name = $0; sub(/.*@shim-part /, "", name); sub(/:.*/, "", name)
            path = dir "/" name "." ext
            print
            n = 0
            while ((getline line < path) > 0) { print line; n++ }
            close(path)
            if (!n) { print file ": no part " path > "/dev/stderr"; exit 2 }
            open = 1; next
        }
        { print }
        END { if (open) { print file ": @shim-part without its end" > "/dev/stderr"; exit 2 } }
    ' "$f" > "$tmp" || { rm -f "$tmp"; exit 2; }
    if cmp -s "$f" "$tmp"; then
        rm -f "$tmp"
    elif [ $check = 1 ]; then
        echo "$f: its shared parts differ from runtime-shim/parts/ (edit the parts, then run sh scripts/shim_parts.sh $f)" >&2
        rm -f "$tmp"
        status=1
    else
        cat "$tmp" > "$f"
        rm -f "$tmp"
    fi
done
exit $status
