/* hof.c - functions as arguments to functions (spec "First Order
 * Functions").
 *
 * A def-function with a parameter typed by a signature, e.g.
 *     (def-function count-if (v pred?)
 *       (declare #'(my-vec-t #'(int => bool) => ulong)) ...)
 * has no C function of its own: the emitted code has no function pointers.
 * Each call with function arguments, (count-if v #'is-even), makes a
 * specialisation: the definition with the function parameters removed and
 * every use of them replaced by the function named at the call
 * ((pred? x) and (funcall pred? x) become (is-even x)).  The specialisation
 * is an ordinary function (C name count_if_is_even), checked and emitted
 * like a hand-written one, and made once per combination of functions.
 *
 * Such functions may be overloaded: every definition that can take the
 * call's arguments (functions where it takes functions, with the required
 * signatures) is specialised under one name, and the specialisations are
 * then ordinary overloads chosen by the other arguments.
 *
 * A function value may also live in a variable, (let ((f #'g)) ...): a
 * SYM_FNVAL known at compile time, so (f x), (funcall f x) and passing f on
 * all resolve to g. */
#include <string.h>

#include "check_int.h"

/* Is TS the syntax of a function type #'(A... => R...)? */
int ck_is_signature_type(const Node *ts) {
    return ts && syn_is_form(ts, "function") && ts->nkids == 2 && syn_is_list(ts->kids[1]);
}

/* The required parameters of FORM (N_SYMBOLs; &-sections end them). */
static int positional_params(Node *form, Node **out, int max) {
    Node *pl = form->kids[2];
    int n = 0;
    for (int i = 0; i < pl->nkids && n < max; i++) {
        Node *p = pl->kids[i];
        if (p->kind == N_SYMBOL && p->key[0] == '&') break;
        out[n++] = p;
    }
    return n;
}

#define MAX_PARAMS 32

/* (def-function NAME (params...) body...) with function-typed parameters:
 * remembered for specialisation at its calls; 1 when FORM is one. */
int ck_hof_collect(Checker *ck, Node *form) {
    if (form->nkids < 3 || form->kids[1]->kind != N_SYMBOL || !syn_is_list(form->kids[2])) return 0;
    Node *ps[MAX_PARAMS];
    int n = positional_params(form, ps, MAX_PARAMS), any = 0;
    for (int i = 0; i < n; i++) any |= ck_is_signature_type(ck_param_type_syntax(form, i));
    if (!any) return 0;
    Node *pl = form->kids[2];
    for (int i = 0; i < pl->nkids; i++)
        if (pl->kids[i]->kind == N_SYMBOL && pl->kids[i]->key[0] == '&') {
            diag_error_at(ck->d, pl->kids[i], "E0384",
                          "a function taking functions cannot also take `%s` parameters (it is specialised per call)",
                          pl->kids[i]->name);
            return 1;
        }
    for (int i = 0; i < n; i++)
        if (ps[i]->kind != N_SYMBOL) { /* as check.c says for any function */
            diag_error_at(ck->d, ps[i], "E0108", "expected a parameter name, found `%s`", syn_to_string(ck->a, ps[i], 40));
            break; /* still a function of that name: its calls stay quiet */
        }
    arena_push(ck->a, (void ***)&ck->hofs, &ck->nhofs, &ck->caphofs, form);
    return 1;
}

/* The definitions of KEY that take functions (its overloads). */
static int hof_forms(Checker *ck, const char *key, Node **out, int max) {
    int n = 0;
    for (int i = 0; i < ck->nhofs && n < max; i++)
        if (syn_streq(ck->hofs[i]->kids[1]->key, key)) out[n++] = ck->hofs[i];
    return n;
}

int ck_hof_lookup(Checker *ck, const char *key) {
    Node *f[1];
    return hof_forms(ck, key, f, 1) > 0;
}

