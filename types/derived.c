/* derived.c - derived vector, vector-view, soa and tensor-view types.
 *
 * Spec "Derived Types" (def-derived-type, make-XXXX, as-XXXX, is-XXXX?) and
 * the INDECES' `as-derived` / `as-original`.  A type derived from a vector,
 * vector-view, soa-vector, soa-view or tensor-view type is the same type
 * with a name of its own (Type.tag, resolved in typeexpr.c): the same C
 * variables, no copy, but overloads tell it apart and its :subst decides
 * where it may stand for its original (ck_vector_tag_fit in structs.c).
 * Derived struct types are in structs.c; this file makes and casts the
 * vector ones, and holds the two generic casts for both kinds. */
#include <string.h>

#include "check_int.h"

static Diag *D(Ctx *cx) {
    return cx->ck->d;
}

/* The derived vector type NAME (a def-derived-type of a vector, view, soa
 * or tensor-view type), or NULL when NAME is something else. */
Type *ck_derived_vector_type(Ctx *cx, const Node *at, const char *name) {
    Sym *st = ck_global_lookup(cx->ck, name);
    if (!st || st->kind != SYM_TYPE || !sym_rare(st)->type_syn || !syn_is_form(sym_rare(st)->type_syn, "def-derived-type") ||
        (st->ty && st->ty->kind != TY_VECTOR))
        return NULL;
    Type *t = ck_type_expr(cx->ck, syn_symbol(cx->ck->a, at->loc, st->name));
    return t && t->kind == TY_VECTOR && t->tag ? t : NULL;
}

/* Why a vector of type AT is not one the derived type DT names (its
 * element type, address space... where DT gives them), or NULL. */
static const char *parts_differ(const Type *dt, const Type *at) {
    return dt->soa != at->soa                              ? (dt->soa ? "it is not a soa-vector" : "it is a soa-vector")
           : dt->ndims && dt->ndims != TY_ANY_RANK && dt->ndims != at->ndims ? "the number of dimensions differs"
           : !dt->ndims && at->ndims                       ? "it is a tensor-view"
           : dt->elem && !ty_equal(dt->elem, at->elem)     ? "element types differ"
           : dt->as && dt->as != at->as                    ? "address spaces differ"
           : dt->acc && dt->acc != at->acc                 ? "access differs"
           : dt->align && dt->align != at->align           ? "alignments differ"
           : dt->length >= 0 && dt->length != at->length   ? "lengths differ"
                                                           : NULL;
}

/* The vector variable S seen under the derived type name TAG (NULL: its
 * original): another name for the same C variables. */
static Node *retagged(Ctx *cx, const Node *at, const Sym *s, const char *tag, int subst) {
    Sym *v = arena_alloc(cx->ck->a, sizeof *v);
    Type *ty = arena_alloc(cx->ck->a, sizeof *ty);
    if (!v || !ty) return NULL;
    *ty = *s->ty;
    ty->tag = tag;
    ty->tag_subst = tag ? subst : 0;
    *v = *s;
    v->ty = ty;
    sym_rare_unshare(cx->ck->a, v);
    return ck_var_ref(cx, at, v);
}

/* The vector variable SYN names (a vector, view, soa or tensor-view). */
static Sym *vector_var(Ctx *cx, Node *syn, const char *what) {
    Node *v = ck_expr(cx, syn, NULL);
    if (!v) return NULL;
    if (v->kind != N_C_VAR || !v->ty || v->ty->kind != TY_VECTOR) {
        diag_error_at(D(cx), syn, "E0166", "`%s` casts a vector value between a derived type and its original, found `%s`", what,
                      ck_tname(cx, v->ty));
        return NULL;
    }
    return v->sym;
}

/* (as-NAME V) for a derived vector type NAME: V, a vector of NAME's
 * original type (or already a NAME), typed NAME. */
