/* cnames.c - which things of the checked program get an identifier, and
 * in which name space.
 *
 * Why it exists: every variable, function, struct and def-const-vec of the
 * checked program needs an identifier the emitted code can use, unique in
 * its scope (spec "def-function": functions take Lisp-style names, case
 * insensitive; "def-kernel": a kernel keeps its C-style name, which the
 * host calls it by; a gensym's digits only make it unique among symbols).
 * The checker decides which things are named, in which name space (file
 * scope, a function, a braced block) and which name derives from which;
 * the spelling - Lisp names mangled, the suffix that makes a name unique,
 * what the target reserves - is the target's TargetNames (types/check.h;
 * emit-oclc/names.c for OpenCL C).  Without a target the program keeps
 * Crisp's own names: crisp_names below.  This file is the only one of the
 * checker that calls the hooks (scripts/check_layers.py checks it), so its
 * functions below list everything the checker still asks the target;
 * structs and enumerations are named by the target's own naming pass after
 * checking (emit-oclc/names.h oclc_name_program). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../macros/expand.h"
#include "consteval.h"

/* ---- crisp_names: no target, the names as Crisp writes them ---- */

static int crisp_reserved(const char *s) {
    (void)s;
    return 0;
}

static const char *crisp_spell(Arena *a, const char *s) {
    return arena_strdup(a, s);
}

static const char *crisp_join(Arena *a, const char *base, const char *part) {
    return arena_printf(a, "%s-%s", base, part);
}

/* Crisp's type name; a vector is its element's with -vector (float-vector)
 * or -soa, or its derived type's name. */
static const char *crisp_type_part(Arena *a, const Type *t) {
    if (t->kind != TY_VECTOR) return ty_name(a, t);
    if (t->tag) return t->tag;
    if (!t->elem) return "vector";
    return arena_printf(a, t->soa ? "%s-soa" : "%s-vector", ty_name(a, t->elem));
}

static const char *crisp_member(Arena *a, const char *path, const char *field) {
    return arena_printf(a, "(%s %s)", field, path);
}

static void crisp_take(Arena *a, NameTable *t, const char *nm) {
    arena_push(a, (void ***)&t->names, &t->n, &t->cap, (void *)nm);
    strmap_put(a, &t->live, nm, (void *)((intptr_t)strmap_get(&t->live, nm) + 1));
}

static void crisp_rollback(Arena *a, NameTable *t, int mark) {
    while (t->n > mark) {
        const char *nm = t->names[--t->n];
        strmap_put(a, &t->live, nm, (void *)((intptr_t)strmap_get(&t->live, nm) - 1));
    }
}

/* NAME, or NAME#K (no Crisp symbol has a `#`) with the first K free. */
static const char *crisp_unique(Arena *a, const TargetNames *tn, NameTable *t, const char *base) {
    (void)tn;
    const char *cand = base;
    for (int k = 2; (intptr_t)strmap_get(&t->live, cand) > 0; k++) cand = arena_printf(a, "%s#%d", base, k);
    crisp_take(a, t, cand);
    return cand;
}

static const char *crisp_host_ident(Arena *a, const char *name) {
    return arena_strdup(a, name);
}

const TargetNames crisp_names = {
    .language = "Crisp", .reserved = crisp_reserved, .reserved_prefix = crisp_reserved, .spell = crisp_spell,
    .join = crisp_join, .type_part = crisp_type_part, .member = crisp_member, .unique = crisp_unique,
    .take = crisp_take, .rollback = crisp_rollback, .host_ident = crisp_host_ident};

/* ---- the checker's side of the seam ---- */

/* What the target reserves (check.h TargetNames). */
int ck_has_reserved_prefix(const Checker *ck, const char *s) {
    return ck->names->reserved_prefix(s);
}

int ck_is_reserved(const Checker *ck, const char *s) {
    return ck->names->reserved(s);
}

const char *ck_mangle(const Checker *ck, const char *crisp_name) {
    return ck->names->spell(ck->a, crisp_name);
}

const char *ck_name_join(Checker *ck, const char *base, const char *part) {
    /* the same pointers join to the same string (a parameter `a` of many
       functions and its "len"): remembered, a string no one writes to */
    uint64_t h = ((uint64_t)(uintptr_t)base * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(uintptr_t)part * 0xC2B2AE3D27D4EB4Full);
    JoinMemo *m = &ck->joins[(h >> 56) & (JOIN_MEMO_SLOTS - 1)];
    if (m->base == base && m->part == part) return m->joined;
    const char *j = ck->names->join(ck->a, base, part);
    *m = (JoinMemo){base, part, j};
    return j;
}

const char *ck_type_part(const Checker *ck, const Type *t) {
    return ck->names->type_part(ck->a, t);
}

void ck_names_rollback(Checker *ck, NameTable *t, int mark) {
    ck->names->rollback(ck->a, t, mark);
}

const char *ck_unique_name(Checker *ck, NameTable *t, const char *base) {
    return ck->names->unique(ck->a, ck->names, t, base);
}

