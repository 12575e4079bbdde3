/* abi.c - builds the plain-data kernel ABI (abi.h) from a checked Program:
 * explicit parameters in declared order (vectors as pointer + ulong count),
 * then the side channels in source order, then the scratch pool, then the
 * debug channel. */
#include "abi.h"

#include <stdlib.h>
#include <string.h>

#include "../analysis/extent.h"
#include "ctext.h"
#include "emit_oclc.h"


const char *abi_role_name(AbiRole r) {
    static const char *n[] = {"scalar", "buffer", "length", "result", "implicit", "scratch", "debug", "local"};
    return n[r];
}

static AbiArg *next_arg(AbiKernel *k) {
    AbiArg *a = &k->args[k->nargs];
    memset(a, 0, sizeof *a);
    a->index = k->nargs++;
    a->fixed_length = -1;
    a->measures = -1;
    return a;
}

static const char *pointer_type(Arena *ar, const Type *t) {
    const char *p = oclc_pointer_type(ar, t); /* "__global const float *" */
    size_t n = strlen(p);
    return arena_printf(ar, "%.*s*", (int)(n > 2 ? n - 2 : 0), p);
}

static void add_pointer(Arena *ar, AbiKernel *k, AbiRole role, const char *name, const Sym *s, int is_out) {
    const Type *t = s->ty;
    AbiArg *a = next_arg(k);
    a->role = role;
    a->name = name;
    a->cname = s->cname;
    a->type = pointer_type(ar, t);
    a->elem_ty = t->elem;
    a->element = t->elem ? oclc_type_name(t->elem) : "void";
    a->as = t->as;
    a->acc = is_out ? ACC_WRITE_ONLY : t->acc;
    a->align = t->align;
    a->stride = t->elem ? ty_vector_stride(t->elem, t->align) : 1;
    a->is_out = is_out;
    a->fixed_length = t->length;
    int ptr = a->index;
    AbiArg *l = next_arg(k);
    l->role = ROLE_LENGTH;
    l->name = name;
    l->cname = s->len_cname;
    l->type = "ulong";
    l->measures = ptr;
    l->param = name;
}

static AbiSize side_size(const SideChannel *sc) {
    AbiSize z = {sc->size_crisp, sc->size};
    return z;
}

const AbiArg *abi_input_arg(const AbiKernel *k, const SizeExpr *in) {
    if (in->op != SZ_LENGTH && in->op != SZ_SCALAR) return NULL;
    if (!k->param_arg || in->param_index < 0 || in->param_index >= k->nparams) return NULL;
    int i = k->param_arg[in->param_index];
    if (in->op == SZ_LENGTH) i++; /* the count follows the pointer */
    return i >= 0 && i < k->nargs ? &k->args[i] : NULL;
}

const char *abi_input_name(void *kernel, const SizeExpr *in) {
    const AbiArg *a = abi_input_arg(kernel, in);
    if (a && ((in->op == SZ_LENGTH && a->role == ROLE_LENGTH) || (in->op == SZ_SCALAR && a->role == ROLE_SCALAR)))
        return a->cname;
    return NULL; /* launch sizes: the default spelling */
}

static void abi_build_orchs(Arena *a, Abi *abi, const Program *p);

static void build_kernel_1(Arena *ar, AbiKernel *k, const Program *p, const CFunc *f, AbiArg *args);

/* The arguments are made in a buffer for the most a kernel can have, then
 * kept at their number (issue 14: the room for the most was a tenth of
 * what --metadata allocated). */
static void build_kernel(Arena *ar, AbiKernel *k, const Program *p, const CFunc *f) {
    int cap = 2 * f->nparams + 2 * cfunc_rare(f)->nsides + 8;
    AbiArg *buf = malloc(sizeof(AbiArg) * (size_t)cap);
    build_kernel_1(ar, k, p, f, buf ? buf : arena_alloc(ar, sizeof(AbiArg) * (size_t)cap));
    if (!buf) return;
    AbiArg *kept = arena_alloc(ar, sizeof(AbiArg) * (size_t)(k->nargs ? k->nargs : 1));
    if (kept) memcpy(kept, buf, sizeof(AbiArg) * (size_t)k->nargs);
    else k->nargs = 0;
    k->args = kept;
    free(buf);
}

