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
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "driver.h"
#include "options.h"
#include "order.h"
#include "shake.h"
#include "targets.h"

#include "../analysis/analysis.h"
#include "../emit-hoist/hoist.h"
#include "../emit-oclc/emit_oclc.h"
#include "../emit-oclc/names.h"
#include "../macros/expand.h"
#include "../reader/reader.h"
#include "../types/check.h"
#include "../core/context.h"
#include "../core/syntax.h"

#define MAX_SOURCE_BYTES (64L * 1024 * 1024)

/* ---- reading sources ---- */

static SrcFile *load_file(Crisp *c, const char *path) {
    struct stat st;
    int is_stdin = !strcmp(path, "-");
    if (is_stdin) {
        if (fstat(0, &st) != 0) st.st_mode = 0;
    } else if (stat(path, &st) != 0) {
        diag_error_plain(&c->diag, NULL, "cannot read `%s`: %s", path, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        diag_error_plain(&c->diag, NULL, "cannot read `%s`: it is a directory", path);
        return NULL;
    }
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        diag_error_plain(&c->diag, NULL, "cannot read `%s`: %s", path, strerror(errno));
        return NULL;
    }
    if (!is_stdin && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= MAX_SOURCE_BYTES) {
        /* a file of known size is read straight into the arena (issue 14:
           through a buffer, then copied, it was two copies of the text and
           a third of the 1 MB program's page faults); one that turns out
           longer than it said is read again the general way */
        size_t want = (size_t)st.st_size;
        SrcFile *sf = arena_alloc(&c->arena, sizeof *sf);
        char *text = arena_alloc(&c->arena, want + 1);
        if (!sf || !text) {
            fclose(f);
            diag_error_plain(&c->diag, NULL, "cannot read `%s`: out of memory", path);
            return NULL;
        }
        size_t got = fread(text, 1, want, f);
        if (got == want && fgetc(f) == EOF && !ferror(f)) {
            fclose(f);
            text[got] = 0;
            sf->name = arena_strdup(&c->arena, path);
            sf->text = text;
            sf->len = (int)got;
            return sf;
        }
        if (ferror(f) || fseek(f, 0, SEEK_SET) != 0) {
            fclose(f);
            diag_error_plain(&c->diag, NULL, "cannot read `%s`: read error", path);
            return NULL;
        }
        clearerr(f);
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
    if (!is_stdin) fclose(f);
    if (err || too_big || b.oom) {
        diag_error_plain(&c->diag, NULL, "cannot read `%s`: %s", path,
                         too_big ? "file larger than 64 MiB" : b.oom ? "out of memory" : "read error");
        sb_free(&b);
        return NULL;
    }
    SrcFile *sf = arena_alloc(&c->arena, sizeof *sf);
    char *text = arena_strndup(&c->arena, sb_cstr(&b), b.len);
    int len = (int)b.len;
    sb_free(&b);
    if (!sf || !text) {
        diag_error_plain(&c->diag, NULL, "cannot read `%s`: out of memory", path);
        return NULL;
    }
    sf->name = arena_strdup(&c->arena, is_stdin ? "<stdin>" : path);
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
        SrcFile *f;
        if (o->input_texts && o->input_texts[i]) {
            /* in memory (the API's add_input_string) */
            f = arena_alloc(&c->arena, sizeof *f);
            if (!f) return 0;
            f->name = o->inputs[i];
            f->text = arena_strndup(&c->arena, o->input_texts[i], o->input_lens[i]);
            f->len = (int)o->input_lens[i];
            if (!f->text || o->input_lens[i] > (size_t)MAX_SOURCE_BYTES) {
                diag_error_plain(&c->diag, NULL, "cannot read `%s`: %s", f->name,
                                 f->text ? "larger than 64 MiB" : "out of memory");
                return 0;
            }
        } else {
            f = load_file(c, o->inputs[i]);
        }
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

/* ---- outputs ----
 *
 * All or nothing: every output is built in memory first; then each target
 * is checked (a directory or another non-file in the way fails before
 * anything is touched), written to a temporary file next to it, and only
 * when every temporary is complete are they renamed into place, keeping a
 * hard link to each file they replace; if a rename fails, the files already
 * renamed are put back.  A new file gets the usual 0666 & ~umask (an
 * existing one keeps its mode); an output path that is a symbolic link is
 * written through the link, so the link stays; a missing output directory
 * is made (0777 & ~umask, as mkdir -p), and removed again on failure
 * (docs/diagnostics.md).  A file that already holds exactly the new text is
 * left alone, so its date stays and build tools see nothing new. */

typedef struct Output {
    const char *path;     /* as the user will see it */
    StrBuf text;
    const char *target;   /* path, or the file its symbolic links lead to */
    char *tmp;            /* the complete new contents, before the rename */
    char *backup;         /* a hard link to the file replaced, until done */
    int moved;            /* the old file was renamed to backup (no link) */
    int placed;           /* renamed into place */
    int same;             /* already holds exactly this text: left alone */
} Output;

static const char *stem_of(Arena *a, const char *path) {
    if (!strcmp(path, "<stdin>")) return "stdin";
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    return arena_strndup(a, base, n);
}

/* The file a path finally names: symbolic links followed (at most 40),
 * a relative link read against its own directory.  NULL with errno set. */
static const char *follow_links(Arena *a, const char *path) {
    const char *p = path;
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode)) return p;
        char buf[4096];
        ssize_t n = readlink(p, buf, sizeof buf - 1);
        if (n < 0) return NULL;
        if (n == (ssize_t)sizeof buf - 1) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        buf[n] = 0;
        const char *slash = strrchr(p, '/');
        if (buf[0] == '/' || !slash) p = arena_strdup(a, buf);
        else p = arena_printf(a, "%.*s/%s", (int)(slash - p), p, buf);
        if (!p) {
            errno = ENOMEM;
            return NULL;
        }
    }
    errno = ELOOP;
    return NULL;
}

