/* check_expr.c - expressions: literals, operators, builtins, vectors.
 *
 * Spec sections "Numeric Type Promotion, Casting, Conversion", "Arithmetic",
 * "Integer Division", "Dereferencing and Swizzles", "Vectors and
 * Vector-View" (element access), "Builtin GPU Functions & Constants",
 * "Barriers and Fences", "Atomics" and "Hoisting and Enqueing a Kernel"
 * (check-thread-bounds).  Every builtin is a row in the `builtins` table at
 * the end of this file with its form signature above its handler.
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

#define LIT_FLEX_INT 1
#define LIT_FLEX_FLOAT 2

Node *global_const_value(Checker *ck, Sym *s);
Node *cond_value(Ctx *cx, Node *syn);
int mv_values(Ctx *cx, Node *syn, int n, Node **out, int in_order);
static Type *branch_type(Node *a, Node *b, Type *want);
static Node *view_set_parent(Ctx *cx, Node *place_syn, Node *value);
static Node *setter_call(Ctx *cx, Node *place_syn, Node *value);
static int fit(const Node *a, const Type *p);
static Node *accessor(Ctx *cx, Node *syn);

const char *check_op_text(int op) {
    static const char *t[] = {
#define X(id, s) s,
        CHECK_OPS(X)
#undef X
    };
    return op >= 0 && op < OP__COUNT ? t[op] : "?";
}

const char *tname(Ctx *cx, const Type *t) {
    return ty_name(cx->ck->a, t);
}

static Diag *D(Ctx *cx) {
    return cx->ck->d;
}

Node *mk(Ctx *cx, NodeKind k, const Node *at, Type *ty, int n) {
    Node *x = ck_node(cx, k, at, ty);
    if (n > 0) {
        x->kids = arena_alloc(cx->ck->a, sizeof(Node *) * (size_t)n);
        if (!x->kids) return NULL;
    }
    return x;
}

Node *mk1(Ctx *cx, NodeKind k, const Node *at, Type *ty, Node *a) {
    Node *x = mk(cx, k, at, ty, 1);
    if (!x) return NULL;
    x->kids[0] = a;
    x->nkids = 1;
    return x;
}

Node *mk2(Ctx *cx, NodeKind k, const Node *at, Type *ty, int op, Node *a, Node *b) {
    Node *x = mk(cx, k, at, ty, 2);
    if (!x) return NULL;
    x->op = op;
    x->kids[0] = a;
    x->kids[1] = b;
    x->nkids = 2;
    return x;
}

/* A call of builtin `op` (BUILTIN_OPS, check.h): the emitters spell it. */
static Node *call_n(Ctx *cx, const Node *at, Type *ty, int op, Node **args, int n) {
    Node *x = mk(cx, N_C_CALL, at, ty, n);
    if (!x) return NULL;
    x->op = op;
    for (int i = 0; i < n; i++) x->kids[i] = args[i];
    x->nkids = n;
    return x;
}

Node *helper_call(Ctx *cx, const Node *at, Type *ty, Helper *h, Node **args, int n) {
    Node *x = h ? call_n(cx, at, ty, BI_HELPER, args, n) : NULL;
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

int node_has_effects(const Node *n) {
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
        if (node_has_effects(n->kids[i])) return 1;
    return 0;
}

Node *int_lit(Ctx *cx, const Node *at, int64_t v, Type *ty) {
    Node *x = ck_node(cx, N_C_INTLIT, at, ty);
    x->ival = v;
    return x;
}

static Node *float_lit(Ctx *cx, const Node *at, double v, Type *ty) {
    Node *x = ck_node(cx, N_C_FLOATLIT, at, ty);
    x->fval = v;
    if (ty->sc == SC_DOUBLE) prog_of(cx)->uses_fp64 = 1;
    return x;
}

static Node *bool_lit(Ctx *cx, const Node *at, int v) {
    Node *x = ck_node(cx, N_C_BOOLLIT, at, &ty_bool);
    x->ival = v;
    return x;
}

/* The zero of a number, hardware-vector or bool type (a let variable
 * declared without an initial value starts at it), or NULL for others. */
Node *zero_value(Ctx *cx, const Node *at, Type *ty) {
    if (!ty) return NULL;
    if (ty->kind == TY_BOOL) return bool_lit(cx, at, 0);
    if (ty->kind != TY_NUM && ty->kind != TY_HWVEC) return NULL;
    Type *sc = ty_num(ty->sc);
    Node *z = ty_category(sc) == CAT_FLOAT ? float_lit(cx, at, 0.0, sc) : int_lit(cx, at, 0, sc);
    return z; /* a hardware vector: the scalar, broadcast (as coerce does) */
}

Node *var_ref(Ctx *cx, const Node *at, Sym *s) {
    Node *x = ck_node(cx, N_C_VAR, at, s->ty);
    x->sym = s;
    return x;
}

static Node *length_of(Ctx *cx, const Node *at, Sym *s) {
    if (sym_ndims(s)) return tensor_length(cx, (Node *)at, s); /* the extents may have been set */
    Node *x = ck_node(cx, N_C_LENGTH, at, ty_num(SC_ULONG));
    x->sym = s;
    return x;
}

static int is_flex(const Node *n) {
    return n && (n->kind == N_C_INTLIT || n->kind == N_C_FLOATLIT) && n->op != 0;
}

/* An identity tensor's element (i == j ? 1 : 0): like a literal it takes
 * the type its context wants (int without one). */
#define SEL_ADOPTS 1
static int adopts_type(const Node *n) { return n && n->kind == N_C_SELECT && n->op == SEL_ADOPTS; }

Node *adopting_delta(Ctx *cx, const Node *at, Node *cond, int konst) {
    Node *one = int_lit(cx, at, 1, ty_num(SC_INT)), *zero = int_lit(cx, at, 0, ty_num(SC_INT));
    one->op = zero->op = LIT_FLEX_INT;
    if (!cond) return konst ? one : zero;
    Node *s = mk(cx, N_C_SELECT, at, ty_num(SC_INT), 3);
    if (!s) return NULL;
    s->op = SEL_ADOPTS;
    s->kids[s->nkids++] = cond;
    s->kids[s->nkids++] = one;
    s->kids[s->nkids++] = zero;
    return s;
}

/* Does integer `v` fit scalar `s`? */
static int int_fits(int64_t v, int is_unsigned, Scalar s) {
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
static Node *adapt_literal(Ctx *cx, Node *lit, Type *want, const Node *at) {
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
            Node *f = float_lit(cx, at, uns ? (double)(uint64_t)v : (double)v, target);
            f->op = LIT_FLEX_INT;
            return f;
        }
        if (!int_fits(v, uns, target->sc)) {
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
                                  as, (long long)v, ty_cname(target), width);
                else
                    diag_error_at(D(cx), at, "E0303", "literal %s (%llu) does not fit in `%s`, not even as a %d-bit pattern", as,
                                  (unsigned long long)(uint64_t)v, ty_cname(target), width);
                return NULL;
            }
            diag_error_at(D(cx), at, "E0303", "literal %lld does not fit in `%s`", (long long)v, ty_cname(target));
            return NULL;
        }
        Node *n = int_lit(cx, at, v, target);
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
                          float_text(cx, lit->fval), tname(cx, want), lit->fval);
        else
            diag_error_at(D(cx), at, "E0304",
                          "float literal `%s` where `%s` is needed; a float literal never becomes an integer (use truncate, floor, ceil or round)",
                          float_text(cx, lit->fval), tname(cx, want));
        return NULL;
    }
    double av = lit->fval < 0 ? -lit->fval : lit->fval;
    if (target->sc != SC_DOUBLE && isfinite(av) &&
        (av > (target->sc == SC_FLOAT ? 3.4028234663852886e38 : 65504.0) ||
         (av != 0 && av < (target->sc == SC_FLOAT ? 1.401298464324817e-45 : 5.960464477539063e-8)))) {
        diag_error_at(D(cx), at, "E0346", "float literal `%s` is out of the range of `%s`%s", float_text(cx, lit->fval), ty_cname(target),
                      target->sc == SC_FLOAT ? "; use a double (annotate the variable :double)" : "");
        return NULL;
    }
    Node *f = float_lit(cx, at, lit->fval, target);
    f->op = LIT_FLEX_FLOAT;
    return f;
}

static const char *conversion_hint(Ctx *cx, const Type *have, const Type *want) {
    if (!ty_is_arith(have) || !ty_is_arith(want)) return "";
    if (ty_category(want) != CAT_FLOAT && ty_category(have) == CAT_FLOAT)
        return "; convert explicitly with truncate, floor, ceil or round";
    return arena_printf(cx->ck->a, "; convert explicitly with (to-%s ...)", ty_cname(want));
}

/* The hint of E0312 (two operands that do not join), the same whatever the
 * operands' order: an integer mixed with a float converts the integer to
 * the float type (never truncates the float); an unsigned integer mixed with
 * a signed one converts the unsigned one to a signed type wide enough for
 * both (to-ulong would wrap a negative operand).  `args`/`syn` are the
 * operands seen so far (flexible literals skipped), `t` the type they
 * joined to, `b` the one that does not join.  Empty when no conversion is
 * right (hardware vectors of different widths and the like). */
static const char *mix_hint(Ctx *cx, Node **args, Node **syn, int n, const Type *t, const Type *b) {
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
        if (!args[i] || is_flex(args[i]) || adopts_type(args[i]) || args[i]->ty->kind != TY_NUM) continue;
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
static Node *retype_struct(Ctx *cx, Node *val, Type *want, const Node *at) {
    int same_c = want->sd->orig_syn ? want->sd->derived_from == val->ty->sd
                 : val->ty->sd->orig_syn ? val->ty->sd->derived_from == want->sd : 0;
    Node *c = mk1(cx, N_C_CAST, at, want, val);
    if (!c) return NULL;
    if (same_c) {
        c->op = CAST_SAME; /* the same value */
        return c;
    }
    if (val->kind != N_C_VAR) {
        diag_error_at(D(cx), at, "E0165", "a `%s` seen as a `%s` must be a variable (set-derived reinterprets its bytes)",
                      tname(cx, val->ty), tname(cx, want));
        return NULL;
    }
    c->op = CAST_REINTERPRET; /* the bytes of one struct as the other */
    return c;
}

/* VAL, of a derived struct type or its original, as WANT (as-original). */
Node *struct_as(Ctx *cx, Node *val, Type *want, const Node *at) {
    return retype_struct(cx, val, want, at);
}

Node *coerce(Ctx *cx, Node *val, Type *want, const Node *at, const char *what) {
    if (!val || !want) return val;
    Type *have = val->ty;
    if (!have) return NULL;
    if (ty_equal(have, want) && !(is_flex(val) && want->kind == TY_HWVEC)) return val;
    if (adopts_type(val) && want->kind == TY_NUM) {
        /* an identity tensor's element: 1 and 0 of the context's type */
        Node *one = adapt_literal(cx, val->kids[1], want, at), *zero = adapt_literal(cx, val->kids[2], want, at);
        if (!one || !zero) return NULL;
        val->kids[1] = one;
        val->kids[2] = zero;
        val->ty = want;
        return val;
    }
    if (have->kind == TY_IDENT && want->kind == TY_IDENT && (!want->ndims || want->ndims == have->ndims)) return val;
    if (is_flex(val) && ty_is_arith(want)) {
        Node *l = adapt_literal(cx, val, want, at);
        return l;
    }
    if (have->kind == TY_TUPLE && have->nelems > 0) {
        /* one-value context: the first value */
        val->ty = have->elems[0];
        return coerce(cx, val, want, at, what);
    }
    if (ty_widens(have, want)) {
        if (have->kind == TY_HWVEC) {
            Node *c = mk1(cx, N_C_CAST, at, want, val);
            if (c) c->op = CAST_CONVERT;
            return c;
        }
        return val; /* C widens scalars implicitly */
    }
    if (have->kind == TY_NUM && want->kind == TY_HWVEC && ty_widens(have, ty_num(want->sc))) {
        return val; /* scalar broadcast */
    }
    if (want->kind == TY_VECTOR && have->kind == TY_VECTOR) return val; /* checked by callers */
    if (struct_subst_ok(have, want)) return retype_struct(cx, val, want, at);
    Node *ct;
    if (cx->consteval && constvec_convert(cx, val, want, at, &ct)) return ct; /* C's conversions */
    diag_error_at(D(cx), at, "E0310", "%s: expected `%s`, found `%s`%s", what, tname(cx, want), tname(cx, have),
                  conversion_hint(cx, have, want));
    return NULL;
}

/* ---- compile-time integer constants ---- */

/* The value of checked expression N when it is an integer constant (the
 * constant evaluator, consteval.c; nothing reported). */
int const_int(Ctx *cx, Node *n, int64_t *out) {
    if (!n) return 0;
    if (n->kind == N_C_INTLIT && ty_is_int(n->ty)) {
        *out = n->ival;
        return 1;
    }
    if (n->kind == N_C_FLOATLIT && n->op == LIT_FLEX_INT) {
        *out = (int64_t)n->fval;
        return 1;
    }
    CeVal v;
    return ce_constant(cx->ck, NULL, n, 0, 0, &v) == CE_DONE && v.k == CE_INT && ce_int64(&v, out);
}

/* The value of syntax SYN when it is an integer constant: its macros
 * expanded, checked as an expression in a scratch context (CX's variables
 * visible, nothing reported, nothing kept), then computed by the constant
 * evaluator.  Only side-effect-free forms are tried (ce_syntax). */
int const_syn_int(Ctx *cx, Node *syn, int64_t *out) {
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

static int is_statement_head(const char *h) {
    static const char *stm[] = {"let", "let*", "progn", "if", "%loop", "multiple-value-bind", "%no-barrier", "%grid-body", "return", "result", "let-maybe", "%uniform", "%uniform*", NULL};
    for (int i = 0; stm[i]; i++)
        if (syn_streq(stm[i], h)) return 1;
    return 0;
}

int is_value_form(Ctx *cx, const Node *syn) {
    (void)cx;
    const char *h = syn_head(syn);
    return !(h && is_statement_head(h) && strcmp(h, "if") != 0);
}

/* The bit operations, whose #x / #b literal operands are bit patterns. */
static int is_bit_op(const char *what) {
    static const char *const ops[] = {"bit-and", "bit-or", "bit-xor", "logand", "logior", "logxor", NULL};
    for (int i = 0; ops[i]; i++)
        if (!strcmp(ops[i], what)) return 1;
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
    if (lit->kind != N_C_INTLIT || !lit->radix || !is_flex(lit)) return;
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
static Type *unify(Ctx *cx, Node *form, Node **syn, int n, Node **args, Type *want, const char *what) {
    Type *t = NULL;
    int any_float_lit = 0;
    int bit_op = is_bit_op(what);
    for (int i = 0; i < n; i++) {
        /* a bit pattern literal takes its type from the other operands */
        int pattern = bit_op && syn[i] && syn[i]->kind == N_INT && syn[i]->radix;
        args[i] = expr(cx, syn[i], ty_is_arith(want) && !pattern ? want : NULL);
        if (!args[i]) return NULL;
        if (args[i]->ty->kind == TY_TUPLE) args[i]->ty = args[i]->ty->elems[0];
        if (!ty_is_arith(args[i]->ty)) {
            diag_error_at(D(cx), syn[i], "E0311", "`%s` needs numbers, found `%s`", what, tname(cx, args[i]->ty));
            return NULL;
        }
        if (is_flex(args[i]) || adopts_type(args[i])) {
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
                          what, tname(cx, t), tname(cx, args[i]->ty), mix_hint(cx, args, syn, i + 1, t, args[i]->ty));
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
            if (!is_flex(args[i]) && !adopts_type(args[i]) && ty_is_int(args[i]->ty)) {
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
                          what, tname(cx, t), float_text(cx, args[lit]->fval), conv);
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
                else if (!int_fits(v, 0, SC_INT) && t->sc == SC_INT) t = ty_num(SC_LONG);
            }
        }
    }
    for (int i = 0; i < n; i++) {
        if (bit_op) bit_pattern_literal(args[i], t);
        args[i] = coerce(cx, args[i], t, syn[i], what);
        if (!args[i]) return NULL;
    }
    return t;
}

/* Bind `e` to a temporary unless it is a plain variable or literal, so it
 * can be used twice without evaluating it twice. */
static Node *simple(Ctx *cx, Node *e, const Node *at) {
    if (!e || e->kind == N_C_VAR || e->kind == N_C_INTLIT || e->kind == N_C_FLOATLIT || e->kind == N_C_BOOLLIT ||
        e->kind == N_C_LENGTH)
        return e;
    Sym *t = new_temp(cx, at, "tmp", e->ty);
    if (!t) return NULL;
    Node *d = ck_node(cx, N_C_DECL, at, e->ty);
    d->sym = t;
    d->kids = arena_alloc(cx->ck->a, sizeof(Node *));
    if (!d->kids) return NULL;
    d->kids[0] = e;
    d->nkids = 1;
    emit_stmt(cx, d);
    return var_ref(cx, at, t);
}

int nargs_ok(Ctx *cx, Node *syn, int lo, int hi) {
    int n = syn->nkids - 1;
    if (n < lo || (hi >= 0 && n > hi)) {
        const char *h = syn->kids[0]->name;
        if (hi < 0)
            diag_error_at(D(cx), syn, "E0320", "`%s` takes at least %d argument%s, found %d", h, lo, lo == 1 ? "" : "s", n);
        else if (lo == hi)
            diag_error_at(D(cx), syn, "E0320", "`%s` takes %d argument%s, found %d", h, lo, lo == 1 ? "" : "s", n);
        else
            diag_error_at(D(cx), syn, "E0320", "`%s` takes %d to %d arguments, found %d", h, lo, hi, n);
        return 0;
    }
    return 1;
}

/* ---- arithmetic ---- */

/* An operation whose operands were all context-free literals is itself a
 * context-free constant: fold it so it keeps adapting to its context. */
static Node *fold_flexible(Ctx *cx, Node *syn, Node *res, Node **args, int n) {
    for (int i = 0; i < n; i++)
        if (!is_flex(args[i])) return res;
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
        if (t->sc != SC_ULONG && !int_fits(v, 0, t->sc)) t = ty_num(SC_LONG);
        Node *l = int_lit(cx, syn, v, t);
        l->op = LIT_FLEX_INT;
        l->is_unsigned = t->sc == SC_ULONG && v < 0;
        return l;
    }
    return res;
}

/* (+ A B...)  (- A B...)  (* A B...)  (/ A B...)   spec "Arithmetic" */
static Node *b_arith(Ctx *cx, Node *syn, Type *want) {
    const char *h = syn->kids[0]->key;
    int op = !strcmp(h, "+") ? OP_ADD : !strcmp(h, "-") ? OP_SUB : !strcmp(h, "*") ? OP_MUL : OP_DIV;
    int n = syn->nkids - 1;
    if (n == 0) {
        if (op == OP_ADD || op == OP_MUL) return int_lit(cx, syn, op == OP_MUL, ty_num(SC_INT));
        nargs_ok(cx, syn, 1, -1);
        return NULL;
    }
    Node *args[64];
    if (n > 64) {
        diag_error_at(D(cx), syn, "E0320", "`%s` takes at most 64 arguments", h);
        return NULL;
    }
    Type *t = unify(cx, syn, syn->kids + 1, n, args, want, h);
    if (!t) return NULL;
    if (n == 1) {
        if (op == OP_ADD || op == OP_MUL) return args[0];
        if (op == OP_SUB) {
            Node *u = mk1(cx, N_C_UNARY, syn, t, args[0]);
            if (u) u->op = OP_NEG;
            return u;
        }
        if (!ty_is_floatlike(t)) {
            diag_error_at(D(cx), syn, "E0313", "`(/ x)` is a reciprocal and needs a floating-point number, found `%s`", tname(cx, t));
            return NULL;
        }
        return mk2(cx, N_C_BINARY, syn, t, OP_DIV, float_lit(cx, syn, 1.0, ty_num(t->sc)), args[0]);
    }
    if ((op == OP_DIV) && ty_is_intlike(t))
        for (int i = 1; i < n; i++) {
            int64_t z;
            if (const_int(cx, args[i], &z) && z == 0) {
                diag_error_at(D(cx), syn->kids[i + 1], "E0319", "division by zero: `%s`", syn_to_string(cx->ck->a, syn, 60));
                return NULL;
            }
        }
    Node *acc = args[0];
    for (int i = 1; i < n; i++) acc = mk2(cx, N_C_BINARY, syn, t, op, acc, args[i]);
    return fold_flexible(cx, syn, acc, args, n);
}

