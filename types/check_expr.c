/* check_expr.c - expressions: node builders, literals, coercion, operands.
 *
 * Why it exists: what every form of the expression files (expr_int.h
 * lists them by form family) builds on: the checked nodes, the typing of
 * literals, coercion of a value to the type its context wants (with the
 * hint a mismatch gets), compile-time integer constants and the
 * unification of operands.  Spec section "Numeric Type Promotion,
 * Casting, Conversion".  Every builtin is a row in the `builtins` table of
 * check_forms.c, its handler in the file of its family with its form
 * signature above it.
 *
 * Literal typing: an integer literal takes the numeric type its context
 * needs when the value fits (so `(+ u 1)` with u:ulong is ulong arithmetic
 * and `(* x 2)` with x:float multiplies by 2.0f); a float literal takes any
 * floating type but never becomes an integer.  Such context-free literals
 * are marked flexible (node->op = LIT_FLEX_INT / LIT_FLEX_FLOAT). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/suggest.h"
#include "consteval.h"
#include "../core/target.h"
#include "../macros/eval.h"
#include "expr_int.h"

const char *check_op_name(int op) {
    static const char *t[] = {
#define X(id, s) s,
        CHECK_OPS(X)
#undef X
    };
    return op >= 0 && op < OP__COUNT ? t[op] : "?";
}

const char *ck_tname(Ctx *cx, const Type *t) {
    return ty_name(cx->ck->a, t);
}

static Diag *D(Ctx *cx) {
    return cx->ck->d;
}

/* ck_mk's body, inline in the makers below (issue 14: ck_mk2 alone is
 * called 25,000 times at 1 MB, and called ck_mk); a kids array is
 * pointers: 8-byte aligned. */
static inline Node *mk(Ctx *cx, NodeKind k, const Node *at, Type *ty, int n) {
    Node *x = ck_node(cx, k, at, ty);
    if (n > 0) {
        x->kids = arena_alloc8(cx->ck->a, sizeof(Node *) * (size_t)n);
        if (!x->kids) return NULL;
    }
    return x;
}

Node *ck_mk(Ctx *cx, NodeKind k, const Node *at, Type *ty, int n) {
    return mk(cx, k, at, ty, n);
}

Node *ck_mk1(Ctx *cx, NodeKind k, const Node *at, Type *ty, Node *a) {
    Node *x = mk(cx, k, at, ty, 1);
    if (!x) return NULL;
    x->kids[0] = a;
    x->nkids = 1;
    return x;
}

Node *ck_mk2(Ctx *cx, NodeKind k, const Node *at, Type *ty, int op, Node *a, Node *b) {
    Node *x = mk(cx, k, at, ty, 2);
    if (!x) return NULL;
    x->op = op;
    x->kids[0] = a;
    x->kids[1] = b;
    x->nkids = 2;
    return x;
}

/* A call of builtin `op` (BUILTIN_OPS, check.h): the emitters spell it. */
Node *cx_call_n(Ctx *cx, const Node *at, Type *ty, int op, Node **args, int n) {
    Node *x = mk(cx, N_C_CALL, at, ty, n);
    if (!x) return NULL;
    x->op = op;
    for (int i = 0; i < n; i++) x->kids[i] = args[i];
    x->nkids = n;
    return x;
}

Node *ck_helper_call(Ctx *cx, const Node *at, Type *ty, Helper *h, Node **args, int n) {
    Node *x = h ? cx_call_n(cx, at, ty, BI_HELPER, args, n) : NULL;
    if (x) x->ival = h->index;
    return x;
}

const char *builtin_op_name(int op) {
    static const char *names[] = {
#define X(id, s) s,
        BUILTIN_OPS(X)
#undef X
    };
    return op >= 0 && op < BI__COUNT ? names[op] : "?";
}