/* A new file next to `target` named TARGET.tmpNNNN, mode 0666 & ~umask (or
 * `mode` when the target exists).  Returns the descriptor, -1 on failure. */
static int create_temp(Crisp *c, const char *target, int keep_mode, mode_t mode, char **name) {
    static unsigned counter;
    for (int tries = 0; tries < 100; tries++) {
        *name = arena_printf(&c->arena, "%s.tmp%ld.%u", target, (long)getpid(), counter++);
        if (!*name) {
            errno = ENOMEM;
            return -1;
        }
        int fd = open(*name, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0) {
            if (keep_mode) (void)fchmod(fd, mode & 07777);
            return fd;
        }
        if (errno != EEXIST) return -1;
    }
    return -1;
}

/* The directories made for the outputs, removed again on failure. */
typedef struct MadeDirs {
    const char *v[32];
    int n;
} MadeDirs;

/* mkdir -p of the directory part of `path`; 0 with errno set on failure. */
static int make_parent_dirs(Crisp *c, const char *path, MadeDirs *made) {
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path) return 1;
    char *dir = arena_strndup(&c->arena, path, (size_t)(slash - path));
    if (!dir) {
        errno = ENOMEM;
        return 0;
    }
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return 1;
        errno = ENOTDIR;
        return 0;
    }
    if (errno != ENOENT || !make_parent_dirs(c, dir, made)) return 0;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) return 0;
    if (made->n < 32) made->v[made->n++] = dir;
    return 1;
}

/* A hard link to `target` named TARGET.oldNNNN, or NULL. */
static char *link_backup(Crisp *c, const char *target) {
    static unsigned counter;
    for (int tries = 0; tries < 100; tries++) {
        char *name = arena_printf(&c->arena, "%s.old%ld.%u", target, (long)getpid(), counter++);
        if (!name) return NULL;
        if (link(target, name) == 0) return name;
        if (errno != EEXIST) return NULL;
    }
    return NULL;
}

/* 1 when PATH already holds exactly TEXT. */
static int same_file(const char *path, StrBuf *text) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != text->len) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char buf[65536];
    size_t at = 0, n;
    int same = 1;
    while (same && (n = fread(buf, 1, sizeof buf, f)) > 0) {
        same = at + n <= text->len && memcmp(buf, sb_cstr(text) + at, n) == 0;
        at += n;
    }
    fclose(f);
    return same && at == text->len;
}


static void cannot_write(Crisp *c, const Output *o, const char *why) {
    diag_error_plain(&c->diag, NULL, "cannot write `%s`: %s; no output file was written", o->path, why);
}

