/* uniformity.c - which values are the same for every work-item of a
 * workgroup (spec "Looping -- Uniform Loops", "+ variants", "Branching";
 * the vyre and Cursive execution models' uniformity rules).
 *
 * Why: a `+` form promises a uniform condition or loop, a local-barrier
 * needs every work-item of the workgroup to reach it, and check-divergence
 * asks which branches split a warp.  All three are questions about values
 * and control flow that only the whole checked function answers.
 *
 * The lattice (analysis_int.h): constant < uniform < warp-uniform <
 * varying, plus the set of the function's parameters a value depends on,
 * so a function is analysed once and each call judges its arguments.
 *   - constants, kernel parameters, sizes, group ids and lengths are
 *     uniform; thread ids, atomics and reads of memory other work-items
 *     may write are varying; a read of read-only or constant memory at a
 *     uniform index is uniform; a private array is as uniform as what was
 *     stored in it; operators and pure calls join their operands;
 *   - an assignment under a condition that is not uniform makes the
 *     variable not uniform when it was declared outside that condition
 *     (some work-items assign it, others do not); so does a break out of
 *     a loop, and a `return` puts the rest of the function under the
 *     condition it was taken in;
 *   - the function is walked until nothing rises (loop-carried values,
 *     uses before a later assignment); each walk reports speculatively
 *     and is the last when it read nothing that changed after the read
 *     (uni_function), else its report is taken back.
 * Functions are analysed callees first (Program order), each leaving a
 * summary (FnSum) for its callers: its result's level, whether it reaches
 * a barrier, the parameters its `+` forms and barriers need uniform.  A
 * function whose walk nobody reads - no barrier, `+` form or capture in it
 * or its callees, no opt-in check, no walked caller, no --dump - is not
 * walked at all (uni_plan). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

/* ---- builtins ---- */

CallInfo uni_call_info(const Analysis *an, const Node *e) {
    CallInfo c;
    memset(&c, 0, sizeof c);
    c.lv = L_VARYING;
    if (!e || e->kind != N_C_CALL) return c;
    c.is_call = 1;
    int64_t dim = e->nkids && e->kids[0]->kind == N_C_INTLIT ? e->kids[0]->ival : 0;
    switch (e->op) {
    case BI_CALL: c.user = 1; return c;
    case BI_LOCAL_ID: c.thread_id = 1; c.dim = (int)dim; c.name = "get-local-id"; return c;
    case BI_GLOBAL_ID_ABS: c.thread_id = c.global = 1; c.dim = (int)dim; c.name = "get-global-id-abs"; return c;
    case BI_GROUP_ID: c.lv = L_UNIFORM; c.name = "get-workgroup-id"; return c;
    case BI_NUM_GROUPS: case BI_GLOBAL_SIZE: case BI_LOCAL_SIZE: case BI_GLOBAL_OFFSET: case BI_WORK_DIM:
        c.lv = L_UNIFORM;
        c.name = builtin_op_name(e->op);
        return c;
    case BI_ATOMIC_ADD: case BI_ATOMIC_SUB: case BI_ATOMIC_INC: case BI_ATOMIC_DEC: case BI_ATOMIC_MIN:
    case BI_ATOMIC_MAX: case BI_ATOMIC_XCHG: case BI_ATOMIC_AND: case BI_ATOMIC_OR: case BI_ATOMIC_XOR:
        c.atomic = 1;
        c.name = builtin_op_name(e->op);
        return c;
    case BI_HELPER: {
        const Helper *h = e->ival >= 0 && e->ival < an->p->nhelpers ? an->p->helpers[e->ival] : NULL;
        if (!h) return c;
        switch (h->kind) {
        case H_GLOBAL_ID: c.thread_id = c.global = 1; c.dim = (int)dim; c.name = "get-global-id"; return c;
        case H_GLOBAL_LINEAR_ID: c.thread_id = c.global = c.linear = 1; c.name = "get-global-linear-id"; return c;
        case H_LOCAL_LINEAR_ID: c.thread_id = c.linear = 1; c.name = "get-local-linear-id"; return c;
        case H_GLOBAL_LINEAR_SIZE: c.lv = L_UNIFORM; c.name = "get-global-linear-size"; return c;
        case H_LOCAL_LINEAR_SIZE: c.lv = L_UNIFORM; c.name = "get-local-linear-size"; return c;
        case H_DEVICE_HAS: c.lv = L_UNIFORM; c.name = "device-has"; return c;
        case H_ATOMIC_RMW: case H_ATOMIC_LOAD: case H_ATOMIC_STORE: c.atomic = 1; return c;
        default: c.pure = 1; return c;
        }
    }
    default:
        /* the math builtins: as uniform as their arguments; a builtin the
           analysis does not know that takes no argument may be an id */
        if (e->op > BI_HELPER && e->op <= BI_ATAN2) c.pure = 1;
        else c.pure = e->nkids > 0;
        return c;
    }
}

FnSum *uni_sum_of_call(Analysis *an, const Node *call) {
    FnSum *g = call && call->kind == N_C_CALL && call->op == BI_CALL && call->text ? ptrmap_get(&an->sums, call->text) : NULL;
    /* a function uni_plan left out, read by the walk of a later one: its
       walk now, before the read (its callees come before it in turn; the
       nesting is at most the call chain's depth, which the checker caps at
       256) */
    if (g && an->pending) {
        int i = (int)(g - an->sumv);
        if (i >= 0 && i < an->cur && an->pending[i]) uni_function(an, g);
    }
    return g;
}

/* ---- variables ---- */

/* A variable's VarInfo, for the walk's own updates (not a read): found
 * by a scan of f->vlist while there are few (most functions have one to
 * four, and the hash table was most of their cost, issue 14), in f->vars
 * past VAR_SCAN. */
#define VAR_SCAN 8
static VarInfo *var_find(Fn *f, const Sym *s) {
    if (!s) return NULL;
    if (f->nv > VAR_SCAN) return ptrmap_get(&f->vars, s);
    for (int i = 0; i < f->nv; i++)
        if (f->vlist[i]->sym == s) return f->vlist[i];
    return NULL;
}

/* A read of what the walk knows about `s`: stamped with the walk, so that
   a later change in the same walk makes it stale (uni_function); a read
   of a variable without a VarInfo is remembered, as a later VarInfo would
   change what it read (a parameter's is stale when made, see new_var). */
static inline VarInfo *var_read(Fn *f, const Sym *s) {
    if (!s || (s->kind == SYM_PARAM && !f->nparamvars)) return NULL;
    VarInfo *v = var_find(f, s);
    if (v) {
        v->read = f->walk;
    } else if (s->kind != SYM_PARAM) {
        if (f->nmiss < 16) f->miss[f->nmiss] = s;
        f->nmiss++;
    }
    return v;
}

VarInfo *uni_var(Fn *f, const Sym *s) {
    return var_read(f, s);
}

