/* test_core.c - unit tests of the core allocator and text buffer behind
 * issue 14's compile-speed work: arena_alloc8's alignment and packing,
 * zeroed memory across chunk boundaries and mapped chunks, the cap,
 * arena_mark / arena_since (how the macro expander tells a call's own
 * nodes from older ones), scopes whose memory is taken back at their end
 * (arena_scope_end), 8-byte source locations (core/srcfile.c), blocks
 * given back by growing hash tables, and sb_format / sb_printf / arena_printf, whose
 * common formats are done without vsnprintf: each compared with
 * vsnprintf's text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../../core/arena.h"
#include "../../core/node.h"
#include "../../core/strbuf.h"

static void test_alloc8_packs_nodes(void **state) {
    (void)state;
    Arena a;
    arena_init(&a);
    unsigned char *p = arena_alloc8(&a, sizeof(Node));
    unsigned char *q = arena_alloc8(&a, sizeof(Node));
    assert_int_equal((uintptr_t)p % 8, 0);
    assert_int_equal((uintptr_t)q % 8, 0);
    assert_int_equal(q - p, (sizeof(Node) + 7) / 8 * 8); /* not rounded to 16 */
    unsigned char *r = arena_alloc(&a, 24);               /* 16-aligned again after an 8 */
    assert_int_equal((uintptr_t)r % 16, 0);
    assert_true(r >= q + sizeof(Node));
    arena_free(&a);
}

static void test_alloc_zeroed_across_chunks(void **state) {
    (void)state;
    Arena a;
    arena_init(&a);
    /* past 2 MiB the chunks are mapped and populated a window at a time */
    for (int i = 0; i < 200000; i++) {
        size_t n = (size_t)(i % 7) * 8 + 8;
        unsigned char *p = i % 2 ? arena_alloc8(&a, n) : arena_alloc(&a, n);
        assert_non_null(p);
        for (size_t k = 0; k < n; k++)
            if (p[k]) fail_msg("allocation %d byte %zu not zero", i, k);
        memset(p, 0xab, n);
    }
    unsigned char *big = arena_alloc(&a, (size_t)5 << 20); /* larger than any chunk so far */
    assert_non_null(big);
    assert_int_equal(big[0] | big[((size_t)5 << 20) - 1], 0);
    big[((size_t)5 << 20) - 1] = 1;
    arena_free(&a);
}

static void test_cap(void **state) {
    (void)state;
    Arena a;
    arena_init(&a);
    arena_set_cap(&a, 1 << 20);
    assert_non_null(arena_alloc8(&a, 1000));
    assert_false(a.exhausted);
    assert_non_null(arena_alloc(&a, (1 << 20) + 16)); /* past the cap: served, exhausted */
    assert_true(a.exhausted);
    assert_null(arena_alloc(&a, 1 << 20)); /* past 1.25 x the cap: refused */
    arena_free(&a);
}

static void test_mark_since(void **state) {
    (void)state;
    Arena a;
    arena_init(&a);
    ArenaMark empty = arena_mark(&a);
    void *old = arena_alloc8(&a, 72);
    assert_true(arena_since(&a, empty, old));
    ArenaMark m = arena_mark(&a);
    void *newer = arena_alloc8(&a, 72);
    assert_false(arena_since(&a, m, old));
    assert_true(arena_since(&a, m, newer));
    /* across new chunks */
    void *last = NULL;
    for (int i = 0; i < 100000; i++) last = arena_alloc(&a, 64);
    assert_true(arena_since(&a, m, last));
    assert_false(arena_since(&a, m, old));
    int local = 0;
    assert_false(arena_since(&a, m, &local)); /* not the arena's */
    arena_free(&a);
}

