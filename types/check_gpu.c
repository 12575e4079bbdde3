/* check_gpu.c - the GPU builtins: ids and sizes, barriers, fences, bounds
 * checks, atomics, and the core helpers the prelude is written with.
 *
 * Why it exists: these forms are the primitives the library (lib/, in Crisp)
 * builds on and the only expressions that name the work-item grid; split
 * out of check_expr.c by form family (issue 16).  Spec sections "Builtin
 * GPU Functions & Constants", "Barriers and Fences", "Atomics",
 * "Hoisting and Enqueing a Kernel" (check-thread-bounds) and
 * docs/core-forms.md (%extent, %pow2-below, target-has, device-has). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/suggest.h"
#include "consteval.h"
#include "../core/target.h"
#include "../macros/eval.h"
#include "expr_int.h"

static Diag *D(Ctx *cx) {
    return cx->ck->d;
}

/* ---- GPU builtins ---- */

static Node *dim_arg(Ctx *cx, Node *syn, int idx) {
    if (syn->nkids <= idx) return ck_int_lit(cx, syn, 0, ty_num(SC_UINT));
    int64_t d;
    if (ck_const_syn_int(cx, syn->kids[idx], &d)) {
        if (d < 0 || d > 2) {
            diag_error_at(D(cx), syn->kids[idx], "E0450", "dimension must be 0, 1 or 2, found %lld", (long long)d);
            return NULL;
        }
        return ck_int_lit(cx, syn->kids[idx], d, ty_num(SC_UINT));
    }
    Node *v = ck_expr(cx, syn->kids[idx], ty_num(SC_UINT));
    if (v && !ty_is_int(v->ty)) {
        diag_error_at(D(cx), syn->kids[idx], "E0451", "dimension must be an integer, found `%s`", ck_tname(cx, v->ty));
        return NULL;
    }
    return v;
}

const IdBuiltin cx_id_builtins[] = {
    {"get-global-id", BI_HELPER, H_GLOBAL_ID, 1, SC_ULONG},
    {"get-global-id-abs", BI_GLOBAL_ID_ABS, 0, 1, SC_ULONG},
    {"get-local-id", BI_LOCAL_ID, 0, 1, SC_ULONG},
    {"get-workgroup-id", BI_GROUP_ID, 0, 1, SC_ULONG},
    {"get-group-id", BI_GROUP_ID, 0, 1, SC_ULONG},
    {"get-num-groups", BI_NUM_GROUPS, 0, 1, SC_ULONG},
    {"get-num-workgroups", BI_NUM_GROUPS, 0, 1, SC_ULONG},
    {"get-global-work-size", BI_GLOBAL_SIZE, 0, 1, SC_ULONG},
    {"get-global-size", BI_GLOBAL_SIZE, 0, 1, SC_ULONG},
    {"get-local-work-size", BI_LOCAL_SIZE, 0, 1, SC_ULONG},
    {"get-local-size", BI_LOCAL_SIZE, 0, 1, SC_ULONG},
    {"local-work-size", BI_LOCAL_SIZE, 0, 1, SC_ULONG},       /* spec "Word Count With Exclusive Scan" */
    {"get-global-offset", BI_GLOBAL_OFFSET, 0, 1, SC_ULONG},
    {"get-work-dim", BI_WORK_DIM, 0, 0, SC_UINT},
    {"get-global-linear-id", BI_HELPER, H_GLOBAL_LINEAR_ID, 0, SC_ULONG},
    {"get-local-linear-id", BI_HELPER, H_LOCAL_LINEAR_ID, 0, SC_ULONG},
    {"get-global-linear-size", BI_HELPER, H_GLOBAL_LINEAR_SIZE, 0, SC_ULONG},
    {"get-total-threads", BI_HELPER, H_GLOBAL_LINEAR_SIZE, 0, SC_ULONG},
    {"get-local-linear-size", BI_HELPER, H_LOCAL_LINEAR_SIZE, 0, SC_ULONG},
    {"get-linear-work-size", BI_HELPER, H_LOCAL_LINEAR_SIZE, 0, SC_ULONG}, /* spec "filter": one per work-item of the workgroup */
    {NULL, 0, 0, 0, 0},
};

