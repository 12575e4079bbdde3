/* check_forms.c - the builtin table and the expression dispatcher.
 *
 * Why it exists: `ck_expr` is where every expression of a body is checked:
 * a literal, a variable, a macro call (expanded with the types in scope),
 * a builtin form (a row of the `builtins` table below, whose handlers live
 * in check_arith.c, check_vectors.c, check_logic.c, check_gpu.c,
 * check_views.c and the family files), or a call of a user function
 * (check_calls.c); split out of check_expr.c (issue 16).  Spec sections
 * "Symbols and Identifiers", "Dereferencing and Swizzles" (accessors),
 * "Hardware Vectors" (##(...)) and "Enumerations". */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../core/suggest.h"
#include "consteval.h"
#include "../core/target.h"
#include "../macros/eval.h"
#include "expr_int.h"

static Node *accessor(Ctx *cx, Node *syn);

static Diag *D(Ctx *cx) {
    return cx->ck->d;
}

/* ---- the builtin table ---- */

typedef Node *(*BuiltinFn)(Ctx *, Node *, Type *);

typedef struct Builtin {
    const char *name;
    BuiltinFn fn;
} Builtin;

static const Builtin builtins[] = {
    {"+", cx_arith}, {"-", cx_arith}, {"*", cx_arith}, {"/", cx_slash},
    {"<", cx_compare}, {">", cx_compare}, {"<=", cx_compare}, {">=", cx_compare}, {"=", cx_compare},
    {"==", cx_compare}, {"/=", cx_compare}, {"!=", cx_compare},
    {"bit-and", cx_bitop}, {"bit-or", cx_bitop}, {"bit-xor", cx_bitop}, {"logxor", cx_bitop},
    {"logand", cx_bitop}, {"logior", cx_bitop}, {"lognot", cx_lognot}, {"bit-not", cx_lognot}, {"ash", cx_ash},
    {"min", cx_minmax}, {"max", cx_minmax}, {"clamp", cx_minmax}, {"abs", cx_minmax},
    {"sqrt", cx_math}, {"rsqrt", cx_math}, {"pow", cx_math}, {"expt", cx_math}, {"exp", cx_math}, {"log", cx_math},
    {"log2", cx_math}, {"sin", cx_math}, {"cos", cx_math}, {"tan", cx_math}, {"asin", cx_math},
    {"acos", cx_math}, {"atan", cx_math},
    {"floor", cx_rounding}, {"ceil", cx_rounding}, {"round", cx_rounding}, {"truncate", cx_rounding},
    {"~", cx_elem}, {"~ref~", cx_elem}, {"length~", cx_length}, {"~length~", cx_length},
    {"set!", cx_set}, {"inc!", cx_incdec}, {"dec!", cx_incdec},
    {"and", cx_andor}, {"or", cx_andor}, {"not", cx_not}, {"select-if", cx_select},
    {"local-barrier", cx_barrier}, {"mem-fence", cx_fence},
    {"check-thread-bounds", cx_bounds}, {"check-wg-bounds", cx_bounds},
    {"atomic-binop!", cx_atomic_fn}, {"atomic-op!", cx_atomic_fn},
    {"%extent", cx_extent}, {"%pow2-below", cx_pow2_below}, {"device-has", cx_device_has}, {"target-has", cx_target_has},
    {"%require-global-size", cx_require_gsize},
    {"make-vector", cx_make_vector}, {"%zero", cx_zero}, {"or-else", cx_or_else},
    {"make-vector-view", cx_make_view}, {"reinterpret-view", cx_reinterpret},
    {"make-identity-tensor", ck_tensor_form}, {"is-identity-tensor?", ck_tensor_form},
    {"make-tensor-view", ck_tensor_form}, {"make-matrix", ck_tensor_form}, {"dims~", ck_tensor_form}, {"strides~", ck_tensor_form},
    {"num-dims~", ck_tensor_form}, {"num-rows", ck_tensor_form}, {"num-cols", ck_tensor_form}, {"row", ck_tensor_form},
    {"col", ck_tensor_form}, {"transpose", ck_tensor_form}, {"transpose!", ck_tensor_form}, {"get-layout", ck_tensor_form},
    {"get-struct", ck_soa_get_struct}, {"bytes", cx_bytes},
    {"convert-aos-to-soa", ck_soa_convert}, {"convert-soa-to-aos", ck_soa_convert},
    {"make-result-vector", ck_side_make}, {"make-scratch-vector", ck_side_make}, {"make-implicit-vector", ck_side_make},
    {"r-t-output", ck_debug_form}, {"r-t-assert", ck_debug_form}, {"r-t-assert-0", ck_debug_form},
    {"r-t-workgroup-output-if", ck_debug_form}, {"r-t-workgroup-assert", ck_debug_form}, {"%debug-log", ck_debug_form},
    {"marshall-vector", ck_marshall_form}, {"marshall-result-vector", ck_marshall_form},
    {"marshall-scratch-vector", ck_marshall_form}, {"marshall-implicit-vector", ck_marshall_form},
    {"marshall-debug-logging-vector", ck_marshall_form},
    {NULL, NULL},
};

