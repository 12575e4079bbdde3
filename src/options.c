/* options.c - the table of crisp's options and what each one does.
 *
 * Spec: "Compiler Invocation and Options" (output targeting, other flags,
 * compilation flags).  One row per option; main.c turns the table into
 * getopt_long's `struct option` array and the help text, api.c parses
 * crisp_set_flags strings against it.  Long names are matched without
 * regard to case, so the spec's spellings `--IR-target` and
 * `--binary-GPU-target` work too (docs/targets.md). */
#include "options.h"

#include "../core/suggest.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FLAG(field) ((int)offsetof(CrispOptions, field))

static int fail(OptState *st, const char *fmt, const char *a, const char *b) {
    sb_puts(st->err, "crisp: error: ");
    sb_printf(st->err, fmt, a, b);
    sb_putc(st->err, '\n');
    return 2;
}

static int needs_value(OptState *st, const OptSpec *spec, const char *v) {
    if (v && *v) return 0;
    const char *m = spec->metavar;
    return fail(st, "--%s needs a %s", spec->name,
                !strcmp(m, "DIR") ? "directory" : !strcmp(m, "KERNEL") ? "kernel name" : !strcmp(m, "NAME") ? "name" : m);
}

/* ---- the apply functions ---- */

static int set_flag(OptState *st, const OptSpec *spec, const char *v) {
    (void)v;
    *(int *)((char *)st->o + spec->flag_offset) = 1;
    return 0;
}

static int set_transpile(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    if (strcmp(v, "oclc") != 0) return fail(st, "unknown --transpile-to target `%s` (supported: oclc)%s", v, "");
    st->o->transpile_oclc = 1;
    return 0;
}

static int set_ocl_version(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    if (!strcmp(v, "1.2") || !strcmp(v, "CL1.2")) st->o->ocl_version = 120;
    else if (!strcmp(v, "2.0") || !strcmp(v, "CL2.0")) st->o->ocl_version = 200;
    else if (!strcmp(v, "3.0") || !strcmp(v, "CL3.0")) st->o->ocl_version = 300;
    else return fail(st, "unknown --ocl-version `%s` (supported: 1.2, 2.0, 3.0)%s", v, "");
    return 0;
}

static int set_output_dir(OptState *st, const OptSpec *spec, const char *v) {
    if (needs_value(st, spec, v)) return 2;
    st->o->output_dir = v;
    return 0;
}

static int set_output_base(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    if (!*v || strchr(v, '/')) return fail(st, "--output-base needs a plain file name, found `%s`%s", v, "");
    st->o->output_base = v;
    return 0;
}

static int set_o(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    if (!*v) return fail(st, "-o needs a file name%s%s", "", "");
    if (!strcmp(v, "-")) return fail(st, "-o -: crisp writes files, not standard output (use --dump or the API)%s%s", "", "");
    st->o_file = v;
    return 0;
}

/* Grow an array of `size`-byte elements held in the option arena. */
static void *grow(OptState *st, void *v, int n, int *cap, size_t size) {
    if (n < *cap) return v;
    int nc = *cap ? *cap * 2 : 8;
    void *p = arena_alloc(st->a, size * (size_t)nc);
    if (!p) return NULL;
    if (n) memcpy(p, v, size * (size_t)n);
    *cap = nc;
    return p;
}

static int oom(OptState *st) {
    return fail(st, "out of memory while reading the options%s%s", "", "");
}

static int set_define(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    const char *eq = strchr(v, '=');
    size_t n = eq ? (size_t)(eq - v) : strlen(v);
    if (n == 0) return fail(st, "-D needs NAME=VALUE, found `-D%s`%s", v, "");
    CrispOptions *o = st->o;
    CrispDefine *d = grow(st, o->defines, o->ndefines, &st->ndefines_cap, sizeof *d);
    char *name = arena_strndup(st->a, v, n);
    if (!d || !name) return oom(st);
    o->defines = d;
    d[o->ndefines].name = name;
    d[o->ndefines].value = eq ? eq + 1 : "t";
    o->ndefines++;
    return 0;
}