/* (get-global-id [DIM]) and the other ids and sizes of spec "Builtin GPU
 * Functions & Constants".  Ids are relative to the global offset except
 * get-global-id-abs. */
Node *cx_gpu_id(Ctx *cx, Node *syn, const IdBuiltin *b) {
    if (!ck_nargs_ok(cx, syn, 0, b->takes_dim)) return NULL;
    Node *args[1];
    int n = 0;
    if (b->takes_dim) {
        args[0] = dim_arg(cx, syn, 1);
        if (!args[0]) return NULL;
        n = 1;
    }
    Node *c;
    if (b->op == BI_HELPER) {
        if (b->helper == H_GLOBAL_LINEAR_ID) ck_need_helper(cx, H_GLOBAL_ID, NULL, AS_NONE);
        c = ck_helper_call(cx, syn, ty_num(b->ret), ck_need_helper(cx, b->helper, NULL, AS_NONE), args, n);
    } else {
        c = cx_call_n(cx, syn, ty_num(b->ret), b->op, args, n);
    }
    if (c && b->op != BI_HELPER && b->ret == SC_ULONG) {
        /* size_t may be 32 bits on some devices: make the type explicit */
        Node *cast = ck_mk1(cx, N_C_CAST, syn, ty_num(SC_ULONG), c);
        return cast;
    }
    return c;
}

/* (local-barrier) - barrier(CLK_LOCAL_MEM_FENCE) */
Node *cx_barrier(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!ck_nargs_ok(cx, syn, 0, 0)) return NULL;
    if (cx->no_barrier && !ck_skip_checks(cx->ck)) {
        diag_error_at(D(cx), syn, "E0503",
                      "local-barrier inside `%s` would deadlock the workgroup: only some threads reach it", cx->no_barrier);
        return NULL;
    }
    Node *b = ck_node(cx, N_C_BARRIER, syn, &ty_void);
    b->op = BAR_LOCAL;
    if (cx->fn) cx->fn->analysis_sync = 1; /* analysis/ walks it (issue 14) */
    return b;
}

/* (mem-fence [:local] [:global]) or (mem-fence :local T :global NIL) */
Node *cx_fence(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    int loc = 0, glob = 0;
    for (int i = 1; i < syn->nkids; i++) {
        Node *k = syn->kids[i];
        if (!(k->kind == N_KEYWORD && (syn_streq(k->key, "local") || syn_streq(k->key, "global")))) {
            diag_error_at(D(cx), k, "E0452", "mem-fence takes :local and/or :global, found `%s`", syn_to_string(cx->ck->a, k, 30));
            return NULL;
        }
        int on = 1;
        if (i + 1 < syn->nkids && syn->kids[i + 1]->kind != N_KEYWORD) {
            Node *v = syn->kids[++i];
            on = !(syn_is_nil(v) || syn_is_sym(v, "false") || (v->kind == N_INT && v->ival == 0));
        }
        if (k->key[0] == 'l') loc = on;
        else glob = on;
    }
    if (!loc && !glob) loc = glob = 1;
    Node *b = ck_node(cx, N_C_BARRIER, syn, &ty_void);
    b->op = loc && glob ? FENCE_BOTH : loc ? FENCE_LOCAL : FENCE_GLOBAL;
    return b;
}

/* (check-thread-bounds X [Y [Z]]) / (check-wg-bounds ...): are the ids
 * below the sizes the kernel declared with global-size / local-size? */
