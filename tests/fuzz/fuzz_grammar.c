/* fuzz_grammar.c - libFuzzer target for the whole front end with a
 * grammar-aware mutator (LLVMFuzzerCustomMutator).
 *
 * Byte-level mutations rarely keep a program well-formed enough to reach
 * the checker's depths and the emitters.  This mutator sees the input as
 * Crisp forms (lists, atoms; strings and comments skipped) and changes it
 * the way a programmer's mistakes and a tester's ideas would:
 *   swap two subforms, delete one, duplicate one, wrap one in a form
 *   (let, progn, dotimes, when, a loop), put a form name in place of a
 *   symbol (or another symbol of the program), substitute a number
 *   (boundary values: 0, -1, 2^31, 2^63-1, 1e39, ...), a type name (also
 *   the type of a name:type annotation) or a keyword;
 * with libFuzzer's byte mutations now and then, and a crossover that puts
 * a subform of one input in place of a subform of another.  Seeds are the
 * repository's programs (examples/, tests/, docs/tutorial/: run_fuzz.sh).
 * The compilation itself is fuzz_common.h's, with --debug-output on for
 * half the inputs.
 *
 * `make test` runs this target too (30 s): an hour of it beside
 * fuzz_frontend (`FUZZ_SECONDS=3600 sh tests/fuzz/run_fuzz.sh grammar
 * frontend`, 2026-11-28, 158,899 and 188,007 runs on a loaded 2-core
 * machine) found nothing, after the crashes of tests/fuzz/FINDINGS.md
 * were fixed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_compile(data, size, 1);
    return 0;
}

/* ---- the forms of an input ---- */

enum { SPAN_LIST, SPAN_SYMBOL, SPAN_NUMBER, SPAN_KEYWORD };

typedef struct Span {
    size_t start, end;   /* [start, end) in the input */
    int kind;
    size_t colon;        /* symbols: offset of a name:type colon, or 0 */
} Span;

#define MAX_SPANS 4096

typedef struct Forms {
    Span v[MAX_SPANS];
    int n;
} Forms;

static int delimiter(uint8_t c) {
    return c == '(' || c == ')' || c == '"' || c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
           c == '\'' || c == '`' || c == ',';
}

static void add_span(Forms *f, size_t start, size_t end, int kind, size_t colon) {
    if (f->n < MAX_SPANS && end > start) f->v[f->n++] = (Span){start, end, kind, colon};
}

/* Every list (with its #( or ##( prefix) and atom of D, by a forgiving
 * scan: unbalanced input just yields fewer lists.  A symbol's name:type
 * colon is noted, so an annotation's type can be replaced. */
static void scan(const uint8_t *d, size_t n, Forms *f) {
    size_t stack[256];
    int depth = 0;
    f->n = 0;
    for (size_t i = 0; i < n;) {
        uint8_t c = d[i];
        if (c == ';') {
            while (i < n && d[i] != '\n') i++;
        } else if (c == '#' && i + 1 < n && d[i + 1] == '|') {
            i += 2;
            while (i + 1 < n && !(d[i] == '|' && d[i + 1] == '#')) i++;
            i += 2;
        } else if (c == '"') {
            for (i++; i < n && d[i] != '"'; i++)
                if (d[i] == '\\') i++;
            i++;
        } else if (c == '(' || (c == '#' && i + 1 < n && d[i + 1] == '(') ||
                   (c == '#' && i + 2 < n && d[i + 1] == '#' && d[i + 2] == '(')) {
            if (depth < 256) stack[depth] = i;
            depth++;
            i += c == '(' ? 1 : d[i + 1] == '(' ? 2 : 3;
        } else if (c == ')') {
            if (depth > 0 && --depth < 256) add_span(f, stack[depth], i + 1, SPAN_LIST, 0);
            i++;
        } else if (delimiter(c)) {
            i++;
        } else {
            size_t s = i, colon = 0;
            while (i < n && !delimiter(d[i])) {
                if (d[i] == ':' && i > s && !colon) colon = i;
                i++;
            }
            int kind = d[s] == ':' ? SPAN_KEYWORD
                       : (d[s] >= '0' && d[s] <= '9') || ((d[s] == '-' || d[s] == '.') && s + 1 < i && d[s + 1] >= '0' && d[s + 1] <= '9')
                           ? SPAN_NUMBER
                           : SPAN_SYMBOL;
            add_span(f, s, i, kind, colon);
        }
    }
}

/* ---- replacements ---- */

static const char *const numbers[] = {
    "0", "1", "-1", "2", "3", "4", "7", "8", "15", "16", "31", "32", "33", "63", "64", "127", "128", "255", "256",
    "1024", "65535", "65536", "1048576", "16777216", "16777217", "2147483647", "-2147483648", "2147483648",
    "4294967295", "4294967296", "9223372036854775807", "-9223372036854775808", "18446744073709551615",
    "0.0", "-0.0", "0.5", "1.5", "2.0", "1e38", "3.5e38", "1e39", "1e-45", "1e-46", "65504.0", "65520.0",
    "1e308", "#x10", "#xFF", "#b101", "-7",
};

