/* orch.c - def-orchestration and let-kernel: which kernels run one after
 * another, with which arguments (spec "Hoisting and def-orchestration" and
 * its subsections "default" orchestration, argument passing, kernel
 * template instantiation, template def-orchestration, More notes on
 * def-orchestration (dotimes), launch specification, launch-sequential,
 * launch-parallel, launch-interleaved; spec "Continuation Kernels":
 * let-kernel, Variable Capture, kernel-name).
 *
 * An orchestration is not Crisp code that runs: it is a description the
 * hoists print as host code (emit-hoist/) and the metadata lists.  The
 * checker resolves each launch specification to a kernel (instantiating
 * `gen-` forms, which is how an orchestration affects the compilation),
 * checks the argument count, and resolves each argument to `_` (a fresh
 * argument of the orchestration) or `KERNEL::VAR` (a vector an earlier
 * step used).  A continuation kernel (let-kernel) is collected as a kernel
 * of its own, and its declared invocation becomes a two-step orchestration.
 * The result is Program.orchs (types/check.h); docs/orchestration.md. */
#include <stdio.h>
#include <string.h>

#include "check_int.h"

/* The forms of the orchestrations, resolved once every kernel is known. */
typedef struct OrchForm {
    Node *form;
    const char *name;       /* NULL: the form's own name */
} OrchForm;

void orch_collect(Checker *ck, Node *form, const char *name) {
    if (form->nkids < 2 || form->kids[1]->kind != N_SYMBOL) {
        diag_error_at(ck->d, form, "E1200", "expected (def-orchestration NAME (launch-...)...)");
        return;
    }
    OrchForm *of = arena_alloc(ck->a, sizeof *of);
    if (!of) return;
    of->form = form;
    of->name = name;
    arena_push(ck->a, (void ***)&ck->orch_forms, &ck->norch_forms, &ck->caporch_forms, of);
}


/* The kernel a (gen-K ARGS... "name") names, instantiating it: a kernel
 * template's instance, or (gen-K nil "name") of a kernel that is not
 * templated: a copy under a new name (spec "launch specification"). */
static FuncDef *gen_kernel(Checker *ck, Node *g) {
    const char *k = syn_head(g) + 4;
    Node *last = g->kids[g->nkids - 1];
    if (g->nkids < 2 || last->kind != N_STRING) {
        diag_error_at(ck->d, g, "E1202", "`%s` in an orchestration needs a kernel name: (gen-%s ARGS... \"kernel_name\")",
                      g->kids[0]->name, k);
        return NULL;
    }
    FuncDef *have = strmap_get(&ck->kernels_idx, last->name);
    if (have) return have; /* made by an earlier step or a top-level gen- */
    FuncDef *plain = strmap_get(&ck->kernels_idx, k);
    if (plain && !ck_template_lookup(ck, k)) {
        if (g->nkids != 3 || !syn_is_nil(g->kids[1])) {
            diag_error_at(ck->d, g, "E1202", "kernel `%s` is not templated: rename it with (gen-%s nil \"kernel_name\")", k, k);
            return NULL;
        }
        Node *form = syn_copy(ck->a, plain->form);
        form->kids[1] = syn_symbol(ck->a, last->loc, last->name);
        return ck_collect_instance(ck, form, FN_KERNEL, last->name);
    }
    int errs = ck->d->errors;
    ck_template_gen(ck, g);
    FuncDef *made = strmap_get(&ck->kernels_idx, last->name);
    if (!made && ck->d->errors == errs)
        diag_error_at(ck->d, g, "E1203", "`%s` makes no kernel (is `%s` a templated kernel?)", g->kids[0]->name, k);
    return made;
}

/* The kernel of launch specification head H: #'K or (gen-K ...). */
static FuncDef *step_kernel(Checker *ck, Node *h, const char *orch) {
    if (syn_is_form(h, "function") && h->nkids == 2 && h->kids[1]->kind == N_SYMBOL) {
        FuncDef *fd = strmap_get(&ck->kernels_idx, h->kids[1]->name);
        if (!fd) {
            if (ck_template_lookup(ck, h->kids[1]->name))
                diag_error_at(ck->d, h->kids[1], "E1203",
                              "orchestration `%s`: kernel `%s` is templated; launch an instance: (gen-%s TYPE... \"kernel_name\")", orch,
                              h->kids[1]->name, h->kids[1]->name);
            else
                diag_error_at(ck->d, h->kids[1], "E1203", "orchestration `%s` names no kernel `%s`", orch, h->kids[1]->name);
        }
        return fd;
    }
    if (h->kind == N_SYMBOL) {
        FuncDef *fd = strmap_get(&ck->kernels_idx, h->name);
        if (!fd) diag_error_at(ck->d, h, "E1203", "orchestration `%s` names no kernel `%s`", orch, h->name);
        return fd;
    }
    if (ck_template_is_gen(h)) return gen_kernel(ck, h);
    diag_error_at(ck->d, h, "E1202", "expected a launch specification (#'KERNEL, (gen-KERNEL ...) or (KERNEL ARG...)), found `%s`",
                  syn_to_string(ck->a, h, 40));
    return NULL;
}

static int param_index(Checker *ck, FuncDef *fd, const char *name) {
    const char *key = syn_lower(ck->a, name);
    for (int i = 0; i < fd->nparams; i++)
        if (syn_streq(fd->params[i].name->key, key)) return i;
    return -1;
}