/* Replace uses of the function parameters NAMES[i] by the functions BY[i]
 * (symbols): (P x...) and (funcall P x...) call BY, #'P and a bare P (an
 * argument passed on) become #'BY. */
static Node *subst_fns(Checker *ck, Node *syn, Node **names, Node **by, int n) {
    if (syn->kind == N_SYMBOL && !syn->ann) {
        for (int i = 0; i < n; i++)
            if (names[i]->key && syn->key && syn_streq(names[i]->key, syn->key)) {
                Node *k[2] = {syn_symbol(ck->a, syn->loc, "function"), syn_copy(ck->a, by[i])};
                k[1]->loc = syn->loc;
                Node *f = syn_list(ck->a, syn->loc, k, 2);
                f->origin = syn->origin;
                return f;
            }
        return syn;
    }
    if (syn->kind != N_LIST && syn->kind != N_VECLIT && syn->kind != N_HWVEC) return syn;
    if (syn_is_form(syn, "quote")) return syn;
    if (syn_is_form(syn, "function") && syn->nkids == 2) {
        if (syn->kids[1]->kind != N_SYMBOL) return syn; /* a signature */
        for (int i = 0; i < n; i++)
            if (names[i]->key && syn->kids[1]->key && syn_streq(names[i]->key, syn->kids[1]->key)) {
                Node *f = syn_copy(ck->a, syn);
                f->kids[1] = syn_copy(ck->a, by[i]);
                f->kids[1]->loc = syn->kids[1]->loc;
                return f;
            }
        return syn;
    }
    Node *c = syn_copy(ck->a, syn);
    int start = 0;
    if (c->kind == N_LIST && c->nkids >= 1) {
        Node *h = c->kids[0];
        int call = 0;
        if (syn_is_sym(h, "funcall") && c->nkids >= 2 && c->kids[1]->kind == N_SYMBOL) call = 1;
        Node *f = call ? c->kids[1] : h;
        for (int i = 0; f->kind == N_SYMBOL && i < n; i++)
            if (names[i]->key && f->key && syn_streq(names[i]->key, f->key)) {
                Node *nh = syn_copy(ck->a, by[i]);
                nh->loc = f->loc;
                nh->origin = f->origin;
                if (call) { /* drop `funcall` */
                    c->kids++;
                    c->nkids--;
                }
                c->kids[0] = nh;
                start = 1;
                break;
            }
    }
    for (int i = start; i < c->nkids; i++) c->kids[i] = subst_fns(ck, c->kids[i], names, by, n);
    return c;
}

/* A signature #'(...) without the elements at the function parameters'
 * positions (POS: 1 for a parameter that is removed). */
static Node *drop_signature_params(Checker *ck, Node *sig, const int *pos, int n) {
    Node *list = syn_is_form(sig, "function") ? sig->kids[1] : sig;
    Node *c = syn_copy(ck->a, list);
    int k = 0, i = 0, after = 0;
    for (int j = 0; j < list->nkids; j++) {
        Node *e = list->kids[j];
        if (syn_is_sym(e, "=>") || syn_is_sym(e, "->")) after = 1;
        int positional = !after && !(e->kind == N_SYMBOL && e->key[0] == '&');
        if (positional && i < n && pos[i++]) continue;
        c->kids[k++] = e;
    }
    c->nkids = k;
    if (list == sig) return c;
    Node *f = syn_copy(ck->a, sig);
    f->kids[1] = c;
    return f;
}

/* The specialised definition: FORM renamed NAME, without its function
 * parameters, their declarations and their signature entries. */
