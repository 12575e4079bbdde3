/* uniform.c - the checker's side of uniform values (spec "Looping --
 * Uniform Loops", "(uniform <varName>)", "+ variants", "* variants",
 * "Branching": "* variant", "+ variant").
 *
 * Why here: whether a value is the same for every work-item of a workgroup
 * is decided after checking, by the uniformity pass (analysis/), which
 * sees the whole checked program.  The checker only lowers the forms and
 * leaves marks in the tree for that pass:
 *
 *   (%uniform "NAME" FORM)   FORM (an `if` or a loop) is checked into a
 *       C_BLOCK whose `text` is NAME; the pass requires the condition of
 *       its first if, or the bounds of its first loop, to be uniform.  An
 *       `if` whose condition is a compile-time constant (a template
 *       parameter, a def-const, target-has ...) is resolved here: only the
 *       branch taken is checked.
 *   (%uniform* "NAME" (if TEST ...))   the same, after capturing TEST as a
 *       uniform value (the `*` conditionals).
 *   (declare (uniform V...)) in a let: V is computed by one work-item and
 *       shared through __local memory and a barrier (ck_uniform_bind), in a
 *       C_BLOCK marked "uniform"; (declare (%capture-uniform V...)), made
 *       by the `*` variants, is marked "uniform*": the pass drops that
 *       capture when the value is uniform already.
 *
 * The emitters print marked blocks like any block: a mark is no code. */
#include <string.h>

#include "check_int.h"

static Diag *D(Ctx *cx) {
    return cx->ck->d;
}

/* ---- compile-time conditions ---- */

typedef struct CtVal {
    enum { CV_INT, CV_KEY, CV_STR } kind;
    int64_t i;
    const char *s;
} CtVal;

static int ct_value(Ctx *cx, Node *syn, CtVal *v);

/* Is TEST decided at compile time?  Integer constant expressions (literals,
 * def-const, def-parameter), t/nil, keywords and strings (a template's value
 * parameters once substituted), =, /=, <, >, <=, >=, eq, eql, equal, not,
 * and, or over those, and target-has.  Sets *truth. */
static int ct_truth(Ctx *cx, Node *syn, int *truth) {
    if (!syn) return 0;
    if (syn->kind == N_SYMBOL && !syn->ann) {
        if (syn_streq(syn->key, "t") || syn_streq(syn->key, "true")) return *truth = 1, 1;
        if (syn_streq(syn->key, "nil") || syn_streq(syn->key, "false")) return *truth = 0, 1;
    }
    CtVal v;
    if (syn->kind == N_KEYWORD || syn->kind == N_STRING) return *truth = 1, 1;
    if (syn->kind == N_INT || syn->kind == N_SYMBOL) {
        if (!ct_value(cx, syn, &v)) return 0;
        return *truth = v.i != 0, 1;
    }
    const char *h = syn_head(syn);
    if (!h) return 0;
    int n = syn->nkids - 1;
    if (syn_streq(h, "not") && n == 1) {
        int t;
        if (!ct_truth(cx, syn->kids[1], &t)) return 0;
        return *truth = !t, 1;
    }
    if ((syn_streq(h, "and") || syn_streq(h, "or")) && n >= 0) {
        int is_and = h[0] == 'a';
        /* decided when every operand is, or when one settles it */
        int all = 1;
        for (int i = 1; i <= n; i++) {
            int t;
            if (!ct_truth(cx, syn->kids[i], &t)) {
                all = 0;
                continue;
            }
            if (is_and && !t) return *truth = 0, 1;
            if (!is_and && t) return *truth = 1, 1;
        }
        if (!all) return 0;
        return *truth = is_and, 1;
    }
    if (syn_streq(h, "target-has")) {
        /* the target's properties are fixed per compilation */
        Node blk = {.kind = N_C_BLOCK};
        Node *saved = cx->block;
        cx->block = &blk;
        Node *r = ck_expr(cx, syn, NULL);
        cx->block = saved;
        if (r && r->kind == N_C_BOOLLIT && !blk.nkids) return *truth = r->ival != 0, 1;
        return 0;
    }
    static const char *const cmp[] = {"=", "==", "eq", "eql", "equal", "/=", "!=", "<", ">", "<=", ">=", NULL};
    int op = -1;
    for (int i = 0; cmp[i]; i++)
        if (syn_streq(h, cmp[i])) op = i;
    if (op < 0 || n != 2) {
        int64_t x;
        if (ck_const_syn_int(cx, syn, &x)) return *truth = x != 0, 1;
        return 0;
    }
    CtVal a, b;
    if (!ct_value(cx, syn->kids[1], &a) || !ct_value(cx, syn->kids[2], &b)) return 0;
    if (a.kind != b.kind) {
        /* a keyword is never a number or a string */
        if (op <= 4) return *truth = 0, 1;
        if (op <= 6) return *truth = 1, 1;
        return 0;
    }
    int c = a.kind == CV_INT ? (a.i < b.i ? -1 : a.i > b.i) : strcmp(a.s, b.s);
    switch (op) {
    case 0: case 1: case 2: case 3: case 4: *truth = c == 0; return 1;
    case 5: case 6: *truth = c != 0; return 1;
    default:
        if (a.kind != CV_INT) return 0;
        *truth = op == 7 ? c < 0 : op == 8 ? c > 0 : op == 9 ? c <= 0 : c >= 0;
        return 1;
    }
}