/* KERNEL::VAR naming a vector of an earlier step (the latest step of that
 * kernel); 0 after an error. */
static int resolve_ref(Checker *ck, Orchestration *o, int upto, Node *a, OrchArg *out, const char *orch) {
    const char *sep = a->kind == N_SYMBOL ? strstr(a->name, "::") : NULL;
    if (!sep) {
        diag_error_at(ck->d, a, "E1202", "an argument in an orchestration is `_` or KERNEL::VAR, found `%s`", syn_to_string(ck->a, a, 40));
        return 0;
    }
    const char *kname = arena_strndup(ck->a, a->name, (size_t)(sep - a->name));
    const char *var = sep + 2;
    for (int s = upto - 1; s >= 0; s--) {
        if (strcmp(o->steps[s].kernel, kname)) continue;
        FuncDef *fd = strmap_get(&ck->kernels_idx, kname);
        out->step = s;
        out->param = fd ? param_index(ck, fd, var) : -1;
        if (out->param < 0) out->side = arena_strdup(ck->a, var); /* a side channel: checked with the kernel (orch_finish) */
        return 1;
    }
    if (strmap_get(&ck->kernels_idx, kname))
        diag_error_at(ck->d, a, "E1205", "orchestration `%s`: `%s` refers to kernel `%s`, which no earlier step launches", orch, a->name, kname);
    else
        diag_error_at(ck->d, a, "E1205", "orchestration `%s`: `%s` refers to `%s`, which is no kernel", orch, a->name, kname);
    return 0;
}

/* A value the host computes (spec "More notes on def-orchestration"): an
 * integer, a run-time loop's variable (of a loop the form is in), (length
 * KERNEL::VAR) of a vector an earlier step used, or (+ - * / A B...);
 * NULL after an error (E1209). */
static OrchExpr *host_expr(Checker *ck, Orchestration *o, Node *e) {
    OrchExpr *x = arena_alloc(ck->a, sizeof *x);
    if (!x) return NULL;
    memset(x, 0, sizeof *x);
    if (e->kind == N_INT && e->ival >= 0) {
        x->op = 'n';
        x->num = (long long)e->ival;
        return x;
    }
    if (e->kind == N_SYMBOL && !strstr(e->name, "::")) {
        for (int i = o->nloops - 1; i >= 0; i--)
            if (o->loops[i].end < 0 && !strcmp(syn_lower(ck->a, o->loops[i].var), syn_lower(ck->a, e->name))) {
                x->op = 'v';
                x->loop = i;
                return x;
            }
        diag_error_at(ck->d, e, "E1209", "orchestration `%s`: `%s` is no variable of a do-times-by-doubling or do-times-by-half around it",
                      o->name, e->name);
        return NULL;
    }
    const char *h = syn_head(e);
    if (h && syn_streq(h, "length") && e->nkids == 2) {
        OrchArg ref;
        memset(&ref, 0, sizeof ref);
        if (!resolve_ref(ck, o, o->nsteps, e->kids[1], &ref, o->name)) return NULL;
        FuncDef *fd = ref.param >= 0 ? strmap_get(&ck->kernels_idx, o->steps[ref.step].kernel) : NULL;
        if (fd && !fd->resolved) ck_resolve_signature(ck, fd);
        if (!fd || !fd->params[ref.param].ty || fd->params[ref.param].ty->kind != TY_VECTOR) {
            diag_error_at(ck->d, e->kids[1], "E1209", "orchestration `%s`: (length %s) takes a vector parameter of an earlier step", o->name,
                          e->kids[1]->name);
            return NULL;
        }
        x->op = 'l';
        x->step = ref.step;
        x->param = ref.param;
        return x;
    }
    if (h && (syn_streq(h, "+") || syn_streq(h, "-") || syn_streq(h, "*") || syn_streq(h, "/")) && e->nkids >= 3) {
        OrchExpr *acc = host_expr(ck, o, e->kids[1]);
        for (int i = 2; acc && i < e->nkids; i++) {
            OrchExpr *r = host_expr(ck, o, e->kids[i]);
            OrchExpr *b = r ? arena_alloc(ck->a, sizeof *b) : NULL;
            if (!b) return NULL;
            memset(b, 0, sizeof *b);
            b->op = h[0];
            b->l = acc;
            b->r = r;
            acc = b;
        }
        return acc;
    }
    diag_error_at(ck->d, e, "E1209",
                  "orchestration `%s`: a value the host computes is an integer, a loop variable, (length KERNEL::VAR) or (+ - * / A B), found `%s`",
                  o->name, syn_to_string(ck->a, e, 40));
    return NULL;
}

