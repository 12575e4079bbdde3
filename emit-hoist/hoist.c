/* hoist.c - which files the hoists write (hoist.h): for --hoist=OpenCL the
 * header, the library source and the demo; for --hoist=PyOpenCL the
 * module; for --hoist=PyCUDA its CUDA twin; and for each the runtime shim it includes, so the output
 * folder is complete on its own (spec "Hoisting Code"). */
#include "hoist.h"

static HoistFile *next(HoistFile *out, int *n, Arena *a, const char *fmt, const char *base) {
    HoistFile *f = &out[(*n)++];
    f->name = arena_printf(a, fmt, base);
    sb_init(&f->text);
    return f;
}

int emit_hoists(HoistFile *out, const Abi *abi, const HoistOptions *o, int targets, Arena *a) {
    int n = 0;
    if (targets & HOIST_OPENCL) {
        HoistFile *h = next(out, &n, a, "%s_hoist_OpenCL.h", o->base);
        HoistFile *c = next(out, &n, a, "%s_hoist_OpenCL.c", o->base);
        HoistFile *d = next(out, &n, a, "%s_hoist_OpenCL_demo.c", o->base);
        emit_hoist_opencl(&h->text, &c->text, &d->text, abi, o, a);
        sb_puts(&next(out, &n, a, "%s", "crisp_runtime.h")->text, crisp_runtime_h_text);
    }
    if (targets & HOIST_PYOPENCL) {
        emit_hoist_pyopencl(&next(out, &n, a, "%s_hoist_PyOpenCL.py", o->base)->text, abi, o, a);
        sb_puts(&next(out, &n, a, "%s", "crisp_runtime.py")->text, crisp_runtime_py_text);
    }
    if (targets & HOIST_CUDA) {
        HoistFile *h = next(out, &n, a, "%s_hoist_CUDA.h", o->base);
        HoistFile *c = next(out, &n, a, "%s_hoist_CUDA.cpp", o->base);
        HoistFile *d = next(out, &n, a, "%s_hoist_CUDA_demo.cpp", o->base);
        emit_hoist_cuda(&h->text, &c->text, &d->text, abi, o, a);
        sb_puts(&next(out, &n, a, "%s", "crisp_runtime_cuda.h")->text, crisp_runtime_cuda_h_text);
    }
    if (targets & HOIST_PYCUDA) {
        emit_hoist_pycuda(&next(out, &n, a, "%s_hoist_PyCUDA.py", o->base)->text, abi, o, a);
        sb_puts(&next(out, &n, a, "%s", "crisp_runtime_cuda.py")->text, crisp_runtime_cuda_py_text);
    }
    return n;
}
