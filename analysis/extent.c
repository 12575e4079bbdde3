/* extent.c - bounds on the indexes a kernel uses into its vector parameters
 * (extent.h), so the hoists can check every caller's vectors first.
 *
 * An abstract interpretation over the checked tree.  Every integer
 * expression gets a Val: unknown, exactly `base + c`, or at most
 * `base + c`, where base is a size expression over the kernel's inputs
 * (types/sizeexpr.h), and "guards": expressions that must be positive for
 * the value to exist at all (inside `(when (< i n) ...)` n is at least 1).
 * Statements are walked in order with an environment of the variables that
 * are never assigned (so their initial value holds everywhere), loop
 * variables (bounded by their condition) and the narrowings of enclosing
 * conditions.  Calls to def-functions are followed with their parameters
 * bound to the caller's values, vectors to the caller's vectors.
 *
 * Every access `V[i]` to a caller's vector adds "V needs max(i) + 1
 * elements" (when the guards hold); the need of a vector is the maximum of
 * its accesses.  The launch sizes bound the id builtins (BUILTIN_OPS and
 * the helpers of check.h: get-global-id, get-local-id, ...).  Work is
 * capped, so a huge program ends as "unchecked", not slow. */
#include "extent.h"

#include "../core/ptrmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GUARDS 4
#define MAX_DEPTH 24            /* nested def-function calls followed */
#define MAX_WORK 400000         /* nodes visited per kernel */

typedef enum VKind { V_UNKNOWN, V_EXACT, V_MAX } VKind;

typedef struct Val {
    VKind kind;
    SizeExpr *base;             /* NULL: 0 */
    int64_t c;                  /* value (or maximum) = base + c */
    int sign;                   /* EXACT: a signed parameter, maybe negative */
    SizeExpr *guards[MAX_GUARDS];
    int nguards;
} Val;

/* A vector value: which kernel parameter it points into, and where. */
typedef struct Origin {
    int base;                   /* kernel parameter index; -1 not the caller's; -2 unknown */
    Val off;                    /* first element, in elements of the parameter */
    Val len;                    /* its length as the code sees it */
    int num, den;               /* a reinterpret-view: its elements are num/den of the
                                   parameter's (0: the same) */
    const Sym *cv;              /* not the caller's: a def-const-vec itself (W0703) */
} Origin;

/* A variable's value, or (sym NULL, expr set) a fact about an expression:
 * inside `(when (< (+ a b) n) ...)`, a + b is at most n - 1. */
typedef struct Binding {
    const Sym *sym;
    const Node *expr;
    int is_vec;
    Val val;                    /* scalars, facts */
    Origin vec;                 /* vectors */
} Binding;

typedef struct Frame {
    const CFunc *fn;
    PtrMap mutated;             /* syms assigned (or whose address is taken) in fn */
    int env_base;               /* first binding of this frame */
} Frame;

typedef struct Ex {
    Arena *a;
    const Program *p;
    const CFunc *kernel;
    Extent *out;                /* per kernel parameter */
    Val ***needs;               /* per parameter: the accesses' needs (elements) */
    int *nneeds, *capneeds;
    Binding *env;
    int nenv, capenv;
    Binding *scratch;           /* walk_function's argument bindings */
    int capscratch;
    Frame *frame;
    int depth;
    long work;
    int gave_up;
    int any_facts;              /* some Binding is a fact (val() looks them up) */
    Diag *diag;                 /* extent_constvec_check: where W0703 goes */
    PtrMap warned;              /* ... the const-vecs already reported */
    const Node *kernel_call;    /* the kernel's call being followed (depth > 0) */
} Ex;

/* ------------------------------------------------------------------ */
/* values                                                              */

static Val unknown(void) {
    Val v;
    memset(&v, 0, sizeof v);
    return v;
}

static Val exact(SizeExpr *base, int64_t c) {
    Val v = unknown();
    v.kind = V_EXACT;
    v.base = base;
    v.c = c;
    return v;
}

static Val at_most(SizeExpr *base, int64_t c) {
    Val v = exact(base, c);
    v.kind = V_MAX;
    return v;
}

/* Bounds are int64_t: a sum, difference or product that does not fit
 * (an index of 2^63 - 1 plus one) makes the value unknown, never wraps
 * (the overflow builtins, as types/sizeexpr.c uses them). */
static int c_add(int64_t a, int64_t b, int64_t *r) {
    return !__builtin_add_overflow(a, b, r);
}

/* V's constant part plus D; on overflow V becomes unknown (returns 0). */
static int shift(Val *v, int64_t d) {
    if (v->kind == V_UNKNOWN) return 1;
    if (c_add(v->c, d, &v->c)) return 1;
    *v = unknown();
    return 0;
}

static int is_const(const Val *v) {
    return v->kind == V_EXACT && !v->base;
}

/* base + c as a tree (c < 0: base minus -c, never below 0). */
static SizeExpr *to_expr(Ex *x, const Val *v) {
    if (!v->base) return sz_int(x->a, v->c > 0 ? v->c : 0);
    if (v->c == 0) return v->base;
    if (v->c > 0) return sz_simplify(x->a, sz_bin(x->a, SZ_ADD, v->base, sz_int(x->a, v->c)));
    return sz_bin(x->a, SZ_MONUS, v->base, sz_int(x->a, v->c == INT64_MIN ? INT64_MAX : -v->c));
}

static void add_guard(Ex *x, Val *v, SizeExpr *g) {
    (void)x;
    if (!g || (g->op == SZ_INT && g->ival > 0)) return;
    for (int i = 0; i < v->nguards; i++)
        if (sz_equal(v->guards[i], g)) return;
    if (v->nguards < MAX_GUARDS) v->guards[v->nguards++] = g; /* dropping one only asks for more */
}

static void union_guards(Ex *x, Val *v, const Val *a, const Val *b) {
    v->nguards = 0;
    for (int i = 0; a && i < a->nguards; i++) add_guard(x, v, a->guards[i]);
    for (int i = 0; b && i < b->nguards; i++) add_guard(x, v, b->guards[i]);
}

static SizeExpr *sum(Ex *x, SizeExpr *a, SizeExpr *b) {
    if (!a) return b;
    if (!b) return a;
    return sz_simplify(x->a, sz_bin(x->a, SZ_ADD, a, b));
}

static Val v_add(Ex *x, const Val *a, const Val *b) {
    int64_t c;
    if (a->kind == V_UNKNOWN || b->kind == V_UNKNOWN || a->sign || b->sign || !c_add(a->c, b->c, &c))
        return unknown();
    Val v = a->kind == V_EXACT && b->kind == V_EXACT ? exact(sum(x, a->base, b->base), c)
                                                      : at_most(sum(x, a->base, b->base), c);
    union_guards(x, &v, a, b);
    return v;
}

static Val v_mul(Ex *x, const Val *a, const Val *b) {
    if (a->kind == V_UNKNOWN || b->kind == V_UNKNOWN || a->sign || b->sign) return unknown();
    if (is_const(b)) {
        const Val *t = a;
        a = b;
        b = t;
    }
    Val v;
    if (is_const(a)) {
        if (a->c <= 0) return exact(NULL, 0);
        if (a->c == 1) return *b;
        SizeExpr *base = b->base ? sz_simplify(x->a, sz_bin(x->a, SZ_MUL, b->base, sz_int(x->a, a->c))) : NULL;
        int64_t c;
        if (__builtin_mul_overflow(b->c, a->c, &c)) return unknown();
        v = exact(base, c);
        v.kind = b->kind;
    } else {
        v = exact(sz_simplify(x->a, sz_bin(x->a, SZ_MUL, to_expr(x, a), to_expr(x, b))), 0);
        v.kind = a->kind == V_EXACT && b->kind == V_EXACT ? V_EXACT : V_MAX;
    }
    union_guards(x, &v, a, b);
    return v;
}

