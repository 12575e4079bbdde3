/* strbuf.h - a growable byte buffer (heap-backed, freed by the owner).
 * Used for emitted files, which must be complete in memory before they are
 * written, so an error never leaves a half-written output file. */
#ifndef CRISP_STRBUF_H
#define CRISP_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct StrBuf {
    char *data;
    size_t len, cap;
    int oom;  /* an allocation failed; contents are truncated */
} StrBuf;

void sb_init(StrBuf *b);
void sb_free(StrBuf *b);
void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_putn(StrBuf *b, const char *s, size_t n);
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
