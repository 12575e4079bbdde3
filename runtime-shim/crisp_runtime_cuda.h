/* crisp_runtime_cuda.h - the C/C++ runtime shim of Crisp's CUDA host code.
 *
 * Every BASE_hoist_CUDA.cpp that `crisp --hoist=CUDA` writes includes this
 * file: the CUDA driver API (cuda.h, libcuda) behind the same helpers, names
 * and conventions as crisp_runtime.h gives the OpenCL hoist, so that the two
 * hoists have the same per-kernel API: error messages the caller can fetch,
 * device selection or the caller's own context and stream, loading the
 * module crisp built (the cubin or fat binary for the device's sm_, else the
 * PTX, which the driver compiles), device memory, std140 packing, launch
 * sizes, the helpers size expressions call, and the --debug-output channel
 * decoder.  crisp writes it next to every CUDA hoist.
 *
 * The OpenCL scalar types the kernels' arguments are declared with
 * (cl_int, cl_float4, ...) are defined here with OpenCL's layout, unless
 * the Khronos headers came first; status codes are cl_int values: 0
 * (CL_SUCCESS == CUDA_SUCCESS), a CUresult, or CRISP_INVALID_LENGTH.
 *
 * CUDA launches differ from OpenCL's in three ways the kernels were built
 * for (docs/targets.md): no global offset; the global size is grid x
 * block, so without a local size the block is chosen per dimension as the
 * largest divisor of the global size the kernel allows; and __local
 * arguments are parts of the launch's dynamic shared memory.
 *
 * Header-only (`static inline`), C99 and C++; compiles warning-free with
 * gcc/g++/nvcc -Wall -Wextra.  Link with -lcuda.
 *
 * Device selection (crisp_open):
 *   CRISP_DEVICE=TEXT    the first device whose name contains TEXT, or,
 *                        when TEXT is a number, the device with that index
 *   unset                device 0
 * crisp_use takes the caller's own context and stream instead.
 *
 * Everything the shim defines starts with crisp_ / Crisp / CRISP_, but for
 * the cl_* types and CL_* status and flag names of the OpenCL hoist. */
#ifndef CRISP_RUNTIME_CUDA_H
#define CRISP_RUNTIME_CUDA_H

#include <cuda.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
#define CRISP_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define CRISP_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* ======================================================================
 * OpenCL's host types, with OpenCL's layout (cl_platform.h)
 * ====================================================================== */

#if !defined(__CL_PLATFORM_H) && !defined(CRISP_CL_TYPES)
#define CRISP_CL_TYPES 1
typedef signed char cl_char;
typedef unsigned char cl_uchar;
typedef short cl_short;
typedef unsigned short cl_ushort;
typedef int cl_int;
typedef unsigned int cl_uint;
typedef long long cl_long;
typedef unsigned long long cl_ulong;
typedef unsigned short cl_half;
typedef float cl_float;
typedef double cl_double;
typedef cl_ulong cl_mem_flags;
#define CRISP_CL_VECTOR(T, N, A) typedef union { T s[N]; } __attribute__((aligned(A))) T##N
#define CRISP_CL_VECTORS(T, S)                                                                                       \
    CRISP_CL_VECTOR(T, 2, 2 * S);                                                                                    \
    CRISP_CL_VECTOR(T, 4, 4 * S);                                                                                    \
    CRISP_CL_VECTOR(T, 8, 8 * S);                                                                                    \
    CRISP_CL_VECTOR(T, 16, 16 * S);                                                                                  \
    typedef T##4 T##3
CRISP_CL_VECTORS(cl_char, 1);
CRISP_CL_VECTORS(cl_uchar, 1);
CRISP_CL_VECTORS(cl_short, 2);
CRISP_CL_VECTORS(cl_ushort, 2);
CRISP_CL_VECTORS(cl_int, 4);
CRISP_CL_VECTORS(cl_uint, 4);
CRISP_CL_VECTORS(cl_long, 8);
CRISP_CL_VECTORS(cl_ulong, 8);
CRISP_CL_VECTORS(cl_half, 2);
CRISP_CL_VECTORS(cl_float, 4);
CRISP_CL_VECTORS(cl_double, 8);
#undef CRISP_CL_VECTORS
#undef CRISP_CL_VECTOR
#define CL_SUCCESS 0
#define CL_MEM_READ_WRITE (1 << 0)
#define CL_MEM_WRITE_ONLY (1 << 1)
#define CL_MEM_READ_ONLY (1 << 2)
#endif
/* status codes the helpers return besides CUresults (as OpenCL's hoist) */
#define CRISP_CUDA_INVALID_VALUE ((cl_int)CUDA_ERROR_INVALID_VALUE)
/* A block needs more shared memory than the device gives one
 * (crisp_check_local_mem): what cuLaunchKernel would have said. */
#define CRISP_OUT_OF_LOCAL_MEMORY CRISP_CUDA_INVALID_VALUE
#define CRISP_LOCAL_MEM_NAME "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK"
#define CRISP_CUDA_OUT_OF_HOST_MEMORY ((cl_int)CUDA_ERROR_OUT_OF_MEMORY)
#ifndef CL_INVALID_VALUE
#define CL_INVALID_VALUE CRISP_CUDA_INVALID_VALUE
#define CL_OUT_OF_HOST_MEMORY CRISP_CUDA_OUT_OF_HOST_MEMORY
#define CL_INVALID_BUFFER_SIZE CRISP_CUDA_INVALID_VALUE
#endif

/* A vector shorter than what the kernel may touch (as crisp_runtime.h). */
#define CRISP_INVALID_LENGTH (-9001)

/* Size of the message buffer in a CrispContext. */
#define CRISP_MESSAGE_SIZE 8192

/* ======================================================================
 * Errors
 * ====================================================================== */

/* "CUDA_ERROR_INVALID_VALUE" for a CUresult; "CRISP_INVALID_LENGTH". */
static inline const char *crisp_error_name(cl_int err) {
    const char *name = NULL;
    if (err == CRISP_INVALID_LENGTH) return "CRISP_INVALID_LENGTH";
    if (cuGetErrorName((CUresult)err, &name) != CUDA_SUCCESS || !name) return "CUDA error";
    return name;
}

/* ": the reason" for a CUresult, or "". */
static inline const char *crisp_error_hint(cl_int err) {
    const char *text = NULL;
    static const char none[] = "";
    if (err == CRISP_INVALID_LENGTH || cuGetErrorString((CUresult)err, &text) != CUDA_SUCCESS || !text) return none;
    return text;
}

/* One device, its context and a stream (what the OpenCL hoist calls the
 * queue), and the message of the last failure. */
typedef struct CrispContext {
    CUdevice device;
    CUcontext context;
    CUstream queue;
    int own;                    /* crisp_open made the context and stream */
    int cc_major, cc_minor;     /* compute capability: the cubin to load */
    char device_name[256];
    unsigned long long local_mem_size; /* CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK (crisp_check_local_mem) */
    char loaded[640];           /* what the last crisp_load_module loaded, and why */
    unsigned long long dynamic_base; /* where dynamic shared memory starts (0: not probed yet) */
    int dynamic_probed;
    cl_int status;              /* of the last failure (CL_SUCCESS: none) */
    char message[CRISP_MESSAGE_SIZE]; /* its message: crisp_error_message */
} CrispContext;