/* Put every output in place, or none (see above).  Returns 1 on success. */
static int write_outputs(Crisp *c, Output *outs, int n) {
    int ok = 1;
    /* 1. every target: where it is, and that nothing but a file is there */
    for (int i = 0; i < n && ok; i++) {
        Output *o = &outs[i];
        o->target = follow_links(&c->arena, o->path);
        struct stat st;
        if (!o->target) {
            cannot_write(c, o, errno == ENOMEM ? "out of memory" : strerror(errno));
            ok = 0;
        } else if (stat(o->target, &st) == 0 && !S_ISREG(st.st_mode)) {
            cannot_write(c, o, S_ISDIR(st.st_mode) ? "it is a directory" : "it is not a regular file");
            ok = 0;
        }
        for (int j = 0; j < i && ok; j++)
            if (!strcmp(outs[j].target, o->target)) {
                cannot_write(c, o, arena_printf(&c->arena, "it is the same file as `%s`", outs[j].path));
                ok = 0;
            }
    }
    /* 2. the complete new contents, in temporaries next to the targets */
    MadeDirs made = {{0}, 0};
    for (int i = 0; i < n && ok; i++) {
        Output *o = &outs[i];
        struct stat st;
        if ((o->same = same_file(o->target, &o->text))) continue;
        if (!make_parent_dirs(c, o->target, &made)) {
            cannot_write(c, o, errno == ENOMEM ? "out of memory" : strerror(errno));
            ok = 0;
            break;
        }
        int exists = stat(o->target, &st) == 0;
        int fd = create_temp(c, o->target, exists, exists ? st.st_mode : 0, &o->tmp);
        if (fd < 0) {
            cannot_write(c, o, errno == ENOMEM ? "out of memory" : strerror(errno));
            o->tmp = NULL;
            ok = 0;
            break;
        }
        FILE *f = fdopen(fd, "wb");
        size_t len = o->text.len;
        errno = 0;
        int wrote = f && fwrite(sb_cstr(&o->text), 1, len, f) == len;
        int err = errno;
        if (f ? fclose(f) != 0 : close(fd) != 0) wrote = 0, err = err ? err : errno;
        if (!wrote) {
            cannot_write(c, o, err ? strerror(err) : "write error");
            ok = 0;
        }
    }
    /* 3. rename them into place, keeping the old files until all are */
    for (int i = 0; i < n && ok; i++) {
        Output *o = &outs[i];
        struct stat st;
        if (o->same) continue;
        if (lstat(o->target, &st) == 0) {
            o->backup = link_backup(c, o->target);
            if (!o->backup) { /* no hard links here: move the old file aside */
                o->backup = arena_printf(&c->arena, "%s.old%ld", o->target, (long)getpid());
                o->moved = o->backup && rename(o->target, o->backup) == 0;
                if (!o->moved) o->backup = NULL;
            }
        }
        if (rename(o->tmp, o->target) != 0) {
            cannot_write(c, o, strerror(errno));
            if (o->moved) rename(o->backup, o->target);
            o->backup = NULL;
            ok = 0;
            break;
        }
        o->placed = 1;
    }
    /* 4. done: drop the old files; failed: put them back */
    for (int i = 0; i < n; i++) {
        Output *o = &outs[i];
        if (ok) {
            if (o->backup) unlink(o->backup);
            continue;
        }
        if (o->placed) {
            if (o->backup) rename(o->backup, o->target);
            else unlink(o->target);
        } else if (o->tmp) {
            unlink(o->tmp);
        }
    }
    for (int i = made.n - 1; i >= 0 && !ok; i--) rmdir(made.v[i]);
    return ok;
}

/* Stage 4: every requested output file.  `kept` and `shaken` list what
 * --tree-shaking kept and left out, for the cache record. */