static VarInfo *new_var(Fn *f, const Sym *s) {
    VarInfo *v = var_find(f, s);
    if (v) {
        if (v->depth != f->depth) f->stale = 1; /* assignments read the depth */
        v->depth = f->depth;
        return v;
    }
    if (s->kind == SYM_PARAM) {
        f->stale = 1; /* its reads took the parameter's level */
        f->nparamvars++;
    }
    for (int i = 0; i < f->nmiss && !f->stale; i++)
        if (i == 16 || f->miss[i] == s) f->stale = 1;
    v = arena_alloc(f->tmp, sizeof *v);
    if (!v) return NULL;
    memset(v, 0, sizeof *v);
    v->sym = s;
    v->depth = f->depth;
    int nv = f->nv;
    arena_push(f->tmp, (void ***)&f->vlist, &f->nv, &f->capv, v);
    if (f->nv == nv) return NULL; /* out of memory */
    /* past the scan: every variable in the table */
    for (int i = f->nv == VAR_SCAN + 1 ? 0 : f->nv > VAR_SCAN ? f->nv - 1 : f->nv; i < f->nv; i++)
        if (!ptrmap_put(f->tmp, &f->vars, f->vlist[i]->sym, f->vlist[i])) return NULL;
    return v;
}

static int param_index(const CFunc *fn, const Sym *s) {
    for (int i = 0; i < fn->nparams; i++)
        if (fn->params[i] == s) return i;
    return -1;
}

static Uni param_level(Fn *f, const Sym *s) {
    Uni u = uni(L_UNIFORM);
    if (f->fn->kind == FN_KERNEL) return u;
    int i = param_index(f->fn, s);
    if (i >= 0) u.pm = 1ULL << (i < 63 ? i : 63);
    return u;
}

static Uni var_level(Fn *f, const Sym *s, const Sym *as_uniform) {
    if (!s || s == as_uniform) return uni(L_CONST);
    /* a parameter has a VarInfo only once assigned */
    if (s->kind == SYM_PARAM && !f->nparamvars) return param_level(f, s);
    VarInfo *v = var_read(f, s);
    if (v) return v->u;
    if (s->kind == SYM_PARAM) return param_level(f, s);
    /* pointers (vectors, out-pointers) are the same in every work-item */
    if (s->ty && (s->ty->kind == TY_VECTOR || s->ty->kind == TY_VOIDP)) return uni(L_UNIFORM);
    if (s->kind == SYM_RETPTR || s->kind == SYM_CONSTVEC) return uni(L_UNIFORM);
    return uni(L_VARYING);
}

/* ---- levels of expressions ---- */

int uni_param_of_arg(const CFunc *g, int k) {
    int pos = 0;
    for (int i = 0; i < g->nparams; i++) {
        const Sym *p = g->params[i];
        int n = sym_ndims(p) ? 4
                : sym_rare(p)->soa_fields ? p->ty->elem->sd->nfields + 1
                : p->ty->kind == TY_VECTOR ? 2
                : p->ty->kind == TY_IDENT ? 0
                                           : 1;
        if (k < pos + n) return i;
        pos += n;
    }
    return -1;
}

/* The level of a call's result: a user function's summary applied to the
 * arguments, a builtin's own level, or the join of a pure call's. */
static Uni call_level(Fn *f, const Node *e, const Sym *as_uniform, const Uni *kl) {
    FnSum *g = uni_sum_of_call(f->an, e);
    if (g) {
        if (g == f->sum) f->self_call = 1;
        Uni r = {g->ret.lv, 0};
        for (int k = 0; k < e->nkids && g->ret.pm; k++) {
            int i = uni_param_of_arg(g->fn, k);
            if (i >= 0 && (g->ret.pm >> (i < 63 ? i : 63) & 1))
                r = uni_join(r, kl ? kl[k] : uni_peek(f, e->kids[k], as_uniform));
        }
        return r;
    }
    CallInfo ci = uni_call_info(f->an, e);
    if (!ci.pure) return uni(ci.lv);
    Uni r = uni(L_CONST);
    for (int k = 0; k < e->nkids; k++) r = uni_join(r, kl ? kl[k] : uni_peek(f, e->kids[k], as_uniform));
    return r;
}

static const Sym *vec_sym(const Node *v) {
    while (v && (v->kind == N_C_CAST || (v->kind == N_C_BINARY && v->op == OP_ADD))) v = v->kids[0];
    return v && v->kind == N_C_VAR ? v->sym : NULL;
}

/* Shared memory (local, or global that the kernel may write) read by
 * another work-item's store is not uniform; read-only and private memory
 * are as uniform as their index and contents. */
static Uni index_level(Fn *f, const Node *e, const Sym *as_uniform, const Uni *kl) {
    const Sym *v = vec_sym(e->kids[0]);
    const Type *t = v ? v->ty : e->kids[0]->ty;
    Uni idx = kl ? kl[1] : uni_peek(f, e->kids[1], as_uniform);
    if (!t || t->kind != TY_VECTOR) return uni(L_VARYING);
    if (t->as == AS_PRIVATE || t->as == AS_NONE) return uni_join(var_level(f, v, as_uniform), idx);
    if (t->as == AS_CONSTANT || t->acc == ACC_READ_ONLY) return uni_join(var_level(f, v, as_uniform), idx);
    return uni(L_VARYING);
}

static Uni length_level(Fn *f, const Sym *s) {
    if (!s) return uni(L_UNIFORM);
    if (sym_rare(s)->len_sym) return var_level(f, sym_rare(s)->len_sym, NULL);
    if (s->kind == SYM_PARAM) return param_level(f, s);
    if (!s->len_cname && s->ty && s->ty->length >= 0) return uni(L_CONST);
    return uni(L_UNIFORM);
}

Uni uni_peek(Fn *f, const Node *e, const Sym *as_uniform) {
    if (!e) return uni(L_CONST);
    switch (e->kind) {
    case N_C_INTLIT:
    case N_C_FLOATLIT:
    case N_C_BOOLLIT:
    case N_C_BLOCK:
    case N_C_BARRIER:
    case N_C_COMMENT: return uni(L_CONST);
    case N_C_VAR: return var_level(f, e->sym, as_uniform);
    case N_C_LENGTH: return length_level(f, e->sym);
    case N_C_INDEX: return index_level(f, e, as_uniform, NULL);
    case N_C_CALL: return call_level(f, e, as_uniform, NULL);
    case N_C_ATOMIC: return uni(L_VARYING);
    case N_C_WARP: /* docs/warps.md: lanes vary, warp ids are per warp */
        switch (e->op) {
        case WARP_LANE_ID: return uni(L_VARYING);
        case WARP_ID: case WARP_LANES: case WARP_BALLOT: return uni(L_WARP); /* a ballot: the same in the warp */
        case WARP_NUM: case WARP_SYNC: return uni(L_UNIFORM);
        case WARP_SHUFFLE: /* from lane 0, which every warp has: a broadcast */
            return e->kids[1]->kind == N_C_INTLIT && e->kids[1]->ival == 0 ? uni(L_WARP) : uni(L_VARYING);
        default: return uni(L_VARYING);
        }
    case N_C_ASSIGN:
        if (e->op == OP_SET) return uni_peek(f, e->kids[1], as_uniform);
        return uni_join(uni_peek(f, e->kids[0], as_uniform), uni_peek(f, e->kids[1], as_uniform));
    case N_C_UNARY:
        if (e->op == OP_DEREF) return uni(L_VARYING);
        break;
    default: break;
    }
    Uni r = uni(L_CONST);
    for (int i = 0; i < e->nkids; i++) r = uni_join(r, uni_peek(f, e->kids[i], as_uniform));
    return r;
}

