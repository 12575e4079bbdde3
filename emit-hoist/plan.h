/* plan.h - what host code does to launch one kernel, independent of the
 * host language.
 *
 * Every hoist (C and PyOpenCL today; CUDA C++ and cuda-python can follow)
 * prints the same steps for each kernel: take the caller's vectors and
 * scalars, compute the launch sizes the kernel declares, size the side
 * channels, check every vector against what the kernel touches, set the
 * arguments, launch, bring results back.  This file turns the kernel ABI
 * (emit-oclc/abi.h) into that plan once, with every size as a tree
 * (types/sizeexpr.h), so each emitter only chooses the words. */
#ifndef CRISP_PLAN_H
#define CRISP_PLAN_H

#include "../emit-oclc/abi.h"

typedef enum HostKind {
    HP_VECTOR,      /* a __global or __constant vector: memory the caller passes */
    HP_LOCAL,       /* a __local vector: the caller gives its element count */
    HP_BYTES,       /* a voidp of def-kernel-exact: bytes */
    HP_SCALAR,      /* a scalar value */
} HostKind;

/* One Crisp parameter as the host passes it. */
typedef struct HostParam {
    HostKind kind;
    const AbiArg *arg;          /* the pointer (vectors) or the scalar */
    const AbiArg *len;          /* the element count that follows a pointer, or NULL */
    const char *ident;          /* an identifier (image-data -> image_data), before a
                                   language renames it around its keywords */
    int uploads;                /* the kernel may read it: host data goes in */
    int downloads;              /* the kernel may write it: host data comes back */
    const SizeExpr *need;       /* it must have at least this many elements, or NULL */
    const char *unchecked;      /* why the kernel's reach into it is not known, or NULL */
} HostParam;

/* The launch: what the kernel declares (spec "Hoisting and Enqueing"). */
typedef struct HostLaunch {
    int dims;
    int single_task;
    const SizeExpr *global[3];  /* per dimension, or NULL: not declared */
    const SizeExpr *local[3];   /* NULL: OpenCL chooses (or 1 past the declared ones) */
    int nglobal, nlocal;        /* declared values */
    const char *global_from;    /* why the global size is what it is, for comments */
    const char *local_from;
    const char *global_msg, *local_msg; /* the declarations' :msg */
    int needs_global;           /* no declaration and no vector: the caller must give it */
} HostLaunch;

typedef struct HostKernel {
    const AbiKernel *k;
    HostParam *params;          /* the Crisp parameters, in order */
    int nparams;
    const AbiArg **sides;       /* result, implicit, scratch and debug pointers, in order */
    int nsides;
    int nresults;               /* result vectors (returned to the caller) */
    int nimplicit;
    const AbiArg *scratch, *debug;
    HostLaunch launch;
    int checks;                 /* some vector has a need to check */
} HostKernel;

/* The plan of every kernel of ABI, in order; NULL when out of memory. */
HostKernel *host_plan(Arena *a, const Abi *abi);

/* 1 when any one-dimensional global size is right for the kernel: it has a
 * vector, and what it touches of every vector is known without the launch
 * sizes (grid-stride loops cover their vectors whatever the number of
 * work-items); launch-parallel gives such a kernel its share of the device
 * (docs/orchestration.md).  0 for a kernel sized by its data (one work-item
 * per element), single-task, several dimensions, or reach not known. */
int host_size_free(const HostKernel *hk);

/* The parameter a size-expression input names (a length or a scalar), or NULL. */
const HostParam *host_input_param(const HostKernel *hk, const SizeExpr *in);

/* (global-size :derive-from (width height)) as written, for comments. */
const char *host_size_decl_text(Arena *a, const char *what, const SizeDecl *sd);

/* "image_data" for "image-data": letters, digits and `_`, not starting with a digit. */
const char *host_ident(Arena *a, const char *name);

#endif
