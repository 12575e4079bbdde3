/* extent.h - how many elements of each vector parameter a kernel may touch.
 *
 * The hoists check the vectors a caller passes before every launch, so that
 * a short vector is an error on the host instead of an out-of-bounds kernel
 * (docs/hoisting-python.md, "Lengths").  This analysis reads the checked
 * program and bounds every index into a kernel's vector parameters - in the
 * kernel and in the functions it calls - by a size expression over the
 * kernel's inputs (types/sizeexpr.h): lengths, integer parameters and launch
 * sizes.  Thread ids are bounded by the launch sizes, loop variables by
 * their loop conditions, variables by their initial values, and every
 * `(when (< i N) ...)` / `(if (< i N) ...)` / early `return` narrows a
 * variable below N.
 *
 * It is deliberately conservative about what it can prove: an index computed
 * from memory the kernel reads (a gather), from a variable that is
 * assigned, or through a tensor-view leaves the vector "unchecked", with the
 * reason and the source line, and the hoists say so.  Negative and wrapping
 * indexes are not considered (only how far up an index can reach). */
#ifndef CRISP_EXTENT_H
#define CRISP_EXTENT_H

#include "../types/check.h"

typedef struct Extent {
    int touched;            /* some element may be read or written */
    SizeExpr *need;         /* the vector needs at least this many elements
                               (NULL: nothing to check, or unchecked) */
    const char *unchecked;  /* why no bound could be found, or NULL */
    int line;               /* where (the first access that could not be bounded) */
} Extent;

/* One Extent per explicit parameter of kernel F (scalars get an empty
 * one), allocated in A; NULL when out of memory.  def-kernel-exact kernels
 * (whose vectors are marshalled by the caller) get empty extents. */
Extent *extent_kernel(Arena *a, const Program *p, const CFunc *f);

/* W0703 through D: kernel F (with no (global-size ...) declaration) indexes
 * a def-const-vec with a thread id nothing bounds below its length. */
void extent_constvec_check(Arena *a, const Program *p, const CFunc *f, Diag *d);

#endif
