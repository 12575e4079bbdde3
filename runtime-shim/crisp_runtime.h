/* crisp_runtime.h - the C runtime shim of Crisp's generated host code.
 *
 * Every BASE_hoist_OpenCL.c that `crisp --hoist=OpenCL` writes includes this
 * file instead of repeating the same OpenCL boilerplate: error messages
 * the caller can fetch, platform/device selection or the caller's own
 * context and queue, program building with build logs, buffers (and shared
 * virtual memory), std140 packing, launch sizes, the helpers size
 * expressions call, and the --debug-output channel decoder.  crisp writes
 * it next to every C hoist; `make install` puts it in include/crisp/.
 *
 * Header-only: every function is `static inline`, so any number of
 * translation units (and any number of hoists in one program) can include
 * it with no "implementation" macro and no link-time clashes, and unused
 * functions cause no warnings.  Plain C99 that is also valid C++; compiles
 * warning-free with gcc/g++ -Wall -Wextra and with TinyCC.
 *
 * Nothing here prints unless asked to (the functions that print take a
 * FILE *): a failing call returns its status and leaves a message in its
 * CrispContext, crisp_error_message(cx).
 *
 * Device selection (crisp_open):
 *   CRISP_PLATFORM=TEXT  use the first platform whose name contains TEXT
 *                        (case-insensitive)
 *   CRISP_DEVICE=TEXT    use the first device whose name contains TEXT, or,
 *                        when TEXT is a number, the device with that index
 *                        (counting the devices of the chosen platform(s))
 *   neither              the first GPU of any platform, else the first device
 * crisp_use takes the caller's own context and queue instead.
 *
 * Everything the shim defines starts with crisp_ / Crisp / CRISP_. */
#ifndef CRISP_RUNTIME_H
#define CRISP_RUNTIME_H

/* OpenCL 3.0 headers (SVM is declared), but the demo keeps to calls every
 * 1.2 platform has; SVM is only used after checking the device has it. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS /* clCreateCommandQueue: 1.2 platforms lack the 2.0 call */
#endif

/* TinyCC is neither GCC nor MSVC, so cl_platform.h would #warning and drop
 * the alignment of cl_float4 & co.  TinyCC does understand GCC's
 * __attribute__((aligned)), which cl_platform.h also selects for __INTEGRITY. */
#if defined(__TINYC__) && !defined(__INTEGRITY)
#define __INTEGRITY 1
#define CRISP_RUNTIME_UNDEF_INTEGRITY
#endif
#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif
#ifdef CRISP_RUNTIME_UNDEF_INTEGRITY
#undef __INTEGRITY
#undef CRISP_RUNTIME_UNDEF_INTEGRITY
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Compile-time layout checks in the hoists, in C11 and C++11 alike. */
#ifdef __cplusplus
#define CRISP_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define CRISP_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* Options a Crisp program is built with: the OpenCL C version it is written
   for (--ocl-version; the C hoist defines it before including this file). */
#ifndef CRISP_BUILD_OPTIONS
#define CRISP_BUILD_OPTIONS "-cl-std=CL1.2"
#endif

/* The status of a vector shorter than what the kernel touches (or a buffer
 * smaller than its length says): not an OpenCL code. */
#define CRISP_INVALID_LENGTH (-9001)
/* A workgroup needs more local memory than the device has
 * (crisp_check_local_mem): the error the launch would have given. */
#define CRISP_OUT_OF_LOCAL_MEMORY CL_OUT_OF_RESOURCES
#define CRISP_LOCAL_MEM_NAME "CL_DEVICE_LOCAL_MEM_SIZE"
/* zero-filled buffers up to this size are copied from host memory */
#ifndef CRISP_ZERO_COPY_BYTES
#define CRISP_ZERO_COPY_BYTES 65536
#endif

/* Bytes of a CrispContext's message: enough for a build log's start. */
#define CRISP_MESSAGE_SIZE 8192

/* ======================================================================
 * Errors
 * ====================================================================== */


