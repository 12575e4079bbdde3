/* targets.c - the IR and binary targets through the vendor tools (targets.h).
 *
 * Spec: "Output Targeting Options" (--ir-target, --binary-gpu-target,
 * --fat-binary).  Each chain writes the generated OpenCL C to a private
 * temporary directory, runs the tools there (tools.c) and reads the result
 * back; the caller writes it with the other outputs, all or nothing.
 * Tools are looked up on PATH (versioned names first, so clang and
 * llvm-spirv come from the same LLVM), or taken from CRISP_CLANG,
 * CRISP_LLVM_SPIRV, CRISP_LIBCLC, CRISP_PTXAS, CRISP_FATBINARY and
 * CRISP_OCLOC.  A missing tool is an error naming the package that has
 * it; a failing tool's messages are shown, each OpenCL C line it names
 * mapped back to the Crisp line it came from (the .cl's location
 * comments). */
#include "targets.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools.h"

#define TOOL_TIMEOUT_S 600
#define PTX_ARCH "sm_60" /* the PTX's .target: JIT-compiled on any GPU from Pascal on */
/* -O1, not -O2: LLVM 14's GVN load PRE moves loads of a kernel's __local
 * variables above barrier() for NVPTX (GlobalsAA takes llvm.nvvm.barrier0
 * for a call that cannot touch a non-escaping global), which breaks every
 * "work-item 0 computes it, the workgroup shares it" on a GPU
 * (docs/targets.md). */
#define PTX_OPT "-O1"

/* LLVM versions tried for clang + llvm-spirv + libclc, newest known-good first. */
static const int llvm_versions[] = {14, 15, 16, 17, 18, 19};

typedef struct Chain {
    Crisp *c;
    Arena *a;
    const CrispTarget *t;
    const char *what;  /* "--ir-target=spv" ... for messages */
    const char *dir;   /* the temporary directory */
    const char *base;
    const char *cl;    /* the generated OpenCL C */
    size_t cl_len;
} Chain;

static SrcLoc nowhere(void) {
    SrcLoc l = {0};
    return l;
}

const char *target_file(Arena *a, const CrispTarget *t, int fat, const char *dir, const char *base) {
    switch (t->kind) {
    case TARGET_SPV: return arena_printf(a, "%s/%s.spv", dir, base);
    case TARGET_PTX: return arena_printf(a, "%s/%s.ptx", dir, base);
    case TARGET_CUBIN: return arena_printf(a, "%s/%s_%s.%s", dir, base, t->id, fat ? "fatbin" : "cubin");
    case TARGET_PVC: return arena_printf(a, "%s/%s_pvc.bin", dir, base);
    case TARGET_NVCL: return arena_printf(a, "%s/%s_nvcl.ptx", dir, base);
    }
    return NULL;
}

const char *target_loader(const CrispTarget *t, int fat) {
    switch (t->kind) {
    case TARGET_SPV: return "clCreateProgramWithIL (OpenCL 2.1, cl_khr_il_program), Level Zero";
    case TARGET_PTX: return "cuModuleLoadData (the CUDA driver API: the CUDA hoists); nvptx64--nvidiacl";
    case TARGET_CUBIN: return fat ? "cuModuleLoadData (a CUDA fat binary: the cubin and the PTX)" : "cuModuleLoadData (the CUDA driver API)";
    case TARGET_PVC: return "clCreateProgramWithBinary on Intel's GPU runtime, zeModuleCreate";
    case TARGET_NVCL: return "clCreateProgramWithBinary on NVIDIA's OpenCL (the OpenCL hoists); nvptx64-nvidia-nvcl";
    }
    return "";
}

/* ---- finding the tools ---- */

static int missing(Chain *ch, const char *tool, const char *package) {
    diag_error(&ch->c->diag, nowhere(), NULL, "E1501", "%s needs `%s`, which is not installed: %s", ch->what, tool, package);
    return 2;
}