Node *cx_bounds(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    int global = syn->kids[0]->key[6] == 't';
    const char *what = syn->kids[0]->name;
    if (!ck_nargs_ok(cx, syn, 1, 3)) return NULL;
    const SizeDecl *sd = global ? cfunc_gsize(cx->fn) : &cfunc_rare(cx->fn)->lsize;
    if (cx->fn->kind != FN_KERNEL || !sd->present || (!sd->nset && !sd->nderive)) {
        diag_error_at(D(cx), syn, "E0720", "`%s` compares against the kernel's (%s :set-to ...) or (%s :derive-from ...) declaration, and `%s` has none",
                      what, global ? "global-size" : "local-size", global ? "global-size" : "local-size", cx->fn->name);
        return NULL;
    }
    int n = syn->nkids - 1, dims = sd->nset ? sd->nset : sd->nderive;
    if (n != dims) {
        diag_error_at(D(cx), syn, "E0721", "`%s` has %d index%s but the declared %s has %d dimension%s", what, n,
                      n == 1 ? "" : "es", global ? "global-size" : "local-size", dims, dims == 1 ? "" : "s");
        return NULL;
    }
    Node *acc = NULL;
    Type *ul = ty_num(SC_ULONG);
    for (int i = 0; i < n; i++) {
        Node *x = ck_expr(cx, syn->kids[i + 1], ul);
        if (!x) return NULL;
        x = ck_coerce(cx, x, ul, syn->kids[i + 1], what);
        if (!x) return NULL;
        Node *bound;
        if (sd->nset) bound = ck_int_lit(cx, syn, sd->set_to[i], ul);
        else {
            Sym *p = sd->derive_sym[i];
            bound = p->ty->kind == TY_VECTOR ? cx_length_of(cx, syn, p) : ck_var_ref(cx, syn, p);
            if (!ty_equal(bound->ty, ul)) bound = ck_mk1(cx, N_C_CAST, syn, ul, bound);
        }
        Node *lt = ck_mk2(cx, N_C_BINARY, syn, &ty_bool, OP_LT, x, bound);
        acc = acc ? ck_mk2(cx, N_C_BINARY, syn, &ty_bool, OP_AND, acc, lt) : lt;
    }
    return acc;
}

/* ---- atomics (spec "Atomics") ---- */

const AtomicOp cx_atomic_ops[] = {
    {"atomic-add!", BI_ATOMIC_ADD, 1, OP_ADD},
    {"atomic-sub!", BI_ATOMIC_SUB, 1, OP_SUB},
    {"atomic-inc!", BI_ATOMIC_INC, 0, OP_ADD},
    {"atomic-dec!", BI_ATOMIC_DEC, 0, OP_SUB},
    {"atomic-min!", BI_ATOMIC_MIN, 1, -1},
    {"atomic-max!", BI_ATOMIC_MAX, 1, -2},
    {"atomic-xchg!", BI_ATOMIC_XCHG, 1, OP_SET},
    {NULL, 0, 0, 0},
};

/* The location of an atomic: an element of a :global or :local vector. */
static Node *atomic_place(Ctx *cx, Node *syn, const char *what, AddrSpace *as) {
    Node *loc = syn->kids[1];
    if (!syn_is_form(loc, "~") && !syn_is_form(loc, "~ref~")) {
        diag_error_at(D(cx), loc, "E0510",
                      "`%s` works on an element of a :global or :local vector, e.g. (%s (~ v i) ...); `%s` is private to one thread",
                      what, what, syn_to_string(cx->ck->a, loc, 30));
        return NULL;
    }
    Node *p = ck_place(cx, loc, 1);
    if (!p) return NULL;
    Sym *v = p->kids[0]->sym;
    *as = v->ty->as;
    if (*as != AS_GLOBAL && *as != AS_LOCAL) {
        diag_error_at(D(cx), loc, "E0511", "`%s` needs :global or :local memory; `%s` is %s memory", what, v->name, ty_as_name(*as));
        return NULL;
    }
    if (p->kind == N_C_INDEX && p->op == INDEX_PADDED) {
        diag_error_at(D(cx), loc, "E0512", "`%s` on a :std140 vector with padded elements is not supported; use :compact", what);
        return NULL;
    }
    /* spec "atomics and grid level operations": an atomic on :global memory
       makes its function grid level; inside a grid-level form (a grid-stride
       loop, a macro declaring (grid-level)) it is part of that form */
    if (*as == AS_GLOBAL && !cx->grid_region && ck_grid_op_reports(cx))
        ck_grid_op(cx, syn, arena_printf(cx->ck->a, "`%s` on :global memory", what));
    Node *addr = ck_mk1(cx, N_C_UNARY, syn, p->ty, p);
    if (addr) addr->op = OP_ADDR;
    return addr;
}