/* One launch specification: a step of `o`. */
static void launch_spec(Checker *ck, Orchestration *o, Node *spec, OrchMode mode, const char *orch) {
    Node *head = spec;
    Node **args = NULL;
    Node *gsize = NULL; /* `:global-size EXPR` after the arguments */
    int nargs = -1; /* kernel only: every argument is `_` */
    if (syn_is_list(spec) && spec->nkids && !syn_is_form(spec, "function") && !ck_template_is_gen(spec)) {
        head = spec->kids[0];
        args = spec->kids + 1;
        nargs = spec->nkids - 1;
        for (int i = 0; i < nargs; i++) {
            if (args[i]->kind != N_KEYWORD) continue;
            if (!syn_is_kw(args[i], "global-size") || i + 2 != nargs) {
                diag_error_at(ck->d, args[i], "E1209",
                              "orchestration `%s`: a launch specification takes `:global-size EXPR` after its arguments, found `%s`", orch,
                              syn_to_string(ck->a, args[i], 40));
                return;
            }
            if (mode == ORCH_INTERLEAVED) {
                diag_error_at(ck->d, args[i], "E1206", "launch-interleaved: the chunks set the global size; `:global-size` is not taken");
                return;
            }
            gsize = args[i + 1];
            nargs = i;
        }
    }
    FuncDef *fd = step_kernel(ck, head, orch);
    if (!fd) return;
    if (fd->exact) {
        diag_error_at(ck->d, head, "E1202", "orchestration `%s`: `%s` is a def-kernel-exact; orchestrations launch def-kernels", orch, fd->name);
        return;
    }
    if (nargs >= 0 && nargs != fd->nparams) {
        const char *names = "";
        for (int i = 0; i < fd->nparams; i++) names = arena_printf(ck->a, "%s%s%s", names, i ? " " : "", fd->params[i].name->name);
        diag_error_at(ck->d, spec, "E1204", "kernel `%s` takes %d argument%s (%s), the launch gives %d", fd->name, fd->nparams,
                      fd->nparams == 1 ? "" : "s", names, nargs);
        return;
    }
    OrchStep st;
    memset(&st, 0, sizeof st);
    st.kernel = fd->name;
    st.mode = mode;
    st.nargs = fd->nparams;
    st.offset_param = st.length_param = -1;
    st.line = spec->loc.line;
    st.col = spec->loc.col;
    st.at = spec;
    st.args = arena_alloc(ck->a, sizeof(OrchArg) * (size_t)(fd->nparams + 1));
    if (!st.args) return;
    for (int i = 0; i < fd->nparams; i++) {
        st.args[i].step = -1;
        if (nargs < 0 || syn_is_sym(args[i], "_")) continue;
        st.args[i].at = args[i];
        if (!(args[i]->kind == N_SYMBOL && strstr(args[i]->name, "::"))) {
            /* a value the host computes: an integer parameter's */
            if (!fd->resolved) ck_resolve_signature(ck, fd);
            Type *t = fd->params[i].ty;
            if (!t || !ty_is_int(t)) {
                diag_error_at(ck->d, args[i], "E1202", "an argument in an orchestration is `_` or KERNEL::VAR, found `%s`", syn_to_string(ck->a, args[i], 40));
                return;
            }
            if (!(st.args[i].expr = host_expr(ck, o, args[i]))) return;
            continue;
        }
        if (!resolve_ref(ck, o, o->nsteps, args[i], &st.args[i], orch)) return;
        if (mode == ORCH_PARALLEL) {
            diag_error_at(ck->d, args[i], "E1207", "launch-parallel: `%s` refers to another step; kernels launched in parallel are independent",
                          args[i]->name);
            return;
        }
    }
    if (!arena_reserve(ck->a, (void **)&o->steps, o->nsteps, 1, &o->capsteps, sizeof(OrchStep))) return;
    o->steps[o->nsteps++] = st;
    /* after the step is there, so that (length KERNEL::VAR) may name its own vectors */
    if (gsize && !(o->steps[o->nsteps - 1].gsize = host_expr(ck, o, gsize))) o->nsteps--;
}

/* The parameter of `st`'s kernel a KERNEL::VAR (or a bare VAR) names, for
 * launch-interleaved's offset and length; -1 after an error. */
static int interleave_param(Checker *ck, OrchStep *st, Node *a, const char *what, int integer) {
    FuncDef *fd = strmap_get(&ck->kernels_idx, st->kernel);
    const char *var = NULL;
    if (a->kind == N_SYMBOL) {
        const char *sep = strstr(a->name, "::");
        if (!sep) var = a->name;
        else if ((size_t)(sep - a->name) == strlen(st->kernel) && !strncmp(a->name, st->kernel, (size_t)(sep - a->name))) var = sep + 2;
    }
    if (fd && !fd->resolved) ck_resolve_signature(ck, fd);
    int i = var && fd ? param_index(ck, fd, var) : -1;
    if (i < 0) {
        diag_error_at(ck->d, a, "E1206", "launch-interleaved: the %s parameter is one of `%s`'s parameters (%s::NAME), found `%s`", what,
                      st->kernel, st->kernel, syn_to_string(ck->a, a, 40));
        return -1;
    }
    Type *t = fd->params[i].ty;
    if (integer && (!t || !ty_is_int(t))) {
        diag_error_at(ck->d, a, "E1206", "launch-interleaved: the %s parameter `%s` of `%s` is not an integer scalar", what, var, st->kernel);
        return -1;
    }
    return i;
}

static int mentions_word(const char *name, const char *w) {
    return strstr(name, w) != NULL;
}