static Val v_div(Ex *x, const Val *a, const Val *b) {
    if (a->kind == V_UNKNOWN || b->kind == V_UNKNOWN || a->sign || b->sign) return unknown();
    Val v;
    if (is_const(b) && b->c > 0) {
        if (is_const(a)) return exact(NULL, a->c / b->c);
        v = exact(sz_simplify(x->a, sz_bin(x->a, SZ_DIV, to_expr(x, a), sz_int(x->a, b->c))), 0);
        v.kind = a->kind;
    } else {
        /* a divisor of at least 1 (0 is undefined behaviour): at most a */
        v = *a;
        v.kind = V_MAX;
    }
    union_guards(x, &v, a, NULL);
    return v;
}

static Val v_sub(Ex *x, const Val *a, const Val *b) {
    if (a->kind == V_UNKNOWN || b->kind == V_UNKNOWN || a->sign || b->sign) return unknown();
    Val v;
    if (is_const(b)) {
        v = *a;
        if (__builtin_sub_overflow(v.c, b->c, &v.c)) return unknown();
        return v;
    }
    if (a->kind == V_EXACT && b->kind == V_EXACT) {
        v = exact(sz_bin(x->a, SZ_MONUS, to_expr(x, a), to_expr(x, b)), 0);
    } else {
        v = *a; /* minus something non-negative: at most a */
        v.kind = V_MAX;
    }
    union_guards(x, &v, a, b);
    return v;
}

/* The smaller or larger of two values. */
static Val v_minmax(Ex *x, const Val *a, const Val *b, int is_max) {
    if (a->kind == V_UNKNOWN || b->kind == V_UNKNOWN || a->sign || b->sign) {
        /* the minimum is at most any known side */
        if (!is_max && a->kind != V_UNKNOWN && !a->sign) return *a;
        if (!is_max && b->kind != V_UNKNOWN && !b->sign) return *b;
        return unknown();
    }
    if (is_const(a) && is_const(b)) return exact(NULL, is_max ? (a->c > b->c ? a->c : b->c) : (a->c < b->c ? a->c : b->c));
    Val v = exact(sz_simplify(x->a, sz_bin(x->a, is_max ? SZ_MAX : SZ_MIN, to_expr(x, a), to_expr(x, b))), 0);
    v.kind = a->kind == V_EXACT && b->kind == V_EXACT ? V_EXACT : V_MAX;
    union_guards(x, &v, a, b);
    return v;
}

/* One of two values (c ? a : b): at most the larger; the guards both share. */
static Val v_join(Ex *x, const Val *a, const Val *b) {
    if (a->kind == V_UNKNOWN || b->kind == V_UNKNOWN || a->sign || b->sign) return unknown();
    Val v = v_minmax(x, a, b, 1);
    if (v.kind == V_UNKNOWN) return v;
    v.kind = V_MAX;
    v.nguards = 0;
    for (int i = 0; i < a->nguards; i++)
        for (int j = 0; j < b->nguards; j++)
            if (sz_equal(a->guards[i], b->guards[j])) add_guard(x, &v, a->guards[i]);
    return v;
}

/* 0 .. N - 1 for N a launch size: a thread id. */
static Val below(Ex *x, SizeExpr *n) {
    Val v = at_most(n, -1);
    add_guard(x, &v, n);
    return v;
}

/* The largest value of an integer type (char, short and their unsigned
 * kinds; bool), for values the analysis cannot follow; 0 otherwise. */
static int64_t type_max(const Type *t) {
    if (!t) return 0;
    if (t->kind == TY_BOOL) return 1;
    if (t->kind != TY_NUM) return 0;
    switch (t->sc) {
    case SC_UCHAR: return 255;
    case SC_CHAR: return 127;
    case SC_USHORT: return 65535;
    case SC_SHORT: return 32767;
    default: return 0;
    }
}

/* ------------------------------------------------------------------ */
/* the environment                                                     */

/* The same variable: the same Sym, or another Sym for the same C
 * variable (a let binding of a view aliases it, check.c sym_alias). */
static int same_var(const Sym *a, const Sym *b) {
    return a == b || (a && b && a->cname && b->cname && !strcmp(a->cname, b->cname));
}

static Binding *lookup(Ex *x, const Sym *s) {
    for (int i = x->nenv - 1; i >= x->frame->env_base; i--)
        if (same_var(x->env[i].sym, s)) return &x->env[i];
    return NULL;
}

static Binding *bind(Ex *x, const Sym *s) {
    if (x->nenv == x->capenv) {
        int nc = x->capenv ? x->capenv * 2 : 8; /* most kernels are small */
        Binding *v = arena_alloc(x->a, sizeof(Binding) * (size_t)nc);
        if (!v) {
            x->gave_up = 1;
            return NULL;
        }
        if (x->nenv) memcpy(v, x->env, sizeof(Binding) * (size_t)x->nenv);
        x->env = v;
        x->capenv = nc;
    }
    Binding *b = &x->env[x->nenv++];
    memset(b, 0, sizeof *b);
    b->sym = s;
    return b;
}

static void bind_val(Ex *x, const Sym *s, Val v) {
    Binding *b = bind(x, s);
    if (b) b->val = v;
}

static void bind_vec(Ex *x, const Sym *s, Origin o) {
    Binding *b = bind(x, s);
    if (b) {
        b->is_vec = 1;
        b->vec = o;
    }
}

static int mutated(Ex *x, const Sym *s) {
    return ptrmap_get(&x->frame->mutated, s) != NULL || (s->cname && ptrmap_get(&x->frame->mutated, s->cname) != NULL);
}

/* Record every variable of BODY that is assigned or whose address is taken. */
static void scan_mutations(Ex *x, PtrMap *m, const Node *n) {
    if (!n) return;
    if (n->kind == N_C_ASSIGN || (n->kind == N_C_UNARY && n->op == OP_ADDR) || n->kind == N_C_ATOMIC) {
        const Node *t = n->nkids ? n->kids[0] : NULL;
        while (t && (t->kind == N_C_CAST || (t->kind == N_C_UNARY && t->op == OP_ADDR))) t = t->nkids ? t->kids[0] : NULL;
        if (t && t->kind == N_C_VAR && t->sym) {
            ptrmap_put(x->a, m, t->sym, (void *)1);
            if (t->sym->cname) ptrmap_put(x->a, m, t->sym->cname, (void *)1);
        }
    }
    for (int i = 0; i < n->nkids; i++) scan_mutations(x, m, n->kids[i]);
}

/* ------------------------------------------------------------------ */
/* what the kernel touches                                             */

static const char *where(Ex *x, const Node *n) {
    SrcLoc l = n->loc;
    for (const Expansion *e = n->origin; e; e = e->parent) l = e->call; /* the user's own form */
    (void)x;
    return arena_printf(x->a, "%s:%d", srcloc_file(l) ? srcloc_file(l)->name : "?", l.line);
}