static int stage_emit(Crisp *c, const Program *p, const char *kept, const char *shaken, Forms read,
                      const Program *checked) {
    const CrispOptions *o = c->opt;
    int hoist = o->hoist_opencl || o->hoist_pyopencl || o->hoist_cuda || o->hoist_pycuda;
    int in_memory = o->capture_cl || o->capture_meta || o->capture_bin;
    int record = o->tree_shaking && !in_memory; /* the command line fills the cache */
    const char *reout = in_memory ? NULL : o->re_output_dir;
    if (!o->transpile_oclc && !o->metadata && !hoist && !o->emit_runtime_dir && !o->ntargets && !record && !reout)
        return 0;
    const char *dir = o->output_dir ? o->output_dir : ".";
    const char *base = o->output_base ? o->output_base
                                      : stem_of(&c->arena, c->nfiles ? c->files[c->nfiles - 1]->name : "out");
    const char *cache_dir = o->tree_shake_dir ? o->tree_shake_dir : o->tree_shaking ? dir : NULL;
    /* --ir-target=ptx with an OpenCL hoist: BASE_nvcl.ptx too, the PTX
       NVIDIA's OpenCL loads as the program binary (BASE.ptx is for the
       CUDA driver API, which refuses the nvcl one: docs/targets.md) */
    static const CrispTarget nvcl_target = {TARGET_NVCL, "nvcl"};
    int nvcl = 0;
    for (int i = 0; (o->hoist_opencl || o->hoist_pyopencl) && i < o->ntargets; i++) nvcl |= o->targets[i].kind == TARGET_PTX;
    int ntargets = o->ntargets + nvcl;
    int nmax = 4 + HOIST_MAX_FILES + 2 * ntargets + (reout ? c->nfiles : 0);
    Output *outs = arena_alloc(&c->arena, sizeof(Output) * (size_t)nmax);
    StrBuf **capture = arena_alloc(&c->arena, sizeof(StrBuf *) * (size_t)nmax);
    if (!outs || !capture) {
        diag_error_plain(&c->diag, NULL, "out of memory while emitting; no output file was written");
        return 2;
    }
    memset(outs, 0, sizeof(Output) * (size_t)nmax);
    int n = 0;
    StrBuf cl_own, *cl = &cl_own; /* the OpenCL C */
    sb_init(cl);
    emit_oclc(cl, p, &c->arena);
    if (o->transpile_oclc || hoist) {
        /* the .cl output takes the text itself, not a copy (issue 14:
           a copy of 16 MB for 10 MB of Crisp) */
        outs[n].path = arena_printf(&c->arena, "%s/%s.cl", dir, base);
        capture[n] = o->capture_cl;
        outs[n].text = cl_own;
        cl = &outs[n].text;
        sb_init(&cl_own);
        n++;
    }
    if (o->metadata) {
        outs[n].path = arena_printf(&c->arena, "%s/%s.metacrisp", dir, base);
        capture[n] = o->capture_meta;
        sb_init(&outs[n].text);
        MetaBinary *bins = arena_alloc(&c->arena, sizeof(MetaBinary) * (size_t)(ntargets + 1));
        for (int i = 0; bins && i < ntargets; i++) {
            const CrispTarget *t = i < o->ntargets ? &o->targets[i] : &nvcl_target;
            const char *path = target_file(&c->arena, t, o->fat_binary, dir, base), *slash = path ? strrchr(path, '/') : NULL;
            bins[i].file = slash ? slash + 1 : path ? path : "";
            bins[i].target = t->id;
            bins[i].loader = target_loader(t, o->fat_binary);
        }
        /* its ABI and extents are dead once the text is made: their memory
           serves the hoists' ABI (issue 14) */
        ArenaMark meta_scope = arena_scope_begin(&c->arena);
        emit_metadata_binaries(&outs[n].text, p, &c->arena, bins, bins ? ntargets : 0);
        arena_scope_end(&c->arena, meta_scope);
        n++;
    }
    /* IR and binaries through the vendor tools (targets.c), or from the
       cache when it holds them for exactly this OpenCL C (cache.h) */
    int status = 0;
    for (int i = 0; i < ntargets && !status && !cl->oom; i++) {
        const CrispTarget *t = i < o->ntargets ? &o->targets[i] : &nvcl_target;
        Output *built = &outs[n];
        built->path = target_file(&c->arena, t, o->fat_binary, dir, base);
        capture[n] = i == 0 ? o->capture_bin : NULL;
        sb_init(&built->text);
        n++;
        char *entry = cache_dir ? cache_entry_path(cache_dir, t, o->fat_binary, sb_cstr(cl), cl->len) : NULL;
        if (entry && cache_entry_load(entry, t, o->fat_binary, sb_cstr(cl), cl->len, &built->text)) {
            free(entry);
            continue;
        }
        status = target_build(c, t, o->fat_binary, base, sb_cstr(cl), cl->len, &built->text);
        if (!status && record && entry) {
            outs[n].path = arena_strdup(&c->arena, entry);
            capture[n] = NULL;
            sb_init(&outs[n].text);
            cache_entry_text(&outs[n].text, t, o->fat_binary, sb_cstr(cl), cl->len, &built->text);
            n++;
        }
        free(entry);
    }
    if (record && !status) {
        /* the record: flags, inputs, what was kept, the kernels' requirements */
        StrBuf flags, meta;
        sb_init(&flags);
        sb_init(&meta);
        opt_api_flags(&flags, o);
        emit_metadata(&meta, p, &c->arena);
        const char **names = arena_alloc(&c->arena, sizeof(char *) * (size_t)(c->nfiles + 1));
        const char **texts = arena_alloc(&c->arena, sizeof(char *) * (size_t)(c->nfiles + 1));
        size_t *lens = arena_alloc(&c->arena, sizeof(size_t) * (size_t)(c->nfiles + 1));
        for (int i = 0; names && texts && lens && i < c->nfiles; i++) {
            names[i] = c->files[i]->name;
            texts[i] = c->files[i]->text;
            lens[i] = (size_t)c->files[i]->len;
        }
        outs[n].path = arena_printf(&c->arena, "%s/%s.crisp_libc", cache_dir, base);
        capture[n] = NULL;
        sb_init(&outs[n].text);
        if (names && texts && lens)
            cache_record_text(&outs[n].text, sb_cstr(&flags), names, texts, lens, c->nfiles, kept, shaken, sb_cstr(&meta));
        else
            outs[n].text.oom = 1;
        n++;
        sb_free(&flags);
        sb_free(&meta);
    }
    if (hoist && !status) {
        Abi *abi = abi_build(&c->arena, p);
        HoistOptions ho = {base, sb_cstr(cl), o->hoist_unified_memory, o->hoist_dynamic, o->nhoist_dynamic,
                           o->debug_output, NULL, NULL, NULL, 0, o->fat_binary, 0, 0, 0};
        /* the CUDA hoists load the cubins (or fat binaries) of --binary-gpu-target */
        const char **sms = arena_alloc(&c->arena, sizeof(char *) * (size_t)(o->ntargets + 1));
        for (int i = 0; sms && i < o->ntargets; i++)
            if (o->targets[i].kind == TARGET_CUBIN) sms[ho.ncuda_sms++] = o->targets[i].id;
        for (int i = 0; i < o->ntargets; i++) ho.spirv |= o->targets[i].kind == TARGET_SPV;
        /* the OpenCL hoists load BASE_nvcl.ptx as the program binary on NVIDIA's OpenCL */
        ho.ptx = nvcl;
        ho.cuda_sms = sms;
        StrBuf src, flags;
        sb_init(&src);
        sb_init(&flags);
        if (o->nhoist_dynamic) {
            /* --hoist-dynamic: the inputs and flags, for the in-memory API */
            for (int i = 0; i < c->nfiles; i++) {
                if (c->nfiles > 1) sb_printf(&src, ";; ---- %s\n", c->files[i]->name);
                sb_putn(&src, c->files[i]->text, (size_t)c->files[i]->len);
                if (c->files[i]->len && c->files[i]->text[c->files[i]->len - 1] != '\n') sb_putc(&src, '\n');
            }
            opt_api_flags(&flags, o);
            ho.crisp_source = arena_strdup(&c->arena, sb_cstr(&src));
            ho.crisp_flags = arena_strdup(&c->arena, sb_cstr(&flags));
        }
        sb_free(&src);
        sb_free(&flags);
        HoistFile files[HOIST_MAX_FILES];
        int which = (o->hoist_opencl ? HOIST_OPENCL : 0) | (o->hoist_pyopencl ? HOIST_PYOPENCL : 0) |
                    (o->hoist_cuda ? HOIST_CUDA : 0) | (o->hoist_pycuda ? HOIST_PYCUDA : 0);
        int nf = abi ? emit_hoists(files, abi, &ho, which, &c->arena) : 0;
        for (int i = 0; i < nf; i++) {
            outs[n].path = arena_printf(&c->arena, "%s/%s", dir, files[i].name);
            capture[n] = NULL;
            outs[n++].text = files[i].text;
        }
    }
    if (o->emit_runtime_dir && !status) {
        const char *shim[4][2] = {{"crisp_runtime.h", crisp_runtime_h_text}, {"crisp_runtime.py", crisp_runtime_py_text},
                                  {"crisp_runtime_cuda.h", crisp_runtime_cuda_h_text},
                                  {"crisp_runtime_cuda.py", crisp_runtime_cuda_py_text}};
        for (int i = 0; i < 4; i++) {
            const char *path = arena_printf(&c->arena, "%s/%s", o->emit_runtime_dir, shim[i][0]);
            int dup = 0; /* --emit-runtime into the output directory of a hoist */
            for (int j = 0; j < n; j++) dup |= path && outs[j].path && !strcmp(outs[j].path, path);
            if (dup) continue;
            outs[n].path = path;
            capture[n] = NULL;
            sb_init(&outs[n].text);
            sb_puts(&outs[n].text, shim[i][1]);
            n++;
        }
    }
    for (int i = 0; reout && !status && i < c->nfiles; i++) {
        /* --re-output-crisp: the inputs rewritten (order.c), same file names */
        const char *name = c->files[i]->name, *slash = strrchr(name, '/');
        name = slash ? slash + 1 : name;
        if (!strcmp(name, "<stdin>")) name = "stdin.crisp";
        for (int j = 0; j < i; j++) {
            const char *other = c->files[j]->name, *os = strrchr(other, '/');
            if (!strcmp(os ? os + 1 : other, name)) {
                diag_error_plain(&c->diag, NULL, "--re-output-crisp: two inputs are named `%s`", name);
                status = 2;
            }
        }
        outs[n].path = arena_printf(&c->arena, "%s/%s", reout, name);
        struct stat in_st, out_st;
        for (int j = 0; j < c->nfiles && outs[n].path; j++)
            if (stat(c->files[j]->name, &in_st) == 0 && stat(outs[n].path, &out_st) == 0 && in_st.st_dev == out_st.st_dev &&
                in_st.st_ino == out_st.st_ino) {
                diag_error_plain(&c->diag, NULL, "--re-output-crisp=%s would overwrite the input `%s`: choose another directory",
                                 reout, c->files[j]->name);
                status = 2;
            }
        capture[n] = NULL;
        sb_init(&outs[n].text);
        order_reoutput(c, read, checked, i, &outs[n].text);
        n++;
    }
    int oom = cl->oom;
    sb_free(&cl_own);
    for (int i = 0; i < n; i++) oom |= outs[i].text.oom;
    int ok = !status && !oom;
    if (ok && (o->capture_cl || o->capture_meta || o->capture_bin)) {
        /* in-memory compilation: hand the results over instead of writing */
        for (int i = 0; i < n; i++)
            if (capture[i]) sb_putn(capture[i], sb_cstr(&outs[i].text), outs[i].text.len);
    } else if (ok && c->arena.exhausted) {
        diag_error_plain(&c->diag, NULL, "out of memory"); /* reported as such (diag.c) */
        status = 2;
    } else if (ok) {
        c->arena.fail_jump = NULL; /* writing: files may be open */
        ok = write_outputs(c, outs, n);
        status = ok ? 0 : 2;
    }
    if (oom) {
        diag_error_plain(&c->diag, NULL, "out of memory while emitting; no output file was written");
        status = 2;
    }
    for (int i = 0; i < n; i++) sb_free(&outs[i].text);
    return status;
}

