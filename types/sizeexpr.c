/* sizeexpr.c - building, comparing and folding size-expression trees
 * (sizeexpr.h).  The checker builds them for side-channel sizes (spec "Side
 * Channel Vectors"), the extent analysis for the lengths a kernel touches;
 * the emitters print them.  Trees are immutable once built and may share
 * subtrees. */
#include "sizeexpr.h"

#include <math.h>
#include <string.h>

static SizeExpr *leaf(Arena *a, SizeOp op) {
    SizeExpr *e = arena_alloc(a, sizeof *e);
    if (e) e->op = op;
    return e;
}

SizeExpr *sz_int(Arena *a, int64_t v) {
    SizeExpr *e = leaf(a, SZ_INT);
    if (e) e->ival = v;
    return e;
}

SizeExpr *sz_float(Arena *a, double v) {
    SizeExpr *e = leaf(a, SZ_FLOAT);
    if (e) {
        e->fval = v;
        e->is_float = 1;
    }
    return e;
}

SizeExpr *sz_param(Arena *a, SizeOp op, const char *name, int index, int is_signed) {
    SizeExpr *e = leaf(a, op);
    if (e) {
        e->param = name;
        e->param_index = index;
        e->is_signed = op == SZ_SCALAR && is_signed;
    }
    return e;
}

SizeExpr *sz_launch(Arena *a, SizeOp op, int dim) {
    SizeExpr *e = leaf(a, op);
    if (e) e->dim = dim;
    return e;
}

SizeExpr *sz_node(Arena *a, SizeOp op, SizeExpr **kids, int n) {
    for (int i = 0; i < n; i++)
        if (!kids[i]) return NULL;
    SizeExpr *e = leaf(a, op);
    if (!e) return NULL;
    e->kids = arena_alloc(a, sizeof(SizeExpr *) * (size_t)(n ? n : 1));
    if (!e->kids) return NULL;
    memcpy(e->kids, kids, sizeof(SizeExpr *) * (size_t)n);
    e->nkids = n;
    if (op != SZ_CEIL && op != SZ_IF_POSITIVE)
        for (int i = 0; i < n; i++) e->is_float |= kids[i]->is_float;
    if (op == SZ_IF_POSITIVE) e->is_float = n > 1 && kids[1]->is_float;
    return e;
}

SizeExpr *sz_bin(Arena *a, SizeOp op, SizeExpr *x, SizeExpr *y) {
    SizeExpr *k[2] = {x, y};
    return sz_node(a, op, k, 2);
}

int sz_is_input(const SizeExpr *e) {
    return e && e->op >= SZ_LENGTH && e->op <= SZ_LOCAL_LINEAR_SIZE;
}

int sz_equal(const SizeExpr *x, const SizeExpr *y) {
    if (x == y) return 1;
    if (!x || !y || x->op != y->op || x->nkids != y->nkids) return 0;
    switch (x->op) {
    case SZ_INT: return x->ival == y->ival;
    case SZ_FLOAT: return x->fval == y->fval;
    case SZ_LENGTH:
    case SZ_SCALAR: return x->param_index == y->param_index && !strcmp(x->param, y->param);
    case SZ_GLOBAL_SIZE:
    case SZ_LOCAL_SIZE:
    case SZ_NUM_GROUPS:
    case SZ_MAX_LOCAL_SIZE:
    case SZ_MAX_NUM_GROUPS: return x->dim == y->dim;
    default: break;
    }
    for (int i = 0; i < x->nkids; i++)
        if (!sz_equal(x->kids[i], y->kids[i])) return 0;
    return 1;
}

int sz_uses_launch(const SizeExpr *e) {
    if (!e) return 0;
    if (e->op >= SZ_GLOBAL_SIZE && e->op <= SZ_LOCAL_LINEAR_SIZE) return 1;
    for (int i = 0; i < e->nkids; i++)
        if (sz_uses_launch(e->kids[i])) return 1;
    return 0;
}

int sz_collect_inputs(Arena *a, const SizeExpr *e, const SizeExpr ***v, int *n, int *cap) {
    if (!e) return 1;
    if (sz_is_input(e)) {
        for (int i = 0; i < *n; i++)
            if (sz_equal((*v)[i], e)) return 1;
        int before = *n;
        arena_push(a, (void ***)v, n, cap, (void *)e);
        return *n > before;
    }
    for (int i = 0; i < e->nkids; i++)
        if (!sz_collect_inputs(a, e->kids[i], v, n, cap)) return 0;
    return 1;
}

/* ---- folding ---- */

static int is_int(const SizeExpr *e, int64_t v) {
    return e && e->op == SZ_INT && e->ival == v;
}

/* Integer arithmetic for folding; 0 when it would overflow or divide by 0. */
static int fold2(SizeOp op, int64_t x, int64_t y, int64_t *out) {
    switch (op) {
    case SZ_ADD: return !__builtin_add_overflow(x, y, out);
    case SZ_SUB: return x >= y && !__builtin_sub_overflow(x, y, out);
    case SZ_MONUS: *out = x > y ? x - y : 0; return 1;
    case SZ_MUL: return !__builtin_mul_overflow(x, y, out);
    case SZ_DIV:
    case SZ_FLOOR_DIV:
        if (y <= 0) return 0;
        *out = x / y;
        return 1;
    case SZ_CEIL_DIV:
        if (y <= 0) return 0;
        *out = x / y + (x % y != 0);
        return 1;
    case SZ_MIN: *out = x < y ? x : y; return 1;
    case SZ_MAX: *out = x > y ? x : y; return 1;
    case SZ_ROUND_UP:
        if (y <= 0 || x > INT64_MAX - y) return 0;
        *out = (x + y - 1) / y * y;
        return 1;
    default: return 0;
    }
}

