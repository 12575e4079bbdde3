/* expand.h - stage 2 of the pipeline: macro expansion.
 *
 * Takes the syntax forms the reader produced and returns syntax forms in
 * which every macro call has been replaced by its expansion, recursively,
 * until only core forms (handled in C by the checker) remain.  `defmacro`
 * forms are consumed.  Macros come from the built-in prelude (Crisp source
 * compiled into the binary, macros/prelude.crisp) and from the user's own
 * `defmacro`s; both run on the compile-time evaluator (eval.h).
 *
 * Nodes produced by an expansion carry `origin`, the chain of macro call
 * sites, so later diagnostics can say where the code came from. */
#ifndef CRISP_EXPAND_H
#define CRISP_EXPAND_H

#include "../core/context.h"

/* Expand all forms.  Returns the expanded top-level forms (defmacros
 * removed).  Errors are reported on c->diag; a form whose expansion failed is
 * dropped so later stages do not report follow-on errors for it. */
Forms expand_program(Crisp *c, Forms in);

#endif