static Node *specialise(Checker *ck, Node *form, const char *name, const int *isfn, Node **fnames, Node **by, int nf,
                        int np) {
    Node *f = syn_copy(ck->a, form);
    f->kids[1] = syn_symbol(ck->a, form->kids[1]->loc, name);
    Node *pl = syn_copy(ck->a, form->kids[2]);
    int k = 0;
    for (int i = 0; i < form->kids[2]->nkids; i++)
        if (i >= np || !isfn[i]) pl->kids[k++] = form->kids[2]->kids[i];
    pl->nkids = k;
    f->kids[2] = pl;
    int first = 3;
    if (first < f->nkids - 1 && f->kids[first]->kind == N_STRING) first++;
    for (int j = first; j < f->nkids; j++) {
        Node *d = f->kids[j];
        if (!syn_is_form(d, "declare")) {
            f->kids[j] = subst_fns(ck, d, fnames, by, nf);
            continue;
        }
        Node *nd = syn_copy(ck->a, d);
        int m = 1;
        for (int q = 1; q < d->nkids; q++) {
            Node *e = d->kids[q];
            if (syn_is_form(e, "type") && e->nkids >= 3) {
                Node *ne = syn_copy(ck->a, e);
                int r = 1;
                for (int v = 1; v < e->nkids - 1; v++) {
                    int drop = 0;
                    for (int x = 0; x < nf; x++)
                        if (e->kids[v]->kind == N_SYMBOL && syn_streq(e->kids[v]->key, fnames[x]->key)) drop = 1;
                    if (!drop) ne->kids[r++] = e->kids[v];
                }
                if (r == 1) continue; /* only function parameters */
                ne->kids[r++] = e->kids[e->nkids - 1];
                ne->nkids = r;
                nd->kids[m++] = ne;
            } else if (e->kind == N_VECLIT || (syn_is_form(e, "function") && e->nkids == 2 && syn_is_list(e->kids[1]))) {
                nd->kids[m++] = drop_signature_params(ck, e, isfn, np);
            } else {
                nd->kids[m++] = e;
            }
        }
        nd->nkids = m;
        f->kids[j] = nd;
    }
    return f;
}


/* ------------------------------------------------------------------ */
/* function values                                                     */

/* The SYM_FNVAL that A (`f` or #'f) names, or NULL. */
static Sym *fnval_of(Ctx *cx, const Node *a) {
    if (syn_is_form(a, "function") && a->nkids == 2) a = a->kids[1];
    if (a->kind != N_SYMBOL || a->ann) return NULL;
    Sym *s = ck_scope_lookup(cx, a->key);
    return s && s->kind == SYM_FNVAL ? s : NULL;
}

/* The function A refers to: #'name, a variable holding a function (`f`
 * or #'f), or (gen-NAME TYPES...) - spec "gen-XXXX": (fold v (gen-addTwo
 * int)) - which names the template NAME (its instance for TYPES is made
 * where the argument is checked, hof_fits); NULL when A is not a function. */
Node *ck_fn_reference(Ctx *cx, Node *a) {
    Sym *s = fnval_of(cx, a);
    if (s) return sym_rare(s)->fn_name;
    if (syn_is_form(a, "function") && a->nkids == 2 && a->kids[1]->kind == N_SYMBOL) return a->kids[1];
    if (ck_template_is_gen(a)) return syn_symbol(cx->ck->a, a->kids[0]->loc, a->kids[0]->name + 4);
    return NULL;
}

/* Where to report a problem with the function argument A: its name. */
static const Node *fn_at(const Node *a) { return syn_is_form(a, "function") && a->nkids == 2 ? a->kids[1] : a; }

/* Is INIT a function value (#'name or a function variable)? */
int ck_fnval_init(Ctx *cx, const Node *init) {
    return init && (fnval_of(cx, init) || (syn_is_form(init, "function") && init->nkids == 2 && init->kids[1]->kind == N_SYMBOL) ||
                    ck_template_is_gen_function(cx->ck, init));
}

/* Is KEY a function the compiler makes for a struct (spec "Struct Types":
 * the accessor x~ is #'(point => float), make-point #'(float float =>
 * point))?  It is passed through a wrapper with the required signature; an
 * accessor that does not fit is reported when the wrapper is checked. */
