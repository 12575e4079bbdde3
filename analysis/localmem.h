/* localmem.h - how much __local memory a kernel needs per workgroup.
 *
 * Why: a workgroup's local memory is small (OpenCL guarantees 32 KiB;
 * NVIDIA's OpenCL gives 48 KiB, PoCL and Intel's CPU runtime far more),
 * and a kernel that asks for more than the device has is refused at
 * launch with a bare CL_OUT_OF_RESOURCES.  The library's scans, filter and
 * sorts stage tiles of `items-per-thread` elements per work-item in local
 * memory, so the footprint grows with the work-group size and the tuning.
 * This analysis adds up, for each kernel, every piece of local memory it
 * declares - the `:local` vectors at kernel scope (the user's and the
 * library's, the `uniform` slots), the :local vector parameters (as long
 * as the caller says), the workgroup scratch the host sizes
 * (`make-scratch-vector ... :local`, a size tree over the launch), the
 * warp memory of the local-memory warp lowering - and evaluates it at the
 * kernel's declared local size when there is one (the size crisp chose
 * for a kernel whose scratch needs one counts as declared).
 *
 * The metadata records the figure ("local_mem", docs/abi.md), the hoists
 * compare it with the device's CL_DEVICE_LOCAL_MEM_SIZE before launching,
 * and analysis_run warns (W0704) above the 32 KiB every device has. */
#ifndef CRISP_LOCALMEM_H
#define CRISP_LOCALMEM_H

#include "../types/check.h"
#include "../types/sizeexpr.h"

/* The 32 KiB of local memory OpenCL promises (CL_DEVICE_LOCAL_MEM_SIZE of a
 * full-profile device). */
#define LOCALMEM_OPENCL_MIN 32768

typedef enum LocalPartKind {
    LP_ARRAY,       /* a :local vector (or uniform slot) at kernel scope: fixed size */
    LP_PARAM,       /* a :local vector parameter: as long as the caller says */
    LP_SCRATCH,     /* workgroup scratch the host sizes (a __local argument) */
    LP_WARP,        /* the local-memory warp lowering's words per work-item */
} LocalPartKind;

typedef struct LocalPart {
    LocalPartKind kind;
    const char *name;       /* the Crisp name */
    const char *count_crisp; /* its element count as Crisp text */
    const char *element;    /* element type, as Crisp writes it */
    const char *comment;    /* what it is for (scratch :comment), or NULL */
    int stride;             /* bytes per element */
    const SizeExpr *bytes;  /* bytes, as a size tree (at least one element) */
    int64_t at_size;        /* bytes at the declared local size, or -1 */
    const Node *at;         /* where it is made */
} LocalPart;

typedef struct LocalMem {
    LocalPart *parts;
    int nparts;
    int64_t static_bytes;   /* the fixed-size parts */
    const SizeExpr *bytes;  /* the total, a size tree over the launch and
                               the parameters; NULL when the kernel has none */
    int64_t local_size;     /* the declared local linear size, or 0 */
    int64_t at_size;        /* the total at that size, or -1 when not known
                               at compile time (no declared local size, or a
                               size that depends on the data) */
} LocalMem;

/* The local memory of kernel F (computed once per call, in A; NULL when
 * out of memory).  Reads the checked kernel after the analyses. */
LocalMem *localmem_kernel(Arena *a, const CFunc *f);

#endif