int ck_node_has_effects(const Node *n) {
    if (!n) return 0;
    switch (n->kind) {
    case N_C_CALL:
    case N_C_ASSIGN:
    case N_C_BARRIER:
    case N_C_WARP: /* collective: never dropped, repeated or made conditional */
    case N_C_ATOMIC: return 1;
    default: break;
    }
    for (int i = 0; i < n->nkids; i++)
        if (ck_node_has_effects(n->kids[i])) return 1;
    return 0;
}

Node *ck_int_lit(Ctx *cx, const Node *at, int64_t v, Type *ty) {
    Node *x = ck_node(cx, N_C_INTLIT, at, ty);
    x->ival = v;
    return x;
}

Node *cx_float_lit(Ctx *cx, const Node *at, double v, Type *ty) {
    Node *x = ck_node(cx, N_C_FLOATLIT, at, ty);
    x->fval = v;
    if (ty->sc == SC_DOUBLE) ck_prog_of(cx)->uses_fp64 = 1;
    return x;
}

Node *cx_bool_lit(Ctx *cx, const Node *at, int v) {
    Node *x = ck_node(cx, N_C_BOOLLIT, at, &ty_bool);
    x->ival = v;
    return x;
}

/* The zero of a number, hardware-vector or bool type (a let variable
 * declared without an initial value starts at it), or NULL for others. */
Node *ck_zero_value(Ctx *cx, const Node *at, Type *ty) {
    if (!ty) return NULL;
    if (ty->kind == TY_BOOL) return cx_bool_lit(cx, at, 0);
    if (ty->kind != TY_NUM && ty->kind != TY_HWVEC) return NULL;
    Type *sc = ty_num(ty->sc);
    Node *z = ty_category(sc) == CAT_FLOAT ? cx_float_lit(cx, at, 0.0, sc) : ck_int_lit(cx, at, 0, sc);
    return z; /* a hardware vector: the scalar, broadcast (as coerce does) */
}

Node *cx_length_of(Ctx *cx, const Node *at, Sym *s) {
    if (sym_ndims(s)) return ck_tensor_length(cx, (Node *)at, s); /* the extents may have been set */
    Node *x = ck_node(cx, N_C_LENGTH, at, ty_num(SC_ULONG));
    x->sym = s;
    return x;
}

/* An identity tensor's element (i == j ? 1 : 0): like a literal it takes
 * the type its context wants (int without one). */
#define SEL_ADOPTS 1
static int adopts_type(const Node *n) { return n && n->kind == N_C_SELECT && n->op == SEL_ADOPTS; }

Node *ck_adopting_delta(Ctx *cx, const Node *at, Node *cond, int konst) {
    Node *one = ck_int_lit(cx, at, 1, ty_num(SC_INT)), *zero = ck_int_lit(cx, at, 0, ty_num(SC_INT));
    one->op = zero->op = LIT_FLEX_INT;
    if (!cond) return konst ? one : zero;
    Node *s = ck_mk(cx, N_C_SELECT, at, ty_num(SC_INT), 3);
    if (!s) return NULL;
    s->op = SEL_ADOPTS;
    s->kids[s->nkids++] = cond;
    s->kids[s->nkids++] = one;
    s->kids[s->nkids++] = zero;
    return s;
}

/* Does integer `v` fit scalar `s`? */
int cx_int_fits(int64_t v, int is_unsigned, Scalar s) {
    if (is_unsigned) return s == SC_ULONG || ty_scalar_info(s)->cat == CAT_FLOAT;
    switch (s) {
    case SC_CHAR: return v >= -128 && v <= 127;
    case SC_UCHAR: return v >= 0 && v <= 255;
    case SC_SHORT: return v >= -32768 && v <= 32767;
    case SC_USHORT: return v >= 0 && v <= 65535;
    case SC_INT: return v >= INT32_MIN && v <= INT32_MAX;
    case SC_UINT: return v >= 0 && v <= (int64_t)UINT32_MAX;
    case SC_LONG: return 1;
    case SC_ULONG: return v >= 0;
    default: return 1;
    }
}

