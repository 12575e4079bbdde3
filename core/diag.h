/* diag.h - the one diagnostics module of crisp.
 *
 * Messages look like
 *     FILE:LINE:COL: error[E0301]: expected `int`, found `float`
 *        12 |   (+ a b)
 *           |      ^
 *     FILE:LINE:COL: note: in expansion of macro `dotimes` at FILE:LINE:COL
 * or, with --diagnostics-format=json, one JSON object per line (its notes
 * inside it; docs/diagnostics.md has the fields).  Errors are collected (up
 * to a cap) and compilation goes on with the next top-level form; the
 * library never exits.  Output goes to `out` (the driver passes stderr;
 * tests pass a memory stream).  Every code is in the registry,
 * diag_codes.h, which diag_info() reads. */
#ifndef CRISP_DIAG_H
#define CRISP_DIAG_H

#include <stdio.h>

#include "node.h"
#include "strbuf.h"

#define DIAG_MAX_ERRORS 50
#define DIAG_MAX_WARNINGS 200

typedef enum DiagSeverity { DIAG_SEV_ERROR, DIAG_SEV_WARNING } DiagSeverity;

/* One entry of the registry (diag_codes.h). */
typedef struct DiagInfo {
    const char *code;       /* "E0312" */
    DiagSeverity severity;
    const char *title;      /* a short title, for --explain and docs */
    const char *internal;   /* why no source can trigger it, or NULL */
} DiagInfo;

/* The registry entry of `code` (case-insensitive), or NULL. */
const DiagInfo *diag_info(const char *code);
/* The i-th entry in code order (NULL past the end). */
const DiagInfo *diag_info_at(int i);

/* The example of a code: its shortest negative test, built into the binary
 * by scripts/embed_examples.sh (crisp_diag_examples ends with a NULL code). */
typedef struct DiagExample {
    const char *code;
    const char *file;   /* tests/neg/... it was taken from */
    const char *text;
} DiagExample;
extern const DiagExample crisp_diag_examples[];
const DiagExample *diag_example(const char *code);

typedef enum DiagFormat { DIAG_FORMAT_TEXT, DIAG_FORMAT_JSON } DiagFormat;

typedef struct Diag {
    FILE *out;        /* where messages go; NULL = discard */
    int errors;       /* errors reported (including suppressed ones) */
    int warnings;
    int max_errors;   /* cap on printed errors (0 = DIAG_MAX_ERRORS) */
    int fatal;        /* set by diag_fatal: stop the pipeline */
    DiagFormat format; /* text (default) or one JSON object per diagnostic */
    int color;        /* ANSI colours in text (the driver decides) */
    int werror;       /* -Werror: a warning is reported and counted as an error */
    int no_warnings;  /* -w: warnings are dropped (-w wins over -Werror) */
    StrBuf json;      /* JSON mode: the object whose notes may still come */
    int json_open;
    /* The compilation's arena ran out (Arena.exhausted), or NULL: after
       that, stages see refused allocations, so their next error or warning
       is reported as what it is, out of memory, and the rest are dropped.
       diag_fatal messages (the stages' own out-of-memory reports) pass. */
    const int *exhausted;
    size_t mem_limit; /* the arena's cap, for that message (0: the default 4 GiB) */
    int oom_reported;
    /* the last messages printed (hashes), so one reached twice - a form
       checked again after a first attempt - is printed once */
    unsigned long recent[16];
    int nrecent;
    int mute_notes;   /* the message was a repeat: skip its notes too */
} Diag;

void diag_init(Diag *d, FILE *out);
/* Finish what is pending (the last JSON object) and free the buffers; call
 * once at the end of a compilation.  diag_init may follow to start again. */
void diag_finish(Diag *d);

/* `code` is a stable identifier such as "E0301" (may be NULL). */
void diag_error(Diag *d, SrcLoc loc, const Expansion *origin, const char *code,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void diag_warning(Diag *d, SrcLoc loc, const Expansion *origin, const char *code,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A note attached to the previous error or warning. */
void diag_note(Diag *d, SrcLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An error with no place in a source (files, memory): `crisp: error: ...`. */
void diag_error_plain(Diag *d, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An error that makes further stages pointless (resource limits). */
/* The compilation's memory limit as --max-memory spells it ("12M"),
 * written into buf. */
const char *diag_memory_limit(const Diag *d, char *buf, size_t size);

void diag_fatal(Diag *d, SrcLoc loc, const Expansion *origin, const char *code,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Convenience: error at a node (uses its loc and origin). */
void diag_error_at(Diag *d, const Node *n, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_warning_at(Diag *d, const Node *n, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
