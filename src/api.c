/* api.c - the in-memory compilation API of include/crisp.h.
 *
 * Spec: "In-Memory Compilation API", "Status Codes", "Flags".  A context
 * owns copies of its inputs (files are read when added), its flags (parsed
 * through the option table, options.c) and the results of its last
 * compilation; crisp_compile runs the same pipeline as the command line
 * (crisp_run) with the outputs captured in memory and the diagnostics in
 * a memory stream.  No global state: separate contexts may be used from
 * separate threads.  Allocation failures are reported, never fatal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/crisp.h"
#include "cache.h"
#include "driver.h"
#include "options.h"

struct crisp_context {
    CrispTarget target;      /* kind and id; id "oclc" for OpenCL C text */
    int is_oclc;
    /* inputs, in order: names and texts (malloc'd) */
    char **names, **texts;
    size_t *lens;
    int ninputs, capinputs;
    int override_from;       /* crisp_compile_string: its inputs override */
    /* flags (crisp_set_flags or the tree-shake record) */
    char *flags;
    Arena flag_arena;
    CrispOptions flag_opts;
    char *cache_dir;         /* crisp_set_tree_shake_directory */
    char *cache_meta;        /* the record's metadata: the reference ABI */
    /* the last compilation */
    StrBuf bin, meta, messages;
    int have_result;
    long error_code;
    char *prev_meta;         /* metadata of the last successful compilation */
};

/* ---- helpers ---- */

