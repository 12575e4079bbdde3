/* plan.c - the host plan of every kernel (plan.h), built from the kernel
 * ABI: parameters with what crosses between host and device, the declared
 * launch sizes as size trees (spec "global-size / local-size"), the side
 * channels and the lengths to check. */
#include "plan.h"

#include <ctype.h>
#include <string.h>

const char *host_ident(Arena *a, const char *name) {
    char *r = arena_printf(a, "%s%s", name && isdigit((unsigned char)name[0]) ? "v" : "", name ? name : "v");
    if (!r) return "v";
    for (char *p = r; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') *p = '_';
    return r;
}

const HostParam *host_input_param(const HostKernel *hk, const SizeExpr *in) {
    if ((in->op != SZ_LENGTH && in->op != SZ_SCALAR) || in->param_index < 0 || in->param_index >= hk->nparams) return NULL;
    return &hk->params[in->param_index];
}

const char *host_size_decl_text(Arena *a, const char *what, const SizeDecl *sd) {
    const char *s = arena_printf(a, "(%s", what);
    if (sd->nset) {
        s = arena_printf(a, "%s :set-to %s", s, sd->nset > 1 ? "(" : "");
        for (int i = 0; i < sd->nset; i++) s = arena_printf(a, "%s%s%lld", s, i ? " " : "", (long long)sd->set_to[i]);
        if (sd->nset > 1) s = arena_printf(a, "%s)", s);
    }
    if (sd->nderive) {
        s = arena_printf(a, "%s :derive-from %s", s, sd->nderive > 1 ? "(" : "");
        for (int i = 0; i < sd->nderive; i++) s = arena_printf(a, "%s%s%s", s, i ? " " : "", sd->derive[i]);
        if (sd->nderive > 1) s = arena_printf(a, "%s)", s);
    }
    if (!sd->nset && !sd->nderive && sd->dims) s = arena_printf(a, "%s :dims %d", s, sd->dims);
    return arena_printf(a, "%s)", s);
}

/* The size a :derive-from name gives: a vector's length, a scalar's value. */
static const SizeExpr *derived(Arena *a, HostKernel *hk, const SizeDecl *sd, int d) {
    for (int i = 0; i < hk->nparams; i++) {
        const HostParam *p = &hk->params[i];
        const Sym *s = sd->derive_sym[d];
        int same = s ? p->arg->cname && s->cname && !strcmp(p->arg->cname, s->cname) : !strcmp(p->arg->name, sd->derive[d]);
        if (!same) continue;
        if (p->kind == HP_SCALAR) return sz_param(a, SZ_SCALAR, p->arg->name, i, 0);
        if (p->arg->fixed_length >= 0) return sz_int(a, p->arg->fixed_length);
        if (p->len) return sz_param(a, SZ_LENGTH, p->arg->name, i, 0);
    }
    return sz_int(a, 1); /* not a parameter of the kernel: the checker allowed it through a function */
}

static void declared(Arena *a, HostKernel *hk, const SizeDecl *sd, const SizeExpr **out, int *n) {
    *n = 0;
    if (!sd || !sd->present) return;
    for (int d = 0; d < sd->nset && d < 3; d++) out[(*n)++] = sz_int(a, sd->set_to[d]);
    for (int d = 0; !sd->nset && d < sd->nderive && d < 3; d++) out[(*n)++] = derived(a, hk, sd, d);
}

static void plan_launch(Arena *a, HostKernel *hk) {
    const AbiKernel *k = hk->k;
    HostLaunch *l = &hk->launch;
    const SizeDecl *g = k->gsize, *lo = k->lsize;
    l->single_task = k->single_task;
    if (k->single_task) {
        l->dims = 1;
        l->global[0] = sz_int(a, 1);
        l->local[0] = sz_int(a, 1);
        l->nglobal = l->nlocal = 1;
        l->global_from = "single-task: just one thread";
        return;
    }
    declared(a, hk, g, l->global, &l->nglobal);
    declared(a, hk, lo, l->local, &l->nlocal);
    l->dims = g && g->present && g->dims > 0     ? g->dims
              : lo && lo->present && lo->dims > 0 ? lo->dims
              : l->nglobal                        ? l->nglobal
              : l->nlocal                         ? l->nlocal
                                                  : 1;
    if (l->dims > 3) l->dims = 3;
    l->global_msg = g && g->present ? g->msg : NULL;
    l->local_msg = lo && lo->present ? lo->msg : NULL;
    if (l->nglobal) {
        l->global_from = host_size_decl_text(a, "global-size", g);
    } else {
        for (int i = 0; i < hk->nparams && !l->global[0]; i++) {
            const HostParam *p = &hk->params[i];
            if (p->kind != HP_VECTOR || !p->len) continue;
            l->global[0] = sz_param(a, SZ_LENGTH, p->arg->name, i, 0);
            l->global_from = arena_printf(a, "no global-size values: one thread per element of %s", p->arg->name);
        }
        if (l->global[0]) {
            for (int d = 1; d < l->dims; d++) l->global[d] = sz_int(a, 1);
            l->nglobal = l->dims;
        } else {
            l->needs_global = 1;
            l->global_from = "no global-size values and no vector parameter";
        }
    }
    if (l->nlocal) {
        l->local_from = host_size_decl_text(a, "local-size", lo);
        for (int d = l->nlocal; d < l->dims; d++) l->local[d] = sz_int(a, 1);
        if (l->nlocal < l->dims) l->nlocal = l->dims;
    }
}

static int plan_kernel(Arena *a, HostKernel *hk, const AbiKernel *k) {
    memset(hk, 0, sizeof *hk);
    hk->k = k;
    hk->params = arena_alloc(a, sizeof(HostParam) * (size_t)(k->nparams ? k->nparams : 1));
    hk->sides = arena_alloc(a, sizeof(AbiArg *) * (size_t)(k->nargs ? k->nargs : 1));
    if (!hk->params || !hk->sides) return 0;
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *x = &k->args[i];
        const AbiArg *len = i + 1 < k->nargs && k->args[i + 1].role == ROLE_LENGTH && k->args[i + 1].measures == i ? &k->args[i + 1] : NULL;
        if (x->role == ROLE_SCALAR || x->role == ROLE_BUFFER) {
            if (hk->nparams >= k->nparams) continue;
            HostParam *p = &hk->params[hk->nparams++];
            p->arg = x;
            p->len = len;
            p->ident = host_ident(a, x->cname ? x->cname : x->name);
            if (x->role == ROLE_SCALAR) {
                p->kind = HP_SCALAR;
                continue;
            }
            p->kind = !strcmp(x->element, "void") ? HP_BYTES : x->as == AS_LOCAL ? HP_LOCAL : HP_VECTOR;
            p->uploads = p->kind != HP_LOCAL && x->acc != ACC_WRITE_ONLY && !x->is_out;
            p->downloads = p->kind != HP_LOCAL && x->acc != ACC_READ_ONLY && x->as != AS_CONSTANT;
            p->need = x->need;
            p->unchecked = x->unchecked;
            hk->checks |= p->need != NULL && !(p->need->op == SZ_LENGTH && p->need->param_index == hk->nparams - 1);
        } else if (x->role != ROLE_LENGTH) {
            hk->sides[hk->nsides++] = x;
            hk->nresults += x->role == ROLE_RESULT;
            hk->nimplicit += x->role == ROLE_IMPLICIT;
            if (x->role == ROLE_SCRATCH) hk->scratch = x;
            if (x->role == ROLE_DEBUG) hk->debug = x;
        }
    }
    plan_launch(a, hk);
    return 1;
}

HostKernel *host_plan(Arena *a, const Abi *abi) {
    HostKernel *v = arena_alloc(a, sizeof(HostKernel) * (size_t)(abi->nkernels ? abi->nkernels : 1));
    for (int i = 0; v && i < abi->nkernels; i++)
        if (!plan_kernel(a, &v[i], &abi->kernels[i])) return NULL;
    return v;
}

int host_size_free(const HostKernel *hk) {
    const HostLaunch *l = &hk->launch;
    const AbiKernel *k = hk->k;
    int nvec = 0;
    if (l->single_task || l->needs_global || l->nglobal > 1 || l->nlocal > 1) return 0;
    if (k->gsize && k->gsize->present && k->gsize->dims > 1) return 0;
    for (int i = 0; i < hk->nparams; i++) {
        const HostParam *hp = &hk->params[i];
        if (hp->kind != HP_VECTOR && hp->kind != HP_BYTES) continue;
        if (!hp->need || hp->unchecked || sz_uses_launch(hp->need)) return 0;
        nvec++;
    }
    return nvec > 0;
}
