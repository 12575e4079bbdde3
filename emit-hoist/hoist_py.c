/* hoist_py.c - BASE_hoist_PyOpenCL.py (being written; see emit-hoist/hoist.h). */
#include "hoist.h"

void emit_hoist_pyopencl(StrBuf *out, const Abi *abi, const HoistOptions *o, Arena *a) {
    (void)abi;
    (void)a;
    sb_printf(out, "# host code for %s.cl: not generated yet\n", o->base);
}
