/* hoist.h - host code generation ("Hoisting Code" in the spec): for every
 * kernel, code that loads the program, prepares every buffer (side channels
 * included), sets the arguments, enqueues with the declared sizes and reads
 * results back.  Both emitters print from the kernel ABI (abi.h), the same
 * data the .metacrisp file is printed from. */
#ifndef CRISP_HOIST_H
#define CRISP_HOIST_H

#include "../emit-oclc/abi.h"
#include "../core/strbuf.h"

typedef struct HoistOptions {
    const char *base;           /* output base name: BASE.cl sits beside */
    const char *cl_source;      /* the OpenCL C text (for embedding) */
    int unified_memory;         /* --hoist-unified-memory */
    const char **dynamic;       /* --hoist-dynamic=KERNEL names */
    int ndynamic;
    int debug_output;           /* --debug-output */
    const char *crisp_source;   /* --hoist-dynamic: the Crisp inputs, for the API */
    const char *crisp_flags;    /* ... and the flags it respects (docs/api.md) */
} HoistOptions;

/* BASE_hoist_OpenCL.c: C99 (and C++) against the Khronos headers and the
 * ICD loader, using runtime-shim/crisp_runtime.h. */
void emit_hoist_opencl(StrBuf *out, const Abi *abi, const HoistOptions *o, Arena *a);

/* BASE_hoist_PyOpenCL.py: a module with load(context=None, queue=None),
 * using runtime-shim/crisp_runtime.py. */
void emit_hoist_pyopencl(StrBuf *out, const Abi *abi, const HoistOptions *o, Arena *a);

/* The runtime shim files, compiled into the binary (--emit-runtime=DIR). */
extern const char crisp_runtime_h_text[];
extern const char crisp_runtime_py_text[];

#endif