/* The name of an OpenCL status code, e.g. -30 -> "CL_INVALID_VALUE". */
static inline const char *crisp_error_name(cl_int err) {
    switch (err) {
    case 0: return "CL_SUCCESS";
    case -1: return "CL_DEVICE_NOT_FOUND";
    case -2: return "CL_DEVICE_NOT_AVAILABLE";
    case -3: return "CL_COMPILER_NOT_AVAILABLE";
    case -4: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case -5: return "CL_OUT_OF_RESOURCES";
    case -6: return "CL_OUT_OF_HOST_MEMORY";
    case -7: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case -8: return "CL_MEM_COPY_OVERLAP";
    case -9: return "CL_IMAGE_FORMAT_MISMATCH";
    case -10: return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
    case -11: return "CL_BUILD_PROGRAM_FAILURE";
    case -12: return "CL_MAP_FAILURE";
    case -13: return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
    case -14: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case -15: return "CL_COMPILE_PROGRAM_FAILURE";
    case -16: return "CL_LINKER_NOT_AVAILABLE";
    case -17: return "CL_LINK_PROGRAM_FAILURE";
    case -18: return "CL_DEVICE_PARTITION_FAILED";
    case -19: return "CL_KERNEL_ARG_INFO_NOT_AVAILABLE";
    case -30: return "CL_INVALID_VALUE";
    case -31: return "CL_INVALID_DEVICE_TYPE";
    case -32: return "CL_INVALID_PLATFORM";
    case -33: return "CL_INVALID_DEVICE";
    case -34: return "CL_INVALID_CONTEXT";
    case -35: return "CL_INVALID_QUEUE_PROPERTIES";
    case -36: return "CL_INVALID_COMMAND_QUEUE";
    case -37: return "CL_INVALID_HOST_PTR";
    case -38: return "CL_INVALID_MEM_OBJECT";
    case -39: return "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR";
    case -40: return "CL_INVALID_IMAGE_SIZE";
    case -41: return "CL_INVALID_SAMPLER";
    case -42: return "CL_INVALID_BINARY";
    case -43: return "CL_INVALID_BUILD_OPTIONS";
    case -44: return "CL_INVALID_PROGRAM";
    case -45: return "CL_INVALID_PROGRAM_EXECUTABLE";
    case -46: return "CL_INVALID_KERNEL_NAME";
    case -47: return "CL_INVALID_KERNEL_DEFINITION";
    case -48: return "CL_INVALID_KERNEL";
    case -49: return "CL_INVALID_ARG_INDEX";
    case -50: return "CL_INVALID_ARG_VALUE";
    case -51: return "CL_INVALID_ARG_SIZE";
    case -52: return "CL_INVALID_KERNEL_ARGS";
    case -53: return "CL_INVALID_WORK_DIMENSION";
    case -54: return "CL_INVALID_WORK_GROUP_SIZE";
    case -55: return "CL_INVALID_WORK_ITEM_SIZE";
    case -56: return "CL_INVALID_GLOBAL_OFFSET";
    case -57: return "CL_INVALID_EVENT_WAIT_LIST";
    case -58: return "CL_INVALID_EVENT";
    case -59: return "CL_INVALID_OPERATION";
    case -60: return "CL_INVALID_GL_OBJECT";
    case -61: return "CL_INVALID_BUFFER_SIZE";
    case -62: return "CL_INVALID_MIP_LEVEL";
    case -63: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case -64: return "CL_INVALID_PROPERTY";
    case -65: return "CL_INVALID_IMAGE_DESCRIPTOR";
    case -66: return "CL_INVALID_COMPILER_OPTIONS";
    case -67: return "CL_INVALID_LINKER_OPTIONS";
    case -68: return "CL_INVALID_DEVICE_PARTITION_COUNT";
    case -69: return "CL_INVALID_PIPE_SIZE";
    case -70: return "CL_INVALID_DEVICE_QUEUE";
    case -71: return "CL_INVALID_SPEC_ID";
    case -72: return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR (no OpenCL platform is installed)";
    case CRISP_INVALID_LENGTH: return "CRISP_INVALID_LENGTH";
    default: return "unknown OpenCL error";
    }
}

/* A hint for the errors whose cause is not obvious from the name, or "". */
static inline const char *crisp_error_hint(cl_int err) {
    switch (err) {
    case -5: return " (the kernel may have accessed memory out of bounds)";
    case -11: return " (see the build log above)";
    case -46: return " (no kernel of that name in the program: is the .cl file the right one?)";
    case -51: return " (an argument's size does not match the kernel's parameter type)";
    case -52: return " (some kernel argument was not set)";
    case -54: return " (the global size must be a multiple of the local size, and the local size "
                     "at most the device's maximum work-group size)";
    case -61: return " (a buffer of 0 bytes, or larger than the device allows)";
    case -63: return " (a global size of 0, or larger than the device allows)";
    default: return "";
    }
}

/* What a hoist needs to run kernels: one device, a context and a queue,
 * and the message of the last failure. */
typedef struct CrispContext {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    char platform_name[256];
    char device_name[256];
    char device_version[128];   /* "OpenCL 3.0 ..." */
    int has_svm;                /* coarse-grained SVM buffers are available */
    unsigned long long local_mem_size; /* CL_DEVICE_LOCAL_MEM_SIZE (crisp_check_local_mem) */
    int queue_in_order;         /* queue runs its commands in order (crisp_open, crisp_use;
                                   0: not known) - KERNEL_run needs no event then */
    char loaded[640];           /* what crisp_build_program_built (or _spirv_or_file) built, and why */
    cl_int status;              /* of the last failure (CL_SUCCESS: none) */
    char message[CRISP_MESSAGE_SIZE]; /* its message: crisp_error_message */
} CrispContext;

/* The message of the last failure on CX ("" when there was none). */
static inline const char *crisp_error_message(const CrispContext *cx) {
    return cx ? cx->message : "no CrispContext";
}

static inline void crisp_error_clear(CrispContext *cx) {
    cx->status = CL_SUCCESS;
    cx->message[0] = '\0';
}

/* Record ERR with a message (printf FMT) on CX and return ERR, so that
 * callers can write  return crisp_errorf(cx, err, "...", ...);  */
static inline cl_int crisp_errorf(CrispContext *cx, cl_int err, const char *fmt, ...) {
    va_list ap;
    if (!cx) return err;
    cx->status = err;
    va_start(ap, fmt);
    vsnprintf(cx->message, sizeof cx->message, fmt, ap);
    va_end(ap);
    return err;
}

