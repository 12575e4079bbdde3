/* abi.c - builds the plain-data kernel ABI (abi.h) from a checked Program:
 * explicit parameters in declared order (vectors as pointer + ulong count),
 * then the side channels in source order, then the scratch pool, then the
 * debug channel. */
#include "abi.h"

#include <string.h>

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
    a->element = t->elem ? ty_cname(t->elem) : "void";
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
    AbiSize z = {sc->size_crisp, sc->size_c, sc->size_py, sc->inputs, sc->ninputs};
    return z;
}

static void build_kernel(Arena *ar, AbiKernel *k, const CFunc *f) {
    int cap = 2 * f->nparams + 2 * f->nsides + 8;
    k->args = arena_alloc(ar, sizeof(AbiArg) * (size_t)cap);
    k->name = f->name;
    k->line = f->def->loc.line;
    k->exact = f->exact;
    k->nparams = f->nparams;
    k->gsize = &f->gsize;
    k->lsize = &f->lsize;
    k->single_task = f->single_task;
    if (!k->args) return;
    for (int i = 0; i < f->nparams; i++) {
        const Sym *s = f->params[i];
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
            a->type = s->ty->kind == TY_ENUM ? "int" : ty_cname(s->ty);
            a->elem_ty = s->ty;
        }
    }
    if (f->exact) return; /* exactly the declared parameters */
    int nscratch = 0;
    for (int i = 0; i < f->nsides; i++) {
        const SideChannel *sc = f->sides[i];
        if (sc->kind == SIDE_SCRATCH) {
            nscratch++;
            continue;
        }
        if (sc->kind == SIDE_DEBUG) continue;
        add_pointer(ar, k, sc->kind == SIDE_RESULT ? ROLE_RESULT : sc->kind == SIDE_LOCAL ? ROLE_LOCAL : ROLE_IMPLICIT,
                    sc->name, sc->sym, 0);
        AbiArg *p = &k->args[k->nargs - 2];
        p->size = side_size(sc);
        p->comment = sc->comment;
    }
    if (f->scratch_pool) {
        k->scratch = arena_alloc(ar, sizeof(AbiScratchPart) * (size_t)(nscratch ? nscratch : 1));
        for (int i = 0; k->scratch && i < f->nsides; i++) {
            const SideChannel *sc = f->sides[i];
            if (sc->kind != SIDE_SCRATCH) continue;
            AbiScratchPart *sp = &k->scratch[k->nscratch++];
            sp->name = sc->name;
            sp->comment = sc->comment;
            sp->element = ty_cname(sc->ty->elem);
            sp->stride = ty_vector_stride(sc->ty->elem, sc->ty->align);
            sp->count = side_size(sc);
        }
        add_pointer(ar, k, ROLE_SCRATCH, "scratch", f->scratch_pool, 0);
        /* pool bytes: every part rounded up to 16 bytes */
        AbiArg *pa = &k->args[k->nargs - 2];
        StrBuf c, py, cr;
        sb_init(&c);
        sb_init(&py);
        sb_init(&cr);
        const char **inputs = NULL;
        int nin = 0, capin = 0;
        for (int i = 0; i < k->nscratch; i++) {
            const AbiScratchPart *sp = &k->scratch[i];
            sb_printf(&c, "%s(%s * %dULL + 15ULL) / 16ULL * 16ULL", i ? " + " : "", sp->count.c, sp->stride);
            sb_printf(&py, "%s(%s * %d + 15) // 16 * 16", i ? " + " : "", sp->count.py, sp->stride);
            sb_printf(&cr, "%s%s x %d bytes", i ? " + " : "", sp->count.crisp, sp->stride);
            for (int j = 0; j < sp->count.ninputs; j++) {
                int seen = 0;
                for (int m = 0; m < nin; m++) seen |= !strcmp(inputs[m], sp->count.inputs[j]);
                if (!seen) arena_push(ar, (void ***)&inputs, &nin, &capin, (void *)sp->count.inputs[j]);
            }
        }
        pa->size.crisp = arena_strdup(ar, sb_cstr(&cr));
        pa->size.c = arena_strdup(ar, sb_cstr(&c));
        pa->size.py = arena_strdup(ar, sb_cstr(&py));
        pa->size.inputs = inputs;
        pa->size.ninputs = nin;
        sb_free(&c);
        sb_free(&py);
        sb_free(&cr);
    }
    k->uses_warp = f->uses_warp;
    if (f->warp_mem) {
        /* the local-memory warp lowering: warp_words per thread of the workgroup */
        k->warp_words = f->warp_words;
        add_pointer(ar, k, ROLE_LOCAL, "warp-memory", f->warp_mem, 0);
        AbiArg *w = &k->args[k->nargs - 2];
        static const char *in[] = {"local_linear_size"};
        w->size.crisp = arena_printf(ar, "(* (get-local-linear-size) %d)", f->warp_words);
        w->size.c = arena_printf(ar, "local_linear_size * %dULL", f->warp_words);
        w->size.py = arena_printf(ar, "local_linear_size * %d", f->warp_words);
        w->size.inputs = in;
        w->size.ninputs = 1;
        w->comment = "the lanes of a warp exchange values here when the device has no shuffle instructions (docs/warps.md)";
    }
    if (f->debug) add_pointer(ar, k, ROLE_DEBUG, "debug", f->debug, 0);
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
        if (p->funcs[i]->kind == FN_KERNEL) build_kernel(a, &abi->kernels[abi->nkernels++], p->funcs[i]);
    return abi;
}