/* A tool named by an environment variable: it must exist. */
static const char *from_env(Chain *ch, const char *var, int *bad) {
    const char *v = getenv(var);
    *bad = 0;
    if (!v || !*v) return NULL;
    const char *p = tool_which(ch->a, v);
    if (!p) {
        diag_error(&ch->c->diag, nowhere(), NULL, "E1501", "%s: %s=%s names no executable program", ch->what, var, v);
        *bad = 1;
    }
    return p;
}

/* clang and llvm-spirv of the same LLVM version. */
static int find_spirv_tools(Chain *ch, const char **clang, const char **spirv) {
    int bad;
    *clang = from_env(ch, "CRISP_CLANG", &bad);
    if (bad) return 2;
    *spirv = from_env(ch, "CRISP_LLVM_SPIRV", &bad);
    if (bad) return 2;
    if (*clang && *spirv) return 0;
    for (size_t i = 0; i < sizeof llvm_versions / sizeof *llvm_versions; i++) {
        int v = llvm_versions[i];
        const char *s = *spirv ? *spirv : tool_which(ch->a, arena_printf(ch->a, "llvm-spirv-%d", v));
        if (!s) continue;
        const char *cl = *clang ? *clang : tool_which(ch->a, arena_printf(ch->a, "clang-%d", v));
        if (!cl) return missing(ch, arena_printf(ch->a, "clang-%d", v), arena_printf(ch->a, "install the Debian package clang-%d (it must match llvm-spirv-%d)", v, v));
        *clang = cl;
        *spirv = s;
        return 0;
    }
    if (!*spirv) *spirv = tool_which(ch->a, "llvm-spirv");
    if (!*spirv) return missing(ch, "llvm-spirv-14", "install the Debian package llvm-spirv-14 (and clang-14), or set CRISP_LLVM_SPIRV");
    if (!*clang) *clang = tool_which(ch->a, "clang");
    if (!*clang) return missing(ch, "clang", "install the Debian package clang-14, or set CRISP_CLANG");
    return 0;
}

/* clang and libclc's NVPTX library for it. */
static int find_ptx_tools(Chain *ch, const char **clang, const char **libclc) {
    int bad;
    *clang = from_env(ch, "CRISP_CLANG", &bad);
    if (bad) return 2;
    const char *lib = getenv("CRISP_LIBCLC");
    if (lib && *lib) {
        if (access(lib, R_OK) != 0) {
            diag_error(&ch->c->diag, nowhere(), NULL, "E1501", "%s: CRISP_LIBCLC=%s is not a readable file", ch->what, lib);
            return 2;
        }
        *libclc = lib;
    } else {
        *libclc = NULL;
    }
    const char *any_clang = *clang;
    for (size_t i = 0; i < sizeof llvm_versions / sizeof *llvm_versions && !(*clang && *libclc); i++) {
        int v = llvm_versions[i];
        const char *cl = *clang ? *clang : tool_which(ch->a, arena_printf(ch->a, "clang-%d", v));
        if (!cl) continue;
        if (!any_clang) any_clang = cl;
        const char *dirs[3] = {arena_printf(ch->a, "/usr/lib/llvm-%d/lib/clc", v), "/usr/lib/clc", "/usr/share/clc"};
        for (int d = 0; d < 3 && !*libclc; d++) {
            const char *f = arena_printf(ch->a, "%s/nvptx64--nvidiacl.bc", dirs[d]);
            if (f && access(f, R_OK) == 0) *libclc = f;
        }
        if (*libclc) *clang = cl;
    }
    if (!*clang) *clang = any_clang ? any_clang : tool_which(ch->a, "clang");
    if (!*clang) return missing(ch, "clang-14", "install the Debian package clang-14 (with libclc-14), or set CRISP_CLANG");
    if (!*libclc)
        return missing(ch, "libclc (nvptx64--nvidiacl.bc)", "install the Debian package libclc-14 (with clang-14), or set CRISP_LIBCLC");
    return 0;
}

