/* check_vectors.c - vector elements, lengths, swizzles, places and set!.
 *
 * Why it exists: element access and assignment are the forms every kernel
 * uses, with their own rules (bounds of constant indices, write access,
 * &out parameters, hardware-vector swizzles, setters of derived types);
 * split out of check_expr.c by form family (issue 16).  Spec sections
 * "Vectors and Vector-View" (element access ~, length~), "Dereferencing
 * and Swizzles", "set!, inc!, dec!" and member access `XXXX~`. */
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

/* ---- vectors ---- */

/* When `v` is a variable that hides another spelled differently, say so:
 * the likely cause of a type error (issue 14). */
void ck_shadow_note(Ctx *cx, const Node *syn, const Node *v) {
    const Sym *s = v && v->kind == N_C_VAR ? v->sym : NULL;
    if (!s || !sym_rare(s)->shadows || !s->def) return;
    diag_note(D(cx), s->def->loc, "`%s` here is the variable `%s` bound at line %d; Crisp names are case-insensitive, so it hides the %s `%s`",
              syn && syn->kind == N_SYMBOL ? syn->name : s->name, s->name, s->def->loc.line,
              sym_rare(s)->shadows->kind == SYM_PARAM ? "parameter" : "variable", sym_rare(s)->shadows->name);
}

