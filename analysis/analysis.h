/* analysis.h - the analyses of the checked program, between the checker
 * and the emitters (docs/analysis.md).
 *
 *     read -> check -> analyse -> emit
 *
 * The uniformity pass always runs: it decides which values are the same
 * for every work-item of a workgroup, reports the `+` variants whose
 * condition or bounds are not (spec "+ variants"), a local-barrier that
 * only some work-items can reach when that is certain, and drops the
 * captures of the `*` variants whose value is uniform already.  The
 * opt-in checks of spec "Static Analysys" (check-barriers,
 * check-divergence, check-coalesce, check-bank-conflicts, max-registers,
 * warn-max-registers), elected with `declaim` or a function's `declare`,
 * run unless --no-static-analysis; they only warn. */
#ifndef CRISP_ANALYSIS_H
#define CRISP_ANALYSIS_H

#include "../core/strbuf.h"
#include "../types/check.h"

typedef struct Analysis Analysis;

/* Analyse `p` (checked without errors), reporting through c->diag; may
 * rewrite `p` (dropped captures).  Returns the results for
 * analysis_dump, or NULL when out of memory. */
Analysis *analysis_run(Crisp *c, Program *p);

/* --dump=analysis: per function, the uniformity of each variable, each
 * branch and loop, the summary callers see, and the opt-in checks. */
void analysis_dump(StrBuf *b, const Analysis *an);

/* The analysis is over (after analysis_dump): what it allocated goes back
 * to the arena, all but the texts it rewrote in `p` (issue 14: the
 * summaries were kept to the end of the compilation, unused).  AN may be
 * NULL (analysis_run ran out of memory); nothing of AN may be used after. */
void analysis_release(Crisp *c, Analysis *an);

#endif
