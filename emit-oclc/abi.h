/* abi.h - the kernel ABI as plain data: every OpenCL argument of every
 * kernel, in order, with what the host must pass.
 *
 * Built once from a checked Program (abi_build) and printed by every
 * consumer: the .metacrisp JSON (metadata.c), the C hoist and the PyOpenCL
 * hoist (emit-hoist/).  Keeping one description means the metadata and the
 * generated host code can never disagree with the kernel. */
#ifndef CRISP_ABI_H
#define CRISP_ABI_H

#include "../analysis/localmem.h"
#include "../types/check.h"

typedef enum AbiRole {
    ROLE_SCALAR,    /* a scalar parameter */
    ROLE_BUFFER,    /* the pointer of a vector parameter */
    ROLE_LENGTH,    /* the ulong element count that follows a pointer */
    ROLE_RESULT,    /* make-result-vector side channel (pointer) */
    ROLE_IMPLICIT,  /* make-implicit-vector side channel (pointer) */
    ROLE_SCRATCH,   /* the scratch pool (pointer; its length is in bytes) */
    ROLE_DEBUG,     /* the --debug-output channel (pointer) */
    ROLE_LOCAL,     /* make-scratch-vector :local: a __local argument the
                       host sizes (no buffer; its length follows) */
} AbiRole;

/* A size the host computes before launching: an element count (result and
 * implicit vectors) or a byte count (scratch pool).  `expr` is a tree over
 * inputs (types/sizeexpr.h) that emit-oclc/sizeprint.h prints as C or
 * Python; abi_input_name spells its inputs as docs/abi.md says:
 *   NAME_len        element count of vector parameter NAME
 *   NAME            value of integer scalar parameter NAME
 *   global_size0..2, local_size0..2, num_groups0..2,
 *   global_linear_size, local_linear_size   the launch sizes */
typedef struct AbiSize {
    const char *crisp;      /* as written, for comments, e.g. "(* (length~ A) 2)" */
    const SizeExpr *expr;   /* NULL: nothing to compute */
} AbiSize;

/* One member of the scratch pool (each at a 16-byte aligned offset). */
typedef struct AbiScratchPart {
    const char *name;
    const char *comment;
    const char *element;
    int stride;         /* bytes per element */
    AbiSize count;      /* elements */
} AbiScratchPart;

typedef struct AbiArg {
    int index;
    AbiRole role;
    const char *name;       /* Crisp parameter name as written (or :name) */
    const char *cname;      /* the C parameter name in the kernel */
    const char *type;       /* OpenCL C type: "__global const float*", "ulong" */
    /* buffers and side channels (pointer roles) */
    const char *element;    /* OpenCL element type, "void" for voidp */
    const Type *elem_ty;    /* NULL for void */
    AddrSpace as;
    Access acc;
    Align align;
    int stride;             /* bytes between elements */
    int is_out;             /* &out parameter */
    int64_t fixed_length;   /* element count fixed by the type, or -1 */
    /* ROLE_LENGTH: the pointer argument it measures (index and name) */
    int measures;
    const char *param;
    /* vector parameters: what the kernel touches (analysis/extent.h) */
    const SizeExpr *need;   /* at least this many elements, or NULL */
    const char *unchecked;  /* why the kernel's reach could not be bounded, or NULL */
    /* side channels */
    AbiSize size;           /* elements (result, implicit), bytes (scratch) */
    const char *comment;    /* :comment text, or NULL */
} AbiArg;

typedef struct AbiKernel {
    const char *name;
    int line;
    int exact;              /* def-kernel-exact */
    AbiArg *args;
    int nargs;
    int nparams;            /* explicit Crisp parameters */
    const SizeDecl *gsize, *lsize;
    int single_task;
    AbiScratchPart *scratch;
    int nscratch;
    int warp_words;         /* warp forms: __local words per thread of the
                               local-memory lowering (0: none needed) */
    int uses_warp;          /* the kernel uses warp forms (docs/warps.md) */
    const LocalMem *lmem;   /* its __local memory per workgroup (analysis/localmem.h) */
    int *param_arg;         /* explicit parameter i -> index of its scalar or pointer argument */
} AbiKernel;

