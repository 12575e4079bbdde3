/* context.c - helpers on the per-compilation state (context.h) that every
 * stage uses: growing a Forms list and reading -D overrides. */
#include "context.h"

#include <string.h>

void forms_push(Arena *a, Forms *f, Node *n) {
    if (f->n == f->cap) {
        int nc = f->cap ? f->cap * 2 : 4; /* most lists are short (issue 14) */
        Node **v = arena_alloc(a, sizeof(Node *) * (size_t)nc);
        if (!v) return;
        if (f->n) memcpy(v, f->v, sizeof(Node *) * (size_t)f->n);
        f->v = v;
        f->cap = nc;
    }
    f->v[f->n++] = n;
}

const char *crisp_define(const CrispOptions *opt, const char *name) {
    const char *v = NULL;
    for (int i = 0; opt && i < opt->ndefines; i++)
        if (!strcmp(opt->defines[i].name, name)) v = opt->defines[i].value; /* last wins */
    return v;
}
