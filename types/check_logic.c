/* check_logic.c - and, or, not, select-if: conditions and their values.
 *
 * Why it exists: the logical forms decide what a condition is (a bool, or
 * a number compared with zero) and when an operand is evaluated; split
 * out of check_expr.c by form family (issue 16).  Spec sections "Logical
 * Operators" and "Conditionals" (select-if, the value of a branch). */
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

/* ---- logic ---- */

Node *cx_cond_value(Ctx *cx, Node *syn) {
    Node *v = ck_expr(cx, syn, NULL);
    if (!v) return NULL;
    if (v->ty->kind == TY_TUPLE) v->ty = v->ty->elems[0];
    if (cx_is_flex(v)) v = ck_coerce(cx, v, v->kind == N_C_FLOATLIT ? ty_num(SC_FLOAT) : ty_num(SC_INT), syn, "condition");
    if (!v) return NULL;
    if (v->ty->kind != TY_BOOL && v->ty->kind != TY_NUM) {
        diag_error_at(D(cx), syn, "E0360", "a condition must be a bool or a number (0 is false), found `%s`", ck_tname(cx, v->ty));
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
Node *cx_andor(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    int is_and = syn->kids[0]->key[0] == 'a';
    int n = syn->nkids - 1;
    if (n == 0) return cx_bool_lit(cx, syn, is_and);
    Node *vals[64] = {0}, *blks[64] = {0};
    if (n > 64) {
        diag_error_at(D(cx), syn, "E0320", "`%s` takes at most 64 arguments", syn->kids[0]->name);
        return NULL;
    }
    int simple_all = 1;
    const Node *wdiv = cx->divergent;
    for (int i = 0; i < n; i++) {
        cx->branch_depth += i > 0; /* later operands may not run */
        if (i > 0) ck_warp_branch_enter(cx, syn, syn->kids[i]); /* types/warps.c */
        vals[i] = scratch(cx, syn->kids[i + 1], &blks[i], cx_cond_value);
        cx->branch_depth -= i > 0;
        if (!vals[i]) {
            cx->divergent = wdiv;
            return NULL;
        }
        if (i > 0 && blks[i]->nkids) simple_all = 0;
    }
    cx->divergent = wdiv;
    for (int i = 0; i < blks[0]->nkids; i++) ck_emit_stmt(cx, blks[0]->kids[i]);
    if (simple_all) {
        Node *acc = vals[0];
        for (int i = 1; i < n; i++) acc = ck_mk2(cx, N_C_BINARY, syn, &ty_bool, is_and ? OP_AND : OP_OR, acc, vals[i]);
        if (n == 1 && acc->ty->kind != TY_BOOL) acc = ck_mk2(cx, N_C_BINARY, syn, &ty_bool, OP_NE, acc, ck_int_lit(cx, syn, 0, acc->ty));
        return acc;
    }
    /* operands that need statements: lower to a flag and nested ifs */
    Node *first = vals[0]->ty->kind == TY_BOOL
                      ? vals[0]
                      : ck_mk2(cx, N_C_BINARY, syn, &ty_bool, OP_NE, vals[0], ck_int_lit(cx, syn, 0, vals[0]->ty));
    Sym *flag = ck_declare_temp(cx, syn, is_and ? "all" : "any", &ty_bool, first);
    if (!flag) return NULL;
    Node *outer = cx->block;
    for (int i = 1; i < n; i++) {
        Node *test = ck_var_ref(cx, syn, flag);
        if (!is_and) {
            Node *u = ck_mk1(cx, N_C_UNARY, syn, &ty_bool, test);
            if (u) u->op = OP_NOT;
            test = u;
        }
        Node *ifn = ck_mk(cx, N_C_IF, syn, &ty_void, 3);
        if (!ifn) return NULL;
        ifn->kids[0] = test;
        ifn->kids[1] = blks[i];
        ifn->kids[2] = NULL;
        ifn->nkids = 3;
        Node *val = vals[i]->ty->kind == TY_BOOL ? vals[i]
                    : ck_mk2(cx, N_C_BINARY, syn, &ty_bool, OP_NE, vals[i], ck_int_lit(cx, syn, 0, vals[i]->ty));
        ck_block_add(cx, blks[i], ck_mk1(cx, N_C_EXPR, syn, &ty_void, ck_mk2(cx, N_C_ASSIGN, syn, &ty_bool, OP_SET, ck_var_ref(cx, syn, flag), val)));
        ck_block_add(cx, outer, ifn);
    }
    return ck_var_ref(cx, syn, flag);
}

/* (not A) */
Node *cx_not(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    Node *v = cx_cond_value(cx, syn->kids[1]);
    if (!v) return NULL;
    if (v->kind == N_C_BINARY && v->op >= OP_LT && v->op <= OP_NE && ty_is_int(v->kids[0]->ty)) {
        /* (not (< a b)) reads better as a >= b (exact for integers) */
        static const int inverse[] = {[OP_LT] = OP_GE, [OP_GT] = OP_LE, [OP_LE] = OP_GT,
                                      [OP_GE] = OP_LT, [OP_EQ] = OP_NE, [OP_NE] = OP_EQ};
        return ck_mk2(cx, N_C_BINARY, syn, &ty_bool, inverse[v->op], v->kids[0], v->kids[1]);
    }
    Node *u = ck_mk1(cx, N_C_UNARY, syn, &ty_bool, v);
    if (u) u->op = OP_NOT;
    return u;
}

/* The common type of two branch values (NULL when they cannot meet). */
Type *cx_branch_type(Node *a, Node *b, Type *want) {
    if (!cx_is_flex(a) && !cx_is_flex(b)) return ty_join(a->ty, b->ty);
    if (!cx_is_flex(a)) return a->ty;
    if (!cx_is_flex(b)) return b->ty;
    if (ty_is_arith(want)) return want;
    return a->kind == N_C_FLOATLIT || b->kind == N_C_FLOATLIT ? ty_num(SC_FLOAT) : ty_num(SC_INT);
}

/* (select-if C A B): evaluates both A and B, then picks one. */
Node *cx_select(Ctx *cx, Node *syn, Type *want) {
    if (!ck_nargs_ok(cx, syn, 3, 3)) return NULL;
    Node *c = cx_cond_value(cx, syn->kids[1]);
    if (!c) return NULL;
    Node *args[2];
    Type *t;
    Node *a0 = ck_expr(cx, syn->kids[2], want), *b0 = a0 ? ck_expr(cx, syn->kids[3], want) : NULL;
    if (!a0 || !b0) return NULL;
    if (ty_is_arith(a0->ty) && ty_is_arith(b0->ty)) {
        Node *two[2] = {syn->kids[2], syn->kids[3]};
        (void)two;
        args[0] = a0;
        args[1] = b0;
        t = cx_branch_type(a0, b0, want);
        if (!t) {
            diag_error_at(D(cx), syn, "E0312", "`select-if` branches have types `%s` and `%s`", ck_tname(cx, a0->ty), ck_tname(cx, b0->ty));
            return NULL;
        }
        args[0] = ck_coerce(cx, a0, t, syn->kids[2], "select-if");
        args[1] = ck_coerce(cx, b0, t, syn->kids[3], "select-if");
        if (!args[0] || !args[1]) return NULL;
    } else if (ty_equal(a0->ty, b0->ty) && (a0->ty->kind == TY_BOOL || a0->ty->kind == TY_ENUM || a0->ty->kind == TY_STRUCT)) {
        t = a0->ty;
        args[0] = a0;
        args[1] = b0;
    } else {
        diag_error_at(D(cx), syn, "E0312", "`select-if` branches have types `%s` and `%s`", ck_tname(cx, a0->ty), ck_tname(cx, b0->ty));
        return NULL;
    }
    if (ck_node_has_effects(args[0]) || ck_node_has_effects(args[1])) {
        args[0] = cx_simple(cx, args[0], syn);
        args[1] = cx_simple(cx, args[1], syn);
    }
    Node *s = ck_mk(cx, N_C_SELECT, syn, t, 3);
    if (!s) return NULL;
    s->kids[0] = c;
    s->kids[1] = args[0];
    s->kids[2] = args[1];
    s->nkids = 3;
    return s;
}
