/* check_arith.c - arithmetic, comparisons, bit operations, math functions,
 * integer division and conversions.
 *
 * Why it exists: the numeric forms share one set of rules - operands
 * unified by the promotion table, flexible literals adopting their
 * context's type, constants folded - and are split out of check_expr.c so
 * each family of forms reads on its own (issue 16).  Spec sections
 * "Numeric Type Promotion, Casting, Conversion", "Arithmetic", "Integer
 * Division" (floor/ceiling/round/truncate with two results), "Builtin GPU
 * Functions & Constants" (min, max, clamp, abs, the math functions) and
 * the (to-TYPE ...) conversions.  Each handler is a row of the builtin
 * table in check_forms.c. */
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

/* ---- arithmetic ---- */

/* An operation whose operands were all context-free literals is itself a
 * context-free constant: fold it so it keeps adapting to its context. */
static Node *fold_flexible(Ctx *cx, Node *syn, Node *res, Node **args, int n) {
    for (int i = 0; i < n; i++)
        if (!cx_is_flex(args[i])) return res;
    if (!res) return res;
    if (ty_is_int(res->ty)) {
        /* literal-only arithmetic is exact in 64 bits: beyond is an error
           (docs/language.md "Compile-time evaluation") */
        CeVal r;
        CeResult st = ce_constant(cx->ck, NULL, res, 1, 1, &r);
        if (st == CE_FAILED) return NULL;
        if (st != CE_DONE || r.k != CE_INT) return res;
        int64_t v = (int64_t)r.u;
        /* a context-free constant grows to long when int is too small; its
           final context checks that it fits */
        Type *t = res->ty;
        if (t->sc != SC_ULONG && !cx_int_fits(v, 0, t->sc)) t = ty_num(SC_LONG);
        Node *l = ck_int_lit(cx, syn, v, t);
        l->op = LIT_FLEX_INT;
        l->is_unsigned = t->sc == SC_ULONG && v < 0;
        return l;
    }
    return res;
}

/* (+ A B...)  (- A B...)  (* A B...)  (/ A B...)   spec "Arithmetic" */
Node *cx_arith(Ctx *cx, Node *syn, Type *want) {
    const char *h = syn->kids[0]->key;
    int op = syn_streq(h, "+") ? OP_ADD : syn_streq(h, "-") ? OP_SUB : syn_streq(h, "*") ? OP_MUL : OP_DIV;
    int n = syn->nkids - 1;
    if (n == 0) {
        if (op == OP_ADD || op == OP_MUL) return ck_int_lit(cx, syn, op == OP_MUL, ty_num(SC_INT));
        ck_nargs_ok(cx, syn, 1, -1);
        return NULL;
    }
    Node *args[64];
    if (n > 64) {
        diag_error_at(D(cx), syn, "E0320", "`%s` takes at most 64 arguments", h);
        return NULL;
    }
    Type *t = cx_unify(cx, syn, syn->kids + 1, n, args, want, h);
    if (!t) return NULL;
    if (n == 1) {
        if (op == OP_ADD || op == OP_MUL) return args[0];
        if (op == OP_SUB) {
            Node *u = ck_mk1(cx, N_C_UNARY, syn, t, args[0]);
            if (u) u->op = OP_NEG;
            return u;
        }
        if (!ty_is_floatlike(t)) {
            diag_error_at(D(cx), syn, "E0313", "`(/ x)` is a reciprocal and needs a floating-point number, found `%s`", ck_tname(cx, t));
            return NULL;
        }
        return ck_mk2(cx, N_C_BINARY, syn, t, OP_DIV, cx_float_lit(cx, syn, 1.0, ty_num(t->sc)), args[0]);
    }
    if ((op == OP_DIV) && ty_is_intlike(t))
        for (int i = 1; i < n; i++) {
            int64_t z;
            if (ck_const_int(cx, args[i], &z) && z == 0) {
                diag_error_at(D(cx), syn->kids[i + 1], "E0319", "division by zero: `%s`", syn_to_string(cx->ck->a, syn, 60));
                return NULL;
            }
        }
    Node *acc = args[0];
    for (int i = 1; i < n; i++) acc = ck_mk2(cx, N_C_BINARY, syn, t, op, acc, args[i]);
    return fold_flexible(cx, syn, acc, args, n);
}

