/* reader.h - stage 1 of the pipeline: Crisp source text to syntax nodes.
 *
 * The reader knows every lexical form of the language (spec: "Crisp Types",
 * "Conditional Compilation"): comments, strings, numbers, keywords,
 * `name:type` annotations, quote/quasiquote/unquote, #', #(...), ##(...),
 * and #+/#- conditional reading keyed off def-parameter values (and -D
 * overrides).  Malformed input yields diagnostics, never a crash. */
#ifndef CRISP_READER_H
#define CRISP_READER_H

#include "../core/context.h"

/* Maximum list nesting depth accepted by the reader. */
#define READER_MAX_DEPTH 512

/* A def-parameter seen so far (values feed #+ / #-). */
typedef struct ReaderParam {
    const char *name;   /* case-sensitive */
    const Node *value;  /* default value form, or NULL */
    int truthy;         /* after -D override */
} ReaderParam;

typedef struct Reader {
    Crisp *c;
    ReaderParam *params;
    int nparams, capparams;
    int conditionals;   /* #+ / #- forms read: what they keep may depend on -D */
} Reader;

void reader_init(Reader *r, Crisp *c);

/* Read every top-level form of `f`, appending to `out`.  Diagnostics go to
 * c->diag.  Returns the number of errors found in this file. */
int reader_read_file(Reader *r, const SrcFile *f, Forms *out);

/* Read a built-in text (`text` is static: the prelude) like
 * reader_read_file, but parse it only once per process and share its
 * forms, read-only, with every later compilation (builtin.c). */
int reader_read_builtin(Reader *r, const char *name, const char *text, Forms *out);
/* A checksum of the shared built-in forms (tests: it never changes). */
unsigned long reader_builtin_checksum(void);

/* Truthiness of a -D value or literal form text: "0", "nil", "false" (any
 * case), "0.0" and "" are false; everything else is true. */
int reader_text_truthy(const char *text);

/* Truthiness of a def-parameter default (or feature literal) form: NULL
 * (no default), the integer 0, the float 0.0, the symbols nil/false (any
 * case) and the empty list are false; everything else is true. */
int reader_form_truthy(const Node *n);

#endif
