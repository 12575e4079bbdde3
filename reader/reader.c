/* reader.c - stage 1: turn Crisp source text into syntax nodes (reader.h).
 *
 * This file exists so that every later stage sees one well-formed tree and
 * never has to look at raw bytes: it is the only place that knows comments,
 * string escapes, number spellings, `name:type` annotations, the quote
 * family, #(...) / ##(...) literals and #+/#- conditional reading.
 *
 * Design (Lua/chibicc style): a cursor over the bytes of one SrcFile, a
 * recursive-descent reader bounded by READER_MAX_DEPTH, and a flat iterative
 * skipper that takes over past that bound, so even a million `(` cannot
 * overflow the C stack.  The common elements of a list (symbols, `name:type`,
 * small numbers, keywords, nested lists) are read by read_seq's own loop,
 * lists in lists with a stack of frames, not a call each; everything else
 * by the general read_next, which defines the language.  The reader never
 * stops at the first error: it
 * reports, skips the offending token or form and goes on, so one run shows
 * several problems.  Every loop consumes at least one byte per iteration or
 * ends, so malformed input cannot make it spin.
 *
 * Lexical rules decided here (the spec leaves them open):
 *
 *  - Delimiters are whitespace (space \t \n \r \f \v) and ( ) " ; ' ` ,
 *    Every other printable ASCII byte is a token constituent (so `a#b`,
 *    `|x|` and `x~` are plain symbols).  Bytes >= 0x80 and control bytes are
 *    allowed only inside strings and comments.
 *  - A token "starts like a number" when it begins with a digit, or with
 *    `+`/`-`/`.` followed by a digit, or with `+.`/`-.` followed by a digit.
 *    Such a token must be a complete number:
 *        int   = [+-] digits
 *        float = [+-] digits . [digits] [exp]  |  [+-] . digits [exp]
 *              | [+-] digits exp               ; exp = (e|E) [+-] digits
 *    (so `1.` is the float 1.0).  The one exception is digits followed by
 *    a single `+` or `-` (`1+`, `1-`): those are symbols.  Anything else
 *    that starts like a number (`12abc`, `1.2.3`, `0x1F`, `1e`) is a
 *    "malformed number literal" error.  Tokens that do not start like a
 *    number are symbols: `+`, `-`, `...`, `.`, `+PI+`, `->`, `-x`.
 *  - Integers are 64-bit: a value above INT64_MAX (up to UINT64_MAX) is
 *    read with `is_unsigned` set; a negative value must be >= INT64_MIN.
 *    `#x`/`#X` takes hex digits, `#b`/`#B` binary digits (no sign).
 *  - Colons inside a symbol token: a single `:` separates a name from its
 *    type annotation (`a:int` -> symbol `a` with ann = symbol `int`); a
 *    trailing single `:` directly followed by `(` takes the next list as
 *    the annotation (`v:(vector float)`).  A double colon `::` is part of
 *    the name (`vector_add::C`).  Two single colons, a run of three or
 *    more, a trailing `::` and a trailing `:` not followed by `(` are
 *    errors.  A token starting with `:` is a keyword and may not contain
 *    another colon.
 *  - Nesting depth counts open lists, quote prefixes, annotation lists and
 *    #+/#- forms: each opens one level; READER_MAX_DEPTH levels are fine,
 *    one more is an error (reported once per top-level form).
 *  - #+/#- feature expressions: a parameter name (case-sensitive; a
 *    def-parameter read so far, else a -D name; `T`/`true` and
 *    `nil`/`false` are constants when no parameter has that name), an
 *    integer or float literal, (and ...), (or ...), (not x) and
 *    (target-has :prop [default]).  Inside a form that #+/#- already skips
 *    nothing is evaluated (like Common Lisp's *read-suppress*), but the
 *    text is still read and syntax errors in it are reported.  A feature
 *    expression that cannot be evaluated is an error and its form is
 *    skipped.
 *
 * Error codes (all E00xx belong to the reader):
 *   E0001 unexpected `)`                  E0014 missing type after `:`
 *   E0002 unclosed `(` / `#(` / `##(`     E0015 malformed symbol (colons)
 *   E0003 unterminated string             E0016 malformed keyword
 *   E0004 unknown string escape           E0017 nesting deeper than 512
 *   E0005 malformed \x escape             E0018 token longer than 1 MiB
 *   E0006 unterminated block comment      E0019 string longer than 1 MiB
 *   E0007 unexpected byte                 E0020 unknown parameter in #+/#-
 *   E0008 unknown or missing # dispatch   E0021 target-has undecided
 *   E0009 malformed number literal        E0022 unknown target-has property
 *   E0010 integer out of 64-bit range     E0023 malformed feature expression
 *   E0011 float out of range              E0024 stray `|#`
 *   E0012 malformed #x / #b literal       E0025 `##` without `(`
 *   E0013 missing form after a prefix     E0099 out of memory
 */
#include "reader.h"
#include "../core/strmap.h"
#include "../core/target.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/syntax.h"

#define READER_MAX_TOKEN ((size_t)1 << 20)  /* 1 MiB per token or string */

/* The steps of reading a symbol, inlined into read_seq's loop even where
 * the compiler would not (issue 14: a call per symbol). */
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* Outcome of reading one datum. */
typedef enum {
    RD_NODE,   /* a form was read into *out */
    RD_SKIP,   /* a #+/#- form was read and dropped: read the next one */
    RD_ERROR,  /* input was consumed, an error was reported, no form */
    RD_CLOSE,  /* positioned at `)` (not consumed) */
    RD_EOF,    /* end of input, or reading was stopped */
    RD_MORE    /* read_seq's fast path: not a case it reads (read_next does) */
} RdStatus;

/* A list read_seq has open while it reads a list inside it: where its
 * reading stands (read_seq's loop). */
#define SEQ_FIRST 8 /* mk_seq's copy knows it */
typedef struct SeqFrame {
    Node *first[SEQ_FIRST]; /* its first kids; the rest on St.stk from base */
    SrcLoc loc;
    int base, nfirst;
    unsigned char kind;     /* a NodeKind: N_LIST, N_VECLIT or N_HWVEC */
} SeqFrame;

/* State of reading one file. */
typedef struct St {
    Reader *r;
    Crisp *c;
    const SrcFile *f;
    unsigned fid;       /* srcfile_id(f): what locations hold */
    const char *p, *end, *bol;  /* cursor, end of text, start of line */
    uintptr_t end8;      /* the address 8 bytes before end (or 0): a spelling that ends
                            at or before it has a word of text after it (same_spelling) */
    uint64_t at;         /* the cursor's line, file and column 1, as a SrcLoc's
                            bytes (loc_word): here() adds the column to it */
    int depth;           /* open levels (lists, prefixes, #+/#-) */
    int depth_reported;  /* E0017 already said for this top-level form */
    int eof_reported;    /* an error already explained the early EOF */
    int suppress;        /* > 0 while reading a form #+/#- will drop */
    const char *cond;    /* "#+" or "#-" being evaluated (for messages) */
    int stop;            /* fatal: out of memory or too many errors */
    Node **stk;          /* kids of the open lists, innermost last */
    int nstk, capstk;
    struct SeqFrame *frames; /* the open lists of read_seq (READER_MAX_DEPTH, malloc) */
    int nframes;         /* of them in use */
    struct Interned *names; /* interned spellings (open addressing, os_pages_alloc;
                               before the first, no_names) */
    size_t nnames, capnames;
    size_t mask;         /* capnames - 1, or 0 for no_names */
    size_t firstcap;     /* the table's first size, from the text's length:
                            about a name per 100 bytes, and no table grown
                            (and its pages touched) five times over; at most
                            2^18 slots (6 MiB), so that a large text of few
                            names does not populate a large table */
} St;

/* ---- characters and positions ---- */

/* Byte classes, one table look-up per byte (issue 14: the reader's tests
 * of each byte were a tenth of its instructions).  CL_SPACE: whitespace
 * (CL_NEWLINE: `\n`, which starts a line); CL_CONST: a token constituent
 * (printable ASCII but the delimiters ( ) " ; ' ` ,); CL_COLON and
 * CL_UPPER: constituents that are `:` or a capital letter, so that one
 * scan of a token also says whether it has an annotation and whether its
 * key differs from its spelling.  CL_SYM0: a constituent that starts a
 * symbol (not a digit, `:`, `#` or `|`), unless it is a CL_SIGN (`+` `-`
 * `.`) that starts like a number (read_plain_symbol). */