/* A float literal as a message shows it: %g, with a decimal point kept
 * (`1.0`, not `1`, which reads as an integer). */
static const char *float_text(Ctx *cx, double v) {
    char buf[64];
    snprintf(buf, sizeof buf, "%g", v);
    if (!strpbrk(buf, ".eEni")) return arena_printf(cx->ck->a, "%s.0", buf);
    return arena_printf(cx->ck->a, "%s", buf);
}

/* Retype a flexible literal to `want` (scalar or hw-vector element). */
Node *cx_adapt_literal(Ctx *cx, Node *lit, Type *want, const Node *at) {
    Type *target = want->kind == TY_HWVEC ? ty_num(want->sc) : want;
    if (target->kind != TY_NUM) return NULL;
    Category cat = ty_scalar_info(target->sc)->cat;
    if (lit->kind == N_C_INTLIT || (lit->kind == N_C_FLOATLIT && lit->op == LIT_FLEX_INT)) {
        /* a whole float too large for a long saturates (then does not fit) */
        int64_t v = lit->kind == N_C_INTLIT ? lit->ival
                    : lit->fval >= 9.2e18   ? INT64_MAX
                    : lit->fval <= -9.2e18  ? INT64_MIN
                                            : (int64_t)lit->fval;
        int uns = lit->kind == N_C_INTLIT && lit->is_unsigned;
        if (cat == CAT_FLOAT) {
            Node *f = cx_float_lit(cx, at, uns ? (double)(uint64_t)v : (double)v, target);
            f->op = LIT_FLEX_INT;
            return f;
        }
        if (!cx_int_fits(v, uns, target->sc)) {
            if (cx->consteval) return constvec_wrap(cx, v, target, at); /* C's conversion */
            if (lit->kind == N_C_INTLIT && lit->radix) {
                /* a #x / #b literal: say what its bits need (docs/language.md) */
                int width = ty_scalar_info(target->sc)->size * 8;
                char bin[72] = "#b";
                int nb = 2;
                for (int b = 63; b >= 0; b--)
                    if (nb > 2 || ((uint64_t)v >> b & 1u) || b == 0) bin[nb++] = (char)('0' + (int)((uint64_t)v >> b & 1u));
                bin[nb] = 0;
                const char *as = lit->radix == 16 ? arena_printf(cx->ck->a, "#x%llX", (unsigned long long)(uint64_t)v)
                                                  : arena_printf(cx->ck->a, "%s", bin);
                int pattern = ty_scalar_info(target->sc)->cat == CAT_SIGNED && !uns && v >= 0 && width < 64 &&
                              v < ((int64_t)1 << width);
                if (pattern)
                    diag_error_at(D(cx), at, "E0303",
                                  "literal %s (%lld) does not fit in `%s`; only the bit operations (bit-and, bit-or, bit-xor, "
                                  "logand, logior, logxor) read it as a %d-bit pattern",
                                  as, (long long)v, ty_num_name(target), width);
                else
                    diag_error_at(D(cx), at, "E0303", "literal %s (%llu) does not fit in `%s`, not even as a %d-bit pattern", as,
                                  (unsigned long long)(uint64_t)v, ty_num_name(target), width);
                return NULL;
            }
            diag_error_at(D(cx), at, "E0303", "literal %lld does not fit in `%s`", (long long)v, ty_num_name(target));
            return NULL;
        }
        Node *n = ck_int_lit(cx, at, v, target);
        n->op = LIT_FLEX_INT;
        n->is_unsigned = uns;
        n->radix = lit->kind == N_C_INTLIT ? lit->radix : 0;
        return n;
    }
    if (cat != CAT_FLOAT) {
        if (cx->consteval) {
            constvec_float_error(cx, want, at);
            return NULL;
        }
        if (lit->fval == floor(lit->fval) && fabs(lit->fval) < 9.0e15)
            diag_error_at(D(cx), at, "E0304", "float literal `%s` where `%s` is needed; write the integer literal `%.0f`",
                          float_text(cx, lit->fval), ck_tname(cx, want), lit->fval);
        else
            diag_error_at(D(cx), at, "E0304",
                          "float literal `%s` where `%s` is needed; a float literal never becomes an integer (use truncate, floor, ceil or round)",
                          float_text(cx, lit->fval), ck_tname(cx, want));
        return NULL;
    }
    double av = lit->fval < 0 ? -lit->fval : lit->fval;
    if (target->sc != SC_DOUBLE && isfinite(av) &&
        (av > (target->sc == SC_FLOAT ? 3.4028234663852886e38 : 65504.0) ||
         (av != 0 && av < (target->sc == SC_FLOAT ? 1.401298464324817e-45 : 5.960464477539063e-8)))) {
        diag_error_at(D(cx), at, "E0346", "float literal `%s` is out of the range of `%s`%s", float_text(cx, lit->fval), ty_num_name(target),
                      target->sc == SC_FLOAT ? "; use a double (annotate the variable :double)" : "");
        return NULL;
    }
    Node *f = cx_float_lit(cx, at, lit->fval, target);
    f->op = LIT_FLEX_FLOAT;
    return f;
}