/* The builtin forms by name (builtins, cx_id_builtins, cx_atomic_ops, in
 * that order of precedence), hashed once per process: ck_expr looked for
 * every call's head in the three tables one entry at a time (issue 14).
 * The table also holds the other names ck_expr and form_to_1 test a head
 * against (statement forms, quote, funcall, the warp forms), with what
 * each is (HEAD_* flags, CkForm). */
typedef struct HeadEnt {
    const char *name;
    const Builtin *b;
    const IdBuiltin *id;
    const AtomicOp *atomic;
    unsigned flags;
    CkForm form;
} HeadEnt;
#define HEAD_SLOTS 512 /* a power of two, over twice the names (about 160) */
static HeadEnt head_table[HEAD_SLOTS];
static pthread_once_t head_once = PTHREAD_ONCE_INIT;

static HeadEnt *head_slot(const char *name) {
    uint32_t j = strmap_hash(name) & (HEAD_SLOTS - 1);
    while (head_table[j].name && strcmp(head_table[j].name, name)) j = (j + 1) & (HEAD_SLOTS - 1);
    return &head_table[j];
}

static HeadEnt *head_add(const char *name) {
    HeadEnt *e = head_slot(name);
    e->name = name;
    return e;
}

static void head_build(void) {
    for (int i = 0; builtins[i].name; i++) {
        HeadEnt *e = head_add(builtins[i].name);
        if (!e->b) e->b = &builtins[i];
    }
    for (int i = 0; cx_id_builtins[i].name; i++) {
        HeadEnt *e = head_add(cx_id_builtins[i].name);
        if (!e->b && !e->id) e->id = &cx_id_builtins[i];
    }
    for (int i = 0; cx_atomic_ops[i].name; i++) {
        HeadEnt *e = head_add(cx_atomic_ops[i].name);
        if (!e->b && !e->id && !e->atomic) e->atomic = &cx_atomic_ops[i];
    }
    for (int i = 0; cx_statement_heads[i]; i++) head_add(cx_statement_heads[i])->flags |= HEAD_STATEMENT;
    for (int i = 0; ck_warp_form_at(i); i++) head_add(ck_warp_form_at(i))->flags |= HEAD_WARP;
    for (int i = 0; ck_uniform_launch_heads[i]; i++) head_add(ck_uniform_launch_heads[i])->flags |= HEAD_UNIFORM_LAUNCH;
    for (int i = 0; ck_uniform_op_heads[i]; i++) head_add(ck_uniform_op_heads[i])->flags |= HEAD_UNIFORM_OP;
    head_add("quote")->flags |= HEAD_QUOTE;
    head_add("function")->flags |= HEAD_QUOTE;
    head_add("quasiquote")->flags |= HEAD_QUOTE;
    head_add("funcall")->flags |= HEAD_FUNCALL;
    head_add("%atomic-load")->flags |= HEAD_ATOMIC_LS;
    head_add("%atomic-store")->flags |= HEAD_ATOMIC_LS;
    /* form_to_1's statement forms (check.c) */
    static const struct { const char *name; CkForm form; } forms[] = {
        {"let", CF_LET}, {"let*", CF_LET_STAR}, {"progn", CF_PROGN}, {"if", CF_IF}, {"%loop", CF_LOOP},
        {"%native-warp-if", CF_NATIVE_WARP_IF}, {"return", CF_RETURN}, {"multiple-value-bind", CF_MVB},
        {"%no-barrier", CF_NO_BARRIER}, {"%uniform", CF_UNIFORM}, {"%uniform*", CF_UNIFORM}, {"%grid-body", CF_GRID_BODY},
        {"result", CF_RESULT}, {"let-maybe", CF_LET_MAYBE}, {"let-kernel", CF_LET_KERNEL}, {"declare", CF_DECLARE},
        {NULL, CF_NONE}};
    for (int i = 0; forms[i].name; i++) head_add(forms[i].name)->form = forms[i].form;
}

