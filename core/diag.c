/* diag.c - formatting and collection of diagnostics (see diag.h). */
#include "diag.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const char *node_kind_name(NodeKind k) {
    static const char *names[] = {
#define X(k, s) s,
        NODE_KINDS(X)
#undef X
    };
    return (unsigned)k < N__COUNT ? names[k] : "?";
}

void diag_init(Diag *d, FILE *out) {
    memset(d, 0, sizeof *d);
    d->out = out;
}

static void print_loc(FILE *f, SrcLoc loc) {
    if (loc.file && loc.line > 0)
        fprintf(f, "%s:%d:%d: ", loc.file->name, loc.line, loc.col);
    else if (loc.file)
        fprintf(f, "%s: ", loc.file->name);
    else
        fprintf(f, "crisp: ");
}

/* Print the source line of `loc` with a caret under its column. */
static void print_excerpt(FILE *f, SrcLoc loc) {
    if (!loc.file || !loc.file->text || loc.line <= 0) return;
    const char *p = loc.file->text, *end = p + loc.file->len;
    for (int l = 1; l < loc.line && p < end; p++)
        if (*p == '\n') l++;
    if (p >= end && loc.line > 1) return;
    const char *e = p;
    while (e < end && *e != '\n') e++;
    if (e > p && e[-1] == '\r') e--; /* CRLF sources */
    int n = (int)(e - p);
    if (n > 200) n = 200;
    fprintf(f, "%5d | ", loc.line);
    for (int i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        fputc(c == '\t' ? ' ' : (c < 32 || c == 127) ? '?' : c, f);
    }
    fprintf(f, "\n      | ");
    for (int i = 1; i < loc.col && i <= n; i++) fputc(' ', f);
    fputs("^\n", f);
}

static void print_origin(FILE *f, const Expansion *origin) {
    int depth = 0;
    for (const Expansion *e = origin; e; e = e->parent) {
        if (++depth > 8) {
            fprintf(f, "crisp: note: (further expansion notes omitted)\n");
            break;
        }
        print_loc(f, e->call);
        fprintf(f, "note: in expansion of macro `%s`\n", e->macro);
    }
}

/* Was this exact message (place, severity, code, text) printed lately?
 * Records it when not. */
static int repeated(Diag *d, SrcLoc loc, const char *sev, const char *code, const char *msg) {
    unsigned long h = 5381;
    const char *parts[3] = {sev, code ? code : "", msg};
    for (int i = 0; i < 3; i++)
        for (const char *p = parts[i]; *p; p++) h = h * 33 + (unsigned char)*p;
    h = h * 33 + (unsigned long)(uintptr_t)loc.file;
    h = h * 33 + (unsigned long)loc.line;
    h = h * 33 + (unsigned long)loc.col;
    int n = d->nrecent < 16 ? d->nrecent : 16;
    for (int i = 0; i < n; i++)
        if (d->recent[i] == h) return 1;
    d->recent[d->nrecent++ % 16] = h;
    return 0;
}

static void report(Diag *d, const char *sev, SrcLoc loc, const Expansion *origin,
                   const char *code, const char *fmt, va_list ap) {
    if (!d->out) return;
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    d->mute_notes = repeated(d, loc, sev, code, msg);
    if (d->mute_notes) return;
    print_loc(d->out, loc);
    if (code)
        fprintf(d->out, "%s[%s]: ", sev, code);
    else
        fprintf(d->out, "%s: ", sev);
    fputs(msg, d->out);
    fputc('\n', d->out);
    print_excerpt(d->out, loc);
    print_origin(d->out, origin);
}

static int error_shown(Diag *d) {
    int cap = d->max_errors ? d->max_errors : DIAG_MAX_ERRORS;
    d->errors++;
    if (d->errors == cap + 1 && d->out)
        fprintf(d->out, "crisp: error: too many errors (%d), stopping\n", cap);
    if (d->errors > cap) d->fatal = 1;
    return d->errors <= cap;
}

void diag_error(Diag *d, SrcLoc loc, const Expansion *origin, const char *code,
                const char *fmt, ...) {
    if (!error_shown(d)) return;
    va_list ap;
    va_start(ap, fmt);
    report(d, "error", loc, origin, code, fmt, ap);
    va_end(ap);
}

void diag_fatal(Diag *d, SrcLoc loc, const Expansion *origin, const char *code,
                const char *fmt, ...) {
    int shown = error_shown(d);
    d->fatal = 1;
    if (!shown) return;
    va_list ap;
    va_start(ap, fmt);
    report(d, "error", loc, origin, code, fmt, ap);
    va_end(ap);
}

void diag_warning(Diag *d, SrcLoc loc, const Expansion *origin, const char *code,
                  const char *fmt, ...) {
    d->warnings++;
    if (d->warnings > 200) return;
    va_list ap;
    va_start(ap, fmt);
    report(d, "warning", loc, origin, code, fmt, ap);
    va_end(ap);
}

void diag_note(Diag *d, SrcLoc loc, const char *fmt, ...) {
    if (!d->out || d->mute_notes) return;
    print_loc(d->out, loc);
    fputs("note: ", d->out);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(d->out, fmt, ap);
    va_end(ap);
    fputc('\n', d->out);
}

void diag_error_at(Diag *d, const Node *n, const char *code, const char *fmt, ...) {
    if (!error_shown(d)) return;
    va_list ap;
    va_start(ap, fmt);
    report(d, "error", n->loc, n->origin, code, fmt, ap);
    va_end(ap);
}

void diag_warning_at(Diag *d, const Node *n, const char *code, const char *fmt, ...) {
    d->warnings++;
    if (d->warnings > 200) return;
    va_list ap;
    va_start(ap, fmt);
    report(d, "warning", n->loc, n->origin, code, fmt, ap);
    va_end(ap);
}