enum { CL_SPACE = 1, CL_CONST = 2, CL_COLON = 4, CL_UPPER = 8, CL_NEWLINE = 16, CL_SYM0 = 32, CL_SIGN = 64 };
static const unsigned char byte_class[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 17, 1, 1, 1, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 34, 0, 2, 34, 34, 34, 0, 0, 0, 34, 98, 0, 98, 98, 34,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 6, 0, 34, 34, 34, 34,
    34, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42,
    42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 34, 34, 34, 34, 34,
    0, 34, 34, 34, 34, 34, 34, 34, 34, 34, 34, 34, 34, 34, 34, 34,
    34, 34, 34, 34, 34, 34, 34, 34, 34, 34, 34, 34, 2, 34, 34, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* The same bytes for the scan of a symbol token (scan_name): SK_END
 * ends it (not a constituent), SK_PLAIN goes on, SK_UPPER (a capital) and
 * SK_COLON are constituents that need a look.  One compare per byte. */
enum { SK_END = 0, SK_PLAIN = 1, SK_UPPER = 2, SK_COLON = 3 };
static const unsigned char scan_kind[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 0, 1, 1, 1, 1,
    1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static int is_space(int c) {
    return byte_class[(unsigned char)c] & CL_SPACE;
}

static int is_digit(int c) {
    return c >= '0' && c <= '9';
}

static int hex_value(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Bytes that may not appear outside strings and comments. */
static int is_bad_byte(int c) {
    return c >= 0x80 || c == 0x7f || (c < 0x20 && !is_space(c));
}

static int is_constituent(int c) {
    return byte_class[(unsigned char)c] & CL_CONST;
}

static int at_end(const St *s) {
    return s->p >= s->end;
}

/* Byte at offset `k` from the cursor, or -1 past the end. */
static int peek(const St *s, int k) {
    return s->end - s->p > k ? (unsigned char)s->p[k] : -1;
}

/* A SrcLoc's 8 bytes as a number, and back.  A bit-field is a binary
 * number in contiguous bits, so adding loc_word of a location with line 1
 * (or column 1) and nothing else adds 1 to the line (column) field, and
 * no carry leaves a field that stays in range.  The compiler folds
 * loc_word of a constant (LINE_1, COL_1) into a constant. */
static inline uint64_t loc_word(SrcLoc l) {
    uint64_t w;
    memcpy(&w, &l, sizeof w);
    return w;
}

static inline SrcLoc word_loc(uint64_t w) {
    SrcLoc l;
    memcpy(&l, &w, sizeof l);
    return l;
}

#define LINE_1 loc_word(srcloc_in(0, 1, 0))
#define COL_1 loc_word(srcloc_in(0, 0, 1))

/* The location of q, on the cursor's line: the line's word (St.at,
 * column 1) plus the column (issue 14: building the bit-field from its
 * parts was a dozen instructions per token, 240,000 times for 1 MB of
 * source). */
static inline SrcLoc loc_at(const St *s, const char *q) {
    size_t d = (size_t)(q - s->bol); /* column - 1 */
    if (d > SRCLOC_MAX_COL - 1) d = SRCLOC_MAX_COL - 1;
    return word_loc(s->at + d * COL_1);
}

/* The cursor's location. */
static inline SrcLoc here(const St *s) {
    return loc_at(s, s->p);
}

/* A new line starts at p. */
static inline void new_line(St *s, const char *p) {
    s->at += LINE_1;
    s->bol = p;
}

static void adv(St *s) {
    if (*s->p == '\n') new_line(s, s->p + 1);
    s->p++;
}

/* ---- diagnostics ---- */

static void err(St *s, SrcLoc loc, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void err(St *s, SrcLoc loc, const char *code, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(&s->c->diag, loc, NULL, code, "%s", msg);
    if (s->c->diag.fatal) s->stop = 1;
}

static void oom(St *s) {
    if (!s->stop)
        diag_fatal(&s->c->diag, here(s), NULL, "E0099", "out of memory (source too large)");
    s->stop = 1;
}

/* Copy of token text for a message: at most 40 bytes, then "...". */
static const char *show(char *buf, size_t cap, const char *b, size_t n) {
    size_t max = cap - 4 < 40 ? cap - 4 : 40, o = 0;
    for (size_t i = 0; i < n && o < max; i++) {
        unsigned char ch = (unsigned char)b[i];
        buf[o++] = (ch < 0x20 || ch >= 0x7f) ? '?' : (char)ch;
    }
    if (n > max) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = 0;
    return buf;
}

/* What is at the cursor, for "found ..." in messages. */
static const char *found_here(const St *s, char *buf, size_t cap) {
    int c = peek(s, 0);
    if (c < 0) return "end of file";
    if (c == '\n' || c == '\r') return "end of line";
    if (is_space(c)) return "whitespace";
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, cap, "`%c`", c);
    else
        snprintf(buf, cap, "byte 0x%02X", (unsigned)c);
    return buf;
}

/* ---- allocation ---- */

static void *alloc(St *s, size_t n) {
    void *p = arena_alloc(&s->c->arena, n);
    if (!p) oom(s);
    return p;
}

/* Nodes and kids arrays: 8-byte aligned (core/arena.h). */
static inline void *alloc8(St *s, size_t n) {
    void *p = arena_alloc8(&s->c->arena, n);
    if (!p) oom(s);
    return p;
}

static char *dup_n(St *s, const char *b, size_t n) {
    char *p = arena_strndup(&s->c->arena, b, n);
    if (!p) oom(s);
    return p;
}

static inline Node *mk(St *s, NodeKind k, SrcLoc loc) {
    Node *n = alloc8(s, sizeof *n);
    if (!n) return NULL;
    n->kind = k;
    n->loc = loc;
    return n;
}

/* An interned spelling and its key (the lower-case spelling, itself
 * interned; the same pointer when the spelling has no capital). */
typedef struct Interned {
    const char *name, *key;
    uint64_t hl;  /* length << 32 | spelling_hash: one comparison */
} Interned;

/* The table before the first spelling: one empty slot. */
static Interned no_names[1];

/* core/strmap's hash (FNV-1a, one byte at a time): scan_name computes it as it scans a token,
 * so the two must agree.  (A hash of whole 64-bit words, tried, cost more
 * per token than it saved in the scan: tokens are 4 bytes on average.) */
#define SPELLING_HASH0 STRMAP_HASH0
#define SPELLING_HASH_STEP(h, ch) strmap_hash_step((h), (unsigned char)(ch))

static uint32_t spelling_hash(const char *b, size_t n) {
    uint32_t h = SPELLING_HASH0;
    for (size_t i = 0; i < n; i++) h = SPELLING_HASH_STEP(h, b[i]);
    return h;
}

/* The one copy of the spelling b[0..n) in the arena, with its key: a
 * program repeats its names, and a copy per occurrence (two, with the
 * key) was a tenth of the reader's memory; the key is made once per
 * spelling, not per occurrence (issue 14).  `h`: spelling_hash(b, n);
 * `upper`: b has a capital letter (0 when it surely has none).  NULL when
 * out of memory. */
static const Interned *intern_new(St *s, const char *b, size_t n, uint32_t h, int upper);

/* Whether the interned spelling `name` is b[0..n) (`in_text`: b lies in
 * the text, before s->end): memcmp inline, a word at a time (the names
 * compared are a few bytes long, and mostly equal: memcmp's call was a
 * tenth of intern's instructions).  An interned copy is zero-padded to a multiple of 8
 * bytes (intern_new), so its last word is read whole and the text's is
 * masked to n bytes; a spelling that ends within 8 bytes of the text's
 * end is compared a byte at a time. */
static inline int same_spelling(const St *s, const char *name, const char *b, size_t n, int in_text) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (in_text && (uintptr_t)(b + n) <= s->end8) {
        static const uint64_t first[9] = {0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffull,
                                          0xffffffffffffull, 0xffffffffffffffull, ~0ull};
        uint64_t x, y;
        size_t i = 0;
        for (; n - i > 8; i += 8) {
            memcpy(&x, name + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y) return 0;
        }
        memcpy(&x, name + i, 8);
        memcpy(&y, b + i, 8);
        return x == (y & first[n - i]); /* the first n - i bytes */
    }
#else
    (void)s, (void)in_text;
#endif
    for (size_t i = 0; i < n; i++)
        if (name[i] != b[i]) return 0;
    return 1;
}

static inline const Interned *intern(St *s, const char *b, size_t n, uint32_t h, int upper, int in_text) {
    uint64_t hl = (uint64_t)n << 32 | h; /* never 0, an empty slot's */
    size_t mask = s->mask, j = h & mask;
    for (const Interned *e;; j = (j + 1) & mask) {
        e = &s->names[j];
        if (e->hl == hl) {
            if (same_spelling(s, e->name, b, n, in_text)) return e;
        } else if (!e->name) {
            return intern_new(s, b, n, h, upper);
        }
    }
}

/* intern's miss: the spelling is not in the table yet. */
static const Interned *intern_new(St *s, const char *b, size_t n, uint32_t h, int upper) {
    if (n == 11 && b[0] == '%' && !strncasecmp(b, "%feature-if", 11))
        s->c->feature_forms++; /* expand.c: some (%feature-if ...) may be about */
    if ((s->nnames + 1) * 2 > s->capnames) {
        size_t cap = s->capnames ? s->capnames * 2 : s->firstcap;
        Interned *v = os_pages_alloc(cap * sizeof *v);
        if (!v) {
            oom(s);
            return NULL;
        }
        for (size_t i = 0; i < s->capnames; i++) {
            if (!s->names[i].name) continue;
            size_t j = (uint32_t)s->names[i].hl & (cap - 1);
            while (v[j].name) j = (j + 1) & (cap - 1);
            v[j] = s->names[i];
        }
        if (s->capnames) os_pages_free(s->names, s->capnames * sizeof *s->names);
        s->names = v;
        s->capnames = cap;
        s->mask = cap - 1;
    }
    size_t j = h & (s->capnames - 1);
    while (s->names[j].name) j = (j + 1) & (s->capnames - 1);
    const char *key = NULL;
    if (upper) {
        size_t i = 0;
        while (i < n && !(b[i] >= 'A' && b[i] <= 'Z')) i++;
        if (i == n) upper = 0;
    }
    if (upper) {
        char small[64], *low = n < sizeof small ? small : malloc(n + 1);
        if (!low) {
            oom(s);
            return NULL;
        }
        for (size_t i = 0; i < n; i++) low[i] = b[i] >= 'A' && b[i] <= 'Z' ? (char)(b[i] - 'A' + 'a') : b[i];
        low[n] = 0;
        const Interned *k = intern(s, low, n, spelling_hash(low, n), 0, 0);
        if (low != small) free(low);
        if (!k) return NULL;
        key = k->name;
        /* the key's entry may have grown the table: find the slot again */
        j = h & (s->capnames - 1);
        while (s->names[j].name) j = (j + 1) & (s->capnames - 1);
    }
    char *p = alloc8(s, (n + 8) & ~(size_t)7); /* zero-padded: same_spelling */
    if (!p) return NULL;
    memcpy(p, b, n);
    Interned *e = &s->names[j];
    e->name = p;
    e->key = key ? key : p;
    e->hl = (uint64_t)n << 32 | h;
    s->nnames++;
    return e;
}

/* SYMBOL or KEYWORD with spelling b[0..n) and a lower-case key (both
 * interned: the same pointer when the spelling is lower-case); `upper`
 * as intern's. */
static ALWAYS_INLINE Node *mk_name_h(St *s, NodeKind k, SrcLoc loc, const char *b, size_t n, uint32_t h, int upper,
                              int in_text) {
    const Interned *e = intern(s, b, n, h, upper, in_text);
    Node *x = e ? mk(s, k, loc) : NULL;
    if (!x) return NULL;
    x->name = e->name;
    x->key = e->key;
    return x;
}

/* b[0..n) is in the text. */
static Node *mk_name_cl(St *s, NodeKind k, SrcLoc loc, const char *b, size_t n, int upper) {
    return mk_name_h(s, k, loc, b, n, spelling_hash(b, n), upper, 1);
}

/* b is a literal (a quote's head). */
static Node *mk_name(St *s, NodeKind k, SrcLoc loc, const char *b, size_t n) {
    return mk_name_h(s, k, loc, b, n, spelling_hash(b, n), 1, 0);
}

static void grow_stk(St *s);

/* 0 when out of memory (the node is dropped, reading stops). */
static inline int push(St *s, Node *n) {
    if (s->nstk == s->capstk) grow_stk(s);
    if (s->nstk == s->capstk) return 0;
    s->stk[s->nstk++] = n;
    return 1;
}

static void grow_stk(St *s) {
    {
        if (s->capstk > INT_MAX / 4) {
            oom(s);
            return;
        }
        int cap = s->capstk ? s->capstk * 2 : 64;
        Node **v = realloc(s->stk, sizeof *v * (size_t)cap);
        if (!v) {
            oom(s);
            return;
        }
        s->stk = v;
        s->capstk = cap;
    }
}

/* A list's first kids are kept in its SeqFrame, the rest on the stack
 * s->stk (most lists have a few elements: one store each). */

/* A LIST/VECLIT/HWVEC node holding first[0..nfirst) then stk[base..nstk);
 * pops them.  The kids array follows the node in the same allocation
 * (one bump, not two). */
static inline Node *mk_seq(St *s, NodeKind k, SrcLoc loc, Node *const *first, int nfirst, int base) {
    int more = s->nstk - base, n = nfirst + more;
    s->nstk = base;
    /* (n is a count of kids, >= 0: as unsigned, the size is never 0 and
       alloc8 need not test for it) */
    Node *l = alloc8(s, sizeof *l + sizeof(Node *) * (unsigned)n);
    if (!l) return NULL;
    l->kind = k;
    l->loc = loc;
    l->nkids = n;
    if (n > 0) {
        Node **kids = (Node **)(l + 1);
        l->kids = kids;
        switch (nfirst) { /* (a loop here was compiled into a call of memcpy) */
        case 8: kids[7] = first[7]; /* fall through */
        case 7: kids[6] = first[6]; /* fall through */
        case 6: kids[5] = first[5]; /* fall through */
        case 5: kids[4] = first[4]; /* fall through */
        case 4: kids[3] = first[3]; /* fall through */
        case 3: kids[2] = first[2]; /* fall through */
        case 2: kids[1] = first[1]; /* fall through */
        case 1: kids[0] = first[0]; /* fall through */
        default: break;
        }
        if (more) memcpy(kids + nfirst, s->stk + base, sizeof(Node *) * (size_t)more);
    }
    return l;
}

/* (head x) with the head symbol at `loc` (the quote character). */
static Node *mk_wrap(St *s, SrcLoc loc, const char *head, Node *x) {
    Node *h = mk_name(s, N_SYMBOL, loc, head, strlen(head));
    Node *l = alloc8(s, sizeof *l + 2 * sizeof(Node *)); /* the kids follow (mk_seq) */
    if (!h || !l) return NULL;
    l->kind = N_LIST;
    l->loc = loc;
    l->kids = (Node **)(l + 1);
    l->kids[0] = h;
    l->kids[1] = x;
    l->nkids = 2;
    return l;
}

/* ---- whitespace and comments ---- */

/* Skip a (nested) #| ... |# comment starting at the cursor; 0 when the
   input ends inside it. */
static int skip_nested_comment(St *s) {
    int level = 0;
    while (!at_end(s)) {
        if (s->p[0] == '#' && peek(s, 1) == '|') {
            level++;
            s->p += 2;
        } else if (s->p[0] == '|' && peek(s, 1) == '#') {
            s->p += 2;
            if (--level == 0) return 1;
        } else {
            adv(s);
        }
    }
    return 0;
}

static void skip_block_comment(St *s) {
    SrcLoc start = here(s);
    if (skip_nested_comment(s)) return;
    err(s, start, "E0006", "unterminated block comment: expected `|#` before end of file");
    s->eof_reported = 1;
}

/* Skip whitespace, comments and (reporting them) runs of stray bytes. */
static void skip_atmosphere(St *s) {
    while (!s->stop && !at_end(s)) {
        int c = (unsigned char)*s->p;
        if (is_space(c)) {
            adv(s);
        } else if (c == ';') {
            while (!at_end(s) && *s->p != '\n') s->p++;
        } else if (c == '#' && peek(s, 1) == '|') {
            skip_block_comment(s);
        } else if (is_bad_byte(c)) {
            SrcLoc loc = here(s);
            while (!at_end(s) && is_bad_byte((unsigned char)*s->p)) s->p++;
            if (c >= 0x80)
                err(s, loc, "E0007", "unexpected byte 0x%02X: expected ASCII source text "
                    "(non-ASCII bytes are allowed only in strings and comments)", (unsigned)c);
            else
                err(s, loc, "E0007", "unexpected byte 0x%02X: expected printable ASCII "
                    "source text (control bytes are allowed only in strings and comments)",
                    (unsigned)c);
        } else {
            return;
        }
    }
}

/* Skip a string body quietly (cursor at the opening quote). */
static void skip_string_quietly(St *s) {
    adv(s);
    while (!at_end(s) && *s->p != '"') {
        if (*s->p == '\\' && peek(s, 1) >= 0) adv(s);
        adv(s);
    }
    if (!at_end(s)) adv(s);
}

/* Past the depth limit: skip one datum (and whatever prefixes lead it)
 * without recursion, counting parens.  Stops before a `)` that closes an
 * enclosing list.  Nothing inside is reported. */
static void skip_datum_flat(St *s) {
    long need = 1, nest = 0;
    while (!at_end(s) && (need > 0 || nest > 0)) {
        int c = (unsigned char)*s->p, c1 = peek(s, 1);
        if (is_space(c) || is_bad_byte(c)) {
            adv(s);
        } else if (c == ';') {
            while (!at_end(s) && *s->p != '\n') s->p++;
        } else if (c == '"') {
            skip_string_quietly(s);
            if (nest == 0) need--;
        } else if (c == '(') {
            adv(s);
            nest++;
        } else if (c == ')') {
            if (nest == 0) return;
            adv(s);
            if (--nest == 0) need--;
        } else if (c == '\'' || c == '`' || c == ',') {
            adv(s);
        } else if (c == '#' && c1 == '|') {
            skip_nested_comment(s);
        } else if (c == '#' && c1 == '(') {
            s->p += 2;
            nest++;
        } else if (c == '#' && c1 == '#' && peek(s, 2) == '(') {
            s->p += 3;
            nest++;
        } else if (c == '#' && (c1 == '\'' || c1 == '`')) {
            s->p += 2;
        } else if (c == '#' && (c1 == '+' || c1 == '-')) {
            s->p += 2;
            if (nest == 0) need++;  /* a feature expression, then a form */
        } else {
            /* a token, or # followed by a token */
            if (c == '#') s->p++;
            while (!at_end(s) && is_constituent((unsigned char)*s->p)) s->p++;
            if (nest == 0) need--;
        }
    }
    if (at_end(s)) s->eof_reported = 1;
}

/* Open one level at the cursor; past the limit report (once per top-level
 * form), skip the construct starting here, and return 0. */
static int enter_deep(St *s);

static inline int enter(St *s) {
    if (s->depth < READER_MAX_DEPTH) {
        s->depth++;
        return 1;
    }
    return enter_deep(s);
}

static int enter_deep(St *s) {
    if (!s->depth_reported) {
        err(s, here(s), "E0017", "nesting deeper than %d levels: expected at most %d nested "
            "lists, quotes or #+/#- forms (the rest of this form is skipped)",
            READER_MAX_DEPTH, READER_MAX_DEPTH);
        s->depth_reported = 1;
    }
    skip_datum_flat(s);
    return 0;
}

static void leave(St *s) {
    s->depth--;
}

/* ---- forms ---- */

static RdStatus read_next(St *s, Node **out);

/* Read the form that must follow a prefix (quote, #', #+ ...) starting at
 * `loc`; #+/#- forms that are dropped are passed over.  When nothing is
 * there reports "expected WHAT after `AFTER`" and returns RD_CLOSE/RD_EOF
 * (the `)` is left for the enclosing list). */
static RdStatus read_subject(St *s, SrcLoc loc, const char *what, const char *after,
                             Node **out) {
    for (;;) {
        RdStatus st = read_next(s, out);
        if (st == RD_SKIP) continue;
        if (st == RD_CLOSE || (st == RD_EOF && !s->stop && !s->eof_reported)) {
            char fb[16];
            err(s, loc, "E0013", "expected %s after `%s`, found %s", what, after,
                found_here(s, fb, sizeof fb));
            if (st == RD_EOF) s->eof_reported = 1;
        }
        return st;
    }
}

static RdStatus read_symbol(St *s, SrcLoc loc, const char *b, size_t n, unsigned cl, Node **out);

/* The token at the cursor, which starts with a CL_SYM0 byte and does not
 * start like a number, read as read_token reads it (its colons checked by
 * read_symbol). */
static RdStatus read_symbol_token_at(St *s, Node **out) {
    const char *b = s->p, *e = b;
    unsigned cl = 0, c;
    while ((c = byte_class[(unsigned char)*e]) & CL_CONST) {
        cl |= c;
        e++;
    }
    size_t n = (size_t)(e - b);
    if (n > READER_MAX_TOKEN) return RD_MORE;
    SrcLoc loc = here(s);
    s->p = e;
    return read_symbol(s, loc, b, n, cl, out);
}

/* The bytes of a name from p on (constituents but `:`): the first byte
 * past them, with *h their spelling_hash, *upper whether one is a capital
 * and *kind the scan_kind of the byte that ends them. */
static ALWAYS_INLINE const char *scan_name(const char *p, uint32_t *h, int *upper, unsigned *kind) {
    const unsigned char *q = (const unsigned char *)p;
    uint32_t x = SPELLING_HASH0;
    int up = 0;
    unsigned ch = *q, k = scan_kind[ch];
    for (;;) {
        if (k == SK_PLAIN) {
            do { /* (a do-while of unsigned bytes: 7 instructions a byte, not 9) */
                x = SPELLING_HASH_STEP(x, ch);
                ch = *++q;
                k = scan_kind[ch];
            } while (k == SK_PLAIN);
        }
        if (k != SK_UPPER) break;
        up = 1;
        x = SPELLING_HASH_STEP(x, ch);
        ch = *++q;
        k = scan_kind[ch];
    }
    *h = x;
    *upper = up;
    *kind = k;
    return (const char *)q;
}

/* The same, for read_plain_symbol: the node returned, so that its
 * caller's variable need not live in memory. */
static Node *read_symbol_token(St *s, RdStatus *st) {
    Node *x = NULL;
    *st = read_symbol_token_at(s, &x);
    return x;
}

/* A token starting with a CL_SYM0 byte `c` at the cursor: a symbol,
 * unless it starts like a number (RD_MORE: read_token reads it).  This is
 * read_token for the tokens of most lists, with the spelling's hash made
 * as the token is scanned, and that of `name:type`'s two parts (issue 14).
 * The text ends in a NUL byte (node.h), whose class stops every scan. */
static inline RdStatus read_plain_symbol(St *s, unsigned c, Node **out) {
    const char *b = s->p, *p = b;
    if ((c & CL_SIGN) && (is_digit(b[1]) || (b[0] != '.' && b[1] == '.' && is_digit(b[2]))))
        return RD_MORE; /* starts_like_number */
    uint32_t h;
    int upper;
    unsigned k;
    p = scan_name(b, &h, &upper, &k); /* b[0] is no colon */
    size_t n = (size_t)(p - b);
    if (k == SK_COLON) {
        /* name:type with a plain type is read here; the rest (`v:(...)`,
           `a::b`, errors) by read_symbol */
        const char *t = p + 1;
        if (scan_kind[(unsigned char)*t] == SK_COLON || *t == '#') {
            RdStatus st;
            *out = read_symbol_token(s, &st);
            return st;
        }
        uint32_t ht;
        int tupper;
        t = scan_name(t, &ht, &tupper, &k);
        if (k != SK_END || t == p + 1 || (size_t)(t - b) > READER_MAX_TOKEN) {
            RdStatus st;
            *out = read_symbol_token(s, &st);
            return st;
        }
        SrcLoc loc = here(s), tl = loc_at(s, p + 1); /* the type's */
        s->p = t;
        Node *sym = mk_name_h(s, N_SYMBOL, loc, b, n, h, upper, 1);
        if (!sym) return RD_ERROR;
        *out = sym;
        sym->ann = mk_name_h(s, N_SYMBOL, tl, p + 1, (size_t)(t - p - 1), ht, tupper, 1);
        return sym->ann ? RD_NODE : RD_ERROR;
    }
    if (n > READER_MAX_TOKEN) return RD_MORE;
    SrcLoc loc = here(s);
    s->p = p; /* tokens hold no newline */
    *out = mk_name_h(s, N_SYMBOL, loc, b, n, h, upper, 1);
    return *out ? RD_NODE : RD_ERROR;
}

/* A token of decimal digits at the cursor, at most 18 of them (so no
 * overflow), or digits `.` digits, at most 15 of them (float_fast's case):
 * read_number's value, without read_token's tests.  RD_MORE for any other
 * token starting with a digit. */
static inline RdStatus read_plain_number(St *s, Node **out) {
    const char *b = s->p, *p = b, *dot = NULL;
    uint64_t v = 0;
    for (; is_digit(*p); p++) v = v * 10 + (uint64_t)(*p - '0');
    if (*p == '.' && p - b <= 15)
        for (dot = p++; is_digit(*p) && p - b <= 16; p++) v = v * 10 + (uint64_t)(*p - '0');
    if (scan_kind[(unsigned char)*p] != SK_END || p - b > (dot ? 16 : 18)) return RD_MORE;
    SrcLoc loc = here(s);
    s->p = p;
    Node *x = mk(s, dot ? N_FLOAT : N_INT, loc);
    if (!x) return RD_ERROR;
    if (dot) {
        static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
                                       1e13, 1e14, 1e15};
        x->fval = (double)v / pow10[p - dot - 1]; /* exact operands, one rounding: strtod's value */
    } else {
        x->ival = (int64_t)v;
    }
    *out = x;
    return RD_NODE;
}

/* A keyword token `:name` at the cursor, name without a colon: what
 * read_keyword makes, with the spelling's hash made as it is scanned.
 * RD_MORE for any other token starting with `:` (read_keyword reports). */
static inline RdStatus read_plain_keyword(St *s, Node **out) {
    const char *b = s->p + 1;
    uint32_t h;
    int upper;
    unsigned k;
    const char *p = scan_name(b, &h, &upper, &k);
    size_t n = (size_t)(p - b);
    if (k != SK_END || n == 0 || n >= READER_MAX_TOKEN) return RD_MORE;
    SrcLoc loc = here(s);
    s->p = p;
    *out = mk_name_h(s, N_KEYWORD, loc, b, n, h, upper, 1);
    return *out ? RD_NODE : RD_ERROR;
}

/* A list-like form; the cursor is at its opener of `open_len` bytes.  Its
 * loop reads whitespace, nested lists, plain symbols, small numbers and
 * keywords itself, and passes the rest to read_token or read_next (issue
 * 14: the reader's general dispatch per element was a third of its
 * instructions).  A nested `(` opens a level of the same loop, not a
 * call: its list's state goes into the next SeqFrame (s->frames), and its
 * `)` makes the list and returns to the enclosing one, as the call would
 * have (issue 14: a call per list, its prologue and epilogue, was a tenth
 * of the reader's instructions).  Lists reached otherwise (after a quote,
 * a #+ feature, `v:`, `#(`) are calls of read_seq, each using the frames
 * above those in use. */
static RdStatus read_token(St *s, Node **out);

/* What opens a list of `kind` (for E0002). */
static const char *seq_opener(NodeKind kind) {
    return kind == N_VECLIT ? "#(" : kind == N_HWVEC ? "##(" : "(";
}

/* Open a list at the cursor, its opener `len` bytes: the frame above f. */
static inline SeqFrame *open_seq(St *s, SeqFrame *f, NodeKind kind, int len) {
    s->nframes++; /* (enter: at most READER_MAX_DEPTH in use) */
    f->loc = here(s);
    s->p += len;
    f->base = s->nstk;
    f->nfirst = 0;
    f->kind = (unsigned char)kind;
    return f;
}

/* Add x to the list f: 0 when out of memory (push). */
static inline int add_kid(St *s, SeqFrame *f, Node *x) {
    if (f->nfirst < SEQ_FIRST) {
        f->first[f->nfirst++] = x;
        return 1;
    }
    return push(s, x);
}

static RdStatus read_seq(St *s, NodeKind kind, int open_len, Node **out) {
    if (!enter(s)) return RD_ERROR;
    SeqFrame *bottom = s->frames + s->nframes; /* this call's list */
    SeqFrame *f = open_seq(s, bottom, kind, open_len); /* the innermost open list */
    RdStatus st = RD_ERROR;
    for (;;) {
        Node *n, *x = NULL; /* x: the element read, kept out of memory */
        /* reading stops (s->stop) only where an element ends in an error or
           EOF (err, oom): after a node, no need to look */
        int go = st == RD_NODE || !s->stop;
        st = RD_MORE;
        if (go) {
            const char *p = s->p;
            unsigned c;
            while ((c = byte_class[(unsigned char)*p]) & CL_SPACE) {
                if (c & CL_NEWLINE) new_line(s, p + 1);
                p++;
            }
            s->p = p;
            if (c & CL_SYM0) { /* (the commonest element first) */
                st = read_plain_symbol(s, c, &x);
            } else if (*p == '(') {
                /* a list in this one: read by this loop (the frame above) */
                st = RD_ERROR; /* as at the start of a list */
                if (enter(s)) f = open_seq(s, f + 1, N_LIST, 1);
                continue;
            } else if (*p == ')') {
                st = RD_CLOSE;
            } else if ((c & CL_CONST) && *p != '#') { /* read_next's default */
                if (is_digit(*p)) st = read_plain_number(s, &x);
                else if (*p == ':') st = read_plain_keyword(s, &x);
                if (st == RD_MORE) {
                    st = read_token(s, &n);
                    x = n;
                }
            }
        }
        if (st == RD_MORE) {
            st = read_next(s, &n);
            x = n;
        }
        if (st == RD_CLOSE) {
            adv(s);
            leave(s);
            x = mk_seq(s, (NodeKind)f->kind, f->loc, f->first, f->nfirst, f->base);
            st = x ? RD_NODE : RD_ERROR;
        } else if (st == RD_EOF) {
            if (!s->stop && !s->eof_reported) {
                err(s, f->loc, "E0002", "unclosed `%s`: expected `)` before end of file",
                    seq_opener((NodeKind)f->kind));
                s->eof_reported = 1;
            }
            s->nstk = f->base;
            leave(s);
            st = RD_ERROR;
        } else {
            if (st == RD_NODE && !add_kid(s, f, x)) st = RD_ERROR; /* (so that s->stop is seen) */
            continue;
        }
        /* the innermost list is closed (st: RD_NODE with x) or given up
           (RD_ERROR): back to the enclosing one, or return */
        s->nframes--;
        if (f == bottom) {
            if (st == RD_NODE) *out = x;
            return st;
        }
        f--;
        if (st == RD_NODE && !add_kid(s, f, x)) st = RD_ERROR;
    }
}

/* 'x `x ,x ,@x #'x: the cursor is at the prefix of `len` bytes. */
static RdStatus read_prefixed(St *s, int len, const char *head, Node **out) {
    if (!enter(s)) return RD_ERROR;
    SrcLoc loc = here(s);
    char shown[4];
    memcpy(shown, s->p, (size_t)len);
    shown[len] = 0;
    s->p += len;
    Node *x;
    RdStatus st = read_subject(s, loc, "a form", shown, &x);
    leave(s);
    if (st != RD_NODE) return st == RD_EOF && s->stop ? RD_EOF : RD_ERROR;
    *out = mk_wrap(s, loc, head, x);
    return *out ? RD_NODE : RD_ERROR;
}

static RdStatus read_string(St *s, Node **out) {
    SrcLoc loc = here(s);
    const char *q = s->p + 1;
    while (q < s->end && *q != '"') {
        if (*q == '\\' && q + 1 < s->end) q++;
        q++;
    }
    if (q >= s->end) {
        err(s, loc, "E0003", "unterminated string: expected `\"` before end of file");
        s->eof_reported = 1;
        s->p = s->end;
        return RD_ERROR;
    }
    size_t raw = (size_t)(q - (s->p + 1));
    if (raw > READER_MAX_TOKEN) {
        err(s, loc, "E0019", "string literal longer than 1 MiB (%zu bytes): expected a "
            "string of at most %zu bytes", raw, READER_MAX_TOKEN);
        while (s->p <= q) adv(s);
        return RD_ERROR;
    }
    char *buf = alloc(s, raw + 1);
    if (!buf) return RD_ERROR;
    adv(s);
    size_t n = 0;
    int bad = 0;
    while (s->p < q) {
        if (*s->p != '\\') {
            buf[n++] = *s->p;
            adv(s);
            continue;
        }
        SrcLoc eloc = here(s);
        adv(s);
        int e = (unsigned char)*s->p;  /* s->p < q: a backslash never ends the body */
        adv(s);
        switch (e) {
        case 'n': buf[n++] = '\n'; break;
        case 't': buf[n++] = '\t'; break;
        case 'r': buf[n++] = '\r'; break;
        case '0': buf[n++] = '\0'; break;
        case '\\': buf[n++] = '\\'; break;
        case '"': buf[n++] = '"'; break;
        case 'x': {
            int h1 = s->p < q ? hex_value((unsigned char)s->p[0]) : -1;
            int h2 = s->p + 1 < q ? hex_value((unsigned char)s->p[1]) : -1;
            if (h1 < 0 || h2 < 0) {
                char fb[16];
                if (h1 >= 0) adv(s);
                err(s, eloc, "E0005", "malformed escape in string: expected two hex digits "
                    "after `\\x`, found %s", s->p < q ? found_here(s, fb, sizeof fb) : "`\"`");
                bad = 1;
                break;
            }
            buf[n++] = (char)(h1 * 16 + h2);
            adv(s);
            adv(s);
            break;
        }
        default:
            if (e > 0x20 && e < 0x7f)
                err(s, eloc, "E0004", "unknown escape `\\%c` in string: expected one of "
                    "\\n \\t \\r \\0 \\\\ \\\" \\xHH", e);
            else
                err(s, eloc, "E0004", "unknown escape in string: expected one of \\n \\t \\r "
                    "\\0 \\\\ \\\" \\xHH after `\\`, found %s",
                    e == '\n' ? "end of line" : e == ' ' ? "a space" : "a control or non-ASCII byte");
            bad = 1;
        }
    }
    adv(s);  /* closing quote */
    if (bad) return RD_ERROR;
    Node *x = mk(s, N_STRING, loc);
    if (!x) return RD_ERROR;
    buf[n] = 0;
    x->name = buf;
    x->slen = (int)n;
    *out = x;
    return RD_NODE;
}

/* ---- atoms ---- */

/* 1 = integer, 2 = float, 0 = neither (see the grammar at the top). */
static int number_shape(const char *t, size_t n) {
    size_t i = 0, nd, nf = 0;
    int is_float = 0;
    if (i < n && (t[i] == '+' || t[i] == '-')) i++;
    size_t d0 = i;
    while (i < n && is_digit(t[i])) i++;
    nd = i - d0;
    if (i < n && t[i] == '.') {
        is_float = 1;
        size_t f0 = ++i;
        while (i < n && is_digit(t[i])) i++;
        nf = i - f0;
    }
    if (nd + nf == 0) return 0;
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        is_float = 1;
        i++;
        if (i < n && (t[i] == '+' || t[i] == '-')) i++;
        size_t e0 = i;
        while (i < n && is_digit(t[i])) i++;
        if (i == e0) return 0;
    }
    if (i != n) return 0;
    return is_float ? 2 : 1;
}

