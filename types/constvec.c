/* constvec.c - def-const-vec: vectors computed while compiling.
 *
 * Spec "def-const-vec": the body of a def-const-vec runs at compile time
 * ("think of it as just a function") and the vector it returns becomes a
 * file-scope `__constant` array; kernels read it by name once they
 * `(declare (use NAME))`.
 *
 * The body is checked by the normal checker, as the body of a compile-time
 * function (a Ctx with `consteval` set), and then run by the constant
 * evaluator (consteval.c).  A compile-time body differs from kernel code in
 * a few places, each a hook of the checker that calls in here:
 *   - values convert as C converts where kernel code asks for an explicit
 *     conversion (a store into a narrower element wraps, an integer mixes
 *     with a float), except a float to an integer (E0186);
 *   - make-vector works anywhere, with :initial-element and a length the
 *     body computes; vectors are private arrays of integer, float or double
 *     scalars, 1 to 2^20 elements;
 *   - copy-vec exists, and parent~ can be read;
 *   - the body's value is a vector (E0185 otherwise).
 * Functions the body calls are checked as usual, as instances of their own
 * (CFunc.consteval) that are never emitted.
 *
 * The rest is the glue: the (declare (use NAME)) and (declare (max-steps
 * N)) rules, and the array the run produced. */
#include <stdio.h>
#include <string.h>

#include "../macros/expand.h"
#include "consteval.h"

/* Diagnostic codes (docs/language.md "def-const-vec"). */
#define CV_E_FORM "E0180"    /* malformed def-const-vec, unsupported form in its body */
#define CV_E_NOUSE "E0181"   /* a const-vec read without (declare (use NAME))          */
#define CV_E_USE "E0182"     /* (use NAME) names no earlier def-const-vec              */
#define CV_E_SIZE "E0184"    /* bad vector length or element type                      */
#define CV_E_RESULT "E0185"  /* the body does not return a vector                      */
#define CV_E_EVAL "E0186"    /* a float converted to an integer, views                 */
#define CV_E_WRITE "E0187"   /* writing to a const-vec                                 */
#define CV_E_REINT "E0188"   /* reinterpret-view to or from a type it cannot see       */
#define CV_E_PARENT "E0189"  /* parent~ of something not a vector                      */

/* The def-const-vec whose body is being checked and run (Checker.ct). */
struct CtBody {
    Sym *self;
    Sym **uses;             /* the const-vecs it declared with (use ...) */
    int nuses, capuses;
    Type *ret;              /* the body's value: any vector (a marker type) */
    const Node *form;
};

static Diag *D(Ctx *cx) {
    return cx->ck->d;
}

/* Elements a compile-time vector may hold. */
static int elem_ok(const Type *t) {
    return t && t->kind == TY_NUM && t->sc != SC_HALF && t->sc != SC_BFLOAT16;
}

static const char *value_word(Ctx *cx, const Type *t) {
    if (!t || t->kind == TY_VOID) return "no value";
    if (ty_is_int(t) || t->kind == TY_ENUM) return "an integer";
    if (ty_is_float(t)) return "a float";
    if (t->kind == TY_BOOL) return "a bool";
    return arena_printf(cx->ck->a, "`%s`", ck_tname(cx, t));
}

/* ------------------------------------------------------------------ */
/* conversions (the checker's hooks: cx_unify, cx_adapt_literal, coerce) */

/* C's usual arithmetic conversions for A op B (scalars): the floating type
 * if there is one, else integer promotion and the wider type, unsigned
 * winning a tie.  NULL for anything but scalars. */
