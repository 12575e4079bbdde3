/* strbuf.h - a growable byte buffer (heap-backed, freed by the owner).
 * Used for emitted files, which must be complete in memory before they are
 * written, so an error never leaves a half-written output file. */
#ifndef CRISP_STRBUF_H
#define CRISP_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

typedef struct StrBuf {
    char *data;
    size_t len, cap;
    int oom;  /* an allocation failed; contents are truncated */
} StrBuf;

void sb_init(StrBuf *b);
void sb_free(StrBuf *b);
void sb_puts(StrBuf *b, const char *s);
/* sb_putn's and sb_putc's way when the buffer must grow (or is out of
 * memory). */
void sb_putn_grow(StrBuf *b, const char *s, size_t n);
/* A decimal integer, as printf's %lld and %llu print it. */
void sb_putll(StrBuf *b, long long v);
void sb_putull(StrBuf *b, unsigned long long v);

/* The emitters' most frequent calls, inline while the text fits the room
 * there is (issue 14: a call each, and a format interpreted each, was a
 * third of the OpenCL C emitter's instructions). */
static inline void sb_putn(StrBuf *b, const char *s, size_t n) {
    if (b->len + n < b->cap && !b->oom) { /* room for it and the NUL */
        char *d = b->data + b->len;
        memcpy(d, s, n); /* a few moves when n is a constant */
        b->len += n;
        d[n] = 0;
        return;
    }
    sb_putn_grow(b, s, n);
}

static inline void sb_putc(StrBuf *b, char c) {
    if (b->len + 1 < b->cap && !b->oom) {
        b->data[b->len++] = c;
        b->data[b->len] = 0;
        return;
    }
    sb_putn_grow(b, &c, 1);
}

/* A string literal: its length known when compiled. */
#define SB_LIT(b, lit) sb_putn((b), "" lit, sizeof(lit) - 1)
void sb_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap);
/* The formats crisp prints most (text, %%, %s, %c, %.*s and the decimal
 * integers %d %i %u, with l, ll or z) into buf[0..cap), NUL-terminated,
 * the length in *len: 1; 0 for a format with any other directive (or a
 * NULL string), which vsnprintf then prints its own way; -1 when the text
 * does not fit.  `ap` is consumed either way. */
int sb_format(char *buf, size_t cap, size_t *len, const char *fmt, va_list ap);
/* Always NUL-terminated (empty string for an empty buffer). */
const char *sb_cstr(StrBuf *b);

#endif