static int generated_function(Checker *ck, const char *key) {
    size_t n = strlen(key);
    if (n > 1 && key[n - 1] == '~') return 1;
    Sym *s = !strncmp(key, "make-", 5) ? ck_global_lookup(ck, key + 5) : NULL;
    return s && s->kind == SYM_TYPE && s->ty && s->ty->kind == TY_STRUCT;
}

/* Is KEY a function that can be referred to by #'KEY? */
static int known_function(Checker *ck, const char *key) {
    FuncDef *c[1];
    return ck_func_overloads(ck, key, c, 1) > 0 || ck_template_lookup(ck, key) || ck_hof_lookup(ck, key) || generated_function(ck, key);
}

/* The wrapper (def-function NAME(T...) (%a0...) (declare SIG) (NAME %a0...))
 * that calls FN with exactly SIG's parameter types PS (C name CBASE_fn),
 * made once; its name. */
static Node *signature_wrapper(Ctx *cx, Node *fn, Node *sig, Type **ps, int n, const char *cbase, const Node *src) {
    Checker *ck = cx->ck;
    const char *tys = "";
    for (int j = 0; j < n; j++) tys = arena_printf(ck->a, "%s%s%s", tys, j ? " " : "", ck_tname(cx, ps[j]));
    Node *wsym = syn_symbol(ck->a, fn->loc, arena_printf(ck->a, "%s(%s)", fn->name, tys));
    FuncDef *old[1];
    if (ck_func_overloads(ck, wsym->key, old, 1) > 0) return wsym;
    Node **params = arena_alloc(ck->a, sizeof(Node *) * (size_t)(n + 1));
    Node **call = arena_alloc(ck->a, sizeof(Node *) * (size_t)(n + 2));
    if (!params || !call) return NULL;
    call[0] = syn_copy(ck->a, fn);
    for (int j = 0; j < n; j++) params[j] = call[j + 1] = syn_symbol(ck->a, fn->loc, arena_printf(ck->a, "%%a%d", j));
    Node *k[5] = {syn_symbol(ck->a, fn->loc, "def-function"), wsym, syn_list(ck->a, fn->loc, params, n),
                  cx_list(cx, fn, 2, cx_sym(cx, fn, "declare"), syn_copy(ck->a, sig)), syn_list(ck->a, fn->loc, call, n + 1)};
    FuncDef *w = ck_collect_instance(ck, syn_list(ck->a, fn->loc, k, 5), FN_FUNCTION, ck_name_join(ck, cbase, "fn"));
    if (!w) return NULL;
    w->hof_src = src;
    return wsym;
}

/* The function to use for FN where the signature SIG is required: FN
 * itself when it has one definition (or is a template, or takes
 * functions), otherwise a wrapper with exactly SIG's parameter types that
 * calls FN, so the overload with that signature is the one called.  *CPART
 * (if given) receives the C name part naming it.  NULL when no definition
 * has SIG; then WHAT (if not NULL) names the requirement in the error. */
