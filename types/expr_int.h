/* expr_int.h - what the expression files of the checker share (not a
 * public API): the flexible-literal marks and the handlers and helpers
 * one family file defines and another uses (check_forms.c's builtin
 * table lists every handler).  The files, split by form family:
 *
 * check_expr.c    node builders, literals, coercion, operands
 * check_arith.c   arithmetic, comparisons, bits, math, division, conversions
 * check_vectors.c elements, lengths, swizzles, places, set!
 * check_logic.c   and, or, not, select-if
 * check_gpu.c     ids, barriers, fences, bounds, atomics, core helpers
 * check_views.c   vector-views, make-vector, %zero, or-else
 * check_calls.c   calls of user functions
 * check_forms.c   the builtin table, accessors, symbols, expr
 *
 * Every function and table declared here is named cx_* (a handler of form
 * F is cx_F: cx_arith, cx_set): they are global across these files, so
 * the prefix keeps them apart from the rest of the library, and the
 * library hides them (-fvisibility=hidden); scripts/check_layers.py checks
 * both (the prefix here, HIDDEN in the objects). */
#ifndef CRISP_EXPR_INT_H
#define CRISP_EXPR_INT_H

#include "check_int.h"

/* node->op of a literal whose type its context decides (check_expr.c) */
#define LIT_FLEX_INT 1
#define LIT_FLEX_FLOAT 2

/* a condition's value (check_logic.c) and the values of a multiple-value
 * form (check_arith.c), which check.c's statements use too */
Node *cx_cond_value(Ctx *cx, Node *syn);
int cx_mv_values(Ctx *cx, Node *syn, int n, Node **out, int in_order);

/* The GPU id forms and the atomic operations, by name (check_gpu.c; check_forms.c
 * dispatches on them and suggests their names). */
typedef struct IdBuiltin {
    const char *name;
    int op;              /* BUILTIN_OPS, or BI_HELPER for a helper */
    HelperKind helper;
    int takes_dim;
    Scalar ret;
} IdBuiltin;
typedef struct AtomicOp {
    const char *name;
    int bi;                  /* the builtin on 32- and 64-bit integers */
    int nargs;               /* value arguments after the location */
    int op;                  /* operator for the CAS fallback */
} AtomicOp;

/* ---- check_expr.c ---- */
Node *cx_call_n(Ctx *cx, const Node *at, Type *ty, int op, Node **args, int n);
Node *cx_float_lit(Ctx *cx, const Node *at, double v, Type *ty);
Node *cx_bool_lit(Ctx *cx, const Node *at, int v);
Node *cx_length_of(Ctx *cx, const Node *at, Sym *s);
/* A literal whose type the context decides (LIT_FLEX_*); inline: asked
 * of most operands. */
static inline int cx_is_flex(const Node *n) {
    return n && (n->kind == N_C_INTLIT || n->kind == N_C_FLOATLIT) && n->op != 0;
}
int cx_int_fits(int64_t v, int is_unsigned, Scalar s);
Node *cx_adapt_literal(Ctx *cx, Node *lit, Type *want, const Node *at);
const char *cx_mix_hint(Ctx *cx, Node **args, Node **syn, int n, const Type *t, const Type *b);
Node *cx_retype_struct(Ctx *cx, Node *val, Type *want, const Node *at);
/* The forms that are statements (a value of one goes through a
 * temporary), NULL-terminated (ck_head's HEAD_STATEMENT). */
extern const char *const cx_statement_heads[];
Type *cx_unify(Ctx *cx, Node *form, Node **syn, int n, Node **args, Type *want, const char *what);
Node *cx_simple(Ctx *cx, Node *e, const Node *at);

/* ---- check_arith.c ---- */
Node *cx_arith(Ctx *cx, Node *syn, Type *want);
Node *cx_compare(Ctx *cx, Node *syn, Type *want);
Node *cx_bitop(Ctx *cx, Node *syn, Type *want);
Node *cx_lognot(Ctx *cx, Node *syn, Type *want);
Node *cx_ash(Ctx *cx, Node *syn, Type *want);
Node *cx_minmax(Ctx *cx, Node *syn, Type *want);
Node *cx_math(Ctx *cx, Node *syn, Type *want);
Node *cx_rounding(Ctx *cx, Node *syn, Type *want);
Node *cx_slash(Ctx *cx, Node *syn, Type *want);
Node *cx_conversion(Ctx *cx, Node *syn, const char *h);

/* ---- check_vectors.c ---- */
Node *cx_elem(Ctx *cx, Node *syn, Type *want);
Node *cx_length(Ctx *cx, Node *syn, Type *want);
Node *cx_bytes(Ctx *cx, Node *syn, Type *want);
int cx_is_swizzle_name(const char *k);
Node *cx_swizzle_of(Ctx *cx, Node *syn, Node *base, int for_write);
Node *cx_swizzle(Ctx *cx, Node *syn);
Node *cx_set(Ctx *cx, Node *syn, Type *want);
Node *cx_incdec(Ctx *cx, Node *syn, Type *want);

/* ---- check_logic.c ---- */
Node *cx_andor(Ctx *cx, Node *syn, Type *want);
Node *cx_not(Ctx *cx, Node *syn, Type *want);
Type *cx_branch_type(Node *a, Node *b, Type *want);
Node *cx_select(Ctx *cx, Node *syn, Type *want);

/* ---- check_gpu.c ---- */
extern const IdBuiltin cx_id_builtins[];
Node *cx_gpu_id(Ctx *cx, Node *syn, const IdBuiltin *b);
Node *cx_barrier(Ctx *cx, Node *syn, Type *want);
Node *cx_fence(Ctx *cx, Node *syn, Type *want);
Node *cx_bounds(Ctx *cx, Node *syn, Type *want);
extern const AtomicOp cx_atomic_ops[];
Node *cx_atomic(Ctx *cx, Node *syn, const AtomicOp *a);
Node *cx_atomic_fn(Ctx *cx, Node *syn, Type *want);
Node *cx_atomic_load_store(Ctx *cx, Node *syn, Type *want);
Node *cx_extent(Ctx *cx, Node *syn, Type *want);
Node *cx_pow2_below(Ctx *cx, Node *syn, Type *want);
Node *cx_target_has(Ctx *cx, Node *syn, Type *want);
Node *cx_device_has(Ctx *cx, Node *syn, Type *want);
Node *cx_require_gsize(Ctx *cx, Node *syn, Type *want);

/* ---- check_views.c ---- */
Node *cx_make_view(Ctx *cx, Node *syn, Type *want);
Node *cx_view_set_parent(Ctx *cx, Node *place_syn, Node *value);
Node *cx_reinterpret(Ctx *cx, Node *syn, Type *want);
Node *cx_zero(Ctx *cx, Node *syn, Type *want);
Node *cx_or_else(Ctx *cx, Node *syn, Type *want);
Node *cx_make_vector(Ctx *cx, Node *syn, Type *want);

/* ---- check_calls.c ---- */
int cx_fit(const Node *a, const Type *p);

/* ---- check_forms.c ---- */
Node *cx_setter_call(Ctx *cx, Node *place_syn, Node *value);

#endif