/* A CUDA tool: CRISP_<VAR>, PATH, then $CUDA_HOME/bin and $CUDA_PATH/bin. */
static const char *find_cuda_tool(Chain *ch, const char *name, const char *var, int *bad) {
    const char *p = from_env(ch, var, bad);
    if (p || *bad) return p;
    p = tool_which(ch->a, name);
    const char *homes[2] = {"CUDA_HOME", "CUDA_PATH"};
    for (int i = 0; i < 2 && !p; i++) {
        const char *h = getenv(homes[i]);
        if (h && *h) p = tool_which(ch->a, arena_printf(ch->a, "%s/bin/%s", h, name));
    }
    return p;
}

#define CUDA_PACKAGE "install NVIDIA's CUDA toolkit (Debian non-free: nvidia-cuda-toolkit) and put its bin/ on PATH or set CUDA_HOME"

/* ---- running one step ---- */

/* The Crisp location the .cl's line `line` was generated from: the
 * nearest location comment above it: a function's ends in "(file.crisp:12)",
 * a loop's or guard's in "at file.crisp:12", before the comment's end. */
static SrcLoc crisp_line_of(Chain *ch, int line) {
    SrcLoc best = nowhere();
    const char *p = ch->cl, *end = ch->cl + ch->cl_len;
    for (int l = 1; p < end && l <= line; l++) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e) e = end;
        /* a location comment ends in NAME.crisp:DIGITS, then ")" or nothing, then the end of the comment */
        const char *c = e;
        while (c > p && c[-1] != ':') c--;
        const char *d = c;
        while (d < e && isdigit((unsigned char)*d)) d++;
        if (c > p && d > c && (!strncmp(d, ") */", 4) || !strncmp(d, " */", 3))) {
            const char *n = c - 1;
            while (n > p && n[-1] != ' ' && n[-1] != '(') n--;
            size_t nlen = (size_t)(c - 1 - n);
            for (int f = 0; f < ch->c->nfiles; f++) {
                const char *fn = ch->c->files[f]->name, *slash = strrchr(fn, '/');
                const char *bn = slash ? slash + 1 : fn;
                if (strlen(bn) == nlen && !strncmp(bn, n, nlen)) {
                    const SrcFile *sf = ch->c->files[f];
                    int bl = atoi(c), col = 1;
                    /* the caret at the line's first form */
                    const char *t = sf->text, *te = t + sf->len;
                    for (int k = 1; k < bl && t < te; t++)
                        if (*t == '\n') k++;
                    while (t < te && (*t == ' ' || *t == '\t')) t++, col++;
                    best = srcloc(sf, bl, col);
                }
            }
        }
        p = e + 1;
    }
    return best;
}

/* Report a failed step: one error per OpenCL C error the tool names (at
 * the Crisp line it came from), then the tool's own output as notes. */
