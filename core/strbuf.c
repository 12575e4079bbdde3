/* strbuf.c - growable byte buffer (see strbuf.h). */
#define _GNU_SOURCE /* mremap */
#include "strbuf.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* From this capacity on (a power of two times 256, so whole pages) a
 * buffer is mapped from the system, grown by mremap, and each growth's
 * pages are populated by one madvise: an emitted file of megabytes was
 * otherwise faulted in a 4 KiB page at a time, a quarter of the 1 MB
 * program's page faults (issue 14).  Below it, malloc. */
#define SB_MAP_FROM ((size_t)128 << 10)

void sb_init(StrBuf *b) {
    memset(b, 0, sizeof *b);
}

void sb_free(StrBuf *b) {
    if (b->cap >= SB_MAP_FROM) munmap(b->data, b->cap);
    else free(b->data);
    memset(b, 0, sizeof *b);
}

/* b's storage grown to `cap` bytes (b->len of them kept), or NULL. */
static char *sb_regrow(StrBuf *b, size_t cap) {
    if (cap < SB_MAP_FROM) return realloc(b->data, cap);
    char *p;
    if (b->cap >= SB_MAP_FROM) {
        p = mremap(b->data, b->cap, cap, MREMAP_MAYMOVE);
        if (p == MAP_FAILED) return NULL;
    } else {
        p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
        if (b->len) memcpy(p, b->data, b->len + 1);
        free(b->data);
    }
#ifdef MADV_POPULATE_WRITE
    size_t from = b->cap >= SB_MAP_FROM ? b->cap : 0;
    madvise(p + from, cap - from, MADV_POPULATE_WRITE); /* else faulted in as touched */
#endif
    return p;
}