static const char *const types[] = {
    "int", "uint", "long", "ulong", "short", "ushort", "char", "uchar", "float", "double", "half", "bool",
    "bfloat16", "voidp", "float2", "float3", "float4", "float8", "float16", "int2", "int4", "uint4", "uchar16",
    "double2", "long4", "nil", "(vector-type float)", "(vector-type int :global :read-write)",
    "(vector-type float :local 64)", "(vector-type float :constant :read-only)",
    "(vector-type float4 :global :write-only :std140)", "(maybe int)", "(tensor-view-type 2)",
    "(soa-vector-type point)", "(const-vec-type int 4)", "(identity-tensor-type 2)",
};

static const char *const form_names[] = {
    "def-kernel", "def-kernel-exact", "def-function", "def-grid-function", "def-type", "def-struct",
    "def-enumeration", "def-derived-type", "def-const", "def-const-vec", "def-parameter", "def-setter",
    "defmacro", "with-template-type", "with-struct-accessors", "let", "let*", "progn", "if", "when", "unless",
    "cond", "return", "result", "let-maybe", "or-else", "multiple-value-bind", "funcall", "declare", "set!",
    "inc!", "dec!", "dotimes", "in-each-thread", "in-each-thread-in-group", "loop-grid-stride",
    "loop-vector-stride", "loop-soa-stride", "when-thread-is", "when-thread-in-group-is", "local-barrier",
    "mem-fence", "c-t-assert", "c-t-output", "r-t-assert", "r-t-output", "r-t-workgroup-output-if",
    "target-has", "device-has", "~", "~ref~", "length~", "offset~", "parent~", "dims~", "strides~", "+", "-",
    "*", "/", "mod", "min", "max", "ash", "logand", "<", "=", "and", "or", "not", "to-float", "to-int",
    "to-ulong", "as-uint", "truncate", "floor", "sqrt", "make-vector", "make-vector-view", "make-tensor-view",
    "make-soa-vector", "reinterpret-view", "copy-vec", "atomic-add!", "atomic-binop!", "atomic-inc!",
    "get-global-id", "get-local-id", "get-group-id", "get-global-size", "make-result-vector",
    "make-scratch-vector", "marshall-vector", "gen-", "type-of", "element-type", "quote", "quasiquote",
    "%debug-log", "%loop", "%no-barrier",
};

static const char *const keywords[] = {
    ":global", ":local", ":constant", ":private", ":read-only", ":write-only", ":read-write", ":readable",
    ":writable", ":std140", ":compact", ":set-to", ":derive-from", ":dims", ":msg", ":name", ":type", ":OK",
    ":Err", ":length", ":offset", ":subst", ":equal", ":no", ":fp64", ":row", ":col", ":major", ":key",
};

