/* ======================================================================
 * Text the library builds instead of printing (debug logs)
 * ====================================================================== */

typedef struct CrispText {
    char *data;             /* NUL-terminated (NULL while empty) */
    size_t len, cap;
    int oom;                /* some text was lost: out of memory */
} CrispText;

static inline void crisp_text_printf(CrispText *t, const char *fmt, ...) {
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        char *more;
        while (cap < t->len + (size_t)n + 1) cap *= 2;
        more = (char *)realloc(t->data, cap);
        if (!more) {
            t->oom = 1;
            return;
        }
        t->data = more;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->data + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* The text so far ("" when empty). */
static inline const char *crisp_text(const CrispText *t) {
    return t->data ? t->data : "";
}

static inline void crisp_text_free(CrispText *t) {
    free(t->data);
    t->data = NULL;
    t->len = t->cap = 0;
    t->oom = 0;
}

/* ======================================================================
 * The debug channel (--debug-output; record format in docs/abi.md)
 * ====================================================================== */

/* Words in a debug buffer unless the host chooses otherwise. */
#define CRISP_DEBUG_WORDS 65536

/* A part of a logging form: literal TEXT, or a value of TYPE written as EXPR. */
typedef struct CrispDebugPart {
    const char *text;       /* NULL for a value */
    const char *type;       /* "int", "float", ... for a value */
    const char *expr;       /* the Crisp expression, for a value */
} CrispDebugPart;

/* One logging form of the program (the metadata's "debug_sites"). */
typedef struct CrispDebugSite {
    const char *file;
    int line;
    const char *kind;       /* "output" or "assert" (first part: "assertion failed: TEST") */
    const CrispDebugPart *parts;
    int nparts;
} CrispDebugSite;

/* Prepare a debug buffer of NWORDS words: cursor 2, nothing dropped. */
static inline void crisp_debug_init(cl_uint *words, size_t nwords) {
    memset(words, 0, nwords * sizeof *words);
    if (nwords >= 2) {
        words[0] = 2;
        words[1] = 0;
    }
}

/* One logged value (2 words, low first) of TYPE. */
static inline void crisp_debug_value(CrispText *out, const char *type, cl_uint lo, cl_uint hi) {
    unsigned long long u = ((unsigned long long)hi << 32) | lo;
    CrispElem e = crisp_elem(type ? type : "");
    if (type && !strcmp(type, "bool")) {
        crisp_text_printf(out, "%s", u ? "t" : "nil");
    } else if (e.kind == 'f' && e.size == 4) {
        float f;
        memcpy(&f, &lo, 4);
        crisp_text_printf(out, "%.9g", f);
    } else if (e.kind == 'f') {
        double d;
        memcpy(&d, &u, 8);
        crisp_text_printf(out, "%.17g", d);
    } else if (e.kind == 'h') {
        crisp_text_printf(out, "%g", crisp_half_to_float((cl_half)lo));
    } else if (e.kind == 'u') {
        crisp_text_printf(out, "%llu", u);
    } else {
        crisp_text_printf(out, "%lld", (long long)u); /* signed, and anything unknown */
    }
}

/* Decode the debug buffer WORDS (NWORDS words, read back after the kernel)
 * against the site table SITES (the metadata's "debug_sites", indexed by
 * site id), appending one line per record to OUT:
 *     kernels.crisp:12: [thread 5] reached midpoint 42
 *     kernels.crisp:20: [thread 0] assertion failed: (< 0 lives): no lives left
 * Parts are joined with a space unless one side already has one; an
 * assertion's first part (its test) is followed by ": ".  Returns the
 * number of records; reports dropped records and damaged buffers. */
static inline size_t crisp_debug_decode_text(CrispText *out, const cl_uint *words, size_t nwords,
                                             const CrispDebugSite *sites, size_t nsites) {
    size_t at = 2, end, records = 0;
    if (nwords < 2) return 0;
    end = words[0] < nwords ? words[0] : nwords;
    while (at + 3 <= end) {
        cl_uint n = words[at], id = words[at + 1], thread = words[at + 2];
        const CrispDebugSite *s = id < nsites ? &sites[id] : NULL;
        int p, v = 0, is_assert;
        char last = ' ';
        if (n == 0) break; /* never written: nothing follows */
        if (n < 3 || (n - 3) % 2 || at + n > end) {
            crisp_text_printf(out, "crisp: debug channel: malformed record at word %lu (length %u); %lu words not decoded\n",
                              (unsigned long)at, n, (unsigned long)(end - at));
            break;
        }
        if (!s) {
            crisp_text_printf(out, "crisp: debug record for unknown site %u [thread %u]\n", id, thread);
            at += n;
            continue;
        }
        is_assert = s->kind && !strcmp(s->kind, "assert");
        crisp_text_printf(out, "%s:%d: [thread %u] ", s->file, s->line, thread);
        for (p = 0; p < s->nparts; p++) {
            const CrispDebugPart *part = &s->parts[p];
            int space_first = part->text && (part->text[0] == ' ' || part->text[0] == '\t');
            if (p == 1 && is_assert) crisp_text_printf(out, ": ");
            else if (p > 0 && last != ' ' && last != '\t' && last != '\n' && !space_first) crisp_text_printf(out, " ");
            if (part->text) {
                crisp_text_printf(out, "%s", part->text);
                last = *part->text ? part->text[strlen(part->text) - 1] : last;
            } else {
                if (4 + 2 * (cl_uint)v < n) crisp_debug_value(out, part->type, words[at + 3 + 2 * v], words[at + 4 + 2 * v]);
                else crisp_text_printf(out, "?");
                v++;
                last = 'x';
            }
        }
        crisp_text_printf(out, "\n");
        records++;
        at += n;
    }
    if (words[0] > nwords || words[1])
        crisp_text_printf(out, "crisp: %u debug record(s) dropped: the debug channel (%lu words) was full\n", words[1],
                          (unsigned long)nwords);
    return records;
}

/* The same, printed on OUT. */
static inline size_t crisp_debug_decode(FILE *out, const cl_uint *words, size_t nwords, const CrispDebugSite *sites,
                                        size_t nsites) {
    CrispText t = {NULL, 0, 0, 0};
    size_t n = crisp_debug_decode_text(&t, words, nwords, sites, nsites);
    fputs(crisp_text(&t), out);
    crisp_text_free(&t);
    return n;
}