static inline const char *crisp_error_message(const CrispContext *cx) {
    return cx ? cx->message : "no CrispContext";
}

static inline void crisp_error_clear(CrispContext *cx) {
    cx->status = CL_SUCCESS;
    cx->message[0] = '\0';
}

static inline cl_int crisp_errorf(CrispContext *cx, cl_int err, const char *fmt, ...) {
    va_list ap;
    if (!cx) return err;
    cx->status = err;
    va_start(ap, fmt);
    vsnprintf(cx->message, sizeof cx->message, fmt, ap);
    va_end(ap);
    return err;
}

/* Record a failed CUDA call WHAT: "WHAT failed: CUDA_ERROR_NAME (code): text". */
static inline cl_int crisp_fail(CrispContext *cx, cl_int err, const char *what) {
    const char *hint = crisp_error_hint(err);
    return crisp_errorf(cx, err, "%s failed: %s (%d)%s%s", what, crisp_error_name(err), (int)err, *hint ? ": " : "", hint);
}

static inline int crisp_ok(CrispContext *cx, cl_int err, const char *what) {
    if (err == CL_SUCCESS) return 1;
    crisp_fail(cx, err, what);
    return 0;
}

/* ======================================================================
 * Device selection
 * ====================================================================== */


/* @shim-part text_match: runtime-shim/parts/text_match.h, in both crisp_runtime.h and crisp_runtime_cuda.h (edit it there) */
/* Case-insensitive "HAY contains NEEDLE" (an empty needle matches). */
static inline int crisp_contains(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i]) {
            char a = hay[i], b = needle[i];
            if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
            if (b >= 'A' && b <= 'Z') b = (char)(b - 'A' + 'a');
            if (a != b) break;
            i++;
        }
        if (i == n) return 1;
    }
    return n == 0;
}

/* An environment variable, or NULL when unset or empty. */
static inline const char *crisp_env(const char *name) {
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* -1 unless S is a non-negative decimal number. */
static inline long crisp_index_of(const char *s) {
    long v = 0;
    if (!*s) return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 100000) return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}
/* @shim-part end text_match */


static inline void crisp_describe(CrispContext *cx) {
    cuDeviceGetName(cx->device_name, (int)sizeof cx->device_name, cx->device);
    cuDeviceGetAttribute(&cx->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cx->device);
    cuDeviceGetAttribute(&cx->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cx->device);
    {
        int bytes = 0; /* a block's shared memory without the opt-in to more */
        if (cuDeviceGetAttribute(&bytes, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, cx->device) == CUDA_SUCCESS && bytes > 0)
            cx->local_mem_size = (unsigned long long)bytes;
    }
}

/* Initialise CUDA, pick the device (CRISP_DEVICE), make its primary context
 * current and create a stream.  FLAGS: cuStreamCreate's. */
static inline cl_int crisp_open(CrispContext *cx, unsigned flags) {
    int count = 0, i;
    const char *want = crisp_env("CRISP_DEVICE");
    cl_int err;
    memset(cx, 0, sizeof *cx);
    if (!crisp_ok(cx, (cl_int)cuInit(0), "cuInit")) return cx->status;
    if (!crisp_ok(cx, (cl_int)cuDeviceGetCount(&count), "cuDeviceGetCount")) return cx->status;
    if (count == 0) return crisp_errorf(cx, (cl_int)CUDA_ERROR_NO_DEVICE, "no CUDA device");
    i = 0;
    if (want && crisp_index_of(want) >= 0) {
        i = (int)crisp_index_of(want);
        if (i >= count) return crisp_errorf(cx, (cl_int)CUDA_ERROR_INVALID_DEVICE, "no CUDA device %d (there are %d)", i, count);
    } else if (want) {
        char name[256];
        for (i = 0; i < count; i++) {
            CUdevice d;
            if (cuDeviceGet(&d, i) == CUDA_SUCCESS && cuDeviceGetName(name, (int)sizeof name, d) == CUDA_SUCCESS &&
                crisp_contains(name, want))
                break;
        }
        if (i == count) return crisp_errorf(cx, (cl_int)CUDA_ERROR_INVALID_DEVICE, "no CUDA device matches CRISP_DEVICE=%s", want);
    }
    if (!crisp_ok(cx, (cl_int)cuDeviceGet(&cx->device, i), "cuDeviceGet")) return cx->status;
    if (!crisp_ok(cx, (cl_int)cuDevicePrimaryCtxRetain(&cx->context, cx->device), "cuDevicePrimaryCtxRetain")) return cx->status;
    cx->own = 1;
    err = (cl_int)cuCtxSetCurrent(cx->context);
    if (err == CL_SUCCESS) err = (cl_int)cuStreamCreate(&cx->queue, flags);
    if (!crisp_ok(cx, err, "cuStreamCreate")) return err;
    crisp_describe(cx);
    return CL_SUCCESS;
}

/* Use the caller's CONTEXT (made current) and STREAM (0: the legacy
 * default stream); crisp_close leaves them alone. */
static inline cl_int crisp_use(CrispContext *cx, CUcontext context, CUstream stream) {
    memset(cx, 0, sizeof *cx);
    cx->context = context;
    cx->queue = stream;
    if (!crisp_ok(cx, (cl_int)cuCtxSetCurrent(context), "cuCtxSetCurrent")) return cx->status;
    if (!crisp_ok(cx, (cl_int)cuCtxGetDevice(&cx->device), "cuCtxGetDevice")) return cx->status;
    crisp_describe(cx);
    return CL_SUCCESS;
}

static inline void crisp_close(CrispContext *cx) {
    if (cx->own) {
        if (cx->queue) cuStreamDestroy(cx->queue);
        cuDevicePrimaryCtxRelease(cx->device);
    }
    memset(cx, 0, sizeof *cx);
}

/* ======================================================================
 * Modules and kernels
 * ====================================================================== */

/* @shim-part files: runtime-shim/parts/files.h, in both crisp_runtime.h and crisp_runtime_cuda.h (edit it there) */
/* Read a whole file into a NUL-terminated malloc'ed string (NULL on
 * failure, with a message on CX). */
static inline char *crisp_read_file(CrispContext *cx, const char *path) {
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t len = 0, cap = 0;
    int failed = 0;
    if (!f) {
        crisp_errorf(cx, CL_INVALID_VALUE, "cannot open `%s`", path);
        return NULL;
    }
    for (;;) {
        size_t n;
        if (cap - len < 4096) {
            size_t bigger = cap ? cap * 2 : 65536;
            char *more = (char *)realloc(text, bigger);
            if (!more) {
                failed = 1;
                break;
            }
            text = more;
            cap = bigger;
        }
        n = fread(text + len, 1, cap - len - 1, f);
        len += n;
        if (n == 0) break;
    }
    if (failed || ferror(f)) {
        crisp_errorf(cx, failed ? CL_OUT_OF_HOST_MEMORY : CL_INVALID_VALUE, "cannot read `%s`%s", path,
                     failed ? ": out of memory" : "");
        free(text);
        fclose(f);
        return NULL;
    }
    fclose(f);
    text[len] = '\0';
    return text;
}

