/* order.h - definition order of the top-level forms: --single-pass and
 * --re-output-crisp (spec "Other Flags", "Fast Compilation"; order.c). */
#ifndef CRISP_ORDER_H
#define CRISP_ORDER_H

#include "../core/context.h"
#include "../types/check.h"

/* --single-pass: an error for every use of a function, type or constant
 * before the top-level form that defines it.  Returns the errors found. */
int order_check_single_pass(Crisp *c, Forms read);

/* --re-output-crisp: the text of input file `file` rewritten so that every
 * definition precedes its uses (each file on its own), the types crisp
 * inferred for let variables written out, and static-analysis opt-ins
 * (declaim, check-* and max-registers declarations) removed.  Comments move with the form
 * below them.  `p` is the checked program (for the inferred types). */
void order_reoutput(Crisp *c, Forms read, const Program *p, int file, StrBuf *out);

/* The name a top-level definition form defines (canonical key), or NULL. */
const char *order_defined_name(const Node *n);

#endif