/* (< A B...) (> ...) (<= ...) (>= ...) (= ...) (/= A B) (!= A B) */
static Node *b_compare(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    const char *h = syn->kids[0]->key;
    if (!nargs_ok(cx, syn, 2, 16)) return NULL;
    int op = !strcmp(h, "<") ? OP_LT : !strcmp(h, ">") ? OP_GT : !strcmp(h, "<=") ? OP_LE : !strcmp(h, ">=") ? OP_GE
           : !strcmp(h, "=") || !strcmp(h, "==") ? OP_EQ : OP_NE;
    int n = syn->nkids - 1;
    Node *args[16];
    if (n == 2 && (op == OP_EQ || op == OP_NE)) {
        /* enumeration values compare for equality; a bare key takes the
           other operand's enumeration */
        Node *a0 = syn->kids[1]->kind == N_KEYWORD ? NULL : expr(cx, syn->kids[1], NULL);
        if (a0 && a0->ty->kind == TY_ENUM) {
            Node *b0 = expr(cx, syn->kids[2], a0->ty);
            if (!b0) return NULL;
            if (!ty_equal(b0->ty, a0->ty)) {
                diag_error_at(D(cx), syn->kids[2], "E0310", "`%s` compares a `%s` with a `%s`", h, tname(cx, a0->ty), tname(cx, b0->ty));
                return NULL;
            }
            return mk2(cx, N_C_BINARY, syn, &ty_bool, op, a0, b0);
        }
        if (!a0 && syn->kids[1]->kind == N_KEYWORD) {
            Node *b0 = expr(cx, syn->kids[2], NULL);
            if (b0 && b0->ty->kind == TY_ENUM) {
                Node *k0 = expr(cx, syn->kids[1], b0->ty);
                return k0 ? mk2(cx, N_C_BINARY, syn, &ty_bool, op, k0, b0) : NULL;
            }
        }
        if (a0) {
            /* not an enumeration: the usual numeric comparison, reusing a0 */
            Node *b0 = expr(cx, syn->kids[2], is_flex(a0) ? NULL : a0->ty);
            if (!b0) return NULL;
            Type *t2 = branch_type(a0, b0, NULL);
            if (!t2 || !ty_is_arith(t2) || t2->kind == TY_HWVEC) {
                if (!ty_is_arith(a0->ty) || !ty_is_arith(b0->ty))
                    diag_error_at(D(cx), syn, "E0311", "`%s` needs numbers, found `%s` and `%s`", h, tname(cx, a0->ty), tname(cx, b0->ty));
                else if (t2 && t2->kind == TY_HWVEC)
                    diag_error_at(D(cx), syn, "E0314", "`%s` compares numbers; compare the components of `%s` one by one", h, tname(cx, t2));
                else
                    diag_error_at(D(cx), syn->kids[2], "E0312",
                                  "`%s` mixes `%s` and `%s`: Crisp converts implicitly only to a wider type of the same kind (signed, unsigned, floating)%s",
                                  h, tname(cx, a0->ty), tname(cx, b0->ty), mix_hint(cx, (Node *[]){a0, b0}, (Node *[]){syn->kids[1], syn->kids[2]}, 2, a0->ty, b0->ty));
                return NULL;
            }
            a0 = coerce(cx, a0, t2, syn->kids[1], h);
            b0 = coerce(cx, b0, t2, syn->kids[2], h);
            return a0 && b0 ? mk2(cx, N_C_BINARY, syn, &ty_bool, op, a0, b0) : NULL;
        }
    }
    Type *t = unify(cx, syn, syn->kids + 1, n, args, NULL, h);
    if (!t) return NULL;
    if (t->kind == TY_HWVEC) {
        diag_error_at(D(cx), syn, "E0314", "`%s` compares numbers; compare the components of `%s` one by one", h, tname(cx, t));
        return NULL;
    }
    if (op == OP_NE && n != 2) {
        diag_error_at(D(cx), syn, "E0320", "`%s` takes exactly 2 arguments", h);
        return NULL;
    }
    Node *res = NULL;
    for (int i = 0; i + 1 < n; i++) {
        Node *a = args[i], *b = args[i + 1];
        if (n > 2 && i + 1 < n - 1) args[i + 1] = b = simple(cx, b, syn);
        Node *c = mk2(cx, N_C_BINARY, syn, &ty_bool, op, a, b);
        res = res ? mk2(cx, N_C_BINARY, syn, &ty_bool, OP_AND, res, c) : c;
    }
    return res;
}

/* (bit-and A B...) (bit-or ...) (bit-xor ...) (logxor ...) (logand ...) (logior ...) */
static Node *b_bitop(Ctx *cx, Node *syn, Type *want) {
    const char *h = syn->kids[0]->key;
    if (!nargs_ok(cx, syn, 2, 64)) return NULL;
    int op = strstr(h, "and") ? OP_BAND : (strstr(h, "xor")) ? OP_BXOR : OP_BOR;
    Node *args[64];
    int n = syn->nkids - 1;
    Type *t = unify(cx, syn, syn->kids + 1, n, args, want, h);
    if (!t) return NULL;
    if (!ty_is_intlike(t)) {
        diag_error_at(D(cx), syn, "E0363", "`%s` needs integers, found `%s`", h, tname(cx, t));
        return NULL;
    }
    Node *acc = args[0];
    for (int i = 1; i < n; i++) acc = mk2(cx, N_C_BINARY, syn, t, op, acc, args[i]);
    return acc;
}

/* (lognot A) (bit-not A) */
static Node *b_lognot(Ctx *cx, Node *syn, Type *want) {
    if (!nargs_ok(cx, syn, 1, 1)) return NULL;
    Node *a[1];
    Type *t = unify(cx, syn, syn->kids + 1, 1, a, want, syn->kids[0]->key);
    if (!t) return NULL;
    if (!ty_is_intlike(t)) {
        diag_error_at(D(cx), syn, "E0363", "`lognot` needs an integer, found `%s`", tname(cx, t));
        return NULL;
    }
    Node *u = mk1(cx, N_C_UNARY, syn, t, a[0]);
    if (u) u->op = OP_BNOT;
    return u;
}

/* (ash A N): shift A left by N bits (right when N is negative). */
static Node *b_ash(Ctx *cx, Node *syn, Type *want) {
    if (!nargs_ok(cx, syn, 2, 2)) return NULL;
    Node *a = expr(cx, syn->kids[1], ty_is_int(want) ? want : NULL);
    if (!a) return NULL;
    if (is_flex(a)) a = coerce(cx, a, ty_is_int(want) ? want : ty_num(SC_INT), syn->kids[1], "ash");
    if (!a) return NULL;
    if (!ty_is_intlike(a->ty)) {
        diag_error_at(D(cx), syn->kids[1], "E0363", "`ash` needs an integer, found `%s`", tname(cx, a->ty));
        return NULL;
    }
    int64_t k;
    if (const_syn_int(cx, syn->kids[2], &k)) {
        if (k >= ty_scalar_info(a->ty->sc)->size * 8 || -k >= ty_scalar_info(a->ty->sc)->size * 8) {
            diag_error_at(D(cx), syn->kids[2], "E0316", "shift by %lld bits is out of range for `%s`", (long long)k,
                          tname(cx, a->ty));
            return NULL;
        }
        return mk2(cx, N_C_BINARY, syn, a->ty, k >= 0 ? OP_SHL : OP_SHR, a, int_lit(cx, syn->kids[2], k >= 0 ? k : -k, ty_num(SC_INT)));
    }
    Sym *negated = syn_is_form(syn->kids[2], "-") && syn->kids[2]->nkids == 2 && syn->kids[2]->kids[1]->kind == N_SYMBOL
                   ? scope_lookup(cx, syn->kids[2]->kids[1]->key)
                   : NULL;
    if (negated && negated->ty && ty_is_int(negated->ty) && ty_category(negated->ty) == CAT_UNSIGNED) {
        /* (ash A (- N)), Lisp's right shift by N, with an unsigned variable
           N (the spec's histogram-pass shifts by its uint bit-offset so):
           negating N would wrap to a huge left shift; shift right by N */
        Node *m = expr(cx, syn->kids[2]->kids[1], ty_num(SC_INT));
        if (!m) return NULL;
        return mk2(cx, N_C_BINARY, syn, a->ty, OP_SHR, a, m);
    }
    Node *n = expr(cx, syn->kids[2], ty_num(SC_INT));
    if (!n) return NULL;
    if (!ty_is_int(n->ty)) {
        diag_error_at(D(cx), syn->kids[2], "E0315", "`ash` shift count must be an integer, found `%s`", tname(cx, n->ty));
        return NULL;
    }
    if (ty_category(n->ty) == CAT_UNSIGNED) return mk2(cx, N_C_BINARY, syn, a->ty, OP_SHL, a, n);
    a = simple(cx, a, syn);
    n = simple(cx, n, syn);
    Node *ge = mk2(cx, N_C_BINARY, syn, &ty_bool, OP_GE, n, int_lit(cx, syn, 0, n->ty));
    Node *neg = mk1(cx, N_C_UNARY, syn, n->ty, n);
    if (neg) neg->op = OP_NEG;
    Node *sel = mk(cx, N_C_SELECT, syn, a->ty, 3);
    if (!sel) return NULL;
    sel->kids[0] = ge;
    sel->kids[1] = mk2(cx, N_C_BINARY, syn, a->ty, OP_SHL, a, n);
    sel->kids[2] = mk2(cx, N_C_BINARY, syn, a->ty, OP_SHR, a, neg);
    sel->nkids = 3;
    return sel;
}

/* (min A B...) (max A B...) (clamp X LO HI) (abs X) */
static Node *b_minmax(Ctx *cx, Node *syn, Type *want) {
    const char *h = syn->kids[0]->key;
    int is_clamp = !strcmp(h, "clamp"), is_abs = !strcmp(h, "abs");
    if (!nargs_ok(cx, syn, is_abs ? 1 : is_clamp ? 3 : 2, is_abs ? 1 : is_clamp ? 3 : 64)) return NULL;
    Node *args[64];
    int n = syn->nkids - 1;
    Type *t = unify(cx, syn, syn->kids + 1, n, args, want, h);
    if (!t) return NULL;
    if (is_abs) {
        if (ty_is_floatlike(t)) return call_n(cx, syn, t, BI_FABS, args, 1);
        Node *c = call_n(cx, syn, t, BI_ABS, args, 1);
        if (ty_category(t) == CAT_UNSIGNED) return args[0];
        /* OpenCL's abs returns the unsigned type; Crisp keeps the type */
        Node *cast = mk1(cx, N_C_CAST, syn, t, c);
        return cast;
    }
    /* C widens a scalar implicitly, but OpenCL's overloads of min, max and
       clamp make (min ulong uint) ambiguous: convert each narrower scalar */
    for (int i = 0; i < n && t->kind == TY_NUM; i++)
        if (args[i]->ty && args[i]->ty->kind == TY_NUM && args[i]->ty->sc != t->sc) {
            args[i] = mk1(cx, N_C_CAST, syn->kids[i + 1], t, args[i]);
            if (!args[i]) return NULL;
        }
    if (is_clamp) return call_n(cx, syn, t, BI_CLAMP, args, 3);
    Node *acc = args[0];
    for (int i = 1; i < n; i++) {
        Node *pair[2] = {acc, args[i]};
        acc = call_n(cx, syn, t, !strcmp(h, "min") ? BI_MIN : BI_MAX, pair, 2);
    }
    return acc;
}

/* (sqrt X) (rsqrt X) (exp X) (log X) (log2 X) (sin X) (cos X) (tan X)
 * (asin X) (acos X) (atan X) (pow X Y) - floating point only. */
static Node *b_math(Ctx *cx, Node *syn, Type *want) {
    const char *h = syn->kids[0]->key;
    int two = !strcmp(h, "pow") || !strcmp(h, "expt") || !strcmp(h, "atan2");
    if (!nargs_ok(cx, syn, two ? 2 : 1, two ? 2 : 1)) return NULL;
    Node *args[2];
    Type *t = unify(cx, syn, syn->kids + 1, two ? 2 : 1, args, ty_is_floatlike(want) ? want : ty_num(SC_FLOAT), h);
    if (!t) return NULL;
    if (!ty_is_floatlike(t)) {
        diag_error_at(D(cx), syn, "E0317", "`%s` needs a floating-point argument, found `%s`; convert with (to-float x)", h,
                      tname(cx, t));
        return NULL;
    }
    static const struct { const char *name; int op; } fns[] = {
        {"sqrt", BI_SQRT}, {"rsqrt", BI_RSQRT}, {"pow", BI_POW}, {"expt", BI_POW}, {"exp", BI_EXP}, {"log", BI_LOG},
        {"log2", BI_LOG2}, {"sin", BI_SIN}, {"cos", BI_COS}, {"tan", BI_TAN}, {"asin", BI_ASIN}, {"acos", BI_ACOS},
        {"atan", BI_ATAN}, {"atan2", BI_ATAN2}, {NULL, 0}};
    int op = BI_SQRT;
    for (int i = 0; fns[i].name; i++)
        if (!strcmp(fns[i].name, h)) op = fns[i].op;
    return call_n(cx, syn, t, op, args, two ? 2 : 1);
}

/* ---- integer division with two results (spec "Integer Division") ---- */

/* (/ A B) (floor A B) (ceil A B) (round A B) (truncate A B): quotient and
 * remainder (remainder = A - q*B).  Fills q and r. */
static int int_division(Ctx *cx, Node *syn, Node **q, Node **r, int in_order) {
    const char *h = syn->kids[0]->key;
    Node *args[2];
    Type *t = unify(cx, syn, syn->kids + 1, 2, args, NULL, h);
    if (!t) return 0;
    if (!ty_is_int(t)) {
        diag_error_at(D(cx), syn, "E0318", "`%s` with two arguments divides integers, found `%s`", h, tname(cx, t));
        return 0;
    }
    int64_t z;
    if (const_int(cx, args[1], &z) && z == 0) {
        diag_error_at(D(cx), syn->kids[2], "E0319", "division by zero: `%s`", syn_to_string(cx->ck->a, syn, 60));
        return 0;
    }
    Node *a = simple(cx, args[0], syn), *b = simple(cx, args[1], syn);
    int trunc = !strcmp(h, "/") || !strcmp(h, "truncate") ||
                (ty_category(t) == CAT_UNSIGNED && (!strcmp(h, "floor")));
    if (trunc) {
        *q = mk2(cx, N_C_BINARY, syn, t, OP_DIV, a, b);
        if (r) *r = mk2(cx, N_C_BINARY, syn, t, OP_MOD, a, b);
        return 1;
    }
    HelperKind k = !strcmp(h, "floor") ? H_FLOOR_DIV : !strcmp(h, "ceil") ? H_CEIL_DIV : H_ROUND_DIV;
    Helper *hp = need_helper(cx, k, t, AS_NONE);
    if (!hp) return 0;
    Sym *rem = new_temp(cx, syn, "rem", t);
    if (!rem) return 0;
    Node *d = ck_node(cx, N_C_DECL, syn, t);
    d->sym = rem;
    emit_stmt(cx, d);
    Node *addr = mk1(cx, N_C_UNARY, syn, t, var_ref(cx, syn, rem));
    if (!addr) return 0;
    addr->op = OP_ADDR;
    Node *cargs[3] = {a, b, addr};
    *q = helper_call(cx, syn, t, hp, cargs, 3);
    if (r) {
        if (!in_order) *q = simple(cx, *q, syn); /* the call must run before rem is read */
        *r = var_ref(cx, syn, rem);
    }
    return 1;
}

/* (floor X) (ceil X) (round X) (truncate X) on a float: to int (float) or
 * long (double); round is half-to-even like the integer division. */
static Node *b_rounding(Ctx *cx, Node *syn, Type *want) {
    const char *h = syn->kids[0]->key;
    if (!nargs_ok(cx, syn, 1, 2)) return NULL;
    if (syn->nkids == 3) {
        Node *q;
        (void)want;
        return int_division(cx, syn, &q, NULL, 0) ? q : NULL;
    }
    Node *a = expr(cx, syn->kids[1], NULL);
    if (!a) return NULL;
    if (is_flex(a)) a = coerce(cx, a, ty_num(SC_FLOAT), syn->kids[1], h);
    if (!a) return NULL;
    if (ty_is_intlike(a->ty)) return a; /* already an integer */
    if (!ty_is_floatlike(a->ty)) {
        diag_error_at(D(cx), syn->kids[1], "E0317", "`%s` needs a number, found `%s`", h, tname(cx, a->ty));
        return NULL;
    }
    Scalar rs = a->ty->sc == SC_DOUBLE ? SC_LONG : SC_INT;
    Type *rt = a->ty->kind == TY_HWVEC ? ty_hwvec(rs, a->ty->width) : ty_num(rs);
    Node *c = mk1(cx, N_C_CAST, syn, rt, a);
    if (c) c->op = !strcmp(h, "truncate") ? CAST_RTZ : !strcmp(h, "floor") ? CAST_RTN : !strcmp(h, "ceil") ? CAST_RTP : CAST_RTE;
    return c;
}

static Node *b_slash(Ctx *cx, Node *syn, Type *want) {
    /* integer division of two operands has two values; in a one-value
       context the quotient is used */
    return b_arith(cx, syn, want);
}

/* The values of a multiple-value form (user function call or division). */

/* in_order: the caller uses out[0] before reading any other value, so the
 * first value may stay an expression (the call that also fills the rest). */