static int add_target(OptState *st, CrispTargetKind kind, const char *id) {
    CrispOptions *o = st->o;
    for (int i = 0; i < o->ntargets; i++)
        if (!strcmp(o->targets[i].id, id)) return 0; /* named twice: built once */
    CrispTarget *t = grow(st, o->targets, o->ntargets, &st->ntargets_cap, sizeof *t);
    if (!t) return oom(st);
    o->targets = t;
    t[o->ntargets].kind = kind;
    t[o->ntargets].id = id;
    o->ntargets++;
    return 0;
}

static int set_ir_target(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    if (!strcmp(v, "spv")) return add_target(st, TARGET_SPV, "spv");
    if (!strcmp(v, "ptx")) return add_target(st, TARGET_PTX, "ptx");
    return fail(st, "unknown --ir-target `%s` (supported: spv, ptx)%s", v, "");
}

/* sm_XX, sm_XXa, sm_XXf: which ones exist is the installed ptxas's to say
 * (targets.c asks it); here only the spelling is checked. */
static int is_sm(const char *v) {
    if (strncmp(v, "sm_", 3) != 0 || !isdigit((unsigned char)v[3])) return 0;
    const char *p = v + 3;
    while (isdigit((unsigned char)*p)) p++;
    if (*p == 'a' || *p == 'f') p++;
    return *p == 0;
}

static int set_gpu_target(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    if (is_sm(v)) return add_target(st, TARGET_CUBIN, v);
    if (!strcmp(v, "pvc")) return add_target(st, TARGET_PVC, "pvc");
    return fail(st, "unknown --binary-gpu-target `%s` (sm_XX for NVIDIA GPUs through ptxas, e.g. sm_90; pvc for Intel Ponte Vecchio through ocloc)%s", v, "");
}

static int set_hoist(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    if (!strcmp(v, "OpenCL")) st->o->hoist_opencl = 1;
    else if (!strcmp(v, "PyOpenCL")) st->o->hoist_pyopencl = 1;
    else if (!strcmp(v, "CUDA") || !strcmp(v, "PyCUDA")) {
        /* the CUDA hoists load the PTX (and the cubins of --binary-gpu-target) */
        if (!strcmp(v, "CUDA")) st->o->hoist_cuda = 1;
        else st->o->hoist_pycuda = 1;
        return add_target(st, TARGET_PTX, "ptx");
    } else if (!strcmp(v, "L0") || !strcmp(v, "PyLevelZero"))
        return fail(st, "hoist target `%s` is not available: Level Zero loads SPIR-V modules through Intel's "
                        "Level Zero loader, which crisp neither builds against nor can test here; load the SPIR-V of "
                        "--ir-target=spv with your own Level Zero code, or use --hoist=OpenCL / PyOpenCL (Intel's "
                        "OpenCL runtime takes the same SPIR-V)%s", v, "");
    else
        return fail(st, "unknown hoist target `%s` (available: OpenCL, PyOpenCL, CUDA, PyCUDA)%s", v, "");
    return 0;
}

static int set_hoist_dynamic(OptState *st, const OptSpec *spec, const char *v) {
    if (needs_value(st, spec, v)) return 2;
    CrispOptions *o = st->o;
    const char **k = grow(st, o->hoist_dynamic, o->nhoist_dynamic, &st->nhoist_cap, sizeof *k);
    if (!k) return oom(st);
    o->hoist_dynamic = k;
    k[o->nhoist_dynamic++] = v;
    return 0;
}

static int set_emit_runtime(OptState *st, const OptSpec *spec, const char *v) {
    if (needs_value(st, spec, v)) return 2;
    st->o->emit_runtime_dir = v;
    return 0;
}

static int set_dump(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    if (!strcmp(v, "read")) st->o->dump = DUMP_READ;
    else if (!strcmp(v, "expand")) st->o->dump = DUMP_EXPAND;
    else if (!strcmp(v, "check")) st->o->dump = DUMP_CHECK;
    else if (!strcmp(v, "analysis")) st->o->dump = DUMP_ANALYSIS;
    else return fail(st, "unknown --dump stage `%s` (expected read, expand, check or analysis)%s", v, "");
    return 0;
}

