/* check_views.c - vector-views, reinterpret-view, make-vector, %zero and
 * or-else.
 *
 * Why it exists: a view is a window on a vector (its pointer, offset and
 * length as variables of their own) and its forms name those variables;
 * split out of check_expr.c by form family (issue 16).  Spec sections
 * "Vectors and Vector-View" and "Creating Vectors". */
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

/* ---- vector-views (spec "Vectors and Vector-View", "Creating Vectors") ---- */

/* A pointer-and-length vector variable NAME of type TY (a view, a side
 * channel, a marshalled vector) with its length variable NAME_len; declared
 * by ck_view_decl. */
Sym *ck_view_var(Ctx *cx, const Node *at, const char *name, Type *ty) {
    Sym *v = ck_new_local(cx, at, name, ty);
    Sym *l = v ? ck_new_local(cx, at, ck_name_join(cx->ck, v->cname, "len"), ty_num(SC_ULONG)) : NULL;
    if (!l) return NULL;
    v->is_view = 1;
    sym_rare_w(cx->ck->a, v)->len_sym = l;
    v->len_cname = l->cname;
    return v;
}

/* Declare ck_view_var V: `T *v = (T *)PTR; ulong v_len = LEN;`. */
Sym *ck_view_decl(Ctx *cx, const Node *at, Sym *v, Node *ptr, Node *len) {
    Node *cast = ck_mk1(cx, N_C_CAST, at, v->ty, ptr);
    Node *d = ck_mk(cx, N_C_DECL, at, v->ty, 2);
    if (!d || !cast) return NULL;
    d->sym = v;
    d->kids[0] = cast;
    d->kids[1] = len;
    d->nkids = 2;
    ck_emit_stmt(cx, d);
    return v;
}

/* A vector-view variable: its own pointer (to the root's data), offset and
 * length. */
Sym *ck_new_view(Ctx *cx, Node *syn, const char *name, Type *ty, Node *ptr, Node *off, Node *len) {
    Type *ul = ty_num(SC_ULONG);
    Sym *v = ck_view_var(cx, syn, name, ty);
    Sym *o = v ? ck_new_local(cx, syn, ck_name_join(cx->ck, v->cname, "off"), ul) : NULL;
    if (!o) return NULL;
    sym_rare_w(cx->ck->a, v)->off_sym = o;
    Node *od = ck_mk(cx, N_C_DECL, syn, ul, 1);
    if (!od) return NULL;
    od->sym = o;
    od->kids[0] = off;
    od->nkids = 1;
    ck_emit_stmt(cx, od);
    return ck_view_decl(cx, syn, v, ptr, len);
}

Node *ck_ulong_arg(Ctx *cx, Node *syn, const char *what) {
    Node *n = ck_expr(cx, syn, ty_num(SC_ULONG));
    if (n) n = ck_coerce(cx, n, ty_num(SC_ULONG), syn, what);
    return n;
}

/* (make-vector-view PARENT LENGTH [OFFSET]): a view of PARENT's elements
 * [OFFSET, OFFSET + LENGTH).  A view of a view is a view of its root, with
 * the offsets added. */
Node *cx_make_view(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!ck_nargs_ok(cx, syn, 2, 3)) return NULL;
    Sym *p = ck_vector_operand(cx, syn->kids[1], "make-vector-view");
    if (!p) return NULL;
    Node *len = ck_ulong_arg(cx, syn->kids[2], "view length");
    Node *off = syn->nkids > 3 ? ck_ulong_arg(cx, syn->kids[3], "view offset") : ck_int_lit(cx, syn, 0, ty_num(SC_ULONG));
    if (!len || !off) return NULL;
    if (sym_rare(p)->off_sym) off = ck_mk2(cx, N_C_BINARY, syn, ty_num(SC_ULONG), OP_ADD, ck_var_ref(cx, syn, sym_rare(p)->off_sym), off);
    Type *t = ty_vector(cx->ck->a, p->ty->elem, p->ty->as, p->ty->acc, p->ty->align, -1);
    t->view = 1;
    Sym *v = ck_new_view(cx, syn, cx->bind_hint ? cx->bind_hint : "view", t, ck_var_ref(cx, syn, p), off, len);
    if (v) v->write_only = p->write_only;
    return v ? ck_var_ref(cx, syn, v) : NULL;
}