/* (< A B...) (> ...) (<= ...) (>= ...) (= ...) (/= A B) (!= A B) */
Node *cx_compare(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    const char *h = syn->kids[0]->key;
    if (!ck_nargs_ok(cx, syn, 2, 16)) return NULL;
    int op = syn_streq(h, "<") ? OP_LT : syn_streq(h, ">") ? OP_GT : syn_streq(h, "<=") ? OP_LE : syn_streq(h, ">=") ? OP_GE
           : syn_streq(h, "=") || syn_streq(h, "==") ? OP_EQ : OP_NE;
    int n = syn->nkids - 1;
    Node *args[16];
    if (n == 2 && (op == OP_EQ || op == OP_NE)) {
        /* enumeration values compare for equality; a bare key takes the
           other operand's enumeration */
        Node *a0 = syn->kids[1]->kind == N_KEYWORD ? NULL : ck_expr(cx, syn->kids[1], NULL);
        if (a0 && a0->ty->kind == TY_ENUM) {
            Node *b0 = ck_expr(cx, syn->kids[2], a0->ty);
            if (!b0) return NULL;
            if (!ty_equal(b0->ty, a0->ty)) {
                diag_error_at(D(cx), syn->kids[2], "E0310", "`%s` compares a `%s` with a `%s`", h, ck_tname(cx, a0->ty), ck_tname(cx, b0->ty));
                return NULL;
            }
            return ck_mk2(cx, N_C_BINARY, syn, &ty_bool, op, a0, b0);
        }
        if (!a0 && syn->kids[1]->kind == N_KEYWORD) {
            Node *b0 = ck_expr(cx, syn->kids[2], NULL);
            if (b0 && b0->ty->kind == TY_ENUM) {
                Node *k0 = ck_expr(cx, syn->kids[1], b0->ty);
                return k0 ? ck_mk2(cx, N_C_BINARY, syn, &ty_bool, op, k0, b0) : NULL;
            }
        }
        if (a0) {
            /* not an enumeration: the usual numeric comparison, reusing a0 */
            Node *b0 = ck_expr(cx, syn->kids[2], cx_is_flex(a0) ? NULL : a0->ty);
            if (!b0) return NULL;
            Type *t2 = cx_branch_type(a0, b0, NULL);
            if (!t2 || !ty_is_arith(t2) || t2->kind == TY_HWVEC) {
                if (!ty_is_arith(a0->ty) || !ty_is_arith(b0->ty))
                    diag_error_at(D(cx), syn, "E0311", "`%s` needs numbers, found `%s` and `%s`", h, ck_tname(cx, a0->ty), ck_tname(cx, b0->ty));
                else if (t2 && t2->kind == TY_HWVEC)
                    diag_error_at(D(cx), syn, "E0314", "`%s` compares numbers; compare the components of `%s` one by one", h, ck_tname(cx, t2));
                else
                    diag_error_at(D(cx), syn->kids[2], "E0312",
                                  "`%s` mixes `%s` and `%s`: Crisp converts implicitly only to a wider type of the same kind (signed, unsigned, floating)%s",
                                  h, ck_tname(cx, a0->ty), ck_tname(cx, b0->ty), cx_mix_hint(cx, (Node *[]){a0, b0}, (Node *[]){syn->kids[1], syn->kids[2]}, 2, a0->ty, b0->ty));
                return NULL;
            }
            a0 = ck_coerce(cx, a0, t2, syn->kids[1], h);
            b0 = ck_coerce(cx, b0, t2, syn->kids[2], h);
            return a0 && b0 ? ck_mk2(cx, N_C_BINARY, syn, &ty_bool, op, a0, b0) : NULL;
        }
    }
    Type *t = cx_unify(cx, syn, syn->kids + 1, n, args, NULL, h);
    if (!t) return NULL;
    if (t->kind == TY_HWVEC) {
        diag_error_at(D(cx), syn, "E0314", "`%s` compares numbers; compare the components of `%s` one by one", h, ck_tname(cx, t));
        return NULL;
    }
    if (op == OP_NE && n != 2) {
        diag_error_at(D(cx), syn, "E0320", "`%s` takes exactly 2 arguments", h);
        return NULL;
    }
    Node *res = NULL;
    for (int i = 0; i + 1 < n; i++) {
        Node *a = args[i], *b = args[i + 1];
        if (n > 2 && i + 1 < n - 1) args[i + 1] = b = cx_simple(cx, b, syn);
        Node *c = ck_mk2(cx, N_C_BINARY, syn, &ty_bool, op, a, b);
        res = res ? ck_mk2(cx, N_C_BINARY, syn, &ty_bool, OP_AND, res, c) : c;
    }
    return res;
}