static const char *conversion_hint(Ctx *cx, const Type *have, const Type *want) {
    if (!ty_is_arith(have) || !ty_is_arith(want)) return "";
    if (ty_category(want) != CAT_FLOAT && ty_category(have) == CAT_FLOAT)
        return "; convert explicitly with truncate, floor, ceil or round";
    return arena_printf(cx->ck->a, "; convert explicitly with (to-%s ...)", ty_num_name(want));
}

/* The hint of E0312 (two operands that do not join), the same whatever the
 * operands' order: an integer mixed with a float converts the integer to
 * the float type (never truncates the float); an unsigned integer mixed with
 * a signed one converts the unsigned one to a signed type wide enough for
 * both (to-ulong would wrap a negative operand).  `args`/`syn` are the
 * operands seen so far (flexible literals skipped), `t` the type they
 * joined to, `b` the one that does not join.  Empty when no conversion is
 * right (hardware vectors of different widths and the like). */
const char *cx_mix_hint(Ctx *cx, Node **args, Node **syn, int n, const Type *t, const Type *b) {
    if (t->kind != TY_NUM || b->kind != TY_NUM) return "";
    Category ct = ty_category(t), cb = ty_category(b);
    Scalar target;
    Category from;
    if (ct == CAT_FLOAT || cb == CAT_FLOAT) {
        target = ct == CAT_FLOAT ? t->sc : b->sc;
        if (ct == CAT_FLOAT && cb == CAT_FLOAT) return "";
        from = ct == CAT_FLOAT ? cb : ct;
    } else if (ct != cb) {
        const Type *s = ct == CAT_SIGNED ? t : b, *u = ct == CAT_SIGNED ? b : t;
        int size = ty_scalar_info(u->sc)->size * 2;
        if (size > 8) size = 8;
        if (ty_scalar_info(s->sc)->size > size) size = ty_scalar_info(s->sc)->size;
        target = size == 1 ? SC_CHAR : size == 2 ? SC_SHORT : size == 4 ? SC_INT : SC_LONG;
        from = CAT_UNSIGNED;
    } else {
        return "";
    }
    const char *tn = ty_scalar_info(target)->name;
    int count = 0, which = -1;
    for (int i = 0; i < n; i++) {
        if (!args[i] || cx_is_flex(args[i]) || adopts_type(args[i]) || args[i]->ty->kind != TY_NUM) continue;
        if (ty_category(args[i]->ty) == from) {
            count++;
            which = i;
        }
    }
    if (count == 1 && cx->loop_test_var && args[which]->kind == N_C_VAR && args[which]->sym == cx->loop_test_var) {
        /* a loop's own index (dotimes (i COUNT)): the user writes no test,
           so the fix is the index's type, or an integer count */
        const char *iv = cx->loop_test_var->name;
        if (ct == CAT_FLOAT || cb == CAT_FLOAT)
            return arena_printf(cx->ck->a, "; a loop counts in integers: round the count up, as in (dotimes (%s:%s (ceil COUNT)) ...)",
                                iv, target == SC_DOUBLE ? "long" : "int");
        return arena_printf(cx->ck->a, "; give the loop index the count's type, as in (dotimes (%s:%s COUNT) ...)", iv,
                            ty_scalar_info((ct == CAT_SIGNED ? t : b)->sc)->name);
    }
    const char *kind = from == CAT_UNSIGNED ? "unsigned" : "integer";
    int ulong_operand = (ct == CAT_UNSIGNED && t->sc == SC_ULONG) || (cb == CAT_UNSIGNED && b->sc == SC_ULONG);
    int float_mix = ct == CAT_FLOAT || cb == CAT_FLOAT;
    if (float_mix) kind = "integer";
    const char *caveat = !float_mix && ulong_operand ? " (right while it is below 2^63, as indices and sizes are)" : "";
    if (count == 1)
        return arena_printf(cx->ck->a, "; convert the %s operand: (to-%s %s)%s", kind, tn, syn_to_string(cx->ck->a, syn[which], 40), caveat);
    return arena_printf(cx->ck->a, "; convert the %s operands with (to-%s ...)%s", kind, tn, caveat);
}

