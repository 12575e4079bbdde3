/* shake.h - --tree-shaking over a checked Program (shake.c). */
#ifndef CRISP_SHAKE_H
#define CRISP_SHAKE_H

#include "../core/strbuf.h"
#include "../types/check.h"

/* A copy of `p` holding only what its kernels use; the names of the
 * functions kept and of the functions and const-vecs left out are
 * appended to `kept` and `shaken` as JSON strings ("a", "b").  NULL when
 * out of memory. */
Program *tree_shake(Arena *a, const Program *p, StrBuf *kept, StrBuf *shaken);

#endif
