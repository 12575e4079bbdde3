/* arena.h - one bump allocator per compilation.
 *
 * Every node, string and table of a compilation lives in one Arena and is
 * released in one go by arena_free(); nothing is freed node by node.  An
 * allocation that would exceed the arena's byte cap returns NULL and sets
 * `exhausted`, so absurd inputs end in a diagnostic instead of an OOM kill. */
#ifndef CRISP_ARENA_H
#define CRISP_ARENA_H

#include <stdarg.h>
#include <stddef.h>

typedef struct ArenaChunk ArenaChunk;

typedef struct Arena {
    ArenaChunk *head;
    size_t used;      /* bytes handed out so far */
    size_t cap;       /* hard limit on `used` (0 = default 4 GiB) */
    int exhausted;    /* set once an allocation was refused */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
/* Zeroed memory, 16-byte aligned.  Returns NULL only when the cap is hit. */
void *arena_alloc(Arena *a, size_t size);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char *arena_vprintf(Arena *a, const char *fmt, va_list ap);
/* Append `item` to the growable pointer array (*arr, *n, *cap), doubling it
 * in the arena when full.  Out of memory: the item is dropped and
 * `exhausted` is set (callers check it once, at the end of a stage). */
void arena_push(Arena *a, void ***arr, int *n, int *cap, void *item);

#endif