/* A function's names are dead once it is checked: its table, when small
 * (most functions'), is emptied in place and serves the next function
 * (Checker.spare_names); a large one goes back to the arena (issue 14: a
 * release and two new blocks per function, 2 M instructions at 1 MB). */
#define NAMES_KEEP_SLOTS 64

void ck_names_release(Checker *ck, NameTable *t) {
    NameTable *spare = &ck->spare_names;
    if (!spare->live.cap && t->live.cap <= NAMES_KEEP_SLOTS && t->suffixes.cap <= NAMES_KEEP_SLOTS) {
        strmap_clear(&t->live);
        strmap_clear(&t->suffixes);
        t->n = 0;
        *spare = *t;
    } else {
        strmap_release(ck->a, &t->live);
        strmap_release(ck->a, &t->suffixes);
        if (t->cap) arena_give_back(ck->a, (void *)t->names, sizeof(const char *) * (size_t)t->cap);
    }
    *t = (NameTable){0};
}

NameTable ck_names_fresh(Checker *ck) {
    NameTable t = ck->spare_names;
    ck->spare_names = (NameTable){0};
    return t;
}

void ck_names_take(Checker *ck, NameTable *t, const char *nm) {
    ck->names->take(ck->a, t, nm);
}

const char *ck_names_member(const Checker *ck, const char *path, const char *field) {
    return ck->names->member(ck->a, path, field);
}

const char *ck_names_host_ident(const Checker *ck, const char *name) {
    return ck->names->host_ident(ck->a, name);
}

const char *ck_names_language(const Checker *ck) {
    return ck->names->language;
}

/* A local's Crisp name spelled by the target, and the spelling's hash
 * (Checker.spelled). */
typedef struct Spelled {
    const char *base;
    uint32_t hash;
    /* whether BASE is a function's base (fnbases), known for good once it
       is (nothing leaves fnbases), else as of fnbases_version fnb_version - 1
       (0: not asked yet); issue 14: asked for every local, 0.4 M at 1 MB */
    int fnb;
    unsigned fnb_version;
} Spelled;

const char *ck_local_cname(Ctx *cx, const char *crisp_name) {
    if (crisp_name[0] == '%') {
        /* a gensym (%limit12): its digits only made it unique among Crisp
           symbols; the C name is made unique below */
        size_t n = strlen(crisp_name);
        while (n > 2 && crisp_name[n - 1] >= '0' && crisp_name[n - 1] <= '9') n--;
        crisp_name = arena_strndup(cx->ck->a, crisp_name, n);
        if (syn_streq(crisp_name, "%g")) crisp_name = "%tmp";
    }
    /* the target's spelling of the name, once per name (issue 14: the
       same few names - i, v, a vector's _len - are spelled in every
       function); the spelling is a fresh string no one writes to */
    SpellMemo *pm = &cx->ck->spells[(((uint64_t)(uintptr_t)crisp_name * 0x9E3779B97F4A7C15ull) >> 56) & (SPELL_MEMO_SLOTS - 1)];
    Spelled *sp = pm->name == crisp_name ? pm->sp : NULL;
    if (!sp) {
        void **slot = strmap_slot(cx->ck->a, &cx->ck->spelled, crisp_name);
        Spelled *made = slot ? *slot : NULL;
        if (slot && !made && (made = arena_alloc(cx->ck->a, sizeof *made))) {
            made->base = ck_mangle(cx->ck, crisp_name);
            made->hash = strmap_hash(made->base);
            made->fnb = 0;
            made->fnb_version = 0;
            *slot = made;
        }
        if ((sp = made)) *pm = (SpellMemo){crisp_name, sp};
    }
    const char *base = sp ? sp->base : ck_mangle(cx->ck, crisp_name);
    uint32_t hash = sp ? sp->hash : strmap_hash(base);
    /* locals must not collide with file-scope names either: functions
       and kernels, including those not instantiated yet */
    int clash = (intptr_t)strmap_get_hashed(&cx->ck->cnames.live, base, hash) > 0;
    if (!clash) {
        if (sp && (sp->fnb || sp->fnb_version == cx->ck->fnbases_version + 1)) {
            clash = sp->fnb;
        } else {
            clash = strmap_get_hashed(&cx->ck->fnbases, base, hash) != NULL;
            if (sp) {
                sp->fnb = clash;
                sp->fnb_version = cx->ck->fnbases_version + 1;
            }
        }
    }
    if (clash) base = ck_name_join(cx->ck, base, "v");
    /* __local arrays live at kernel scope: their names are never free
       again, even after the block that made them (uniform slots) */
    const char *name = ck_unique_name(cx->ck, &cx->names, base);
    for (int k = 2, i = 0; cx->fn && i < cfunc_rare(cx->fn)->nlocal && k < 1000; i++)
        if (syn_streq(cfunc_rare(cx->fn)->local_arrays[i]->cname, name)) {
            name = ck_unique_name(cx->ck, &cx->names, ck_name_join(cx->ck, base, arena_printf(cx->ck->a, "%d", k++)));
            i = -1;
        }
    return name;
}