/* Find NAME: as given (relative to the working directory), else in the
 * directory of ARGV0 (a program's own path).  Writes the path found into
 * BUF; returns 0 when neither exists. */
static inline int crisp_find_file(const char *name, const char *argv0, char *buf, size_t size) {
    FILE *f;
    const char *slash;
    if (strlen(name) < size) {
        strcpy(buf, name);
        if ((f = fopen(buf, "rb")) != NULL) return fclose(f), 1;
    }
    slash = argv0 ? strrchr(argv0, '/') : NULL;
    if (slash && name[0] != '/' && (size_t)(slash - argv0) + 1 + strlen(name) < size) {
        memcpy(buf, argv0, (size_t)(slash - argv0) + 1);
        strcpy(buf + (slash - argv0) + 1, name);
        if ((f = fopen(buf, "rb")) != NULL) return fclose(f), 1;
    }
    return 0;
}
/* @shim-part end files */

/* Load the module for CX's device: of IMAGES ("sm_90", "x_sm_90.cubin",
 * "sm_80", "x_sm_80.fatbin", ..., NULL), looked for beside PTX_PATH, the one
 * for the device's compute capability; else the PTX at PTX_PATH, which the
 * driver compiles for the device.  cx->loaded says which, and why. */
static inline CUmodule crisp_load_module(CrispContext *cx, const char *ptx_path, const char *const *images, cl_int *err) {
    char sm[16], path[1024], others[128] = "";
    const char *slash = strrchr(ptx_path, '/');
    const char *chosen = NULL;
    size_t dir = slash ? (size_t)(slash - ptx_path) + 1 : 0;
    CUmodule module = NULL;
    char *data;
    int i;
    snprintf(sm, sizeof sm, "sm_%d%d", cx->cc_major, cx->cc_minor);
    for (i = 0; images && images[i] && images[i + 1]; i += 2) {
        FILE *f;
        if (strcmp(images[i], sm) != 0) {
            if (strlen(others) + strlen(images[i]) + 3 < sizeof others)
                strcat(strcat(others, *others ? ", " : ""), images[i]);
            continue;
        }
        if (dir + strlen(images[i + 1]) >= sizeof path) continue;
        memcpy(path, ptx_path, dir);
        strcpy(path + dir, images[i + 1]);
        if ((f = fopen(path, "rb")) != NULL) {
            fclose(f);
            chosen = path;
            snprintf(cx->loaded, sizeof cx->loaded, "%.400s (built for %s)", path, sm);
            break;
        }
    }
    if (!chosen) {
        chosen = ptx_path;
        if (*others)
            snprintf(cx->loaded, sizeof cx->loaded, "%.300s, compiled by the driver for %s (no binary for it; built for %.100s)",
                     ptx_path, sm, others);
        else
            snprintf(cx->loaded, sizeof cx->loaded, "%.400s, compiled by the driver for %s", ptx_path, sm);
    }
    data = crisp_read_file(cx, chosen); /* NUL-terminated, as PTX must be */
    if (!data) {
        *err = cx->status;
        return NULL;
    }
    *err = (cl_int)cuModuleLoadData(&module, data);
    free(data);
    if (*err != CL_SUCCESS) {
        crisp_errorf(cx, *err, "cuModuleLoadData(%s) failed: %s (%d) %s", chosen, crisp_error_name(*err), (int)*err,
                     crisp_error_hint(*err));
        return NULL;
    }
    return module;
}

/* One kernel and its arguments, set one by one as clSetKernelArg sets an
 * OpenCL kernel's: values are copied; a NULL value of SIZE bytes is a
 * __local argument, a part of the launch's dynamic shared memory. */
#define CRISP_MAX_ARGS 128
#define CRISP_ARG_BYTES 64

typedef struct CrispKernelRec {
    CUfunction function;
    char name[128];
    int nargs;
    int max_threads;            /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK */
    int static_shared;          /* CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES */
    size_t local[CRISP_MAX_ARGS]; /* bytes of a __local argument, else 0 */
    unsigned char value[CRISP_MAX_ARGS][CRISP_ARG_BYTES];
} CrispKernelRec, *CrispKernel;

static inline CrispKernel crisp_create_kernel(CrispContext *cx, CUmodule module, const char *name, cl_int *err) {
    char what[320];
    CrispKernel k = (CrispKernel)calloc(1, sizeof *k);
    if (!k) {
        *err = crisp_errorf(cx, CL_OUT_OF_HOST_MEMORY, "out of host memory for kernel %s", name);
        return NULL;
    }
    snprintf(what, sizeof what, "cuModuleGetFunction(%s)", name);
    snprintf(k->name, sizeof k->name, "%s", name);
    *err = (cl_int)cuModuleGetFunction(&k->function, module, name);
    if (*err == CL_SUCCESS) *err = (cl_int)cuFuncGetAttribute(&k->max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->function);
    if (*err == CL_SUCCESS) *err = (cl_int)cuFuncGetAttribute(&k->static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->function);
    if (!crisp_ok(cx, *err, what)) {
        free(k);
        return NULL;
    }
    return k;
}

static inline void crisp_release_kernel(CrispKernel k) {
    free(k);
}

/* Set argument INDEX of K: SIZE bytes at VALUE, or (VALUE NULL) SIZE bytes of __local memory. */
static inline cl_int crisp_set_kernel_arg(CrispKernel k, cl_uint index, size_t size, const void *value) {
    if (index >= CRISP_MAX_ARGS || (value && size > CRISP_ARG_BYTES)) return CRISP_CUDA_INVALID_VALUE;
    if ((int)index >= k->nargs) k->nargs = (int)index + 1;
    k->local[index] = value ? 0 : (size ? size : 1);
    if (value) memcpy(k->value[index], value, size);
    return CL_SUCCESS;
}

/* The stream's work is done (the *_run functions' wait on the kernel). */
static inline cl_int crisp_wait_event(CUevent event) {
    return (cl_int)cuEventSynchronize(event);
}

/* ======================================================================
 * Memory
 * ====================================================================== */

typedef struct CrispMem {
    CUdeviceptr mem;
    size_t bytes;
} CrispMem;

#define CRISP_MEM_INIT {0, 0}

/* Allocate BYTES (at least 1) of device memory and copy INIT into it, or
 * zeros when INIT is NULL and ZERO is set.  FLAGS and USE_SVM are the
 * OpenCL hoist's (unused: CUDA memory is read-write, no SVM). */
