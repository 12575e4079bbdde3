/* signatures.c - the checker's passes over what definitions declare.
 *
 * Why it exists: before any body is checked, every def-const and
 * def-parameter has its value (in its declared type), and every function
 * and kernel its parameter and return types (annotations, (declare (type
 * ...)), #'(... => R) signatures), so a body may call a function defined
 * after it.  Overloads get identifiers that say which one is which
 * (distance_point, distance_coordinate). */
#include <string.h>

#include "../core/suggest.h"
#include "../macros/expand.h"
#include "consteval.h"

static Node *const_value(Checker *ck, Sym *s);
static void resolve_signature_body(Checker *ck, FuncDef *fd);

/* The checked literal of a def-const / def-parameter (checked once): its
 * value expression checked in an empty function context, then computed by
 * the constant evaluator (consteval.c) - literals, other constants,
 * operators, conversions and the math builtins, in their types. */
static Node *const_value(Checker *ck, Sym *s) {
    if (sym_rare(s)->value) return sym_rare(s)->value;
    if (s->resolving) {
        diag_error_at(ck->d, s->def, "E0112", "`%s` is defined in terms of itself", s->name);
        return NULL;
    }
    s->resolving = 1;
    Node *init = sym_rare(s)->init;
    if (s->kind == SYM_PARAMETER) {
        const char *dv = crisp_define(ck->c->opt, s->name);
        if (dv) {
            init = syn_define_value(ck->a, s->def->loc, dv);
            if (!init) {
                diag_error_at(ck->d, s->def, "E0113", "-D%s=%s: the value is not a number, t or nil", s->name, dv);
                s->resolving = 0;
                return NULL;
            }
        }
    }
    Type *t = sym_rare(s)->type_syn ? ck_type_expr(ck, sym_rare(s)->type_syn) : NULL;
    if (!init) {
        if (!t) t = ty_num(SC_INT);
        init = syn_int(ck->a, s->def->loc, 0);
    }
    /* support code the computation alone needs is not emitted */
    int nhelpers = ck->prog->nhelpers;
    CFunc dummy = {.kind = FN_FUNCTION, .name = s->name, .ret = &ty_void};
    Node blk = {.kind = N_C_BLOCK};
    Ctx cx = {.ck = ck, .fn = &dummy, .block = &blk};
    Node *v = ck_expr(&cx, init, t);
    if (v && t) v = ck_coerce(&cx, v, t, init, "constant value");
    if (v && (blk.nkids || (v->kind != N_C_INTLIT && v->kind != N_C_FLOATLIT && v->kind != N_C_BOOLLIT))) {
        CeVal r;
        CeResult res = ce_constant(ck, &blk, v, 1, 0, &r);
        Type *vt = v->ty;
        v = res == CE_DONE ? ce_literal(&cx, init, &r) : NULL;
        if (v) v->ty = vt;
        else if (res == CE_NOT_CONSTANT)
            diag_error_at(ck->d, init, "E0114", "the value of `%s` must be a constant: literals, constants and operations on them",
                          s->name);
    }
    ck->prog->nhelpers = nhelpers;
    s->resolving = 0;
    sym_rare_w(ck->a, s)->value = v;
    if (v) s->ty = v->ty;
    return v;
}

Node *ck_global_const_value(Checker *ck, Sym *s) {
    return const_value(ck, s);
}

static void apply_signature(Checker *ck, FuncDef *fd, Node *sig, const Node *at) {
    Type **ps;
    int *outs, np;
    Type *ret;
    if (!ck_parse_signature(ck, sig, &ps, &outs, &np, &ret)) {
        fd->bad = 1;
        return;
    }
    if (np != fd->nparams) {
        diag_error_at(ck->d, at, "E0117", "signature lists %d parameter type%s but `%s` has %d parameter%s", np,
                      np == 1 ? "" : "s", fd->name, fd->nparams, fd->nparams == 1 ? "" : "s");
        fd->bad = 1;
        return;
    }
    for (int i = 0; i < np; i++) {
        if (fd->params[i].ty && !ty_equal(fd->params[i].ty, ps[i])) {
            diag_error_at(ck->d, at, "E0118", "signature gives parameter `%s` type `%s`, but it is declared `%s`",
                          fd->params[i].name->name, ty_name(ck->a, ps[i]), ty_name(ck->a, fd->params[i].ty));
            fd->bad = 1;
        }
        fd->params[i].ty = ps[i];
        if (outs[i]) fd->params[i].is_out = 1;
    }
    /* the signature's return part: `#'(float)` leaves it nil */
    fd->ret = ret;
    fd->ret_declared = 1;
}