/* (launch-interleaved SPEC OFFSET LENGTH &key exclude) */
static void launch_interleaved(Checker *ck, Orchestration *o, Node *f, const char *orch) {
    int n = f->nkids - 1;
    Node *exclude = NULL;
    if (n >= 5 && syn_is_kw(f->kids[4], "exclude")) {
        exclude = f->kids[5];
        n -= 2;
    }
    if (n != 3) {
        diag_error_at(ck->d, f, "E1202", "expected (launch-interleaved LAUNCH-SPEC OFFSET-PARAM LENGTH-PARAM [:exclude (PARAM...)])");
        return;
    }
    int before = o->nsteps;
    launch_spec(ck, o, f->kids[1], ORCH_INTERLEAVED, orch);
    if (o->nsteps == before) return;
    OrchStep *st = &o->steps[o->nsteps - 1];
    int a = interleave_param(ck, st, f->kids[2], "offset", 1);
    int b = a < 0 ? -1 : interleave_param(ck, st, f->kids[3], "length", 1);
    if (a < 0 || b < 0) {
        o->nsteps--;
        return;
    }
    /* the spec's signature says OFFSET then LENGTH, its example passes
       `len` then `offset`: names that say which is which win
       (docs/orchestration.md) */
    FuncDef *fd = strmap_get(&ck->kernels_idx, st->kernel);
    const char *na = fd->params[a].name->key, *nb = fd->params[b].name->key;
    if (mentions_word(nb, "offset") && !mentions_word(na, "offset")) {
        int t = a;
        a = b;
        b = t;
    }
    if (a == b) {
        diag_error_at(ck->d, f->kids[3], "E1206", "launch-interleaved: the offset and the length are the same parameter");
        o->nsteps--;
        return;
    }
    st->offset_param = a;
    st->length_param = b;
    st->exclude = arena_alloc(ck->a, (size_t)st->nargs + 1);
    if (!st->exclude) return;
    memset(st->exclude, 0, (size_t)st->nargs + 1);
    Node **ex = exclude && syn_is_list(exclude) ? exclude->kids : exclude ? &exclude : NULL;
    int nex = exclude && syn_is_list(exclude) ? exclude->nkids : exclude ? 1 : 0;
    if (exclude && syn_is_form(exclude, "quote") && exclude->nkids == 2 && syn_is_list(exclude->kids[1])) {
        /* :exclude '(A B) */
        ex = exclude->kids[1]->kids;
        nex = exclude->kids[1]->nkids;
    }
    for (int i = 0; i < nex; i++) {
        int p = interleave_param(ck, st, ex[i], "excluded", 0);
        if (p >= 0) st->exclude[p] = 1;
    }
}

static void body_form(Checker *ck, Orchestration *o, Node *f, int depth);

/* (do-times-by-doubling (VAR START LIMIT) FORM...): VAR = START, 2 START ..
 * while VAR <= LIMIT; (do-times-by-half (VAR START [LIMIT]) FORM...): VAR =
 * START, START / 2 .. while VAR >= LIMIT (default 1).  Loops the host runs
 * (spec "More notes on def-orchestration", "Don't Make Me Think
 * gen-bitonic-sort-vector"): the number of passes depends on the lengths
 * of the vectors at run time.  Their steps are launch-sequential. */
static void run_time_loop(Checker *ck, Orchestration *o, Node *f, int depth) {
    int halving = !strcmp(syn_head(f), "do-times-by-half");
    Node *spec = f->nkids >= 3 ? f->kids[1] : NULL;
    if (!spec || !syn_is_list(spec) || spec->nkids < 2 + !halving || spec->nkids > 3 || spec->kids[0]->kind != N_SYMBOL ||
        strstr(spec->kids[0]->name, "::")) {
        diag_error_at(ck->d, f, "E1209", halving ? "expected (do-times-by-half (VAR START [LIMIT]) LAUNCH...)"
                                                 : "expected (do-times-by-doubling (VAR START LIMIT) LAUNCH...)");
        return;
    }
    const char *var = spec->kids[0]->name;
    for (const char *c = var; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9' && c != var) || *c == '_')) {
            diag_error_at(ck->d, spec->kids[0], "E1209", "a loop variable of an orchestration is a C identifier, found `%s`", var);
            return;
        }
    OrchExpr *start = host_expr(ck, o, spec->kids[1]);
    OrchExpr *limit = spec->nkids == 3 ? host_expr(ck, o, spec->kids[2]) : NULL;
    if (!start || (spec->nkids == 3 && !limit)) return;
    if (!limit && (limit = arena_alloc(ck->a, sizeof *limit))) {
        memset(limit, 0, sizeof *limit);
        limit->op = 'n';
        limit->num = 1;
    }
    if (!limit) return;
    int d = 0;
    for (int i = 0; i < o->nloops; i++) d += o->loops[i].end < 0;
    OrchLoop l;
    memset(&l, 0, sizeof l);
    l.var = var;
    l.halving = halving;
    l.start = start;
    l.limit = limit;
    l.first = o->nsteps;
    l.end = -1;
    l.depth = d;
    l.line = f->loc.line;
    if (!arena_reserve(ck->a, (void **)&o->loops, o->nloops, 1, &o->caploops, sizeof(OrchLoop))) return;
    int me = o->nloops++, errs = ck->d->errors;
    o->loops[me] = l;
    for (int j = 2; j < f->nkids; j++) body_form(ck, o, f->kids[j], depth + 1);
    o->loops[me].end = o->nsteps;
    if (o->loops[me].end == o->loops[me].first && ck->d->errors == errs) diag_error_at(ck->d, f, "E1209", "orchestration `%s`: the loop over `%s` launches nothing", o->name, var);
}

/* One form of an orchestration's body: a launch form, or (dotimes (I N)
 * FORM...) with N an integer literal: the forms N times, ${I} in strings and
 * an I between underscores in KERNEL::VAR names replaced by 0 .. N-1. */