/* (set! (parent~ VIEW) VECTOR): the view now looks into VECTOR. */
Node *cx_view_set_parent(Ctx *cx, Node *place_syn, Node *value) {
    if (place_syn->nkids != 2) {
        diag_error_at(D(cx), place_syn, "E0498", "`%s` must name one view: (set! (parent~ VIEW) VECTOR)",
                      syn_to_string(cx->ck->a, place_syn, 30));
        return NULL;
    }
    Node *v = ck_expr(cx, place_syn->kids[1], NULL);
    if (!v) return NULL;
    if (v->ty->kind != TY_VECTOR || v->kind != N_C_VAR || !sym_rare(v->sym)->off_sym) {
        diag_error_at(D(cx), place_syn, "E0498", "only a vector-view's parent~ can be set, `%s` is `%s`",
                      syn_to_string(cx->ck->a, place_syn->kids[1], 30), ck_tname(cx, v->ty));
        return NULL;
    }
    Sym *p = ck_vector_operand(cx, value, "parent~");
    if (!p) return NULL;
    if (!ty_equal(p->ty->elem, v->ty->elem) || p->ty->as != v->ty->as) {
        diag_error_at(D(cx), value, "E0499", "the new parent of `%s` must hold `%s` in %s memory, found `%s`", v->sym->name,
                      ck_tname(cx, v->ty->elem), ty_as_name(v->ty->as), ck_tname(cx, p->ty));
        return NULL;
    }
    Node *a = ck_mk2(cx, N_C_ASSIGN, place_syn, v->ty, OP_SET, ck_var_ref(cx, place_syn, v->sym), ck_var_ref(cx, place_syn, p));
    if (sym_rare(p)->off_sym) {
        ck_emit_stmt(cx, ck_mk1(cx, N_C_EXPR, place_syn, &ty_void, a));
        a = ck_mk2(cx, N_C_ASSIGN, place_syn, ty_num(SC_ULONG), OP_SET, ck_var_ref(cx, place_syn, sym_rare(v->sym)->off_sym),
                ck_var_ref(cx, place_syn, sym_rare(p)->off_sym));
    }
    return a;
}

/* (reinterpret-view SOURCE TYPE &key length offset): the same bytes seen
 * as TYPE elements; the length defaults to what fits. */