static void unchecked(Ex *x, int base, const Node *at, const char *why) {
    if (base < 0 || base >= x->kernel->nparams) return;
    Extent *e = &x->out[base];
    e->touched = 1;
    if (e->unchecked) return;
    e->unchecked = arena_printf(x->a, "%s at %s", why, where(x, at));
    e->line = at->loc.line;
}

/* V[index] where V points into parameter O->base: it needs max + 1 elements. */
static void touch(Ex *x, const Origin *o, const Val *idx, const Node *at) {
    if (o->base < 0 || o->base >= x->kernel->nparams) return;
    /* the end of the element touched, in the view's elements, then in the
       parameter's: element i of a view whose elements are num/den of the
       parameter's ends at ceil((i + 1) * num / den) */
    Val end = *idx;
    shift(&end, 1);
    if (o->num > 1) {
        Val k = exact(NULL, o->num);
        end = v_mul(x, &end, &k);
    } else if (o->den > 1) {
        Val k = exact(NULL, o->den);
        shift(&end, o->den - 1);
        end = v_div(x, &end, &k);
    }
    Val n = v_add(x, &o->off, &end);
    if (n.kind == V_UNKNOWN) {
        unchecked(x, o->base, at, o->off.kind == V_UNKNOWN ? "a view whose offset cannot be bounded"
                                                         : "an index the compiler cannot bound");
        return;
    }
    x->out[o->base].touched = 1;
    /* one need per (base, guards): accesses A[2i] and A[2i + 1] need the larger */
    int b = o->base;
    for (int i = 0; i < x->nneeds[b]; i++) {
        Val *m = x->needs[b][i];
        int same = m->nguards == n.nguards && ((!m->base && !n.base) || sz_equal(m->base, n.base));
        for (int g = 0; same && g < n.nguards; g++) same = sz_equal(m->guards[g], n.guards[g]);
        if (same) {
            if (n.c > m->c) m->c = n.c;
            return;
        }
    }
    Val *keep = arena_alloc(x->a, sizeof *keep);
    if (!keep) {
        x->gave_up = 1;
        return;
    }
    *keep = n;
    arena_push(x->a, (void ***)&x->needs[b], &x->nneeds[b], &x->capneeds[b], keep);
}

/* Is E 0 whenever G is (so the guard G > 0 need not be spelled out)?  G
 * itself, a product with such a factor, a minimum with such a term. */
static int vanishes(const SizeExpr *e, const SizeExpr *g) {
    if (g->is_signed) return 0;
    if (sz_equal(e, g)) return 1;
    if (e->op == SZ_MUL || e->op == SZ_MIN)
        for (int k = 0; k < e->nkids; k++)
            if (vanishes(e->kids[k], g)) return 1;
    return 0;
}

/* A need as a tree: base + c, only where every guard is positive. */
static SizeExpr *need_expr(Ex *x, const Val *n) {
    SizeExpr *need = to_expr(x, n);
    /* (g - 1) + 1 under the guard g > 0 is g */
    if (n->base && n->c == 0)
        for (int i = 0; i < n->nguards; i++)
            if (sz_equal(n->guards[i], n->base)) need = n->base;
    for (int i = n->nguards - 1; i >= 0; i--) {
        const SizeExpr *g = n->guards[i];
        if (!vanishes(need, g)) need = sz_bin(x->a, SZ_IF_POSITIVE, (SizeExpr *)g, need);
    }
    return sz_simplify(x->a, need);
}

static int budget(Ex *x) {
    if (++x->work > MAX_WORK) x->gave_up = 1;
    return !x->gave_up;
}

static Val val(Ex *x, const Node *n);
static Origin origin(Ex *x, const Node *n);
static void visit(Ex *x, const Node *n);
static void walk(Ex *x, const Node *n);

static Origin not_caller(void) {
    Origin o;
    memset(&o, 0, sizeof o);
    o.base = -1;
    return o;
}

/* Mark every caller vector EXPR mentions as unchecked (a pointer the
 * analysis cannot follow). */
static void lose_vectors(Ex *x, const Node *n, const Node *at, const char *why) {
    if (!n) return;
    if (n->kind == N_C_VAR && n->sym) {
        Binding *b = lookup(x, n->sym);
        if (b && b->is_vec) unchecked(x, b->vec.base, at, why);
    }
    for (int i = 0; i < n->nkids; i++) lose_vectors(x, n->kids[i], at, why);
}

/* The bytes between elements of vector type T (0: not a vector). */
static int stride_of(const Type *t) {
    return t && t->kind == TY_VECTOR && t->elem ? ty_vector_stride(t->elem, t->align) : 0;
}

static Origin origin(Ex *x, const Node *n) {
    if (n && n->kind == N_C_CAST && n->nkids) {
        /* a reinterpret-view: the same bytes as elements of another size */
        Origin o = origin(x, n->kids[0]);
        int to = stride_of(n->ty), from = stride_of(n->kids[0]->ty);
        if (o.base < 0 || !to || !from || to == from) return o;
        if (o.num > 1 || o.den > 1 || (to % from && from % to)) {
            lose_vectors(x, n, n, "a reinterpret-view the compiler cannot follow");
            o.base = -2;
            return o;
        }
        if (to > from) o.num = to / from;
        else o.den = from / to;
        return o;
    }
    if (!n) return not_caller();
    if (n->kind == N_C_VAR && n->sym) {
        Binding *b = lookup(x, n->sym);
        if (b && b->is_vec) return b->vec;
        Origin o = not_caller(); /* local arrays, side channels, the scratch pool */
        if (n->sym->kind == SYM_CONSTVEC) o.cv = n->sym;
        return o;
    }
    if (n->kind == N_C_BINARY && n->op == OP_ADD && n->ty && n->ty->kind == TY_VECTOR) {
        Origin o = origin(x, n->kids[0]);
        if (o.base < 0) return o;
        if (o.num > 1 || o.den > 1) { /* pointer arithmetic on a reinterpret-view */
            lose_vectors(x, n, n, "a reinterpret-view the compiler cannot follow");
            o.base = -2;
            return o;
        }
        Val k = val(x, n->kids[1]);
        o.off = v_add(x, &o.off, &k);
        if (o.off.kind == V_UNKNOWN) o.base = -2;
        return o;
    }
    lose_vectors(x, n, n, "a pointer the compiler cannot follow");
    Origin o = not_caller();
    o.base = -2;
    return o;
}

/* The dimension argument of an id or size builtin (0 when it has none). */
static int builtin_dim(const Node *n, int *dim) {
    *dim = 0;
    if (n->nkids == 0) return 1;
    const Node *d = n->kids[0];
    while (d->kind == N_C_CAST && d->nkids) d = d->kids[0];
    if (d->kind != N_C_INTLIT || d->ival < 0 || d->ival > 2) return 0;
    *dim = (int)d->ival;
    return 1;
}

static SizeExpr *launch(Ex *x, SizeOp op, int dim) {
    return sz_launch(x->a, op, dim);
}

static SizeExpr *max_local_linear(Ex *x) {
    SizeExpr *k[3] = {launch(x, SZ_MAX_LOCAL_SIZE, 0), launch(x, SZ_MAX_LOCAL_SIZE, 1), launch(x, SZ_MAX_LOCAL_SIZE, 2)};
    return sz_node(x->a, SZ_MUL, k, 3);
}

static const CFunc *user_function(Ex *x, const Node *call) {
    if (call->op != BI_CALL || !call->text) return NULL;
    return strmap_get(&x->p->funcs_by_cname, call->text); /* not a scan: issue 14 */
}

