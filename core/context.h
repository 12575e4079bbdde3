/* context.h - the state of one compilation, shared by every stage.
 *
 * Below every stage: the reader, the expander, the checker and the emitters
 * all see a `Crisp` (its arena, its diagnostics, its options and its source
 * files) and pass `Forms`, plain lists of syntax nodes, between them. */
#ifndef CRISP_CONTEXT_H
#define CRISP_CONTEXT_H

#include "options.h"
#include "arena.h"
#include "diag.h"
#include "node.h"
#include "strbuf.h"

/* A list of syntax forms: the plain data passed between the first stages. */
typedef struct Forms {
    Node **v;
    int n, cap;
} Forms;

void forms_push(Arena *a, Forms *f, Node *n);

/* Per-compilation state shared by the stages. */
typedef struct Crisp {
    Arena arena;
    Diag diag;
    const CrispOptions *opt;
    SrcFile **files;
    int nfiles;
    int gensym_counter;
    int feature_forms;  /* (%feature-if ...) forms made (reader, intern): none, no walk for them */
} Crisp;

/* Look up -D value for a (case-sensitive) parameter name, or NULL. */
const char *crisp_define(const CrispOptions *opt, const char *name);

#endif
