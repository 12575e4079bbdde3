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
    unsigned char *cur, *end; /* the fast path: [cur, end) of the current
                                 chunk is ready (zero), and under the cap;
                                 cur is 8-byte aligned */
    ArenaChunk *head;
    size_t used;      /* bytes handed out so far */
    size_t cap;       /* limit on `used` (0 = default 4 GiB); NULL past 1.25 x cap;
                         set it with arena_set_cap once allocations were made */
    int exhausted;    /* set once `used` passed the cap, or malloc failed */
    jmp_buf *fail_jump; /* set: an allocation that would return NULL longjmps
                           here instead (stages that do not check every
                           allocation: the emitters; src/compile.c) */
    void *spare[40];  /* blocks of 2^k bytes given back (arena_give_back) */
    int scopes;       /* arena_scope_begin calls not ended yet */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
/* Change the cap (the fast path's window is cut to it). */
void arena_set_cap(Arena *a, size_t cap);
/* Zeroed memory, 16-byte aligned.  Returns NULL only past 1.25 x the cap
 * (or when malloc fails); `exhausted` is set from the cap on. */
static inline void *arena_alloc(Arena *a, size_t size);
/* The same, 8-byte aligned (and rounded up to 8 bytes, not 16): for
 * nodes, pointer arrays and texts (arena_strdup), of which a compilation
 * makes millions. */
static inline void *arena_alloc8(Arena *a, size_t size);
/* Their slow path (a new chunk, pages to populate, the cap). */
void *arena_alloc_slow(Arena *a, size_t size, size_t mask);
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
/* Zeroed pages straight from the system for a large table that dies
 * early (the reader's spellings), and their release: malloc would keep a
 * freed block of that size in its heap and raise the size from which it
 * maps blocks, so that later large buffers (the .cl text) stay resident
 * after they are outgrown (issue 14: 7 MiB at the 10 MB program's peak).
 * The pages are populated at once, their user touching them all.  NULL
 * when out of memory. */
void *os_pages_alloc(size_t size);
void os_pages_free(void *p, size_t size);

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

/* A stretch of work whose allocations all die at its end (the emitter's
 * per-function tables and texts, issue 14): arena_scope_end(a, m) takes
 * back everything handed out since m = arena_scope_begin(a), zeroed again
 * for its next use, so that memory serves the next stretch instead of
 * adding to the compilation's peak.  Nothing allocated inside may be
 * referred to after the end.  Inside a scope, blocks are neither given
 * back nor taken from the spare lists (arena_alloc_block).  Scopes nest
 * like parentheses. */
ArenaMark arena_scope_begin(Arena *a);
void arena_scope_end(Arena *a, ArenaMark m);
/* End the innermost scope keeping what it allocated. */
void arena_scope_keep(Arena *a);

/* Append `item` to the growable pointer array (*arr, *n, *cap), doubling it
 * in the arena when full.  Out of memory: the item is dropped and
 * `exhausted` is set (callers check it once, at the end of a stage). */
void arena_push(Arena *a, void ***arr, int *n, int *cap, void *item);

/* Make room for `more` elements of `elem` bytes after the first `n` of the
 * growable array (*arr, *cap), doubling it in the arena as needed: 1, or 0
 * when out of memory (the array is unchanged).  arena_push is this for an
 * array of pointers. */
int arena_reserve(Arena *a, void **arr, int n, int more, int *cap, size_t elem);

/* The bump itself, inline (issue 14: a compilation allocates about 30
 * times per line of Crisp, and the out-of-line version with its cap
 * checks was a twentieth of the instructions): `end` already accounts
 * for the cap, so the fast path is one comparison. */
static inline void *arena_alloc_in_(Arena *a, size_t size, size_t mask) {
    size = (size + mask) & ~mask;
    if (size == 0) size = mask + 1;
    unsigned char *p = (unsigned char *)(((size_t)a->cur + mask) & ~mask);
    if (p <= a->end && (size_t)(a->end - p) >= size) {
        a->used += size + (size_t)(p - a->cur);
        a->cur = p + size;
        return p;
    }
    return arena_alloc_slow(a, size, mask);
}

static inline void *arena_alloc(Arena *a, size_t size) {
    return arena_alloc_in_(a, size, 15);
}

/* cur is always 8-byte aligned (every size is rounded to 8 or 16), so an
 * 8-byte allocation needs no aligning: the window's room is the test. */
static inline void *arena_alloc8(Arena *a, size_t size) {
    size = (size + 7) & ~(size_t)7;
    if (size == 0) size = 8;
    if ((size_t)(a->end - a->cur) >= size) {
        unsigned char *p = a->cur;
        a->used += size;
        a->cur = p + size;
        return p;
    }
    return arena_alloc_slow(a, size, 7);
}

#endif