Node *cx_reinterpret(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (syn->nkids < 3) {
        ck_nargs_ok(cx, syn, 2, 6);
        return NULL;
    }
    Sym *src = ck_vector_operand(cx, syn->kids[1], "reinterpret-view");
    if (!src) return NULL;
    Node *tn = syn->kids[2];
    if (syn_is_form(tn, "quote") && tn->nkids == 2) tn = tn->kids[1];
    Type *et = ck_type_expr(cx->ck, tn);
    if (!et) return NULL;
    if (cx->consteval && !constvec_reinterpret_ok(cx, tn, et)) return NULL;
    Type *st = src->ty->elem;
    if (st->kind == TY_STRUCT || et->kind == TY_STRUCT || !(ty_is_arith(et))) {
        diag_error_at(D(cx), syn, "E0447", "reinterpret-view works on numbers and hardware vectors, not `%s` as `%s`", ck_tname(cx, st),
                      ck_tname(cx, et));
        return NULL;
    }
    if (src->ty->align == AL_STD140 && ty_std140_align(st) != ty_std140_align(et)) {
        diag_error_at(D(cx), syn, "E0448", "a :std140 vector of `%s` (base alignment %d) cannot be seen as `%s` (base alignment %d)",
                      ck_tname(cx, st), ty_std140_align(st), ck_tname(cx, et), ty_std140_align(et));
        return NULL;
    }
    Node *len = NULL, *off = ck_int_lit(cx, syn, 0, ty_num(SC_ULONG));
    for (int i = 3; i + 1 < syn->nkids; i += 2) {
        Node *k = syn->kids[i];
        if (syn_is_kw(k, "length")) len = ck_ulong_arg(cx, syn->kids[i + 1], "view length");
        else if (syn_is_kw(k, "offset")) off = ck_ulong_arg(cx, syn->kids[i + 1], "view offset");
        else {
            diag_error_at(D(cx), k, "E0449", "reinterpret-view takes :length and :offset, found `%s`", syn_to_string(cx->ck->a, k, 20));
            return NULL;
        }
        if (!len && syn_is_kw(k, "length")) return NULL;
    }
    int sst = ty_vector_stride(st, src->ty->align), nst = ty_vector_stride(et, src->ty->align);
    Node *base = ck_var_ref(cx, syn, src);
    if (sym_rare(src)->off_sym) base = ck_mk2(cx, N_C_BINARY, syn, src->ty, OP_ADD, base, ck_var_ref(cx, syn, sym_rare(src)->off_sym));
    if (!len) {
        /* what fits: length * source stride / new stride */
        Node *bytes = ck_mk2(cx, N_C_BINARY, syn, ty_num(SC_ULONG), OP_MUL, cx_length_of(cx, syn, src), ck_int_lit(cx, syn, sst, ty_num(SC_ULONG)));
        len = ck_mk2(cx, N_C_BINARY, syn, ty_num(SC_ULONG), OP_DIV, bytes, ck_int_lit(cx, syn, nst, ty_num(SC_ULONG)));
    }
    Type *t = ty_vector(cx->ck->a, et, src->ty->as, src->ty->acc, src->ty->align, -1);
    t->view = 1;
    Sym *v = ck_new_view(cx, syn, cx->bind_hint ? cx->bind_hint : "view", t, base, off, len);
    if (v) v->write_only = src->write_only;
    return v ? ck_var_ref(cx, syn, v) : NULL;
}

/* (%zero): a zero of the type the context wants (maybe error values) */
Node *cx_zero(Ctx *cx, Node *syn, Type *want) {
    if (want && want->kind == TY_ENUM) return ck_int_lit(cx, syn, want->ed->values[0], want);
    if (want && want->kind == TY_BOOL) return cx_bool_lit(cx, syn, 0);
    Node *z = ck_int_lit(cx, syn, 0, want && ty_is_arith(want) ? want : ty_num(SC_INT));
    z->op = LIT_FLEX_INT;
    return z;
}

/* (or-else MAYBE-EXPR FALLBACK): the maybe's value, or FALLBACK when it
 * failed (spec "Guard: or-else"). */
Node *cx_or_else(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!ck_nargs_ok(cx, syn, 2, 2)) return NULL;
    Node *vals[2];
    if (!cx_mv_values(cx, syn->kids[1], 2, vals, 0)) return NULL;
    Node *fb = ck_expr(cx, syn->kids[2], vals[1]->ty);
    if (fb) fb = ck_coerce(cx, fb, vals[1]->ty, syn->kids[2], "or-else fallback");
    if (!fb) return NULL;
    Node *s = ck_mk(cx, N_C_SELECT, syn, vals[1]->ty, 3);
    if (!s) return NULL;
    s->kids[0] = vals[0];
    s->kids[1] = vals[1];
    s->kids[2] = fb;
    s->nkids = 3;
    return s;
}

Node *cx_make_vector(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    diag_error_at(D(cx), syn, "E0445", "bind make-vector with let: (let ((v (make-vector ...))) ...)");
    return NULL;
}
