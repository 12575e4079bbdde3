/* reads.h - local variables nobody reads, so the emitted OpenCL C passes
 * `clang -Wall -Werror` (see reads.c). */
#ifndef CRISP_OCLC_READS_H
#define CRISP_OCLC_READS_H

#include "../types/check.h"
#include "survey.h"

enum {
    OCLC_DECL_KEEP = 0,  /* read somewhere: print as is               */
    OCLC_DECL_DROP = 1,  /* never read, no effect: leave it out       */
    OCLC_DECL_MARK = 2,  /* never read but assigned or with an effect:
                            print it, then `(void)name;`              */
};

typedef struct OclcReads OclcReads;

/* The scanner of one emission's functions (its arrays serve them all),
 * NULL when out of memory; freed by oclc_reads_free. */
OclcReads *oclc_reads_new(void);
void oclc_reads_free(OclcReads *r);

/* Scan a function body of program `p`, forgetting the previous function
 * (`a`: the function's arena, for a table oclc_reads_decl may make).  0 when
 * out of memory: then keep everything (r is not to be asked).  With `sv`,
 * every node of the body is surveyed too (survey.h), in preorder, whatever
 * the result (also when r is NULL). */
int oclc_reads_scan(OclcReads *r, Arena *a, const Node *body, const Program *p, OclcSurvey *sv);

/* What to do with declaration `decl` (a C_DECL of the body): part 0 its
 * variable, part 1 a view's length variable.  For a C_FOR, MARK when its
 * loop variable is only counted (the emitter writes `(void)v;` in the
 * loop), else KEEP.  Fastest when asked in the body's order (a cursor
 * follows the questions). */
int oclc_reads_decl(OclcReads *r, const Node *decl, int part);

#endif