/* Record a failed OpenCL call WHAT: "WHAT failed: CL_NAME (code) hint". */
static inline cl_int crisp_fail(CrispContext *cx, cl_int err, const char *what) {
    return crisp_errorf(cx, err, "%s failed: %s (%d)%s", what, crisp_error_name(err), (int)err, crisp_error_hint(err));
}

/* 1 when ERR is CL_SUCCESS; otherwise record it (crisp_fail) and return 0. */
static inline int crisp_ok(CrispContext *cx, cl_int err, const char *what) {
    if (err == CL_SUCCESS) return 1;
    crisp_fail(cx, err, what);
    return 0;
}

/* ======================================================================
 * Platform and device selection
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

#define CRISP_MAX_PLATFORMS 16
#define CRISP_MAX_DEVICES 64

/* Append every platform and device to BUF (SIZE bytes), one per line. */
static inline void crisp_format_devices(char *buf, size_t size) {
    cl_platform_id plats[CRISP_MAX_PLATFORMS];
    cl_uint np = 0, p, d;
    size_t n = strlen(buf);
    if (clGetPlatformIDs(CRISP_MAX_PLATFORMS, plats, &np) != CL_SUCCESS) np = 0;
    if (np > CRISP_MAX_PLATFORMS) np = CRISP_MAX_PLATFORMS;
    if (np == 0) snprintf(buf + n, n < size ? size - n : 0, "  (no OpenCL platform is installed: install an ICD such as pocl-opencl-icd)\n");
    for (p = 0; p < np; p++) {
        cl_device_id devs[CRISP_MAX_DEVICES];
        cl_uint nd = 0;
        char name[256] = "?";
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
        n = strlen(buf);
        snprintf(buf + n, n < size ? size - n : 0, "  platform %u: %s\n", p, name);
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, CRISP_MAX_DEVICES, devs, &nd) != CL_SUCCESS) nd = 0;
        if (nd > CRISP_MAX_DEVICES) nd = CRISP_MAX_DEVICES;
        for (d = 0; d < nd; d++) {
            char dname[256] = "?";
            clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof dname, dname, NULL);
            n = strlen(buf);
            snprintf(buf + n, n < size ? size - n : 0, "    device: %s\n", dname);
        }
    }
}

/* Print every platform and device on OUT. */
static inline void crisp_list_devices(FILE *out) {
    char text[4096] = "";
    crisp_format_devices(text, sizeof text);
    fputs(text, out);
}

/* Choose a platform and device (CRISP_PLATFORM, CRISP_DEVICE: see the top
 * of this file).  Returns CL_DEVICE_NOT_FOUND, with a message on CX listing
 * what is installed, when nothing matches. */
static inline cl_int crisp_pick_device(CrispContext *cx, cl_platform_id *platform, cl_device_id *device) {
    const char *want_plat = crisp_env("CRISP_PLATFORM");
    const char *want_dev = crisp_env("CRISP_DEVICE");
    long want_index = want_dev ? crisp_index_of(want_dev) : -1;
    cl_platform_id plats[CRISP_MAX_PLATFORMS];
    cl_uint np = 0, p, d;
    long seen = 0;
    int pass;
    cl_int err = clGetPlatformIDs(CRISP_MAX_PLATFORMS, plats, &np);
    if (err != CL_SUCCESS || np == 0)
        return crisp_errorf(cx, err != CL_SUCCESS ? err : CL_DEVICE_NOT_FOUND,
                            "no OpenCL platform found (%s): install an OpenCL driver (ICD), e.g. pocl-opencl-icd",
                            crisp_error_name(err));
    if (np > CRISP_MAX_PLATFORMS) np = CRISP_MAX_PLATFORMS;
    /* pass 0 looks for a GPU (only when no device was asked for), pass 1 for any device */
    for (pass = want_dev ? 1 : 0; pass < 2; pass++) {
        seen = 0;
        for (p = 0; p < np; p++) {
            cl_device_id devs[CRISP_MAX_DEVICES];
            cl_uint nd = 0;
            char name[256] = "";
            clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
            if (want_plat && !crisp_contains(name, want_plat)) continue;
            if (clGetDeviceIDs(plats[p], pass == 0 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL,
                               CRISP_MAX_DEVICES, devs, &nd) != CL_SUCCESS)
                continue;
            if (nd > CRISP_MAX_DEVICES) nd = CRISP_MAX_DEVICES;
            for (d = 0; d < nd; d++, seen++) {
                char dname[256] = "";
                clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof dname, dname, NULL);
                if (want_index >= 0 ? seen != want_index : want_dev && !crisp_contains(dname, want_dev))
                    continue;
                *platform = plats[p];
                *device = devs[d];
                return CL_SUCCESS;
            }
        }
    }
    crisp_errorf(cx, CL_DEVICE_NOT_FOUND, "no OpenCL device matches CRISP_PLATFORM=%s CRISP_DEVICE=%s; installed:\n",
                 want_plat ? want_plat : "(any)", want_dev ? want_dev : "(any)");
    if (cx) crisp_format_devices(cx->message, sizeof cx->message);
    return CL_DEVICE_NOT_FOUND;
}