/* FnSum's req_*_at, made on first use: most functions need none (and
 * 64 pointers each per function was a large part of the memory, issue 14). */
static int need_at(Analysis *an, const Node ***at) {
    if (!*at) *at = arena_alloc(an->a, sizeof(const Node *) * 64);
    return *at != NULL;
}

static const Node *at_of(const Node **at, int i) {
    return at ? at[i] : NULL;
}

/* ---- control ---- */

/* The conditions from control depth `from` up, and the divergent exits. */
static Uni ctl_from(Fn *f, int from, int with_exit) {
    Uni c = with_exit ? f->exit : uni(L_CONST);
    for (int i = from; i < f->depth; i++) c = uni_join(c, f->stack[i].u);
    return c;
}

static int push(Fn *f, Ctl c) {
    if (f->depth == f->capdepth) {
        int nc = f->capdepth ? f->capdepth * 2 : 4;
        Ctl *s = arena_alloc(f->tmp, sizeof(Ctl) * (size_t)nc);
        if (!s) return 0;
        if (f->depth) memcpy(s, f->stack, sizeof(Ctl) * (size_t)f->depth);
        f->stack = s;
        f->capdepth = nc;
    }
    f->stack[f->depth++] = c;
    return 1;
}

static void rise(Fn *f, VarInfo *v, Uni u, const Node *why, int branch) {
    if (u.lv <= v->u.lv && !(u.pm & ~v->u.pm)) return;
    if (v->read == f->walk) f->stale = 1;
    if (u.lv > L_UNIFORM && v->u.lv <= L_UNIFORM) {
        v->why = why;
        v->why_branch = branch;
    }
    v->u = uni_join(v->u, u);
    f->changes++;
}

/* rise(v, u) with the culprit in `value` as the reason, sought only when
 * rise keeps it: the variable stops being uniform here (issue 14: sought
 * at every declaration and assignment, it was a fiftieth of the
 * compilation); `fallback` when there is none.  `level`: value's level
 * when the caller knows it (see ev_known), else NULL. */
static void rise_from(Fn *f, VarInfo *v, Uni u, const Node *value, const Node *fallback, const Uni *level) {
    const Node *why = NULL;
    if (u.lv > L_UNIFORM && v->u.lv <= L_UNIFORM) why = level ? ex_culprit_at(f, value, NULL, *level) : ex_culprit(f, value, NULL);
    rise(f, v, u, why ? why : fallback, 0);
}

static void assign_var(Fn *f, const Sym *s, Uni u, const Node *src) {
    if (!s) return;
    if (s->kind == SYM_RETPTR) {
        Uni r = uni_join(u, ctl_from(f, 0, 0));
        if (r.lv > f->sum->ret.lv || (r.pm & ~f->sum->ret.pm)) {
            f->sum->ret = uni_join(f->sum->ret, r);
            f->changes++;
        }
        return;
    }
    VarInfo *v = var_find(f, s);
    if (!v) {
        /* a parameter, or a variable declared where the walk does not see */
        int d = f->depth;
        f->depth = 0;
        v = new_var(f, s);
        f->depth = d;
        if (!v) return;
        v->u = s->kind == SYM_PARAM ? param_level(f, s) : uni(L_VARYING);
    }
    if (!v->nassign && v->read == f->walk) f->stale = 1; /* the proofs read it */
    v->nassign++;
    Uni c = ctl_from(f, v->depth, 0);
    if (!uni_ok(c) && uni_ok(u)) {
        /* the innermost condition that is not uniform */
        const Node *cond = NULL;
        for (int i = f->depth - 1; i >= v->depth && !cond; i--)
            if (!uni_ok(f->stack[i].u)) cond = f->stack[i].cond ? f->stack[i].cond : f->stack[i].at;
        rise(f, v, uni_join(u, c), cond, 1);
    } else {
        rise_from(f, v, uni_join(u, c), src, src, NULL);
    }
}


/* Assign U to PLACE (a variable, a private array element, a component). */
static void assign_place(Fn *f, const Node *place, Uni u, const Node *src) {
    if (!place) return;
    switch (place->kind) {
    case N_C_VAR: assign_var(f, place->sym, u, src); return;
    case N_C_INDEX: {
        const Sym *v = vec_sym(place->kids[0]);
        if (v && v->ty && v->ty->kind == TY_VECTOR && (v->ty->as == AS_PRIVATE || v->ty->as == AS_NONE))
            assign_var(f, v, uni_join(u, uni_peek(f, place->kids[1], NULL)), src);
        return;
    }
    case N_C_SWIZZLE:
    case N_C_MEMBER:
    case N_C_CAST: assign_place(f, place->kids[0], uni_join(u, uni_peek(f, place->kids[0], NULL)), src); return;
    default: return;
    }
}

/* May the walk give a diagnostic now?  Not a speculative one (see
 * uni_function): it notes that the report needs a walk of its own. */
static int may_report(Fn *f) {
    if (!f->spec) return 1;
    f->spec_fail = 1;
    return 0;
}

/* ---- barriers ---- */

static const char *barrier_what(Fn *f, const Node *at, const FnSum *callee) {
    Arena *a = f->an->a;
    if (callee)
        return arena_printf(a, "this call of `%s`, which reaches a local-barrier,", callee->fn->name);
    if (f->capture) {
        const Expansion *x = f->capture->origin;
        while (x && x->parent) x = x->parent;
        if (f->capture_star && x) return arena_printf(a, "`%s` (it shares its value through a local-barrier)", x->macro);
        return arena_printf(a, "(uniform %s) (it shares the value through a local-barrier)", f->capture->sym ? f->capture->sym->name : "...");
    }
    (void)at;
    return "local-barrier";
}

