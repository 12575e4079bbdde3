/* arena.c - the bump allocator behind every compilation (see arena.h).
 *
 * Chunks start at 64 KiB (a small program stays small) and grow with the
 * compilation, to half of what it has used so far, up to 32 MiB.  From
 * 2 MiB on a chunk is mapped directly: its memory is known to be zero, so
 * it is not cleared again (issue 14: clearing and faulting in fresh memory
 * was a fifth of the time on 8 MB of Crisp).  (Transparent huge pages,
 * tried, cut the page faults 13 times but not the time.) */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "arena.h"
#include "strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct ArenaChunk {
    ArenaChunk *next;
    size_t size, off;
    size_t lim;        /* data[0..lim) is ready: all of a malloc'ed chunk; of
                          a mapped one, what was populated so far */
    int mapped;        /* mmap'ed (zero-filled), else malloc'ed */
    _Alignas(16) unsigned char data[];
};

#define ARENA_CHUNK (64 * 1024)
#define ARENA_MAP_FROM ((size_t)2 << 20)   /* a huge page */
/* Mapped chunks made while the arena holds less than this are advised to
 * the kernel as huge pages (MADV_HUGEPAGE): the arena fills its memory
 * densely, and a 2 MiB page is one fault where 4 KiB pages were 512 (issue
 * 14: the 1 MB program's system time 12 -> 4 ms, its CPU time a fifth
 * less).  Not past it: with every chunk advised, the 10 MB program spent
 * 0.04 to 1 s in the kernel compacting memory for more huge pages, against
 * 0.2 s with none (measured on a shared 24 GiB VM, THP "madvise"). */
/* Past this much, a program is not small: its next chunks are whole huge
 * pages, populated by madvise, rather than malloc'ed chunks faulted in a
 * 4 KiB page at a time (issue 14: 900 of the 1 MB program's 2,600 page
 * faults were the reader's, in the chunks from 256 KiB to 2 MiB).  So is
 * a chunk made for a block this large (a source file's text). */
#define ARENA_MAP_AFTER ((size_t)256 << 10)
#define ARENA_HUGE_UNTIL ((size_t)128 << 20)
#define ARENA_CHUNK_MAX ((size_t)32 << 20)
#define ARENA_POPULATE ((size_t)1 << 20) /* a mapped chunk's pages are faulted in this many at a time */
#define ARENA_DEFAULT_CAP ((size_t)4 << 30) /* 10 MB of Crisp needs about 1 GiB */

void arena_init(Arena *a) {
    memset(a, 0, sizeof *a);
}

static void free_chunk(ArenaChunk *c) {
    if (c->mapped) munmap(c, sizeof *c + c->size);
    else free(c);
}

void *os_pages_alloc(size_t size) {
    void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_POPULATE_WRITE
    /* its user (a hash table) touches every page: populated by one call,
       not faulted in one 4 KiB page at a time (issue 14) */
    madvise(p, size ? size : 1, MADV_POPULATE_WRITE);
#endif
    return p;
}

void os_pages_free(void *p, size_t size) {
    if (p) munmap(p, size ? size : 1);
}

void arena_free(Arena *a) {
    ArenaChunk *c = a->head;
    while (c) {
        ArenaChunk *n = c->next;
        free_chunk(c);
        c = n;
    }
    a->head = NULL;
    a->cur = a->end = NULL;
    a->used = 0;
    a->scopes = 0;
    memset(a->spare, 0, sizeof a->spare);
}

/* The bytes of head's data handed out so far. */
static size_t head_off(const Arena *a) {
    return a->head ? (size_t)(a->cur - a->head->data) : 0;
}

/* Make data[0..end) of mapped chunk c ready: its pages populated a window
 * at a time by one madvise, instead of one page fault per 4 KiB page
 * (issue 14: the faults were a fifth of the time).  Where the kernel
 * cannot (before Linux 5.14), the pages fault in as they are touched. */
static void chunk_ready(ArenaChunk *c, size_t end) {
#ifdef MADV_POPULATE_WRITE
    size_t total = sizeof *c + c->size, page = 4096;
    size_t from = (sizeof *c + c->lim) & ~(page - 1);
    size_t to = (sizeof *c + end + ARENA_POPULATE - 1) & ~(ARENA_POPULATE - 1);
    if (to > total) to = total;
    if (madvise((unsigned char *)c + from, to - from, MADV_POPULATE_WRITE) == 0) {
        c->lim = to - sizeof *c;
        return;
    }
#endif
    (void)end;
    c->lim = c->size;
}