/* (bit-and A B...) (bit-or ...) (bit-xor ...) (logxor ...) (logand ...) (logior ...) */
Node *cx_bitop(Ctx *cx, Node *syn, Type *want) {
    const char *h = syn->kids[0]->key;
    if (!ck_nargs_ok(cx, syn, 2, 64)) return NULL;
    int op = strstr(h, "and") ? OP_BAND : (strstr(h, "xor")) ? OP_BXOR : OP_BOR;
    Node *args[64];
    int n = syn->nkids - 1;
    Type *t = cx_unify(cx, syn, syn->kids + 1, n, args, want, h);
    if (!t) return NULL;
    if (!ty_is_intlike(t)) {
        diag_error_at(D(cx), syn, "E0363", "`%s` needs integers, found `%s`", h, ck_tname(cx, t));
        return NULL;
    }
    Node *acc = args[0];
    for (int i = 1; i < n; i++) acc = ck_mk2(cx, N_C_BINARY, syn, t, op, acc, args[i]);
    return acc;
}

/* (lognot A) (bit-not A) */
Node *cx_lognot(Ctx *cx, Node *syn, Type *want) {
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    Node *a[1];
    Type *t = cx_unify(cx, syn, syn->kids + 1, 1, a, want, syn->kids[0]->key);
    if (!t) return NULL;
    if (!ty_is_intlike(t)) {
        diag_error_at(D(cx), syn, "E0363", "`lognot` needs an integer, found `%s`", ck_tname(cx, t));
        return NULL;
    }
    Node *u = ck_mk1(cx, N_C_UNARY, syn, t, a[0]);
    if (u) u->op = OP_BNOT;
    return u;
}