/* A barrier (or a call reaching one, or a uniform capture) at `at`. */
static void barrier(Fn *f, const Node *at, const FnSum *callee) {
    FnSum *s = f->sum;
    if (!s->has_barrier) {
        s->has_barrier = 1;
        s->barrier_at = callee && callee->barrier_at ? callee->barrier_at : at;
        f->changes++;
    }
    if (!f->report) return;
    Uni c = ctl_from(f, 0, 1);
    if (f->an->dump && !f->capture)
        sb_printf(&s->dump, "  barrier %d:%d: reached %s\n", at->loc.line, at->loc.col,
                  uni_ok(c) ? (c.pm ? "uniformly if the parameters are uniform" : "uniformly") : "under divergent control");
    if (uni_ok(c)) {
        for (int i = 0; i < 64; i++)
            if ((c.pm >> i & 1) && !(s->req_barrier >> i & 1)) {
                s->req_barrier |= 1ULL << i;
                if (need_at(f->an, &s->req_barrier_at)) s->req_barrier_at[i] = at;
            }
        return;
    }
    /* the outermost condition that is not uniform, preferring a proven one */
    const Ctl *culprit = NULL;
    int proven = 0;
    for (int i = 0; i < f->depth; i++) {
        const Ctl *k = &f->stack[i];
        if (uni_ok(k->u)) continue;
        if (!culprit || (k->proven && !proven)) culprit = k;
        proven |= k->proven;
    }
    int exit_first = !culprit || (f->exit_proven && !proven);
    proven |= f->exit_proven && !uni_ok(f->exit);
    if (!proven && !(s->checks & CK_BARRIERS)) return;
    if (!may_report(f)) return;
    const char *what = barrier_what(f, at, callee);
    Diag *d = f->an->d;
    if (proven) {
        diag_error_at(d, at, "E1112",
                      "%s is reached by only some work-items of the workgroup: the others never arrive, and the workgroup deadlocks",
                      what);
    } else if (s->checks & CK_BARRIERS) {
        diag_warning_at(d, at, "W1101", "%s may be reached by only some work-items of the workgroup, which deadlocks it (check-barriers)",
                        what);
    } else {
        return;
    }
    if (exit_first && f->exit_at) {
        diag_note(d, f->exit_at->loc, "some work-items may have left through this `return`, taken under a condition that is not uniform");
        return;
    }
    const Node *cond = culprit->cond ? culprit->cond : culprit->at;
    if (culprit->proven)
        diag_note(d, ex_site(cond, culprit->at)->loc, "this condition compares %s with a value: it holds for only some work-items",
                  ex_describe(f, ex_culprit(f, cond, NULL)));
    else {
        const Node *why = ex_culprit(f, cond, NULL);
        diag_note(d, ex_site(cond, culprit->at)->loc, "the %s here depends on %s, which is not the same for every work-item",
                  culprit->is_loop ? "loop test" : "condition", ex_describe(f, why));
        ex_notes(f, why);
    }
    if (callee && callee->barrier_at) diag_note(d, callee->barrier_at->loc, "the barrier `%s` reaches is here", callee->fn->name);
}

/* ---- proofs of divergence ---- */

/* Is `e` a work-item id (or an id plus a uniform value) that differs
 * within the workgroup (local size above 1 in its dimension)? */
static int thread_id(Fn *f, const Node *e, int depth) {
    if (!e || depth > 16) return 0;
    e = strip_casts(e);
    if (e->kind == N_C_CALL) {
        CallInfo id = uni_call_info(f->an, e);
        if (!id.thread_id) return 0;
        const SizeDecl *ls = &cfunc_rare(f->fn)->lsize, *gs = cfunc_gsize(f->fn);
        int kernel = f->fn->kind == FN_KERNEL;
        if (kernel && ls->present && ls->nset) {
            /* the declared local size: a dimension of 1 (or beyond the
               declared ones) does not split */
            int64_t n = 1;
            for (int i = 0; i < ls->nset; i++) n *= ls->set_to[i];
            if (id.linear) return n > 1;
            return id.dim >= 0 && id.dim < ls->nset && ls->set_to[id.dim] > 1;
        }
        /* dimension 0 always exists; another only when the kernel says so
           (a 1-D launch has one work-item along y and z) */
        if (id.linear || id.dim == 0) return 1;
        int dims = kernel ? (gs->dims > ls->dims ? gs->dims : ls->dims) : 0;
        return id.dim > 0 && id.dim < dims;
    }
    if (e->kind == N_C_VAR) {
        VarInfo *v = uni_var(f, e->sym);
        return v && v->init && !v->nassign && thread_id(f, v->init, depth + 1);
    }
    if (e->kind == N_C_BINARY && (e->op == OP_ADD || e->op == OP_SUB))
        return (thread_id(f, e->kids[0], depth + 1) && uni_ok(uni_peek(f, e->kids[1], NULL))) ||
               (e->op == OP_ADD && thread_id(f, e->kids[1], depth + 1) && uni_ok(uni_peek(f, e->kids[0], NULL)));
    return 0;
}

/* Does condition `c` certainly split the workgroup: (= id u), (/= id u),
 * their negation, or a conjunction of id equalities (when-thread-is x y)? */
static int proven_split(Fn *f, const Node *c, int depth) {
    if (!c || depth > 16) return 0;
    c = strip_casts(c);
    if (c->kind == N_C_UNARY && c->op == OP_NOT) return proven_split(f, c->kids[0], depth + 1);
    if (c->kind == N_C_VAR) {
        VarInfo *v = uni_var(f, c->sym);
        return v && v->init && !v->nassign && proven_split(f, v->init, depth + 1);
    }
    if (c->kind != N_C_BINARY) return 0;
    if (c->op == OP_EQ || c->op == OP_NE)
        return (thread_id(f, c->kids[0], 0) && uni_ok(uni_peek(f, c->kids[1], NULL))) ||
               (thread_id(f, c->kids[1], 0) && uni_ok(uni_peek(f, c->kids[0], NULL)));
    if (c->op == OP_AND) {
        const Node *a = c->kids[0], *b = c->kids[1];
        return a->kind == N_C_BINARY && a->op == OP_EQ && b->kind == N_C_BINARY && b->op == OP_EQ &&
               proven_split(f, a, depth + 1) && proven_split(f, b, depth + 1);
    }
    return 0;
}

/* ---- bounds guards ---- */

/* Is `e` the work-item's position in the grid: a global id, plus or minus
 * uniform values, or a grid-stride index starting at one? */
static int global_position(Fn *f, const Node *e, int depth) {
    if (!e || depth > 16) return 0;
    e = strip_casts(e);
    if (e->kind == N_C_CALL) return uni_call_info(f->an, e).global;
    if (e->kind == N_C_VAR) {
        VarInfo *v = uni_var(f, e->sym);
        if (!v) return 0;
        if (v->loop) {
            const Node *st = v->loop->kids[2];
            return st->kind == N_C_BINARY && st->op == OP_ADD && st->kids[0]->kind == N_C_VAR && st->kids[0]->sym == e->sym &&
                   uni_ok(uni_peek(f, st->kids[1], e->sym)) && global_position(f, v->loop->kids[0], depth + 1);
        }
        return v->init && !v->nassign && global_position(f, v->init, depth + 1);
    }
    if (e->kind == N_C_BINARY && (e->op == OP_ADD || e->op == OP_SUB))
        return (global_position(f, e->kids[0], depth + 1) && uni_ok(uni_peek(f, e->kids[1], NULL))) ||
               (e->op == OP_ADD && global_position(f, e->kids[1], depth + 1) && uni_ok(uni_peek(f, e->kids[0], NULL)));
    return 0;
}

/* A bounds guard - a global position compared with a uniform bound, or
 * such guards joined with and/or - is false for a suffix of the grid's
 * work-items, so it splits at most the one warp that straddles the bound:
 * check-divergence does not report it. */
static int bounds_guard(Fn *f, const Node *c, int depth) {
    if (!c || depth > 16) return 0;
    c = strip_casts(c);
    if (c->kind == N_C_VAR) {
        VarInfo *v = uni_var(f, c->sym);
        return v && v->init && !v->nassign && bounds_guard(f, v->init, depth + 1);
    }
    if (c->kind != N_C_BINARY) return 0;
    const Node *a = c->kids[0], *b = c->kids[1];
    if (c->op == OP_AND || c->op == OP_OR)
        return (uni_ok(uni_peek(f, a, NULL)) || bounds_guard(f, a, depth + 1)) &&
               (uni_ok(uni_peek(f, b, NULL)) || bounds_guard(f, b, depth + 1));
    if (c->op == OP_LT || c->op == OP_LE || c->op == OP_GT || c->op == OP_GE)
        return (global_position(f, a, 0) && uni_ok(uni_peek(f, b, NULL))) ||
               (global_position(f, b, 0) && uni_ok(uni_peek(f, a, NULL)));
    return 0;
}