static Node *fn_for_signature(Ctx *cx, Node *fn, Node *sig, const Node *at, const char *what, const char **cpart) {
    Checker *ck = cx->ck;
    FuncDef *c[64];
    int nc = ck_func_overloads(ck, fn->key, c, 64);
    if (cpart) *cpart = ck_mangle(ck, fn->name);
    Type **ps = NULL, *ret = NULL;
    int *outs = NULL, n = 0;
    if (nc == 0) {
        if (ck_template_lookup(ck, fn->key) || ck_hof_lookup(ck, fn->key)) return fn;
        if (generated_function(ck, fn->key)) /* x~, make-point */
            return ck_parse_signature(ck, sig, &ps, &outs, &n, &ret) ? signature_wrapper(cx, fn, sig, ps, n, ck_mangle(ck, fn->name), NULL) : NULL;
        if (what) diag_error_at(ck->d, at, "E0382", "unknown function `%s` %s", fn->name, what);
        return NULL;
    }
    if (!ck_parse_signature(ck, sig, &ps, &outs, &n, &ret)) return NULL;
    FuncDef *match = NULL;
    for (int i = 0; i < nc && !match; i++) {
        ck_resolve_signature(ck, c[i]);
        if (c[i]->bad || c[i]->nparams != n) continue;
        int ok = ty_equal(c[i]->ret, ret);
        for (int j = 0; ok && j < n; j++) ok = ty_equal(c[i]->params[j].ty, ps[j]);
        if (ok) match = c[i];
    }
    if (!match) {
        if (what)
            diag_error_at(ck->d, at, "E0383", "`%s` does not have the signature %s that %s requires", fn->name,
                          syn_to_string(ck->a, sig, 60), what);
        return NULL;
    }
    if (nc == 1 && !ck_template_lookup(ck, fn->key)) {
        if (cpart && match->hof_src) *cpart = match->cname_base; /* a wrapper: positive_p_float_fn */
        return fn;
    }
    /* overloaded: a wrapper with exactly SIG that calls the right overload */
    if (cpart) *cpart = match->cname_base;
    return signature_wrapper(cx, fn, sig, ps, n, match->cname_base, match->form);
}

/* (let ((NAME INIT)) (declare (type NAME SIG))...) - spec "First Order
 * Functions": NAME holds the function INIT refers to, at compile time. */
Sym *ck_fnval_bind(Ctx *cx, Node *name, Node *init, Node *sig) {
    Checker *ck = cx->ck;
    if (!sig && init && ck_template_is_gen_function(ck, init)) {
        /* (let ((f (gen-NAME ARGS...))) (f)): the instance, made here (spec
           "generating scratch vectors"); calls of f call it */
        FuncDef *inst = ck_template_function_arg(ck, init);
        if (!inst) return NULL;
        Sym *s = ck_sym_named(ck, SYM_FNVAL, name);
        if (!s) return NULL;
        sym_rare_w(cx->ck->a, s)->fn_name = syn_symbol(ck->a, init->kids[0]->loc, inst->name);
        sym_rare_w(cx->ck->a, s)->fn_inst = inst;
        s->fn_depth = cx->branch_depth;
        return s;
    }
    Node *fn = init ? ck_fn_reference(cx, init) : NULL;
    if (!fn) {
        diag_error_at(ck->d, init ? init : name, "E0385",
                      "`%s` is declared a function %s, so it must be bound to one, (%s #'name); found `%s`", name->name,
                      syn_to_string(ck->a, sig, 60), name->name, init ? syn_to_string(ck->a, init, 40) : "no value");
        return NULL;
    }
    Sym *from = fnval_of(cx, init);
    if (!sig && from) sig = sym_rare(from)->fn_sig;
    const char *what = arena_printf(ck->a, "the variable `%s`", name->name);
    Node *use = fn;
    if (sig && !(from && sym_rare(from)->fn_sig == sig)) {
        use = fn_for_signature(cx, fn, sig, fn_at(init), what, NULL);
    } else if (!known_function(ck, fn->key) && !ck_builtin_function_value(fn->key)) {
        diag_error_at(ck->d, fn_at(init), "E0382", "unknown function `%s` bound to `%s`", fn->name, name->name);
        use = NULL;
    }
    if (!use) return NULL;
    Sym *s = ck_sym_named(ck, SYM_FNVAL, name);
    if (!s) return NULL;
    sym_rare_w(cx->ck->a, s)->fn_name = use;
    sym_rare_w(cx->ck->a, s)->fn_sig = sig;
    s->fn_depth = cx->branch_depth;
    return s;
}

/* (set! F VALUE) where F holds a function - spec "First Order Functions"
 * (no function pointers): allowed where F stays known at compile time, not
 * inside a branch or loop the binding is outside of. */