/* 1 when the device can allocate coarse-grained SVM buffers (OpenCL 2.0+). */
static inline int crisp_device_has_svm(cl_platform_id platform, cl_device_id device) {
#ifdef CL_VERSION_2_0
    char version[128] = "";
    cl_device_svm_capabilities caps = 0;
    /* the ICD loader only forwards SVM calls to platforms that implement 2.0 */
    clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof version, version, NULL);
    if (strncmp(version, "OpenCL ", 7) != 0 || version[7] < '2') return 0;
    clGetDeviceInfo(device, CL_DEVICE_VERSION, sizeof version, version, NULL);
    if (strncmp(version, "OpenCL ", 7) != 0 || version[7] < '2') return 0;
    if (clGetDeviceInfo(device, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, NULL) != CL_SUCCESS) return 0;
    return (caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0;
#else
    (void)platform;
    (void)device;
    return 0;
#endif
}

/* Names and SVM support of CX's device. */
static inline void crisp_describe(CrispContext *cx) {
    clGetPlatformInfo(cx->platform, CL_PLATFORM_NAME, sizeof cx->platform_name, cx->platform_name, NULL);
    clGetDeviceInfo(cx->device, CL_DEVICE_NAME, sizeof cx->device_name, cx->device_name, NULL);
    clGetDeviceInfo(cx->device, CL_DEVICE_VERSION, sizeof cx->device_version, cx->device_version, NULL);
    cx->has_svm = crisp_device_has_svm(cx->platform, cx->device);
    {
        cl_ulong bytes = 0;
        if (clGetDeviceInfo(cx->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof bytes, &bytes, NULL) == CL_SUCCESS)
            cx->local_mem_size = (unsigned long long)bytes;
    }
}

/* Pick a device (crisp_pick_device), then create a context and an in-order
 * queue with PROPERTIES (0, or CL_QUEUE_PROFILING_ENABLE to time kernels).
 * crisp_close releases them. */
static inline cl_int crisp_open(CrispContext *cx, cl_command_queue_properties properties) {
    cl_context_properties props[3];
    cl_int err;
    memset(cx, 0, sizeof *cx);
    err = crisp_pick_device(cx, &cx->platform, &cx->device);
    if (err != CL_SUCCESS) return err;
    crisp_describe(cx);
    props[0] = CL_CONTEXT_PLATFORM;
    props[1] = (cl_context_properties)cx->platform;
    props[2] = 0;
    cx->context = clCreateContext(props, 1, &cx->device, NULL, NULL, &err);
    if (!crisp_ok(cx, err, "clCreateContext")) return err;
    cx->queue = clCreateCommandQueue(cx->context, cx->device, properties, &err);
    if (!crisp_ok(cx, err, "clCreateCommandQueue")) {
        clReleaseContext(cx->context);
        cx->context = NULL;
        return err;
    }
    cx->queue_in_order = !(properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    return CL_SUCCESS;
}

/* Use the caller's own CONTEXT and QUEUE (on that context): the device is
 * the queue's.  Takes a reference to both, which crisp_close gives back. */
static inline cl_int crisp_use(CrispContext *cx, cl_context context, cl_command_queue queue) {
    cl_context qcontext = NULL;
    cl_int err;
    memset(cx, 0, sizeof *cx);
    if (!context || !queue) return crisp_errorf(cx, CL_INVALID_VALUE, "crisp_use: a context and a queue are needed");
    err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qcontext, &qcontext, NULL);
    if (!crisp_ok(cx, err, "clGetCommandQueueInfo(CL_QUEUE_CONTEXT)")) return err;
    if (qcontext != context)
        return crisp_errorf(cx, CL_INVALID_CONTEXT, "crisp_use: the queue belongs to another context than the one given");
    err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof cx->device, &cx->device, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceInfo(cx->device, CL_DEVICE_PLATFORM, sizeof cx->platform, &cx->platform, NULL);
    if (!crisp_ok(cx, err, "clGetCommandQueueInfo(CL_QUEUE_DEVICE)")) return err;
    crisp_describe(cx);
    {
        cl_command_queue_properties props = 0;
        if (clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL) == CL_SUCCESS)
            cx->queue_in_order = !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    }
    clRetainContext(context);
    clRetainCommandQueue(queue);
    cx->context = context;
    cx->queue = queue;
    return CL_SUCCESS;
}

/* Give back the context and queue (crisp_open made them: they go; crisp_use:
 * the references it took). */
static inline void crisp_close(CrispContext *cx) {
    if (cx->queue) clReleaseCommandQueue(cx->queue);
    if (cx->context) clReleaseContext(cx->context);
    cx->queue = NULL;
    cx->context = NULL;
}

/* ======================================================================
 * Programs
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

/* Build OpenCL C SOURCE on CX's device with CRISP_BUILD_OPTIONS (plus
 * OPTIONS, may be NULL; OPTIONS with a -cl-std= of its own replace it: the
 * hoists pass the .cl's, --ocl-version).  WHAT names the source in
 * messages.  On failure the message on CX has the build log; *ERR is set
 * and NULL returned. */