int mv_values(Ctx *cx, Node *syn, int n, Node **out, int in_order) {
    const char *h = syn_head(syn);
    if (h && syn->nkids == 3 &&
        (!strcmp(h, "/") || !strcmp(h, "floor") || !strcmp(h, "ceil") || !strcmp(h, "round") || !strcmp(h, "truncate"))) {
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
    if (h && (func_lookup(cx->ck, h) || template_lookup(cx->ck, h))) {
        Node *extra[16] = {0};
        Node *call = user_call(cx, syn, NULL, extra, n - 1);
        if (!call) return 0;
        Type *rt = call->ty;
        int have = rt->kind == TY_TUPLE ? rt->nelems : rt->kind == TY_VOID ? 0 : 1;
        if (have < n) {
            diag_error_at(D(cx), syn, "E0340", "`%s` returns %d value%s, but %d are wanted", h, have, have == 1 ? "" : "s", n);
            return 0;
        }
        if (rt->kind == TY_TUPLE) call->ty = rt->elems[0];
        out[0] = n > 1 && !in_order ? simple(cx, call, syn) : call;
        for (int i = 1; i < n; i++) out[i] = extra[i - 1];
        return 1;
    }
    if (n == 1) {
        out[0] = expr(cx, syn, NULL);
        return out[0] != NULL;
    }
    diag_error_at(D(cx), syn, "E0341", "multiple values can only come from a function call or a division, found `%s`",
                  syn_to_string(cx->ck->a, syn, 40));
    return 0;
}

/* ---- conversions ---- */

/* (to-TYPE X): value conversion.  (as-TYPE X): bit reinterpretation. */
static Node *conversion(Ctx *cx, Node *syn, const char *h) {
    int is_to = h[0] == 't';
    Type *t = ty_lookup_base(h + 3);
    if (!t || !ty_is_arith(t)) {
        diag_error_at(D(cx), syn, "E0350", "unknown conversion `%s`: expected to-TYPE or as-TYPE with a numeric TYPE", syn->kids[0]->name);
        return NULL;
    }
    if (!nargs_ok(cx, syn, 1, 1)) return NULL;
    if (t->sc == SC_BFLOAT16) {
        diag_error_at(D(cx), syn, "E0905", "`bfloat16` is not available in OpenCL C (no OpenCL C version has a bfloat16 type); use `half` or `float`");
        return NULL;
    }
    Node *a = expr(cx, syn->kids[1], NULL);
    if (!a) return NULL;
    if (a->ty->kind == TY_TUPLE) a->ty = a->ty->elems[0];
    if (is_flex(a)) {
        if (!is_to) a = coerce(cx, a, ty_is_float(a->ty) ? ty_num(SC_FLOAT) : ty_num(SC_INT), syn->kids[1], h);
        else if (a->kind == N_C_FLOATLIT && a->op == LIT_FLEX_FLOAT && ty_category(t) != CAT_FLOAT) {
            diag_error_at(D(cx), syn, "E0351", "`%s` of a float is not defined: choose truncate, floor, ceil or round", syn->kids[0]->name);
            return NULL;
        } else {
            Node *l = coerce(cx, a, t, syn->kids[1], h);
            if (l && (l->kind == N_C_INTLIT || l->kind == N_C_FLOATLIT)) l->op = 0; /* exactly `t` now */
            return l;
        }
        if (!a) return NULL;
    }
    if (a->ty->kind == TY_ENUM && is_to) {
        /* an enumeration value converts to its int value */
        Node *c = mk1(cx, N_C_CAST, syn, t, a);
        return c;
    }
    if (!ty_is_arith(a->ty) && a->ty->kind != TY_BOOL) {
        diag_error_at(D(cx), syn->kids[1], "E0352", "`%s` converts numbers, found `%s`", syn->kids[0]->name, tname(cx, a->ty));
        return NULL;
    }
    if (ty_is_arith(t) && t->sc == SC_DOUBLE) prog_of(cx)->uses_fp64 = 1;
    if (is_to) {
        if (a->ty->kind != TY_BOOL && ty_category(a->ty) == CAT_FLOAT && ty_category(t) != CAT_FLOAT) {
            diag_error_at(D(cx), syn, "E0351", "`%s` of `%s` is not defined: choose truncate, floor, ceil or round",
                          syn->kids[0]->name, tname(cx, a->ty));
            return NULL;
        }
        int aw = a->ty->kind == TY_HWVEC ? a->ty->width : 1, tw = t->kind == TY_HWVEC ? t->width : 1;
        if (aw != tw) {
            diag_error_at(D(cx), syn, "E0353", "`%s` cannot change the number of components (%d to %d)", syn->kids[0]->name, aw, tw);
            return NULL;
        }
        if (ty_equal(a->ty, t)) return a;
        Node *c = mk1(cx, N_C_CAST, syn, t, a);
        if (c && t->kind == TY_HWVEC) c->op = CAST_CONVERT;
        return c;
    }
    if (a->ty->kind == TY_BOOL || ty_sizeof(a->ty) != ty_sizeof(t)) {
        diag_error_at(D(cx), syn, "E0354", "`%s` reinterprets bits and needs a same-sized value: `%s` is %d bytes, `%s` is %d",
                      syn->kids[0]->name, tname(cx, a->ty), a->ty->kind == TY_BOOL ? 1 : ty_sizeof(a->ty), tname(cx, t), ty_sizeof(t));
        return NULL;
    }
    Node *c = mk1(cx, N_C_CAST, syn, t, a);
    if (c) c->op = CAST_BITS;
    return c;
}

/* ---- vectors ---- */

/* When `v` is a variable that hides another spelled differently, say so:
 * the likely cause of a type error (issue 14). */
void shadow_note(Ctx *cx, const Node *syn, const Node *v) {
    const Sym *s = v && v->kind == N_C_VAR ? v->sym : NULL;
    if (!s || !s->shadows || !s->def) return;
    diag_note(D(cx), s->def->loc, "`%s` here is the variable `%s` bound at line %d; Crisp names are case-insensitive, so it hides the %s `%s`",
              syn && syn->kind == N_SYMBOL ? syn->name : s->name, s->name, s->def->loc.line,
              s->shadows->kind == SYM_PARAM ? "parameter" : "variable", s->shadows->name);
}

Sym *vector_operand(Ctx *cx, Node *syn, const char *what) {
    Node *v = expr(cx, syn, NULL);
    if (!v) return NULL;
    if (v->ty && v->ty->kind == TY_IDENT) {
        diag_error_at(D(cx), syn, "E0542",
                      "`%s` needs a vector or tensor-view with data; `%s` is an identity tensor (no data, extents or strides: only `~`, `num-dims~`, `transpose` and `is-identity-tensor?` apply)",
                      what, syn_to_string(cx->ck->a, syn, 30));
        return NULL;
    }
    if (v->kind != N_C_VAR || !v->ty || v->ty->kind != TY_VECTOR) {
        diag_error_at(D(cx), syn, "E0401", "`%s` needs a vector, found `%s`", what, tname(cx, v->ty));
        shadow_note(cx, syn, v);
        return NULL;
    }
    if (v->sym->soa_fields) {
        diag_error_at(D(cx), syn, "E0489", "`%s` is a soa-vector: `%s` works on its field vectors, (x~ %s) or (x~ %s i)",
                      v->sym->name, what, v->sym->name, v->sym->name);
        return NULL;
    }
    if (sym_ndims(v->sym) && (!v->sym->off_sym || !v->sym->dims_sym || !v->sym->strides_sym)) {
        /* a tensor-view made by an expression ((let ((x m)) x)): only a
           variable carries its offset, extents and strides */
        diag_error_at(D(cx), syn, "E0484", "`%s` needs a tensor-view variable, found the expression `%s`: bind the tensor-view with let and use the variable",
                      what, syn_to_string(cx->ck->a, syn, 40));
        return NULL;
    }
    return v->sym;
}

/* An element index: any integer expression (a literal becomes ulong; a
 * negative literal is E0402).  WHAT names it in errors ("vector index"). */
Node *index_expr(Ctx *cx, Node *isyn, const char *what) {
    if (isyn->kind == N_INT && !isyn->is_unsigned && isyn->ival < 0) {
        diag_error_at(D(cx), isyn, "E0402", "negative index %lld", (long long)isyn->ival);
        return NULL;
    }
    Node *i = expr(cx, isyn, ty_num(SC_ULONG));
    if (!i) return NULL;
    if (is_flex(i)) {
        if (i->kind == N_C_INTLIT && i->ival < 0 && !i->is_unsigned) {
            diag_error_at(D(cx), isyn, "E0402", "negative index %lld", (long long)i->ival);
            return NULL;
        }
        i = coerce(cx, i, ty_num(SC_ULONG), isyn, "index");
        if (!i) return NULL;
    }
    if (!ty_is_int(i->ty)) {
        diag_error_at(D(cx), isyn, "E0403", "%s must be an integer, found `%s`", what, tname(cx, i->ty));
        return NULL;
    }
    return i;
}

Node *index_node(Ctx *cx, Node *syn, Sym *vec, Node *isyn) {
    Node *i = index_expr(cx, isyn, "vector index");
    if (!i) return NULL;
    int64_t k;
    if (vec->ty->length >= 0 && const_int(cx, i, &k) && (k < 0 || k >= vec->ty->length)) {
        diag_error_at(D(cx), isyn, "E0404", "index %lld is out of bounds for `%s` of length %lld", (long long)k, vec->name,
                      (long long)vec->ty->length);
        return NULL;
    }
    if (vec->off_sym) /* a vector-view: element i of the view is root[offset + i] */
        i = mk2(cx, N_C_BINARY, syn, i->ty, OP_ADD, var_ref(cx, syn, vec->off_sym),
                ty_equal(i->ty, ty_num(SC_ULONG)) ? i : mk1(cx, N_C_CAST, syn, ty_num(SC_ULONG), i));
    Node *x = mk2(cx, N_C_INDEX, syn, vec->ty->elem, 0, var_ref(cx, syn, vec), i);
    if (x && vec->ty->align == AL_STD140 && ty_vector_stride(vec->ty->elem, AL_STD140) != ty_sizeof(vec->ty->elem))
        x->text = "v";
    return x;
}

int tensor_ref_error(Ctx *cx, Node *syn) {
    if (strcmp(syn->kids[0]->key, "~ref~")) return 0;
    diag_error_at(D(cx), syn, "E0485", "`~ref~` is not supported for tensor-views (spec \"Tensors\"); use `~`");
    return 1;
}

/* (~ V I) on a vector, (~ T I J ...) on a tensor-view (spec "Element
 * Access"; ~ref~ is not for tensors). */
static Node *element(Ctx *cx, Node *syn, Sym *v) {
    if (sym_ndims(v)) {
        if (tensor_ref_error(cx, syn)) return NULL;
        return tensor_index(cx, syn, v, syn->kids + 2, syn->nkids - 2);
    }
    if (!nargs_ok(cx, syn, 2, 2)) return NULL;
    return index_node(cx, syn, v, syn->kids[2]);
}

/* Does (~ T I...) on the derived tensor-view T call a user `~` overload
 * (spec "Overloading Element Access")?  Not inside a `~` overload or a
 * def-setter body, where `~` on the tensor is the built-in access. */
static int derived_elem_overload(Ctx *cx, Node *syn, Sym *v) {
    if ((cx->fd && !strcmp(cx->fd->name, "~")) || cx->setter_depth > 0) return 0;
    FuncDef *cands[16];
    int nc = func_overloads(cx->ck, syn->kids[0]->key, cands, 16);
    for (int i = 0; i < nc; i++) {
        resolve_signature(cx->ck, cands[i]);
        if (!cands[i]->bad && cands[i]->nparams == syn->nkids - 1 && cands[i]->params[0].ty->kind == TY_VECTOR &&
            cands[i]->params[0].ty->tag && !strcmp(cands[i]->params[0].ty->tag, v->ty->tag))
            return 1;
    }
    return 0;
}

/* (~ VEC I) / (~ref~ VEC I): read an element.  spec "Element Access" */
static Node *b_elem(Ctx *cx, Node *syn, Type *want) {
    if (!nargs_ok(cx, syn, 2, -1)) return NULL;
    int rank = identity_rank(cx, syn->kids[1]);
    if (rank) return identity_index(cx, syn, rank);
    Sym *v = vector_operand(cx, syn->kids[1], "~");
    if (!v) return NULL;
    if (v->ty->tag && derived_elem_overload(cx, syn, v)) return user_call(cx, syn, want, NULL, 0);
    if ((v->write_only || v->ty->acc == ACC_WRITE_ONLY) && !ck_skip_checks(cx->ck)) {
        diag_error_at(D(cx), syn, "E0410", "`%s` is write-only (%s); reading it here is a race with the threads writing it",
                      v->name, v->write_only ? "an &out parameter" : ":write-only");
        return NULL;
    }
    return element(cx, syn, v);
}

/* (length~ VEC) */
static Node *b_length(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!nargs_ok(cx, syn, 1, 1)) return NULL;
    Sym *v = vector_operand(cx, syn->kids[1], "length~");
    if (!v) return NULL;
    return length_of(cx, syn, v);
}

/* (bytes V): the bytes V's elements occupy now (spec "Helpers" of vectors,
 * tensors and soa-vectors): length times the element stride, summed over
 * the fields of a soa-vector. */
static Node *b_bytes(Ctx *cx, Node *syn, Type *want) {
    if (func_lookup(cx->ck, "bytes")) return user_call(cx, syn, want, NULL, 0);
    if (!nargs_ok(cx, syn, 1, 1)) return NULL;
    Type *ul = ty_num(SC_ULONG);
    Sym *soa = soa_sym(cx, syn->kids[1]);
    int n = soa ? soa->ty->elem->sd->nfields : 1;
    Node *sum = NULL;
    for (int i = 0; i < n; i++) {
        Sym *v = soa ? soa->soa_fields[i] : vector_operand(cx, syn->kids[1], "bytes");
        if (!v) return NULL;
        Node *b = mk2(cx, N_C_BINARY, syn, ul, OP_MUL, length_of(cx, syn, v),
                      int_lit(cx, syn, ty_vector_stride(v->ty->elem, v->ty->align), ul));
        sum = sum ? mk2(cx, N_C_BINARY, syn, ul, OP_ADD, sum, b) : b;
    }
    return sum;
}

static int swizzle_index(char c) {
    return c == 'x' ? 0 : c == 'y' ? 1 : c == 'z' ? 2 : c == 'w' ? 3 : -1;
}

static int is_swizzle_name(const char *k) {
    size_t n = strlen(k);
    if (n < 2 || n > 5 || k[n - 1] != '~') return 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (swizzle_index(k[i]) < 0) return 0;
    return 1;
}

static Node *swizzle_of(Ctx *cx, Node *syn, Node *base, int for_write) {
    const char *k = syn->kids[0]->key;
    int n = (int)strlen(k) - 1;
    if (!base) return NULL;
    if (base->ty->kind != TY_HWVEC) {
        diag_error_at(D(cx), syn, "E0420", "`%s` selects components of a hardware vector (float4 ...), found `%s`",
                      syn->kids[0]->name, tname(cx, base->ty));
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        int c = swizzle_index(k[i]);
        if (c >= base->ty->width) {
            diag_error_at(D(cx), syn, "E0421", "`%s`: `%s` has no component `%c`", syn->kids[0]->name, tname(cx, base->ty), k[i]);
            return NULL;
        }
        if (for_write)
            for (int j = 0; j < i; j++)
                if (k[j] == k[i]) {
                    diag_error_at(D(cx), syn, "E0422", "cannot assign through `%s`: component `%c` repeats", syn->kids[0]->name, k[i]);
                    return NULL;
                }
    }
    Type *t = n == 1 ? ty_num(base->ty->sc) : ty_hwvec(base->ty->sc, n);
    Node *x = mk1(cx, N_C_SWIZZLE, syn, t, base);
    if (x) x->text = arena_strndup(cx->ck->a, k, (size_t)n);
    return x;
}

/* (x~ V) (xy~ V) (xyyy~ V) ...: components of a hardware vector */
static Node *b_swizzle(Ctx *cx, Node *syn) {
    if (!nargs_ok(cx, syn, 1, 1)) return NULL;
    return swizzle_of(cx, syn, expr(cx, syn->kids[1], NULL), 0);
}

Node *place(Ctx *cx, Node *syn, int for_write) {
    if (!(syn = ck_expand(cx, syn))) return NULL;
    if (syn->kind == N_SYMBOL) {
        Sym *s = scope_lookup(cx, syn->key);
        if (!s) {
            if (orch_capture_error(cx, syn)) return NULL;
            diag_error_at(D(cx), syn, "E0430", "unknown variable `%s`", syn->name);
            suggest_variable(cx, syn);
            return NULL;
        }
        if (s->kind == SYM_CONSTVEC) {
            constvec_write_error(cx, syn, s);
            return NULL;
        }
        if (s->kind == SYM_CONST || s->kind == SYM_PARAMETER || s->kind == SYM_TYPE) {
            diag_error_at(D(cx), syn, "E0431", "cannot assign to the constant `%s`", s->name);
            return NULL;
        }
        if (s->kind == SYM_FNVAL) return fnval_use_error(cx, syn, s);
        if (s->ty && s->ty->kind == TY_IDENT) {
            diag_error_at(D(cx), syn, "E0541", "cannot assign to `%s`: an identity tensor is immutable", s->name);
            return NULL;
        }
        if (s->ty && s->ty->kind == TY_VECTOR) {
            diag_error_at(D(cx), syn, "E0432", "cannot assign to the vector `%s`; assign its elements with (set! (~ %s i) ...)", s->name, s->name);
            return NULL;
        }
        if (!s->ty) return NULL; /* its binding failed and was reported */
        if (s->immutable) {
            diag_error_at(D(cx), syn, "E0433", "`%s` is immutable (loop indices and thread ids cannot be assigned)", s->name);
            return NULL;
        }
        s->assigned = 1; /* an l-value: set!, inc!, an atomic... */
        return var_ref(cx, syn, s);
    }
    const char *h = syn_head(syn);
    if (h && (!strcmp(h, "~") || !strcmp(h, "~ref~"))) {
        if (!nargs_ok(cx, syn, 2, -1)) return NULL;
        if (identity_rank(cx, syn->kids[1])) {
            diag_error_at(D(cx), syn, "E0541", "cannot write to `%s`: an identity tensor is immutable (it holds no data)",
                          syn_to_string(cx->ck->a, syn->kids[1], 30));
            return NULL;
        }
        Sym *v = vector_operand(cx, syn->kids[1], "~");
        if (!v) return NULL;
        if (v->kind == SYM_CONSTVEC) {
            constvec_write_error(cx, syn, v);
            return NULL;
        }
        if (cx->consteval && v->ty->as == AS_CONSTANT) { /* a view of a const-vec */
            constvec_write_error(cx, syn, v);
            return NULL;
        }
        if (v->ty->acc == ACC_READ_ONLY || v->ty->as == AS_CONSTANT) {
            diag_error_at(D(cx), syn, "E0434", "cannot write to `%s`: it is %s", v->name,
                          v->ty->as == AS_CONSTANT ? ":constant memory" : "read-only");
            return NULL;
        }
        if (!for_write && (v->write_only || v->ty->acc == ACC_WRITE_ONLY) && !ck_skip_checks(cx->ck)) {
            diag_error_at(D(cx), syn, "E0410", "`%s` is write-only (%s); updating it in place reads it",
                          v->name, v->write_only ? "an &out parameter" : ":write-only");
            return NULL;
        }
        return element(cx, syn, v);
    }
    size_t hl = h ? strlen(h) : 0;
    Node *soa;
    if (soa_access(cx, syn, 1, &soa)) return soa;
    const char *prop = h && h[0] == '~' ? h + 1 : h; /* ~length~ is the raw length~ */
    if (prop && (!strcmp(prop, "length~") || !strcmp(prop, "offset~") || !strcmp(prop, "parent~")) && syn->nkids == 2) {
        /* the settable properties of a vector-view */
        Node *v = expr(cx, syn->kids[1], NULL);
        if (!v) return NULL;
        if (v->ty->kind == TY_VECTOR && v->kind == N_C_VAR) {
            Sym *vs = v->sym;
            if (!vs->off_sym) {
                diag_error_at(D(cx), syn, "E0498", "`%s` of `%s` cannot be set: only a vector-view's properties can change", h,
                              vs->name);
                return NULL;
            }
            if (prop[0] == 'p') return var_ref(cx, syn, vs); /* (set! (parent~ v) w): handled by b_set */
            if (prop[0] == 'l' && !vs->len_sym) {
                diag_error_at(D(cx), syn, "E0498", "`length~` of the tensor-view `%s` cannot be set: set its extents with dims~", vs->name);
                return NULL;
            }
            return var_ref(cx, syn, prop[0] == 'l' ? vs->len_sym : vs->off_sym);
        }
        if (v->ty->kind != TY_STRUCT) {
            diag_error_at(D(cx), syn, "E0496", "`%s` selects a property, but `%s` is `%s`", syn->kids[0]->name,
                          syn_to_string(cx->ck->a, syn->kids[1], 30), tname(cx, v->ty));
            return NULL;
        }
        return struct_member(cx, syn, v, for_write);
    }
    if (h && hl > 1 && h[hl - 1] == '~' && syn->nkids == 2) {
        /* a struct field or hardware-vector components, by the operand's type */
        Node *base = place(cx, syn->kids[1], for_write);
        if (!base) return NULL;
        if (base->ty->kind == TY_STRUCT) return struct_member(cx, syn, base, for_write);
        if (is_swizzle_name(h)) return swizzle_of(cx, syn, base, 1);
        diag_error_at(D(cx), syn, "E0496", "`%s` selects a struct field, but `%s` is `%s`", syn->kids[0]->name,
                      syn_to_string(cx->ck->a, syn->kids[1], 30), tname(cx, base->ty));
        return NULL;
    }
    diag_error_at(D(cx), syn, "E0435", "`%s` is not a place that can be assigned", syn_to_string(cx->ck->a, syn, 40));
    if (h && (!strcmp(h, "aref") || !strcmp(h, "elt") || !strcmp(h, "nth") || !strcmp(h, "svref")))
        diag_note(D(cx), syn->kids[0]->loc, "Crisp has no `%s`: did you mean `~`, as in (set! (~ v i) x)?", syn->kids[0]->name);
    return NULL;
}