void ck_resolve_signature(Checker *ck, FuncDef *fd) {
    if (fd->resolved) return;
    fd->resolved = 1;
    int saved_voidp = ck->allow_voidp;
    ck->allow_voidp = fd->exact;
    int saved_incomplete = ck->allow_incomplete;
    ck->allow_incomplete = fd->kind == FN_FUNCTION;
    resolve_signature_body(ck, fd);
    ck->allow_incomplete = saved_incomplete;
    ck->allow_voidp = saved_voidp;
    if (fd->ret && fd->ret->kind == TY_STRUCT && fd->ret->sd->pattern) {
        diag_error_at(ck->d, fd->form, "E1017", "the return type of `%s` must be complete, found the incomplete `%s`", fd->name,
                      fd->ret->sd->name);
        fd->bad = 1;
    }
}

static void resolve_signature_body(Checker *ck, FuncDef *fd) {
    for (int i = 0; i < fd->nparams; i++) {
        Node *p = (Node *)fd->params[i].name;
        if (p->ann) {
            fd->params[i].ty = ck_type_expr(ck, p->ann);
            if (!fd->params[i].ty) fd->bad = 1;
        }
    }
    for (int i = 0; i < fd->ndecls; i++) {
        const Node *d = fd->decls[i];
        for (int j = 1; j < d->nkids; j++) {
            Node *e = d->kids[j];
            const char *h = syn_head(e);
            if (e->kind == N_VECLIT || syn_is_form(e, "function")) {
                apply_signature(ck, fd, e, e);
            } else if (h && syn_streq(h, "type-signature-of")) {
                if (e->nkids == 2 && syn_is_form(e->kids[1], "function") && e->kids[1]->kids[1]->kind == N_SYMBOL) {
                    FuncDef *f = ck_func_lookup(ck, e->kids[1]->kids[1]->key);
                    if (!f) {
                        diag_error_at(ck->d, e->kids[1], "E0115", "unknown function `%s`", e->kids[1]->kids[1]->name);
                        fd->bad = 1;
                        continue;
                    }
                    ck_resolve_signature(ck, f);
                    if (f->nparams != fd->nparams) {
                        diag_error_at(ck->d, e, "E0117", "`%s` has %d parameters but `%s` has %d", f->name, f->nparams,
                                      fd->name, fd->nparams);
                        fd->bad = 1;
                        continue;
                    }
                    for (int k = 0; k < f->nparams; k++) {
                        fd->params[k].ty = f->params[k].ty;
                        fd->params[k].is_out |= f->params[k].is_out;
                    }
                    fd->ret = f->ret;
                    fd->ret_declared = 1;
                }
            } else if (h && syn_streq(h, "return-type")) {
                Type *rs[16];
                int nr = 0;
                for (int k = 1; k < e->nkids && nr < 16; k++) {
                    Type *t = ck_type_expr(ck, e->kids[k]);
                    if (!t) {
                        fd->bad = 1;
                        continue;
                    }
                    if (t->kind != TY_VOID) rs[nr++] = t;
                }
                fd->ret = nr == 0 ? &ty_void : nr == 1 ? rs[0] : ty_tuple(ck->a, rs, nr);
                fd->ret_declared = 1;
            } else if (h && syn_streq(h, "type") && e->nkids >= 3) {
                Type *t = NULL;
                for (int k = 1; k < e->nkids - 1; k++) {
                    Node *vn = e->kids[k];
                    int found = 0;
                    for (int m = 0; m < fd->nparams; m++) {
                        if (vn->kind == N_SYMBOL && syn_streq(fd->params[m].name->key, vn->key)) {
                            if (!t) t = ck_type_expr(ck, e->kids[e->nkids - 1]);
                            if (!t) {
                                fd->bad = 1;
                                break;
                            }
                            fd->params[m].ty = t;
                            found = 1;
                        }
                    }
                    if (!found && vn->kind == N_SYMBOL)
                        diag_error_at(ck->d, vn, "E0119", "(type %s ...) names no parameter of `%s`", vn->name, fd->name);
                }
            }
        }
    }
    if (!fd->ret) fd->ret = &ty_void;
    for (int i = 0; i < (fd->ret->kind == TY_TUPLE ? fd->ret->nelems : 1); i++) {
        Type *r = fd->ret->kind == TY_TUPLE ? fd->ret->elems[i] : fd->ret;
        if (r && r->kind == TY_IDENT) {
            diag_error_at(ck->d, fd->form->kids[1], "E0547",
                          "`%s` cannot return an identity tensor (`%s`): it holds no data; make one where it is used with (make-identity-tensor RANK)",
                          fd->name, ty_name(ck->a, r));
            fd->bad = 1;
        }
    }
    if (fd->kind != FN_FUNCTION && fd->ret->kind != TY_VOID) {
        diag_error_at(ck->d, fd->form->kids[1], "E0120", "%s `%s` cannot return a value (declared `%s`)",
                      fd->kind == FN_KERNEL ? "kernel" : "grid function", fd->name, ty_name(ck->a, fd->ret));
        fd->bad = 1;
    } else if (fd->ret->kind == TY_VECTOR) {
        diag_error_at(ck->d, fd->form->kids[1], "E0561",
                      "function `%s` cannot return a vector (declared `%s`): OpenCL C functions return no arrays; take the vector as an &out parameter",
                      fd->name, ty_name(ck->a, fd->ret));
        fd->bad = 1;
    }
    for (int i = 0; i < fd->nparams; i++) {
        ParamDecl *p = &fd->params[i];
        if (!p->ty) {
            if (!fd->bad)
                diag_error_at(ck->d, p->name, "E0121", "parameter `%s` of `%s` has no type (annotate it as %s:TYPE or declare it)",
                              p->name->name, fd->name, p->name->name);
            fd->bad = 1;
            continue;
        }
        Type *t = p->ty;
        if (t->kind == TY_VOID || t->kind == TY_TUPLE) {
            diag_error_at(ck->d, p->name, "E0122", "parameter `%s` cannot have type `%s`", p->name->name, ty_name(ck->a, t));
            fd->bad = 1;
        }
        if (p->is_out && fd->exact) {
            diag_error_at(ck->d, p->name, "E0128", "def-kernel-exact does not take `&out` parameters (`%s`); mark the vector :write-only",
                          p->name->name);
            fd->bad = 1;
        }
        if (t->kind == TY_VOIDP) continue; /* def-kernel-exact only (checked by ck_type_expr) */
        if (p->is_out && (t->kind != TY_VECTOR || (t->as && t->as != AS_GLOBAL))) {
            diag_error_at(ck->d, p->name, "E0123", "`&out` parameter `%s` must be a :global vector, found `%s`",
                          p->name->name, ty_name(ck->a, t));
            fd->bad = 1;
        }
        if (fd->kind == FN_KERNEL && t->kind == TY_IDENT) {
            diag_error_at(ck->d, p->name, "E0546",
                          "kernel parameter `%s` cannot be an identity tensor (`%s`): it holds no data; make it inside the kernel with (make-identity-tensor RANK)",
                          p->name->name, ty_name(ck->a, t));
            fd->bad = 1;
        } else if (fd->kind == FN_KERNEL && t->ndims) {
            diag_error_at(ck->d, p->name, "E0136",
                          "kernel parameter `%s` cannot be a tensor-view (`%s`): tensor-views never cross the host boundary; pass the parent vector and make the view inside the kernel",
                          p->name->name, ty_name(ck->a, t));
            fd->bad = 1;
        } else if (fd->kind == FN_KERNEL && t->soa) {
            diag_error_at(ck->d, p->name, "E0560",
                          "kernel parameter `%s` cannot be a soa-vector (`%s`): soa-vectors never cross the host boundary; pass a vector per field, or a vector of structs and convert it with convert-aos-to-soa",
                          p->name->name, ty_name(ck->a, t));
            fd->bad = 1;
        } else if (fd->kind == FN_KERNEL && ck_struct_holds_views(ck, t)) {
            diag_error_at(ck->d, p->name, "E0159",
                          "kernel parameter `%s` (`%s`) holds vector-views: a struct with vector-view fields never crosses the host boundary; pass the vectors and make the struct inside the kernel",
                          p->name->name, ty_name(ck->a, t));
            fd->bad = 1;
        } else if (fd->kind == FN_KERNEL) {
            if (t->kind == TY_VECTOR) {
                if (!t->elem || !t->as || !t->acc) {
                    diag_error_at(ck->d, p->name, "E0124",
                                  "kernel vector parameter `%s` must give its element type, address space and access, found `%s`",
                                  p->name->name, ty_name(ck->a, t));
                    fd->bad = 1;
                } else if (t->as == AS_PRIVATE) {
                    diag_error_at(ck->d, p->name, "E0125", "kernel parameter `%s` cannot be :private memory", p->name->name);
                    fd->bad = 1;
                }
                if (!t->align) t->align = AL_COMPACT;
            } else if (t->kind == TY_BOOL) {
                diag_error_at(ck->d, p->name, "E0126", "OpenCL kernels cannot take `bool` parameters (`%s`); use uchar or int",
                              p->name->name);
                fd->bad = 1;
            } else if (ty_is_arith(t) && t->sc == SC_HALF) {
                diag_error_at(ck->d, p->name, "E0127", "OpenCL C 1.2 kernels cannot take `half` parameters (`%s`)", p->name->name);
                fd->bad = 1;
            } else if (!ty_is_arith(t) && t->kind != TY_STRUCT && t->kind != TY_ENUM) {
                diag_error_at(ck->d, p->name, "E0122", "kernel parameter `%s` cannot have type `%s`", p->name->name,
                              ty_name(ck->a, t));
                fd->bad = 1;
            }
        }
    }
}

