/* check.c - the checker: its passes (check_program), statements, scopes.
 *
 * check_program runs check_passes in order: collect every top-level
 * definition (collect.c; order in the file does not matter: the spec's
 * "multi-pass" compilation), resolve constants and signatures
 * (signatures.c), link derived types, generate template instances, run
 * the def-const-vecs, then check each kernel body (instances.c); a call to
 * a def-function instantiates it for the concrete argument types (vector
 * parameters may leave address space or access open), which also detects
 * recursion.  Functions nobody calls are checked on their own when their
 * signature is complete.
 *
 * This file also holds what every body needs: scopes, and the statement
 * forms.  Lisp's expression-oriented forms (let, if, progn ...) are
 * lowered to C statements with a destination: discard the value, return
 * it, or assign it to a variable. */
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>

#include "../macros/expand.h"
#include "consteval.h"

/* ------------------------------------------------------------------ */
/* small utilities                                                     */

/* arena_push, storing in place while there is room (no call) */
#define PUSH(a, arr, n, cap, item)                                                                                     \
    ((n) < (cap) ? (void)((arr)[(n)++] = (void *)(item)) : arena_push((a), (void ***)&(arr), &(n), &(cap), (void *)(item)))

/* ------------------------------------------------------------------ */
/* macro calls (expand.h): expanded where the checker reaches them     */

Node *ck_expand_macro(Ctx *cx, Node *syn) {
    Checker *ck = cx->ck;
    Node *done = ptrmap_get(&cx->memo, syn);
    if (done) return done;
    Ctx *saved = ck->cur;
    ck->cur = cx;
    Node *e = expander_expand(ck->x, syn);
    ck->cur = saved;
    if (e) ptrmap_put(ck->a, &cx->memo, syn, e);
    return e;
}

/* A function's macro memo is dead once the function is checked: when
 * small (most functions'), emptied in place for the next function
 * (Checker.spare_memo); a large one goes back to the arena (issue 14: a
 * release and a new block per function). */
#define MEMO_KEEP_SLOTS 64

void ck_memo_release(Checker *ck, PtrMap *m) {
    if (!ck->spare_memo.cap && m->cap <= MEMO_KEEP_SLOTS) {
        ptrmap_clear(m);
        ck->spare_memo = *m;
    } else {
        ptrmap_release(ck->a, m);
    }
    *m = (PtrMap){0};
}

PtrMap ck_memo_fresh(Checker *ck) {
    PtrMap m = ck->spare_memo;
    ck->spare_memo = (PtrMap){0};
    return m;
}

Node *ck_expand_all(Checker *ck, Node *syn) {
    if (!syn || !ck->x || (syn->kind != N_LIST && syn->kind != N_HWVEC)) return syn;
    return expander_expand_all(ck->x, syn);
}

Node *ck_node_made(Ctx *cx, Node *n, NodeKind k, const Node *at, Type *ty) {
    if (!n) n = syn_new(cx->ck->a, k, at ? at->loc : (SrcLoc){0}); /* the arena's dummy node when exhausted */
    if (at) n->origin = at->origin;
    n->ty = ty;
    return n;
}

