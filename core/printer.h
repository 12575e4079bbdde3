/* printer.h - the small line printer every emitter shares.
 *
 * Emitters build whole files in memory (so nothing is half-written on
 * error) through these calls: pr_line prints one indented line (or
 * pr_start, sb_* calls and pr_end), pr_indent and pr_dedent move the
 * indentation by four spaces. */
#ifndef CRISP_PRINTER_H
#define CRISP_PRINTER_H

#include "strbuf.h"

typedef struct Printer {
    StrBuf *out;
    int indent;
} Printer;

void pr_init(Printer *p, StrBuf *out);
void pr_line(Printer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pr_blank(Printer *p);  /* an empty line, never two in a row */
/* A line built piece by piece (the emitters' frequent lines, without a
 * format to interpret): pr_start writes the indentation, the caller the
 * text with sb_* calls, pr_end the newline. */
void pr_start_deep(Printer *p); /* pr_start's way from 3 levels on */
/* inline for the usual depths (a call each was 30 instructions, 40k
   lines in a 1 MB program's OpenCL C: issue 14) */
static inline void pr_start(Printer *p) {
    switch (p->indent) {
    case 0: return;
    case 1: SB_LIT(p->out, "    "); return;
    case 2: SB_LIT(p->out, "        "); return;
    default: pr_start_deep(p); return;
    }
}
static inline void pr_end(Printer *p) {
    sb_putc(p->out, '\n');
}
void pr_indent(Printer *p);
void pr_dedent(Printer *p);

#endif