Node *ck_fnval_set(Ctx *cx, Sym *s, Node *place_syn, Node *value) {
    Checker *ck = cx->ck;
    if (cx->branch_depth != s->fn_depth) {
        diag_error_at(ck->d, place_syn, "E0387",
                      "`%s` holds a function, which must be known at compile time: it cannot be set! inside a branch or "
                      "loop (there are no function pointers; bind another variable with let instead)",
                      s->name);
        return NULL;
    }
    Node *fn = ck_fn_reference(cx, value);
    if (!fn) {
        diag_error_at(ck->d, value, "E0387", "`%s` holds a function: it can only be set! to another function, #'name; found `%s`",
                      s->name, syn_to_string(ck->a, value, 40));
        return NULL;
    }
    Node *use = fn;
    const char *what = arena_printf(ck->a, "the variable `%s`", s->name);
    if (sym_rare(s)->fn_sig) {
        use = fn_for_signature(cx, fn, sym_rare(s)->fn_sig, fn_at(value), what, NULL);
    } else if (!known_function(ck, fn->key) && !ck_builtin_function_value(fn->key)) {
        diag_error_at(ck->d, fn_at(value), "E0382", "unknown function `%s` assigned to `%s`", fn->name, s->name);
        use = NULL;
    }
    if (!use) return NULL;
    sym_rare_w(cx->ck->a, s)->fn_name = use;
    sym_rare_w(cx->ck->a, s)->fn_inst = NULL;
    Node *n = ck_node(cx, N_C_INTLIT, place_syn, &ty_void); /* no run-time effect */
    return n;
}

/* A function variable used as a run-time value. */
Node *ck_fnval_use_error(Ctx *cx, const Node *at, const Sym *s) {
    diag_error_at(cx->ck->d, at, "E0386",
                  "`%s` holds the function `%s`: call it, (%s ...) or (funcall %s ...), or pass it to a parameter typed "
                  "#'(...); it is not a run-time value (there are no function pointers)",
                  s->name, sym_rare(s)->fn_name->name, s->name, s->name);
    return NULL;
}

/* (funcall F ARG...) and (F ARG...) where F holds a function - spec "First
 * Order Functions": the call of the function F refers to. */
Node *ck_fnval_call(Ctx *cx, Node *syn, Type *want) {
    Checker *ck = cx->ck;
    int fc = syn_is_sym(syn->kids[0], "funcall");
    if (fc && !ck_nargs_ok(cx, syn, 1, -1)) return NULL;
    Node *f = fc ? syn->kids[1] : syn->kids[0];
    if (fc && ck_template_is_gen(f)) {
        /* (funcall (gen-NAME T...) ARG...): that instance (spec "gen-XXXX",
           "generating scratch vectors") */
        FuncDef *inst = ck_template_function_arg(ck, f);
        if (!inst) return NULL;
        Node *c = syn_copy(ck->a, syn);
        c->kids++;
        c->nkids--;
        c->kids[0] = syn_symbol(ck->a, f->loc, inst->name);
        c->kids[0]->origin = f->origin;
        ck->forced_callee = inst;
        return ck_user_call(cx, c, want, NULL, 0);
    }
    Sym *held = fnval_of(cx, f);
    if (held && sym_rare(held)->fn_inst) {
        /* a variable bound to (gen-NAME ARGS...): that instance */
        Node *c = syn_copy(ck->a, syn);
        if (fc) {
            c->kids++;
            c->nkids--;
        }
        c->kids[0] = syn_symbol(ck->a, f->loc, sym_rare(held)->fn_inst->name);
        c->kids[0]->origin = f->origin;
        ck->forced_callee = sym_rare(held)->fn_inst;
        return ck_user_call(cx, c, want, NULL, 0);
    }
    Node *fn = ck_fn_reference(cx, f);
    Sym *poisoned = f->kind == N_SYMBOL ? ck_scope_lookup(cx, f->key) : NULL;
    if (!fn && poisoned && poisoned->kind == SYM_LOCAL && !poisoned->ty) return NULL; /* its binding failed (reported) */
    if (!fn) {
        diag_error_at(ck->d, f, "E0386", "`funcall` needs a function, #'name or a variable bound to one; found `%s`",
                      syn_to_string(ck->a, f, 40));
        return NULL;
    }
    Node *c = syn_copy(ck->a, syn);
    if (fc) {
        c->kids++;
        c->nkids--;
    }
    c->kids[0] = syn_copy(ck->a, fn);
    c->kids[0]->loc = f->loc;
    c->kids[0]->origin = f->origin;
    /* by key, not through the scope: a local may shadow the name */
    if (known_function(ck, fn->key)) return ck_user_call(cx, c, want, NULL, 0);
    return ck_expr(cx, c, want);
}