static int failed(Chain *ch, const char *tool, int status, StrBuf *out) {
    Diag *d = &ch->c->diag;
    const char *why = status == TOOL_TIMED_OUT   ? arena_printf(ch->a, "did not finish within %d s", TOOL_TIMEOUT_S)
                      : status == TOOL_SIGNALLED ? "crashed"
                      : status == TOOL_NOT_STARTED ? "could not be started"
                                                   : arena_printf(ch->a, "failed (exit status %d)", status);
    const char *text = sb_cstr(out);
    const char *clname = arena_printf(ch->a, "%s.cl:", ch->base);
    int mapped = 0;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *hit = NULL;
        for (const char *q = p; q + strlen(clname) <= p + n && !hit; q++)
            if (!strncmp(q, clname, strlen(clname))) hit = q;
        const char *msg = hit ? strstr(hit, ": error: ") : NULL;
        if (msg && msg < p + n) {
            int line = atoi(hit + strlen(clname));
            SrcLoc loc = crisp_line_of(ch, line);
            if (srcloc_file(loc)) {
                diag_error(d, loc, NULL, "E1503", "%s: %.*s (in the OpenCL C for %s, %s.cl:%d)", tool,
                           (int)(p + n - msg - 9), msg + 9, ch->what, ch->base, line);
                mapped++;
            }
        }
        p = e ? e + 1 : p + n;
    }
    diag_error(d, nowhere(), NULL, "E1502", "%s for %s %s", tool, ch->what, why);
    int shown = 0;
    for (const char *p = text; *p && shown < 40; shown++) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        /* the temporary directory means nothing to the user */
        const char *dir = strstr(p, ch->dir);
        if (dir && dir < p + n) {
            size_t skip = strlen(ch->dir) + 1;
            diag_note(d, nowhere(), "%s: %.*s%.*s", tool, (int)(dir - p), p, (int)(p + n - dir - skip), dir + skip);
        } else {
            diag_note(d, nowhere(), "%s: %.*s", tool, (int)n, p);
        }
        p = e ? e + 1 : p + n;
    }
    (void)mapped;
    return 2;
}

/* Run one tool; 0, or 2 after reporting. */
static int step(Chain *ch, const char *tool, const char *const argv[]) {
    StrBuf out;
    sb_init(&out);
    int st = tool_run(argv, &out, TOOL_TIMEOUT_S);
    int r = st == 0 ? 0 : failed(ch, tool, st, &out);
    sb_free(&out);
    return r;
}

static const char *in_dir(Chain *ch, const char *ext) {
    return arena_printf(ch->a, "%s/%s%s", ch->dir, ch->base, ext);
}

/* ---- the chains ---- */

static int build_spv(Chain *ch, const char *out) {
    const char *clang, *spirv;
    if (find_spirv_tools(ch, &clang, &spirv)) return 2;
    const char *bc = in_dir(ch, ".bc");
    /* -O0: llvm-spirv translates unoptimised LLVM faithfully; the OpenCL
       driver that loads the SPIR-V optimises it for its device */
    const char *cc[] = {clang, "-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header", "-target", "spir64",
                        "-O0", "-emit-llvm", "-c", in_dir(ch, ".cl"), "-o", bc, NULL};
    if (step(ch, "clang", cc)) return 2;
    const char *sp[] = {spirv, "--spirv-max-version=1.0", bc, "-o", out, NULL};
    return step(ch, "llvm-spirv", sp);
}

/* The PTX for TRIPLE: nvptx64--nvidiacl (libclc's own) for the CUDA driver
 * API (BASE.ptx, the cubins); nvptx64-nvidia-nvcl for NVIDIA's OpenCL
 * (BASE_nvcl.ptx), the only one whose kernel pointer parameters carry
 * .ptr .global / .ptr .shared, without which NVIDIA's OpenCL passes its
 * buffers as plain numbers and refuses __local arguments; the CUDA driver
 * refuses that PTX for kernels with __local parameters
 * (CUDA_ERROR_INVALID_IMAGE).  Both verified on an H200 (docs/targets.md). */