/* (set! PLACE VALUE [PLACE VALUE]...) */
static Node *b_set(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (syn->nkids < 3 || (syn->nkids - 1) % 2) {
        diag_error_at(D(cx), syn, "E0320", "`set!` takes place/value pairs, found %d arguments", syn->nkids - 1);
        return NULL;
    }
    Node *last = NULL;
    int errs_before = cx->ck->d->errors;
    for (int i = 1; i + 1 < syn->nkids; i += 2) {
        Node *sp = setter_call(cx, syn->kids[i], syn->kids[i + 1]);
        if (sp) {
            last = sp;
            continue;
        }
        if (cx->ck->d->errors > errs_before) return NULL;
        Sym *fs = syn->kids[i]->kind == N_SYMBOL ? scope_lookup(cx, syn->kids[i]->key) : NULL;
        if (fs && fs->kind == SYM_FNVAL) {
            Node *r = fnval_set(cx, fs, syn->kids[i], syn->kids[i + 1]);
            if (!r) return NULL;
            last = r;
            continue;
        }
        if (syn_is_form(syn->kids[i], "dims~") || syn_is_form(syn->kids[i], "strides~")) {
            Node *tn = tensor_set_array(cx, syn->kids[i], syn->kids[i + 1]);
            if (!tn) return NULL;
            last = tn;
            continue;
        }
        if (syn_is_form(syn->kids[i], "parent~") || syn_is_form(syn->kids[i], "~parent~")) {
            Node *pn = view_set_parent(cx, syn->kids[i], syn->kids[i + 1]);
            if (!pn) return NULL;
            last = pn;
            continue;
        }
        Node *p = place(cx, syn->kids[i], 1);
        if (!p) return NULL;
        Node *v = expr(cx, syn->kids[i + 1], p->ty);
        if (!v) return NULL;
        v = coerce(cx, v, p->ty, syn->kids[i + 1], "assigned value");
        if (!v) return NULL;
        Node *a;
        if (p->kind == N_C_MEMBER && p->op) {
            /* a 3-component field is stored as T[3]: one store per component */
            v = simple(cx, v, syn);
            static const char *xyz[3] = {"x", "y", "z"};
            a = NULL;
            for (int k = 0; k < 3 && v; k++) {
                Node *comp = mk1(cx, N_C_SWIZZLE, syn, ty_num(p->ty->sc), v);
                if (comp) comp->text = xyz[k];
                a = mk2(cx, N_C_ASSIGN, syn, ty_num(p->ty->sc), OP_SET, struct_component(cx, p, k), comp);
                if (k < 2) emit_stmt(cx, mk1(cx, N_C_EXPR, syn, &ty_void, a));
            }
            if (!a) return NULL;
        } else {
            a = mk2(cx, N_C_ASSIGN, syn, p->ty, OP_SET, p, v);
        }
        if (i + 2 < syn->nkids) {
            Node *st = mk1(cx, N_C_EXPR, syn, &ty_void, a);
            emit_stmt(cx, st);
        }
        last = a;
    }
    return last;
}

/* (inc! PLACE [DELTA]) (dec! PLACE [DELTA]): the new value. */
static Node *b_incdec(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!nargs_ok(cx, syn, 1, 2)) return NULL;
    Node *p = place(cx, syn->kids[1], 0);
    if (!p) return NULL;
    if (p->kind == N_C_MEMBER && p->op) {
        diag_error_at(D(cx), syn, "E0497", "`%s` cannot update a 3-component struct field in place; use (set! ...)", syn->kids[0]->name);
        return NULL;
    }
    if (!ty_is_arith(p->ty)) {
        diag_error_at(D(cx), syn->kids[1], "E0311", "`%s` needs a number, found `%s`", syn->kids[0]->name, tname(cx, p->ty));
        return NULL;
    }
    Node *d = syn->nkids == 3 ? expr(cx, syn->kids[2], p->ty) : int_lit(cx, syn, 1, p->ty);
    if (d && syn->nkids == 2) d->op = LIT_FLEX_INT;
    d = coerce(cx, d, p->ty, syn->nkids == 3 ? syn->kids[2] : syn, syn->kids[0]->name);
    if (!d) return NULL;
    return mk2(cx, N_C_ASSIGN, syn, p->ty, syn->kids[0]->key[0] == 'i' ? OP_ADD : OP_SUB, p, d);
}

/* ---- logic ---- */

Node *cond_value(Ctx *cx, Node *syn) {
    Node *v = expr(cx, syn, NULL);
    if (!v) return NULL;
    if (v->ty->kind == TY_TUPLE) v->ty = v->ty->elems[0];
    if (is_flex(v)) v = coerce(cx, v, v->kind == N_C_FLOATLIT ? ty_num(SC_FLOAT) : ty_num(SC_INT), syn, "condition");
    if (!v) return NULL;
    if (v->ty->kind != TY_BOOL && v->ty->kind != TY_NUM) {
        diag_error_at(D(cx), syn, "E0360", "a condition must be a bool or a number (0 is false), found `%s`", tname(cx, v->ty));
        return NULL;
    }
    return v;
}

/* Check `syn` into a scratch block; returns its value, *blk the block. */
static Node *scratch(Ctx *cx, Node *syn, Node **blk, Node *(*fn)(Ctx *, Node *)) {
    Node *saved = cx->block;
    *blk = ck_node(cx, N_C_BLOCK, syn, &ty_void);
    cx->block = *blk;
    Node *v = fn(cx, syn);
    cx->block = saved;
    return v;
}

/* (and A...) (or A...): bool; short-circuit like C. */
static Node *b_andor(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    int is_and = syn->kids[0]->key[0] == 'a';
    int n = syn->nkids - 1;
    if (n == 0) return bool_lit(cx, syn, is_and);
    Node *vals[64] = {0}, *blks[64] = {0};
    if (n > 64) {
        diag_error_at(D(cx), syn, "E0320", "`%s` takes at most 64 arguments", syn->kids[0]->name);
        return NULL;
    }
    int simple_all = 1;
    const Node *wdiv = cx->divergent;
    for (int i = 0; i < n; i++) {
        cx->branch_depth += i > 0; /* later operands may not run */
        if (i > 0) warp_branch_enter(cx, syn, syn->kids[i]); /* types/warps.c */
        vals[i] = scratch(cx, syn->kids[i + 1], &blks[i], cond_value);
        cx->branch_depth -= i > 0;
        if (!vals[i]) {
            cx->divergent = wdiv;
            return NULL;
        }
        if (i > 0 && blks[i]->nkids) simple_all = 0;
    }
    cx->divergent = wdiv;
    for (int i = 0; i < blks[0]->nkids; i++) emit_stmt(cx, blks[0]->kids[i]);
    if (simple_all) {
        Node *acc = vals[0];
        for (int i = 1; i < n; i++) acc = mk2(cx, N_C_BINARY, syn, &ty_bool, is_and ? OP_AND : OP_OR, acc, vals[i]);
        if (n == 1 && acc->ty->kind != TY_BOOL) acc = mk2(cx, N_C_BINARY, syn, &ty_bool, OP_NE, acc, int_lit(cx, syn, 0, acc->ty));
        return acc;
    }
    /* operands that need statements: lower to a flag and nested ifs */
    Sym *flag = new_temp(cx, syn, is_and ? "all" : "any", &ty_bool);
    if (!flag) return NULL;
    Node *d = ck_node(cx, N_C_DECL, syn, &ty_bool);
    d->sym = flag;
    d->kids = arena_alloc(cx->ck->a, sizeof(Node *));
    if (!d->kids) return NULL;
    d->kids[0] = mk2(cx, N_C_BINARY, syn, &ty_bool, OP_NE, vals[0], int_lit(cx, syn, 0, vals[0]->ty));
    if (vals[0]->ty->kind == TY_BOOL) d->kids[0] = vals[0];
    d->nkids = 1;
    emit_stmt(cx, d);
    Node *outer = cx->block;
    for (int i = 1; i < n; i++) {
        Node *test = var_ref(cx, syn, flag);
        if (!is_and) {
            Node *u = mk1(cx, N_C_UNARY, syn, &ty_bool, test);
            if (u) u->op = OP_NOT;
            test = u;
        }
        Node *ifn = mk(cx, N_C_IF, syn, &ty_void, 3);
        if (!ifn) return NULL;
        ifn->kids[0] = test;
        ifn->kids[1] = blks[i];
        ifn->kids[2] = NULL;
        ifn->nkids = 3;
        Node *val = vals[i]->ty->kind == TY_BOOL ? vals[i]
                    : mk2(cx, N_C_BINARY, syn, &ty_bool, OP_NE, vals[i], int_lit(cx, syn, 0, vals[i]->ty));
        block_add(cx, blks[i], mk1(cx, N_C_EXPR, syn, &ty_void, mk2(cx, N_C_ASSIGN, syn, &ty_bool, OP_SET, var_ref(cx, syn, flag), val)));
        block_add(cx, outer, ifn);
    }
    return var_ref(cx, syn, flag);
}

/* (not A) */
static Node *b_not(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!nargs_ok(cx, syn, 1, 1)) return NULL;
    Node *v = cond_value(cx, syn->kids[1]);
    if (!v) return NULL;
    if (v->kind == N_C_BINARY && v->op >= OP_LT && v->op <= OP_NE && ty_is_int(v->kids[0]->ty)) {
        /* (not (< a b)) reads better as a >= b (exact for integers) */
        static const int inverse[] = {[OP_LT] = OP_GE, [OP_GT] = OP_LE, [OP_LE] = OP_GT,
                                      [OP_GE] = OP_LT, [OP_EQ] = OP_NE, [OP_NE] = OP_EQ};
        return mk2(cx, N_C_BINARY, syn, &ty_bool, inverse[v->op], v->kids[0], v->kids[1]);
    }
    Node *u = mk1(cx, N_C_UNARY, syn, &ty_bool, v);
    if (u) u->op = OP_NOT;
    return u;
}

/* The common type of two branch values (NULL when they cannot meet). */
static Type *branch_type(Node *a, Node *b, Type *want) {
    if (!is_flex(a) && !is_flex(b)) return ty_join(a->ty, b->ty);
    if (!is_flex(a)) return a->ty;
    if (!is_flex(b)) return b->ty;
    if (ty_is_arith(want)) return want;
    return a->kind == N_C_FLOATLIT || b->kind == N_C_FLOATLIT ? ty_num(SC_FLOAT) : ty_num(SC_INT);
}

/* (select-if C A B): evaluates both A and B, then picks one. */
static Node *b_select(Ctx *cx, Node *syn, Type *want) {
    if (!nargs_ok(cx, syn, 3, 3)) return NULL;
    Node *c = cond_value(cx, syn->kids[1]);
    if (!c) return NULL;
    Node *args[2];
    Type *t;
    Node *a0 = expr(cx, syn->kids[2], want), *b0 = a0 ? expr(cx, syn->kids[3], want) : NULL;
    if (!a0 || !b0) return NULL;
    if (ty_is_arith(a0->ty) && ty_is_arith(b0->ty)) {
        Node *two[2] = {syn->kids[2], syn->kids[3]};
        (void)two;
        args[0] = a0;
        args[1] = b0;
        t = branch_type(a0, b0, want);
        if (!t) {
            diag_error_at(D(cx), syn, "E0312", "`select-if` branches have types `%s` and `%s`", tname(cx, a0->ty), tname(cx, b0->ty));
            return NULL;
        }
        args[0] = coerce(cx, a0, t, syn->kids[2], "select-if");
        args[1] = coerce(cx, b0, t, syn->kids[3], "select-if");
        if (!args[0] || !args[1]) return NULL;
    } else if (ty_equal(a0->ty, b0->ty) && (a0->ty->kind == TY_BOOL || a0->ty->kind == TY_ENUM || a0->ty->kind == TY_STRUCT)) {
        t = a0->ty;
        args[0] = a0;
        args[1] = b0;
    } else {
        diag_error_at(D(cx), syn, "E0312", "`select-if` branches have types `%s` and `%s`", tname(cx, a0->ty), tname(cx, b0->ty));
        return NULL;
    }
    if (node_has_effects(args[0]) || node_has_effects(args[1])) {
        args[0] = simple(cx, args[0], syn);
        args[1] = simple(cx, args[1], syn);
    }
    Node *s = mk(cx, N_C_SELECT, syn, t, 3);
    if (!s) return NULL;
    s->kids[0] = c;
    s->kids[1] = args[0];
    s->kids[2] = args[1];
    s->nkids = 3;
    return s;
}

/* ---- GPU builtins ---- */

static Node *dim_arg(Ctx *cx, Node *syn, int idx) {
    if (syn->nkids <= idx) return int_lit(cx, syn, 0, ty_num(SC_UINT));
    int64_t d;
    if (const_syn_int(cx, syn->kids[idx], &d)) {
        if (d < 0 || d > 2) {
            diag_error_at(D(cx), syn->kids[idx], "E0450", "dimension must be 0, 1 or 2, found %lld", (long long)d);
            return NULL;
        }
        return int_lit(cx, syn->kids[idx], d, ty_num(SC_UINT));
    }
    Node *v = expr(cx, syn->kids[idx], ty_num(SC_UINT));
    if (v && !ty_is_int(v->ty)) {
        diag_error_at(D(cx), syn->kids[idx], "E0451", "dimension must be an integer, found `%s`", tname(cx, v->ty));
        return NULL;
    }
    return v;
}

typedef struct IdBuiltin {
    const char *name;
    int op;              /* BUILTIN_OPS, or BI_HELPER for a helper */
    HelperKind helper;
    int takes_dim;
    Scalar ret;
} IdBuiltin;

static const IdBuiltin id_builtins[] = {
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
static Node *b_gpu_id(Ctx *cx, Node *syn, const IdBuiltin *b) {
    if (!nargs_ok(cx, syn, 0, b->takes_dim)) return NULL;
    Node *args[1];
    int n = 0;
    if (b->takes_dim) {
        args[0] = dim_arg(cx, syn, 1);
        if (!args[0]) return NULL;
        n = 1;
    }
    Node *c;
    if (b->op == BI_HELPER) {
        if (b->helper == H_GLOBAL_LINEAR_ID) need_helper(cx, H_GLOBAL_ID, NULL, AS_NONE);
        c = helper_call(cx, syn, ty_num(b->ret), need_helper(cx, b->helper, NULL, AS_NONE), args, n);
    } else {
        c = call_n(cx, syn, ty_num(b->ret), b->op, args, n);
    }
    if (c && b->op != BI_HELPER && b->ret == SC_ULONG) {
        /* size_t may be 32 bits on some devices: make the type explicit */
        Node *cast = mk1(cx, N_C_CAST, syn, ty_num(SC_ULONG), c);
        return cast;
    }
    return c;
}

/* (local-barrier) - barrier(CLK_LOCAL_MEM_FENCE) */
static Node *b_barrier(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!nargs_ok(cx, syn, 0, 0)) return NULL;
    if (cx->no_barrier && !ck_skip_checks(cx->ck)) {
        diag_error_at(D(cx), syn, "E0503",
                      "local-barrier inside `%s` would deadlock the workgroup: only some threads reach it", cx->no_barrier);
        return NULL;
    }
    Node *b = ck_node(cx, N_C_BARRIER, syn, &ty_void);
    b->op = BAR_LOCAL;
    return b;
}

