/* emit_oclc.h - stage 4: printing a checked Program as OpenCL C and as the
 * JSON kernel metadata (.metacrisp).  Emitters never reject a program; the
 * checker has already done that.  Output is deterministic. */
#ifndef CRISP_EMIT_OCLC_H
#define CRISP_EMIT_OCLC_H

#include "../core/strbuf.h"
#include "../types/check.h"

/* BASE.cl: OpenCL C 1.2. */
void emit_oclc(StrBuf *out, const Program *p, Arena *scratch);

/* BASE.metacrisp: every kernel's OpenCL arguments (docs in README). */
void emit_metadata(StrBuf *out, const Program *p, Arena *scratch);

/* An IR or binary file the driver writes with the .cl (docs/targets.md):
 * its name, the target ("ptx", "nvcl", "sm_90" ...) and what loads it. */
typedef struct MetaBinary {
    const char *file, *target, *loader;
} MetaBinary;

/* emit_metadata with "binaries": BINS (none when NBINS is 0: the key is
 * left out, so metadata without --ir-target/--binary-gpu-target is as
 * before). */
void emit_metadata_binaries(StrBuf *out, const Program *p, Arena *scratch, const MetaBinary *bins, int nbins);

/* One checked expression, or one statement (at indent 0, every unread
 * variable kept), of program P as emit_oclc prints it inside a function:
 * the printers on their own (tests/unit/test_emit.c). */
void emit_oclc_expr(StrBuf *out, const Program *p, const Node *expr, Arena *scratch);
void emit_oclc_stmt(StrBuf *out, const Program *p, const Node *stmt, Arena *scratch);

/* OpenCL C type of a vector parameter's pointer, e.g.
 * "__global const float *" (with a trailing space before the name). */
const char *oclc_pointer_type(Arena *a, const Type *vec);
/* Element type name used in the pointer (padded std140 struct or plain). */
const char *oclc_elem_type(Arena *a, const Type *vec);

#endif