static Node *atomic_helper_call(Ctx *cx, Node *syn, Node *addr, AddrSpace as, Type *t, int op, CFunc *fn, int unary, Node *arg) {
    Helper *h = NULL;
    Program *p = ck_prog_of(cx);
    /* the atomics made for the same fn, newest first (at most one live match) */
    const void *fkey = fn ? (const void *)fn : (const void *)&p->helpers_by_fn;
    Helper *chain = ptrmap_get(&p->helpers_by_fn, fkey);
    for (Helper *x = chain; x; x = x->next_fn)
        if (x->ty == t && x->as == as && x->op == op && x->unary == unary && helper_live(p, x)) {
            h = x;
            break;
        }
    if (!h) {
        h = ck_need_helper(cx, H_ATOMIC_RMW, t, as);
        if (!h) return NULL;
        h->fn = fn;
        h->op = op;
        h->unary = unary;
        h->next_fn = chain;
        ptrmap_put(cx->ck->a, &p->helpers_by_fn, fkey, h);
    }
    if (ty_sizeof(t) == 8) p->uses_int64_atomics = 1;
    Node *args[2] = {addr, arg};
    return ck_helper_call(cx, syn, t, h, args, arg ? 2 : 1);
}

/* (atomic-add! LOC V) (atomic-sub! LOC V) (atomic-inc! LOC) (atomic-dec! LOC)
 * (atomic-min! LOC V) (atomic-max! LOC V) (atomic-xchg! LOC V): the value
 * LOC held before. */
Node *cx_atomic(Ctx *cx, Node *syn, const AtomicOp *a) {
    if (!ck_nargs_ok(cx, syn, 1 + a->nargs, 1 + a->nargs)) return NULL;
    AddrSpace as;
    Node *addr = atomic_place(cx, syn, a->name, &as);
    if (!addr) return NULL;
    Type *t = addr->ty;
    if (t->kind != TY_NUM) {
        diag_error_at(D(cx), syn, "E0513", "`%s` needs a scalar number location, found `%s`", a->name, ck_tname(cx, t));
        return NULL;
    }
    Node *v = NULL;
    if (a->nargs) {
        v = ck_expr(cx, syn->kids[2], t);
        v = ck_coerce(cx, v, t, syn->kids[2], a->name);
        if (!v) return NULL;
    }
    int size = ty_sizeof(t);
    if (ty_is_int(t) && (size == 4 || size == 8)) {
        if (size == 8) ck_prog_of(cx)->uses_int64_atomics = 1;
        Node *args[2] = {addr, v};
        return cx_call_n(cx, syn, t, a->bi, args, v ? 2 : 1);
    }
    if (t->sc == SC_FLOAT && a->op == OP_SET) {
        Node *args[2] = {addr, v};
        return cx_call_n(cx, syn, t, BI_ATOMIC_XCHG, args, 2);
    }
    if (size != 4 && size != 8) {
        diag_error_at(D(cx), syn, "E0514", "`%s` needs a 32- or 64-bit location, found `%s`", a->name, ck_tname(cx, t));
        return NULL;
    }
    /* floats (and xchg of doubles): bounded compare-and-swap loop */
    if (!v) v = cx_float_lit(cx, syn, 1.0, t);
    return atomic_helper_call(cx, syn, addr, as, t, a->op, NULL, 0, v);
}

/* (%atomic-load LOC) and (%atomic-store LOC V): the library's relaxed
 * atomic read and write of a 32- or 64-bit integer element of a :global
 * or :local vector (the grid scans' status words, lib/scan-grid.crisp;
 * docs/core-forms.md).  Another work-group's %atomic-store or atomic is
 * seen, with no ordering against other locations.  On NVIDIA they are
 * volatile loads and stores, served by L2 (an atomic add of 0 is a
 * read-modify-write there, serialised per address; -DCRISP_STATUS_RELAXED=1:
 * PTX's ld/st.relaxed.gpu); elsewhere atomic_add(p, 0) and atomic_xchg. */