static int starts_like_number(const char *t, size_t n) {
    size_t i = 0;
    if (i < n && (t[i] == '+' || t[i] == '-')) i++;
    if (i < n && t[i] == '.') i++;
    return i < n && is_digit(t[i]);
}

/* digits followed by one `+` or `-`: the symbols 1+ and 1-. */
static int is_digit_symbol(const char *t, size_t n) {
    if (n < 2 || (t[n - 1] != '+' && t[n - 1] != '-')) return 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (!is_digit(t[i])) return 0;
    return 1;
}

static RdStatus int_node(St *s, SrcLoc loc, uint64_t mag, int neg, Node **out) {
    Node *x = mk(s, N_INT, loc);
    if (!x) return RD_ERROR;
    if (neg)
        x->ival = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
    else if (mag > (uint64_t)INT64_MAX) {
        x->ival = (int64_t)(mag - (uint64_t)INT64_MAX - 1) + INT64_MIN;  /* same bits */
        x->is_unsigned = 1;
    } else
        x->ival = (int64_t)mag;
    *out = x;
    return RD_NODE;
}

static void err_int_range(St *s, SrcLoc loc, const char *b, size_t n) {
    char tb[64];
    err(s, loc, "E0010", "integer literal `%s` does not fit in 64 bits: expected a value from "
        "-9223372036854775808 to 18446744073709551615", show(tb, sizeof tb, b, n));
}

