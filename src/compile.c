/* compile.c - the compiler pipeline, visible in one function.
 *
 *     read -> check (expanding each macro call where it reaches it) -> analyse -> emit
 *
 * Each stage takes and returns plain data (Forms, Program, text) and can be
 * dumped with --dump=read|expand|check: expansion is type-directed (a macro
 * may ask the types of the variables at its call), so the checker drives
 * the expander (macros/expand.h) and --dump=expand prints the program with
 * every expansion it made.  Output files are built in
 * memory and written only when the whole compilation succeeded, through a
 * temporary file and rename(), so no output is ever half-written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../analysis/analysis.h"
#include "../emit-hoist/hoist.h"
#include "../emit-oclc/emit_oclc.h"
#include "../macros/expand.h"
#include "../reader/reader.h"
#include "../types/check.h"
#include "../core/context.h"
#include "../core/syntax.h"

#define MAX_SOURCE_BYTES (64L * 1024 * 1024)

/* ---- reading sources ---- */

static SrcFile *load_file(Crisp *c, const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(c->diag.out ? c->diag.out : stderr, "crisp: error: cannot read `%s`: %s\n", path, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        fprintf(c->diag.out ? c->diag.out : stderr, "crisp: error: cannot read `%s`: it is a directory\n", path);
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(c->diag.out ? c->diag.out : stderr, "crisp: error: cannot read `%s`: %s\n", path, strerror(errno));
        return NULL;
    }
    StrBuf b;
    sb_init(&b);
    char buf[65536];
    size_t n;
    int too_big = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        if ((long)(b.len + n) > MAX_SOURCE_BYTES) {
            too_big = 1;
            break;
        }
        sb_putn(&b, buf, n);
    }
    int err = ferror(f);
    fclose(f);
    if (err || too_big || b.oom) {
        fprintf(c->diag.out ? c->diag.out : stderr, "crisp: error: cannot read `%s`: %s\n", path,
                too_big ? "file larger than 64 MiB" : b.oom ? "out of memory" : "read error");
        sb_free(&b);
        return NULL;
    }
    SrcFile *sf = arena_alloc(&c->arena, sizeof *sf);
    char *text = arena_strndup(&c->arena, sb_cstr(&b), b.len);
    int len = (int)b.len;
    sb_free(&b);
    if (!sf || !text) {
        fprintf(c->diag.out ? c->diag.out : stderr, "crisp: error: cannot read `%s`: out of memory\n", path);
        return NULL;
    }
    sf->name = arena_strdup(&c->arena, path);
    sf->text = text;
    sf->len = len;
    return sf;
}

static int add_file(Crisp *c, SrcFile *f) {
    SrcFile **v = arena_alloc(&c->arena, sizeof(SrcFile *) * (size_t)(c->nfiles + 1));
    if (!v) return 0;
    if (c->nfiles) memcpy(v, c->files, sizeof(SrcFile *) * (size_t)c->nfiles);
    v[c->nfiles++] = f;
    c->files = v;
    return 1;
}

/* Load every input.  Returns 0 when a file cannot be read (exit status 2). */
static int load_inputs(Crisp *c) {
    const CrispOptions *o = c->opt;
    if (o->input_text) {
        SrcFile *f = arena_alloc(&c->arena, sizeof *f);
        if (!f) return 0;
        f->name = o->ninputs ? o->inputs[0] : "<input>";
        f->text = arena_strndup(&c->arena, o->input_text, (size_t)o->input_len);
        f->len = o->input_len;
        return f->text && add_file(c, f);
    }
    for (int i = 0; i < o->ninputs; i++) {
        SrcFile *f = load_file(c, o->inputs[i]);
        if (!f) return 0;
        add_file(c, f);
    }
    return 1;
}

/* Stage 1: every file's forms, in order. */
static Forms stage_read(Crisp *c) {
    Forms out = {0};
    Reader r;
    reader_init(&r, c);
    for (int i = 0; i < c->nfiles && !c->diag.fatal; i++) reader_read_file(&r, c->files[i], &out);
    return out;
}

/* ---- dumps ---- */

