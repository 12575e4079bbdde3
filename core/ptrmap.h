/* ptrmap.h - a map from pointers to pointers, in the compilation's arena.
 *
 * The stages key side tables by node identity: the expander remembers the
 * expansion of each macro call (for --dump=expand) and the position of each
 * top-level form, the checker the expansions it made per function.  Open
 * addressing, grown by doubling; nothing is removed, but a map that dies
 * (a function's, once the function is checked) gives its table back to the
 * arena for the next one (ptrmap_release), or is emptied in place to serve
 * the next function itself (ptrmap_clear). */
#ifndef CRISP_PTRMAP_H
#define CRISP_PTRMAP_H

#include "arena.h"

typedef struct PtrMapEnt {
    const void *key;
    void *val;
} PtrMapEnt;

typedef struct PtrMap {
    PtrMapEnt *ents;
    int n, cap;  /* cap is 0 or a power of two */
} PtrMap;

/* The value stored under `key`, or NULL. */
void *ptrmap_get(const PtrMap *m, const void *key);
/* Store `val` under `key` (replacing).  Returns 0 when out of memory. */
int ptrmap_put(Arena *a, PtrMap *m, const void *key, void *val);

/* Make room for `n` entries in all (a table whose size is known: no
 * chain of doubled tables left behind).  Returns 0 when out of memory. */
int ptrmap_reserve(Arena *a, PtrMap *m, int n);
/* The value slot of `key`, made holding NULL when it is not there; valid
 * until the next insertion.  NULL when out of memory. */
void **ptrmap_slot(Arena *a, PtrMap *m, const void *key);
/* Give m's table back to the arena (arena_give_back: the next table of its
 * size takes it); m is then empty.  Nothing may refer to the table. */
void ptrmap_release(Arena *a, PtrMap *m);
/* The map emptied in place, its table kept (zeroed) for the next use: a
 * small table reused costs one memset, not a release and a new block. */
void ptrmap_clear(PtrMap *m);

#endif
