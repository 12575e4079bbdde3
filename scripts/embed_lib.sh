#!/bin/sh
# embed_lib.sh FILE... - print a C file defining `crisp_library[]`, the
# library's Crisp sources (lib/*.crisp) compiled into the binary, in the
# order given (the Makefile puts lib/prelude.crisp first).  Each entry names
# its file so diagnostics and --dump=expand point into lib/.
printf '/* generated from the lib/ folder by scripts/embed_lib.sh - do not edit */\n'
printf 'typedef struct LibFile {\n    const char *name;\n    const char *text;\n} LibFile;\n'
printf 'extern const LibFile crisp_library[];\n'
printf 'const LibFile crisp_library[] = {\n'
for f in "$@"; do
    printf '    {"%s",\n     ""\n' "$f"
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/     "/' -e 's/$/\\n"/' "$f"
    printf '    },\n'
done
printf '    {0, 0},\n};\n'