static void build_kernel_1(Arena *ar, AbiKernel *k, const Program *p, const CFunc *f, AbiArg *args) {
    k->args = args;
    k->name = f->name;
    k->line = f->def->loc.line;
    k->exact = f->exact;
    k->nparams = f->nparams;
    k->gsize = cfunc_gsize(f);
    k->lsize = &cfunc_rare(f)->lsize;
    k->single_task = f->single_task;
    k->param_arg = arena_alloc(ar, sizeof(int) * (size_t)(f->nparams ? f->nparams : 1));
    if (!k->args || !k->param_arg) return;
    for (int i = 0; i < f->nparams; i++) {
        const Sym *s = f->params[i];
        k->param_arg[i] = k->nargs;
        if (s->ty->kind == TY_VECTOR) {
            add_pointer(ar, k, ROLE_BUFFER, s->name, s, s->write_only);
        } else if (s->ty->kind == TY_VOIDP) {
            AbiArg *a = next_arg(k); /* def-kernel-exact: the host passes bytes */
            a->role = ROLE_BUFFER;
            a->name = s->name;
            a->cname = s->cname;
            a->type = "__global void*";
            a->element = "void";
            a->as = AS_GLOBAL;
            a->acc = ACC_READ_WRITE;
            a->align = AL_COMPACT;
            a->stride = 1;
        } else {
            AbiArg *a = next_arg(k);
            a->role = ROLE_SCALAR;
            a->name = s->name;
            a->cname = s->cname;
            a->type = s->ty->kind == TY_ENUM ? "int" : oclc_type_name(s->ty);
            a->elem_ty = s->ty;
        }
    }
    /* how far the kernel reaches into each vector parameter */
    Extent *ext = extent_kernel(ar, p, f);
    for (int i = 0; ext && i < f->nparams; i++) {
        AbiArg *a = &k->args[k->param_arg[i]];
        if (a->role != ROLE_BUFFER) continue;
        a->need = ext[i].need;
        a->unchecked = ext[i].unchecked;
    }
    if (f->exact) return; /* exactly the declared parameters */
    int nscratch = 0;
    for (int i = 0; i < cfunc_rare(f)->nsides; i++) {
        const SideChannel *sc = cfunc_rare(f)->sides[i];
        if (sc->kind == SIDE_SCRATCH) {
            nscratch++;
            continue;
        }
        if (sc->kind == SIDE_DEBUG) continue;
        add_pointer(ar, k, sc->kind == SIDE_RESULT ? ROLE_RESULT : sc->kind == SIDE_LOCAL ? ROLE_LOCAL : ROLE_IMPLICIT,
                    sc->name, sc->sym, 0);
        AbiArg *sa = &k->args[k->nargs - 2];
        sa->size = side_size(sc);
        sa->comment = sc->comment;
    }
    if (cfunc_rare(f)->scratch_pool) {
        k->scratch = arena_alloc(ar, sizeof(AbiScratchPart) * (size_t)(nscratch ? nscratch : 1));
        for (int i = 0; k->scratch && i < cfunc_rare(f)->nsides; i++) {
            const SideChannel *sc = cfunc_rare(f)->sides[i];
            if (sc->kind != SIDE_SCRATCH) continue;
            AbiScratchPart *sp = &k->scratch[k->nscratch++];
            sp->name = sc->name;
            sp->comment = sc->comment;
            sp->element = oclc_type_name(sc->ty->elem);
            sp->stride = ty_vector_stride(sc->ty->elem, sc->ty->align);
            sp->count = side_size(sc);
        }
        add_pointer(ar, k, ROLE_SCRATCH, "scratch", cfunc_rare(f)->scratch_pool, 0);
        /* pool bytes: every part rounded up to 16 bytes */
        AbiArg *pa = &k->args[k->nargs - 2];
        SizeExpr **parts = arena_alloc(ar, sizeof(SizeExpr *) * (size_t)(k->nscratch ? k->nscratch : 1));
        const char *crisp = "";
        for (int i = 0; parts && i < k->nscratch; i++) {
            const AbiScratchPart *sp = &k->scratch[i];
            SizeExpr *bytes = sz_bin(ar, SZ_MUL, (SizeExpr *)sp->count.expr, sz_int(ar, sp->stride));
            parts[i] = sz_bin(ar, SZ_ROUND_UP, bytes, sz_int(ar, 16));
            crisp = arena_printf(ar, "%s%s%s x %d bytes", crisp, i ? " + " : "", sp->count.crisp, sp->stride);
        }
        pa->size.crisp = crisp;
        pa->size.expr = !parts || !k->nscratch ? NULL : k->nscratch == 1 ? parts[0] : sz_node(ar, SZ_ADD, parts, k->nscratch);
    }
    k->uses_warp = f->uses_warp;
    if (cfunc_rare(f)->warp_mem) {
        /* the local-memory warp lowering: warp_words per thread of the workgroup */
        k->warp_words = cfunc_rare(f)->warp_words;
        add_pointer(ar, k, ROLE_LOCAL, "warp-memory", cfunc_rare(f)->warp_mem, 0);
        AbiArg *w = &k->args[k->nargs - 2];
        w->size.crisp = arena_printf(ar, "(* (get-local-linear-size) %d)", cfunc_rare(f)->warp_words);
        w->size.expr = sz_simplify(ar, sz_bin(ar, SZ_MUL, sz_launch(ar, SZ_LOCAL_LINEAR_SIZE, 0), sz_int(ar, cfunc_rare(f)->warp_words)));
        w->comment = "the lanes of a warp exchange values here when the device has no shuffle instructions (docs/warps.md)";
    }
    if (cfunc_rare(f)->debug) add_pointer(ar, k, ROLE_DEBUG, "debug", cfunc_rare(f)->debug, 0);
    k->lmem = localmem_kernel(ar, f);
}

