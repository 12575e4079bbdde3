/* strbuf.c - growable byte buffer (see strbuf.h). */
#include "strbuf.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(StrBuf *b) {
    memset(b, 0, sizeof *b);
}

void sb_free(StrBuf *b) {
    free(b->data);
    memset(b, 0, sizeof *b);
}

static int sb_reserve(StrBuf *b, size_t extra) {
    if (b->oom) return 0;
    if (b->len + extra + 1 <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->oom = 1;
        return 0;
    }
    b->data = p;
    b->cap = cap;
    return 1;
}

void sb_putn(StrBuf *b, const char *s, size_t n) {
    if (!sb_reserve(b, n)) return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void sb_putc(StrBuf *b, char c) {
    if (!b->oom && b->len + 2 <= b->cap) { /* room for it and the NUL */
        b->data[b->len++] = c;
        b->data[b->len] = 0;
        return;
    }
    sb_putn(b, &c, 1);
}

void sb_puts(StrBuf *b, const char *s) {
    sb_putn(b, s, strlen(s));
}

static void put_unsigned(StrBuf *b, unsigned long long v, int neg) {
    char d[24];
    int i = (int)sizeof d;
    do d[--i] = (char)('0' + v % 10); while ((v /= 10) != 0);
    if (neg) d[--i] = '-';
    sb_putn(b, d + i, sizeof d - (size_t)i);
}

static void put_signed(StrBuf *b, long long v) {
    put_unsigned(b, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v, v < 0);
}

/* The formats the emitters print with most, done here: text, %%, %s, %c,
 * %.*s and the decimal integers (%d %i %u with l, ll or z); 0 (and
 * nothing consumed of `ap`'s caller copy) on anything else, or on a NULL
 * string, which vsnprintf then prints its own way.  Issue 14: vsnprintf
 * was a seventh of crisp's time. */
static int fast_printf(StrBuf *b, const char *f, va_list ap) {
    while (*f) {
        const char *q = f;
        while (*q && *q != '%') q++;
        if (q > f) sb_putn(b, f, (size_t)(q - f));
        if (!*q) return 1;
        q++;
        int l = 0, z = 0;
        if (q[0] == '.' && q[1] == '*' && q[2] == 's') {
            int prec = va_arg(ap, int);
            const char *s = va_arg(ap, const char *);
            if (!s || prec < 0) return 0;
            size_t n = 0;
            while (n < (size_t)prec && s[n]) n++;
            sb_putn(b, s, n);
            f = q + 3;
            continue;
        }
        while (*q == 'l' && l < 2) l++, q++;
        if (!l && *q == 'z') z = 1, q++;
        switch (*q) {
        case '%':
            if (l || z) return 0;
            sb_putc(b, '%');
            break;
        case 's': {
            if (l || z) return 0;
            const char *s = va_arg(ap, const char *);
            if (!s) return 0;
            sb_puts(b, s);
            break;
        }
        case 'c':
            if (l || z) return 0;
            sb_putc(b, (char)va_arg(ap, int));
            break;
        case 'd':
        case 'i':
            if (z) put_signed(b, (long long)va_arg(ap, ptrdiff_t)); /* %zd: the signed size_t */
            else if (l == 2) put_signed(b, va_arg(ap, long long));
            else if (l == 1) put_signed(b, va_arg(ap, long));
            else put_signed(b, va_arg(ap, int));
            break;
        case 'u':
            if (z) put_unsigned(b, va_arg(ap, size_t), 0);
            else if (l == 2) put_unsigned(b, va_arg(ap, unsigned long long), 0);
            else if (l == 1) put_unsigned(b, va_arg(ap, unsigned long), 0);
            else put_unsigned(b, va_arg(ap, unsigned), 0);
            break;
        default:
            return 0;
        }
        f = q + 1;
    }
    return 1;
}

/* The common formats by fast_printf; any other, one vsnprintf into the
 * room already there, and a second, after growing the buffer, only when
 * the text did not fit (issue 14: measuring every text first, then
 * printing it, was a tenth of crisp's time). */
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap) {
    if (b->oom) return;
    size_t start = b->len;
    va_list ap2;
    va_copy(ap2, ap);
    int done = fast_printf(b, fmt, ap2);
    va_end(ap2);
    if (done || b->oom) return;
    b->len = start; /* undone: printed by vsnprintf instead */
    size_t room = b->cap > b->len ? b->cap - b->len : 0;
    va_copy(ap2, ap);
    int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        if (room) b->data[b->len] = 0;
        return;
    }
    if ((size_t)n < room) {
        b->len += (size_t)n;
        return;
    }
    if (room) b->data[b->len] = 0; /* as it was, if growing fails */
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