/* The helper a BI_HELPER call makes (Program.helpers), or -1. */
static int helper_kind(Ex *x, const Node *call) {
    if (call->op != BI_HELPER || call->ival < 0 || call->ival >= x->p->nhelpers) return -1;
    return (int)x->p->helpers[call->ival]->kind;
}

static Val call_val(Ex *x, const Node *n) {
    int d = 0;
    /* an id or size with a dimension the compiler cannot see: unknown */
    int dim_ok = builtin_dim(n, &d);
    switch (helper_kind(x, n)) {
    case H_GLOBAL_ID: return dim_ok ? below(x, launch(x, SZ_GLOBAL_SIZE, d)) : unknown();
    case H_GLOBAL_LINEAR_ID: return below(x, launch(x, SZ_GLOBAL_LINEAR_SIZE, 0));
    case H_LOCAL_LINEAR_ID: return below(x, max_local_linear(x));
    case H_GLOBAL_LINEAR_SIZE: return exact(launch(x, SZ_GLOBAL_LINEAR_SIZE, 0), 0);
    case H_LOCAL_LINEAR_SIZE: return at_most(max_local_linear(x), 0);
    case H_FLOOR_DIV:
        if (n->nkids == 2) {
            Val a = val(x, n->kids[0]), b = val(x, n->kids[1]);
            return v_div(x, &a, &b);
        }
        return unknown();
    default: break;
    }
    if (!dim_ok && n->op != BI_MIN && n->op != BI_MAX) return unknown();
    switch (n->op) {
    case BI_GLOBAL_ID_ABS: return below(x, launch(x, SZ_GLOBAL_SIZE, d)); /* the hoists launch with no offset */
    case BI_LOCAL_ID: return below(x, launch(x, SZ_MAX_LOCAL_SIZE, d));
    case BI_GROUP_ID: return below(x, launch(x, SZ_MAX_NUM_GROUPS, d));
    case BI_GLOBAL_SIZE: return exact(launch(x, SZ_GLOBAL_SIZE, d), 0);
    case BI_LOCAL_SIZE: return at_most(launch(x, SZ_MAX_LOCAL_SIZE, d), 0);
    case BI_NUM_GROUPS: return at_most(launch(x, SZ_MAX_NUM_GROUPS, d), 0);
    case BI_MIN:
    case BI_MAX:
        if (n->nkids == 2 && n->ty && ty_is_int(n->ty)) {
            Val a = val(x, n->kids[0]), b = val(x, n->kids[1]);
            return v_minmax(x, &a, &b, n->op == BI_MAX);
        }
        return unknown();
    default: return unknown();
    }
}

static Val binary_val(Ex *x, const Node *n) {
    Val a = val(x, n->kids[0]), b = val(x, n->kids[1]);
    switch (n->op) {
    case OP_ADD: return v_add(x, &a, &b);
    case OP_SUB: return v_sub(x, &a, &b);
    case OP_MUL: return v_mul(x, &a, &b);
    case OP_DIV: return v_div(x, &a, &b);
    case OP_MOD:
        if (b.kind == V_UNKNOWN || b.sign) return unknown();
        {
            Val v = b;
            v.kind = V_MAX;
            if (!shift(&v, -1)) return v;
            if (b.base) add_guard(x, &v, to_expr(x, &b));
            return v;
        }
    case OP_BAND:
        if (is_const(&b) && b.c >= 0) return at_most(NULL, b.c);
        if (is_const(&a) && a.c >= 0) return at_most(NULL, a.c);
        return v_minmax(x, &a, &b, 0).kind == V_UNKNOWN ? unknown() : v_minmax(x, &a, &b, 0);
    case OP_SHR:
        if (is_const(&b) && b.c >= 0 && b.c < 62) {
            Val k = exact(NULL, (int64_t)1 << b.c);
            return v_div(x, &a, &k);
        }
        return unknown();
    case OP_SHL:
        if (is_const(&b) && b.c >= 0 && b.c < 31) {
            Val k = exact(NULL, (int64_t)1 << b.c);
            return v_mul(x, &a, &k);
        }
        return unknown();
    case OP_LT: case OP_GT: case OP_LE: case OP_GE: case OP_EQ: case OP_NE: case OP_AND: case OP_OR:
        return at_most(NULL, 1);
    default: return unknown();
    }
}

static Val length_val(Ex *x, const Sym *s) {
    Binding *b = lookup(x, s);
    if (b && b->is_vec) return b->vec.len;
    if (b && !b->is_vec) return b->val; /* a view: its length variable */
    if (x->frame->fn == x->kernel)
        for (int i = 0; i < cfunc_rare(x->kernel)->nsides; i++) {
            const SideChannel *sc = cfunc_rare(x->kernel)->sides[i];
            if (sc->sym == s && sc->size) return exact(sc->size, 0);
        }
    if (s->ty && s->ty->kind == TY_VECTOR && !s->len_cname && s->ty->length >= 0) return exact(NULL, s->ty->length);
    return unknown();
}

static Val val_raw(Ex *x, const Node *n) {
    switch (n->kind) {
    case N_C_INTLIT: return n->ival >= 0 ? exact(NULL, n->ival) : unknown();
    case N_C_BOOLLIT: return exact(NULL, n->ival ? 1 : 0);
    case N_C_VAR: {
        Binding *b = n->sym ? lookup(x, n->sym) : NULL;
        if (b && !b->is_vec) return b->val;
        return unknown();
    }
    case N_C_LENGTH: return n->sym ? length_val(x, n->sym) : unknown();
    case N_C_CAST:
        if (!n->nkids || !n->ty || !ty_is_int(n->ty) || n->op != CAST_VALUE) return unknown();
        return val(x, n->kids[0]);
    case N_C_BINARY: return binary_val(x, n);
    case N_C_SELECT: {
        Val a = val(x, n->kids[1]), b = val(x, n->kids[2]);
        return v_join(x, &a, &b);
    }
    case N_C_CALL: return call_val(x, n);
    default: return unknown();
    }
}

/* N without its integer conversions. */
static const Node *bare(const Node *n) {
    while (n && n->kind == N_C_CAST && n->nkids && n->ty && ty_is_int(n->ty)) n = n->kids[0];
    return n;
}

/* The same value, read at the same point: the same variables, literals,
 * lengths, arithmetic and builtins (no memory, no user function). */
static int same_expr(const Node *a, const Node *b) {
    a = bare(a);
    b = bare(b);
    if (!a || !b) return a == b;
    if (a->kind != b->kind || a->op != b->op || a->nkids != b->nkids) return 0;
    switch (a->kind) {
    case N_C_VAR:
    case N_C_LENGTH: return same_var(a->sym, b->sym);
    case N_C_INTLIT: return a->ival == b->ival;
    case N_C_BINARY:
    case N_C_UNARY: break;
    case N_C_CALL:
        if (a->op == BI_CALL || a->ival != b->ival || (a->text != b->text && (!a->text || !b->text || strcmp(a->text, b->text))))
            return 0;
        break;
    default: return 0;
    }
    for (int i = 0; i < a->nkids; i++)
        if (!same_expr(a->kids[i], b->kids[i])) return 0;
    return 1;
}

