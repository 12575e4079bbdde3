/* explain.c - `crisp --explain CODE`, like `rustc --explain`: the code's
 * title from the registry (core/diag_codes.h) and its example, a negative
 * test built into the binary, compiled here and now so the user sees the
 * very diagnostic crisp reports on it.  Lives in the driver layer because
 * it runs a whole compilation (crisp_compile). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/crisp.h"
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

/* The -DNAME=VALUE and --debug-output words of the example's `; args:`
 * lines (what a negative test passes on the command line). */
static int example_options(const char *text, CrispOptions *o, CrispDefine *defs, int maxdefs,
                           char *store, size_t store_len) {
    size_t used = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p != ';') continue;
        while (*p == ';') p++;
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "args:", 5) != 0) continue;
        p += 5;
        for (;;) {
            while (*p == ' ' || *p == '\t') p++;
            if (!*p || *p == '\n') break;
            const char *w = p;
            while (*p && *p != ' ' && *p != '\t' && *p != '\n') p++;
            size_t n = (size_t)(p - w);
            if (used + n + 1 > store_len) return 0;
            char *word = store + used;
            memcpy(word, w, n);
            word[n] = 0;
            used += n + 1;
            if (!strcmp(word, "--debug-output")) {
                o->debug_output = 1;
            } else if (!strncmp(word, "-D", 2) && strchr(word + 2, '=') && o->ndefines < maxdefs) {
                char *eq = strchr(word + 2, '=');
                *eq = 0;
                defs[o->ndefines].name = word + 2;
                defs[o->ndefines].value = eq + 1;
                o->ndefines++;
            }
        }
    }
    return 1;
}

int crisp_explain(const char *code, FILE *out, FILE *err) {
    const DiagInfo *info = diag_info(code);
    if (!info) {
        fprintf(err, "crisp: error: `%s` is not a diagnostic code of crisp %s (codes look like E0312 or W0301; "
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
    CrispDefine defs[8];
    char store[1024];
    memset(&o, 0, sizeof o);
    o.inputs = &name;
    o.ninputs = 1;
    o.input_text = ex->text;
    o.input_len = (int)strlen(ex->text);
    o.defines = defs;
    example_options(ex->text, &o, defs, 8, store, sizeof store);
    char *report = NULL;
    size_t report_len = 0;
    FILE *mem = open_memstream(&report, &report_len);
    if (!mem) {
        fprintf(out, "\n(cannot compile the example here: out of memory)\n");
        return 0;
    }
    int status = crisp_compile(&o, mem);
    fclose(mem);
    fprintf(out, "\ncrisp reports (exit status %d):\n\n", status);
    print_indented(out, report && *report ? report : "(nothing)\n");
    free(report);
    return 0;
}