static const HeadEnt *head_lookup(const char *name) {
    pthread_once(&head_once, head_build);
    const HeadEnt *e = head_slot(name);
    return e->name ? e : NULL;
}

/* What KEY names as a head (ck_head, check_int.h), by its spelling: the
 * table's entry and the tests of ck_expr its spelling passes.  Answered
 * once per key pointer (the reader interns spellings; the strings the
 * checker reaches live as long as the compilation) in the checker's
 * direct-mapped memo, which a pointer of another key may take over. */
const HeadMemo *ck_head_fill(HeadMemo *m, const char *key) {
    const HeadEnt *e = head_lookup(key);
    unsigned f = e ? e->flags : 0;
    size_t n = strlen(key);
    if (n > 1 && key[n - 1] == '~') f |= HEAD_TILDE;
    if (!strncmp(key, "make-", 5)) f |= HEAD_MAKE;
    if (!strncmp(key, "as-", 3)) f |= HEAD_AS;
    if ((!strncmp(key, "to-", 3) || !strncmp(key, "as-", 3)) && ty_lookup_base(key + 3)) f |= HEAD_CONVERSION;
    if (cx_is_swizzle_name(key)) f |= HEAD_SWIZZLE;
    m->key = key;
    m->e = e;
    m->flags = f;
    m->form = e ? e->form : CF_NONE;
    return m;
}

/* Is KEY a builtin function a variable may hold, (let ((op #'max)) ...)
 * or (let ((op #'atomic-add!)) ...) (spec "First Order Functions",
 * "reduce-to-1-atomic")?  Forms that are not functions (set!, and, ~)
 * are not. */
int ck_builtin_function_value(const char *key) {
    for (int i = 0; builtins[i].name; i++)
        if (syn_streq(builtins[i].name, key)) {
            BuiltinFn f = builtins[i].fn;
            return f == cx_arith || f == cx_slash || f == cx_compare || f == cx_bitop || f == cx_lognot || f == cx_ash ||
                   f == cx_minmax || f == cx_math || f == cx_rounding || f == cx_not;
        }
    for (int i = 0; cx_atomic_ops[i].name; i++)
        if (syn_streq(cx_atomic_ops[i].name, key)) return 1;
    return 0;
}

/* (NAME~ X): a struct field, a vector's length or hardware-vector
 * components, chosen by the type of X (spec: member access `XXXX~`,
 * `length~`, swizzles). */