static inline cl_int crisp_mem_create(CrispContext *cx, CrispMem *m, cl_mem_flags flags, size_t bytes, const void *init,
                                      int zero, int use_svm, const char *what) {
    cl_int err;
    char msg[320];
    (void)flags;
    (void)use_svm;
    memset(m, 0, sizeof *m);
    m->bytes = bytes ? bytes : 1;
    err = (cl_int)cuMemAlloc(&m->mem, m->bytes);
    snprintf(msg, sizeof msg, "cuMemAlloc(%s, %lu bytes)", what, (unsigned long)m->bytes);
    if (!crisp_ok(cx, err, msg)) return err;
    if (init && bytes) {
        err = (cl_int)cuMemcpyHtoD(m->mem, init, bytes);
        snprintf(msg, sizeof msg, "cuMemcpyHtoD(%s)", what);
    } else if (zero) {
        err = (cl_int)cuMemsetD8(m->mem, 0, m->bytes);
        snprintf(msg, sizeof msg, "cuMemsetD8(%s)", what);
    }
    return crisp_ok(cx, err, msg) ? CL_SUCCESS : err;
}

/* Copy BYTES of device memory M into HOST after the work on STREAM (waits). */
static inline cl_int crisp_mem_read(CrispContext *cx, CUstream stream, const CrispMem *m, void *host, size_t bytes,
                                    const char *what) {
    cl_int err;
    char msg[320];
    if (bytes > m->bytes) bytes = m->bytes;
    if (!bytes) return CL_SUCCESS;
    err = (cl_int)cuStreamSynchronize(stream);
    if (err == CL_SUCCESS) err = (cl_int)cuMemcpyDtoH(host, m->mem, bytes);
    snprintf(msg, sizeof msg, "cuMemcpyDtoH(%s)", what);
    return crisp_ok(cx, err, msg) ? CL_SUCCESS : err;
}

static inline void crisp_mem_release(CrispMem *m) {
    if (m->mem) cuMemFree(m->mem);
    m->mem = 0;
}

/* calloc(COUNT * STRIDE) bytes (at least 1) for host-side data; NULL with
 * a message on CX when out of memory. */
static inline void *crisp_host_alloc(CrispContext *cx, size_t count, size_t stride, const char *what) {
    void *p = NULL;
    if (!stride || count <= (size_t)-1 / stride) p = calloc(count ? count : 1, stride ? stride : 1);
    if (!p)
        crisp_errorf(cx, CL_OUT_OF_HOST_MEMORY, "out of host memory for %s (%lu x %lu bytes)", what, (unsigned long)count,
                     (unsigned long)stride);
    return p;
}

/* Check the device pointer MEM the caller passed for argument NAME of
 * KERNEL: memory of CX's context (cuMemGetAddressRange) with room for
 * COUNT elements STRIDE bytes apart.  0 is left to the kernel. */
static inline cl_int crisp_check_mem(CrispContext *cx, const char *kernel, const char *name, CUdeviceptr mem,
                                     unsigned long long count, size_t stride) {
    CUdeviceptr base = 0;
    size_t size = 0;
    cl_int err;
    if (!mem) return CL_SUCCESS;
    err = (cl_int)cuMemGetAddressRange(&base, &size, mem);
    if (err != CL_SUCCESS)
        return crisp_errorf(cx, err, "kernel %s: argument %s is not device memory of this context: %s (%d)", kernel, name,
                            crisp_error_name(err), (int)err);
    size -= (size_t)(mem - base);
    if (stride && count > size / stride)
        return crisp_errorf(cx, CRISP_INVALID_LENGTH,
                            "kernel %s: argument %s has %lu bytes from where it points, but its length says %llu elements of %lu bytes",
                            kernel, name, (unsigned long)size, count, (unsigned long)stride);
    return CL_SUCCESS;
}

/* @shim-part checks: runtime-shim/parts/checks.h, in both crisp_runtime.h and crisp_runtime_cuda.h (edit it there) */
/* A vector of HAVE elements where the kernel may touch NEED (WHAT: the
 * size expression): CRISP_INVALID_LENGTH with a message, else success. */
static inline cl_int crisp_check_length(CrispContext *cx, const char *kernel, const char *name, unsigned long long have,
                                        unsigned long long need, const char *what) {
    if (have >= need) return CL_SUCCESS;
    return crisp_errorf(cx, CRISP_INVALID_LENGTH,
                        "kernel %s: argument %s has %llu element%s; it needs at least %llu, what the kernel may touch (%s)",
                        kernel, name, have, have == 1 ? "" : "s", need, what);
}

/* ======================================================================
 * Host data: std140 packing, uploads and downloads for the *_run functions
 * ====================================================================== */

/* std140 arrays put every element at a 16-byte (or larger) stride.  Pack
 * COUNT elements of ELEM_BYTES from the dense array SRC into DST with
 * STRIDE bytes per element (padding zeroed); unpack does the reverse. */
static inline void crisp_std140_pack(void *dst, size_t stride, const void *src, size_t elem_bytes, size_t count) {
    size_t i;
    for (i = 0; i < count; i++) {
        unsigned char *d = (unsigned char *)dst + i * stride;
        memcpy(d, (const unsigned char *)src + i * elem_bytes, elem_bytes);
        if (stride > elem_bytes) memset(d + elem_bytes, 0, stride - elem_bytes);
    }
}

static inline void crisp_std140_unpack(void *dst, size_t elem_bytes, const void *src, size_t stride, size_t count) {
    size_t i;
    for (i = 0; i < count; i++)
        memcpy((unsigned char *)dst + i * elem_bytes, (const unsigned char *)src + i * stride, elem_bytes);
}

/* Device memory for COUNT host elements of ELEM_BYTES at HOST, laid out
 * STRIDE bytes apart on the device (std140 padding added).  UPLOAD: copy
 * the data (else the memory starts as it is: the kernel only writes it). */
static inline cl_int crisp_upload(CrispContext *cx, CrispMem *m, cl_mem_flags flags, const void *host, size_t count,
                                  size_t elem_bytes, size_t stride, int upload, int use_svm, const char *what) {
    void *staged = NULL;
    cl_int err;
    if (count && stride && count > (size_t)-1 / stride)
        return crisp_errorf(cx, CL_INVALID_BUFFER_SIZE, "%s: %lu elements do not fit in memory", what, (unsigned long)count);
    if (upload && host && stride != elem_bytes) {
        staged = crisp_host_alloc(cx, count, stride, what);
        if (!staged) return cx->status;
        crisp_std140_pack(staged, stride, host, elem_bytes, count);
    }
    err = crisp_mem_create(cx, m, flags, count * stride, upload ? (staged ? staged : host) : NULL, 0, use_svm, what);
    free(staged);
    return err;
}
/* @shim-part end checks */

/* The reverse: COUNT elements of device memory M (STRIDE apart) into HOST
 * (ELEM_BYTES each), on QUEUE, waiting. */
static inline cl_int crisp_download(CrispContext *cx, CUstream queue, const CrispMem *m, void *host,
                                    size_t count, size_t elem_bytes, size_t stride, const char *what) {
    void *staged = NULL;
    cl_int err;
    if (stride == elem_bytes) return crisp_mem_read(cx, queue, m, host, count * stride, what);
    staged = crisp_host_alloc(cx, count, stride, what);
    if (!staged) return cx->status;
    err = crisp_mem_read(cx, queue, m, staged, count * stride, what);
    if (err == CL_SUCCESS) crisp_std140_unpack(host, elem_bytes, staged, stride, count);
    free(staged);
    return err;
}