Node *cx_atomic_load_store(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    int store = syn_streq(syn->kids[0]->key, "%atomic-store");
    const char *what = store ? "%atomic-store" : "%atomic-load";
    if (!ck_nargs_ok(cx, syn, store ? 2 : 1, store ? 2 : 1)) return NULL;
    AddrSpace as;
    Node *addr = atomic_place(cx, syn, what, &as);
    if (!addr) return NULL;
    Type *t = addr->ty;
    if (t->kind != TY_NUM || !ty_is_int(t) || (ty_sizeof(t) != 4 && ty_sizeof(t) != 8)) {
        diag_error_at(D(cx), syn, "E0514", "`%s` needs a 32- or 64-bit integer location, found `%s`", what, ck_tname(cx, t));
        return NULL;
    }
    Node *v = NULL;
    if (store) {
        v = ck_expr(cx, syn->kids[2], t);
        v = ck_coerce(cx, v, t, syn->kids[2], what);
        if (!v) return NULL;
    }
    if (ty_sizeof(t) == 8) ck_prog_of(cx)->uses_int64_atomics = 1;
    Helper *h = ck_need_helper(cx, store ? H_ATOMIC_STORE : H_ATOMIC_LOAD, t, as);
    if (!h) return NULL;
    Node *args[2] = {addr, v};
    return ck_helper_call(cx, syn, store ? &ty_void : t, h, args, store ? 2 : 1);
}

/* Operators usable as #'F in atomic-binop!; returns 0 when `k` is none. */
static int builtin_binop(const char *k, int *op) {
    static const struct { const char *name; int op; } ops[] = {
        {"+", OP_ADD}, {"-", OP_SUB}, {"*", OP_MUL}, {"min", -1}, {"max", -2},
        {"bit-and", OP_BAND}, {"logand", OP_BAND}, {"bit-or", OP_BOR}, {"logior", OP_BOR},
        {"bit-xor", OP_BXOR}, {"logxor", OP_BXOR}, {NULL, 0}};
    for (int i = 0; ops[i].name; i++)
        if (syn_streq(ops[i].name, k)) {
            *op = ops[i].op;
            return 1;
        }
    return 0;
}

/* (atomic-binop! LOC #'F ARG) / (atomic-op! LOC #'F): a bounded
 * compare-and-swap loop applying F; returns the previous value.  F may be
 * (gen-NAME TYPES...), an instance of a templated function (spec
 * "gen-XXXX"). */
