/* typeexpr.c - turning type expressions into Types.
 *
 * Spec sections "Declaring Types - Functions", "Vector Types" (simplest,
 * optional and key forms), "Type Aliases and Type Constructors".  Access and
 * address-space keywords are accepted in every spelling the spec uses
 * (:read-only/:read_only/:readable, :writable/:writeable, ...). */
#include <string.h>

#include "../core/suggest.h"
#include "check_int.h"

AddrSpace ck_as_keyword(const char *key) {
    if (syn_streq(key, "global")) return AS_GLOBAL;
    if (syn_streq(key, "local")) return AS_LOCAL;
    if (syn_streq(key, "constant")) return AS_CONSTANT;
    if (syn_streq(key, "private")) return AS_PRIVATE;
    return AS_NONE;
}

/* :readable is read-only and :writable/:writeable read-write: the hoisting
 * code can only express the three OpenCL access qualifiers (docs/language.md). */
Access ck_acc_keyword(const char *key) {
    if (syn_streq(key, "read-only") || syn_streq(key, "read_only") || syn_streq(key, "readable"))
        return ACC_READ_ONLY;
    if (syn_streq(key, "write-only") || syn_streq(key, "write_only")) return ACC_WRITE_ONLY;
    if (syn_streq(key, "read-write") || syn_streq(key, "read_write") || syn_streq(key, "writable") ||
        syn_streq(key, "writeable"))
        return ACC_READ_WRITE;
    return ACC_NONE;
}

Align ck_align_keyword(const char *key) {
    if (syn_streq(key, "std140")) return AL_STD140;
    if (syn_streq(key, "compact")) return AL_COMPACT;
    return AL_NONE;
}

static Type *alias_type(Checker *ck, Sym *s, Node *at) {
    if (s->ty && s->ty->kind == TY_STRUCT) return ck_struct_resolve(ck, s->ty->sd) ? s->ty : NULL;
    if (s->ty) return s->ty;
    if (s->resolving < 0) return NULL; /* already reported */
    if (s->resolving) {
        diag_error_at(ck->d, at, "E0903", "type alias `%s` is defined in terms of itself", s->name);
        s->resolving = -1;
        return NULL;
    }
    s->resolving = 1;
    int saved = ck->allow_incomplete;
    ck->allow_incomplete = 1; /* checked where the alias is used */
    Type *t = ck_type_expr(ck, sym_rare(s)->type_syn);
    ck->allow_incomplete = saved;
    if (s->resolving > 0) s->resolving = t ? 0 : -1;
    s->ty = t;
    return t;
}

static int elem_ok(Checker *ck, Type *t, Node *at) {
    if (!t) return 0;
    if (t->kind == TY_NUM || t->kind == TY_HWVEC) {
        if (t->sc == SC_BFLOAT16) {
            diag_error_at(ck->d, at, "E0905",
                          "`bfloat16` is not available in OpenCL C (no OpenCL C version has a bfloat16 type); use `half` or `float`");
            return 0;
        }
        return 1;
    }
    if (t->kind == TY_STRUCT && t->sd->pattern) {
        diag_error_at(ck->d, at, "E1017", "vector elements must be complete types, found the incomplete `%s`", t->sd->name);
        return 0;
    }
    if (t->kind == TY_STRUCT) return 1;
    diag_error_at(ck->d, at, "E0904", "vector elements must be numbers, hardware vectors or structs, found `%s`",
                  ty_name(ck->a, t));
    return 0;
}

/* Arguments of (vector-type ...), (make-vector ...) and friends:
 *   [ELEMENT] [ADDRESS-SPACE] [ACCESS] [ALIGN] [LENGTH]   (keywords by value)
 *   &key element-type address-space access align length
 * The length must be a compile-time constant; when it is not and
 * allow_len_expr is set, the expression is handed back in *len_expr. */
