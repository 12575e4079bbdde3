/* check.c - the checker: definitions, functions, statements, scopes.
 *
 * Pass 1 collects every top-level definition (so order in the file does not
 * matter: the spec's "multi-pass" compilation).  Pass 2 checks each kernel
 * body; a call to a def-function instantiates it for the concrete argument
 * types (vector parameters may leave address space or access open), which
 * also detects recursion.  Functions nobody calls are checked on their own
 * when their signature is complete.  Lisp's expression-oriented forms (let,
 * if, progn ...) are lowered to C statements with a destination: discard the
 * value, return it, or assign it to a variable. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

#include "../core/suggest.h"
#include "../macros/expand.h"
#include "consteval.h"

/* ------------------------------------------------------------------ */
/* small utilities                                                     */

#define PUSH(a, arr, n, cap, item) arena_push((a), (void ***)&(arr), &(n), &(cap), (item))

/* ------------------------------------------------------------------ */
/* macro calls (expand.h): expanded where the checker reaches them     */

Node *ck_expand(Ctx *cx, Node *syn) {
    Checker *ck = cx->ck;
    if (!syn || syn->kind != N_LIST || !ck->x || !expander_is_macro_call(ck->x, syn)) return syn;
    Node *done = ptrmap_get(&cx->memo, syn);
    if (done) return done;
    Ctx *saved = ck->cur;
    ck->cur = cx;
    Node *e = expander_expand(ck->x, syn);
    ck->cur = saved;
    if (e) ptrmap_put(ck->a, &cx->memo, syn, e);
    return e;
}

Node *ck_expand_all(Checker *ck, Node *syn) {
    if (!syn || !ck->x || (syn->kind != N_LIST && syn->kind != N_HWVEC)) return syn;
    return expander_expand_all(ck->x, syn);
}

Node *ck_node(Ctx *cx, NodeKind k, const Node *at, Type *ty) {
    Node *n = syn_new(cx->ck->a, k, at ? at->loc : (SrcLoc){0});
    if (at) n->origin = at->origin;
    n->ty = ty;
    return n;
}

/* C_BLOCK kids grow by doubling; capacity is the next power of two. */
void block_add(Ctx *cx, Node *blk, Node *stmt) {
    int n = blk->nkids;
    if (n == 0 || (n & (n - 1)) == 0) {
        int nc = n ? n * 2 : 4;
        Node **p = arena_alloc(cx->ck->a, sizeof(Node *) * (size_t)nc);
        if (!p) return;
        if (n) memcpy(p, blk->kids, sizeof(Node *) * (size_t)n);
        blk->kids = p;
    }
    blk->kids[blk->nkids++] = stmt;
}

void emit_stmt(Ctx *cx, Node *stmt) {
    if (stmt) block_add(cx, cx->block, stmt);
}

Program *prog_of(Ctx *cx) {
    return cx->ck->prog;
}

/* What the target reserves (check.h TargetNames; nothing without one). */
static int has_reserved_prefix(const Checker *ck, const char *s) {
    return ck->names && ck->names->reserved_prefix(s);
}

