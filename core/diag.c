/* diag.c - formatting and collection of diagnostics (see diag.h): plain
 * text with a source excerpt (coloured on a terminal when the driver asks),
 * or JSON Lines for editors and CI tools; the error cap, -Werror and -w; and
 * the registry of codes (diag_codes.h) with the examples for --explain. */
#include "diag.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *node_kind_name(NodeKind k) {
    static const char *names[] = {
#define X(k, s) s,
        NODE_KINDS(X)
#undef X
    };
    return (unsigned)k < N__COUNT ? names[k] : "?";
}

/* ---- the registry ---- */

static const DiagInfo diag_table[] = {
#define DIAG(code, sev, title) {#code, DIAG_SEV_##sev, title, NULL},
#define DIAG_INTERNAL(code, sev, title, reason) {#code, DIAG_SEV_##sev, title, reason},
#include "diag_codes.h"
};
enum { DIAG_NCODES = (int)(sizeof diag_table / sizeof diag_table[0]) };

/* The table is in code order (tests/check_diag_codes.py checks it). */
const DiagInfo *diag_info(const char *code) {
    if (!code) return NULL;
    int lo = 0, hi = DIAG_NCODES - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strcasecmp(code, diag_table[mid].code);
        if (c == 0) return &diag_table[mid];
        if (c < 0) hi = mid - 1;
        else lo = mid + 1;
    }
    return NULL;
}

const DiagInfo *diag_info_at(int i) {
    return i >= 0 && i < DIAG_NCODES ? &diag_table[i] : NULL;
}

const DiagExample *diag_example(const char *code) {
    if (!code) return NULL;
    for (const DiagExample *e = crisp_diag_examples; e->code; e++)
        if (!strcasecmp(e->code, code)) return e;
    return NULL;
}

/* ---- setup ---- */

void diag_init(Diag *d, FILE *out) {
    memset(d, 0, sizeof *d);
    d->out = out;
    sb_init(&d->json);
}

static void json_close(Diag *d);

void diag_finish(Diag *d) {
    json_close(d);
    sb_free(&d->json);
    if (d->out) fflush(d->out);
}

/* ---- colours (ANSI; only when d->color) ---- */

#define C_BOLD "\033[1m"
#define C_RED "\033[1;31m"
#define C_MAGENTA "\033[1;35m"
#define C_CYAN "\033[1;36m"
#define C_GREEN "\033[1;32m"
#define C_RESET "\033[0m"

static const char *sev_color(const char *sev) {
    return !strcmp(sev, "error") ? C_RED : !strcmp(sev, "warning") ? C_MAGENTA : C_CYAN;
}

/* ---- text ---- */

static void print_loc(Diag *d, SrcLoc loc) {
    FILE *f = d->out;
    if (d->color) fputs(C_BOLD, f);
    if (srcloc_file(loc) && loc.line > 0)
        fprintf(f, "%s:%d:%d: ", srcloc_file(loc)->name, loc.line, loc.col);
    else if (srcloc_file(loc))
        fprintf(f, "%s: ", srcloc_file(loc)->name);
    else
        fprintf(f, "crisp: ");
    if (d->color) fputs(C_RESET, f);
}

/* "error[E0312]: " or "note: ", coloured by severity. */
static void print_severity(Diag *d, const char *sev, const char *code) {
    if (d->color) fputs(sev_color(sev), d->out);
    if (code)
        fprintf(d->out, "%s[%s]:", sev, code);
    else
        fprintf(d->out, "%s:", sev);
    if (d->color) fputs(C_RESET, d->out);
    fputc(' ', d->out);
}

/* The source line of `loc` (its start and length), or NULL. */
static const char *source_line(SrcLoc loc, int *len) {
    if (!srcloc_file(loc) || !srcloc_file(loc)->text || loc.line <= 0) return NULL;
    const char *p = srcloc_file(loc)->text, *end = p + srcloc_file(loc)->len;
    for (int l = 1; l < loc.line && p < end; p++)
        if (*p == '\n') l++;
    if (p >= end && loc.line > 1) return NULL;
    const char *e = p;
    while (e < end && *e != '\n') e++;
    if (e > p && e[-1] == '\r') e--; /* CRLF sources */
    *len = (int)(e - p);
    return p;
}