SizeExpr *sz_simplify(Arena *a, SizeExpr *e) {
    if (!e || !e->nkids) return e;
    SizeExpr *kids[64];
    int n = 0;
    if (e->nkids > 64) return e;
    for (int i = 0; i < e->nkids; i++) {
        SizeExpr *k = sz_simplify(a, e->kids[i]);
        if (!k) return e;
        kids[n++] = k;
    }
    if (e->is_float) return sz_node(a, e->op, kids, n);
    /* fold integer literals from the left: (+ 2 3 x) -> (+ 5 x) */
    if (e->op != SZ_CEIL && e->op != SZ_IF_POSITIVE && n >= 2 && kids[0]->op == SZ_INT) {
        int m = 1;
        int64_t acc = kids[0]->ival;
        while (m < n && kids[m]->op == SZ_INT && fold2(e->op, acc, kids[m]->ival, &acc)) m++;
        if (m > 1) {
            SizeExpr *lit = sz_int(a, acc);
            if (!lit) return e;
            if (m == n) return lit;
            kids[m - 1] = lit;
            memmove(kids, kids + m - 1, sizeof(SizeExpr *) * (size_t)(n - m + 1));
            n -= m - 1;
        }
    }
    switch (e->op) {
    case SZ_MONUS:
        if (n == 2 && is_int(kids[1], 0)) return kids[0];
        break;
    case SZ_ADD:
    case SZ_SUB: {
        /* drop + 0 / - 0 (not a leading 0 of a subtraction) */
        int w = 0;
        for (int i = 0; i < n; i++)
            if (!(is_int(kids[i], 0) && (i > 0 || e->op == SZ_ADD) && n > 1)) kids[w++] = kids[i];
        n = w ? w : 1;
        /* (x - k) + k -> x */
        if (e->op == SZ_ADD && n == 2 && kids[0]->op == SZ_SUB && kids[0]->nkids == 2 &&
            sz_equal(kids[0]->kids[1], kids[1]))
            return kids[0]->kids[0];
        if (n == 1 && e->op == SZ_ADD) return kids[0];
        break;
    }
    case SZ_MUL: {
        int w = 0;
        for (int i = 0; i < n; i++) {
            if (is_int(kids[i], 0)) return sz_int(a, 0);
            if (!is_int(kids[i], 1)) kids[w++] = kids[i];
        }
        if (w == 0) return sz_int(a, 1);
        if (w == 1) return kids[0];
        n = w;
        break;
    }
    case SZ_DIV:
    case SZ_FLOOR_DIV:
    case SZ_CEIL_DIV:
        if (n == 2 && is_int(kids[1], 1)) return kids[0];
        break;
    case SZ_MIN:
    case SZ_MAX: {
        int w = 0;
        for (int i = 0; i < n; i++) {
            int dup = 0;
            for (int j = 0; j < w; j++) dup |= sz_equal(kids[j], kids[i]);
            if (!dup) kids[w++] = kids[i];
        }
        if (w == 1) return kids[0];
        n = w;
        break;
    }
    case SZ_IF_POSITIVE:
        if (kids[0]->op == SZ_INT) return kids[0]->ival > 0 ? kids[1] : sz_int(a, 0);
        if ((sz_equal(kids[0], kids[1]) && !kids[0]->is_signed) || is_int(kids[1], 0)) return kids[1]; /* x > 0 ? x : 0 */
        break;
    default: break;
    }
    return sz_node(a, e->op, kids, n);
}

/* ---- evaluation ---- */

double sz_eval(const SizeExpr *e, SizeInputValue value, void *ud) {
    if (!e) return 0;
    if (sz_is_input(e)) return value ? value(ud, e) : 0;
    switch (e->op) {
    case SZ_INT: return (double)e->ival;
    case SZ_FLOAT: return e->fval;
    case SZ_CEIL: return ceil(sz_eval(e->kids[0], value, ud));
    case SZ_IF_POSITIVE: return sz_eval(e->kids[0], value, ud) > 0 ? sz_eval(e->kids[1], value, ud) : 0;
    default: break;
    }
    double acc = sz_eval(e->kids[0], value, ud);
    for (int i = 1; i < e->nkids; i++) {
        double y = sz_eval(e->kids[i], value, ud);
        switch (e->op) {
        case SZ_ADD: acc += y; break;
        case SZ_SUB: acc -= y; break;
        case SZ_MONUS: acc = acc > y ? acc - y : 0; break;
        case SZ_MUL: acc *= y; break;
        case SZ_DIV: acc = y == 0 ? 0 : e->is_float ? acc / y : trunc(acc / y); break;
        case SZ_FLOOR_DIV: acc = y == 0 ? 0 : floor(acc / y); break;
        case SZ_CEIL_DIV: acc = y == 0 ? 0 : ceil(acc / y); break;
        case SZ_MIN: acc = y < acc ? y : acc; break;
        case SZ_MAX: acc = y > acc ? y : acc; break;
        case SZ_ROUND_UP: acc = y == 0 ? acc : ceil(acc / y) * y; break;
        default: break;
        }
    }
    return acc;
}