static Node *accessor(Ctx *cx, Node *syn) {
    const char *h = syn->kids[0]->key;
    Node *base = ck_expr(cx, syn->kids[1], NULL);
    if (!base) return NULL;
    if (h[0] != '~') {
        /* a user overload of the accessor for this type wins (spec
           "overloading member access function"); ~NAME~ never dispatches */
        FuncDef *cands[16];
        int nc = ck_func_overloads(cx->ck, h, cands, 16);
        for (int i = 0; i < nc; i++) {
            ck_resolve_signature(cx->ck, cands[i]);
            if (!cands[i]->bad && cands[i]->nparams == 1 && cx_fit(base, cands[i]->params[0].ty) >= 0)
                return ck_user_call(cx, syn, NULL, NULL, 0);
        }
    }
    if (base->ty->kind == TY_IDENT) return ck_tensor_form(cx, syn, NULL); /* num-dims~, or a clear error */
    if (base->kind == N_C_VAR && sym_ndims(base->sym) &&
        (syn_streq(h, "dims~") || syn_streq(h, "strides~") || syn_streq(h, "num-dims~")))
        return ck_tensor_form(cx, syn, NULL);
    if (base->ty->kind == TY_STRUCT) return ck_struct_member_value(cx, ck_struct_member(cx, syn, base, 0));
    if ((syn_streq(h, "length~") || syn_streq(h, "~length~")) && base->ty->kind == TY_VECTOR && base->kind == N_C_VAR)
        return cx_length_of(cx, syn, base->sym);
    if ((syn_streq(h, "offset~") || syn_streq(h, "~offset~")) && base->ty->kind == TY_VECTOR && base->kind == N_C_VAR)
        return sym_rare(base->sym)->off_sym ? ck_var_ref(cx, syn, sym_rare(base->sym)->off_sym) : ck_int_lit(cx, syn, 0, ty_num(SC_ULONG));
    if ((syn_streq(h, "parent~") || syn_streq(h, "~parent~")) && cx->consteval) return constvec_parent(cx, syn, base);
    if ((syn_streq(h, "parent~") || syn_streq(h, "~parent~")) && base->ty->kind == TY_VECTOR) {
        diag_error_at(D(cx), syn, "E0562",
                      "`%s` can be set in kernel code, (set! (parent~ v) w), but not read: a view's parent is the vector it was made from; use that vector",
                      syn->kids[0]->name);
        return NULL;
    }
    if (cx_is_swizzle_name(h) && base->ty->kind != TY_VECTOR) return cx_swizzle_of(cx, syn, base, 0);
    if (syn_streq(h, "length~") || syn_streq(h, "~length~")) {
        diag_error_at(D(cx), syn->kids[1], "E0401", "`%s` needs a vector, found `%s`", syn->kids[0]->name, ck_tname(cx, base->ty));
        return NULL;
    }
    diag_error_at(D(cx), syn, "E0496", "`%s` selects a struct field, but `%s` is `%s`", syn->kids[0]->name,
                  syn_to_string(cx->ck->a, syn->kids[1], 30), ck_tname(cx, base->ty));
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
Node *ck_setter_object_type(const Node *f) {
    Node *obj = f->kids[2]->kids[0];
    if (obj->kind != N_SYMBOL) return NULL;
    if (obj->ann) return obj->ann;
    for (int j = 3; j < f->nkids && syn_is_form(f->kids[j], "declare"); j++)
        for (int m = 1; m < f->kids[j]->nkids; m++) {
            Node *e = f->kids[j]->kids[m];
            if (syn_is_form(e, "type"))
                for (int q = 1; q < e->nkids - 1; q++)
                    if (e->kids[q]->kind == N_SYMBOL && syn_streq(e->kids[q]->key, obj->key)) return e->kids[e->nkids - 1];
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
Node *cx_setter_call(Ctx *cx, Node *place_syn, Node *value) {
    Checker *ck = cx->ck;
    const char *h = syn_head(place_syn);
    if (!h || !ck->nsetters || cx->setter_depth > 0) return NULL;
    for (int s = 0; s < ck->nsetters; s++) {
        Node *f = ck->setters[s];
        if (strcmp(f->kids[1]->key, h)) continue;
        Node *pl = f->kids[2];
        if (pl->nkids != place_syn->nkids) continue; /* object, indices, new value */
        Node *tsyn = ck_setter_object_type(f);
        Type *ot = tsyn ? ck_type_expr(ck, tsyn) : NULL;
        if (!ot) continue;
        Node *probe = ck_expr(cx, place_syn->kids[1], NULL);
        if (!probe) return NULL;
        int k0 = cx_fit(probe, ot); /* exact, or a vector parameter leaving properties open */
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
        Type *vt = pl->kids[n - 1]->ann ? ck_type_expr(ck, pl->kids[n - 1]->ann) : NULL;
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
        ck_form_to(cx, let, &dd);
        cx->setter_depth--;
        return ck_node(cx, N_C_BLOCK, place_syn, &ty_void);
    }
    return NULL;
}

/* A statement-like form in value position: its value goes to a temporary. */
static Node *form_value(Ctx *cx, Node *syn, Type *want) {
    const char *h = syn_head(syn);
    /* an if whose then-branch does not use `it` (asked once: a walk of
       the branch, issue 14) */
    int plain_if = syn_streq(h, "if") && syn->nkids == 4 && !ck_syn_mentions_it(syn->kids[2]);
    if (plain_if) {
        int known = ck_static_truth(cx, syn, syn->kids[1]);
        if (known >= 0) return ck_expr(cx, syn->kids[known ? 2 : 3], want);
    }
    if (plain_if) {
        /* both branches plain expressions: a ?: */
        Node *c = cx_cond_value(cx, syn->kids[1]);
        if (!c) return NULL;
        Node *saved = cx->block;
        Node *b1 = ck_node(cx, N_C_BLOCK, syn, &ty_void), *b2 = ck_node(cx, N_C_BLOCK, syn, &ty_void);
        const Node *wdiv = ck_warp_branch_enter(cx, syn, syn->kids[1]);
        cx->block = b1;
        cx->branch_depth++;
        Node *v1 = ck_expr(cx, syn->kids[2], want);
        cx->block = b2;
        Node *v2 = v1 ? ck_expr(cx, syn->kids[3], want) : NULL;
        cx->branch_depth--;
        cx->block = saved;
        cx->divergent = wdiv;
        if (!v1 || !v2) return NULL;
        Type *t = NULL;
        if (ty_is_arith(v1->ty) && ty_is_arith(v2->ty)) {
            t = cx_branch_type(v1, v2, want);
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
            diag_error_at(D(cx), syn, "E0312", "the branches of `if` have types `%s` and `%s`", ck_tname(cx, v1->ty), ck_tname(cx, v2->ty));
            return NULL;
        }
        if (b1->nkids == 0 && b2->nkids == 0) {
            Node *s = ck_mk(cx, N_C_SELECT, syn, t, 3);
            if (!s) return NULL;
            s->kids[0] = c;
            s->kids[1] = ck_coerce(cx, v1, t, syn->kids[2], "if");
            s->kids[2] = ck_coerce(cx, v2, t, syn->kids[3], "if");
            s->nkids = 3;
            return s->kids[1] && s->kids[2] ? s : NULL;
        }
        Sym *tmp = ck_declare_temp(cx, syn, "value", t, NULL);
        if (!tmp) return NULL;
        Dest dv = {D_VAR, tmp, t};
        cx->block = b1;
        ck_deliver(cx, v1, &dv, syn->kids[2]);
        cx->block = b2;
        ck_deliver(cx, v2, &dv, syn->kids[3]);
        cx->block = saved;
        Node *ifn = ck_mk(cx, N_C_IF, syn, &ty_void, 3);
        if (!ifn) return NULL;
        ifn->kids[0] = c;
        ifn->kids[1] = b1;
        ifn->kids[2] = b2;
        ifn->nkids = 3;
        ck_emit_stmt(cx, ifn);
        return ck_var_ref(cx, syn, tmp);
    }
    if (syn_streq(h, "return")) {
        Dest d = {D_DISCARD, NULL, NULL};
        ck_form_to(cx, syn, &d);
        return ck_node(cx, N_C_BLOCK, syn, &ty_void);
    }
    Sym *tmp = ck_new_temp(cx, syn, "value", NULL);
    if (!tmp) return NULL;
    Node *d = ck_node(cx, N_C_DECL, syn, NULL); /* typed once the form has delivered */
    d->sym = tmp;
    ck_emit_stmt(cx, d);
    Dest dv = {D_VAR, tmp, want};
    int errs = cx->ck->d->errors;
    ck_form_to(cx, syn, &dv);
    if (!tmp->ty) {
        if (cx->ck->d->errors == errs)
            diag_error_at(D(cx), syn, "E0333", "`%s` has no value", syn_to_string(cx->ck->a, syn, 40));
        return NULL;
    }
    d->ty = tmp->ty;
    return ck_var_ref(cx, syn, tmp);
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
    Type *t = cx_unify(cx, syn, syn->kids, n, args, et, "##(...)");
    if (!t) return NULL;
    if (t->kind != TY_NUM) {
        diag_error_at(D(cx), syn, "E0471", "hardware vector components must be scalars, found `%s`", ck_tname(cx, t));
        return NULL;
    }
    Type *vt = ty_hwvec(t->sc, n);
    if (want && want->kind == TY_HWVEC && want->width != n) {
        diag_error_at(D(cx), syn, "E0472", "expected `%s` (%d components), found %d components", ck_tname(cx, want), want->width, n);
        return NULL;
    }
    Node *x = ck_mk(cx, N_C_HWVEC, syn, vt, n);
    if (!x) return NULL;
    for (int i = 0; i < n; i++) x->kids[i] = args[i];
    x->nkids = n;
    if (t->sc == SC_DOUBLE) ck_prog_of(cx)->uses_fp64 = 1;
    return x;
}

static Node *symbol_value(Ctx *cx, Node *syn, Type *want) {
    const char *k = syn->key;
    if (syn->ann && syn->ann->kind == N_SYMBOL) {
        /* phylum:chordata names an enumeration key explicitly */
        Sym *e = ck_global_lookup(cx->ck, k);
        if (e && e->kind == SYM_TYPE && e->ty && e->ty->kind == TY_ENUM) {
            Node *kw = syn_keyword(cx->ck->a, syn->ann->loc, syn->ann->name);
            kw->origin = syn->origin;
            return ck_enum_value(cx, kw, e->ty);
        }
    }
    if (syn_streq(k, "t") || syn_streq(k, "true")) return cx_bool_lit(cx, syn, 1);
    if (syn_streq(k, "false") || syn_streq(k, "nil")) return cx_bool_lit(cx, syn, 0);
    if (syn_streq(k, "+warp-size+")) return ck_warp_size_value(cx, syn, want); /* types/warps.c */
    Sym *s = ck_scope_lookup(cx, k);
    if (!s) s = ck_parameter_lookup(cx->ck, syn); /* case-sensitive names */
    if (!s) {
        if (ck_func_lookup(cx->ck, k))
            diag_error_at(D(cx), syn, "E0481", "`%s` is a function; call it as (%s ...) or refer to it as #'%s", syn->name, syn->name, syn->name);
        else if (!orch_capture_error(cx, syn))
        {
            diag_error_at(D(cx), syn, "E0430", "unknown variable `%s`", syn->name);
            ck_suggest_variable(cx, syn);
        }
        return NULL;
    }
    if (s->kind == SYM_TYPE) {
        diag_error_at(D(cx), syn, "E0482", "`%s` is a type, not a value", s->name);
        return NULL;
    }
    if (s->kind == SYM_FNVAL) return ck_fnval_use_error(cx, syn, s);
    if (!s->ty && s->kind == SYM_LOCAL) return NULL; /* its binding failed and was reported */
    if (s->kind == SYM_CONST || s->kind == SYM_PARAMETER) {
        Node *v = ck_global_const_value(cx->ck, s);
        if (!v) return NULL;
        Node *c = syn_copy(cx->ck->a, v);
        c->loc = syn->loc;
        c->origin = syn->origin;
        /* an untyped constant behaves like the literal it names */
        if (!sym_rare(s)->type_syn && c->op && want && ty_is_arith(want)) return c;
        if (sym_rare(s)->type_syn) c->op = 0;
        return c;
    }
    if (s->kind == SYM_CONSTVEC) return constvec_ref(cx, syn, s);
    if (s->write_only && s->ty->kind != TY_VECTOR) {
        diag_error_at(D(cx), syn, "E0410", "`%s` is write-only", s->name);
        return NULL;
    }
    return ck_var_ref(cx, syn, s);
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
        if (syn_streq(head->key, lisp[i].from)) {
            diag_note(D(cx), head->loc, "Crisp has no `%s`: did you mean `%s`?", head->name, lisp[i].to);
            return;
        }
    Suggest sg;
    suggest_init(&sg, head->key);
    for (int i = 0; builtins[i].name; i++) suggest_add(&sg, builtins[i].name);
    for (int i = 0; cx_id_builtins[i].name; i++) suggest_add(&sg, cx_id_builtins[i].name);
    for (int i = 0; cx_atomic_ops[i].name; i++) suggest_add(&sg, cx_atomic_ops[i].name);
    static const char *const forms[] = {"let", "let*", "progn", "if", "return", "multiple-value-bind", "let-maybe",
                                        "funcall", "quote", "function", NULL};
    for (int i = 0; forms[i]; i++) suggest_add(&sg, forms[i]);
    if (cx->ck->ev) eval_each_macro(cx->ck->ev, suggest_macro, &sg);
    for (int i = 0; i < cx->ck->nfuncs; i++)
        if (cx->ck->funcs[i]->kind != FN_KERNEL && !cx->ck->funcs[i]->from_lib) suggest_add(&sg, cx->ck->funcs[i]->key);
    if (suggest_best(&sg)) diag_note(D(cx), head->loc, "did you mean `%s`?", suggest_best(&sg));
}

/* A note naming the nearest visible variable to unknown `name`. */
void ck_suggest_variable(Ctx *cx, const Node *name) {
    Suggest sg;
    suggest_init(&sg, name->key);
    for (Scope *sc = cx->scope; sc; sc = sc->up)
        for (int i = 0; i < sc->n; i++) suggest_add(&sg, sc->syms[i]->key);
    for (int i = 0; i < cx->ck->globals.n; i++)
        if (cx->ck->globals.syms[i]->kind != SYM_TYPE) suggest_add(&sg, cx->ck->globals.syms[i]->key);
    if (suggest_best(&sg)) diag_note(D(cx), name->loc, "did you mean `%s`?", suggest_best(&sg));
}

Node *ck_expr(Ctx *cx, Node *syn, Type *want) {
    if (!syn || cx->ck->d->fatal || !(syn = ck_expand(cx, syn))) return NULL;
    switch (syn->kind) {
    case N_INT: {
        Node *n = ck_int_lit(cx, syn, syn->ival, NULL);
        n->is_unsigned = syn->is_unsigned;
        n->radix = syn->radix;
        n->op = LIT_FLEX_INT;
        n->ty = syn->is_unsigned ? ty_num(SC_ULONG) : cx_int_fits(syn->ival, 0, SC_INT) ? ty_num(SC_INT) : ty_num(SC_LONG);
        if (want && ty_is_arith(want)) return cx_adapt_literal(cx, n, want, syn);
        return n;
    }
    case N_FLOAT: {
        Node *n = cx_float_lit(cx, syn, syn->fval, ty_num(SC_FLOAT));
        n->op = LIT_FLEX_FLOAT;
        if (want && ty_is_arith(want)) return cx_adapt_literal(cx, n, want, syn);
        return n;
    }
    case N_SYMBOL: return symbol_value(cx, syn, want);
    case N_KEYWORD: {
        int errs = cx->ck->d->errors;
        Node *ev = ck_enum_value(cx, syn, want);
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
    if (syn->nkids == 0) return cx_bool_lit(cx, syn, 0);
    Node *head = syn->kids[0];
    if (head->kind != N_SYMBOL) {
        diag_error_at(D(cx), head, "E0491", "expected a function or form name, found `%s`", syn_to_string(cx->ck->a, head, 30));
        return NULL;
    }
    const char *h = head->key;
    /* the tests below in the order they always had; those the head's
       spelling decides, by the flags of its memo (ck_head) */
    const HeadMemo *hm = ck_head(cx->ck, h);
    unsigned hf = hm->flags;
    const HeadEnt *he = hm->e; /* (the memo may be refilled by the calls below) */
    if (hf & HEAD_STATEMENT) return form_value(cx, syn, want);
    if (hf & HEAD_QUOTE) {
        diag_error_at(D(cx), syn, "E0492", "`%s` cannot be used as a run-time value here", syn_to_string(cx->ck->a, syn, 30));
        return NULL;
    }
    if (hf & HEAD_FUNCALL) return ck_fnval_call(cx, syn, want);
    /* a let-bound function value called by its name (hof.c); none made
       yet (most programs): no scope to search (issue 14: every call's head
       walked every scope to the globals here) */
    Sym *fs = cx->ck->nfnvals ? ck_scope_lookup(cx, h) : NULL;
    if (fs && fs->kind == SYM_FNVAL) return ck_fnval_call(cx, syn, want);
    if (hf & HEAD_TILDE) {
        Node *soa;
        if (ck_soa_access(cx, syn, 0, &soa)) return soa;
        if (syn->nkids == 3 && ck_soa_sym(cx, syn->kids[1])) /* overloaded for soa-vectors */
            return ck_user_call(cx, syn, want, NULL, 0);
        if (syn->nkids == 2) return accessor(cx, syn);
    }
    if (hf & HEAD_MAKE) {
        Sym *st = ck_global_lookup(cx->ck, h + 5);
        if (st && st->kind == SYM_TYPE && st->ty && st->ty->kind == TY_STRUCT) return ck_struct_make(cx, syn, st->ty->sd);
        StructDef *sd;
        Node **pre;
        if (ck_template_make_struct(cx, syn, &sd, &pre)) return sd ? ck_struct_make_checked(cx, syn, sd, pre) : NULL;
    }
    if (cx->consteval) { /* forms only a def-const-vec body has (constvec.c) */
        int handled;
        Node *r = constvec_form(cx, syn, &handled);
        if (handled) return r;
    }
    if (hf & HEAD_WARP) return ck_warp_form(cx, syn, want); /* types/warps.c */
    if (he && he->b) return he->b->fn(cx, syn, want);
    if (he && he->id) return cx_gpu_id(cx, syn, he->id);
    if (he && he->atomic) return cx_atomic(cx, syn, he->atomic);
    if (hf & HEAD_ATOMIC_LS) return cx_atomic_load_store(cx, syn, want);
    if (hf & HEAD_SWIZZLE) return cx_swizzle(cx, syn);
    if (hf & HEAD_CONVERSION) return cx_conversion(cx, syn, h);
    if (hf & (HEAD_AS | HEAD_MAKE)) {
        /* derived vector types, as-original, as-derived: types/derived.c */
        int handled = 0;
        Node *r = ck_derived_form(cx, syn, &handled);
        if (handled) return r;
    }
    if (hf & HEAD_AS) {
        /* (as-NAME x): a value of a related derived struct type as NAME */
        Sym *st = ck_global_lookup(cx->ck, h + 3);
        if (st && st->kind == SYM_TYPE && st->ty && st->ty->kind == TY_STRUCT) {
            if (!ck_nargs_ok(cx, syn, 1, 1) || !ck_struct_resolve(cx->ck, st->ty->sd)) return NULL;
            Node *v = ck_expr(cx, syn->kids[1], NULL);
            if (!v) return NULL;
            if (ty_equal(v->ty, st->ty)) return v;
            const StructDef *a = v->ty->kind == TY_STRUCT ? v->ty->sd : NULL, *b = st->ty->sd;
            if (!a || !(a->derived_from == b || b->derived_from == a)) {
                diag_error_at(D(cx), syn, "E0166", "`%s` casts between a derived type and its original, found `%s`", head->name,
                              ck_tname(cx, v->ty));
                return NULL;
            }
            return cx_retype_struct(cx, v, st->ty, syn);
        }
    }
    if (ck_func_lookup(cx->ck, h) || ck_template_lookup(cx->ck, h) || ck_hof_lookup(cx->ck, h)) return ck_user_call(cx, syn, want, NULL, 0);
    if (strmap_get(&cx->ck->kernels_idx, head->name)) {
        diag_error_at(D(cx), syn, "E0493", "`%s` is a kernel; kernels are launched by the host, not called", head->name);
        return NULL;
    }
    static const struct { const char *name, *why; } later[] = {
        {"get-timestamp", "has no OpenCL C 1.2 equivalent"},
        {NULL, NULL}};
    for (int i = 0; later[i].name; i++)
        if (syn_streq(later[i].name, h)) {
            diag_error_at(D(cx), head, "E0495", "`%s` %s", head->name, later[i].why);
            return NULL;
        }
    diag_error_at(D(cx), head, "E0494", "unknown function or macro `%s`", head->name);
    suggest_form(cx, head);
    return NULL;
}