/* ---- crisp_compile_string: later definitions replace earlier ones ---- */

static int file_index(const Crisp *c, const Node *n) {
    for (int i = 0; i < c->nfiles; i++)
        if (srcloc_file(n->loc) == c->files[i]) return i;
    return -1;
}

/* Inputs from `override_from` on override: their definitions remove the
 * same-named definitions of earlier inputs (the API, docs/api.md). */
static Forms apply_overrides(Crisp *c, Forms f) {
    int from = c->opt->override_from;
    if (from <= 0 || from >= c->nfiles) return f;
    char *gone = arena_alloc(&c->arena, (size_t)f.n + 1);
    if (!gone) return f;
    for (int i = 0; i < f.n; i++) {
        const char *name = order_defined_name(f.v[i]);
        if (!name || file_index(c, f.v[i]) < from) continue;
        for (int j = 0; j < i; j++) {
            const char *other = order_defined_name(f.v[j]);
            if (other && !strcmp(other, name) && file_index(c, f.v[j]) < file_index(c, f.v[i])) gone[j] = 1;
        }
    }
    Forms out = {0};
    for (int i = 0; i < f.n; i++)
        if (!gone[i]) forms_push(&c->arena, &out, f.v[i]);
    return out;
}

/* ---- the pipeline ---- */