/* The value of the float b[0..n) (number_shape 2) when it can be had
 * exactly without strtod: at most 15 digits and a power of ten up to
 * 10^22, both exact doubles, so one correctly rounded multiplication or
 * division gives what strtod gives (Clinger's fast path; issue 14: strtod
 * cost 600 instructions per literal).  0 when it cannot. */
static int float_fast(const char *b, size_t n, double *v) {
    static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    size_t i = 0;
    int neg = 0, digits = 0, exp10 = 0;
    if (b[0] == '+' || b[0] == '-') neg = b[i++] == '-';
    uint64_t m = 0;
    for (; i < n && is_digit(b[i]); i++, digits++) m = m * 10 + (uint64_t)(b[i] - '0');
    if (i < n && b[i] == '.')
        for (i++; i < n && is_digit(b[i]); i++, digits++, exp10--) m = m * 10 + (uint64_t)(b[i] - '0');
    if (digits > 15) return 0;
    if (i < n) { /* e or E: number_shape saw digits after it */
        int eneg = 0, e = 0;
        i++;
        if (b[i] == '+' || b[i] == '-') eneg = b[i++] == '-';
        for (; i < n; i++) {
            e = e * 10 + (b[i] - '0');
            if (e > 400) return 0;
        }
        exp10 += eneg ? -e : e;
    }
    if (exp10 < -22 || exp10 > 22) return 0;
    double x = (double)m;
    x = exp10 < 0 ? x / pow10[-exp10] : x * pow10[exp10];
    *v = neg ? -x : x;
    return 1;
}