static int build_ptx(Chain *ch, const char *out, const char *triple) {
    const char *clang, *libclc;
    if (find_ptx_tools(ch, &clang, &libclc)) return 2;
    const char *arch = getenv("CRISP_PTX_ARCH");
    const char *march = arena_printf(ch->a, "-march=%s", arch && *arch ? arch : PTX_ARCH);
    /* LLVM's own optimisation level for the PTX (ptxas optimises it again):
       see PTX_OPT; CRISP_PTX_OPT=-O2 ... changes it */
    const char *opt = getenv("CRISP_PTX_OPT");
    /* OpenCL C 3.0 with program-scope __global variables, and without the
       generic address space (clang's NVPTX target has none), is 1.2 plus
       what CRISP_CONSTANT needs: a def-const-vec in __global memory where a
       kernel takes a :constant vector (emit-oclc, docs/targets.md); the PTX
       of every other program is the same as with CL1.2.
       libclc-14 has no nvcl bitcode: its nvptx64--nvidiacl.bc (the same
       NVPTX code under another triple string) serves both, and for the
       nvcl triple -Wno-linker-warnings mutes clang's "Linking two modules
       of different target triples" */
    int nvcl = strcmp(triple, "nvptx64--nvidiacl") != 0;
    const char *cc[] = {clang, "-x", "cl", "-cl-std=CL3.0", "-Xclang", "-cl-ext=+__opencl_c_program_scope_global_variables",
                        "-Xclang", "-finclude-default-header", "-target", triple, march, opt && *opt ? opt : PTX_OPT, "-S", "-Xclang", "-mlink-builtin-bitcode", "-Xclang", libclc,
                        in_dir(ch, ".cl"), "-o", out, nvcl ? "-Wno-linker-warnings" : NULL, NULL};
    return step(ch, "clang", cc);
}

/* The sm_ names the installed ptxas accepts, from its --help ("Allowed
 * values for this option: 'compute_75',...,'sm_90',..."), space
 * separated; "" when they cannot be found. */
static const char *ptxas_archs(Chain *ch, const char *ptxas) {
    StrBuf out;
    sb_init(&out);
    const char *argv[] = {ptxas, "--help", NULL};
    int st = tool_run(argv, &out, 60);
    StrBuf list;
    sb_init(&list);
    const char *text = sb_cstr(&out), *g = st == 0 ? strstr(text, "--gpu-name") : NULL;
    const char *allowed = g ? strstr(g, "Allowed values") : NULL, *stop = allowed ? strstr(allowed, "Default value") : NULL;
    for (const char *p = allowed; p && p < stop; p++) {
        if (*p != '\'' || strncmp(p + 1, "sm_", 3) != 0) continue;
        const char *q = strchr(p + 1, '\'');
        if (!q || q > stop) break;
        sb_printf(&list, "%s%.*s", list.len ? " " : "", (int)(q - p - 1), p + 1);
        p = q;
    }
    const char *r = arena_strdup(ch->a, sb_cstr(&list));
    sb_free(&out);
    sb_free(&list);
    return r ? r : "";
}

static int build_cubin(Chain *ch, int fat, const char *out) {
    int bad;
    const char *ptxas = find_cuda_tool(ch, "ptxas", "CRISP_PTXAS", &bad);
    if (bad) return 2;
    if (!ptxas) return missing(ch, "ptxas", CUDA_PACKAGE);
    const char *fatbinary = NULL;
    if (fat) {
        fatbinary = find_cuda_tool(ch, "fatbinary", "CRISP_FATBINARY", &bad);
        if (bad) return 2;
        if (!fatbinary) return missing(ch, "fatbinary", CUDA_PACKAGE);
    }
    /* ask ptxas which GPUs it knows before building anything */
    const char *archs = ptxas_archs(ch, ptxas);
    if (*archs) {
        size_t n = strlen(ch->t->id);
        int known = 0;
        for (const char *p = archs; (p = strstr(p, ch->t->id)); p += n)
            known |= (p == archs || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0);
        if (!known) {
            diag_error(&ch->c->diag, nowhere(), NULL, "E1504", "%s: the installed ptxas (%s) does not know `%s`; it knows: %s",
                       ch->what, ptxas, ch->t->id, archs);
            return 2;
        }
    }
    const char *ptx = in_dir(ch, ".ptx");
    if (build_ptx(ch, ptx, "nvptx64--nvidiacl")) return 2;
    const char *cubin = fat ? in_dir(ch, ".cubin") : out;
    const char *as[] = {ptxas, arena_printf(ch->a, "-arch=%s", ch->t->id), ptx, "-o", cubin, NULL};
    if (step(ch, "ptxas", as)) return 2;
    if (!fat) return 0;
    /* the PTX goes with the cubin, so a newer GPU can JIT-compile it */
    const char *ptx_sm = getenv("CRISP_PTX_ARCH");
    ptx_sm = ptx_sm && *ptx_sm ? ptx_sm : PTX_ARCH;
    const char *fb[] = {fatbinary,
                        arena_printf(ch->a, "--create=%s", out),
                        "-64",
                        arena_printf(ch->a, "--image3=kind=elf,sm=%s,file=%s", ch->t->id + 3, cubin),
                        arena_printf(ch->a, "--image3=kind=ptx,sm=%s,file=%s", ptx_sm + 3, ptx),
                        NULL};
    return step(ch, "fatbinary", fb);
}