static inline cl_program crisp_build_program(CrispContext *cx, const char *source, const char *what,
                                             const char *options, cl_int *err) {
    char opts[1024];
    cl_program program;
    cl_int status;
    size_t n, size = 0;
    const char *base = options && strstr(options, "-cl-std=") ? "" : CRISP_BUILD_OPTIONS;
    if (!err) err = &status;
    snprintf(opts, sizeof opts, "%s%s%s", base, options && *base ? " " : "", options ? options : "");
    program = clCreateProgramWithSource(cx->context, 1, &source, NULL, err);
    if (!crisp_ok(cx, *err, "clCreateProgramWithSource")) return NULL;
    *err = clBuildProgram(program, 1, &cx->device, opts, NULL, NULL);
    if (*err == CL_SUCCESS) return program;
    crisp_errorf(cx, *err, "building %s with \"%s\" failed: %s (%d); build log of %s:\n", what, opts,
                 crisp_error_name(*err), (int)*err, what);
    n = strlen(cx->message);
    if (clGetProgramBuildInfo(program, cx->device, CL_PROGRAM_BUILD_LOG, sizeof cx->message - n - 1, cx->message + n,
                              &size) != CL_SUCCESS)
        snprintf(cx->message + n, sizeof cx->message - n, "(the log does not fit or is not available)");
    cx->message[sizeof cx->message - 1] = '\0';
    clReleaseProgram(program);
    return NULL;
}

/* crisp_build_program on the contents of the file PATH. */
static inline cl_program crisp_build_program_file(CrispContext *cx, const char *path, const char *options,
                                                  cl_int *err) {
    char *source = crisp_read_file(cx, path);
    cl_program program;
    if (!source) {
        if (err) *err = cx->status;
        return NULL;
    }
    program = crisp_build_program(cx, source, path, options, err);
    free(source);
    return program;
}

/* '' when CX's device builds SPIR-V (clCreateProgramWithIL: OpenCL 2.1's
 * CL_DEVICE_IL_VERSION, or cl_khr_il_program), else why not (static text
 * or WHY, a buffer of SIZE bytes). */
static inline const char *crisp_spirv_support(CrispContext *cx, char *why, size_t size) {
#ifdef CL_VERSION_2_1
    char il[256] = "", ext[8192] = "";
    clGetDeviceInfo(cx->device, CL_DEVICE_IL_VERSION, sizeof il, il, NULL);
    clGetDeviceInfo(cx->device, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    il[sizeof il - 1] = ext[sizeof ext - 1] = '\0';
    if (strstr(il, "SPIR-V") || strstr(ext, "cl_khr_il_program")) return "";
    snprintf(why, size, "%.200s takes no SPIR-V (no CL_DEVICE_IL_VERSION, no cl_khr_il_program)", cx->device_name);
    return why;
#else
    (void)cx;
    (void)why;
    (void)size;
    return "the OpenCL headers predate clCreateProgramWithIL (2.1)";
#endif
}

/* The SPIR-V at SPV_PATH (crisp --ir-target=spv) built with
 * clCreateProgramWithIL where CX's device takes SPIR-V; else the OpenCL C at
 * CL_PATH (crisp_build_program_file with OPTIONS).  cx->loaded says which,
 * and why not the SPIR-V. */
static inline cl_program crisp_build_program_spirv_or_file(CrispContext *cx, const char *spv_path, const char *cl_path,
                                                           const char *options, cl_int *err) {
    char why[320];
    const char *no = crisp_spirv_support(cx, why, sizeof why);
#ifdef CL_VERSION_2_1
    if (!*no) {
        FILE *f = fopen(spv_path, "rb");
        unsigned char *il = NULL;
        long n = -1;
        if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
            (il = (unsigned char *)malloc((size_t)n)) != NULL && fread(il, 1, (size_t)n, f) == (size_t)n) {
            cl_int status;
            cl_program program = clCreateProgramWithIL(cx->context, il, (size_t)n, &status);
            if (status == CL_SUCCESS) status = clBuildProgram(program, 1, &cx->device, "", NULL, NULL);
            free(il);
            fclose(f);
            if (status == CL_SUCCESS) {
                snprintf(cx->loaded, sizeof cx->loaded, "%.500s (SPIR-V, clCreateProgramWithIL)", spv_path);
                if (err) *err = CL_SUCCESS;
                return program;
            }
            if (program) clReleaseProgram(program);
            snprintf(why, sizeof why, "building it failed: %s (%d)", crisp_error_name(status), (int)status);
        } else {
            free(il);
            if (f) fclose(f);
            snprintf(why, sizeof why, "cannot read %.200s", spv_path);
        }
        no = why;
    }
#else
    (void)spv_path;
#endif
    snprintf(cx->loaded, sizeof cx->loaded, "%.250s (OpenCL C; not the SPIR-V: %.300s)", cl_path, no);
    return crisp_build_program_file(cx, cl_path, options, err);
}

/* '' when CX's device takes PTX as its program binary (NVIDIA's OpenCL: a
 * program binary there is PTX text, so the BASE_nvcl.ptx crisp writes for
 * --ir-target=ptx with an OpenCL hoist loads with
 * clCreateProgramWithBinary), else why not (static text or WHY, a buffer
 * of SIZE bytes). */
static inline const char *crisp_ptx_support(CrispContext *cx, char *why, size_t size) {
    if (strstr(cx->platform_name, "NVIDIA")) return "";
    snprintf(why, size, "%.200s is not NVIDIA's OpenCL, whose program binaries are PTX", cx->platform_name);
    return why;
}