static const char *const wrappers[][2] = {
    {"(let ((x ", ")) x)"},         {"(progn ", ")"},
    {"(dotimes (i 4) ", ")"},       {"(when (> 1 0) ", ")"},
    {"(in-each-thread (i) ", ")"},  {"(loop-grid-stride (i) ", ")"},
    {"(if t ", " 0)"},              {"(to-float ", ")"},
    {"(~ ", " 0)"},                 {"(when-thread-is 0 ", ")"},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static uint32_t rnd(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

/* Replace D[a, b) by the n bytes of R (in place, within max); the new size,
 * or 0 when it would not fit. */
static size_t splice(uint8_t *d, size_t size, size_t max, size_t a, size_t b, const void *r, size_t n) {
    if (size - (b - a) + n > max) return 0;
    memmove(d + a + n, d + b, size - b);
    memcpy(d + a, r, n);
    return size - (b - a) + n;
}

static int pick(const Forms *f, uint64_t *s, int kind) {
    int cand[MAX_SPANS], m = 0;
    for (int i = 0; i < f->n; i++)
        if (kind < 0 || f->v[i].kind == kind) cand[m++] = i;
    return m ? cand[rnd(s) % (unsigned)m] : -1;
}

static size_t mutate_forms(uint8_t *d, size_t size, size_t max, uint64_t *s) {
    static Forms f;
    static uint8_t tmp[1 << 16];
    scan(d, size, &f);
    if (f.n == 0) return 0;
    switch (rnd(s) % 10) {
    case 0: { /* swap two subforms that do not overlap */
        int i = pick(&f, s, -1), j = pick(&f, s, -1);
        Span a = f.v[i], b = f.v[j];
        if (a.start > b.start) {
            Span t = a;
            a = b;
            b = t;
        }
        if (a.end > b.start || b.end - b.start > sizeof tmp || a.end - a.start > sizeof tmp) return 0;
        size_t la = a.end - a.start, lb = b.end - b.start, mid = b.start - a.end;
        if (la + lb + mid > sizeof tmp) return 0;
        memcpy(tmp, d + b.start, lb);
        memcpy(tmp + lb, d + a.end, mid);
        memcpy(tmp + lb + mid, d + a.start, la);
        memcpy(d + a.start, tmp, la + lb + mid);
        return size;
    }
    case 1: { /* delete a subform */
        Span a = f.v[pick(&f, s, -1)];
        return splice(d, size, max, a.start, a.end, "", 0);
    }
    case 2: { /* duplicate a subform */
        Span a = f.v[pick(&f, s, -1)];
        size_t n = a.end - a.start;
        if (n + 1 > sizeof tmp) return 0;
        tmp[0] = ' ';
        memcpy(tmp + 1, d + a.start, n);
        return splice(d, size, max, a.end, a.end, tmp, n + 1);
    }
    case 3: { /* a number */
        int i = pick(&f, s, SPAN_NUMBER);
        if (i < 0) return 0;
        const char *r = numbers[rnd(s) % COUNT(numbers)];
        return splice(d, size, max, f.v[i].start, f.v[i].end, r, strlen(r));
    }
    case 4: { /* a type: the annotation's, or a type name wherever it is */
        int i = pick(&f, s, SPAN_SYMBOL);
        if (i < 0) return 0;
        const char *r = types[rnd(s) % COUNT(types)];
        size_t a = f.v[i].colon ? f.v[i].colon + 1 : f.v[i].start;
        return splice(d, size, max, a, f.v[i].end, r, strlen(r));
    }
    case 5: { /* a form name in place of a list's head */
        int i = pick(&f, s, SPAN_LIST);
        if (i < 0) return 0;
        size_t a = f.v[i].start;
        while (a < f.v[i].end && (d[a] == '(' || d[a] == '#')) a++;
        size_t b = a;
        while (b < f.v[i].end && !delimiter(d[b])) b++;
        const char *r = form_names[rnd(s) % COUNT(form_names)];
        return splice(d, size, max, a, b, r, strlen(r));
    }
    case 6: { /* another symbol of the program */
        int i = pick(&f, s, SPAN_SYMBOL), j = pick(&f, s, SPAN_SYMBOL);
        if (i < 0 || i == j) return 0;
        size_t n = f.v[j].end - f.v[j].start;
        if (n > sizeof tmp) return 0;
        memcpy(tmp, d + f.v[j].start, n);
        return splice(d, size, max, f.v[i].start, f.v[i].end, tmp, n);
    }
    case 7: { /* a keyword */
        int i = pick(&f, s, SPAN_KEYWORD);
        if (i < 0) return 0;
        const char *r = keywords[rnd(s) % COUNT(keywords)];
        return splice(d, size, max, f.v[i].start, f.v[i].end, r, strlen(r));
    }
    case 8: { /* wrap a subform */
        int i = pick(&f, s, -1);
        const char *const *w = wrappers[rnd(s) % COUNT(wrappers)];
        size_t n1 = strlen(w[0]), n2 = strlen(w[1]);
        if (size + n1 + n2 > max) return 0;
        size_t r = splice(d, size, max, f.v[i].end, f.v[i].end, w[1], n2);
        return splice(d, r, max, f.v[i].start, f.v[i].start, w[0], n1);
    }
    default: { /* a list replaced by one of its elements: (f a (g b)) -> (g b) */
        static Forms inner;
        int i = pick(&f, s, SPAN_LIST);
        if (i < 0) return 0;
        size_t base = f.v[i].start + 1, n = f.v[i].end - f.v[i].start;
        if (n < 3 || n > sizeof tmp) return 0;
        scan(d + base, n - 2, &inner);
        int j = pick(&inner, s, -1);
        if (j < 0) return 0;
        size_t m = inner.v[j].end - inner.v[j].start;
        memcpy(tmp, d + base + inner.v[j].start, m);
        return splice(d, size, max, f.v[i].start, f.v[i].end, tmp, m);
    }
    }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    uint64_t s = (uint64_t)seed * 0x9E3779B97F4A7C15ull + 1;
    if (rnd(&s) % 8 == 0) return LLVMFuzzerMutate(data, size, max_size);
    int rounds = 1 + (int)(rnd(&s) % 3), changed = 0;
    size_t n = size;
    for (int r = 0; r < rounds; r++) {
        size_t m = mutate_forms(data, n, max_size, &s);
        if (m) n = m, changed = 1;
    }
    return changed ? n : LLVMFuzzerMutate(data, size, max_size);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed) {
    static Forms f1, f2;
    uint64_t s = (uint64_t)seed * 0x9E3779B97F4A7C15ull + 7;
    if (size1 > max_out_size) return 0;
    memcpy(out, data1, size1);
    scan(data1, size1, &f1);
    scan(data2, size2, &f2);
    if (!f1.n || !f2.n) return size1;
    Span a = f1.v[rnd(&s) % (unsigned)f1.n], b = f2.v[rnd(&s) % (unsigned)f2.n];
    size_t r = splice(out, size1, max_out_size, a.start, a.end, data2 + b.start, b.end - b.start);
    return r ? r : size1;
}