static int build_pvc(Chain *ch, int fat, const char *out) {
    int bad;
    const char *ocloc = from_env(ch, "CRISP_OCLOC", &bad);
    if (bad) return 2;
    if (!ocloc) ocloc = tool_which(ch->a, "ocloc");
    if (!ocloc)
        return missing(ch, "ocloc", "install Intel's offline compiler ocloc (Intel compute-runtime; Debian: intel-ocloc), "
                                    "or set CRISP_OCLOC");
    /* ocloc keeps the SPIR-V in the binary unless told to leave it out */
    const char *oc[] = {ocloc, "compile", "-q", "-file", in_dir(ch, ".cl"), "-device", "pvc", "-64",
                        "-options", "-cl-std=CL1.2", "-out_dir", ch->dir, "-output", arena_printf(ch->a, "%s_pvc", ch->base),
                        "-output_no_suffix", fat ? NULL : "-exclude_ir", NULL};
    if (step(ch, "ocloc", oc)) return 2;
    /* -output_no_suffix still appends .bin on some releases */
    const char *made = in_dir(ch, "_pvc.bin");
    if (access(made, R_OK) != 0) made = in_dir(ch, "_pvc");
    return rename(made, out) == 0 ? 0 : 2;
}

int target_build(Crisp *c, const CrispTarget *t, int fat, const char *base, const char *cl, size_t cl_len, StrBuf *out) {
    Chain ch = {c, &c->arena, t, NULL, NULL, base, cl, cl_len};
    ch.what = t->kind == TARGET_SPV || t->kind == TARGET_PTX ? arena_printf(ch.a, "--ir-target=%s", t->id)
              : t->kind == TARGET_NVCL ? arena_printf(ch.a, "--ir-target=ptx (%s_nvcl.ptx, for the OpenCL hoists)", base)
                                       : arena_printf(ch.a, "--binary-gpu-target=%s", t->id);
    char *dir = tool_tmpdir(ch.a);
    if (!dir) {
        diag_error(&c->diag, nowhere(), NULL, "E1505", "%s: cannot create a temporary directory (TMPDIR)", ch.what);
        return 2;
    }
    ch.dir = dir;
    const char *result = in_dir(&ch, ".out");
    int r = 0;
    if (tool_write_file(in_dir(&ch, ".cl"), cl, cl_len) != 0) {
        diag_error(&c->diag, nowhere(), NULL, "E1505", "%s: cannot write the OpenCL C to %s", ch.what, dir);
        r = 2;
    }
    if (!r) {
        switch (t->kind) {
        case TARGET_SPV: r = build_spv(&ch, result); break;
        case TARGET_PTX: r = build_ptx(&ch, result, "nvptx64--nvidiacl"); break;
        case TARGET_CUBIN: r = build_cubin(&ch, fat, result); break;
        case TARGET_PVC: r = build_pvc(&ch, fat, result); break;
        case TARGET_NVCL: r = build_ptx(&ch, result, "nvptx64-nvidia-nvcl"); break;
        }
    }
    if (!r && tool_read_file(result, out) != 0) {
        diag_error(&c->diag, nowhere(), NULL, "E1505", "%s: the tools reported success but wrote no output", ch.what);
        r = 2;
    }
    tool_rmdir(dir);
    return r;
}