static int set_macroexpand(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    (void)v;
    st->o->dump = DUMP_EXPAND;
    return 0;
}

static int set_tree_shake_dir(OptState *st, const OptSpec *spec, const char *v) {
    if (needs_value(st, spec, v)) return 2;
    st->o->tree_shake_dir = v;
    return 0;
}

static int set_re_output(OptState *st, const OptSpec *spec, const char *v) {
    if (needs_value(st, spec, v)) return 2;
    st->o->re_output_dir = v;
    return 0;
}

/* diagnostics (docs/diagnostics.md) */

static int set_diag_format(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    if (!strcmp(v, "json")) st->o->diagnostics_json = 1;
    else if (!strcmp(v, "text")) st->o->diagnostics_json = 0;
    else return fail(st, "unknown --diagnostics-format `%s` (expected text or json)%s", v, "");
    return 0;
}

static int set_color(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    if (strcmp(v, "auto") && strcmp(v, "always") && strcmp(v, "never"))
        return fail(st, "unknown --color `%s` (expected auto, always or never)%s", v, "");
    st->color = v;
    return 0;
}

/* -Werror (getopt: -W with the value "error") */
static int set_W(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    if (strcmp(v, "error") != 0) return fail(st, "unknown option `-W%s` (crisp knows -Werror)%s", v, "");
    st->o->warnings_as_errors = 1;
    return 0;
}

/* -fmax-errors=N (getopt: -f with the value "max-errors=N") */
static int set_f(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    if (strncmp(v, "max-errors=", 11) != 0) return fail(st, "unknown option `-f%s` (crisp knows -fmax-errors=N)%s", v, "");
    char *end;
    long n = strtol(v + 11, &end, 10);
    if (!v[11] || *end || n < 0 || n > 1000000)
        return fail(st, "-fmax-errors needs a count from 0 (no limit) to 1000000, found `%s`%s", v + 11, "");
    st->o->max_errors = n == 0 ? -1 : (int)n;
    return 0;
}

static int set_max_memory(OptState *st, const OptSpec *spec, const char *v) {
    (void)spec;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    unsigned long long unit = !strcmp(end, "K") || !strcmp(end, "k")   ? 1ull << 10
                              : !strcmp(end, "M") || !strcmp(end, "m") ? 1ull << 20
                              : !strcmp(end, "G") || !strcmp(end, "g") ? 1ull << 30
                              : !*end                                  ? 1
                                                                       : 0;
    if (!*v || *v == '-' || !unit || n == 0 || n > (64ull << 30) / unit)
        return fail(st, "--max-memory needs a size such as 512M (bytes, K, M or G; at most 64G), found `%s`%s", v, "");
    st->o->max_arena_bytes = (size_t)(n * unit);
    return 0;
}

/* ---- the table ---- */

#define ALL (OPT_CLI | OPT_API)