static void dump_forms(Crisp *c, Forms f) {
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < f.n; i++) {
        syn_pprint(&b, f.v[i], 0);
        sb_putc(&b, '\n');
    }
    fputs(sb_cstr(&b), c->opt->dump_out ? c->opt->dump_out : stdout);
    sb_free(&b);
}

/* ---- outputs ---- */

typedef struct Output {
    const char *path;
    StrBuf text;
} Output;

static const char *stem_of(Arena *a, const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    return arena_strndup(a, base, n);
}

/* Write all outputs or none: temporaries first, then rename them in place. */
static int write_outputs(Crisp *c, Output *outs, int n) {
    char *tmps[8] = {0};
    if (n > 8) return 0;
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
        tmps[i] = arena_printf(&c->arena, "%s.tmpXXXXXX", outs[i].path);
        int fd = tmps[i] ? mkstemp(tmps[i]) : -1;
        if (fd < 0) {
            fprintf(c->diag.out, "crisp: error: cannot write `%s`: %s\n", outs[i].path, strerror(errno));
            tmps[i] = NULL;
            ok = 0;
            break;
        }
        FILE *f = fdopen(fd, "wb");
        size_t len = outs[i].text.len;
        if (!f || fwrite(sb_cstr(&outs[i].text), 1, len, f) != len || fclose(f) != 0) {
            fprintf(c->diag.out, "crisp: error: cannot write `%s`: %s\n", outs[i].path, strerror(errno));
            if (!f) close(fd);
            ok = 0;
        }
    }
    for (int i = 0; i < n; i++) {
        if (!tmps[i]) continue;
        if (ok && rename(tmps[i], outs[i].path) != 0) {
            fprintf(c->diag.out, "crisp: error: cannot write `%s`: %s\n", outs[i].path, strerror(errno));
            ok = 0;
        }
        if (!ok) unlink(tmps[i]);
    }
    return ok;
}

/* Stage 4: every requested output file. */
static int stage_emit(Crisp *c, const Program *p) {
    const CrispOptions *o = c->opt;
    int hoist = o->hoist_opencl || o->hoist_pyopencl;
    if (!o->transpile_oclc && !o->metadata && !hoist && !o->emit_runtime_dir) return 0;
    const char *dir = o->output_dir ? o->output_dir : ".";
    const char *base = o->output_base ? o->output_base
                                      : stem_of(&c->arena, c->nfiles ? c->files[c->nfiles - 1]->name : "out");
    Output outs[6];
    int n = 0;
    StrBuf cl;
    sb_init(&cl);
    emit_oclc(&cl, p, &c->arena);
    if (o->transpile_oclc || hoist) {
        outs[n].path = arena_printf(&c->arena, "%s/%s.cl", dir, base);
        sb_init(&outs[n].text);
        sb_putn(&outs[n].text, sb_cstr(&cl), cl.len);
        n++;
    }
    if (o->metadata) {
        outs[n].path = arena_printf(&c->arena, "%s/%s.metacrisp", dir, base);
        sb_init(&outs[n].text);
        emit_metadata(&outs[n].text, p, &c->arena);
        n++;
    }
    if (hoist) {
        Abi *abi = abi_build(&c->arena, p);
        HoistOptions ho = {base, sb_cstr(&cl), o->hoist_unified_memory, o->hoist_dynamic, o->nhoist_dynamic,
                           o->debug_output};
        if (abi && o->hoist_opencl) {
            outs[n].path = arena_printf(&c->arena, "%s/%s_hoist_OpenCL.c", dir, base);
            sb_init(&outs[n].text);
            emit_hoist_opencl(&outs[n].text, abi, &ho, &c->arena);
            n++;
        }
        if (abi && o->hoist_pyopencl) {
            outs[n].path = arena_printf(&c->arena, "%s/%s_hoist_PyOpenCL.py", dir, base);
            sb_init(&outs[n].text);
            emit_hoist_pyopencl(&outs[n].text, abi, &ho, &c->arena);
            n++;
        }
    }
    if (o->emit_runtime_dir) {
        outs[n].path = arena_printf(&c->arena, "%s/crisp_runtime.h", o->emit_runtime_dir);
        sb_init(&outs[n].text);
        sb_puts(&outs[n].text, crisp_runtime_h_text);
        n++;
        outs[n].path = arena_printf(&c->arena, "%s/crisp_runtime.py", o->emit_runtime_dir);
        sb_init(&outs[n].text);
        sb_puts(&outs[n].text, crisp_runtime_py_text);
        n++;
    }
    sb_free(&cl);
    int oom = 0;
    for (int i = 0; i < n; i++) oom |= outs[i].text.oom;
    if (!oom && (o->capture_cl || o->capture_meta)) {
        /* in-memory compilation: hand the text over instead of writing */
        for (int i = 0; i < n; i++) {
            const char *path = outs[i].path;
            size_t len = strlen(path);
            StrBuf *dst = len > 10 && !strcmp(path + len - 10, ".metacrisp") ? o->capture_meta
                          : len > 3 && !strcmp(path + len - 3, ".cl")         ? o->capture_cl
                                                                              : NULL;
            if (dst) sb_putn(dst, sb_cstr(&outs[i].text), outs[i].text.len);
            sb_free(&outs[i].text);
        }
        return 0;
    }
    int ok = !oom && write_outputs(c, outs, n);
    if (oom) fprintf(c->diag.out, "crisp: error: out of memory while emitting\n");
    for (int i = 0; i < n; i++) sb_free(&outs[i].text);
    return ok ? 0 : 2;
}

