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
 * and crisp takes for its support code: no user name may start with them:
 * crisp_ __ M_ FLT_ DBL_ HALF_ CL_ CLK_ CHAR_ SCHAR_ UCHAR_ SHRT_ USHRT_
 * INT_ UINT_ LONG_ ULONG_ MAX HUGE_ (oclc_reserved_prefix, by first letter). */

static inline int has_prefix(const char *s, const char *p) {
    while (*p && *p == *s) p++, s++;
    return !*p;
}

int oclc_reserved_prefix(const char *s) {
    /* most names are out after one comparison, the others after the
       prefixes of their first letter (issue 14: this is asked for every
       name the checker makes; a loop over every prefix of the letter's
       was 20 instructions a name) - the prefixes above, by first letter */
    switch (s[0]) {
    case 'c': return has_prefix(s, "crisp_");
    case '_': return s[1] == '_';
    case 'M': return s[1] == '_' || (s[1] == 'A' && s[2] == 'X');
    case 'F': return has_prefix(s, "FLT_");
    case 'D': return has_prefix(s, "DBL_");
    case 'H': return has_prefix(s, "HALF_") || has_prefix(s, "HUGE_");
    case 'C': return has_prefix(s, "CL_") || has_prefix(s, "CLK_") || has_prefix(s, "CHAR_");
    case 'S': return has_prefix(s, "SCHAR_") || has_prefix(s, "SHRT_");
    case 'U': return has_prefix(s, "UCHAR_") || has_prefix(s, "USHRT_") || has_prefix(s, "UINT_") || has_prefix(s, "ULONG_");
    case 'I': return has_prefix(s, "INT_");
    case 'L': return has_prefix(s, "LONG_");
    default: return 0;
    }
}

/* The reserved words (reserved_c and the upper-case macros of the
 * OpenCL C headers) in an open-addressed set made once: the checker asks
 * for every name it makes, and a binary search of strcmp's was most of
 * oclc_unique's cost (issue 14). */
#define RESERVED_SLOTS 512 /* a power of two, over twice the words */
static const char *reserved_set[RESERVED_SLOTS];
static pthread_once_t reserved_once = PTHREAD_ONCE_INIT;

/* A name taken is hashed once (strmap_hash), for this set and the name
 * tables alike. */

