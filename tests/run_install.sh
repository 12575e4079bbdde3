#!/bin/sh
# run_install.sh - `make install` works for a C user, and `make uninstall`
# removes it: install into a temporary DESTDIR, then
#   1. every file is there (bin/crisp, lib/libcrisp.a, lib/libcrisp.so,
#      include/crisp/crisp.h, include/crisp/crisp_runtime.h,
#      lib/pkgconfig/crisp.pc, share/man/man1/crisp.1, the licence);
#   2. the installed crisp runs;
#   3. a small C program that includes <crisp/crisp.h> and uses the
#      in-memory API (docs/api.md) builds with `pkg-config --cflags --libs crisp` against
#      the installed tree alone (-I and -L from the .pc file, no repository
#      paths) and compiles examples/vector_add.crisp;
#   4. the man page formats without warnings (when man is installed);
#   5. make uninstall leaves no file behind.
# Ends with `install: N passed, N failed`.
cd "$(dirname "$0")/.." || exit 2
MAKE=${MAKE:-make}
CC=${CC:-cc}
passed=0
failed=0
ok() { echo "ok $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1${2:+: $2}"; failed=$((failed + 1)); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
dest=$tmp/dest
prefix=/opt/crisp-test
root=$dest$prefix

if $MAKE --no-print-directory -s install DESTDIR="$dest" PREFIX="$prefix" >"$tmp/log" 2>&1; then
    ok "make install"
else
    fail "make install" "$(tail -5 "$tmp/log")"
fi

missing=""
for f in bin/crisp lib/libcrisp.a lib/libcrisp.so include/crisp/crisp.h include/crisp/crisp_runtime.h \
         lib/pkgconfig/crisp.pc share/man/man1/crisp.1 share/doc/crisp/LICENSE; do
    [ -f "$root/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then ok "installed files"; else fail "installed files" "missing:$missing"; fi

if "$root/bin/crisp" --version | grep -q '^crisp '; then
    ok "installed crisp runs"
else
    fail "installed crisp runs"
fi

# 3. a C user of the library, built against the installed tree only
cat >"$tmp/use_crisp.c" <<'EOF'
/* A C user of libcrisp: compile a Crisp file in memory, write its OpenCL C
 * and metadata to DIR, report the status. */
#include <crisp/crisp.h>
#include <stdio.h>

static int save(const char *dir, const char *name, const char *text) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    crisp_context *ctx = crisp_new_context("oclc");
    if (!ctx || crisp_add_input_file(ctx, argv[1]) != 0) return 2;
    size_t size = 0;
    const void *cl = NULL;
    int status = crisp_compile(ctx, &size) == CRISP_ERROR_COMPILE_FAILURE || !crisp_get_binary(ctx, &cl, &size) ||
                 !save(argv[2], "vector_add.cl", cl) || !save(argv[2], "vector_add.metacrisp", crisp_get_metadata(ctx));
    fputs(crisp_get_messages(ctx), stderr);
    printf("crisp %s: status %d\n", crisp_version(), status);
    crisp_destroy_context(ctx);
    return status;
}
EOF
pcflags=$(PKG_CONFIG_PATH="$root/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" pkg-config --cflags --libs crisp 2>"$tmp/pc.err")
case $pcflags in
*"$root/include"*"-lcrisp"*) ok "pkg-config --cflags --libs crisp" ;;
*) fail "pkg-config --cflags --libs crisp" "got '$pcflags' $(cat "$tmp/pc.err")" ;;
esac
mkdir -p "$tmp/out"
# shellcheck disable=SC2086
if $CC -std=c99 -Wall -Wextra -Werror -o "$tmp/use_crisp" "$tmp/use_crisp.c" $pcflags >"$tmp/cc.log" 2>&1 &&
        LD_LIBRARY_PATH="$root/lib" "$tmp/use_crisp" examples/vector_add.crisp "$tmp/out" >"$tmp/run.log" 2>&1 &&
        grep -q '__kernel void vector_add(' "$tmp/out/vector_add.cl" &&
        [ -f "$tmp/out/vector_add.metacrisp" ]; then
    ok "a C program built against the installed tree compiles a kernel"
else
    fail "a C program built against the installed tree compiles a kernel" \
         "$(cat "$tmp/cc.log" "$tmp/run.log" 2>/dev/null | tail -10)"
fi

if command -v man >/dev/null 2>&1; then
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l -Tutf8 "$root/share/man/man1/crisp.1" 2>&1 >/dev/null)
    if [ -z "$warnings" ]; then ok "man page formats cleanly"; else fail "man page formats cleanly" "$warnings"; fi
fi

if $MAKE --no-print-directory -s uninstall DESTDIR="$dest" PREFIX="$prefix" >"$tmp/log" 2>&1 &&
        [ -z "$(find "$dest" -type f)" ]; then
    ok "make uninstall"
else
    fail "make uninstall" "left: $(find "$dest" -type f | tr '\n' ' ') $(tail -3 "$tmp/log")"
fi

echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