/* The type of (make-vector ...) or (make-soa-vector ...): the arguments of
 * ck_vector_type_args, optionally preceded by a vector type - an alias name or
 * a type form, spec "Creating Vectors": (make-vector vectorType [length]) -
 * whose properties fill those the arguments leave out.  *BASE receives that
 * type (NULL when there is none; the caller checks its kind). */
Type *ck_make_vector_type(Checker *ck, Node *form, Node **len_expr, Type **base) {
    static const char *forms[] = {"vector-type", "vector", "vector-view-type", "soa-vector-type", "soa-view-type"};
    Node *k = form->nkids > 1 ? form->kids[1] : NULL;
    int typed = 0;
    if (k && k->kind == N_SYMBOL) {
        Sym *a = ck_global_lookup(ck, k->key);
        typed = a && a->kind == SYM_TYPE;
    }
    for (size_t i = 0; k && i < sizeof forms / sizeof *forms; i++) typed |= syn_is_form(k, forms[i]);
    *base = typed ? ck_type_expr(ck, k) : NULL;
    if (typed && !*base) return NULL;
    Type *t = ck_vector_type_args(ck, form, typed ? 2 : 1, 0, len_expr);
    Type *b = *base;
    if (!t || !b || b->kind != TY_VECTOR) return t;
    if (!t->elem) t->elem = b->elem;
    if (!t->as) t->as = b->as;
    if (!t->acc) t->acc = b->acc;
    if (!t->align) t->align = b->align;
    if (t->length < 0) t->length = b->length;
    return t;
}