static void body_form(Checker *ck, Orchestration *o, Node *f, int depth) {
    const char *h = syn_head(f);
    if (h && syn_streq(h, "launch-sequential")) {
        for (int j = 1; j < f->nkids; j++) launch_spec(ck, o, f->kids[j], ORCH_SEQUENTIAL, o->name);
    } else if (h && syn_streq(h, "launch-parallel")) {
        for (int j = 1; j < f->nkids; j++) launch_spec(ck, o, f->kids[j], ORCH_PARALLEL, o->name);
    } else if (h && syn_streq(h, "launch-interleaved")) {
        launch_interleaved(ck, o, f, o->name);
    } else if (h && syn_streq(h, "dotimes") && depth < 8) {
        Node *spec = f->nkids >= 2 ? f->kids[1] : NULL;
        if (!spec || !syn_is_list(spec) || spec->nkids != 2 || spec->kids[0]->kind != N_SYMBOL || spec->kids[1]->kind != N_INT ||
            spec->kids[1]->ival < 0 || spec->kids[1]->ival > 1024) {
            diag_error_at(ck->d, f, "E1201", "in a def-orchestration, dotimes is (dotimes (I N) LAUNCH...) with N an integer literal from 0 to 1024");
            return;
        }
        for (int64_t k = 0; k < spec->kids[1]->ival; k++) {
            Node *var = spec->kids[0];
            const char *num = arena_printf(ck->a, "%lld", (long long)k);
            for (int j = 2; j < f->nkids; j++) body_form(ck, o, orch_subst_names(ck, f->kids[j], &var, &num, 1), depth + 1);
        }
    } else if (h && (syn_streq(h, "do-times-by-doubling") || syn_streq(h, "do-times-by-half")) && depth < 8) {
        run_time_loop(ck, o, f, depth);
    } else {
        diag_error_at(ck->d, f, "E1201",
                      "only launch-sequential, launch-parallel, launch-interleaved, dotimes, do-times-by-doubling and do-times-by-half may appear in a def-orchestration, found `%s`",
                      syn_to_string(ck->a, f, 40));
    }
}

/* One def-orchestration form (its name NAME when it is a template's instance). */
static void resolve_one(Checker *ck, Node *form, const char *name) {
    Orchestration *o = arena_alloc(ck->a, sizeof *o);
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->name = name ? name : form->kids[1]->name;
    o->ident = ck_names_host_ident(ck, o->name); /* the hoists' function names */
    o->origin = "def-orchestration";
    o->line = form->loc.line;
    for (int i = 0; i < ck->prog->norchs; i++)
        if (syn_streq(ck->prog->orchs[i]->ident, o->ident)) {
            diag_error_at(ck->d, form->kids[1], "E1200", "orchestration `%s` is already defined", o->name);
            return;
        }
    if (form->nkids < 3) {
        diag_error_at(ck->d, form, "E1200", "orchestration `%s` launches nothing: expected (launch-sequential ...) in its body", o->name);
        return;
    }
    int errs = ck->d->errors;
    for (int i = 2; i < form->nkids; i++) {
        if (form->kids[i]->kind == N_STRING && i == 2) continue; /* a docstring */
        body_form(ck, o, form->kids[i], 0);
    }
    for (int s = 0; o->nloops && s < o->nsteps; s++)
        if (o->steps[s].mode != ORCH_SEQUENTIAL) {
            diag_error_at(ck->d, o->steps[s].at ? o->steps[s].at : form, "E1209",
                          "orchestration `%s` has run-time loops: its steps are launch-sequential, not %s", o->name,
                          o->steps[s].mode == ORCH_PARALLEL ? "launch-parallel" : "launch-interleaved");
            break;
        }
    if (ck->d->errors != errs) return;
    if (!o->nsteps) {
        diag_error_at(ck->d, form->kids[1], "E1200", "orchestration `%s` launches nothing: its launch forms name no kernel", o->name);
        return;
    }
    arena_push(ck->a, (void ***)&ck->prog->orchs, &ck->prog->norchs, &ck->prog->caporchs, o);
}

void orch_resolve(Checker *ck) {
    for (int i = 0; i < ck->norch_forms && !ck->d->fatal; i++) resolve_one(ck, ck->orch_forms[i]->form, ck->orch_forms[i]->name);
}

static const CFunc *checked_kernel(const Program *p, const char *name) {
    for (int k = 0; k < p->nfuncs; k++)
        if (p->funcs[k]->kind == FN_KERNEL && syn_streq(p->funcs[k]->name, name)) return p->funcs[k];
    return NULL;
}

/* Spec "Hoisting and def-orchestration": the compiler checks, at compile
 * time, that what one step passes to another fits: a vector for a vector
 * of the same element type, a scalar of the same type for a scalar. */
