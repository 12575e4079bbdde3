/* printer.c - indented line printer shared by the emitters (printer.h). */
#include "printer.h"

#include <stdarg.h>
#include <string.h>

void pr_init(Printer *p, StrBuf *out) {
    p->out = out;
    p->indent = 0;
}

void pr_start_deep(Printer *p) {
    /* the usual depths by literals (a few moves each, not a memcpy call) */
    switch (p->indent) {
    case 1: SB_LIT(p->out, "    "); return;
    case 2: SB_LIT(p->out, "        "); return;
    case 3: SB_LIT(p->out, "            "); return;
    case 4: SB_LIT(p->out, "                "); return;
    default: break;
    }
    static const char spaces[] = "                                "; /* 8 levels */
    for (int i = p->indent; i > 0; i -= 8) sb_putn(p->out, spaces, 4 * (size_t)(i < 8 ? i : 8));
}

void pr_line(Printer *p, const char *fmt, ...) {
    pr_start(p);
    if (!strchr(fmt, '%')) { /* a line without directives: "{", "}", "break;" */
        sb_puts(p->out, fmt);
    } else {
        va_list ap;
        va_start(ap, fmt);
        sb_vprintf(p->out, fmt, ap);
        va_end(ap);
    }
    sb_putc(p->out, '\n');
}

void pr_blank(Printer *p) {
    size_t n = p->out->len;
    if (n >= 2 && p->out->data[n - 1] == '\n' && p->out->data[n - 2] == '\n') return;
    if (n == 0) return;
    sb_putc(p->out, '\n');
}

void pr_indent(Printer *p) {
    p->indent++;
}

void pr_dedent(Printer *p) {
    if (p->indent > 0) p->indent--;
}