static RdStatus read_number(St *s, SrcLoc loc, const char *b, size_t n, int shape, Node **out) {
    if (shape == 1) {
        size_t i = 0;
        int neg = 0;
        if (b[0] == '+' || b[0] == '-') neg = b[i++] == '-';
        uint64_t mag = 0;
        for (; i < n; i++) {
            unsigned d = (unsigned)(b[i] - '0');
            if (mag > (UINT64_MAX - d) / 10) {
                err_int_range(s, loc, b, n);
                return RD_ERROR;
            }
            mag = mag * 10 + d;
        }
        if (neg && mag > (uint64_t)INT64_MAX + 1) {
            err_int_range(s, loc, b, n);
            return RD_ERROR;
        }
        return int_node(s, loc, mag, neg, out);
    }
    double v;
    if (float_fast(b, n, &v)) {
        Node *x = mk(s, N_FLOAT, loc);
        if (!x) return RD_ERROR;
        x->fval = v;
        *out = x;
        return RD_NODE;
    }
    char *t = dup_n(s, b, n);
    if (!t) return RD_ERROR;
    errno = 0;
    char *e;
    v = strtod(t, &e);
    if (errno == ERANGE && (v > 1.0 || v < -1.0)) {
        char tb[64];
        err(s, loc, "E0011", "float literal `%s` is out of range: expected a magnitude below "
            "1.8e308", show(tb, sizeof tb, b, n));
        return RD_ERROR;
    }
    Node *x = mk(s, N_FLOAT, loc);
    if (!x) return RD_ERROR;
    x->fval = v;
    *out = x;
    return RD_NODE;
}