Type *constvec_join(const Type *a, const Type *b) {
    if (!ty_is_num(a) || !ty_is_num(b)) return NULL;
    const ScalarInfo *ia = ty_scalar_info(a->sc), *ib = ty_scalar_info(b->sc);
    if (ia->cat == CAT_FLOAT || ib->cat == CAT_FLOAT) {
        if (ia->cat != CAT_FLOAT) return (Type *)b;
        if (ib->cat != CAT_FLOAT) return (Type *)a;
        return (Type *)(ia->size >= ib->size ? a : b);
    }
    if (ia->size < 4) a = ty_num(SC_INT), ia = ty_scalar_info(SC_INT);
    if (ib->size < 4) b = ty_num(SC_INT), ib = ty_scalar_info(SC_INT);
    if (ia->size != ib->size) return (Type *)(ia->size > ib->size ? a : b);
    return (Type *)(ia->cat == CAT_UNSIGNED ? a : b);
}

/* Do the context-free literals ARGS all fit WANT?  If not, literal-only
 * arithmetic in a compile-time body is done in the literals' own types
 * and converted where it is stored (so (- (* 16 16) 1) stored in a uchar
 * is 255, as C computes it). */
int constvec_literals_fit(Node **args, int n, const Type *want) {
    if (!ty_is_num(want)) return 1;
    const ScalarInfo *si = ty_scalar_info(want->sc);
    for (int i = 0; i < n; i++) {
        const Node *a = args[i];
        if (a->kind != N_C_INTLIT || si->cat == CAT_FLOAT) continue;
        if (a->is_unsigned && want->sc != SC_ULONG) return 0;
        int bits = si->size * 8;
        int64_t v = a->ival;
        if (si->cat == CAT_UNSIGNED ? v < 0 || (bits < 64 && v >= (INT64_C(1) << bits))
                                    : bits < 64 && (v < -(INT64_C(1) << (bits - 1)) || v >= (INT64_C(1) << (bits - 1))))
            return 0;
    }
    return 1;
}

/* The integer literal V stored where TARGET is wanted: C's conversion
 * (300 in a uchar is 44). */
Node *constvec_wrap(Ctx *cx, int64_t v, Type *target, const Node *at) {
    int bits = ty_scalar_info(target->sc)->size * 8;
    uint64_t u = (uint64_t)v;
    if (bits < 64) {
        uint64_t m = (UINT64_C(1) << bits) - 1;
        u &= m;
        if (ty_category(target) == CAT_SIGNED && (u >> (bits - 1))) u |= ~m;
    }
    return ck_int_lit(cx, at, (int64_t)u, target);
}

/* A float where an integer is wanted: never implicit (E0186). */
void constvec_float_error(Ctx *cx, const Type *want, const Node *at) {
    diag_error_at(D(cx), at, CV_E_EVAL, "a float is not converted to `%s`; use truncate, floor, ceil or round", ck_tname(cx, want));
}

/* VAL where WANT is expected and the checker found no implicit
 * conversion: C's conversion between numbers and bools; the body's value
 * must be a vector (E0185).  Returns 0 when this is not for a compile-time
 * body to decide (the caller reports E0310), else 1 with *OUT (NULL after
 * an error). */
int constvec_convert(Ctx *cx, Node *val, Type *want, const Node *at, Node **out) {
    CtBody *ct = cx->ck->ct;
    Type *have = val->ty;
    *out = NULL;
    if (ct && want == ct->ret) {
        diag_error_at(D(cx), ct->form, CV_E_RESULT, "def-const-vec `%s` must return a vector, but its body returns %s",
                      ct->self->name, value_word(cx, have));
        return 1;
    }
    int hnum = ty_is_num(have) || have->kind == TY_BOOL || have->kind == TY_ENUM;
    int wnum = ty_is_num(want) || want->kind == TY_BOOL;
    if (!hnum || !wnum) return 0;
    if (ty_is_float(have) && !ty_is_float(want) && want->kind != TY_BOOL) {
        constvec_float_error(cx, want, at);
        return 1;
    }
    Node *c = ck_mk1(cx, N_C_CAST, at, want, val);
    if (c) c->op = CAST_VALUE;
    *out = c;
    return 1;
}

/* ------------------------------------------------------------------ */
/* forms of a compile-time body                                        */