/* crisp_download once AFTER (an event recorded after the kernel; NULL: the
 * stream's work) is done; then the copy (waits). */
static inline cl_int crisp_download_after(CrispContext *cx, CUstream queue, const CrispMem *m, void *host, size_t count,
                                          size_t elem_bytes, size_t stride, CUevent after, const char *what) {
    if (after && !crisp_ok(cx, (cl_int)cuEventSynchronize(after), "cuEventSynchronize")) return cx->status;
    return crisp_download(cx, queue, m, host, count, elem_bytes, stride, what);
}

/* crisp_mem_read once AFTER is done. */
static inline cl_int crisp_mem_read_after(CrispContext *cx, CUstream queue, const CrispMem *m, void *host, size_t bytes,
                                          CUevent after, const char *what) {
    if (after && !crisp_ok(cx, (cl_int)cuEventSynchronize(after), "cuEventSynchronize")) return cx->status;
    return crisp_mem_read(cx, queue, m, host, bytes, what);
}

/* @shim-part elements_demo: runtime-shim/parts/elements_demo.h, in both crisp_runtime.h and crisp_runtime_cuda.h (edit it there) */
/* ======================================================================
 * Element types and demo data
 * ====================================================================== */


/* An OpenCL element type name ("float", "uchar4", "double", "half"). */
typedef struct CrispElem {
    char kind;          /* 'i' signed, 'u' unsigned, 'f' floating, 'h' half, '?' unknown */
    int size;           /* bytes of one lane */
    int lanes;          /* 1, 2, 3, 4, 8, 16 */
    int mem_lanes;      /* lanes in memory: a 3-vector takes 4 */
} CrispElem;

static inline CrispElem crisp_elem(const char *name) {
    static const struct { const char *name; char kind; int size; } bases[] = {
        {"uchar", 'u', 1}, {"ushort", 'u', 2}, {"uint", 'u', 4}, {"ulong", 'u', 8}, {"char", 'i', 1},
        {"short", 'i', 2}, {"int", 'i', 4}, {"long", 'i', 8}, {"half", 'h', 2}, {"float", 'f', 4},
        {"double", 'f', 8}, {"size_t", 'u', 8}, {"bool", 'u', 1}};
    CrispElem e = {'?', 1, 1, 1};
    size_t i, n;
    if (!strncmp(name, "crisp_std140_", 13)) name += 13;
    for (i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        n = strlen(bases[i].name);
        if (strncmp(name, bases[i].name, n) != 0) continue;
        e.kind = bases[i].kind;
        e.size = bases[i].size;
        e.lanes = name[n] ? atoi(name + n) : 1;
        if (e.lanes < 1) e.lanes = 1;
        e.mem_lanes = e.lanes == 3 ? 4 : e.lanes;
        break;
    }
    return e;
}

/* IEEE half <-> float (the host has no half type). */
static inline float crisp_half_to_float(cl_half h) {
    unsigned sign = (h >> 15) & 1u, exp = (h >> 10) & 31u, man = h & 1023u;
    float v;
    if (exp == 0) v = (float)man / 16777216.0f;                  /* subnormal: man * 2^-24 */
    else if (exp == 31) {                                           /* NaN, infinity */
        cl_uint bits = man ? 0x7fc00000u : 0x7f800000u;
        memcpy(&v, &bits, 4);
    } else {
        v = 1.0f + (float)man / 1024.0f;
        for (; exp > 15; exp--) v *= 2.0f;
        for (; exp < 15; exp++) v *= 0.5f;
    }
    return sign ? -v : v;
}

static inline cl_half crisp_half_from_float(float f) {
    unsigned sign = f < 0 ? 0x8000u : 0u;
    int exp = 15;
    if (f != f) return (cl_half)0x7e00u;
    if (f < 0) f = -f;
    if (f >= 65520.0f) return (cl_half)(sign | 0x7c00u);
    if (f < 6.103515625e-05f) return (cl_half)(sign | (unsigned)(f * 16777216.0f + 0.5f));
    while (f >= 2.0f) f *= 0.5f, exp++;
    while (f < 1.0f) f *= 2.0f, exp--;
    return (cl_half)(sign | ((unsigned)exp << 10) | ((unsigned)((f - 1.0f) * 1024.0f + 0.5f) & 1023u));
}

/* Store V into lane LANE of the element at P. */
static inline void crisp_elem_put(CrispElem e, void *p, int lane, double v) {
    unsigned char *q = (unsigned char *)p + lane * e.size;
    if (e.kind == 'h') {
        cl_half h = crisp_half_from_float((float)v);
        memcpy(q, &h, 2);
    } else if (e.kind == 'f' && e.size == 4) {
        float f = (float)v;
        memcpy(q, &f, 4);
    } else if (e.kind == 'f') {
        memcpy(q, &v, 8);
    } else if (e.kind == 'i' || e.kind == 'u') {
        unsigned long long u = (unsigned long long)(long long)v;
        int i;
        for (i = 0; i < e.size; i++) q[i] = (unsigned char)(u >> (8 * i)); /* little endian, like every OpenCL device we target */
    }
}

/* Lane LANE of the element at P, as a double. */
static inline double crisp_elem_get(CrispElem e, const void *p, int lane) {
    const unsigned char *q = (const unsigned char *)p + lane * e.size;
    if (e.kind == 'h') {
        cl_half h;
        memcpy(&h, q, 2);
        return crisp_half_to_float(h);
    }
    if (e.kind == 'f' && e.size == 4) {
        float f;
        memcpy(&f, q, 4);
        return f;
    }
    if (e.kind == 'f') {
        double d;
        memcpy(&d, q, 8);
        return d;
    }
    {
        unsigned long long u = 0;
        int i;
        for (i = 0; i < e.size; i++) u |= (unsigned long long)q[i] << (8 * i);
        if (e.kind == 'i' && e.size < 8 && (u >> (8 * e.size - 1)) & 1u) u |= ~0ULL << (8 * e.size);
        return e.kind == 'i' ? (double)(long long)u : (double)u;
    }
}

/* Demo data for COUNT elements of type ELEMENT, STRIDE bytes apart: lane j
 * of element i is 1 + (i + j) % 16 (never 0: safe as a divisor, small
 * enough to be an index).  Padding stays as it was (zero from calloc). */
static inline void crisp_fill_demo(void *dst, size_t count, size_t stride, const char *element) {
    CrispElem e = crisp_elem(element);
    size_t i;
    int j;
    for (i = 0; i < count; i++)
        for (j = 0; j < e.lanes; j++) crisp_elem_put(e, (unsigned char *)dst + i * stride, j, (double)(1 + (i + (size_t)j) % 16));
}

/* Print one value of type ELEMENT: "1.5", or "(1,2,3,4)" for a vector. */
static inline void crisp_print_value(FILE *out, const void *src, const char *element) {
    CrispElem e = crisp_elem(element);
    int j;
    if (e.lanes > 1) fputc('(', out);
    for (j = 0; j < e.lanes; j++) fprintf(out, "%s%.9g", j ? "," : "", crisp_elem_get(e, src, j));
    if (e.lanes > 1) fputc(')', out);
}

