/* names.c - how the identifiers of the emitted OpenCL C are spelled
 * (names.h), and what they must not be.
 *
 * Why it exists: every definition and variable of the checked program
 * ends up as an identifier in OpenCL C source, next to the language's
 * keywords and built-ins, the macros of the OpenCL C headers and crisp's
 * own support code.  The checker says which things need a name, in which
 * name space, and which name derives from which (the TargetNames seam of
 * types/check.h); this file is the one place that spells them - Lisp
 * names mangled, BASE_K to make a name unique, reserved words avoided -
 * so the checker stays target-neutral. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctext.h"
#include "names.h"
#include "../core/syntax.h"

/* C keywords, OpenCL C types and built-ins a user name must not take
 * (looked up through reserved_set below). */
static const char *const reserved_c[] = {
    "__kernel", "abs", "acos", "asin", "atan", "auto", "barrier", "bool", "break", "case", "ceil",
    "char", "clamp", "const", "constant", "continue", "cos", "cross", "default", "distance", "do",
    "dot", "double", "else", "enum", "event_t", "exp", "extern", "fabs", "false", "float", "floor",
    "fma", "for", "get_global_id", "get_global_offset", "get_global_size", "get_group_id",
    "get_local_id", "get_local_size", "get_num_groups", "get_work_dim", "global", "goto", "half",
    "if", "image2d_t", "image3d_t", "inline", "int", "intptr_t", "kernel", "length", "local",
    "log", "log2", "long", "mad", "main", "max", "mem_fence", "min", "mix", "normalize", "pow",
    "printf", "private", "ptrdiff_t", "read_only", "read_write", "register", "restrict", "return",
    "round", "rsqrt", "sampler_t", "select", "short", "sign", "signed", "sin", "size_t", "sizeof",
    "sqrt", "static", "step", "struct", "switch", "tan", "true", "trunc", "typedef", "uchar",
    "uint", "uintptr_t", "ulong", "union", "unsigned", "ushort", "vload", "void", "volatile",
    "vstore", "while", "write_only",
};

/* Prefixes the OpenCL C headers take for macros (M_PI, FLT_MAX, CLK_...)
 * and crisp takes for its support code: no user name may start with them. */
static const char *reserved_prefix[] = {"crisp_", "__", "M_", "FLT_", "DBL_", "HALF_", "CL_", "CLK_", "CHAR_",
                                        "SCHAR_", "UCHAR_", "SHRT_", "USHRT_", "INT_", "UINT_", "LONG_", "ULONG_",
                                        "MAX", "HUGE_", NULL};

int oclc_reserved_prefix(const char *s) {
    /* most names are out after one comparison (issue 14: this is asked
       for every name the checker makes) */
    switch (s[0]) { /* the first letters of reserved_prefix (keep them in step) */
    case 'c': case '_': case 'M': case 'F': case 'D': case 'H': case 'C': case 'S': case 'U': case 'I': case 'L': break;
    default: return 0;
    }
    for (int i = 0; reserved_prefix[i]; i++) {
        const char *p = reserved_prefix[i], *q = s;
        if (*p != *q) continue;
        while (*p && *p == *q) p++, q++;
        if (!*p) return 1;
    }
    return 0;
}

/* The reserved words (reserved_c and the upper-case macros of the
 * OpenCL C headers) in an open-addressed set made once: the checker asks
 * for every name it makes, and a binary search of strcmp's was most of
 * oclc_unique's cost (issue 14). */
#define RESERVED_SLOTS 512 /* a power of two, over twice the words */
static const char *reserved_set[RESERVED_SLOTS];
static pthread_once_t reserved_once = PTHREAD_ONCE_INIT;