/* A struct value seen as a related (derived) struct type: free when both
 * are the same C type (def-derived-type is a typedef), a reinterpretation
 * of a private variable otherwise (set-derived). */
Node *cx_retype_struct(Ctx *cx, Node *val, Type *want, const Node *at) {
    int same_c = want->sd->orig_syn ? want->sd->derived_from == val->ty->sd
                 : val->ty->sd->orig_syn ? val->ty->sd->derived_from == want->sd : 0;
    Node *c = ck_mk1(cx, N_C_CAST, at, want, val);
    if (!c) return NULL;
    if (same_c) {
        c->op = CAST_SAME; /* the same value */
        return c;
    }
    if (val->kind != N_C_VAR) {
        diag_error_at(D(cx), at, "E0165", "a `%s` seen as a `%s` must be a variable (set-derived reinterprets its bytes)",
                      ck_tname(cx, val->ty), ck_tname(cx, want));
        return NULL;
    }
    c->op = CAST_REINTERPRET; /* the bytes of one struct as the other */
    return c;
}

/* VAL, of a derived struct type or its original, as WANT (as-original). */
Node *ck_struct_as(Ctx *cx, Node *val, Type *want, const Node *at) {
    return cx_retype_struct(cx, val, want, at);
}

/* ck_coerce; WHAT NULL: "ROLE `NAME` of `OWNER`" (a message made only
 * when it is needed: issue 14, every argument of every call printed
 * one). */