static int ct_value(Ctx *cx, Node *syn, CtVal *v) {
    if (syn->kind == N_KEYWORD) {
        v->kind = CV_KEY;
        v->s = syn->key;
        return 1;
    }
    if (syn->kind == N_STRING) {
        v->kind = CV_STR;
        v->s = syn->name;
        return 1;
    }
    if (syn->kind == N_SYMBOL && !syn->ann) {
        if (syn_streq(syn->key, "t") || syn_streq(syn->key, "true")) return v->kind = CV_INT, v->i = 1, 1;
        if (syn_streq(syn->key, "nil") || syn_streq(syn->key, "false")) return v->kind = CV_INT, v->i = 0, 1;
    }
    v->kind = CV_INT;
    return ck_const_syn_int(cx, syn, &v->i);
}

/* ---- (%uniform "NAME" FORM) and (%uniform* "NAME" (if TEST ...)) ---- */

/* FORM with its head macro expanded until it is a core form. */
static Node *core_form(Ctx *cx, Node *form) {
    for (int i = 0; form && i < 64; i++) {
        Node *e = ck_expand(cx, form);
        if (e == form) break;
        form = e;
    }
    return form;
}

/* The branch of an `if` whose TEST is known at compile time, binding `it`
 * to TEST's value where the branch uses it. */
static void static_branch(Ctx *cx, Node *ifs, int truth, Dest *d) {
    Node *branch = truth ? ifs->kids[2] : ifs->nkids == 4 ? ifs->kids[3] : NULL;
    if (!branch) {
        ck_form_to(cx, cx_list(cx, ifs, 1, cx_sym(cx, ifs, "progn")), d);
        return;
    }
    if (truth && ck_syn_mentions_it(branch)) {
        /* `it` is the test's value: a constant number as written, else t */
        int64_t k;
        Node *val = ck_const_syn_int(cx, ifs->kids[1], &k) ? ifs->kids[1] : cx_sym(cx, ifs->kids[1], "t");
        Node *bind = cx_list(cx, ifs->kids[1], 2, cx_sym(cx, ifs->kids[1], "it"), val);
        Node *decl = cx_list(cx, ifs, 2, cx_sym(cx, ifs, "declare"),
                             cx_list(cx, ifs, 2, cx_sym(cx, ifs, "%immutable"), cx_sym(cx, ifs, "it")));
        branch = cx_list(cx, ifs, 4, cx_sym(cx, ifs, "let"), cx_list(cx, ifs, 1, bind), decl, branch);
    }
    ck_form_to(cx, branch, d);
}

