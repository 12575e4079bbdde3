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
    const char **cuda_sms;      /* the CUDA hoists: --binary-gpu-target=sm_XX values */
    int ncuda_sms;
    int fat_binary;             /* --fat-binary: BASE_sm_XX.fatbin, not .cubin */
    int cuda;                   /* set by emit_hoists: the CUDA flavour of an emitter */
    int spirv;                  /* --ir-target=spv: the OpenCL hoists load BASE.spv where they can */
    int ptx;                    /* --ir-target=ptx: the OpenCL hoists load BASE_nvcl.ptx on NVIDIA's OpenCL */
} HoistOptions;

/* The hoist targets (--hoist=...). */
enum { HOIST_OPENCL = 1, HOIST_PYOPENCL = 2, HOIST_CUDA = 4, HOIST_PYCUDA = 8 };

/* One file a hoist writes: its name in the output directory and its text. */
typedef struct HoistFile {
    const char *name;
    StrBuf text;
} HoistFile;

#define HOIST_MAX_FILES 16

/* Every file of the hoists in TARGETS, the runtime shim among them (a hoist
 * is usable from a folder holding only what crisp wrote).  Returns the
 * number of files in OUT (each text to be freed by the caller). */
int emit_hoists(HoistFile *out, const Abi *abi, const HoistOptions *o, int targets, Arena *a);

/* BASE_hoist_OpenCL.h, BASE_hoist_OpenCL.c (the library: C99 and C++,
 * against the Khronos headers and the ICD loader, using
 * runtime-shim/crisp_runtime.h) and BASE_hoist_OpenCL_demo.c (a main()). */
void emit_hoist_opencl(StrBuf *header, StrBuf *source, StrBuf *demo, const Abi *abi, const HoistOptions *o, Arena *a);

/* BASE_hoist_PyOpenCL.py: a module with load(context=None, queue=None),
 * using runtime-shim/crisp_runtime.py. */
void emit_hoist_pyopencl(StrBuf *out, const Abi *abi, const HoistOptions *o, Arena *a);

/* BASE_hoist_CUDA.h, BASE_hoist_CUDA.cpp and BASE_hoist_CUDA_demo.cpp: the
 * same library for the CUDA driver API (C++, using
 * runtime-shim/crisp_runtime_cuda.h), loading BASE.ptx or a cubin. */
void emit_hoist_cuda(StrBuf *header, StrBuf *source, StrBuf *demo, const Abi *abi, const HoistOptions *o, Arena *a);

/* BASE_hoist_PyCUDA.py: the same module for the CUDA driver API (PyCUDA,
 * cuda-python or CuPy), loading BASE.ptx or a cubin, using
 * runtime-shim/crisp_runtime_cuda.py (docs/hoisting-cuda.md). */
void emit_hoist_pycuda(StrBuf *out, const Abi *abi, const HoistOptions *o, Arena *a);

/* The runtime shim files, compiled into the binary (--emit-runtime=DIR). */
extern const char crisp_runtime_h_text[];
extern const char crisp_runtime_py_text[];
extern const char crisp_runtime_cuda_h_text[];
extern const char crisp_runtime_cuda_py_text[];

#endif