static void check_passed(Checker *ck, const Orchestration *o, int s, int j) {
    const Program *p = ck->prog;
    const OrchArg *a = &o->steps[s].args[j];
    const CFunc *to = checked_kernel(p, o->steps[s].kernel), *from = checked_kernel(p, o->steps[a->step].kernel);
    if (!to || !from || j >= to->nparams) return;
    const Type *want = to->params[j]->ty, *have = NULL;
    if (a->side) {
        for (int k = 0; k < cfunc_rare(from)->nsides; k++)
            if (syn_streq(cfunc_rare(from)->sides[k]->name, a->side)) have = cfunc_rare(from)->sides[k]->ty;
    } else if (a->param < from->nparams) {
        have = from->params[a->param]->ty;
    }
    if (!want || !have) return;
    int wv = want->kind == TY_VECTOR, hv = have->kind == TY_VECTOR;
    int ok = wv == hv && (wv ? (want->elem && have->elem && ty_equal(want->elem, have->elem)) : ty_equal(want, have));
    if (ok) return;
    diag_error_at(ck->d, a->at, "E1208", "orchestration `%s`: `%s` is %s %s, but parameter `%s` of `%s` takes %s %s", o->name,
                  syn_to_string(ck->a, a->at, 40), hv ? "a vector of" : "a", ty_name(ck->a, hv ? have->elem : have),
                  to->params[j]->name, to->name, wv ? "a vector of" : "a", ty_name(ck->a, wv ? want->elem : want));
}

/* After the kernels are checked: a KERNEL::VAR that is no parameter must be
 * a result vector of that kernel, and what is passed must fit; an
 * interleaved kernel has no side channels (its chunks would need one each). */
void orch_finish(Checker *ck) {
    Program *p = ck->prog;
    for (int i = 0; i < p->norchs; i++) {
        Orchestration *o = p->orchs[i];
        for (int s = 0; s < o->nsteps; s++) {
            const CFunc *cf = o->steps[s].mode == ORCH_INTERLEAVED ? checked_kernel(p, o->steps[s].kernel) : NULL;
            for (int k = 0; cf && o->steps[s].at && k < cfunc_rare(cf)->nsides; k++)
                if (cfunc_rare(cf)->sides[k]->kind != SIDE_DEBUG && cfunc_rare(cf)->sides[k]->kind != SIDE_UNIFORM && cfunc_rare(cf)->sides[k]->kind != SIDE_LOCAL) {
                    diag_error_at(ck->d, o->steps[s].at, "E1206",
                                  "launch-interleaved: kernel `%s` has side channels (`%s`); an interleaved kernel takes only its parameters",
                                  cf->name, cfunc_rare(cf)->sides[k]->name);
                    break;
                }
        }
        for (int s = 0; s < o->nsteps; s++)
            for (int j = 0; j < o->steps[s].nargs; j++) {
                OrchArg *a = &o->steps[s].args[j];
                if (a->step >= 0 && a->at) {
                    int errs = ck->d->errors;
                    if (!a->side) check_passed(ck, o, s, j);
                    if (ck->d->errors != errs) continue;
                }
                if (!a->side) continue;
                const OrchStep *from = &o->steps[a->step];
                const CFunc *cf = NULL;
                for (int k = 0; k < p->nfuncs; k++)
                    if (p->funcs[k]->kind == FN_KERNEL && syn_streq(p->funcs[k]->name, from->kernel)) cf = p->funcs[k];
                int found = 0;
                for (int k = 0; cf && k < cfunc_rare(cf)->nsides; k++)
                    if (cfunc_rare(cf)->sides[k]->kind == SIDE_RESULT && !strcmp(syn_lower(ck->a, cfunc_rare(cf)->sides[k]->name), syn_lower(ck->a, a->side))) {
                        a->side = cfunc_rare(cf)->sides[k]->name;
                        found = 1;
                    }
                if (!found)
                    diag_error_at(ck->d, a->at, "E1205", "orchestration `%s`: kernel `%s` has no parameter or result vector `%s`", o->name,
                                  from->kernel, a->side);
                else if (a->at)
                    check_passed(ck, o, s, j);
            }
    }
}

/* NAME with each `_`-separated word equal to a parameter (case-insensitive)
 * replaced by its C name: v_a_T -> v_a_float. */
static const char *subst_words(Checker *ck, const char *name, Node **params, const char **cnames, int n) {
    StrBuf b;
    sb_init(&b);
    const char *p = name;
    while (*p) {
        const char *e = p;
        while (*e && *e != '_' && *e != ':') e++;
        int done = 0;
        for (int i = 0; i < n && !done; i++)
            if (strlen(params[i]->key) == (size_t)(e - p) && !strncmp(syn_lower(ck->a, arena_strndup(ck->a, p, (size_t)(e - p))), params[i]->key,
                                                                      (size_t)(e - p))) {
                sb_puts(&b, cnames[i]);
                done = 1;
            }
        if (!done) sb_printf(&b, "%.*s", (int)(e - p), p);
        if (!*e) break;
        sb_putc(&b, *e);
        p = e + 1;
    }
    const char *out = arena_strdup(ck->a, sb_cstr(&b));
    sb_free(&b);
    return out;
}

/* "v_a_${T}" -> "v_a_float" */
static const char *subst_dollars(Checker *ck, const char *s, Node **params, const char **cnames, int n) {
    StrBuf b;
    sb_init(&b);
    for (const char *p = s; *p;) {
        const char *close = p[0] == '$' && p[1] == '{' ? strchr(p, '}') : NULL;
        int done = 0;
        for (int i = 0; close && i < n && !done; i++)
            if (strlen(params[i]->key) == (size_t)(close - p - 2) &&
                !strcmp(syn_lower(ck->a, arena_strndup(ck->a, p + 2, (size_t)(close - p - 2))), params[i]->key)) {
                sb_puts(&b, cnames[i]);
                p = close + 1;
                done = 1;
            }
        if (!done) sb_putc(&b, *p++);
    }
    const char *out = arena_strdup(ck->a, sb_cstr(&b));
    sb_free(&b);
    return out;
}