Node *cx_atomic_fn(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    int unary = syn_streq(syn->kids[0]->key, "atomic-op!");
    const char *what = syn->kids[0]->name;
    if (!ck_nargs_ok(cx, syn, unary ? 2 : 3, unary ? 2 : 3)) return NULL;
    Node *f = syn->kids[2];
    FuncDef *gen_fd = NULL;
    if (ck_template_is_gen(f)) {
        gen_fd = ck_template_function_arg(cx->ck, f);
        if (!gen_fd) return NULL;
        f = cx_list(cx, f, 2, cx_sym(cx, f, "function"), cx_sym(cx, f, gen_fd->name));
    }
    if (!syn_is_form(f, "function") || f->nkids != 2 || f->kids[1]->kind != N_SYMBOL) {
        diag_error_at(D(cx), f, "E0515", "`%s` takes a function as #'name, found `%s`", what, syn_to_string(cx->ck->a, f, 30));
        return NULL;
    }
    AddrSpace as;
    Node *addr = atomic_place(cx, syn, what, &as);
    if (!addr) return NULL;
    Type *t = addr->ty;
    if (t->kind != TY_NUM || (ty_sizeof(t) != 4 && ty_sizeof(t) != 8)) {
        diag_error_at(D(cx), syn, "E0514", "`%s` needs a 32- or 64-bit scalar location, found `%s`", what, ck_tname(cx, t));
        return NULL;
    }
    Node *arg = NULL;
    if (!unary) {
        arg = ck_expr(cx, syn->kids[3], t);
        arg = ck_coerce(cx, arg, t, syn->kids[3], what);
        if (!arg) return NULL;
    }
    const char *fk = f->kids[1]->key;
    int op = 0;
    int is_op = !unary && builtin_binop(fk, &op);
    CFunc *fn = NULL;
    if (!is_op) {
        FuncDef *fd = gen_fd ? gen_fd : ck_func_lookup(cx->ck, fk);
        if (!fd) {
            diag_error_at(D(cx), f, "E0516", "unknown function `%s`", f->kids[1]->name);
            return NULL;
        }
        if (!gen_fd) {
            /* an overloaded function: the overload of signature #'(T T => T) */
            FuncDef *cands[16];
            int nc = ck_func_overloads(cx->ck, fk, cands, 16);
            for (int i = 0; i < nc; i++) {
                ck_resolve_signature(cx->ck, cands[i]);
                int ok = !cands[i]->bad && cands[i]->nparams == (unary ? 1 : 2) && cands[i]->ret && ty_equal(cands[i]->ret, t);
                for (int j = 0; ok && j < cands[i]->nparams; j++) ok = ty_equal(cands[i]->params[j].ty, t);
                if (ok) {
                    fd = cands[i];
                    break;
                }
            }
        }
        Type *ats[2] = {t, t};
        ck_resolve_signature(cx->ck, fd);
        if (fd->bad) return NULL;
        if (fd->nparams != (unary ? 1 : 2) || !ty_equal(fd->ret, t)) {
            diag_error_at(D(cx), f, "E0517", "`%s` needs a function of type #'(%s%s => %s), but `%s` is not", what,
                          ck_tname(cx, t), unary ? "" : arena_printf(cx->ck->a, " %s", ck_tname(cx, t)), ck_tname(cx, t), fd->name);
            return NULL;
        }
        for (int i = 0; i < fd->nparams; i++)
            if (!ty_equal(fd->params[i].ty, t)) {
                diag_error_at(D(cx), f, "E0517", "`%s` needs a function taking `%s`, but `%s` takes `%s`", what, ck_tname(cx, t),
                              fd->name, ck_tname(cx, fd->params[i].ty));
                return NULL;
            }
        if (fd->kind != FN_FUNCTION) {
            diag_error_at(D(cx), f, "E0517", "`%s` needs a def-function, `%s` is a %s", what, fd->name, fd->kind == FN_KERNEL ? "kernel" : "grid function");
            return NULL;
        }
        fn = ck_instantiate(cx, fd, ats, syn);
        if (!fn) return NULL;
    } else if (ty_is_int(t) && ty_sizeof(t) == 4 && op != OP_MUL) {
        int c = op == OP_ADD ? BI_ATOMIC_ADD : op == OP_SUB ? BI_ATOMIC_SUB : op == -1 ? BI_ATOMIC_MIN
                : op == -2 ? BI_ATOMIC_MAX : op == OP_BAND ? BI_ATOMIC_AND : op == OP_BOR ? BI_ATOMIC_OR : BI_ATOMIC_XOR;
        Node *args[2] = {addr, arg};
        return cx_call_n(cx, syn, t, c, args, 2);
    } else if (op <= -1 || op == OP_BAND || op == OP_BOR || op == OP_BXOR) {
        if (ty_is_float(t) && (op == OP_BAND || op == OP_BOR || op == OP_BXOR)) {
            diag_error_at(D(cx), f, "E0518", "`%s` is not defined for `%s`", f->kids[1]->name, ck_tname(cx, t));
            return NULL;
        }
    }
    return atomic_helper_call(cx, syn, addr, as, t, op, fn, unary, arg);
}

/* ---- core helpers used by the prelude (docs/core-forms.md) ---- */

/* (%extent E): E when it is an integer, (length~ E) when it is a vector */
Node *cx_extent(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    Node *v = ck_expr(cx, syn->kids[1], ty_num(SC_ULONG));
    if (!v) return NULL;
    if (v->ty->kind == TY_VECTOR && v->kind == N_C_VAR) return cx_length_of(cx, syn, v->sym);
    if (cx_is_flex(v)) v = ck_coerce(cx, v, ty_num(SC_ULONG), syn->kids[1], "extent");
    if (v && !ty_is_int(v->ty)) {
        diag_error_at(D(cx), syn->kids[1], "E0460", "expected a vector or an integer count, found `%s`", ck_tname(cx, v->ty));
        return NULL;
    }
    return v;
}

/* (%pow2-below E): the largest power of two below E (0 when E <= 1) */
Node *cx_pow2_below(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    Node *v = ck_expr(cx, syn->kids[1], ty_num(SC_ULONG));
    v = ck_coerce(cx, v, ty_num(SC_ULONG), syn->kids[1], "limit");
    if (!v) return NULL;
    Node *args[1] = {v};
    return ck_helper_call(cx, syn, ty_num(SC_ULONG), ck_need_helper(cx, H_POW2_BELOW, NULL, AS_NONE), args, 1);
}