/* Blocks given back are handed out again, zeroed; other sizes are not kept. */
static void test_blocks_given_back(void **state) {
    (void)state;
    Arena a;
    arena_init(&a);
    unsigned char *p = arena_alloc_block(&a, 256);
    memset(p, 0x5a, 256);
    arena_give_back(&a, p, 256);
    size_t used = a.used;
    unsigned char *q = arena_alloc_block(&a, 256);
    assert_ptr_equal(p, q);
    assert_int_equal(a.used, used);
    for (int i = 0; i < 256; i++) assert_int_equal(q[i], 0);
    assert_ptr_not_equal(arena_alloc_block(&a, 256), p); /* taken: a new one */
    unsigned char *odd = arena_alloc_block(&a, 96);
    arena_give_back(&a, odd, 96);                          /* not a power of two: dropped */
    assert_ptr_not_equal(arena_alloc_block(&a, 96), odd);
    arena_free(&a);
}

/* arena_scope_end takes back what the scope allocated, also past chunk
 * boundaries, and hands it out again zeroed; blocks given back inside a
 * scope are dropped; what came before the scope stays. */
static void test_scope(void **state) {
    (void)state;
    Arena a;
    arena_init(&a);
    long *keep = arena_alloc(&a, sizeof *keep);
    *keep = 42;
    size_t used = a.used;
    for (int round = 0; round < 3; round++) {
        ArenaMark m = arena_scope_begin(&a);
        unsigned char *first = arena_alloc8(&a, 64);
        assert_true(arena_since(&a, m, first));
        for (int i = 0; i < 64; i++) assert_int_equal(first[i], 0);
        memset(first, 0xAB, 64);
        /* past a chunk boundary, and a mapped chunk, on the third round */
        size_t big = round == 2 ? (size_t)5 << 20 : 100000;
        unsigned char *b = arena_alloc(&a, big);
        assert_non_null(b);
        memset(b, 0xCD, 4096);
        void *blk = arena_alloc_block(&a, 256);
        arena_give_back(&a, blk, 256); /* inside a scope: not kept */
        assert_null(a.spare[8]);
        arena_scope_end(&a, m);
        assert_int_equal(a.used, used);
        assert_int_equal(*keep, 42);
        unsigned char *again = arena_alloc8(&a, 64);
        assert_false(arena_since(&a, m, keep));
        for (int i = 0; i < 64; i++) assert_int_equal(again[i], 0);
        used = a.used;
    }
    arena_free(&a);
}

/* A source location is 8 bytes: its file is a number in the process-wide
 * table (core/srcfile.c), the same for the same file; a column past
 * SRCLOC_MAX_COL is given as SRCLOC_MAX_COL; a kept file keeps its number. */
static void test_srcloc(void **state) {
    (void)state;
    assert_int_equal(sizeof(SrcLoc), 8);
    assert_int_equal(sizeof(Node), 64);
    static SrcFile f1 = {"one.crisp", "(a)", 3}, f2 = {"two.crisp", "(b)", 3};
    SrcLoc a = srcloc(&f1, 12, 7), b = srcloc(&f2, 1, 1);
    assert_ptr_equal(srcloc_file(a), &f1);
    assert_ptr_equal(srcloc_file(b), &f2);
    assert_int_equal(a.line, 12);
    assert_int_equal(a.col, 7);
    assert_int_equal(srcloc(&f1, 3, 4).fid, a.fid);
    assert_int_not_equal(a.fid, b.fid);
    assert_int_equal(srcloc(&f1, 1, SRCLOC_MAX_COL + 100).col, SRCLOC_MAX_COL);
    SrcLoc none = {0, 0, 0};
    assert_null(srcloc_file(none));
    assert_null(srcloc_file(srcloc(NULL, 1, 1)));
    /* far more files than the table holds: a kept one stays known */
    srcfile_keep(&f1);
    static SrcFile many[SRCFILE_MAX + 10];
    for (int i = 0; i < SRCFILE_MAX + 10; i++) {
        many[i].name = "m.crisp";
        assert_int_not_equal(srcfile_id(&many[i]), 0);
    }
    assert_ptr_equal(srcloc_file(a), &f1);
    assert_ptr_equal(srcloc_file(srcloc(&many[SRCFILE_MAX + 9], 1, 1)), &many[SRCFILE_MAX + 9]);
}

