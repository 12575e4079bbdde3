/* strmap.h - a map from strings to pointers, in the compilation's arena.
 *
 * The checker's symbol tables (globals, functions by name, the C names
 * taken) are looked up once per use; with lists, checking grew
 * quadratically with the program (issue 14).  Open addressing, FNV-1a,
 * grown by doubling; keys are not copied (they live in the arena too). */
#ifndef CRISP_STRMAP_H
#define CRISP_STRMAP_H

#include <stdint.h>

#include "arena.h"

typedef struct StrMapEnt {
    const char *key;
    void *val;
} StrMapEnt;

typedef struct StrMap {
    StrMapEnt *ents;
    int n, cap;  /* cap is 0 or a power of two */
} StrMap;

/* The value stored under `key`, or NULL. */
void *strmap_get(const StrMap *m, const char *key);
/* The hash of every string-keyed table (FNV-1a, a byte at a time), its
 * steps apart for code that hashes a name while it scans it.  Tables that
 * share keys with a StrMap (the C names' tables) must hash the same. */
#define STRMAP_HASH0 2166136261u
static inline uint32_t strmap_hash_step(uint32_t h, unsigned char ch) {
    return (h ^ ch) * 16777619u;
}
static inline uint32_t strmap_hash(const char *key) {
    uint32_t h = STRMAP_HASH0;
    for (; *key; key++) h = strmap_hash_step(h, (unsigned char)*key);
    return h;
}
/* strmap_get with the key's hash made by strmap_hash (a key looked up in
 * several maps, or many times, is hashed once; inline: the checker asks it
 * for every local's name, issue 14).  Keys compared in place, as
 * strmap.c's are. */
static inline void *strmap_get_hashed(const StrMap *m, const char *key, uint32_t hash) {
    if (!m->cap) return NULL;
    uint32_t mask = (uint32_t)m->cap - 1;
    for (uint32_t j = hash & mask; m->ents[j].key; j = (j + 1) & mask) {
        const char *a = m->ents[j].key, *b = key;
        if (a == b) return m->ents[j].val;
        while (*a && *a == *b) a++, b++;
        if (*a == *b) return m->ents[j].val;
    }
    return NULL;
}
/* Store `val` under `key` (replacing).  Returns 0 when out of memory. */
int strmap_put(Arena *a, StrMap *m, const char *key, void *val);

/* The value slot of `key`, made holding NULL when it is not there (one
 * probe for a read and a write); valid until the next insertion.  NULL
 * when out of memory. */
void **strmap_slot(Arena *a, StrMap *m, const char *key);

/* The map is dead (a function's table after it was checked): its array
 * goes back to the arena for the next table of its size; `m` is empty. */
void strmap_release(Arena *a, StrMap *m);

/* The map emptied in place, its array kept (zeroed) for the next use: a
 * small table reused costs one memset, not a release and a new block. */
void strmap_clear(StrMap *m);

/* Make room for `n` entries in all (a table whose size is known: no
 * chain of doubled tables left behind).  Returns 0 when out of memory. */
int strmap_reserve(Arena *a, StrMap *m, int n);

#endif