void ck_uniform_form(Ctx *cx, Node *syn, Dest *d) {
    int capture = !strcmp(syn_head(syn), "%uniform*");
    if (syn->nkids != 3 || syn->kids[1]->kind != N_STRING) {
        diag_error_at(D(cx), syn, "E1100", "expected (%s \"NAME\" FORM)", syn_head(syn));
        return;
    }
    const char *who = syn->kids[1]->name;
    Node *form = core_form(cx, syn->kids[2]);
    if (!form) return;
    int truth;
    if (syn_is_form(form, "if") && (form->nkids == 3 || form->nkids == 4) && ct_truth(cx, form->kids[1], &truth)) {
        static_branch(cx, form, truth, d);
        return;
    }
    if (capture) {
        if (!syn_is_form(form, "if") || form->nkids < 3) {
            diag_error_at(D(cx), syn, "E1100", "expected (%s \"NAME\" (if TEST THEN [ELSE]))", syn_head(syn));
            return;
        }
        /* (let ((%test TEST)) (declare (%capture-uniform %test))
             (%uniform NAME (if %test THEN [ELSE]))) */
        Node *at = form->kids[1];
        Node *var = cx_sym(cx, syn, "%test");
        Node *ifk[4] = {form->kids[0], var, form->kids[2], form->nkids == 4 ? form->kids[3] : NULL};
        Node *ifs = syn_list(cx->ck->a, form->loc, ifk, form->nkids);
        ifs->origin = form->origin;
        Node *mark = cx_list(cx, syn, 3, cx_sym(cx, syn, "%uniform"), syn->kids[1], ifs);
        Node *decl = cx_list(cx, syn, 2, cx_sym(cx, syn, "declare"),
                             cx_list(cx, syn, 2, cx_sym(cx, syn, "%capture-uniform"), var));
        Node *let = cx_list(cx, syn, 4, cx_sym(cx, syn, "let"), cx_list(cx, at, 1, cx_list(cx, at, 2, var, at)), decl, mark);
        ck_form_to(cx, let, d);
        return;
    }
    Node *saved = cx->block;
    Node *blk = ck_node(cx, N_C_BLOCK, syn, &ty_void);
    blk->text = who;
    if (cx->fn) cx->fn->analysis_sync = 1; /* analysis/ walks it (issue 14) */
    cx->block = blk;
    ck_form_to(cx, form, d);
    cx->block = saved;
    ck_emit_stmt(cx, blk);
}

/* ---- (declare (uniform V)) ---- */

static Node *stmt_expr(Ctx *cx, const Node *at, Node *e) {
    return ck_mk1(cx, N_C_EXPR, at, &ty_void, e);
}

static Node *local_barrier(Ctx *cx, const Node *at) {
    Node *b = ck_node(cx, N_C_BARRIER, at, &ty_void);
    b->op = BAR_LOCAL;
    return b;
}