Type *ck_vector_type_args(Checker *ck, Node *form, int start, int allow_len_expr, Node **len_expr) {
    Type *elem = NULL;
    AddrSpace as = AS_NONE;
    Access acc = ACC_NONE;
    Align al = AL_NONE;
    int64_t len = -1;
    int ok = 1;
    if (len_expr) *len_expr = NULL;
    Ctx tmp = {.ck = ck};
    for (int i = start; i < form->nkids; i++) {
        Node *k = form->kids[i];
        if (k->kind == N_SYMBOL && k->ann && k->ann->kind == N_SYMBOL &&
            (syn_streq(k->key, "address-space") || syn_streq(k->key, "access") || syn_streq(k->key, "align")))
            k = syn_keyword(ck->a, k->loc, k->ann->name); /* address-space:global - spec "Enumerations" */
        if (k->kind == N_KEYWORD) {
            const char *key = k->key;
            int is_key = syn_streq(key, "element-type") || syn_streq(key, "address-space") ||
                         syn_streq(key, "access") || syn_streq(key, "align") || syn_streq(key, "length");
            if (is_key) {
                if (i + 1 >= form->nkids) {
                    diag_error_at(ck->d, k, "E0906", "`:%s` needs a value", key);
                    return NULL;
                }
                Node *v = form->kids[++i];
                const char *vk = v->kind == N_KEYWORD || v->kind == N_SYMBOL ? v->key : "";
                if (syn_streq(key, "element-type")) {
                    if (syn_is_nil(v)) continue; /* left open (incomplete) */
                    elem = v->kind == N_KEYWORD ? ty_lookup_base(vk) : ck_type_expr(ck, v);
                    if (!elem_ok(ck, elem, v)) ok = 0;
                } else if (syn_streq(key, "address-space")) {
                    if (!(as = ck_as_keyword(vk))) {
                        diag_error_at(ck->d, v, "E0907",
                                      "expected an address space (:global, :local, :constant, :private), found `%s`",
                                      syn_to_string(ck->a, v, 40));
                        ok = 0;
                    }
                } else if (syn_streq(key, "access")) {
                    if (!(acc = ck_acc_keyword(vk))) {
                        diag_error_at(ck->d, v, "E0908",
                                      "expected an access (:read-only, :write-only, :read-write, :readable, :writable), found `%s`",
                                      syn_to_string(ck->a, v, 40));
                        ok = 0;
                    }
                } else if (syn_streq(key, "align")) {
                    if (!(al = ck_align_keyword(vk))) {
                        diag_error_at(ck->d, v, "E0909", "expected :std140 or :compact, found `%s`",
                                      syn_to_string(ck->a, v, 40));
                        ok = 0;
                    }
                } else {
                    if (!ck_const_syn_int(&tmp, v, &len)) {
                        if (allow_len_expr && len_expr) *len_expr = v;
                        else {
                            diag_error_at(ck->d, v, "E0910", "vector length must be a compile-time constant");
                            ok = 0;
                        }
                    }
                }
                continue;
            }
            AddrSpace a2 = ck_as_keyword(key);
            Access c2 = ck_acc_keyword(key);
            Align l2 = ck_align_keyword(key);
            if (a2) as = a2;
            else if (c2) acc = c2;
            else if (l2) al = l2;
            else if (!elem && ty_lookup_base(key)) {
                elem = ty_lookup_base(key); /* (vector-type :uchar ...) */
                if (!elem_ok(ck, elem, k)) ok = 0;
            } else {
                diag_error_at(ck->d, k, "E0911",
                              "unexpected `:%s` in vector type: expected an address space, access, alignment or key", key);
                static const char *known[] = {"global", "local", "constant", "private", "read-only", "write-only", "read-write",
                                              "compact", "std140", "element-type", "address-space", "access", "align",
                                              "length", NULL};
                Suggest sg;
                suggest_init(&sg, key);
                for (int j = 0; known[j]; j++) suggest_add(&sg, known[j]);
                if (suggest_best(&sg)) diag_note(ck->d, k->loc, "did you mean `:%s`?", suggest_best(&sg));
                ok = 0;
            }
            continue;
        }
        if (!elem && i == start && syn_is_nil(k)) continue; /* element type left open (incomplete) */
        /* after a base type ((make-vector image-t n)), a symbol that names
           no type is the length, not an unknown element type */
        int names_type = k->kind == N_SYMBOL && (ty_lookup_base(k->key) || syn_streq(k->key, "voidp") ||
                                                 (ck_global_lookup(ck, k->key) && ck_global_lookup(ck, k->key)->kind == SYM_TYPE));
        if (!elem && i == start && (k->kind == N_SYMBOL || k->kind == N_LIST) &&
            !(k->kind == N_SYMBOL && (ck_global_lookup(ck, k->key) && ck_global_lookup(ck, k->key)->kind != SYM_TYPE)) &&
            !(start == 2 && k->kind == N_SYMBOL && !names_type)) {
            elem = ck_type_expr(ck, k);
            if (!elem_ok(ck, elem, k)) ok = 0;
            continue;
        }
        int64_t v;
        if (ck_const_syn_int(&tmp, k, &v)) {
            if (v < 0) {
                diag_error_at(ck->d, k, "E0912", "vector length must not be negative, found %lld", (long long)v);
                ok = 0;
            }
            len = v;
        } else if (allow_len_expr && len_expr) {
            *len_expr = k;
        } else {
            diag_error_at(ck->d, k, "E0910", "vector length must be a compile-time constant, found `%s`",
                          syn_to_string(ck->a, k, 40));
            ok = 0;
        }
    }
    if (!ok) return NULL;
    return ty_vector(ck->a, elem, as, acc, al, len);
}

static Type *type_expr_any(Checker *ck, Node *syn);

/* "did you mean" for an unknown type name: the scalar types, their
 * hardware vectors up to width 4, bool and the program's types. */
