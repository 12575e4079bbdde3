/* metadata.c - BASE.metacrisp: the JSON description of every kernel's
 * OpenCL arguments, for hoisting code and tools.  The format is part of the
 * kernel ABI (README "Metadata"); keys are printed in a fixed order. */
#include <stdio.h>
#include <string.h>

#include "../src/printer.h"
#include "emit_oclc.h"

static void json_str(StrBuf *b, const char *s) {
    sb_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') sb_printf(b, "\\%c", *p);
        else if (*p == '\n') sb_puts(b, "\\n");
        else if (*p == '\t') sb_puts(b, "\\t");
        else if (*p < 32) sb_printf(b, "\\u%04x", *p);
        else sb_putc(b, (char)*p);
    }
    sb_putc(b, '"');
}

static void size_json(StrBuf *b, const SizeDecl *sd) {
    if (!sd->present) {
        sb_puts(b, "null");
        return;
    }
    sb_printf(b, "{\"dims\": %d", sd->dims);
    if (sd->nset) {
        sb_puts(b, ", \"set_to\": [");
        for (int i = 0; i < sd->nset; i++) sb_printf(b, "%s%lld", i ? ", " : "", (long long)sd->set_to[i]);
        sb_putc(b, ']');
    }
    if (sd->nderive) {
        sb_puts(b, ", \"derive_from\": [");
        for (int i = 0; i < sd->nderive; i++) {
            if (i) sb_puts(b, ", ");
            json_str(b, sd->derive[i]);
        }
        sb_putc(b, ']');
    }
    if (sd->msg) {
        sb_puts(b, ", \"msg\": ");
        json_str(b, sd->msg);
    }
    sb_putc(b, '}');
}

static void arg_open(StrBuf *b, int *index, const char *name, const char *role, const char *type) {
    sb_printf(b, "%s        {\"index\": %d, \"name\": ", *index ? ",\n" : "", *index);
    json_str(b, name);
    sb_printf(b, ", \"role\": \"%s\", \"type\": ", role);
    json_str(b, type);
    (*index)++;
}

void emit_metadata(StrBuf *b, const Program *p, Arena *scratch) {
    sb_printf(b, "{\n  \"crisp_version\": \"%s\",\n  \"source\": ", CRISP_VERSION);
    json_str(b, p->source);
    sb_puts(b, ",\n  \"kernels\": [");
    int nk = 0;
    for (int f = 0; f < p->nfuncs; f++) {
        const CFunc *k = p->funcs[f];
        if (k->kind != FN_KERNEL) continue;
        sb_printf(b, "%s\n    {\n      \"name\": ", nk++ ? "," : "");
        json_str(b, k->name);
        sb_printf(b, ",\n      \"line\": %d,\n      \"args\": [\n", k->def->loc.line);
        int idx = 0;
        for (int i = 0; i < k->nparams; i++) {
            const Sym *s = k->params[i];
            const Type *t = s->ty;
            if (t->kind != TY_VECTOR) {
                arg_open(b, &idx, s->name, "scalar", ty_cname(t));
                sb_puts(b, "}");
                continue;
            }
            const char *ptr = oclc_pointer_type(scratch, t); /* "... float *" */
            size_t n = strlen(ptr);
            arg_open(b, &idx, s->name, "buffer", arena_printf(scratch, "%.*s*", (int)(n > 2 ? n - 2 : 0), ptr));
            sb_printf(b, ", \"element\": \"%s\", \"address_space\": \"%s\", \"access\": \"%s\", \"align\": \"%s\", \"stride\": %d",
                      ty_cname(t->elem), ty_as_name(t->as), ty_acc_name(s->write_only ? ACC_WRITE_ONLY : t->acc),
                      ty_align_name(t->align), ty_vector_stride(t->elem, t->align));
            if (s->write_only) sb_puts(b, ", \"out\": true");
            if (t->length >= 0) sb_printf(b, ", \"length\": %lld", (long long)t->length);
            sb_puts(b, "}");
            arg_open(b, &idx, s->name, "length", "ulong");
            sb_puts(b, ", \"param\": ");
            json_str(b, s->name);
            sb_puts(b, "}");
        }
        sb_puts(b, "\n      ],\n      \"global_size\": ");
        size_json(b, &k->gsize);
        sb_puts(b, ",\n      \"local_size\": ");
        size_json(b, &k->lsize);
        sb_printf(b, ",\n      \"single_task\": %s\n    }", k->single_task ? "true" : "false");
    }
    sb_puts(b, nk ? "\n  ]\n}\n" : "]\n}\n");
}