/* (make-vector TYPE LENGTH [:initial-element V]) in a compile-time body:
 * a private array named NAME.  TYPE is a scalar, a vector type or an
 * alias of one (its length is the default; its address space and access
 * do not matter: the result is a const-vec).  A length the checker cannot
 * compute is computed when the body runs (the declaration's kids[1]); V
 * fills every element (kids[0]). */
Sym *constvec_make_vector(Ctx *cx, Node *name, Node *init) {
    Checker *ck = cx->ck;
    Node *fill_syn = NULL;
    Node *form = init;
    for (int i = 2; i < init->nkids; i++)
        if (syn_is_kw(init->kids[i], "initial-element")) {
            if (i + 1 >= init->nkids) {
                diag_error_at(D(cx), init->kids[i], CV_E_FORM, "`:initial-element` needs a value");
                return NULL;
            }
            fill_syn = init->kids[i + 1];
            form = syn_copy(ck->a, init);
            for (int j = i; j + 2 < init->nkids; j++) form->kids[j] = init->kids[j + 2];
            form->nkids -= 2;
            break;
        }
    /* the type: as ck_make_vector_type, with a length left to the run */
    Node *k = form->nkids > 1 ? form->kids[1] : NULL, *len_expr = NULL;
    Type *base = NULL;
    int typed = 0;
    if (k && k->kind == N_SYMBOL) {
        Sym *a = ck_global_lookup(ck, k->key);
        typed = a && a->kind == SYM_TYPE;
    }
    typed |= syn_is_form(k, "vector-type") || syn_is_form(k, "vector") || syn_is_form(k, "vector-view-type");
    if (typed && !(base = ck_type_expr(ck, k))) return NULL;
    Type *t = ck_vector_type_args(ck, form, typed ? 2 : 1, 1, &len_expr);
    if (!t) return NULL;
    if (base && base->kind == TY_VECTOR) {
        if (!t->elem) t->elem = base->elem;
        if (t->length < 0 && !len_expr) t->length = base->length;
    } else if (base) {
        t->elem = base;
    }
    if (!t->elem) {
        diag_error_at(D(cx), init, CV_E_SIZE, "make-vector in a def-const-vec body needs an element type");
        return NULL;
    }
    if (!elem_ok(t->elem)) {
        diag_error_at(D(cx), init, CV_E_SIZE, "def-const-vec elements must be integer, float or double scalars, found `%s`",
                      ck_tname(cx, t->elem));
        return NULL;
    }
    Node *len = NULL, *fill = NULL;
    if (len_expr) {
        len = ck_ulong_arg(cx, len_expr, "vector length");
        if (!len) return NULL;
    } else if (t->length < 0) {
        diag_error_at(D(cx), init, CV_E_SIZE, "make-vector in a def-const-vec body needs a length");
        return NULL;
    } else if (t->length < 1 || t->length > CE_MAX_LENGTH) {
        diag_error_at(D(cx), init, CV_E_SIZE,
                      "a def-const-vec vector needs 1 to %ld elements, found %lld (the limit cannot be raised: a const-vec is a "
                      "__constant array, and devices promise only 64 KB of constant memory)",
                      CE_MAX_LENGTH, (long long)t->length);
        return NULL;
    }
    if (fill_syn) {
        fill = ck_expr(cx, fill_syn, t->elem);
        if (fill) fill = ck_coerce(cx, fill, t->elem, fill_syn, "initial element");
        if (!fill) return NULL;
    }
    Type *vt = ty_vector(ck->a, t->elem, AS_PRIVATE, ACC_READ_WRITE, AL_COMPACT, len ? -1 : t->length);
    if (t->elem->sc == SC_DOUBLE) ck_prog_of(cx)->uses_fp64 = 1;
    Sym *s = ck_new_local(cx, name, name->name, vt);
    Node *d = ck_mk(cx, N_C_DECL, init, vt, 2);
    if (!s || !d) return NULL;
    d->sym = s;
    if (fill || len) {
        d->kids[0] = fill;
        d->kids[1] = len;
        d->nkids = 2;
    }
    ck_emit_stmt(cx, d);
    return s;
}