Node *ck_derived_vector_as(Ctx *cx, Node *syn, Type *dt) {
    if (dt->ndims) return ck_tensor_as_derived(cx, syn, dt); /* tensors.c: the same, with a tensor operand */
    if (syn->nkids != 2) {
        diag_error_at(D(cx), syn, "E0370", "`%s` takes one argument, found %d", syn_head(syn), syn->nkids - 1);
        return NULL;
    }
    Sym *s = vector_var(cx, syn->kids[1], syn_head(syn));
    if (!s) return NULL;
    if (s->ty->tag && strcmp(s->ty->tag, dt->tag)) {
        diag_error_at(D(cx), syn, "E0166", "`%s` casts a `%s`'s original to it, but `%s` is the derived type `%s`; cast it with (as-original %s) first",
                      syn_head(syn), dt->tag, s->name, s->ty->tag, s->name);
        return NULL;
    }
    const char *why = parts_differ(dt, s->ty);
    if (why) {
        diag_error_at(D(cx), syn, "E0548", "`%s` is not a `%s` (`%s`): %s", s->name, dt->tag, ck_tname(cx, s->ty), why);
        return NULL;
    }
    return retagged(cx, syn, s, dt->tag, dt->tag_subst);
}

/* (as-original X) - INDECES: a value of a derived type as its original
 * type: a derived (or set-derived) struct as the struct it derives from, a
 * derived vector, view, soa or tensor-view as the same data untyped by the
 * derived name.  The original needs no name of its own, so this is how a
 * `(vector-type float :global)` is reached. */
static Node *as_original(Ctx *cx, Node *syn) {
    if (syn->nkids != 2) {
        diag_error_at(D(cx), syn, "E0370", "`as-original` takes one argument, found %d", syn->nkids - 1);
        return NULL;
    }
    Node *v = ck_expr(cx, syn->kids[1], NULL);
    if (!v) return NULL;
    if (v->ty && v->ty->kind == TY_VECTOR && v->kind == N_C_VAR && v->ty->tag) return retagged(cx, syn, v->sym, NULL, 0);
    if (v->ty && v->ty->kind == TY_STRUCT && ck_struct_resolve(cx->ck, v->ty->sd) && v->ty->sd->derived_from)
        return ck_struct_as(cx, v, v->ty->sd->derived_from->type, syn);
    diag_error_at(D(cx), syn, "E0166", "`as-original` takes a value of a derived type, found `%s`", ck_tname(cx, v ? v->ty : NULL));
    return NULL;
}

/* (as-ALIAS V) for a vector type alias ALIAS (spec "as-XXXX": the cast to
 * the original, when the original has a name): V, of a type derived from
 * ALIAS's type or of that type itself, as the plain vector. */
static Node *as_original_alias(Ctx *cx, Node *syn, const Type *ot) {
    if (syn->nkids != 2) {
        diag_error_at(D(cx), syn, "E0370", "`%s` takes one argument, found %d", syn_head(syn), syn->nkids - 1);
        return NULL;
    }
    Sym *s = vector_var(cx, syn->kids[1], syn_head(syn));
    if (!s) return NULL;
    const char *why = parts_differ(ot, s->ty);
    if (why) {
        diag_error_at(D(cx), syn, "E0166", "`%s` casts to `%s`, but `%s` (`%s`) is not of that type: %s", syn_head(syn), syn_head(syn) + 3,
                      s->name, ck_tname(cx, s->ty), why);
        return NULL;
    }
    return retagged(cx, syn, s, NULL, 0);
}

