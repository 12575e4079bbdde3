/* arena.h - one bump allocator per compilation.
 *
 * Every node, string and table of a compilation lives in one Arena and is
 * released in one go by arena_free(); nothing is freed node by node.  The
 * byte cap is a limit in two steps, so absurd inputs end in a diagnostic
 * instead of an OOM kill: an allocation past `cap` sets `exhausted` but is
 * still served, so the stage at work finishes its current form with real
 * memory and stops at its next check of `exhausted` (out of memory is then
 * reported as such, core/diag.c); only a quarter past the cap, or when
 * malloc fails, does an allocation return NULL. */
#ifndef CRISP_ARENA_H
#define CRISP_ARENA_H

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>

typedef struct ArenaChunk ArenaChunk;

typedef struct Arena {
    ArenaChunk *head;
    size_t used;      /* bytes handed out so far */
    size_t cap;       /* limit on `used` (0 = default 4 GiB); NULL past 1.25 x cap */
    int exhausted;    /* set once `used` passed the cap, or malloc failed */
    jmp_buf *fail_jump; /* set: an allocation that would return NULL longjmps
                           here instead (stages that do not check every
                           allocation: the emitters; src/compile.c) */
    void *spare[40];  /* blocks of 2^k bytes given back (arena_give_back) */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
/* Zeroed memory, 16-byte aligned.  Returns NULL only past 1.25 x the cap
 * (or when malloc fails); `exhausted` is set from the cap on. */
void *arena_alloc(Arena *a, size_t size);
/* The same, 8-byte aligned (and rounded up to 8 bytes, not 16): for
 * nodes and pointer arrays, of which a compilation makes millions. */
void *arena_alloc8(Arena *a, size_t size);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char *arena_vprintf(Arena *a, const char *fmt, va_list ap);
/* Hash tables grow by doubling, and most are per function: the old
 * table of one is given back when it grows (nothing may refer to it any
 * more), and arena_alloc_block hands such blocks out again, zeroed, before
 * taking new memory (issue 14: the old tables were a tenth of the memory).
 * Only blocks of 2^k bytes are kept; other sizes are plain arena_alloc. */
void *arena_alloc_block(Arena *a, size_t size);
void arena_give_back(Arena *a, void *p, size_t size);

/* A point in the arena's history: arena_since(a, m, p) says whether `p`
 * was handed out after arena_mark(a) returned m (p must come from `a`, or
 * be memory `a` never handed out).  Cheap: it looks only at the chunks made
 * since the mark.  The macro expander uses it to tell the nodes a macro
 * call just made (its own to change) from older ones (macros/expand.c). */
typedef struct ArenaMark {
    const ArenaChunk *chunk;
    size_t off;
} ArenaMark;
ArenaMark arena_mark(const Arena *a);
int arena_since(const Arena *a, ArenaMark m, const void *p);

/* Append `item` to the growable pointer array (*arr, *n, *cap), doubling it
 * in the arena when full.  Out of memory: the item is dropped and
 * `exhausted` is set (callers check it once, at the end of a stage). */
void arena_push(Arena *a, void ***arr, int *n, int *cap, void *item);

/* Make room for `more` elements of `elem` bytes after the first `n` of the
 * growable array (*arr, *cap), doubling it in the arena as needed: 1, or 0
 * when out of memory (the array is unchanged).  arena_push is this for an
 * array of pointers. */
int arena_reserve(Arena *a, void **arr, int n, int more, int *cap, size_t elem);

#endif