/* (mem-fence [:local] [:global]) or (mem-fence :local T :global NIL) */
static Node *b_fence(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    int loc = 0, glob = 0;
    for (int i = 1; i < syn->nkids; i++) {
        Node *k = syn->kids[i];
        if (!(k->kind == N_KEYWORD && (!strcmp(k->key, "local") || !strcmp(k->key, "global")))) {
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
static Node *b_bounds(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    int global = syn->kids[0]->key[6] == 't';
    const char *what = syn->kids[0]->name;
    if (!nargs_ok(cx, syn, 1, 3)) return NULL;
    SizeDecl *sd = global ? &cx->fn->gsize : &cx->fn->lsize;
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
        Node *x = expr(cx, syn->kids[i + 1], ul);
        if (!x) return NULL;
        x = coerce(cx, x, ul, syn->kids[i + 1], what);
        if (!x) return NULL;
        Node *bound;
        if (sd->nset) bound = int_lit(cx, syn, sd->set_to[i], ul);
        else {
            Sym *p = sd->derive_sym[i];
            bound = p->ty->kind == TY_VECTOR ? length_of(cx, syn, p) : var_ref(cx, syn, p);
            if (!ty_equal(bound->ty, ul)) bound = mk1(cx, N_C_CAST, syn, ul, bound);
        }
        Node *lt = mk2(cx, N_C_BINARY, syn, &ty_bool, OP_LT, x, bound);
        acc = acc ? mk2(cx, N_C_BINARY, syn, &ty_bool, OP_AND, acc, lt) : lt;
    }
    return acc;
}

/* ---- atomics (spec "Atomics") ---- */

typedef struct AtomicOp {
    const char *name;
    int bi;                  /* the builtin on 32- and 64-bit integers */
    int nargs;               /* value arguments after the location */
    int op;                  /* operator for the CAS fallback */
} AtomicOp;

static const AtomicOp atomic_ops[] = {
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
    Node *p = place(cx, loc, 1);
    if (!p) return NULL;
    Sym *v = p->kids[0]->sym;
    *as = v->ty->as;
    if (*as != AS_GLOBAL && *as != AS_LOCAL) {
        diag_error_at(D(cx), loc, "E0511", "`%s` needs :global or :local memory; `%s` is %s memory", what, v->name, ty_as_name(*as));
        return NULL;
    }
    if (p->text) {
        diag_error_at(D(cx), loc, "E0512", "`%s` on a :std140 vector with padded elements is not supported; use :compact", what);
        return NULL;
    }
    /* spec "atomics and grid level operations": an atomic on :global memory
       makes its function grid level; inside a grid-level form (a grid-stride
       loop, a macro declaring (grid-level)) it is part of that form */
    if (*as == AS_GLOBAL && !cx->grid_region) grid_op(cx, syn, arena_printf(cx->ck->a, "`%s` on :global memory", what));
    Node *addr = mk1(cx, N_C_UNARY, syn, p->ty, p);
    if (addr) addr->op = OP_ADDR;
    return addr;
}

static Node *atomic_helper_call(Ctx *cx, Node *syn, Node *addr, AddrSpace as, Type *t, int op, CFunc *fn, int unary, Node *arg) {
    Helper *h = NULL;
    Program *p = prog_of(cx);
    /* the atomics made for the same fn, newest first (at most one live match) */
    const void *fkey = fn ? (const void *)fn : (const void *)&p->helpers_by_fn;
    Helper *chain = ptrmap_get(&p->helpers_by_fn, fkey);
    for (Helper *x = chain; x; x = x->next_fn)
        if (x->ty == t && x->as == as && x->op == op && x->unary == unary && helper_live(p, x)) {
            h = x;
            break;
        }
    if (!h) {
        h = need_helper(cx, H_ATOMIC_RMW, t, as);
        if (!h) return NULL;
        h->fn = fn;
        h->op = op;
        h->unary = unary;
        h->next_fn = chain;
        ptrmap_put(cx->ck->a, &p->helpers_by_fn, fkey, h);
    }
    if (ty_sizeof(t) == 8) p->uses_int64_atomics = 1;
    Node *args[2] = {addr, arg};
    return helper_call(cx, syn, t, h, args, arg ? 2 : 1);
}

/* (atomic-add! LOC V) (atomic-sub! LOC V) (atomic-inc! LOC) (atomic-dec! LOC)
 * (atomic-min! LOC V) (atomic-max! LOC V) (atomic-xchg! LOC V): the value
 * LOC held before. */
static Node *b_atomic(Ctx *cx, Node *syn, const AtomicOp *a) {
    if (!nargs_ok(cx, syn, 1 + a->nargs, 1 + a->nargs)) return NULL;
    AddrSpace as;
    Node *addr = atomic_place(cx, syn, a->name, &as);
    if (!addr) return NULL;
    Type *t = addr->ty;
    if (t->kind != TY_NUM) {
        diag_error_at(D(cx), syn, "E0513", "`%s` needs a scalar number location, found `%s`", a->name, tname(cx, t));
        return NULL;
    }
    Node *v = NULL;
    if (a->nargs) {
        v = expr(cx, syn->kids[2], t);
        v = coerce(cx, v, t, syn->kids[2], a->name);
        if (!v) return NULL;
    }
    int size = ty_sizeof(t);
    if (ty_is_int(t) && (size == 4 || size == 8)) {
        if (size == 8) prog_of(cx)->uses_int64_atomics = 1;
        Node *args[2] = {addr, v};
        return call_n(cx, syn, t, a->bi, args, v ? 2 : 1);
    }
    if (t->sc == SC_FLOAT && a->op == OP_SET) {
        Node *args[2] = {addr, v};
        return call_n(cx, syn, t, BI_ATOMIC_XCHG, args, 2);
    }
    if (size != 4 && size != 8) {
        diag_error_at(D(cx), syn, "E0514", "`%s` needs a 32- or 64-bit location, found `%s`", a->name, tname(cx, t));
        return NULL;
    }
    /* floats (and xchg of doubles): bounded compare-and-swap loop */
    if (!v) v = float_lit(cx, syn, 1.0, t);
    return atomic_helper_call(cx, syn, addr, as, t, a->op, NULL, 0, v);
}

/* Operators usable as #'F in atomic-binop!; returns 0 when `k` is none. */
static int builtin_binop(const char *k, int *op) {
    static const struct { const char *name; int op; } ops[] = {
        {"+", OP_ADD}, {"-", OP_SUB}, {"*", OP_MUL}, {"min", -1}, {"max", -2},
        {"bit-and", OP_BAND}, {"logand", OP_BAND}, {"bit-or", OP_BOR}, {"logior", OP_BOR},
        {"bit-xor", OP_BXOR}, {"logxor", OP_BXOR}, {NULL, 0}};
    for (int i = 0; ops[i].name; i++)
        if (!strcmp(ops[i].name, k)) {
            *op = ops[i].op;
            return 1;
        }
    return 0;
}

/* (atomic-binop! LOC #'F ARG) / (atomic-op! LOC #'F): a bounded
 * compare-and-swap loop applying F; returns the previous value.  F may be
 * (gen-NAME TYPES...), an instance of a templated function (spec
 * "gen-XXXX"). */
static Node *b_atomic_fn(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    int unary = !strcmp(syn->kids[0]->key, "atomic-op!");
    const char *what = syn->kids[0]->name;
    if (!nargs_ok(cx, syn, unary ? 2 : 3, unary ? 2 : 3)) return NULL;
    Node *f = syn->kids[2];
    FuncDef *gen_fd = NULL;
    if (template_is_gen(f)) {
        gen_fd = template_function_arg(cx->ck, f);
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
        diag_error_at(D(cx), syn, "E0514", "`%s` needs a 32- or 64-bit scalar location, found `%s`", what, tname(cx, t));
        return NULL;
    }
    Node *arg = NULL;
    if (!unary) {
        arg = expr(cx, syn->kids[3], t);
        arg = coerce(cx, arg, t, syn->kids[3], what);
        if (!arg) return NULL;
    }
    const char *fk = f->kids[1]->key;
    int op = 0;
    int is_op = !unary && builtin_binop(fk, &op);
    CFunc *fn = NULL;
    if (!is_op) {
        FuncDef *fd = gen_fd ? gen_fd : func_lookup(cx->ck, fk);
        if (!fd) {
            diag_error_at(D(cx), f, "E0516", "unknown function `%s`", f->kids[1]->name);
            return NULL;
        }
        if (!gen_fd) {
            /* an overloaded function: the overload of signature #'(T T => T) */
            FuncDef *cands[16];
            int nc = func_overloads(cx->ck, fk, cands, 16);
            for (int i = 0; i < nc; i++) {
                resolve_signature(cx->ck, cands[i]);
                int ok = !cands[i]->bad && cands[i]->nparams == (unary ? 1 : 2) && cands[i]->ret && ty_equal(cands[i]->ret, t);
                for (int j = 0; ok && j < cands[i]->nparams; j++) ok = ty_equal(cands[i]->params[j].ty, t);
                if (ok) {
                    fd = cands[i];
                    break;
                }
            }
        }
        Type *ats[2] = {t, t};
        resolve_signature(cx->ck, fd);
        if (fd->bad) return NULL;
        if (fd->nparams != (unary ? 1 : 2) || !ty_equal(fd->ret, t)) {
            diag_error_at(D(cx), f, "E0517", "`%s` needs a function of type #'(%s%s => %s), but `%s` is not", what,
                          tname(cx, t), unary ? "" : arena_printf(cx->ck->a, " %s", tname(cx, t)), tname(cx, t), fd->name);
            return NULL;
        }
        for (int i = 0; i < fd->nparams; i++)
            if (!ty_equal(fd->params[i].ty, t)) {
                diag_error_at(D(cx), f, "E0517", "`%s` needs a function taking `%s`, but `%s` takes `%s`", what, tname(cx, t),
                              fd->name, tname(cx, fd->params[i].ty));
                return NULL;
            }
        if (fd->kind != FN_FUNCTION) {
            diag_error_at(D(cx), f, "E0517", "`%s` needs a def-function, `%s` is a %s", what, fd->name, fd->kind == FN_KERNEL ? "kernel" : "grid function");
            return NULL;
        }
        fn = instantiate(cx, fd, ats, syn);
        if (!fn) return NULL;
    } else if (ty_is_int(t) && ty_sizeof(t) == 4 && op != OP_MUL) {
        int c = op == OP_ADD ? BI_ATOMIC_ADD : op == OP_SUB ? BI_ATOMIC_SUB : op == -1 ? BI_ATOMIC_MIN
                : op == -2 ? BI_ATOMIC_MAX : op == OP_BAND ? BI_ATOMIC_AND : op == OP_BOR ? BI_ATOMIC_OR : BI_ATOMIC_XOR;
        Node *args[2] = {addr, arg};
        return call_n(cx, syn, t, c, args, 2);
    } else if (op <= -1 || op == OP_BAND || op == OP_BOR || op == OP_BXOR) {
        if (ty_is_float(t) && (op == OP_BAND || op == OP_BOR || op == OP_BXOR)) {
            diag_error_at(D(cx), f, "E0518", "`%s` is not defined for `%s`", f->kids[1]->name, tname(cx, t));
            return NULL;
        }
    }
    return atomic_helper_call(cx, syn, addr, as, t, op, fn, unary, arg);
}

/* ---- core helpers used by the prelude (docs/core-forms.md) ---- */

/* (%extent E): E when it is an integer, (length~ E) when it is a vector */
static Node *b_extent(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!nargs_ok(cx, syn, 1, 1)) return NULL;
    Node *v = expr(cx, syn->kids[1], ty_num(SC_ULONG));
    if (!v) return NULL;
    if (v->ty->kind == TY_VECTOR && v->kind == N_C_VAR) return length_of(cx, syn, v->sym);
    if (is_flex(v)) v = coerce(cx, v, ty_num(SC_ULONG), syn->kids[1], "extent");
    if (v && !ty_is_int(v->ty)) {
        diag_error_at(D(cx), syn->kids[1], "E0460", "expected a vector or an integer count, found `%s`", tname(cx, v->ty));
        return NULL;
    }
    return v;
}

/* (%pow2-below E): the largest power of two below E (0 when E <= 1) */
static Node *b_pow2_below(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!nargs_ok(cx, syn, 1, 1)) return NULL;
    Node *v = expr(cx, syn->kids[1], ty_num(SC_ULONG));
    v = coerce(cx, v, ty_num(SC_ULONG), syn->kids[1], "limit");
    if (!v) return NULL;
    Node *args[1] = {v};
    return helper_call(cx, syn, ty_num(SC_ULONG), need_helper(cx, H_POW2_BELOW, NULL, AS_NONE), args, 1);
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
static Node *b_target_has(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!nargs_ok(cx, syn, 1, 2)) return NULL;
    int has = has_property(cx, syn, "target-has");
    if (has == -2) return NULL;
    if (has >= 0) return bool_lit(cx, syn, has);
    if (syn->nkids == 3) return bool_lit(cx, syn, eval_truthy(syn->kids[2]));
    diag_error_at(D(cx), syn, "E0021", "target-has :%s is not decided for target oclc (OpenCL C 1.2 makes it optional); "
                  "pass a default: (target-has :%s nil)", syn->kids[1]->key, syn->kids[1]->key);
    return NULL;
}

/* (device-has :PROP) - spec "target-has / device-has".  t or nil when
 * OpenCL C 1.2 decides; for an optional feature (:fp64, :fp16) a query the
 * driver answers when it builds the source: the extension's macro
 * (cl_khr_fp64) is defined exactly when the device has it. */
static Node *b_device_has(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!nargs_ok(cx, syn, 1, 1)) return NULL;
    int has = has_property(cx, syn, "device-has");
    if (has == -2) return NULL;
    Node *k = syn->kids[1];
    if (!strcmp(k->key, "subgroups")) has = warp_device_has_subgroups(cx, syn) ? -1 : 0; /* types/warps.c */
    if (has >= 0) return bool_lit(cx, syn, has);
    Program *p = prog_of(cx);
    Helper *h = NULL;
    for (int i = 0; i < p->nhelpers_of_kind[H_DEVICE_HAS] && !h; i++) {
        Helper *x = p->helpers_of_kind[H_DEVICE_HAS][i];
        if (!strcmp(x->key, k->key) && helper_live(p, x)) h = x;
    }
    if (!h) {
        h = need_helper(cx, H_DEVICE_HAS, NULL, AS_NONE);
        if (!h) return NULL;
        h->key = k->key;
    }
    return helper_call(cx, syn, &ty_bool, h, NULL, 0);
}

/* (%require-global-size N "NAME") */
static Node *b_require_gsize(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    int64_t n = 1;
    const char *who = syn->nkids > 2 && syn->kids[2]->kind == N_STRING ? syn->kids[2]->name : "this form";
    if (syn->nkids > 1) const_syn_int(cx, syn->kids[1], &n);
    if (cx->fn->kind == FN_KERNEL) {
        SizeDecl *g = &cx->fn->gsize;
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

/* ---- vector-views (spec "Vectors and Vector-View", "Creating Vectors") ---- */

/* A pointer-and-length vector variable NAME of type TY (a view, a side
 * channel, a marshalled vector) with its length variable NAME_len; declared
 * by view_decl. */
Sym *view_var(Ctx *cx, const Node *at, const char *name, Type *ty) {
    Sym *v = new_local(cx, at, name, ty);
    Sym *l = v ? new_local(cx, at, name_join(cx->ck, v->cname, "len"), ty_num(SC_ULONG)) : NULL;
    if (!l) return NULL;
    v->is_view = 1;
    v->len_sym = l;
    v->len_cname = l->cname;
    return v;
}

/* Declare view_var V: `T *v = (T *)PTR; ulong v_len = LEN;`. */
Sym *view_decl(Ctx *cx, const Node *at, Sym *v, Node *ptr, Node *len) {
    Node *cast = mk1(cx, N_C_CAST, at, v->ty, ptr);
    Node *d = mk(cx, N_C_DECL, at, v->ty, 2);
    if (!d || !cast) return NULL;
    d->sym = v;
    d->kids[0] = cast;
    d->kids[1] = len;
    d->nkids = 2;
    emit_stmt(cx, d);
    return v;
}

/* A vector-view variable: its own pointer (to the root's data), offset and
 * length. */
Sym *new_view(Ctx *cx, Node *syn, const char *name, Type *ty, Node *ptr, Node *off, Node *len) {
    Type *ul = ty_num(SC_ULONG);
    Sym *v = view_var(cx, syn, name, ty);
    Sym *o = v ? new_local(cx, syn, name_join(cx->ck, v->cname, "off"), ul) : NULL;
    if (!o) return NULL;
    v->off_sym = o;
    Node *od = mk(cx, N_C_DECL, syn, ul, 1);
    if (!od) return NULL;
    od->sym = o;
    od->kids[0] = off;
    od->nkids = 1;
    emit_stmt(cx, od);
    return view_decl(cx, syn, v, ptr, len);
}

Node *ulong_arg(Ctx *cx, Node *syn, const char *what) {
    Node *n = expr(cx, syn, ty_num(SC_ULONG));
    if (n) n = coerce(cx, n, ty_num(SC_ULONG), syn, what);
    return n;
}

/* (make-vector-view PARENT LENGTH [OFFSET]): a view of PARENT's elements
 * [OFFSET, OFFSET + LENGTH).  A view of a view is a view of its root, with
 * the offsets added. */
static Node *b_make_view(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!nargs_ok(cx, syn, 2, 3)) return NULL;
    Sym *p = vector_operand(cx, syn->kids[1], "make-vector-view");
    if (!p) return NULL;
    Node *len = ulong_arg(cx, syn->kids[2], "view length");
    Node *off = syn->nkids > 3 ? ulong_arg(cx, syn->kids[3], "view offset") : int_lit(cx, syn, 0, ty_num(SC_ULONG));
    if (!len || !off) return NULL;
    if (p->off_sym) off = mk2(cx, N_C_BINARY, syn, ty_num(SC_ULONG), OP_ADD, var_ref(cx, syn, p->off_sym), off);
    Type *t = ty_vector(cx->ck->a, p->ty->elem, p->ty->as, p->ty->acc, p->ty->align, -1);
    t->view = 1;
    Sym *v = new_view(cx, syn, cx->bind_hint ? cx->bind_hint : "view", t, var_ref(cx, syn, p), off, len);
    if (v) v->write_only = p->write_only;
    return v ? var_ref(cx, syn, v) : NULL;
}

/* (set! (parent~ VIEW) VECTOR): the view now looks into VECTOR. */
static Node *view_set_parent(Ctx *cx, Node *place_syn, Node *value) {
    Node *v = expr(cx, place_syn->kids[1], NULL);
    if (!v) return NULL;
    if (v->ty->kind != TY_VECTOR || v->kind != N_C_VAR || !v->sym->off_sym) {
        diag_error_at(D(cx), place_syn, "E0498", "only a vector-view's parent~ can be set, `%s` is `%s`",
                      syn_to_string(cx->ck->a, place_syn->kids[1], 30), tname(cx, v->ty));
        return NULL;
    }
    Sym *p = vector_operand(cx, value, "parent~");
    if (!p) return NULL;
    if (!ty_equal(p->ty->elem, v->ty->elem) || p->ty->as != v->ty->as) {
        diag_error_at(D(cx), value, "E0499", "the new parent of `%s` must hold `%s` in %s memory, found `%s`", v->sym->name,
                      tname(cx, v->ty->elem), ty_as_name(v->ty->as), tname(cx, p->ty));
        return NULL;
    }
    Node *a = mk2(cx, N_C_ASSIGN, place_syn, v->ty, OP_SET, var_ref(cx, place_syn, v->sym), var_ref(cx, place_syn, p));
    if (p->off_sym) {
        emit_stmt(cx, mk1(cx, N_C_EXPR, place_syn, &ty_void, a));
        a = mk2(cx, N_C_ASSIGN, place_syn, ty_num(SC_ULONG), OP_SET, var_ref(cx, place_syn, v->sym->off_sym),
                var_ref(cx, place_syn, p->off_sym));
    }
    return a;
}

/* (reinterpret-view SOURCE TYPE &key length offset): the same bytes seen
 * as TYPE elements; the length defaults to what fits. */
static Node *b_reinterpret(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (syn->nkids < 3) {
        nargs_ok(cx, syn, 2, 6);
        return NULL;
    }
    Sym *src = vector_operand(cx, syn->kids[1], "reinterpret-view");
    if (!src) return NULL;
    Node *tn = syn->kids[2];
    if (syn_is_form(tn, "quote") && tn->nkids == 2) tn = tn->kids[1];
    Type *et = type_expr(cx->ck, tn);
    if (!et) return NULL;
    if (cx->consteval && !constvec_reinterpret_ok(cx, tn, et)) return NULL;
    Type *st = src->ty->elem;
    if (st->kind == TY_STRUCT || et->kind == TY_STRUCT || !(ty_is_arith(et))) {
        diag_error_at(D(cx), syn, "E0447", "reinterpret-view works on numbers and hardware vectors, not `%s` as `%s`", tname(cx, st),
                      tname(cx, et));
        return NULL;
    }
    if (src->ty->align == AL_STD140 && ty_std140_align(st) != ty_std140_align(et)) {
        diag_error_at(D(cx), syn, "E0448", "a :std140 vector of `%s` (base alignment %d) cannot be seen as `%s` (base alignment %d)",
                      tname(cx, st), ty_std140_align(st), tname(cx, et), ty_std140_align(et));
        return NULL;
    }
    Node *len = NULL, *off = int_lit(cx, syn, 0, ty_num(SC_ULONG));
    for (int i = 3; i + 1 < syn->nkids; i += 2) {
        Node *k = syn->kids[i];
        if (syn_is_kw(k, "length")) len = ulong_arg(cx, syn->kids[i + 1], "view length");
        else if (syn_is_kw(k, "offset")) off = ulong_arg(cx, syn->kids[i + 1], "view offset");
        else {
            diag_error_at(D(cx), k, "E0449", "reinterpret-view takes :length and :offset, found `%s`", syn_to_string(cx->ck->a, k, 20));
            return NULL;
        }
        if (!len && syn_is_kw(k, "length")) return NULL;
    }
    int sst = ty_vector_stride(st, src->ty->align), nst = ty_vector_stride(et, src->ty->align);
    Node *base = var_ref(cx, syn, src);
    if (src->off_sym) base = mk2(cx, N_C_BINARY, syn, src->ty, OP_ADD, base, var_ref(cx, syn, src->off_sym));
    if (!len) {
        /* what fits: length * source stride / new stride */
        Node *bytes = mk2(cx, N_C_BINARY, syn, ty_num(SC_ULONG), OP_MUL, length_of(cx, syn, src), int_lit(cx, syn, sst, ty_num(SC_ULONG)));
        len = mk2(cx, N_C_BINARY, syn, ty_num(SC_ULONG), OP_DIV, bytes, int_lit(cx, syn, nst, ty_num(SC_ULONG)));
    }
    Type *t = ty_vector(cx->ck->a, et, src->ty->as, src->ty->acc, src->ty->align, -1);
    t->view = 1;
    Sym *v = new_view(cx, syn, cx->bind_hint ? cx->bind_hint : "view", t, base, off, len);
    if (v) v->write_only = src->write_only;
    return v ? var_ref(cx, syn, v) : NULL;
}

/* (%zero): a zero of the type the context wants (maybe error values) */
static Node *b_zero(Ctx *cx, Node *syn, Type *want) {
    if (want && want->kind == TY_ENUM) return int_lit(cx, syn, want->ed->values[0], want);
    if (want && want->kind == TY_BOOL) return bool_lit(cx, syn, 0);
    Node *z = int_lit(cx, syn, 0, want && ty_is_arith(want) ? want : ty_num(SC_INT));
    z->op = LIT_FLEX_INT;
    return z;
}

/* (or-else MAYBE-EXPR FALLBACK): the maybe's value, or FALLBACK when it
 * failed (spec "Guard: or-else"). */
static Node *b_or_else(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!nargs_ok(cx, syn, 2, 2)) return NULL;
    Node *vals[2];
    if (!mv_values(cx, syn->kids[1], 2, vals, 0)) return NULL;
    Node *fb = expr(cx, syn->kids[2], vals[1]->ty);
    if (fb) fb = coerce(cx, fb, vals[1]->ty, syn->kids[2], "or-else fallback");
    if (!fb) return NULL;
    Node *s = mk(cx, N_C_SELECT, syn, vals[1]->ty, 3);
    if (!s) return NULL;
    s->kids[0] = vals[0];
    s->kids[1] = vals[1];
    s->kids[2] = fb;
    s->nkids = 3;
    return s;
}