static RdStatus read_keyword(St *s, SrcLoc loc, const char *b, size_t n, Node **out) {
    char tb[64], fb[16];
    if (n == 1) {
        err(s, loc, "E0016", "expected a keyword name after `:`, found %s",
            found_here(s, fb, sizeof fb));
        return RD_ERROR;
    }
    if (memchr(b + 1, ':', n - 1)) {
        err(s, loc, "E0016", "malformed keyword `%s`: expected `:name` with no other `:`",
            show(tb, sizeof tb, b, n));
        return RD_ERROR;
    }
    *out = mk_name_cl(s, N_KEYWORD, loc, b + 1, n - 1, 1);
    return *out ? RD_NODE : RD_ERROR;
}

/* A symbol token, possibly `name:type`, `name:(type ...)` or `a::b`. */
static RdStatus read_symbol(St *s, SrcLoc loc, const char *b, size_t n, unsigned cl, Node **out) {
    char tb[64], fb[16];
    size_t sep = n;  /* index of the single `:` separating name and type */
    for (size_t i = 0; (cl & CL_COLON) && i < n;) {
        if (b[i] != ':') {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && b[j] == ':') j++;
        if (j - i == 1 && sep == n) {
            sep = i;
        } else if (j - i != 2 || j == n) {
            err(s, loc, "E0015", "malformed symbol `%s`: expected `name`, `name:type` or "
                "`kernel::name` (one `:` before a type, `::` inside a name)",
                show(tb, sizeof tb, b, n));
            return RD_ERROR;
        }
        i = j;
    }
    Node *sym = mk_name_cl(s, N_SYMBOL, loc, b, sep, cl & CL_UPPER);
    if (!sym) return RD_ERROR;
    *out = sym;
    if (sep == n) return RD_NODE;
    if (sep + 1 < n && b[sep + 1] == '#') {
        err(s, loc, "E0014", "expected a type after `:` in `%s`, found `#` (a type is a name "
            "or a list)", show(tb, sizeof tb, b, n));
        return RD_ERROR;
    }
    if (sep + 1 < n) {
        SrcLoc tl = srcloc_in(loc.fid, loc.line, (int)loc.col + (int)sep + 1);
        sym->ann = mk_name_cl(s, N_SYMBOL, tl, b + sep + 1, n - sep - 1, cl & CL_UPPER);
        return sym->ann ? RD_NODE : RD_ERROR;
    }
    if (peek(s, 0) != '(') {
        err(s, loc, "E0014", "expected a type after `:` in `%s`, found %s",
            show(tb, sizeof tb, b, n), found_here(s, fb, sizeof fb));
        return RD_ERROR;
    }
    RdStatus st = read_seq(s, N_LIST, 1, &sym->ann);
    return st == RD_NODE ? RD_NODE : st;
}