void arena_set_cap(Arena *a, size_t cap) {
    a->cap = cap;
    size_t lim = cap ? cap : ARENA_DEFAULT_CAP;
    size_t under = a->used < lim ? lim - a->used : 0;
    if (a->end && (size_t)(a->end - a->cur) > under) a->end = a->cur + under;
}

/* A new chunk of at least `size` bytes, or NULL. */
static ArenaChunk *new_chunk(Arena *a, size_t size) {
    size_t want = a->used / 2;
    if (want > ARENA_CHUNK_MAX) want = ARENA_CHUNK_MAX;
    if (want < ARENA_CHUNK) want = ARENA_CHUNK;
    if (want < size) want = size;
    if (want < ARENA_MAP_FROM && (a->used >= ARENA_MAP_AFTER || size >= ARENA_MAP_AFTER)) want = ARENA_MAP_FROM;
    ArenaChunk *c = NULL;
    if (want >= ARENA_MAP_FROM && want <= SIZE_MAX - 2 * ARENA_MAP_FROM) {
        /* whole huge pages, header included */
        size_t total = (sizeof *c + want + ARENA_MAP_FROM - 1) & ~(ARENA_MAP_FROM - 1);
        void *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
#ifdef MADV_HUGEPAGE
            if (a->used < ARENA_HUGE_UNTIL) madvise(p, total, MADV_HUGEPAGE);
#endif
            c = p;
            c->mapped = 1;
            want = total - sizeof *c;
        }
    }
    if (!c) {
        c = calloc(1, sizeof *c + want); /* zero once, not per allocation */
        if (!c) return NULL;
        c->mapped = 0;
    }
    c->size = want;
    c->off = 0;
    c->lim = c->mapped ? 0 : want;
    if (a->head) a->head->off = head_off(a);
    c->next = a->head;
    a->head = c;
    a->cur = a->end = c->data; /* the caller sets the window */
    return c;
}

/* Set the fast path's window after serving from chunk c at `off`. */
static void set_window(Arena *a, ArenaChunk *c, size_t cap) {
    a->cur = c->data + c->off;
    size_t room = c->lim > c->off ? c->lim - c->off : 0;
    size_t under = a->used < cap ? cap - a->used : 0;
    a->end = a->cur + (room < under ? room : under);
}

/* Zero data[from..to) of `c`, which nothing uses any more: memory is
 * handed out zeroed.  A large stretch of a mapped chunk is given back to
 * the system instead (issue 14: the analysis' memory, taken back before
 * the emitters run, stayed resident, and the output text the emitters
 * build on the heap came on top of it): its pages, from the first whole
 * one to the end of what was populated, read as zero again and are
 * populated anew when the arena reaches them (chunk_ready). */
static void chunk_clear(ArenaChunk *c, size_t from, size_t to) {
    if (to <= from) return;
    if (c->mapped && to - from >= ARENA_POPULATE && to <= c->lim) {
        size_t page = 4096;
        size_t first = ((sizeof *c + from + page - 1) & ~(page - 1)) - sizeof *c;
        if (madvise(c->data + first, c->lim - first, MADV_DONTNEED) == 0) {
            memset(c->data + from, 0, first - from);
            c->lim = first;
            return;
        }
    }
    memset(c->data + from, 0, to - from);
}

/* The slow path of arena_alloc: the cap, a new chunk, pages to populate.
 * `size` is already rounded to mask + 1. */
void *arena_alloc_slow(Arena *a, size_t size, size_t mask) {
    size_t cap = a->cap ? a->cap : ARENA_DEFAULT_CAP;
    ArenaChunk *c = a->head;
    if (c) c->off = head_off(a);
    size_t off = c ? (c->off + mask) & ~mask : 0;
    size_t hard = cap <= SIZE_MAX / 2 ? cap + cap / 4 : SIZE_MAX;
    if (size > cap || a->used > cap - size) {
        a->exhausted = 1; /* past the cap: served up to 1.25 x it (arena.h) */
        if (size > hard || a->used > hard - size) {
            if (a->fail_jump) longjmp(*a->fail_jump, 1);
            return NULL;
        }
    }
    if (!c || off > c->size || c->size - off < size) {
        c = new_chunk(a, size);
        if (!c) {
            a->exhausted = 1;
            if (a->fail_jump) longjmp(*a->fail_jump, 1);
            return NULL;
        }
        off = 0;
    }
    if (off > c->lim || c->lim - off < size) chunk_ready(c, off + size);
    void *p = c->data + off;
    a->used += size + (off - c->off);
    c->off = off + size;
    set_window(a, c, cap);
    return p;
}

/* k when size is 2^k (16 <= size <= 2^39), else -1. */
static int block_class(size_t size) {
    if (size < 16 || (size & (size - 1))) return -1;
    int k = 0;
    while ((size_t)1 << k < size) k++;
    return k < 40 ? k : -1;
}