static Node *coerce_as(Ctx *cx, Node *val, Type *want, const Node *at, const char *what, const char *role, const char *name,
                       const char *owner) {
    if (!val || !want) return val;
    Type *have = val->ty;
    if (!have) return NULL;
    if (ty_equal(have, want) && !(cx_is_flex(val) && want->kind == TY_HWVEC)) return val;
    if (adopts_type(val) && want->kind == TY_NUM) {
        /* an identity tensor's element: 1 and 0 of the context's type */
        Node *one = cx_adapt_literal(cx, val->kids[1], want, at), *zero = cx_adapt_literal(cx, val->kids[2], want, at);
        if (!one || !zero) return NULL;
        val->kids[1] = one;
        val->kids[2] = zero;
        val->ty = want;
        return val;
    }
    if (have->kind == TY_IDENT && want->kind == TY_IDENT && (!want->ndims || want->ndims == have->ndims)) return val;
    if (cx_is_flex(val) && ty_is_arith(want)) {
        Node *l = cx_adapt_literal(cx, val, want, at);
        return l;
    }
    if (have->kind == TY_TUPLE && have->nelems > 0) {
        /* one-value context: the first value */
        val->ty = have->elems[0];
        return coerce_as(cx, val, want, at, what, role, name, owner);
    }
    if (ty_widens(have, want)) {
        if (have->kind == TY_HWVEC) {
            Node *c = ck_mk1(cx, N_C_CAST, at, want, val);
            if (c) c->op = CAST_CONVERT;
            return c;
        }
        return val; /* C widens scalars implicitly */
    }
    if (have->kind == TY_NUM && want->kind == TY_HWVEC && ty_widens(have, ty_num(want->sc))) {
        return val; /* scalar broadcast */
    }
    if (want->kind == TY_VECTOR && have->kind == TY_VECTOR) return val; /* checked by callers */
    if (ck_struct_subst_ok(have, want)) return cx_retype_struct(cx, val, want, at);
    Node *ct;
    if (cx->consteval && constvec_convert(cx, val, want, at, &ct)) return ct; /* C's conversions */
    if (!what) what = arena_printf(cx->ck->a, "%s `%s` of `%s`", role, name, owner);
    diag_error_at(D(cx), at, "E0310", "%s: expected `%s`, found `%s`%s", what, ck_tname(cx, want), ck_tname(cx, have),
                  conversion_hint(cx, have, want));
    return NULL;
}

Node *ck_coerce_other(Ctx *cx, Node *val, Type *want, const Node *at, const char *what) {
    return coerce_as(cx, val, want, at, what, NULL, NULL, NULL);
}

Node *ck_coerce_part(Ctx *cx, Node *val, Type *want, const Node *at, const char *role, const char *name, const char *owner) {
    return coerce_as(cx, val, want, at, NULL, role, name, owner);
}

/* ---- compile-time integer constants ---- */

/* The value of checked expression N when it is an integer constant (the
 * constant evaluator, consteval.c; nothing reported). */
int ck_const_int(Ctx *cx, Node *n, int64_t *out) {
    if (!n) return 0;
    if (n->kind == N_C_INTLIT && ty_is_int(n->ty)) {
        *out = n->ival;
        return 1;
    }
    if (n->kind == N_C_FLOATLIT && n->op == LIT_FLEX_INT) {
        *out = (int64_t)n->fval;
        return 1;
    }
    if (n->kind == N_C_VAR && !(n->sym && (n->sym->kind == SYM_CONST || n->sym->kind == SYM_PARAMETER) && sym_rare(n->sym)->value))
        return 0; /* a variable, as the evaluator would find (issue 14: every (~ v i) asked it) */
    CeVal v;
    return ce_constant(cx->ck, NULL, n, 0, 0, &v) == CE_DONE && v.k == CE_INT && ce_int64(&v, out);
}

/* The value of syntax SYN when it is an integer constant: its macros
 * expanded, checked as an expression in a scratch context (CX's variables
 * visible, nothing reported, nothing kept), then computed by the constant
 * evaluator.  Only side-effect-free forms are tried (ce_syntax). */
int ck_const_syn_int(Ctx *cx, Node *syn, int64_t *out) {
    if (syn && syn->kind == N_LIST) syn = ck_expand_all(cx->ck, syn);
    if (!syn) return 0;
    if (syn->kind == N_INT) {
        *out = syn->ival;
        return !syn->is_unsigned || syn->ival >= 0;
    }
    CeVal v;
    return ce_syntax(cx, syn, &v) && v.k == CE_INT && ce_int64(&v, out);
}

/* ---- operands ---- */

