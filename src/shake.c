/* shake.c - --tree-shaking: keep only what the kernels use (shake.h).
 *
 * Spec: "--tree-shaking" ("evaluate which functions and subfunctions are
 * ACTUALLY called by the kernels and only incorporate those").  Starting
 * from every kernel, a function is kept when a kept function calls it (its
 * C name in a call) or when an atomic helper combines with it (calls name
 * helpers by their index in the program, so every helper stays, and with
 * it the functions they call); def-const-vecs are kept when a kept
 * function reads them.  Structs and enumerations stay: they cost no code.
 * The result is a shallow copy of the Program, so the checked program
 * itself is untouched. */
#include "shake.h"

#include <string.h>

typedef struct Shake {
    const Program *p;
    char *fkeep;   /* per function */
    int changed;
} Shake;

static void mark_calls(Shake *s, const Node *n) {
    if (!n) return;
    if (n->kind == N_C_CALL && n->op == BI_CALL && n->text) {
        for (int i = 0; i < s->p->nfuncs; i++)
            if (!s->fkeep[i] && !strcmp(s->p->funcs[i]->cname, n->text)) s->fkeep[i] = s->changed = 1;
    }
    for (int i = 0; i < n->nkids; i++) mark_calls(s, n->kids[i]);
}

static void name_list(StrBuf *b, const char *name) {
    sb_printf(b, "%s\"%s\"", b->len ? ", " : "", name);
}

Program *tree_shake(Arena *a, const Program *p, StrBuf *kept, StrBuf *shaken) {
    Program *q = arena_alloc(a, sizeof *q);
    Shake s = {p, arena_alloc(a, (size_t)p->nfuncs + 1), 1};
    if (!q || !s.fkeep) return NULL;
    *q = *p;
    for (int i = 0; i < p->nfuncs; i++) {
        s.fkeep[i] = p->funcs[i]->kind == FN_KERNEL;
        /* a function an atomic combines with (its helpers, by function) */
        for (const Helper *h = ptrmap_get(&p->helpers_by_fn, p->funcs[i]); h && !s.fkeep[i]; h = h->next_fn)
            s.fkeep[i] = h->fn == p->funcs[i] && helper_live(p, h);
    }
    char *scanned = arena_alloc(a, (size_t)p->nfuncs + 1);
    if (!scanned) return NULL;
    while (s.changed) {
        s.changed = 0;
        for (int i = 0; i < p->nfuncs; i++)
            if (s.fkeep[i] && !scanned[i]) {
                scanned[i] = 1;
                s.changed = 1;
                mark_calls(&s, p->funcs[i]->body);
            }
    }
    q->funcs = arena_alloc(a, sizeof(CFunc *) * (size_t)(p->nfuncs + 1));
    q->cvecs = arena_alloc(a, sizeof(ConstVec *) * (size_t)(p->ncvecs + 1));
    if (!q->funcs || !q->cvecs) return NULL;
    q->nfuncs = q->ncvecs = 0;
    for (int i = 0; i < p->nfuncs; i++) {
        if (s.fkeep[i]) q->funcs[q->nfuncs++] = p->funcs[i];
        if (p->funcs[i]->kind != FN_KERNEL) name_list(s.fkeep[i] ? kept : shaken, p->funcs[i]->name);
    }
    for (int i = 0; i < p->ncvecs; i++) {
        int used = 0;
        for (int f = 0; f < q->nfuncs && !used; f++)
            for (int u = 0; u < cfunc_rare(q->funcs[f])->ncvuses && !used; u++) used = sym_rare(cfunc_rare(q->funcs[f])->cvuses[u])->cvec == p->cvecs[i];
        if (used) q->cvecs[q->ncvecs++] = p->cvecs[i];
        else name_list(shaken, p->cvecs[i]->name);
    }
    q->capfuncs = q->nfuncs;
    q->capcvecs = q->ncvecs;
    return q;
}