/* A vector operand of copy-vec: its first element and its length. */
static Node *first_elem(Ctx *cx, const Node *at, Sym *v) {
    Node *r = ck_var_ref(cx, at, v);
    return sym_rare(v)->off_sym ? ck_mk2(cx, N_C_BINARY, at, v->ty, OP_ADD, r, ck_var_ref(cx, at, sym_rare(v)->off_sym)) : r;
}

static Node *length_node(Ctx *cx, const Node *at, Sym *v) {
    Node *x = ck_node(cx, N_C_LENGTH, at, ty_num(SC_ULONG));
    x->sym = v;
    return x;
}

/* (copy-vec :from SRC :to DST) or (copy-vec SRC DST): the first min(length
 * SRC, length DST) elements, converted to DST's element type as a store
 * converts them; overlapping windows copy as memmove does.  Only in
 * compile-time bodies: kernels do not have it. */
static Node *copy_vec(Ctx *cx, Node *syn) {
    Node *src = NULL, *dst = NULL;
    int npos = 0;
    for (int i = 1; i < syn->nkids; i++) {
        Node *k = syn->kids[i];
        if (k->kind == N_KEYWORD && (syn_streq(k->key, "from") || syn_streq(k->key, "to"))) {
            if (i + 1 >= syn->nkids) {
                diag_error_at(D(cx), k, CV_E_FORM, "`:%s` needs a vector", k->key);
                return NULL;
            }
            Node **slot = k->key[0] == 'f' ? &src : &dst;
            if (*slot) {
                diag_error_at(D(cx), k, CV_E_FORM, "`:%s` is given twice", k->key);
                return NULL;
            }
            *slot = syn->kids[++i];
        } else if (k->kind == N_KEYWORD) {
            diag_error_at(D(cx), k, CV_E_FORM, "unknown copy-vec keyword `:%s` (expected :from and :to)", k->key);
            return NULL;
        } else {
            Node **slot = npos == 0 ? &src : &dst;
            if (npos++ >= 2 || *slot) {
                diag_error_at(D(cx), k, CV_E_FORM, "expected (copy-vec :from source :to destination)");
                return NULL;
            }
            *slot = k;
        }
    }
    if (!src || !dst) {
        diag_error_at(D(cx), syn, CV_E_FORM, "expected (copy-vec :from source :to destination)");
        return NULL;
    }
    Sym *s = ck_vector_operand(cx, src, "copy-vec"), *d = s ? ck_vector_operand(cx, dst, "copy-vec") : NULL;
    if (!s || !d) return NULL;
    if (sym_ndims(s) || sym_ndims(d)) {
        diag_error_at(D(cx), sym_ndims(s) ? src : dst, CV_E_FORM, "copy-vec copies vectors and vector-views, not tensor-views");
        return NULL;
    }
    if (d->kind == SYM_CONSTVEC) {
        constvec_write_error(cx, dst, d);
        return NULL;
    }
    if (ty_is_float(s->ty->elem) && !ty_is_float(d->ty->elem)) {
        constvec_float_error(cx, d->ty->elem, dst);
        return NULL;
    }
    Node *c = ck_mk(cx, N_C_CALL, syn, &ty_void, 4);
    if (!c) return NULL;
    c->op = BI_CALL;
    c->text = CE_COPY_VEC;
    c->kids[0] = first_elem(cx, src, s);
    c->kids[1] = length_node(cx, src, s);
    c->kids[2] = first_elem(cx, dst, d);
    c->kids[3] = length_node(cx, dst, d);
    c->nkids = 4;
    return c;
}

/* Forms only a compile-time body has (the checker's expr hook): copy-vec,
 * and make-vector where a value is expected.  *HANDLED says whether SYN was
 * one of them. */
Node *constvec_form(Ctx *cx, Node *syn, int *handled) {
    const char *h = syn_head(syn);
    *handled = 1;
    if (h && syn_streq(h, "copy-vec")) return copy_vec(cx, syn);
    if (h && syn_streq(h, "make-vector")) {
        Node *name = cx_sym(cx, syn, cx->bind_hint ? cx->bind_hint : "vec");
        Sym *s = constvec_make_vector(cx, name, syn);
        return s ? ck_var_ref(cx, syn, s) : NULL;
    }
    *handled = 0;
    return NULL;
}