/* The PTX at PTX_PATH (crisp's BASE_nvcl.ptx) built with
 * clCreateProgramWithBinary where CX's device takes PTX (NVIDIA); NULL with
 * why not in WHY (SIZE bytes) otherwise or when that fails. */
static inline cl_program crisp_build_program_ptx(CrispContext *cx, const char *ptx_path, char *why, size_t size) {
    const char *no = crisp_ptx_support(cx, why, size);
    FILE *f;
    unsigned char *bin = NULL;
    long n = -1;
    cl_int status, binary_status = CL_SUCCESS;
    cl_program program;
    size_t len;
    const unsigned char *bins[1];
    if (*no) return NULL;
    f = fopen(ptx_path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0 ||
        (bin = (unsigned char *)malloc((size_t)n + 1)) == NULL || fread(bin, 1, (size_t)n, f) != (size_t)n) {
        free(bin);
        if (f) fclose(f);
        snprintf(why, size, "cannot read %.200s", ptx_path);
        return NULL;
    }
    fclose(f);
    bin[n] = '\0'; /* PTX text, NUL-terminated as NVIDIA's own binaries are */
    len = (size_t)n + 1;
    bins[0] = bin;
    program = clCreateProgramWithBinary(cx->context, 1, &cx->device, &len, bins, &binary_status, &status);
    free(bin);
    if (status == CL_SUCCESS) status = binary_status;
    if (status == CL_SUCCESS) status = clBuildProgram(program, 1, &cx->device, "", NULL, NULL);
    if (status == CL_SUCCESS) return program;
    if (program) clReleaseProgram(program);
    snprintf(why, size, "building %.200s failed: %s (%d)", ptx_path, crisp_error_name(status), (int)status);
    return NULL;
}

/* What crisp built beside CL_PATH (BASE.cl), for CX's device: with SPIRV,
 * BASE.spv through clCreateProgramWithIL where the device takes SPIR-V;
 * with PTX, BASE_nvcl.ptx (the nvptx64-nvidia-nvcl PTX, not BASE.ptx, the
 * CUDA driver API's) through clCreateProgramWithBinary on NVIDIA's OpenCL;
 * else the OpenCL C at CL_PATH (crisp_build_program_file with OPTIONS).
 * cx->loaded says which, and why not the others. */
static inline cl_program crisp_build_program_built(CrispContext *cx, const char *cl_path, int spirv, int ptx,
                                                   const char *options, cl_int *err) {
    char path[4096], why_ptx[320] = "";
    size_t n = strlen(cl_path);
    cl_program program;
    if (n > 3 && !strcmp(cl_path + n - 3, ".cl")) n -= 3;
    if (ptx) {
        snprintf(path, sizeof path, "%.*s_nvcl.ptx", (int)(n < 4000 ? n : 4000), cl_path);
        program = crisp_build_program_ptx(cx, path, why_ptx, sizeof why_ptx);
        if (program) {
            snprintf(cx->loaded, sizeof cx->loaded, "%.500s (PTX, clCreateProgramWithBinary)", path);
            if (err) *err = CL_SUCCESS;
            return program;
        }
    }
    if (spirv) {
        snprintf(path, sizeof path, "%.*s.spv", (int)(n < 4000 ? n : 4000), cl_path);
        program = crisp_build_program_spirv_or_file(cx, path, cl_path, options, err);
    } else {
        snprintf(cx->loaded, sizeof cx->loaded, "%.250s (OpenCL C)", cl_path);
        program = crisp_build_program_file(cx, cl_path, options, err);
    }
    if (ptx && program) {
        /* "BASE.cl (OpenCL C...)" becomes "BASE.cl (OpenCL C...; not the PTX: why)" */
        size_t k = strlen(cx->loaded);
        if (k && cx->loaded[k - 1] == ')') k--;
        snprintf(cx->loaded + k, sizeof cx->loaded - k, "; not the PTX: %s)", why_ptx);
    }
    return program;
}

/* clCreateKernel NAME of PROGRAM (NULL with a message on failure). */
static inline cl_kernel crisp_create_kernel(CrispContext *cx, cl_program program, const char *name, cl_int *err) {
    char what[320];
    cl_kernel k = clCreateKernel(program, name, err);
    snprintf(what, sizeof what, "clCreateKernel(%s)", name);
    return crisp_ok(cx, *err, what) ? k : NULL;
}

/* ======================================================================
 * Memory: buffers or shared virtual memory behind one handle
 * ====================================================================== */

/* Device memory: a buffer object, or (--hoist-unified-memory on a device
 * with SVM) a coarse-grained SVM allocation.  Exactly one of mem/svm is set. */
typedef struct CrispMem {
    cl_mem mem;
    void *svm;
    size_t bytes;
    cl_context context;     /* to free the SVM allocation */
} CrispMem;

#define CRISP_MEM_INIT {NULL, NULL, 0, NULL}

/* Allocate BYTES (at least 1: OpenCL has no empty buffers) of device memory
 * with FLAGS (CL_MEM_READ_ONLY, ...), as SVM when USE_SVM, and copy INIT
 * into it, or zeros when INIT is NULL and ZERO is set.  WHAT names it in
 * messages (formatted only when a call fails: this is per-call work of
 * every KERNEL_run). */