static Node *b_make_vector(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    diag_error_at(D(cx), syn, "E0445", "bind make-vector with let: (let ((v (make-vector ...))) ...)");
    return NULL;
}

/* ---- user functions ---- */

static void size_text(StrBuf *b, const SizeDecl *sd) {
    sb_puts(b, sd->nset ? ":set-to (" : sd->nderive ? ":derive-from (" : ":dims ");
    if (!sd->nset && !sd->nderive) sb_printf(b, "%d", sd->dims);
    for (int i = 0; i < sd->nset; i++) sb_printf(b, "%s%lld", i ? " " : "", (long long)sd->set_to[i]);
    for (int i = 0; i < sd->nderive; i++) sb_printf(b, "%s%s", i ? " " : "", sd->derive[i]);
    if (sd->nset || sd->nderive) sb_putc(b, ')');
}

/* A function's global-size / local-size declaration also speaks for the
 * kernels that call it (spec "declaring local-size / global-size in sub
 * functions"): adopted when the caller has none; when both disagree, a
 * warning, and the greatest :set-to sizes win. */
static void merge_sizes(Ctx *cx, SizeDecl *mine, const SizeDecl *theirs, const char *what, FuncDef *fd, Node *call) {
    if (!theirs->present) return;
    if (!mine->present) {
        *mine = *theirs;
        return;
    }
    int same = mine->dims == theirs->dims && mine->nset == theirs->nset && mine->nderive == theirs->nderive;
    for (int i = 0; same && i < mine->nset; i++) same = mine->set_to[i] == theirs->set_to[i];
    for (int i = 0; same && i < mine->nderive; i++) same = !strcmp(mine->derive[i], theirs->derive[i]);
    if (same) return;
    StrBuf a, b;
    sb_init(&a);
    sb_init(&b);
    size_text(&a, mine);
    size_text(&b, theirs);
    int greater = mine->nset && theirs->nset && mine->nset == theirs->nset;
    diag_warning_at(D(cx), call, "W0702", "`%s` declares %s %s but `%s` declares %s%s", cx->fn->name, what, sb_cstr(&a),
                    fd->name, sb_cstr(&b), greater ? "; the hoisting code uses the greatest" : "; the kernel's declaration is kept");
    if (theirs->at) diag_note(D(cx), theirs->at->loc, "`%s`'s declaration is here", fd->name);
    sb_free(&a);
    sb_free(&b);
    if (greater)
        for (int i = 0; i < mine->nset; i++)
            if (theirs->set_to[i] > mine->set_to[i]) mine->set_to[i] = theirs->set_to[i];
}

/* How well argument `a` fits parameter type `p`: 0 exact, 1 an adapted
 * literal, 2 an implicit widening; -1 it does not fit. */
static int fit(const Node *a, const Type *p) {
    if (p->kind == TY_IDENT || a->ty->kind == TY_IDENT)
        return p->kind == a->ty->kind && (!p->ndims || p->ndims == a->ty->ndims) ? (p->ndims ? 0 : 1) : -1;
    if (p->kind == TY_VECTOR) {
        const Type *t = a->ty;
        if (t->kind != TY_VECTOR || a->kind != N_C_VAR || p->soa != t->soa) return -1;
        if (p->ndims < 0 ? t->ndims <= 0 : p->ndims != t->ndims) return -1; /* tensor rank (0: a plain vector) */
        int tf = vector_tag_fit(t, p); /* derived vector types */
        if (!tf) return -1;
        int derived = tf == 2 ? 3 : 0; /* by substitution: the exact (derived) overload is closer */
        if (p->elem && !ty_equal(p->elem, t->elem)) return -1;
        if (p->as && p->as != t->as) return -1;
        if (p->align && p->align != t->align) return -1;
        return derived + (p->as && p->elem && p->ndims >= 0 ? 0 : 1);
    }
    if (ty_equal(a->ty, p)) return 0; /* a literal's own default type too */
    if (is_flex(a) && ty_is_arith(p)) {
        /* a literal adapts: best within its own kind (int, float) */
        int float_lit = a->kind == N_C_FLOATLIT && a->op == LIT_FLEX_FLOAT;
        if (float_lit && ty_category(p) != CAT_FLOAT) return -1;
        return ty_category(p) == ty_category(a->ty) ? 1 : 2;
    }
    if (struct_subst_ok(a->ty, p)) return 3; /* a derived type's substitution: an exact match is closer */
    if (ty_widens(a->ty, p)) /* the closest wider type wins */
        return 2 + ty_scalar_info(p->sc)->rank - ty_scalar_info(a->ty->sc)->rank;
    return -1;
}

static const char *signature_text(Ctx *cx, FuncDef *f) {
    const char *s = "";
    for (int i = 0; i < f->nparams; i++) s = arena_printf(cx->ck->a, "%s%s%s", s, i ? " " : "", tname(cx, f->params[i].ty));
    return arena_printf(cx->ck->a, "#'(%s => %s)", s, tname(cx, f->ret));
}

/* May F take the N positional arguments of SYN and default the rest (its
 * &optional and &key parameters after the N-th)? */
static int optional_fit(const Node *syn, const FuncDef *f, int n) {
    if (n >= f->nparams || f->params[n].mode == 0) return 0;
    for (int i = 1; i < syn->nkids; i++)
        if (syn->kids[i]->kind == N_KEYWORD) return 0; /* keys: only an exact count is compared */
    for (int i = 0; i < n; i++)
        if (f->params[i].mode == 2) return 0;
    return 1;
}

/* Compile-time multiple dispatch: the overload whose parameters fit the
 * arguments best; an error when none fits or two fit equally well. */
static FuncDef *choose_overload(Ctx *cx, Node *syn, FuncDef **cands, int nc, Node **args, int n) {
    FuncDef *best = NULL, *tie = NULL;
    int best_score = 0;
    for (int c = 0; c < nc; c++) {
        FuncDef *f = cands[c];
        resolve_signature(cx->ck, f);
        if (f->bad || (f->nparams != n && !optional_fit(syn, f, n))) continue;
        int score = 0;
        for (int i = 0; i < n && score >= 0; i++) {
            int k = fit(args[i], f->params[i].ty);
            score = k < 0 ? -1 : score + k;
        }
        if (score < 0) continue;
        if (!best || score < best_score) {
            best = f;
            best_score = score;
            tie = NULL;
        } else if (score == best_score) {
            tie = f;
        }
    }
    const char *types = "";
    for (int i = 0; i < n; i++) types = arena_printf(cx->ck->a, "%s%s%s", types, i ? " " : "", tname(cx, args[i]->ty));
    if (!best || tie) {
        diag_error_at(D(cx), syn, best ? "E0374" : "E0373", "%s overload of `%s` for arguments (%s)%s", best ? "ambiguous" : "no",
                      syn->kids[0]->name, types, best ? ": convert an argument to pick one" : "");
        for (int c = 0; c < nc; c++)
            if (!best || cands[c] == best || cands[c] == tie || nc <= 8)
                diag_note(D(cx), cands[c]->form->loc, "candidate: %s %s", cands[c]->name, signature_text(cx, cands[c]));
        return NULL;
    }
    return best;
}

/* Replace the parameters bound so far in a default value by their
 * arguments (a default may use the parameters before it). */
static Node *subst_params(Ctx *cx, Node *syn, FuncDef *fd, Node **argsyn, int upto) {
    if (syn->kind == N_SYMBOL) {
        for (int i = 0; i < upto; i++)
            if (!strcmp(fd->params[i].name->key, syn->key)) return argsyn[i];
        return syn;
    }
    if (syn->kind != N_LIST) return syn;
    Node *c = syn_copy(cx->ck->a, syn);
    for (int i = 1; i < c->nkids; i++) c->kids[i] = subst_params(cx, c->kids[i], fd, argsyn, upto);
    return c;
}

/* The argument for every parameter of `fd` at call `syn`: required and
 * &optional ones by position, &key ones by :name, defaults for the rest
 * (spec style H). */
static Node **call_arguments(Ctx *cx, Node *syn, FuncDef *fd) {
    Checker *ck = cx->ck;
    Node **args = arena_alloc(ck->a, sizeof(Node *) * (size_t)(fd->nparams + 1));
    if (!args) return NULL;
    int k = 1, nreq = 0, nopt = 0;
    for (int i = 0; i < fd->nparams; i++) {
        ParamDecl *p = &fd->params[i];
        nreq += p->mode == 0;
        nopt += p->mode == 1;
        if (p->mode == 2 || k >= syn->nkids) continue;
        Node *a = syn->kids[k];
        int is_key = 0;
        for (int j = 0; a->kind == N_KEYWORD && j < fd->nparams; j++)
            is_key |= fd->params[j].mode == 2 && !strcmp(fd->params[j].name->key, a->key);
        if (is_key) continue;
        args[i] = a;
        k++;
    }
    for (; k < syn->nkids; k += 2) {
        Node *key = syn->kids[k];
        int found = -1;
        for (int j = 0; key->kind == N_KEYWORD && j < fd->nparams; j++)
            if (fd->params[j].mode == 2 && !strcmp(fd->params[j].name->key, key->key)) found = j;
        if (found < 0 || k + 1 >= syn->nkids) {
            if (found < 0 && key->kind == N_KEYWORD)
                diag_error_at(D(cx), key, "E0375", "`%s` has no key parameter `%s`", fd->name, key->name);
            else
                diag_error_at(D(cx), syn, "E0370", "`%s` takes %d%s argument%s, found %d", fd->name, nreq,
                              nopt ? arena_printf(ck->a, " to %d", nreq + nopt) : "", nreq + nopt == 1 ? "" : "s", syn->nkids - 1);
            diag_note(D(cx), fd->form->loc, "`%s` is defined here", fd->name);
            return NULL;
        }
        if (args[found]) {
            diag_error_at(D(cx), key, "E0376", "key `%s` is given twice", key->name);
            return NULL;
        }
        args[found] = syn->kids[k + 1];
    }
    for (int i = 0; i < fd->nparams; i++) {
        ParamDecl *p = &fd->params[i];
        if (args[i]) continue;
        if (p->mode == 0) {
            diag_error_at(D(cx), syn, "E0370", "`%s` takes %d%s argument%s, found %d", fd->name, nreq,
                          nopt ? arena_printf(ck->a, " to %d", nreq + nopt) : "", nreq + nopt == 1 ? "" : "s", syn->nkids - 1);
            diag_note(D(cx), fd->form->loc, "`%s` is defined here", fd->name);
            return NULL;
        }
        if (p->deflt) {
            args[i] = subst_params(cx, p->deflt, fd, args, i);
        } else if (p->ty && ty_is_arith(p->ty)) {
            args[i] = syn_int(ck->a, syn->loc, 0); /* no default: zero */
            args[i]->origin = syn->origin;
        } else {
            diag_error_at(D(cx), syn, "E0377", "`%s` needs a value for `%s`, which has no default", fd->name, p->name->name);
            return NULL;
        }
    }
    return args;
}

/* (F ARG...): a call to a def-function / def-grid-function.  Extra return
 * values are received in temporaries returned through extra[]. */