/* Print the source line of `loc` with a caret under its column. */
static void print_excerpt(Diag *d, SrcLoc loc) {
    int n;
    const char *p = source_line(loc, &n);
    if (!p) return;
    FILE *f = d->out;
    if (n > 200) n = 200;
    fprintf(f, "%5d | ", loc.line);
    for (int i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        fputc(c == '\t' ? ' ' : (c < 32 || c == 127) ? '?' : c, f);
    }
    fprintf(f, "\n      | ");
    for (int i = 1; i < loc.col && i <= n; i++) fputc(' ', f);
    fputs(d->color ? C_GREEN "^" C_RESET "\n" : "^\n", f);
}

/* ---- JSON Lines: {"file", "line", "column", "severity", "code",
 *      "message", "notes": [{"file", "line", "column", "message"}]} ---- */

/* A JSON string: valid UTF-8 passes, other bytes become U+FFFD. */
static void json_str(StrBuf *b, const char *s) {
    if (!s) {
        sb_puts(b, "null");
        return;
    }
    sb_putc(b, '"');
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            sb_putc(b, '\\');
            sb_putc(b, (char)c);
            p++;
        } else if (c == '\n') {
            sb_puts(b, "\\n"), p++;
        } else if (c == '\t') {
            sb_puts(b, "\\t"), p++;
        } else if (c < 0x20 || c == 0x7f) {
            sb_printf(b, "\\u%04x", c), p++;
        } else if (c < 0x80) {
            sb_putc(b, (char)c), p++;
        } else {
            int n = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : -1;
            int ok = n > 0 && c < 0xf5;
            for (int i = 1; ok && i <= n; i++) ok = (p[i] & 0xc0) == 0x80;
            if (ok && n == 2 && c == 0xe0 && p[1] < 0xa0) ok = 0; /* overlong */
            if (ok && n == 2 && c == 0xed && p[1] >= 0xa0) ok = 0; /* surrogate */
            if (ok && n == 3 && c == 0xf0 && p[1] < 0x90) ok = 0;
            if (ok && n == 3 && c == 0xf4 && p[1] >= 0x90) ok = 0;
            if (ok) {
                sb_putn(b, (const char *)p, (size_t)n + 1);
                p += n + 1;
            } else {
                sb_puts(b, "\\ufffd");
                p++;
            }
        }
    }
    sb_putc(b, '"');
}

static void json_place(StrBuf *b, SrcLoc loc) {
    sb_puts(b, "\"file\": ");
    json_str(b, srcloc_file(loc) ? srcloc_file(loc)->name : NULL);
    if (srcloc_file(loc) && loc.line > 0)
        sb_printf(b, ", \"line\": %d, \"column\": %d", loc.line, loc.col);
    else
        sb_puts(b, ", \"line\": null, \"column\": null");
}

/* Print the pending object (its notes are complete). */
static void json_close(Diag *d) {
    if (!d->json_open) return;
    d->json_open = 0;
    sb_puts(&d->json, "]}\n");
    if (d->out && !d->json.oom) fputs(sb_cstr(&d->json), d->out);
    d->json.len = 0;
}

static void json_open(Diag *d, const char *sev, SrcLoc loc, const char *code, const char *msg) {
    json_close(d);
    d->json_open = 1;
    sb_putc(&d->json, '{');
    json_place(&d->json, loc);
    sb_puts(&d->json, ", \"severity\": ");
    json_str(&d->json, sev);
    sb_puts(&d->json, ", \"code\": ");
    json_str(&d->json, code);
    sb_puts(&d->json, ", \"message\": ");
    json_str(&d->json, msg);
    sb_puts(&d->json, ", \"notes\": [");
}

