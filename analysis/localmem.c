/* localmem.c - a kernel's __local memory per workgroup, and W0704 above
 * the 32 KiB OpenCL guarantees (localmem.h says why; spec "Vectors"
 * `:local`, "generating scratch vectors", "Side Channel Vectors").
 *
 * The parts, in the order the kernel declares them:
 *   - the :local vectors hoisted to kernel scope (CFunc.local_arrays: the
 *     user's `make-vector ... :local`, the library's tiles, the
 *     one-element slots of `(declare (uniform x))`): LENGTH x stride;
 *   - the workgroup scratch the host sizes (SIDE_LOCAL side channels, a
 *     __local argument): their size tree x stride, at least one element,
 *     as the hoists allocate them;
 *   - the warp memory of the local-memory warp lowering: words per
 *     work-item x 4 x the local size.
 * The total is a size tree the hosts can evaluate for any launch; at the
 * kernel's declared local size (a `(local-size :set-to ...)`, or the one
 * crisp chose, types/sidechan.c) it is a number. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis_int.h"
#include "localmem.h"

/* Parts below this many bytes are summed up in one note. */
#define LOCALMEM_NOTE_MIN 1024

/* The declared local size: the value of each launch input, or unknown. */
typedef struct AtSize {
    int64_t local[3];
    int known;          /* every local size is declared as a number */
    int unknown_input;  /* evaluation met an input with no value */
} AtSize;

static double at_size_value(void *ud, const SizeExpr *in) {
    AtSize *as = ud;
    int d = in->dim >= 0 && in->dim < 3 ? in->dim : 0;
    switch (in->op) {
    case SZ_LOCAL_SIZE:
    case SZ_MAX_LOCAL_SIZE:
        if (as->known) return (double)as->local[d];
        break;
    case SZ_LOCAL_LINEAR_SIZE:
        if (as->known) return (double)(as->local[0] * as->local[1] * as->local[2]);
        break;
    default:
        break;
    }
    as->unknown_input = 1;
    return 0;
}

/* E's value at the declared local size, or -1. */
static int64_t eval_at(const SizeExpr *e, AtSize *as) {
    if (!e) return -1;
    as->unknown_input = 0;
    double v = sz_eval(e, at_size_value, as);
    if (as->unknown_input || v < 0 || v > 9e18) return -1;
    return (int64_t)v;
}

static LocalPart *next_part(Arena *a, LocalMem *lm, int *cap) {
    if (!arena_reserve(a, (void **)&lm->parts, lm->nparts, 1, cap, sizeof *lm->parts)) return NULL;
    LocalPart *p = &lm->parts[lm->nparts++];
    memset(p, 0, sizeof *p);
    return p;
}

/* A name for messages: the library's generated `%filter-stage483` is
 * shown as `filter-stage`. */
static const char *shown_name(Arena *a, const char *name) {
    if (!name || name[0] != '%') return name;
    size_t n = strlen(name);
    while (n > 1 && name[n - 1] >= '0' && name[n - 1] <= '9') n--;
    return arena_strndup(a, name + 1, n - 1);
}