/* ---- the `+` forms ---- */

static void need_uniform(Fn *f, const Node *part, const Sym *as_uniform, const char *what) {
    Uni u = uni_peek(f, part, as_uniform);
    const char *who = f->mark->text;
    if (uni_ok(u)) {
        for (int i = 0; i < 64; i++)
            if ((u.pm >> i & 1) && !(f->sum->req_plus >> i & 1)) {
                f->sum->req_plus |= 1ULL << i;
                if (need_at(f->an, &f->sum->req_plus_at)) f->sum->req_plus_at[i] = f->mark;
            }
        return;
    }
    if (!may_report(f)) return;
    const Node *c = ex_culprit(f, part, as_uniform);
    diag_error_at(f->an->d, ex_site(c, f->mark), "E1110",
                  "`%s` needs %s that is the same for every work-item of the workgroup, but %s %s",
                  who, what, ex_describe(f, c),
                  u.lv == L_WARP ? "differs between warps" : "differs between work-items");
    ex_notes(f, c);
    const char *star = arena_printf(f->an->a, "%.*s*", (int)strlen(who) - 1, who);
    diag_note(f->an->d, f->mark->loc, "`%s` makes the value uniform for you (one work-item computes it for the workgroup)", star);
}

static void check_plus_if(Fn *f, const Node *ifn) {
    need_uniform(f, ifn->kids[0], NULL, "a condition");
}

static void check_plus_loop(Fn *f, const Node *loop) {
    const Sym *i = loop->sym;
    int errs = f->an->d->errors;
    need_uniform(f, loop->kids[0], NULL, "a start");
    if (f->an->d->errors == errs) need_uniform(f, loop->kids[1], i, "a bound");
    if (f->an->d->errors == errs) need_uniform(f, loop->kids[2], i, "a step");
}

/* ---- calls ---- */

static void call_effects(Fn *f, Node *call, FnSum *g) {
    if (g == f->sum) f->self_call = 1;
    /* extra values come back through &tmp arguments */
    for (int k = 0; k < call->nkids; k++) {
        Node *a = call->kids[k];
        if (a->kind == N_C_UNARY && a->op == OP_ADDR && a->kids[0]->kind == N_C_VAR && uni_param_of_arg(g->fn, k) < 0)
            assign_var(f, a->kids[0]->sym, call_level(f, call, NULL, NULL), call);
    }
    if (g->has_barrier) barrier(f, call, g);
    if (!f->report || !(g->req_plus | g->req_barrier)) return;
    for (int k = 0; k < call->nkids; k++) {
        int i = uni_param_of_arg(g->fn, k);
        if (i < 0) continue;
        int bit = i < 63 ? i : 63;
        int plus = g->req_plus >> bit & 1, bar = g->req_barrier >> bit & 1;
        if (!plus && !bar) continue;
        Uni u = uni_peek(f, call->kids[k], NULL);
        if (uni_ok(u)) {
            for (int j = 0; j < 64; j++) {
                if (!(u.pm >> j & 1)) continue;
                if (plus && !(f->sum->req_plus >> j & 1)) {
                    f->sum->req_plus |= 1ULL << j;
                    if (need_at(f->an, &f->sum->req_plus_at)) f->sum->req_plus_at[j] = at_of(g->req_plus_at, bit);
                }
                if (bar && !(f->sum->req_barrier >> j & 1)) {
                    f->sum->req_barrier |= 1ULL << j;
                    if (need_at(f->an, &f->sum->req_barrier_at)) f->sum->req_barrier_at[j] = at_of(g->req_barrier_at, bit);
                }
            }
            continue;
        }
        if (!plus && !(f->sum->checks & CK_BARRIERS)) continue;
        if (!may_report(f)) continue;
        const Node *c = ex_culprit(f, call->kids[k], NULL);
        const char *pname = g->fn->params[i]->name;
        if (plus) {
            const Node *at = at_of(g->req_plus_at, bit);
            diag_error_at(f->an->d, ex_site(c, call), "E1111",
                          "`%s` needs its parameter `%s` to be the same for every work-item of the workgroup, but %s %s",
                          g->fn->name, pname, ex_describe(f, c), u.lv == L_WARP ? "differs between warps" : "differs between work-items");
            ex_notes(f, c);
            if (at) diag_note(f->an->d, at->loc, "`%s` needs it here", at->text ? at->text : "this form");
        } else if (f->sum->checks & CK_BARRIERS) {
            const Node *at = at_of(g->req_barrier_at, bit);
            diag_warning_at(f->an->d, ex_site(c, call), "W1101",
                            "`%s` reaches a local-barrier under a condition on its parameter `%s`, and %s is not the same for every work-item, which may deadlock the workgroup (check-barriers)",
                            g->fn->name, pname, ex_describe(f, c));
            ex_notes(f, c);
            if (at) diag_note(f->an->d, at->loc, "the barrier is here");
        }
    }
}

/* ---- the walk ---- */

/* The level of `e` (uni_peek's answer once its effects are in), after
 * walking it for its effects: assignments, calls' effects, barriers.  A
 * node's level is made from its kids' levels as ev returned them when
 * nothing rose and no variable was first met meanwhile (f->changes and
 * f->nv unchanged: then uni_peek would find the same levels), instead of
 * peeking into every subexpression again at every level (issue 14: that
 * made the walk quadratic in an expression's depth and a tenth of the
 * compilation's instructions).  An assignment's result is what it
 * assigns, from before its effect: its effect, if any, moved f->changes
 * or f->nv, so its parent peeks. */
#define EV_KIDS 8
static Uni ev_node(Fn *f, Node *e);

/* Leaves without effects answered here (uni_peek's answer), the rest by
 * ev_node: most nodes are leaves (issue 14). */
static inline Uni ev(Fn *f, Node *e) {
    if (e && !e->nkids) switch (e->kind) {
        case N_C_INTLIT: case N_C_FLOATLIT: case N_C_BOOLLIT: return uni(L_CONST);
        case N_C_VAR: return var_level(f, e->sym, NULL);
        default: break;
        }
    return ev_node(f, e);
}