/* (ash A N): shift A left by N bits (right when N is negative). */
Node *cx_ash(Ctx *cx, Node *syn, Type *want) {
    if (!ck_nargs_ok(cx, syn, 2, 2)) return NULL;
    Node *a = ck_expr(cx, syn->kids[1], ty_is_int(want) ? want : NULL);
    if (!a) return NULL;
    if (cx_is_flex(a)) a = ck_coerce(cx, a, ty_is_int(want) ? want : ty_num(SC_INT), syn->kids[1], "ash");
    if (!a) return NULL;
    if (!ty_is_intlike(a->ty)) {
        diag_error_at(D(cx), syn->kids[1], "E0363", "`ash` needs an integer, found `%s`", ck_tname(cx, a->ty));
        return NULL;
    }
    int64_t k;
    if (ck_const_syn_int(cx, syn->kids[2], &k)) {
        if (k >= ty_scalar_info(a->ty->sc)->size * 8 || -k >= ty_scalar_info(a->ty->sc)->size * 8) {
            diag_error_at(D(cx), syn->kids[2], "E0316", "shift by %lld bits is out of range for `%s`", (long long)k,
                          ck_tname(cx, a->ty));
            return NULL;
        }
        return ck_mk2(cx, N_C_BINARY, syn, a->ty, k >= 0 ? OP_SHL : OP_SHR, a, ck_int_lit(cx, syn->kids[2], k >= 0 ? k : -k, ty_num(SC_INT)));
    }
    Node *n;
    if (syn_is_form(syn->kids[2], "-") && syn->kids[2]->nkids == 2) {
        /* (ash A (- N)), Lisp's right shift by N.  With an unsigned N (the
           spec's histogram-pass shifts by its uint bit-offset so, and
           (- (* 4 pass)) is as common) negating N would wrap to a huge left
           shift: shift right by N.  A signed N is negated as `-` would. */
        Node *m = ck_expr(cx, syn->kids[2]->kids[1], ty_num(SC_INT));
        if (!m) return NULL;
        if (cx_is_flex(m)) m = ck_coerce(cx, m, ty_num(SC_INT), syn->kids[2]->kids[1], "ash");
        if (!m) return NULL;
        if (ty_is_int(m->ty) && ty_category(m->ty) == CAT_UNSIGNED) return ck_mk2(cx, N_C_BINARY, syn, a->ty, OP_SHR, a, m);
        n = ty_is_int(m->ty) ? ck_mk1(cx, N_C_UNARY, syn->kids[2], m->ty, m) : m;
        if (!n) return NULL;
        if (n != m) n->op = OP_NEG;
    } else {
        n = ck_expr(cx, syn->kids[2], ty_num(SC_INT));
        if (!n) return NULL;
    }
    if (!ty_is_int(n->ty)) {
        diag_error_at(D(cx), syn->kids[2], "E0315", "`ash` shift count must be an integer, found `%s`", ck_tname(cx, n->ty));
        return NULL;
    }
    if (ty_category(n->ty) == CAT_UNSIGNED) return ck_mk2(cx, N_C_BINARY, syn, a->ty, OP_SHL, a, n);
    a = cx_simple(cx, a, syn);
    n = cx_simple(cx, n, syn);
    Node *ge = ck_mk2(cx, N_C_BINARY, syn, &ty_bool, OP_GE, n, ck_int_lit(cx, syn, 0, n->ty));
    Node *neg = ck_mk1(cx, N_C_UNARY, syn, n->ty, n);
    if (neg) neg->op = OP_NEG;
    Node *sel = ck_mk(cx, N_C_SELECT, syn, a->ty, 3);
    if (!sel) return NULL;
    sel->kids[0] = ge;
    sel->kids[1] = ck_mk2(cx, N_C_BINARY, syn, a->ty, OP_SHL, a, n);
    sel->kids[2] = ck_mk2(cx, N_C_BINARY, syn, a->ty, OP_SHR, a, neg);
    sel->nkids = 3;
    return sel;
}

/* (min A B...) (max A B...) (clamp X LO HI) (abs X) */
Node *cx_minmax(Ctx *cx, Node *syn, Type *want) {
    const char *h = syn->kids[0]->key;
    int is_clamp = syn_streq(h, "clamp"), is_abs = syn_streq(h, "abs");
    if (!ck_nargs_ok(cx, syn, is_abs ? 1 : is_clamp ? 3 : 2, is_abs ? 1 : is_clamp ? 3 : 64)) return NULL;
    Node *args[64];
    int n = syn->nkids - 1;
    Type *t = cx_unify(cx, syn, syn->kids + 1, n, args, want, h);
    if (!t) return NULL;
    if (is_abs) {
        if (ty_is_floatlike(t)) return cx_call_n(cx, syn, t, BI_FABS, args, 1);
        Node *c = cx_call_n(cx, syn, t, BI_ABS, args, 1);
        if (ty_category(t) == CAT_UNSIGNED) return args[0];
        /* OpenCL's abs returns the unsigned type; Crisp keeps the type */
        Node *cast = ck_mk1(cx, N_C_CAST, syn, t, c);
        return cast;
    }
    /* C widens a scalar implicitly, but OpenCL's overloads of min, max and
       clamp make (min ulong uint) ambiguous: convert each narrower scalar */
    for (int i = 0; i < n && t->kind == TY_NUM; i++)
        if (args[i]->ty && args[i]->ty->kind == TY_NUM && args[i]->ty->sc != t->sc) {
            args[i] = ck_mk1(cx, N_C_CAST, syn->kids[i + 1], t, args[i]);
            if (!args[i]) return NULL;
        }
    if (is_clamp) return cx_call_n(cx, syn, t, BI_CLAMP, args, 3);
    Node *acc = args[0];
    for (int i = 1; i < n; i++) {
        Node *pair[2] = {acc, args[i]};
        acc = cx_call_n(cx, syn, t, syn_streq(h, "min") ? BI_MIN : BI_MAX, pair, 2);
    }
    return acc;
}