/* ---- the pipeline ---- */

static int pipeline(Crisp *c) {
    Forms read = stage_read(c);
    if (c->opt->dump == DUMP_READ) return dump_forms(c, read), c->diag.errors ? 1 : 0;
    if (c->diag.fatal) return 1; /* a resource limit: checking would only add noise */
    Expander *x = expander_new(c);
    if (!x) return 1;
    Program *checked = check_program(c, x, read);   /* expands macros as it goes */
    if (c->opt->dump == DUMP_EXPAND) {
        StrBuf b;
        sb_init(&b);
        expander_dump(x, &b);
        fputs(sb_cstr(&b), c->opt->dump_out ? c->opt->dump_out : stdout);
        sb_free(&b);
        return c->diag.errors ? 1 : 0;
    }
    if (checked && !c->diag.errors) {
        for (int i = 0; i < c->opt->nhoist_dynamic; i++) {
            int found = 0;
            for (int f = 0; f < checked->nfuncs; f++)
                found |= checked->funcs[f]->kind == FN_KERNEL && !strcmp(checked->funcs[f]->name, c->opt->hoist_dynamic[i]);
            if (!found) {
                fprintf(c->diag.out, "crisp: error: --hoist-dynamic=%s: the program has no kernel named `%s`\n",
                        c->opt->hoist_dynamic[i], c->opt->hoist_dynamic[i]);
                return 2;
            }
        }
    }
    if (c->opt->dump == DUMP_CHECK && checked && !c->diag.errors) {
        StrBuf b;
        sb_init(&b);
        check_dump(&b, checked);
        fputs(sb_cstr(&b), c->opt->dump_out ? c->opt->dump_out : stdout);
        sb_free(&b);
    }
    if (c->diag.errors || !checked) return 1;
    Analysis *an = analysis_run(c, checked); /* uniformity, + variants, opt-in checks */
    if (c->opt->dump == DUMP_ANALYSIS && an) {
        StrBuf b;
        sb_init(&b);
        analysis_dump(&b, an);
        fputs(sb_cstr(&b), c->opt->dump_out ? c->opt->dump_out : stdout);
        sb_free(&b);
    }
    if (c->diag.errors) return 1;
    return stage_emit(c, checked);
}

int crisp_compile(const CrispOptions *opt, FILE *diag_out) {
    Crisp c;
    memset(&c, 0, sizeof c);
    arena_init(&c.arena);
    if (opt->max_arena_bytes) c.arena.cap = opt->max_arena_bytes;
    diag_init(&c.diag, diag_out);
    c.opt = opt;
    int status;
    if (!load_inputs(&c)) status = 2;
    else status = pipeline(&c);
    if (status == 0 && c.diag.errors) status = 1;
    if (c.arena.exhausted && status == 0) status = 1;
    arena_free(&c.arena);
    return status;
}