Node *orch_subst_names(Checker *ck, Node *form, Node **params, const char **cnames, int n) {
    if (!form) return form;
    if (form->kind == N_STRING) {
        const char *s = subst_dollars(ck, form->name, params, cnames, n);
        return strcmp(s, form->name) ? syn_string(ck->a, form->loc, s, (int)strlen(s)) : form;
    }
    if (form->kind == N_SYMBOL && strstr(form->name, "::")) {
        const char *s = subst_words(ck, form->name, params, cnames, n);
        return strcmp(s, form->name) ? syn_symbol(ck->a, form->loc, s) : form;
    }
    if (form->kind != N_LIST) return form;
    Node *c = NULL;
    for (int i = 0; i < form->nkids; i++) {
        Node *k = orch_subst_names(ck, form->kids[i], params, cnames, n);
        if (k == form->kids[i]) continue;
        if (!c && !(c = syn_copy(ck->a, form))) return form;
        c->kids[i] = k;
    }
    return c ? c : form;
}

/* ---- let-kernel: continuation kernels (spec "Continuation Kernels",
 * "let-kernel", "Variable Capture", "kernel-name") ---- */

int orch_capture_error(Ctx *cx, const Node *name) {
    FuncDef *fd = cx->fd;
    if (!fd || !fd->outer_kernel || name->kind != N_SYMBOL) return 0;
    for (int i = 0; i < fd->nouter; i++)
        if (syn_streq(fd->outer_names[i], name->key)) {
            diag_error_at(cx->ck->d, name, "E1211",
                          "continuation kernel `%s` cannot capture `%s`, a run-time value of kernel `%s`: pass it as an argument",
                          fd->name, name->name, fd->outer_kernel);
            return 1;
        }
    return 0;
}

/* The names of every variable visible in CX (the outer kernel's parameters and locals). */
static void outer_names(Ctx *cx, FuncDef *cont) {
    Checker *ck = cx->ck;
    for (Scope *sc = cx->scope; sc; sc = sc->up)
        for (int i = 0; i < sc->n; i++) {
            Sym *s = sc->syms[i];
            if (s->kind == SYM_LOCAL || s->kind == SYM_PARAM)
                arena_push(ck->a, (void ***)&cont->outer_names, &cont->nouter, &cont->capouter, (void *)s->key);
        }
}

typedef struct ContBinding {
    const char *key;     /* the binding's name */
    FuncDef *fd;         /* the continuation kernel */
    const Node *at;
} ContBinding;

/* (NAME (PARAMS) [(declare (kernel-name "k") ...)] BODY...): the kernel. */
static FuncDef *continuation(Ctx *cx, Node *b) {
    Checker *ck = cx->ck;
    if (!syn_is_list(b) || b->nkids < 2 || b->kids[0]->kind != N_SYMBOL || !syn_is_list(b->kids[1])) {
        diag_error_at(ck->d, b, "E1210", "a let-kernel binding is (NAME (PARAMS...) BODY...), found `%s`", syn_to_string(ck->a, b, 40));
        return NULL;
    }
    const char *kname = b->kids[0]->name;
    Node **kids = arena_alloc(ck->a, sizeof(Node *) * (size_t)(b->nkids + 2));
    if (!kids) return NULL;
    int n = 0;
    kids[n++] = syn_symbol(ck->a, b->loc, "def-kernel");
    kids[n++] = NULL; /* the name, below */
    kids[n++] = b->kids[1];
    for (int i = 2; i < b->nkids; i++) {
        Node *f = b->kids[i];
        if (!syn_is_form(f, "declare")) {
            kids[n++] = f;
            continue;
        }
        /* (kernel-name "name") leaves the declaration: it names the kernel */
        Node *keep = syn_copy(ck->a, f);
        keep->nkids = 1;
        for (int j = 1; j < f->nkids; j++) {
            Node *e = f->kids[j];
            if (syn_is_form(e, "kernel-name")) {
                if (e->nkids != 2 || e->kids[1]->kind != N_STRING) {
                    diag_error_at(ck->d, e, "E1210", "expected (kernel-name \"name\")");
                    return NULL;
                }
                kname = e->kids[1]->name;
            } else {
                keep->kids[keep->nkids++] = e;
            }
        }
        if (keep->nkids > 1) kids[n++] = keep;
    }
    kids[1] = syn_symbol(ck->a, b->kids[0]->loc, kname);
    Node *form = syn_list(ck->a, b->loc, kids, n);
    if (!form) return NULL;
    if (strmap_get(&ck->kernels_idx, kname)) {
        diag_error_at(ck->d, b->kids[0], "E1210", "continuation kernel `%s`: a kernel of that name exists; name it with (declare (kernel-name \"...\"))",
                      kname);
        return NULL;
    }
    FuncDef *fd = ck_collect_instance(ck, form, FN_KERNEL, kname);
    if (!fd) return NULL;
    fd->outer_kernel = cx->fd->name;
    outer_names(cx, fd);
    return fd;
}

/* (CONT ARG...): the declared invocation of a continuation kernel, compiled
 * to nothing; it becomes the second step of an orchestration. */