Sym *ck_vector_operand(Ctx *cx, Node *syn, const char *what) {
    Node *v = ck_expr(cx, syn, NULL);
    if (!v) return NULL;
    if (v->ty && v->ty->kind == TY_IDENT) {
        diag_error_at(D(cx), syn, "E0542",
                      "`%s` needs a vector or tensor-view with data; `%s` is an identity tensor (no data, extents or strides: only `~`, `num-dims~`, `transpose` and `is-identity-tensor?` apply)",
                      what, syn_to_string(cx->ck->a, syn, 30));
        return NULL;
    }
    if (v->kind != N_C_VAR || !v->ty || v->ty->kind != TY_VECTOR) {
        diag_error_at(D(cx), syn, "E0401", "`%s` needs a vector, found `%s`", what, ck_tname(cx, v->ty));
        ck_shadow_note(cx, syn, v);
        return NULL;
    }
    if (sym_rare(v->sym)->soa_fields) {
        diag_error_at(D(cx), syn, "E0489", "`%s` is a soa-vector: `%s` works on its field vectors, (x~ %s) or (x~ %s i)",
                      v->sym->name, what, v->sym->name, v->sym->name);
        return NULL;
    }
    if (sym_ndims(v->sym) && (!sym_rare(v->sym)->off_sym || !sym_rare(v->sym)->dims_sym || !sym_rare(v->sym)->strides_sym)) {
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
Node *ck_index_expr(Ctx *cx, Node *isyn, const char *what) {
    if (isyn->kind == N_INT && !isyn->is_unsigned && isyn->ival < 0) {
        diag_error_at(D(cx), isyn, "E0402", "negative index %lld", (long long)isyn->ival);
        return NULL;
    }
    Node *i = ck_expr(cx, isyn, ty_num(SC_ULONG));
    if (!i) return NULL;
    if (cx_is_flex(i)) {
        if (i->kind == N_C_INTLIT && i->ival < 0 && !i->is_unsigned) {
            diag_error_at(D(cx), isyn, "E0402", "negative index %lld", (long long)i->ival);
            return NULL;
        }
        i = ck_coerce(cx, i, ty_num(SC_ULONG), isyn, "index");
        if (!i) return NULL;
    }
    if (!ty_is_int(i->ty)) {
        diag_error_at(D(cx), isyn, "E0403", "%s must be an integer, found `%s`", what, ck_tname(cx, i->ty));
        return NULL;
    }
    return i;
}

Node *ck_index_node(Ctx *cx, Node *syn, Sym *vec, Node *isyn) {
    Node *i = ck_index_expr(cx, isyn, "vector index");
    if (!i) return NULL;
    int64_t k;
    if (vec->ty->length >= 0 && ck_const_int(cx, i, &k) && (k < 0 || k >= vec->ty->length)) {
        diag_error_at(D(cx), isyn, "E0404", "index %lld is out of bounds for `%s` of length %lld", (long long)k, vec->name,
                      (long long)vec->ty->length);
        return NULL;
    }
    /* a vector of unknown length still lives in a 64-bit address space: a
       constant index whose byte offset does not fit is wrong on any device
       (and clang rejects it) */
    int64_t stride = vec->ty->elem ? ty_vector_stride(vec->ty->elem, vec->ty->align) : 0;
    if (vec->ty->length < 0 && stride > 0 && ck_const_int(cx, i, &k) && (k < 0 || k > INT64_MAX / stride)) {
        diag_error_at(D(cx), isyn, "E0404",
                      "index %llu is out of bounds for any `%s`: %llu elements of %lld bytes are past the "
                      "64-bit address space", (unsigned long long)k, vec->name, (unsigned long long)k,
                      (long long)stride);
        return NULL;
    }
    if (sym_rare(vec)->off_sym) /* a vector-view: element i of the view is root[offset + i] */
        i = ck_mk2(cx, N_C_BINARY, syn, i->ty, OP_ADD, ck_var_ref(cx, syn, sym_rare(vec)->off_sym),
                ty_equal(i->ty, ty_num(SC_ULONG)) ? i : ck_mk1(cx, N_C_CAST, syn, ty_num(SC_ULONG), i));
    Node *x = ck_mk2(cx, N_C_INDEX, syn, vec->ty->elem, 0, ck_var_ref(cx, syn, vec), i);
    if (x && vec->ty->align == AL_STD140 && ty_vector_stride(vec->ty->elem, AL_STD140) != ty_sizeof(vec->ty->elem))
        x->op = INDEX_PADDED;
    return x;
}

int ck_tensor_ref_error(Ctx *cx, Node *syn) {
    if (strcmp(syn->kids[0]->key, "~ref~")) return 0;
    diag_error_at(D(cx), syn, "E0485", "`~ref~` is not supported for tensor-views (spec \"Tensors\"); use `~`");
    return 1;
}

/* (~ V I) on a vector, (~ T I J ...) on a tensor-view (spec "Element
 * Access"; ~ref~ is not for tensors). */
static Node *element(Ctx *cx, Node *syn, Sym *v) {
    if (sym_ndims(v)) {
        if (ck_tensor_ref_error(cx, syn)) return NULL;
        return ck_tensor_index(cx, syn, v, syn->kids + 2, syn->nkids - 2);
    }
    if (!ck_nargs_ok(cx, syn, 2, 2)) return NULL;
    return ck_index_node(cx, syn, v, syn->kids[2]);
}

/* Does (~ T I...) on the derived tensor-view T call a user `~` overload
 * (spec "Overloading Element Access")?  Not inside a `~` overload or a
 * def-setter body, where `~` on the tensor is the built-in access. */
static int derived_elem_overload(Ctx *cx, Node *syn, Sym *v) {
    if ((cx->fd && syn_streq(cx->fd->name, "~")) || cx->setter_depth > 0) return 0;
    FuncDef *cands[16];
    int nc = ck_func_overloads(cx->ck, syn->kids[0]->key, cands, 16);
    for (int i = 0; i < nc; i++) {
        ck_resolve_signature(cx->ck, cands[i]);
        if (!cands[i]->bad && cands[i]->nparams == syn->nkids - 1 && cands[i]->params[0].ty->kind == TY_VECTOR &&
            cands[i]->params[0].ty->tag && syn_streq(cands[i]->params[0].ty->tag, v->ty->tag))
            return 1;
    }
    return 0;
}

/* (~ VEC I) / (~ref~ VEC I): read an element.  spec "Element Access" */
Node *cx_elem(Ctx *cx, Node *syn, Type *want) {
    if (!ck_nargs_ok(cx, syn, 2, -1)) return NULL;
    int rank = ck_identity_rank(cx, syn->kids[1]);
    if (rank) return ck_identity_index(cx, syn, rank);
    Sym *v = ck_vector_operand(cx, syn->kids[1], "~");
    if (!v) return NULL;
    if (v->ty->tag && derived_elem_overload(cx, syn, v)) return ck_user_call(cx, syn, want, NULL, 0);
    if ((v->write_only || v->ty->acc == ACC_WRITE_ONLY) && !ck_skip_checks(cx->ck)) {
        diag_error_at(D(cx), syn, "E0410", "`%s` is write-only (%s); reading it here is a race with the threads writing it",
                      v->name, v->write_only ? "an &out parameter" : ":write-only");
        return NULL;
    }
    return element(cx, syn, v);
}

/* (length~ VEC) */
Node *cx_length(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    Sym *v = ck_vector_operand(cx, syn->kids[1], "length~");
    if (!v) return NULL;
    return cx_length_of(cx, syn, v);
}

/* (bytes V): the bytes V's elements occupy now (spec "Helpers" of vectors,
 * tensors and soa-vectors): length times the element stride, summed over
 * the fields of a soa-vector. */
Node *cx_bytes(Ctx *cx, Node *syn, Type *want) {
    if (ck_func_lookup(cx->ck, "bytes")) return ck_user_call(cx, syn, want, NULL, 0);
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    Type *ul = ty_num(SC_ULONG);
    Sym *soa = ck_soa_sym(cx, syn->kids[1]);
    int n = soa ? soa->ty->elem->sd->nfields : 1;
    Node *sum = NULL;
    for (int i = 0; i < n; i++) {
        Sym *v = soa ? sym_rare(soa)->soa_fields[i] : ck_vector_operand(cx, syn->kids[1], "bytes");
        if (!v) return NULL;
        Node *b = ck_mk2(cx, N_C_BINARY, syn, ul, OP_MUL, cx_length_of(cx, syn, v),
                      ck_int_lit(cx, syn, ty_vector_stride(v->ty->elem, v->ty->align), ul));
        sum = sum ? ck_mk2(cx, N_C_BINARY, syn, ul, OP_ADD, sum, b) : b;
    }
    return sum;
}

static int swizzle_index(char c) {
    return c == 'x' ? 0 : c == 'y' ? 1 : c == 'z' ? 2 : c == 'w' ? 3 : -1;
}

int cx_is_swizzle_name(const char *k) {
    size_t n = strlen(k);
    if (n < 2 || n > 5 || k[n - 1] != '~') return 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (swizzle_index(k[i]) < 0) return 0;
    return 1;
}

Node *cx_swizzle_of(Ctx *cx, Node *syn, Node *base, int for_write) {
    const char *k = syn->kids[0]->key;
    int n = (int)strlen(k) - 1;
    if (!base) return NULL;
    if (base->ty->kind != TY_HWVEC) {
        diag_error_at(D(cx), syn, "E0420", "`%s` selects components of a hardware vector (float4 ...), found `%s`",
                      syn->kids[0]->name, ck_tname(cx, base->ty));
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        int c = swizzle_index(k[i]);
        if (c >= base->ty->width) {
            diag_error_at(D(cx), syn, "E0421", "`%s`: `%s` has no component `%c`", syn->kids[0]->name, ck_tname(cx, base->ty), k[i]);
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
    Node *x = ck_mk1(cx, N_C_SWIZZLE, syn, t, base);
    if (x) x->text = arena_strndup(cx->ck->a, k, (size_t)n);
    return x;
}

/* (x~ V) (xy~ V) (xyyy~ V) ...: components of a hardware vector */
Node *cx_swizzle(Ctx *cx, Node *syn) {
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    return cx_swizzle_of(cx, syn, ck_expr(cx, syn->kids[1], NULL), 0);
}

Node *ck_place(Ctx *cx, Node *syn, int for_write) {
    if (!(syn = ck_expand(cx, syn))) return NULL;
    if (syn->kind == N_SYMBOL) {
        Sym *s = ck_scope_lookup(cx, syn->key);
        if (!s) {
            if (orch_capture_error(cx, syn)) return NULL;
            diag_error_at(D(cx), syn, "E0430", "unknown variable `%s`", syn->name);
            ck_suggest_variable(cx, syn);
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
        if (s->kind == SYM_FNVAL) return ck_fnval_use_error(cx, syn, s);
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
        return ck_var_ref(cx, syn, s);
    }
    const char *h = syn_head(syn);
    if (h && (syn_streq(h, "~") || syn_streq(h, "~ref~"))) {
        if (!ck_nargs_ok(cx, syn, 2, -1)) return NULL;
        if (ck_identity_rank(cx, syn->kids[1])) {
            diag_error_at(D(cx), syn, "E0541", "cannot write to `%s`: an identity tensor is immutable (it holds no data)",
                          syn_to_string(cx->ck->a, syn->kids[1], 30));
            return NULL;
        }
        Sym *v = ck_vector_operand(cx, syn->kids[1], "~");
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
    if (ck_soa_access(cx, syn, 1, &soa)) return soa;
    const char *prop = h && h[0] == '~' ? h + 1 : h; /* ~length~ is the raw length~ */
    if (prop && (syn_streq(prop, "length~") || syn_streq(prop, "offset~") || syn_streq(prop, "parent~")) && syn->nkids == 2) {
        /* the settable properties of a vector-view */
        Node *v = ck_expr(cx, syn->kids[1], NULL);
        if (!v) return NULL;
        if (v->ty->kind == TY_VECTOR && v->kind == N_C_VAR) {
            Sym *vs = v->sym;
            if (!sym_rare(vs)->off_sym) {
                diag_error_at(D(cx), syn, "E0498", "`%s` of `%s` cannot be set: only a vector-view's properties can change", h,
                              vs->name);
                return NULL;
            }
            if (prop[0] == 'p') return ck_var_ref(cx, syn, vs); /* (set! (parent~ v) w): handled by cx_set */
            if (prop[0] == 'l' && !sym_rare(vs)->len_sym) {
                diag_error_at(D(cx), syn, "E0498", "`length~` of the tensor-view `%s` cannot be set: set its extents with dims~", vs->name);
                return NULL;
            }
            return ck_var_ref(cx, syn, prop[0] == 'l' ? sym_rare(vs)->len_sym : sym_rare(vs)->off_sym);
        }
        if (v->ty->kind != TY_STRUCT) {
            diag_error_at(D(cx), syn, "E0496", "`%s` selects a property, but `%s` is `%s`", syn->kids[0]->name,
                          syn_to_string(cx->ck->a, syn->kids[1], 30), ck_tname(cx, v->ty));
            return NULL;
        }
        return ck_struct_member(cx, syn, v, for_write);
    }
    if (h && hl > 1 && h[hl - 1] == '~' && syn->nkids == 2) {
        /* a struct field or hardware-vector components, by the operand's type */
        Node *base = ck_place(cx, syn->kids[1], for_write);
        if (!base) return NULL;
        if (base->ty->kind == TY_STRUCT) return ck_struct_member(cx, syn, base, for_write);
        if (cx_is_swizzle_name(h)) return cx_swizzle_of(cx, syn, base, 1);
        diag_error_at(D(cx), syn, "E0496", "`%s` selects a struct field, but `%s` is `%s`", syn->kids[0]->name,
                      syn_to_string(cx->ck->a, syn->kids[1], 30), ck_tname(cx, base->ty));
        return NULL;
    }
    diag_error_at(D(cx), syn, "E0435", "`%s` is not a place that can be assigned", syn_to_string(cx->ck->a, syn, 40));
    if (h && (syn_streq(h, "aref") || syn_streq(h, "elt") || syn_streq(h, "nth") || syn_streq(h, "svref")))
        diag_note(D(cx), syn->kids[0]->loc, "Crisp has no `%s`: did you mean `~`, as in (set! (~ v i) x)?", syn->kids[0]->name);
    return NULL;
}

/* (set! PLACE VALUE [PLACE VALUE]...) */
Node *cx_set(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (syn->nkids < 3 || (syn->nkids - 1) % 2) {
        diag_error_at(D(cx), syn, "E0320", "`set!` takes place/value pairs, found %d arguments", syn->nkids - 1);
        return NULL;
    }
    Node *last = NULL;
    int errs_before = cx->ck->d->errors;
    for (int i = 1; i + 1 < syn->nkids; i += 2) {
        Node *sp = cx_setter_call(cx, syn->kids[i], syn->kids[i + 1]);
        if (sp) {
            last = sp;
            continue;
        }
        if (cx->ck->d->errors > errs_before) return NULL;
        Sym *fs = syn->kids[i]->kind == N_SYMBOL ? ck_scope_lookup(cx, syn->kids[i]->key) : NULL;
        if (fs && fs->kind == SYM_FNVAL) {
            Node *r = ck_fnval_set(cx, fs, syn->kids[i], syn->kids[i + 1]);
            if (!r) return NULL;
            last = r;
            continue;
        }
        if (syn_is_form(syn->kids[i], "dims~") || syn_is_form(syn->kids[i], "strides~")) {
            Node *tn = ck_tensor_set_array(cx, syn->kids[i], syn->kids[i + 1]);
            if (!tn) return NULL;
            last = tn;
            continue;
        }
        if (syn_is_form(syn->kids[i], "parent~") || syn_is_form(syn->kids[i], "~parent~")) {
            Node *pn = cx_view_set_parent(cx, syn->kids[i], syn->kids[i + 1]);
            if (!pn) return NULL;
            last = pn;
            continue;
        }
        Node *p = ck_place(cx, syn->kids[i], 1);
        if (!p) return NULL;
        Node *v = ck_expr(cx, syn->kids[i + 1], p->ty);
        if (!v) return NULL;
        v = ck_coerce(cx, v, p->ty, syn->kids[i + 1], "assigned value");
        if (!v) return NULL;
        Node *a;
        if (p->kind == N_C_MEMBER && p->op) {
            /* a 3-component field is stored as T[3]: one store per component */
            v = cx_simple(cx, v, syn);
            static const char *xyz[3] = {"x", "y", "z"};
            a = NULL;
            for (int k = 0; k < 3 && v; k++) {
                Node *comp = ck_mk1(cx, N_C_SWIZZLE, syn, ty_num(p->ty->sc), v);
                if (comp) comp->text = xyz[k];
                a = ck_mk2(cx, N_C_ASSIGN, syn, ty_num(p->ty->sc), OP_SET, ck_struct_component(cx, p, k), comp);
                if (k < 2) ck_emit_stmt(cx, ck_mk1(cx, N_C_EXPR, syn, &ty_void, a));
            }
            if (!a) return NULL;
        } else {
            a = ck_mk2(cx, N_C_ASSIGN, syn, p->ty, OP_SET, p, v);
        }
        if (i + 2 < syn->nkids) {
            Node *st = ck_mk1(cx, N_C_EXPR, syn, &ty_void, a);
            ck_emit_stmt(cx, st);
        }
        last = a;
    }
    return last;
}

/* (inc! PLACE [DELTA]) (dec! PLACE [DELTA]): the new value. */
Node *cx_incdec(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!ck_nargs_ok(cx, syn, 1, 2)) return NULL;
    Node *p = ck_place(cx, syn->kids[1], 0);
    if (!p) return NULL;
    if (p->kind == N_C_MEMBER && p->op) {
        diag_error_at(D(cx), syn, "E0497", "`%s` cannot update a 3-component struct field in place; use (set! ...)", syn->kids[0]->name);
        return NULL;
    }
    if (!ty_is_arith(p->ty)) {
        diag_error_at(D(cx), syn->kids[1], "E0311", "`%s` needs a number, found `%s`", syn->kids[0]->name, ck_tname(cx, p->ty));
        return NULL;
    }
    Node *d = syn->nkids == 3 ? ck_expr(cx, syn->kids[2], p->ty) : ck_int_lit(cx, syn, 1, p->ty);
    if (d && syn->nkids == 2) d->op = LIT_FLEX_INT;
    d = ck_coerce(cx, d, p->ty, syn->nkids == 3 ? syn->kids[2] : syn, syn->kids[0]->name);
    if (!d) return NULL;
    return ck_mk2(cx, N_C_ASSIGN, syn, p->ty, syn->kids[0]->key[0] == 'i' ? OP_ADD : OP_SUB, p, d);
}