/* Both bounds hold: the tighter (the smaller, as a tree when they differ). */
static Val tighter(Ex *x, const Val *a, const Val *b) {
    if (a->kind == V_UNKNOWN || a->sign) return *b;
    if (b->kind == V_UNKNOWN || b->sign) return *a;
    if ((!a->base && !b->base) || (a->base && b->base && sz_equal(a->base, b->base))) {
        Val v = a->c <= b->c ? *a : *b;
        if (a->kind != b->kind) v.kind = V_MAX;
        union_guards(x, &v, a, b);
        return v;
    }
    return v_minmax(x, a, b, 0);
}

static Val val(Ex *x, const Node *n) {
    if (!n) return unknown();
    Val v = val_raw(x, n);
    if (x->any_facts && n->kind != N_C_VAR && n->kind != N_C_INTLIT)
        for (int i = x->nenv - 1; i >= x->frame->env_base; i--) {
            const Binding *b = &x->env[i];
            if (b->expr && b->val.kind != V_UNKNOWN && same_expr(b->expr, n)) v = tighter(x, &v, &b->val);
        }
    if (v.kind == V_UNKNOWN && type_max(n->ty)) return at_most(NULL, type_max(n->ty));
    return v;
}

/* ------------------------------------------------------------------ */
/* conditions narrow variables                                         */

static const Sym *cond_var(const Node *n) {
    n = bare(n);
    return n && n->kind == N_C_VAR ? n->sym : NULL;
}

/* VAR < L (STRICT) or VAR <= L holds from here on. */
static void narrow(Ex *x, const Sym *var, Val l, int strict) {
    if (l.kind == V_UNKNOWN) return;
    Val v = l;
    v.kind = V_MAX;
    v.sign = 0;
    if (strict) {
        if (!shift(&v, -1)) return;
        /* var < limit: the limit is at least 1 here */
        add_guard(x, &v, l.sign ? l.base : to_expr(x, &l));
    } else if (l.sign) {
        return; /* var <= a signed value: it may be negative */
    }
    Binding *b = lookup(x, var);
    if (b && b->is_vec) return;
    /* both bounds hold: a thread id below the global size and below N is
       below the smaller of the two */
    if (b && b->val.kind != V_UNKNOWN && !b->val.sign) {
        if (b->val.base && v.base && b->val.c == v.c && !sz_equal(b->val.base, v.base)) {
            Val both = v;
            both.base = sz_simplify(x->a, sz_bin(x->a, SZ_MIN, b->val.base, v.base));
            union_guards(x, &both, &b->val, &v);
            v = both;
        } else {
            v = tighter(x, &b->val, &v);
            if (v.kind == V_EXACT && b->val.kind == V_EXACT) return; /* nothing new */
        }
    }
    bind_val(x, var, v);
}

/* L - E (E exact, not negative) where it is not negative; with PLUS added,
 * as a guard: positive exactly when L - E + PLUS is. */
static Val minus(Ex *x, const Val *l, const Val *e, int plus, SizeExpr **guard) {
    Val v;
    if (is_const(e)) {
        v = *l;
        Val g = v;
        if (__builtin_sub_overflow(v.c, e->c, &v.c) || !c_add(v.c, plus, &g.c)) {
            *guard = NULL;
            return unknown();
        }
        *guard = to_expr(x, &g);
    } else {
        SizeExpr *le = to_expr(x, l), *ee = to_expr(x, e);
        v = exact(sz_bin(x->a, SZ_MONUS, le, ee), 0);
        v.kind = l->kind;
        Val lp = *l;
        if (!shift(&lp, plus)) {
            *guard = NULL;
            return unknown();
        }
        *guard = sz_bin(x->a, SZ_MONUS, to_expr(x, &lp), ee);
        union_guards(x, &v, l, e);
    }
    return v;
}

/* A < L (STRICT) or A <= L holds from here on: for a variable, narrow it;
 * for another expression, remember the fact, and for a sum V + E with E
 * known exactly, V is at most L - E (where the code runs at all, L >= E). */
static void bound(Ex *x, const Node *a, Val l, int strict) {
    a = bare(a);
    if (!a || l.kind == V_UNKNOWN || !budget(x)) return;
    if (a->kind == N_C_VAR && a->sym) {
        narrow(x, a->sym, l, strict);
        return;
    }
    if (l.sign) return;
    if (a->kind == N_C_INTLIT || (a->ty && !ty_is_int(a->ty))) return;
    Binding *f = bind(x, NULL);
    if (!f) return;
    f->expr = a;
    f->val = l;
    f->val.kind = V_MAX;
    if (strict) {
        if (!shift(&f->val, -1)) return;
        add_guard(x, &f->val, to_expr(x, &l));
    }
    x->any_facts = 1;
    if (a->kind != N_C_BINARY || a->op != OP_ADD) return;
    for (int side = 0; side < 2; side++) {
        Val e = val(x, a->kids[1 - side]);
        if (e.kind != V_EXACT || e.sign) continue;
        SizeExpr *g;
        Val rest = minus(x, &l, &e, strict ? 0 : 1, &g);
        add_guard(x, &rest, g);
        bound(x, a->kids[side], rest, strict);
    }
}

/* Is A at most B, seen from their shape: the same, or a minimum with such
 * a term? */
static int at_most_tree(const SizeExpr *a, const SizeExpr *b) {
    if (sz_equal(a, b)) return 1;
    if (a->op == SZ_MIN)
        for (int i = 0; i < a->nkids; i++)
            if (at_most_tree(a->kids[i], b)) return 1;
    return 0;
}

/* A != L holds from here on: a variable at most L is at most L - 1.  For
 * a sum V + E (E exact), V != L - E, where L >= E: only when V's bound
 * already carries that (NEED, from a narrowing by V + E <= L). */
static void differ(Ex *x, const Node *a, Val l, const SizeExpr *need) {
    a = bare(a);
    if (!a || l.kind == V_UNKNOWN || l.sign || !budget(x)) return;
    if (a->kind == N_C_VAR && a->sym) {
        Binding *b = lookup(x, a->sym);
        if (!b || b->is_vec || b->val.kind != V_MAX || b->val.sign) return;
        int known = !need;
        for (int i = 0; !known && i < b->val.nguards; i++) known = sz_equal(b->val.guards[i], need);
        if (!known) return;
        Val v;
        if (b->val.c == l.c && ((!b->val.base && !l.base) || (b->val.base && l.base && sz_equal(b->val.base, l.base)))) {
            v = b->val;
            if (!shift(&v, -1)) return;
        } else if (at_most_tree(to_expr(x, &b->val), to_expr(x, &l))) {
            Val below_l = l;
            below_l.kind = V_MAX;
            if (!shift(&below_l, -1)) return;
            v = tighter(x, &b->val, &below_l);
        } else {
            return;
        }
        add_guard(x, &v, to_expr(x, &l)); /* 0 <= var < l */
        bind_val(x, a->sym, v);
        return;
    }
    if (need || a->kind != N_C_BINARY || a->op != OP_ADD) return;
    for (int side = 0; side < 2; side++) {
        Val e = val(x, a->kids[1 - side]);
        if (e.kind != V_EXACT || e.sign) continue;
        SizeExpr *g;
        Val rest = minus(x, &l, &e, 1, &g);
        differ(x, a->kids[side], rest, g);
    }
}