static inline cl_int crisp_mem_create(CrispContext *cx, CrispMem *m, cl_mem_flags flags, size_t bytes,
                                      const void *init, int zero, int use_svm, const char *what) {
    cl_int err = CL_SUCCESS;
    char msg[320];
    memset(m, 0, sizeof *m);
    m->bytes = bytes ? bytes : 1;
    m->context = cx->context;
#ifdef CL_VERSION_2_0
    if (use_svm) {
        m->svm = clSVMAlloc(cx->context, flags, m->bytes, 0);
        if (!m->svm)
            return crisp_errorf(cx, CL_MEM_OBJECT_ALLOCATION_FAILURE, "clSVMAlloc(%s, %lu bytes) failed", what,
                                (unsigned long)m->bytes);
        if (init && bytes) {
            err = clEnqueueSVMMemcpy(cx->queue, CL_TRUE, m->svm, init, bytes, 0, NULL, NULL);
            if (err == CL_SUCCESS) return CL_SUCCESS;
            snprintf(msg, sizeof msg, "clEnqueueSVMMemcpy(to %s)", what);
        } else if (zero) {
            cl_uchar nothing = 0;
            err = clEnqueueSVMMemFill(cx->queue, m->svm, &nothing, 1, m->bytes, 0, NULL, NULL);
            if (err == CL_SUCCESS) err = clFinish(cx->queue);
            if (err == CL_SUCCESS) return CL_SUCCESS;
            snprintf(msg, sizeof msg, "clEnqueueSVMMemFill(%s)", what);
        } else {
            return CL_SUCCESS;
        }
        return crisp_fail(cx, err, msg);
    }
#else
    (void)use_svm;
#endif
    /* a small zero buffer is copied from zeroed host memory: one call, and
       oclgrind 21.10 does not count clEnqueueFillBuffer as initialising */
    void *zeros = zero && !(init && bytes) && m->bytes <= CRISP_ZERO_COPY_BYTES ? calloc(1, m->bytes) : NULL;
    if (zeros) init = zeros, bytes = m->bytes;
    m->mem = clCreateBuffer(cx->context, flags | (init && bytes ? CL_MEM_COPY_HOST_PTR : 0), m->bytes,
                            init && bytes ? (void *)init : NULL, &err);
    free(zeros);
    if (err != CL_SUCCESS) {
        snprintf(msg, sizeof msg, "clCreateBuffer(%s, %lu bytes)", what, (unsigned long)m->bytes);
        return crisp_fail(cx, err, msg);
    }
    if (zero && !(init && bytes)) {
        cl_uchar nothing = 0;
        cl_event filled = NULL;
        err = clEnqueueFillBuffer(cx->queue, m->mem, &nothing, 1, 0, m->bytes, 0, NULL, &filled);
        if (err == CL_SUCCESS) err = clWaitForEvents(1, &filled); /* before any kernel, on any queue */
        if (filled) clReleaseEvent(filled);
        if (err != CL_SUCCESS) {
            snprintf(msg, sizeof msg, "clEnqueueFillBuffer(%s)", what);
            return crisp_fail(cx, err, msg);
        }
    }
    return CL_SUCCESS;
}

/* Copy BYTES of device memory M into HOST on QUEUE (blocking), once AFTER
 * (an event, or NULL) is complete: a KERNEL_run reads its results after
 * the kernel's event, in one wait, on an out-of-order queue too. */
static inline cl_int crisp_mem_read_after(CrispContext *cx, cl_command_queue queue, const CrispMem *m, void *host,
                                          size_t bytes, cl_event after, const char *what) {
    cl_int err;
    char msg[320];
    if (bytes > m->bytes) bytes = m->bytes;
    if (!bytes) { /* nothing to read: wait all the same */
        if (after && !crisp_ok(cx, clWaitForEvents(1, &after), what)) return cx->status;
        return CL_SUCCESS;
    }
#ifdef CL_VERSION_2_0
    if (m->svm) {
        err = clEnqueueSVMMemcpy(queue, CL_TRUE, host, m->svm, bytes, after ? 1 : 0, after ? &after : NULL, NULL);
        if (err == CL_SUCCESS) return CL_SUCCESS;
        snprintf(msg, sizeof msg, "clEnqueueSVMMemcpy(from %s)", what);
        return crisp_fail(cx, err, msg);
    }
#endif
    err = clEnqueueReadBuffer(queue, m->mem, CL_TRUE, 0, bytes, host, after ? 1 : 0, after ? &after : NULL, NULL);
    if (err == CL_SUCCESS) return CL_SUCCESS;
    snprintf(msg, sizeof msg, "clEnqueueReadBuffer(%s)", what);
    return crisp_fail(cx, err, msg);
}

/* Copy BYTES of device memory M into HOST on QUEUE (blocking). */
static inline cl_int crisp_mem_read(CrispContext *cx, cl_command_queue queue, const CrispMem *m, void *host,
                                    size_t bytes, const char *what) {
    return crisp_mem_read_after(cx, queue, m, host, bytes, NULL, what);
}

