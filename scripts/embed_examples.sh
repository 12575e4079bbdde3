#!/bin/sh
# embed_examples.sh FILE... - print a C file defining `crisp_diag_examples[]`,
# the example `crisp --explain CODE` shows for each diagnostic code.
#
# The examples are the negative tests (tests/neg/*.crisp): each one is a
# short program that the neg suite proves reports its code at a given line
# and column, so an example can never go stale.  For every code expected by
# a test's `; expect: ... error[CODE]` (or `; expect-stderr:`) line, the shortest test (fewest code
# lines, then fewest bytes, then the first by name) is kept, without its
# `; expect:`, `; expect-stderr:` and `; exit:` lines.  A test whose
# `; args:` need more than -DNAME=VALUE, --debug-output or --max-memory=SIZE
# (which --explain passes on, as it does `; fill:`) is used only when the
# code has no other.  Plain POSIX sh and awk, like the other embed scripts;
# bytes outside printable ASCII are written as octal escapes.
printf '/* generated from tests/neg/ by scripts/embed_examples.sh - do not edit */\n'
printf '#include "../../core/diag.h"\n\n'
printf 'const DiagExample crisp_diag_examples[] = {\n'
LC_ALL=C awk '
BEGIN {
    for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i
    ncodes = 0
}
function esc(s,    out, i, c, o) {
    out = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        o = ord[c]
        if (c == "\\") out = out "\\\\"
        else if (c == "\"") out = out "\\\""
        else if (c == "?") out = out "\\?"
        else if (c == "\t") out = out "\\t"
        else if (o >= 32 && o < 127) out = out c
        else out = out sprintf("\\%03o", o)
    }
    return out
}
function finish(    k, code, size) {
    if (file == "") return
    size = codelines
    if (badargs) size += 100000
    for (k = 1; k <= nfound; k++) {
        code = found[k]
        if (!(code in best)) { order[++ncodes] = code }
        if (!(code in best) || size < bestsize[code] ||
            (size == bestsize[code] && length(text) < length(best[code]))) {
            best[code] = text
            bestsize[code] = size
            bestfile[code] = file
        }
    }
}
FNR == 1 {
    finish()
    file = FILENAME; text = ""; codelines = 0; inhead = 1; nfound = 0; badargs = 0
    delete seen
}
{
    line = $0
    sub(/\r$/, "", line)
    stripped = line
    sub(/^[ \t]+/, "", stripped)
    if (inhead && stripped != "" && substr(stripped, 1, 1) != ";") inhead = 0
    if (inhead && substr(stripped, 1, 1) == ";") {
        if (match(stripped, /^;+[ \t]*expect(-stderr)?:.*(error|warning)\[[EW][0-9][0-9][0-9][0-9]\]/)) {
            s = substr(stripped, 1, RLENGTH)
            code = substr(s, length(s) - 5, 5)
            if (!(code in seen)) { seen[code] = 1; found[++nfound] = code }
            next
        }
        if (stripped ~ /^;+[ \t]*(expect|expect-stderr|exit):/) next
        if (stripped ~ /^;+[ \t]*args:/) {
            a = stripped
            sub(/^;+[ \t]*args:[ \t]*/, "", a)
            n = split(a, w, /[ \t]+/)
            for (k = 1; k <= n; k++)
                if (w[k] != "" && w[k] !~ /^-D[A-Za-z_+*-][^=]*=./ && w[k] != "--debug-output" && w[k] !~ /^--max-memory=/) badargs = 1
        }
    }
    if (!inhead && stripped != "" && substr(stripped, 1, 1) != ";") codelines++
    text = text line "\n"
}
END {
    finish()
    for (k = 1; k <= ncodes; k++) {
        code = order[k]
        t = best[code]
        while (t ~ /\n\n$/) t = substr(t, 1, length(t) - 1)
        printf "    {\"%s\", \"%s\",\n", code, esc(bestfile[code])
        n = split(t, lines, "\n")
        for (i = 1; i < n; i++) printf "     \"%s\\n\"\n", esc(lines[i])
        if (n <= 1) printf "     \"\"\n"
        printf "    },\n"
    }
}' "$@"
printf '    {0, 0, 0},\n};\n'