static Uni ev_node(Fn *f, Node *e) {
    if (!e) return uni(L_CONST);
    switch (e->kind) {
    case N_C_ASSIGN: {
        Uni r = ev(f, e->kids[1]);
        /* the place's own operands (an index) */
        for (int i = 0; i < e->kids[0]->nkids; i++) ev(f, e->kids[0]->kids[i]);
        Uni v = e->op == OP_SET ? r : uni_join(r, uni_peek(f, e->kids[0], NULL));
        assign_place(f, e->kids[0], v, e->kids[1]);
        return v;
    }
    case N_C_CALL: {
        long changes = f->changes;
        int nv = f->nv;
        Uni kl[EV_KIDS];
        for (int i = 0; i < e->nkids; i++) {
            Uni u = ev(f, e->kids[i]);
            if (i < EV_KIDS) kl[i] = u;
        }
        FnSum *g = uni_sum_of_call(f->an, e);
        if (g) call_effects(f, e, g);
        if (e->nkids <= EV_KIDS && f->changes == changes && f->nv == nv) return call_level(f, e, NULL, kl);
        return uni_peek(f, e, NULL);
    }
    case N_C_BARRIER:
        if (is_barrier(e)) barrier(f, e, NULL);
        return uni(L_CONST);
    default: {
        long changes = f->changes;
        int nv = f->nv;
        Uni kl[EV_KIDS], r = uni(L_CONST);
        for (int i = 0; i < e->nkids; i++) {
            Uni u = ev(f, e->kids[i]);
            if (i < EV_KIDS) kl[i] = u;
            r = uni_join(r, u);
        }
        if (f->changes != changes || f->nv != nv) return uni_peek(f, e, NULL);
        switch (e->kind) { /* uni_peek's answer from the kids' levels */
        case N_C_INDEX: return e->nkids == 2 ? index_level(f, e, NULL, kl) : uni_peek(f, e, NULL);
        case N_C_UNARY: return e->op == OP_DEREF ? uni(L_VARYING) : r;
        case N_C_BINARY: case N_C_SWIZZLE: case N_C_MEMBER: case N_C_CAST: case N_C_SELECT: case N_C_HWVEC:
            return r;
        default: return uni_peek(f, e, NULL);
        }
    }
    }
}

static void walk(Fn *f, Node *s);

/* ev(e), and whether its answer is uni_peek's also after what the caller
 * does next, a new_var and rise included: nothing rose and no variable was
 * first met or read before it had a VarInfo (then a VarInfo made next
 * changes no level e read).  *known is then the level. */
static Uni ev_known(Fn *f, Node *e, const Uni **known, Uni *store) {
    long changes = f->changes;
    int nv = f->nv, nmiss = f->nmiss;
    *store = ev(f, e);
    *known = f->changes == changes && f->nv == nv && f->nmiss == nmiss ? store : NULL;
    return *store;
}

static void walk_block(Fn *f, Node *b) {
    for (int i = 0; b && i < b->nkids; i++) walk(f, b->kids[i]);
}

static const char *level_text(Fn *f, Uni u) {
    static const char *const names[] = {"uniform", "uniform", "warp-uniform", "varying"};
    if (u.lv == L_UNIFORM && u.pm) {
        StrBuf b;
        sb_init(&b);
        sb_puts(&b, "uniform if");
        int first = 1;
        for (int i = 0; i < f->fn->nparams && i < 64; i++)
            if (u.pm >> i & 1) {
                sb_printf(&b, "%s %s", first ? "" : ",", f->fn->params[i]->name);
                first = 0;
            }
        sb_puts(&b, " uniform");
        const char *s = arena_strdup(f->an->a, sb_cstr(&b));
        sb_free(&b);
        return s;
    }
    return names[u.lv];
}

static void walk_decl(Fn *f, Node *s) {
    Sym *sym = s->sym;
    if (!sym) return;
    Uni u = uni(L_CONST), level;
    const Uni *known = NULL; /* the level of the value below, when known */
    VarInfo *v;
    if (sym->is_view && s->nkids == 2) {
        u = ev(f, s->kids[0]);
        Uni len = ev(f, s->kids[1]);
        if (sym_rare(sym)->len_sym && (v = new_var(f, sym_rare(sym)->len_sym))) rise(f, v, len, s->kids[1], 0);
    } else if (s->nkids >= 1 && s->kids[0]) {
        u = ev_known(f, s->kids[0], &known, &level);
    } else if (sym_rare(sym)->init) {
        u = ev_known(f, sym_rare(sym)->init, &known, &level);
        if (s->nkids) known = NULL; /* the culprit is sought in kids[0] */
    }
    if (!(v = new_var(f, sym))) return;
    if (s->nkids >= 1) v->init = s->kids[0];
    if (f->capture) {
        v->captured = 1;
        u = uni(L_UNIFORM);
    } else if (sym->wg_uniform && !uni_ok(u)) {
        /* the library's (declare (%workgroup-uniform V)): a value read from
           __local memory after a barrier, the same in every work-item (the
           grid scan's next ticket, when-is-last-workgroup's verdict) */
        u = uni(L_UNIFORM);
    }
    rise_from(f, v, u, s->nkids ? s->kids[0] : sym_rare(sym)->init, s, known);
    if (f->report && f->an->dump && !sym->is_temp && (sym->name[0] != '%' || v->captured)) {
        v->read = f->walk;
        sb_printf(&f->sum->dump, "  var %s %d:%d: %s%s\n", sym->name[0] == '%' ? sym->cname : sym->name, s->loc.line, s->loc.col,
                  level_text(f, v->u), v->captured ? " (shared by work-item 0)" : "");
    }
}

static void walk_if(Fn *f, Node *s) {
    Uni c = ev(f, s->kids[0]);
    if (s->text && !strncmp(s->text, "single-task", 11)) c = uni(L_CONST); /* the kernel runs as one work-item */
    if (f->mark) {
        if (f->report) check_plus_if(f, s);
        f->mark = NULL;
    }
    Ctl k = {c, s, s->kids[0], !f->capture && !uni_ok(c) && proven_split(f, s->kids[0], 0), 0};
    if (!push(f, k)) return;
    walk_block(f, s->kids[1]);
    walk_block(f, s->nkids > 2 ? s->kids[2] : NULL);
    f->depth--;
    if (!f->report) return;
    if (f->an->dump && !f->capture)
        sb_printf(&f->sum->dump, "  if %d:%d: %s%s\n", s->loc.line, s->loc.col, level_text(f, c), k.proven ? " (splits the workgroup)" : "");
    if ((f->sum->checks & CK_DIVERGENCE) && !f->capture && c.lv == L_VARYING && !bounds_guard(f, s->kids[0], 0)) {
        if (!may_report(f)) return;
        f->sum->ndivergent++;
        const Node *why = ex_culprit(f, s->kids[0], NULL);
        diag_warning_at(f->an->d, s, "W1102", "this branch splits the warp: its condition depends on %s, which differs between work-items (check-divergence)",
                        ex_describe(f, why));
        ex_notes(f, why);
    }
}

typedef struct LoopInfo {
    Uni brk;               /* conditions of the breaks out of it */
    Uni exit_back;         /* returns taken in its body: the next iteration
                              runs only in the work-items left */
    const Node *exit_at;
    int exit_proven;
} LoopInfo;

/* A loop is walked once per pass of the function: what its body raises
 * (loop-carried values, breaks, returns) reaches its next iteration in the
 * next pass, which the function's fixpoint makes. */