/* C_BLOCK kids grow by doubling; capacity is the next power of two. */
void ck_block_add(Ctx *cx, Node *blk, Node *stmt) {
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

void ck_emit_stmt(Ctx *cx, Node *stmt) {
    if (stmt) ck_block_add(cx, cx->block, stmt);
}

Program *ck_prog_of(Ctx *cx) {
    return cx->ck->prog;
}

/* ------------------------------------------------------------------ */
/* scopes                                                              */

/* Every scope but the globals is made here, and nothing refers to one
 * once it is popped (its symbols live on): a popped scope serves the next
 * push, its array of symbols emptied but kept. */
void ck_scope_push(Ctx *cx) {
    Checker *ck = cx->ck;
    Scope *s = ck->spare_scopes;
    if (s) {
        ck->spare_scopes = s->up;
        s->n = 0;
        s->idx = (StrMap){0};
    } else {
        s = arena_alloc(ck->a, sizeof *s);
        if (!s) return;
    }
    s->up = cx->scope;
    cx->scope = s;
}

void ck_scope_pop(Ctx *cx) {
    Scope *s = cx->scope;
    if (!s) return;
    cx->scope = s->up;
    if (cx->ck->a->exhausted) return; /* a push may have failed: pops may not match */
    s->up = cx->ck->spare_scopes;
    cx->ck->spare_scopes = s;
}

/* Two keys with the same first byte: the same string?  (Compared here:
 * short names, and strcmp's call cost more than the comparison.) */
static inline int same_key(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

static inline Sym *scope_find(Scope *sc, const char *key) {
    if (sc->idx.cap) return strmap_get(&sc->idx, key);
    for (int i = sc->n - 1; i >= 0; i--) {
        /* a variable's key is mostly the very spelling its uses carry (the
           reader interns them): found without comparing the bytes */
        const char *k = sc->syms[i]->key;
        if (k == key || (k[0] == key[0] && same_key(k, key))) return sc->syms[i];
    }
    return NULL;
}

/* Small scopes (most blocks) are scanned; from 16 symbols on (the
 * globals, a long let) a hash index answers. */
#define SCOPE_INDEX_FROM 16

void ck_scope_insert(Arena *a, Scope *sc, Sym *s) {
    sc->version++;
    PUSH(a, sc->syms, sc->n, sc->cap, s); /* mostly a reused scope's array: no call */
    if (sc->idx.cap) {
        strmap_put(a, &sc->idx, s->key, s);
    } else if (sc->n >= SCOPE_INDEX_FROM) {
        for (int i = 0; i < sc->n; i++) strmap_put(a, &sc->idx, sc->syms[i]->key, sc->syms[i]);
    }
}

void ck_scope_add(Ctx *cx, Sym *s) {
    if (!cx->scope) return;
    /* the name first: mostly neither (issue 14: the test read the
       defining node of every symbol) */
    if (s->key && ((s->key[0] == 't' && !s->key[1]) || (s->key[0] == 'n' && s->key[1] == 'i' && s->key[2] == 'l' && !s->key[3])) &&
        (s->kind == SYM_LOCAL || s->kind == SYM_PARAM) && s->def && !s->def->origin) {
        /* spec "Booleans": t and nil are the constants true and false, so a
         * variable of that name could never be read */
        diag_error_at(cx->ck->d, s->def, "E0397", "`%s` is the constant %s and cannot name a variable; rename it", s->name,
                      syn_streq(s->key, "t") ? "true" : "false");
        return;
    }
    if (s->kind == SYM_LOCAL && s->name && s->name[0] != '%' && s->def && !s->def->origin) {
        /* Crisp names are case-insensitive: `b` hides a parameter `B`
           (parameters and variables live in the function's scopes, not
           in the globals: those are not searched) */
        Sym *o = NULL;
        for (Scope *sc = cx->scope; sc && !o; sc = sc->up)
            if (sc->n) o = scope_find(sc, s->key);
        if (o && o != s && o->name && strcmp(o->name, s->name) && (o->kind == SYM_PARAM || o->kind == SYM_LOCAL)) {
            sym_rare_w(cx->ck->a, s)->shadows = o;
            diag_warning_at(cx->ck->d, s->def, "W0303", "`%s` hides the %s `%s`: Crisp names are case-insensitive", s->name,
                            o->kind == SYM_PARAM ? "parameter" : "variable", o->name);
            if (o->def) diag_note(cx->ck->d, o->def->loc, "`%s` is defined here", o->name);
        }
    }
    ck_scope_insert(cx->ck->a, cx->scope, s);
}

Sym *ck_global_lookup(Checker *ck, const char *key) {
    GlobalMemo *m = &ck->gmemo[((uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull) >> (64 - GLOBAL_MEMO_BITS)];
    if (m->key == key && m->version == ck->globals.version) return m->sym;
    Sym *s = scope_find(&ck->globals, key);
    *m = (GlobalMemo){key, s, ck->globals.version};
    return s;
}

Sym *ck_scope_lookup(Ctx *cx, const char *key) {
    for (Scope *s = cx->scope; s; s = s->up) {
        if (!s->n) continue; /* most branches' scopes */
        Sym *f = scope_find(s, key);
        if (f) return f;
    }
    return ck_global_lookup(cx->ck, key);
}

/* def-parameter names are case sensitive: look them up by spelling. */
Sym *ck_parameter_lookup(Checker *ck, const Node *name) {
    if (!name || name->kind != N_SYMBOL) return NULL;
    for (int g = 0; g < ck->globals.n; g++)
        if (ck->globals.syms[g]->kind == SYM_PARAMETER && syn_streq(ck->globals.syms[g]->name, name->name))
            return ck->globals.syms[g];
    return NULL;
}

/* Every write of fnbases (its version: ck_local_cname's memo of "a
 * function's base", cnames.c). */
void ck_fnbase_put(Checker *ck, const char *base, FuncDef *fd) {
    strmap_put(ck->a, &ck->fnbases, base, fd);
    ck->fnbases_version++;
}

/* Index a new FuncDef by name (non-kernels, in definition order) and its
 * C name base. */
void ck_func_index(Checker *ck, FuncDef *fd) {
    ck_fnbase_put(ck, fd->cname_base, fd);
    if (fd->kind == FN_KERNEL) return;
    void **slot = strmap_slot(ck->a, &ck->funcs_idx, fd->key); /* one probe (issue 14) */
    if (!slot) return;
    FuncDef *f = *slot;
    if (!f) {
        *slot = fd;
        ck->funcs_version++; /* ck_func_lookup's memo (FuncMemo) */
        return;
    }
    while (f->next_overload) f = f->next_overload;
    f->next_overload = fd;
}

int ck_func_overloads(Checker *ck, const char *key, FuncDef **out, int max) {
    int n = 0;
    for (FuncDef *f = ck_func_lookup(ck, key); f && n < max; f = f->next_overload) out[n++] = f;
    return n;
}

FuncDef *ck_func_lookup(Checker *ck, const char *key) {
    FuncMemo *m = &ck->fmemo[((uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull) >> (64 - FUNC_MEMO_BITS)];
    if (m->key == key && m->version == ck->funcs_version) return m->fd;
    FuncDef *fd = strmap_get(&ck->funcs_idx, key);
    *m = (FuncMemo){key, fd, ck->funcs_version};
    return fd;
}

const SymRare sym_rare_none;

/* The *_w accessors below: the record just made, or (the arena refused:
 * out of memory, which the stage reports at its next check) a zeroed one
 * so the write in hand goes somewhere harmless. */
static void *made_or_scratch(void *made, void *scratch, size_t size) {
    if (made) return made;
    memset(scratch, 0, size);
    return scratch;
}

SymRare *sym_rare_w(Arena *a, Sym *s) {
    static _Thread_local SymRare scratch;
    if (!s->rare) s->rare = arena_alloc(a, sizeof *s->rare);
    return made_or_scratch(s->rare, &scratch, sizeof scratch);
}

const CFuncRare cfunc_rare_none;
const SizeDecl size_decl_none;

CFuncRare *cfunc_rare_w(Arena *a, CFunc *fn) {
    static _Thread_local CFuncRare scratch;
    if (!fn->rare) fn->rare = arena_alloc(a, sizeof *fn->rare);
    return made_or_scratch(fn->rare, &scratch, sizeof scratch);
}

SizeDecl *cfunc_gsize_w(Arena *a, CFunc *fn) {
    static _Thread_local SizeDecl scratch;
    if (!fn->gsize_decl) fn->gsize_decl = arena_alloc(a, sizeof *fn->gsize_decl);
    return made_or_scratch(fn->gsize_decl, &scratch, sizeof scratch);
}

void sym_rare_unshare(Arena *a, Sym *copy) {
    if (!copy->rare) return;
    SymRare *r = arena_alloc(a, sizeof *r);
    if (r) *r = *copy->rare;
    copy->rare = r;
}

/* NAME's key (syn_key): AT's own when AT is the symbol that spells NAME
 * and its key is NAME in lower case, as the reader makes it (issue 14: the
 * uses of the variable carry that very pointer, which scope_find compares
 * first; a parameter `A` was given a key of its own, found by strcmp). */
static const char *local_key(Arena *a, const Node *at, const char *name) {
    if (at && at->kind == N_SYMBOL && at->name == name && at->key) {
        if (at->key == name) return at->key; /* the reader's one string for both */
        const char *k = at->key, *p = name;
        while (*p && *k == (*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p)) p++, k++;
        if (!*p && !*k) return at->key;
    }
    return syn_key(a, name);
}

Sym *ck_new_local(Ctx *cx, const Node *at, const char *name, Type *ty) {
    Sym *s = arena_alloc(cx->ck->a, sizeof *s);
    if (!s) return NULL;
    s->kind = SYM_LOCAL;
    s->name = name;
    s->key = local_key(cx->ck->a, at, name);
    s->cname = ck_local_cname(cx, name);
    s->ty = ty;
    s->def = at;
    return s;
}

Sym *ck_new_temp(Ctx *cx, const Node *at, const char *hint, Type *ty) {
    Sym *s = ck_new_local(cx, at, hint, ty);
    if (s) {
        s->is_temp = 1;
        s->key = arena_printf(cx->ck->a, "%%temp%d", ++cx->temp_counter);
    }
    return s;
}

Sym *ck_declare_temp(Ctx *cx, const Node *at, const char *hint, Type *ty, Node *init) {
    Sym *s = ck_new_temp(cx, at, hint, ty);
    if (!s) return NULL;
    Node *d = ck_node(cx, N_C_DECL, at, ty);
    d->sym = s;
    if (init) {
        d->kids = arena_alloc(cx->ck->a, sizeof(Node *));
        if (!d->kids) return NULL;
        d->kids[d->nkids++] = init;
    }
    ck_emit_stmt(cx, d);
    return s;
}

/* Whether `h` is still one of p's helpers (a rollback may have cut it). */
int helper_live(const Program *p, const Helper *h) {
    return h->index < p->nhelpers && p->helpers[h->index] == h;
}

/* Append a new helper to p's list and to the list of its kind. */
void ck_helper_add(Arena *a, Program *p, Helper *h) {
    h->index = p->nhelpers;
    PUSH(a, p->helpers, p->nhelpers, p->caphelpers, h);
    if ((unsigned)h->kind < HELPER_NKINDS) {
        PUSH(a, p->helpers_of_kind[h->kind], p->nhelpers_of_kind[h->kind], p->caphelpers_of_kind[h->kind], h);
        if (h->ty) {
            PtrMap *byty = &p->helpers_by_type[h->kind];
            h->next_type = ptrmap_get(byty, h->ty);
            ptrmap_put(a, byty, h->ty, h);
        }
    }
}

Helper *ck_need_helper(Ctx *cx, HelperKind k, Type *ty, AddrSpace as) {
    Program *p = ck_prog_of(cx);
    if (k != H_ATOMIC_RMW && k != H_DEBUG_LOG && k != H_DEVICE_HAS && (unsigned)k < HELPER_NKINDS) {
        /* shared: one per (kind, type, address space), the first made that
           is still live; those of a type through their chain (issue 14: a
           scan of the kind's, for every struct made, was quadratic) */
        if (ty) {
            Helper *first = NULL;
            for (Helper *h = ptrmap_get(&p->helpers_by_type[k], ty); h; h = h->next_type)
                if (h->as == as && helper_live(p, h)) first = h;
            if (first) return first;
        } else {
            for (int i = 0; i < p->nhelpers_of_kind[k]; i++) {
                Helper *h = p->helpers_of_kind[k][i];
                if (h->ty == ty && h->as == as && helper_live(p, h)) return h;
            }
        }
    }
    Helper *h = arena_alloc(cx->ck->a, sizeof *h);
    if (!h) return NULL;
    h->kind = k;
    h->ty = ty;
    h->as = as;
    ck_helper_add(cx->ck->a, p, h);
    return h;
}

/* ------------------------------------------------------------------ */
/* contexts: thread level / grid level / dispatch                      */

static const char *fn_kind_word(FnKind k) {
    return k == FN_KERNEL ? "kernel" : k == FN_GRID ? "grid function" : "function";
}

int ck_grid_op_reports(Ctx *cx) {
    return !ck_skip_checks(cx->ck) && !cx->grid_steps && (cx->fn->kind == FN_FUNCTION || cx->grid_region);
}

void ck_grid_op(Ctx *cx, const Node *at, const char *what) {
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

void ck_deliver(Ctx *cx, Node *val, Dest *d, const Node *at) {
    if (!val) return;
    switch (d->kind) {
    case D_DISCARD:
        if (ck_node_has_effects(val)) {
            Node *s = ck_node(cx, N_C_EXPR, at, &ty_void);
            Node *k[1] = {val};
            s->kids = arena_alloc(cx->ck->a, sizeof(Node *));
            if (s->kids) {
                s->kids[0] = k[0];
                s->nkids = 1;
            }
            ck_emit_stmt(cx, s);
        }
        return;
    case D_RETURN: {
        Type *rt = cx->fn->ret;
        if (rt->kind == TY_VOID && val->kind == N_C_VAR && val->sym && cx->fn->kind != FN_KERNEL) {
            /* the body's value is one of the function's own side channels
               (spec "generating scratch vectors"): the call stands for the
               caller's vector */
            for (int i = 0; i < cfunc_rare(cx->fn)->nfsides; i++)
                if (cfunc_rare(cx->fn)->fsides[i]->param == val->sym ||
                    (val->sym->cname && syn_streq(cfunc_rare(cx->fn)->fsides[i]->param->cname, val->sym->cname)))
                    cx->fn->ret_side = i + 1;
            if (cx->fn->ret_side) return;
        }
        if (rt->kind == TY_VOID) {
            Dest dd = {D_DISCARD, NULL, NULL};
            ck_deliver(cx, val, &dd, at);
            return;
        }
        if (rt->kind == TY_TUPLE && rt->maybe && rt->nelems == 2 && val->ty && val->ty->kind != TY_TUPLE &&
            val->ty->kind != TY_VOID) {
            /* the value of a maybe function's body: (result :OK value) */
            Node *v = ck_coerce(cx, val, rt->elems[1], at, "return value");
            if (!v) return;
            Node *as = ck_node(cx, N_C_ASSIGN, at, v->ty);
            as->op = OP_SET;
            as->kids = arena_alloc(cx->ck->a, sizeof(Node *) * 2);
            if (!as->kids) return;
            as->kids[0] = ck_var_ref(cx, at, cx->fn->retptrs[0]);
            as->kids[1] = v;
            as->nkids = 2;
            Node *st = ck_node(cx, N_C_EXPR, at, &ty_void);
            st->kids = arena_alloc(cx->ck->a, sizeof(Node *));
            if (!st->kids) return;
            st->kids[0] = as;
            st->nkids = 1;
            ck_emit_stmt(cx, st);
            Node *r = ck_node(cx, N_C_RETURN, at, rt);
            r->kids = arena_alloc(cx->ck->a, sizeof(Node *));
            if (!r->kids) return;
            r->kids[0] = ck_node(cx, N_C_BOOLLIT, at, &ty_bool);
            r->kids[0]->ival = 1;
            r->nkids = 1;
            ck_emit_stmt(cx, r);
            return;
        }
        if (rt->kind == TY_TUPLE && rt->maybe) {
            /* elems[0] is the success flag, not a value the user writes */
            diag_error_at(cx->ck->d, at, "E0331",
                          "`%s` returns `%s`; end it with (result :OK%s) or (result :Err \"why\")", cx->fn->name,
                          ck_tname(cx, rt), rt->nelems <= 1 ? "" : rt->nelems == 2 ? " v" : rt->nelems == 3 ? " v1 v2" : " v1 v2 ...");
            return;
        }
        if (rt->kind == TY_TUPLE) {
            diag_error_at(cx->ck->d, at, "E0331",
                          "`%s` returns %d values; end it with (return v1 v2 ...)", cx->fn->name, rt->nelems);
            return;
        }
        if (val->ty && val->ty->kind == TY_VOID) {
            diag_error_at(cx->ck->d, at, "E0332", "`%s` must return `%s`, but its last form has no value",
                          cx->fn->name, ck_tname(cx, rt));
            return;
        }
        Node *v = ck_coerce(cx, val, rt, at, "return value");
        if (!v) return;
        Node *r = ck_node(cx, N_C_RETURN, at, rt);
        r->kids = arena_alloc(cx->ck->a, sizeof(Node *));
        if (r->kids) {
            r->kids[0] = v;
            r->nkids = 1;
        }
        ck_emit_stmt(cx, r);
        return;
    }
    case D_VAR: {
        Sym *s = d->var;
        if (val->ty && val->ty->kind == TY_VOID) {
            diag_error_at(cx->ck->d, at, "E0333", "`%s` has no value", syn_to_string(cx->ck->a, at, 60));
            return;
        }
        if (!s->ty) s->ty = val->ty;
        Node *v = ck_coerce(cx, val, s->ty, at, "value");
        if (!v) return;
        if (v->ty->kind == TY_IDENT) { /* an identity tensor: nothing to store */
            s->immutable = 1;
            return;
        }
        Node *as = ck_node(cx, N_C_ASSIGN, at, s->ty);
        as->op = OP_SET;
        as->kids = arena_alloc(cx->ck->a, sizeof(Node *) * 2);
        if (!as->kids) return;
        as->kids[0] = ck_var_ref(cx, at, s);
        as->kids[1] = v;
        as->nkids = 2;
        Node *st = ck_node(cx, N_C_EXPR, at, &ty_void);
        st->kids = arena_alloc(cx->ck->a, sizeof(Node *));
        if (st->kids) {
            st->kids[0] = as;
            st->nkids = 1;
        }
        ck_emit_stmt(cx, st);
        return;
    }
    }
}

Node *ck_new_block(Ctx *cx, const Node *at) {
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
    const char *imm_first[2]; /* the first immutable names, in place (issue 14:
                                 in-each-thread's (%immutable i), an
                                 arena_push per kernel) */
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
            if (h && syn_streq(h, "type") && e->nkids >= 3 && ck_is_signature_type(e->kids[e->nkids - 1])) {
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
            } else if (h && syn_streq(h, "type") && e->nkids >= 3) {
                Type *t = ck_type_expr(ck, e->kids[e->nkids - 1]);
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
            } else if (h && syn_streq(h, "grid-level")) {
                ds->grid_level = 1;
            } else if (h && syn_streq(h, "%immutable")) {
                if (!ds->capimm) {
                    ds->immutable = ds->imm_first;
                    ds->capimm = 2;
                }
                for (int k = 1; k < e->nkids; k++)
                    if (e->kids[k]->kind == N_SYMBOL)
                        PUSH(ck->a, ds->immutable, ds->nimm, ds->capimm, (void *)e->kids[k]->key);
            } else if (h && syn_streq(h, "%default-local-size")) {
                /* the library's local size for crisp to choose when the
                   kernel declares none (sidechan.c; the radix passes:
                   docs/library.md "Radix sort"); the smallest wins */
                int64_t v = 0;
                if (e->nkids != 2 || !ck_const_syn_int(cx, e->kids[1], &v) || v <= 0 || v > 1024)
                    diag_error_at(ck->d, e, "E0704", "(%%default-local-size N) takes a size from 1 to 1024, found `%s`",
                                  syn_to_string(ck->a, e, 40));
                else if (cx->fn && (!cx->fn->lsize_default || v < cx->fn->lsize_default))
                    cx->fn->lsize_default = v;
            } else if (h && syn_streq(h, "%workgroup-uniform")) {
                /* the library's promise that a let variable has the same
                   value in every work-item of the workgroup (a verdict read
                   from __local memory after a barrier): E0581 takes it as
                   uniform (warps.c); no code */
                for (int k = 1; k < e->nkids; k++)
                    if (e->kids[k]->kind == N_SYMBOL)
                        PUSH(ck->a, ds->wg_uniform, ds->nwgu, ds->capwgu, (void *)e->kids[k]->key);
            } else if (h && (syn_streq(h, "uniform") || syn_streq(h, "%capture-uniform"))) {
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
            } else if (ck_is_analysis_decl(h ? h : e->kind == N_SYMBOL ? e->key : NULL)) {
                diag_warning_at(ck->d, e, "W1107",
                                "`%s` opts a whole function into a static analysis: put it in the declare at the top of the def-kernel or def-function, or use declaim",
                                h ? h : e->key);
            } else if (h && (syn_streq(h, "global-mem") || syn_streq(h, "local"))) {
                diag_error_at(ck->d, e, "E0396", "(declare (%s ...)) belongs in the let that binds the variable (docs/language.md, \"Shared variables\")", h);
            } else if (h && (syn_streq(h, "grid-stride-target"))) {
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
        if (syn_streq(ds->keys[i], key)) {
            if (at) *at = ds->at[i];
            return ds->types[i];
        }
    return NULL;
}

static Node *decl_signature(Decls *ds, const char *key) {
    for (int i = ds->nsig - 1; i >= 0; i--)
        if (syn_streq(ds->sig_keys[i], key)) return ds->sigs[i];
    return NULL;
}

/* The (uniform V) naming KEY, or NULL; *capture when a `*` variant made it. */
static const Node *decl_uniform(Decls *ds, const char *key, int *capture) {
    for (int i = 0; i < ds->nuni; i++)
        if (syn_streq(ds->uniform[i]->key, key)) {
            *capture = syn_is_form(ds->uforms[i], "%capture-uniform");
            return ds->uniform[i];
        }
    return NULL;
}

static int decl_immutable(Decls *ds, const char *key) {
    for (int i = 0; i < ds->nimm; i++)
        if (syn_streq(ds->immutable[i], key)) return 1;
    return 0;
}

/* Is KEY the same in every work-item of the workgroup by declaration:
   (uniform KEY) (shared through __local memory) or (%workgroup-uniform KEY)? */
static int decl_wg_uniform(Decls *ds, const char *key) {
    int capture;
    if (decl_uniform(ds, key, &capture)) return 1;
    for (int i = 0; i < ds->nwgu; i++)
        if (syn_streq(ds->wg_uniform[i], key)) return 1;
    return 0;
}

/* Does `n` mention the symbol `it` (outside quoted data)?  Asked of the
 * then-branch of every `if` (form_if, form_value, uniform.c): a walk of
 * the branch's syntax, so the symbols are tested here without strcmp
 * (issue 14: `i`, `if`, `in-each-thread` share the first byte, and each
 * called strcmp: 1.7 M instructions for the 1 MB program). */
static inline int is_it(const char *k) {
    return k[0] == 'i' && k[1] == 't' && !k[2];
}

static int list_mentions_it(const Node *n) {
    int nk = n->nkids;
    Node *const *kids = n->kids;
    if (nk && kids[0] && kids[0]->kind == N_SYMBOL && kids[0]->key[0] == 'q' && !strcmp(kids[0]->key, "quote")) return 0;
    for (int i = 0; i < nk; i++) {
        const Node *k = kids[i];
        if (!k) continue;
        if (k->kind == N_SYMBOL ? is_it(k->key)
                                : (k->kind == N_LIST || k->kind == N_VECLIT || k->kind == N_HWVEC) && list_mentions_it(k))
            return 1;
    }
    return 0;
}

int ck_syn_mentions_it(const Node *n) {
    if (!n) return 0;
    if (n->kind == N_SYMBOL) return is_it(n->key);
    if (n->kind != N_LIST && n->kind != N_VECLIT && n->kind != N_HWVEC) return 0;
    return list_mentions_it(n);
}

/* ------------------------------------------------------------------ */
/* statement forms                                                     */

void ck_body_to(Ctx *cx, Node **forms, int n, Dest *d) {
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
        ck_form_to(cx, forms[i], i == n - 1 ? d : &discard);
        if (cx->ck->d->fatal) return;
    }
}

/* A vector-valued let binding: make-vector, #(...) or another vector. */
/* Make DST another name for the vector SRC (same C variables). */
static void sym_alias(Arena *a, Sym *dst, const Sym *src) {
    dst->ty = src->ty;
    dst->cname = src->cname;
    dst->len_cname = src->len_cname;
    dst->write_only = src->write_only;
    dst->hoisted_local = src->hoisted_local;
    dst->is_view = src->is_view;
    if (src->rare || dst->rare) {
        SymRare *r = sym_rare_w(a, dst);
        const SymRare *o = sym_rare(src);
        r->off_sym = o->off_sym;
        r->len_sym = o->len_sym;
        r->dims_sym = o->dims_sym;
        r->strides_sym = o->strides_sym;
        r->soa_fields = o->soa_fields;
        r->init = o->init;
    }
}

static Sym *bind_vector(Ctx *cx, Node *name, Node *init, Type *declared) {
    Checker *ck = cx->ck;
    if (cx->consteval && init && syn_is_form(init, "make-vector")) return constvec_make_vector(cx, name, init);
    Type *dt = NULL;
    Node *dmk = init ? ck_derived_make_syntax(cx, init, &dt) : NULL;
    if (dmk) {
        /* (make-NAME ...) of a derived vector type (derived.c): its
           original's make- form, typed NAME */
        Sym *ds = bind_vector(cx, name, dmk, NULL);
        return ds && ck_derived_make_retag(cx, init, ds, dt) ? ds : NULL;
    }
    Sym *s = ck_new_local(cx, name, name->name, NULL);
    if (!s) return NULL;
    if (ck_soa_init_form(init)) return ck_soa_bind(cx, s, name, init);
    if (init && syn_is_form(init, "make-vector")) {
        Node *len_expr = NULL;
        Type *base = NULL;
        Type *t = ck_make_vector_type(ck, init, &len_expr, &base);
        if (!t) return NULL;
        if (base && (base->kind != TY_VECTOR || base->soa || base->ndims)) {
            diag_error_at(ck->d, init->kids[1], "E0440", "make-vector needs a vector type, found `%s`", ck_tname(cx, base));
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
            ck_need_helper(cx, H_STD140_ELEM, t->elem, AS_NONE);
        s->ty = t;
        if (t->as == AS_LOCAL) {
            s->hoisted_local = 1;
            CFuncRare *r = cfunc_rare_w(ck->a, cx->fn);
            PUSH(ck->a, r->local_arrays, r->nlocal, r->caplocal, s);
        } else {
            Node *decl = ck_node(cx, N_C_DECL, name, t);
            decl->sym = s;
            ck_emit_stmt(cx, decl);
        }
        return s;
    }
    if (init && init->kind == N_VECLIT) {
        Type *et = declared && declared->kind == TY_VECTOR ? declared->elem : NULL;
        Node *lst = ck_node(cx, N_C_HWVEC, init, NULL);
        lst->kids = arena_alloc(ck->a, sizeof(Node *) * (size_t)(init->nkids ? init->nkids : 1));
        if (!lst->kids) return NULL;
        for (int i = 0; i < init->nkids; i++) {
            Node *v = ck_expr(cx, init->kids[i], et);
            if (!v) return NULL;
            if (!et) et = v->ty;
            v = ck_coerce(cx, v, et, init->kids[i], "vector element");
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
        sym_rare_w(cx->ck->a, s)->init = lst;
        Node *decl = ck_node(cx, N_C_DECL, name, t);
        decl->sym = s;
        ck_emit_stmt(cx, decl);
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
            CFuncRare *r = cfunc_rare_w(ck->a, cx->fn);
            PUSH(ck->a, r->local_arrays, r->nlocal, r->caplocal, s);
        } else {
            Node *decl = ck_node(cx, N_C_DECL, name, vt);
            decl->sym = s;
            ck_emit_stmt(cx, decl);
        }
        return s;
    }
    /* alias of an existing vector value */
    Node *v = ck_expr(cx, init, declared);
    if (!v) return NULL;
    if (!v->ty || v->ty->kind != TY_VECTOR || v->kind != N_C_VAR) {
        diag_error_at(ck->d, init, "E0409", "expected a vector value, found `%s`", ck_tname(cx, v->ty));
        return NULL;
    }
    if (declared && declared->kind == TY_VECTOR &&
        ((declared->elem && v->ty->elem && !ty_equal(declared->elem, v->ty->elem)) ||
         (declared->length >= 0 && v->ty->length >= 0 && declared->length != v->ty->length))) {
        /* another name for the same memory: its type is the vector's */
        diag_error_at(ck->d, init, "E0310",
                      "`%s` is declared `%s` but names the vector `%s`, a `%s`; a vector variable is another name for "
                      "the vector it is bound to (to convert, make a vector and copy-vec into it)",
                      name->name, ck_tname(cx, declared), v->sym->name, ck_tname(cx, v->ty));
        return NULL;
    }
    sym_alias(cx->ck->a, s, v->sym);
    return ck_derived_bind_declared(cx, init, s, declared) ? s : NULL;
}

static int is_vector_init(Ctx *cx, Node *init, Type *declared) {
    if (!init) return declared && declared->kind == TY_VECTOR;
    if (syn_is_form(init, "make-vector") || ck_soa_init_form(init)) return 1;
    Type *dt = NULL;
    if (ck_derived_make_syntax(cx, init, &dt)) return dt->soa || (!dt->view && !dt->ndims); /* views: expressions */
    if (init->kind == N_VECLIT) return !(declared && declared->kind == TY_HWVEC);
    if (init->kind == N_SYMBOL) {
        Sym *s = ck_scope_lookup(cx, init->key);
        return s && s->ty && s->ty->kind == TY_VECTOR;
    }
    return 0;
}

/* (let ((V E)...) (declare ...)... BODY...)  and let*  - spec "Crisp Types",
 * core forms.  Plain let checks every E before binding any V. */
/* --no-inference (spec "Other Flags"): a variable of the user's own
 * binding form (not one a macro wrote) whose type would be inferred from
 * its value is an error. */
static int inference_banned(Ctx *cx, const Node *form) {
    return cx->ck->c->opt && cx->ck->c->opt->no_inference && !form->origin;
}

static void no_inference(Ctx *cx, const Node *form, const Node *name) {
    if (!inference_banned(cx, form)) return;
    diag_error_at(cx->ck->d, name, "E1511", "`%s` has no declared type, and --no-inference is on: write %s:TYPE or "
                  "(declare (type TYPE %s))", name->name, name->name, name->name);
}

/* ---- (declare (global-mem X [:return-value]) (local Y)) in a let ----
 * The spec's "Word Count With Exclusive Scan" and filter blocks declare
 * let variables `global-mem` and `local`, which the spec lists in its index
 * and defines nowhere.  Decision (docs/language.md, "Shared variables"):
 * they are address-space annotations of the variable, as `__global` and
 * `__local` variables are in OpenCL C 2.0 and `__device__`/`__shared__`
 * ones in CUDA:
 *   (global-mem X)  X is one value in global memory, shared by every
 *       work-item of the launch: a one-element result vector named X, which
 *       the host allocates zero-filled and reads back (with or without
 *       :return-value, which says the kernel's caller wants it); its
 *       initial value must be zero (the host sets it, before any work-item
 *       runs).
 *   (local Y)  Y is one value in local memory, shared by the work-items of
 *       a workgroup: a one-element :local vector, its initial value stored
 *       by work-item 0 before a barrier (so, like (uniform V), every
 *       work-item of the workgroup must reach the let).
 * In the let's body (and later initializers of a let*) X stands for
 * (~ X-mem 0): reads, set!, atomics.  Without a type (X:T or (type T X))
 * an integer literal initializer gives uint (shared counters and offsets
 * count things: the word count adds uint counts to them), a float literal
 * float.  Returns SYN when the let declares neither, NULL after an error,
 * else the let rewritten without them. */
static const char *shared_decl_kind(const Node *e) {
    const char *h = syn_head(e);
    if (h && (syn_streq(h, "global-mem") || syn_streq(h, "local"))) return h;
    return NULL;
}

static int syn_mentions(const Node *n, const char *key) {
    if (!n) return 0;
    if (n->kind == N_SYMBOL) return syn_streq(n->key, key);
    if (n->kind != N_LIST && n->kind != N_VECLIT && n->kind != N_HWVEC) return 0;
    for (int i = 0; i < n->nkids; i++)
        if (syn_mentions(n->kids[i], key)) return 1;
    return 0;
}

static Node *shared_let(Ctx *cx, Node *syn, int sequential) {
    Checker *ck = cx->ck;
    Arena *a = ck->a;
    int any = 0, first_body = 2;
    for (int i = 2; i < syn->nkids && syn_is_form(syn->kids[i], "declare"); i++, first_body++)
        for (int j = 1; j < syn->kids[i]->nkids; j++)
            if (shared_decl_kind(syn->kids[i]->kids[j])) any = 1;
    if (!any) return syn;
    Node *bl = syn->kids[1];
    Node **names = arena_alloc(a, sizeof(Node *) * (size_t)(bl->nkids + 1));
    Node **by = arena_alloc(a, sizeof(Node *) * (size_t)(bl->nkids + 1));
    Node **binds = arena_alloc(a, sizeof(Node *) * (size_t)(bl->nkids + 1));
    Node **inits = arena_alloc(a, sizeof(Node *) * (size_t)(bl->nkids + 1)); /* local: the value to store */
    const char **kinds = arena_alloc(a, sizeof(char *) * (size_t)(bl->nkids + 1));
    if (!names || !by || !binds || !inits || !kinds) return NULL;
    for (int i = 0; i < bl->nkids; i++) kinds[i] = NULL, binds[i] = bl->kids[i], inits[i] = NULL;
    int nsub = 0, ok = 1;
    /* the declarations that stay, and which binding each shared one names */
    Node *kept_decls[64];
    int nkept = 0;
    for (int i = 2; i < first_body; i++) {
        Node *d = syn->kids[i];
        Node *kept[256];
        int nk = 0;
        for (int j = 0; j < d->nkids && nk < 256; j++) {
            Node *e = d->kids[j];
            const char *k = j ? shared_decl_kind(e) : NULL;
            if (!k) {
                kept[nk++] = e;
                continue;
            }
            int is_global = syn_streq(k, "global-mem");
            for (int m = 1; m < e->nkids; m++) {
                Node *v = e->kids[m];
                if (is_global && syn_is_kw(v, "return-value")) continue;
                int found = -1;
                for (int b = 0; b < bl->nkids && v->kind == N_SYMBOL; b++) {
                    Node *bn = bl->kids[b]->kind == N_LIST && bl->kids[b]->nkids ? bl->kids[b]->kids[0] : bl->kids[b];
                    if (bn->kind == N_SYMBOL && syn_streq(bn->key, v->key)) found = b;
                }
                if (found < 0) {
                    diag_error_at(ck->d, v, "E0396", "(%s %s): `%s` is %s; (declare (%s VAR)) names a variable of the let it is in",
                                  k, syn_to_string(a, v, 30), syn_to_string(a, v, 30),
                                  v->kind == N_SYMBOL ? "not bound by this let" : "not a variable name", k);
                    ok = 0;
                    continue;
                }
                if (kinds[found]) {
                    diag_error_at(ck->d, v, "E0396", "`%s` is declared %s already", v->name, kinds[found]);
                    ok = 0;
                    continue;
                }
                kinds[found] = k;
            }
        }
        if (nk > 1 && nkept < 64) kept_decls[nkept++] = syn_list(a, d->loc, kept, nk);
    }
    if (!ok) return NULL;
    for (int b = 0; b < bl->nkids; b++) {
        if (!kinds[b]) continue;
        Node *bind = bl->kids[b];
        Node *name = bind->kind == N_LIST ? bind->kids[0] : bind;
        Node *init = bind->kind == N_LIST && bind->nkids == 2 ? bind->kids[1] : NULL;
        int is_global = syn_streq(kinds[b], "global-mem");
        /* the type: annotated, (type T X) declared, or from a literal */
        Node *ty = name->ann;
        for (int i = 2; i < first_body && !ty; i++)
            for (int j = 1; j < syn->kids[i]->nkids; j++) {
                Node *e = syn->kids[i]->kids[j];
                if (syn_is_form(e, "type") && e->nkids >= 3)
                    for (int m = 1; m < e->nkids - 1; m++)
                        if (e->kids[m]->kind == N_SYMBOL && syn_streq(e->kids[m]->key, name->key)) ty = e->kids[e->nkids - 1];
            }
        if (!ty && init && init->kind == N_INT) ty = syn_symbol(a, name->loc, "uint");
        if (!ty && init && init->kind == N_FLOAT) ty = syn_symbol(a, name->loc, "float");
        if (!ty) {
            diag_error_at(ck->d, name, "E0396",
                          "the %s variable `%s` needs a type: write %s:TYPE (the type of a shared variable is not inferred "
                          "from %s)",
                          kinds[b], name->name, name->name, init ? "an expression" : "nothing");
            ok = 0;
            continue;
        }
        if (is_global && init && !((init->kind == N_INT && init->ival == 0 && !init->is_unsigned) ||
                                    (init->kind == N_FLOAT && init->fval == 0.0))) {
            diag_error_at(ck->d, init, "E0396",
                          "the global-mem variable `%s` starts at zero (the host allocates it zero-filled before any "
                          "work-item runs), not at `%s`; set it in one work-item instead",
                          name->name, syn_to_string(a, init, 30));
            ok = 0;
            continue;
        }
        Node *bare = syn_copy(a, name);
        bare->ann = NULL;
        const char *mem = arena_printf(a, "%s-%s", name->name, is_global ? "global" : "local");
        Node *memsym = syn_symbol(a, name->loc, mem);
        Node *make;
        if (is_global) {
            Node *vt[4] = {syn_symbol(a, name->loc, "vector-type"), ty, syn_keyword(a, name->loc, "global"),
                           syn_keyword(a, name->loc, "read-write")};
            const char *cmt = arena_printf(a, "(declare (global-mem %s)) at line %d", name->name, name->loc.line);
            Node *mk[7] = {syn_symbol(a, name->loc, "make-result-vector"), syn_list(a, name->loc, vt, 4), syn_int(a, name->loc, 1),
                           syn_keyword(a, name->loc, "name"), syn_string(a, name->loc, name->name, (int)strlen(name->name)),
                           syn_keyword(a, name->loc, "comment"), syn_string(a, name->loc, cmt, (int)strlen(cmt))};
            make = syn_list(a, name->loc, mk, 7);
        } else {
            Node *mk[4] = {syn_symbol(a, name->loc, "make-vector"), ty, syn_keyword(a, name->loc, "local"), syn_int(a, name->loc, 1)};
            make = syn_list(a, name->loc, mk, 4);
            inits[b] = init ? init : syn_int(a, name->loc, 0);
            if (!init && ty->kind == N_SYMBOL && (syn_streq(ty->key, "float") || syn_streq(ty->key, "double") || syn_streq(ty->key, "half")))
                inits[b] = syn_float(a, name->loc, 0.0);
        }
        Node *pair[2] = {memsym, make};
        binds[b] = syn_list(a, bind->loc, pair, 2);
        Node *ref[3] = {syn_symbol(a, name->loc, "~"), memsym, syn_int(a, name->loc, 0)};
        names[nsub] = bare;
        by[nsub++] = syn_list(a, name->loc, ref, 3);
    }
    if (!ok) return NULL;
    /* let*: later initializers see the shared variables too; a local one
       is stored after the bindings, so they cannot read it yet */
    for (int b = 0; sequential && b < bl->nkids; b++) {
        if (!inits[b]) continue;
        Node *nm = bl->kids[b]->kind == N_LIST ? bl->kids[b]->kids[0] : bl->kids[b];
        for (int c = b + 1; c < bl->nkids; c++)
            if (!kinds[c] && bl->kids[c]->kind == N_LIST && bl->kids[c]->nkids == 2 && syn_mentions(bl->kids[c]->kids[1], nm->key)) {
                diag_error_at(ck->d, bl->kids[c]->kids[1], "E0396",
                              "this initializer reads the local variable `%s`, which work-item 0 sets after the let*'s "
                              "bindings; bind it in a let inside",
                              nm->name);
                ok = 0;
            }
    }
    if (!ok) return NULL;
    if (sequential)
        for (int b = 0; b < bl->nkids; b++)
            if (!kinds[b] && binds[b]->kind == N_LIST) binds[b] = syn_subst(a, binds[b], names, by, nsub);
    int nbody = syn->nkids - first_body;
    Node **kids = arena_alloc(a, sizeof(Node *) * (size_t)(2 + nkept + 2 * bl->nkids + nbody + 1));
    if (!kids) return NULL;
    int n = 0;
    kids[n++] = syn->kids[0];
    kids[n++] = syn_list(a, bl->loc, binds, bl->nkids);
    for (int i = 0; i < nkept; i++) kids[n++] = kept_decls[i];
    /* local variables: work-item 0 stores the initial value, then a barrier */
    int any_local = 0;
    for (int b = 0; b < bl->nkids; b++) {
        if (!inits[b]) continue;
        SrcLoc l = binds[b]->loc;
        Node *lid[1] = {syn_symbol(a, l, "get-local-linear-id")};
        Node *eq[3] = {syn_symbol(a, l, "="), syn_list(a, l, lid, 1), syn_int(a, l, 0)};
        Node *set[3] = {syn_symbol(a, l, "set!"), NULL, syn_subst(a, inits[b], names, by, nsub)};
        for (int s = 0; s < nsub; s++)
            if (by[s]->kids[1] == binds[b]->kids[0]) set[1] = by[s];
        Node *wh[3] = {syn_symbol(a, l, "when"), syn_list(a, l, eq, 3), syn_list(a, l, set, 3)};
        kids[n++] = syn_list(a, l, wh, 3);
        any_local = 1;
    }
    if (any_local) {
        Node *bar[1] = {syn_symbol(a, syn->loc, "local-barrier")};
        kids[n++] = syn_list(a, syn->loc, bar, 1);
    }
    for (int i = first_body; i < syn->nkids; i++) kids[n++] = syn_subst(a, syn->kids[i], names, by, nsub);
    Node *out = syn_list(a, syn->loc, kids, n);
    out->origin = syn->origin;
    return out;
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
    Node *shared = shared_let(cx, syn, sequential);
    if (!shared) return;
    if (shared != syn) {
        form_let(cx, shared, d, sequential);
        return;
    }
    Decls ds = {.in_let = 1};
    int nd = collect_decls(cx, syn->kids + 2, syn->nkids - 2, &ds);
    Node *saved_block = cx->block;
    Node *blk = ck_new_block(cx, syn);
    cx->block = blk;
    Scope *outer = cx->scope;
    ck_scope_push(cx);
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
        if (fsig || ck_fnval_init(cx, init)) {
            /* a function value, known at compile time (hof.c) */
            if (!sequential) cx->scope = outer;
            Sym *fs = ck_fnval_bind(cx, name, init, fsig);
            if (!sequential) cx->scope = inner;
            if (!fs) fs = ck_new_local(cx, name, name->name, NULL); /* poisoned */
            if (fs) ck_scope_add(cx, fs);
            continue;
        }
        const Node *dat = NULL;
        Type *declared = name->ann ? ck_type_expr(ck, name->ann) : decl_type(&ds, name->key, &dat);
        if (name->ann && !declared) {
            /* a bad annotation (reported): the variable exists, poisoned, so
               its uses are not "unknown variable" errors too */
            Sym *poisoned = ck_new_local(cx, name, name->name, NULL);
            if (poisoned) ck_scope_add(cx, poisoned);
            continue;
        }
        if (declared && !ck_value_type_ok(ck, declared, name)) continue;
        if (!declared && inference_banned(cx, syn) && !is_vector_init(cx, init, NULL)) no_inference(cx, syn, name);
        /* plain let: initializers see the outer scope only */
        if (!sequential) cx->scope = outer;
        Sym *s;
        int ucapture = 0;
        const Node *uat = decl_uniform(&ds, name->key, &ucapture);
        if (uat) {
            s = ck_uniform_bind(cx, name, init, declared, uat, ucapture); /* uniform.c */
        } else if (is_vector_init(cx, init, declared)) {
            s = bind_vector(cx, name, init, declared);
        } else {
            s = ck_new_local(cx, name, name->name, declared);
            if (!s) break;
            s->size_init = init;
            Node *decl = ck_node(cx, N_C_DECL, name, declared);
            decl->sym = s;
            if (init && !ck_is_value_form(cx, init)) {
                /* statement-like initializer: declare, then assign */
                ck_emit_stmt(cx, decl);
                Dest dv = {D_VAR, s, declared};
                ck_form_to(cx, init, &dv);
            } else {
                cx->bind_hint = name->name;
                Node *v = init ? ck_expr(cx, init, declared) : NULL;
                cx->bind_hint = NULL;
                if (v && v->ty && v->ty->kind == TY_VOID) {
                    diag_error_at(ck->d, init, "E0333", "`%s` has no value to bind to `%s`",
                                  syn_to_string(ck->a, init, 40), name->name);
                    v = NULL;
                }
                if (v && v->ty && (v->ty->kind == TY_KEYWORD || v->ty->kind == TY_STRING)) {
                    diag_error_at(ck->d, init, "E0306", "cannot bind a %s to a run-time variable", ck_tname(cx, v->ty));
                    v = NULL;
                }
                if (v && v->ty && v->ty->kind == TY_TUPLE && v->ty->maybe) {
                    diag_error_at(ck->d, init, "E0395", "`%s` is a (maybe ...): bind it with let-maybe, or give a fallback with or-else",
                                  syn_to_string(ck->a, init, 40));
                    v = NULL;
                }
                if (v && v->ty && v->ty->kind == TY_TUPLE) {
                    v = ck_coerce(cx, v, declared ? declared : v->ty->elems[0], init, "value");
                }
                if (v && v->ty && v->ty->kind == TY_VECTOR && v->kind == N_C_VAR) {
                    /* a vector value (side channel, marshalled vector): alias it */
                    Sym *src = v->sym;
                    if (src->is_view && src->name == name->name && src->kind != SYM_PARAM) {
                        /* the view was made for this binding: give it the
                           binding's C name (nothing has printed it yet) */
                        src->cname = s->cname;
                        src->len_cname = ck_local_cname(cx, ck_name_join(ck, s->cname, "len"));
                        if (sym_rare(src)->len_sym) sym_rare(src)->len_sym->cname = src->len_cname;
                        if (sym_rare(src)->off_sym) sym_rare(src)->off_sym->cname = ck_local_cname(cx, ck_name_join(ck, s->cname, "off"));
                    }
                    sym_alias(cx->ck->a, s, src);
                    ck_derived_bind_declared(cx, init, s, declared); /* a derived vector type declared (derived.c) */
                    if (!sequential) cx->scope = inner;
                    s->immutable = decl_immutable(&ds, name->key);
                    ck_scope_add(cx, s);
                    continue;
                }
                if (v && declared) v = ck_coerce(cx, v, declared, init, "initial value");
                if (!s->ty) s->ty = v ? v->ty : NULL;
                if (!s->ty) {
                    if (!init)
                        diag_error_at(ck->d, name, "E0307", "`%s` has no initial value and no declared type", name->name);
                    if (!sequential) cx->scope = inner;
                    ck_scope_add(cx, s); /* poisoned: later uses stay quiet */
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
                    ck_scope_add(cx, s);
                    continue;
                }
                decl->ty = s->ty;
                /* declared without a value: it starts at zero, so no read
                   sees an indeterminate value (clang -Wuninitialized) */
                if (!v && !init) v = ck_zero_value(cx, name, s->ty);
                if (v) {
                    decl->kids = arena_alloc(ck->a, sizeof(Node *));
                    if (decl->kids) {
                        decl->kids[0] = v;
                        decl->nkids = 1;
                    }
                }
                ck_emit_stmt(cx, decl);
            }
        }
        if (!sequential) cx->scope = inner;
        if (!s) {
            /* the binding failed (reported): later uses stay quiet */
            s = ck_new_local(cx, name, name->name, NULL);
        }
        if (s) {
            s->immutable = decl_immutable(&ds, name->key);
            s->wg_uniform = decl_wg_uniform(&ds, name->key);
            ck_scope_add(cx, s);
        }
    }
    /* declarations naming something that is not bound here */
    for (int i = 0; i < ds.n; i++) {
        int found = 0;
        for (int j = 0; j < inner->n; j++)
            if (syn_streq(inner->syms[j]->key, ds.keys[i])) found = 1;
        if (!found)
            diag_error_at(ck->d, ds.at[i], "E0308", "(type %s ...) declares a variable this let does not bind",
                          ds.at[i]->name);
    }
    for (int i = 0; i < ds.nuni; i++) {
        int found = 0;
        for (int j = 0; j < bl->nkids && !found; j++) {
            Node *b = bl->kids[j]->kind == N_LIST && bl->kids[j]->nkids ? bl->kids[j]->kids[0] : bl->kids[j];
            found = b->kind == N_SYMBOL && syn_streq(b->key, ds.uniform[i]->key);
        }
        if (!found)
            diag_error_at(ck->d, ds.uniform[i], "E1102",
                          "(uniform %s) names a variable this let does not bind: the variable and its uniform declaration belong to the same let",
                          ds.uniform[i]->name);
    }
    if (ds.grid_level) {
        ck_grid_op(cx, syn, syn->origin ? arena_printf(cx->ck->a, "`%s`", syn->origin->macro) : "this grid-level let");
        cx->grid_steps++; /* its body: steps of this one operation */
    }
    ck_body_to(cx, syn->kids + 2 + nd, syn->nkids - 2 - nd, d);
    if (ds.grid_level) cx->grid_steps--;
    ck_scope_pop(cx);
    cx->block = saved_block;
    ck_emit_stmt(cx, blk);
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
        ck_grid_op(cx, syn, arena_printf(cx->ck->a, "`%s`", what));
        cx->grid_steps++;
    }
    ck_body_to(cx, syn->kids + 1 + nd, syn->nkids - 1 - nd, d);
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
    ck_body_to(cx, syn->kids + 2, syn->nkids - 2, d);
    cx->grid_region = sg;
    cx->grid_what = sw;
    cx->grid_steps = steps;
}

/* Check `syn` into a fresh block; returns the block. */
static Node *branch_block(Ctx *cx, Node *syn, Dest *d, const Node *at) {
    Node *saved = cx->block;
    Node *blk = ck_new_block(cx, at);
    int names_mark = cx->names.n; /* names die with the braced block */
    cx->block = blk;
    cx->branch_depth++;
    if (syn) ck_form_to(cx, syn, d);
    cx->branch_depth--;
    cx->block = saved;
    ck_names_rollback(cx->ck, &cx->names, names_mark);
    return blk;
}

Node *cx_cond_value(Ctx *cx, Node *syn);

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

int ck_static_truth(Ctx *cx, const Node *form, Node *test) {
    if (!(test = ck_expand(cx, test))) return -1;
    if (test->kind == N_INT) return test->ival != 0;
    if (test->kind == N_LIST && test->nkids == 0) return 0;
    if (test->kind != N_SYMBOL || test->ann) return -1;
    if (syn_streq(test->key, "nil") || syn_streq(test->key, "false")) return 0;
    if (syn_streq(test->key, "t") || syn_streq(test->key, "true")) return 1;
    /* A vector is never nil at run time: (when ,return-vec ...) in a
       macro (spec "reduce-to-workgroup") tests that the optional vector
       argument was given, as `if (ptr)` would in C (docs/library.md).
       Only in a macro's expansion: written by the user, `(when a ...)` on
       a vector is a mistake (E0360). */
    Sym *s = ck_scope_lookup(cx, test->key);
    if (s && s->ty && s->ty->kind == TY_VECTOR && (s->kind == SYM_PARAM || s->kind == SYM_LOCAL) &&
        in_user_macro(form->origin))
        return 1;
    return -1;
}

/* Emit the statement `if (TEST) THEN else ELSE` (ELSE may be NULL); OP:
 * 0, or IF_NATIVE_WARP for %native-warp-if. */
static void emit_if(Ctx *cx, Node *syn, Node *test, Node *then_b, Node *else_b, int op) {
    Node *n = ck_node(cx, N_C_IF, syn, &ty_void);
    n->kids = arena_alloc(cx->ck->a, sizeof(Node *) * 3);
    if (!n->kids) return;
    n->kids[0] = test;
    n->kids[1] = then_b;
    n->kids[2] = else_b;
    n->nkids = 3;
    n->op = op;
    ck_emit_stmt(cx, n);
}

static void form_if(Ctx *cx, Node *syn, Dest *d) {
    Checker *ck = cx->ck;
    if (syn->nkids < 3 || syn->nkids > 4) {
        diag_error_at(ck->d, syn, "E0309", "expected (if test then [else]), found %d arguments", syn->nkids - 1);
        return;
    }
    if (syn->nkids == 3 && (d->kind == D_VAR || (d->kind == D_RETURN && cx->fn->ret->kind != TY_VOID))) {
        Type *want = d->kind == D_VAR ? (d->want ? d->want : d->var ? d->var->ty : NULL) : cx->fn->ret;
        if (want && want->kind == TY_BOOL) {
            /* a bool wanted: the missing else is false, Lisp's nil, as the
               spec's filter block reads (set! is-a-match (when TEST
               PREDICATE-CALL)) (docs/language.md, "when for a value") */
            Node *kids[4] = {syn->kids[0], syn->kids[1], syn->kids[2], syn_symbol(ck->a, syn->loc, "false")};
            Node *full = syn_list(ck->a, syn->loc, kids, 4);
            full->origin = syn->origin;
            form_if(cx, full, d);
            return;
        }
        diag_error_at(ck->d, syn, "E0347", "`if` without an else branch has no value here");
        return;
    }
    int known = ck_static_truth(cx, syn, syn->kids[1]);
    int uses_it = known != 0 && ck_syn_mentions_it(syn->kids[2]); /* asked once */
    if (known == 0 || (known == 1 && !uses_it)) {
        /* decided at compile time: only the branch taken is checked, as in
           a macro's (when ,return-vec ...) when the argument was not given */
        if (known) ck_form_to(cx, syn->kids[2], d);
        else if (syn->nkids == 4) ck_form_to(cx, syn->kids[3], d);
        return;
    }
    Node *test = cx_cond_value(cx, syn->kids[1]);
    if (!test) return;
    Sym *it = NULL;
    if (uses_it) {
        it = ck_new_local(cx, syn->kids[1], "it", test->ty);
        if (!it) return;
        it->immutable = 1;
        Node *decl = ck_node(cx, N_C_DECL, syn->kids[1], test->ty);
        decl->sym = it;
        decl->kids = arena_alloc(ck->a, sizeof(Node *));
        if (!decl->kids) return;
        decl->kids[0] = test;
        decl->nkids = 1;
        ck_emit_stmt(cx, decl);
        test = ck_var_ref(cx, syn->kids[1], it);
    }
    const Node *wdiv = ck_warp_branch_enter(cx, syn, syn->kids[1]);
    ck_scope_push(cx);
    if (it) ck_scope_add(cx, it);
    Node *then_b = branch_block(cx, syn->kids[2], d, syn->kids[2]);
    ck_scope_pop(cx);
    Node *else_b = syn->nkids == 4 ? branch_block(cx, syn->kids[3], d, syn->kids[3]) : NULL;
    cx->divergent = wdiv;
    emit_if(cx, syn, test, then_b, else_b, 0);
}

/* (%native-warp-if TEST NATIVE FALLBACK) - spec "Warps & Shuffles"; the
 * library's primitive for "use the warp path where one exists"
 * (docs/warps.md, "Native shuffles only").  NATIVE runs where the device
 * has native shuffles (sub-groups holding whole warps, NVIDIA's PTX) and
 * TEST holds, FALLBACK everywhere else.  The OpenCL emitter keeps NATIVE
 * behind #if, so a device without native shuffles compiles FALLBACK alone;
 * shuffles in NATIVE need no warp memory (the kernel's arguments do not
 * change) and are not workgroup-collective (warps.c).  TEST :whole-warps
 * is "the workgroup is whole warps" ((get-local-linear-size) a multiple of
 * 32): the warp forms in NATIVE then know every warp has its 32 lanes (on
 * NVIDIA, constant member masks and clamps: docs/warps.md). */
static void form_native_warp_if(Ctx *cx, Node *syn, Dest *d) {
    Checker *ck = cx->ck;
    if (syn->nkids != 4) {
        diag_error_at(ck->d, syn, "E0587", "expected (%%native-warp-if TEST NATIVE FALLBACK), found %d arguments",
                      syn->nkids - 1);
        return;
    }
    int whole = syn->kids[1]->kind == N_KEYWORD && syn_streq(syn->kids[1]->key, "whole-warps");
    Node *test_syn = syn->kids[1];
    if (whole) /* (= (bit-and (get-local-linear-size) 31) 0) */
        test_syn = cx_list(cx, syn->kids[1], 3, cx_sym(cx, syn->kids[1], "="),
                           cx_list(cx, syn->kids[1], 3, cx_sym(cx, syn->kids[1], "bit-and"),
                                   cx_list(cx, syn->kids[1], 1, cx_sym(cx, syn->kids[1], "get-local-linear-size")),
                                   cx_int(cx, syn->kids[1], CRISP_WARP_SIZE - 1)),
                           cx_int(cx, syn->kids[1], 0));
    if (!test_syn) return;
    Node *test = cx_cond_value(cx, test_syn);
    if (!test) return;
    ck_warp_native_use(cx);
    int saved = cx->native_warp;
    cx->native_warp = whole ? 2 : 1;
    Node *then_b = branch_block(cx, syn->kids[2], d, syn->kids[2]);
    cx->native_warp = saved;
    Node *else_b = branch_block(cx, syn->kids[3], d, syn->kids[3]);
    emit_if(cx, syn, test, then_b, else_b, IF_NATIVE_WARP);
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
    Type *vt = vn->ann ? ck_type_expr(ck, vn->ann) : NULL;
    if (vn->ann && !vt) return;
    Node *init = ck_expr(cx, spec->kids[1], vt);
    if (!init) return;
    if (!vt) vt = (init->op && (init->kind == N_C_INTLIT || init->kind == N_C_FLOATLIT)) || !ty_is_int(init->ty) ? ty_num(SC_ULONG) : init->ty;
    if (!ty_is_int(vt)) {
        diag_error_at(ck->d, vn, "E0349", "loop index `%s` must have an integer type, found `%s`", vn->name, ck_tname(cx, vt));
        return;
    }
    init = ck_coerce(cx, init, vt, spec->kids[1], "loop start");
    if (!init) return;
    int names_mark = cx->names.n; /* C scopes the index and body to the loop */
    Sym *var = ck_new_local(cx, vn, vn->name, vt);
    if (!var) return;
    var->immutable = 1;
    ck_scope_push(cx);
    ck_scope_add(cx, var);
    Node *saved = cx->block;
    Node *hdr = ck_new_block(cx, syn);
    cx->block = hdr;
    const Sym *outer_test_var = cx->loop_test_var;
    cx->loop_test_var = var;
    Node *test = cx_cond_value(cx, spec->kids[2]);
    cx->loop_test_var = outer_test_var;
    Node *step = ck_expr(cx, spec->kids[3], vt);
    if (step) step = ck_coerce(cx, step, vt, spec->kids[3], "loop step");
    cx->block = saved;
    if (hdr->nkids) {
        diag_error_at(ck->d, syn, "E0361", "the test and step of a loop must be plain expressions");
    }
    Node *body = ck_new_block(cx, syn);
    cx->block = body;
    Dest discard = {D_DISCARD, NULL, NULL};
    const Node *wdiv = ck_warp_loop_enter(cx, syn, var, spec->kids[1], spec->kids[2], spec->kids[3]);
    cx->loop_depth++;
    cx->branch_depth++;
    ck_body_to(cx, syn->kids + 2, syn->nkids - 2, &discard);
    cx->branch_depth--;
    cx->loop_depth--;
    cx->divergent = wdiv;
    cx->block = saved;
    ck_scope_pop(cx);
    ck_names_rollback(ck, &cx->names, names_mark);
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
    ck_emit_stmt(cx, n);
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
        vals[i] = ck_expr(cx, syn->kids[i + 1], t);
        if (!vals[i]) return;
        vals[i] = ck_coerce(cx, vals[i], t, syn->kids[i + 1], "return value");
        if (!vals[i]) return;
    }
    for (int i = 1; i < nv; i++) {
        Node *as = ck_node(cx, N_C_ASSIGN, syn, vals[i]->ty);
        as->op = OP_SET;
        as->kids = arena_alloc(ck->a, sizeof(Node *) * 2);
        if (!as->kids) return;
        as->kids[0] = ck_var_ref(cx, syn, cx->fn->retptrs[i - 1]);
        as->kids[1] = vals[i];
        as->nkids = 2;
        Node *st = ck_node(cx, N_C_EXPR, syn, &ty_void);
        st->kids = arena_alloc(ck->a, sizeof(Node *));
        if (!st->kids) return;
        st->kids[0] = as;
        st->nkids = 1;
        ck_emit_stmt(cx, st);
    }
    Node *r = ck_node(cx, N_C_RETURN, syn, rt);
    if (nv > 0) {
        r->kids = arena_alloc(ck->a, sizeof(Node *));
        if (!r->kids) return;
        r->kids[0] = vals[0];
        r->nkids = 1;
    }
    ck_emit_stmt(cx, r);
}

int cx_mv_values(Ctx *cx, Node *syn, int n, Node **out, int in_order);

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
    Node *blk = ck_new_block(cx, syn);
    cx->block = blk;
    if (!cx_mv_values(cx, syn->kids[2], vars->nkids, vals, 1)) {
        cx->block = saved;
        return;
    }
    ck_scope_push(cx);
    for (int i = 0; i < vars->nkids; i++) {
        Node *vn = vars->kids[i];
        if (vn->kind != N_SYMBOL) {
            diag_error_at(ck->d, vn, "E0305", "expected a variable name, found `%s`", syn_to_string(ck->a, vn, 40));
            continue;
        }
        Type *t = vn->ann ? ck_type_expr(ck, vn->ann) : vals[i]->ty;
        if (!vn->ann) no_inference(cx, syn, vn);
        Node *v = t ? ck_coerce(cx, vals[i], t, vn, "value") : NULL;
        if (!v) continue;
        Sym *s = ck_new_local(cx, vn, vn->name, t);
        if (!s) break;
        Node *decl = ck_node(cx, N_C_DECL, vn, t);
        decl->sym = s;
        decl->kids = arena_alloc(ck->a, sizeof(Node *));
        if (decl->kids) {
            decl->kids[0] = v;
            decl->nkids = 1;
        }
        ck_emit_stmt(cx, decl);
        ck_scope_add(cx, s);
    }
    Decls ds = {0};
    int nd = collect_decls(cx, syn->kids + 3, syn->nkids - 3, &ds);
    ck_body_to(cx, syn->kids + 3 + nd, syn->nkids - 3 - nd, d);
    ck_scope_pop(cx);
    cx->block = saved;
    ck_emit_stmt(cx, blk);
}

/* (%no-barrier "NAME" BODY...) */
static void form_no_barrier(Ctx *cx, Node *syn, Dest *d) {
    const char *saved = cx->no_barrier;
    if (syn->nkids >= 2 && syn->kids[1]->kind == N_STRING) cx->no_barrier = syn->kids[1]->name;
    else cx->no_barrier = "this divergent form";
    const Node *wdiv = ck_warp_divergent_enter(cx, syn);
    ck_body_to(cx, syn->kids + 2, syn->nkids - 2, d);
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
    ck_form_to(cx, r, &dd);
}

/* (result :OK V...) / (result :Err [MESSAGE...]): leave a maybe function.
 * The :Err message goes to the debug channel with --debug-output and costs
 * nothing otherwise. */
static void form_result(Ctx *cx, Node *syn) {
    Checker *ck = cx->ck;
    Type *rt = cx->fn->ret;
    if (rt->kind != TY_TUPLE || !rt->maybe) {
        diag_error_at(ck->d, syn, "E0391", "`result` returns from a function declared to return (maybe ...), and `%s` returns `%s`",
                      cx->fn->name, ck_tname(cx, rt));
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
        ck_form_to(cx, r, &dd);
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
        ck_form_to(cx, log, &dd);
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
    Node *blk = ck_new_block(cx, syn);
    cx->block = blk;
    ck_scope_push(cx);
    Node *yes = ck_node(cx, N_C_BOOLLIT, syn, &ty_bool);
    yes->ival = 1;
    Sym *ok = ck_declare_temp(cx, syn, "ok", &ty_bool, yes);
    if (!ok) return;
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
            guard = ck_new_block(cx, b);
            cx->block = guard;
        }
        Node *vals[2];
        if (!cx_mv_values(cx, b->kids[1], 2, vals, 1)) goto done;
        Node *call = vals[0];
        Type *ct = NULL;
        for (Node *c = call; c; c = NULL) ct = c->ty;
        (void)ct;
        /* the variable must outlive the guard: declare it in the outer block */
        Sym *v = ck_new_local(cx, b->kids[0], b->kids[0]->name, vals[1]->ty);
        if (!v) goto done;
        Node *vd = ck_node(cx, N_C_DECL, b, v->ty);
        vd->sym = v;
        ck_block_add(cx, cur, vd);
        Node *set_ok = ck_node(cx, N_C_ASSIGN, b, &ty_bool);
        set_ok->op = OP_SET;
        set_ok->kids = arena_alloc(ck->a, sizeof(Node *) * 2);
        Node *set_v = ck_node(cx, N_C_ASSIGN, b, v->ty);
        set_v->op = OP_SET;
        set_v->kids = arena_alloc(ck->a, sizeof(Node *) * 2);
        if (!set_ok->kids || !set_v->kids) goto done;
        set_ok->kids[0] = ck_var_ref(cx, b, ok);
        set_ok->kids[1] = call;
        set_ok->nkids = 2;
        set_v->kids[0] = ck_var_ref(cx, b, v);
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
        ck_emit_stmt(cx, e1);
        ck_emit_stmt(cx, e2);
        if (guard) {
            cx->block = cur;
            Node *ifn = ck_node(cx, N_C_IF, b, &ty_void);
            ifn->kids = arena_alloc(ck->a, sizeof(Node *) * 3);
            if (!ifn->kids) goto done;
            ifn->kids[0] = ck_var_ref(cx, b, ok);
            ifn->kids[1] = guard;
            ifn->kids[2] = NULL;
            ifn->nkids = 3;
            ck_emit_stmt(cx, ifn);
        }
        vars[i] = v;
        ck_scope_add(cx, v);
    }
    {
        Node *then_b = ck_new_block(cx, syn), *else_b = ck_new_block(cx, syn);
        Node *outer = cx->block;
        int body_end = err_at < 0 ? syn->nkids : err_at;
        cx->block = then_b;
        ck_body_to(cx, syn->kids + 2, body_end - 2, d);
        cx->block = else_b;
        ck_scope_pop(cx);
        if (err_at >= 0) ck_body_to(cx, syn->kids + err_at + 1, syn->nkids - err_at - 1, d);
        else return_err(cx, syn);
        ck_scope_push(cx);
        cx->block = outer;
        Node *ifn = ck_node(cx, N_C_IF, syn, &ty_void);
        ifn->kids = arena_alloc(ck->a, sizeof(Node *) * 3);
        if (!ifn->kids) goto done;
        ifn->kids[0] = ck_var_ref(cx, syn, ok);
        ifn->kids[1] = then_b;
        ifn->kids[2] = else_b;
        ifn->nkids = 3;
        ck_emit_stmt(cx, ifn);
    }
done:
    ck_scope_pop(cx);
    cx->block = saved;
    ck_emit_stmt(cx, blk);
}

void ck_form_to(Ctx *cx, Node *syn, Dest *d) {
    const Node *saved = cx->body_owner;
    cx->body_owner = syn;
    form_to_1(cx, syn, d);
    cx->body_owner = saved;
}

static void form_to_1(Ctx *cx, Node *syn, Dest *d) {
    if (cx->ck->d->fatal || !(syn = ck_expand(cx, syn))) return;
    const char *h = syn_head(syn);
    switch (h ? ck_head(cx->ck, h)->form : CF_NONE) {
    case CF_LET: return form_let(cx, syn, d, 0);
    case CF_LET_STAR: return form_let(cx, syn, d, 1);
    case CF_PROGN: return form_progn(cx, syn, d);
    case CF_IF: return form_if(cx, syn, d);
    case CF_LOOP: return form_loop(cx, syn, d);
    case CF_NATIVE_WARP_IF: return form_native_warp_if(cx, syn, d);
    case CF_RETURN:
        /* a macro's expansion ending in (return X), used as a value: X is
           the value of the macro call (the spec's reduce-vec-small and
           filter end this way) */
        if (d->kind == D_VAR && syn->origin && syn->nkids == 2) return ck_form_to(cx, syn->kids[1], d);
        return form_return(cx, syn);
    case CF_MVB: return form_mvb(cx, syn, d);
    case CF_NO_BARRIER: return form_no_barrier(cx, syn, d);
    case CF_UNIFORM: return ck_uniform_form(cx, syn, d); /* uniform.c */
    case CF_GRID_BODY: return form_grid_body(cx, syn, d);
    case CF_RESULT: return form_result(cx, syn);
    case CF_LET_MAYBE: return form_let_maybe(cx, syn, d);
    case CF_LET_KERNEL: return orch_let_kernel(cx, syn, d); /* orch.c */
    case CF_DECLARE: diag_error_at(cx->ck->d, syn, "E0344", "(declare ...) must come first in a body"); return;
    case CF_NONE: break;
    }
    int plain_maybe_value = 0;
    if (d->kind == D_RETURN && cx->fn->ret->kind == TY_TUPLE && cx->fn->ret->maybe) {
        /* a maybe function ending in a plain value returns it as :OK; a call
           to another maybe function passes its result on */
        FuncDef *callee = h ? ck_func_lookup(cx->ck, h) : NULL;
        if (callee) ck_resolve_signature(cx->ck, callee);
        plain_maybe_value = !(callee && callee->ret && callee->ret->kind == TY_TUPLE);
    }
    if (d->kind == D_RETURN && cx->fn->ret->kind == TY_TUPLE && !plain_maybe_value) {
        /* the last form of a multi-value function: pass its values on */
        int n = cx->fn->ret->nelems;
        Node *vals[16];
        if (!cx_mv_values(cx, syn, n, vals, 0)) return;
        Node *fake = syn_new(cx->ck->a, N_LIST, syn->loc);
        (void)fake;
        for (int i = 1; i < n; i++) {
            Node *v = ck_coerce(cx, vals[i], cx->fn->ret->elems[i], syn, "return value");
            if (!v) return;
            Node *as = ck_node(cx, N_C_ASSIGN, syn, v->ty);
            as->op = OP_SET;
            as->kids = arena_alloc(cx->ck->a, sizeof(Node *) * 2);
            if (!as->kids) return;
            as->kids[0] = ck_var_ref(cx, syn, cx->fn->retptrs[i - 1]);
            as->kids[1] = v;
            as->nkids = 2;
            Node *st = ck_node(cx, N_C_EXPR, syn, &ty_void);
            st->kids = arena_alloc(cx->ck->a, sizeof(Node *));
            if (!st->kids) return;
            st->kids[0] = as;
            st->nkids = 1;
            ck_emit_stmt(cx, st);
        }
        Node *v0 = ck_coerce(cx, vals[0], cx->fn->ret->elems[0], syn, "return value");
        if (!v0) return;
        Node *r = ck_node(cx, N_C_RETURN, syn, cx->fn->ret);
        r->kids = arena_alloc(cx->ck->a, sizeof(Node *));
        if (!r->kids) return;
        r->kids[0] = v0;
        r->nkids = 1;
        ck_emit_stmt(cx, r);
        return;
    }
    Node *v = ck_expr(cx, syn, d->want ? d->want : (d->kind == D_VAR ? d->var->ty : d->kind == D_RETURN ? cx->fn->ret : NULL));
    if (v && v->ty && v->ty->kind == TY_TUPLE && d->kind != D_DISCARD)
        v = ck_coerce(cx, v, v->ty->elems[0], syn, "value");
    ck_deliver(cx, v, d, syn);
}

/* ------------------------------------------------------------------ */
/* syntax the checker builds                                           */

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

/* ------------------------------------------------------------------ */
/* the passes (check_program)                                          */

/* Pass "derived": (set-derived A B ...) links, once every type is known. */
static void pass_derived(Checker *ck) {
    /* none collected (most programs): no walk of every form (issue 14:
       the program's forms are megabytes, each pass over them misses the
       cache) */
    if (!ck->nderived_forms) return;
    for (int i = 0; i < ck->forms.n && !ck->c->diag.fatal; i++)
        if (syn_is_form(ck->forms.v[i], "set-derived")) ck_set_derived(ck, ck->forms.v[i]);
}

/* Pass "generate": (gen-NAME ...) forms, now that every template and type
 * is known. */
static void pass_generate(Checker *ck) {
    if (!ck->ngen_forms) return; /* none collected: as pass_derived */
    for (int i = 0; i < ck->forms.n && !ck->c->diag.fatal; i++) {
        const char *h = syn_head(ck->forms.v[i]);
        if (h && !strncmp(h, "gen-", 4)) ck_template_gen(ck, ck->forms.v[i]);
    }
}

/* Pass "const-vecs": def-const-vecs in definition order (a body may use
 * earlier ones; the functions it calls have their signatures and C names
 * now), then their C names, clear of every kernel and function name. */
static void pass_const_vecs(Checker *ck) {
    Program *p = ck->prog;
    for (int g = 0; g < ck->globals.n && !ck->c->diag.fatal; g++) {
        Sym *s = ck->globals.syms[g];
        if (s->kind != SYM_CONSTVEC) continue;
        constvec_eval(ck, s);
        if (!sym_rare(s)->cvec) continue;
        const char *base = ck_mangle(ck, s->name);
        int clash = ck_is_reserved(ck, base) || strmap_get(&ck->fnbases, base);
        if (clash) base = ck_name_join(ck, "cv", base);
        s->cname = sym_rare(s)->cvec->cname = ck_unique_name(ck, &ck->cnames, base);
        PUSH(ck->a, p->cvecs, p->ncvecs, p->capcvecs, sym_rare(s)->cvec);
    }
}

/* Pass "orchestration-checks": what needs the checked kernels (orch.c). */
static void pass_orch_finish(Checker *ck) {
    if (!ck->c->diag.fatal) orch_finish(ck);
}

/* The checker's passes, in order; each reads what the ones before it
 * decided (docs/architecture.md "The pipeline").  Every pass runs: one
 * that must not run after a fatal error (a resource limit) checks for it
 * itself. */
const CheckPass check_passes[] = {
    {"collect", ck_pass_collect},       /* collect.c: every definition, its macros expanded */
    {"constants", ck_pass_constants},   /* signatures.c: def-const, def-parameter, def-type */
    {"derived", pass_derived},       /* set-derived links between types */
    {"generate", pass_generate},     /* templates.c: (gen-NAME ...) instances */
    {"orchestrations", orch_resolve}, /* orch.c: def-orchestrations (may instantiate kernels) */
    {"signatures", ck_pass_signatures}, /* signatures.c: parameter and return types */
    {"overloads", ck_pass_overloads},   /* signatures.c: distinct, and named apart */
    {"const-vecs", pass_const_vecs}, /* def-const-vec bodies run, then named */
    {"kernels", ck_pass_kernels},       /* instances.c: kernel bodies, instantiating what they call */
    {"functions", ck_pass_functions},   /* instances.c: functions nobody called, signature complete */
    {"orchestration-checks", pass_orch_finish}, /* orch.c: KERNEL::RESULT references */
    {NULL, NULL},
};

int checker_init(Checker *ck, Crisp *c, Expander *x, Forms read, const TargetNames *target) {
    *ck = (Checker){.c = c, .a = &c->arena, .d = &c->diag, .x = x, .ev = x ? expander_eval(x) : NULL, .names = target ? target : &crisp_names,
                    .read = read};
    Program *p = arena_alloc(&c->arena, sizeof *p);
    if (!p) return 0;
    ck->prog = p;
    p->debug_output = c->opt->debug_output;
    p->ocl_version = c->opt->ocl_version ? c->opt->ocl_version : 120; /* --ocl-version */
    ctquery_install(ck);
    return 1;
}

Program *checker_finish(Checker *ck) {
    Crisp *c = ck->c;
    Program *p = ck->prog;
    if (c->arena.exhausted && !c->diag.fatal) {
        char lim[40];
        diag_fatal(&c->diag, (SrcLoc){0}, NULL, "E0199",
                   "out of memory while checking: the compilation reached its memory limit of %s (--max-memory=SIZE changes it)",
                   diag_memory_limit(&c->diag, lim, sizeof lim));
    }
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

Program *check_program(Crisp *c, Expander *x, Forms read, const TargetNames *target) {
    Checker ck;
    if (!checker_init(&ck, c, x, read, target)) return NULL;
    for (int i = 0; check_passes[i].run; i++) check_passes[i].run(&ck);
    return checker_finish(&ck);
}