Node *user_call(Ctx *cx, Node *syn, Type *want, Node **extra, int nextra) {
    (void)want;
    Checker *ck = cx->ck;
    cx->bind_hint = NULL; /* only a direct initialiser names a view */
    FuncDef *forced = ck->forced_callee;
    ck->forced_callee = NULL;
    if (ck->ct && !constvec_call_ok(cx, syn)) return NULL;
    if (!forced && hof_lookup(ck, syn->kids[0]->key)) {
        int handled = 0;
        Node *r = hof_call(cx, syn, want, &handled);
        if (handled) return r;
    }
    int n = syn->nkids - 1;
    FuncDef *cands[64];
    int nc = forced ? 1 : func_overloads(ck, syn->kids[0]->key, cands, 64);
    int templated = !forced && template_lookup(ck, syn->kids[0]->key) != NULL;
    if (forced) cands[0] = forced;
    Node **pre = NULL; /* arguments checked once, to choose an overload */
    if (nc > 1 || templated) {
        pre = arena_alloc(ck->a, sizeof(Node *) * (size_t)(n + 1));
        if (!pre) return NULL;
        for (int i = 0; i < n; i++) {
            pre[i] = expr(cx, syn->kids[i + 1], NULL);
            if (!pre[i]) return NULL;
            if (pre[i]->ty->kind == TY_TUPLE) pre[i]->ty = pre[i]->ty->elems[0];
        }
    }
    if (templated) {
        /* a templated function: the instance for these argument types
           joins the overloads (spec "Template Types") */
        int errs = ck->d->errors;
        FuncDef *inst = template_for_call(ck, syn->kids[0]->key, syn, pre, n);
        if (!inst && ck->d->errors > errs) return NULL;
        nc = func_overloads(ck, syn->kids[0]->key, cands, 64);
    }
    if (nc == 0) {
        diag_error_at(ck->d, syn, "E0494", "unknown function `%s`", syn->kids[0]->name);
        return NULL;
    }
    FuncDef *fd = cands[0];
    if (nc > 1 || (templated && pre)) {
        fd = choose_overload(cx, syn, cands, nc, pre, n);
        if (!fd) return NULL;
    }
    resolve_signature(ck, fd);
    if (fd->bad) return NULL;
    Node **argsyn = call_arguments(cx, syn, fd);
    if (!argsyn) return NULL;
    if (pre && n != fd->nparams) {
        /* defaults were filled in: the positional arguments already
           checked are kept (checked once), the defaults checked below */
        Node **full = arena_alloc(ck->a, sizeof(Node *) * (size_t)(fd->nparams + 1));
        if (!full) return NULL;
        for (int i = 0; i < fd->nparams; i++) full[i] = i < n && argsyn[i] == syn->kids[i + 1] ? pre[i] : NULL;
        pre = full;
    }
    n = fd->nparams;
    if (fd->kind == FN_GRID) grid_op(cx, syn, arena_printf(ck->a, "calling the grid function `%s`", fd->name));
    Node **vals = arena_alloc(ck->a, sizeof(Node *) * (size_t)(n + 1));
    Type **tys = arena_alloc(ck->a, sizeof(Type *) * (size_t)(n + 1));
    if (!vals || !tys) return NULL;
    for (int i = 0; i < n; i++) {
        ParamDecl *p = &fd->params[i];
        Node *a = pre && pre[i] ? pre[i] : expr(cx, argsyn[i], p->ty->kind == TY_VECTOR || p->ty->kind == TY_IDENT || (p->ty->kind == TY_STRUCT && p->ty->sd->pattern) ? NULL : p->ty);
        if (!a) return NULL;
        if (p->ty->kind == TY_IDENT || a->ty->kind == TY_IDENT) {
            /* an identity tensor: only to an (identity-tensor-type [N])
               parameter of its rank; it passes no data */
            if (!identity_arg_ok(cx, argsyn[i], a, p->ty, p->name->name, fd->name)) return NULL;
            vals[i] = a;
            tys[i] = a->ty;
        } else if (p->ty->kind == TY_VECTOR) {
            Type *pt = p->ty, *at = a->ty;
            if (at->kind != TY_VECTOR || a->kind != N_C_VAR) {
                diag_error_at(ck->d, argsyn[i], "E0371", "argument %d of `%s` (`%s`) must be a vector, found `%s`", i + 1,
                              fd->name, p->name->name, tname(cx, at));
                return NULL;
            }
            Sym *as = a->sym;
            if (sym_ndims(as) && !pt->ndims) {
                diag_error_at(ck->d, argsyn[i], "E0486",
                              "tensor-view `%s` cannot be passed as parameter `%s` of `%s` (`%s`): a tensor-view goes only to a (tensor-view-type N ...) parameter; pass the parent vector or declare the parameter a tensor-view",
                              as->name, p->name->name, fd->name, tname(cx, pt));
                return NULL;
            }
            if (pt->ndims && !sym_ndims(as)) {
                diag_error_at(ck->d, argsyn[i], "E0413",
                              "parameter `%s` of `%s` is a tensor-view (`%s`), but `%s` is `%s`, not a tensor-view; make one with make-tensor-view or make-matrix",
                              p->name->name, fd->name, tname(cx, pt), as->name, tname(cx, at));
                return NULL;
            }
            if (pt->ndims > 0 && pt->ndims != sym_ndims(as)) {
                diag_error_at(ck->d, argsyn[i], "E0414",
                              "parameter `%s` of `%s` expects a %d-dimensional tensor-view, but `%s` has %d dimension%s",
                              p->name->name, fd->name, pt->ndims, as->name, sym_ndims(as), sym_ndims(as) == 1 ? "" : "s");
                return NULL;
            }
            if (pt->tag && pt->ndims && (!at->tag || strcmp(pt->tag, at->tag)) && !vector_tag_fit(at, pt)) {
                diag_error_at(ck->d, argsyn[i], "E0548", "parameter `%s` of `%s` is the derived tensor-view type `%s`, found `%s`; make one with (as-%s %s)",
                              p->name->name, fd->name, pt->tag, tname(cx, at), pt->tag, as->name);
                return NULL;
            }
            if (!vector_tag_fit(at, pt)) {
                /* a derived vector type (spec "Derived Types"): :subst decides */
                const Type *dt = pt->tag ? pt : at;
                static const char *mode[4] = {":no", ":equal", ":pass-orig", ":pass-derived"};
                diag_error_at(ck->d, argsyn[i], "E0167",
                              "cannot pass `%s` (`%s`) as parameter `%s` of `%s` (`%s`): `%s` is a derived type with :subst %s; cast with (as-%s %s)",
                              as->name, tname(cx, at), p->name->name, fd->name, tname(cx, pt), dt->tag, mode[dt->tag_subst & 3],
                              pt->tag ? pt->tag : "original", as->name);
                return NULL;
            }
            const char *why = NULL;
            if (pt->soa != at->soa) why = pt->soa ? "the parameter is a soa-vector" : "the argument is a soa-vector";
            else if (pt->elem && !ty_equal(pt->elem, at->elem)) why = "element types differ";
            else if (pt->as && pt->as != at->as) why = "address spaces differ";
            else if (pt->align && pt->align != at->align) why = "alignments differ";
            else if (pt->length >= 0 && pt->length != at->length) why = "lengths differ";
            else if ((p->is_out || pt->acc == ACC_READ_WRITE || pt->acc == ACC_WRITE_ONLY) &&
                     (at->acc == ACC_READ_ONLY || at->as == AS_CONSTANT))
                why = "the parameter is writable but the argument is read-only";
            else if ((as->write_only || at->acc == ACC_WRITE_ONLY) && !p->is_out && pt->acc != ACC_WRITE_ONLY)
                why = "the argument is write-only but the parameter may be read (declare it &out or :write-only)";
            if (why) {
                diag_error_at(ck->d, argsyn[i], "E0372", "cannot pass `%s` (`%s`) as parameter `%s` of `%s` (`%s`): %s",
                              as->name, tname(cx, at), p->name->name, fd->name, tname(cx, pt), why);
                return NULL;
            }
            vals[i] = a;
            tys[i] = at;
        } else if (p->ty->kind == TY_STRUCT && p->ty->sd->pattern) {
            /* an incomplete struct template: any instance agreeing on the
               given arguments; the function is instantiated for it */
            if (!template_pattern_match(ck, p->ty, a->ty)) {
                diag_error_at(ck->d, argsyn[i], "E1016", "argument `%s` of `%s` expected an instance of `%s`, found `%s`",
                              p->name->name, fd->name, tname(cx, p->ty), tname(cx, a->ty));
                return NULL;
            }
            vals[i] = a;
            tys[i] = a->ty;
        } else {
            a = coerce(cx, a, p->ty, argsyn[i], arena_printf(ck->a, "argument `%s` of `%s`", p->name->name, fd->name));
            if (!a) return NULL;
            vals[i] = a;
            tys[i] = p->ty;
        }
    }
    CFunc *fn = instantiate(cx, fd, tys, syn);
    if (!fn) return NULL;
    merge_sizes(cx, &cx->fn->gsize, &fn->gsize, "global-size", fd, syn);
    merge_sizes(cx, &cx->fn->lsize, &fn->lsize, "local-size", fd, syn);
    /* side channels and the debug channel the callee needs from us */
    Node **side = arena_alloc(ck->a, sizeof(Node *) * (size_t)(2 * fn->nfsides + 4)); /* + warp memory, debug */
    int nside = 0;
    if (!side || !side_call_args(cx, fn, syn, fd, side, &nside)) return NULL;
    int nret = fn->ret->kind == TY_TUPLE ? fn->ret->nelems : 0;
    int nargs = nside;
    for (int i = 0; i < n; i++)
        nargs += sym_ndims(fn->params[i])                 ? 4
                 : fn->params[i]->soa_fields              ? fn->params[i]->ty->elem->sd->nfields + 1
                 : fn->params[i]->ty->kind == TY_VECTOR ? 2
                 : fn->params[i]->ty->kind == TY_IDENT  ? 0
                                                          : 1;
    nargs += nret > 1 ? nret - 1 : 0;
    Node *c = mk(cx, N_C_CALL, syn, fn->ret, nargs);
    if (!c) return NULL;
    c->text = fn->cname;
    for (int i = 0; i < n; i++) {
        if (fn->params[i]->ty->kind == TY_IDENT) continue; /* no data to pass */
        if (sym_ndims(fn->params[i])) {
            /* a tensor-view: root pointer, offset, dims and strides arrays */
            Sym *vs = vals[i]->sym;
            if (!vs || !vs->off_sym || !vs->dims_sym || !vs->strides_sym) {
                /* (let ((m (progn (make-matrix ...)))) ...): a vector, not a view */
                diag_error_at(D(cx), syn, "E0484",
                              "`%s` takes a tensor-view, but argument %d is not a tensor-view variable: bind the view "
                              "with (let ((m (make-tensor-view ...))) ...) and pass m",
                              fn->name, i + 1);
                return NULL;
            }
            c->kids[c->nkids++] = vals[i];
            c->kids[c->nkids++] = var_ref(cx, syn, vs->off_sym);
            c->kids[c->nkids++] = var_ref(cx, syn, vs->dims_sym);
            c->kids[c->nkids++] = var_ref(cx, syn, vs->strides_sym);
        } else if (fn->params[i]->soa_fields) {
            Sym *vs = vals[i]->sym;
            if (!vs || !vs->soa_fields) {
                /* (f (progn sv)): a value, not the soa variable whose fields are passed */
                diag_error_at(D(cx), syn, "E0563",
                              "`%s` takes a soa-vector, but argument %d is not a soa-vector variable bound to "
                              "make-soa-vector, a soa view or a soa parameter (its field vectors are what is passed): "
                              "bind it directly, (let ((sv (make-soa-vector ...))) ...)",
                              fn->name, i + 1);
                return NULL;
            }
            soa_call_args(cx, syn, vs, c);
        } else if (fn->params[i]->ty->kind == TY_VECTOR) {
            Sym *vs = vals[i]->sym;
            /* a view arrives as a vector starting at its first element */
            c->kids[c->nkids++] = vs->off_sym ? mk2(cx, N_C_BINARY, syn, vs->ty, OP_ADD, vals[i], var_ref(cx, syn, vs->off_sym)) : vals[i];
            c->kids[c->nkids++] = length_of(cx, syn, vs);
        } else {
            c->kids[c->nkids++] = vals[i];
        }
    }
    for (int i = 0; i < nside; i++) c->kids[c->nkids++] = side[i];
    for (int i = 1; i < nret; i++) {
        Sym *t = new_temp(cx, syn, "value", fn->ret->elems[i]);
        if (!t) return NULL;
        Node *d = ck_node(cx, N_C_DECL, syn, t->ty);
        d->sym = t;
        emit_stmt(cx, d);
        Node *ad = mk1(cx, N_C_UNARY, syn, t->ty, var_ref(cx, syn, t));
        if (!ad) return NULL;
        ad->op = OP_ADDR;
        c->kids[c->nkids++] = ad;
        if (extra && i - 1 < nextra) extra[i - 1] = var_ref(cx, syn, t);
    }
    if (fn->ret->kind == TY_TUPLE && fn->ret->maybe && !extra) {
        diag_error_at(ck->d, syn, "E0395", "`%s` is a %s: bind it with let-maybe, or give a fallback with or-else",
                      syn_to_string(ck->a, syn, 40), tname(cx, fn->ret));
        return NULL;
    }
    if (fn->ret->kind == TY_TUPLE && !extra) c->ty = fn->ret->elems[0];
    if (fn->ret_side && 2 * (fn->ret_side - 1) < nside) {
        /* a function returning its own side channel: make the call, then
           the value is the vector this caller passed for it */
        Node *st = mk1(cx, N_C_EXPR, syn, &ty_void, c);
        if (!st) return NULL;
        emit_stmt(cx, st);
        return side[2 * (fn->ret_side - 1)];
    }
    return c;
}

/* ---- the builtin table ---- */

typedef Node *(*BuiltinFn)(Ctx *, Node *, Type *);

typedef struct Builtin {
    const char *name;
    BuiltinFn fn;
} Builtin;

static const Builtin builtins[] = {
    {"+", b_arith}, {"-", b_arith}, {"*", b_arith}, {"/", b_slash},
    {"<", b_compare}, {">", b_compare}, {"<=", b_compare}, {">=", b_compare}, {"=", b_compare},
    {"==", b_compare}, {"/=", b_compare}, {"!=", b_compare},
    {"bit-and", b_bitop}, {"bit-or", b_bitop}, {"bit-xor", b_bitop}, {"logxor", b_bitop},
    {"logand", b_bitop}, {"logior", b_bitop}, {"lognot", b_lognot}, {"bit-not", b_lognot}, {"ash", b_ash},
    {"min", b_minmax}, {"max", b_minmax}, {"clamp", b_minmax}, {"abs", b_minmax},
    {"sqrt", b_math}, {"rsqrt", b_math}, {"pow", b_math}, {"expt", b_math}, {"exp", b_math}, {"log", b_math},
    {"log2", b_math}, {"sin", b_math}, {"cos", b_math}, {"tan", b_math}, {"asin", b_math},
    {"acos", b_math}, {"atan", b_math},
    {"floor", b_rounding}, {"ceil", b_rounding}, {"round", b_rounding}, {"truncate", b_rounding},
    {"~", b_elem}, {"~ref~", b_elem}, {"length~", b_length}, {"~length~", b_length},
    {"set!", b_set}, {"inc!", b_incdec}, {"dec!", b_incdec},
    {"and", b_andor}, {"or", b_andor}, {"not", b_not}, {"select-if", b_select},
    {"local-barrier", b_barrier}, {"mem-fence", b_fence},
    {"check-thread-bounds", b_bounds}, {"check-wg-bounds", b_bounds},
    {"atomic-binop!", b_atomic_fn}, {"atomic-op!", b_atomic_fn},
    {"%extent", b_extent}, {"%pow2-below", b_pow2_below}, {"device-has", b_device_has}, {"target-has", b_target_has},
    {"%require-global-size", b_require_gsize},
    {"make-vector", b_make_vector}, {"%zero", b_zero}, {"or-else", b_or_else},
    {"make-vector-view", b_make_view}, {"reinterpret-view", b_reinterpret},
    {"make-identity-tensor", tensor_form}, {"is-identity-tensor?", tensor_form},
    {"make-tensor-view", tensor_form}, {"make-matrix", tensor_form}, {"dims~", tensor_form}, {"strides~", tensor_form},
    {"num-dims~", tensor_form}, {"num-rows", tensor_form}, {"num-cols", tensor_form}, {"row", tensor_form},
    {"col", tensor_form}, {"transpose", tensor_form}, {"transpose!", tensor_form}, {"get-layout", tensor_form},
    {"get-struct", soa_get_struct}, {"bytes", b_bytes},
    {"convert-aos-to-soa", soa_convert}, {"convert-soa-to-aos", soa_convert},
    {"make-result-vector", side_make}, {"make-scratch-vector", side_make}, {"make-implicit-vector", side_make},
    {"r-t-output", debug_form}, {"r-t-assert", debug_form}, {"r-t-assert-0", debug_form},
    {"r-t-workgroup-output-if", debug_form}, {"r-t-workgroup-assert", debug_form}, {"%debug-log", debug_form},
    {"marshall-vector", marshall_form}, {"marshall-result-vector", marshall_form},
    {"marshall-scratch-vector", marshall_form}, {"marshall-implicit-vector", marshall_form},
    {"marshall-debug-logging-vector", marshall_form},
    {NULL, NULL},
};

/* Is KEY a builtin function a variable may hold, (let ((op #'max)) ...)
 * or (let ((op #'atomic-add!)) ...) (spec "First Order Functions",
 * "reduce-to-1-atomic")?  Forms that are not functions (set!, and, ~)
 * are not. */
int builtin_function_value(const char *key) {
    for (int i = 0; builtins[i].name; i++)
        if (!strcmp(builtins[i].name, key)) {
            BuiltinFn f = builtins[i].fn;
            return f == b_arith || f == b_slash || f == b_compare || f == b_bitop || f == b_lognot || f == b_ash ||
                   f == b_minmax || f == b_math || f == b_rounding || f == b_not;
        }
    for (int i = 0; atomic_ops[i].name; i++)
        if (!strcmp(atomic_ops[i].name, key)) return 1;
    return 0;
}

/* (NAME~ X): a struct field, a vector's length or hardware-vector
 * components, chosen by the type of X (spec: member access `XXXX~`,
 * `length~`, swizzles). */
static Node *accessor(Ctx *cx, Node *syn) {
    const char *h = syn->kids[0]->key;
    Node *base = expr(cx, syn->kids[1], NULL);
    if (!base) return NULL;
    if (h[0] != '~') {
        /* a user overload of the accessor for this type wins (spec
           "overloading member access function"); ~NAME~ never dispatches */
        FuncDef *cands[16];
        int nc = func_overloads(cx->ck, h, cands, 16);
        for (int i = 0; i < nc; i++) {
            resolve_signature(cx->ck, cands[i]);
            if (!cands[i]->bad && cands[i]->nparams == 1 && fit(base, cands[i]->params[0].ty) >= 0)
                return user_call(cx, syn, NULL, NULL, 0);
        }
    }
    if (base->ty->kind == TY_IDENT) return tensor_form(cx, syn, NULL); /* num-dims~, or a clear error */
    if (base->kind == N_C_VAR && sym_ndims(base->sym) &&
        (!strcmp(h, "dims~") || !strcmp(h, "strides~") || !strcmp(h, "num-dims~")))
        return tensor_form(cx, syn, NULL);
    if (base->ty->kind == TY_STRUCT) return struct_member_value(cx, struct_member(cx, syn, base, 0));
    if ((!strcmp(h, "length~") || !strcmp(h, "~length~")) && base->ty->kind == TY_VECTOR && base->kind == N_C_VAR)
        return length_of(cx, syn, base->sym);
    if ((!strcmp(h, "offset~") || !strcmp(h, "~offset~")) && base->ty->kind == TY_VECTOR && base->kind == N_C_VAR)
        return base->sym->off_sym ? var_ref(cx, syn, base->sym->off_sym) : int_lit(cx, syn, 0, ty_num(SC_ULONG));
    if ((!strcmp(h, "parent~") || !strcmp(h, "~parent~")) && cx->consteval) return constvec_parent(cx, syn, base);
    if ((!strcmp(h, "parent~") || !strcmp(h, "~parent~")) && base->ty->kind == TY_VECTOR) {
        diag_error_at(D(cx), syn, "E0562",
                      "`%s` can be set in kernel code, (set! (parent~ v) w), but not read: a view's parent is the vector it was made from; use that vector",
                      syn->kids[0]->name);
        return NULL;
    }
    if (is_swizzle_name(h) && base->ty->kind != TY_VECTOR) return swizzle_of(cx, syn, base, 0);
    if (!strcmp(h, "length~") || !strcmp(h, "~length~")) {
        diag_error_at(D(cx), syn->kids[1], "E0401", "`%s` needs a vector, found `%s`", syn->kids[0]->name, tname(cx, base->ty));
        return NULL;
    }
    diag_error_at(D(cx), syn, "E0496", "`%s` selects a struct field, but `%s` is `%s`", syn->kids[0]->name,
                  syn_to_string(cx->ck->a, syn->kids[1], 30), tname(cx, base->ty));
    if (base->ty->kind == TY_VECTOR) { /* a misspelt vector accessor */
        static const char *vec_accessors[] = {"length~", "offset~", "parent~", "dims~", "strides~", "num-dims~", NULL};
        Suggest sg;
        suggest_init(&sg, h);
        for (int i = 0; vec_accessors[i]; i++) suggest_add(&sg, vec_accessors[i]);
        if (suggest_best(&sg)) diag_note(D(cx), syn->kids[0]->loc, "did you mean `%s`?", suggest_best(&sg));
    }
    return NULL;
}

/* The type syntax of a def-setter's object parameter: its annotation, a
 * (declare (type OBJ TYPE)) at the start of the body, or the first type of
 * a declared signature (declare #(OBJ-TYPE VALUE-TYPE => nil)); NULL when
 * untyped. */
Node *setter_object_type(const Node *f) {
    Node *obj = f->kids[2]->kids[0];
    if (obj->kind != N_SYMBOL) return NULL;
    if (obj->ann) return obj->ann;
    for (int j = 3; j < f->nkids && syn_is_form(f->kids[j], "declare"); j++)
        for (int m = 1; m < f->kids[j]->nkids; m++) {
            Node *e = f->kids[j]->kids[m];
            if (syn_is_form(e, "type"))
                for (int q = 1; q < e->nkids - 1; q++)
                    if (e->kids[q]->kind == N_SYMBOL && !strcmp(e->kids[q]->key, obj->key)) return e->kids[e->nkids - 1];
            Node *sig = e->kind == N_VECLIT ? e                                            /* #(...) */
                        : syn_is_form(e, "function") && e->nkids == 2 && e->kids[1]->kind == N_LIST ? e->kids[1] /* #'(...) */
                                                                                                     : NULL;
            if (sig && sig->nkids > 0 && !syn_is_sym(sig->kids[0], "=>")) return sig->kids[0];
        }
    return NULL;
}

/* (set! (NAME~ OBJ IDX...) V) with a (def-setter NAME~ (o idx... v) ...)
 * whose object type fits: the setter's body, inlined with the place itself
 * for the object (so it changes the caller's value) and V bound once.
 * NULL when no setter applies. */
static Node *setter_call(Ctx *cx, Node *place_syn, Node *value) {
    Checker *ck = cx->ck;
    const char *h = syn_head(place_syn);
    if (!h || !ck->nsetters || cx->setter_depth > 0) return NULL;
    for (int s = 0; s < ck->nsetters; s++) {
        Node *f = ck->setters[s];
        if (strcmp(f->kids[1]->key, h)) continue;
        Node *pl = f->kids[2];
        if (pl->nkids != place_syn->nkids) continue; /* object, indices, new value */
        Node *tsyn = setter_object_type(f);
        Type *ot = tsyn ? type_expr(ck, tsyn) : NULL;
        if (!ot) continue;
        Node *probe = expr(cx, place_syn->kids[1], NULL);
        if (!probe) return NULL;
        int k0 = fit(probe, ot); /* exact, or a vector parameter leaving properties open */
        if (k0 < 0 || (k0 && ot->kind != TY_VECTOR)) continue;
        /* (let ((NEW VALUE)) BODY...) with the object and indices substituted */
        Node *names[17], *by[17];
        int n = pl->nkids;
        if (n > 17) return NULL;
        for (int k = 0; k < n; k++) names[k] = pl->kids[k];
        for (int k = 0; k + 1 < n; k++) by[k] = place_syn->kids[k + 1];
        Node *nv = syn_symbol(ck->a, value->loc, arena_printf(ck->a, "%%%s", pl->kids[n - 1]->key));
        nv->origin = value->origin;
        by[n - 1] = nv;
        int first = 3;
        while (first < f->nkids && syn_is_form(f->kids[first], "declare")) first++;
        Node **kids = arena_alloc(ck->a, sizeof(Node *) * (size_t)(f->nkids - first + 2));
        if (!kids) return NULL;
        int k = 0;
        kids[k++] = syn_symbol(ck->a, place_syn->loc, "let");
        Node *nvb = nv;
        Type *vt = pl->kids[n - 1]->ann ? type_expr(ck, pl->kids[n - 1]->ann) : NULL;
        if (vt) {
            nvb = syn_copy(ck->a, nv);
            nvb->ann = pl->kids[n - 1]->ann;
        }
        Node *bind[2] = {nvb, value};
        Node *b1 = syn_list(ck->a, value->loc, bind, 2);
        kids[k++] = syn_list(ck->a, value->loc, &b1, 1);
        for (int j = first; j < f->nkids; j++) kids[k++] = syn_subst(ck->a, f->kids[j], names, by, n);
        Node *let = syn_list(ck->a, place_syn->loc, kids, k);
        let->origin = place_syn->origin;
        Dest dd = {D_DISCARD, NULL, NULL};
        cx->setter_depth++;
        form_to(cx, let, &dd);
        cx->setter_depth--;
        return ck_node(cx, N_C_BLOCK, place_syn, &ty_void);
    }
    return NULL;
}