static void suggest_type(Checker *ck, const Node *name) {
    size_t n = strlen(name->key);
    if (n > 1 && name->key[n - 1] == '*') { /* float*: a C pointer */
        diag_note(ck->d, name->loc, "Crisp has no pointer types: memory is a vector, e.g. (vector-type %.*s :global :read-write)",
                  (int)(n - 1), name->name);
        return;
    }
    Suggest sg;
    suggest_init(&sg, name->key);
    static const char *widths[] = {"", "2", "3", "4", "8", "16"};
    for (int sc = 0; sc < SC__COUNT; sc++)
        for (size_t w = 0; w < sizeof widths / sizeof *widths && (w == 0 || sc != SC_BFLOAT16); w++)
            suggest_add(&sg, arena_printf(ck->a, "%s%s", ty_scalar_info((Scalar)sc)->name, widths[w]));
    suggest_add(&sg, "bool");
    for (int i = 0; i < ck->globals.n; i++)
        if (ck->globals.syms[i]->kind == SYM_TYPE) suggest_add(&sg, ck->globals.syms[i]->key);
    if (suggest_best(&sg)) diag_note(ck->d, name->loc, "did you mean `%s`?", suggest_best(&sg));
}

/* TYPE-EXPR: a base type name, a def-type alias, (vector-type ...), nil.
 * An incomplete struct template ((pair-type nil int)) only where
 * ck->allow_incomplete (def-function parameter types). */
Type *ck_type_expr(Checker *ck, Node *syn) {
    Type *t = type_expr_any(ck, syn);
    if (t && t->kind == TY_STRUCT && t->sd->pattern && !ck->allow_incomplete) {
        diag_error_at(ck->d, syn, "E1017", "expected a complete type here, found the incomplete `%s` (allowed only as a def-function parameter type)",
                      t->sd->name);
        return NULL;
    }
    return t;
}