/* Narrow what COND (or its negation) says. */
static void assume(Ex *x, const Node *cond, int truth) {
    if (!cond) return;
    if (cond->kind == N_C_UNARY && cond->op == OP_NOT) {
        assume(x, cond->kids[0], !truth);
        return;
    }
    if (cond->kind != N_C_BINARY) return;
    int op = cond->op;
    if ((op == OP_AND && truth) || (op == OP_OR && !truth)) {
        assume(x, cond->kids[0], truth);
        assume(x, cond->kids[1], truth);
        return;
    }
    if (!truth) { /* !(a < b) is a >= b ... */
        if (op == OP_LT) op = OP_GE;
        else if (op == OP_LE) op = OP_GT;
        else if (op == OP_GT) op = OP_LE;
        else if (op == OP_GE) op = OP_LT;
        else if (op == OP_EQ) op = OP_NE;
        else return;
    }
    const Node *a = cond->kids[0], *b = cond->kids[1];
    if (op == OP_LT || op == OP_LE) bound(x, a, val(x, b), op == OP_LT);
    else if (op == OP_GT || op == OP_GE) bound(x, b, val(x, a), op == OP_GT);
    else if (op == OP_NE) {
        differ(x, a, val(x, b), NULL);
        differ(x, b, val(x, a), NULL);
    }
}

/* Every variable ASSIGNED in N (or whose address is taken) has lost the
 * values bound to it, and the facts about it. */
static int mentions(const Node *n, const Sym *s) {
    if (!n) return 0;
    if ((n->kind == N_C_VAR || n->kind == N_C_LENGTH) && same_var(n->sym, s)) return 1;
    for (int i = 0; i < n->nkids; i++)
        if (mentions(n->kids[i], s)) return 1;
    return 0;
}

static const Sym *assigned_var(const Node *n) {
    if (n->kind != N_C_ASSIGN && !(n->kind == N_C_UNARY && n->op == OP_ADDR) && n->kind != N_C_ATOMIC) return NULL;
    const Node *t = n->nkids ? n->kids[0] : NULL;
    while (t && (t->kind == N_C_CAST || (t->kind == N_C_UNARY && t->op == OP_ADDR))) t = t->nkids ? t->kids[0] : NULL;
    return t && t->kind == N_C_VAR ? t->sym : NULL;
}

static void forget(Ex *x, const Sym *s, const Node *at) {
    for (int i = x->frame->env_base; i < x->nenv; i++) {
        Binding *b = &x->env[i];
        if (b->sym && same_var(b->sym, s)) {
            if (b->is_vec) { /* a vector variable pointed elsewhere */
                unchecked(x, b->vec.base, at, "a vector variable assigned");
                b->vec.base = -2;
            } else {
                b->val = unknown();
            }
        } else if (b->expr && b->val.kind != V_UNKNOWN && mentions(b->expr, s)) {
            b->val = unknown();
        }
    }
}

static void forget_assigned(Ex *x, const Node *n) {
    if (!n || !budget(x)) return;
    const Sym *s = assigned_var(n);
    if (s) forget(x, s, n);
    for (int i = 0; i < n->nkids; i++) forget_assigned(x, n->kids[i]);
}

/* ------------------------------------------------------------------ */
/* calls                                                               */

static void walk_function(Ex *x, const CFunc *fn, const Node *call) {
    if (x->depth >= MAX_DEPTH || !fn->body) {
        lose_vectors(x, call, call, "a call too deep to follow");
        return;
    }
    /* bind the callee's parameters to the caller's values (check_expr.c
       lays the arguments out: vectors as pointer + length, tensor-views as
       four, soa-vectors as one per field + length, identities as none) */
    /* scratch, reused by every call walked (the bindings are copied into
       the environment before the body is walked, and nothing in between
       walks a call): one array per call was a tenth of --metadata's
       memory (issue 14) */
    int need = 2 * fn->nparams + 2 * cfunc_rare(fn)->nfsides + 8;
    if (need > x->capscratch) {
        Binding *v = arena_alloc(x->a, sizeof(Binding) * (size_t)need);
        if (!v) {
            x->gave_up = 1;
            return;
        }
        x->scratch = v;
        x->capscratch = need;
    }
    Binding *binds = x->scratch;
    memset(binds, 0, sizeof(Binding) * (size_t)need);
    int nb = 0, k = 0;
    for (int i = 0; i < fn->nparams && k <= call->nkids; i++) {
        const Sym *s = fn->params[i];
        if (s->ty->kind == TY_IDENT) continue;
        if (sym_ndims(s)) {
            if (k < call->nkids) lose_vectors(x, call->kids[k], call, "a vector passed as a tensor-view");
            k += 4;
        } else if (sym_rare(s)->soa_fields) {
            int nf = s->ty->elem->sd->nfields;
            Val len = k + nf < call->nkids ? val(x, call->kids[k + nf]) : unknown();
            for (int f = 0; f < nf && k + f < call->nkids; f++) {
                Origin o = origin(x, call->kids[k + f]);
                o.len = len;
                binds[nb].sym = sym_rare(s)->soa_fields[f];
                binds[nb].is_vec = 1;
                binds[nb++].vec = o;
            }
            k += nf + 1;
        } else if (s->ty->kind == TY_VECTOR) {
            Origin o = k < call->nkids ? origin(x, call->kids[k]) : not_caller();
            o.len = k + 1 < call->nkids ? val(x, call->kids[k + 1]) : unknown();
            binds[nb].sym = s;
            binds[nb].is_vec = 1;
            binds[nb++].vec = o;
            k += 2;
        } else {
            binds[nb].sym = s;
            binds[nb++].val = k < call->nkids ? val(x, call->kids[k]) : unknown();
            k += 1;
        }
    }
    for (int i = 0; i < cfunc_rare(fn)->nfsides; i++) { /* side channels: sized by the host */
        Origin o = not_caller();
        o.len = k + 1 < call->nkids ? val(x, call->kids[k + 1]) : unknown();
        binds[nb].sym = cfunc_rare(fn)->fsides[i]->param;
        binds[nb].is_vec = 1;
        binds[nb++].vec = o;
        k += 2;
    }
    Frame fr;
    memset(&fr, 0, sizeof fr);
    fr.fn = fn;
    fr.env_base = x->nenv;
    scan_mutations(x, &fr.mutated, fn->body);
    Frame *up = x->frame;
    x->frame = &fr;
    if (!x->depth) x->kernel_call = call;
    x->depth++;
    for (int i = 0; i < nb; i++) {
        if (!binds[i].is_vec && mutated(x, binds[i].sym)) continue;
        Binding *b = bind(x, binds[i].sym);
        if (b) *b = binds[i];
    }
    walk(x, fn->body);
    x->depth--;
    x->frame = up;
    x->nenv = fr.env_base;
}

/* ------------------------------------------------------------------ */
/* the walk                                                            */


/* A constant upper bound of E (1) or none (0): the minimum of bounded
 * terms, sums, products and quotients of bounded terms. */
static int const_bound(const SizeExpr *e, int64_t *out) {
    int64_t v, w;
    switch (e->op) {
    case SZ_INT: *out = e->ival; return 1;
    case SZ_MIN: {
        int any = 0;
        for (int i = 0; i < e->nkids; i++)
            if (const_bound(e->kids[i], &w) && (!any || w < v)) {
                v = w;
                any = 1;
            }
        if (any) *out = v;
        return any;
    }
    case SZ_MONUS: return const_bound(e->kids[0], out);
    case SZ_ADD: case SZ_MUL: case SZ_MAX:
        if (!e->nkids || !const_bound(e->kids[0], &v)) return 0;
        for (int i = 1; i < e->nkids; i++) {
            if (!const_bound(e->kids[i], &w)) return 0;
            if (v > INT64_MAX / 4 || w > INT64_MAX / 4) return 0;
            v = e->op == SZ_ADD ? v + w : e->op == SZ_MUL ? v * w : (w > v ? w : v);
        }
        *out = v;
        return 1;
    case SZ_DIV: case SZ_FLOOR_DIV: case SZ_CEIL_DIV:
        if (e->nkids != 2 || !const_bound(e->kids[0], &v) || e->kids[1]->op != SZ_INT || e->kids[1]->ival <= 0) return 0;
        *out = e->op == SZ_CEIL_DIV ? (v + e->kids[1]->ival - 1) / e->kids[1]->ival : v / e->kids[1]->ival;
        return 1;
    case SZ_IF_POSITIVE: return e->nkids == 2 && const_bound(e->kids[1], out);
    default: return 0;
    }
}