/* ------------------------------------------------------------------ */
/* calls                                                               */

/* Can FORM take the arguments of the call SYN?  Its function parameters
 * need functions with their signatures (BY receives the function to
 * substitute, SPELLED the function as written, CPART its C name part), the
 * others anything but a function.  REPORT: say why not. */
static int hof_fits(Ctx *cx, Node *form, Node *syn, int *isfn, Node **spelled, Node **by, const char **cpart, int report) {
    Checker *ck = cx->ck;
    Node *ps[MAX_PARAMS];
    int np = positional_params(form, ps, MAX_PARAMS), n = syn->nkids - 1;
    if (n != np) {
        if (report)
            diag_error_at(ck->d, syn, "E0370", "`%s` takes %d argument%s, found %d", form->kids[1]->name, np, np == 1 ? "" : "s", n);
        return 0;
    }
    for (int i = 0; i < np; i++) {
        Node *ts = ck_param_type_syntax(form, i), *a = syn->kids[i + 1];
        Node *fn = ck_fn_reference(cx, a);
        isfn[i] = ck_is_signature_type(ts);
        if (!isfn[i]) {
            if (fn && report)
                diag_error_at(ck->d, a, "E0388", "argument %d of `%s` (`%s`) is not a function parameter, but `%s` is a function",
                              i + 1, form->kids[1]->name, ps[i]->name, syn_to_string(ck->a, a, 40));
            if (fn) return 0;
            continue;
        }
        if (!fn) {
            if (report)
                diag_error_at(ck->d, a, "E0381", "argument %d of `%s` (`%s`) must be a function, written #'name; found `%s`", i + 1,
                              form->kids[1]->name, ps[i]->name, syn_to_string(ck->a, a, 40));
            return 0;
        }
        const char *what = report ? arena_printf(ck->a, "`%s` of `%s`", ps[i]->name, form->kids[1]->name) : NULL;
        if (!known_function(ck, fn->key)) {
            if (report)
                diag_error_at(ck->d, fn_at(a), "E0382", "unknown function `%s` passed as `%s` to `%s`", fn->name, ps[i]->name,
                              form->kids[1]->name);
            return 0;
        }
        if (ck_template_is_gen(a) && !ck_template_function_arg(ck, a)) return 0; /* the instance, with its constraints */
        spelled[i] = fn;
        by[i] = fn_for_signature(cx, fn, ts, fn_at(a), what, &cpart[i]);
        if (!by[i]) return 0;
    }
    return 1;
}

/* The specialisation of FORM for the functions BY (made once), under the
 * name KEY shared by the specialisations of every overload of FORM's name. */