LocalMem *localmem_kernel(Arena *a, const CFunc *f) {
    LocalMem *lm = arena_alloc(a, sizeof *lm);
    if (!lm) return NULL;
    memset(lm, 0, sizeof *lm);
    lm->at_size = -1;
    if (!f || f->kind != FN_KERNEL) return lm;
    AtSize as;
    memset(&as, 0, sizeof as);
    as.local[0] = as.local[1] = as.local[2] = 1;
    if (f->single_task) {
        as.known = 1; /* one work-item */
    } else if (cfunc_rare(f)->lsize.present && cfunc_rare(f)->lsize.nset > 0 && !cfunc_rare(f)->lsize.nderive) {
        as.known = 1;
        for (int d = 0; d < cfunc_rare(f)->lsize.nset && d < 3; d++) as.local[d] = cfunc_rare(f)->lsize.set_to[d] > 0 ? cfunc_rare(f)->lsize.set_to[d] : 1;
    }
    if (as.known) lm->local_size = as.local[0] * as.local[1] * as.local[2];
    int cap = 0;
    SizeExpr **terms = NULL;
    int nterms = 0, capterms = 0;
    /* the :local vectors at kernel scope */
    for (int i = 0; i < cfunc_rare(f)->nlocal; i++) {
        const Sym *s = cfunc_rare(f)->local_arrays[i];
        if (!s->ty || s->ty->kind != TY_VECTOR) continue;
        LocalPart *p = next_part(a, lm, &cap);
        if (!p) return NULL;
        p->kind = LP_ARRAY;
        p->name = shown_name(a, s->name);
        p->element = ty_name(a, s->ty->elem);
        p->stride = ty_vector_stride(s->ty->elem, s->ty->align);
        p->count_crisp = arena_printf(a, "%" PRId64, s->ty->length);
        p->at_size = s->ty->length > 0 && s->ty->length < ((int64_t)1 << 40) ? s->ty->length * p->stride : 0;
        p->bytes = sz_int(a, p->at_size);
        p->at = s->def;
        lm->static_bytes += p->at_size;
    }
    /* the :local vector parameters: as long as the caller says */
    for (int i = 0; i < f->nparams; i++) {
        const Sym *s = f->params[i];
        if (!s->ty || s->ty->kind != TY_VECTOR || s->ty->as != AS_LOCAL) continue;
        LocalPart *p = next_part(a, lm, &cap);
        if (!p) return NULL;
        p->kind = LP_PARAM;
        p->name = s->name;
        p->element = ty_name(a, s->ty->elem);
        p->stride = ty_vector_stride(s->ty->elem, s->ty->align);
        p->count_crisp = arena_printf(a, "(length~ %s)", s->name);
        p->bytes = sz_simplify(a, sz_bin(a, SZ_MUL, sz_bin(a, SZ_MAX, sz_param(a, SZ_LENGTH, s->name, i, 0), sz_int(a, 1)),
                                         sz_int(a, p->stride)));
        p->at_size = -1;
        p->at = s->def;
    }
    /* the workgroup scratch the host sizes */
    for (int i = 0; i < cfunc_rare(f)->nsides; i++) {
        const SideChannel *sc = cfunc_rare(f)->sides[i];
        if (sc->kind != SIDE_LOCAL || !sc->ty || sc->ty->kind != TY_VECTOR) continue;
        LocalPart *p = next_part(a, lm, &cap);
        if (!p) return NULL;
        p->kind = LP_SCRATCH;
        p->name = shown_name(a, sc->sym && sc->sym->name ? sc->sym->name : sc->name);
        p->element = ty_name(a, sc->ty->elem);
        p->comment = sc->comment;
        p->stride = ty_vector_stride(sc->ty->elem, sc->ty->align);
        p->count_crisp = sc->size_crisp;
        p->at = sc->at;
        /* the hoists allocate at least one element */
        p->bytes = sc->size ? sz_simplify(a, sz_bin(a, SZ_MUL, sz_bin(a, SZ_MAX, sc->size, sz_int(a, 1)), sz_int(a, p->stride)))
                            : NULL;
        p->at_size = eval_at(p->bytes, &as);
    }
    /* the warp memory of the local-memory lowering */
    if (cfunc_rare(f)->warp_mem && cfunc_rare(f)->warp_words > 0) {
        LocalPart *p = next_part(a, lm, &cap);
        if (!p) return NULL;
        p->kind = LP_WARP;
        p->name = "warp-memory";
        p->element = "uint";
        p->stride = 4;
        p->count_crisp = arena_printf(a, "(* (get-local-linear-size) %d)", cfunc_rare(f)->warp_words);
        p->comment = "the lanes of a warp exchange values here (docs/warps.md)";
        p->bytes = sz_bin(a, SZ_MUL, sz_launch(a, SZ_LOCAL_LINEAR_SIZE, 0), sz_int(a, 4 * cfunc_rare(f)->warp_words));
        p->at_size = eval_at(p->bytes, &as);
        p->at = f->def;
    }
    if (!lm->nparts) return lm;
    int all_known = 1;
    int64_t total = 0;
    if (lm->static_bytes) {
        if (!arena_reserve(a, (void **)&terms, nterms, 1, &capterms, sizeof *terms)) return NULL;
        terms[nterms++] = sz_int(a, lm->static_bytes);
    }
    for (int i = 0; i < lm->nparts; i++) {
        LocalPart *p = &lm->parts[i];
        if (p->at_size < 0) all_known = 0;
        else total += p->at_size;
        if (p->kind == LP_ARRAY) continue;
        if (!p->bytes) {
            all_known = 0;
            continue;
        }
        if (!arena_reserve(a, (void **)&terms, nterms, 1, &capterms, sizeof *terms)) return NULL;
        terms[nterms++] = (SizeExpr *)p->bytes;
    }
    lm->bytes = nterms == 1 ? terms[0] : nterms ? sz_simplify(a, sz_node(a, SZ_ADD, terms, nterms)) : sz_int(a, 0);
    lm->at_size = all_known ? total : -1;
    return lm;
}

/* Where a note about node N goes: N's place when a file the user gave holds
 * it, else the innermost macro call the user wrote (the library's scratch
 * is made by the user's `filter` or `exclusive-scan`). */