/* Merge a declared (possibly incomplete) vector type with the argument's. */
/* BASE followed by the parameter types of the overload FD (twice_int,
 * count_if_is_even_intvec): C names that say which overload is which. */
const char *ck_overload_cname(Checker *ck, const FuncDef *fd, const char *base) {
    for (int k = 0; k < fd->nparams; k++) {
        Type *t = fd->params[k].ty;
        if (!t) continue;
        base = ck_name_join(ck, base, ck_type_part(ck, t)); /* a derived vector type: its name */
    }
    return base;
}

/* Does a feature expression of TEXT (#+NAME, #-NAME, #+(and A (not B)))
 * name NAME, compared exactly? */
static int feature_mentions(const char *text, const char *name) {
    size_t n = strlen(name);
    for (const char *p = text; p && (p = strchr(p, '#')) != NULL; p++) {
        if (p[1] != '+' && p[1] != '-') continue;
        const char *q = p + 2, *end = q;
        if (*q == '(') { /* to the matching parenthesis */
            int depth = 0;
            for (; *end; end++) {
                depth += *end == '(' ? 1 : *end == ')' ? -1 : 0;
                if (depth == 0) break;
            }
        } else {
            while (*end && !strchr(" \t\r\n()", *end)) end++;
        }
        for (const char *t = q; t + n <= end; t++)
            if (!strncmp(t, name, n) && (t == q || strchr(" \t\r\n(", t[-1])) && (t + n == end || strchr(" \t\r\n)", t[n])))
                return 1;
    }
    return 0;
}

