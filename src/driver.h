/* driver.h - the driver layer's internal entry points.
 *
 * crisp_run is the whole pipeline for one set of options (compile.c);
 * `crisp` (main.c) and the in-memory API (api.c) both call it.  It is
 * internal: libcrisp exports only the API of include/crisp.h. */
#ifndef CRISP_DRIVER_H
#define CRISP_DRIVER_H

#include <stdio.h>

#include "../core/options.h"

/* Compile with these options, writing diagnostics to `diag_out`.
 * Exit status: 0 ok, 1 source errors, 2 bad invocation, unreadable file,
 * missing or failing vendor tool. */
int crisp_run(const CrispOptions *opt, FILE *diag_out);

/* `crisp --explain CODE`: print the title of a diagnostic code (such as
 * "E0312") and an example program with what crisp reports on it.
 * Returns 0, or 2 (with a message on `err`) for an unknown code (explain.c). */
int crisp_explain(const char *code, FILE *out, FILE *err);

#endif
