/* suggest.h - "did you mean ...?" for unknown names.
 *
 * Diagnostics for an unknown variable, function or form offer the nearest
 * known name: an edit distance of at most 2 (1 for short names), or the
 * same letters once case, dashes and underscores are ignored. */
#ifndef CRISP_SUGGEST_H
#define CRISP_SUGGEST_H

typedef struct Suggest {
    const char *name;   /* the unknown name */
    const char *best;   /* nearest candidate so far, or NULL */
    int dist;           /* its distance */
} Suggest;

void suggest_init(Suggest *s, const char *name);
/* Consider one candidate. */
void suggest_add(Suggest *s, const char *cand);
/* The suggestion, or NULL when nothing is near enough. */
const char *suggest_best(const Suggest *s);

#endif