/* How generated files name their sources: by file name only, so outputs
 * carry no build paths and are identical across checkouts and machines. */
static const char *source_names(Crisp *c) {
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < c->nfiles; i++) {
        const char *name = c->files[i]->name, *slash = strrchr(name, '/');
        if (i) sb_putc(&b, ' ');
        sb_puts(&b, slash && slash[1] ? slash + 1 : name);
    }
    const char *s = b.oom ? NULL : arena_strdup(&c->arena, sb_cstr(&b));
    sb_free(&b);
    return s;
}

/* The stages after reading (the reader reports running out of memory
 * itself): one that meets a refused allocation (past the arena's hard
 * limit, a quarter beyond --max-memory) where it does not expect one jumps
 * back here; out of memory is reported as such (crisp_run) and nothing is
 * written. */
static int pipeline_after_read(Crisp *c, Forms read);

static int pipeline(Crisp *c) {
    Forms read = apply_overrides(c, stage_read(c));
    jmp_buf fail;
    int status;
    if (setjmp(fail) == 0) {
        c->arena.fail_jump = &fail;
        status = pipeline_after_read(c, read);
    } else {
        status = 1;
    }
    c->arena.fail_jump = NULL;
    return status;
}

static int pipeline_after_read(Crisp *c, Forms read) {
    if (c->opt->single_pass && !c->diag.fatal) order_check_single_pass(c, read);
    if (c->opt->dump == DUMP_READ) return dump_forms(c, read), c->diag.errors ? 1 : 0;
    if (c->diag.fatal) return 1; /* a resource limit: checking would only add noise */
    Expander *x = expander_new(c);
    if (!x) return 1;
    Program *checked = check_program(c, x, read, &oclc_names); /* expands macros as it goes */
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
                diag_error_plain(&c->diag, NULL, "--hoist-dynamic=%s: the program has no kernel named `%s`",
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
    oclc_name_program(checked, &c->arena); /* what the target alone names */
    Analysis *an = analysis_run(c, checked); /* uniformity, + variants, opt-in checks */
    if (c->opt->dump == DUMP_ANALYSIS && an) {
        StrBuf b;
        sb_init(&b);
        analysis_dump(&b, an);
        fputs(sb_cstr(&b), c->opt->dump_out ? c->opt->dump_out : stdout);
        sb_free(&b);
    }
    analysis_release(c, an); /* its memory serves the emitters */
    if (c->diag.errors) return 1;
    const char *names = source_names(c);
    if (names) checked->source = names;
    StrBuf kept, shaken;
    sb_init(&kept);
    sb_init(&shaken);
    const Program *emitted = checked;
    /* the emitters do not check every allocation: past the arena's hard
       limit an allocation jumps back here, and nothing is written */
    jmp_buf emit_fail, *outer = c->arena.fail_jump;
    int status;
    if (setjmp(emit_fail) == 0) {
        c->arena.fail_jump = &emit_fail;
        if (c->opt->tree_shaking) emitted = tree_shake(&c->arena, checked, &kept, &shaken);
        status = emitted ? stage_emit(c, emitted, sb_cstr(&kept), sb_cstr(&shaken), read, checked) : 1;
    } else {
        diag_error_plain(&c->diag, NULL, "out of memory while emitting; no output file was written");
        status = 2;
    }
    c->arena.fail_jump = outer;
    sb_free(&kept);
    sb_free(&shaken);
    return status;
}

int crisp_run(const CrispOptions *opt, FILE *diag_out) {
    Crisp c;
    memset(&c, 0, sizeof c);
    arena_init(&c.arena);
    if (opt->max_arena_bytes) c.arena.cap = opt->max_arena_bytes;
    diag_init(&c.diag, diag_out);
    c.diag.format = opt->diagnostics_json ? DIAG_FORMAT_JSON : DIAG_FORMAT_TEXT;
    c.diag.color = opt->diagnostics_color && !opt->diagnostics_json;
    c.diag.werror = opt->warnings_as_errors;
    c.diag.no_warnings = opt->no_warnings;
    c.diag.max_errors = opt->max_errors < 0 ? INT_MAX : opt->max_errors;
    c.diag.exhausted = &c.arena.exhausted;
    c.diag.mem_limit = c.arena.cap;
    c.opt = opt;
    int status;
    if (!load_inputs(&c)) status = 2;
    else status = pipeline(&c);
    if (status == 0 && c.diag.errors) status = 1;
    if (c.arena.exhausted && !c.diag.errors) {
        diag_error_plain(&c.diag, NULL, "out of memory"); /* reported as such (diag.c) */
        if (status == 0) status = 1;
    }
    diag_finish(&c.diag);
    arena_free(&c.arena);
    return status;
}