/* The property of (target-has :PROP ...) / (device-has :PROP): 1, 0, -1
 * (the device decides) or -2 after a diagnostic. */
static int has_property(Ctx *cx, Node *syn, const char *form) {
    Node *k = syn->kids[1];
    if (k->kind != N_KEYWORD) {
        diag_error_at(D(cx), k, "E0465", "`%s` expects a keyword property such as :fp64, found `%s`", form,
                      syn_to_string(cx->ck->a, k, 40));
        return -2;
    }
    int has = target_property(k->key);
    if (has == -2)
        diag_error_at(D(cx), k, "E0466", "unknown target property `:%s` in %s: expected one of " TARGET_PROPERTIES,
                      k->key, form);
    return has;
}

/* (target-has :PROP [MIGHT]) - spec "target-has / device-has": t or nil at
 * compile time; MIGHT answers for a feature OpenCL C 1.2 makes optional. */
Node *cx_target_has(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!ck_nargs_ok(cx, syn, 1, 2)) return NULL;
    int has = has_property(cx, syn, "target-has");
    if (has == -2) return NULL;
    if (has >= 0) return cx_bool_lit(cx, syn, has);
    if (syn->nkids == 3) return cx_bool_lit(cx, syn, eval_truthy(syn->kids[2]));
    diag_error_at(D(cx), syn, "E0021", "target-has :%s is not decided for target oclc (OpenCL C 1.2 makes it optional); "
                  "pass a default: (target-has :%s nil)", syn->kids[1]->key, syn->kids[1]->key);
    return NULL;
}

/* (device-has :PROP) - spec "target-has / device-has".  t or nil when
 * OpenCL C 1.2 decides; for an optional feature (:fp64, :fp16) a query the
 * driver answers when it builds the source: the extension's macro
 * (cl_khr_fp64) is defined exactly when the device has it. */
Node *cx_device_has(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    int has = has_property(cx, syn, "device-has");
    if (has == -2) return NULL;
    Node *k = syn->kids[1];
    if (syn_streq(k->key, "subgroups")) has = ck_warp_device_has_subgroups(cx, syn) ? -1 : 0; /* types/warps.c */
    if (has >= 0) return cx_bool_lit(cx, syn, has);
    Program *p = ck_prog_of(cx);
    Helper *h = NULL;
    for (int i = 0; i < p->nhelpers_of_kind[H_DEVICE_HAS] && !h; i++) {
        Helper *x = p->helpers_of_kind[H_DEVICE_HAS][i];
        if (syn_streq(x->key, k->key) && helper_live(p, x)) h = x;
    }
    if (!h) {
        h = ck_need_helper(cx, H_DEVICE_HAS, NULL, AS_NONE);
        if (!h) return NULL;
        h->key = k->key;
    }
    return ck_helper_call(cx, syn, &ty_bool, h, NULL, 0);
}

/* (%require-global-size N "NAME") */
Node *cx_require_gsize(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    int64_t n = 1;
    const char *who = syn->nkids > 2 && syn->kids[2]->kind == N_STRING ? syn->kids[2]->name : "this form";
    if (syn->nkids > 1) ck_const_syn_int(cx, syn->kids[1], &n);
    if (cx->fn->kind == FN_KERNEL) {
        const SizeDecl *g = cfunc_gsize(cx->fn);
        if (!g->present)
            diag_warning_at(D(cx), syn, "W0701",
                            "`%s` in kernel `%s` without a (global-size ...) declaration: declare one so the host launches %lld-dimensional work",
                            who, cx->fn->name, (long long)n);
        else if (g->dims && g->dims != n)
            diag_error_at(D(cx), syn, "E0723", "`%s` strides over %lld dimension%s but `%s` declares a %d-dimensional global-size",
                          who, (long long)n, n == 1 ? "" : "s", cx->fn->name, g->dims);
    }
    return ck_node(cx, N_C_BLOCK, syn, &ty_void);
}