static Type *type_expr_any(Checker *ck, Node *syn) {
    if (!syn) return NULL;
    if (syn->kind == N_SYMBOL || syn->kind == N_KEYWORD) {
        BaseMemo *m = &ck->bmemo[((uint64_t)(uintptr_t)syn->key * 0x9E3779B97F4A7C15ull) >> (64 - BASE_MEMO_BITS)];
        if (m->key != syn->key) *m = (BaseMemo){syn->key, ty_lookup_base(syn->key)};
        Type *t = m->t;
        if (t) return t;
        Sym *s = ck_global_lookup(ck, syn->key);
        if (s && s->kind == SYM_TYPE) return alias_type(ck, s, syn);
        if (syn_streq(syn->key, "voidp")) {
            if (ck->allow_voidp) return &ty_voidp;
            diag_error_at(ck->d, syn, "E0913", "`voidp` is only allowed in def-kernel-exact parameters");
            return NULL;
        }
        diag_error_at(ck->d, syn, "E0901", "unknown type `%s`", syn->name);
        suggest_type(ck, syn);
        return NULL;
    }
    if (syn->kind == N_LIST && syn->nkids == 0) return &ty_void;
    const char *h = syn_head(syn);
    /* (vector T ...) is the spec's spelling in some examples ("Converting
       between SoA and AoS vectors"); the same as (vector-type T ...) */
    if (h && (syn_streq(h, "vector-type") || syn_streq(h, "vector"))) return ck_vector_type_args(ck, syn, 1, 0, NULL);
    if (h && strlen(h) > 5 && !strcmp(h + strlen(h) - 5, "-type") && ck_template_lookup(ck, arena_strndup(ck->a, h, strlen(h) - 5))) {
        Type *t = ck_template_type(ck, syn);
        return t && t->kind != TY_VOID ? t : NULL;
    }
    if (h && syn_streq(h, "maybe")) {
        /* (maybe T...): a success flag and the values (spec "Maybe Type") */
        Type *ts[17];
        int n = 0;
        ts[n++] = &ty_bool;
        for (int i = 1; i < syn->nkids && n < 17; i++) {
            Type *t = ck_type_expr(ck, syn->kids[i]);
            if (!t) return NULL;
            if (!ty_is_arith(t) && t->kind != TY_ENUM && t->kind != TY_BOOL) {
                diag_error_at(ck->d, syn->kids[i], "E0922", "(maybe ...) holds numbers, bools and enumeration values, found `%s`",
                              ty_name(ck->a, t));
                return NULL;
            }
            ts[n++] = t;
        }
        if (n < 2) {
            diag_error_at(ck->d, syn, "E0922", "(maybe ...) needs at least one type");
            return NULL;
        }
        Type *m = ty_tuple(ck->a, ts, n);
        m->maybe = 1;
        return m;
    }
    if (h && syn_streq(h, "type-signature-of") && syn->nkids == 2) {
        /* (def-type NAME (type-signature-of #'f)) was replaced by f's
           signature when f has one (check.c signature_aliases): here it has
           none */
        Node *fn = syn->kids[1];
        const char *name = syn_is_form(fn, "function") && fn->nkids == 2 && fn->kids[1]->kind == N_SYMBOL ? fn->kids[1]->key : NULL;
        if (!name || !ctq_signature_syntax(ck, name, syn->loc)) {
            diag_error_at(ck->d, syn, "E0216", "`type-signature-of`: no def-function `%s` with a known signature before this point",
                          name ? fn->kids[1]->name : syn_to_string(ck->a, fn, 30));
            return NULL;
        }
    }
    if (h && syn_streq(h, "return-type-of")) {
        /* (return-type-of #'f): the declared return type of another function */
        Node *f = syn->nkids == 2 ? syn->kids[1] : NULL;
        if (!f || !syn_is_form(f, "function") || f->nkids != 2 || f->kids[1]->kind != N_SYMBOL) {
            diag_error_at(ck->d, syn, "E0921", "expected (return-type-of #'function), found `%s`", syn_to_string(ck->a, syn, 40));
            return NULL;
        }
        FuncDef *fd = ck_func_lookup(ck, f->kids[1]->key);
        if (!fd) {
            diag_error_at(ck->d, f, "E0920", "unknown function `%s`", f->kids[1]->name);
            return NULL;
        }
        ck_resolve_signature(ck, fd);
        return fd->bad ? NULL : fd->ret;
    }
    if (h && (syn_streq(h, "vector-view-type") || syn_streq(h, "vector-base-type"))) {
        Type *t = ck_vector_type_args(ck, syn, 1, 0, NULL);
        if (t) t->view = h[7] == 'v'; /* vector-view-type; vector-base-type is not a view */
        return t;
    }
    if (h && syn_streq(h, "const-vec-type")) {
        /* (const-vec-type ELEM [LENGTH]): spec "def-const-vec" */
        if (syn->nkids < 2 || syn->nkids > 3) {
            diag_error_at(ck->d, syn, "E0923", "expected (const-vec-type ELEMENT-TYPE [LENGTH]), found `%s`",
                          syn_to_string(ck->a, syn, 60));
            return NULL;
        }
        Type *t = ck_vector_type_args(ck, syn, 1, 0, NULL);
        if (!t) return NULL;
        if (!t->elem) {
            diag_error_at(ck->d, syn, "E0923", "expected (const-vec-type ELEMENT-TYPE [LENGTH]), found `%s`",
                          syn_to_string(ck->a, syn, 60));
            return NULL;
        }
        return ty_vector(ck->a, t->elem, AS_CONSTANT, ACC_READ_ONLY, AL_COMPACT, t->length);
    }
    if (h && (syn_streq(h, "tensor-view-type") || syn_streq(h, "tensor-view"))) { /* the spec writes both */
        /* (tensor-view-type [N [PARENT-VECTOR-TYPE]]): an N-dimensional
           tensor-view; without a parent the element type and address space
           stay open, without N the rank too (the function is instantiated
           per call site) */
        Ctx tmp = {.ck = ck};
        int64_t n = TY_ANY_RANK;
        if (syn->nkids == 1) {
            /* any rank */
        } else if ( syn->nkids > 3 || !ck_const_syn_int(&tmp, syn->kids[1], &n) || n < 1 || n > 8) {
            diag_error_at(ck->d, syn, "E0924", "expected (tensor-view-type [N [vector-type]]) with N from 1 to 8, found `%s`",
                          syn_to_string(ck->a, syn, 60));
            return NULL;
        }
        Type *t;
        if (syn->nkids == 3) {
            Type *p = ck_type_expr(ck, syn->kids[2]);
            if (!p) return NULL;
            if (p->kind != TY_VECTOR || p->soa || p->ndims) {
                diag_error_at(ck->d, syn->kids[2], "E0924", "the parent of a tensor-view type is a vector type, found `%s`",
                              ty_name(ck->a, p));
                return NULL;
            }
            t = ty_vector(ck->a, p->elem, p->as, p->acc, p->align, -1);
        } else {
            t = ty_vector(ck->a, NULL, AS_NONE, ACC_NONE, AL_NONE, -1);
        }
        t->view = 1;
        t->ndims = (int)n;
        return t;
    }
    if (h && syn_streq(h, "def-derived-type") && syn->nkids >= 3 && syn->kids[1]->kind == N_SYMBOL) {
        /* (def-derived-type NAME VECTOR-TYPE ...), reached through the
           alias NAME (structs.c ck_derived_collect): the vector, vector-view,
           soa or tensor-view type under a name of its own, so overloads (of
           ~ too) can tell it apart (spec "Derived Types") */
        Type *o = ck_type_expr(ck, syn->kids[2]);
        if (!o) return NULL;
        if (o->kind != TY_VECTOR || o->tag) {
            diag_error_at(ck->d, syn->kids[2], "E0164",
                          "def-derived-type derives from a struct, vector, vector-view, soa or tensor-view type, found `%s`%s",
                          ty_name(ck->a, o), o->tag ? " (a derived type: derive from its original)" : "");
            return NULL;
        }
        Type *t = arena_alloc(ck->a, sizeof *t);
        if (!t) return NULL;
        *t = *o;
        t->tag = syn->kids[1]->name;
        t->tag_subst = ck_derived_subst_of(syn);
        return t;
    }
    if (h && syn_streq(h, "identity-tensor-type")) {
        /* (identity-tensor-type [RANK]) - spec "identity-tensor": no data;
           without a rank (a parameter type) any rank is accepted and the
           function is instantiated per rank */
        Ctx tmp = {.ck = ck};
        int64_t n = 0;
        if (syn->nkids > 2 || (syn->nkids == 2 && (!ck_const_syn_int(&tmp, syn->kids[1], &n) || n < 1 || n > 8))) {
            diag_error_at(ck->d, syn, "E0540", "expected (identity-tensor-type [RANK]) with RANK from 1 to 8, found `%s`",
                          syn_to_string(ck->a, syn, 60));
            return NULL;
        }
        ck->nidents++;
        return ty_identity(ck->a, (int)n);
    }
    if (h && (syn_streq(h, "soa-vector-type") || syn_streq(h, "soa-view-type"))) {
        /* (soa-vector-type STRUCT [address-space] [access] [align] [length])
           or the key form: spec "soa-vector and soa-view", "Defining" */
        Type *t = ck_vector_type_args(ck, syn, 1, 0, NULL);
        if (!t) return NULL;
        if (!t->elem) {
            diag_error_at(ck->d, syn, "E0914", "`%s` needs its struct element type, found `%s`", h, syn_to_string(ck->a, syn, 60));
            return NULL;
        }
        if (!ck_soa_struct_ok(ck, syn, t->elem)) return NULL;
        t->soa = 1;
        t->view = h[4] == 'v' && h[5] == 'i'; /* soa-view-type */
        return t;
    }
    /* (ALIAS :read_only ...): a vector type alias with some properties
       changed, as in the spec's marshall-vector example */
    Sym *alias = h ? ck_global_lookup(ck, h) : NULL;
    if (alias && alias->kind == SYM_TYPE) {
        Type *base = alias_type(ck, alias, syn);
        if (!base) return NULL;
        if (base->kind != TY_VECTOR) {
            diag_error_at(ck->d, syn, "E0919", "`%s` is `%s`, not a vector type, so it takes no arguments", syn->kids[0]->name,
                          ty_name(ck->a, base));
            return NULL;
        }
        Type *mod = ck_vector_type_args(ck, syn, 1, 0, NULL);
        if (!mod) return NULL;
        Type *t = ty_vector(ck->a, mod->elem ? mod->elem : base->elem, mod->as ? mod->as : base->as,
                            mod->acc ? mod->acc : base->acc, mod->align ? mod->align : base->align,
                            mod->length >= 0 ? mod->length : base->length);
        if (base->ndims) { /* (matrix float :global): a tensor-view type with the parent filled in */
            t->view = 1;
            t->ndims = base->ndims;
            t->tag = base->tag;
            t->tag_subst = base->tag_subst;
        } else if (base->tag) { /* (celsius-vec :private): a derived vector type keeps its name */
            t->view = base->view;
            t->soa = base->soa;
            t->tag = base->tag;
            t->tag_subst = base->tag_subst;
        }
        return t;
    }
    diag_error_at(ck->d, syn, "E0902", "expected a type, found `%s`", syn_to_string(ck->a, syn, 60));
    return NULL;
}