static void walk_for(Fn *f, Node *s) {
    const Uni *known;
    Uni level, ui = ev_known(f, s->kids[0], &known, &level);
    LoopInfo *li = ptrmap_get(&f->vars, s);
    if (!li) {
        li = arena_alloc(f->tmp, sizeof *li);
        if (!li || !ptrmap_put(f->tmp, &f->vars, s, li)) return;
        li->brk = uni(L_CONST);
        li->exit_back = uni(L_CONST);
    }
    const Node *mark = f->mark;
    f->mark = NULL;
    Ctl k = {uni(L_CONST), s, s->kids[1], 0, 1};
    if (!push(f, k)) return;
    int at = f->depth - 1;
    VarInfo *v = new_var(f, s->sym); /* declared inside the loop's control */
    if (!v) return;
    v->loop = s;
    rise_from(f, v, ui, s->kids[0], s->kids[0], known);
    if (!uni_ok(li->exit_back)) {
        if (uni_ok(f->exit)) f->exit_at = li->exit_at;
        f->exit = uni_join(f->exit, li->exit_back);
        f->exit_proven |= li->exit_proven;
    }
    Uni t = ev(f, s->kids[1]);
    f->stack[at].u = uni_join(t, li->brk);
    walk_block(f, s->kids[3]);
    Uni st = ev_known(f, s->kids[2], &known, &level);
    rise_from(f, v, st, s->kids[2], s->kids[2], known);
    if (f->exit.lv > li->exit_back.lv || (f->exit.pm & ~li->exit_back.pm) || (f->exit_proven && !li->exit_proven)) {
        if (uni_ok(li->exit_back)) li->exit_at = f->exit_at;
        li->exit_back = uni_join(li->exit_back, f->exit);
        li->exit_proven |= f->exit_proven;
        f->changes++;
        f->stale = 1; /* read at the loop's start */
    }
    f->depth = at;
    if (!f->report) return;
    if (mark) {
        const Node *saved = f->mark;
        f->mark = mark;
        check_plus_loop(f, s);
        f->mark = saved;
    }
    Uni bound = uni_join(uni_peek(f, s->kids[1], s->sym), uni_peek(f, s->kids[2], s->sym));
    v->read = f->walk;
    if (f->an->dump)
        sb_printf(&f->sum->dump, "  loop %s %d:%d: index %s, trip count %s\n", s->sym ? s->sym->name : "?", s->loc.line, s->loc.col,
                  level_text(f, v->u), level_text(f, uni_join(bound, ui)));
    if ((f->sum->checks & CK_DIVERGENCE) && !f->capture && bound.lv == L_VARYING) {
        if (!may_report(f)) return;
        f->sum->ndivergent++;
        const Node *c = ex_culprit(f, uni_ok(uni_peek(f, s->kids[1], s->sym)) ? s->kids[2] : s->kids[1], s->sym);
        diag_warning_at(f->an->d, s, "W1102",
                        "this loop splits the warp: how often it runs depends on %s, which differs between work-items (check-divergence)",
                        ex_describe(f, c));
        ex_notes(f, c);
    }
}

/* A `*` capture whose value is uniform already: one statement assigns the
 * slot, and the value has no effects. */
static int has_effects(const Node *n) {
    if (!n) return 0;
    if (n->kind == N_C_CALL || n->kind == N_C_ASSIGN || n->kind == N_C_ATOMIC || n->kind == N_C_BARRIER) return 1;
    for (int i = 0; i < n->nkids; i++)
        if (has_effects(n->kids[i])) return 1;
    return 0;
}

/* Is `*` capture S (DECL its variable) needless: a kernel's, whose one
 * statement stores a uniform value without effects?  Its shape:
 * [comment, if (first) { slot[0] = v; }, barrier, T x = slot[0], (barrier)] */
static int needless_capture(Fn *f, Node *s, const Node *decl) {
    if (s->text[7] != '*' || f->fn->kind != FN_KERNEL) return 0;
    if (s->nkids < 4 || s->kids[1]->kind != N_C_IF || !decl) return 0;
    Node *then_b = s->kids[1]->kids[1];
    if (!then_b || then_b->nkids != 1 || then_b->kids[0]->kind != N_C_EXPR) return 0;
    Node *store = then_b->kids[0]->kids[0];
    if (store->kind != N_C_ASSIGN || store->kids[0]->kind != N_C_INDEX) return 0;
    Node *v = store->kids[1];
    Uni u = uni_peek(f, v, NULL);
    return uni_ok(u) && !u.pm && !has_effects(v);
}

static void walk_mark(Fn *f, Node *s) {
    int capture = syn_streq(s->text, "uniform") || syn_streq(s->text, "uniform*");
    if (!capture) {
        /* a `+` form: its first if or loop is judged */
        const Node *saved = f->mark;
        f->mark = s;
        walk_block(f, s);
        f->mark = saved;
        return;
    }
    const Node *saved = f->capture;
    int saved_star = f->capture_star;
    /* the declaration: the variable's node (for messages) */
    const Node *decl = NULL;
    for (int i = 0; i < s->nkids && !decl; i++)
        if (s->kids[i]->kind == N_C_DECL) decl = s->kids[i];
    f->capture = decl ? decl : s;
    f->capture_star = s->text[7] == '*';
    walk_block(f, s);
    f->capture = saved;
    f->capture_star = saved_star;
    if (!f->report) return;
    int drop = needless_capture(f, s, decl);
    if (drop) arena_push(f->tmp, (void ***)&f->drop, &f->ndrop, &f->capdrop, s);
    if (f->an->dump && decl)
        sb_printf(&f->sum->dump, "  capture %d:%d: %s\n", s->loc.line, s->loc.col,
                  drop ? "dropped: the value is uniform already"
                  : uni_ok(ctl_from(f, 0, 1)) ? "work-item 0 shares it, barriers reached uniformly"
                                                : "work-item 0 shares it, barriers under divergent control");
}

/* Rewrite a needless capture into `T x = value;` and free its slot. */
static void drop_capture(Fn *f, Node *s) {
    Node *decl = NULL;
    for (int i = 0; i < s->nkids && !decl; i++)
        if (s->kids[i]->kind == N_C_DECL) decl = s->kids[i];
    Node *store = s->kids[1]->kids[1]->kids[0]->kids[0];
    const Sym *slot = vec_sym(store->kids[0]->kids[0]);
    decl->kids[0] = store->kids[1];
    Node *comment = s->kids[0]->kind == N_C_COMMENT ? s->kids[0] : NULL;
    s->nkids = 0;
    if (comment) {
        const char *colon = comment->text ? strchr(comment->text, ':') : NULL;
        int len = colon ? (int)(colon - comment->text) : 1;
        const char *tail = ": the value is uniform already, every work-item computes it";
        char *t = malloc((size_t)len + strlen(tail) + 1);
        if (t) {
            sprintf(t, "%.*s%s", len, colon ? comment->text : "*", tail);
            analysis_set_text(f->an, comment, t);
        }
        s->kids[s->nkids++] = comment;
    }
    s->kids[s->nkids++] = decl;
    CFunc *fn = f->fn;
    CFuncRare *r = fn->rare; /* the slot is one of its __local arrays */
    for (int i = 0; r && i < r->nlocal; i++)
        if (r->local_arrays[i] == slot) {
            memmove(r->local_arrays + i, r->local_arrays + i + 1, sizeof(Sym *) * (size_t)(r->nlocal - i - 1));
            r->nlocal--;
            break;
        }
}