const OptSpec opt_table[] = {
    /* output targeting (spec "Output Targeting Options") */
    {"transpile-to", 0, OPT_ARG, OPT_CLI, set_transpile, -1, "oclc", "write DIR/BASE.cl (OpenCL C)"},
    {"ocl-version", 0, OPT_ARG, ALL, set_ocl_version, -1, "1.2|2.0|3.0",
     "the OpenCL C version the .cl is written for (default 1.2; 2.0 and 3.0 add the sub-group lowering of the warp forms)"},
    {"ir-target", 0, OPT_ARG, OPT_CLI, set_ir_target, -1, "ID", "write DIR/BASE.spv (spv) or DIR/BASE.ptx (ptx; with --hoist=OpenCL/PyOpenCL also DIR/BASE_nvcl.ptx, for NVIDIA's OpenCL); repeatable"},
    {"binary-gpu-target", 0, OPT_ARG, OPT_CLI, set_gpu_target, -1, "ID",
     "write DIR/BASE_ID.cubin (sm_XX: any sm_ the installed ptxas knows) or DIR/BASE_pvc.bin (pvc, through ocloc); repeatable"},
    {"fat-binary", 0, OPT_NO_ARG, OPT_CLI, set_flag, FLAG(fat_binary), NULL,
     "binaries carry their IR: DIR/BASE_sm_XX.fatbin (cubin + PTX), pvc with its SPIR-V"},
    {"metadata", 0, OPT_NO_ARG, OPT_CLI, set_flag, FLAG(metadata), NULL, "write DIR/BASE.metacrisp (JSON kernel arguments)"},
    {"output-dir", 0, OPT_ARG, OPT_CLI, set_output_dir, -1, "DIR", "where outputs go (default: current directory)"},
    {"output-base", 0, OPT_ARG, OPT_CLI, set_output_base, -1, "NAME",
     "output file name without extension (default: the last input file's name)"},
    {NULL, 'o', OPT_ARG, OPT_CLI, set_o, -1, "FILE",
     "output directory and base name from FILE; with no other output, FILE's extension (.cl .metacrisp .spv .ptx) picks it"},
    {"hoist", 0, OPT_ARG, OPT_CLI, set_hoist, -1, "ID",
     "write DIR/BASE_hoist_OpenCL.h/.c/_demo.c (OpenCL), DIR/BASE_hoist_PyOpenCL.py (PyOpenCL), DIR/BASE_hoist_CUDA.h/.cpp/_demo.cpp (CUDA) or DIR/BASE_hoist_PyCUDA.py (PyCUDA), with the runtime shim crisp_runtime*.h/.py beside them; implies the .cl (and for CUDA the .ptx); repeatable"},
    {"hoist-unified-memory", 0, OPT_NO_ARG, OPT_CLI, set_flag, FLAG(hoist_unified_memory), NULL,
     "use OpenCL shared virtual memory in the hoists"},
    {"hoist-dynamic", 0, OPT_ARG, OPT_CLI, set_hoist_dynamic, -1, "KERNEL",
     "the hoists compile KERNEL's source at run time (repeatable)"},
    {"emit-runtime", 0, OPT_ARG, OPT_CLI, set_emit_runtime, -1, "DIR", "write the runtime shims (crisp_runtime.h/.py, crisp_runtime_cuda.h/.py) to DIR"},
    /* compilation flags (spec "Other Flags", "Compiliation Flags") */
    {NULL, 'D', OPT_ARG, ALL, set_define, -1, "NAME=VALUE", "set a def-parameter (repeatable)"},
    {"debug-output", 0, OPT_NO_ARG, ALL, set_flag, FLAG(debug_output), NULL,
     "add the run-time debug channel (r-t-output, r-t-assert)"},
    {"tree-shaking", 0, OPT_NO_ARG, ALL, set_flag, FLAG(tree_shaking), NULL,
     "emit only what the kernels use; record the compilation in the cache directory"},
    {"tree-shake-dir", 0, OPT_ARG, OPT_CLI, set_tree_shake_dir, -1, "DIR",
     "the cache directory --tree-shaking writes and later compilations read (default: the output directory)"},
    {"skip-c-t-checks", 0, OPT_NO_ARG, ALL, set_flag, FLAG(skip_ct_checks), NULL,
     "skip c-t-assert and the checks not needed to generate code (unsafe)"},
    {"single-pass", 0, OPT_NO_ARG, ALL, set_flag, FLAG(single_pass), NULL,
     "every function, type and constant must be defined before its first use"},
    {"no-inference", 0, OPT_NO_ARG, ALL, set_flag, FLAG(no_inference), NULL, "every variable must have a declared type"},
    {"no-static-analysis", 0, OPT_NO_ARG, ALL, set_flag, FLAG(no_static_analysis), NULL,
     "skip the opt-in static analysis (declaim, check-... declarations)"},
    {"re-output-crisp", 0, OPT_ARG, OPT_CLI, set_re_output, -1, "DIR",
     "write the inputs to DIR with inferred types declared, in definition-before-use order"},
    /* diagnostics (docs/diagnostics.md) */
    {"diagnostics-format", 0, OPT_ARG, ALL, set_diag_format, -1, "text|json",
     "json: one JSON object per diagnostic and line (stderr)"},
    {"color", 0, OPT_ARG, OPT_CLI, set_color, -1, "auto|always|never",
     "colour diagnostics (auto: on a terminal, unless NO_COLOR is set)"},
    {NULL, 'W', OPT_ARG, ALL, set_W, -1, "error", "report warnings as errors"},
    {NULL, 'w', OPT_NO_ARG, ALL, set_flag, FLAG(no_warnings), NULL, "drop warnings"},
    {NULL, 'f', OPT_ARG, ALL, set_f, -1, "max-errors=N", "stop after N errors (default 50; 0: no limit)"},
    {"max-memory", 0, OPT_ARG, ALL, set_max_memory, -1, "SIZE",
     "memory one compilation may use (bytes, or with K, M or G; default 4G): more is reported as out of memory"},
    {"explain", 0, OPT_ARG, OPT_CLI | OPT_ACTION, NULL, -1, "CODE", "explain a diagnostic code (E0312), with an example"},
    /* looking inside */
    {"dump", 0, OPT_ARG, OPT_CLI, set_dump, -1, "STAGE",
     "print the program after read, expand, check or analysis to stdout"},
    {"macroexpand", 0, OPT_NO_ARG, OPT_CLI, set_macroexpand, -1, NULL, "same as --dump=expand"},
    {"version", 0, OPT_NO_ARG, OPT_CLI | OPT_ACTION, NULL, -1, NULL, "print the version"},
    {"help", 'h', OPT_NO_ARG, OPT_CLI | OPT_ACTION, NULL, -1, NULL, "print this help"},
    {NULL, 0, 0, 0, NULL, -1, NULL, NULL},
};

