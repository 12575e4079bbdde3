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
 * like a hand-written one, and made once per combination of functions. */
#include <string.h>

#include "check_int.h"

/* Is TS the syntax of a function type #'(A... => R...)? */
static int is_signature_type(const Node *ts) {
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
int hof_collect(Checker *ck, Node *form) {
    if (form->nkids < 3 || form->kids[1]->kind != N_SYMBOL || !syn_is_list(form->kids[2])) return 0;
    Node *ps[MAX_PARAMS];
    int n = positional_params(form, ps, MAX_PARAMS), any = 0;
    for (int i = 0; i < n; i++) any |= is_signature_type(param_type_syntax(form, i));
    if (!any) return 0;
    Node *pl = form->kids[2];
    for (int i = 0; i < pl->nkids; i++)
        if (pl->kids[i]->kind == N_SYMBOL && pl->kids[i]->key[0] == '&') {
            diag_error_at(ck->d, pl->kids[i], "E0384",
                          "a function taking functions cannot also take `%s` parameters (it is specialised per call)",
                          pl->kids[i]->name);
            return 1;
        }
    for (int i = 0; i < ck->nhofs; i++)
        if (!strcmp(ck->hofs[i]->kids[1]->key, form->kids[1]->key)) {
            diag_error_at(ck->d, form->kids[1], "E0384",
                          "`%s` takes functions and is already defined: such functions cannot be overloaded",
                          form->kids[1]->name);
            diag_note(ck->d, ck->hofs[i]->loc, "previous definition is here");
            return 1;
        }
    ck_push(ck->a, (void ***)&ck->hofs, &ck->nhofs, &ck->caphofs, form);
    return 1;
}

static Node *hof_form(Checker *ck, const char *key) {
    for (int i = 0; i < ck->nhofs; i++)
        if (!strcmp(ck->hofs[i]->kids[1]->key, key)) return ck->hofs[i];
    return NULL;
}

int hof_lookup(Checker *ck, const char *key) { return hof_form(ck, key) != NULL; }

/* Replace uses of the function parameters NAMES[i] by the functions BY[i]
 * (symbols): (P x...) and (funcall P x...) call BY, #'P and a bare P (an
 * argument passed on) become #'BY. */
static Node *subst_fns(Checker *ck, Node *syn, Node **names, Node **by, int n) {
    if (syn->kind == N_SYMBOL && !syn->ann) {
        for (int i = 0; i < n; i++)
            if (!strcmp(names[i]->key, syn->key)) {
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
            if (!strcmp(names[i]->key, syn->kids[1]->key)) {
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
            if (!strcmp(names[i]->key, f->key)) {
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
                        if (e->kids[v]->kind == N_SYMBOL && !strcmp(e->kids[v]->key, fnames[x]->key)) drop = 1;
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

/* Does the function NAME have an overload (ONLY, when given) with exactly
 * the signature SIG? */
static int matches_signature(Checker *ck, const char *key, Node *sig, FuncDef *only) {
    Type **ps = NULL, *ret = NULL;
    int *outs = NULL, n = 0;
    if (!parse_signature(ck, sig, &ps, &outs, &n, &ret)) return -1;
    FuncDef *c[64];
    int nc = only ? 1 : func_overloads(ck, key, c, 64);
    if (only) c[0] = only;
    for (int i = 0; i < nc; i++) {
        resolve_signature(ck, c[i]);
        if (c[i]->bad || c[i]->nparams != n) continue;
        int ok = ty_equal(c[i]->ret, ret);
        for (int j = 0; ok && j < n; j++) ok = ty_equal(c[i]->params[j].ty, ps[j]);
        if (ok) return 1;
    }
    return 0;
}

/* (NAME args...) where NAME takes functions: the call of its
 * specialisation for the functions given as #'F. */
Node *hof_call(Ctx *cx, Node *syn, Type *want) {
    Checker *ck = cx->ck;
    Node *form = hof_form(ck, syn->kids[0]->key);
    Node *ps[MAX_PARAMS];
    int np = positional_params(form, ps, MAX_PARAMS), n = syn->nkids - 1;
    if (n != np) {
        diag_error_at(ck->d, syn, "E0370", "`%s` takes %d argument%s, found %d", form->kids[1]->name, np, np == 1 ? "" : "s", n);
        return NULL;
    }
    int isfn[MAX_PARAMS] = {0};
    Node *fnames[MAX_PARAMS], *by[MAX_PARAMS];
    int nf = 0;
    const char *key = form->kids[1]->name, *cname = mangle(ck->a, form->kids[1]->name);
    for (int i = 0; i < np; i++) {
        Node *ts = param_type_syntax(form, i);
        if (!is_signature_type(ts)) continue;
        Node *a = syn->kids[i + 1];
        Node *fn = syn_is_form(a, "function") && a->nkids == 2 && a->kids[1]->kind == N_SYMBOL ? a->kids[1] : NULL;
        FuncDef *inst = NULL;
        if (!fn && template_is_gen(a)) {
            /* (gen-NAME TYPES...): that instance of a templated function */
            inst = template_function_arg(ck, a);
            if (!inst) return NULL;
            fn = syn_symbol(ck->a, a->loc, inst->name);
        }
        if (!fn) {
            diag_error_at(ck->d, a, "E0381", "argument %d of `%s` (`%s`) must be a function, written #'name; found `%s`", i + 1,
                          form->kids[1]->name, ps[i]->name, syn_to_string(ck->a, a, 40));
            return NULL;
        }
        FuncDef *c[1];
        int known = func_overloads(ck, fn->key, c, 1) > 0;
        if (!known && !template_lookup(ck, fn->key) && !hof_lookup(ck, fn->key)) {
            diag_error_at(ck->d, fn, "E0382", "unknown function `%s` passed as `%s` to `%s`", fn->name, ps[i]->name,
                          form->kids[1]->name);
            return NULL;
        }
        if (known) {
            int m = matches_signature(ck, fn->key, ts, inst);
            if (m < 0) return NULL;
            if (!m) {
                diag_error_at(ck->d, fn, "E0383", "`%s` does not have the signature %s that `%s` of `%s` requires",
                              inst ? syn_to_string(ck->a, a, 40) : fn->name,
                              syn_to_string(ck->a, ts, 60), ps[i]->name, form->kids[1]->name);
                return NULL;
            }
        }
        isfn[i] = 1;
        fnames[nf] = ps[i];
        by[nf++] = fn;
        key = arena_printf(ck->a, "%s/%s", key, fn->name);
        cname = arena_printf(ck->a, "%s_%s", cname, mangle(ck->a, fn->name));
    }
    FuncDef *c[1];
    if (func_overloads(ck, syn_lower(ck->a, key), c, 1) == 0) {
        Node *sf = specialise(ck, form, key, isfn, fnames, by, nf, np);
        if (!collect_instance(ck, sf, FN_FUNCTION, cname)) return NULL;
    }
    /* the call of the specialisation with the remaining arguments */
    Node **k = arena_alloc(ck->a, sizeof(Node *) * (size_t)(np + 1));
    if (!k) return NULL;
    int m = 0;
    k[m++] = syn_symbol(ck->a, syn->kids[0]->loc, key);
    for (int i = 0; i < np; i++)
        if (!isfn[i]) k[m++] = syn->kids[i + 1];
    Node *call = syn_list(ck->a, syn->loc, k, m);
    call->origin = syn->origin;
    return user_call(cx, call, want, NULL, 0);
}