/* (as-derived NAME X) - INDECES: (as-NAME X) for the derived type NAME. */
static Node *as_derived(Ctx *cx, Node *syn) {
    if (syn->nkids != 3 || syn->kids[1]->kind != N_SYMBOL) {
        diag_error_at(D(cx), syn, "E0370", "expected (as-derived DERIVED-TYPE-NAME value), found `%s`", syn_to_string(cx->ck->a, syn, 40));
        return NULL;
    }
    Node *name = syn->kids[1];
    Type *dt = ck_derived_vector_type(cx, name, name->key);
    Sym *st = dt ? NULL : ck_global_lookup(cx->ck, name->key);
    if (!dt && !(st && st->kind == SYM_TYPE && st->ty && st->ty->kind == TY_STRUCT && ck_struct_resolve(cx->ck, st->ty->sd) &&
                 st->ty->sd->derived_from)) {
        diag_error_at(D(cx), name, "E0168", "`as-derived` needs a type made by def-derived-type or set-derived, found `%s`", name->name);
        return NULL;
    }
    Node *kids[2] = {syn_symbol(cx->ck->a, syn->kids[0]->loc, arena_printf(cx->ck->a, "as-%s", name->name)), syn->kids[2]};
    Node *call = syn_list(cx->ck->a, syn->loc, kids, 2);
    if (!call) return NULL;
    call->origin = syn->origin;
    return ck_expr(cx, call, NULL);
}

/* (make-NAME ARGS...) for a derived vector type NAME: the form that makes
 * its original (make-vector, make-vector-view, make-soa-vector,
 * make-soa-view, make-tensor-view) with the same arguments; for
 * make-vector and make-soa-vector the leading element or vector type may be
 * left out, the original type stands in (`(make-celsius-vec 8)`).  *DT is
 * the derived type.  NULL when INIT is not such a call. */
Node *ck_derived_make_syntax(Ctx *cx, const Node *init, Type **dt) {
    const char *h = syn_head(init);
    if (!h || strncmp(h, "make-", 5) || !h[5]) return NULL;
    Type *t = ck_derived_vector_type(cx, init, h + 5);
    if (!t) return NULL;
    const char *mk = t->soa ? (t->view ? "make-soa-view" : "make-soa-vector")
                     : t->ndims ? "make-tensor-view"
                     : t->view  ? "make-vector-view"
                                : "make-vector";
    Sym *st = ck_global_lookup(cx->ck, h + 5);
    int allocates = !t->view && !t->ndims;
    int typed = 0;
    if (init->nkids > 1) {
        Node *a = init->kids[1];
        const char *ah = a->kind == N_SYMBOL ? a->key : syn_head(a);
        Sym *as = ah ? ck_global_lookup(cx->ck, ah) : NULL;
        typed = (a->kind == N_SYMBOL && ty_lookup_base(a->key)) || (as && as->kind == SYM_TYPE) ||
                (ah && a->kind == N_LIST && strlen(ah) > 5 && !strcmp(ah + strlen(ah) - 5, "-type"));
    }
    int add = allocates && !typed && sym_rare(st)->type_syn->nkids > 2;
    Node **k = arena_alloc(cx->ck->a, sizeof(Node *) * (size_t)(init->nkids + 1));
    if (!k) return NULL;
    int n = 0;
    k[n++] = syn_symbol(cx->ck->a, init->kids[0]->loc, mk);
    if (add) k[n++] = sym_rare(st)->type_syn->kids[2]; /* the original type */
    for (int i = 1; i < init->nkids; i++) k[n++] = init->kids[i];
    Node *r = syn_list(cx->ck->a, init->loc, k, n);
    if (r) r->origin = init->origin;
    *dt = t;
    return r;
}

/* The vector S (just made by DT's make- form at AT) typed DT. */
int ck_derived_make_retag(Ctx *cx, const Node *at, Sym *s, Type *dt) {
    const char *why = parts_differ(dt, s->ty);
    if (why) {
        diag_error_at(D(cx), at, "E0548", "`%s` made a `%s`, not a `%s`: %s", syn_head(at), ck_tname(cx, s->ty), dt->tag, why);
        return 0;
    }
    Type *ty = arena_alloc(cx->ck->a, sizeof *ty);
    if (!ty) return 0;
    *ty = *s->ty;
    ty->tag = dt->tag;
    ty->tag_subst = dt->tag_subst;
    s->ty = ty;
    return 1;
}

/* The forms of this file in an expression: as-original, as-derived,
 * as-NAME and make-NAME of derived vector types.  *HANDLED is set when SYN
 * is one. */