Abi *abi_build(Arena *a, const Program *p) {
    Abi *abi = arena_alloc(a, sizeof *abi);
    if (!abi) return NULL;
    abi->source = p->source;
    abi->ocl_version = p->ocl_version;
    abi->cl_std = p->ocl_version >= 300 ? "-cl-std=CL3.0" : p->ocl_version >= 200 ? "-cl-std=CL2.0" : "-cl-std=CL1.2";
    abi->debug_output = p->debug_output;
    abi->sites = p->sites;
    abi->nsites = p->nsites;
    abi->structs = p->structs;
    abi->nstructs = p->nstructs;
    int nk = 0;
    for (int i = 0; i < p->nfuncs; i++) nk += p->funcs[i]->kind == FN_KERNEL;
    abi->kernels = arena_alloc(a, sizeof(AbiKernel) * (size_t)(nk ? nk : 1));
    if (!abi->kernels) return NULL;
    for (int i = 0; i < p->nfuncs; i++)
        if (p->funcs[i]->kind == FN_KERNEL) build_kernel(a, &abi->kernels[abi->nkernels++], p, p->funcs[i]);
    abi->sorts = arena_alloc(a, sizeof(AbiSort) * (size_t)(p->nsorts ? p->nsorts : 1));
    if (!abi->sorts) return NULL;
    for (int i = 0; i < p->nsorts; i++) {
        const HostSort *hs = p->sorts[i];
        AbiSort *s = &abi->sorts[abi->nsorts];
        s->kind = hs->kind;
        s->name = hs->name;
        s->wg = hs->wg;
        s->in_place = hs->in_place;
        s->passes = hs->passes;
        s->pairs = hs->pairs;
        s->digit_bits = hs->digit_bits;
        s->kpt = hs->kpt;
        int found = 0;
        for (int j = 0; j < 3; j++) {
            s->k[j] = NULL;
            for (int k = 0; k < abi->nkernels; k++)
                if (!strcmp(abi->kernels[k].name, hs->kernel[j])) s->k[j] = &abi->kernels[k];
            found += s->k[j] != NULL;
        }
        /* the three kernels take the vector first: its element type */
        if (found == 3 && s->k[0]->nargs > 0) {
            s->elem = s->k[0]->args[0].element;
            abi->nsorts++;
        }
    }
    abi_build_orchs(a, abi, p);
    return abi;
}

