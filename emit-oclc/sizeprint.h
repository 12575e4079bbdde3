/* sizeprint.h - size-expression trees (types/sizeexpr.h) printed as host
 * code.
 *
 * The checker builds sizes as plain trees; these printers turn them into
 * the C and Python the metadata ("c", "python") and the hoists carry.  An
 * input leaf is spelled by a callback, so each consumer chooses its names:
 * the metadata uses the ABI identifiers of docs/abi.md (A_len, n,
 * global_size0), a hoist its own locals.  Another host language (CUDA C++,
 * cuda-python) adds a printer here and reuses the trees.
 *
 * C: unsigned long long arithmetic; a floating subexpression is computed in
 * double and the whole size rounded up with crisp_ceil_ull (crisp_runtime.h
 * has every crisp_*_ull helper used).  Python: integer arithmetic, `/` only
 * for floating values, math.ceil for the rounding. */
#ifndef CRISP_SIZEPRINT_H
#define CRISP_SIZEPRINT_H

#include "../core/strbuf.h"
#include "../types/sizeexpr.h"

/* How an input leaf (sz_is_input) is spelled; NULL falls back to
 * size_input_default. */
typedef const char *(*SizeInputName)(void *ud, const SizeExpr *input);

/* The ABI identifier of an input with no kernel at hand: NAME_len for a
 * vector's length (NAME as written, non-identifier characters as `_`),
 * NAME for a scalar, global_size0 ... local_linear_size for launch sizes. */
const char *size_input_default(Arena *a, const SizeExpr *input);

void size_print_c(StrBuf *b, const SizeExpr *e, SizeInputName name, void *ud);
void size_print_py(StrBuf *b, const SizeExpr *e, SizeInputName name, void *ud);

/* The same, as arena strings ("0" for a NULL tree or out of memory). */
const char *size_c(Arena *a, const SizeExpr *e, SizeInputName name, void *ud);
const char *size_py(Arena *a, const SizeExpr *e, SizeInputName name, void *ud);

/* 1 when the Python text of E needs `import math`. */
int size_py_uses_math(const SizeExpr *e);

#endif