void *arena_alloc_block(Arena *a, size_t size) {
    int k = block_class(size);
    if (k >= 0 && a->spare[k] && !a->scopes) {
        void *p = a->spare[k];
        memcpy(&a->spare[k], p, sizeof(void *));
        memset(p, 0, size);
        return p;
    }
    return arena_alloc(a, size);
}

void arena_give_back(Arena *a, void *p, size_t size) {
    int k = block_class(size);
    if (!p || k < 0 || a->scopes) return; /* inside a scope: taken back at its end */
    memcpy(p, &a->spare[k], sizeof(void *));
    a->spare[k] = p;
}

ArenaMark arena_mark(const Arena *a) {
    ArenaMark m = {a->head, head_off(a)};
    return m;
}

ArenaMark arena_scope_begin(Arena *a) {
    a->scopes++;
    return arena_mark(a);
}

void arena_scope_keep(Arena *a) {
    if (a->scopes > 0) a->scopes--;
}

void arena_scope_end(Arena *a, ArenaMark m) {
    if (a->scopes > 0) a->scopes--;
    if (!a->head) return;
    size_t cap = a->cap ? a->cap : ARENA_DEFAULT_CAP;
    if (a->head != m.chunk) {
        /* chunks made inside the scope: the newest stays, empty, for the
           next scope (making and clearing one per scope was a quarter of
           the instructions), the others are freed */
        ArenaChunk *keep = a->head, *c = keep->next;
        size_t off = head_off(a);
        chunk_clear(keep, 0, off);
        a->used -= off;
        keep->off = 0;
        while (c && c != m.chunk) {
            ArenaChunk *n = c->next;
            a->used -= c->off;
            free_chunk(c);
            c = n;
        }
        keep->next = c;
        if (c && c->off > m.off) { /* the scope's start, in the chunk it began in */
            chunk_clear(c, m.off, c->off);
            a->used -= c->off - m.off;
            c->off = m.off;
        }
        set_window(a, keep, cap);
        return;
    }
    size_t now = head_off(a);
    if (now > m.off) {
        chunk_clear(a->head, m.off, now);
        a->used -= now - m.off;
    }
    a->head->off = m.off;
    set_window(a, a->head, cap);
}

int arena_since(const Arena *a, ArenaMark m, const void *p) {
    uintptr_t q = (uintptr_t)p; /* p may be from elsewhere: compared as numbers */
    for (const ArenaChunk *c = a->head; c; c = c->next) {
        uintptr_t d = (uintptr_t)c->data;
        int in = q >= d && q < d + (c == a->head ? head_off(a) : c->off);
        if (c == m.chunk) return in && q >= d + m.off;
        if (in) return 1;
    }
    return 0;
}

/* Texts need no 16-byte alignment: 8 (less padding, no aligning). */
char *arena_strndup(Arena *a, const char *s, size_t n) {
    char *p = arena_alloc8(a, n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *arena_strdup(Arena *a, const char *s) {
    size_t n = strlen(s);
    char *p = arena_alloc8(a, n + 1);
    if (p) memcpy(p, s, n + 1);
    return p;
}

char *arena_vprintf(Arena *a, const char *fmt, va_list ap) {
    /* most texts are short: printed once, into `tmp`, then copied */
    char tmp[256];
    size_t len;
    va_list ap2;
    va_copy(ap2, ap);
    int done = sb_format(tmp, sizeof tmp, &len, fmt, ap2) == 1;
    va_end(ap2);
    if (done) return arena_strndup(a, tmp, len);
    va_copy(ap2, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap2);
    va_end(ap2);
    if (n < 0) return arena_strdup(a, "");
    if ((size_t)n < sizeof tmp) return arena_strndup(a, tmp, (size_t)n);
    char *p = arena_alloc(a, (size_t)n + 1);
    if (!p) return NULL;
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *arena_printf(Arena *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *p = arena_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}

int arena_reserve(Arena *a, void **arr, int n, int more, int *cap, size_t elem) {
    if (n + more <= *cap) return 1;
    int nc = *cap ? *cap * 2 : 4; /* most arrays are short (issue 14) */
    while (nc < n + more) nc *= 2;
    void *p = arena_alloc(a, elem * (size_t)nc);
    if (!p) return 0;
    if (n) memcpy(p, *arr, elem * (size_t)n);
    *arr = p;
    *cap = nc;
    return 1;
}

void arena_push(Arena *a, void ***arr, int *n, int *cap, void *item) {
    if (arena_reserve(a, (void **)arr, *n, 1, cap, sizeof(void *))) (*arr)[(*n)++] = item;
}