static void reserved_add(const char *w) {
    uint32_t j = strmap_hash(w) & (RESERVED_SLOTS - 1);
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

/* Whether S (hashed H by word_hash) is one of the reserved words. */
static inline int reserved_word(const char *s, uint32_t h) {
    /* pthread_once is a call per name: a flag first */
    if (!atomic_load_explicit(&reserved_built, memory_order_acquire)) pthread_once(&reserved_once, reserved_build_once);
    for (uint32_t j = h & (RESERVED_SLOTS - 1); reserved_set[j]; j = (j + 1) & (RESERVED_SLOTS - 1))
        if (reserved_set[j][0] == s[0] && syn_streq(reserved_set[j], s)) return 1;
    return 0;
}

int oclc_reserved(const char *s) {
    return reserved_word(s, strmap_hash(s)) || oclc_reserved_prefix(s);
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

/* The slots of a table when made (a power of two: room for 15 names,
 * as strmap_reserve(a, m, 7) made it). */
#define NAMES_SLOTS 32
/* The first array of a table's names in order (most functions take fewer:
 * grown from 4, a function's array was made two or three times). */
#define NAMES_ORDER_FIRST 16

/* The live counts of one base's _K suffixes (index K; 0 unused). */
typedef struct NameSuffixes {
    int *count;
    int cap;
} NameSuffixes;

/* What taking a name needs to know of it, from one pass over its bytes
 * (and a second over BASE of the few BASE_K names; issue 14: a name was
 * hashed three or four times, and measured again for its suffix, per
 * name taken). */
typedef struct NameScan {
    size_t len;
    uint32_t hash;     /* strmap_hash */
    int k;             /* BASE_K with K a positive number without leading zeros: K; else 0 */
    size_t baselen;    /* with k: BASE's length and hash */
    uint32_t basehash;
} NameScan;

static inline void name_scan(const char *nm, NameScan *s) {
    uint32_t h = STRMAP_HASH0;
    size_t n = 0;
    for (; nm[n]; n++) h = strmap_hash_step(h, (unsigned char)nm[n]);
    s->len = n;
    s->hash = h;
    s->k = 0;
    /* the digits at the end, then the `_` before them (most names end in
       a letter: one test) */
    size_t d = n;
    while (d > 0 && nm[d - 1] >= '0' && nm[d - 1] <= '9') d--;
    if (d == n || n - d > 9 || d < 2 || nm[d - 1] != '_' || nm[d] == '0') return;
    int k = 0;
    for (size_t i = d; i < n; i++) k = k * 10 + (nm[i] - '0');
    uint32_t hb = STRMAP_HASH0;
    for (size_t i = 0; i < d - 1; i++) hb = strmap_hash_step(hb, (unsigned char)nm[i]);
    s->k = k;
    s->baselen = d - 1;
    s->basehash = hb;
}

/* The entry of M whose key is the LEN bytes at KEY (hashed H by
 * strmap_hash), or the empty entry where it would go.  M is a core/strmap
 * table (linear probing in a power-of-two array, strmap.h), probed here
 * with the hash the caller has and a key that need not end at LEN; the
 * checker reads the same tables with strmap_get. */
static inline StrMapEnt *name_entry(const StrMap *m, const char *key, size_t len, uint32_t h) {
    uint32_t mask = (uint32_t)m->cap - 1;
    for (uint32_t j = h & mask;; j = (j + 1) & mask) {
        StrMapEnt *e = &m->ents[j];
        if (!e->key || e->key == key) return e;
        size_t i = 0;
        while (i < len && e->key[i] == key[i]) i++;
        if (i == len && !e->key[len]) return e;
    }
}

static void *entry_val(const StrMapEnt *e) {
    return e->key ? e->val : NULL;
}

/* The entry of KEY in M, made (holding NULL, with the key copied when
 * COPY) when it is not there; NULL when out of memory. */
static StrMapEnt *name_slot(Arena *a, StrMap *m, const char *key, size_t len, uint32_t h, int copy) {
    if ((m->n + 1) * 2 >= m->cap && !strmap_reserve(a, m, m->n + 1)) return NULL;
    StrMapEnt *e = name_entry(m, key, len, h);
    if (!e->key) {
        if (copy && !(key = arena_strndup(a, key, len))) return NULL;
        e->key = key;
        e->val = NULL;
        m->n++;
    }
    return e;
}

/* Whether T's live table has room for one more name (made with room for
 * the names most functions take, issue 14: grown from 8 by doubling, its
 * names were hashed again each time); 0 when out of memory. */
static inline int live_room(Arena *a, NameTable *t) {
    StrMap *m = &t->live;
    if (!m->cap) {
        /* made directly, not through strmap_reserve: one per function */
        if (!(m->ents = arena_alloc_block(a, sizeof *m->ents * NAMES_SLOTS))) return 0;
        m->cap = NAMES_SLOTS;
        return 1;
    }
    return (m->n + 1) * 2 < m->cap || strmap_reserve(a, m, m->n + 1);
}

/* DELTA to the live count of NM (scanned S) and of its suffix; LIVE is
 * its entry in t->live when the caller probed for it (after live_room),
 * else NULL. */
static inline void names_count(Arena *a, NameTable *t, const char *nm, const NameScan *s, StrMapEnt *live, int delta) {
    if (!live && live_room(a, t)) live = name_entry(&t->live, nm, s->len, s->hash);
    if (live) {
        if (!live->key) {
            live->key = nm;
            live->val = NULL;
            t->live.n++;
        }
        live->val = (void *)((intptr_t)live->val + delta);
    }
    int k = s->k;
    if (!k) return;
    StrMapEnt *e = name_slot(a, &t->suffixes, nm, s->baselen, s->basehash, 1);
    if (!e) return;
    NameSuffixes *sx = e->val;
    if (!sx) {
        if (!(sx = arena_alloc(a, sizeof *sx))) return;
        e->val = sx;
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
    while (t->n > mark) {
        const char *nm = t->names[--t->n];
        NameScan s;
        name_scan(nm, &s);
        names_count(a, t, nm, &s, NULL, -1);
    }
}

/* NM (scanned S, its live entry LIVE or NULL) taken. */
static inline void take_scanned(Arena *a, NameTable *t, const char *nm, const NameScan *s, StrMapEnt *live) {
    if (t->n == t->cap) {
        /* grown through the arena's blocks: the array it outgrows (nothing
           else refers to it) serves the next table, as a function's whole
           table does once it is checked (issue 14) */
        int nc = t->cap ? t->cap * 2 : NAMES_ORDER_FIRST;
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
    names_count(a, t, nm, s, live, 1);
}

void oclc_take(Arena *a, NameTable *t, const char *nm) {
    NameScan s;
    name_scan(nm, &s);
    take_scanned(a, t, nm, &s, NULL);
}

/* BASE, or BASE_K with K one more than the highest live suffix. */
const char *oclc_unique(Arena *a, const TargetNames *tn, NameTable *t, const char *base) {
    /* a base reserved by its prefix (crisp_*, __*) stays reserved with any
       suffix: move it out of the reserved space first */
    if (tn->reserved_prefix(base)) base = arena_printf(a, "u_%s", base);
    NameScan s;
    name_scan(base, &s);
    /* OpenCL C's own words by the hash at hand (the prefixes were seen to
       above: neither a base without one nor u_* has one) */
    int reserved = tn->reserved == oclc_reserved && tn->reserved_prefix == oclc_reserved_prefix ? reserved_word(base, s.hash)
                                                                                                 : tn->reserved(base);
    /* the name's live entry, found once for the question and the taking */
    StrMapEnt *live = live_room(a, t) ? name_entry(&t->live, base, s.len, s.hash) : NULL;
    int taken = reserved || (live && (intptr_t)entry_val(live) > 0), maxk = 1;
    NameSuffixes *sx = t->suffixes.cap ? entry_val(name_entry(&t->suffixes, base, s.len, s.hash)) : NULL;
    for (int k = sx ? sx->cap - 1 : 0; k > 1 && maxk == 1; k--)
        if (sx->count[k] > 0) maxk = k;
    if (!taken) {
        take_scanned(a, t, base, &s, live);
        return base;
    }
    const char *cand = arena_printf(a, "%s_%d", base, maxk + 1);
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