static RdStatus read_token(St *s, Node **out) {
    SrcLoc loc = here(s);
    const char *b = s->p, *e = b;
    if (b[0] == '|' && peek(s, 1) == '#') {
        s->p += 2;
        err(s, loc, "E0024", "unexpected `|#`: expected a form (no block comment is open)");
        return RD_ERROR;
    }
    unsigned cl = 0, c;
    while (e < s->end && ((c = byte_class[(unsigned char)*e]) & CL_CONST)) {
        cl |= c;
        e++;
    }
    size_t n = (size_t)(e - b);
    s->p = e;  /* tokens hold no newline */
    if (n > READER_MAX_TOKEN) {
        err(s, loc, "E0018", "token longer than 1 MiB (%zu bytes): expected a symbol or "
            "number of at most %zu bytes", n, READER_MAX_TOKEN);
        return RD_ERROR;
    }
    if (b[0] == ':') return read_keyword(s, loc, b, n, out);
    if (starts_like_number(b, n)) {
        int shape = number_shape(b, n);
        if (shape) return read_number(s, loc, b, n, shape, out);
        if (is_digit_symbol(b, n)) return read_symbol(s, loc, b, n, cl, out);
        char tb[64];
        show(tb, sizeof tb, b, n);
        if (n > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X'))
            err(s, loc, "E0009", "malformed number literal `%s`: expected decimal digits "
                "(write hexadecimal as #x%s)", tb, tb + 2);
        else
            err(s, loc, "E0009", "malformed number literal `%s`: expected an integer (42, -7), "
                "a float (1.0, .5, 2.5e3) or a symbol that does not start like a number", tb);
        return RD_ERROR;
    }
    return read_symbol(s, loc, b, n, cl, out);
}

/* #x... / #b...: the cursor is at `#`. */
static RdStatus read_radix(St *s, Node **out) {
    SrcLoc loc = here(s);
    int letter = s->p[1];
    int bits = (letter == 'x' || letter == 'X') ? 4 : 1;
    const char *what = bits == 4 ? "hexadecimal" : "binary";
    const char *b = s->p, *e = s->p + 2;
    while (e < s->end && is_constituent((unsigned char)*e)) e++;
    size_t n = (size_t)(e - b);
    s->p += 2;
    char tb[64], fb[16];
    if (n == 2) {
        err(s, loc, "E0012", "expected %s digits after `#%c`, found %s", what, letter,
            found_here(s, fb, sizeof fb));
        return RD_ERROR;
    }
    s->p = e;
    if (n > READER_MAX_TOKEN) {
        err(s, loc, "E0018", "token longer than 1 MiB (%zu bytes): expected a number of at "
            "most %zu bytes", n, READER_MAX_TOKEN);
        return RD_ERROR;
    }
    uint64_t v = 0;
    int overflow = 0;
    for (size_t i = 2; i < n; i++) {
        int d = hex_value((unsigned char)b[i]);
        if (d < 0 || d >= (1 << bits)) {
            err(s, loc, "E0012", "malformed %s literal `%s`: expected only %s after `#%c`, "
                "found `%c`", what, show(tb, sizeof tb, b, n),
                bits == 4 ? "hex digits 0-9 a-f" : "binary digits 0 and 1", letter, b[i]);
            return RD_ERROR;
        }
        if (v >> (64 - bits)) overflow = 1;
        v = (v << bits) | (uint64_t)d;
    }
    if (overflow) {
        err_int_range(s, loc, b, n);
        return RD_ERROR;
    }
    RdStatus st = int_node(s, loc, v, 0, out);
    if (st == RD_NODE) (*out)->radix = (unsigned char)(bits == 4 ? 16 : 2);
    return st;
}

/* ---- #+ / #- ---- */

static int ascii_ieq(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        int x = (*a >= 'A' && *a <= 'Z') ? *a - 'A' + 'a' : *a;
        int y = (*b >= 'A' && *b <= 'Z') ? *b - 'A' + 'a' : *b;
        if (x != y) return 0;
    }
    return *a == *b;
}

static const char *define_of(const St *s, const char *name) {
    return s->c->opt ? crisp_define(s->c->opt, name) : NULL;
}

static ReaderParam *find_param(Reader *r, const char *name) {
    for (int i = r->nparams - 1; i >= 0; i--)
        if (strcmp(r->params[i].name, name) == 0) return &r->params[i];
    return NULL;
}


static int eval_feature(St *s, const Node *f);

/* eval_feature: a compile-time call, decided after reading (%feature-if). */
#define FEATURE_LATER (-3)

static int eval_target_has(St *s, const Node *f) {
    char tb[64];
    if (f->nkids < 2 || f->nkids > 3) {
        err(s, f->loc, "E0023", "target-has expects a property and an optional default, as in "
            "(target-has :fp64 nil); found %d argument%s", f->nkids - 1,
            f->nkids == 2 ? "" : "s");
        return -1;
    }
    const Node *k = f->kids[1];
    if (k->kind != N_KEYWORD) {
        const char *t = syn_to_string(&s->c->arena, k, 40);
        err(s, k->loc, "E0023", "target-has expects a keyword property such as :fp64, found `%s`",
            show(tb, sizeof tb, t, strlen(t)));
        return -1;
    }
    int has = target_property(k->key);
    if (has >= 0) return has;
    if (has == -1) {
        if (f->nkids == 3) return reader_form_truthy(f->kids[2]);
        err(s, f->loc, "E0021", "target-has :%s is not decided for target oclc (OpenCL C 1.2 "
            "makes it optional); pass a default: (target-has :%s nil)", k->key, k->key);
        return -1;
    }
    err(s, k->loc, "E0022", "unknown target property `:%s` in target-has: expected one of "
        TARGET_PROPERTIES, show(tb, sizeof tb, k->name, strlen(k->name)));
    return -1;
}

static int eval_param(St *s, const Node *f) {
    ReaderParam *p = find_param(s->r, f->name);
    if (p) return p->truthy;
    const char *d = define_of(s, f->name);
    if (d) return reader_text_truthy(d);
    if (ascii_ieq(f->name, "t") || ascii_ieq(f->name, "true")) return 1;
    if (ascii_ieq(f->name, "nil") || ascii_ieq(f->name, "false")) return 0;
    char tb[64];
    show(tb, sizeof tb, f->name, strlen(f->name));
    err(s, f->loc, "E0020", "unknown parameter `%s` in %s (def-parameter it before use or pass "
        "-D%s=...)", tb, s->cond, tb);
    for (int i = 0; i < s->r->nparams; i++)
        if (ascii_ieq(s->r->params[i].name, f->name)) {
            diag_note(&s->c->diag, f->loc, "parameter names are case-sensitive: did you mean `%s`?",
                      s->r->params[i].name);
            break;
        }
    return -1;
}

/* 1 true, 0 false, -1 error (reported). */
static int eval_feature(St *s, const Node *f) {
    char tb[64];
    switch (f->kind) {
    case N_SYMBOL:
        if (!f->ann) return eval_param(s, f);
        break;
    case N_INT:
    case N_FLOAT:
        return reader_form_truthy(f);
    case N_KEYWORD:
        err(s, f->loc, "E0023", "expected a parameter name or feature expression after %s, "
            "found keyword `:%s` (for a target property write (target-has :%s nil))",
            s->cond, show(tb, sizeof tb, f->name, strlen(f->name)), f->key);
        return -1;
    case N_LIST: {
        const char *h = syn_head(f);
        int and_ = h && syn_streq(h, "and"), or_ = h && syn_streq(h, "or");
        if (and_ || or_) {
            int v = and_, bad = 0, later = 0;
            for (int i = 1; i < f->nkids; i++) {
                int x = eval_feature(s, f->kids[i]);
                if (x == FEATURE_LATER) later = 1;
                else if (x < 0) bad = 1;
                else if (and_) v = v && x;
                else v = v || x;
            }
            return bad ? -1 : later ? FEATURE_LATER : v;
        }
        if (h && syn_streq(h, "not")) {
            if (f->nkids != 2) {
                err(s, f->loc, "E0023", "(not ...) in a feature expression expects exactly one "
                    "argument, found %d", f->nkids - 1);
                return -1;
            }
            int x = eval_feature(s, f->kids[1]);
            return x == FEATURE_LATER ? x : x < 0 ? -1 : !x;
        }
        if (h && syn_streq(h, "target-has")) return eval_target_has(s, f);
        /* (is-floating-point? T) and other compile-time calls: decided
           when the form is checked - inside a template, once T is known */
        if (h) return FEATURE_LATER;
        break;
    }
    default:
        break;
    }
    const char *t = syn_to_string(&s->c->arena, f, 40);
    err(s, f->loc, "E0023", "unsupported feature expression `%s` after %s: expected a "
        "parameter name, (target-has :prop [default]), (and ...), (or ...) or (not ...)",
        show(tb, sizeof tb, t, strlen(t)), s->cond);
    return -1;
}