static uint32_t word_hash(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void reserved_add(const char *w) {
    uint32_t j = word_hash(w) & (RESERVED_SLOTS - 1);
    while (reserved_set[j]) j = (j + 1) & (RESERVED_SLOTS - 1);
    reserved_set[j] = w;
}

static void reserved_build(void) {
    static const char *macros[] = {"NULL", "INFINITY", "NAN", "MAXFLOAT", "CHAR_BIT", "FP_FAST_FMA"};
    for (size_t i = 0; i < sizeof reserved_c / sizeof reserved_c[0]; i++) reserved_add(reserved_c[i]);
    for (size_t i = 0; i < sizeof macros / sizeof macros[0]; i++) reserved_add(macros[i]);
}

static atomic_int reserved_built; /* set (release) once reserved_build ran */

static void reserved_build_once(void) {
    reserved_build();
    atomic_store_explicit(&reserved_built, 1, memory_order_release);
}

int oclc_reserved(const char *s) {
    /* pthread_once is a call per name: a flag first */
    if (!atomic_load_explicit(&reserved_built, memory_order_acquire)) pthread_once(&reserved_once, reserved_build_once);
    for (uint32_t j = word_hash(s) & (RESERVED_SLOTS - 1); reserved_set[j]; j = (j + 1) & (RESERVED_SLOTS - 1))
        if (reserved_set[j][0] == s[0] && syn_streq(reserved_set[j], s)) return 1;
    return oclc_reserved_prefix(s);
}

/* Lisp name to C identifier: dashes become underscores, `?` `_p`, `!` `_x`,
 * `*` `_star`, `+` `_plus`, other punctuation `_`. */
const char *oclc_spell(Arena *a, const char *s) {
    if (syn_streq(s, "~")) return "elem"; /* an overload of element access */
    char buf[512];
    size_t o = 0;
    for (const char *p = s; *p && o < sizeof buf - 8; p++) {
        unsigned char ch = (unsigned char)*p;
        /* isalnum in the C locale (crisp never sets another), without
           its table's call per byte */
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z') || ch == '_') buf[o++] = (char)ch;
        else if (ch == '-') buf[o++] = '_';
        else {
            const char *r = ch == '?' ? "_p" : ch == '!' ? "_x" : ch == '*' ? "_star" : ch == '+' ? "_plus" : ch == '%' ? "_" : "_";
            if (ch == '+' && (p == s || !p[1])) continue; /* +PI+ -> PI */
            for (; *r && o < sizeof buf - 1; r++) buf[o++] = *r;
        }
    }
    buf[o] = 0;
    /* collapse leading underscores and a leading digit */
    char *q = buf;
    while (*q == '_') q++; /* no leading underscores: __ names are reserved */
    if (!*q) return arena_strdup(a, "v");
    if (*q >= '0' && *q <= '9') return arena_printf(a, "v%s", q);
    return arena_strndup(a, q, (size_t)(buf + o - q));
}

/* X, then SEP, then Y, in the arena: what arena_printf("%s_%s") made, at a
 * fraction of its cost (issue 14: a name is joined per declaration). */
static char *join3(Arena *a, const char *x, char sep, const char *y) {
    if (!x) x = "(null)"; /* as printf spells it */
    if (!y) y = "(null)";
    size_t nx = strlen(x), ny = strlen(y);
    char *r = arena_alloc(a, nx + ny + 2);
    if (!r) return NULL;
    memcpy(r, x, nx);
    r[nx] = sep;
    memcpy(r + nx + 1, y, ny + 1);
    return r;
}

/* BASE_PART: x_len, image_data_off, phylum_chordata, twice_int. */
const char *oclc_join(Arena *a, const char *base, const char *part) {
    return join3(a, base, '_', part);
}

/* T's C name; while checking, an enumeration or a struct has no identifier
 * yet (the naming pass gives it later): its spelled Crisp name, the one it
 * will get. */
static const char *type_word(Arena *a, const Type *t) {
    if (t->kind == TY_ENUM && !t->ed->cname) return oclc_spell(a, t->ed->name);
    if (t->kind == TY_STRUCT && !t->sd->cname) return oclc_spell(a, t->sd->name);
    return oclc_type_name(t);
}

/* The type's C name (int, float4, a struct's); a vector is its element's
 * with `vec` (floatvec) or `_soa`, or its derived type's name. */
const char *oclc_type_part(Arena *a, const Type *t) {
    if (t->kind != TY_VECTOR) return type_word(a, t);
    if (t->tag) return oclc_spell(a, t->tag);
    if (!t->elem) return "vec";
    return arena_printf(a, t->soa ? "%s_soa" : "%svec", type_word(a, t->elem));
}

const char *oclc_member(Arena *a, const char *path, const char *field) {
    return join3(a, path, '.', field);
}

/* The names a table has room for when made (strmap_reserve). */
#define NAMES_FIRST 7

/* The live counts of one base's _K suffixes (index K; 0 unused). */
typedef struct NameSuffixes {
    int *count;
    int cap;
} NameSuffixes;

/* BASE_K with K a positive number without leading zeros: its K, and the
 * length of BASE; else 0. */
static int name_suffix(const char *nm, size_t *baselen) {
    /* the digits at the end, then the last `_` (issue 14: strrchr and
       strtol made most of the cost of taking a name) */
    size_t n = strlen(nm), d = n;
    while (d > 0 && nm[d - 1] >= '0' && nm[d - 1] <= '9') d--;
    if (d == n || n - d > 9 || d < 2 || nm[d - 1] != '_' || nm[d] == '0') return 0;
    int k = 0;
    for (size_t i = d; i < n; i++) k = k * 10 + (nm[i] - '0');
    *baselen = d - 1;
    return k;
}

static void names_count(Arena *a, NameTable *t, const char *nm, int delta) {
    /* a function's table is made with room for the names most take (issue
       14: grown from 8 by doubling, its names were hashed again each time) */
    if (!t->live.cap) strmap_reserve(a, &t->live, NAMES_FIRST);
    void **live = strmap_slot(a, &t->live, nm);
    if (live) *live = (void *)((intptr_t)*live + delta);
    size_t bl;
    int k = name_suffix(nm, &bl);
    if (!k) return;
    const char *base = arena_strndup(a, nm, bl);
    NameSuffixes *sx = strmap_get(&t->suffixes, base);
    if (!sx) {
        if (!(sx = arena_alloc(a, sizeof *sx))) return;
        strmap_put(a, &t->suffixes, base, sx);
    }
    if (k >= sx->cap) {
        int ncap = sx->cap ? sx->cap : 8;
        while (ncap <= k) ncap *= 2;
        int *nc = arena_alloc(a, sizeof *nc * (size_t)ncap);
        if (!nc) return;
        if (sx->cap) memcpy(nc, sx->count, sizeof *nc * (size_t)sx->cap);
        sx->count = nc;
        sx->cap = ncap;
    }
    sx->count[k] += delta;
}

void oclc_rollback(Arena *a, NameTable *t, int mark) {
    while (t->n > mark) names_count(a, t, t->names[--t->n], -1);
}

void oclc_take(Arena *a, NameTable *t, const char *nm) {
    if (t->n == t->cap) {
        /* grown through the arena's blocks: the array it outgrows (nothing
           else refers to it) serves the next table, as a function's whole
           table does once it is checked (issue 14) */
        int nc = t->cap ? t->cap * 2 : 4;
        const char **v = arena_alloc_block(a, sizeof *v * (size_t)nc);
        if (!v) {
            a->exhausted = 1; /* as arena_push: the name is dropped */
            return;
        }
        if (t->n) memcpy(v, t->names, sizeof *v * (size_t)t->n);
        arena_give_back(a, (void *)t->names, sizeof *v * (size_t)t->cap);
        t->names = v;
        t->cap = nc;
    }
    t->names[t->n++] = nm;
    names_count(a, t, nm, 1);
}

/* BASE, or BASE_K with K one more than the highest live suffix. */
const char *oclc_unique(Arena *a, const TargetNames *tn, NameTable *t, const char *base) {
    /* a base reserved by its prefix (crisp_*, __*) stays reserved with any
       suffix: move it out of the reserved space first */
    if (tn->reserved_prefix(base)) base = arena_printf(a, "u_%s", base);
    int taken = tn->reserved(base) || (intptr_t)strmap_get(&t->live, base) > 0, maxk = 1;
    NameSuffixes *sx = strmap_get(&t->suffixes, base);
    for (int k = sx ? sx->cap - 1 : 0; k > 1 && maxk == 1; k--)
        if (sx->count[k] > 0) maxk = k;
    const char *cand = taken ? arena_printf(a, "%s_%d", base, maxk + 1) : base;
    oclc_take(a, t, cand);
    return cand;
}

/* Letters, digits and underscores, `o_` before a leading digit: a C and a
 * Python identifier (the hoists' orchestration functions). */
const char *oclc_host_ident(Arena *a, const char *name) {
    char *s = arena_strdup(a, name);
    if (!s) return name;
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) *p = '_';
    if (*s >= '0' && *s <= '9') return arena_printf(a, "o_%s", s);
    return s;
}