/* (parent~ V) read in a compile-time body (kernel code may only set it,
 * E0562): the vector V looks into (views are flattened, so its root, seen
 * with V's element type), as a view of all of it; a plain vector is its
 * own parent.  BASE is V checked. */
Node *constvec_parent(Ctx *cx, Node *syn, Node *base) {
    if (!base->ty || base->ty->kind != TY_VECTOR || base->kind != N_C_VAR) {
        diag_error_at(D(cx), syn->kids[1], CV_E_PARENT, "`%s` needs a vector-view, found %s", syn->kids[0]->name,
                      value_word(cx, base->ty));
        return NULL;
    }
    Sym *v = base->sym;
    if (!sym_rare(v)->off_sym) return base;
    Type *t = ty_vector(cx->ck->a, v->ty->elem, v->ty->as, v->ty->acc, v->ty->align, -1);
    t->view = 1;
    Node *p = ck_mk1(cx, N_C_CALL, syn, t, ck_var_ref(cx, syn, v));
    Node *l = ck_mk1(cx, N_C_CALL, syn, ty_num(SC_ULONG), ck_var_ref(cx, syn, v));
    if (!p || !l) return NULL;
    p->op = l->op = BI_CALL;
    p->text = CE_PARENT;
    l->text = CE_PARENT_LENGTH;
    Sym *pv = ck_new_view(cx, syn, cx->bind_hint ? cx->bind_hint : "parent", t, p, ck_int_lit(cx, syn, 0, ty_num(SC_ULONG)), l);
    return pv ? ck_var_ref(cx, syn, pv) : NULL;
}

/* reinterpret-view in a compile-time body sees bytes as integer, float or
 * double scalars (the evaluator's elements). */
int constvec_reinterpret_ok(Ctx *cx, const Node *tn, const Type *et) {
    if (elem_ok(et)) return 1;
    diag_error_at(D(cx), tn, CV_E_REINT,
                  "reinterpret-view in a def-const-vec body sees elements as integer, float or double scalars, not `%s`%s",
                  ck_tname(cx, et), et->kind == TY_STRUCT ? " (spec: the new type cannot be a struct)" : "");
    return 0;
}

/* A call in code run at compile time: templated functions and functions
 * taking functions are not (their instances would be emitted). */
int constvec_call_ok(Ctx *cx, Node *syn) {
    Checker *ck = cx->ck;
    const char *k = syn->kids[0]->key;
    if (!ck->ct || !(ck_hof_lookup(ck, k) || ck_template_lookup(ck, k))) return 1;
    diag_error_at(D(cx), syn, CV_E_FORM,
                  "`%s` is not supported in a def-const-vec body (functions taking functions and templated functions are not run "
                  "by the compiler)",
                  syn->kids[0]->name);
    return 0;
}

/* ------------------------------------------------------------------ */
/* running a def-const-vec                                             */

/* (declare (use A B ...) (max-steps N)) at the top of def-const-vec S.
 * Returns the index of the first body form, or -1 after an error. */