static SrcLoc user_loc(const Crisp *c, const Node *n, const char **macro) {
    *macro = NULL;
    SrcLoc none = srcloc_in(0, 0, 0);
    if (!n) return none;
    for (int i = 0; i < c->nfiles; i++)
        if (srcloc_file(n->loc) == c->files[i]) return n->loc;
    for (const Expansion *e = n->origin; e; e = e->parent)
        for (int i = 0; i < c->nfiles; i++)
            if (srcloc_file(e->call) == c->files[i]) {
                *macro = e->macro;
                return e->call;
            }
    return n->loc;
}

/* 12,345 */
static const char *with_commas(Arena *a, int64_t v) {
    char digits[32], out[48];
    snprintf(digits, sizeof digits, "%" PRId64, v);
    int n = (int)strlen(digits), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0 && digits[i - 1] != '-') out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    return arena_strdup(a, out);
}

void localmem_check(Analysis *an, const CFunc *f) {
    if (!f || f->kind != FN_KERNEL) return; /* only a kernel's local memory is counted */
    /* Without :local vectors, workgroup scratch or warp memory, the parts
       are :local parameters alone, sized at launch: nothing is counted
       (bytes would be static_bytes, 0).  Said here without making the
       parts (issue 14: localmem_kernel for every kernel, reading each
       parameter's type, was 0.6 M instructions of the 1 MB program). */
    const CFuncRare *r = f->rare;
    if (!r || (!r->nlocal && !r->nsides && !(r->warp_mem && r->warp_words > 0))) return;
    Arena *a = an->a;
    LocalMem *lm = localmem_kernel(a, f);
    if (!lm || !lm->nparts) return;
    int64_t bytes = lm->at_size >= 0 ? lm->at_size : lm->static_bytes;
    if (bytes <= LOCALMEM_OPENCL_MIN) return;
    const char *at;
    if (lm->at_size >= 0 && lm->local_size && !f->single_task)
        at = arena_printf(a, " at its local size of %" PRId64 " work-items%s", lm->local_size,
                          cfunc_rare(f)->lsize.msg && strstr(cfunc_rare(f)->lsize.msg, "chosen by crisp") ? " (which crisp chose: the kernel declares none)" : "");
    else if (lm->at_size >= 0)
        at = "";
    else
        at = " in its fixed-size :local vectors alone";
    diag_warning_at(an->d, f->def, "W0704",
                    "kernel `%s` needs %s bytes of local memory per workgroup%s, more than the %s bytes (32 KiB) OpenCL guarantees: "
                    "a device with less refuses to launch it (CL_OUT_OF_RESOURCES)",
                    f->name, with_commas(a, bytes), at, with_commas(a, LOCALMEM_OPENCL_MIN));
    int scales = 0, nsmall = 0;
    int64_t small = 0;
    for (int i = 0; i < lm->nparts; i++) {
        const LocalPart *p = &lm->parts[i];
        if (p->at_size < 0 && lm->at_size >= 0) continue;
        if (p->kind != LP_ARRAY && (p->at_size < 0 || p->at_size >= LOCALMEM_NOTE_MIN)) scales = 1;
        if (p->at_size >= 0 && p->at_size < LOCALMEM_NOTE_MIN) { /* summed up below */
            nsmall++;
            small += p->at_size;
            continue;
        }
        const char *macro;
        SrcLoc loc = user_loc(an->c, p->at, &macro);
        const char *by = macro ? arena_printf(a, " (made by `%s`)", macro) : "";
        const char *what = p->kind == LP_ARRAY     ? ":local vector"
                           : p->kind == LP_PARAM   ? ":local parameter"
                           : p->kind == LP_SCRATCH ? "workgroup scratch"
                                                   : "warp memory";
        if (p->at_size >= 0)
            diag_note(an->d, loc, "%s `%s`%s: %s x %s (%d bytes each) = %s bytes%s%s", what, p->name, by, p->count_crisp,
                      p->element, p->stride, with_commas(a, p->at_size), p->comment ? " -- " : "", p->comment ? p->comment : "");
        else
            diag_note(an->d, loc, "%s `%s`%s: %s x %s (%d bytes each), sized at launch%s%s", what, p->name, by,
                      p->count_crisp, p->element, p->stride, p->comment ? " -- " : "", p->comment ? p->comment : "");
    }
    const char *kmacro;
    SrcLoc kloc = user_loc(an->c, f->def, &kmacro);
    if (nsmall)
        diag_note(an->d, kloc, "and %d smaller part%s: %s bytes", nsmall,
                  nsmall == 1 ? "" : "s", with_commas(a, small));
    if (scales)
        diag_note(an->d, kloc,
                  "to shrink it: fewer work-items per workgroup (`(declare (local-size :set-to 128))` in the kernel, "
                  "or a smaller local size at launch), or fewer elements per work-item (:items-per-thread of the scans and "
                  "filter, :keys-per-thread of the radix sort); the hoists refuse a launch the device has too little local memory for");
    else
        diag_note(an->d, kloc, "to shrink it: shorter :local vectors, or several passes over smaller tiles");
}