static inline void crisp_mem_release(CrispMem *m) {
    if (m->mem) clReleaseMemObject(m->mem);
#ifdef CL_VERSION_2_0
    if (m->svm) clSVMFree(m->context, m->svm);
#endif
    m->mem = NULL;
    m->svm = NULL;
}

/* Set kernel argument INDEX to M (a buffer or an SVM pointer). */
static inline cl_int crisp_set_arg_mem(CrispContext *cx, cl_kernel kernel, cl_uint index, const CrispMem *m,
                                       const char *what) {
    cl_int err;
#ifdef CL_VERSION_2_0
    if (m->svm) {
        err = clSetKernelArgSVMPointer(kernel, index, m->svm);
        return crisp_ok(cx, err, what) ? CL_SUCCESS : err;
    }
#endif
    err = clSetKernelArg(kernel, index, sizeof(cl_mem), &m->mem);
    return crisp_ok(cx, err, what) ? CL_SUCCESS : err;
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

/* Check the memory object MEM the caller passed for argument NAME of
 * KERNEL: it belongs to CX's context and holds COUNT elements STRIDE bytes
 * apart.  A NULL MEM is left to OpenCL. */
static inline cl_int crisp_check_mem(CrispContext *cx, const char *kernel, const char *name, cl_mem mem,
                                     unsigned long long count, size_t stride) {
    cl_context c = NULL;
    size_t size = 0;
    cl_int err;
    if (!mem) return CL_SUCCESS;
    err = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof c, &c, NULL);
    if (err == CL_SUCCESS) err = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err != CL_SUCCESS)
        return crisp_errorf(cx, err, "kernel %s: argument %s is not a valid cl_mem: %s (%d)", kernel, name,
                            crisp_error_name(err), (int)err);
    if (c != cx->context)
        return crisp_errorf(cx, CL_INVALID_CONTEXT, "kernel %s: argument %s is a buffer of another context than the kernel's",
                            kernel, name);
    if (stride && count > size / stride)
        return crisp_errorf(cx, CRISP_INVALID_LENGTH,
                            "kernel %s: argument %s is a buffer of %lu bytes, but its length says %llu elements of %lu bytes",
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
 * (ELEM_BYTES each), on QUEUE, once AFTER (an event, or NULL) is complete,
 * waiting. */
static inline cl_int crisp_download_after(CrispContext *cx, cl_command_queue queue, const CrispMem *m, void *host,
                                          size_t count, size_t elem_bytes, size_t stride, cl_event after,
                                          const char *what) {
    void *staged = NULL;
    cl_int err;
    if (stride == elem_bytes) return crisp_mem_read_after(cx, queue, m, host, count * stride, after, what);
    staged = crisp_host_alloc(cx, count, stride, what);
    if (!staged) return cx->status;
    err = crisp_mem_read_after(cx, queue, m, staged, count * stride, after, what);
    if (err == CL_SUCCESS) crisp_std140_unpack(host, elem_bytes, staged, stride, count);
    free(staged);
    return err;
}

static inline cl_int crisp_download(CrispContext *cx, cl_command_queue queue, const CrispMem *m, void *host,
                                    size_t count, size_t elem_bytes, size_t stride, const char *what) {
    return crisp_download_after(cx, queue, m, host, count, elem_bytes, stride, NULL, what);
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
        snprintf(buf + n, n < size ? size - n : 0, ", local: OpenCL's choice");
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

/* The work-items CX's device runs at once (compute units x its largest
 * workgroup) divided among K kernels: the global size launch-parallel gives
 * each kernel that any size suits (spec "launch parallel").  65536 / K when
 * the device does not say. */
static inline size_t crisp_thread_share(CrispContext *cx, size_t k) {
    cl_uint units = 0;
    size_t wg = 0, share;
    if (clGetDeviceInfo(cx->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(cx->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL) != CL_SUCCESS || !units || !wg) {
        units = 1;
        wg = 65536;
    }
    share = (size_t)units * wg / (k ? k : 1);
    return share ? share : 1;
}

/* clEnqueueNDRangeKernel with L on QUEUE; WHAT names the kernel in messages. */
static inline cl_int crisp_enqueue(CrispContext *cx, cl_command_queue queue, cl_kernel kernel, const CrispLaunch *l,
                                   const char *what, cl_uint num_events, const cl_event *wait_list, cl_event *event) {
    char sizes[160];
    cl_int err;
    cl_uint d;
    for (d = 0; d < l->dims; d++)
        if (l->global[d] == 0) /* nothing runs: an event all the same */
            return crisp_ok(cx, clEnqueueMarkerWithWaitList(queue, num_events, wait_list, event), "clEnqueueMarkerWithWaitList")
                       ? CL_SUCCESS
                       : cx->status;
    err = clEnqueueNDRangeKernel(queue, kernel, l->dims, NULL, l->global, crisp_launch_has_local(l) ? l->local : NULL,
                                 num_events, wait_list, event);
    if (err == CL_SUCCESS) return err;
    crisp_format_launch(sizes, sizeof sizes, l);
    return crisp_errorf(cx, err, "clEnqueueNDRangeKernel(%s, %s) failed: %s (%d)%s", what, sizes, crisp_error_name(err),
                        (int)err, crisp_error_hint(err));
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

#endif /* CRISP_RUNTIME_H */