/* ---- lookups ---- */

static size_t name_len(const char *s) {
    size_t n = 0;
    while (s[n] && s[n] != '=') n++;
    return n;
}

const OptSpec *opt_find_long(const char *name, int *ambiguous) {
    size_t n = name_len(name);
    const OptSpec *prefix = NULL;
    int nprefix = 0;
    *ambiguous = 0;
    for (const OptSpec *s = opt_table; s->help; s++) {
        if (!s->name) continue;
        if (strncasecmp(s->name, name, n) != 0) continue;
        if (s->name[n] == 0) return s;
        prefix = s;
        nprefix++;
    }
    if (nprefix > 1) *ambiguous = 1;
    return nprefix == 1 ? prefix : NULL;
}

const OptSpec *opt_find_short(int c) {
    for (const OptSpec *s = opt_table; s->help; s++)
        if (s->short_name == c) return s;
    return NULL;
}

const char *opt_suggest(Arena *a, const char *bad) {
    const char *name = bad;
    while (*name == '-') name++;
    char *plain = arena_strndup(a, name, name_len(name));
    if (!plain) return "";
    Suggest sg;
    suggest_init(&sg, plain);
    for (const OptSpec *s = opt_table; s->help; s++)
        if (s->name) suggest_add(&sg, s->name);
    const char *best = suggest_best(&sg);
    if (!best) return "";
    const OptSpec *spec = NULL;
    for (const OptSpec *s = opt_table; s->help && !spec; s++)
        if (s->name && !strcmp(s->name, best)) spec = s;
    return arena_printf(a, " (did you mean `--%s%s`?)", best, spec && spec->arg == OPT_ARG ? "=..." : "");
}

const char *opt_candidates(Arena *a, const char *prefix) {
    size_t n = name_len(prefix);
    StrBuf b;
    sb_init(&b);
    for (const OptSpec *s = opt_table; s->help; s++)
        if (s->name && !strncasecmp(s->name, prefix, n)) sb_printf(&b, "%s`--%s`", b.len ? " or " : " (", s->name);
    if (b.len) sb_puts(&b, "?)");
    const char *r = arena_strdup(a, sb_cstr(&b));
    sb_free(&b);
    return r ? r : "";
}

/* Append `text` wrapped at 79 columns, continuation lines at column `indent`. */
static void wrapped(StrBuf *out, const char *text, int col, int indent) {
    while (*text) {
        const char *e = text;
        while (*e && *e != ' ') e++;
        int w = (int)(e - text);
        if (col > indent && col + 1 + w > 79) {
            sb_printf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            sb_putc(out, ' ');
            col++;
        }
        sb_putn(out, text, (size_t)w);
        col += w;
        text = *e ? e + 1 : e;
    }
    sb_putc(out, '\n');
}

