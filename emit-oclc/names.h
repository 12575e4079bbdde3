/* names.h - the identifiers OpenCL C reserves, for the checker.
 *
 * The checker names every definition and variable of the checked program
 * but knows no target language: the driver hands it oclc_names (the
 * TargetNames seam of types/check.h), and a user name that OpenCL C or
 * crisp's support code (crisp_*) takes is renamed, or refused for a kernel,
 * whose name the host sees.  Another target (CUDA C) adds a table of its
 * own beside its emitter. */
#ifndef CRISP_EMIT_OCLC_NAMES_H
#define CRISP_EMIT_OCLC_NAMES_H

#include "../types/check.h"

/* OpenCL C 1.2's keywords, types, built-ins and macros, and the prefixes
 * of its headers' macros and of crisp's support code. */
extern const TargetNames oclc_names;

int oclc_reserved(const char *name);
int oclc_reserved_prefix(const char *name);

#endif
