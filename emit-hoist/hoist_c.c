/* hoist_c.c - BASE_hoist_OpenCL.c (being written; see emit-hoist/hoist.h). */
#include "hoist.h"

void emit_hoist_opencl(StrBuf *out, const Abi *abi, const HoistOptions *o, Arena *a) {
    (void)abi;
    (void)a;
    sb_printf(out, "/* host code for %s.cl: not generated yet */\n", o->base);
}