const char *const cx_statement_heads[] = {"let", "let*", "progn", "if", "%loop", "multiple-value-bind", "%no-barrier", "%grid-body", "return", "result", "let-maybe", "%uniform", "%uniform*", "%native-warp-if", NULL};

int ck_is_value_form(Ctx *cx, const Node *syn) {
    const char *h = syn_head(syn);
    return !(h && (ck_head(cx->ck, h)->flags & HEAD_STATEMENT) && strcmp(h, "if") != 0);
}

/* The bit operations, whose #x / #b literal operands are bit patterns. */
static int is_bit_op(const char *what) {
    static const char *const ops[] = {"bit-and", "bit-or", "bit-xor", "logand", "logior", "logxor", NULL};
    if (what[0] != 'b' && what[0] != 'l') return 0; /* the first letters of ops (asked by every cx_unify) */
    for (int i = 0; ops[i]; i++)
        if (syn_streq(ops[i], what)) return 1;
    return 0;
}

/* spec "lisp" forms bit-and ... logxor (decision in docs/language.md, "Hexadecimal and
 * binary literals in bit operations"): in a bit operation on a signed integer
 * type, a #x / #b literal that fits the type's width as an unsigned number
 * is that bit pattern, as a GPU programmer reads `(logxor v #x80000000)`
 * with v an int: flip the sign bit (C gets there by making the literal a
 * uint).  LIT becomes the signed value with those bits (#x80000000 as an
 * int: INT_MIN); one wider than the width is left alone, for E0303. */
static void bit_pattern_literal(Node *lit, const Type *t) {
    if (lit->kind != N_C_INTLIT || !lit->radix || !cx_is_flex(lit)) return;
    if (t->kind != TY_NUM && t->kind != TY_HWVEC) return;
    const ScalarInfo *si = ty_scalar_info(t->sc);
    if (si->cat != CAT_SIGNED) return;
    int bits = si->size * 8;
    if (bits == 64) {
        lit->is_unsigned = 0; /* already the 64 bits, read as a long */
        return;
    }
    if (!lit->is_unsigned && lit->ival >= ((int64_t)1 << (bits - 1)) && lit->ival < ((int64_t)1 << bits))
        lit->ival -= (int64_t)1 << bits;
}

/* Check the operands of an arithmetic-like form and bring them to one
 * type.  Returns that type (NULL on error); args[] receive the checked
 * operands. */