void opt_help(StrBuf *out) {
    sb_puts(out, "usage: crisp [options] FILE.crisp...\n"
                 "       (`-` reads standard input; `--` ends the options)\n"
                 "\n"
                 "With no output option crisp only checks the program (exit 0 when valid).\n\n");
    for (const OptSpec *s = opt_table; s->help; s++) {
        char head[64];
        if (s->name)
            snprintf(head, sizeof head, "%s%s--%s%s%s", s->short_name ? "-" : "",
                     s->short_name ? (char[]){(char)s->short_name, ',', ' ', 0} : "", s->name, s->arg ? "=" : "",
                     s->arg ? s->metavar : "");
        else if (s->metavar && ((s->metavar[0] >= 'a' && s->metavar[0] <= 'z') || strchr(s->metavar, '=')))
            snprintf(head, sizeof head, "-%c%s", s->short_name, s->metavar); /* -DNAME=VALUE, -Werror */
        else
            snprintf(head, sizeof head, "-%c %s", s->short_name, s->metavar ? s->metavar : "");
        if (strlen(head) > 24) sb_printf(out, "  %s\n%27s", head, "");
        else sb_printf(out, "  %-24s ", head);
        wrapped(out, s->help, 27, 27);
    }
    sb_puts(out, "\nOptions take their value as --opt=VALUE or --opt VALUE (-DN=1 or -D N=1).\n"
                 "Exit status: 0 success, 1 errors in the source, 2 bad command line, unreadable\n"
                 "file or a missing or failing vendor tool.\n");
}

/* ---- applying ---- */

int opt_apply(OptState *st, const OptSpec *spec, const char *value) {
    if (st->api && !(spec->where & OPT_API)) {
        if (st->warn)
            sb_printf(st->warn, "crisp: warning: `%s%s` has no effect in the in-memory API (docs/api.md \"Flags\")\n",
                      spec->name ? "--" : "-", spec->name ? spec->name : (char[]){(char)spec->short_name, 0});
        return 0;
    }
    if (!spec->apply) return 0;
    return spec->apply(st, spec, value ? value : "");
}

static const char *extension(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot : "";
}

int opt_finish(OptState *st) {
    CrispOptions *o = st->o;
    if (st->o_file) {
        if (o->output_dir || o->output_base)
            return fail(st, "-o %s cannot be combined with --output-dir or --output-base%s", st->o_file, "");
        const char *f = st->o_file, *slash = strrchr(f, '/');
        const char *base = slash ? slash + 1 : f, *ext = extension(f);
        if (!*base) return fail(st, "-o %s names a directory; use --output-dir%s", f, "");
        o->output_dir = slash ? (slash == f ? "/" : arena_strndup(st->a, f, (size_t)(slash - f))) : ".";
        o->output_base = arena_strndup(st->a, base, strlen(base) - strlen(ext));
        if (!o->output_dir || !o->output_base) return oom(st);
        int any = o->transpile_oclc || o->metadata || o->ntargets || o->hoist_opencl || o->hoist_pyopencl || o->hoist_cuda ||
                  o->hoist_pycuda;
        if (!any) {
            if (!strcmp(ext, ".metacrisp")) o->metadata = 1;
            else if (!strcmp(ext, ".spv")) return add_target(st, TARGET_SPV, "spv");
            else if (!strcmp(ext, ".ptx")) return add_target(st, TARGET_PTX, "ptx");
            else if (!strcmp(ext, ".cubin") || !strcmp(ext, ".bin") || !strcmp(ext, ".fatbin"))
                return fail(st, "-o %s: name the GPU with --binary-gpu-target (e.g. sm_90)%s", f, "");
            else o->transpile_oclc = 1;
        }
    }
    return 0;
}

/* ---- crisp_set_flags strings ---- */

/* The next shell-like word of *p (quotes and backslashes), or NULL at the
 * end; *bad is set on an unterminated quote. */