/* (sqrt X) (rsqrt X) (exp X) (log X) (log2 X) (sin X) (cos X) (tan X)
 * (asin X) (acos X) (atan X) (pow X Y) - floating point only. */
Node *cx_math(Ctx *cx, Node *syn, Type *want) {
    const char *h = syn->kids[0]->key;
    int two = syn_streq(h, "pow") || syn_streq(h, "expt") || syn_streq(h, "atan2");
    if (!ck_nargs_ok(cx, syn, two ? 2 : 1, two ? 2 : 1)) return NULL;
    Node *args[2];
    Type *t = cx_unify(cx, syn, syn->kids + 1, two ? 2 : 1, args, ty_is_floatlike(want) ? want : ty_num(SC_FLOAT), h);
    if (!t) return NULL;
    if (!ty_is_floatlike(t)) {
        diag_error_at(D(cx), syn, "E0317", "`%s` needs a floating-point argument, found `%s`; convert with (to-float x)", h,
                      ck_tname(cx, t));
        return NULL;
    }
    static const struct { const char *name; int op; } fns[] = {
        {"sqrt", BI_SQRT}, {"rsqrt", BI_RSQRT}, {"pow", BI_POW}, {"expt", BI_POW}, {"exp", BI_EXP}, {"log", BI_LOG},
        {"log2", BI_LOG2}, {"sin", BI_SIN}, {"cos", BI_COS}, {"tan", BI_TAN}, {"asin", BI_ASIN}, {"acos", BI_ACOS},
        {"atan", BI_ATAN}, {"atan2", BI_ATAN2}, {NULL, 0}};
    int op = BI_SQRT;
    for (int i = 0; fns[i].name; i++)
        if (syn_streq(fns[i].name, h)) op = fns[i].op;
    return cx_call_n(cx, syn, t, op, args, two ? 2 : 1);
}

/* ---- integer division with two results (spec "Integer Division") ---- */

/* (/ A B) (floor A B) (ceil A B) (round A B) (truncate A B): quotient and
 * remainder (remainder = A - q*B).  Fills q and r. */
static int int_division(Ctx *cx, Node *syn, Node **q, Node **r, int in_order) {
    const char *h = syn->kids[0]->key;
    Node *args[2];
    Type *t = cx_unify(cx, syn, syn->kids + 1, 2, args, NULL, h);
    if (!t) return 0;
    if (!ty_is_int(t)) {
        diag_error_at(D(cx), syn, "E0318", "`%s` with two arguments divides integers, found `%s`", h, ck_tname(cx, t));
        return 0;
    }
    int64_t z;
    if (ck_const_int(cx, args[1], &z) && z == 0) {
        diag_error_at(D(cx), syn->kids[2], "E0319", "division by zero: `%s`", syn_to_string(cx->ck->a, syn, 60));
        return 0;
    }
    Node *a = cx_simple(cx, args[0], syn), *b = cx_simple(cx, args[1], syn);
    int trunc = syn_streq(h, "/") || syn_streq(h, "truncate") ||
                (ty_category(t) == CAT_UNSIGNED && (syn_streq(h, "floor")));
    if (trunc) {
        *q = ck_mk2(cx, N_C_BINARY, syn, t, OP_DIV, a, b);
        if (r) *r = ck_mk2(cx, N_C_BINARY, syn, t, OP_MOD, a, b);
        return 1;
    }
    HelperKind k = syn_streq(h, "floor") ? H_FLOOR_DIV : syn_streq(h, "ceil") ? H_CEIL_DIV : H_ROUND_DIV;
    Helper *hp = ck_need_helper(cx, k, t, AS_NONE);
    if (!hp) return 0;
    Sym *rem = ck_declare_temp(cx, syn, "rem", t, NULL);
    if (!rem) return 0;
    Node *addr = ck_mk1(cx, N_C_UNARY, syn, t, ck_var_ref(cx, syn, rem));
    if (!addr) return 0;
    addr->op = OP_ADDR;
    Node *cargs[3] = {a, b, addr};
    *q = ck_helper_call(cx, syn, t, hp, cargs, 3);
    if (r) {
        if (!in_order) *q = cx_simple(cx, *q, syn); /* the call must run before rem is read */
        *r = ck_var_ref(cx, syn, rem);
    }
    return 1;
}