static FuncDef *specialisation(Ctx *cx, Node *form, const char *key, const int *isfn, Node **by, const char **cpart, int overloaded) {
    Checker *ck = cx->ck;
    FuncDef *c[64];
    int nc = ck_func_overloads(ck, syn_lower(ck->a, key), c, 64);
    for (int i = 0; i < nc; i++)
        if (c[i]->hof_src == form) return c[i];
    Node *ps[MAX_PARAMS], *fnames[MAX_PARAMS], *fby[MAX_PARAMS];
    int np = positional_params(form, ps, MAX_PARAMS), nf = 0;
    const char *cname = ck_mangle(ck, form->kids[1]->name);
    for (int i = 0; i < np; i++)
        if (isfn[i]) {
            fnames[nf] = ps[i];
            fby[nf++] = by[i];
            cname = ck_name_join(ck, cname, cpart[i]);
        }
    Node *sf = specialise(ck, form, key, isfn, fnames, fby, nf, np);
    FuncDef *fd = ck_collect_instance(ck, sf, FN_FUNCTION, cname);
    if (!fd) return NULL;
    fd->hof_src = form;
    if (overloaded) {
        fd->cname_base = ck_overload_cname(ck, fd, cname);
        ck_fnbase_put(ck, fd->cname_base, fd);
    }
    return fd;
}

/* (NAME args...) where NAME takes functions: the call of the
 * specialisation for the functions given (#'F, or variables holding one).
 * *HANDLED is 0 when the call passes no functions and NAME also has
 * ordinary overloads: the caller resolves it among those. */
Node *ck_hof_call(Ctx *cx, Node *syn, Type *want, int *handled) {
    Checker *ck = cx->ck;
    *handled = 1;
    Node *forms[64];
    FuncDef *plain[1];
    const char *name = syn->kids[0]->name;
    int nforms = hof_forms(ck, syn->kids[0]->key, forms, 64), nplain = ck_func_overloads(ck, syn->kids[0]->key, plain, 1);
    int n = syn->nkids - 1, anyfn = 0;
    for (int i = 0; i < n; i++) anyfn |= ck_fn_reference(cx, syn->kids[i + 1]) != NULL;
    if (!anyfn && nplain) {
        *handled = 0;
        return NULL;
    }
    if (n > MAX_PARAMS) n = MAX_PARAMS;
    int isfn[MAX_PARAMS] = {0}, viable = 0, overloaded = nforms + nplain > 1;
    const char *key = NULL;
    int errs = ck->d->errors;
    for (int f = 0; f < nforms; f++) {
        int fis[MAX_PARAMS] = {0};
        Node *fsp[MAX_PARAMS] = {0}, *fby[MAX_PARAMS] = {0};
        const char *fcp[MAX_PARAMS] = {0};
        if (!hof_fits(cx, forms[f], syn, fis, fsp, fby, fcp, !overloaded)) {
            if (ck->d->errors > errs) return NULL;
            continue;
        }
        if (!key) { /* the specialisations' shared name: NAME/F... */
            key = name;
            for (int i = 0; i < n; i++)
                if (fis[i]) key = arena_printf(ck->a, "%s/%s", key, fsp[i]->name);
            memcpy(isfn, fis, sizeof isfn);
        }
        if (!specialisation(cx, forms[f], key, fis, fby, fcp, overloaded)) return NULL;
        viable++;
    }
    if (!viable) {
        diag_error_at(ck->d, syn, "E0388", "no definition of `%s` takes these arguments (functions where it takes functions, "
                                           "with the signatures it requires)", name);
        for (int f = 0; f < nforms; f++) diag_note(ck->d, forms[f]->loc, "candidate: (%s %s)", name, syn_to_string(ck->a, forms[f]->kids[2], 50));
        return NULL;
    }
    /* the call of the specialisation with the remaining arguments */
    Node **k = arena_alloc(ck->a, sizeof(Node *) * (size_t)(n + 1));
    if (!k) return NULL;
    int m = 0;
    k[m++] = syn_symbol(ck->a, syn->kids[0]->loc, key);
    for (int i = 0; i < n; i++)
        if (!isfn[i]) k[m++] = syn->kids[i + 1];
    Node *call = syn_list(ck->a, syn->loc, k, m);
    call->origin = syn->origin;
    return ck_user_call(cx, call, want, NULL, 0);
}