static char *next_word(Arena *a, const char **p, int *bad) {
    const char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    if (!*s) {
        *p = s;
        return NULL;
    }
    StrBuf b;
    sb_init(&b);
    char quote = 0;
    for (; *s; s++) {
        if (quote) {
            if (*s == quote) quote = 0;
            else if (*s == '\\' && quote == '"' && s[1]) sb_putc(&b, *++s);
            else sb_putc(&b, *s);
        } else if (*s == '\'' || *s == '"') {
            quote = *s;
        } else if (*s == '\\' && s[1]) {
            sb_putc(&b, *++s);
        } else if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
            break;
        } else {
            sb_putc(&b, *s);
        }
    }
    *bad = quote != 0;
    *p = s;
    char *w = b.oom ? NULL : arena_strndup(a, sb_cstr(&b), b.len);
    sb_free(&b);
    return w;
}

int opt_parse_string(OptState *st, const char *flags) {
    const char *p = flags ? flags : "";
    int bad = 0;
    char *w;
    while ((w = next_word(st->a, &p, &bad))) {
        if (bad) return fail(st, "unterminated quote in the flags `%s`%s", flags, "");
        const OptSpec *spec = NULL;
        const char *value = NULL;
        if (w[0] == '-' && w[1] == '-' && w[2]) {
            int amb;
            spec = opt_find_long(w + 2, &amb);
            if (!spec)
                return fail(st, amb ? "ambiguous option `%s`%s" : "unknown option `%s`%s", w,
                            amb ? opt_candidates(st->a, w + 2) : opt_suggest(st->a, w));
            const char *eq = strchr(w, '=');
            if (spec->arg == OPT_ARG) {
                value = eq ? eq + 1 : next_word(st->a, &p, &bad);
                if (!value || bad) return fail(st, "option `--%s` needs a value%s", spec->name, "");
            } else if (eq) {
                return fail(st, "option `--%s` takes no value%s", spec->name, "");
            }
        } else if (w[0] == '-' && w[1] && w[1] != '-') {
            spec = opt_find_short((unsigned char)w[1]);
            if (!spec) return fail(st, "unknown option `%s`%s", w, opt_suggest(st->a, w));
            if (spec->arg == OPT_ARG) {
                value = w[2] ? w + 2 : next_word(st->a, &p, &bad);
                if (!value || bad) return fail(st, "option `-%c` needs a value%s", (char[]){w[1], 0}, "");
            } else if (w[2]) {
                return fail(st, "unknown option `%s`%s", w, opt_suggest(st->a, w));
            }
        } else {
            return fail(st, "`%s` is not an option: the flags name no input files (use crisp_add_input_file or "
                            "crisp_add_input_string)%s", w, "");
        }
        if (spec->where & OPT_ACTION) return fail(st, "`%s` is a command-line action, not a flag%s", w, "");
        int r = opt_apply(st, spec, value);
        if (r) return r;
    }
    if (st->a->exhausted) return oom(st);
    return opt_finish(st);
}

/* ---- the flags a compilation was made with (the cache record) ---- */

static void quoted(StrBuf *out, const char *s) {
    int plain = *s != 0;
    for (const char *p = s; *p; p++) plain &= *p != ' ' && *p != '\'' && *p != '"' && *p != '\\' && *p != '\t' && *p != '\n';
    if (plain) {
        sb_puts(out, s);
        return;
    }
    sb_putc(out, '\'');
    for (; *s; s++) {
        if (*s == '\'') sb_puts(out, "'\\''");
        else sb_putc(out, *s);
    }
    sb_putc(out, '\'');
}

void opt_api_flags(StrBuf *out, const CrispOptions *o) {
    for (int i = 0; i < o->ndefines; i++) {
        if (out->len) sb_putc(out, ' ');
        StrBuf d;
        sb_init(&d);
        sb_printf(&d, "-D%s=%s", o->defines[i].name, o->defines[i].value);
        quoted(out, sb_cstr(&d));
        sb_free(&d);
    }
    for (const OptSpec *s = opt_table; s->help; s++)
        if ((s->where & OPT_API) && s->flag_offset >= 0 && *(const int *)((const char *)o + s->flag_offset))
            sb_printf(out, "%s--%s", out->len ? " " : "", s->name);
}