static int body_decls(Checker *ck, Sym *s, CtBody *ct, long *max_steps) {
    Node *form = sym_rare(s)->init;
    int i = 2;
    for (; i < form->nkids && syn_is_form(form->kids[i], "declare"); i++) {
        Node *d = form->kids[i];
        for (int j = 1; j < d->nkids; j++) {
            Node *e = d->kids[j];
            if (syn_is_form(e, "max-steps")) {
                Ctx tmp = {.ck = ck};
                int64_t n;
                if (e->nkids != 2 || !ck_const_syn_int(&tmp, e->kids[1], &n) || n < 1 || n > CE_MAX_STEPS) {
                    diag_error_at(ck->d, e, CV_E_FORM, "expected (max-steps N) with N a number of steps from 1 to %ld", CE_MAX_STEPS);
                    return -1;
                }
                long cap = ck->c->opt->max_consteval_steps; /* the embedding program's cap (the fuzzer's) */
                *max_steps = cap > 0 && n > cap ? cap : (long)n;
                continue;
            }
            if (!syn_is_form(e, "use")) {
                diag_warning_at(ck->d, e, "W0302", "unknown declaration `%s` ignored", syn_to_string(ck->a, e, 40));
                continue;
            }
            for (int k = 1; k < e->nkids; k++) {
                Node *nm = e->kids[k];
                Sym *u = nm->kind == N_SYMBOL ? ck_global_lookup(ck, nm->key) : NULL;
                const char *shown = syn_to_string(ck->a, nm, 40);
                if (!u || u->kind != SYM_CONSTVEC) {
                    diag_error_at(ck->d, nm, CV_E_USE, "(use %s): no def-const-vec named `%s` is defined", shown, shown);
                    return -1;
                }
                if (u == s || !u->cv_done) {
                    diag_error_at(ck->d, nm, CV_E_USE,
                                  "(use %s): `%s` must be defined before `%s` (a def-const-vec can only use earlier ones)", u->name,
                                  u->name, s->name);
                    return -1;
                }
                if (!sym_rare(u)->cvec) return -1; /* it failed and was reported */
                arena_push(ck->a, (void ***)&ct->uses, &ct->nuses, &ct->capuses, u);
            }
        }
    }
    return i;
}

/* The vector the run returned, as the const-vec's values. */
static ConstVec *result(Checker *ck, Sym *s, const CeVal *v) {
    const Node *form = sym_rare(s)->init;
    if (v->k != CE_PTR || !v->obj) {
        diag_error_at(ck->d, form, CV_E_RESULT, "def-const-vec `%s` must return a vector, but its body returns no value", s->name);
        return NULL;
    }
    Type *et = v->ty->elem;
    int64_t n = v->len;
    if (!elem_ok(et)) {
        diag_error_at(ck->d, form, CV_E_SIZE, "def-const-vec elements must be integer, float or double scalars, found `%s`",
                      ty_name(ck->a, et));
        return NULL;
    }
    if (n < 1) {
        diag_error_at(ck->d, form, CV_E_SIZE, "def-const-vec `%s` returns an empty view; a const-vec needs 1 or more elements", s->name);
        return NULL;
    }
    int sz = ty_sizeof(et);
    int64_t span;
    if (v->off < 0 || __builtin_mul_overflow(n, (int64_t)sz, &span) || span > v->obj->nbytes - v->off) {
        diag_error_at(ck->d, form, CV_E_EVAL, "the returned view: a view of length %lld at byte %lld reaches past the end of its parent (%lld bytes)",
                      (long long)n, (long long)v->off, (long long)v->obj->nbytes);
        return NULL;
    }
    ConstVec *cv = arena_alloc(ck->a, sizeof *cv);
    if (!cv) return NULL;
    cv->name = s->name;
    cv->def = form;
    cv->ty = ty_vector(ck->a, et, AS_CONSTANT, ACC_READ_ONLY, AL_COMPACT, n);
    if (ty_is_float(et)) cv->fvals = arena_alloc(ck->a, sizeof(double) * (size_t)n);
    else cv->ivals = arena_alloc(ck->a, sizeof(int64_t) * (size_t)n);
    if (!cv->fvals && !cv->ivals) return NULL;
    for (int64_t i = 0; i < n; i++) {
        CeVal e;
        if (!ce_element(v, i, &e)) return NULL;
        if (cv->fvals) cv->fvals[i] = e.f;
        else cv->ivals[i] = (int64_t)e.u;
    }
    return cv;
}

/* Check the body of def-const-vec S (collected with s->init its form) as a
 * compile-time function, run it, and keep the vector it returns. */
