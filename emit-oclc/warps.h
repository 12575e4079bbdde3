/* warps.h - the OpenCL C of the warp forms (emit-oclc/warps.c,
 * docs/warps.md): the lowering selection printed after the pragmas, the
 * support functions, and the names of both. */
#ifndef CRISP_EMIT_WARPS_H
#define CRISP_EMIT_WARPS_H

#include "../core/printer.h"
#include "../types/check.h"

/* Does the program use any warp form? */
int oclc_uses_warps(const Program *p);
/* The CRISP_WARP_* selection (nothing when the program has no warp forms). */
void oclc_warp_header(Printer *pr, const Program *p);
/* The support functions the program's warp forms need. */
void oclc_warp_helpers(Printer *pr, const Program *p, Arena *a);
/* The function implementing warp op OP (a WarpOp; WARP_READ: for type TY). */
const char *oclc_warp_name(Arena *a, int op, const Type *ty);

#endif