/* (floor X) (ceil X) (round X) (truncate X) on a float: to int (float) or
 * long (double); round is half-to-even like the integer division. */
Node *cx_rounding(Ctx *cx, Node *syn, Type *want) {
    const char *h = syn->kids[0]->key;
    if (!ck_nargs_ok(cx, syn, 1, 2)) return NULL;
    if (syn->nkids == 3) {
        Node *q;
        (void)want;
        return int_division(cx, syn, &q, NULL, 0) ? q : NULL;
    }
    Node *a = ck_expr(cx, syn->kids[1], NULL);
    if (!a) return NULL;
    if (cx_is_flex(a)) a = ck_coerce(cx, a, ty_num(SC_FLOAT), syn->kids[1], h);
    if (!a) return NULL;
    if (ty_is_intlike(a->ty)) return a; /* already an integer */
    if (!ty_is_floatlike(a->ty)) {
        diag_error_at(D(cx), syn->kids[1], "E0317", "`%s` needs a number, found `%s`", h, ck_tname(cx, a->ty));
        return NULL;
    }
    Scalar rs = a->ty->sc == SC_DOUBLE ? SC_LONG : SC_INT;
    Type *rt = a->ty->kind == TY_HWVEC ? ty_hwvec(rs, a->ty->width) : ty_num(rs);
    Node *c = ck_mk1(cx, N_C_CAST, syn, rt, a);
    if (c) c->op = syn_streq(h, "truncate") ? CAST_RTZ : syn_streq(h, "floor") ? CAST_RTN : syn_streq(h, "ceil") ? CAST_RTP : CAST_RTE;
    return c;
}

Node *cx_slash(Ctx *cx, Node *syn, Type *want) {
    /* integer division of two operands has two values; in a one-value
       context the quotient is used */
    return cx_arith(cx, syn, want);
}

/* The values of a multiple-value form (user function call or division). */

/* in_order: the caller uses out[0] before reading any other value, so the
 * first value may stay an expression (the call that also fills the rest). */
int cx_mv_values(Ctx *cx, Node *syn, int n, Node **out, int in_order) {
    const char *h = syn_head(syn);
    if (h && syn->nkids == 3 &&
        (syn_streq(h, "/") || syn_streq(h, "floor") || syn_streq(h, "ceil") || syn_streq(h, "round") || syn_streq(h, "truncate"))) {
        if (n > 2) {
            diag_error_at(D(cx), syn, "E0340", "`%s` returns 2 values, but %d are wanted", h, n);
            return 0;
        }
        Node *q, *r;
        if (!int_division(cx, syn, &q, &r, in_order)) return 0;
        out[0] = q;
        if (n > 1) out[1] = r;
        return 1;
    }
    if (h && (ck_func_lookup(cx->ck, h) || ck_template_lookup(cx->ck, h))) {
        Node *extra[16] = {0};
        Node *call = ck_user_call(cx, syn, NULL, extra, n - 1);
        if (!call) return 0;
        Type *rt = call->ty;
        int have = rt->kind == TY_TUPLE ? rt->nelems : rt->kind == TY_VOID ? 0 : 1;
        if (have < n) {
            diag_error_at(D(cx), syn, "E0340", "`%s` returns %d value%s, but %d are wanted", h, have, have == 1 ? "" : "s", n);
            return 0;
        }
        if (rt->kind == TY_TUPLE) call->ty = rt->elems[0];
        out[0] = n > 1 && !in_order ? cx_simple(cx, call, syn) : call;
        for (int i = 1; i < n; i++) out[i] = extra[i - 1];
        return 1;
    }
    if (n == 1) {
        out[0] = ck_expr(cx, syn, NULL);
        return out[0] != NULL;
    }
    diag_error_at(D(cx), syn, "E0341", "multiple values can only come from a function call or a division, found `%s`",
                  syn_to_string(cx->ck->a, syn, 40));
    return 0;
}