void constvec_eval(Checker *ck, Sym *s) {
    s->cv_done = 1;
    Node *form = sym_rare(s)->init;
    CtBody ct = {.self = s, .form = form};
    long max_steps = ck->c->opt->max_consteval_steps > 0 ? ck->c->opt->max_consteval_steps : CE_DEFAULT_STEPS;
    int first = body_decls(ck, s, &ct, &max_steps);
    if (first < 0) return;
    ct.ret = ty_vector(ck->a, NULL, AS_PRIVATE, ACC_READ_WRITE, AL_COMPACT, -1);
    /* what checking compile-time code may add to the program, taken back
       afterwards: support code and extension flags it alone needed */
    Program *p = ck->prog;
    int nhelpers = p->nhelpers, nsites = p->nsites;
    int fp64 = p->uses_fp64, fp16 = p->uses_fp16, i64 = p->uses_int64_atomics;
    CFunc fn = {.kind = FN_FUNCTION, .name = s->name, .cname = "consteval", .def = form, .ret = ct.ret, .consteval = 1};
    fn.body = syn_new(ck->a, N_C_BLOCK, form->loc);
    Ctx cx = {.ck = ck, .fn = &fn, .block = fn.body, .consteval = 1, .body_owner = form};
    ck_scope_push(&cx);
    int errs = ck->d->errors;
    ck->ct = &ct;
    int visible = ck->x ? expander_enter(ck->x, form) : 0;
    Dest d = {D_RETURN, NULL, NULL};
    ck_body_to(&cx, form->kids + first, form->nkids - first, &d);
    if (ck->x) expander_leave(ck->x, visible);
    ConstVec *cv = NULL;
    if (ck->d->errors == errs && !ck->d->fatal) {
        CeVal v;
        CeObj *objs = NULL;
        const char *what = arena_printf(ck->a, "def-const-vec `%s`", s->name);
        if (ce_run(ck, &fn, what, max_steps, &v, &objs) == CE_DONE) cv = result(ck, s, &v);
        ce_release(objs);
    }
    ck->ct = NULL;
    /* the instances made for the body are its own (each body checks its
       callees again, under its own (use ...)) */
    for (int i = 0; i < ck->nfuncs; i++) {
        FuncDef *fd = ck->funcs[i];
        int k = 0;
        for (int j = 0; j < fd->ninsts; j++)
            if (!fd->insts[j]->consteval) fd->insts[k++] = fd->insts[j];
        fd->ninsts = k;
    }
    p->nhelpers = nhelpers;
    p->nsites = nsites;
    p->uses_fp64 = fp64;
    p->uses_fp16 = fp16;
    p->uses_int64_atomics = i64;
    if (!cv) return;
    if (cv->ty->elem->sc == SC_DOUBLE) p->uses_fp64 = 1;
    sym_rare_w(ck->a, s)->cvec = cv;
    s->ty = cv->ty;
}

/* ------------------------------------------------------------------ */
/* const-vecs in kernel code                                           */

/* Does a kernel/function declare (use KEY)? */
static int declares_use(const FuncDef *fd, const char *key) {
    for (int i = 0; i < fd->ndecls; i++) {
        const Node *d = fd->decls[i];
        for (int j = 1; j < d->nkids; j++)
            if (syn_is_form(d->kids[j], "use"))
                for (int k = 1; k < d->kids[j]->nkids; k++)
                    if (d->kids[j]->kids[k]->kind == N_SYMBOL && syn_streq(d->kids[j]->kids[k]->key, key)) return 1;
    }
    return 0;
}

static void note_use(Ctx *cx, Sym *s) {
    CFunc *fn = cx->fn;
    for (int i = 0; i < cfunc_rare(fn)->ncvuses; i++)
        if (cfunc_rare(fn)->cvuses[i] == s) return;
    CFuncRare *r = cfunc_rare_w(cx->ck->a, fn);
    arena_push(cx->ck->a, (void ***)&r->cvuses, &r->ncvuses, &r->capcvuses, s);
}

/* Is const-vec s readable here?  The kernel at the root of the call chain
 * must declare (use s).  Reports at `at` and returns 0 when not. */
