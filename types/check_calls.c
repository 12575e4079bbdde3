/* check_calls.c - calls of user functions: overload choice, optional and
 * keyword arguments, sizes of vector parameters.
 *
 * Why it exists: a call picks the overload whose parameter types fit the
 * arguments, fills &optional and &key defaults and instantiates the
 * function for the argument types; split out of check_expr.c by form
 * family (issue 16).  Spec sections "Functions" (def-function,
 * &optional, &key, &out), "Function Overloading" and "Multiple Return
 * Values". */
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
    for (int i = 0; same && i < mine->nderive; i++) same = syn_streq(mine->derive[i], theirs->derive[i]);
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
int cx_fit(const Node *a, const Type *p) {
    if (p->kind == TY_IDENT || a->ty->kind == TY_IDENT)
        return p->kind == a->ty->kind && (!p->ndims || p->ndims == a->ty->ndims) ? (p->ndims ? 0 : 1) : -1;
    if (p->kind == TY_VECTOR) {
        const Type *t = a->ty;
        if (t->kind != TY_VECTOR || a->kind != N_C_VAR || p->soa != t->soa) return -1;
        if (p->ndims < 0 ? t->ndims <= 0 : p->ndims != t->ndims) return -1; /* tensor rank (0: a plain vector) */
        int tf = ck_vector_tag_fit(t, p); /* derived vector types */
        if (!tf) return -1;
        int derived = tf == 2 ? 3 : 0; /* by substitution: the exact (derived) overload is closer */
        if (p->elem && !ty_equal(p->elem, t->elem)) return -1;
        if (p->as && p->as != t->as) return -1;
        if (p->align && p->align != t->align) return -1;
        return derived + (p->as && p->elem && p->ndims >= 0 ? 0 : 1);
    }
    if (ty_equal(a->ty, p)) return 0; /* a literal's own default type too */
    if (cx_is_flex(a) && ty_is_arith(p)) {
        /* a literal adapts: best within its own kind (int, float) */
        int cx_float_lit = a->kind == N_C_FLOATLIT && a->op == LIT_FLEX_FLOAT;
        if (cx_float_lit && ty_category(p) != CAT_FLOAT) return -1;
        return ty_category(p) == ty_category(a->ty) ? 1 : 2;
    }
    if (ck_struct_subst_ok(a->ty, p)) return 3; /* a derived type's substitution: an exact match is closer */
    if (ty_widens(a->ty, p)) /* the closest wider type wins */
        return 2 + ty_scalar_info(p->sc)->rank - ty_scalar_info(a->ty->sc)->rank;
    return -1;
}