/* #'(T1 T2 [&out T3] => R1 R2) or #(...): the function signature form.
 * `->` is accepted as a spelling of `=>` (used in the spec's examples). */
int ck_parse_signature(Checker *ck, Node *sig, Type ***params, int **outs, int *nparams, Type **ret) {
    Node **k = sig->kids;
    int n = sig->nkids;
    if (sig->kind == N_LIST && syn_is_form(sig, "function") && n == 2 && sig->kids[1]->kind == N_LIST) {
        k = sig->kids[1]->kids;
        n = sig->kids[1]->nkids;
    }
    Type **ps = arena_alloc(ck->a, sizeof(Type *) * (size_t)(n + 1));
    int *os = arena_alloc(ck->a, sizeof(int) * (size_t)(n + 1));
    Type *rs[16];
    int np = 0, nr = 0, after = 0, out = 0, ok = 1;
    if (!ps || !os) return 0;
    for (int i = 0; i < n; i++) {
        Node *e = k[i];
        if (syn_is_sym(e, "=>") || syn_is_sym(e, "->")) {
            if (after) {
                diag_error_at(ck->d, e, "E0915", "signature has more than one `=>`");
                ok = 0;
            }
            after = 1;
            continue;
        }
        if (syn_is_sym(e, "&out")) {
            out = 1;
            continue;
        }
        if (syn_is_sym(e, "&optional") || syn_is_sym(e, "&key")) continue; /* types still in order */
        if (syn_is_sym(e, "&rest")) {
            diag_error_at(ck->d, e, "E0916", "functions are not variadic: `&rest` is for macros");
            ok = 0;
            continue;
        }
        if (after && syn_is_sym(e, "void")) continue; /* #(point => void): no value */
        Type *t = e->kind == N_SYMBOL && e->ann ? ck_type_expr(ck, e->ann) : ck_type_expr(ck, e);
        if (!t) {
            ok = 0;
            continue;
        }
        if (!after) {
            ps[np] = t;
            os[np++] = out;
        } else if (t->kind != TY_VOID) {
            if (nr == 16) {
                diag_error_at(ck->d, e, "E0918", "a function may return at most 16 values");
                ok = 0;
            } else {
                rs[nr++] = t;
            }
        }
    }
    *params = ps;
    *outs = os;
    *nparams = np;
    *ret = nr == 0 ? &ty_void : nr == 1 ? rs[0] : ty_tuple(ck->a, rs, nr);
    return ok;
}