static char *dup_n(const char *s, size_t n) {
    char *p = malloc(n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

static void message(crisp_context *ctx, const char *text) {
    sb_puts(&ctx->messages, text);
}

/* A failed call: the messages say why. */
static int call_error(crisp_context *ctx, const char *fmt, const char *arg) {
    sb_free(&ctx->messages);
    sb_init(&ctx->messages);
    sb_puts(&ctx->messages, "crisp: error: ");
    sb_printf(&ctx->messages, fmt, arg ? arg : "");
    sb_putc(&ctx->messages, '\n');
    ctx->error_code = 2;
    return -1;
}

static int add_input(crisp_context *ctx, const char *name, const char *text, size_t len) {
    if (ctx->ninputs == ctx->capinputs) {
        int cap = ctx->capinputs ? ctx->capinputs * 2 : 4;
        char **names = realloc(ctx->names, sizeof(char *) * (size_t)cap);
        if (names) ctx->names = names;
        char **texts = realloc(ctx->texts, sizeof(char *) * (size_t)cap);
        if (texts) ctx->texts = texts;
        size_t *lens = realloc(ctx->lens, sizeof(size_t) * (size_t)cap);
        if (lens) ctx->lens = lens;
        if (!names || !texts || !lens) return call_error(ctx, "out of memory%s", NULL);
        ctx->capinputs = cap;
    }
    char *n = dup_n(name, strlen(name)), *t = dup_n(text, len);
    if (!n || !t) {
        free(n);
        free(t);
        return call_error(ctx, "out of memory%s", NULL);
    }
    ctx->names[ctx->ninputs] = n;
    ctx->texts[ctx->ninputs] = t;
    ctx->lens[ctx->ninputs] = len;
    ctx->ninputs++;
    return 0;
}

/* ---- the API ---- */

CRISP_API const char *crisp_version(void) {
    return CRISP_VERSION;
}

CRISP_API crisp_context *crisp_new_context(const char *target_identifier) {
    if (!target_identifier) return NULL;
    crisp_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return NULL;
    sb_init(&ctx->bin);
    sb_init(&ctx->meta);
    sb_init(&ctx->messages);
    arena_init(&ctx->flag_arena);
    if (!strcmp(target_identifier, "oclc")) {
        ctx->is_oclc = 1;
        ctx->target.id = "oclc";
    } else {
        /* the ID is checked by the option table, as on the command line */
        Arena a;
        arena_init(&a);
        CrispOptions o;
        memset(&o, 0, sizeof o);
        StrBuf err;
        sb_init(&err);
        OptState st = {.o = &o, .a = &a, .err = &err};
        int ambiguous;
        int is_ir = !strcmp(target_identifier, "spv") || !strcmp(target_identifier, "ptx");
        const OptSpec *spec = opt_find_long(is_ir ? "ir-target" : "binary-gpu-target", &ambiguous);
        int bad = !spec || opt_apply(&st, spec, target_identifier) || o.ntargets != 1;
        if (!bad) {
            ctx->target.kind = o.targets[0].kind;
            ctx->target.id = strdup(target_identifier);
        }
        sb_free(&err);
        arena_free(&a);
        if (bad || !ctx->target.id) {
            free(ctx);
            return NULL;
        }
    }
    ctx->flags = strdup("");
    if (!ctx->flags) {
        crisp_destroy_context(ctx);
        return NULL;
    }
    return ctx;
}

CRISP_API void crisp_destroy_context(crisp_context *ctx) {
    if (!ctx) return;
    for (int i = 0; i < ctx->ninputs; i++) {
        free(ctx->names[i]);
        free(ctx->texts[i]);
    }
    free(ctx->names);
    free(ctx->texts);
    free(ctx->lens);
    free(ctx->flags);
    arena_free(&ctx->flag_arena);
    free(ctx->cache_dir);
    free(ctx->cache_meta);
    free(ctx->prev_meta);
    sb_free(&ctx->bin);
    sb_free(&ctx->meta);
    sb_free(&ctx->messages);
    if (!ctx->is_oclc) free((char *)ctx->target.id);
    free(ctx);
}

CRISP_API int crisp_add_input_string(crisp_context *ctx, const char *crisp_source, const char *virtual_file_name) {
    if (!ctx) return -1;
    if (!crisp_source) return call_error(ctx, "crisp_add_input_string: no source%s", NULL);
    return add_input(ctx, virtual_file_name && *virtual_file_name ? virtual_file_name : "<string>", crisp_source,
                     strlen(crisp_source));
}

CRISP_API int crisp_add_input_file(crisp_context *ctx, const char *path) {
    if (!ctx) return -1;
    if (!path) return call_error(ctx, "crisp_add_input_file: no path%s", NULL);
    StrBuf text;
    sb_init(&text);
    int r = cache_read_source(path, &text);
    if (r) {
        sb_free(&text);
        char why[512];
        snprintf(why, sizeof why, "%.400s`: %s", path, r == EFBIG ? "file larger than 64 MiB" : strerror(r));
        return call_error(ctx, "cannot read `%s", why);
    }
    r = add_input(ctx, path, sb_cstr(&text), text.len);
    sb_free(&text);
    return r;
}

/* Parse `flags` into the context; 0 or -1. */
static int apply_flags(crisp_context *ctx, const char *flags) {
    Arena a;
    arena_init(&a);
    CrispOptions o;
    memset(&o, 0, sizeof o);
    StrBuf err, warn;
    sb_init(&err);
    sb_init(&warn);
    char *copy = arena_strdup(&a, flags ? flags : "");
    OptState st = {.o = &o, .a = &a, .err = &err, .warn = &warn, .api = 1};
    int r = copy ? opt_parse_string(&st, copy) : 2;
    if (r) {
        sb_free(&ctx->messages);
        sb_init(&ctx->messages);
        sb_puts(&ctx->messages, err.len ? sb_cstr(&err) : "crisp: error: out of memory\n");
        ctx->error_code = 2;
        sb_free(&err);
        sb_free(&warn);
        arena_free(&a);
        return -1;
    }
    char *text = strdup(copy);
    if (!text) {
        sb_free(&err);
        sb_free(&warn);
        arena_free(&a);
        return call_error(ctx, "out of memory%s", NULL);
    }
    free(ctx->flags);
    ctx->flags = text;
    arena_free(&ctx->flag_arena);
    ctx->flag_arena = a; /* owns the option values */
    ctx->flag_opts = o;
    sb_free(&ctx->messages);
    sb_init(&ctx->messages);
    sb_puts(&ctx->messages, sb_cstr(&warn));
    sb_free(&err);
    sb_free(&warn);
    return 0;
}

CRISP_API int crisp_set_flags(crisp_context *ctx, const char *flags) {
    if (!ctx) return -1;
    return apply_flags(ctx, flags);
}

CRISP_API int crisp_get_flags(crisp_context *ctx, char *buffer, size_t *size) {
    if (!ctx || !size) return -1;
    size_t need = strlen(ctx->flags) + 1;
    if (!buffer) {
        *size = need;
        return 0;
    }
    size_t have = *size;
    *size = need;
    if (have == 0) return -1;
    size_t n = need <= have ? need - 1 : have - 1;
    memcpy(buffer, ctx->flags, n);
    buffer[n] = 0;
    return need <= have ? 0 : -1;
}

CRISP_API int crisp_set_tree_shake_directory(crisp_context *ctx, const char *path) {
    if (!ctx) return -1;
    if (!path || !*path) return call_error(ctx, "crisp_set_tree_shake_directory: no directory%s", NULL);
    CacheRecord rec;
    StrBuf err;
    sb_init(&err);
    if (cache_load_record(path, &rec, &err) != 0) {
        int r = call_error(ctx, "%s", sb_cstr(&err));
        sb_free(&err);
        return r;
    }
    sb_free(&err);
    char *dir = strdup(path);
    if (!dir || apply_flags(ctx, rec.flags) != 0) {
        free(dir);
        cache_record_free(&rec);
        return dir ? -1 : call_error(ctx, "out of memory%s", NULL);
    }
    free(ctx->cache_dir);
    ctx->cache_dir = dir;
    free(ctx->cache_meta);
    ctx->cache_meta = rec.metadata;
    rec.metadata = NULL;
    cache_record_free(&rec);
    return 0;
}

/* The number of the first error's code in the messages (E0312 -> 312), or
 * 2 when the first error has none. */
static long first_error_code(const char *messages) {
    const char *e = strstr(messages, "error");
    while (e && !(e == messages || e[-1] == ' ') ) e = strstr(e + 1, "error");
    if (e && e[5] == '[' && (e[6] == 'E' || e[6] == 'W')) return strtol(e + 7, NULL, 10);
    return 2;
}

CRISP_API crisp_status crisp_compile(crisp_context *ctx, size_t *size) {
    if (!ctx) return CRISP_ERROR_COMPILE_FAILURE;
    sb_free(&ctx->bin);
    sb_free(&ctx->meta);
    sb_free(&ctx->messages);
    sb_init(&ctx->bin);
    sb_init(&ctx->meta);
    sb_init(&ctx->messages);
    ctx->have_result = 0;
    if (ctx->ninputs == 0) {
        call_error(ctx, "nothing to compile: add an input first (crisp_add_input_string, crisp_add_input_file)%s", NULL);
        return CRISP_ERROR_COMPILE_FAILURE;
    }
    /* the context's flags, its inputs in memory, its outputs captured */
    CrispOptions o = ctx->flag_opts;
    o.inputs = (const char **)ctx->names;
    o.ninputs = ctx->ninputs;
    o.input_texts = (const char *const *)ctx->texts;
    o.input_lens = ctx->lens;
    o.override_from = ctx->override_from;
    o.metadata = 1;
    o.capture_meta = &ctx->meta;
    if (ctx->is_oclc) {
        o.transpile_oclc = 1;
        o.capture_cl = &ctx->bin;
    } else {
        o.targets = &ctx->target;
        o.ntargets = 1;
        o.capture_bin = &ctx->bin;
    }
    o.tree_shake_dir = ctx->cache_dir;
    o.output_base = "crisp_api"; /* the tools' file names (their messages say crisp_api.cl:LINE) */
    o.dump = DUMP_NONE;
    char *buf = NULL;
    size_t len = 0;
    FILE *diag = open_memstream(&buf, &len);
    if (!diag) {
        call_error(ctx, "out of memory%s", NULL);
        return CRISP_ERROR_COMPILE_FAILURE;
    }
    int status = crisp_run(&o, diag);
    fclose(diag);
    sb_puts(&ctx->messages, buf ? buf : "");
    free(buf);
    if (status != 0 || ctx->bin.oom || ctx->meta.oom) {
        if (status == 0) message(ctx, "crisp: error: out of memory\n");
        ctx->error_code = status == 0 ? 2 : first_error_code(sb_cstr(&ctx->messages));
        sb_free(&ctx->bin);
        sb_free(&ctx->meta);
        sb_init(&ctx->bin);
        sb_init(&ctx->meta);
        return CRISP_ERROR_COMPILE_FAILURE;
    }
    ctx->error_code = 0;
    ctx->have_result = 1;
    if (ctx->is_oclc) sb_cstr(&ctx->bin); /* NUL-terminated text */
    if (size) *size = ctx->bin.len;
    /* compatible with what the host launched before? */
    const char *meta = sb_cstr(&ctx->meta);
    int breaking = (ctx->prev_meta && cache_abi_breaks(ctx->prev_meta, meta)) ||
                   (ctx->cache_meta && cache_abi_breaks(ctx->cache_meta, meta));
    char *keep = strdup(meta);
    if (keep) {
        free(ctx->prev_meta);
        ctx->prev_meta = keep;
    }
    return breaking ? CRISP_SUCCESS_BREAKING_CHANGE : CRISP_SUCCESS_COMPATIBLE;
}

CRISP_API crisp_status crisp_compile_string(crisp_context *ctx, const char *crisp_source, size_t *size) {
    if (!ctx) return CRISP_ERROR_COMPILE_FAILURE;
    int first = ctx->ninputs;
    char name[48];
    snprintf(name, sizeof name, "<string %d>", first + 1);
    if (crisp_add_input_string(ctx, crisp_source, name) != 0) return CRISP_ERROR_COMPILE_FAILURE;
    if (first > 0 && !ctx->override_from) ctx->override_from = first;
    return crisp_compile(ctx, size);
}

CRISP_API bool crisp_get_binary(crisp_context *ctx, const void **out_data, size_t *out_size) {
    if (!ctx || !ctx->have_result) return false;
    if (out_data) *out_data = ctx->is_oclc ? (const void *)sb_cstr(&ctx->bin) : (const void *)ctx->bin.data;
    if (out_size) *out_size = ctx->bin.len;
    return true;
}

CRISP_API long crisp_get_compilation_error_code(crisp_context *ctx) {
    return ctx ? ctx->error_code : 2;
}

CRISP_API const char *crisp_get_messages(crisp_context *ctx) {
    return ctx ? sb_cstr(&ctx->messages) : "";
}

CRISP_API const char *crisp_get_metadata(crisp_context *ctx) {
    return ctx && ctx->have_result ? sb_cstr(&ctx->meta) : NULL;
}