static int use_ok(Ctx *cx, const Node *at, Sym *s, const char *via) {
    Checker *ck = cx->ck;
    FuncDef *root = ck->nstack ? ck->stack[0] : NULL;
    if (!root || root->kind != FN_KERNEL || declares_use(root, s->key)) return 1;
    if (via)
        diag_error_at(ck->d, at, CV_E_NOUSE,
                      "kernel `%s` calls `%s`, which reads the const-vec `%s`, but the kernel does not declare it: add (declare (use %s))",
                      root->name, via, s->name, s->name);
    else if (cx->fn->kind != FN_KERNEL)
        diag_error_at(ck->d, at, CV_E_NOUSE,
                      "`%s` reads the const-vec `%s`, but kernel `%s`, which calls it, does not declare it: add (declare (use %s)) to the kernel",
                      cx->fn->name, s->name, root->name, s->name);
    else
        diag_error_at(ck->d, at, CV_E_NOUSE,
                      "kernel `%s` reads the const-vec `%s` without declaring it: add (declare (use %s)) to the kernel",
                      root->name, s->name, s->name);
    return 0;
}

/* A const-vec named in code: a reference to the __constant array.  In
 * code run at compile time (a def-const-vec body and the functions it
 * calls) the def-const-vec must have declared it. */
Node *constvec_ref(Ctx *cx, Node *syn, Sym *s) {
    CtBody *ct = cx->ck->ct;
    if (ct) {
        int used = 0;
        for (int i = 0; i < ct->nuses; i++) used |= ct->uses[i] == s;
        if (s == ct->self)
            diag_error_at(D(cx), syn, CV_E_USE, "def-const-vec `%s` cannot read itself while it is being computed", s->name);
        else if (!used)
            diag_error_at(D(cx), syn, CV_E_NOUSE, "def-const-vec `%s` reads the const-vec `%s` without declaring it: add (declare (use %s))",
                          ct->self->name, s->name, s->name);
        return used && sym_rare(s)->cvec ? ck_var_ref(cx, syn, s) : NULL;
    }
    if (!sym_rare(s)->cvec) return NULL; /* its body failed and was reported */
    if (!use_ok(cx, syn, s, NULL)) return NULL;
    note_use(cx, s);
    return ck_var_ref(cx, syn, s);
}

/* After a call to function instance f: the caller reads what f reads.  A
 * reused instance was checked under another kernel, so check it again. */
void constvec_call(Ctx *cx, CFunc *f, const Node *call, int reused) {
    if (cx->ck->ct) return; /* compile-time code: constvec_ref checked each read */
    for (int i = 0; i < cfunc_rare(f)->ncvuses; i++) {
        if (reused && !use_ok(cx, call, cfunc_rare(f)->cvuses[i], f->name)) return;
        note_use(cx, cfunc_rare(f)->cvuses[i]);
    }
}

/* (declare (use NAME...)) in a kernel or function: every NAME a def-const-vec. */
void constvec_decl(Ctx *cx, Node *e) {
    for (int k = 1; k < e->nkids; k++) {
        Node *nm = e->kids[k];
        Sym *s = nm->kind == N_SYMBOL ? ck_global_lookup(cx->ck, nm->key) : NULL;
        if (!s || s->kind != SYM_CONSTVEC)
            diag_error_at(cx->ck->d, nm, CV_E_USE, "(use %s): no def-const-vec named `%s` is defined",
                          syn_to_string(cx->ck->a, nm, 40), syn_to_string(cx->ck->a, nm, 40));
    }
}

/* Writing to a const-vec, or (in a compile-time body) to a view of one. */
void constvec_write_error(Ctx *cx, const Node *at, Sym *s) {
    if (s->kind == SYM_CONSTVEC)
        diag_error_at(cx->ck->d, at, CV_E_WRITE, "cannot write to the const-vec `%s`: const-vecs are read-only", s->name);
    else
        diag_error_at(cx->ck->d, at, CV_E_WRITE, "cannot write to `%s`: it looks into a const-vec, and const-vecs are read-only",
                      s->name);
}
