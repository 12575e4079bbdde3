/* cnames.c - the identifiers of the checked program.
 *
 * Why it exists: every variable, function, struct and def-const-vec of the
 * checked program needs an identifier the emitted code can use: Lisp names
 * mangled (image-data -> image_data), unique in their scope (BASE_K), and
 * clear of what the target reserves - which the checker does not know:
 * the emitter's TargetNames (types/check.h; emit-oclc/names.c) says. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../macros/expand.h"
#include "consteval.h"

/* What the target reserves (check.h TargetNames; nothing without one). */
int has_reserved_prefix(const Checker *ck, const char *s) {
    return ck->names && ck->names->reserved_prefix(s);
}

int is_reserved(const Checker *ck, const char *s) {
    return ck->names && ck->names->reserved(s);
}

/* Lisp name to C identifier: dashes become underscores, `?` `_p`, `!` `_x`,
 * `*` `_star`, `+` `_plus`, other punctuation `_`. */
const char *mangle(Arena *a, const char *s) {
    if (!strcmp(s, "~")) return "elem"; /* an overload of element access */
    char buf[512];
    size_t o = 0;
    for (const char *p = s; *p && o < sizeof buf - 8; p++) {
        unsigned char ch = (unsigned char)*p;
        if (isalnum(ch) || ch == '_') buf[o++] = (char)ch;
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
    if (!*q) q = "v";
    if (isdigit((unsigned char)*q)) return arena_printf(a, "v%s", q);
    return arena_strdup(a, q);
}

/* The live counts of one base's _K suffixes (index K; 0 unused). */
typedef struct NameSuffixes {
    int *count;
    int cap;
} NameSuffixes;

/* BASE_K with K a positive number without leading zeros: its K, and the
 * length of BASE; else 0. */
static int name_suffix(const char *nm, size_t *baselen) {
    const char *u = strrchr(nm, '_');
    if (!u || u == nm || u[1] < '1' || u[1] > '9') return 0;
    char *end;
    long k = strtol(u + 1, &end, 10);
    if (*end || k <= 0 || k >= 1000000000) return 0;
    *baselen = (size_t)(u - nm);
    return (int)k;
}

static void names_count(Arena *a, NameTable *t, const char *nm, int delta) {
    intptr_t c = (intptr_t)strmap_get(&t->live, nm);
    strmap_put(a, &t->live, nm, (void *)(c + delta));
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

/* Names taken after `mark` die (a braced block closed). */
void names_rollback(Arena *a, NameTable *t, int mark) {
    while (t->n > mark) names_count(a, t, t->names[--t->n], -1);
}

/* A C name not used yet in `t` (adds it): BASE, or BASE_K with K one more
 * than the highest live suffix. */
const char *unique_name(Checker *ck, NameTable *t, const char *base) {
    Arena *a = ck->a;
    /* a base reserved by its prefix (crisp_*, __*) stays reserved with any
       suffix: move it out of the reserved space first */
    if (has_reserved_prefix(ck, base)) base = arena_printf(a, "u_%s", base);
    int taken = is_reserved(ck, base) || (intptr_t)strmap_get(&t->live, base) > 0, maxk = 1;
    NameSuffixes *sx = strmap_get(&t->suffixes, base);
    for (int k = sx ? sx->cap - 1 : 0; k > 1 && maxk == 1; k--)
        if (sx->count[k] > 0) maxk = k;
    const char *cand = taken ? arena_printf(a, "%s_%d", base, maxk + 1) : base;
    arena_push(a, (void ***)&t->names, &t->n, &t->cap, (void *)cand);
    names_count(a, t, cand, 1);
    return cand;
}

/* Record a name taken as it is (a kernel keeps its own). */
void names_take(Arena *a, NameTable *t, const char *nm) {
    arena_push(a, (void ***)&t->names, &t->n, &t->cap, (void *)nm);
    names_count(a, t, nm, 1);
}

const char *local_cname(Ctx *cx, const char *crisp_name) {
    if (crisp_name[0] == '%') {
        /* a gensym (%limit12): its digits only made it unique among Crisp
           symbols; the C name is made unique below */
        size_t n = strlen(crisp_name);
        while (n > 2 && crisp_name[n - 1] >= '0' && crisp_name[n - 1] <= '9') n--;
        crisp_name = arena_strndup(cx->ck->a, crisp_name, n);
        if (!strcmp(crisp_name, "%g")) crisp_name = "%tmp";
    }
    const char *base = mangle(cx->ck->a, crisp_name);
    /* locals must not collide with file-scope names either: functions
       and kernels, including those not instantiated yet */
    int clash = (intptr_t)strmap_get(&cx->ck->cnames.live, base) > 0 || strmap_get(&cx->ck->fnbases, base);
    if (clash) base = arena_printf(cx->ck->a, "%s_v", base);
    /* __local arrays live at kernel scope: their names are never free
       again, even after the block that made them (uniform slots) */
    const char *name = unique_name(cx->ck, &cx->names, base);
    for (int k = 2, i = 0; cx->fn && i < cx->fn->nlocal && k < 1000; i++)
        if (!strcmp(cx->fn->local_arrays[i]->cname, name)) {
            name = unique_name(cx->ck, &cx->names, arena_printf(cx->ck->a, "%s_%d", base, k++));
            i = -1;
        }
    return name;
}