/* W0703: V[index] with V a def-const-vec (a __constant array of a fixed
 * length) and an index that grows with the launch (a thread id) and that
 * nothing bounds below the length: a kernel without a (global-size ...)
 * declaration is launched as large as its caller likes, and reads past the
 * array (issue 14: the const_vec demo read past four arrays). */
static void constvec_index(Ex *x, const Node *n) {
    const Node *v = n->kids[0];
    if (!v || v->kind != N_C_VAR || !v->sym) return;
    const Sym *cv = v->sym;
    if (cv->kind != SYM_CONSTVEC) { /* a parameter of a function the kernel calls with one */
        Binding *b = lookup(x, cv);
        cv = b && b->is_vec ? b->vec.cv : NULL;
    }
    if (!cv || cv->kind != SYM_CONSTVEC || !cv->ty) return;
    int64_t len = cv->ty->length, most;
    if (len < 0 || ptrmap_get(&x->warned, cv)) return;
    Val i = val(x, n->kids[1]);
    if (i.kind == V_UNKNOWN || i.sign || !i.base || !sz_uses_launch(i.base)) return;
    if (const_bound(i.base, &most) && most + i.c < len) return;
    ptrmap_put(x->a, &x->warned, cv, (void *)cv);
    diag_warning_at(x->diag, n, "W0703",
                    "kernel `%s` indexes `%s` (%lld element%s) with a thread id that nothing bounds: it has no (global-size ...) "
                    "declaration, so a large enough launch reads past the array; guard the access, e.g. "
                    "(when (< i (length~ %s)) ...)",
                    x->kernel->name, cv->name, (long long)len, len == 1 ? "" : "s", cv->name);
    if (x->depth > 0 && x->kernel_call) {
        SrcLoc l = x->kernel_call->loc;
        for (const Expansion *e = x->kernel_call->origin; e; e = e->parent) l = e->call; /* the user's own form */
        diag_note(x->diag, l, "reached through this call in kernel `%s`", x->kernel->name);
    }
}

/* Find the accesses and calls in expression N. */
static void visit(Ex *x, const Node *n) {
    if (!n || !budget(x)) return;
    const Sym *assigned = assigned_var(n);
    if (assigned) {
        for (int i = 0; i < n->nkids; i++) visit(x, n->kids[i]);
        if (n->kind == N_C_ASSIGN && n->nkids > 1 && assigned->ty && assigned->ty->kind == TY_VECTOR)
            lose_vectors(x, n->kids[1], n, "a vector variable assigned");
        forget(x, assigned, n);
        return;
    }
    switch (n->kind) {
    case N_C_INDEX: {
        visit(x, n->kids[0]);
        visit(x, n->kids[1]);
        if (x->diag) constvec_index(x, n);
        Origin o = origin(x, n->kids[0]);
        if (o.base >= 0) {
            Val i = val(x, n->kids[1]);
            touch(x, &o, &i, n);
        }
        return;
    }
    case N_C_SELECT: {
        visit(x, n->kids[0]);
        int mark = x->nenv;
        assume(x, n->kids[0], 1);
        visit(x, n->kids[1]);
        x->nenv = mark;
        assume(x, n->kids[0], 0);
        visit(x, n->kids[2]);
        x->nenv = mark;
        return;
    }
    case N_C_BINARY:
        if (n->op == OP_AND || n->op == OP_OR) { /* the right side runs when the left allows it */
            visit(x, n->kids[0]);
            int mark = x->nenv;
            assume(x, n->kids[0], n->op == OP_AND);
            visit(x, n->kids[1]);
            x->nenv = mark;
            return;
        }
        break;
    case N_C_CALL: {
        for (int i = 0; i < n->nkids; i++) visit(x, n->kids[i]);
        if (helper_kind(x, n) == H_MAKE_STRUCT && n->ty && n->ty->kind == TY_STRUCT && n->ty->sd->has_views)
            /* a vector stored in a struct's vector-view field: its uses
               through the struct are not followed (docs/types.md) */
            lose_vectors(x, n, n, "a vector stored in a struct's vector-view field");
        const CFunc *fn = user_function(x, n);
        if (fn) walk_function(x, fn, n);
        return;
    }
    default: break;
    }
    for (int i = 0; i < n->nkids; i++) visit(x, n->kids[i]);
}

/* Does statement N end by leaving the function (an early return)? */
static int leaves(const Node *n) {
    if (!n) return 0;
    if (n->kind == N_C_RETURN) return 1;
    if (n->kind == N_C_BLOCK) return n->nkids && leaves(n->kids[n->nkids - 1]);
    return 0;
}

static void walk_for(Ex *x, const Node *n) {
    const Sym *v = n->sym;
    const Node *init = n->kids[0], *cond = n->kids[1], *step = n->kids[2];
    visit(x, init);
    int mark = x->nenv;
    int up = step && step->kind == N_C_BINARY && step->nkids == 2 && cond_var(step->kids[0]) == v &&
             (step->op == OP_ADD || step->op == OP_MUL);
    int down = step && step->kind == N_C_BINARY && step->nkids == 2 && cond_var(step->kids[0]) == v &&
               (step->op == OP_SUB || step->op == OP_DIV || step->op == OP_SHR);
    Val start = val(x, init);
    if (down && start.kind != V_UNKNOWN) start.kind = V_MAX; /* counting down: at most where it starts */
    /* what the loop assigns holds only what its condition says */
    forget_assigned(x, cond);
    forget_assigned(x, step);
    forget_assigned(x, n->kids[3]);
    bind_val(x, v, down ? start : unknown()); /* counting up: what the condition says */
    if (up) assume(x, cond, 1);
    visit(x, cond);
    walk(x, n->kids[3]);
    visit(x, step);
    x->nenv = mark;
}