Node *ck_derived_form(Ctx *cx, Node *syn, int *handled) {
    const char *h = syn_head(syn);
    *handled = 0;
    if (!h || ck_func_lookup(cx->ck, h) || ck_template_lookup(cx->ck, h)) return NULL; /* a program's own definition wins */
    if (syn_streq(h, "as-original") && !ck_global_lookup(cx->ck, "original")) return *handled = 1, as_original(cx, syn);
    if (syn_streq(h, "as-derived") && !ck_global_lookup(cx->ck, "derived")) return *handled = 1, as_derived(cx, syn);
    if (!strncmp(h, "as-", 3)) {
        Type *dt = ck_derived_vector_type(cx, syn, h + 3);
        if (dt) return *handled = 1, ck_derived_vector_as(cx, syn, dt);
        Sym *st = ck_global_lookup(cx->ck, h + 3);
        if (st && st->kind == SYM_TYPE && sym_rare(st)->type_syn && (!st->ty || st->ty->kind == TY_VECTOR)) {
            /* (as-ALIAS V): as-<original> where the original is a vector type alias */
            Type *ot = ck_type_expr(cx->ck, syn_symbol(cx->ck->a, syn->loc, st->name));
            if (ot && ot->kind == TY_VECTOR && !ot->tag) return *handled = 1, as_original_alias(cx, syn, ot);
        }
        return NULL;
    }
    Type *dt = NULL;
    Node *mk = ck_derived_make_syntax(cx, syn, &dt);
    if (!mk) return NULL;
    *handled = 1;
    if ((!dt->view && !dt->ndims) || dt->soa) {
        diag_error_at(D(cx), syn, "E0409", "`%s` allocates a vector: bind it with let, (let ((v (%s ...))) ...)", h, h);
        return NULL;
    }
    Node *v = ck_expr(cx, mk, NULL);
    if (!v) return NULL;
    if (v->kind != N_C_VAR || !v->ty || v->ty->kind != TY_VECTOR) {
        diag_error_at(D(cx), syn, "E0409", "expected a vector value, found `%s`", ck_tname(cx, v->ty));
        return NULL;
    }
    /* the view was made for this call: typed NAME in place, so a let
       binding gives it its own C name (check.c form_let) */
    return ck_derived_make_retag(cx, syn, v->sym, dt) ? ck_var_ref(cx, syn, v->sym) : NULL;
}

/* A let variable S, just made another name for a vector value, declared
 * DECLARED (`c:celsius-vec`, (declare (type c celsius-vec))): it takes the
 * declared derived type, or the original when declared plain, where the
 * derived type's :subst allows (E0167 otherwise). */
int ck_derived_bind_declared(Ctx *cx, const Node *at, Sym *s, const Type *declared) {
    if (!declared || declared->kind != TY_VECTOR || !s->ty || s->ty->kind != TY_VECTOR) return 1;
    if (!ck_vector_tag_fit(s->ty, declared)) {
        const Type *dt = declared->tag ? declared : s->ty;
        static const char *mode[4] = {":no", ":equal", ":pass-orig", ":pass-derived"};
        diag_error_at(D(cx), at, "E0167", "cannot bind `%s` (`%s`) to a variable declared `%s`: `%s` is a derived type with :subst %s; cast with (as-%s ...)",
                      syn_to_string(cx->ck->a, at, 30), ck_tname(cx, s->ty), ck_tname(cx, declared), dt->tag, mode[dt->tag_subst & 3],
                      declared->tag ? declared->tag : "original");
        return 0;
    }
    if (s->ty->tag == declared->tag || (s->ty->tag && declared->tag && syn_streq(s->ty->tag, declared->tag))) return 1;
    Type *ty = arena_alloc(cx->ck->a, sizeof *ty);
    if (!ty) return 0;
    *ty = *s->ty;
    ty->tag = declared->tag;
    ty->tag_subst = declared->tag_subst;
    s->ty = ty;
    return 1;
}