static void invocation(Ctx *cx, Node *call, ContBinding *cb) {
    Checker *ck = cx->ck;
    FuncDef *fd = cb->fd;
    int nargs = call->nkids - 1;
    if (nargs != fd->nparams) {
        diag_error_at(ck->d, call, "E1212", "continuation kernel `%s` takes %d argument%s, the invocation gives %d", fd->name, fd->nparams,
                      fd->nparams == 1 ? "" : "s", nargs);
        return;
    }
    Orchestration *o = arena_alloc(ck->a, sizeof *o);
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->name = arena_printf(ck->a, "%s-then-%s", cx->fd->name, fd->name);
    o->ident = ck_names_host_ident(ck, o->name);
    o->origin = "let-kernel";
    o->line = call->loc.line;
    o->capsteps = 2;
    o->nsteps = 2;
    o->steps = arena_alloc(ck->a, sizeof(OrchStep) * 2);
    if (!o->steps) return;
    memset(o->steps, 0, sizeof(OrchStep) * 2);
    OrchStep *first = &o->steps[0], *second = &o->steps[1];
    first->kernel = cx->fd->name;
    first->nargs = cx->fd->nparams;
    first->args = arena_alloc(ck->a, sizeof(OrchArg) * (size_t)(first->nargs + 1));
    second->kernel = fd->name;
    second->nargs = nargs;
    second->args = arena_alloc(ck->a, sizeof(OrchArg) * (size_t)(nargs + 1));
    if (!first->args || !second->args) return;
    for (int s = 0; s < 2; s++) {
        o->steps[s].offset_param = o->steps[s].length_param = -1;
        o->steps[s].line = s ? call->loc.line : cx->fd->form->loc.line;
        o->steps[s].col = s ? call->loc.col : cx->fd->form->loc.col;
    }
    for (int j = 0; j < first->nargs; j++) first->args[j].step = -1;
    for (int j = 0; j < nargs; j++) {
        Node *a = call->kids[j + 1];
        OrchArg *oa = &second->args[j];
        oa->step = -1;
        oa->at = a;
        if (syn_is_sym(a, "_")) continue;
        Sym *s = a->kind == N_SYMBOL ? ck_scope_lookup(cx, a->key) : NULL;
        int found = 0;
        for (int k = 0; s && s->cname && k < cx->fn->nparams && !found; k++)
            if (cx->fn->params[k]->cname && syn_streq(cx->fn->params[k]->cname, s->cname)) {
                oa->step = 0;
                oa->param = k;
                found = 1;
            }
        for (int k = 0; s && s->cname && k < cfunc_rare(cx->fn)->nsides && !found; k++) {
            const SideChannel *sc = cfunc_rare(cx->fn)->sides[k];
            if (sc->kind == SIDE_RESULT && sc->sym && sc->sym->cname && syn_streq(sc->sym->cname, s->cname)) {
                oa->step = 0;
                oa->side = sc->name;
                found = 1;
            }
        }
        if (!found) {
            diag_error_at(ck->d, a, "E1213",
                          "`%s` cannot be passed to continuation kernel `%s`: pass a parameter or a result vector of `%s`, or `_`",
                          syn_to_string(ck->a, a, 40), fd->name, cx->fd->name);
            return;
        }
    }
    arena_push(ck->a, (void ***)&ck->prog->orchs, &ck->prog->norchs, &ck->prog->caporchs, o);
}

void orch_let_kernel(Ctx *cx, Node *syn, Dest *d) {
    Checker *ck = cx->ck;
    if (!cx->fd || cx->fd->kind != FN_KERNEL) {
        diag_error_at(ck->d, syn, "E1210", "let-kernel defines a continuation of a kernel: use it in a def-kernel body");
        return;
    }
    if (syn->nkids < 2 || !syn_is_list(syn->kids[1])) {
        diag_error_at(ck->d, syn, "E1210", "expected (let-kernel ((NAME (PARAMS...) BODY...)...) BODY...)");
        return;
    }
    Node *bl = syn->kids[1];
    ContBinding *cbs = arena_alloc(ck->a, sizeof(ContBinding) * (size_t)(bl->nkids + 1));
    if (!cbs) return;
    int nb = 0;
    for (int i = 0; i < bl->nkids; i++) {
        FuncDef *fd = continuation(cx, bl->kids[i]);
        if (!fd) continue;
        cbs[nb].key = bl->kids[i]->kids[0]->key;
        cbs[nb].fd = fd;
        cbs[nb].at = bl->kids[i];
        nb++;
    }
    Node **body = syn->kids + 2;
    int n = syn->nkids - 2;
    /* the invocations: declared calls, compiled away; nothing may follow one */
    Node **rest = arena_alloc(ck->a, sizeof(Node *) * (size_t)(n + 1));
    if (!rest) return;
    int nrest = 0, invoked = -1;
    for (int i = 0; i < n; i++) {
        ContBinding *cb = NULL;
        for (int k = 0; k < nb && syn_is_list(body[i]) && body[i]->nkids && body[i]->kids[0]->kind == N_SYMBOL; k++)
            if (syn_streq(cbs[k].key, body[i]->kids[0]->key)) cb = &cbs[k];
        if (!cb) {
            if (invoked >= 0)
                diag_warning_at(ck->d, body[i], "W1214", "code after the invocation of continuation kernel `%s` runs before it, not after",
                                body[invoked]->kids[0]->name);
            rest[nrest++] = body[i];
            continue;
        }
        invoked = i;
        invocation(cx, body[i], cb);
    }
    ck_body_to(cx, rest, nrest, d);
}
