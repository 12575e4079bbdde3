/* expand.h - the macro expander: macro calls become the code they stand for.
 *
 * Macros come from the built-in library (Crisp source compiled into the
 * binary: lib/prelude.crisp and the GPU library in lib/) and from the
 * user's own `defmacro`s; both run on the compile-time evaluator (eval.h).
 *
 * Expansion is type-directed: the checker calls the expander where it
 * reaches a macro call, with the types of the variables in scope known to
 * the evaluator through its host hooks (types/ctquery.c), so a macro body
 * may ask `(type-of x)` of a run-time variable (spec: "Higher Order
 * Function Operations", "binop-type").  Top-level forms are expanded in
 * order as the checker collects definitions (a macro is usable at top level
 * from the form after its defmacro on); function bodies are expanded when
 * they are checked, by which time every defmacro has been seen.
 *
 * Nodes produced by an expansion carry `origin`, the chain of macro call
 * sites, and the call's location, so later diagnostics point at the user's
 * code.  `--dump=expand` prints the program with every expansion the
 * checker performed substituted (expander_dump). */
#ifndef CRISP_EXPAND_H
#define CRISP_EXPAND_H

#include "../core/context.h"

typedef struct Expander Expander;
struct Eval;

/* The expander of compilation `c`: its evaluator with the library's
 * macros, %defuns and def-constraints loaded (unless opt->no_prelude).
 * NULL when out of memory. */
Expander *expander_new(Crisp *c);

/* The compile-time evaluator (the checker installs its type queries as the
 * evaluator's host hooks). */
struct Eval *expander_eval(Expander *x);

/* One top-level form: macros in head position are expanded, `defmacro`,
 * `%defun` and `def-constraint` are registered, `c-t-output`/`c-t-assert`
 * run, and `(progn ...)` of definitions is spliced; the resulting
 * definitions are appended to `out` with their bodies as written. */
void expander_toplevel(Expander *x, Node *form, Forms *out);
/* A hint: about `n` top-level forms will come (their table is made at its
 * size at once, issue 14). */
void expander_expect(Expander *x, int n);

/* The form at an evaluated position, `form`, with every macro call in head
 * position expanded until it is a core form or a function call:
 * `(c-t-output ...)`/`(c-t-assert ...)` run and become `(progn)`,
 * `(line)`/`(file)` become literals of the user's call site.  Returns
 * `form` itself when there is nothing to expand, NULL after an error. */
Node *expander_expand(Expander *x, Node *form);

/* The checker is about to check code of top-level form `toplevel_form`
 * (a function body, a constant): macro calls in it use the definitions in
 * force at that form's position (a later defmacro of the same name does
 * not apply; one defined after every form does, for synthesized code).
 * Returns what expander_leave restores. */
int expander_enter(Expander *x, const Node *toplevel_form);
void expander_leave(Expander *x, int saved);

/* `form` with the #+/#- forms whose feature expression is a compile-time
 * call ((is-floating-point? T)) decided: the reader leaves them as
 * (%feature-if #+|#- FEATURE FORM); each becomes FORM or nothing in the
 * list that holds it.  Top-level forms are decided as the expander meets
 * them; template instances once their parameters are substituted.  NULL
 * after an error. */
Node *expander_features(Expander *x, Node *form);

/* Every macro call in the evaluated positions of `form`, recursively: for
 * syntax read without being checked (constant expressions, sizes,
 * def-const-vec bodies) and for unit tests.  NULL after an error. */
Node *expander_expand_all(Expander *x, Node *form);

/* Is `form` a call of a macro (or a compile-time directive) that
 * expander_expand would rewrite? */
int expander_is_macro_call(Expander *x, const Node *form);

/* The library's definitions (def-function, with-template-type, def-type
 * ...), collected by the checker before the user's own forms. */
Forms expander_library(Expander *x);

/* --dump=expand: the top-level forms in order, each macro call the checker
 * expanded replaced by its expansion (calls in code the checker never
 * reached, such as functions no kernel calls, are printed as written).
 * The forms and expansions are kept only when c->opt->dump is
 * DUMP_EXPAND. */
void expander_dump(Expander *x, StrBuf *b);

/* Unit tests and tools: read nothing, check nothing; expand every form of
 * `in` completely, without type information. */
Forms expand_program(Crisp *c, Forms in);

/* Print forms one per paragraph (what --dump=read shows). */
void expand_dump(StrBuf *b, Forms f);

#endif