/* The variables of crisp's support code (emit-oclc/warps.c prints the
 * functions that take them). */
const char *oclc_support(const char *what) {
    if (syn_streq(what, "warp-memory")) return "crisp_warp_mem";
    if (syn_streq(what, "warp-memory-length")) return "crisp_warp_mem_len";
    return NULL;
}

const TargetNames oclc_names = {
    .language = "OpenCL C", .reserved = oclc_reserved, .reserved_prefix = oclc_reserved_prefix, .spell = oclc_spell,
    .join = oclc_join, .type_part = oclc_type_part, .member = oclc_member, .unique = oclc_unique,
    .take = oclc_take, .rollback = oclc_rollback, .host_ident = oclc_host_ident};

/* ---- the naming pass (names.h) ---- */

void oclc_name_program(Program *p, Arena *a) {
    for (int i = 0; i < p->nstructs; i++) {
        StructDef *sd = p->structs[i];
        if (!sd->cname) sd->cname = oclc_spell(a, sd->name);
        /* a derived type shares its original's fields */
        for (int j = 0; j < sd->nfields; j++)
            if (!sd->fields[j].cname) sd->fields[j].cname = oclc_spell(a, sd->fields[j].name);
    }
    for (int i = 0; i < p->nenums; i++) {
        EnumDef *ed = p->enums[i];
        if (ed->cname) continue; /* named already */
        ed->cname = oclc_spell(a, ed->name);
        ed->cnames = arena_alloc(a, sizeof(char *) * (size_t)(ed->nkeys ? ed->nkeys : 1));
        if (!ed->cnames) return;
        for (int j = 0; j < ed->nkeys; j++) ed->cnames[j] = oclc_join(a, ed->cname, oclc_spell(a, ed->key_names[j]));
    }
    /* the __local words of the local-memory warp lowering: a variable of
       crisp's support code, whose prefix no user name takes */
    for (int i = 0; i < p->nfuncs; i++) {
        Sym *m = cfunc_rare(p->funcs[i])->warp_mem;
        if (m && !m->cname) {
            m->cname = oclc_support("warp-memory");
            m->len_cname = oclc_support("warp-memory-length");
        }
    }
}