/* ---- conversions ---- */

/* (to-TYPE X): value conversion.  (as-TYPE X): bit reinterpretation. */
Node *cx_conversion(Ctx *cx, Node *syn, const char *h) {
    int is_to = h[0] == 't';
    Type *t = ty_lookup_base(h + 3);
    if (!t || !ty_is_arith(t)) {
        diag_error_at(D(cx), syn, "E0350", "unknown conversion `%s`: expected to-TYPE or as-TYPE with a numeric TYPE", syn->kids[0]->name);
        return NULL;
    }
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    if (t->sc == SC_BFLOAT16) {
        diag_error_at(D(cx), syn, "E0905", "`bfloat16` is not available in OpenCL C (no OpenCL C version has a bfloat16 type); use `half` or `float`");
        return NULL;
    }
    Node *a = ck_expr(cx, syn->kids[1], NULL);
    if (!a) return NULL;
    if (a->ty->kind == TY_TUPLE) a->ty = a->ty->elems[0];
    if (cx_is_flex(a)) {
        if (!is_to) a = ck_coerce(cx, a, ty_is_float(a->ty) ? ty_num(SC_FLOAT) : ty_num(SC_INT), syn->kids[1], h);
        else if (a->kind == N_C_FLOATLIT && a->op == LIT_FLEX_FLOAT && ty_category(t) != CAT_FLOAT) {
            diag_error_at(D(cx), syn, "E0351", "`%s` of a float is not defined: choose truncate, floor, ceil or round", syn->kids[0]->name);
            return NULL;
        } else {
            Node *l = ck_coerce(cx, a, t, syn->kids[1], h);
            if (l && (l->kind == N_C_INTLIT || l->kind == N_C_FLOATLIT)) l->op = 0; /* exactly `t` now */
            return l;
        }
        if (!a) return NULL;
    }
    if (a->ty->kind == TY_ENUM && is_to) {
        /* an enumeration value converts to its int value */
        Node *c = ck_mk1(cx, N_C_CAST, syn, t, a);
        return c;
    }
    if (!ty_is_arith(a->ty) && a->ty->kind != TY_BOOL) {
        diag_error_at(D(cx), syn->kids[1], "E0352", "`%s` converts numbers, found `%s`", syn->kids[0]->name, ck_tname(cx, a->ty));
        return NULL;
    }
    if (ty_is_arith(t) && t->sc == SC_DOUBLE) ck_prog_of(cx)->uses_fp64 = 1;
    if (is_to) {
        if (a->ty->kind != TY_BOOL && ty_category(a->ty) == CAT_FLOAT && ty_category(t) != CAT_FLOAT) {
            diag_error_at(D(cx), syn, "E0351", "`%s` of `%s` is not defined: choose truncate, floor, ceil or round",
                          syn->kids[0]->name, ck_tname(cx, a->ty));
            return NULL;
        }
        int aw = a->ty->kind == TY_HWVEC ? a->ty->width : 1, tw = t->kind == TY_HWVEC ? t->width : 1;
        if (aw != tw) {
            diag_error_at(D(cx), syn, "E0353", "`%s` cannot change the number of components (%d to %d)", syn->kids[0]->name, aw, tw);
            return NULL;
        }
        if (ty_equal(a->ty, t)) return a;
        Node *c = ck_mk1(cx, N_C_CAST, syn, t, a);
        if (c && t->kind == TY_HWVEC) c->op = CAST_CONVERT;
        return c;
    }
    if (a->ty->kind == TY_BOOL || ty_sizeof(a->ty) != ty_sizeof(t)) {
        diag_error_at(D(cx), syn, "E0354", "`%s` reinterprets bits and needs a same-sized value: `%s` is %d bytes, `%s` is %d",
                      syn->kids[0]->name, ck_tname(cx, a->ty), a->ty->kind == TY_BOOL ? 1 : ty_sizeof(a->ty), ck_tname(cx, t), ty_sizeof(t));
        return NULL;
    }
    Node *c = ck_mk1(cx, N_C_CAST, syn, t, a);
    if (c) c->op = CAST_BITS;
    return c;
}