static int is_reserved(const Checker *ck, const char *s) {
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
static void names_rollback(Arena *a, NameTable *t, int mark) {
    while (t->n > mark) names_count(a, t, t->names[--t->n], -1);
}

/* A C name not used yet in `t` (adds it): BASE, or BASE_K with K one more
 * than the highest live suffix. */
static const char *unique_name(Checker *ck, NameTable *t, const char *base) {
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
static void names_take(Arena *a, NameTable *t, const char *nm) {
    arena_push(a, (void ***)&t->names, &t->n, &t->cap, (void *)nm);
    names_count(a, t, nm, 1);
}

static const char *local_cname(Ctx *cx, const char *crisp_name) {
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

/* ------------------------------------------------------------------ */
/* scopes                                                              */

void scope_push(Ctx *cx) {
    Scope *s = arena_alloc(cx->ck->a, sizeof *s);
    if (!s) return;
    s->up = cx->scope;
    cx->scope = s;
}

void scope_pop(Ctx *cx) {
    if (cx->scope) cx->scope = cx->scope->up;
}

/* Small scopes (most blocks) are scanned; from 16 symbols on (the
 * globals, a long let) a hash index answers. */
#define SCOPE_INDEX_FROM 16

void scope_insert(Arena *a, Scope *sc, Sym *s) {
    PUSH(a, sc->syms, sc->n, sc->cap, s);
    if (sc->idx.cap) {
        strmap_put(a, &sc->idx, s->key, s);
    } else if (sc->n >= SCOPE_INDEX_FROM) {
        for (int i = 0; i < sc->n; i++) strmap_put(a, &sc->idx, sc->syms[i]->key, sc->syms[i]);
    }
}

void scope_add(Ctx *cx, Sym *s) {
    if (!cx->scope) return;
    if (s->kind == SYM_LOCAL && s->name && s->name[0] != '%' && s->def && !s->def->origin) {
        /* Crisp names are case-insensitive: `b` hides a parameter `B` */
        Sym *o = scope_lookup(cx, s->key);
        if (o && o != s && o->name && strcmp(o->name, s->name) && (o->kind == SYM_PARAM || o->kind == SYM_LOCAL)) {
            s->shadows = o;
            diag_warning_at(cx->ck->d, s->def, "W0303", "`%s` hides the %s `%s`: Crisp names are case-insensitive", s->name,
                            o->kind == SYM_PARAM ? "parameter" : "variable", o->name);
            if (o->def) diag_note(cx->ck->d, o->def->loc, "`%s` is defined here", o->name);
        }
    }
    scope_insert(cx->ck->a, cx->scope, s);
}

static Sym *scope_find(Scope *sc, const char *key) {
    if (sc->idx.cap) return strmap_get(&sc->idx, key);
    for (int i = sc->n - 1; i >= 0; i--)
        if (!strcmp(sc->syms[i]->key, key)) return sc->syms[i];
    return NULL;
}

Sym *global_lookup(Checker *ck, const char *key) {
    return scope_find(&ck->globals, key);
}

Sym *scope_lookup(Ctx *cx, const char *key) {
    for (Scope *s = cx->scope; s; s = s->up) {
        Sym *f = scope_find(s, key);
        if (f) return f;
    }
    return global_lookup(cx->ck, key);
}

/* def-parameter names are case sensitive: look them up by spelling. */
Sym *parameter_lookup(Checker *ck, const Node *name) {
    if (!name || name->kind != N_SYMBOL) return NULL;
    for (int g = 0; g < ck->globals.n; g++)
        if (ck->globals.syms[g]->kind == SYM_PARAMETER && !strcmp(ck->globals.syms[g]->name, name->name))
            return ck->globals.syms[g];
    return NULL;
}

/* Index a new FuncDef by name (non-kernels, in definition order) and its
 * C name base. */
void func_index(Checker *ck, FuncDef *fd) {
    strmap_put(ck->a, &ck->fnbases, fd->cname_base, fd);
    if (fd->kind == FN_KERNEL) return;
    FuncDef *f = strmap_get(&ck->funcs_idx, fd->key);
    if (!f) {
        strmap_put(ck->a, &ck->funcs_idx, fd->key, fd);
        return;
    }
    while (f->next_overload) f = f->next_overload;
    f->next_overload = fd;
}

int func_overloads(Checker *ck, const char *key, FuncDef **out, int max) {
    int n = 0;
    for (FuncDef *f = strmap_get(&ck->funcs_idx, key); f && n < max; f = f->next_overload) out[n++] = f;
    return n;
}

FuncDef *func_lookup(Checker *ck, const char *key) {
    return strmap_get(&ck->funcs_idx, key);
}

Sym *new_local(Ctx *cx, const Node *at, const char *name, Type *ty) {
    Sym *s = arena_alloc(cx->ck->a, sizeof *s);
    if (!s) return NULL;
    s->kind = SYM_LOCAL;
    s->name = name;
    s->key = syn_lower(cx->ck->a, name);
    s->cname = local_cname(cx, name);
    s->ty = ty;
    s->def = at;
    return s;
}

Sym *new_temp(Ctx *cx, const Node *at, const char *hint, Type *ty) {
    Sym *s = new_local(cx, at, hint, ty);
    if (s) {
        s->is_temp = 1;
        s->key = arena_printf(cx->ck->a, "%%temp%d", ++cx->temp_counter);
    }
    return s;
}

/* Whether `h` is still one of p's helpers (a rollback may have cut it). */
int helper_live(const Program *p, const Helper *h) {
    return h->index < p->nhelpers && p->helpers[h->index] == h;
}

/* Append a new helper to p's list and to the list of its kind. */
void helper_add(Arena *a, Program *p, Helper *h) {
    h->index = p->nhelpers;
    PUSH(a, p->helpers, p->nhelpers, p->caphelpers, h);
    if ((unsigned)h->kind < HELPER_NKINDS)
        PUSH(a, p->helpers_of_kind[h->kind], p->nhelpers_of_kind[h->kind], p->caphelpers_of_kind[h->kind], h);
}

Helper *need_helper(Ctx *cx, HelperKind k, Type *ty, AddrSpace as) {
    Program *p = prog_of(cx);
    if (k != H_ATOMIC_RMW && k != H_DEBUG_LOG && k != H_DEVICE_HAS && (unsigned)k < HELPER_NKINDS) {
        /* shared: one per (kind, type, address space), in order of creation */
        for (int i = 0; i < p->nhelpers_of_kind[k]; i++) {
            Helper *h = p->helpers_of_kind[k][i];
            if (h->ty == ty && h->as == as && helper_live(p, h)) return h;
        }
    }
    Helper *h = arena_alloc(cx->ck->a, sizeof *h);
    if (!h) return NULL;
    h->kind = k;
    h->ty = ty;
    h->as = as;
    helper_add(cx->ck->a, p, h);
    return h;
}

/* ------------------------------------------------------------------ */
/* contexts: thread level / grid level / dispatch                      */

static const char *fn_kind_word(FnKind k) {
    return k == FN_KERNEL ? "kernel" : k == FN_GRID ? "grid function" : "function";
}

void grid_op(Ctx *cx, const Node *at, const char *what) {
    if (ck_skip_checks(cx->ck)) return;
    if (cx->grid_steps) return; /* a step of a grid-level operation checked as a whole */
    if (cx->fn->kind == FN_FUNCTION) {
        diag_error_at(cx->ck->d, at, "E0501",
                      "%s is a grid-level operation, but `%s` is a thread-level function; define it with def-grid-function",
                      what, cx->fn->name);
        return;
    }
    if (cx->grid_region) {
        diag_error_at(cx->ck->d, at, "E0502",
                      "%s is a grid-level operation nested inside the grid-level %s; grid-level operations cannot nest",
                      what, cx->grid_what);
        diag_note(cx->ck->d, cx->grid_region->loc, "the enclosing grid-level %s starts here", cx->grid_what);
    }
}

/* ------------------------------------------------------------------ */
/* destinations                                                        */

void deliver(Ctx *cx, Node *val, Dest *d, const Node *at) {
    if (!val) return;
    switch (d->kind) {
    case D_DISCARD:
        if (node_has_effects(val)) {
            Node *s = ck_node(cx, N_C_EXPR, at, &ty_void);
            Node *k[1] = {val};
            s->kids = arena_alloc(cx->ck->a, sizeof(Node *));
            if (s->kids) {
                s->kids[0] = k[0];
                s->nkids = 1;
            }
            emit_stmt(cx, s);
        }
        return;
    case D_RETURN: {
        Type *rt = cx->fn->ret;
        if (rt->kind == TY_VOID && val->kind == N_C_VAR && val->sym && cx->fn->kind != FN_KERNEL) {
            /* the body's value is one of the function's own side channels
               (spec "generating scratch vectors"): the call stands for the
               caller's vector */
            for (int i = 0; i < cx->fn->nfsides; i++)
                if (cx->fn->fsides[i]->param == val->sym ||
                    (val->sym->cname && !strcmp(cx->fn->fsides[i]->param->cname, val->sym->cname)))
                    cx->fn->ret_side = i + 1;
            if (cx->fn->ret_side) return;
        }
        if (rt->kind == TY_VOID) {
            Dest dd = {D_DISCARD, NULL, NULL};
            deliver(cx, val, &dd, at);
            return;
        }
        if (rt->kind == TY_TUPLE && rt->maybe && rt->nelems == 2 && val->ty && val->ty->kind != TY_TUPLE &&
            val->ty->kind != TY_VOID) {
            /* the value of a maybe function's body: (result :OK value) */
            Node *v = coerce(cx, val, rt->elems[1], at, "return value");
            if (!v) return;
            Node *as = ck_node(cx, N_C_ASSIGN, at, v->ty);
            as->op = OP_SET;
            as->kids = arena_alloc(cx->ck->a, sizeof(Node *) * 2);
            if (!as->kids) return;
            as->kids[0] = var_ref(cx, at, cx->fn->retptrs[0]);
            as->kids[1] = v;
            as->nkids = 2;
            Node *st = ck_node(cx, N_C_EXPR, at, &ty_void);
            st->kids = arena_alloc(cx->ck->a, sizeof(Node *));
            if (!st->kids) return;
            st->kids[0] = as;
            st->nkids = 1;
            emit_stmt(cx, st);
            Node *r = ck_node(cx, N_C_RETURN, at, rt);
            r->kids = arena_alloc(cx->ck->a, sizeof(Node *));
            if (!r->kids) return;
            r->kids[0] = ck_node(cx, N_C_BOOLLIT, at, &ty_bool);
            r->kids[0]->ival = 1;
            r->nkids = 1;
            emit_stmt(cx, r);
            return;
        }
        if (rt->kind == TY_TUPLE && rt->maybe) {
            /* elems[0] is the success flag, not a value the user writes */
            diag_error_at(cx->ck->d, at, "E0331",
                          "`%s` returns `%s`; end it with (result :OK%s) or (result :Err \"why\")", cx->fn->name,
                          tname(cx, rt), rt->nelems <= 1 ? "" : rt->nelems == 2 ? " v" : rt->nelems == 3 ? " v1 v2" : " v1 v2 ...");
            return;
        }
        if (rt->kind == TY_TUPLE) {
            diag_error_at(cx->ck->d, at, "E0331",
                          "`%s` returns %d values; end it with (return v1 v2 ...)", cx->fn->name, rt->nelems);
            return;
        }
        if (val->ty && val->ty->kind == TY_VOID) {
            diag_error_at(cx->ck->d, at, "E0332", "`%s` must return `%s`, but its last form has no value",
                          cx->fn->name, tname(cx, rt));
            return;
        }
        Node *v = coerce(cx, val, rt, at, "return value");
        if (!v) return;
        Node *r = ck_node(cx, N_C_RETURN, at, rt);
        r->kids = arena_alloc(cx->ck->a, sizeof(Node *));
        if (r->kids) {
            r->kids[0] = v;
            r->nkids = 1;
        }
        emit_stmt(cx, r);
        return;
    }
    case D_VAR: {
        Sym *s = d->var;
        if (val->ty && val->ty->kind == TY_VOID) {
            diag_error_at(cx->ck->d, at, "E0333", "`%s` has no value", syn_to_string(cx->ck->a, at, 60));
            return;
        }
        if (!s->ty) s->ty = val->ty;
        Node *v = coerce(cx, val, s->ty, at, "value");
        if (!v) return;
        if (v->ty->kind == TY_IDENT) { /* an identity tensor: nothing to store */
            s->immutable = 1;
            return;
        }
        Node *as = ck_node(cx, N_C_ASSIGN, at, s->ty);
        as->op = OP_SET;
        as->kids = arena_alloc(cx->ck->a, sizeof(Node *) * 2);
        if (!as->kids) return;
        as->kids[0] = var_ref(cx, at, s);
        as->kids[1] = v;
        as->nkids = 2;
        Node *st = ck_node(cx, N_C_EXPR, at, &ty_void);
        st->kids = arena_alloc(cx->ck->a, sizeof(Node *));
        if (st->kids) {
            st->kids[0] = as;
            st->nkids = 1;
        }
        emit_stmt(cx, st);
        return;
    }
    }
}

static Node *new_block(Ctx *cx, const Node *at) {
    return ck_node(cx, N_C_BLOCK, at, &ty_void);
}

/* Declarations at the start of a body: (declare (type a b int) ...). */
typedef struct Decls {
    const char **keys;
    Type **types;
    const Node **at;
    int n, cap, capt, capa;
    int grid_level;
    const char **immutable;
    int nimm, capimm;
    const char **wg_uniform; /* (%workgroup-uniform V...): the names */
    int nwgu, capwgu;
    const char **sig_keys;   /* (type f #'(A => B)): function variables */
    Node **sigs;
    int nsig, capsig, capsigs;
    int in_let;              /* set by the caller: `uniform` belongs to a let */
    const Node **uniform;    /* (uniform V...) / (%capture-uniform V...): the names (uniform.c) */
    const Node **uforms;     /* ... and the (uniform ...) form naming each */
    int nuni, capuni, capuforms;
} Decls;

static int collect_decls(Ctx *cx, Node **forms, int n, Decls *ds) {
    Checker *ck = cx->ck;
    int i = 0;
    for (; i < n && syn_is_form(forms[i], "declare"); i++) {
        Node *d = forms[i];
        for (int j = 1; j < d->nkids; j++) {
            Node *e = d->kids[j];
            const char *h = syn_head(e);
            if (h && !strcmp(h, "type") && e->nkids >= 3 && is_signature_type(e->kids[e->nkids - 1])) {
                for (int k = 1; k < e->nkids - 1; k++) {
                    if (e->kids[k]->kind != N_SYMBOL) continue;
                    int m = ds->nsig;
                    PUSH(ck->a, ds->sig_keys, ds->nsig, ds->capsig, (void *)e->kids[k]->key);
                    PUSH(ck->a, ds->sigs, m, ds->capsigs, e->kids[e->nkids - 1]);
                    int m2 = ds->n; /* also a declaration (E0308 when nothing binds it) */
                    PUSH(ck->a, ds->keys, ds->n, ds->cap, (void *)e->kids[k]->key);
                    int m3 = m2;
                    PUSH(ck->a, ds->types, m2, ds->capt, NULL);
                    PUSH(ck->a, ds->at, m3, ds->capa, e->kids[k]);
                }
            } else if (h && !strcmp(h, "type") && e->nkids >= 3) {
                Type *t = type_expr(ck, e->kids[e->nkids - 1]);
                for (int k = 1; k < e->nkids - 1; k++) {
                    if (e->kids[k]->kind != N_SYMBOL) {
                        diag_error_at(ck->d, e->kids[k], "E0301", "expected a variable name in (type ...), found `%s`",
                                      syn_to_string(ck->a, e->kids[k], 40));
                        continue;
                    }
                    int m = ds->n;
                    PUSH(ck->a, ds->keys, ds->n, ds->cap, (void *)e->kids[k]->key);
                    int m2 = m;
                    PUSH(ck->a, ds->types, m2, ds->capt, t);
                    int m3 = m;
                    PUSH(ck->a, ds->at, m3, ds->capa, e->kids[k]);
                }
            } else if (h && !strcmp(h, "grid-level")) {
                ds->grid_level = 1;
            } else if (h && !strcmp(h, "%immutable")) {
                for (int k = 1; k < e->nkids; k++)
                    if (e->kids[k]->kind == N_SYMBOL)
                        PUSH(ck->a, ds->immutable, ds->nimm, ds->capimm, (void *)e->kids[k]->key);
            } else if (h && !strcmp(h, "%workgroup-uniform")) {
                /* the library's promise that a let variable has the same
                   value in every work-item of the workgroup (a verdict read
                   from __local memory after a barrier): E0581 takes it as
                   uniform (warps.c); no code */
                for (int k = 1; k < e->nkids; k++)
                    if (e->kids[k]->kind == N_SYMBOL)
                        PUSH(ck->a, ds->wg_uniform, ds->nwgu, ds->capwgu, (void *)e->kids[k]->key);
            } else if (h && (!strcmp(h, "uniform") || !strcmp(h, "%capture-uniform"))) {
                if (!ds->in_let)
                    diag_error_at(ck->d, e, "E1101",
                                  "(declare (uniform ...)) belongs in the let that binds the variable (spec \"(uniform <varName>)\")");
                for (int k = 1; k < e->nkids && ds->in_let; k++) {
                    if (e->kids[k]->kind != N_SYMBOL)
                        diag_error_at(ck->d, e->kids[k], "E1102", "expected a variable name in (uniform ...), found `%s`",
                                      syn_to_string(ck->a, e->kids[k], 40));
                    else {
                        int m = ds->nuni;
                        PUSH(ck->a, ds->uniform, ds->nuni, ds->capuni, (void *)e->kids[k]);
                        PUSH(ck->a, ds->uforms, m, ds->capuforms, (void *)e);
                    }
                }
            } else if (is_analysis_decl(h ? h : e->kind == N_SYMBOL ? e->key : NULL)) {
                diag_warning_at(ck->d, e, "W1107",
                                "`%s` opts a whole function into a static analysis: put it in the declare at the top of the def-kernel or def-function, or use declaim",
                                h ? h : e->key);
            } else if (h && (!strcmp(h, "grid-stride-target"))) {
                diag_error_at(ck->d, e, "E0302", "`grid-stride-target` belongs directly inside loop-grid-stride");
            } else {
                diag_warning_at(ck->d, e, "W0302", "unknown declaration `%s` ignored", syn_to_string(ck->a, e, 40));
            }
        }
    }
    return i;
}

static Type *decl_type(Decls *ds, const char *key, const Node **at) {
    for (int i = ds->n - 1; i >= 0; i--)
        if (!strcmp(ds->keys[i], key)) {
            if (at) *at = ds->at[i];
            return ds->types[i];
        }
    return NULL;
}

static Node *decl_signature(Decls *ds, const char *key) {
    for (int i = ds->nsig - 1; i >= 0; i--)
        if (!strcmp(ds->sig_keys[i], key)) return ds->sigs[i];
    return NULL;
}

/* The (uniform V) naming KEY, or NULL; *capture when a `*` variant made it. */
static const Node *decl_uniform(Decls *ds, const char *key, int *capture) {
    for (int i = 0; i < ds->nuni; i++)
        if (!strcmp(ds->uniform[i]->key, key)) {
            *capture = syn_is_form(ds->uforms[i], "%capture-uniform");
            return ds->uniform[i];
        }
    return NULL;
}

static int decl_immutable(Decls *ds, const char *key) {
    for (int i = 0; i < ds->nimm; i++)
        if (!strcmp(ds->immutable[i], key)) return 1;
    return 0;
}

/* Is KEY the same in every work-item of the workgroup by declaration:
   (uniform KEY) (shared through __local memory) or (%workgroup-uniform KEY)? */
static int decl_wg_uniform(Decls *ds, const char *key) {
    int capture;
    if (decl_uniform(ds, key, &capture)) return 1;
    for (int i = 0; i < ds->nwgu; i++)
        if (!strcmp(ds->wg_uniform[i], key)) return 1;
    return 0;
}

/* Does `n` mention the symbol `it` (outside quoted data)? */
static int mentions_it(const Node *n) {
    if (!n) return 0;
    if (n->kind == N_SYMBOL) return !strcmp(n->key, "it");
    if (n->kind != N_LIST && n->kind != N_VECLIT && n->kind != N_HWVEC) return 0;
    if (syn_is_form(n, "quote")) return 0;
    for (int i = 0; i < n->nkids; i++)
        if (mentions_it(n->kids[i])) return 1;
    return 0;
}

/* ------------------------------------------------------------------ */
/* statement forms                                                     */

void body_to(Ctx *cx, Node **forms, int n, Dest *d) {
    Dest discard = {D_DISCARD, NULL, NULL};
    if (n == 0) {
        if (d->kind == D_VAR || (d->kind == D_RETURN && cx->fn->ret->kind != TY_VOID)) {
            const Node *at = cx->body_owner ? cx->body_owner : cx->fn->def;
            diag_error_at(cx->ck->d, at, "E0339", "`%s` has an empty body, so it has no value", syn_to_string(cx->ck->a, at, 40));
        }
        return;
    }
    for (int i = 0; i < n; i++) {
        if (syn_is_form(forms[i], "declare")) {
            diag_error_at(cx->ck->d, forms[i], "E0344", "(declare ...) must come first in a body");
            continue;
        }
        form_to(cx, forms[i], i == n - 1 ? d : &discard);
        if (cx->ck->d->fatal) return;
    }
}

/* A vector-valued let binding: make-vector, #(...) or another vector. */
/* Make DST another name for the vector SRC (same C variables). */
static void sym_alias(Sym *dst, const Sym *src) {
    dst->ty = src->ty;
    dst->cname = src->cname;
    dst->len_cname = src->len_cname;
    dst->write_only = src->write_only;
    dst->hoisted_local = src->hoisted_local;
    dst->is_view = src->is_view;
    dst->off_sym = src->off_sym;
    dst->len_sym = src->len_sym;
    dst->dims_sym = src->dims_sym;
    dst->strides_sym = src->strides_sym;
    dst->soa_fields = src->soa_fields;
    dst->init = src->init;
}

static Sym *bind_vector(Ctx *cx, Node *name, Node *init, Type *declared) {
    Checker *ck = cx->ck;
    if (cx->consteval && init && syn_is_form(init, "make-vector")) return constvec_make_vector(cx, name, init);
    Type *dt = NULL;
    Node *dmk = init ? derived_make_syntax(cx, init, &dt) : NULL;
    if (dmk) {
        /* (make-NAME ...) of a derived vector type (derived.c): its
           original's make- form, typed NAME */
        Sym *ds = bind_vector(cx, name, dmk, NULL);
        return ds && derived_make_retag(cx, init, ds, dt) ? ds : NULL;
    }
    Sym *s = new_local(cx, name, name->name, NULL);
    if (!s) return NULL;
    if (soa_init_form(init)) return soa_bind(cx, s, name, init);
    if (init && syn_is_form(init, "make-vector")) {
        Node *len_expr = NULL;
        Type *base = NULL;
        Type *t = make_vector_type(ck, init, &len_expr, &base);
        if (!t) return NULL;
        if (base && (base->kind != TY_VECTOR || base->soa || base->ndims)) {
            diag_error_at(ck->d, init->kids[1], "E0440", "make-vector needs a vector type, found `%s`", tname(cx, base));
            return NULL;
        }
        if (!t->elem) {
            diag_error_at(ck->d, init, "E0441", "make-vector needs an element type");
            return NULL;
        }
        if (t->length < 0) {
            diag_error_at(ck->d, init, "E0442",
                          "make-vector needs a compile-time length (kernels cannot allocate memory at run time)");
            return NULL;
        }
        if (t->length == 0 || t->length > (1 << 24)) {
            diag_error_at(ck->d, init, "E0443", "make-vector length %lld is out of range (1 to 16777216)",
                          (long long)t->length);
            return NULL;
        }
        if (!t->as) t->as = AS_PRIVATE;
        if (!t->acc) t->acc = ACC_READ_WRITE;
        if (!t->align) t->align = AL_COMPACT;
        if (t->as == AS_GLOBAL || t->as == AS_CONSTANT) {
            diag_error_at(ck->d, init, "E0444",
                          "a kernel cannot allocate %s memory; pass a buffer parameter instead",
                          t->as == AS_GLOBAL ? ":global" : ":constant");
            return NULL;
        }
        if (t->as == AS_LOCAL && cx->fn->kind != FN_KERNEL) {
            diag_error_at(ck->d, init, "E0406",
                          "a :local vector can only be made in a kernel body (OpenCL C declares local memory at kernel scope); make it in the kernel and pass it to `%s`",
                          cx->fn->name);
            return NULL;
        }
        if (t->align == AL_STD140 && ty_vector_stride(t->elem, AL_STD140) != ty_sizeof(t->elem))
            need_helper(cx, H_STD140_ELEM, t->elem, AS_NONE);
        s->ty = t;
        if (t->as == AS_LOCAL) {
            s->hoisted_local = 1;
            PUSH(ck->a, cx->fn->local_arrays, cx->fn->nlocal, cx->fn->caplocal, s);
        } else {
            Node *decl = ck_node(cx, N_C_DECL, name, t);
            decl->sym = s;
            emit_stmt(cx, decl);
        }
        return s;
    }
    if (init && init->kind == N_VECLIT) {
        Type *et = declared && declared->kind == TY_VECTOR ? declared->elem : NULL;
        Node *lst = ck_node(cx, N_C_HWVEC, init, NULL);
        lst->kids = arena_alloc(ck->a, sizeof(Node *) * (size_t)(init->nkids ? init->nkids : 1));
        if (!lst->kids) return NULL;
        for (int i = 0; i < init->nkids; i++) {
            Node *v = expr(cx, init->kids[i], et);
            if (!v) return NULL;
            if (!et) et = v->ty;
            v = coerce(cx, v, et, init->kids[i], "vector element");
            if (!v) return NULL;
            lst->kids[lst->nkids++] = v;
        }
        if (!et) {
            diag_error_at(ck->d, init, "E0407", "cannot infer the element type of an empty #(); declare its type");
            return NULL;
        }
        Type *t = ty_vector(ck->a, et, AS_PRIVATE, ACC_READ_WRITE, AL_COMPACT, init->nkids);
        if (declared && declared->kind == TY_VECTOR) {
            if (declared->acc) t->acc = declared->acc;
            if (declared->as && declared->as != AS_PRIVATE && declared->as != AS_LOCAL) {
                diag_error_at(ck->d, init, "E0408", "a #(...) literal lives in private memory, not :%s", ty_as_name(declared->as));
            }
        }
        s->ty = t;
        s->init = lst;
        Node *decl = ck_node(cx, N_C_DECL, name, t);
        decl->sym = s;
        emit_stmt(cx, decl);
        return s;
    }
    if (!init) {
        /* (let ((v:(vector-type float :private 4))) ...): an array of the declared type */
        Type *t = declared;
        if (!t->elem || t->length < 0 || (t->as && t->as != AS_PRIVATE && t->as != AS_LOCAL)) {
            diag_error_at(ck->d, name, "E0446", "`%s` has no value: a vector variable needs (make-vector ...), #(...) or another vector, or a declared element type and length",
                          name->name);
            return NULL;
        }
        if (t->length == 0 || t->length > (1 << 24)) {
            diag_error_at(ck->d, name, "E0443", "vector length %lld of `%s` is out of range (1 to 16777216)",
                          (long long)t->length, name->name);
            return NULL;
        }
        Node *mk = syn_list(ck->a, name->loc, NULL, 0);
        (void)mk;
        Type *vt = ty_vector(ck->a, t->elem, t->as ? t->as : AS_PRIVATE, t->acc ? t->acc : ACC_READ_WRITE,
                             t->align ? t->align : AL_COMPACT, t->length);
        s->ty = vt;
        if (vt->as == AS_LOCAL) {
            if (cx->fn->kind != FN_KERNEL) {
                diag_error_at(ck->d, name, "E0406", "a :local vector can only be made in a kernel body");
                return NULL;
            }
            s->hoisted_local = 1;
            PUSH(ck->a, cx->fn->local_arrays, cx->fn->nlocal, cx->fn->caplocal, s);
        } else {
            Node *decl = ck_node(cx, N_C_DECL, name, vt);
            decl->sym = s;
            emit_stmt(cx, decl);
        }
        return s;
    }
    /* alias of an existing vector value */
    Node *v = expr(cx, init, declared);
    if (!v) return NULL;
    if (!v->ty || v->ty->kind != TY_VECTOR || v->kind != N_C_VAR) {
        diag_error_at(ck->d, init, "E0409", "expected a vector value, found `%s`", tname(cx, v->ty));
        return NULL;
    }
    if (declared && declared->kind == TY_VECTOR &&
        ((declared->elem && v->ty->elem && !ty_equal(declared->elem, v->ty->elem)) ||
         (declared->length >= 0 && v->ty->length >= 0 && declared->length != v->ty->length))) {
        /* another name for the same memory: its type is the vector's */
        diag_error_at(ck->d, init, "E0310",
                      "`%s` is declared `%s` but names the vector `%s`, a `%s`; a vector variable is another name for "
                      "the vector it is bound to (to convert, make a vector and copy-vec into it)",
                      name->name, tname(cx, declared), v->sym->name, tname(cx, v->ty));
        return NULL;
    }
    sym_alias(s, v->sym);
    return derived_bind_declared(cx, init, s, declared) ? s : NULL;
}

static int is_vector_init(Ctx *cx, Node *init, Type *declared) {
    if (!init) return declared && declared->kind == TY_VECTOR;
    if (syn_is_form(init, "make-vector") || soa_init_form(init)) return 1;
    Type *dt = NULL;
    if (derived_make_syntax(cx, init, &dt)) return dt->soa || (!dt->view && !dt->ndims); /* views: expressions */
    if (init->kind == N_VECLIT) return !(declared && declared->kind == TY_HWVEC);
    if (init->kind == N_SYMBOL) {
        Sym *s = scope_lookup(cx, init->key);
        return s && s->ty && s->ty->kind == TY_VECTOR;
    }
    return 0;
}

/* (let ((V E)...) (declare ...)... BODY...)  and let*  - spec "Crisp Types",
 * core forms.  Plain let checks every E before binding any V. */
/* --no-inference (spec "Other Flags"): a variable of the user's own
 * binding form (not one a macro wrote) whose type would be inferred from
 * its value is an error. */
static void no_inference(Ctx *cx, const Node *form, const Node *name) {
    if (!cx->ck->c->opt || !cx->ck->c->opt->no_inference || form->origin) return;
    diag_error_at(cx->ck->d, name, "E1511", "`%s` has no declared type, and --no-inference is on: write %s:TYPE or "
                  "(declare (type TYPE %s))", name->name, name->name, name->name);
}

static void form_let(Ctx *cx, Node *syn, Dest *d, int sequential) {
    Checker *ck = cx->ck;
    if (syn->nkids < 2 || !syn_is_list(syn->kids[1])) {
        diag_error_at(ck->d, syn, "E0345", "expected (%s ((var value)...) body...)", syn_head(syn));
        return;
    }
    Node *bl = syn->kids[1];
    for (int i = 0; i < bl->nkids; i++)
        if (bl->kids[i]->kind != N_LIST && bl->kids[i]->kind != N_SYMBOL) {
            diag_error_at(ck->d, bl, "E0345", "%s bindings are a list of (name value) pairs, found `%s`; did you mean (%s (%s) ...)?",
                          syn_head(syn), syn_to_string(ck->a, bl, 40), syn_head(syn), syn_to_string(ck->a, bl, 40));
            return;
        }
    Decls ds = {.in_let = 1};
    int nd = collect_decls(cx, syn->kids + 2, syn->nkids - 2, &ds);
    Node *saved_block = cx->block;
    Node *blk = new_block(cx, syn);
    cx->block = blk;
    Scope *outer = cx->scope;
    scope_push(cx);
    Scope *inner = cx->scope;
    for (int i = 0; i < bl->nkids; i++) {
        Node *b = bl->kids[i];
        Node *name = b, *init = NULL;
        if (b->kind == N_LIST) {
            if (b->nkids < 1 || b->nkids > 2 || b->kids[0]->kind != N_SYMBOL) {
                diag_error_at(ck->d, b, "E0305", "expected a binding (name value), found `%s`", syn_to_string(ck->a, b, 40));
                continue;
            }
            name = b->kids[0];
            init = b->nkids == 2 ? b->kids[1] : NULL;
        }
        if (name->kind != N_SYMBOL) {
            diag_error_at(ck->d, name, "E0305", "expected a variable name, found `%s`", syn_to_string(ck->a, name, 40));
            continue;
        }
        if (init) {
            /* a macro call is expanded first, seeing what the initializer sees */
            if (!sequential) cx->scope = outer;
            init = ck_expand(cx, init);
            if (!sequential) cx->scope = inner;
            if (!init) continue;
        }
        Node *fsig = decl_signature(&ds, name->key);
        if (fsig || fnval_init(cx, init)) {
            /* a function value, known at compile time (hof.c) */
            if (!sequential) cx->scope = outer;
            Sym *fs = fnval_bind(cx, name, init, fsig);
            if (!sequential) cx->scope = inner;
            if (!fs) fs = new_local(cx, name, name->name, NULL); /* poisoned */
            if (fs) scope_add(cx, fs);
            continue;
        }
        const Node *dat = NULL;
        Type *declared = name->ann ? type_expr(ck, name->ann) : decl_type(&ds, name->key, &dat);
        if (name->ann && !declared) {
            /* a bad annotation (reported): the variable exists, poisoned, so
               its uses are not "unknown variable" errors too */
            Sym *poisoned = new_local(cx, name, name->name, NULL);
            if (poisoned) scope_add(cx, poisoned);
            continue;
        }
        if (declared && !value_type_ok(ck, declared, name)) continue;
        if (!declared && !is_vector_init(cx, init, NULL)) no_inference(cx, syn, name);
        /* plain let: initializers see the outer scope only */
        if (!sequential) cx->scope = outer;
        Sym *s;
        int ucapture = 0;
        const Node *uat = decl_uniform(&ds, name->key, &ucapture);
        if (uat) {
            s = uniform_bind(cx, name, init, declared, uat, ucapture); /* uniform.c */
        } else if (is_vector_init(cx, init, declared)) {
            s = bind_vector(cx, name, init, declared);
        } else {
            s = new_local(cx, name, name->name, declared);
            if (!s) break;
            s->size_init = init;
            Node *decl = ck_node(cx, N_C_DECL, name, declared);
            decl->sym = s;
            if (init && !is_value_form(cx, init)) {
                /* statement-like initializer: declare, then assign */
                emit_stmt(cx, decl);
                Dest dv = {D_VAR, s, declared};
                form_to(cx, init, &dv);
            } else {
                cx->bind_hint = name->name;
                Node *v = init ? expr(cx, init, declared) : NULL;
                cx->bind_hint = NULL;
                if (v && v->ty && v->ty->kind == TY_VOID) {
                    diag_error_at(ck->d, init, "E0333", "`%s` has no value to bind to `%s`",
                                  syn_to_string(ck->a, init, 40), name->name);
                    v = NULL;
                }
                if (v && v->ty && (v->ty->kind == TY_KEYWORD || v->ty->kind == TY_STRING)) {
                    diag_error_at(ck->d, init, "E0306", "cannot bind a %s to a run-time variable", tname(cx, v->ty));
                    v = NULL;
                }
                if (v && v->ty && v->ty->kind == TY_TUPLE && v->ty->maybe) {
                    diag_error_at(ck->d, init, "E0395", "`%s` is a (maybe ...): bind it with let-maybe, or give a fallback with or-else",
                                  syn_to_string(ck->a, init, 40));
                    v = NULL;
                }
                if (v && v->ty && v->ty->kind == TY_TUPLE) {
                    v = coerce(cx, v, declared ? declared : v->ty->elems[0], init, "value");
                }
                if (v && v->ty && v->ty->kind == TY_VECTOR && v->kind == N_C_VAR) {
                    /* a vector value (side channel, marshalled vector): alias it */
                    Sym *src = v->sym;
                    if (src->is_view && src->name == name->name && src->kind != SYM_PARAM) {
                        /* the view was made for this binding: give it the
                           binding's C name (nothing has printed it yet) */
                        src->cname = s->cname;
                        src->len_cname = local_cname(cx, arena_printf(ck->a, "%s_len", s->cname));
                        if (src->len_sym) src->len_sym->cname = src->len_cname;
                        if (src->off_sym) src->off_sym->cname = local_cname(cx, arena_printf(ck->a, "%s_off", s->cname));
                    }
                    sym_alias(s, src);
                    derived_bind_declared(cx, init, s, declared); /* a derived vector type declared (derived.c) */
                    if (!sequential) cx->scope = inner;
                    s->immutable = decl_immutable(&ds, name->key);
                    scope_add(cx, s);
                    continue;
                }
                if (v && declared) v = coerce(cx, v, declared, init, "initial value");
                if (!s->ty) s->ty = v ? v->ty : NULL;
                if (!s->ty) {
                    if (!init)
                        diag_error_at(ck->d, name, "E0307", "`%s` has no initial value and no declared type", name->name);
                    if (!sequential) cx->scope = inner;
                    scope_add(cx, s); /* poisoned: later uses stay quiet */
                    continue;
                }
                if (s->ty->kind == TY_IDENT) {
                    /* an identity tensor: nothing to declare (spec "identity-tensor") */
                    if (!s->ty->ndims) {
                        diag_error_at(ck->d, name, "E0540", "identity tensor `%s` needs a rank: (identity-tensor-type RANK)",
                                      name->name);
                        s->ty = NULL;
                    }
                    if (!sequential) cx->scope = inner;
                    s->immutable = 1;
                    scope_add(cx, s);
                    continue;
                }
                decl->ty = s->ty;
                /* declared without a value: it starts at zero, so no read
                   sees an indeterminate value (clang -Wuninitialized) */
                if (!v && !init) v = zero_value(cx, name, s->ty);
                if (v) {
                    decl->kids = arena_alloc(ck->a, sizeof(Node *));
                    if (decl->kids) {
                        decl->kids[0] = v;
                        decl->nkids = 1;
                    }
                }
                emit_stmt(cx, decl);
            }
        }
        if (!sequential) cx->scope = inner;
        if (!s) {
            /* the binding failed (reported): later uses stay quiet */
            s = new_local(cx, name, name->name, NULL);
        }
        if (s) {
            s->immutable = decl_immutable(&ds, name->key);
            s->wg_uniform = decl_wg_uniform(&ds, name->key);
            scope_add(cx, s);
        }
    }
    /* declarations naming something that is not bound here */
    for (int i = 0; i < ds.n; i++) {
        int found = 0;
        for (int j = 0; j < inner->n; j++)
            if (!strcmp(inner->syms[j]->key, ds.keys[i])) found = 1;
        if (!found)
            diag_error_at(ck->d, ds.at[i], "E0308", "(type %s ...) declares a variable this let does not bind",
                          ds.at[i]->name);
    }
    for (int i = 0; i < ds.nuni; i++) {
        int found = 0;
        for (int j = 0; j < bl->nkids && !found; j++) {
            Node *b = bl->kids[j]->kind == N_LIST && bl->kids[j]->nkids ? bl->kids[j]->kids[0] : bl->kids[j];
            found = b->kind == N_SYMBOL && !strcmp(b->key, ds.uniform[i]->key);
        }
        if (!found)
            diag_error_at(ck->d, ds.uniform[i], "E1102",
                          "(uniform %s) names a variable this let does not bind: the variable and its uniform declaration belong to the same let",
                          ds.uniform[i]->name);
    }
    if (ds.grid_level) {
        grid_op(cx, syn, syn->origin ? arena_printf(cx->ck->a, "`%s`", syn->origin->macro) : "this grid-level let");
        cx->grid_steps++; /* its body: steps of this one operation */
    }
    body_to(cx, syn->kids + 2 + nd, syn->nkids - 2 - nd, d);
    if (ds.grid_level) cx->grid_steps--;
    scope_pop(cx);
    cx->block = saved_block;
    emit_stmt(cx, blk);
}

/* (progn [(declare (grid-level))] BODY...)
 * A grid-level progn (or let) is one grid-level operation: it may not be
 * nested in another one, nor be in a def-function.  Its body holds the
 * operation's steps, which may themselves be grid-level operations run one
 * after the other by every thread (the spec's reduce-vec-atomic is a grid
 * stride loop and then reduce-to-1-atomic); only a per-element body,
 * (%grid-body ...), is a place where grid-level operations would nest. */
static void form_progn(Ctx *cx, Node *syn, Dest *d) {
    Decls ds = {0};
    int nd = collect_decls(cx, syn->kids + 1, syn->nkids - 1, &ds);
    if (ds.grid_level) {
        const char *what = syn->origin ? syn->origin->macro : "progn";
        grid_op(cx, syn, arena_printf(cx->ck->a, "`%s`", what));
        cx->grid_steps++;
    }
    body_to(cx, syn->kids + 1 + nd, syn->nkids - 1 - nd, d);
    if (ds.grid_level) cx->grid_steps--;
}

/* (%grid-body "NAME" BODY...) - the per-element body of the grid-level
 * operation NAME (a stride loop, a function a grid-level form applies per
 * element): a grid-level operation inside would run once per element, so
 * it is an error there (E0502). */
static void form_grid_body(Ctx *cx, Node *syn, Dest *d) {
    const Node *sg = cx->grid_region;
    const char *sw = cx->grid_what;
    int steps = cx->grid_steps;
    const char *what = syn->nkids >= 2 && syn->kids[1]->kind == N_STRING ? syn->kids[1]->name : "loop";
    cx->grid_region = syn;
    cx->grid_what = arena_printf(cx->ck->a, "`%s`", what);
    cx->grid_steps = 0;
    body_to(cx, syn->kids + 2, syn->nkids - 2, d);
    cx->grid_region = sg;
    cx->grid_what = sw;
    cx->grid_steps = steps;
}

/* Check `syn` into a fresh block; returns the block. */
static Node *branch_block(Ctx *cx, Node *syn, Dest *d, const Node *at) {
    Node *saved = cx->block;
    Node *blk = new_block(cx, at);
    int names_mark = cx->names.n; /* names die with the braced block */
    cx->block = blk;
    cx->branch_depth++;
    if (syn) form_to(cx, syn, d);
    cx->branch_depth--;
    cx->block = saved;
    names_rollback(cx->ck->a, &cx->names, names_mark);
    return blk;
}

Node *cond_value(Ctx *cx, Node *syn);

/* (if TEST THEN [ELSE]) - THEN sees `it`, the value of TEST. */
/* The truth of an `if` test written as a constant: 0 for nil, false, ()
 * and 0; 1 for t, true and other integers; -1 when it must be computed.
 * and 1 for a variable holding a vector, which is never nil. */
/* Was `form` written by a macro other than the conditionals (`when`,
 * `unless`, `cond`, their + and * variants), which only rewrite the
 * user's own test? */
static int in_user_macro(const Expansion *e) {
    for (; e; e = e->parent)
        if (strncmp(e->macro, "when", 4) && strncmp(e->macro, "unless", 6) && strncmp(e->macro, "cond", 4) &&
            strncmp(e->macro, "if", 2))
            return 1;
    return 0;
}

int static_truth(Ctx *cx, const Node *form, Node *test) {
    if (!(test = ck_expand(cx, test))) return -1;
    if (test->kind == N_INT) return test->ival != 0;
    if (test->kind == N_LIST && test->nkids == 0) return 0;
    if (test->kind != N_SYMBOL || test->ann) return -1;
    if (!strcmp(test->key, "nil") || !strcmp(test->key, "false")) return 0;
    if (!strcmp(test->key, "t") || !strcmp(test->key, "true")) return 1;
    /* A vector is never nil at run time: (when ,return-vec ...) in a
       macro (spec "reduce-to-workgroup") tests that the optional vector
       argument was given, as `if (ptr)` would in C (docs/library.md).
       Only in a macro's expansion: written by the user, `(when a ...)` on
       a vector is a mistake (E0360). */
    Sym *s = scope_lookup(cx, test->key);
    if (s && s->ty && s->ty->kind == TY_VECTOR && (s->kind == SYM_PARAM || s->kind == SYM_LOCAL) &&
        in_user_macro(form->origin))
        return 1;
    return -1;
}

static void form_if(Ctx *cx, Node *syn, Dest *d) {
    Checker *ck = cx->ck;
    if (syn->nkids < 3 || syn->nkids > 4) {
        diag_error_at(ck->d, syn, "E0309", "expected (if test then [else]), found %d arguments", syn->nkids - 1);
        return;
    }
    if (syn->nkids == 3 && (d->kind == D_VAR || (d->kind == D_RETURN && cx->fn->ret->kind != TY_VOID))) {
        diag_error_at(ck->d, syn, "E0347", "`if` without an else branch has no value here");
        return;
    }
    int known = static_truth(cx, syn, syn->kids[1]);
    if (known == 0 || (known == 1 && !mentions_it(syn->kids[2]))) {
        /* decided at compile time: only the branch taken is checked, as in
           a macro's (when ,return-vec ...) when the argument was not given */
        if (known) form_to(cx, syn->kids[2], d);
        else if (syn->nkids == 4) form_to(cx, syn->kids[3], d);
        return;
    }
    Node *test = cond_value(cx, syn->kids[1]);
    if (!test) return;
    Sym *it = NULL;
    if (mentions_it(syn->kids[2])) {
        it = new_local(cx, syn->kids[1], "it", test->ty);
        if (!it) return;
        it->immutable = 1;
        Node *decl = ck_node(cx, N_C_DECL, syn->kids[1], test->ty);
        decl->sym = it;
        decl->kids = arena_alloc(ck->a, sizeof(Node *));
        if (!decl->kids) return;
        decl->kids[0] = test;
        decl->nkids = 1;
        emit_stmt(cx, decl);
        test = var_ref(cx, syn->kids[1], it);
    }
    const Node *wdiv = warp_branch_enter(cx, syn, syn->kids[1]);
    scope_push(cx);
    if (it) scope_add(cx, it);
    Node *then_b = branch_block(cx, syn->kids[2], d, syn->kids[2]);
    scope_pop(cx);
    Node *else_b = syn->nkids == 4 ? branch_block(cx, syn->kids[3], d, syn->kids[3]) : NULL;
    cx->divergent = wdiv;
    Node *n = ck_node(cx, N_C_IF, syn, &ty_void);
    n->kids = arena_alloc(ck->a, sizeof(Node *) * 3);
    if (!n->kids) return;
    n->kids[0] = test;
    n->kids[1] = then_b;
    n->kids[2] = else_b;
    n->nkids = 3;
    emit_stmt(cx, n);
}

/* (%loop (VAR[:TYPE] INIT TEST STEP) BODY...) - docs/core-forms.md */
static void form_loop(Ctx *cx, Node *syn, Dest *d) {
    Checker *ck = cx->ck;
    Node *spec = syn->nkids >= 2 ? syn->kids[1] : NULL;
    if (!spec || spec->kind != N_LIST || spec->nkids != 4 || spec->kids[0]->kind != N_SYMBOL) {
        diag_error_at(ck->d, syn, "E0348", "malformed %%loop (expected (%%loop (var init test step) body...))");
        return;
    }
    Node *vn = spec->kids[0];
    /* the index type: its annotation, else the type of a typed start value
       (so (dec-times (i n) ...) with n:int counts in int), else ulong */
    Type *vt = vn->ann ? type_expr(ck, vn->ann) : NULL;
    if (vn->ann && !vt) return;
    Node *init = expr(cx, spec->kids[1], vt);
    if (!init) return;
    if (!vt) vt = (init->op && (init->kind == N_C_INTLIT || init->kind == N_C_FLOATLIT)) || !ty_is_int(init->ty) ? ty_num(SC_ULONG) : init->ty;
    if (!ty_is_int(vt)) {
        diag_error_at(ck->d, vn, "E0349", "loop index `%s` must have an integer type, found `%s`", vn->name, tname(cx, vt));
        return;
    }
    init = coerce(cx, init, vt, spec->kids[1], "loop start");
    if (!init) return;
    int names_mark = cx->names.n; /* C scopes the index and body to the loop */
    Sym *var = new_local(cx, vn, vn->name, vt);
    if (!var) return;
    var->immutable = 1;
    scope_push(cx);
    scope_add(cx, var);
    Node *saved = cx->block;
    Node *hdr = new_block(cx, syn);
    cx->block = hdr;
    Node *test = cond_value(cx, spec->kids[2]);
    Node *step = expr(cx, spec->kids[3], vt);
    if (step) step = coerce(cx, step, vt, spec->kids[3], "loop step");
    cx->block = saved;
    if (hdr->nkids) {
        diag_error_at(ck->d, syn, "E0361", "the test and step of a loop must be plain expressions");
    }
    Node *body = new_block(cx, syn);
    cx->block = body;
    Dest discard = {D_DISCARD, NULL, NULL};
    const Node *wdiv = warp_loop_enter(cx, syn, var, spec->kids[1], spec->kids[2], spec->kids[3]);
    cx->loop_depth++;
    cx->branch_depth++;
    body_to(cx, syn->kids + 2, syn->nkids - 2, &discard);
    cx->branch_depth--;
    cx->loop_depth--;
    cx->divergent = wdiv;
    cx->block = saved;
    scope_pop(cx);
    names_rollback(ck->a, &cx->names, names_mark);
    if (!test || !step) return;
    Node *n = ck_node(cx, N_C_FOR, syn, &ty_void);
    n->sym = var;
    n->kids = arena_alloc(ck->a, sizeof(Node *) * 4);
    if (!n->kids) return;
    n->kids[0] = init;
    n->kids[1] = test;
    n->kids[2] = step;
    n->kids[3] = body;
    n->nkids = 4;
    emit_stmt(cx, n);
    if (d->kind == D_VAR || (d->kind == D_RETURN && cx->fn->ret->kind != TY_VOID))
        diag_error_at(ck->d, syn, "E0362", "a loop has no value (it returns nil)");
}

/* (return V...) */
static void form_return(Ctx *cx, Node *syn) {
    Checker *ck = cx->ck;
    Type *rt = cx->fn->ret;
    int nv = syn->nkids - 1;
    int want = rt->kind == TY_VOID ? 0 : rt->kind == TY_TUPLE ? rt->nelems : 1;
    if (cx->fn->kind != FN_FUNCTION && nv > 0) {
        diag_error_at(ck->d, syn, "E0330", "a %s returns nothing, but this return has %d value%s",
                      fn_kind_word(cx->fn->kind), nv, nv == 1 ? "" : "s");
        return;
    }
    if (nv != want) {
        diag_error_at(ck->d, syn, "E0334", "`%s` returns %d value%s, but this return has %d", cx->fn->name, want,
                      want == 1 ? "" : "s", nv);
        return;
    }
    Node *vals[16];
    for (int i = 0; i < nv && i < 16; i++) {
        Type *t = rt->kind == TY_TUPLE ? rt->elems[i] : rt;
        vals[i] = expr(cx, syn->kids[i + 1], t);
        if (!vals[i]) return;
        vals[i] = coerce(cx, vals[i], t, syn->kids[i + 1], "return value");
        if (!vals[i]) return;
    }
    for (int i = 1; i < nv; i++) {
        Node *as = ck_node(cx, N_C_ASSIGN, syn, vals[i]->ty);
        as->op = OP_SET;
        as->kids = arena_alloc(ck->a, sizeof(Node *) * 2);
        if (!as->kids) return;
        as->kids[0] = var_ref(cx, syn, cx->fn->retptrs[i - 1]);
        as->kids[1] = vals[i];
        as->nkids = 2;
        Node *st = ck_node(cx, N_C_EXPR, syn, &ty_void);
        st->kids = arena_alloc(ck->a, sizeof(Node *));
        if (!st->kids) return;
        st->kids[0] = as;
        st->nkids = 1;
        emit_stmt(cx, st);
    }
    Node *r = ck_node(cx, N_C_RETURN, syn, rt);
    if (nv > 0) {
        r->kids = arena_alloc(ck->a, sizeof(Node *));
        if (!r->kids) return;
        r->kids[0] = vals[0];
        r->nkids = 1;
    }
    emit_stmt(cx, r);
}

int mv_values(Ctx *cx, Node *syn, int n, Node **out, int in_order);

/* (multiple-value-bind (V...) FORM BODY...) - Common Lisp's binding form. */
static void form_mvb(Ctx *cx, Node *syn, Dest *d) {
    Checker *ck = cx->ck;
    if (syn->nkids < 3 || !syn_is_list(syn->kids[1])) {
        diag_error_at(ck->d, syn, "E0315", "expected (multiple-value-bind (var...) form body...)");
        return;
    }
    Node *vars = syn->kids[1];
    for (int i = 0; i < vars->nkids; i++)
        if (vars->kids[i]->kind != N_SYMBOL) {
            diag_error_at(ck->d, vars, "E0315", "expected (multiple-value-bind (var...) form body...): `%s` is not a list of variables",
                          syn_to_string(ck->a, vars, 40));
            return;
        }
    if (vars->nkids > 16) {
        diag_error_at(ck->d, vars, "E0343", "at most 16 values can be bound");
        return;
    }
    Node *vals[16];
    Node *saved = cx->block;
    Node *blk = new_block(cx, syn);
    cx->block = blk;
    if (!mv_values(cx, syn->kids[2], vars->nkids, vals, 1)) {
        cx->block = saved;
        return;
    }
    scope_push(cx);
    for (int i = 0; i < vars->nkids; i++) {
        Node *vn = vars->kids[i];
        if (vn->kind != N_SYMBOL) {
            diag_error_at(ck->d, vn, "E0305", "expected a variable name, found `%s`", syn_to_string(ck->a, vn, 40));
            continue;
        }
        Type *t = vn->ann ? type_expr(ck, vn->ann) : vals[i]->ty;
        if (!vn->ann) no_inference(cx, syn, vn);
        Node *v = t ? coerce(cx, vals[i], t, vn, "value") : NULL;
        if (!v) continue;
        Sym *s = new_local(cx, vn, vn->name, t);
        if (!s) break;
        Node *decl = ck_node(cx, N_C_DECL, vn, t);
        decl->sym = s;
        decl->kids = arena_alloc(ck->a, sizeof(Node *));
        if (decl->kids) {
            decl->kids[0] = v;
            decl->nkids = 1;
        }
        emit_stmt(cx, decl);
        scope_add(cx, s);
    }
    Decls ds = {0};
    int nd = collect_decls(cx, syn->kids + 3, syn->nkids - 3, &ds);
    body_to(cx, syn->kids + 3 + nd, syn->nkids - 3 - nd, d);
    scope_pop(cx);
    cx->block = saved;
    emit_stmt(cx, blk);
}

/* (%no-barrier "NAME" BODY...) */
static void form_no_barrier(Ctx *cx, Node *syn, Dest *d) {
    const char *saved = cx->no_barrier;
    if (syn->nkids >= 2 && syn->kids[1]->kind == N_STRING) cx->no_barrier = syn->kids[1]->name;
    else cx->no_barrier = "this divergent form";
    const Node *wdiv = warp_divergent_enter(cx, syn);
    body_to(cx, syn->kids + 2, syn->nkids - 2, d);
    cx->divergent = wdiv;
    cx->no_barrier = saved;
}

static void form_to_1(Ctx *cx, Node *syn, Dest *d);

/* ---- maybe (spec "Maybe Type") ---- */

static Node *sym_node(Ctx *cx, const Node *at, const char *name) {
    Node *n = syn_symbol(cx->ck->a, at->loc, name);
    n->origin = at->origin;
    return n;
}

/* (return nil (%zero)...): the error path of a maybe function. */
static void return_err(Ctx *cx, const Node *at) {
    Type *rt = cx->fn->ret;
    Node *kids[18];
    int k = 0;
    kids[k++] = sym_node(cx, at, "return");
    kids[k++] = sym_node(cx, at, "nil");
    for (int i = 1; i < rt->nelems && k < 18; i++) {
        Node *z = syn_list(cx->ck->a, at->loc, NULL, 0);
        Node *zk[1] = {sym_node(cx, at, "%zero")};
        z = syn_list(cx->ck->a, at->loc, zk, 1);
        z->origin = at->origin;
        kids[k++] = z;
    }
    Node *r = syn_list(cx->ck->a, at->loc, kids, k);
    r->origin = at->origin;
    Dest dd = {D_DISCARD, NULL, NULL};
    form_to(cx, r, &dd);
}

/* (result :OK V...) / (result :Err [MESSAGE...]): leave a maybe function.
 * The :Err message goes to the debug channel with --debug-output and costs
 * nothing otherwise. */
static void form_result(Ctx *cx, Node *syn) {
    Checker *ck = cx->ck;
    Type *rt = cx->fn->ret;
    if (rt->kind != TY_TUPLE || !rt->maybe) {
        diag_error_at(ck->d, syn, "E0391", "`result` returns from a function declared to return (maybe ...), and `%s` returns `%s`",
                      cx->fn->name, tname(cx, rt));
        return;
    }
    if (syn->nkids < 2 || !(syn_is_kw(syn->kids[1], "ok") || syn_is_kw(syn->kids[1], "err"))) {
        diag_error_at(ck->d, syn, "E0392", "expected (result :OK value...) or (result :Err [message...])");
        return;
    }
    if (syn_is_kw(syn->kids[1], "ok")) {
        Node **kids = arena_alloc(ck->a, sizeof(Node *) * (size_t)(syn->nkids + 1));
        if (!kids) return;
        kids[0] = sym_node(cx, syn, "return");
        kids[1] = sym_node(cx, syn, "t");
        for (int i = 2; i < syn->nkids; i++) kids[i] = syn->kids[i];
        Node *r = syn_list(ck->a, syn->loc, kids, syn->nkids);
        r->origin = syn->origin;
        Dest dd = {D_DISCARD, NULL, NULL};
        form_to(cx, r, &dd);
        return;
    }
    if (syn->nkids > 2 && ck->c->opt->debug_output) {
        Node **kids = arena_alloc(ck->a, sizeof(Node *) * (size_t)(syn->nkids + 1));
        if (!kids) return;
        kids[0] = sym_node(cx, syn, "r-t-output");
        Node *tag = syn_string(ck->a, syn->loc, ":Err", 4);
        kids[1] = tag;
        for (int i = 2; i < syn->nkids; i++) kids[i] = syn->kids[i];
        Node *log = syn_list(ck->a, syn->loc, kids, syn->nkids);
        log->origin = syn->origin;
        Dest dd = {D_DISCARD, NULL, NULL};
        form_to(cx, log, &dd);
    }
    return_err(cx, syn);
}

/* (let-maybe ((V MAYBE-EXPR)...) BODY... [:Err ERR-BODY...]): bind each
 * value when its maybe succeeded; the first failure skips the rest and runs
 * ERR-BODY, or, without :Err, makes the enclosing maybe function fail. */
static void form_let_maybe(Ctx *cx, Node *syn, Dest *d) {
    Checker *ck = cx->ck;
    if (syn->nkids < 3 || !syn_is_list(syn->kids[1])) {
        diag_error_at(ck->d, syn, "E0393", "expected (let-maybe ((var maybe-expr)...) body... [:Err body...])");
        return;
    }
    int err_at = -1;
    for (int i = 2; i < syn->nkids; i++)
        if (syn_is_kw(syn->kids[i], "err")) err_at = i;
    Type *rt = cx->fn->ret;
    if (err_at < 0 && !(rt->kind == TY_TUPLE && rt->maybe)) {
        diag_error_at(ck->d, syn, "E0394",
                      "let-maybe without an :Err clause passes the failure on, but `%s` does not return (maybe ...); add :Err and a fallback",
                      cx->fn->name);
        return;
    }
    Node *bl = syn->kids[1];
    Node *saved = cx->block;
    Node *blk = new_block(cx, syn);
    cx->block = blk;
    scope_push(cx);
    Sym *ok = new_temp(cx, syn, "ok", &ty_bool);
    if (!ok) return;
    Node *okd = ck_node(cx, N_C_DECL, syn, &ty_bool);
    okd->sym = ok;
    okd->kids = arena_alloc(ck->a, sizeof(Node *));
    if (!okd->kids) return;
    okd->kids[0] = ck_node(cx, N_C_BOOLLIT, syn, &ty_bool);
    okd->kids[0]->ival = 1;
    okd->nkids = 1;
    emit_stmt(cx, okd);
    Sym **vars = arena_alloc(ck->a, sizeof(Sym *) * (size_t)(bl->nkids + 1));
    if (!vars) return;
    for (int i = 0; i < bl->nkids; i++) {
        Node *b = bl->kids[i];
        if (b->kind != N_LIST || b->nkids != 2 || b->kids[0]->kind != N_SYMBOL) {
            diag_error_at(ck->d, b, "E0393", "expected a binding (var maybe-expr), found `%s`", syn_to_string(ck->a, b, 40));
            goto done;
        }
        /* the call runs only while every earlier maybe succeeded */
        Node *cur = cx->block;
        Node *guard = NULL;
        if (i > 0) {
            guard = new_block(cx, b);
            cx->block = guard;
        }
        Node *vals[2];
        if (!mv_values(cx, b->kids[1], 2, vals, 1)) goto done;
        Node *call = vals[0];
        Type *ct = NULL;
        for (Node *c = call; c; c = NULL) ct = c->ty;
        (void)ct;
        /* the variable must outlive the guard: declare it in the outer block */
        Sym *v = new_local(cx, b->kids[0], b->kids[0]->name, vals[1]->ty);
        if (!v) goto done;
        Node *vd = ck_node(cx, N_C_DECL, b, v->ty);
        vd->sym = v;
        block_add(cx, cur, vd);
        Node *set_ok = ck_node(cx, N_C_ASSIGN, b, &ty_bool);
        set_ok->op = OP_SET;
        set_ok->kids = arena_alloc(ck->a, sizeof(Node *) * 2);
        Node *set_v = ck_node(cx, N_C_ASSIGN, b, v->ty);
        set_v->op = OP_SET;
        set_v->kids = arena_alloc(ck->a, sizeof(Node *) * 2);
        if (!set_ok->kids || !set_v->kids) goto done;
        set_ok->kids[0] = var_ref(cx, b, ok);
        set_ok->kids[1] = call;
        set_ok->nkids = 2;
        set_v->kids[0] = var_ref(cx, b, v);
        set_v->kids[1] = vals[1];
        set_v->nkids = 2;
        Node *e1 = ck_node(cx, N_C_EXPR, b, &ty_void), *e2 = ck_node(cx, N_C_EXPR, b, &ty_void);
        e1->kids = arena_alloc(ck->a, sizeof(Node *));
        e2->kids = arena_alloc(ck->a, sizeof(Node *));
        if (!e1->kids || !e2->kids) goto done;
        e1->kids[0] = set_ok;
        e1->nkids = 1;
        e2->kids[0] = set_v;
        e2->nkids = 1;
        emit_stmt(cx, e1);
        emit_stmt(cx, e2);
        if (guard) {
            cx->block = cur;
            Node *ifn = ck_node(cx, N_C_IF, b, &ty_void);
            ifn->kids = arena_alloc(ck->a, sizeof(Node *) * 3);
            if (!ifn->kids) goto done;
            ifn->kids[0] = var_ref(cx, b, ok);
            ifn->kids[1] = guard;
            ifn->kids[2] = NULL;
            ifn->nkids = 3;
            emit_stmt(cx, ifn);
        }
        vars[i] = v;
        scope_add(cx, v);
    }
    {
        Node *then_b = new_block(cx, syn), *else_b = new_block(cx, syn);
        Node *outer = cx->block;
        int body_end = err_at < 0 ? syn->nkids : err_at;
        cx->block = then_b;
        body_to(cx, syn->kids + 2, body_end - 2, d);
        cx->block = else_b;
        scope_pop(cx);
        if (err_at >= 0) body_to(cx, syn->kids + err_at + 1, syn->nkids - err_at - 1, d);
        else return_err(cx, syn);
        scope_push(cx);
        cx->block = outer;
        Node *ifn = ck_node(cx, N_C_IF, syn, &ty_void);
        ifn->kids = arena_alloc(ck->a, sizeof(Node *) * 3);
        if (!ifn->kids) goto done;
        ifn->kids[0] = var_ref(cx, syn, ok);
        ifn->kids[1] = then_b;
        ifn->kids[2] = else_b;
        ifn->nkids = 3;
        emit_stmt(cx, ifn);
    }
done:
    scope_pop(cx);
    cx->block = saved;
    emit_stmt(cx, blk);
}

void form_to(Ctx *cx, Node *syn, Dest *d) {
    const Node *saved = cx->body_owner;
    cx->body_owner = syn;
    form_to_1(cx, syn, d);
    cx->body_owner = saved;
}

static void form_to_1(Ctx *cx, Node *syn, Dest *d) {
    if (cx->ck->d->fatal || !(syn = ck_expand(cx, syn))) return;
    const char *h = syn_head(syn);
    if (h) {
        if (!strcmp(h, "let")) return form_let(cx, syn, d, 0);
        if (!strcmp(h, "let*")) return form_let(cx, syn, d, 1);
        if (!strcmp(h, "progn")) return form_progn(cx, syn, d);
        if (!strcmp(h, "if")) return form_if(cx, syn, d);
        if (!strcmp(h, "%loop")) return form_loop(cx, syn, d);
        if (!strcmp(h, "return")) {
            /* a macro's expansion ending in (return X), used as a value:
               X is the value of the macro call (the spec's reduce-vec-small
               and filter end this way) */
            if (d->kind == D_VAR && syn->origin && syn->nkids == 2) return form_to(cx, syn->kids[1], d);
            return form_return(cx, syn);
        }
        if (!strcmp(h, "multiple-value-bind")) return form_mvb(cx, syn, d);
        if (!strcmp(h, "%no-barrier")) return form_no_barrier(cx, syn, d);
        if (!strcmp(h, "%uniform") || !strcmp(h, "%uniform*")) return uniform_form(cx, syn, d); /* uniform.c */
        if (!strcmp(h, "%grid-body")) return form_grid_body(cx, syn, d);
        if (!strcmp(h, "result")) return form_result(cx, syn);
        if (!strcmp(h, "let-maybe")) return form_let_maybe(cx, syn, d);
        if (!strcmp(h, "let-kernel")) return orch_let_kernel(cx, syn, d); /* orch.c */
        if (!strcmp(h, "declare")) {
            diag_error_at(cx->ck->d, syn, "E0344", "(declare ...) must come first in a body");
            return;
        }
    }
    int plain_maybe_value = 0;
    if (d->kind == D_RETURN && cx->fn->ret->kind == TY_TUPLE && cx->fn->ret->maybe) {
        /* a maybe function ending in a plain value returns it as :OK; a call
           to another maybe function passes its result on */
        FuncDef *callee = h ? func_lookup(cx->ck, h) : NULL;
        if (callee) resolve_signature(cx->ck, callee);
        plain_maybe_value = !(callee && callee->ret && callee->ret->kind == TY_TUPLE);
    }
    if (d->kind == D_RETURN && cx->fn->ret->kind == TY_TUPLE && !plain_maybe_value) {
        /* the last form of a multi-value function: pass its values on */
        int n = cx->fn->ret->nelems;
        Node *vals[16];
        if (!mv_values(cx, syn, n, vals, 0)) return;
        Node *fake = syn_new(cx->ck->a, N_LIST, syn->loc);
        (void)fake;
        for (int i = 1; i < n; i++) {
            Node *v = coerce(cx, vals[i], cx->fn->ret->elems[i], syn, "return value");
            if (!v) return;
            Node *as = ck_node(cx, N_C_ASSIGN, syn, v->ty);
            as->op = OP_SET;
            as->kids = arena_alloc(cx->ck->a, sizeof(Node *) * 2);
            if (!as->kids) return;
            as->kids[0] = var_ref(cx, syn, cx->fn->retptrs[i - 1]);
            as->kids[1] = v;
            as->nkids = 2;
            Node *st = ck_node(cx, N_C_EXPR, syn, &ty_void);
            st->kids = arena_alloc(cx->ck->a, sizeof(Node *));
            if (!st->kids) return;
            st->kids[0] = as;
            st->nkids = 1;
            emit_stmt(cx, st);
        }
        Node *v0 = coerce(cx, vals[0], cx->fn->ret->elems[0], syn, "return value");
        if (!v0) return;
        Node *r = ck_node(cx, N_C_RETURN, syn, cx->fn->ret);
        r->kids = arena_alloc(cx->ck->a, sizeof(Node *));
        if (!r->kids) return;
        r->kids[0] = v0;
        r->nkids = 1;
        emit_stmt(cx, r);
        return;
    }
    Node *v = expr(cx, syn, d->want ? d->want : (d->kind == D_VAR ? d->var->ty : d->kind == D_RETURN ? cx->fn->ret : NULL));
    if (v && v->ty && v->ty->kind == TY_TUPLE && d->kind != D_DISCARD)
        v = coerce(cx, v, v->ty->elems[0], syn, "value");
    deliver(cx, v, d, syn);
}

/* ------------------------------------------------------------------ */
/* definitions (pass 1)                                                */

/* Syntax built by the checker (desugared forms): located at AT and
 * carrying its macro origin, so diagnostics point at the user's code. */
Node *cx_sym(Ctx *cx, const Node *at, const char *name) {
    Node *n = syn_symbol(cx->ck->a, at->loc, name);
    n->origin = at->origin;
    return n;
}

Node *cx_int(Ctx *cx, const Node *at, int64_t v) {
    Node *n = syn_int(cx->ck->a, at->loc, v);
    n->origin = at->origin;
    return n;
}

Node *cx_list(Ctx *cx, const Node *at, int n, ...) {
    Node *kids[16];
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n && i < 16; i++) kids[i] = va_arg(ap, Node *);
    va_end(ap);
    Node *l = syn_list(cx->ck->a, at->loc, kids, n < 16 ? n : 16);
    l->origin = at->origin;
    return l;
}

/* A symbol of kind K for the name NAME (not yet in any scope). */
Sym *sym_named(Checker *ck, SymKind k, Node *name) {
    Sym *s = arena_alloc(ck->a, sizeof *s);
    if (!s) return NULL;
    s->kind = k;
    s->name = name->name;
    s->key = name->key;
    s->def = name;
    return s;
}

/* A new global of kind K named NAME; NULL (after E0101) when taken. */
Sym *new_global(Checker *ck, SymKind k, Node *name) {
    Sym *s = sym_named(ck, k, name);
    if (!s) return NULL;
    Sym *old = global_lookup(ck, name->key);
    s->from_lib = ck->in_library;
    if (old && old->from_lib && !ck->in_library) {
        /* the program's own definition replaces the library's */
        for (int i = 0; i < ck->globals.n; i++)
            if (ck->globals.syms[i] == old) ck->globals.syms[i] = s;
        if (ck->globals.idx.cap) strmap_put(ck->a, &ck->globals.idx, s->key, s);
        return s;
    }
    if (old) {
        diag_error_at(ck->d, name, "E0101", "`%s` is already defined", name->name);
        if (old->def) diag_note(ck->d, old->def->loc, "previous definition of `%s` is here", old->name);
        return NULL;
    }
    scope_insert(ck->a, &ck->globals, s);
    return s;
}

static int is_c_identifier(const char *s) {
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_')) return 0;
    return 1;
}

/* Parse parameters and declarations of a def-kernel / def-function. */
static FuncDef *collect_func(Checker *ck, Node *form, FnKind kind) {
    const char *what = syn_head(form);
    if (form->nkids < 3 || form->kids[1]->kind != N_SYMBOL || !syn_is_list(form->kids[2]) ||
        syn_is_form(form->kids[2], "declare")) {
        const char *found = form->nkids < 2 ? "nothing"
                            : form->kids[1]->kind != N_SYMBOL ? syn_to_string(ck->a, form->kids[1], 30)
                            : form->nkids < 3 ? "no parameter list"
                                              : syn_to_string(ck->a, form->kids[2], 30);
        diag_error_at(ck->d, form, "E0102", "expected (%s name (params...) body...), found `%s` where the %s belongs",
                      what, found, form->nkids >= 2 && form->kids[1]->kind == N_SYMBOL ? "parameter list" : "name");
        return NULL;
    }
    Node *name = form->kids[1];
    FuncDef *fd = arena_alloc(ck->a, sizeof *fd);
    if (!fd) return NULL;
    fd->kind = kind;
    fd->name = name->name;
    fd->key = kind == FN_KERNEL ? name->name : name->key;
    fd->form = form;
    fd->from_lib = ck->in_library;
    if (kind == FN_KERNEL) {
        if (!is_c_identifier(name->name)) {
            diag_error_at(ck->d, name, "E0103",
                          "kernel name `%s` is not a valid C identifier (use letters, digits and underscores, e.g. `%s`)",
                          name->name, mangle(ck->a, name->name));
            fd->bad = 1;
        } else if (is_reserved(ck, name->name)) {
            /* a kernel keeps its name on the host: it cannot be renamed */
            diag_error_at(ck->d, name, "E0103",
                          has_reserved_prefix(ck, name->name)
                              ? "kernel name `%s` starts with a prefix %s or crisp reserves; choose another name, e.g. `k_%s`"
                              : "kernel name `%s` is a keyword or built-in of %s; choose another name, e.g. `%s_kernel`",
                          name->name, ck->names->language, name->name);
            fd->bad = 1;
        }
        FuncDef *prev = strmap_get(&ck->kernels_idx, name->name);
        if (prev) {
            diag_error_at(ck->d, name, "E0104", "kernel `%s` is already defined (kernels cannot be overloaded)", name->name);
            diag_note(ck->d, prev->form->loc, "previous definition is here");
            fd->bad = 1;
        } else {
            strmap_put(ck->a, &ck->kernels_idx, name->name, fd);
        }
    } else {
        /* a second definition of a name is an overload (spec "Function
           Overloading"); identical signatures are rejected once resolved */
        FuncDef *old = func_lookup(ck, fd->key);
        if (old) fd->overloaded = old->overloaded = 1;
    }
    Node *pl = form->kids[2];
    fd->params = arena_alloc(ck->a, sizeof(ParamDecl) * (size_t)(pl->nkids + 1));
    if (!fd->params) return NULL;
    int out = 0, mode = 0;
    for (int i = 0; i < pl->nkids; i++) {
        Node *p = pl->kids[i];
        if (syn_is_sym(p, "&out")) {
            if (kind == FN_FUNCTION)
                diag_error_at(ck->d, p, "E0106", "`&out` is for kernels and grid functions");
            out = 1;
            continue;
        }
        if (syn_is_sym(p, "&optional") || syn_is_sym(p, "&key")) {
            /* spec style H: defaults are filled in at each call */
            int m = p->key[1] == 'o' ? 1 : 2;
            if (kind == FN_KERNEL) {
                diag_error_at(ck->d, p, "E0107", "kernels do not take `%s` parameters", p->name);
                fd->bad = 1;
            } else if (m < mode || (m == mode)) {
                diag_error_at(ck->d, p, "E0110", "`%s` after %s: the order is required, &optional, &key", p->name,
                              mode == 1 ? "&optional" : "&key");
                fd->bad = 1;
            }
            mode = m;
            continue;
        }
        if (p->kind == N_SYMBOL && (p->key[0] == '&')) {
            diag_error_at(ck->d, p, "E0107", "unknown lambda-list keyword `%s` (expected &optional, &key or &out)", p->name);
            fd->bad = 1;
            continue;
        }
        Node *deflt = NULL;
        if (mode && p->kind == N_LIST && p->nkids == 2 && p->kids[0]->kind == N_SYMBOL) {
            deflt = p->kids[1]; /* (name default) */
            p = p->kids[0];
        }
        if (p->kind != N_SYMBOL) {
            diag_error_at(ck->d, p, "E0108", "expected a parameter name, found `%s`", syn_to_string(ck->a, p, 40));
            fd->bad = 1;
            continue;
        }
        for (int j = 0; j < fd->nparams; j++)
            if (!strcmp(fd->params[j].name->key, p->key)) {
                diag_error_at(ck->d, p, "E0109", "parameter `%s` appears twice", p->name);
                fd->bad = 1;
            }
        fd->params[fd->nparams].name = p;
        fd->params[fd->nparams].is_out = out;
        fd->params[fd->nparams].mode = mode;
        fd->params[fd->nparams].deflt = deflt;
        fd->nparams++;
    }
    int i = 3;
    if (i < form->nkids - 1 && form->kids[i]->kind == N_STRING) i++; /* docstring */
    int ndecl = 0;
    while (i + ndecl < form->nkids && syn_is_form(form->kids[i + ndecl], "declare")) ndecl++;
    fd->decls = (const Node **)(form->kids + i);
    fd->ndecls = ndecl;
    fd->body = form->kids + i + ndecl;
    fd->nbody = form->nkids - i - ndecl;
    fd->cname_base = kind == FN_KERNEL ? name->name : mangle(ck->a, name->name);
    PUSH(ck->a, ck->funcs, ck->nfuncs, ck->capfuncs, fd);
    func_index(ck, fd);
    return fd;
}

/* A template instance: collected like a hand-written definition; function
 * instances join the overloads of their name. */
FuncDef *collect_instance(Checker *ck, Node *form, FnKind kind, const char *cname_base) {
    FuncDef *fd = collect_func(ck, form, kind);
    if (!fd) return NULL;
    if (kind != FN_KERNEL) {
        fd->cname_base = cname_base;
        strmap_put(ck->a, &ck->fnbases, cname_base, fd);
        fd->overloaded = 1;
        fd->is_instance = 1;
    }
    resolve_signature(ck, fd);
    return fd->bad ? NULL : fd;
}

static Node *const_value(Checker *ck, Sym *s);

static void collect_const(Checker *ck, Node *form) {
    const char *h = syn_head(form);
    if (form->nkids != 3 || form->kids[1]->kind != N_SYMBOL) {
        diag_error_at(ck->d, form, "E0110", "expected (%s name value)", h);
        return;
    }
    Sym *s = new_global(ck, SYM_CONST, form->kids[1]);
    if (!s) return;
    s->type_syn = form->kids[1]->ann;
    s->init = form->kids[2];
    s->immutable = 1;
}

static void collect_parameter(Checker *ck, Node *form) {
    if (form->nkids < 2 || form->nkids > 3 || form->kids[1]->kind != N_SYMBOL) {
        diag_error_at(ck->d, form, "E0111", "expected (def-parameter NAME[:type] [default])");
        return;
    }
    Node *name = form->kids[1];
    Sym *s = new_global(ck, SYM_PARAMETER, name);
    if (!s) return;
    s->key = name->name; /* parameters are case sensitive */
    s->type_syn = name->ann;
    s->init = form->nkids == 3 ? form->kids[2] : NULL;
    s->immutable = 1;
}

/* The checked literal of a def-const / def-parameter (checked once): its
 * value expression checked in an empty function context, then computed by
 * the constant evaluator (consteval.c) - literals, other constants,
 * operators, conversions and the math builtins, in their types. */
static Node *const_value(Checker *ck, Sym *s) {
    if (s->value) return s->value;
    if (s->resolving) {
        diag_error_at(ck->d, s->def, "E0112", "`%s` is defined in terms of itself", s->name);
        return NULL;
    }
    s->resolving = 1;
    Node *init = s->init;
    if (s->kind == SYM_PARAMETER) {
        const char *dv = crisp_define(ck->c->opt, s->name);
        if (dv) {
            init = syn_define_value(ck->a, s->def->loc, dv);
            if (!init) {
                diag_error_at(ck->d, s->def, "E0113", "-D%s=%s: the value is not a number, t or nil", s->name, dv);
                s->resolving = 0;
                return NULL;
            }
        }
    }
    Type *t = s->type_syn ? type_expr(ck, s->type_syn) : NULL;
    if (!init) {
        if (!t) t = ty_num(SC_INT);
        init = syn_int(ck->a, s->def->loc, 0);
    }
    /* support code the computation alone needs is not emitted */
    int nhelpers = ck->prog->nhelpers;
    CFunc dummy = {.kind = FN_FUNCTION, .name = s->name, .ret = &ty_void};
    Node blk = {.kind = N_C_BLOCK};
    Ctx cx = {.ck = ck, .fn = &dummy, .block = &blk};
    Node *v = expr(&cx, init, t);
    if (v && t) v = coerce(&cx, v, t, init, "constant value");
    if (v && (blk.nkids || (v->kind != N_C_INTLIT && v->kind != N_C_FLOATLIT && v->kind != N_C_BOOLLIT))) {
        CeVal r;
        CeResult res = ce_constant(ck, &blk, v, 1, 0, &r);
        Type *vt = v->ty;
        v = res == CE_DONE ? ce_literal(&cx, init, &r) : NULL;
        if (v) v->ty = vt;
        else if (res == CE_NOT_CONSTANT)
            diag_error_at(ck->d, init, "E0114", "the value of `%s` must be a constant: literals, constants and operations on them",
                          s->name);
    }
    ck->prog->nhelpers = nhelpers;
    s->resolving = 0;
    s->value = v;
    if (v) s->ty = v->ty;
    return v;
}

Node *global_const_value(Checker *ck, Sym *s) {
    return const_value(ck, s);
}

/* ------------------------------------------------------------------ */
/* signatures                                                          */

static void apply_signature(Checker *ck, FuncDef *fd, Node *sig, const Node *at) {
    Type **ps;
    int *outs, np;
    Type *ret;
    if (!parse_signature(ck, sig, &ps, &outs, &np, &ret)) {
        fd->bad = 1;
        return;
    }
    if (np != fd->nparams) {
        diag_error_at(ck->d, at, "E0117", "signature lists %d parameter type%s but `%s` has %d parameter%s", np,
                      np == 1 ? "" : "s", fd->name, fd->nparams, fd->nparams == 1 ? "" : "s");
        fd->bad = 1;
        return;
    }
    for (int i = 0; i < np; i++) {
        if (fd->params[i].ty && !ty_equal(fd->params[i].ty, ps[i])) {
            diag_error_at(ck->d, at, "E0118", "signature gives parameter `%s` type `%s`, but it is declared `%s`",
                          fd->params[i].name->name, ty_name(ck->a, ps[i]), ty_name(ck->a, fd->params[i].ty));
            fd->bad = 1;
        }
        fd->params[i].ty = ps[i];
        if (outs[i]) fd->params[i].is_out = 1;
    }
    /* the signature's return part: `#'(float)` leaves it nil */
    fd->ret = ret;
    fd->ret_declared = 1;
}

static void resolve_signature_body(Checker *ck, FuncDef *fd);

void resolve_signature(Checker *ck, FuncDef *fd) {
    if (fd->resolved) return;
    fd->resolved = 1;
    int saved_voidp = ck->allow_voidp;
    ck->allow_voidp = fd->exact;
    int saved_incomplete = ck->allow_incomplete;
    ck->allow_incomplete = fd->kind == FN_FUNCTION;
    resolve_signature_body(ck, fd);
    ck->allow_incomplete = saved_incomplete;
    ck->allow_voidp = saved_voidp;
    if (fd->ret && fd->ret->kind == TY_STRUCT && fd->ret->sd->pattern) {
        diag_error_at(ck->d, fd->form, "E1017", "the return type of `%s` must be complete, found the incomplete `%s`", fd->name,
                      fd->ret->sd->name);
        fd->bad = 1;
    }
}

static void resolve_signature_body(Checker *ck, FuncDef *fd) {
    for (int i = 0; i < fd->nparams; i++) {
        Node *p = (Node *)fd->params[i].name;
        if (p->ann) {
            fd->params[i].ty = type_expr(ck, p->ann);
            if (!fd->params[i].ty) fd->bad = 1;
        }
    }
    for (int i = 0; i < fd->ndecls; i++) {
        const Node *d = fd->decls[i];
        for (int j = 1; j < d->nkids; j++) {
            Node *e = d->kids[j];
            const char *h = syn_head(e);
            if (e->kind == N_VECLIT || syn_is_form(e, "function")) {
                apply_signature(ck, fd, e, e);
            } else if (h && !strcmp(h, "type-signature-of")) {
                if (e->nkids == 2 && syn_is_form(e->kids[1], "function") && e->kids[1]->kids[1]->kind == N_SYMBOL) {
                    FuncDef *f = func_lookup(ck, e->kids[1]->kids[1]->key);
                    if (!f) {
                        diag_error_at(ck->d, e->kids[1], "E0115", "unknown function `%s`", e->kids[1]->kids[1]->name);
                        fd->bad = 1;
                        continue;
                    }
                    resolve_signature(ck, f);
                    if (f->nparams != fd->nparams) {
                        diag_error_at(ck->d, e, "E0117", "`%s` has %d parameters but `%s` has %d", f->name, f->nparams,
                                      fd->name, fd->nparams);
                        fd->bad = 1;
                        continue;
                    }
                    for (int k = 0; k < f->nparams; k++) {
                        fd->params[k].ty = f->params[k].ty;
                        fd->params[k].is_out |= f->params[k].is_out;
                    }
                    fd->ret = f->ret;
                    fd->ret_declared = 1;
                }
            } else if (h && !strcmp(h, "return-type")) {
                Type *rs[16];
                int nr = 0;
                for (int k = 1; k < e->nkids && nr < 16; k++) {
                    Type *t = type_expr(ck, e->kids[k]);
                    if (!t) {
                        fd->bad = 1;
                        continue;
                    }
                    if (t->kind != TY_VOID) rs[nr++] = t;
                }
                fd->ret = nr == 0 ? &ty_void : nr == 1 ? rs[0] : ty_tuple(ck->a, rs, nr);
                fd->ret_declared = 1;
            } else if (h && !strcmp(h, "type") && e->nkids >= 3) {
                Type *t = NULL;
                for (int k = 1; k < e->nkids - 1; k++) {
                    Node *vn = e->kids[k];
                    int found = 0;
                    for (int m = 0; m < fd->nparams; m++) {
                        if (vn->kind == N_SYMBOL && !strcmp(fd->params[m].name->key, vn->key)) {
                            if (!t) t = type_expr(ck, e->kids[e->nkids - 1]);
                            if (!t) {
                                fd->bad = 1;
                                break;
                            }
                            fd->params[m].ty = t;
                            found = 1;
                        }
                    }
                    if (!found && vn->kind == N_SYMBOL)
                        diag_error_at(ck->d, vn, "E0119", "(type %s ...) names no parameter of `%s`", vn->name, fd->name);
                }
            }
        }
    }
    if (!fd->ret) fd->ret = &ty_void;
    for (int i = 0; i < (fd->ret->kind == TY_TUPLE ? fd->ret->nelems : 1); i++) {
        Type *r = fd->ret->kind == TY_TUPLE ? fd->ret->elems[i] : fd->ret;
        if (r && r->kind == TY_IDENT) {
            diag_error_at(ck->d, fd->form->kids[1], "E0547",
                          "`%s` cannot return an identity tensor (`%s`): it holds no data; make one where it is used with (make-identity-tensor RANK)",
                          fd->name, ty_name(ck->a, r));
            fd->bad = 1;
        }
    }
    if (fd->kind != FN_FUNCTION && fd->ret->kind != TY_VOID) {
        diag_error_at(ck->d, fd->form->kids[1], "E0120", "%s `%s` cannot return a value (declared `%s`)",
                      fd->kind == FN_KERNEL ? "kernel" : "grid function", fd->name, ty_name(ck->a, fd->ret));
        fd->bad = 1;
    } else if (fd->ret->kind == TY_VECTOR) {
        diag_error_at(ck->d, fd->form->kids[1], "E0561",
                      "function `%s` cannot return a vector (declared `%s`): OpenCL C functions return no arrays; take the vector as an &out parameter",
                      fd->name, ty_name(ck->a, fd->ret));
        fd->bad = 1;
    }
    for (int i = 0; i < fd->nparams; i++) {
        ParamDecl *p = &fd->params[i];
        if (!p->ty) {
            if (!fd->bad)
                diag_error_at(ck->d, p->name, "E0121", "parameter `%s` of `%s` has no type (annotate it as %s:TYPE or declare it)",
                              p->name->name, fd->name, p->name->name);
            fd->bad = 1;
            continue;
        }
        Type *t = p->ty;
        if (t->kind == TY_VOID || t->kind == TY_TUPLE) {
            diag_error_at(ck->d, p->name, "E0122", "parameter `%s` cannot have type `%s`", p->name->name, ty_name(ck->a, t));
            fd->bad = 1;
        }
        if (p->is_out && fd->exact) {
            diag_error_at(ck->d, p->name, "E0128", "def-kernel-exact does not take `&out` parameters (`%s`); mark the vector :write-only",
                          p->name->name);
            fd->bad = 1;
        }
        if (t->kind == TY_VOIDP) continue; /* def-kernel-exact only (checked by type_expr) */
        if (p->is_out && (t->kind != TY_VECTOR || (t->as && t->as != AS_GLOBAL))) {
            diag_error_at(ck->d, p->name, "E0123", "`&out` parameter `%s` must be a :global vector, found `%s`",
                          p->name->name, ty_name(ck->a, t));
            fd->bad = 1;
        }
        if (fd->kind == FN_KERNEL && t->kind == TY_IDENT) {
            diag_error_at(ck->d, p->name, "E0546",
                          "kernel parameter `%s` cannot be an identity tensor (`%s`): it holds no data; make it inside the kernel with (make-identity-tensor RANK)",
                          p->name->name, ty_name(ck->a, t));
            fd->bad = 1;
        } else if (fd->kind == FN_KERNEL && t->ndims) {
            diag_error_at(ck->d, p->name, "E0136",
                          "kernel parameter `%s` cannot be a tensor-view (`%s`): tensor-views never cross the host boundary; pass the parent vector and make the view inside the kernel",
                          p->name->name, ty_name(ck->a, t));
            fd->bad = 1;
        } else if (fd->kind == FN_KERNEL && t->soa) {
            diag_error_at(ck->d, p->name, "E0560",
                          "kernel parameter `%s` cannot be a soa-vector (`%s`): soa-vectors never cross the host boundary; pass a vector per field, or a vector of structs and convert it with convert-aos-to-soa",
                          p->name->name, ty_name(ck->a, t));
            fd->bad = 1;
        } else if (fd->kind == FN_KERNEL && struct_holds_views(ck, t)) {
            diag_error_at(ck->d, p->name, "E0159",
                          "kernel parameter `%s` (`%s`) holds vector-views: a struct with vector-view fields never crosses the host boundary; pass the vectors and make the struct inside the kernel",
                          p->name->name, ty_name(ck->a, t));
            fd->bad = 1;
        } else if (fd->kind == FN_KERNEL) {
            if (t->kind == TY_VECTOR) {
                if (!t->elem || !t->as || !t->acc) {
                    diag_error_at(ck->d, p->name, "E0124",
                                  "kernel vector parameter `%s` must give its element type, address space and access, found `%s`",
                                  p->name->name, ty_name(ck->a, t));
                    fd->bad = 1;
                } else if (t->as == AS_PRIVATE) {
                    diag_error_at(ck->d, p->name, "E0125", "kernel parameter `%s` cannot be :private memory", p->name->name);
                    fd->bad = 1;
                }
                if (!t->align) t->align = AL_COMPACT;
            } else if (t->kind == TY_BOOL) {
                diag_error_at(ck->d, p->name, "E0126", "OpenCL kernels cannot take `bool` parameters (`%s`); use uchar or int",
                              p->name->name);
                fd->bad = 1;
            } else if (ty_is_arith(t) && t->sc == SC_HALF) {
                diag_error_at(ck->d, p->name, "E0127", "OpenCL C 1.2 kernels cannot take `half` parameters (`%s`)", p->name->name);
                fd->bad = 1;
            } else if (!ty_is_arith(t) && t->kind != TY_STRUCT && t->kind != TY_ENUM) {
                diag_error_at(ck->d, p->name, "E0122", "kernel parameter `%s` cannot have type `%s`", p->name->name,
                              ty_name(ck->a, t));
                fd->bad = 1;
            }
        }
    }
}

/* ------------------------------------------------------------------ */
/* kernels: size declarations                                          */

static int size_list(Ctx *cx, Node *v, Node **items) {
    if (syn_is_form(v, "quote") && v->nkids == 2) v = v->kids[1];
    if (v->kind == N_LIST) {
        if (v->nkids > 3 || v->nkids == 0) return -1;
        for (int i = 0; i < v->nkids; i++) items[i] = v->kids[i];
        return v->nkids;
    }
    (void)cx;
    items[0] = v;
    return 1;
}

static void size_decl(Ctx *cx, Node *e, SizeDecl *sd) {
    Checker *ck = cx->ck;
    const char *what = syn_head(e);
    if (sd->present) {
        diag_error_at(ck->d, e, "E0701", "`%s` is declared twice", what);
        return;
    }
    sd->present = 1;
    sd->at = e;
    for (int i = 1; i < e->nkids; i++) {
        Node *k = e->kids[i];
        if (k->kind != N_KEYWORD || i + 1 >= e->nkids) {
            diag_error_at(ck->d, k, "E0702", "expected :set-to, :derive-from, :dims or :msg in `%s`, found `%s`", what,
                          syn_to_string(ck->a, k, 30));
            return;
        }
        Node *v = e->kids[++i];
        Node *items[3];
        if (!strcmp(k->key, "set-to")) {
            int n = size_list(cx, v, items);
            if (n < 0) {
                diag_error_at(ck->d, v, "E0703", ":set-to takes 1 to 3 sizes");
                return;
            }
            for (int j = 0; j < n; j++) {
                int64_t x;
                if (!const_syn_int(cx, items[j], &x) || x <= 0) {
                    diag_error_at(ck->d, items[j], "E0704", ":set-to sizes must be positive compile-time integers, found `%s`",
                                  syn_to_string(ck->a, items[j], 30));
                    return;
                }
                sd->set_to[j] = x;
            }
            sd->nset = n;
        } else if (!strcmp(k->key, "derive-from")) {
            int n = size_list(cx, v, items);
            if (n < 0) {
                diag_error_at(ck->d, v, "E0703", ":derive-from takes 1 to 3 parameters");
                return;
            }
            for (int j = 0; j < n; j++) {
                Sym *s = items[j]->kind == N_SYMBOL ? scope_lookup(cx, items[j]->key) : NULL;
                if (!s || s->kind != SYM_PARAM) {
                    diag_error_at(ck->d, items[j], "E0705", ":derive-from names a kernel parameter, found `%s`",
                                  syn_to_string(ck->a, items[j], 30));
                    return;
                }
                if (!(s->ty->kind == TY_VECTOR || ty_is_int(s->ty))) {
                    diag_error_at(ck->d, items[j], "E0706", ":derive-from parameter `%s` must be a vector or an integer, found `%s`",
                                  s->name, tname(cx, s->ty));
                    return;
                }
                sd->derive[j] = s->name;
                sd->derive_sym[j] = s;
            }
            sd->nderive = n;
        } else if (!strcmp(k->key, "dims")) {
            int64_t x;
            if (!const_syn_int(cx, v, &x) || x < 1 || x > 3) {
                diag_error_at(ck->d, v, "E0707", ":dims must be 1, 2 or 3");
                return;
            }
            sd->dims = (int)x;
        } else if (!strcmp(k->key, "msg")) {
            if (v->kind != N_STRING) {
                diag_error_at(ck->d, v, "E0708", ":msg takes a string");
                return;
            }
            sd->msg = v->name;
        } else {
            diag_error_at(ck->d, k, "E0702", "unknown key `:%s` in `%s` (expected :set-to, :derive-from, :dims, :msg)", k->key,
                          what);
            return;
        }
    }
    if (sd->nset && sd->nderive) {
        diag_error_at(ck->d, e, "E0709", "`%s` cannot use both :set-to and :derive-from", what);
        return;
    }
    int ar = sd->nset ? sd->nset : sd->nderive;
    if (sd->dims && ar && sd->dims != ar) {
        diag_error_at(ck->d, e, "E0710", "`%s` says :dims %d but lists %d size%s", what, sd->dims, ar, ar == 1 ? "" : "s");
        return;
    }
    if (!sd->dims) sd->dims = ar;
}

/* Kernel-level declarations: sizes, single-task (function decls were read
 * by resolve_signature). */
static void kernel_decls(Ctx *cx, FuncDef *fd) {
    CFunc *fn = cx->fn;
    for (int i = 0; i < fd->ndecls; i++) {
        const Node *d = fd->decls[i];
        for (int j = 1; j < d->nkids; j++) {
            Node *e = d->kids[j];
            const char *h = syn_head(e);
            if (syn_is_sym(e, "single-task")) {
                if (fd->kind != FN_KERNEL)
                    diag_error_at(cx->ck->d, e, "E0711", "`single-task` is a kernel declaration");
                fn->single_task = 1;
            } else if (h && (!strcmp(h, "global-size") || !strcmp(h, "local-size") || !strcmp(h, "global-work-size") ||
                             !strcmp(h, "local-work-size"))) {
                /* (local-work-size :set-to N) is the spec's other spelling
                   (its histogram-pass block; bitonic-sort-workgroup writes
                   local-size), after its get-local-work-size query */
                size_decl(cx, e, h[0] == 'g' ? &fn->gsize : &fn->lsize);
            } else if (h && (!strcmp(h, "return-type") || !strcmp(h, "type") || !strcmp(h, "type-signature-of"))) {
            } else if (e->kind == N_VECLIT || syn_is_form(e, "function")) {
            } else if (h && !strcmp(h, "use")) {
                constvec_decl(cx, e);
            } else if (is_analysis_decl(h ? h : e->kind == N_SYMBOL ? e->key : NULL)) {
                /* a static-analysis opt-in: read by analysis/ */
            } else if (h && (!strcmp(h, "uniform") || !strcmp(h, "%capture-uniform"))) {
                diag_error_at(cx->ck->d, e, "E1101",
                              "(declare (uniform ...)) belongs in the let that binds the variable (spec \"(uniform <varName>)\"), not in the declarations of `%s`",
                              fd->name);
            } else if (h && !strcmp(h, "grid-level")) {
                if (fd->kind == FN_FUNCTION)
                    diag_error_at(cx->ck->d, e, "E0501",
                                  "`%s` declares (grid-level), but def-function bodies are thread level; use def-grid-function",
                                  fd->name);
            } else {
                diag_warning_at(cx->ck->d, e, "W0302", "unknown declaration `%s` ignored", syn_to_string(cx->ck->a, e, 40));
            }
        }
    }
    if (fn->gsize.present && fn->lsize.present && fn->gsize.dims && fn->lsize.dims && fn->gsize.dims != fn->lsize.dims)
        diag_error_at(cx->ck->d, fn->lsize.at, "E0712", "local-size has %d dimension%s but global-size has %d",
                      fn->lsize.dims, fn->lsize.dims == 1 ? "" : "s", fn->gsize.dims);
    if (fn->single_task && (fn->gsize.present || fn->lsize.present))
        diag_error_at(cx->ck->d, fn->gsize.present ? fn->gsize.at : fn->lsize.at, "E0713",
                      "a single-task kernel runs on one thread; it cannot also declare global-size or local-size");
}

/* ------------------------------------------------------------------ */
/* functions                                                           */

/* A type a variable, parameter or result may have on the target: not
 * bfloat16, which OpenCL C 1.2 lacks (docs/language.md).  Reports E0905. */
int value_type_ok(Checker *ck, const Type *t, const Node *at) {
    if ((t->kind == TY_NUM || t->kind == TY_HWVEC) && t->sc == SC_BFLOAT16) {
        diag_error_at(ck->d, at, "E0905", "`bfloat16` is not available in OpenCL C (no OpenCL C version has a bfloat16 type); use `half` or `float`");
        return 0;
    }
    return 1;
}

static Sym *make_param(Ctx *cx, ParamDecl *pd, Type *t) {
    if (!value_type_ok(cx->ck, t, pd->name)) return NULL;
    Sym *s = new_local(cx, pd->name, pd->name->name, t);
    if (!s) return NULL;
    s->kind = SYM_PARAM;
    s->write_only = pd->is_out;
    if (t->kind == TY_IDENT) {
        /* an identity tensor: no data, so no C parameter at all */
    } else if (t->ndims) {
        /* a tensor-view parameter: the root's pointer, the offset, and
           pointers to the caller's private dims and strides arrays (so the
           callee sees, and transpose! changes, the caller's view) */
        Type *ul = ty_num(SC_ULONG);
        Type *arr = ty_vector(cx->ck->a, ul, AS_PRIVATE, ACC_READ_WRITE, AL_COMPACT, t->ndims);
        Sym *o = new_local(cx, pd->name, arena_printf(cx->ck->a, "%s_off", s->cname), ul);
        Sym *ds = new_local(cx, pd->name, arena_printf(cx->ck->a, "%s_dims", s->cname), arr);
        Sym *ss = new_local(cx, pd->name, arena_printf(cx->ck->a, "%s_strides", s->cname), arr);
        if (!o || !ds || !ss) return NULL;
        s->is_view = 1;
        s->off_sym = o;
        s->dims_sym = ds;
        s->strides_sym = ss;
    } else if (t->soa) {
        /* a soa-vector parameter: one pointer per field and one length */
        s->len_cname = local_cname(cx, arena_printf(cx->ck->a, "%s_len", s->cname));
        if (!soa_param_fields(cx, s, pd->name)) return NULL;
    } else if (t->kind == TY_VECTOR) {
        s->len_cname = local_cname(cx, arena_printf(cx->ck->a, "%s_len", s->cname));
        if (t->align == AL_STD140 && ty_vector_stride(t->elem, AL_STD140) != ty_sizeof(t->elem))
            need_helper(cx, H_STD140_ELEM, t->elem, AS_NONE);
    }
    if (ty_is_arith(t) && t->sc == SC_DOUBLE) prog_of(cx)->uses_fp64 = 1;
    return s;
}

static void check_body(Ctx *cx, FuncDef *fd) {
    Dest d = {D_RETURN, NULL, NULL};
    Node **body = fd->body;
    int n = fd->nbody;
    cx->block = cx->fn->body;
    if (cx->fn->single_task) {
        /* guard: only the first thread runs the body */
        Node *blk = new_block(cx, fd->form);
        cx->block = blk;
        body_to(cx, body, n, &d);
        cx->block = cx->fn->body;
        Node *test = ck_node(cx, N_C_BINARY, fd->form, &ty_bool);
        test->op = OP_EQ;
        test->kids = arena_alloc(cx->ck->a, sizeof(Node *) * 2);
        if (!test->kids) return;
        need_helper(cx, H_GLOBAL_ID, NULL, AS_NONE);
        Node *id = helper_call(cx, fd->form, ty_num(SC_ULONG), need_helper(cx, H_GLOBAL_LINEAR_ID, NULL, AS_NONE), NULL, 0);
        if (!id) return;
        test->kids[0] = id;
        test->kids[1] = int_lit(cx, fd->form, 0, ty_num(SC_ULONG));
        test->nkids = 2;
        Node *ifn = ck_node(cx, N_C_IF, fd->form, &ty_void);
        ifn->kids = arena_alloc(cx->ck->a, sizeof(Node *) * 3);
        if (!ifn->kids) return;
        ifn->kids[0] = test;
        ifn->kids[1] = blk;
        ifn->kids[2] = NULL;
        ifn->nkids = 3;
        ifn->text = "single-task: only the first thread runs the kernel body";
        emit_stmt(cx, ifn);
        return;
    }
    if (n == 0 && fd->ret->kind != TY_VOID) {
        diag_error_at(cx->ck->d, fd->form, "E0332", "`%s` must return `%s`, but its body is empty", fd->name,
                      ty_name(cx->ck->a, fd->ret));
        return;
    }
    body_to(cx, body, n, &d);
}

static CFunc *check_function(Checker *ck, FuncDef *fd, Type **ptys, const Node *call) {
    CFunc *fn = arena_alloc(ck->a, sizeof *fn);
    if (!fn) return NULL;
    fn->kind = fd->kind;
    fn->name = fd->name;
    fn->def = fd->form;
    fn->ret = fd->ret;
    fn->body = syn_new(ck->a, N_C_BLOCK, fd->form->loc);
    fn->consteval = ck->ct != NULL; /* run by the compiler, never emitted */
    /* the C name: kernels keep theirs; functions get a unique mangled name */
    if (fd->kind == FN_KERNEL) {
        fn->cname = fd->name;
        names_take(ck->a, &ck->cnames, fn->cname);
    } else {
        /* an instance of a function whose vector parameters leave the
           address space open is named after the spaces it was made for */
        const char *base = fd->cname_base;
        for (int i = 0; i < fd->nparams; i++)
            if (fd->params[i].ty && fd->params[i].ty->kind == TY_VECTOR && !fd->params[i].ty->as)
                base = arena_printf(ck->a, "%s_%s", base, ty_as_name(ptys[i]->as));
        /* ... and after the element types its incomplete vector parameters
           (an incomplete template alias such as (vec-type nil)) were given */
        for (int i = 0; i < fd->nparams; i++)
            if (fd->params[i].ty && fd->params[i].ty->kind == TY_VECTOR && !fd->params[i].ty->elem && ptys[i]->elem)
                base = arena_printf(ck->a, "%s_%s", base, ty_cname(ptys[i]->elem));
        /* ... and after the rank an (identity-tensor-type) or
           (tensor-view-type) parameter got */
        for (int i = 0; i < fd->nparams; i++)
            if (fd->params[i].ty && fd->params[i].ty->kind == TY_IDENT && !fd->params[i].ty->ndims)
                base = arena_printf(ck->a, "%s_id%d", base, ptys[i]->ndims);
            else if (fd->params[i].ty && fd->params[i].ty->kind == TY_VECTOR && fd->params[i].ty->ndims < 0)
                base = arena_printf(ck->a, "%s_rank%d", base, ptys[i]->ndims);
        fn->cname = fn->consteval ? base : unique_name(ck, &ck->cnames, base);
    }
    Ctx cx = {.ck = ck, .fn = fn, .fd = fd};
    scope_push(&cx);
    fn->params = arena_alloc(ck->a, sizeof(Sym *) * (size_t)(fd->nparams + 1));
    if (!fn->params) return NULL;
    for (int i = 0; i < fd->nparams; i++) {
        Sym *s = make_param(&cx, &fd->params[i], ptys[i]);
        if (!s) return NULL;
        fn->params[fn->nparams++] = s;
        scope_add(&cx, s);
    }
    if (fn->ret->kind == TY_TUPLE) {
        fn->retptrs = arena_alloc(ck->a, sizeof(Sym *) * (size_t)fn->ret->nelems);
        if (!fn->retptrs) return NULL;
        for (int i = 1; i < fn->ret->nelems; i++) {
            Sym *r = new_local(&cx, fd->form, arena_printf(ck->a, "value%d", i + 1), fn->ret->elems[i]);
            if (!r) return NULL;
            r->kind = SYM_RETPTR;
            fn->retptrs[i - 1] = r;
        }
    }
    kernel_decls(&cx, fd);
    if (fd->kind == FN_KERNEL && !fd->exact && ck->c->opt->debug_output) debug_sym(&cx, fd->form);
    fn->exact = fd->exact;
    (void)call;
    PUSH(ck->a, ck->stack, ck->nstack, ck->capstack, fd);
    fd->checking = 1;
    int visible = ck->x ? expander_enter(ck->x, fd->form) : 0;
    check_body(&cx, fd);
    if (ck->x) expander_leave(ck->x, visible);
    side_finish_kernel(&cx);
    fd->checking = 0;
    ck->nstack--;
    PUSH(ck->a, fd->insts, fd->ninsts, fd->capinsts, fn);
    Program *p = ck->prog;
    if (!fn->consteval) {
        PUSH(ck->a, p->funcs, p->nfuncs, p->capfuncs, fn);
        if (fn->kind != FN_KERNEL && fn->cname && !strmap_get(&p->funcs_by_cname, fn->cname))
            strmap_put(ck->a, &p->funcs_by_cname, fn->cname, fn);
    }
    return fn;
}

/* Merge a declared (possibly incomplete) vector type with the argument's. */
/* BASE followed by the parameter types of the overload FD (twice_int,
 * count_if_is_even_intvec): C names that say which overload is which. */
const char *overload_cname(Checker *ck, const FuncDef *fd, const char *base) {
    for (int k = 0; k < fd->nparams; k++) {
        Type *t = fd->params[k].ty;
        if (!t) continue;
        base = arena_printf(ck->a, "%s_%s", base,
                            t->kind == TY_VECTOR && t->tag ? mangle(ck->a, t->tag) /* a derived vector type: its name */
                            : t->kind == TY_VECTOR ? (t->elem ? arena_printf(ck->a, t->soa ? "%s_soa" : "%svec", ty_cname(t->elem)) : "vec")
                                                  : ty_cname(t));
    }
    return base;
}

static Type *concrete_param(Checker *ck, Type *decl, Type *arg) {
    if (decl->kind == TY_IDENT && arg && arg->kind == TY_IDENT) return arg; /* (identity-tensor-type): the argument's rank */
    if (decl->kind == TY_STRUCT && decl->sd->pattern && arg && template_pattern_match(ck, decl, arg)) return arg;
    if (decl->kind != TY_VECTOR || !arg || arg->kind != TY_VECTOR) return decl;
    Type *t = ty_vector(ck->a, decl->elem ? decl->elem : arg->elem, decl->as ? decl->as : arg->as,
                        decl->acc ? decl->acc : arg->acc, decl->align ? decl->align : arg->align,
                        decl->length >= 0 ? decl->length : arg->length);
    if (decl->ndims) {
        t->view = 1;
        t->ndims = decl->ndims < 0 ? arg->ndims : decl->ndims; /* (tensor-view-type): the argument's rank */
    }
    t->tag = decl->tag; /* a derived type's parameter: the derived type inside (derived.c) */
    t->tag_subst = decl->tag_subst;
    if (decl->soa) { /* one instance for soa-vectors and views of any length */
        t->soa = 1;
        t->length = decl->length;
    }
    return t;
}

CFunc *instantiate(Ctx *cx, FuncDef *fd, Type **argtys, const Node *call) {
    Checker *ck = cx->ck;
    resolve_signature(ck, fd);
    if (fd->bad) return NULL;
    if (fd->checking) {
        diag_error_at(ck->d, call, "E0601", "recursive call to `%s`: Crisp does not allow recursion", fd->name);
        for (int i = ck->nstack - 1; i >= 0; i--) {
            diag_note(ck->d, ck->stack[i]->form->loc, "`%s` is being checked here", ck->stack[i]->name);
            if (ck->stack[i] == fd) break;
        }
        return NULL;
    }
    if (ck->nstack > 256) {
        diag_fatal(ck->d, call->loc, call->origin, "E0602", "call chain deeper than 256 functions");
        return NULL;
    }
    Type **ptys = arena_alloc(ck->a, sizeof(Type *) * (size_t)(fd->nparams + 1));
    if (!ptys) return NULL;
    for (int i = 0; i < fd->nparams; i++) ptys[i] = concrete_param(ck, fd->params[i].ty, argtys ? argtys[i] : NULL);
    for (int i = 0; i < fd->ninsts; i++) {
        CFunc *f = fd->insts[i];
        int same = f->consteval == (ck->ct != NULL); /* compile-time code has instances of its own */
        for (int j = 0; j < fd->nparams && same; j++)
            if (!ty_equal(f->params[j]->ty, ptys[j])) same = 0;
        if (same) {
            constvec_call(cx, f, call, 1);
            return f;
        }
    }
    for (int i = 0; i < fd->nparams; i++) {
        Type *t = ptys[i];
        if (t->kind == TY_VECTOR && (!t->elem || !t->as)) {
            diag_error_at(ck->d, call, "E0603", "cannot instantiate `%s`: parameter `%s` has incomplete type `%s`", fd->name,
                          fd->params[i].name->name, ty_name(ck->a, t));
            return NULL;
        }
        if (t->kind == TY_STRUCT && t->sd->pattern) {
            diag_error_at(ck->d, call, "E0603", "cannot instantiate `%s`: parameter `%s` has incomplete type `%s`", fd->name,
                          fd->params[i].name->name, ty_name(ck->a, t));
            return NULL;
        }
        if (t->kind == TY_VECTOR && !t->acc) t->acc = ACC_READ_WRITE;
        if (t->kind == TY_VECTOR && !t->align) t->align = AL_COMPACT;
    }
    CFunc *f = check_function(ck, fd, ptys, call);
    if (f) constvec_call(cx, f, call, 0);
    return f;
}

/* ------------------------------------------------------------------ */
/* the program                                                         */

static int complete_signature(FuncDef *fd) {
    for (int i = 0; i < fd->nparams; i++) {
        Type *t = fd->params[i].ty;
        if (!t) return 0;
        if (t->kind == TY_VECTOR && (!t->elem || !t->as)) return 0;
        if (t->kind == TY_STRUCT && t->sd->pattern) return 0; /* incomplete struct template */
        if (t->kind == TY_IDENT && !t->ndims) return 0;       /* any rank: instantiated per rank */
    }
    return 1;
}

static int all_symbols(const Node *list) {
    for (int i = 0; i < list->nkids; i++)
        if (list->kids[i]->kind != N_SYMBOL) return 0;
    return 1;
}

static void collect(Checker *ck, Node *f) {
    const char *h = syn_head(f);
    if (!h) {
        diag_error_at(ck->d, f, "E0130", "expected a top-level definition such as (def-kernel ...), found `%s`",
                      syn_to_string(ck->a, f, 40));
        return;
    }
    if (!strcmp(h, "def-kernel")) collect_func(ck, f, FN_KERNEL);
    else if (!strcmp(h, "def-function")) {
        if (!hof_collect(ck, f)) collect_func(ck, f, FN_FUNCTION);
    }
    else if (!strcmp(h, "def-grid-function")) collect_func(ck, f, FN_GRID);
    else if (!strcmp(h, "def-struct")) struct_collect(ck, f);
    else if (!strcmp(h, "def-enumeration")) enum_collect(ck, f);
    else if (!strcmp(h, "def-derived-type")) derived_collect(ck, f);
    else if (!strcmp(h, "def-setter")) {
        if (f->nkids < 4 || f->kids[1]->kind != N_SYMBOL || !syn_is_list(f->kids[2]) || f->kids[2]->nkids < 2)
            diag_error_at(ck->d, f, "E0170", "expected (def-setter NAME~ (object [index...] new-value) body...)");
        else if (!all_symbols(f->kids[2]))
            diag_error_at(ck->d, f->kids[2], "E0170", "def-setter parameters are names, as in (object [index...] new-value)");
        else if (f->nkids > 2 && syn_is_list(f->kids[2]) && f->kids[2]->nkids > 17)
            diag_error_at(ck->d, f->kids[2], "E0170", "a def-setter takes at most 15 indices");
        else if (!setter_object_type(f))
            diag_error_at(ck->d, f->kids[2]->kids[0], "E0171",
                          "def-setter `%s` needs the type of its object `%s`: annotate it or (declare (type %s TYPE))",
                          f->kids[1]->key, syn_to_string(ck->a, f->kids[2]->kids[0], 30), syn_to_string(ck->a, f->kids[2]->kids[0], 30));
        else
            arena_push(ck->a, (void ***)&ck->setters, &ck->nsetters, &ck->capsetters, f);
    }
    else if (!strcmp(h, "set-derived")) {
        /* linked once every type is known (check_program) */
    }
    else if (!strcmp(h, "with-template-type")) template_collect(ck, f);
    else if (!strncmp(h, "gen-", 4)) {
        /* instantiated once every definition is known (check_program) */
    }
    else if (!strcmp(h, "def-kernel-exact")) {
        FuncDef *fd = collect_func(ck, f, FN_KERNEL);
        if (fd) fd->exact = 1;
    }
    else if (!strcmp(h, "def-const") || !strcmp(h, "def-constant")) collect_const(ck, f);
    else if (!strcmp(h, "def-parameter")) collect_parameter(ck, f);
    else if (!strcmp(h, "def-type")) {
        if (f->nkids != 3 || f->kids[1]->kind != N_SYMBOL) {
            diag_error_at(ck->d, f, "E0131", "expected (def-type name type-expr)");
            return;
        }
        if (ty_lookup_base(f->kids[1]->key)) {
            diag_error_at(ck->d, f->kids[1], "E0132", "`%s` is a built-in type and cannot be redefined", f->kids[1]->name);
            return;
        }
        if (is_signature_type(f->kids[2])) return; /* a signature alias: substituted by signature_aliases */
        Sym *s = new_global(ck, SYM_TYPE, f->kids[1]);
        if (s) s->type_syn = f->kids[2];
    } else if (!strcmp(h, "declaim")) {
        /* static-analysis opt-ins: read by analysis/ */
        PUSH(ck->a, ck->prog->declaims, ck->prog->ndeclaims, ck->prog->capdeclaims, f);
    } else if (!strcmp(h, "declare")) {
        /* (declare (type +PI+ float)) after a def-const: spec style */
        for (int j = 1; j < f->nkids; j++) {
            Node *e = f->kids[j];
            if (syn_is_form(e, "type") && e->nkids >= 3) {
                for (int k = 1; k < e->nkids - 1; k++) {
                    Sym *s = e->kids[k]->kind == N_SYMBOL ? global_lookup(ck, e->kids[k]->key) : NULL;
                    if (!s) s = parameter_lookup(ck, e->kids[k]);
                    if (!s || (s->kind != SYM_CONST && s->kind != SYM_PARAMETER)) {
                        diag_error_at(ck->d, e->kids[k], "E0133", "top-level (declare (type ...)) names no def-const or def-parameter `%s`",
                                      syn_to_string(ck->a, e->kids[k], 30));
                        continue;
                    }
                    s->type_syn = e->kids[e->nkids - 1];
                }
            } else {
                diag_error_at(ck->d, e, "E0134", "only (type ...) may be declared at top level");
            }
        }
    } else if (!strcmp(h, "def-const-vec")) {
        if (f->nkids < 3 || f->kids[1]->kind != N_SYMBOL) {
            diag_error_at(ck->d, f, "E0180", "expected (def-const-vec NAME body...)");
            return;
        }
        Sym *s = new_global(ck, SYM_CONSTVEC, f->kids[1]);
        if (s) {
            s->init = f;
            s->immutable = 1;
        }
    } else if (!strcmp(h, "%host-bitonic-sort") || !strcmp(h, "%host-radix-sort")) {
        /* written by gen-bitonic-sort-vector and gen-radix-sort-vector (lib/sort.crisp) */
        int radix = !strcmp(h, "%host-radix-sort");
        int ok = f->nkids == 7 && f->kids[5]->kind == N_INT && f->kids[5]->ival > 0 && f->kids[5]->ival <= 65536 &&
                 f->kids[6]->kind == N_INT;
        for (int i = 1; ok && i < 5; i++) ok = f->kids[i]->kind == N_STRING && f->kids[i]->slen > 0;
        if (!ok) {
            diag_error_at(ck->d, f, "E0130", "expected (%s \"name\" \"kernel\" \"kernel\" \"kernel\" N N)", h);
            return;
        }
        HostSort *hs = arena_alloc(ck->a, sizeof *hs);
        if (!hs) return;
        hs->kind = radix ? HOST_SORT_RADIX : HOST_SORT_BITONIC;
        hs->name = f->kids[1]->name;
        for (int i = 0; i < 3; i++) hs->kernel[i] = f->kids[2 + i]->name;
        if (radix) {
            hs->passes = (int)f->kids[5]->ival;
            hs->pairs = f->kids[6]->ival != 0;
            hs->in_place = 1;
        } else {
            hs->wg = (int)f->kids[5]->ival;
            hs->in_place = f->kids[6]->ival != 0;
        }
        hs->line = f->loc.line;
        PUSH(ck->a, ck->prog->sorts, ck->prog->nsorts, ck->prog->capsorts, hs);
    } else if (!strcmp(h, "def-orchestration")) {
        orch_collect(ck, f, NULL);
    } else {
        diag_error_at(ck->d, f, "E0130",
                      "expected a top-level definition (def-kernel, def-function, def-grid-function, def-type, def-const, def-parameter), found `(%s ...)`",
                      f->kids[0]->name);
    }
}

/* Spec "Type Aliases and Type Constructors": (def-type binT #'(long long =>
 * long)) names a function signature.  Signatures are syntax to the checker
 * (a function argument is specialised per call), so before a function is
 * collected, an alias defined earlier is replaced by its signature where the
 * function's parameter types are written: annotations and (declare (type
 * P... ALIAS)). */
static Node *alias_signature(Checker *ck, Node *t) {
    for (int j = 0; t && t->kind == N_SYMBOL && j < ck->nsigs; j++)
        if (!strcmp(ck->sig_names[j]->key, t->key)) return ck->sig_types[j];
    return NULL;
}

static void signature_aliases(Checker *ck, Node *f) {
    if (syn_is_form(f, "def-type") && f->nkids == 3 && syn_is_form(f->kids[2], "type-signature-of") && f->kids[2]->nkids == 2) {
        /* (def-type NAME (type-signature-of #'f)): the signature of a
           function defined before (spec "First Order Functions") */
        Node *fn = f->kids[2]->kids[1];
        const char *name = syn_is_form(fn, "function") && fn->nkids == 2 && fn->kids[1]->kind == N_SYMBOL ? fn->kids[1]->key : NULL;
        Node *sig = name ? ctq_signature_syntax(ck, name, f->kids[2]->loc) : NULL;
        if (!sig) return; /* reported once, when the alias is resolved (typeexpr.c) */
        sig->kind = N_LIST; /* #'(P... => R), as a signature alias is written */
        Node *k[2] = {syn_symbol(ck->a, sig->loc, "function"), sig};
        f->kids[2] = syn_list(ck->a, sig->loc, k, 2);
    }
    if (syn_is_form(f, "def-type") && f->nkids == 3 && f->kids[1]->kind == N_SYMBOL && is_signature_type(f->kids[2])) {
        int cap = ck->capsigs;
        arena_push(ck->a, (void ***)&ck->sig_names, &ck->nsigs, &ck->capsigs, f->kids[1]);
        ck->nsigs--;
        ck->capsigs = cap;
        arena_push(ck->a, (void ***)&ck->sig_types, &ck->nsigs, &ck->capsigs, f->kids[2]);
        return;
    }
    if (!ck->nsigs || !(syn_is_form(f, "def-function") || syn_is_form(f, "def-grid-function")) || f->nkids < 3 ||
        f->kids[2]->kind != N_LIST)
        return;
    for (int k = 0; k < f->kids[2]->nkids; k++) {
        Node *p = f->kids[2]->kids[k], *sg = p->kind == N_SYMBOL ? alias_signature(ck, p->ann) : NULL;
        if (sg) p->ann = sg;
    }
    for (int j = 3; j < f->nkids && (syn_is_form(f->kids[j], "declare") || f->kids[j]->kind == N_STRING); j++)
        for (int m = 1; f->kids[j]->kind == N_LIST && m < f->kids[j]->nkids; m++) {
            Node *e = f->kids[j]->kids[m];
            Node *sg = syn_is_form(e, "type") && e->nkids >= 3 ? alias_signature(ck, e->kids[e->nkids - 1]) : NULL;
            if (sg) e->kids[e->nkids - 1] = sg;
        }
}


/* Does a feature expression of TEXT (#+NAME, #-NAME, #+(and A (not B)))
 * name NAME, compared exactly? */
static int feature_mentions(const char *text, const char *name) {
    size_t n = strlen(name);
    for (const char *p = text; p && (p = strchr(p, '#')) != NULL; p++) {
        if (p[1] != '+' && p[1] != '-') continue;
        const char *q = p + 2, *end = q;
        if (*q == '(') { /* to the matching parenthesis */
            int depth = 0;
            for (; *end; end++) {
                depth += *end == '(' ? 1 : *end == ')' ? -1 : 0;
                if (depth == 0) break;
            }
        } else {
            while (*end && !strchr(" \t\r\n()", *end)) end++;
        }
        for (const char *t = q; t + n <= end; t++)
            if (!strncmp(t, name, n) && (t == q || strchr(" \t\r\n(", t[-1])) && (t + n == end || strchr(" \t\r\n)", t[n])))
                return 1;
    }
    return 0;
}

/* W0304: a -D override that no def-parameter takes and that no source
 * mentions (#+NAME and #-NAME read -D values too).  def-parameter names are
 * compared exactly, so -Dmax_index=5 for MAX_INDEX left the default in
 * place without a word. */
static void unused_defines(Checker *ck) {
    const CrispOptions *o = ck->c->opt;
    for (int i = 0; o && i < o->ndefines; i++) {
        const char *name = o->defines[i].name;
        int used = 0;
        for (int j = i + 1; j < o->ndefines && !used; j++) used = !strcmp(o->defines[j].name, name); /* reported once */
        for (int g = 0; g < ck->globals.n && !used; g++)
            used = ck->globals.syms[g]->kind == SYM_PARAMETER && !strcmp(ck->globals.syms[g]->name, name);
        for (int f = 0; f < ck->c->nfiles && !used; f++) used = feature_mentions(ck->c->files[f]->text, name);
        if (used) continue;
        Suggest sg;
        suggest_init(&sg, name);
        for (int g = 0; g < ck->globals.n; g++)
            if (ck->globals.syms[g]->kind == SYM_PARAMETER) suggest_add(&sg, ck->globals.syms[g]->name);
        const char *near = suggest_best(&sg);
        SrcLoc none = {NULL, 0, 0};
        if (near)
            diag_warning(ck->d, none, NULL, "W0304", "-D%s sets no def-parameter (names are compared exactly): did you mean -D%s?",
                         name, near);
        else
            diag_warning(ck->d, none, NULL, "W0304", "-D%s sets no def-parameter and no source reads it", name);
    }
}

/* Pass 1 for one top-level form as read: its macros expanded (expand.h),
 * then each resulting definition collected. */
static void collect_toplevel(Checker *ck, Node *form, Forms *all) {
    Forms out = {0};
    expander_toplevel(ck->x, form, &out);
    for (int i = 0; i < out.n && !ck->c->diag.fatal; i++) {
        signature_aliases(ck, out.v[i]);
        collect(ck, out.v[i]);
        forms_push(ck->a, all, out.v[i]);
    }
}

Program *check_program(Crisp *c, Expander *x, Forms read, const TargetNames *target) {
    Checker ck = {.c = c, .a = &c->arena, .d = &c->diag, .x = x, .ev = x ? expander_eval(x) : NULL, .names = target};
    Program *p = arena_alloc(&c->arena, sizeof *p);
    if (!p) return NULL;
    ck.prog = p;
    p->debug_output = c->opt->debug_output;
    p->ocl_version = c->opt->ocl_version ? c->opt->ocl_version : 120; /* --ocl-version */
    ctquery_install(&ck);
    /* pass 1: the library's definitions, then the program's, in order */
    Forms forms = {0};
    if (x) {
        Forms lib = expander_library(x);
        ck.in_library = 1;
        for (int i = 0; i < lib.n && !c->diag.fatal; i++) {
            signature_aliases(&ck, lib.v[i]);
            collect(&ck, lib.v[i]);
            forms_push(ck.a, &forms, lib.v[i]);
        }
        ck.in_library = 0;
    }
    for (int i = 0; i < read.n && !c->diag.fatal; i++) {
        if (x) collect_toplevel(&ck, read.v[i], &forms);
        else {
            signature_aliases(&ck, read.v[i]);
            collect(&ck, read.v[i]);
            forms_push(ck.a, &forms, read.v[i]);
        }
    }
    /* constants first, so errors in them appear once */
    for (int g = 0; g < ck.globals.n && !c->diag.fatal; g++) {
        Sym *s = ck.globals.syms[g];
        if (s->kind == SYM_CONST || s->kind == SYM_PARAMETER) const_value(&ck, s);
        else if (s->kind == SYM_TYPE) {
            ck.allow_incomplete = 1; /* an alias of an incomplete type is checked where it is used */
            type_expr(&ck, s->def ? (Node *)s->def : NULL);
            ck.allow_incomplete = 0;
        }
    }
    unused_defines(&ck);
    for (int i = 0; i < forms.n && !c->diag.fatal; i++)
        if (syn_is_form(forms.v[i], "set-derived")) set_derived(&ck, forms.v[i]);
    /* (gen-NAME ...) forms, now that every template and type is known */
    for (int i = 0; i < forms.n && !c->diag.fatal; i++) {
        const char *h = syn_head(forms.v[i]);
        if (h && !strncmp(h, "gen-", 4)) template_gen(&ck, forms.v[i]);
    }
    orch_resolve(&ck); /* may instantiate kernels: before signatures are resolved */
    for (int i = 0; i < ck.nfuncs; i++) resolve_signature(&ck, ck.funcs[i]);
    /* overloads: no two with the same parameter types; C names that say
       which instance is which (distance_point, distance_coordinate) */
    for (int i = 0; i < ck.nfuncs; i++) {
        FuncDef *a = ck.funcs[i];
        if (!a->overloaded || a->bad) continue;
        if (!a->is_instance) {
            a->cname_base = overload_cname(&ck, a, mangle(ck.a, a->name));
            strmap_put(ck.a, &ck.fnbases, a->cname_base, a);
        }
        for (FuncDef *b = func_lookup(&ck, a->key); b && b != a; b = b->next_overload) {
            if (b->bad || b->kind == FN_KERNEL || a->nparams != b->nparams) continue;
            int same = 1;
            for (int k = 0; k < a->nparams && same; k++) same = ty_equal(a->params[k].ty, b->params[k].ty);
            if (same && b->from_lib && !a->from_lib) {
                b->bad = 1; /* the program's own definition replaces the library's */
                continue;
            }
            if (same) {
                diag_error_at(ck.d, a->form->kids[1], "E0105", "`%s` is already defined with the same parameter types", a->name);
                diag_note(ck.d, b->form->loc, "the other definition is here");
                a->bad = 1;
            }
        }
    }
    /* def-const-vecs in definition order (a body may use earlier ones; the
       functions it calls have their signatures and C names now), then
       their C names, clear of every kernel and function name */
    for (int g = 0; g < ck.globals.n && !c->diag.fatal; g++) {
        Sym *s = ck.globals.syms[g];
        if (s->kind != SYM_CONSTVEC) continue;
        constvec_eval(&ck, s);
        if (!s->cvec) continue;
        const char *base = mangle(ck.a, s->name);
        int clash = is_reserved(&ck, base) || strmap_get(&ck.fnbases, base);
        if (clash) base = arena_printf(ck.a, "cv_%s", base);
        s->cname = s->cvec->cname = unique_name(&ck, &ck.cnames, base);
        PUSH(ck.a, p->cvecs, p->ncvecs, p->capcvecs, s->cvec);
    }
    for (int i = 0; i < ck.nfuncs && !c->diag.fatal; i++) {
        FuncDef *fd = ck.funcs[i];
        if (fd->kind != FN_KERNEL || fd->bad) continue;
        Type **ptys = arena_alloc(ck.a, sizeof(Type *) * (size_t)(fd->nparams + 1));
        if (!ptys) break;
        for (int j = 0; j < fd->nparams; j++) ptys[j] = fd->params[j].ty;
        check_function(&ck, fd, ptys, fd->form);
    }
    for (int i = 0; i < ck.nfuncs && !c->diag.fatal; i++) {
        FuncDef *fd = ck.funcs[i];
        if (fd->kind == FN_KERNEL || fd->bad || fd->ninsts || fd->hof_src) continue; /* hof.c: made for calls */
        if (fd->from_lib) continue; /* the library: only what the program calls */
        if (!complete_signature(fd)) continue; /* checked at each call */
        Type **ptys = arena_alloc(ck.a, sizeof(Type *) * (size_t)(fd->nparams + 1));
        if (!ptys) break;
        for (int j = 0; j < fd->nparams; j++) ptys[j] = concrete_param(&ck, fd->params[j].ty, NULL);
        for (int j = 0; j < fd->nparams; j++) {
            if (ptys[j]->kind == TY_VECTOR && !ptys[j]->acc) ptys[j]->acc = ACC_READ_WRITE;
            if (ptys[j]->kind == TY_VECTOR && !ptys[j]->align) ptys[j]->align = AL_COMPACT;
        }
        check_function(&ck, fd, ptys, fd->form);
    }
    if (!c->diag.fatal) orch_finish(&ck);
    if (c->arena.exhausted && !c->diag.fatal)
        diag_fatal(&c->diag, (SrcLoc){0}, NULL, "E0199", "out of memory while checking (the program is too large)");
    StrBuf names;
    sb_init(&names);
    for (int i = 0; i < c->nfiles; i++) {
        if (i) sb_putc(&names, ' ');
        sb_puts(&names, c->files[i]->name);
    }
    p->source = arena_strdup(&c->arena, sb_cstr(&names));
    sb_free(&names);
    return p;
}