/* ---- orchestrations (spec "Hoisting and def-orchestration") ---- */

static int kernel_index(const Abi *abi, const char *name) {
    for (int i = 0; i < abi->nkernels; i++)
        if (!strcmp(abi->kernels[i].name, name)) return i;
    return -1;
}

static int side_arg(const AbiKernel *k, const char *name) {
    for (int i = 0; i < k->nargs; i++)
        if (k->args[i].role == ROLE_RESULT && !strcmp(k->args[i].name, name)) return i;
    return -1;
}

static void build_orch(Arena *ar, const Abi *abi, AbiOrch *ao, const Orchestration *o) {
    ao->o = o;
    ao->kernel = arena_alloc(ar, sizeof(int) * (size_t)o->nsteps);
    ao->slot = arena_alloc(ar, sizeof(int *) * (size_t)o->nsteps);
    int cap = 0;
    for (int s = 0; s < o->nsteps; s++) cap += o->steps[s].nargs;
    ao->bufs = arena_alloc(ar, sizeof(AbiOrchBuf) * (size_t)(cap + 1));
    if (!ao->kernel || !ao->slot || !ao->bufs) return;
    for (int s = 0; s < o->nsteps; s++) {
        const OrchStep *st = &o->steps[s];
        int ki = ao->kernel[s] = kernel_index(abi, st->kernel);
        ao->slot[s] = arena_alloc(ar, sizeof(int) * (size_t)(st->nargs + 1));
        if (ki < 0 || !ao->slot[s]) continue;
        const AbiKernel *k = &abi->kernels[ki];
        for (int j = 0; j < st->nargs; j++) {
            const OrchArg *a = &st->args[j];
            const AbiArg *arg = &k->args[k->param_arg[j]];
            int b = -1;
            if (a->expr) { /* a value the host computes: no buffer */
                ao->slot[s][j] = -1;
                continue;
            }
            if (a->step < 0) {
                b = ao->nbufs++;
                AbiOrchBuf *nb = &ao->bufs[b];
                memset(nb, 0, sizeof *nb);
                nb->step = s;
                nb->param = j;
                nb->arg = arg;
                nb->fresh = 1;
                nb->ident = arena_printf(ar, "%s_%s", st->kernel, arg->cname);
                for (int q = 0; q < b; q++) /* a kernel launched twice: KERNEL_PARAM_STEP */
                    if (!strcmp(ao->bufs[q].ident, nb->ident)) nb->ident = arena_printf(ar, "%s_%s_%d", st->kernel, arg->cname, s);
            } else if (a->side) {
                const AbiKernel *fk = ao->kernel[a->step] >= 0 ? &abi->kernels[ao->kernel[a->step]] : NULL;
                int si = fk ? side_arg(fk, a->side) : -1;
                for (int q = 0; q < ao->nbufs && b < 0; q++)
                    if (ao->bufs[q].step == a->step && ao->bufs[q].param < 0 && si >= 0 && ao->bufs[q].arg == &fk->args[si]) b = q;
                if (b < 0 && si >= 0) {
                    b = ao->nbufs++;
                    AbiOrchBuf *nb = &ao->bufs[b];
                    memset(nb, 0, sizeof *nb);
                    nb->step = a->step;
                    nb->param = -1;
                    nb->arg = &fk->args[si];
                    nb->ident = arena_printf(ar, "%s_%s", fk->name, fk->args[si].cname);
                    nb->written = 1;
                }
            } else {
                b = ao->slot[a->step][a->param];
            }
            ao->slot[s][j] = b;
            if (b < 0) continue;
            if (arg->role == ROLE_BUFFER) {
                ao->bufs[b].read |= arg->acc != ACC_WRITE_ONLY;
                ao->bufs[b].written |= arg->acc != ACC_READ_ONLY && arg->as == AS_GLOBAL;
            }
        }
    }
}