/* Print "NAME: COUNT x ELEMENT: v0 v1 ... v7 ... (sum S)" on one line. */
static inline void crisp_print_vector(FILE *out, const char *name, const void *src, size_t count, size_t stride,
                                      const char *element) {
    CrispElem e = crisp_elem(element);
    double sum = 0;
    size_t i;
    int j;
    fprintf(out, "  %s: %lu x %s:", name, (unsigned long)count, element);
    for (i = 0; i < count; i++) {
        const unsigned char *p = (const unsigned char *)src + i * stride;
        for (j = 0; j < e.lanes; j++) sum += crisp_elem_get(e, p, j);
        if (i >= 8) continue;
        fputc(' ', out);
        crisp_print_value(out, p, element);
    }
    fprintf(out, "%s (sum %.9g)\n", count > 8 ? " ..." : "", sum);
}


/* ======================================================================
 * Launch sizes
 * ====================================================================== */


/* An NDRange: DIMS dimensions; local all 0 lets OpenCL choose. */
typedef struct CrispLaunch {
    cl_uint dims;
    size_t global[3];
    size_t local[3];
} CrispLaunch;

static inline void crisp_launch_init(CrispLaunch *l, cl_uint dims) {
    int i;
    l->dims = dims < 1 ? 1 : dims > 3 ? 3 : dims;
    for (i = 0; i < 3; i++) {
        l->global[i] = 1;
        l->local[i] = 0;
    }
}

/* 1 when a local size was chosen. */
static inline int crisp_launch_has_local(const CrispLaunch *l) {
    return l->local[0] != 0;
}

/* Round every global size up to a multiple of the local size. */
static inline void crisp_launch_round_up(CrispLaunch *l) {
    cl_uint i;
    if (!crisp_launch_has_local(l)) return;
    for (i = 0; i < l->dims; i++)
        if (l->local[i] && l->global[i] % l->local[i]) l->global[i] += l->local[i] - l->global[i] % l->local[i];
}

/* The size-expression inputs of docs/abi.md (1 for missing dimensions). */
static inline unsigned long long crisp_global_size(const CrispLaunch *l, cl_uint d) {
    return d < l->dims ? (unsigned long long)l->global[d] : 1ULL;
}

static inline unsigned long long crisp_local_size(const CrispLaunch *l, cl_uint d) {
    return d < l->dims && l->local[d] ? (unsigned long long)l->local[d] : 1ULL;
}

static inline unsigned long long crisp_num_groups(const CrispLaunch *l, cl_uint d) {
    unsigned long long g = crisp_global_size(l, d), s = crisp_local_size(l, d);
    return (g + s - 1) / s;
}

static inline unsigned long long crisp_global_linear_size(const CrispLaunch *l) {
    return crisp_global_size(l, 0) * crisp_global_size(l, 1) * crisp_global_size(l, 2);
}

static inline unsigned long long crisp_local_linear_size(const CrispLaunch *l) {
    return crisp_local_size(l, 0) * crisp_local_size(l, 1) * crisp_local_size(l, 2);
}
/* @shim-part end elements_demo */

/* Write "global 32 x 32, local 8 x 8" (or "..., local: OpenCL's choice") into BUF. */
static inline void crisp_format_launch(char *buf, size_t size, const CrispLaunch *l) {
    size_t n = 0;
    cl_uint i;
    buf[0] = '\0';
    n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "global ");
    for (i = 0; i < l->dims; i++)
        n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%lu", i ? " x " : "", (unsigned long)l->global[i]);
    if (!crisp_launch_has_local(l)) {
        snprintf(buf + n, n < size ? size - n : 0, ", local: the runtime's choice");
        return;
    }
    n += (size_t)snprintf(buf + n, n < size ? size - n : 0, ", local ");
    for (i = 0; i < l->dims; i++)
        n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%lu", i ? " x " : "", (unsigned long)l->local[i]);
}

/* @shim-part launch_sizes: runtime-shim/parts/launch_sizes.h, in both crisp_runtime.h and crisp_runtime_cuda.h (edit it there) */
/* Print the launch sizes on a line of their own, after INDENT. */
static inline void crisp_print_launch(FILE *out, const char *indent, const CrispLaunch *l) {
    char text[160];
    crisp_format_launch(text, sizeof text, l);
    fprintf(out, "%s%s\n", indent, text);
}

/* The bytes of a __local argument of LEN elements of STRIDE bytes, as the
 * hoists set it (at least one element). */
static inline unsigned long long crisp_local_arg_bytes(unsigned long long len, unsigned long long stride) {
    return (len ? len : 1) * stride;
}

/* Before a launch of KERNEL at LAUNCH, whose workgroup needs BYTES of
 * local memory (its fixed __local vectors and its __local arguments, the
 * metadata's "local_mem"; LAUNCH NULL: fixed __local vectors alone, checked
 * when the program is loaded): refuse it, saying both figures, when the device
 * has less (cx->local_mem_size, asked once when CX was made) - instead of
 * the launch's bare out-of-resources error. */
static inline cl_int crisp_check_local_mem(CrispContext *cx, const char *kernel, unsigned long long bytes,
                                           const CrispLaunch *launch) {
    char sizes[160] = "any launch";
    if (!cx->local_mem_size || bytes <= cx->local_mem_size) return CL_SUCCESS;
    if (launch) crisp_format_launch(sizes, sizeof sizes, launch);
    return crisp_errorf(cx, CRISP_OUT_OF_LOCAL_MEMORY,
                        "kernel %s (%s) needs %llu bytes of local memory per workgroup, but the device has %llu (%s): "
                        "launch it with fewer work-items a workgroup, or fewer items per thread",
                        kernel, sizes, bytes, cx->local_mem_size, CRISP_LOCAL_MEM_NAME);
}

/* Size expressions with floating arithmetic round up to whole elements
 * (the metadata's "c" expressions call this). */
static inline unsigned long long crisp_ceil_ull(double x) {
    unsigned long long u;
    if (!(x > 0)) return 0;
    if (x >= 18446744073709551615.0) return ~0ULL;
    u = (unsigned long long)x;
    return (double)u < x ? u + 1 : u;
}


/* Bounds on what a kernel sees (docs/abi.md): the local size, or the
 * global size when OpenCL chooses the local size; the number of groups, or
 * the global size then.  The hoists' length checks use these. */
static inline unsigned long long crisp_max_local_size(const CrispLaunch *l, cl_uint d) {
    return crisp_launch_has_local(l) ? crisp_local_size(l, d) : crisp_global_size(l, d);
}

static inline unsigned long long crisp_max_num_groups(const CrispLaunch *l, cl_uint d) {
    return crisp_launch_has_local(l) ? crisp_num_groups(l, d) : crisp_global_size(l, d);
}

/* What size expressions call (emit-oclc/sizeprint.c): integer helpers
 * that never divide by zero (the size is then 0), and floating ones. */
static inline unsigned long long crisp_min_ull(unsigned long long a, unsigned long long b) {
    return a < b ? a : b;
}