/* W0304: a -D override that no def-parameter takes and that no source
 * mentions (#+NAME and #-NAME read -D values too).  def-parameter names are
 * compared exactly, so -Dmax_index=5 for MAX_INDEX left the default in
 * place without a word. */
static void unused_defines(Checker *ck) {
    const CrispOptions *o = ck->c->opt;
    for (int i = 0; o && i < o->ndefines; i++) {
        const char *name = o->defines[i].name;
        int used = 0;
        for (int j = i + 1; j < o->ndefines && !used; j++) used = syn_streq(o->defines[j].name, name); /* reported once */
        for (int g = 0; g < ck->globals.n && !used; g++)
            used = ck->globals.syms[g]->kind == SYM_PARAMETER && syn_streq(ck->globals.syms[g]->name, name);
        for (int f = 0; f < ck->c->nfiles && !used; f++) used = feature_mentions(ck->c->files[f]->text, name);
        if (used) continue;
        Suggest sg;
        suggest_init(&sg, name);
        for (int g = 0; g < ck->globals.n; g++)
            if (ck->globals.syms[g]->kind == SYM_PARAMETER) suggest_add(&sg, ck->globals.syms[g]->name);
        const char *near = suggest_best(&sg);
        SrcLoc none = {0, 0, 0};
        if (near)
            diag_warning(ck->d, none, NULL, "W0304", "-D%s sets no def-parameter (names are compared exactly): did you mean -D%s?",
                         name, near);
        else
            diag_warning(ck->d, none, NULL, "W0304", "-D%s sets no def-parameter and no source reads it", name);
    }
}