/* Intermediates: a fresh vector its own step only writes, which a later step
 * is given; LIKE is the first input vector of that step, else a vector of
 * it made before. */
static void find_intermediates(AbiOrch *ao) {
    const Orchestration *o = ao->o;
    for (int b = 0; b < ao->nbufs; b++) ao->bufs[b].like = -1;
    for (int b = 0; b < ao->nbufs; b++) {
        AbiOrchBuf *ob = &ao->bufs[b];
        if (!ob->fresh || ob->arg->role != ROLE_BUFFER || ob->arg->acc != ACC_WRITE_ONLY || ob->arg->as != AS_GLOBAL) continue;
        int later = 0;
        for (int s = ob->step + 1; s < o->nsteps; s++)
            for (int j = 0; j < o->steps[s].nargs; j++) later |= ao->slot[s][j] == b;
        if (!later || o->steps[ob->step].mode == ORCH_INTERLEAVED) continue;
        const OrchStep *st = &o->steps[ob->step];
        /* an input of the step; else a vector made before (an earlier intermediate) */
        for (int pass = 0; pass < 2 && ob->like < 0; pass++)
            for (int j = 0; j < st->nargs && ob->like < 0; j++) {
                int c = ao->slot[ob->step][j];
                const AbiOrchBuf *cb = c >= 0 ? &ao->bufs[c] : NULL;
                if (!cb || c == b || !cb->fresh || cb->arg->role != ROLE_BUFFER || cb->arg->as != AS_GLOBAL) continue;
                if (pass == 0 ? cb->arg->acc != ACC_WRITE_ONLY : c < b) ob->like = c;
            }
    }
}

const char *orch_loop_var(Arena *a, const AbiOrch *ao, int l) {
    return arena_printf(a, "v_%s", ao->o->loops[l].var);
}

const char *orch_expr_text(Arena *a, const AbiOrch *ao, const OrchExpr *x, OrchTextLang lang, OrchLenText len, void *ctx) {
    switch (x->op) {
    case 'n':
        return arena_printf(a, lang == ORCH_TEXT_C ? "%lluu" : "%llu", (unsigned long long)x->num);
    case 'v':
        return lang == ORCH_TEXT_CRISP ? ao->o->loops[x->loop].var : orch_loop_var(a, ao, x->loop);
    case 'l': {
        int b = ao->slot[x->step][x->param];
        if (lang == ORCH_TEXT_CRISP || !len || b < 0)
            return arena_printf(a, "(length %s::%s)", ao->o->steps[x->step].kernel, b >= 0 ? ao->bufs[b].arg->name : "?");
        return len(ctx, b);
    }
    default: {
        const char *l = orch_expr_text(a, ao, x->l, lang, len, ctx), *r = orch_expr_text(a, ao, x->r, lang, len, ctx);
        if (lang == ORCH_TEXT_CRISP) return arena_printf(a, "(%c %s %s)", x->op, l, r);
        if (x->op == '-') /* stops at 0 */
            return lang == ORCH_TEXT_PY ? arena_printf(a, "max(%s - %s, 0)", l, r) : arena_printf(a, "(%s > %s ? %s - %s : 0u)", l, r, l, r);
        return arena_printf(a, "(%s %s%s %s)", l, x->op == '/' && lang == ORCH_TEXT_PY ? "/" : "", (char[]){x->op, 0}, r);
    }
    }
}

static void abi_build_orchs(Arena *a, Abi *abi, const Program *p) {
    abi->orchs = arena_alloc(a, sizeof(AbiOrch) * (size_t)(p->norchs + 1));
    if (!abi->orchs) return;
    for (int i = 0; i < p->norchs; i++) {
        AbiOrch *ao = &abi->orchs[abi->norchs];
        memset(ao, 0, sizeof *ao);
        build_orch(a, abi, ao, p->orchs[i]);
        int ok = ao->kernel && ao->slot && ao->bufs;
        for (int s = 0; ok && s < p->orchs[i]->nsteps; s++) ok = ao->kernel[s] >= 0 && ao->slot[s];
        if (ok) {
            find_intermediates(ao);
            abi->norchs++;
        }
    }
}