static inline unsigned long long crisp_max_ull(unsigned long long a, unsigned long long b) {
    return a > b ? a : b;
}

static inline double crisp_min_dbl(double a, double b) {
    return a < b ? a : b;
}

static inline double crisp_max_dbl(double a, double b) {
    return a > b ? a : b;
}

static inline unsigned long long crisp_div_ull(unsigned long long a, unsigned long long b) {
    return b ? a / b : 0;
}

static inline unsigned long long crisp_ceil_div_ull(unsigned long long a, unsigned long long b) {
    return b ? a / b + (a % b != 0) : 0;
}

static inline unsigned long long crisp_round_up_ull(unsigned long long a, unsigned long long m) {
    return m ? crisp_ceil_div_ull(a, m) * m : a;
}

/* a - b, or 0 when b is larger (never wraps). */
static inline unsigned long long crisp_monus_ull(unsigned long long a, unsigned long long b) {
    return a > b ? a - b : 0;
}

static inline double crisp_floor_dbl(double x) {
    double t = (double)(long long)x;
    return t > x ? t - 1 : t;
}

static inline double crisp_ceil_dbl(double x) {
    double t = (double)(long long)x;
    return t < x ? t + 1 : t;
}
/* @shim-part end launch_sizes */


/* ======================================================================
 * Launches
 * ====================================================================== */

/* The largest divisor of G that is at most CAP (1 at least). */
static inline size_t crisp_divisor_within(size_t g, size_t cap) {
    size_t c;
    if (cap > g) cap = g;
    for (c = cap; c > 1; c--)
        if (g % c == 0) return c;
    return 1;
}

/* Where dynamic shared memory starts in the shared window of a kernel
 * without static shared memory: a probe kernel reads it, once per context.
 * A kernel's __local arguments then sit after its static shared memory. */
static inline cl_int crisp_dynamic_base(CrispContext *cx, unsigned long long *base) {
    static const char probe[] =
        ".version 6.0\n.target sm_60\n.address_size 64\n"
        ".extern .shared .align 16 .b8 crisp_dynamic[];\n"
        ".visible .entry crisp_probe(.param .u64 out)\n{\n"
        "    .reg .b64 %rd<4>;\n    ld.param.u64 %rd1, [out];\n    cvta.to.global.u64 %rd2, %rd1;\n"
        "    mov.u64 %rd3, crisp_dynamic;\n    st.global.u64 [%rd2], %rd3;\n    ret;\n}\n";
    CUmodule module = NULL;
    CUfunction f;
    CUdeviceptr out = 0;
    void *params[1];
    cl_int err;
    if (cx->dynamic_probed) {
        *base = cx->dynamic_base;
        return CL_SUCCESS;
    }
    err = (cl_int)cuModuleLoadData(&module, probe);
    if (err == CL_SUCCESS) err = (cl_int)cuModuleGetFunction(&f, module, "crisp_probe");
    if (err == CL_SUCCESS) err = (cl_int)cuMemAlloc(&out, 8);
    params[0] = &out;
    if (err == CL_SUCCESS) err = (cl_int)cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 16, cx->queue, params, NULL);
    if (err == CL_SUCCESS) err = (cl_int)cuStreamSynchronize(cx->queue);
    if (err == CL_SUCCESS) err = (cl_int)cuMemcpyDtoH(&cx->dynamic_base, out, 8);
    if (out) cuMemFree(out);
    if (module) cuModuleUnload(module);
    if (!crisp_ok(cx, err, "the shared memory probe kernel")) return err;
    cx->dynamic_probed = 1;
    *base = cx->dynamic_base;
    return CL_SUCCESS;
}

/* Launch K over L on STREAM after the events of WAIT_LIST: grid = global /
 * local, the block L's local size or (none) crisp_divisor_within's choice;
 * __local arguments in dynamic shared memory.  *EVENT, when EVENT is not
 * NULL, is recorded after the kernel (a new event: cuEventDestroy it). */
static inline cl_int crisp_enqueue(CrispContext *cx, CUstream stream, CrispKernel k, const CrispLaunch *l, const char *what,
                                   cl_uint num_events, const CUevent *wait_list, CUevent *event) {
    char sizes[160];
    unsigned block[3] = {1, 1, 1}, grid[3] = {1, 1, 1};
    static const unsigned long long max_grid[3] = {2147483647ull, 65535ull, 65535ull};
    void *params[CRISP_MAX_ARGS];
    unsigned long long local_at[CRISP_MAX_ARGS];
    unsigned long long base = 0, shared = 0, start = 0;
    size_t left = (size_t)(k->max_threads > 0 ? k->max_threads : 1024);
    cl_uint d, i;
    int runs = 1;
    cl_int err = CL_SUCCESS;
    for (i = 0; i < num_events && err == CL_SUCCESS; i++) /* NULL: nothing to wait for (a step already waited for) */
        if (wait_list[i]) err = (cl_int)cuStreamWaitEvent(stream, wait_list[i], 0);
    if (!crisp_ok(cx, err, "cuStreamWaitEvent")) return err;
    for (d = 0; d < l->dims; d++) runs &= l->global[d] != 0;
    crisp_format_launch(sizes, sizeof sizes, l);
    for (d = 0; runs && d < 3; d++) {
        size_t g = d < l->dims ? l->global[d] : 1;
        size_t b = crisp_launch_has_local(l) ? (d < l->dims && l->local[d] ? l->local[d] : 1)
                                             : crisp_divisor_within(g, d == 0 ? (left < 256 ? left : 256) : d == 1 ? left : (left < 64 ? left : 64));
        if (b == 0 || g % b)
            return crisp_errorf(cx, CRISP_CUDA_INVALID_VALUE, "kernel %s (%s): the local size does not divide the global size", what, sizes);
        if (b > left)
            return crisp_errorf(cx, CRISP_CUDA_INVALID_VALUE, "kernel %s (%s): a block beyond the kernel's %d threads", what, sizes,
                                k->max_threads);
        left /= b;
        block[d] = (unsigned)b;
        if (g / b > max_grid[d])
            return crisp_errorf(cx, CRISP_CUDA_INVALID_VALUE, "kernel %s (%s): a grid of %lu blocks in dimension %u is beyond CUDA's limit",
                                what, sizes, (unsigned long)(g / b), d);
        grid[d] = (unsigned)(g / b);
    }
    for (i = 0; runs && i < (cl_uint)k->nargs; i++) {
        if (!k->local[i]) {
            params[i] = k->value[i];
            continue;
        }
        if (!base) {
            err = crisp_dynamic_base(cx, &base);
            if (err != CL_SUCCESS) return err;
            start = shared = ((unsigned long long)k->static_shared + 15) / 16 * 16;
        }
        local_at[i] = base + shared;
        params[i] = &local_at[i];
        shared = (shared + k->local[i] + 15) / 16 * 16;
    }
    if (runs) {
        err = (cl_int)cuLaunchKernel(k->function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                     (unsigned)(shared - start), stream, params, NULL);
        if (err != CL_SUCCESS)
            return crisp_errorf(cx, err, "cuLaunchKernel(%s, %s) failed: %s (%d) %s", what, sizes, crisp_error_name(err), (int)err,
                                crisp_error_hint(err));
    }
    if (event) {
        err = (cl_int)cuEventCreate(event, CU_EVENT_DEFAULT);
        if (err == CL_SUCCESS) err = (cl_int)cuEventRecord(*event, stream);
        if (!crisp_ok(cx, err, "cuEventRecord")) return err;
    }
    return CL_SUCCESS;
}

