/* diag.h - the one diagnostics module of crisp.
 *
 * Messages look like
 *     FILE:LINE:COL: error[E0301]: expected `int`, found `float`
 *        12 |   (+ a b)
 *           |      ^
 *     FILE:LINE:COL: note: in expansion of macro `dotimes` at FILE:LINE:COL
 * Errors are collected (up to a cap) and compilation goes on with the next
 * top-level form; the library never exits.  Output goes to `out` (the driver
 * passes stderr; tests pass a memory stream). */
#ifndef CRISP_DIAG_H
#define CRISP_DIAG_H

#include <stdio.h>

#include "node.h"

#define DIAG_MAX_ERRORS 50

typedef struct Diag {
    FILE *out;        /* where messages go; NULL = discard */
    int errors;       /* errors reported (including suppressed ones) */
    int warnings;
    int max_errors;   /* cap on printed errors (0 = DIAG_MAX_ERRORS) */
    int fatal;        /* set by diag_fatal: stop the pipeline */
    /* the last messages printed (hashes), so one reached twice - a form
       checked again after a first attempt - is printed once */
    unsigned long recent[16];
    int nrecent;
    int mute_notes;   /* the message was a repeat: skip its notes too */
} Diag;

void diag_init(Diag *d, FILE *out);

/* `code` is a stable identifier such as "E0301" (may be NULL). */
void diag_error(Diag *d, SrcLoc loc, const Expansion *origin, const char *code,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void diag_warning(Diag *d, SrcLoc loc, const Expansion *origin, const char *code,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A note attached to the previous error or warning. */
void diag_note(Diag *d, SrcLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An error that makes further stages pointless (resource limits). */
void diag_fatal(Diag *d, SrcLoc loc, const Expansion *origin, const char *code,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Convenience: error at a node (uses its loc and origin). */
void diag_error_at(Diag *d, const Node *n, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_warning_at(Diag *d, const Node *n, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