static void walk(Fn *f, Node *s) {
    if (!s) return;
    switch (s->kind) {
    case N_C_BLOCK:
        if (s->text) walk_mark(f, s);
        else walk_block(f, s);
        return;
    case N_C_DECL: walk_decl(f, s); return;
    case N_C_IF: walk_if(f, s); return;
    case N_C_FOR: walk_for(f, s); return;
    case N_C_EXPR: ev(f, s->kids[0]); return;
    case N_C_RETURN: {
        Uni v = s->nkids ? ev(f, s->kids[0]) : uni(L_CONST);
        Uni c = ctl_from(f, 0, 1);
        Uni r = uni_join(v, c);
        if (r.lv > f->sum->ret.lv || (r.pm & ~f->sum->ret.pm)) {
            f->sum->ret = uni_join(f->sum->ret, r);
            f->changes++;
        }
        if (!uni_ok(c) && (c.lv > f->exit.lv || (c.pm & ~f->exit.pm))) {
            if (uni_ok(f->exit)) f->exit_at = s;
            f->exit = uni_join(f->exit, c);
            for (int i = 0; i < f->depth; i++) f->exit_proven |= f->stack[i].proven && !uni_ok(f->stack[i].u);
            f->changes++;
        }
        return;
    }
    case N_C_BARRIER: ev(f, s); return;
    case N_C_BREAK: {
        for (int i = f->depth - 1; i >= 0; i--)
            if (f->stack[i].is_loop) {
                Uni c = ctl_from(f, i + 1, 0);
                LoopInfo *li = ptrmap_get(&f->vars, f->stack[i].at);
                if (li && (c.lv > li->brk.lv || (c.pm & ~li->brk.pm))) {
                    li->brk = uni_join(li->brk, c);
                    f->stack[i].u = uni_join(f->stack[i].u, c);
                    f->changes++;
                    f->stale = 1; /* read at the loop's start */
                }
                break;
            }
        return;
    }
    case N_C_COMMENT: return;
    default: ev(f, s); return;
    }
}

/* One walk of the function's body. */
static void walk_fn(Fn *f) {
    FnSum *sum = f->sum;
    Uni ret = sum->ret;
    int has_barrier = sum->has_barrier;
    f->walk++;
    f->stale = f->spec_fail = f->self_call = 0;
    f->nmiss = 0;
    f->exit = uni(L_CONST);
    f->exit_at = NULL;
    f->exit_proven = 0;
    walk_block(f, f->fn->body);
    /* a call of the function itself read its summary */
    if (f->self_call && (ret.lv != sum->ret.lv || ret.pm != sum->ret.pm || has_barrier != sum->has_barrier)) f->stale = 1;
}

/* ---- which functions are walked ---- */

/* Which functions uni_function walks in Program order: 1 in walk[i] for
 * p->funcs[i].  A function's walk gives diagnostics, rewrites captures or
 * sets a summary field other than `ret` only when it has a barrier, a `+`
 * form or a capture, or calls a function that has (the summary's
 * has_barrier and req_* come from nothing else): the checker says so
 * (CFunc.analysis_sync), or when it elects an opt-in check or a register
 * budget, or under --dump=analysis.  Any other function's walk makes only
 * the level of its result, which only the walks of its callers read: it
 * is walked when one of them first reads it (uni_sum_of_call).  (issue
 * 14: most functions need no walk, and the walk of every function was a
 * tenth of the compilation's time, mostly cache misses on the checked
 * tree.)  NULL: walk every function. */
unsigned char *uni_plan(Analysis *an) {
    Program *p = an->p;
    if (an->dump) return NULL;
    unsigned char *walk = arena_alloc(&an->tmp, (size_t)p->nfuncs + 1);
    if (!walk) return NULL;
    for (int i = 0; i < p->nfuncs; i++) {
        const FnSum *s = &an->sumv[i];
        walk[i] = s->fn->analysis_sync || s->checks || s->max_regs || s->warn_regs;
    }
    return walk;
}

/* Analyse one function to its fixpoint, then report.  Each walk reports
 * as it goes, speculatively (f.spec: the dump's lines and the summary's
 * requirements are taken back, a diagnostic is not given): a walk that
 * read nothing that changed after the read (not stale: every level,
 * proof and loop exit it read was already the one it left) would be
 * repeated exactly by the next, which would change nothing, so its state
 * is the fixpoint and its report the report.  A stale walk's report is
 * taken back and the function walked again; a walk that met a diagnostic
 * is followed by a report walk, as are one that raised nothing (the
 * fixpoint as before) and the 256th.  (issue 14: the walks to
 * the fixpoint, then one more to see nothing rise, then the report's, were
 * three walks of most functions and a tenth of the compilation.) */
void uni_function(Analysis *an, FnSum *sum) {
    int cur = an->cur;
    an->cur = (int)(sum - an->sumv);
    if (an->pending) an->pending[an->cur] = 0;
    Fn f;
    memset(&f, 0, FN_CLEAR);
    f.an = an;
    f.tmp = &an->tmp;
    f.fn = sum->fn;
    f.sum = sum;
    f.stack = f.stack0;
    f.capdepth = 4;
    f.vlist = f.vlist0;
    f.capv = 4;
    ArenaMark tmp_mark = arena_scope_begin(f.tmp); /* the walk's own memory */
    int reported = 0;
    f.report = f.spec = 1;
    for (int pass = 0; pass < 256; pass++) {
        long before = f.changes;
        size_t dump_len = sum->dump.len;
        uint64_t req_plus = sum->req_plus, req_barrier = sum->req_barrier;
        int ndivergent = sum->ndivergent;
        f.ndrop = 0;
        walk_fn(&f);
        if (!f.stale && !f.spec_fail) {
            reported = 1;
            break;
        }
        sum->dump.len = dump_len;
        if (sum->dump.data) sum->dump.data[dump_len] = 0;
        sum->req_plus = req_plus;
        sum->req_barrier = req_barrier;
        sum->ndivergent = ndivergent;
        f.ndrop = 0;
        /* not stale: the fixpoint, which met a diagnostic; nothing rose:
           the fixpoint too (a walk can be stale without a rise: a variable
           declared at two depths) */
        if (!f.stale || (f.changes == before && pass > 0)) break;
    }
    if (!reported) {
        f.spec = 0;
        walk_fn(&f);
    }
    if ((sum->checks & CK_DIVERGENCE) && !sum->ndivergent)
        diag_note(an->d, f.fn->def->loc, "`%s`: no branch or loop splits a warp (check-divergence)", f.fn->name);
    if (sum->checks & (CK_COALESCE | CK_BANKS)) mem_check(&f);
    if (sum->max_regs || sum->warn_regs) sum->regs = opt_estimate_registers(&f);
    for (int i = 0; i < f.ndrop; i++) drop_capture(&f, f.drop[i]);
    if (an->dump) {
        sb_printf(&sum->dump, "  returns %s\n", level_text(&f, sum->ret));
        if (sum->has_barrier) sb_printf(&sum->dump, "  reaches a barrier\n");
        for (int i = 0; i < f.fn->nparams && i < 64; i++) {
            if (sum->req_plus >> i & 1) sb_printf(&sum->dump, "  needs %s uniform (a + form)\n", f.fn->params[i]->name);
            if (sum->req_barrier >> i & 1) sb_printf(&sum->dump, "  needs %s uniform (a barrier)\n", f.fn->params[i]->name);
        }
        if (f.ndrop) sb_printf(&sum->dump, "  %d capture%s dropped (uniform already)\n", f.ndrop, f.ndrop == 1 ? "" : "s");
    }
    arena_scope_end(f.tmp, tmp_mark);
    an->cur = cur;
}