Sym *ck_uniform_bind(Ctx *cx, Node *name, Node *init, Type *declared, const Node *decl_at, int capture) {
    Checker *ck = cx->ck;
    const char *what = capture ? "this form" : "(declare (uniform ...))";
    if (!init) {
        diag_error_at(D(cx), name, "E1103", "uniform variable `%s` needs an initial value: one work-item computes it for the workgroup",
                      name->name);
        return NULL;
    }
    Node *saved = cx->block;
    Node *mark = ck_node(cx, N_C_BLOCK, decl_at, &ty_void);
    mark->text = capture ? "uniform*" : "uniform";
    if (cx->fn) cx->fn->analysis_sync = 1; /* analysis/ walks it (issue 14) */
    /* one work-item computes the value */
    Node *then_b = ck_node(cx, N_C_BLOCK, init, &ty_void);
    cx->block = then_b;
    cx->branch_depth++;
    cx->bind_hint = name->name;
    Node *v = ck_expr(cx, init, declared);
    cx->bind_hint = NULL;
    cx->branch_depth--;
    cx->block = saved;
    if (!v) return NULL;
    if (v->ty && v->ty->kind == TY_TUPLE && !v->ty->maybe) v = ck_coerce(cx, v, declared ? declared : v->ty->elems[0], init, "value");
    if (!v) return NULL;
    Type *t = declared ? declared : v->ty;
    if (!t || t->kind == TY_VOID || t->kind == TY_KEYWORD || t->kind == TY_STRING || t->kind == TY_TUPLE ||
        t->kind == TY_VECTOR || t->kind == TY_IDENT || t->kind == TY_VOIDP) {
        diag_error_at(D(cx), init, "E1105", "%s needs a number, bool, hardware vector, struct or enumeration value; `%s` is %s",
                      what, syn_to_string(ck->a, init, 40),
                      !t || t->kind == TY_VOID ? "no value" : arena_printf(ck->a, "a `%s`", ck_tname(cx, t)));
        return NULL;
    }
    v = ck_coerce(cx, v, t, init, "initial value");
    if (!v) return NULL;
    /* the workgroup's slot */
    Sym *s = ck_new_local(cx, name, name->name, t);
    Sym *slot = s ? ck_uniform_slot(cx, name, arena_printf(ck->a, "%s-uniform", s->cname), t) : NULL;
    if (!slot || !s) return NULL;
    Type *ul = ty_num(SC_ULONG);
    Node *cell = ck_mk2(cx, N_C_INDEX, name, t, 0, ck_var_ref(cx, name, slot), ck_int_lit(cx, name, 0, ul));
    Node *store = ck_mk2(cx, N_C_ASSIGN, init, t, OP_SET, cell, v);
    if (!cell || !store) return NULL;
    ck_block_add(cx, then_b, stmt_expr(cx, init, store));
    Node *lid = ck_helper_call(cx, decl_at, ul, ck_need_helper(cx, H_LOCAL_LINEAR_ID, NULL, AS_NONE), NULL, 0);
    Node *first = lid ? ck_mk2(cx, N_C_BINARY, decl_at, &ty_bool, OP_EQ, lid, ck_int_lit(cx, decl_at, 0, ul)) : NULL;
    Node *ifn = ck_mk(cx, N_C_IF, decl_at, &ty_void, 3);
    if (!first || !ifn) return NULL;
    ifn->origin = NULL; /* the comment below says where it comes from */
    ifn->kids[0] = first;
    ifn->kids[1] = then_b;
    ifn->kids[2] = NULL;
    ifn->nkids = 3;
    Node *c = ck_node(cx, N_C_COMMENT, decl_at, &ty_void);
    const Expansion *x = decl_at->origin;
    while (x && x->parent) x = x->parent;
    c->text = capture && x ? arena_printf(ck->a, "%s: work-item 0 computes `%s`, the workgroup shares it", x->macro, syn_to_string(ck->a, init, 40))
                           : arena_printf(ck->a, "uniform %s: work-item 0 computes it, the workgroup shares it", name->name);
    ck_block_add(cx, mark, c);
    ck_block_add(cx, mark, ifn);
    ck_block_add(cx, mark, local_barrier(cx, decl_at));
    Node *decl = ck_node(cx, N_C_DECL, name, t);
    decl->sym = s;
    Node *read = ck_mk2(cx, N_C_INDEX, name, t, 0, ck_var_ref(cx, name, slot), ck_int_lit(cx, name, 0, ul));
    decl->kids = arena_alloc(ck->a, sizeof(Node *));
    if (!read || !decl->kids) return NULL;
    decl->kids[0] = read;
    decl->nkids = 1;
    ck_block_add(cx, mark, decl);
    /* in a loop (or a function, which a loop may call) the slot is written
       again: every work-item must have read it before work-item 0 goes
       round */
    if (cx->loop_depth > 0 || cx->fn->kind != FN_KERNEL) ck_block_add(cx, mark, local_barrier(cx, decl_at));
    ck_emit_stmt(cx, mark);
    return s;
}

Sym *ck_uniform_slot(Ctx *cx, const Node *at, const char *name, Type *t) {
    Checker *ck = cx->ck;
    Type *vt = ty_vector(ck->a, t, AS_LOCAL, ACC_READ_WRITE, AL_COMPACT, 1);
    if (cx->fn->kind != FN_KERNEL) return ck_side_uniform_param(cx, at, name, vt);
    /* __local T NAME[1] at kernel scope */
    Sym *slot = ck_new_local(cx, at, name, vt);
    if (!slot) return NULL;
    slot->hoisted_local = 1;
    CFuncRare *r = cfunc_rare_w(ck->a, cx->fn);
    arena_push(ck->a, (void ***)&r->local_arrays, &r->nlocal, &r->caplocal, slot);
    return slot;
}

/* ---- static-analysis opt-ins (spec "Static Analysys") ---- */

int ck_is_analysis_decl(const char *head) {
    static const char *const names[] = {"check-barriers", "check-divergence", "check-coalesce", "check-bank-conflicts",
                                        "max-registers", "warn-max-registers", NULL};
    for (int i = 0; head && names[i]; i++)
        if (syn_streq(head, names[i])) return 1;
    return 0;
}