Type *cx_unify(Ctx *cx, Node *form, Node **syn, int n, Node **args, Type *want, const char *what) {
    Type *t = NULL;
    int any_float_lit = 0;
    int bit_op = is_bit_op(what);
    for (int i = 0; i < n; i++) {
        /* a bit pattern literal takes its type from the other operands */
        int pattern = bit_op && syn[i] && syn[i]->kind == N_INT && syn[i]->radix;
        args[i] = ck_expr(cx, syn[i], ty_is_arith(want) && !pattern ? want : NULL);
        if (!args[i]) return NULL;
        if (args[i]->ty->kind == TY_TUPLE) args[i]->ty = args[i]->ty->elems[0];
        if (!ty_is_arith(args[i]->ty)) {
            diag_error_at(D(cx), syn[i], "E0311", "`%s` needs numbers, found `%s`", what, ck_tname(cx, args[i]->ty));
            return NULL;
        }
        if (cx_is_flex(args[i]) || adopts_type(args[i])) {
            if (args[i]->kind == N_C_FLOATLIT && args[i]->op == LIT_FLEX_FLOAT) any_float_lit = 1;
            continue;
        }
        if (!t) {
            t = args[i]->ty;
            continue;
        }
        Type *j = ty_join(t, args[i]->ty);
        if (!j && cx->consteval) j = constvec_join(t, args[i]->ty); /* C's usual arithmetic conversions */
        if (!j) {
            diag_error_at(D(cx), syn[i], "E0312",
                          "`%s` mixes `%s` and `%s`: Crisp converts implicitly only to a wider type of the same kind (signed, unsigned, floating)%s",
                          what, ck_tname(cx, t), ck_tname(cx, args[i]->ty), cx_mix_hint(cx, args, syn, i + 1, t, args[i]->ty));
            (void)form;
            return NULL;
        }
        t = j;
    }
    if (t && any_float_lit && cx->consteval && ty_is_int(t)) {
        /* an integer and a float literal in a compile-time body: C computes
           in the floating type */
        t = ty_is_float(want) ? want : ty_num(SC_FLOAT);
    } else if (t && any_float_lit && ty_is_int(t)) {
        /* (+ a 1.0) with a:int: truncating the literal is not the fix */
        int lit = -1, count = 0, which = -1;
        for (int i = 0; i < n; i++) {
            if (args[i]->kind == N_C_FLOATLIT && args[i]->op == LIT_FLEX_FLOAT && lit < 0) lit = i;
            if (!cx_is_flex(args[i]) && !adopts_type(args[i]) && ty_is_int(args[i]->ty)) {
                count++;
                which = i;
            }
        }
        if (lit >= 0) {
            const char *conv = count == 1 ? arena_printf(cx->ck->a, "(to-float %s)", syn_to_string(cx->ck->a, syn[which], 40))
                                          : "(to-float ...) on the integer operands";
            diag_error_at(D(cx), syn[lit], "E0304",
                          "`%s` mixes `%s` and the float literal `%s`: for an integer result write an integer literal; "
                          "for a float result convert the integer: %s",
                          what, ck_tname(cx, t), float_text(cx, args[lit]->fval), conv);
            return NULL;
        }
    } else if (!t) {
        if (ty_is_arith(want) && (!cx->consteval || constvec_literals_fit(args, n, want))) t = want;
        else t = any_float_lit ? ty_num(SC_FLOAT) : NULL;
        if (!t) {
            /* all integer literals: int unless one needs more */
            t = ty_num(SC_INT);
            for (int i = 0; i < n; i++) {
                int64_t v = args[i]->kind == N_C_INTLIT ? args[i]->ival : 0;
                if (args[i]->kind == N_C_INTLIT && args[i]->is_unsigned) t = ty_num(SC_ULONG);
                else if (!cx_int_fits(v, 0, SC_INT) && t->sc == SC_INT) t = ty_num(SC_LONG);
            }
        }
    }
    for (int i = 0; i < n; i++) {
        if (bit_op) bit_pattern_literal(args[i], t);
        args[i] = ck_coerce(cx, args[i], t, syn[i], what);
        if (!args[i]) return NULL;
    }
    return t;
}

/* Bind `e` to a temporary unless it is a plain variable or literal, so it
 * can be used twice without evaluating it twice. */
Node *cx_simple(Ctx *cx, Node *e, const Node *at) {
    if (!e || e->kind == N_C_VAR || e->kind == N_C_INTLIT || e->kind == N_C_FLOATLIT || e->kind == N_C_BOOLLIT ||
        e->kind == N_C_LENGTH)
        return e;
    Sym *t = ck_declare_temp(cx, at, "tmp", e->ty, e);
    return t ? ck_var_ref(cx, at, t) : NULL;
}

int ck_nargs_report(Ctx *cx, Node *syn, int lo, int hi) {
    int n = syn->nkids - 1;
    const char *h = syn->kids[0]->name;
    if (hi < 0)
        diag_error_at(D(cx), syn, "E0320", "`%s` takes at least %d argument%s, found %d", h, lo, lo == 1 ? "" : "s", n);
    else if (lo == hi)
        diag_error_at(D(cx), syn, "E0320", "`%s` takes %d argument%s, found %d", h, lo, lo == 1 ? "" : "s", n);
    else
        diag_error_at(D(cx), syn, "E0320", "`%s` takes %d to %d arguments, found %d", h, lo, hi, n);
    return 0;
}