/* Pass "constants": def-const and def-parameter values, def-type aliases
 * (constants first, so errors in them appear once), and -D values nothing
 * takes. */
void ck_pass_constants(Checker *ck) {
    for (int g = 0; g < ck->globals.n && !ck->c->diag.fatal; g++) {
        Sym *s = ck->globals.syms[g];
        if (s->kind == SYM_CONST || s->kind == SYM_PARAMETER) const_value(ck, s);
        else if (s->kind == SYM_TYPE) {
            ck->allow_incomplete = 1; /* an alias of an incomplete type is checked where it is used */
            ck_type_expr(ck, s->def ? (Node *)s->def : NULL);
            ck->allow_incomplete = 0;
        }
    }
    unused_defines(ck); /* W0304: a -D no def-parameter takes */
}

/* Pass "signatures": every function's and kernel's parameter and return
 * types. */
void ck_pass_signatures(Checker *ck) {
    for (int i = 0; i < ck->nfuncs; i++) ck_resolve_signature(ck, ck->funcs[i]);
}

/* Pass "overloads": no two with the same parameter types; C names that say
 * which instance is which (distance_point, distance_coordinate). */
void ck_pass_overloads(Checker *ck) {
    for (int i = 0; i < ck->nfuncs; i++) {
        FuncDef *a = ck->funcs[i];
        if (!a->overloaded || a->bad) continue;
        if (!a->is_instance) {
            a->cname_base = ck_overload_cname(ck, a, ck_mangle(ck, a->name));
            ck_fnbase_put(ck, a->cname_base, a);
        }
        for (FuncDef *b = ck_func_lookup(ck, a->key); b && b != a; b = b->next_overload) {
            if (b->bad || b->kind == FN_KERNEL || a->nparams != b->nparams) continue;
            int same = 1;
            for (int k = 0; k < a->nparams && same; k++) same = ty_equal(a->params[k].ty, b->params[k].ty);
            if (same && b->from_lib && !a->from_lib) {
                b->bad = 1; /* the program's own definition replaces the library's */
                continue;
            }
            if (same) {
                diag_error_at(ck->d, a->form->kids[1], "E0105", "`%s` is already defined with the same parameter types", a->name);
                diag_note(ck->d, b->form->loc, "the other definition is here");
                a->bad = 1;
            }
        }
    }
}