static const char *signature_text(Ctx *cx, FuncDef *f) {
    const char *s = "";
    for (int i = 0; i < f->nparams; i++) s = arena_printf(cx->ck->a, "%s%s%s", s, i ? " " : "", ck_tname(cx, f->params[i].ty));
    return arena_printf(cx->ck->a, "#'(%s => %s)", s, ck_tname(cx, f->ret));
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
        ck_resolve_signature(cx->ck, f);
        if (f->bad || (f->nparams != n && !optional_fit(syn, f, n))) continue;
        int score = 0;
        for (int i = 0; i < n && score >= 0; i++) {
            int k = cx_fit(args[i], f->params[i].ty);
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
    for (int i = 0; i < n; i++) types = arena_printf(cx->ck->a, "%s%s%s", types, i ? " " : "", ck_tname(cx, args[i]->ty));
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
            if (syn_streq(fd->params[i].name->key, syn->key)) return argsyn[i];
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
            is_key |= fd->params[j].mode == 2 && syn_streq(fd->params[j].name->key, a->key);
        if (is_key) continue;
        args[i] = a;
        k++;
    }
    for (; k < syn->nkids; k += 2) {
        Node *key = syn->kids[k];
        int found = -1;
        for (int j = 0; key->kind == N_KEYWORD && j < fd->nparams; j++)
            if (fd->params[j].mode == 2 && syn_streq(fd->params[j].name->key, key->key)) found = j;
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
Node *ck_user_call(Ctx *cx, Node *syn, Type *want, Node **extra, int nextra) {
    (void)want;
    Checker *ck = cx->ck;
    cx->bind_hint = NULL; /* only a direct initialiser names a view */
    FuncDef *forced = ck->forced_callee;
    ck->forced_callee = NULL;
    if (ck->ct && !constvec_call_ok(cx, syn)) return NULL;
    if (!forced && ck_hof_lookup(ck, syn->kids[0]->key)) {
        int handled = 0;
        Node *r = ck_hof_call(cx, syn, want, &handled);
        if (handled) return r;
    }
    int n = syn->nkids - 1;
    FuncDef *cands[64];
    int nc = forced ? 1 : ck_func_overloads(ck, syn->kids[0]->key, cands, 64);
    int templated = !forced && ck_template_lookup(ck, syn->kids[0]->key) != NULL;
    if (forced) cands[0] = forced;
    Node **pre = NULL; /* arguments checked once, to choose an overload */
    if (nc > 1 || templated) {
        pre = arena_alloc(ck->a, sizeof(Node *) * (size_t)(n + 1));
        if (!pre) return NULL;
        for (int i = 0; i < n; i++) {
            pre[i] = ck_expr(cx, syn->kids[i + 1], NULL);
            if (!pre[i]) return NULL;
            if (pre[i]->ty->kind == TY_TUPLE) pre[i]->ty = pre[i]->ty->elems[0];
        }
    }
    if (templated) {
        /* a templated function: the instance for these argument types
           joins the overloads (spec "Template Types") */
        int errs = ck->d->errors;
        FuncDef *inst = ck_template_for_call(ck, syn->kids[0]->key, syn, pre, n);
        if (!inst && ck->d->errors > errs) return NULL;
        nc = ck_func_overloads(ck, syn->kids[0]->key, cands, 64);
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
    ck_resolve_signature(ck, fd);
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
    if (fd->kind == FN_GRID) ck_grid_op(cx, syn, arena_printf(ck->a, "calling the grid function `%s`", fd->name));
    Node **vals = arena_alloc(ck->a, sizeof(Node *) * (size_t)(n + 1));
    Type **tys = arena_alloc(ck->a, sizeof(Type *) * (size_t)(n + 1));
    if (!vals || !tys) return NULL;
    for (int i = 0; i < n; i++) {
        ParamDecl *p = &fd->params[i];
        Node *a = pre && pre[i] ? pre[i] : ck_expr(cx, argsyn[i], p->ty->kind == TY_VECTOR || p->ty->kind == TY_IDENT || (p->ty->kind == TY_STRUCT && p->ty->sd->pattern) ? NULL : p->ty);
        if (!a) return NULL;
        if (p->ty->kind == TY_IDENT || a->ty->kind == TY_IDENT) {
            /* an identity tensor: only to an (identity-tensor-type [N])
               parameter of its rank; it passes no data */
            if (!ck_identity_arg_ok(cx, argsyn[i], a, p->ty, p->name->name, fd->name)) return NULL;
            vals[i] = a;
            tys[i] = a->ty;
        } else if (p->ty->kind == TY_VECTOR) {
            Type *pt = p->ty, *at = a->ty;
            if (at->kind != TY_VECTOR || a->kind != N_C_VAR) {
                diag_error_at(ck->d, argsyn[i], "E0371", "argument %d of `%s` (`%s`) must be a vector, found `%s`", i + 1,
                              fd->name, p->name->name, ck_tname(cx, at));
                return NULL;
            }
            Sym *as = a->sym;
            if (sym_ndims(as) && !pt->ndims) {
                diag_error_at(ck->d, argsyn[i], "E0486",
                              "tensor-view `%s` cannot be passed as parameter `%s` of `%s` (`%s`): a tensor-view goes only to a (tensor-view-type N ...) parameter; pass the parent vector or declare the parameter a tensor-view",
                              as->name, p->name->name, fd->name, ck_tname(cx, pt));
                return NULL;
            }
            if (pt->ndims && !sym_ndims(as)) {
                diag_error_at(ck->d, argsyn[i], "E0413",
                              "parameter `%s` of `%s` is a tensor-view (`%s`), but `%s` is `%s`, not a tensor-view; make one with make-tensor-view or make-matrix",
                              p->name->name, fd->name, ck_tname(cx, pt), as->name, ck_tname(cx, at));
                return NULL;
            }
            if (pt->ndims > 0 && pt->ndims != sym_ndims(as)) {
                diag_error_at(ck->d, argsyn[i], "E0414",
                              "parameter `%s` of `%s` expects a %d-dimensional tensor-view, but `%s` has %d dimension%s",
                              p->name->name, fd->name, pt->ndims, as->name, sym_ndims(as), sym_ndims(as) == 1 ? "" : "s");
                return NULL;
            }
            if (pt->tag && pt->ndims && (!at->tag || strcmp(pt->tag, at->tag)) && !ck_vector_tag_fit(at, pt)) {
                diag_error_at(ck->d, argsyn[i], "E0548", "parameter `%s` of `%s` is the derived tensor-view type `%s`, found `%s`; make one with (as-%s %s)",
                              p->name->name, fd->name, pt->tag, ck_tname(cx, at), pt->tag, as->name);
                return NULL;
            }
            if (!ck_vector_tag_fit(at, pt)) {
                /* a derived vector type (spec "Derived Types"): :subst decides */
                const Type *dt = pt->tag ? pt : at;
                static const char *mode[4] = {":no", ":equal", ":pass-orig", ":pass-derived"};
                diag_error_at(ck->d, argsyn[i], "E0167",
                              "cannot pass `%s` (`%s`) as parameter `%s` of `%s` (`%s`): `%s` is a derived type with :subst %s; cast with (as-%s %s)",
                              as->name, ck_tname(cx, at), p->name->name, fd->name, ck_tname(cx, pt), dt->tag, mode[dt->tag_subst & 3],
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
                              as->name, ck_tname(cx, at), p->name->name, fd->name, ck_tname(cx, pt), why);
                return NULL;
            }
            vals[i] = a;
            tys[i] = at;
        } else if (p->ty->kind == TY_STRUCT && p->ty->sd->pattern) {
            /* an incomplete struct template: any instance agreeing on the
               given arguments; the function is instantiated for it */
            if (!ck_template_pattern_match(ck, p->ty, a->ty)) {
                diag_error_at(ck->d, argsyn[i], "E1016", "argument `%s` of `%s` expected an instance of `%s`, found `%s`",
                              p->name->name, fd->name, ck_tname(cx, p->ty), ck_tname(cx, a->ty));
                return NULL;
            }
            vals[i] = a;
            tys[i] = a->ty;
        } else {
            a = ck_coerce_part(cx, a, p->ty, argsyn[i], "argument", p->name->name, fd->name);
            if (!a) return NULL;
            vals[i] = a;
            tys[i] = p->ty;
        }
    }
    CFunc *fn = ck_instantiate(cx, fd, tys, syn);
    if (!fn) return NULL;
    if (fn->analysis_sync && cx->fn) cx->fn->analysis_sync = 1; /* analysis/ walks callers of one too */
    if (cfunc_gsize(fn)->present) merge_sizes(cx, cfunc_gsize_w(cx->ck->a, cx->fn), cfunc_gsize(fn), "global-size", fd, syn);
    if (cfunc_rare(fn)->lsize.present)
        merge_sizes(cx, &cfunc_rare_w(cx->ck->a, cx->fn)->lsize, &cfunc_rare(fn)->lsize, "local-size", fd, syn);
    if (fn->lsize_default && (!cx->fn->lsize_default || fn->lsize_default < cx->fn->lsize_default))
        cx->fn->lsize_default = fn->lsize_default;
    /* side channels and the debug channel the callee needs from us */
    Node **side = arena_alloc(ck->a, sizeof(Node *) * (size_t)(2 * cfunc_rare(fn)->nfsides + 4)); /* + warp memory, debug */
    int nside = 0;
    if (!side || !ck_side_call_args(cx, fn, syn, fd, side, &nside)) return NULL;
    int nret = fn->ret->kind == TY_TUPLE ? fn->ret->nelems : 0;
    int nargs = nside;
    for (int i = 0; i < n; i++)
        nargs += sym_ndims(fn->params[i])                 ? 4
                 : sym_rare(fn->params[i])->soa_fields              ? fn->params[i]->ty->elem->sd->nfields + 1
                 : fn->params[i]->ty->kind == TY_VECTOR ? 2
                 : fn->params[i]->ty->kind == TY_IDENT  ? 0
                                                          : 1;
    nargs += nret > 1 ? nret - 1 : 0;
    Node *c = ck_mk(cx, N_C_CALL, syn, fn->ret, nargs);
    if (!c) return NULL;
    c->text = fn->cname;
    for (int i = 0; i < n; i++) {
        if (fn->params[i]->ty->kind == TY_IDENT) continue; /* no data to pass */
        if (sym_ndims(fn->params[i])) {
            /* a tensor-view: root pointer, offset, dims and strides arrays */
            Sym *vs = vals[i]->sym;
            if (!vs || !sym_rare(vs)->off_sym || !sym_rare(vs)->dims_sym || !sym_rare(vs)->strides_sym) {
                /* (let ((m (progn (make-matrix ...)))) ...): a vector, not a view */
                diag_error_at(D(cx), syn, "E0484",
                              "`%s` takes a tensor-view, but argument %d is not a tensor-view variable: bind the view "
                              "with (let ((m (make-tensor-view ...))) ...) and pass m",
                              fn->name, i + 1);
                return NULL;
            }
            c->kids[c->nkids++] = vals[i];
            c->kids[c->nkids++] = ck_var_ref(cx, syn, sym_rare(vs)->off_sym);
            c->kids[c->nkids++] = ck_var_ref(cx, syn, sym_rare(vs)->dims_sym);
            c->kids[c->nkids++] = ck_var_ref(cx, syn, sym_rare(vs)->strides_sym);
        } else if (sym_rare(fn->params[i])->soa_fields) {
            Sym *vs = vals[i]->sym;
            if (!vs || !sym_rare(vs)->soa_fields) {
                /* (f (progn sv)): a value, not the soa variable whose fields are passed */
                diag_error_at(D(cx), syn, "E0563",
                              "`%s` takes a soa-vector, but argument %d is not a soa-vector variable bound to "
                              "make-soa-vector, a soa view or a soa parameter (its field vectors are what is passed): "
                              "bind it directly, (let ((sv (make-soa-vector ...))) ...)",
                              fn->name, i + 1);
                return NULL;
            }
            ck_soa_call_args(cx, syn, vs, c);
        } else if (fn->params[i]->ty->kind == TY_VECTOR) {
            Sym *vs = vals[i]->sym;
            /* a view arrives as a vector starting at its first element */
            c->kids[c->nkids++] = sym_rare(vs)->off_sym ? ck_mk2(cx, N_C_BINARY, syn, vs->ty, OP_ADD, vals[i], ck_var_ref(cx, syn, sym_rare(vs)->off_sym)) : vals[i];
            c->kids[c->nkids++] = cx_length_of(cx, syn, vs);
        } else {
            c->kids[c->nkids++] = vals[i];
        }
    }
    for (int i = 0; i < nside; i++) c->kids[c->nkids++] = side[i];
    for (int i = 1; i < nret; i++) {
        Sym *t = ck_declare_temp(cx, syn, "value", fn->ret->elems[i], NULL);
        if (!t) return NULL;
        Node *ad = ck_mk1(cx, N_C_UNARY, syn, t->ty, ck_var_ref(cx, syn, t));
        if (!ad) return NULL;
        ad->op = OP_ADDR;
        c->kids[c->nkids++] = ad;
        if (extra && i - 1 < nextra) extra[i - 1] = ck_var_ref(cx, syn, t);
    }
    if (fn->ret->kind == TY_TUPLE && fn->ret->maybe && !extra) {
        diag_error_at(ck->d, syn, "E0395", "`%s` is a %s: bind it with let-maybe, or give a fallback with or-else",
                      syn_to_string(ck->a, syn, 40), ck_tname(cx, fn->ret));
        return NULL;
    }
    if (fn->ret->kind == TY_TUPLE && !extra) c->ty = fn->ret->elems[0];
    if (fn->ret_side && 2 * (fn->ret_side - 1) < nside) {
        /* a function returning its own side channel: make the call, then
           the value is the vector this caller passed for it */
        Node *st = ck_mk1(cx, N_C_EXPR, syn, &ty_void, c);
        if (!st) return NULL;
        ck_emit_stmt(cx, st);
        return side[2 * (fn->ret_side - 1)];
    }
    return c;
}
