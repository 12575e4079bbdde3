/* sizeexpr.h - sizes the host computes, as a small expression tree.
 *
 * A kernel's side channels (spec "Side Channel Vectors") have sizes the
 * host must evaluate before the launch, and the hoists check vector lengths
 * against what a kernel touches (analysis/extent.h).  Both are expressions
 * over a few inputs - a vector parameter's length, an integer parameter's
 * value, the launch sizes - that the checker and the analyses build as this
 * tree.  It is target-neutral: the emitters print it as C, Python or any
 * other host language (emit-oclc/sizeprint.h); nothing here knows how. */
#ifndef CRISP_SIZEEXPR_H
#define CRISP_SIZEEXPR_H

#include <stdint.h>

#include "../core/arena.h"

typedef enum SizeOp {
    /* leaves */
    SZ_INT,                 /* a non-negative integer literal (ival) */
    SZ_FLOAT,               /* a fractional literal (fval): the expression is computed
                               in floating point and rounded up (SZ_CEIL) */
    SZ_LENGTH,              /* element count of vector parameter `param` */
    SZ_SCALAR,              /* value of integer scalar parameter `param` */
    SZ_GLOBAL_SIZE,         /* the launch's global size in dimension `dim` (1 if absent) */
    SZ_LOCAL_SIZE,          /* the local size in dimension `dim` (1 if not set) */
    SZ_NUM_GROUPS,          /* global / local size in dimension `dim`, rounded up */
    SZ_MAX_LOCAL_SIZE,      /* the local size in dimension `dim`, or the global size when
                               OpenCL chooses it (a bound on get-local-size) */
    SZ_MAX_NUM_GROUPS,      /* the number of groups in dimension `dim`, or the global
                               size when OpenCL chooses the local size */
    SZ_GLOBAL_LINEAR_SIZE,  /* product of the three global sizes */
    SZ_LOCAL_LINEAR_SIZE,   /* product of the three local sizes */
    /* operators (n-ary ones fold left to right) */
    SZ_ADD, SZ_SUB, SZ_MUL,
    SZ_MONUS,               /* a - b, or 0 when b > a (never wraps) */
    SZ_DIV,                 /* truncating on integers, exact on floating values */
    SZ_MIN, SZ_MAX,
    SZ_CEIL_DIV,            /* (a + b - 1) / b on integers */
    SZ_FLOOR_DIV,           /* a / b on integers */
    SZ_CEIL,                /* a floating value rounded up to an integer */
    SZ_ROUND_UP,            /* kids[0] rounded up to a multiple of kids[1] */
    SZ_IF_POSITIVE,         /* kids[1] when kids[0] > 0, else 0 */
    SZ__COUNT
} SizeOp;

typedef struct SizeExpr SizeExpr;
struct SizeExpr {
    SizeOp op;
    int is_float;           /* computed in floating point (some SZ_FLOAT below, no SZ_CEIL between) */
    int64_t ival;           /* SZ_INT */
    double fval;            /* SZ_FLOAT */
    int dim;                /* launch sizes with a dimension: 0, 1 or 2 */
    const char *param;      /* SZ_LENGTH, SZ_SCALAR: the Crisp parameter name as written */
    int param_index;        /* ... its position among the kernel's parameters */
    int is_signed;          /* SZ_SCALAR: a signed integer type */
    SizeExpr **kids;
    int nkids;
};

SizeExpr *sz_int(Arena *a, int64_t v);
SizeExpr *sz_float(Arena *a, double v);
/* SZ_LENGTH / SZ_SCALAR of parameter NAME (position INDEX). */
SizeExpr *sz_param(Arena *a, SizeOp op, const char *name, int index, int is_signed);
/* A launch size: SZ_GLOBAL_SIZE .. SZ_LOCAL_LINEAR_SIZE (DIM where it has one). */
SizeExpr *sz_launch(Arena *a, SizeOp op, int dim);
/* An operator over N kids (copied).  NULL when a kid is NULL or out of memory. */
SizeExpr *sz_node(Arena *a, SizeOp op, SizeExpr **kids, int n);
SizeExpr *sz_bin(Arena *a, SizeOp op, SizeExpr *x, SizeExpr *y);

/* 1 for an input leaf (lengths, scalars, launch sizes). */
int sz_is_input(const SizeExpr *e);
/* 1 when the two trees are the same expression. */
int sz_equal(const SizeExpr *x, const SizeExpr *y);
/* 1 when E uses a launch size (it can only be evaluated after the launch is known). */
int sz_uses_launch(const SizeExpr *e);
/* Append to *V (N used, CAP allocated) every input leaf of E not yet in it,
 * in order of first appearance.  0 when out of memory. */
int sz_collect_inputs(Arena *a, const SizeExpr *e, const SizeExpr ***v, int *n, int *cap);

/* Constant folding and a few identities ((x - 1) + 1, x * 1, min of equal
 * terms); returns E or a simpler equal tree. */
SizeExpr *sz_simplify(Arena *a, SizeExpr *e);

/* The value of E with every input given by VALUE (integers; floating
 * values rounded up where the tree says so).  For unit tests and constant
 * sizes; 0 when VALUE is NULL and E has inputs. */
typedef double (*SizeInputValue)(void *ud, const SizeExpr *input);
double sz_eval(const SizeExpr *e, SizeInputValue value, void *ud);

#endif