static int sb_reserve(StrBuf *b, size_t extra) {
    if (b->oom) return 0;
    if (b->len + extra + 1 <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *p = sb_regrow(b, cap);
    if (!p) {
        b->oom = 1;
        return 0;
    }
    b->data = p;
    b->cap = cap;
    return 1;
}

void sb_putn_grow(StrBuf *b, const char *s, size_t n) {
    if (!sb_reserve(b, n)) return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

/* Two digits a step (issue 14: a digit count by divisions and then a
 * digit per division was ~130 instructions for the line number of every
 * function's comment in the emitted C). */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                  "8081828384858687888990919293949596979899";

/* v's n digits into d[0..n), last pair first. */
static void put_digits(char *d, int n, unsigned long long v) {
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        n -= 2;
        d[n] = digit_pairs[2 * r];
        d[n + 1] = digit_pairs[2 * r + 1];
    }
    if (v >= 10) {
        d[0] = digit_pairs[2 * v];
        d[1] = digit_pairs[2 * v + 1];
    } else {
        d[0] = (char)('0' + v);
    }
}

void sb_putull(StrBuf *b, unsigned long long v) {
    int n = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5 : 0;
    if (!n) {
        n = 6;
        for (unsigned long long t = v / 1000000; t; t /= 10) n++;
    }
    if (b->oom || b->cap - b->len <= (size_t)n) { /* no room for it and the NUL: a copy */
        char d[24];
        put_digits(d, n, v);
        sb_putn_grow(b, d, (size_t)n);
        return;
    }
    char *d = b->data + b->len; /* written in place */
    b->len += (size_t)n;
    d[n] = 0;
    put_digits(d, n, v);
}

void sb_putll(StrBuf *b, long long v) {
    if (v < 0) {
        sb_putc(b, '-');
        sb_putull(b, 0ULL - (unsigned long long)v);
    } else {
        sb_putull(b, (unsigned long long)v);
    }
}

void sb_puts(StrBuf *b, const char *s) {
    /* the texts are mostly short names and operators, for which strlen and
       memcpy cost more than the copy (issue 14): while there is room for
       32 bytes and the NUL, copied with the NUL, four bytes a round, the
       end tested per byte; the rest, if any, the usual way */
    if (!b->oom && b->cap - b->len > 32) {
        char *d = b->data + b->len;
        for (size_t i = 0; i < 32; i += 4) {
            if (!(d[i] = s[i])) {
                b->len += i;
                return;
            }
            if (!(d[i + 1] = s[i + 1])) {
                b->len += i + 1;
                return;
            }
            if (!(d[i + 2] = s[i + 2])) {
                b->len += i + 2;
                return;
            }
            if (!(d[i + 3] = s[i + 3])) {
                b->len += i + 3;
                return;
            }
        }
        b->len += 32;
        d[32] = 0;
        s += 32;
    }
    sb_putn_grow(b, s, strlen(s));
}

/* A fixed buffer being filled by sb_format; `full` once something did not
 * fit (one byte is kept for the NUL). */
typedef struct Out {
    char *p;
    size_t n, cap;
    int full;
} Out;

static void out_putn(Out *o, const char *s, size_t n) {
    if (o->full || n >= o->cap - o->n) {
        o->full = 1;
        return;
    }
    memcpy(o->p + o->n, s, n);
    o->n += n;
}

static void out_unsigned(Out *o, unsigned long long v, int neg) {
    char d[24];
    int i = (int)sizeof d;
    do d[--i] = (char)('0' + v % 10); while ((v /= 10) != 0);
    if (neg) d[--i] = '-';
    out_putn(o, d + i, sizeof d - (size_t)i);
}

static void out_signed(Out *o, long long v) {
    out_unsigned(o, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v, v < 0);
}

int sb_format(char *buf, size_t cap, size_t *len, const char *f, va_list ap) {
    Out o = {buf, 0, cap, cap == 0};
    while (*f && !o.full) {
        /* the text up to the next directive, copied as it is scanned */
        const char *q = f;
        char *d = o.p + o.n, *end = o.p + o.cap - 1; /* the NUL's byte */
        while (*q && *q != '%' && d < end) *d++ = *q++;
        o.n = (size_t)(d - o.p);
        if (*q && *q != '%') {
            o.full = 1;
            break;
        }
        if (!*q) break;
        q++;
        int l = 0, z = 0;
        if (q[0] == '.' && q[1] == '*' && q[2] == 's') {
            int prec = va_arg(ap, int);
            const char *s = va_arg(ap, const char *);
            if (!s || prec < 0) return 0;
            size_t n = 0;
            while (n < (size_t)prec && s[n]) n++;
            out_putn(&o, s, n);
            f = q + 3;
            continue;
        }
        while (*q == 'l' && l < 2) l++, q++;
        if (!l && *q == 'z') z = 1, q++;
        switch (*q) {
        case '%':
            if (l || z) return 0;
            out_putn(&o, "%", 1);
            break;
        case 's': {
            if (l || z) return 0;
            const char *s = va_arg(ap, const char *);
            if (!s) return 0;
            out_putn(&o, s, strlen(s));
            break;
        }
        case 'c': {
            if (l || z) return 0;
            char c = (char)va_arg(ap, int);
            out_putn(&o, &c, 1);
            break;
        }
        case 'd':
        case 'i':
            if (z) out_signed(&o, (long long)va_arg(ap, ptrdiff_t)); /* %zd: the signed size_t */
            else if (l == 2) out_signed(&o, va_arg(ap, long long));
            else if (l == 1) out_signed(&o, va_arg(ap, long));
            else out_signed(&o, va_arg(ap, int));
            break;
        case 'u':
            if (z) out_unsigned(&o, va_arg(ap, size_t), 0);
            else if (l == 2) out_unsigned(&o, va_arg(ap, unsigned long long), 0);
            else if (l == 1) out_unsigned(&o, va_arg(ap, unsigned long), 0);
            else out_unsigned(&o, va_arg(ap, unsigned), 0);
            break;
        default:
            return 0;
        }
        f = q + 1;
    }
    if (o.full) return -1;
    buf[o.n] = 0;
    *len = o.n;
    return 1;
}

/* The common formats by sb_format, straight into the buffer (grown and
 * retried when they did not fit); any other, one vsnprintf into the room
 * already there, and a second, after growing the buffer, only when the
 * text did not fit (issue 14: vsnprintf, measuring every text first and
 * then printing it, was a seventh of crisp's time). */
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap) {
    va_list ap2;
    for (;;) {
        if (b->oom) return;
        size_t room = b->cap > b->len ? b->cap - b->len : 0, n = 0;
        int r = -1;
        if (room > 1) {
            va_copy(ap2, ap);
            r = sb_format(b->data + b->len, room, &n, fmt, ap2);
            va_end(ap2);
        }
        if (r == 1) {
            b->len += n;
            return;
        }
        if (room) b->data[b->len] = 0; /* as it was */
        if (r == 0) break;
        if (!sb_reserve(b, room > 64 ? 2 * room : 128)) return;
    }
    size_t room = b->cap - b->len;
    va_copy(ap2, ap);
    int n = vsnprintf(b->data + b->len, room, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        b->data[b->len] = 0;
        return;
    }
    if ((size_t)n < room) {
        b->len += (size_t)n;
        return;
    }
    b->data[b->len] = 0; /* as it was, if growing fails */
    if (!sb_reserve(b, (size_t)n)) return;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void sb_printf(StrBuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

const char *sb_cstr(StrBuf *b) {
    return b->data ? b->data : "";
}