/* A host function that sorts a vector with three kernels (Program's
 * HostSort, written by gen-bitonic-sort-vector and gen-radix-sort-vector;
 * the kernels in its order). */
typedef struct AbiSort {
    int kind;               /* HOST_SORT_BITONIC, HOST_SORT_RADIX */
    const char *name;
    const AbiKernel *k[3];
    int wg;                 /* local size of k[0] and k[2] */
    int in_place;           /* sorts its argument (else returns a sorted copy) */
    int passes;             /* radix: passes of digit_bits bits */
    int digit_bits;         /* radix: bits a pass */
    int kpt;                /* radix: keys per thread: a tile is wg x kpt keys */
    int pairs;              /* radix: values move with the keys */
    const char *elem;       /* the element's (key's) OpenCL C type */
} AbiSort;
/* One buffer or value of an orchestration (types/check.h Orchestration):
 * an argument of the orchestration (a `_` of some step: the caller's) or a
 * result vector a step makes that a later step is given. */
typedef struct AbiOrchBuf {
    int step;               /* the step whose argument (or side channel) it is */
    int param;              /* its Crisp parameter index, or -1 for a side channel */
    const AbiArg *arg;      /* the pointer or scalar argument of that step's kernel */
    const char *ident;      /* KERNEL_PARAM: the orchestration function's parameter */
    int fresh;              /* an argument of the orchestration */
    int read, written;      /* some step reads it, writes it */
    int like;               /* an intermediate (its step only writes it, a later step
                               is given it): the caller may leave it out and it is
                               made as long as buffer LIKE (-1: not an intermediate) */
} AbiOrchBuf;

typedef struct AbiOrch {
    const Orchestration *o;
    int *kernel;            /* per step: its index in Abi.kernels */
    AbiOrchBuf *bufs;
    int nbufs;
    int **slot;             /* per step, per Crisp parameter: its index in bufs */
} AbiOrch;

/* How orch_expr_text writes a value the host computes (types/check.h
 * OrchExpr): as Crisp (the metadata, comments), C or Python. */
typedef enum { ORCH_TEXT_CRISP, ORCH_TEXT_C, ORCH_TEXT_PY } OrchTextLang;
/* LEN(CTX, BUF) writes the length of the orchestration's buffer BUF (C, Python). */
typedef const char *(*OrchLenText)(void *ctx, int buf);
const char *orch_expr_text(Arena *a, const AbiOrch *ao, const OrchExpr *x, OrchTextLang lang, OrchLenText len, void *ctx);
/* The loop variable of loop L in C and Python: v_VAR. */
const char *orch_loop_var(Arena *a, const AbiOrch *ao, int l);

typedef struct Abi {
    const char *source;
    int ocl_version;        /* 120, 200, 300: the OpenCL C the .cl is written in */
    const char *cl_std;     /* its build option: "-cl-std=CL1.2" ... */
    AbiKernel *kernels;
    int nkernels;
    int debug_output;       /* compiled with --debug-output */
    DebugSite **sites;      /* what decoding the debug records needs */
    int nsites;
    StructDef **structs;    /* def-struct layouts (std140) */
    int nstructs;
    AbiSort *sorts;         /* gen-bitonic-sort-vector host functions */
    int nsorts;
    AbiOrch *orchs;         /* the orchestrations (def-orchestration, let-kernel) */
    int norchs;
} Abi;

Abi *abi_build(Arena *a, const Program *p);

const char *abi_role_name(AbiRole r);

/* The argument of size-expression input IN (its length argument for
 * SZ_LENGTH, the scalar for SZ_SCALAR), or NULL for launch sizes. */
const AbiArg *abi_input_arg(const AbiKernel *k, const SizeExpr *in);

/* docs/abi.md's identifier of input IN in kernel K: the kernel's C name of
 * the length or scalar argument, or global_size0 ... local_linear_size.
 * A SizeInputName callback (emit-oclc/sizeprint.h) with K as its data. */
const char *abi_input_name(void *k, const SizeExpr *in);

#endif