/* #+FEATURE FORM / #-FEATURE FORM: the cursor is at `#`. */
static RdStatus read_conditional(St *s, Node **out) {
    s->r->conditionals++;
    if (!enter(s)) return RD_ERROR;
    SrcLoc loc = here(s);
    int plus = s->p[1] == '+';
    s->p += 2;
    Node *feat;
    RdStatus st = read_subject(s, loc, "a feature expression", plus ? "#+" : "#-", &feat);
    if (st != RD_NODE && st != RD_ERROR) {
        leave(s);
        return st == RD_EOF && s->stop ? RD_EOF : RD_ERROR;
    }
    int keep = 0, bad = st == RD_ERROR, later = 0;
    if (!bad && !s->suppress) {
        s->cond = plus ? "#+" : "#-";
        int v = eval_feature(s, feat);
        if (v == FEATURE_LATER) later = keep = 1;
        else if (v < 0) bad = 1;
        else keep = plus ? v : !v;
    }
    char after[80];
    if (st == RD_NODE) {
        char tb[64];
        const char *t = syn_to_string(&s->c->arena, feat, 40);
        snprintf(after, sizeof after, "%s%s", plus ? "#+" : "#-", show(tb, sizeof tb, t, strlen(t)));
    } else {
        snprintf(after, sizeof after, "%s", plus ? "#+" : "#-");
    }
    if (!keep) s->suppress++;
    Node *x;
    RdStatus st2 = read_subject(s, loc, "a form", after, &x);
    if (!keep) s->suppress--;
    leave(s);
    if (st2 == RD_EOF && s->stop) return RD_EOF;
    if (st2 != RD_NODE || bad) return RD_ERROR;
    if (!keep) return RD_SKIP;
    if (later) {
        /* (%feature-if #+|#- FEATURE FORM): the expander decides it, splicing
           FORM or nothing into the enclosing list (expand.h) */
        Node *k[4] = {mk_name(s, N_SYMBOL, loc, "%feature-if", 11), mk_name(s, N_SYMBOL, loc, plus ? "#+" : "#-", 2),
                      feat, x};
        Node *l = mk(s, N_LIST, loc);
        if (!k[0] || !k[1] || !l || !(l->kids = arena_alloc(&s->c->arena, sizeof(Node *) * 4))) return RD_ERROR;
        memcpy(l->kids, k, sizeof k);
        l->nkids = 4;
        *out = l;
        return RD_NODE;
    }
    *out = x;
    return RD_NODE;
}

static RdStatus read_dispatch(St *s, Node **out) {
    int c1 = peek(s, 1);
    switch (c1) {
    case '\'':
    case '`': return read_prefixed(s, 2, "function", out);
    case '(': return read_seq(s, N_VECLIT, 2, out);
    case '+':
    case '-': return read_conditional(s, out);
    case 'x': case 'X': case 'b': case 'B': return read_radix(s, out);
    case '#':
        if (peek(s, 2) == '(') return read_seq(s, N_HWVEC, 3, out);
        break;
    default: break;
    }
    SrcLoc loc = here(s);
    char fb[16];
    s->p++;
    if (c1 == '#') {
        s->p++;
        err(s, loc, "E0025", "expected `(` after `##` (a hardware vector is ##(a b ...)), "
            "found %s", found_here(s, fb, sizeof fb));
        return RD_ERROR;
    }
    if (c1 < 0 || !is_constituent(c1)) {
        err(s, loc, "E0008", "expected a dispatch character after `#` (one of #' #( ##( #| "
            "#+ #- #x #b), found %s", found_here(s, fb, sizeof fb));
        return RD_ERROR;
    }
    while (!at_end(s) && is_constituent((unsigned char)*s->p)) s->p++;
    err(s, loc, "E0008", "unknown dispatch `#%c`: expected one of #' #( ##( #| #+ #- #x #b", c1);
    return RD_ERROR;
}

/* Read the next datum at this level (after whitespace and comments). */
static RdStatus read_next(St *s, Node **out) {
    *out = NULL;
    skip_atmosphere(s);
    if (s->stop || at_end(s)) return RD_EOF;
    switch (*s->p) {
    case ')': return RD_CLOSE;
    case '(': return read_seq(s, N_LIST, 1, out);
    case '"': return read_string(s, out);
    case '\'': return read_prefixed(s, 1, "quote", out);
    case '`': return read_prefixed(s, 1, "quasiquote", out);
    case ',':
        if (peek(s, 1) == '@') return read_prefixed(s, 2, "unquote-splicing", out);
        return read_prefixed(s, 1, "unquote", out);
    case '#': return read_dispatch(s, out);
    default: return read_token(s, out);
    }
}

/* ---- def-parameter tracking and the public API ---- */

static void track_param(St *s, const Node *n) {
    if (!syn_is_form(n, "def-parameter") || n->nkids < 2 || n->kids[1]->kind != N_SYMBOL) return;
    const char *name = n->kids[1]->name;
    const Node *value = n->nkids >= 3 ? n->kids[2] : NULL;
    const char *d = define_of(s, name);
    int truthy = d ? reader_text_truthy(d) : reader_form_truthy(value);
    Reader *r = s->r;
    ReaderParam *p = find_param(r, name);
    if (!p) {
        if (r->nparams == r->capparams) {
            int cap = r->capparams ? r->capparams * 2 : 16;
            ReaderParam *v = alloc(s, sizeof *v * (size_t)cap);
            if (!v) return;
            if (r->nparams) memcpy(v, r->params, sizeof *v * (size_t)r->nparams);
            r->params = v;
            r->capparams = cap;
        }
        p = &r->params[r->nparams++];
    }
    p->name = name;
    p->value = value;
    p->truthy = truthy;
}

void reader_init(Reader *r, Crisp *c) {
    memset(r, 0, sizeof *r);
    r->c = c;
}

int reader_read_file(Reader *r, const SrcFile *f, Forms *out) {
    Crisp *c = r->c;
    int before = c->diag.errors;
    St s;
    memset(&s, 0, sizeof s);
    s.r = r;
    s.c = c;
    s.f = f;
    s.fid = srcfile_id(f);
    s.p = s.bol = f->text ? f->text : "";
    s.end = s.p + (f->text && f->len > 0 ? f->len : 0);
    if (*s.end) { /* not NUL-terminated (node.h says it is): the scans need it */
        char *t = arena_strndup(&c->arena, s.p, (size_t)(s.end - s.p));
        if (!t) {
            diag_fatal(&c->diag, srcloc_in(s.fid, 0, 0), NULL, "E0099", "out of memory (source too large)");
            return c->diag.errors - before;
        }
        s.p = s.bol = t;
        s.end = t + (s.end - f->text);
    }
    /* (on the heap: 45 KB of frames is more stack than a caller's thread
       may have) */
    s.frames = malloc(sizeof *s.frames * READER_MAX_DEPTH);
    if (!s.frames) {
        diag_fatal(&c->diag, srcloc_in(s.fid, 0, 0), NULL, "E0099", "out of memory (source too large)");
        return c->diag.errors - before;
    }
    s.end8 = (uintptr_t)s.end >= 8 ? (uintptr_t)s.end - 8 : 0;
    s.names = no_names;
    s.firstcap = 1024;
    while (s.firstcap < (size_t)(s.end - s.p) / 48 && s.firstcap < ((size_t)1 << 18)) s.firstcap *= 2;
    s.at = loc_word(srcloc_in(s.fid, 1, 1));
    s.stop = c->diag.fatal;
    while (!s.stop) {
        s.depth = 0;
        s.depth_reported = 0;
        Node *n;
        int errs = c->diag.errors;
        RdStatus st = read_next(&s, &n);
        if (st == RD_EOF) break;
        if (st == RD_CLOSE) {
            err(&s, here(&s), "E0001", "unexpected `)`: expected a form or end of file "
                "(no list is open)");
            adv(&s);
        } else if (st == RD_NODE && c->diag.errors > errs) {
            /* a form with reader errors is dropped whole: checking what is
               left of it would only report follow-on errors */
        } else if (st == RD_NODE) {
            forms_push(&c->arena, out, n);
            if (c->arena.exhausted) oom(&s);
            else track_param(&s, n);
        }
    }
    free(s.stk);
    free(s.frames);
    if (s.capnames) os_pages_free(s.names, s.capnames * sizeof *s.names);
    return c->diag.errors - before;
}

int reader_form_truthy(const Node *n) {
    if (!n) return 0;
    switch (n->kind) {
    case N_INT: return n->ival != 0;
    case N_FLOAT: return n->fval != 0.0;
    case N_SYMBOL: return !(n->key && (syn_streq(n->key, "nil") || syn_streq(n->key, "false")));
    case N_LIST: return n->nkids != 0;
    default: return 1;
    }
}

int reader_text_truthy(const char *text) {
    if (!text || !*text) return 0;
    if (ascii_ieq(text, "nil") || ascii_ieq(text, "false") || syn_streq(text, "()")) return 0;
    size_t n = strlen(text);
    if (number_shape(text, n)) {
        for (size_t i = 0; i < n; i++) {
            if (text[i] == 'e' || text[i] == 'E') break;
            if (text[i] >= '1' && text[i] <= '9') return 1;
        }
        return 0;
    }
    if (n > 2 && text[0] == '#' && strchr("xXbB", text[1])) {
        for (size_t i = 2; i < n; i++)
            if (text[i] != '0') return 1;
        return 0;
    }
    return 1;
}