static void json_note(Diag *d, SrcLoc loc, const char *msg) {
    if (!d->json_open) return;
    if (d->json.len && d->json.data[d->json.len - 1] != '[') sb_puts(&d->json, ", ");
    sb_putc(&d->json, '{');
    json_place(&d->json, loc);
    sb_puts(&d->json, ", \"message\": ");
    json_str(&d->json, msg);
    sb_putc(&d->json, '}');
}

/* ---- one diagnostic ---- */

static void note_text(Diag *d, SrcLoc loc, const char *msg) {
    if (d->format == DIAG_FORMAT_JSON) {
        json_note(d, loc, msg);
        return;
    }
    print_loc(d, loc);
    print_severity(d, "note", NULL);
    fputs(msg, d->out);
    fputc('\n', d->out);
}

static void print_origin(Diag *d, const Expansion *origin) {
    int depth = 0;
    for (const Expansion *e = origin; e; e = e->parent) {
        if (++depth > 8) {
            note_text(d, (SrcLoc){0}, "(further expansion notes omitted)");
            break;
        }
        char msg[300];
        snprintf(msg, sizeof msg, "in expansion of macro `%s`", e->macro);
        note_text(d, e->call, msg);
    }
}

/* Was this exact message (place, severity, code, text) printed lately?
 * Records it when not. */
static int repeated(Diag *d, SrcLoc loc, const char *sev, const char *code, const char *msg) {
    unsigned long h = 5381;
    const char *parts[3] = {sev, code ? code : "", msg};
    for (int i = 0; i < 3; i++)
        for (const char *p = parts[i]; *p; p++) h = h * 33 + (unsigned char)*p;
    h = h * 33 + (unsigned long)(uintptr_t)srcloc_file(loc);
    h = h * 33 + (unsigned long)loc.line;
    h = h * 33 + (unsigned long)loc.col;
    int n = d->nrecent < 16 ? d->nrecent : 16;
    for (int i = 0; i < n; i++)
        if (d->recent[i] == h) return 1;
    d->recent[d->nrecent++ % 16] = h;
    return 0;
}

static void report(Diag *d, const char *sev, SrcLoc loc, const Expansion *origin, const char *code,
                   const char *suffix, const char *fmt, va_list ap) {
    d->mute_notes = 1;
    if (!d->out) return;
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    d->mute_notes = repeated(d, loc, sev, code, msg);
    if (d->mute_notes) return;
    if (d->format == DIAG_FORMAT_JSON) {
        json_open(d, sev, loc, code, msg);
    } else {
        print_loc(d, loc);
        print_severity(d, sev, code);
        if (d->color) fputs(C_BOLD, d->out);
        fputs(msg, d->out);
        if (suffix) fputs(suffix, d->out);
        if (d->color) fputs(C_RESET, d->out);
        fputc('\n', d->out);
        print_excerpt(d, loc);
    }
    print_origin(d, origin);
}

/* An error of the whole compilation: `crisp: error[CODE]: MSG`. */
static void whole_error(Diag *d, const char *code, const char *msg) {
    if (!d->out) return;
    if (d->format == DIAG_FORMAT_JSON) {
        json_open(d, "error", (SrcLoc){0}, code, msg);
    } else {
        print_loc(d, (SrcLoc){0});
        print_severity(d, "error", code);
        fprintf(d->out, "%s\n", msg);
    }
}

/* Memory ran out: report that once, instead of what a starved stage says. */
static int out_of_memory(Diag *d) {
    if (!d->exhausted || !*d->exhausted) return 0;
    d->mute_notes = 1;
    d->fatal = 1;
    if (d->oom_reported) return 1;
    d->oom_reported = 1;
    d->errors++;
    char lim[40], msg[200];
    snprintf(msg, sizeof msg, "out of memory: the compilation reached its memory limit of %s (--max-memory=SIZE changes it)",
             diag_memory_limit(d, lim, sizeof lim));
    whole_error(d, "E0099", msg);
    return 1;
}