static void walk(Ex *x, const Node *n) {
    if (!n || !budget(x)) return;
    switch (n->kind) {
    case N_C_BLOCK: {
        int mark = x->nenv;
        for (int i = 0; i < n->nkids; i++) {
            const Node *s = n->kids[i];
            walk(x, s);
            /* if (c) { ... return; } without else: !c from here on */
            if (s->kind == N_C_IF && s->nkids >= 2 && leaves(s->kids[1]) && (s->nkids < 3 || !s->kids[2] || !s->kids[2]->nkids))
                assume(x, s->kids[0], 0);
        }
        x->nenv = mark;
        return;
    }
    case N_C_DECL: {
        const Sym *s = n->sym;
        for (int i = 0; i < n->nkids; i++) visit(x, n->kids[i]);
        if (!s || !s->ty) return;
        if (s->is_view && n->nkids >= 2) {
            Origin o = origin(x, n->kids[0]);
            o.len = val(x, n->kids[1]);
            bind_vec(x, s, o);
        } else if (s->ty->kind == TY_VECTOR) {
            Origin o = n->nkids ? origin(x, n->kids[0]) : not_caller();
            if (!n->nkids || !n->kids[0] || n->kids[0]->ty == NULL || n->kids[0]->ty->kind != TY_VECTOR) o = not_caller();
            o.len = exact(NULL, s->ty->length >= 0 ? s->ty->length : 0);
            bind_vec(x, s, o);
        } else if (ty_is_int(s->ty) && n->nkids && !mutated(x, s)) {
            bind_val(x, s, val(x, n->kids[0]));
        }
        return;
    }
    case N_C_IF: {
        visit(x, n->kids[0]);
        int mark = x->nenv;
        assume(x, n->kids[0], 1);
        walk(x, n->kids[1]);
        x->nenv = mark;
        if (n->nkids > 2 && n->kids[2]) {
            assume(x, n->kids[0], 0);
            walk(x, n->kids[2]);
            x->nenv = mark;
        }
        return;
    }
    case N_C_FOR: walk_for(x, n); return;
    default: visit(x, n); return;
    }
}

static Extent *extent_walk(Arena *a, const Program *p, const CFunc *f, Diag *d) {
    Ex x;
    memset(&x, 0, sizeof x);
    x.diag = d;
    x.a = a;
    x.p = p;
    x.kernel = f;
    int n = f->nparams;
    x.out = arena_alloc(a, sizeof(Extent) * (size_t)(n ? n : 1));
    x.needs = arena_alloc(a, sizeof(Val **) * (size_t)(n ? n : 1));
    x.nneeds = arena_alloc(a, sizeof(int) * (size_t)(n ? n : 1));
    x.capneeds = arena_alloc(a, sizeof(int) * (size_t)(n ? n : 1));
    if (!x.out || !x.needs || !x.nneeds || !x.capneeds) return NULL;
    if (f->exact || !f->body) return x.out;
    Frame fr;
    memset(&fr, 0, sizeof fr);
    fr.fn = f;
    x.frame = &fr;
    scan_mutations(&x, &fr.mutated, f->body);
    for (int i = 0; i < n; i++) {
        const Sym *s = f->params[i];
        if (s->ty->kind == TY_VECTOR && !sym_ndims(s) && !sym_rare(s)->soa_fields) {
            Origin o;
            memset(&o, 0, sizeof o);
            o.base = i;
            o.off = exact(NULL, 0);
            o.len = s->ty->length >= 0 ? exact(NULL, s->ty->length) : exact(sz_param(a, SZ_LENGTH, s->name, i, 0), 0);
            bind_vec(&x, s, o);
        } else if (ty_is_int(s->ty) && !mutated(&x, s)) {
            int is_signed = ty_category(s->ty) == CAT_SIGNED;
            Val v = exact(sz_param(a, SZ_SCALAR, s->name, i, is_signed), 0);
            v.sign = is_signed;
            bind_val(&x, s, v);
        }
    }
    walk(&x, f->body);
    for (int i = 0; i < n; i++) {
        Extent *e = &x.out[i];
        if (x.gave_up && e->touched && !e->unchecked) e->unchecked = "the kernel is too large to analyse";
        if (e->unchecked || !x.nneeds[i]) continue;
        SizeExpr **terms = arena_alloc(a, sizeof(SizeExpr *) * (size_t)x.nneeds[i]);
        if (!terms) continue;
        for (int j = 0; j < x.nneeds[i]; j++) terms[j] = need_expr(&x, x.needs[i][j]);
        e->need = x.nneeds[i] == 1 ? terms[0] : sz_simplify(a, sz_node(a, SZ_MAX, terms, x.nneeds[i]));
        /* a fixed-length vector type already promises enough */
        if (f->params[i]->ty->length >= 0 && e->need->op == SZ_INT && e->need->ival <= f->params[i]->ty->length) e->need = NULL;
    }
    return x.out;
}

/* ---- the results, kept; the walk's memory, taken back ----
 *
 * The walk of a kernel (bindings, frames, values, the needs of every
 * access) is most of what --metadata allocates (issue 14), and only the
 * extents it ends with are used: they are held on the heap while the
 * arena takes the walk's memory back (arena_scope_end), then copied into
 * it again.  A size expression's parameter names are the Syms' (older). */

static SizeExpr *sz_to_heap(const SizeExpr *e, int *oom) {
    if (!e || *oom) return NULL;
    SizeExpr *h = malloc(sizeof *h);
    if (!h) return *oom = 1, NULL;
    *h = *e;
    h->kids = NULL;
    if (e->nkids) {
        h->kids = calloc((size_t)e->nkids, sizeof *h->kids);
        if (!h->kids) return *oom = 1, h;
        for (int i = 0; i < e->nkids; i++) h->kids[i] = sz_to_heap(e->kids[i], oom);
    }
    return h;
}

static void sz_heap_free(SizeExpr *h) {
    if (!h) return;
    for (int i = 0; h->kids && i < h->nkids; i++) sz_heap_free(h->kids[i]);
    free(h->kids);
    free(h);
}

static SizeExpr *sz_from_heap(Arena *a, const SizeExpr *h) {
    if (!h) return NULL;
    SizeExpr *e = arena_alloc(a, sizeof *e);
    if (!e) return NULL;
    *e = *h;
    e->kids = NULL;
    if (h->nkids) { /* as sz_node allocates them */
        e->kids = arena_alloc(a, sizeof(SizeExpr *) * (size_t)h->nkids);
        if (!e->kids) return NULL;
        for (int i = 0; i < h->nkids; i++)
            if (!(e->kids[i] = sz_from_heap(a, h->kids[i]))) return NULL;
    }
    return e;
}

static Extent *extent_run(Arena *a, const Program *p, const CFunc *f, Diag *d) {
    int n = f->nparams ? f->nparams : 1;
    Extent *out = arena_alloc(a, sizeof(Extent) * (size_t)n);
    if (!out) return NULL;
    ArenaMark m = arena_scope_begin(a);
    Extent *w = extent_walk(a, p, f, d);
    int oom = !w;
    for (int i = 0; w && i < n; i++) {
        out[i] = w[i];
        out[i].need = sz_to_heap(w[i].need, &oom);
        out[i].unchecked = w[i].unchecked && !oom ? strdup(w[i].unchecked) : NULL;
        if (w[i].unchecked && !out[i].unchecked) oom = 1;
    }
    arena_scope_end(a, m);
    for (int i = 0; w && i < n; i++) {
        SizeExpr *h = out[i].need;
        char *u = (char *)out[i].unchecked;
        out[i].need = oom ? NULL : sz_from_heap(a, h);
        out[i].unchecked = oom || !u ? NULL : arena_strdup(a, u);
        sz_heap_free(h);
        free(u);
        if (!oom && ((h && !out[i].need) || (u && !out[i].unchecked))) oom = 1;
    }
    return oom ? NULL : out;
}

Extent *extent_kernel(Arena *a, const Program *p, const CFunc *f) {
    return extent_run(a, p, f, NULL);
}

void extent_constvec_check(Arena *a, const Program *p, const CFunc *f, Diag *d) {
    if (f->kind != FN_KERNEL || cfunc_gsize(f)->present || f->single_task || !cfunc_rare(f)->ncvuses) return; /* nothing to read past */
    extent_run(a, p, f, d);
}