int syn_mentions_it(const Node *n);

/* A statement-like form in value position: its value goes to a temporary. */
static Node *form_value(Ctx *cx, Node *syn, Type *want) {
    const char *h = syn_head(syn);
    if (!strcmp(h, "if") && syn->nkids == 4 && !syn_mentions_it(syn->kids[2])) {
        int known = static_truth(cx, syn, syn->kids[1]);
        if (known >= 0) return expr(cx, syn->kids[known ? 2 : 3], want);
    }
    if (!strcmp(h, "if") && syn->nkids == 4 && !syn_mentions_it(syn->kids[2])) {
        /* both branches plain expressions: a ?: */
        Node *c = cond_value(cx, syn->kids[1]);
        if (!c) return NULL;
        Node *saved = cx->block;
        Node *b1 = ck_node(cx, N_C_BLOCK, syn, &ty_void), *b2 = ck_node(cx, N_C_BLOCK, syn, &ty_void);
        const Node *wdiv = warp_branch_enter(cx, syn, syn->kids[1]);
        cx->block = b1;
        cx->branch_depth++;
        Node *v1 = expr(cx, syn->kids[2], want);
        cx->block = b2;
        Node *v2 = v1 ? expr(cx, syn->kids[3], want) : NULL;
        cx->branch_depth--;
        cx->block = saved;
        cx->divergent = wdiv;
        if (!v1 || !v2) return NULL;
        Type *t = NULL;
        if (ty_is_arith(v1->ty) && ty_is_arith(v2->ty)) {
            t = branch_type(v1, v2, want);
        } else if (ty_equal(v1->ty, v2->ty) && (v1->ty->kind == TY_BOOL || v1->ty->kind == TY_ENUM || v1->ty->kind == TY_STRUCT)) {
            t = v1->ty;
        }
        if (!t && v1->ty->kind == TY_VECTOR && v2->ty->kind == TY_VECTOR) {
            diag_error_at(D(cx), syn, "E0453",
                          "an `if` cannot choose between two vectors as a value (a vector variable names one vector for its "
                          "whole scope); choose inside the branches instead, e.g. (if c (~ a i) (~ b i))");
            return NULL;
        }
        if (!t) {
            diag_error_at(D(cx), syn, "E0312", "the branches of `if` have types `%s` and `%s`", tname(cx, v1->ty), tname(cx, v2->ty));
            return NULL;
        }
        if (b1->nkids == 0 && b2->nkids == 0) {
            Node *s = mk(cx, N_C_SELECT, syn, t, 3);
            if (!s) return NULL;
            s->kids[0] = c;
            s->kids[1] = coerce(cx, v1, t, syn->kids[2], "if");
            s->kids[2] = coerce(cx, v2, t, syn->kids[3], "if");
            s->nkids = 3;
            return s->kids[1] && s->kids[2] ? s : NULL;
        }
        Sym *tmp = new_temp(cx, syn, "value", t);
        if (!tmp) return NULL;
        Node *d = ck_node(cx, N_C_DECL, syn, t);
        d->sym = tmp;
        emit_stmt(cx, d);
        Dest dv = {D_VAR, tmp, t};
        cx->block = b1;
        deliver(cx, v1, &dv, syn->kids[2]);
        cx->block = b2;
        deliver(cx, v2, &dv, syn->kids[3]);
        cx->block = saved;
        Node *ifn = mk(cx, N_C_IF, syn, &ty_void, 3);
        if (!ifn) return NULL;
        ifn->kids[0] = c;
        ifn->kids[1] = b1;
        ifn->kids[2] = b2;
        ifn->nkids = 3;
        emit_stmt(cx, ifn);
        return var_ref(cx, syn, tmp);
    }
    if (!strcmp(h, "return")) {
        Dest d = {D_DISCARD, NULL, NULL};
        form_to(cx, syn, &d);
        return ck_node(cx, N_C_BLOCK, syn, &ty_void);
    }
    Sym *tmp = new_temp(cx, syn, "value", NULL);
    if (!tmp) return NULL;
    Node *d = ck_node(cx, N_C_DECL, syn, NULL);
    d->sym = tmp;
    emit_stmt(cx, d);
    Dest dv = {D_VAR, tmp, want};
    int errs = cx->ck->d->errors;
    form_to(cx, syn, &dv);
    if (!tmp->ty) {
        if (cx->ck->d->errors == errs)
            diag_error_at(D(cx), syn, "E0333", "`%s` has no value", syn_to_string(cx->ck->a, syn, 40));
        return NULL;
    }
    d->ty = tmp->ty;
    return var_ref(cx, syn, tmp);
}

int syn_mentions_it(const Node *n);
int syn_mentions_it(const Node *n) {
    if (!n) return 0;
    if (n->kind == N_SYMBOL) return !strcmp(n->key, "it");
    if (n->kind != N_LIST && n->kind != N_VECLIT && n->kind != N_HWVEC) return 0;
    if (syn_is_form(n, "quote")) return 0;
    for (int i = 0; i < n->nkids; i++)
        if (syn_mentions_it(n->kids[i])) return 1;
    return 0;
}

/* ##(A B C D) or #(A B) where a hardware vector is expected */
static Node *hwvec_literal(Ctx *cx, Node *syn, Type *want) {
    int n = syn->nkids;
    if (n != 2 && n != 3 && n != 4 && n != 8 && n != 16) {
        diag_error_at(D(cx), syn, "E0470", "a hardware vector has 2, 3, 4, 8 or 16 components, found %d", n);
        return NULL;
    }
    Type *et = want && want->kind == TY_HWVEC ? ty_num(want->sc) : NULL;
    Node *args[16];
    Type *t = unify(cx, syn, syn->kids, n, args, et, "##(...)");
    if (!t) return NULL;
    if (t->kind != TY_NUM) {
        diag_error_at(D(cx), syn, "E0471", "hardware vector components must be scalars, found `%s`", tname(cx, t));
        return NULL;
    }
    Type *vt = ty_hwvec(t->sc, n);
    if (want && want->kind == TY_HWVEC && want->width != n) {
        diag_error_at(D(cx), syn, "E0472", "expected `%s` (%d components), found %d components", tname(cx, want), want->width, n);
        return NULL;
    }
    Node *x = mk(cx, N_C_HWVEC, syn, vt, n);
    if (!x) return NULL;
    for (int i = 0; i < n; i++) x->kids[i] = args[i];
    x->nkids = n;
    if (t->sc == SC_DOUBLE) prog_of(cx)->uses_fp64 = 1;
    return x;
}

static Node *symbol_value(Ctx *cx, Node *syn, Type *want) {
    const char *k = syn->key;
    if (syn->ann && syn->ann->kind == N_SYMBOL) {
        /* phylum:chordata names an enumeration key explicitly */
        Sym *e = global_lookup(cx->ck, k);
        if (e && e->kind == SYM_TYPE && e->ty && e->ty->kind == TY_ENUM) {
            Node *kw = syn_keyword(cx->ck->a, syn->ann->loc, syn->ann->name);
            kw->origin = syn->origin;
            return enum_value(cx, kw, e->ty);
        }
    }
    if (!strcmp(k, "t") || !strcmp(k, "true")) return bool_lit(cx, syn, 1);
    if (!strcmp(k, "false") || !strcmp(k, "nil")) return bool_lit(cx, syn, 0);
    if (!strcmp(k, "+warp-size+")) return warp_size_value(cx, syn, want); /* types/warps.c */
    Sym *s = scope_lookup(cx, k);
    if (!s) s = parameter_lookup(cx->ck, syn); /* case-sensitive names */
    if (!s) {
        if (func_lookup(cx->ck, k))
            diag_error_at(D(cx), syn, "E0481", "`%s` is a function; call it as (%s ...) or refer to it as #'%s", syn->name, syn->name, syn->name);
        else if (!orch_capture_error(cx, syn))
        {
            diag_error_at(D(cx), syn, "E0430", "unknown variable `%s`", syn->name);
            suggest_variable(cx, syn);
        }
        return NULL;
    }
    if (s->kind == SYM_TYPE) {
        diag_error_at(D(cx), syn, "E0482", "`%s` is a type, not a value", s->name);
        return NULL;
    }
    if (s->kind == SYM_FNVAL) return fnval_use_error(cx, syn, s);
    if (!s->ty && s->kind == SYM_LOCAL) return NULL; /* its binding failed and was reported */
    if (s->kind == SYM_CONST || s->kind == SYM_PARAMETER) {
        Node *v = global_const_value(cx->ck, s);
        if (!v) return NULL;
        Node *c = syn_copy(cx->ck->a, v);
        c->loc = syn->loc;
        c->origin = syn->origin;
        /* an untyped constant behaves like the literal it names */
        if (!s->type_syn && c->op && want && ty_is_arith(want)) return c;
        if (s->type_syn) c->op = 0;
        return c;
    }
    if (s->kind == SYM_CONSTVEC) return constvec_ref(cx, syn, s);
    if (s->write_only && s->ty->kind != TY_VECTOR) {
        diag_error_at(D(cx), syn, "E0410", "`%s` is write-only", s->name);
        return NULL;
    }
    return var_ref(cx, syn, s);
}

/* ---- did you mean ---- */

static void suggest_macro(void *ud, const char *name) {
    suggest_add(ud, name);
}

/* A note naming the nearest known form or function to unknown `head`. */
static void suggest_form(Ctx *cx, const Node *head) {
    static const struct { const char *from, *to; } lisp[] = {
        {"loop", "dotimes"}, {"defun", "def-function"}, {"defkernel", "def-kernel"}, {"setf", "set!"},
        {"setq", "set!"}, {"incf", "inc!"}, {"decf", "dec!"}, {"while", "dotimes"}, {"for", "dotimes"},
        {"aref", "~"}, {"elt", "~"}, {"nth", "~"}, {"length", "length~"}, {NULL, NULL}};
    for (int i = 0; lisp[i].from; i++)
        if (!strcmp(head->key, lisp[i].from)) {
            diag_note(D(cx), head->loc, "Crisp has no `%s`: did you mean `%s`?", head->name, lisp[i].to);
            return;
        }
    Suggest sg;
    suggest_init(&sg, head->key);
    for (int i = 0; builtins[i].name; i++) suggest_add(&sg, builtins[i].name);
    for (int i = 0; id_builtins[i].name; i++) suggest_add(&sg, id_builtins[i].name);
    for (int i = 0; atomic_ops[i].name; i++) suggest_add(&sg, atomic_ops[i].name);
    static const char *const forms[] = {"let", "let*", "progn", "if", "return", "multiple-value-bind", "let-maybe",
                                        "funcall", "quote", "function", NULL};
    for (int i = 0; forms[i]; i++) suggest_add(&sg, forms[i]);
    if (cx->ck->ev) eval_each_macro(cx->ck->ev, suggest_macro, &sg);
    for (int i = 0; i < cx->ck->nfuncs; i++)
        if (cx->ck->funcs[i]->kind != FN_KERNEL && !cx->ck->funcs[i]->from_lib) suggest_add(&sg, cx->ck->funcs[i]->key);
    if (suggest_best(&sg)) diag_note(D(cx), head->loc, "did you mean `%s`?", suggest_best(&sg));
}

/* A note naming the nearest visible variable to unknown `name`. */
void suggest_variable(Ctx *cx, const Node *name) {
    Suggest sg;
    suggest_init(&sg, name->key);
    for (Scope *sc = cx->scope; sc; sc = sc->up)
        for (int i = 0; i < sc->n; i++) suggest_add(&sg, sc->syms[i]->key);
    for (int i = 0; i < cx->ck->globals.n; i++)
        if (cx->ck->globals.syms[i]->kind != SYM_TYPE) suggest_add(&sg, cx->ck->globals.syms[i]->key);
    if (suggest_best(&sg)) diag_note(D(cx), name->loc, "did you mean `%s`?", suggest_best(&sg));
}

Node *expr(Ctx *cx, Node *syn, Type *want) {
    if (!syn || cx->ck->d->fatal || !(syn = ck_expand(cx, syn))) return NULL;
    switch (syn->kind) {
    case N_INT: {
        Node *n = int_lit(cx, syn, syn->ival, NULL);
        n->is_unsigned = syn->is_unsigned;
        n->radix = syn->radix;
        n->op = LIT_FLEX_INT;
        n->ty = syn->is_unsigned ? ty_num(SC_ULONG) : int_fits(syn->ival, 0, SC_INT) ? ty_num(SC_INT) : ty_num(SC_LONG);
        if (want && ty_is_arith(want)) return adapt_literal(cx, n, want, syn);
        return n;
    }
    case N_FLOAT: {
        Node *n = float_lit(cx, syn, syn->fval, ty_num(SC_FLOAT));
        n->op = LIT_FLEX_FLOAT;
        if (want && ty_is_arith(want)) return adapt_literal(cx, n, want, syn);
        return n;
    }
    case N_SYMBOL: return symbol_value(cx, syn, want);
    case N_KEYWORD: {
        int errs = cx->ck->d->errors;
        Node *ev = enum_value(cx, syn, want);
        if (ev || cx->ck->d->errors > errs) return ev;
        Node *n = ck_node(cx, N_C_INTLIT, syn, &ty_keyword);
        n->text = syn->name;
        return n;
    }
    case N_STRING: {
        Node *n = ck_node(cx, N_C_INTLIT, syn, &ty_string);
        n->text = syn->name;
        return n;
    }
    case N_HWVEC: return hwvec_literal(cx, syn, want);
    case N_VECLIT:
        if (want && want->kind == TY_HWVEC) return hwvec_literal(cx, syn, want);
        diag_error_at(D(cx), syn, "E0473", "a #(...) vector literal must be bound with let (or used where a hardware vector is expected)");
        return NULL;
    case N_LIST: break;
    default:
        diag_error_at(D(cx), syn, "E0490", "unexpected %s", node_kind_name(syn->kind));
        return NULL;
    }
    if (syn->nkids == 0) return bool_lit(cx, syn, 0);
    Node *head = syn->kids[0];
    if (head->kind != N_SYMBOL) {
        diag_error_at(D(cx), head, "E0491", "expected a function or form name, found `%s`", syn_to_string(cx->ck->a, head, 30));
        return NULL;
    }
    const char *h = head->key;
    if (is_statement_head(h)) return form_value(cx, syn, want);
    if (!strcmp(h, "quote") || !strcmp(h, "function") || !strcmp(h, "quasiquote")) {
        diag_error_at(D(cx), syn, "E0492", "`%s` cannot be used as a run-time value here", syn_to_string(cx->ck->a, syn, 30));
        return NULL;
    }
    if (!strcmp(h, "funcall")) return fnval_call(cx, syn, want);
    Sym *fs = scope_lookup(cx, h);
    if (fs && fs->kind == SYM_FNVAL) return fnval_call(cx, syn, want);
    size_t hl = strlen(h);
    Node *soa;
    if (soa_access(cx, syn, 0, &soa)) return soa;
    if (hl > 1 && h[hl - 1] == '~' && syn->nkids == 3 && soa_sym(cx, syn->kids[1])) /* overloaded for soa-vectors */
        return user_call(cx, syn, want, NULL, 0);
    if (hl > 1 && h[hl - 1] == '~' && syn->nkids == 2) return accessor(cx, syn);
    if (!strncmp(h, "make-", 5)) {
        Sym *st = global_lookup(cx->ck, h + 5);
        if (st && st->kind == SYM_TYPE && st->ty && st->ty->kind == TY_STRUCT) return struct_make(cx, syn, st->ty->sd);
        StructDef *sd;
        Node **pre;
        if (template_make_struct(cx, syn, &sd, &pre)) return sd ? struct_make_checked(cx, syn, sd, pre) : NULL;
    }
    if (cx->consteval) { /* forms only a def-const-vec body has (constvec.c) */
        int handled;
        Node *r = constvec_form(cx, syn, &handled);
        if (handled) return r;
    }
    if (warp_form_name(h)) return warp_form(cx, syn, want); /* types/warps.c */
    for (int i = 0; builtins[i].name; i++)
        if (syn_streq(builtins[i].name, h)) return builtins[i].fn(cx, syn, want);
    for (int i = 0; id_builtins[i].name; i++)
        if (syn_streq(id_builtins[i].name, h)) return b_gpu_id(cx, syn, &id_builtins[i]);
    for (int i = 0; atomic_ops[i].name; i++)
        if (syn_streq(atomic_ops[i].name, h)) return b_atomic(cx, syn, &atomic_ops[i]);
    if (is_swizzle_name(h)) return b_swizzle(cx, syn);
    if ((!strncmp(h, "to-", 3) || !strncmp(h, "as-", 3)) && ty_lookup_base(h + 3)) return conversion(cx, syn, h);
    if (!strncmp(h, "as-", 3) || !strncmp(h, "make-", 5)) {
        /* derived vector types, as-original, as-derived: types/derived.c */
        int handled = 0;
        Node *r = derived_form(cx, syn, &handled);
        if (handled) return r;
    }
    if (!strncmp(h, "as-", 3)) {
        /* (as-NAME x): a value of a related derived struct type as NAME */
        Sym *st = global_lookup(cx->ck, h + 3);
        if (st && st->kind == SYM_TYPE && st->ty && st->ty->kind == TY_STRUCT) {
            if (!nargs_ok(cx, syn, 1, 1) || !struct_resolve(cx->ck, st->ty->sd)) return NULL;
            Node *v = expr(cx, syn->kids[1], NULL);
            if (!v) return NULL;
            if (ty_equal(v->ty, st->ty)) return v;
            const StructDef *a = v->ty->kind == TY_STRUCT ? v->ty->sd : NULL, *b = st->ty->sd;
            if (!a || !(a->derived_from == b || b->derived_from == a)) {
                diag_error_at(D(cx), syn, "E0166", "`%s` casts between a derived type and its original, found `%s`", head->name,
                              tname(cx, v->ty));
                return NULL;
            }
            return retype_struct(cx, v, st->ty, syn);
        }
    }
    if (func_lookup(cx->ck, h) || template_lookup(cx->ck, h) || hof_lookup(cx->ck, h)) return user_call(cx, syn, want, NULL, 0);
    if (strmap_get(&cx->ck->kernels_idx, head->name)) {
        diag_error_at(D(cx), syn, "E0493", "`%s` is a kernel; kernels are launched by the host, not called", head->name);
        return NULL;
    }
    static const struct { const char *name, *why; } later[] = {
        {"get-timestamp", "has no OpenCL C 1.2 equivalent"},
        {NULL, NULL}};
    for (int i = 0; later[i].name; i++)
        if (!strcmp(later[i].name, h)) {
            diag_error_at(D(cx), head, "E0495", "`%s` %s", head->name, later[i].why);
            return NULL;
        }
    diag_error_at(D(cx), head, "E0494", "unknown function or macro `%s`", head->name);
    suggest_form(cx, head);
    return NULL;
}