/* @shim-part text_debug: runtime-shim/parts/text_debug.h, in both crisp_runtime.h and crisp_runtime_cuda.h (edit it there) */
/* ======================================================================
 * Text the library builds instead of printing (debug logs)
 * ====================================================================== */

typedef struct CrispText {
    char *data;             /* NUL-terminated (NULL while empty) */
    size_t len, cap;
    int oom;                /* some text was lost: out of memory */
} CrispText;

static inline void crisp_text_printf(CrispText *t, const char *fmt, ...) {
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        char *more;
        while (cap < t->len + (size_t)n + 1) cap *= 2;
        more = (char *)realloc(t->data, cap);
        if (!more) {
            t->oom = 1;
            return;
        }
        t->data = more;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->data + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* The text so far ("" when empty). */
static inline const char *crisp_text(const CrispText *t) {
    return t->data ? t->data : "";
}

static inline void crisp_text_free(CrispText *t) {
    free(t->data);
    t->data = NULL;
    t->len = t->cap = 0;
    t->oom = 0;
}

/* ======================================================================
 * The debug channel (--debug-output; record format in docs/abi.md)
 * ====================================================================== */

/* Words in a debug buffer unless the host chooses otherwise. */
#define CRISP_DEBUG_WORDS 65536

/* A part of a logging form: literal TEXT, or a value of TYPE written as EXPR. */
typedef struct CrispDebugPart {
    const char *text;       /* NULL for a value */
    const char *type;       /* "int", "float", ... for a value */
    const char *expr;       /* the Crisp expression, for a value */
} CrispDebugPart;

/* One logging form of the program (the metadata's "debug_sites"). */
typedef struct CrispDebugSite {
    const char *file;
    int line;
    const char *kind;       /* "output" or "assert" (first part: "assertion failed: TEST") */
    const CrispDebugPart *parts;
    int nparts;
} CrispDebugSite;

/* Prepare a debug buffer of NWORDS words: cursor 2, nothing dropped. */
static inline void crisp_debug_init(cl_uint *words, size_t nwords) {
    memset(words, 0, nwords * sizeof *words);
    if (nwords >= 2) {
        words[0] = 2;
        words[1] = 0;
    }
}

/* One logged value (2 words, low first) of TYPE. */
static inline void crisp_debug_value(CrispText *out, const char *type, cl_uint lo, cl_uint hi) {
    unsigned long long u = ((unsigned long long)hi << 32) | lo;
    CrispElem e = crisp_elem(type ? type : "");
    if (type && !strcmp(type, "bool")) {
        crisp_text_printf(out, "%s", u ? "t" : "nil");
    } else if (e.kind == 'f' && e.size == 4) {
        float f;
        memcpy(&f, &lo, 4);
        crisp_text_printf(out, "%.9g", f);
    } else if (e.kind == 'f') {
        double d;
        memcpy(&d, &u, 8);
        crisp_text_printf(out, "%.17g", d);
    } else if (e.kind == 'h') {
        crisp_text_printf(out, "%g", crisp_half_to_float((cl_half)lo));
    } else if (e.kind == 'u') {
        crisp_text_printf(out, "%llu", u);
    } else {
        crisp_text_printf(out, "%lld", (long long)u); /* signed, and anything unknown */
    }
}

/* Decode the debug buffer WORDS (NWORDS words, read back after the kernel)
 * against the site table SITES (the metadata's "debug_sites", indexed by
 * site id), appending one line per record to OUT:
 *     kernels.crisp:12: [thread 5] reached midpoint 42
 *     kernels.crisp:20: [thread 0] assertion failed: (< 0 lives): no lives left
 * Parts are joined with a space unless one side already has one; an
 * assertion's first part (its test) is followed by ": ".  Returns the
 * number of records; reports dropped records and damaged buffers. */
static inline size_t crisp_debug_decode_text(CrispText *out, const cl_uint *words, size_t nwords,
                                             const CrispDebugSite *sites, size_t nsites) {
    size_t at = 2, end, records = 0;
    if (nwords < 2) return 0;
    end = words[0] < nwords ? words[0] : nwords;
    while (at + 3 <= end) {
        cl_uint n = words[at], id = words[at + 1], thread = words[at + 2];
        const CrispDebugSite *s = id < nsites ? &sites[id] : NULL;
        int p, v = 0, is_assert;
        char last = ' ';
        if (n == 0) break; /* never written: nothing follows */
        if (n < 3 || (n - 3) % 2 || at + n > end) {
            crisp_text_printf(out, "crisp: debug channel: malformed record at word %lu (length %u); %lu words not decoded\n",
                              (unsigned long)at, n, (unsigned long)(end - at));
            break;
        }
        if (!s) {
            crisp_text_printf(out, "crisp: debug record for unknown site %u [thread %u]\n", id, thread);
            at += n;
            continue;
        }
        is_assert = s->kind && !strcmp(s->kind, "assert");
        crisp_text_printf(out, "%s:%d: [thread %u] ", s->file, s->line, thread);
        for (p = 0; p < s->nparts; p++) {
            const CrispDebugPart *part = &s->parts[p];
            int space_first = part->text && (part->text[0] == ' ' || part->text[0] == '\t');
            if (p == 1 && is_assert) crisp_text_printf(out, ": ");
            else if (p > 0 && last != ' ' && last != '\t' && last != '\n' && !space_first) crisp_text_printf(out, " ");
            if (part->text) {
                crisp_text_printf(out, "%s", part->text);
                last = *part->text ? part->text[strlen(part->text) - 1] : last;
            } else {
                if (4 + 2 * (cl_uint)v < n) crisp_debug_value(out, part->type, words[at + 3 + 2 * v], words[at + 4 + 2 * v]);
                else crisp_text_printf(out, "?");
                v++;
                last = 'x';
            }
        }
        crisp_text_printf(out, "\n");
        records++;
        at += n;
    }
    if (words[0] > nwords || words[1])
        crisp_text_printf(out, "crisp: %u debug record(s) dropped: the debug channel (%lu words) was full\n", words[1],
                          (unsigned long)nwords);
    return records;
}

/* The same, printed on OUT. */
static inline size_t crisp_debug_decode(FILE *out, const cl_uint *words, size_t nwords, const CrispDebugSite *sites,
                                        size_t nsites) {
    CrispText t = {NULL, 0, 0, 0};
    size_t n = crisp_debug_decode_text(&t, words, nwords, sites, nsites);
    fputs(crisp_text(&t), out);
    crisp_text_free(&t);
    return n;
}
/* @shim-part end text_debug */

#endif /* CRISP_RUNTIME_CUDA_H */
