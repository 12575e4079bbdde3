/* explain.c - `crisp --explain CODE`, like `rustc --explain`: the code's
 * title from the registry (core/diag_codes.h) and its example, a negative
 * test built into the binary, compiled here and now so the user sees the
 * very diagnostic crisp reports on it.  Lives in the driver layer because
 * it runs a whole compilation (crisp_run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "options.h"
#include "../core/diag.h"

/* Print `text` indented by four spaces. */
static void print_indented(FILE *out, const char *text) {
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n) fprintf(out, "    %.*s\n", (int)n, p);
        else fputc('\n', out);
        p += n + (e ? 1 : 0);
    }
}

/* What a negative test's header asks of the compiler, which --explain
 * honours too: `; args:` words -DNAME=VALUE, --debug-output and
 * --max-memory=SIZE, any other option of the option table (src/options.c),
 * and `; fill: COUNT TEXT` (tests/run_neg.py). */
typedef struct ExampleSetup {
    OptState opts;      /* the other options */
    CrispDefine defs[8];
    char store[1024];
    size_t used;
    long fill_count;
    char fill[256];
} ExampleSetup;

static char *setup_word(ExampleSetup *x, const char *w, size_t n) {
    if (x->used + n + 1 > sizeof x->store) return NULL;
    char *word = x->store + x->used;
    memcpy(word, w, n);
    word[n] = 0;
    x->used += n + 1;
    return word;
}

static void example_option(ExampleSetup *x, CrispOptions *o, char *word) {
    if (!strcmp(word, "--debug-output")) {
        o->debug_output = 1;
    } else if (!strncmp(word, "--max-memory=", 13)) {
        char *end;
        unsigned long long n = strtoull(word + 13, &end, 10);
        o->max_arena_bytes = (size_t)n << (*end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0);
    } else if (!strncmp(word, "-D", 2) && strchr(word + 2, '=') && o->ndefines < 8) {
        char *eq = strchr(word + 2, '=');
        *eq = 0;
        x->defs[o->ndefines].name = word + 2;
        x->defs[o->ndefines].value = eq + 1;
        o->ndefines++;
    } else if (word[0] == '-' && word[1] == '-' && x->opts.a) {
        int ambiguous;
        const OptSpec *spec = opt_find_long(word + 2, &ambiguous);
        const char *eq = strchr(word, '=');
        if (spec && !(spec->where & OPT_ACTION) && (spec->arg == OPT_NO_ARG) == !eq)
            opt_apply(&x->opts, spec, eq ? eq + 1 : NULL);
    }
}

static void example_setup(const char *text, CrispOptions *o, ExampleSetup *x) {
    o->defines = x->defs;
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *p = line, *eol = strchr(line, '\n');
        if (!eol) eol = line + strlen(line);
        while (*p == ' ' || *p == '\t') p++;
        if (*p != ';') continue;
        while (*p == ';') p++;
        while (*p == ' ' || *p == '\t') p++;
        if (!strncmp(p, "fill:", 5)) {
            char *end;
            long count = strtol(p + 5, &end, 10);
            if (*end != ' ' || count <= 0 || count > 100000000) continue;
            size_t n = 0;
            for (const char *q = end + 1; q < eol && n + 1 < sizeof x->fill; q++)
                if (q[0] == '\\' && q + 1 < eol && q[1] == 'n') x->fill[n++] = '\n', q++;
                else x->fill[n++] = *q;
            x->fill[n] = 0;
            x->fill_count = count;
            continue;
        }
        if (strncmp(p, "args:", 5) != 0) continue;
        p += 5;
        for (;;) {
            while (*p == ' ' || *p == '\t') p++;
            if (p >= eol) break;
            const char *w = p;
            while (p < eol && *p != ' ' && *p != '\t') p++;
            char *word = setup_word(x, w, (size_t)(p - w));
            if (word) example_option(x, o, word);
        }
    }
}

/* TEXT with each @FILL@ replaced by the fill repeated (malloc'd), or NULL. */
static char *filled(const char *text, const ExampleSetup *x) {
    size_t flen = strlen(x->fill), total = strlen(text) + 1;
    for (const char *p = strstr(text, "@FILL@"); p; p = strstr(p + 6, "@FILL@")) total += flen * (size_t)x->fill_count;
    char *out = malloc(total), *o = out;
    if (!out) return NULL;
    for (const char *p = text;;) {
        const char *f = strstr(p, "@FILL@");
        size_t n = f ? (size_t)(f - p) : strlen(p);
        memcpy(o, p, n);
        o += n;
        if (!f) break;
        for (long i = 0; i < x->fill_count; i++, o += flen) memcpy(o, x->fill, flen);
        p = f + 6;
    }
    *o = 0;
    return out;
}

int crisp_explain(const char *code, FILE *out, FILE *err) {
    const DiagInfo *info = diag_info(code);
    if (!info) {
        fprintf(err, "crisp: error: `%s` is not a diagnostic code of crisp %s (codes look like E0312 or W0302; "
                     "docs/diagnostics.md lists the ranges)\n", code, CRISP_VERSION);
        return 2;
    }
    fprintf(out, "%s (%s): %s\n", info->code, info->severity == DIAG_SEV_WARNING ? "warning" : "error", info->title);
    if (info->internal) {
        fprintf(out, "\nNo program triggers this diagnostic on purpose: %s\n", info->internal);
        return 0;
    }
    const DiagExample *ex = diag_example(info->code);
    if (!ex) {
        fprintf(out, "\n(no example: this build has no negative test for %s)\n", info->code);
        return 0;
    }
    const char *name = "example.crisp";
    fprintf(out, "\nExample (%s, from %s):\n\n", name, ex->file);
    print_indented(out, ex->text);

    CrispOptions o;
    ExampleSetup setup;
    memset(&o, 0, sizeof o);
    memset(&setup, 0, sizeof setup);
    Arena opt_arena;
    arena_init(&opt_arena);
    StrBuf opt_err;
    sb_init(&opt_err);
    setup.opts = (OptState){.o = &o, .a = &opt_arena, .err = &opt_err};
    o.inputs = &name;
    o.ninputs = 1;
    example_setup(ex->text, &o, &setup);
    char *text = setup.fill_count ? filled(ex->text, &setup) : NULL;
    o.input_text = text ? text : ex->text;
    o.input_len = (int)strlen(o.input_text);
    char *report = NULL;
    size_t report_len = 0;
    FILE *mem = open_memstream(&report, &report_len);
    if (!mem) {
        free(text);
        sb_free(&opt_err);
        arena_free(&opt_arena);
        fprintf(out, "\n(cannot compile the example here: out of memory)\n");
        return 0;
    }
    int status = crisp_run(&o, mem);
    fclose(mem);
    free(text);
    sb_free(&opt_err);
    arena_free(&opt_arena);
    fprintf(out, "\ncrisp reports (exit status %d):\n\n", status);
    print_indented(out, report && *report ? report : "(nothing)\n");
    free(report);
    return 0;
}