/* sb_printf and arena_printf print what vsnprintf prints. */
static void check_format(const char *fmt, ...) {
    char want[512];
    va_list ap, ap2, ap3;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    va_copy(ap3, ap);
    int n = vsnprintf(want, sizeof want, fmt, ap);
    assert_true(n >= 0 && n < (int)sizeof want);
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "x");
    sb_vprintf(&b, fmt, ap2);
    assert_int_equal(b.len, 1 + (size_t)n);
    assert_memory_equal(b.data + 1, want, (size_t)n);
    assert_int_equal(b.data[b.len], 0);
    sb_free(&b);
    Arena a;
    arena_init(&a);
    char *s = arena_vprintf(&a, fmt, ap3);
    assert_memory_equal(s, want, (size_t)n + 1);
    arena_free(&a);
    va_end(ap);
    va_end(ap2);
    va_end(ap3);
}

/* arena_reserve keeps the elements, makes room for several at once and
 * says when the arena is out of memory (leaving the array as it was). */
static void test_reserve(void **state) {
    (void)state;
    Arena a;
    arena_init(&a);
    struct pair { long x, y; } *v = NULL;
    int n = 0, cap = 0;
    for (int i = 0; i < 100; i++) {
        assert_true(arena_reserve(&a, (void **)&v, n, 2, &cap, sizeof *v));
        assert_true(n + 2 <= cap);
        v[n].x = i, v[n].y = -i, n++;
    }
    for (int i = 0; i < 100; i++) assert_true(v[i].x == i && v[i].y == -i);
    void *before = v;
    int cap_before = cap;
    arena_set_cap(&a, 1); /* far past 1.25 x the cap: every allocation refused */
    assert_false(arena_reserve(&a, (void **)&v, n, cap + 1 - n, &cap, sizeof *v));
    assert_ptr_equal(v, before);
    assert_int_equal(cap, cap_before);
    arena_free(&a);
}

static void test_format_like_vsnprintf(void **state) {
    (void)state;
    check_format("plain text");
    check_format("");
    check_format("%s and %s", "one", "");
    check_format("%d %i %u", INT_MIN, -7, UINT_MAX);
    check_format("%ld %lu %lld %llu", LONG_MIN, ULONG_MAX, LLONG_MIN, ULLONG_MAX);
    check_format("%zu %zd", (size_t)123456789, (ptrdiff_t)-42);
    check_format("100%% %c%c", 'o', 'k');
    check_format("[%.*s] [%.*s]", 3, "abcdef", 10, "ab");
    /* not done by sb_format: vsnprintf's own */
    check_format("%5d|%-4s|%x|%.3f|%g", 42, "ab", 255u, 1.5, 0.1);
    check_format("%s", (const char *)NULL);
    check_format("%08.3f %p", 3.25, (void *)0);
    char buf[8];
    size_t len;
    va_list none;
    memset(&none, 0, sizeof none);
    assert_int_equal(sb_format(buf, sizeof buf, &len, "too long for it", none), -1);
}

/* Long texts grow the buffer (sb_format retried, or vsnprintf's second
 * pass). */
static void test_printf_grows(void **state) {
    (void)state;
    static char big[5000];
    memset(big, 'q', sizeof big - 1);
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < 3; i++) {
        sb_printf(&b, "<%s:%d>", big, i);
        sb_printf(&b, "%6.2f", 1.0);
    }
    assert_int_equal(b.len, 3 * (sizeof big - 1 + 4 + 6));
    assert_int_equal(strlen(b.data), b.len);
    sb_free(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc8_packs_nodes),
        cmocka_unit_test(test_alloc_zeroed_across_chunks),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_mark_since),
        cmocka_unit_test(test_blocks_given_back),
        cmocka_unit_test(test_reserve),
        cmocka_unit_test(test_scope),
        cmocka_unit_test(test_srcloc),
        cmocka_unit_test(test_format_like_vsnprintf),
        cmocka_unit_test(test_printf_grows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