const char *diag_memory_limit(const Diag *d, char *buf, size_t size) {
    /* the limit as --max-memory spells it */
    unsigned long long lim = d->mem_limit ? (unsigned long long)d->mem_limit : 4ULL << 30;
    const char *unit = "";
    if (lim % (1ULL << 30) == 0) lim >>= 30, unit = "G";
    else if (lim % (1ULL << 20) == 0) lim >>= 20, unit = "M";
    else if (lim % (1ULL << 10) == 0) lim >>= 10, unit = "K";
    snprintf(buf, size, "%llu%s", lim, unit);
    return buf;
}

/* Count an error; say whether it is shown (under the cap). */
static int count_error(Diag *d) {
    int cap = d->max_errors > 0 ? d->max_errors : DIAG_MAX_ERRORS;
    d->errors++;
    if (d->errors == cap + 1) {
        char msg[120];
        snprintf(msg, sizeof msg, "too many errors (%d), stopping (-fmax-errors=N changes the limit)", cap);
        whole_error(d, NULL, msg);
    }
    if (d->errors > cap) {
        d->fatal = 1;
        d->mute_notes = 1;
    }
    return d->errors <= cap;
}

static int error_shown(Diag *d) {
    return !out_of_memory(d) && count_error(d);
}

void diag_error(Diag *d, SrcLoc loc, const Expansion *origin, const char *code,
                const char *fmt, ...) {
    if (!error_shown(d)) return;
    va_list ap;
    va_start(ap, fmt);
    report(d, "error", loc, origin, code, NULL, fmt, ap);
    va_end(ap);
}

void diag_error_plain(Diag *d, const char *code, const char *fmt, ...) {
    if (!error_shown(d)) return;
    va_list ap;
    va_start(ap, fmt);
    report(d, "error", (SrcLoc){0}, NULL, code, NULL, fmt, ap);
    va_end(ap);
}

void diag_fatal(Diag *d, SrcLoc loc, const Expansion *origin, const char *code,
                const char *fmt, ...) {
    if (d->oom_reported) return;
    if (d->exhausted && *d->exhausted) d->oom_reported = 1; /* this is the report */
    int shown = count_error(d);
    d->fatal = 1;
    if (!shown) return;
    va_list ap;
    va_start(ap, fmt);
    report(d, "error", loc, origin, code, NULL, fmt, ap);
    va_end(ap);
}

/* A warning: dropped with -w, an error with -Werror, capped otherwise. */
static void warning(Diag *d, SrcLoc loc, const Expansion *origin, const char *code, const char *fmt,
                    va_list ap) {
    if (d->no_warnings || out_of_memory(d)) {
        d->mute_notes = 1;
        return;
    }
    if (d->werror) {
        if (error_shown(d)) report(d, "error", loc, origin, code, " [-Werror]", fmt, ap);
        return;
    }
    if (d->warnings >= DIAG_MAX_WARNINGS) {
        d->mute_notes = 1;
        return;
    }
    report(d, "warning", loc, origin, code, NULL, fmt, ap);
    /* a repeat of a recent warning (same place, same text) is not shown and
       does not count toward the cap: counted, the repeats of a large file's
       library expansions muted the later kernels' warnings */
    if (!d->out || !d->mute_notes) d->warnings++;
}

void diag_warning(Diag *d, SrcLoc loc, const Expansion *origin, const char *code,
                  const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    warning(d, loc, origin, code, fmt, ap);
    va_end(ap);
}

void diag_note(Diag *d, SrcLoc loc, const char *fmt, ...) {
    if (!d->out || d->mute_notes) return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    note_text(d, loc, msg);
}

void diag_error_at(Diag *d, const Node *n, const char *code, const char *fmt, ...) {
    if (!error_shown(d)) return;
    va_list ap;
    va_start(ap, fmt);
    report(d, "error", n->loc, n->origin, code, NULL, fmt, ap);
    va_end(ap);
}

void diag_warning_at(Diag *d, const Node *n, const char *code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    warning(d, n->loc, n->origin, code, fmt, ap);
    va_end(ap);
}
