/* hoist_c.c - the C hoist of BASE.cl ("Hoisting Code" in the spec): a small
 * C library per program, like Futhark's generated libraries, printed from
 * the host plan of each kernel (plan.h).
 *
 *   BASE_hoist_OpenCL.h       the API: the def-structs the arguments use (host
 *                             structs with the std140 layout of the .cl),
 *                             BASE_program, and per kernel KERNEL_args and the
 *                             prototypes below
 *   BASE_hoist_OpenCL.c       their definitions; compiles on its own and
 *                             links with other hoists
 *   BASE_hoist_OpenCL_demo.c  a main() running every kernel on dummy data
 *
 * Per kernel:
 *   KERNEL_launch_size   the global/local sizes the kernel declares
 *   KERNEL_side_sizes    side-channel lengths (kernels that have side channels)
 *   KERNEL_min_lengths   the elements the kernel may touch in each vector
 *   KERNEL_check         lengths, and the caller's buffers: context and size
 *   KERNEL_set_args      clSetKernelArg for every argument
 *   KERNEL_enqueue       check, set_args, clEnqueueNDRangeKernel on cl_mems the
 *                        caller owns; does not wait
 *   KERNEL_run           the same from host arrays: copies in, runs, copies
 *                        back and waits
 *
 * Every function returns an OpenCL status (or CRISP_INVALID_LENGTH) and
 * leaves a message in the CrispContext (crisp_error_message); nothing is
 * printed but by the demo.  Plain C99 that is also valid C++, warning-free
 * with gcc/g++ -Wall -Wextra -Wmissing-prototypes and TinyCC.  Everything
 * not specific to the program is in runtime-shim/crisp_runtime.h.
 * docs/hoisting-c.md describes the output for users.
 *
 * --hoist=CUDA prints the same library for the CUDA driver API (h->cuda):
 * BASE_hoist_CUDA.h/.cpp/_demo.cpp over runtime-shim/crisp_runtime_cuda.h,
 * which gives the helpers called here the same names and meanings on CUDA
 * (the kernel object collects its arguments as clSetKernelArg would and
 * crisp_enqueue launches it with cuLaunchKernel).  The few places that
 * differ branch on h->cuda; the OpenCL handle types and calls left in the
 * text become their CUDA counterparts in cuda_words() (docs/hoisting-cuda.md). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../core/context.h"
#include "../core/printer.h"
#include "../emit-oclc/ctext.h"
#include "../emit-oclc/sizeprint.h"
#include "hoist.h"
#include "plan.h"

typedef struct Hc {
    Printer pr;                 /* the file being printed */
    Arena *a;
    const Abi *abi;
    const HoistOptions *o;
    HostKernel *hks;            /* one per kernel of abi */
    const char *base;           /* the output base as an identifier */
    const char *prog;           /* BASE_program */
    int demo_length;            /* elements of every demo vector without a fixed length */
    const StructDef **structs;  /* def-structs the kernels' arguments use, nested first */
    int nstructs, capstructs;
    int cuda;                   /* BASE_hoist_CUDA.* (crisp_runtime_cuda.h) */
} Hc;

/* ---- names ---- */

/* Identifiers the generated C must not take: C++ keywords (Crisp names
 * may be any C identifier that is not C or OpenCL reserved). */
static const char *cpp_keywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "catch", "char8_t", "char16_t",
    "char32_t", "class", "co_await", "co_return", "co_yield", "compl", "concept", "const_cast",
    "consteval", "constexpr", "constinit", "decltype", "delete", "dynamic_cast", "explicit", "export",
    "friend", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
    "or_eq", "protected", "public", "reinterpret_cast", "requires", "static_assert", "static_cast",
    "template", "this", "thread_local", "throw", "try", "typeid", "typename", "using", "virtual",
    "wchar_t", "xor", "xor_eq", NULL};

/* ... and, for the fields of KERNEL_args (which are also the parameters of
 * KERNEL_run and locals of the demo), the names of those functions' own
 * locals. */
static const char *local_names[] = {"args", "launch", "p", "cx", "err", "need", "declared", "mem", "i", "words", "ran", NULL};

static int in_names(const char **list, const char *name) {
    for (int i = 0; list[i]; i++)
        if (!strcmp(list[i], name)) return 1;
    return 0;
}

/* The host spelling of a C name (structs and their fields): the same, or
 * with a trailing underscore for a C++ keyword. */
static const char *host_name(Hc *h, const char *name) {
    return in_names(cpp_keywords, name) ? arena_printf(h->a, "%s_", name) : name;
}

/* The same for a field of KERNEL_args. */
static const char *arg_name(Hc *h, const char *name) {
    return in_names(cpp_keywords, name) || in_names(local_names, name) ? arena_printf(h->a, "%s_", name) : name;
}

/* TEXT made safe inside a C comment: no comment end, no trigraphs. */
static const char *comment_text(Hc *h, const char *text) {
    StrBuf b;
    sb_init(&b);
    for (const char *p = text ? text : ""; *p; p++) {
        if (*p == '*' && p[1] == '/') sb_puts(&b, "* ");
        else if (*p == '?' && p[1] == '?') sb_puts(&b, "? ");
        else if (*p == '\n' || *p == '\r' || *p == '\t') sb_putc(&b, ' ');
        else if (*p == '\\' && p[1] == '\0') sb_puts(&b, "\\ ");
        else sb_putc(&b, *p);
    }
    const char *r = arena_strdup(h->a, sb_cstr(&b));
    sb_free(&b);
    return r ? r : "";
}

/* TEXT as the contents of a C string literal (without the quotes). */
static void put_c_string(StrBuf *b, const char *text) {
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\') sb_printf(b, "\\%c", *p);
        else if (*p == '\n') sb_puts(b, "\\n");
        else if (*p == '\t') sb_puts(b, "\\t");
        else if (*p == '?' && p[1] == '?') sb_puts(b, "?\\"); /* no trigraphs */
        else if (*p < 32 || *p > 126) sb_printf(b, "\\%03o", *p);
        else sb_putc(b, (char)*p);
    }
}

static const char *c_string(Hc *h, const char *text) {
    StrBuf b;
    sb_init(&b);
    sb_putc(&b, '"');
    put_c_string(&b, text ? text : "");
    sb_putc(&b, '"');
    const char *r = arena_strdup(h->a, sb_cstr(&b));
    sb_free(&b);
    return r ? r : "\"\"";
}

/* One line of C (printf FMT), wrapped after the top-level commas of its
 * first parenthesis when it passes 110 columns; continuation lines align
 * after the "(". */
static void c_line(Hc *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void c_line(Hc *h, const char *fmt, ...) {
    Printer *p = &h->pr;
    va_list ap;
    va_start(ap, fmt);
    char *line = arena_vprintf(h->a, fmt, ap);
    va_end(ap);
    if (!line) return;
    int col = 4 * p->indent;
    const char *open = strchr(line, '(');
    if (col + (int)strlen(line) <= 110 || !open) {
        pr_line(p, "%s", line);
        return;
    }
    int align = (int)(open - line) + 1, depth = 0, quote = 0;
    const char *start = line, *cut = NULL;
    int lead = 0;
    for (const char *c = line; *c; c++) {
        if (quote) {
            if (*c == '\\' && c[1]) c++;
            else if (*c == quote) quote = 0;
            continue;
        }
        if (*c == '"' || *c == '\'') quote = *c;
        else if (*c == '(') depth++;
        else if (*c == ')') depth--;
        else if (*c == ',' && depth == 1) {
            if (col + lead + (int)(c - start) + 1 > 110 && cut) {
                pr_line(p, "%*s%.*s", lead, "", (int)(cut - start), start);
                start = cut;
                while (*start == ' ') start++;
                lead = align;
            }
            cut = c + 1;
        }
    }
    if (col + lead + (int)strlen(start) > 110 && cut && cut > start) {
        pr_line(p, "%*s%.*s", lead, "", (int)(cut - start), start);
        start = cut;
        while (*start == ' ') start++;
        lead = align;
    }
    pr_line(p, "%*s%s", lead, "", start);
}

/* ---- the ABI, as the host sees it ---- */

static int is_pointer(const AbiArg *a) {
    return a->role != ROLE_SCALAR && a->role != ROLE_LENGTH;
}

static int is_local(const AbiArg *a) {
    return is_pointer(a) && a->as == AS_LOCAL;
}

/* 1 when K has a __local argument (its local memory then depends on the call). */
static int has_local_args(const AbiKernel *k) {
    for (int i = 0; i < k->nargs; i++)
        if (is_local(&k->args[i])) return 1;
    return 0;
}

/* The struct field of an argument. */
static const char *field(Hc *h, const AbiArg *a) {
    if (a->cname) return arg_name(h, a->cname);
    return arg_name(h, arena_printf(h->a, "arg%d", a->index));
}

/* The length argument that measures pointer argument P, or NULL. */
static const AbiArg *length_of(const AbiKernel *k, const AbiArg *p) {
    for (int i = 0; i < k->nargs; i++)
        if (k->args[i].role == ROLE_LENGTH && k->args[i].measures == p->index) return &k->args[i];
    return NULL;
}

/* The element type name for host helpers (void pointers are bytes). */
static const char *elem_name(const AbiArg *a) {
    return a->elem_ty && strcmp(a->element, "void") ? a->element : "uchar";
}

static int stride_of(const AbiArg *a) {
    return a->stride > 0 ? a->stride : 1;
}

static const char *role_text(const AbiArg *a) {
    switch (a->role) {
    case ROLE_RESULT: return "result vector";
    case ROLE_IMPLICIT: return "implicit vector";
    case ROLE_SCRATCH: return "scratch pool";
    case ROLE_DEBUG: return "debug channel";
    case ROLE_LOCAL: return "workgroup scratch";
    default: return "vector";
    }
}

static int is_dynamic(Hc *h, const AbiKernel *k) {
    for (int i = 0; i < h->o->ndynamic; i++)
        if (!strcmp(h->o->dynamic[i], k->name)) return 1;
    return 0;
}

/* "examples/vector_add.crisp:8" (or "line 8 of a.crisp b.crisp"). */
static const char *where(Hc *h, const AbiKernel *k) {
    const char *src = h->abi->source ? h->abi->source : "";
    if (!*src) return arena_printf(h->a, "line %d", k->line);
    if (strchr(src, ' ')) return arena_printf(h->a, "line %d of %s", k->line, src);
    return arena_printf(h->a, "%s:%d", src, k->line);
}

static int is_struct(const Type *t) {
    return t && t->kind == TY_STRUCT && t->sd;
}

/* The host C type of a scalar argument ("int" -> "cl_int", "float4" -> "cl_float4"). */
static const char *scalar_ctype(Hc *h, const AbiArg *a) {
    if (is_struct(a->elem_ty)) return host_name(h, a->elem_ty->sd->cname);
    return arena_printf(h->a, "cl_%s", a->type);
}

/* The host C type of one element of a vector: cl_float, cl_float4, a struct, void. */
static const char *elem_ctype(Hc *h, const AbiArg *a) {
    if (is_struct(a->elem_ty)) return host_name(h, a->elem_ty->sd->cname);
    if (!a->elem_ty || !strcmp(a->element, "void")) return "void";
    if (!strcmp(a->element, "bool")) return "cl_uchar";
    if (!strcmp(a->element, "size_t")) return "cl_ulong";
    return arena_printf(h->a, "cl_%s", a->element);
}

/* Bytes of one host element (sizeof of elem_ctype; 1 for void). */
static const char *elem_size(Hc *h, const AbiArg *a) {
    const char *t = elem_ctype(h, a);
    return strcmp(t, "void") ? arena_printf(h->a, "sizeof(%s)", t) : "1";
}

/* Lanes of a scalar argument's type (1, or the hardware vector width). */
static int scalar_lanes(const AbiArg *a) {
    return a->elem_ty && a->elem_ty->kind == TY_HWVEC ? a->elem_ty->width : 1;
}

static int scalar_is_float(const AbiArg *a) {
    return a->elem_ty && ty_is_floatlike(a->elem_ty);
}

/* ---- size expressions in C ---- */

/* How size-expression inputs are spelled: ARGS (e.g. "args->") before the
 * fields of the args struct, LAUNCH the CrispLaunch pointer. */
typedef struct CNames {
    Hc *h;
    const HostKernel *hk;
    const char *args;
    const char *launch;
} CNames;

static const char *c_input(void *ud, const SizeExpr *in) {
    CNames *n = ud;
    Hc *h = n->h;
    const HostParam *p = host_input_param(n->hk, in);
    if (p) {
        const AbiArg *x = in->op == SZ_LENGTH ? p->len : p->arg;
        return x ? arena_printf(h->a, "%s%s", n->args, field(h, x)) : "0";
    }
    switch (in->op) {
    case SZ_GLOBAL_SIZE: return arena_printf(h->a, "crisp_global_size(%s, %d)", n->launch, in->dim);
    case SZ_LOCAL_SIZE: return arena_printf(h->a, "crisp_local_size(%s, %d)", n->launch, in->dim);
    case SZ_NUM_GROUPS: return arena_printf(h->a, "crisp_num_groups(%s, %d)", n->launch, in->dim);
    case SZ_MAX_LOCAL_SIZE: return arena_printf(h->a, "crisp_max_local_size(%s, %d)", n->launch, in->dim);
    case SZ_MAX_NUM_GROUPS: return arena_printf(h->a, "crisp_max_num_groups(%s, %d)", n->launch, in->dim);
    case SZ_GLOBAL_LINEAR_SIZE: return arena_printf(h->a, "crisp_global_linear_size(%s)", n->launch);
    case SZ_LOCAL_LINEAR_SIZE: return arena_printf(h->a, "crisp_local_linear_size(%s)", n->launch);
    default: return NULL;
    }
}

static const char *c_size(Hc *h, const HostKernel *hk, const SizeExpr *e, const char *args, const char *launch) {
    CNames n = {h, hk, args, launch};
    return size_c(h->a, e, c_input, &n);
}

/* The size as docs/abi.md names its inputs, for comments and messages. */
static const char *plain_size(Hc *h, const SizeExpr *e) {
    return comment_text(h, size_py(h->a, e, NULL, NULL));
}

/* A need that is the vector's own length (grid-stride loops): nothing to check. */
static int own_length(const HostParam *hp, int index) {
    return hp->need && hp->need->op == SZ_LENGTH && hp->need->param_index == index;
}

/* Does KERNEL_check compare this parameter's length with a need? */
static int checked(const HostParam *hp, int index) {
    return hp->len && ((hp->need && !own_length(hp, index)) || hp->arg->fixed_length > 0);
}

/* ---- structs ---- */

/* Add T's struct (after the structs its fields use) to h->structs. */
static void collect_struct(Hc *h, const Type *t) {
    if (!is_struct(t)) return;
    for (int i = 0; i < h->nstructs; i++)
        if (h->structs[i] == t->sd) return;
    for (int i = 0; i < t->sd->nfields; i++) collect_struct(h, t->sd->fields[i].ty);
    if (h->nstructs == h->capstructs) {
        int nc = h->capstructs ? h->capstructs * 2 : 8;
        const StructDef **v = arena_alloc(h->a, sizeof(StructDef *) * (size_t)nc);
        if (!v) return;
        if (h->nstructs) memcpy(v, h->structs, sizeof(StructDef *) * (size_t)h->nstructs);
        h->structs = v;
        h->capstructs = nc;
    }
    h->structs[h->nstructs++] = t->sd;
}

/* The host declaration of a struct field: "cl_float pos[3]" for a
 * 3-vector stored as an array, "cl_int4 ids", "particle p". */
static const char *field_decl(Hc *h, const Field *f) {
    const Type *t = f->ty;
    const char *name = host_name(h, f->cname);
    if (is_struct(t)) return arena_printf(h->a, "%s %s", host_name(h, t->sd->cname), name);
    if (t->kind == TY_HWVEC && f->as_array)
        return arena_printf(h->a, "cl_%s %s[%d]", oclc_type_name(ty_num(t->sc)), name, t->width);
    if (t->kind == TY_NUM || t->kind == TY_HWVEC) return arena_printf(h->a, "cl_%s %s", oclc_type_name(t), name);
    return arena_printf(h->a, "unsigned char %s[%d]", name, f->size);
}

/* Each struct as the host sees it: the std140 layout of the .cl, with the
 * same explicit padding, so every field sits at its device offset with any
 * C compiler; static assertions check every offset and the size. */
static void emit_structs(Hc *h) {
    Printer *p = &h->pr;
    if (!h->nstructs) return;
    pr_blank(p);
    pr_line(p, "/* ==========================================================================");
    pr_line(p, " * Structs: the std140 layout of %s.cl, padding included.", comment_text(h, h->o->base));
    pr_line(p, " * ========================================================================== */");
    for (int i = 0; i < h->nstructs; i++) {
        const StructDef *sd = h->structs[i];
        const char *name = host_name(h, sd->cname);
        int at = 0, npad = 0, width = 0;
        for (int j = 0; j < sd->nfields; j++) {
            int w = (int)strlen(field_decl(h, &sd->fields[j])) + 1;
            if (w > width) width = w;
        }
        pr_blank(p);
        pr_line(p, "/* def-struct %s: %d bytes */", comment_text(h, sd->name), sd->size);
        pr_line(p, "typedef struct %s {", name);
        pr_indent(p);
        for (int j = 0; j < sd->nfields; j++) {
            const Field *f = &sd->fields[j];
            if (f->offset > at) pr_line(p, "unsigned char pad%d[%d];", npad++, f->offset - at);
            pr_line(p, "%-*s /* offset %d%s */", width, arena_printf(h->a, "%s;", field_decl(h, f)), f->offset,
                    f->as_array ? arena_printf(h->a, ", %s", oclc_type_name(f->ty)) : "");
            at = f->offset + f->size;
        }
        if (sd->size > at) pr_line(p, "unsigned char pad%d[%d];", npad, sd->size - at);
        pr_dedent(p);
        pr_line(p, "} %s;", name);
        for (int j = 0; j < sd->nfields; j++) {
            const char *fn = host_name(h, sd->fields[j].cname);
            pr_line(p, "CRISP_STATIC_ASSERT(offsetof(%s, %s) == %d, \"%s.%s: std140 offset %d\");", name, fn,
                    sd->fields[j].offset, name, fn, sd->fields[j].offset);
        }
        pr_line(p, "CRISP_STATIC_ASSERT(sizeof(%s) == %d, \"%s: std140 size %d\");", name, sd->size, name, sd->size);
    }
}

/* ---- the header ---- */

static int any_debug(const Abi *abi) {
    return abi->debug_output;
}

static void emit_header_comment(Hc *h, const char *file, const char *what) {
    Printer *p = &h->pr;
    const char *base = comment_text(h, h->o->base);
    pr_line(p, "/* %s - %s, generated by crisp %s", file, what, CRISP_VERSION);
    pr_line(p, " * from %s.  Edit the Crisp source, not this file.", comment_text(h, h->abi->source));
    pr_line(p, " *");
    if (h->cuda) {
        pr_line(p, " * Build: %s_hoist_CUDA.cpp with your program (it needs %s_hoist_CUDA.h and", base, base);
        pr_line(p, " * crisp_runtime_cuda.h, which crisp writes beside it, and CUDA's cuda.h and");
        pr_line(p, " * libcuda); %s_hoist_CUDA_demo.cpp is a main() running every kernel:", base);
        pr_line(p, " *");
        pr_line(p, " *     nvcc -I. %s_hoist_CUDA.cpp %s_hoist_CUDA_demo.cpp -lcuda -o %s_demo", base, base, base);
        pr_line(p, " *     (or g++ -I. -I$CUDA_HOME/include ... -L$CUDA_HOME/lib64 -lcuda)");
        pr_line(p, " *     ./%s_demo [%s.ptx]", base, base);
        return;
    }
    pr_line(p, " * Build: %s_hoist_OpenCL.c with your program (it needs %s_hoist_OpenCL.h and", base, base);
    pr_line(p, " * crisp_runtime.h, which crisp writes beside it, the Khronos OpenCL headers and");
    pr_line(p, " * an ICD loader); %s_hoist_OpenCL_demo.c is a main() running every kernel:", base);
    pr_line(p, " *");
    pr_line(p, " *     cc -std=c99 -I. %s_hoist_OpenCL.c %s_hoist_OpenCL_demo.c -lOpenCL -o %s_demo", base, base, base);
    pr_line(p, " *     ./%s_demo [%s.cl]", base, base);
}

static void emit_program_decl(Hc *h) {
    Printer *p = &h->pr;
    const Abi *abi = h->abi;
    pr_blank(p);
    pr_line(p, "/* ==========================================================================");
    if (h->cuda) pr_line(p, " * The program: the module of %s.ptx loaded on one context, and its kernels.", comment_text(h, h->o->base));
    else pr_line(p, " * The program: %s.cl built on one context, and its kernels.", comment_text(h, h->o->base));
    pr_line(p, " * ========================================================================== */");
    pr_blank(p);
    pr_line(p, "/* Not thread-safe: the *_enqueue and *_run functions set the arguments of");
    pr_line(p, " * the kernels here; give each thread its own (and its own CrispContext). */");
    pr_line(p, "typedef struct %s {", h->prog);
    pr_indent(p);
    pr_line(p, "CrispContext *cx;           /* context and queue; errors: crisp_error_message(cx) */");
    pr_line(p, "cl_program program;         /* %s.cl (NULL when every kernel is built from embedded source) */",
            comment_text(h, h->o->base));
    for (int i = 0; i < abi->nkernels; i++) {
        const AbiKernel *k = &abi->kernels[i];
        if (is_dynamic(h, k)) pr_line(p, "cl_program program_%s;  /* --hoist-dynamic: its embedded source */", k->name);
        pr_line(p, "cl_kernel kernel_%s;", k->name);
    }
    if (any_debug(abi)) {
        pr_line(p, "size_t debug_words;         /* --debug-output: words of the debug channel each *_run allocates */");
        pr_line(p, "CrispText debug_log;        /* the records the *_run functions decoded ... */");
        pr_line(p, "CrispText debug_out;        /* ... and those %s_debug_log handed out last */", h->base);
    }
    pr_dedent(p);
    pr_line(p, "} %s;", h->prog);
    pr_blank(p);
    if (h->cuda) {
        pr_line(p, "/* Load the module on CX's context: the cubin (or fat binary) crisp built for the");
        pr_line(p, " * device's sm_, found beside CL_PATH, else CL_PATH itself, the PTX (NULL: %s.ptx",
                comment_text(h, h->o->base));
        pr_line(p, " * in the working directory), which the driver compiles; CX->loaded says which.");
        pr_line(p, " * Then every kernel.  CX may come from crisp_open or crisp_use (your own");
        pr_line(p, " * context and stream) and must outlive P. */");
    } else {
        pr_line(p, "/* Build %s.cl (CL_PATH; NULL: %s.cl in the working directory) on CX's", comment_text(h, h->o->base),
                comment_text(h, h->o->base));
        pr_line(p, " * context and device and create every kernel.  CX may come from crisp_open or");
        pr_line(p, " * crisp_use (your own context and queue) and must outlive P. */");
    }
    pr_line(p, "cl_int %s_load(%s *p, CrispContext *cx, const char *cl_path);", h->base, h->prog);
    pr_blank(p);
    pr_line(p, "/* Release what %s_load made (not the CrispContext). */", h->base);
    pr_line(p, "void %s_release(%s *p);", h->base, h->prog);
    if (any_debug(abi)) {
        pr_blank(p);
        pr_line(p, "/* --debug-output: the records (\"FILE:LINE: [thread N] ...\" lines) the *_run");
        pr_line(p, " * functions decoded since the last call; the text stays valid until then. */");
        pr_line(p, "const char *%s_debug_log(%s *p);", h->base, h->prog);
        pr_blank(p);
        pr_line(p, "/* The site table of the debug channel (the metadata's \"debug_sites\"), for");
        pr_line(p, " * crisp_debug_decode on channels of your own; %s_debug_nsites entries. */", h->base);
        pr_line(p, "extern const CrispDebugSite %s_debug_sites[];", h->base);
        pr_line(p, "extern const size_t %s_debug_nsites;", h->base);
    }
}

static void emit_args_struct(Hc *h, const AbiKernel *k) {
    Printer *p = &h->pr;
    const char **decl = arena_alloc(h->a, sizeof(char *) * (size_t)(k->nargs + 1));
    const char **note = arena_alloc(h->a, sizeof(char *) * (size_t)(k->nargs + 1));
    int width = 0;
    if (!decl || !note) return;
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        const char *f = field(h, a);
        const char *name = comment_text(h, a->name);
        decl[i] = NULL;
        switch (a->role) {
        case ROLE_SCALAR:
            decl[i] = arena_printf(h->a, "%s %s;", scalar_ctype(h, a), f);
            note[i] = arena_printf(h->a, "%d: %s (%s)", a->index, name, a->type);
            break;
        case ROLE_LENGTH:
            decl[i] = arena_printf(h->a, "cl_ulong %s;", f);
            note[i] = k->args[a->measures].role == ROLE_SCRATCH  ? arena_printf(h->a, "%d: bytes in the scratch pool", a->index)
                      : k->args[a->measures].role == ROLE_DEBUG ? arena_printf(h->a, "%d: words in the debug channel", a->index)
                                                                : arena_printf(h->a, "%d: element count of %s", a->index, name);
            break;
        default:
            if (is_local(a)) {
                note[i] = arena_printf(h->a, "%d: %s (%s): __local memory, sized by %s", a->index, name, a->type,
                                       length_of(k, a) ? field(h, length_of(k, a)) : "its length");
            } else {
                decl[i] = arena_printf(h->a, "%s %s;", h->o->unified_memory ? "CrispMem" : "cl_mem", f);
                note[i] = a->role == ROLE_BUFFER
                              ? arena_printf(h->a, "%d: %s (%s, %s)", a->index, name, a->type, ty_acc_name(a->acc))
                              : arena_printf(h->a, "%d: %s: %s (%s)", a->index, role_text(a), name, a->type);
            }
            break;
        }
        if (decl[i] && (int)strlen(decl[i]) > width) width = (int)strlen(decl[i]);
    }
    pr_line(p, "/* Every OpenCL argument of %s, in the kernel's order.%s */", k->name,
            h->o->unified_memory ? "  A CrispMem holds a\n * buffer (.mem) or a shared virtual memory pointer (.svm)." : "");
    pr_line(p, "typedef struct %s_args {", k->name);
    pr_indent(p);
    if (k->nargs == 0) pr_line(p, "char unused; /* %s takes no arguments */", k->name);
    for (int i = 0; i < k->nargs; i++) {
        if (decl[i]) pr_line(p, "%-*s /* %s */", width, decl[i], note[i]);
        else pr_line(p, "/* %s */", note[i]);
    }
    pr_dedent(p);
    pr_line(p, "} %s_args;", k->name);
}

/* The parameter list of KERNEL_run: host arrays and their lengths, scalars,
 * implicit and result vectors, then the launch. */
static const char *run_params(Hc *h, const HostKernel *hk) {
    const char *s = arena_printf(h->a, "%s *p", h->prog);
    for (int i = 0; i < hk->nparams; i++) {
        const HostParam *hp = &hk->params[i];
        const AbiArg *x = hp->arg;
        const char *f = field(h, x);
        switch (hp->kind) {
        case HP_SCALAR: s = arena_printf(h->a, "%s, %s %s", s, scalar_ctype(h, x), f); break;
        case HP_LOCAL: s = arena_printf(h->a, "%s, size_t %s", s, hp->len ? field(h, hp->len) : arena_printf(h->a, "%s_len", f)); break;
        default:
            s = arena_printf(h->a, "%s, %s%s *%s, size_t %s", s, hp->downloads ? "" : "const ", elem_ctype(h, x), f,
                             hp->len ? field(h, hp->len) : arena_printf(h->a, "%s_bytes", f));
            break;
        }
    }
    for (int i = 0; i < hk->nsides; i++) {
        const AbiArg *x = hk->sides[i];
        const AbiArg *len = length_of(hk->k, x);
        if (x->role == ROLE_IMPLICIT)
            s = arena_printf(h->a, "%s, %s *%s, size_t %s", s, elem_ctype(h, x), field(h, x), field(h, len));
        else if (x->role == ROLE_RESULT)
            s = arena_printf(h->a, "%s, %s **%s, size_t *%s", s, elem_ctype(h, x), field(h, x), field(h, len));
    }
    return arena_printf(h->a, "%s, const CrispLaunch *launch", s);
}

/* "TYPE NAME(PARAMS)" broken after commas to stay within 110 columns. */
static void emit_signature(Hc *h, const char *head, const char *params, const char *end) {
    Printer *p = &h->pr;
    int col = (int)strlen(head) + 1;
    if (col + (int)strlen(params) + (int)strlen(end) + 1 <= 110) {
        pr_line(p, "%s(%s)%s", head, params, end);
        return;
    }
    const char *line = arena_printf(h->a, "%s(", head);
    int width = col, first = 1;
    for (const char *s = params; s && *s;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s + 1) : strlen(s);
        if (!first && width + (int)n > 108) {
            pr_line(p, "%s", line);
            line = arena_printf(h->a, "%*s", 8, "");
            width = 8;
            while (*s == ' ') s++, n--;
        }
        line = arena_printf(h->a, "%s%.*s", line, (int)n, s);
        width += (int)n;
        s += n;
        first = 0;
    }
    pr_line(p, "%s)%s", line, end);
}

static void emit_kernel_decls(Hc *h, const HostKernel *hk) {
    Printer *p = &h->pr;
    const AbiKernel *k = hk->k;
    pr_blank(p);
    pr_line(p, "/* ==========================================================================");
    pr_line(p, " * Kernel %s: %s at %s", k->name, k->exact ? "def-kernel-exact" : "def-kernel", comment_text(h, where(h, k)));
    if (is_dynamic(h, k)) pr_line(p, " * Built at run time from embedded source (--hoist-dynamic=%s).", k->name);
    pr_line(p, " * ========================================================================== */");
    pr_blank(p);
    emit_args_struct(h, k);
    pr_blank(p);
    pr_line(p, "/* The global and local sizes %s declares (the global size rounded up to a", k->name);
    pr_line(p, " * multiple of the local size). */");
    c_line(h, "void %s_launch_size(const %s_args *args, CrispLaunch *launch);", k->name, k->name);
    if (hk->nsides > (hk->debug ? 1 : 0)) {
        pr_blank(p);
        pr_line(p, "/* The lengths of %s's side channels, which may depend on the launch. */", k->name);
        c_line(h, "void %s_side_sizes(%s_args *args, const CrispLaunch *launch);", k->name, k->name);
    }
    pr_blank(p);
    pr_line(p, "/* In NEED's length fields: the elements %s may touch in each vector at", k->name);
    pr_line(p, " * LAUNCH (0: no bound to check). */");
    c_line(h, "void %s_min_lengths(const %s_args *args, const CrispLaunch *launch, %s_args *need);", k->name, k->name, k->name);
    pr_blank(p);
    pr_line(p, "/* Check ARGS before a launch: every length against what the kernel touches,");
    pr_line(p, " * and every buffer given: on CX's context, as large as its length says. */");
    c_line(h, "cl_int %s_check(CrispContext *cx, const %s_args *args, const CrispLaunch *launch);", k->name, k->name);
    pr_blank(p);
    pr_line(p, "/* clSetKernelArg for every argument of %s. */", k->name);
    c_line(h, "cl_int %s_set_args(CrispContext *cx, cl_kernel kernel, const %s_args *args);", k->name, k->name);
    pr_blank(p);
    pr_line(p, "/* Check ARGS, set them and enqueue %s on QUEUE (NULL: P's) with LAUNCH", k->name);
    pr_line(p, " * (NULL: %s_launch_size), after the events of WAIT_LIST; *EVENT (when", k->name);
    pr_line(p, " * EVENT is not NULL) is the kernel's.  Does not wait.  The memory is yours. */");
    emit_signature(h, arena_printf(h->a, "cl_int %s_enqueue", k->name),
                   arena_printf(h->a, "%s *p, cl_command_queue queue, const %s_args *args, const CrispLaunch *launch, "
                                      "cl_uint num_events, const cl_event *wait_list, cl_event *event",
                                h->prog, k->name),
                   ";");
    pr_blank(p);
    pr_line(p, "/* %s on host arrays: each vector is copied to the device unless the kernel", k->name);
    pr_line(p, " * only writes it, and back when the kernel may write it (std140 padding added");
    pr_line(p, " * and removed); the call waits.  Lengths count elements.");
    for (int i = 0; i < hk->nsides; i++) {
        const AbiArg *x = hk->sides[i];
        if (x->role == ROLE_IMPLICIT)
            pr_line(p, " * %s: implicit vector, at least %s elements (NULL: zeros).", field(h, x), comment_text(h, x->size.crisp));
        else if (x->role == ROLE_RESULT)
            pr_line(p, " * %s: result vector of %s elements, malloc'ed for you (free() it; NULL: dropped).",
                    field(h, x), comment_text(h, x->size.crisp));
    }
    pr_line(p, " * LAUNCH: NULL for the declared sizes. */");
    emit_signature(h, arena_printf(h->a, "cl_int %s_run", k->name), run_params(h, hk), ";");
}

/* ---- whole-vector sorts (gen-bitonic-sort-vector, lib/sort.crisp) ---- */

static const char *sort_enqueue_params(Hc *h) {
    return arena_printf(h->a, "%s *p, cl_command_queue queue, cl_mem data, cl_ulong n, cl_uint num_events, "
                              "const cl_event *wait_list, cl_event *event",
                        h->prog);
}

/* One pass of a sort's host loop: enqueue KERNEL with ARGS and LAUNCH after
 * the previous pass's event, which it replaces; ON_ERROR ("return err",
 * "goto done") when the enqueue fails. */
static void sort_step(Printer *p, const char *kernel, const char *args, const char *launch, const char *on_error) {
    pr_line(p, "err = %s_enqueue(p, queue, &%s, &%s, 1, &prev, &next);", kernel, args, launch);
    pr_line(p, "clReleaseEvent(prev);");
    pr_line(p, "prev = next;");
    pr_line(p, "if (err != CL_SUCCESS) %s;", on_error);
}

/* K_side_sizes(&ARGS, &LAUNCH); where kernel K has side channels (its
 * __local scratch is sized from the launch). */
static void sort_side_sizes(Hc *h, const AbiKernel *k, const char *args, const char *launch) {
    const HostKernel *hk = &h->hks[k - h->abi->kernels];
    if (hk->nsides > (hk->debug ? 1 : 0)) pr_line(&h->pr, "%s_side_sizes(&%s, &%s);", k->name, args, launch);
}

static const char *sort_run_params(Hc *h, const AbiSort *s) {
    const char *t = elem_ctype(h, &s->k[0]->args[0]);
    if (s->in_place) return arena_printf(h->a, "%s *p, %s *data, size_t n", h->prog, t);
    return arena_printf(h->a, "%s *p, const %s *data, %s *out, size_t n", h->prog, t, t);
}

static void emit_sort_decls(Hc *h, const AbiSort *s) {
    Printer *p = &h->pr;
    pr_blank(p);
    pr_line(p, "/* gen-bitonic-sort-vector%s: sort %s elements in ascending order (bitonic: not stable).",
            s->in_place ? "!" : "", s->elem);
    pr_line(p, " * %s_enqueue sorts the first N elements of DATA (device memory) in place:", s->name);
    pr_line(p, " * kernel %s, then for j = %d, %d .. (the power of two >= N)", s->k[0]->name, 4 * s->wg, 8 * s->wg);
    pr_line(p, " * %s for k = j/2 .. %d and %s for k = %d .. 1;", s->k[1]->name, 2 * s->wg, s->k[2]->name, s->wg);
    pr_line(p, " * EVENT (when not NULL) is the last launch's.  %s_run %s. */", s->name,
            s->in_place ? "sorts host memory (copies, waits)" : "writes DATA sorted to OUT (copies, waits)");
    emit_signature(h, arena_printf(h->a, "cl_int %s_enqueue", s->name), sort_enqueue_params(h), ";");
    pr_blank(p);
    emit_signature(h, arena_printf(h->a, "cl_int %s_run", s->name), sort_run_params(h, s), ";");
}

static void emit_sort(Hc *h, const AbiSort *s) {
    Printer *p = &h->pr;
    const AbiArg *x = &s->k[0]->args[0];
    const char *kc = s->k[0]->name, *km = s->k[1]->name, *kl = s->k[2]->name;
    pr_blank(p);
    pr_line(p, "/* ---- %s: gen-bitonic-sort-vector%s ---- */", s->name, s->in_place ? "!" : "");
    pr_blank(p);
    emit_signature(h, arena_printf(h->a, "cl_int %s_enqueue", s->name), sort_enqueue_params(h), "");
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "const size_t wg = %d;", s->wg);
    pr_line(p, "size_t groups = (size_t)((n + 2 * wg - 1) / (2 * wg));");
    pr_line(p, "cl_ulong pairs = 1, j, k;");
    pr_line(p, "cl_event prev = NULL, next = NULL;");
    pr_line(p, "cl_int err;");
    pr_line(p, "CrispLaunch launch;");
    pr_line(p, "%s_args ca;", kc);
    pr_line(p, "%s_args ma;", km);
    pr_line(p, "%s_args la;", kl);
    pr_blank(p);
    pr_line(p, "memset(&ca, 0, sizeof ca);");
    pr_line(p, "ca.data = data;");
    pr_line(p, "ca.data_len = n;");
    pr_line(p, "crisp_launch_init(&launch, 1);");
    pr_line(p, "launch.global[0] = groups * wg;");
    pr_line(p, "launch.local[0] = wg;");
    sort_side_sizes(h, s->k[0], "ca", "launch");
    pr_line(p, "/* each workgroup sorts 2 x wg elements */");
    pr_line(p, "err = %s_enqueue(p, queue, &ca, &launch, num_events, wait_list, &prev);", kc);
    pr_line(p, "if (err != CL_SUCCESS) return err;");
    pr_line(p, "while (2 * pairs < n) pairs *= 2;");
    pr_line(p, "memset(&ma, 0, sizeof ma);");
    pr_line(p, "ma.data = data;");
    pr_line(p, "ma.data_len = n;");
    pr_line(p, "memset(&la, 0, sizeof la);");
    pr_line(p, "la.data = data;");
    pr_line(p, "la.data_len = n;");
    pr_line(p, "/* merge the sorted runs of j/2 into runs of j */");
    pr_line(p, "for (j = 4 * (cl_ulong)wg; j / 2 < n; j *= 2) {");
    pr_indent(p);
    pr_line(p, "for (k = j / 2; k > wg; k /= 2) {");
    pr_indent(p);
    pr_line(p, "ma.j = j;");
    pr_line(p, "ma.k = k;");
    pr_line(p, "crisp_launch_init(&launch, 1);");
    pr_line(p, "launch.global[0] = (size_t)pairs;");
    sort_side_sizes(h, s->k[1], "ma", "launch");
    sort_step(p, km, "ma", "launch", "return err");
    pr_dedent(p);
    pr_line(p, "}");
    pr_line(p, "/* the steps k .. 1 stay within chunks of 2 x wg elements */");
    pr_line(p, "la.j = j;");
    pr_line(p, "la.k = k;");
    pr_line(p, "crisp_launch_init(&launch, 1);");
    pr_line(p, "launch.global[0] = groups * wg;");
    pr_line(p, "launch.local[0] = wg;");
    sort_side_sizes(h, s->k[2], "la", "launch");
    sort_step(p, kl, "la", "launch", "return err");
    pr_dedent(p);
    pr_line(p, "}");
    pr_line(p, "if (event) *event = prev;");
    pr_line(p, "else clReleaseEvent(prev);");
    pr_line(p, "return CL_SUCCESS;");
    pr_dedent(p);
    pr_line(p, "}");
    pr_blank(p);
    emit_signature(h, arena_printf(h->a, "cl_int %s_run", s->name), sort_run_params(h, s), "");
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "CrispContext *cx = p->cx;");
    pr_line(p, "CrispMem mem;");
    pr_line(p, "cl_event ran = NULL;");
    pr_line(p, "cl_int err;");
    pr_blank(p);
    pr_line(p, "memset(&mem, 0, sizeof mem);");
    pr_line(p, "if (!data && n) return crisp_errorf(cx, CL_INVALID_VALUE, \"%s: data is NULL\");", s->name);
    if (!s->in_place) {
        pr_line(p, "if (!out && n) return crisp_errorf(cx, CL_INVALID_VALUE, \"%s: out is NULL\");", s->name);
        pr_line(p, "if (n < 2) {");
        pr_line(p, "    if (n) memcpy(out, data, n * %s);", elem_size(h, x));
        pr_line(p, "    return CL_SUCCESS;");
        pr_line(p, "}");
    } else {
        pr_line(p, "if (n < 2) return CL_SUCCESS;");
    }
    c_line(h, "err = crisp_upload(cx, &mem, CL_MEM_READ_WRITE, data, n, %s, %d, 1, 0, \"%s: data\");", elem_size(h, x), stride_of(x),
           s->name);
    pr_line(p, "if (err != CL_SUCCESS) return err;");
    pr_line(p, "err = %s_enqueue(p, NULL, mem.mem, (cl_ulong)n, 0, NULL, &ran);", s->name);
    pr_line(p, "if (err == CL_SUCCESS) {");
    pr_indent(p);
    pr_line(p, "err = clWaitForEvents(1, &ran);");
    pr_line(p, "if (crisp_ok(cx, err, \"%s: running it\"))", s->name);
    c_line(h, "    err = crisp_download(cx, cx->queue, &mem, %s, n, %s, %d, \"%s: data\");", s->in_place ? "data" : "out",
           elem_size(h, x), stride_of(x), s->name);
    pr_dedent(p);
    pr_line(p, "}");
    pr_line(p, "if (ran) clReleaseEvent(ran);");
    pr_line(p, "crisp_mem_release(&mem);");
    pr_line(p, "return err;");
    pr_dedent(p);
    pr_line(p, "}");
}

/* ---- radix sorts (gen-radix-sort-vector, lib/sort.crisp) ---- */

static const AbiArg *radix_values_arg(const AbiSort *s) {
    return &s->k[2]->args[s->k[2]->param_arg[4]];
}

static const char *radix_enqueue_params(Hc *h, const AbiSort *s) {
    return arena_printf(h->a, "%s *p, cl_command_queue queue, cl_mem keys, %scl_ulong n, cl_uint num_events, "
                              "const cl_event *wait_list, cl_event *event",
                        h->prog, s->pairs ? "cl_mem values, " : "");
}

static const char *radix_run_params(Hc *h, const AbiSort *s) {
    const char *t = elem_ctype(h, &s->k[0]->args[0]);
    if (s->pairs) return arena_printf(h->a, "%s *p, %s *keys, %s *values, size_t n", h->prog, t, elem_ctype(h, radix_values_arg(s)));
    return arena_printf(h->a, "%s *p, %s *keys, size_t n", h->prog, t);
}

static void emit_radix_decls(Hc *h, const AbiSort *s) {
    Printer *p = &h->pr;
    pr_blank(p);
    pr_line(p, "/* gen-radix-sort-vector: sort %s keys in ascending order%s (a stable LSD radix", s->elem,
            s->pairs ? ", VALUES moving with them" : "");
    pr_line(p, " * sort, %d passes of %d bits, each the kernels %s,", s->passes, s->digit_bits, s->k[0]->name);
    pr_line(p, " * %s and %s).  %s_enqueue sorts the first N", s->k[1]->name, s->k[2]->name, s->name);
    pr_line(p, " * elements of KEYS (device memory) in place, with two more buffers it releases");
    pr_line(p, " * (OpenCL frees them when the kernels are done); EVENT (when not NULL) is the");
    pr_line(p, " * last launch's, NULL for N < 2.  %s_run sorts host memory (copies, waits). */", s->name);
    emit_signature(h, arena_printf(h->a, "cl_int %s_enqueue", s->name), radix_enqueue_params(h, s), ";");
    pr_blank(p);
    emit_signature(h, arena_printf(h->a, "cl_int %s_run", s->name), radix_run_params(h, s), ";");
}

static void emit_radix(Hc *h, const AbiSort *s) {
    Printer *p = &h->pr;
    const AbiArg *x = &s->k[0]->args[0], *v = s->pairs ? radix_values_arg(s) : NULL;
    const char *kc = s->k[0]->name, *ks = s->k[1]->name, *kx = s->k[2]->name;
    pr_blank(p);
    pr_line(p, "/* ---- %s: gen-radix-sort-vector ---- */", s->name);
    pr_blank(p);
    emit_signature(h, arena_printf(h->a, "cl_int %s_enqueue", s->name), radix_enqueue_params(h, s), "");
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "CrispContext *cx = p->cx;");
    pr_line(p, "/* a workgroup of %d threads per tile of %d keys; the tiles' %d digit counts */", s->wg, s->wg * s->kpt,
            1 << s->digit_bits);
    pr_line(p, "size_t tiles = (size_t)((n + %d) / %d);", s->wg * s->kpt - 1, s->wg * s->kpt);
    pr_line(p, "CrispMem mem[4]; /* the second keys%s, the counts, the scan's scratch pool */", s->pairs ? " and values" : "");
    pr_line(p, "CrispLaunch launch, scan_launch;");
    pr_line(p, "%s_args ca;", kc);
    pr_line(p, "%s_args sa;", ks);
    pr_line(p, "%s_args xa;", kx);
    pr_line(p, "cl_mem a = keys, b, t;");
    if (s->pairs) pr_line(p, "cl_mem va = values, vb;");
    pr_line(p, "cl_event prev = NULL, next = NULL;");
    pr_line(p, "cl_uint shift;");
    pr_line(p, "int i;");
    pr_line(p, "cl_int err = CL_SUCCESS;");
    pr_blank(p);
    pr_line(p, "if (event) *event = NULL;");
    pr_line(p, "if (n < 2) return CL_SUCCESS;");
    pr_line(p, "for (i = 0; i < 4; i++) memset(&mem[i], 0, sizeof mem[i]);");
    pr_line(p, "memset(&ca, 0, sizeof ca);");
    pr_line(p, "memset(&sa, 0, sizeof sa);");
    pr_line(p, "memset(&xa, 0, sizeof xa);");
    c_line(h, "err = crisp_mem_create(cx, &mem[0], CL_MEM_READ_WRITE, (size_t)n * %d, NULL, 0, 0, \"%s: keys\");", stride_of(x), s->name);
    if (s->pairs)
        c_line(h, "if (err == CL_SUCCESS) err = crisp_mem_create(cx, &mem[1], CL_MEM_READ_WRITE, (size_t)n * %d, NULL, 0, 0, \"%s: values\");",
               stride_of(v), s->name);
    c_line(h, "if (err == CL_SUCCESS) err = crisp_mem_create(cx, &mem[2], CL_MEM_READ_WRITE, %d * tiles * sizeof(cl_uint), NULL, 0, 0, \"%s: counts\");",
           1 << s->digit_bits, s->name);
    pr_line(p, "if (err != CL_SUCCESS) goto done;");
    pr_line(p, "b = mem[0].mem;");
    if (s->pairs) pr_line(p, "vb = mem[1].mem;");
    pr_line(p, "sa.counts = mem[2].mem;");
    pr_line(p, "sa.counts_len = %d * (cl_ulong)tiles;", 1 << s->digit_bits);
    pr_line(p, "%s_launch_size(&sa, &scan_launch);", ks);
    pr_line(p, "if (scan_launch.global[0] > 65536) scan_launch.global[0] = 65536; /* the scan takes tiles by ticket */");
    pr_line(p, "crisp_launch_round_up(&scan_launch);");
    pr_line(p, "%s_side_sizes(&sa, &scan_launch);", ks);
    c_line(h, "err = crisp_mem_create(cx, &mem[3], CL_MEM_READ_WRITE, (size_t)sa.scratch_pool_len, NULL, 1, 0, \"%s: scan scratch\");",
           s->name);
    pr_line(p, "if (err != CL_SUCCESS) goto done;");
    pr_line(p, "sa.scratch_pool = mem[3].mem;");
    pr_line(p, "crisp_launch_init(&launch, 1);");
    pr_line(p, "launch.global[0] = tiles * %d;", s->wg);
    pr_line(p, "launch.local[0] = %d;", s->wg);
    pr_line(p, "for (shift = 0; shift < %d; shift += %d) {", s->digit_bits * s->passes, s->digit_bits);
    pr_indent(p);
    pr_line(p, "ca.keys = a;");
    pr_line(p, "ca.keys_len = n;");
    pr_line(p, "ca.counts = sa.counts;");
    pr_line(p, "ca.counts_len = sa.counts_len;");
    pr_line(p, "ca.shift = shift;");
    sort_side_sizes(h, s->k[0], "ca", "launch");
    pr_line(p, "err = %s_enqueue(p, queue, &ca, &launch, prev ? 1 : num_events, prev ? &prev : wait_list, &next);", kc);
    pr_line(p, "if (prev) clReleaseEvent(prev);");
    pr_line(p, "prev = next;");
    pr_line(p, "if (err != CL_SUCCESS) goto done;");
    sort_step(p, ks, "sa", "scan_launch", "goto done");
    pr_line(p, "xa.keys = a;");
    pr_line(p, "xa.keys_len = n;");
    pr_line(p, "xa.out = b;");
    pr_line(p, "xa.out_len = n;");
    pr_line(p, "xa.counts = sa.counts;");
    pr_line(p, "xa.counts_len = sa.counts_len;");
    pr_line(p, "xa.shift = shift;");
    if (s->pairs) {
        pr_line(p, "xa.vals = va;");
        pr_line(p, "xa.vals_len = n;");
        pr_line(p, "xa.vals_out = vb;");
        pr_line(p, "xa.vals_out_len = n;");
    }
    sort_side_sizes(h, s->k[2], "xa", "launch");
    sort_step(p, kx, "xa", "launch", "goto done");
    pr_line(p, "t = a, a = b, b = t; /* an even number of passes: the result ends in KEYS */");
    if (s->pairs) pr_line(p, "t = va, va = vb, vb = t;");
    pr_dedent(p);
    pr_line(p, "}");
    pr_line(p, "if (event) *event = prev, prev = NULL;");
    pr_line(p, "done:");
    pr_line(p, "if (prev) clReleaseEvent(prev);");
    pr_line(p, "for (i = 0; i < 4; i++) crisp_mem_release(&mem[i]);");
    pr_line(p, "return err;");
    pr_dedent(p);
    pr_line(p, "}");
    pr_blank(p);
    emit_signature(h, arena_printf(h->a, "cl_int %s_run", s->name), radix_run_params(h, s), "");
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "CrispContext *cx = p->cx;");
    pr_line(p, "CrispMem mem[2];");
    pr_line(p, "cl_event ran = NULL;");
    pr_line(p, "cl_int err;");
    pr_blank(p);
    pr_line(p, "memset(mem, 0, sizeof mem);");
    pr_line(p, "if (n < 2) return CL_SUCCESS;");
    pr_line(p, "if (!keys) return crisp_errorf(cx, CL_INVALID_VALUE, \"%s: keys is NULL\");", s->name);
    if (s->pairs) pr_line(p, "if (!values) return crisp_errorf(cx, CL_INVALID_VALUE, \"%s: values is NULL\");", s->name);
    c_line(h, "err = crisp_upload(cx, &mem[0], CL_MEM_READ_WRITE, keys, n, %s, %d, 1, 0, \"%s: keys\");", elem_size(h, x), stride_of(x),
           s->name);
    if (s->pairs)
        c_line(h, "if (err == CL_SUCCESS) err = crisp_upload(cx, &mem[1], CL_MEM_READ_WRITE, values, n, %s, %d, 1, 0, \"%s: values\");",
               elem_size(h, v), stride_of(v), s->name);
    pr_line(p, "if (err == CL_SUCCESS) err = %s_enqueue(p, NULL, mem[0].mem, %s(cl_ulong)n, 0, NULL, &ran);", s->name,
            s->pairs ? "mem[1].mem, " : "");
    pr_line(p, "if (err == CL_SUCCESS) {");
    pr_indent(p);
    pr_line(p, "err = clWaitForEvents(1, &ran);");
    pr_line(p, "if (crisp_ok(cx, err, \"%s: running it\"))", s->name);
    c_line(h, "    err = crisp_download(cx, cx->queue, &mem[0], keys, n, %s, %d, \"%s: keys\");", elem_size(h, x), stride_of(x), s->name);
    if (s->pairs)
        c_line(h, "if (err == CL_SUCCESS) err = crisp_download(cx, cx->queue, &mem[1], values, n, %s, %d, \"%s: values\");",
               elem_size(h, v), stride_of(v), s->name);
    pr_dedent(p);
    pr_line(p, "}");
    pr_line(p, "if (ran) clReleaseEvent(ran);");
    pr_line(p, "crisp_mem_release(&mem[0]);");
    pr_line(p, "crisp_mem_release(&mem[1]);");
    pr_line(p, "return err;");
    pr_dedent(p);
    pr_line(p, "}");
}
static void emit_orch_decl(Hc *h, const AbiOrch *ao);
static void emit_orch_run(Hc *h, const AbiOrch *ao);

static void emit_header(Hc *h) {
    Printer *p = &h->pr;
    const char *base = comment_text(h, h->o->base);
    emit_header_comment(h, arena_printf(h->a, "%s_hoist_OpenCL.h", base), arena_printf(h->a, "the C API of the kernels of %s.cl", base));
    pr_line(p, " *");
    if (h->cuda) {
        pr_line(p, " * Use (every call returns a status: 0, a CUresult or CRISP_INVALID_LENGTH;");
        pr_line(p, " * crisp_error_message(&cx) says why):");
        pr_line(p, " *");
        pr_line(p, " *     CrispContext cx;");
        pr_line(p, " *     crisp_use(&cx, my_context, my_stream);      (or crisp_open(&cx, 0))");
    } else {
        pr_line(p, " * Use (every call returns an OpenCL status; crisp_error_message(&cx) says why):");
        pr_line(p, " *");
        pr_line(p, " *     CrispContext cx;");
        pr_line(p, " *     crisp_use(&cx, my_context, my_queue);       (or crisp_open(&cx, 0))");
    }
    pr_line(p, " *     %s prog;", h->prog);
    pr_line(p, " *     %s_load(&prog, &cx, \"%s.cl\");", h->base, base);
    if (h->abi->nkernels) {
        const AbiKernel *k = &h->abi->kernels[0];
        pr_line(p, " *     %s_run(&prog, ...host arrays and lengths..., NULL);     copies, waits", k->name);
        pr_line(p, " *     %s_enqueue(&prog, NULL, &args, NULL, 0, NULL, &ev);    your cl_mems", k->name);
    }
    pr_line(p, " *     %s_release(&prog);", h->base);
    pr_line(p, " *     crisp_close(&cx);");
    pr_line(p, " *");
    pr_line(p, " * Kernels:");
    for (int i = 0; i < h->abi->nkernels; i++) {
        const AbiKernel *k = &h->abi->kernels[i];
        pr_line(p, " *   %-24s %s%s", k->name, comment_text(h, where(h, k)), is_dynamic(h, k) ? " (built from embedded source)" : "");
    }
    if (h->abi->nkernels == 0) pr_line(p, " *   (none)");
    pr_line(p, " */");
    const char *guard = arena_printf(h->a, "%s_HOIST_OPENCL_H", h->base);
    for (char *q = (char *)guard; q && *q; q++) *q = (char)toupper((unsigned char)*q);
    pr_line(p, "#ifndef %s", guard);
    pr_line(p, "#define %s", guard);
    pr_blank(p);
    pr_line(p, "#include \"crisp_runtime.h\"");
    pr_blank(p);
    pr_line(p, "#ifdef __cplusplus");
    pr_line(p, "extern \"C\" {");
    pr_line(p, "#endif");
    emit_structs(h);
    emit_program_decl(h);
    for (int i = 0; i < h->abi->nkernels; i++) emit_kernel_decls(h, &h->hks[i]);
    for (int i = 0; i < h->abi->nsorts; i++) {
        if (h->abi->sorts[i].kind == HOST_SORT_RADIX) emit_radix_decls(h, &h->abi->sorts[i]);
        else emit_sort_decls(h, &h->abi->sorts[i]);
    }
    /* orchestrations: in the CUDA hoist too, on streams (docs/hoisting-cuda.md) */
    int norchs = h->abi->norchs;
    if (norchs) {
        pr_blank(p);
        pr_line(p, "/* ==========================================================================");
        pr_line(p, " * Orchestrations (def-orchestration, let-kernel): their steps in one call");
        pr_line(p, " * ========================================================================== */");
        pr_blank(p);
        pr_line(p, "#ifndef CRISP_INTERLEAVE_CHUNKS");
        pr_line(p, "#define CRISP_INTERLEAVE_CHUNKS 8 /* launch-interleaved: chunks per vector */");
        pr_line(p, "#endif");
    }
    for (int i = 0; i < norchs; i++) emit_orch_decl(h, &h->abi->orchs[i]);
    pr_blank(p);
    pr_line(p, "#ifdef __cplusplus");
    pr_line(p, "}");
    pr_line(p, "#endif");
    pr_blank(p);
    pr_line(p, "#endif /* %s */", guard);
}

/* ---- the library source ---- */

/* The .cl text with every kernel but K left out: kernels are never called,
 * so the support functions and K are a complete program.  Kernel blocks
 * start at their "def-kernel NAME " comment and end at a "}" line.  Falls
 * back to the whole source when the layout is not recognised. */
static const char *kernel_source(Hc *h, const AbiKernel *keep) {
    const char *src = h->o->cl_source ? h->o->cl_source : "";
    StrBuf b;
    sb_init(&b);
    int skipping = 0, found = 0;
    for (const char *line = src; *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line + 1) : strlen(line);
        if (!skipping && (!strncmp(line, "/* def-kernel ", 14) || !strncmp(line, "/* def-kernel-exact ", 20))) {
            const char *name = strchr(line + 3, ' ') + 1;
            size_t kl = strlen(keep->name);
            int is_keep = !strncmp(name, keep->name, kl) && name[kl] == ' ';
            found |= is_keep;
            skipping = !is_keep;
        }
        if (!skipping) sb_putn(&b, line, n);
        else if (n >= 1 && line[0] == '}' && (n == 1 || line[1] == '\n')) {
            skipping = 0;
            if (line[n] == '\n') n++; /* and the blank line after it */
        }
        line += n;
    }
    const char *r = found && !b.oom ? arena_strdup(h->a, sb_cstr(&b)) : src;
    sb_free(&b);
    return r;
}

static void emit_embedded_source(Hc *h, const AbiKernel *k) {
    Printer *p = &h->pr;
    const char *src = kernel_source(h, k);
    pr_blank(p);
    pr_line(p, "/* %s's OpenCL C, embedded by --hoist-dynamic=%s: the program's support", k->name, k->name);
    pr_line(p, " * functions and this kernel, built at run time by %s_load (the in-memory", h->base);
    pr_line(p, " * compilation path: no file is read). */");
    pr_line(p, "static const char %s_source[] =", k->name);
    pr_indent(p);
    for (const char *line = src; *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line + 1) : strlen(line);
        char *text = arena_strndup(h->a, line, n);
        StrBuf b;
        sb_init(&b);
        put_c_string(&b, text ? text : "");
        pr_line(p, "\"%s\"", sb_cstr(&b));
        sb_free(&b);
        line += n;
    }
    if (!*src) pr_line(p, "\"\"");
    pr_line(p, ";");
    pr_dedent(p);
}

/* The site table of the debug channel: the metadata's "debug_sites",
 * generated from the same program so records and sites always agree. */
static void emit_debug_sites(Hc *h) {
    Printer *p = &h->pr;
    int nsites = h->abi->nsites;
    pr_blank(p);
    for (int i = 0; i < nsites; i++) {
        const DebugSite *s = h->abi->sites[i];
        if (!s->nparts) continue;
        pr_line(p, "static const CrispDebugPart %s_debug_site%d_parts[] = {", h->base, i);
        pr_indent(p);
        for (int j = 0; j < s->nparts; j++) {
            const DebugPart *dp = &s->parts[j];
            if (dp->text) pr_line(p, "{%s, NULL, NULL},", c_string(h, dp->text));
            else pr_line(p, "{NULL, \"%s\", %s},", dp->ty ? oclc_type_name(dp->ty) : "int", c_string(h, dp->expr ? dp->expr : ""));
        }
        pr_dedent(p);
        pr_line(p, "};");
    }
    pr_blank(p);
    pr_line(p, "/* The debug channel's site table (the metadata's \"debug_sites\"): word 1 of");
    pr_line(p, " * a record indexes it.  The last entry only ends the table. */");
    pr_line(p, "const CrispDebugSite %s_debug_sites[] = {", h->base);
    pr_indent(p);
    for (int i = 0; i < nsites; i++) {
        const DebugSite *s = h->abi->sites[i];
        const char *parts = s->nparts ? arena_printf(h->a, "%s_debug_site%d_parts", h->base, i) : "NULL";
        pr_line(p, "{%s, %d, \"%s\", %s, %d}, /* site %d */", c_string(h, s->file), s->line, s->kind, parts, s->nparts, i);
    }
    if (!nsites) pr_line(p, "/* (the program has no r-t-output or r-t-assert) */");
    pr_line(p, "{NULL, 0, NULL, NULL, 0}");
    pr_dedent(p);
    pr_line(p, "};");
    pr_line(p, "const size_t %s_debug_nsites = %d;", h->base, nsites);
}

static void emit_program_defs(Hc *h) {
    Printer *p = &h->pr;
    const Abi *abi = h->abi;
    int nfile = 0;
    for (int i = 0; i < abi->nkernels; i++) nfile += !is_dynamic(h, &abi->kernels[i]);
    pr_blank(p);
    pr_line(p, "cl_int %s_load(%s *p, CrispContext *cx, const char *cl_path)", h->base, h->prog);
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "cl_int err = CL_SUCCESS;");
    pr_line(p, "memset(p, 0, sizeof *p);");
    pr_line(p, "p->cx = cx;");
    if (any_debug(abi)) pr_line(p, "p->debug_words = CRISP_DEBUG_WORDS;");
    if (h->cuda) {
        pr_line(p, "/* the binaries --binary-gpu-target built, by sm_, beside the PTX */");
        const char *list = "";
        for (int i = 0; i < h->o->ncuda_sms; i++)
            list = arena_printf(h->a, "%s, %s, %s", list, c_string(h, h->o->cuda_sms[i]),
                                c_string(h, arena_printf(h->a, "%s_%s.%s", h->o->base, h->o->cuda_sms[i],
                                                         h->o->fat_binary ? "fatbin" : "cubin")));
        pr_line(p, "static const char *const images[] = {%sNULL};", *list ? arena_printf(h->a, "%s, ", list + 2) : "");
        pr_line(p, "p->program = crisp_load_module(cx, cl_path ? cl_path : %s, images, &err);",
                c_string(h, arena_printf(h->a, "%s.ptx", h->o->base)));
        pr_line(p, "if (!p->program) return err;");
    } else if (nfile && h->o->ptx) {
        /* --ir-target=ptx: BASE_nvcl.ptx beside the .cl is the program binary on NVIDIA's OpenCL */
        pr_line(p, "/* %s_nvcl.ptx (clCreateProgramWithBinary) on NVIDIA's OpenCL%s, else the .cl */", comment_text(h, h->o->base),
                h->o->spirv ? ", the .spv where the device takes SPIR-V" : "");
        pr_line(p, "p->program = crisp_build_program_built(cx, cl_path ? cl_path : %s, %d, 1, %s, &err);",
                c_string(h, arena_printf(h->a, "%s.cl", h->o->base)), h->o->spirv ? 1 : 0, c_string(h, abi->cl_std));
        pr_line(p, "if (!p->program) return err;");
    } else if (nfile && h->o->spirv) {
        /* --ir-target=spv: BASE.spv beside the .cl, where the device takes SPIR-V */
        pr_line(p, "char spv_path[4096];");
        pr_line(p, "const char *path = cl_path ? cl_path : %s;", c_string(h, arena_printf(h->a, "%s.cl", h->o->base)));
        pr_line(p, "size_t n = strlen(path);");
        pr_line(p, "if (n > 3 && !strcmp(path + n - 3, \".cl\")) n -= 3;");
        pr_line(p, "snprintf(spv_path, sizeof spv_path, \"%%.*s.spv\", (int)(n < 4000 ? n : 4000), path);");
        pr_line(p, "p->program = crisp_build_program_spirv_or_file(cx, spv_path, path, %s, &err);", c_string(h, abi->cl_std));
        pr_line(p, "if (!p->program) return err;");
    } else if (nfile) {
        pr_line(p, "p->program = crisp_build_program_file(cx, cl_path ? cl_path : %s, %s, &err);",
                c_string(h, arena_printf(h->a, "%s.cl", h->o->base)), c_string(h, abi->cl_std));
        pr_line(p, "if (!p->program) return err;");
    } else {
        pr_line(p, "(void)cl_path; /* every kernel is built from its embedded source */");
    }
    for (int i = 0; i < abi->nkernels; i++) {
        const AbiKernel *k = &abi->kernels[i];
        const char *prog = "p->program";
        if (is_dynamic(h, k)) {
            pr_line(p, "p->program_%s = crisp_build_program(cx, %s_source, \"%s (embedded source)\", %s, &err);", k->name,
                    k->name, k->name, c_string(h, abi->cl_std));
            pr_line(p, "if (!p->program_%s) goto failed;", k->name);
            prog = arena_printf(h->a, "p->program_%s", k->name);
        }
        pr_line(p, "p->kernel_%s = crisp_create_kernel(cx, %s, \"%s\", &err);", k->name, prog, k->name);
        pr_line(p, "if (!p->kernel_%s) goto failed;", k->name);
        if (k->lmem && k->lmem->static_bytes && !has_local_args(k)) {
            /* local memory fixed at compile time: checked once, here */
            pr_line(p, "err = crisp_check_local_mem(cx, \"%s\", %lldULL, NULL); /* its fixed __local vectors */", k->name,
                    (long long)k->lmem->static_bytes);
            pr_line(p, "if (err != CL_SUCCESS) goto failed;");
        }
    }
    pr_line(p, "return CL_SUCCESS;");
    if (abi->nkernels) {
        pr_dedent(p);
        pr_line(p, "failed:");
        pr_indent(p);
        pr_line(p, "%s_release(p);", h->base);
        pr_line(p, "p->cx = cx;");
        pr_line(p, "return err;");
    }
    pr_dedent(p);
    pr_line(p, "}");
    pr_blank(p);
    pr_line(p, "void %s_release(%s *p)", h->base, h->prog);
    pr_line(p, "{");
    pr_indent(p);
    for (int i = 0; i < abi->nkernels; i++) {
        const AbiKernel *k = &abi->kernels[i];
        pr_line(p, "if (p->kernel_%s) clReleaseKernel(p->kernel_%s);", k->name, k->name);
        if (is_dynamic(h, k)) pr_line(p, "if (p->program_%s) clReleaseProgram(p->program_%s);", k->name, k->name);
    }
    pr_line(p, "if (p->program) clReleaseProgram(p->program);");
    if (any_debug(abi)) {
        pr_line(p, "crisp_text_free(&p->debug_log);");
        pr_line(p, "crisp_text_free(&p->debug_out);");
    }
    pr_line(p, "memset(p, 0, sizeof *p);");
    pr_dedent(p);
    pr_line(p, "}");
    if (any_debug(abi)) {
        pr_blank(p);
        pr_line(p, "const char *%s_debug_log(%s *p)", h->base, h->prog);
        pr_line(p, "{");
        pr_indent(p);
        pr_line(p, "/* handed out once: the next call starts afresh */");
        pr_line(p, "crisp_text_free(&p->debug_out);");
        pr_line(p, "p->debug_out = p->debug_log;");
        pr_line(p, "memset(&p->debug_log, 0, sizeof p->debug_log);");
        pr_line(p, "return crisp_text(&p->debug_out);");
        pr_dedent(p);
        pr_line(p, "}");
    }
}

static void emit_launch_size(Hc *h, const HostKernel *hk) {
    Printer *p = &h->pr;
    const AbiKernel *k = hk->k;
    const HostLaunch *l = &hk->launch;
    int uses_args = 0;
    pr_blank(p);
    c_line(h, "void %s_launch_size(const %s_args *args, CrispLaunch *launch)", k->name, k->name);
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "crisp_launch_init(launch, %d);", l->dims);
    if (l->global_msg) pr_line(p, "/* global-size: %s */", comment_text(h, l->global_msg));
    if (l->needs_global) {
        pr_line(p, "/* %s: one thread; set launch->global yourself */", comment_text(h, l->global_from));
    } else {
        pr_line(p, "/* %s */", comment_text(h, l->global_from));
        for (int d = 0; d < l->nglobal; d++) {
            const char *e = c_size(h, hk, l->global[d], "args->", "launch");
            uses_args |= strstr(e, "args->") != NULL;
            pr_line(p, "launch->global[%d] = (size_t)%s;", d, e);
        }
    }
    if (l->local_msg) pr_line(p, "/* local-size: %s */", comment_text(h, l->local_msg));
    if (l->nlocal && !l->single_task) {
        pr_line(p, "/* %s */", comment_text(h, l->local_from));
        for (int d = 0; d < l->nlocal; d++) {
            const char *e = c_size(h, hk, l->local[d], "args->", "launch");
            uses_args |= strstr(e, "args->") != NULL;
            pr_line(p, "launch->local[%d] = (size_t)%s;", d, e);
        }
        pr_line(p, "crisp_launch_round_up(launch);");
    } else if (l->single_task) {
        pr_line(p, "launch->local[0] = 1;");
    } else {
        pr_line(p, "/* no local-size declaration: %s chooses the workgroup size */", h->cuda ? "crisp_enqueue" : "OpenCL");
    }
    if (!uses_args) pr_line(p, "(void)args;");
    pr_dedent(p);
    pr_line(p, "}");
}

static void emit_side_sizes(Hc *h, const HostKernel *hk) {
    Printer *p = &h->pr;
    const AbiKernel *k = hk->k;
    if (hk->nsides <= (hk->debug ? 1 : 0)) return;
    int uses_launch = 0;
    pr_blank(p);
    c_line(h, "void %s_side_sizes(%s_args *args, const CrispLaunch *launch)", k->name, k->name);
    pr_line(p, "{");
    pr_indent(p);
    for (int i = 0; i < hk->nsides; i++) {
        const AbiArg *a = hk->sides[i];
        const AbiArg *len = length_of(k, a);
        if (!len) continue;
        if (a->role == ROLE_RESULT || a->role == ROLE_IMPLICIT || a->role == ROLE_LOCAL) {
            pr_line(p, "/* %s %s: %s elements of %s%s%s */", role_text(a), comment_text(h, a->name),
                    comment_text(h, a->size.crisp), a->element, a->comment ? " -- " : "", a->comment ? comment_text(h, a->comment) : "");
            pr_line(p, "args->%s = (cl_ulong)%s;", field(h, len), c_size(h, hk, a->size.expr, "args->", "launch"));
            uses_launch |= sz_uses_launch(a->size.expr);
        } else if (a->role == ROLE_SCRATCH) {
            pr_line(p, "/* the scratch pool: every part starts at a 16-byte aligned offset");
            for (int j = 0; j < k->nscratch; j++) {
                const AbiScratchPart *sp = &k->scratch[j];
                pr_line(p, " *   %s: %s elements of %s (%d bytes each)%s%s", comment_text(h, sp->name),
                        comment_text(h, sp->count.crisp), sp->element, sp->stride, sp->comment ? " -- " : "",
                        sp->comment ? comment_text(h, sp->comment) : "");
            }
            pr_line(p, " */");
            pr_line(p, "args->%s = (cl_ulong)%s;", field(h, len), c_size(h, hk, a->size.expr, "args->", "launch"));
            uses_launch |= sz_uses_launch(a->size.expr);
        } else if (a->role == ROLE_DEBUG) {
            pr_line(p, "/* the debug channel: CRISP_DEBUG_WORDS words unless already set */");
            pr_line(p, "if (args->%s == 0) args->%s = CRISP_DEBUG_WORDS;", field(h, len), field(h, len));
        }
    }
    if (!uses_launch) pr_line(p, "(void)launch;");
    pr_dedent(p);
    pr_line(p, "}");
}

static void emit_min_lengths(Hc *h, const HostKernel *hk) {
    Printer *p = &h->pr;
    const AbiKernel *k = hk->k;
    int uses_args = 0, uses_launch = 0;
    pr_blank(p);
    c_line(h, "void %s_min_lengths(const %s_args *args, const CrispLaunch *launch, %s_args *need)", k->name, k->name, k->name);
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "memset(need, 0, sizeof *need);");
    for (int i = 0; i < hk->nparams; i++) {
        const HostParam *hp = &hk->params[i];
        if (!hp->len) continue;
        if (hp->need && !own_length(hp, i)) {
            const char *e = c_size(h, hk, hp->need, "args->", "launch");
            uses_args |= strstr(e, "args->") != NULL;
            uses_launch |= sz_uses_launch(hp->need);
            pr_line(p, "need->%s = %s; /* %s */", field(h, hp->len), e, plain_size(h, hp->need));
        } else if (hp->arg->fixed_length > 0) {
            pr_line(p, "need->%s = %lld; /* its type's length */", field(h, hp->len), (long long)hp->arg->fixed_length);
        } else if (hp->unchecked) {
            pr_line(p, "/* %s: not bounded (%s) */", comment_text(h, hp->arg->name), comment_text(h, hp->unchecked));
        }
    }
    if (!uses_args) pr_line(p, "(void)args;");
    if (!uses_launch) pr_line(p, "(void)launch;");
    pr_dedent(p);
    pr_line(p, "}");
}

/* The cl_mem behind an args field: the field, or its .mem (unified memory). */
static const char *mem_of(Hc *h, const char *expr) {
    return h->o->unified_memory ? arena_printf(h->a, "%s.mem", expr) : expr;
}

/* The check of the local memory a workgroup of K needs (analysis/localmem.h)
 * before a launch: the fixed __local vectors and every __local argument as
 * set_args sizes it, against the device's (cx->local_mem_size, asked once
 * when the context was made).  Nothing when K has no local memory. */
static int emit_local_check(Hc *h, const AbiKernel *k) {
    Printer *p = &h->pr;
    if (!k->lmem || !k->lmem->nparts || !has_local_args(k)) return 0; /* fixed: checked once, by _load */
    pr_line(p, "if (err == CL_SUCCESS) {");
    pr_indent(p);
    pr_line(p, "/* local memory per workgroup: the fixed __local vectors and the __local arguments */");
    pr_line(p, "unsigned long long local = %lldULL;", (long long)k->lmem->static_bytes);
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if (!is_local(a)) continue;
        const AbiArg *len = length_of(k, a);
        if (len)
            pr_line(p, "local += crisp_local_arg_bytes(args->%s, %d);", field(h, len), stride_of(a));
        else
            pr_line(p, "local += %lldULL;", (long long)(a->fixed_length > 0 ? a->fixed_length : 1) * stride_of(a));
    }
    c_line(h, "err = crisp_check_local_mem(cx, \"%s\", local, launch);", k->name);
    pr_dedent(p);
    pr_line(p, "}");
    return 1;
}

static void emit_check(Hc *h, const HostKernel *hk) {
    Printer *p = &h->pr;
    const AbiKernel *k = hk->k;
    int nchecks = 0;
    for (int i = 0; i < hk->nparams; i++) nchecks += checked(&hk->params[i], i);
    pr_blank(p);
    c_line(h, "cl_int %s_check(CrispContext *cx, const %s_args *args, const CrispLaunch *launch)", k->name, k->name);
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "cl_int err = CL_SUCCESS;");
    if (nchecks) {
        pr_line(p, "%s_args need;", k->name);
        pr_line(p, "cl_uint d;");
        pr_line(p, "int runs = 1;");
        pr_line(p, "for (d = 0; d < launch->dims; d++) runs &= launch->global[d] != 0;");
        pr_line(p, "%s_min_lengths(args, launch, &need);", k->name);
        pr_line(p, "/* what the kernel touches (when anything runs at all) */");
        for (int i = 0; i < hk->nparams; i++) {
            const HostParam *hp = &hk->params[i];
            if (!checked(hp, i)) continue;
            const char *f = field(h, hp->len);
            const char *what = hp->need ? plain_size(h, hp->need) : "the length its type declares";
            pr_line(p, "if (err == CL_SUCCESS && runs)");
            c_line(h, "    err = crisp_check_length(cx, \"%s\", %s, args->%s, need.%s, %s);", k->name, c_string(h, hp->arg->name), f, f,
                    c_string(h, what));
        }
    } else {
        pr_line(p, "(void)launch;");
    }
    int nmem = 0;
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if (!is_pointer(a) || is_local(a)) continue;
        const AbiArg *len = length_of(k, a);
        if (!nmem++) pr_line(p, "/* the memory objects: this context's, as large as their lengths say */");
        const char *bytes = !len ? "0, 1" : arena_printf(h->a, "args->%s, %d", field(h, len), a->role == ROLE_SCRATCH ? 1 : stride_of(a));
        pr_line(p, "if (err == CL_SUCCESS)");
        c_line(h, "    err = crisp_check_mem(cx, \"%s\", %s, %s, %s);", k->name, c_string(h, a->name),
                mem_of(h, arena_printf(h->a, "args->%s", field(h, a))), bytes);
    }
    int local = emit_local_check(h, k);
    if (!nmem && !local) pr_line(p, "(void)args;");
    if (!nmem && !nchecks && !local) pr_line(p, "(void)cx;");
    pr_line(p, "return err;");
    pr_dedent(p);
    pr_line(p, "}");
}

static void emit_set_args(Hc *h, const HostKernel *hk) {
    Printer *p = &h->pr;
    const AbiKernel *k = hk->k;
    pr_blank(p);
    c_line(h, "cl_int %s_set_args(CrispContext *cx, cl_kernel kernel, const %s_args *args)", k->name, k->name);
    pr_line(p, "{");
    pr_indent(p);
    if (k->nargs == 0) {
        pr_line(p, "(void)cx;");
        pr_line(p, "(void)kernel;");
        pr_line(p, "(void)args;");
        pr_line(p, "return CL_SUCCESS;");
        pr_dedent(p);
        pr_line(p, "}");
        return;
    }
    pr_line(p, "cl_int err;");
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        const char *f = field(h, a);
        const char *what = c_string(h, arena_printf(h->a, "clSetKernelArg(%s, %d: %s)", k->name, a->index,
                                                    a->role == ROLE_LENGTH ? f : a->name));
        if (a->role == ROLE_SCALAR) {
            pr_line(p, "err = clSetKernelArg(kernel, %d, sizeof(%s), &args->%s);", a->index, scalar_ctype(h, a), f);
        } else if (a->role == ROLE_LENGTH) {
            pr_line(p, "err = clSetKernelArg(kernel, %d, sizeof(cl_ulong), &args->%s);", a->index, f);
        } else if (is_local(a)) {
            const AbiArg *len = length_of(k, a);
            if (len)
                pr_line(p, "err = clSetKernelArg(kernel, %d, (size_t)(args->%s > 0 ? args->%s : 1) * %d, NULL); /* __local */",
                        a->index, field(h, len), field(h, len), stride_of(a));
            else
                pr_line(p, "err = clSetKernelArg(kernel, %d, %lld, NULL); /* __local */", a->index,
                        (long long)(a->fixed_length > 0 ? a->fixed_length : 1) * stride_of(a));
        } else if (h->o->unified_memory) {
            pr_line(p, "err = crisp_set_arg_mem(cx, kernel, %d, &args->%s, %s);", a->index, f, what);
            pr_line(p, "if (err != CL_SUCCESS) return err;");
            continue;
        } else {
            pr_line(p, "err = clSetKernelArg(kernel, %d, sizeof(cl_mem), &args->%s);", a->index, f);
        }
        pr_line(p, "if (err != CL_SUCCESS) return crisp_fail(cx, err, %s);", what);
    }
    pr_line(p, "return CL_SUCCESS;");
    pr_dedent(p);
    pr_line(p, "}");
}

static void emit_enqueue(Hc *h, const HostKernel *hk) {
    Printer *p = &h->pr;
    const AbiKernel *k = hk->k;
    pr_blank(p);
    emit_signature(h, arena_printf(h->a, "cl_int %s_enqueue", k->name),
                   arena_printf(h->a, "%s *p, cl_command_queue queue, const %s_args *args, const CrispLaunch *launch, "
                                      "cl_uint num_events, const cl_event *wait_list, cl_event *event",
                                h->prog, k->name),
                   "");
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "CrispLaunch declared;");
    pr_line(p, "cl_int err;");
    pr_line(p, "if (!launch) {");
    pr_line(p, "    %s_launch_size(args, &declared);", k->name);
    pr_line(p, "    launch = &declared;");
    pr_line(p, "}");
    pr_line(p, "err = %s_check(p->cx, args, launch);", k->name);
    pr_line(p, "if (err == CL_SUCCESS) err = %s_set_args(p->cx, p->kernel_%s, args);", k->name, k->name);
    pr_line(p, "if (err == CL_SUCCESS)");
    pr_indent(p);
    c_line(h, "err = crisp_enqueue(p->cx, queue ? queue : p->cx->queue, p->kernel_%s, launch, \"%s\", num_events, wait_list, event);",
           k->name, k->name);
    pr_dedent(p);
    pr_line(p, "return err;");
    pr_dedent(p);
    pr_line(p, "}");
}

/* Memory flags of a vector on the device. */
static const char *mem_flags(const HostParam *hp) {
    if (hp->uploads && !hp->downloads) return "CL_MEM_READ_ONLY";
    if (hp->downloads && !hp->uploads) return "CL_MEM_WRITE_ONLY";
    return "CL_MEM_READ_WRITE";
}

static void emit_run(Hc *h, const HostKernel *hk) {
    Printer *p = &h->pr;
    const AbiKernel *k = hk->k;
    const char *svm = h->o->unified_memory ? "p->cx->has_svm" : "0";
    pr_blank(p);
    emit_signature(h, arena_printf(h->a, "cl_int %s_run", k->name), run_params(h, hk), "");
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "CrispContext *cx = p->cx;");
    pr_line(p, "%s_args args;", k->name);
    pr_line(p, "CrispLaunch declared;");
    int nmem = 0;
    for (int i = 0; i < k->nargs; i++)
        if (is_pointer(&k->args[i]) && !is_local(&k->args[i])) nmem++;
    if (nmem) {
        pr_line(p, "CrispMem mem[%d]; /* the device memory of every pointer argument */", nmem);
        pr_line(p, "int i;");
    }
    if (hk->debug) pr_line(p, "cl_uint *words = NULL;");
    pr_line(p, "cl_event ran = NULL;");
    pr_line(p, "cl_int err = CL_SUCCESS;");
    pr_blank(p);
    pr_line(p, "memset(&args, 0, sizeof args);");
    if (nmem) pr_line(p, "for (i = 0; i < %d; i++) memset(&mem[i], 0, sizeof mem[i]);", nmem);
    for (int i = 0; i < hk->nparams; i++) {
        const HostParam *hp = &hk->params[i];
        const char *f = field(h, hp->arg);
        if (hp->kind == HP_SCALAR) {
            pr_line(p, "args.%s = %s;", f, f);
        } else if (hp->len) {
            pr_line(p, "args.%s = (cl_ulong)%s;", field(h, hp->len), field(h, hp->len));
            if (hp->kind != HP_LOCAL) {
                pr_line(p, "if (!%s && %s)", f, field(h, hp->len));
                c_line(h, "    return crisp_errorf(cx, CL_INVALID_VALUE, \"kernel %s: argument %s is NULL\");", k->name,
                        comment_text(h, hp->arg->name));
            }
        }
    }
    pr_line(p, "if (!launch) {");
    pr_line(p, "    %s_launch_size(&args, &declared);", k->name);
    pr_line(p, "    launch = &declared;");
    pr_line(p, "}");
    if (hk->nsides > (hk->debug ? 1 : 0)) pr_line(p, "%s_side_sizes(&args, launch);", k->name);
    for (int i = 0; i < hk->nsides; i++) {
        const AbiArg *x = hk->sides[i];
        const AbiArg *len = length_of(k, x);
        if (x->role != ROLE_IMPLICIT) continue;
        pr_line(p, "if (%s && %s < args.%s)", field(h, x), field(h, len), field(h, len));
        c_line(h, "    return crisp_check_length(cx, \"%s\", %s, %s, args.%s, %s);", k->name, c_string(h, x->name),
                field(h, len), field(h, len), c_string(h, x->size.crisp));
    }
    pr_line(p, "err = %s_check(cx, &args, launch);", k->name);
    pr_line(p, "if (err != CL_SUCCESS) return err;");
    pr_blank(p);
    pr_line(p, "/* device memory: a copy of what the kernel reads */");
    int m = 0;
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if (!is_pointer(a) || is_local(a)) continue;
        const AbiArg *len = length_of(k, a);
        const char *f = field(h, a);
        const char *what = c_string(h, arena_printf(h->a, "kernel %s: %s", k->name, a->name));
        const char *count = len ? arena_printf(h->a, "(size_t)args.%s", field(h, len)) : "1";
        if (a->role == ROLE_BUFFER) {
            const HostParam *hp = NULL;
            for (int j = 0; j < hk->nparams; j++)
                if (hk->params[j].arg == a) hp = &hk->params[j];
            if (!hp) continue;
            if (hp->kind == HP_BYTES)
                c_line(h, "err = crisp_upload(cx, &mem[%d], CL_MEM_READ_WRITE, %s, %s, 1, 1, 1, %s, %s);", m, f,
                        len ? count : arena_printf(h->a, "%s_bytes", f), svm, what);
            else
                c_line(h, "err = crisp_upload(cx, &mem[%d], %s, %s, %s, %s, %d, %d, %s, %s);", m, mem_flags(hp), f, count,
                        elem_size(h, a), stride_of(a), hp->uploads, svm, what);
        } else if (a->role == ROLE_IMPLICIT) {
            c_line(h, "err = crisp_upload(cx, &mem[%d], CL_MEM_READ_WRITE, %s, %s, %s, %d, 1, %s, %s);", m, f, count,
                    elem_size(h, a), stride_of(a), svm, what);
            pr_line(p, "if (err == CL_SUCCESS && !%s) /* not given: zeros */", f);
            c_line(h, "    err = crisp_mem_create(cx, &mem[%d], CL_MEM_READ_WRITE, %s * %d, NULL, 1, %s, %s);", m, count,
                    stride_of(a), svm, what);
        } else if (a->role == ROLE_DEBUG) {
            pr_line(p, "if (!args.%s) args.%s = p->debug_words ? p->debug_words : CRISP_DEBUG_WORDS;", field(h, len), field(h, len));
            c_line(h, "words = (cl_uint *)crisp_host_alloc(cx, %s, sizeof(cl_uint), \"the debug channel\");", count);
            pr_line(p, "if (!words) {");
            pr_line(p, "    err = CL_OUT_OF_HOST_MEMORY;");
            pr_line(p, "    goto done;");
            pr_line(p, "}");
            pr_line(p, "crisp_debug_init(words, %s);", count);
            c_line(h, "err = crisp_mem_create(cx, &mem[%d], CL_MEM_READ_WRITE, %s * 4, words, 0, %s, %s);", m, count, svm, what);
        } else {
            /* result vectors and the scratch pool start as zeros */
            const char *bytes = a->role == ROLE_SCRATCH ? count : arena_printf(h->a, "%s * %d", count, stride_of(a));
            c_line(h, "err = crisp_mem_create(cx, &mem[%d], CL_MEM_READ_WRITE, %s, NULL, 1, %s, %s);", m, bytes, svm, what);
        }
        pr_line(p, "if (err != CL_SUCCESS) goto done;");
        pr_line(p, "args.%s = mem[%d]%s;", f, m, h->o->unified_memory ? "" : ".mem");
        m++;
    }
    pr_blank(p);
    /* KERNEL_enqueue without its checks: the lengths were checked above and
       the memory objects are the ones just made from them (no
       clGetMemObjectInfo per call) */
    /* The copies back wait for the kernel's event (one wait, on an
       out-of-order queue too); with none that always runs, wait here.  On
       an in-order OpenCL queue the copies follow the kernel anyway: no
       event, as hand-written code does (an event and a wait list cost
       NVIDIA's OpenCL microseconds a call, docs/performance.md) */
    int reads = 0;
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if (a->role == ROLE_DEBUG) reads = 1;
        if (a->role != ROLE_BUFFER || !is_pointer(a) || is_local(a)) continue;
        for (int j = 0; j < hk->nparams; j++)
            if (hk->params[j].arg == a && hk->params[j].downloads) reads = 1;
    }
    pr_line(p, "/* the lengths are checked, the memory is ours: set the arguments and enqueue */");
    pr_line(p, "err = %s_set_args(cx, p->kernel_%s, &args);", k->name, k->name);
    pr_line(p, "if (err == CL_SUCCESS)");
    if (reads && !h->cuda)
        c_line(h, "    err = crisp_enqueue(cx, cx->queue, p->kernel_%s, launch, \"%s\", 0, NULL, cx->queue_in_order ? NULL : &ran);",
               k->name, k->name);
    else
        c_line(h, "    err = crisp_enqueue(cx, cx->queue, p->kernel_%s, launch, \"%s\", 0, NULL, &ran);", k->name, k->name);
    pr_line(p, "if (err != CL_SUCCESS) goto done;");
    if (!reads) {
        pr_line(p, "err = clWaitForEvents(1, &ran); /* done (on an out-of-order queue too) */");
        c_line(h, "if (!crisp_ok(cx, err, %s)) goto done;", c_string(h, arena_printf(h->a, "kernel %s: running it", k->name)));
    }
    pr_blank(p);
    pr_line(p, "/* back to the host: what the kernel may write, once it is done */");
    m = 0;
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if (!is_pointer(a) || is_local(a)) continue;
        const AbiArg *len = length_of(k, a);
        const char *f = field(h, a);
        const char *count = len ? arena_printf(h->a, "(size_t)args.%s", field(h, len)) : "1";
        const char *what = c_string(h, arena_printf(h->a, "kernel %s: %s", k->name, a->name));
        if (a->role == ROLE_BUFFER) {
            const HostParam *hp = NULL;
            for (int j = 0; j < hk->nparams; j++)
                if (hk->params[j].arg == a) hp = &hk->params[j];
            if (hp && hp->downloads) {
                if (hp->kind == HP_BYTES)
                    c_line(h, "err = crisp_download_after(cx, cx->queue, &mem[%d], %s, %s, 1, 1, ran, %s);", m, f,
                            len ? count : arena_printf(h->a, "%s_bytes", f), what);
                else
                    c_line(h, "err = crisp_download_after(cx, cx->queue, &mem[%d], %s, %s, %s, %d, ran, %s);", m, f, count, elem_size(h, a),
                            stride_of(a), what);
                pr_line(p, "if (err != CL_SUCCESS) goto done;");
            }
        } else if (a->role == ROLE_IMPLICIT) {
            pr_line(p, "if (%s) {", f);
            c_line(h, "    err = crisp_download_after(cx, cx->queue, &mem[%d], %s, %s, %s, %d, ran, %s);", m, f, count, elem_size(h, a),
                    stride_of(a), what);
            pr_line(p, "    if (err != CL_SUCCESS) goto done;");
            pr_line(p, "}");
        } else if (a->role == ROLE_RESULT) {
            pr_line(p, "if (%s) {", f);
            pr_indent(p);
            c_line(h, "*%s = (%s *)crisp_host_alloc(cx, %s, %s, %s);", f, elem_ctype(h, a), count, elem_size(h, a), what);
            pr_line(p, "if (!*%s) {", f);
            pr_line(p, "    err = CL_OUT_OF_HOST_MEMORY;");
            pr_line(p, "    goto done;");
            pr_line(p, "}");
            c_line(h, "err = crisp_download_after(cx, cx->queue, &mem[%d], *%s, %s, %s, %d, ran, %s);", m, f, count, elem_size(h, a),
                    stride_of(a), what);
            pr_line(p, "if (err != CL_SUCCESS) {");
            pr_line(p, "    free(*%s);", f);
            pr_line(p, "    *%s = NULL;", f);
            pr_line(p, "    goto done;");
            pr_line(p, "}");
            pr_line(p, "*%s = %s;", field(h, len), count);
            pr_dedent(p);
            pr_line(p, "}");
        } else if (a->role == ROLE_DEBUG) {
            c_line(h, "err = crisp_mem_read_after(cx, cx->queue, &mem[%d], words, %s * 4, ran, %s);", m, count, what);
            pr_line(p, "if (err != CL_SUCCESS) goto done;");
            c_line(h, "crisp_debug_decode_text(&p->debug_log, words, %s, %s_debug_sites, %s_debug_nsites);", count, h->base, h->base);
        }
        m++;
    }
    pr_dedent(p);
    pr_line(p, "done:");
    pr_indent(p);
    pr_line(p, "if (ran) clReleaseEvent(ran);");
    if (nmem) pr_line(p, "for (i = 0; i < %d; i++) crisp_mem_release(&mem[i]);", nmem);
    if (hk->debug) pr_line(p, "free(words);");
    pr_line(p, "return err;");
    pr_dedent(p);
    pr_line(p, "}");
}

static void emit_source(Hc *h) {
    Printer *p = &h->pr;
    const char *base = comment_text(h, h->o->base);
    emit_header_comment(h, arena_printf(h->a, "%s_hoist_OpenCL.c", base),
                        arena_printf(h->a, "the host code of the kernels of %s.cl", base));
    pr_line(p, " *");
    pr_line(p, " * The API is declared, and described, in %s_hoist_OpenCL.h.  Nothing here", base);
    pr_line(p, " * prints: a failing call returns its status and leaves its message in the");
    pr_line(p, " * CrispContext (crisp_error_message).");
    pr_line(p, " */");
    pr_line(p, "#include \"%s_hoist_OpenCL.h\"", base);
    if (any_debug(h->abi)) emit_debug_sites(h);
    for (int i = 0; i < h->abi->nkernels; i++)
        if (is_dynamic(h, &h->abi->kernels[i])) emit_embedded_source(h, &h->abi->kernels[i]);
    emit_program_defs(h);
    for (int i = 0; i < h->abi->nkernels; i++) {
        const HostKernel *hk = &h->hks[i];
        pr_blank(p);
        pr_line(p, "/* ---- kernel %s (%s) ---- */", hk->k->name, comment_text(h, where(h, hk->k)));
        emit_launch_size(h, hk);
        emit_side_sizes(h, hk);
        emit_min_lengths(h, hk);
        emit_check(h, hk);
        emit_set_args(h, hk);
        emit_enqueue(h, hk);
        emit_run(h, hk);
    }
    for (int i = 0; i < h->abi->nsorts; i++) {
        if (h->abi->sorts[i].kind == HOST_SORT_RADIX) emit_radix(h, &h->abi->sorts[i]);
        else emit_sort(h, &h->abi->sorts[i]);
    }
    for (int i = 0; i < h->abi->norchs; i++) emit_orch_run(h, &h->abi->orchs[i]);
}

/* ---- orchestrations (spec "Hoisting and def-orchestration") ---- */

static const char *orch_fn(Hc *h, const AbiOrch *ao) {
    return arena_printf(h->a, "%s_%s_run", h->base, ao->o->ident);
}

static const char *orch_buf_name(Hc *h, const AbiOrchBuf *ob) {
    return arg_name(h, host_ident(h->a, ob->ident));
}

/* The out-parameter of step S's result vector X: KERNEL_NAME (KERNEL_NAME_S
 * when an earlier step launched the same kernel). */
static const char *orch_result_name(Hc *h, const AbiOrch *ao, int s, const AbiArg *x) {
    int again = 0;
    for (int t = 0; t < s; t++) again |= !strcmp(ao->o->steps[t].kernel, ao->o->steps[s].kernel);
    const char *base = host_ident(h->a, arena_printf(h->a, "%s_%s", ao->o->steps[s].kernel, x->name));
    return arg_name(h, again ? arena_printf(h->a, "%s_%d", base, s) : base);
}

/* The parameters of BASE_ORCH_run: every `_` of every step, then a
 * T **NAME, size_t *NAME_len per result vector of a step (NULL: dropped). */
static const char *orch_params(Hc *h, const AbiOrch *ao) {
    const char *s = arena_printf(h->a, "%s *p", h->prog);
    for (int b = 0; b < ao->nbufs; b++) {
        const AbiOrchBuf *ob = &ao->bufs[b];
        if (!ob->fresh) continue;
        const char *f = orch_buf_name(h, ob);
        const AbiArg *x = ob->arg;
        if (x->role == ROLE_SCALAR) s = arena_printf(h->a, "%s, %s %s", s, scalar_ctype(h, x), f);
        else if (is_local(x)) s = arena_printf(h->a, "%s, size_t %s_len", s, f);
        else s = arena_printf(h->a, "%s, %s%s *%s, size_t %s_len", s, ob->written ? "" : "const ", elem_ctype(h, x), f, f);
    }
    for (int st = 0; st < ao->o->nsteps; st++) {
        const HostKernel *hk = &h->hks[ao->kernel[st]];
        for (int i = 0; i < hk->nsides; i++)
            if (hk->sides[i]->role == ROLE_RESULT) {
                const char *f = orch_result_name(h, ao, st, hk->sides[i]);
                s = arena_printf(h->a, "%s, %s **%s, size_t *%s_len", s, elem_ctype(h, hk->sides[i]), f, f);
            }
    }
    return s;
}

static const char *orch_mode_text(OrchMode m) {
    return m == ORCH_PARALLEL ? "launch-parallel" : m == ORCH_INTERLEAVED ? "launch-interleaved" : "launch-sequential";
}

static const char *orch_step_line(Hc *h, const AbiOrch *ao, int s) {
    const OrchStep *st = &ao->o->steps[s];
    const char *t = arena_printf(h->a, "%s %s(", orch_mode_text(st->mode), st->kernel);
    for (int j = 0; j < st->nargs; j++) {
        const OrchArg *x = &st->args[j];
        const char *w = x->expr    ? orch_expr_text(h->a, ao, x->expr, ORCH_TEXT_CRISP, NULL, NULL)
                        : x->step < 0 ? "_"
                                      : arena_printf(h->a, "%s::%s", ao->o->steps[x->step].kernel, ao->bufs[ao->slot[s][j]].arg->name);
        t = arena_printf(h->a, "%s%s%s", t, j ? " " : "", w);
    }
    return arena_printf(h->a, "%s)", t);
}

static void emit_orch_decl(Hc *h, const AbiOrch *ao) {
    Printer *p = &h->pr;
    pr_blank(p);
    pr_line(p, "/* Orchestration %s (%s line %d, %s):", comment_text(h, ao->o->name), comment_text(h, h->abi->source ? h->abi->source : ""),
            ao->o->line, ao->o->origin);
    for (int s = 0; s < ao->o->nsteps; s++) pr_line(p, " *     %s", comment_text(h, orch_step_line(h, ao, s)));
    for (int l = 0; l < ao->o->nloops; l++) {
        const OrchLoop *ol = &ao->o->loops[l];
        pr_line(p, " *   steps %d .. %d run in (%s (%s %s %s))", ol->first, ol->end - 1, ol->halving ? "do-times-by-half" : "do-times-by-doubling",
                comment_text(h, ol->var), comment_text(h, orch_expr_text(h->a, ao, ol->start, ORCH_TEXT_CRISP, NULL, NULL)),
                comment_text(h, orch_expr_text(h->a, ao, ol->limit, ORCH_TEXT_CRISP, NULL, NULL)));
    }
    pr_line(p, " * Every `_` is a parameter, named KERNEL_PARAM (host arrays with their element");
    pr_line(p, " * counts, scalars by value).  The arrays steps read are copied to the device once");
    pr_line(p, " * (the others start as zeros there); what a step passes to a later one stays there;");
    pr_line(p, " * the kernels are chained by events; the call waits and copies back every array");
    pr_line(p, " * a step may write; each result vector of a step is malloc'ed for its");
    pr_line(p, " * out-parameter (free() it; NULL: dropped).");
    for (int b = 0; b < ao->nbufs; b++)
        if (ao->bufs[b].like >= 0)
            pr_line(p, " * %s may be NULL: an intermediate, made on the device as long as %s.", orch_buf_name(h, &ao->bufs[b]),
                    orch_buf_name(h, &ao->bufs[ao->bufs[b].like]));
    pr_line(p, " */");
    emit_signature(h, arena_printf(h->a, "cl_int %s", orch_fn(h, ao)), orch_params(h, ao), ";");
}

/* The count of buffer B as a C expression (after the step that made it). */
static const char *orch_count(Hc *h, const AbiOrch *ao, int b) {
    const AbiOrchBuf *ob = &ao->bufs[b];
    if (ob->fresh) return arena_printf(h->a, "%s_len", orch_buf_name(h, ob));
    const AbiKernel *k = &h->abi->kernels[ao->kernel[ob->step]];
    return arena_printf(h->a, "(size_t)a%d.%s", ob->step, field(h, length_of(k, ob->arg)));
}

/* Is buffer B of AO a vector that launch-interleaved copies chunk by chunk? */
static int orch_chunked(const AbiOrch *ao, int b) {
    const AbiOrchBuf *ob = &ao->bufs[b];
    const OrchStep *st = &ao->o->steps[ob->step];
    return ob->fresh && st->mode == ORCH_INTERLEAVED && !st->exclude[ob->param] && ob->arg->role == ROLE_BUFFER && !is_local(ob->arg);
}

/* launch-interleaved, shared by the OpenCL and the CUDA step: N, the
 * chunked count, is the shortest vector's; a vector with std140 padding
 * cannot be copied in chunks (an error at run time). */
static void interleave_limit(Hc *h, const AbiOrchBuf *ob) {
    Printer *p = &h->pr;
    const char *f = orch_buf_name(h, ob);
    pr_line(p, "if (%s_len < n) n = %s_len;", f, f);
    pr_line(p, "if (%s != %d) { /* std140 padding: not chunked */", elem_size(h, ob->arg), stride_of(ob->arg));
    c_line(h, "    err = crisp_errorf(cx, CL_INVALID_VALUE, \"launch-interleaved: %s has padded elements\");", comment_text(h, ob->ident));
    pr_line(p, "    goto interleaved_done;");
    pr_line(p, "}");
}

/* ... the chunk size and the loop over the chunks (left open, indented) */
static void interleave_chunks_open(Printer *p) {
    pr_line(p, "if (n == (size_t)-1) n = 0;");
    pr_line(p, "chunk = (n + CRISP_INTERLEAVE_CHUNKS - 1) / CRISP_INTERLEAVE_CHUNKS;");
    pr_line(p, "if (!chunk) chunk = 1;");
    pr_line(p, "for (start = 0, c = 0; start < n; start += chunk, c++) {");
    pr_indent(p);
}

/* ... and step S's kernel over one chunk, on queue (stream) q. */
static void interleave_launch(Hc *h, const OrchStep *st, const HostKernel *hk, int s) {
    Printer *p = &h->pr;
    pr_line(p, "a%d.%s = (%s)start;", s, field(h, hk->params[st->offset_param].arg), scalar_ctype(h, hk->params[st->offset_param].arg));
    pr_line(p, "a%d.%s = (%s)size;", s, field(h, hk->params[st->length_param].arg), scalar_ctype(h, hk->params[st->length_param].arg));
    pr_line(p, "%s_launch_size(&a%d, &launch[%d]);", hk->k->name, s, s);
    pr_line(p, "launch[%d].global[0] = size; /* one chunk */", s);
    pr_line(p, "crisp_launch_round_up(&launch[%d]);", s);
    pr_line(p, "err = %s_enqueue(p, q, &a%d, &launch[%d], 0, NULL, NULL);", hk->k->name, s, s);
    pr_line(p, "if (err != CL_SUCCESS) goto interleaved_done;");
}

/* Step S, launch-interleaved: the vectors go in chunks through pinned host
 * memory, chunk i copied in, computed and copied out on queue i % 2. */
static void emit_orch_interleaved_cuda(Hc *h, const AbiOrch *ao, int s, const int *mem_of_buf, const int *vec, int nv);

static void emit_orch_interleaved(Hc *h, const AbiOrch *ao, int s, const int *mem_of_buf) {
    Printer *p = &h->pr;
    const OrchStep *st = &ao->o->steps[s];
    const HostKernel *hk = &h->hks[ao->kernel[s]];
    int *vec = arena_alloc(h->a, sizeof(int) * (size_t)(st->nargs + 1));
    int nv = 0;
    for (int j = 0; j < st->nargs; j++)
        if (ao->bufs[ao->slot[s][j]].step == s && orch_chunked(ao, ao->slot[s][j])) vec[nv++] = ao->slot[s][j];
    if (h->cuda) {
        emit_orch_interleaved_cuda(h, ao, s, mem_of_buf, vec, nv);
        return;
    }
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "/* launch-interleaved: the vectors in chunks, staged in pinned host memory");
    pr_line(p, " * (CL_MEM_ALLOC_HOST_PTR); chunk c is staged on the host, copied in, computed");
    pr_line(p, " * and copied out on queue c %% 2, flushed at once, so the host's staging of");
    pr_line(p, " * one chunk and the copies of another overlap the kernel of a third; each");
    pr_line(p, " * chunk's result leaves the pinned memory as soon as its copy is done */");
    pr_line(p, "cl_command_queue qs[2];");
    pr_line(p, "cl_mem pinned[%d];", nv ? nv : 1);
    pr_line(p, "unsigned char *staged[%d];", nv ? nv : 1);
    pr_line(p, "cl_event out[CRISP_INTERLEAVE_CHUNKS]; /* per chunk: its last copy out */");
    pr_line(p, "size_t n = (size_t)-1, chunk, start, size;");
    pr_line(p, "int c, nchunks = 0;");
    pr_line(p, "for (c = 0; c < CRISP_INTERLEAVE_CHUNKS; c++) out[c] = NULL;");
    pr_line(p, "qs[0] = cx->queue;");
    pr_line(p, "qs[1] = clCreateCommandQueue(cx->context, cx->device, 0, &err);");
    c_line(h, "if (!crisp_ok(cx, err, %s)) goto done;", c_string(h, "clCreateCommandQueue (launch-interleaved)"));
    pr_line(p, "for (c = 0; c < %d; c++) pinned[c] = NULL, staged[c] = NULL;", nv ? nv : 1);
    for (int v = 0; v < nv; v++) {
        const AbiOrchBuf *ob = &ao->bufs[vec[v]];
        const char *f = orch_buf_name(h, ob);
        interleave_limit(h, ob);
        pr_line(p, "pinned[%d] = clCreateBuffer(cx->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, %s_len * %d + 1, NULL, &err);", v, f,
                stride_of(ob->arg));
        c_line(h, "if (!crisp_ok(cx, err, %s)) goto interleaved_done;", c_string(h, arena_printf(h->a, "pinned memory for %s", ob->ident)));
        pr_line(p, "staged[%d] = (unsigned char *)clEnqueueMapBuffer(cx->queue, pinned[%d], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,", v, v);
        pr_line(p, "                                                %s_len * %d + 1, 0, NULL, NULL, &err);", f, stride_of(ob->arg));
        c_line(h, "if (!crisp_ok(cx, err, %s)) goto interleaved_done;", c_string(h, arena_printf(h->a, "mapping pinned memory for %s", ob->ident)));
    }
    interleave_chunks_open(p);
    pr_line(p, "cl_command_queue q = qs[c %% 2];");
    pr_line(p, "size = n - start < chunk ? n - start : chunk;");
    pr_line(p, "nchunks = c + 1;");
    for (int v = 0; v < nv; v++) {
        const AbiOrchBuf *ob = &ao->bufs[vec[v]];
        if (!ob->read) continue;
        int st_ = stride_of(ob->arg);
        pr_line(p, "memcpy(staged[%d] + start * %d, (const unsigned char *)%s + start * %d, size * %d);", v, st_, orch_buf_name(h, ob),
                st_, st_);
        pr_line(p, "err = clEnqueueWriteBuffer(q, mem[%d].mem, CL_FALSE, start * %d, size * %d, staged[%d] + start * %d, 0, NULL, NULL);",
                mem_of_buf[vec[v]], st_, st_, v, st_);
        c_line(h, "if (!crisp_ok(cx, err, %s)) goto interleaved_done;", c_string(h, "clEnqueueWriteBuffer (launch-interleaved)"));
    }
    interleave_launch(h, st, hk, s);
    int nw = 0;
    for (int v = 0; v < nv; v++) {
        const AbiOrchBuf *ob = &ao->bufs[vec[v]];
        if (!ob->written) continue;
        int st_ = stride_of(ob->arg);
        pr_line(p, "if (out[c]) clReleaseEvent(out[c]);");
        pr_line(p, "out[c] = NULL;");
        pr_line(p, "err = clEnqueueReadBuffer(q, mem[%d].mem, CL_FALSE, start * %d, size * %d, staged[%d] + start * %d, 0, NULL, &out[c]);",
                mem_of_buf[vec[v]], st_, st_, v, st_);
        c_line(h, "if (!crisp_ok(cx, err, %s)) goto interleaved_done;", c_string(h, "clEnqueueReadBuffer (launch-interleaved)"));
        nw++;
    }
    pr_line(p, "clFlush(q); /* start now, while the host stages the next chunk */");
    pr_dedent(p);
    pr_line(p, "}");
    if (nw) {
        pr_line(p, "/* each chunk's part, as soon as its copy out is done (a queue's copies finish in order) */");
        pr_line(p, "for (start = 0, c = 0; c < nchunks; start += chunk, c++) {");
        pr_indent(p);
        pr_line(p, "size = n - start < chunk ? n - start : chunk;");
        pr_line(p, "err = clWaitForEvents(1, &out[c]);");
        c_line(h, "if (!crisp_ok(cx, err, %s)) goto interleaved_done;", c_string(h, "launch-interleaved: running it"));
        for (int v = 0; v < nv; v++) {
            const AbiOrchBuf *ob = &ao->bufs[vec[v]];
            if (!ob->written) continue;
            int st_ = stride_of(ob->arg);
            pr_line(p, "memcpy((unsigned char *)%s + start * %d, staged[%d] + start * %d, size * %d);", orch_buf_name(h, ob), st_, v, st_,
                    st_);
        }
        pr_dedent(p);
        pr_line(p, "}");
    }
    pr_line(p, "err = clFinish(qs[0]);");
    pr_line(p, "if (err == CL_SUCCESS) err = clFinish(qs[1]);");
    c_line(h, "if (!crisp_ok(cx, err, %s)) goto interleaved_done;", c_string(h, "launch-interleaved: running it"));
    pr_dedent(p);
    pr_line(p, "interleaved_done:");
    pr_indent(p);
    pr_line(p, "for (c = 0; c < CRISP_INTERLEAVE_CHUNKS; c++)");
    pr_line(p, "    if (out[c]) clReleaseEvent(out[c]);");
    pr_line(p, "for (c = 0; c < %d; c++) {", nv ? nv : 1);
    pr_line(p, "    if (staged[c]) clEnqueueUnmapMemObject(cx->queue, pinned[c], staged[c], 0, NULL, NULL);");
    pr_line(p, "    if (pinned[c]) {");
    pr_line(p, "        clFinish(cx->queue);");
    pr_line(p, "        clReleaseMemObject(pinned[c]);");
    pr_line(p, "    }");
    pr_line(p, "}");
    pr_line(p, "if (qs[1]) clReleaseCommandQueue(qs[1]);");
    pr_line(p, "if (err != CL_SUCCESS) goto done;");
    pr_line(p, "ev[%d] = NULL;", s);
    pr_dedent(p);
    pr_line(p, "}");
}

/* Step S, launch-interleaved, for CUDA: as emit_orch_interleaved, with
 * pinned host memory from cuMemHostAlloc and the chunks on two streams (the
 * context's, and one made for the step, after the steps before it). */
static void emit_orch_interleaved_cuda(Hc *h, const AbiOrch *ao, int s, const int *mem_of_buf, const int *vec, int nv) {
    Printer *p = &h->pr;
    const OrchStep *st = &ao->o->steps[s];
    const HostKernel *hk = &h->hks[ao->kernel[s]];
    int n1 = nv ? nv : 1;
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "/* launch-interleaved: the vectors in chunks, staged in pinned host memory");
    pr_line(p, " * (cuMemHostAlloc); chunk c is copied in, computed and copied out on");
    pr_line(p, " * stream c %% 2, so the copies of one chunk overlap the kernel of another */");
    pr_line(p, "CUstream qs[2];");
    pr_line(p, "unsigned char *staged[%d];", n1);
    pr_line(p, "size_t n = (size_t)-1, chunk, start, size;");
    pr_line(p, "int c;");
    pr_line(p, "qs[0] = cx->queue;");
    pr_line(p, "qs[1] = NULL;");
    pr_line(p, "for (c = 0; c < %d; c++) staged[c] = NULL;", n1);
    pr_line(p, "err = (cl_int)cuStreamSynchronize(cx->queue); /* the steps before it */");
    c_line(h, "if (!crisp_ok(cx, err, %s)) goto interleaved_done;", c_string(h, "cuStreamSynchronize (launch-interleaved)"));
    pr_line(p, "err = (cl_int)cuStreamCreate(&qs[1], CU_STREAM_NON_BLOCKING);");
    c_line(h, "if (!crisp_ok(cx, err, %s)) goto interleaved_done;", c_string(h, "cuStreamCreate (launch-interleaved)"));
    for (int v = 0; v < nv; v++) {
        const AbiOrchBuf *ob = &ao->bufs[vec[v]];
        const char *f = orch_buf_name(h, ob);
        interleave_limit(h, ob);
        pr_line(p, "err = (cl_int)cuMemHostAlloc((void **)&staged[%d], %s_len * %d + 1, 0);", v, f, stride_of(ob->arg));
        c_line(h, "if (!crisp_ok(cx, err, %s)) goto interleaved_done;", c_string(h, arena_printf(h->a, "pinned memory for %s", ob->ident)));
        if (ob->read) pr_line(p, "if (%s_len) memcpy(staged[%d], %s, %s_len * %d);", f, v, f, f, stride_of(ob->arg));
    }
    interleave_chunks_open(p);
    pr_line(p, "CUstream q = qs[c %% 2];");
    pr_line(p, "size = n - start < chunk ? n - start : chunk;");
    for (int v = 0; v < nv; v++) {
        const AbiOrchBuf *ob = &ao->bufs[vec[v]];
        if (!ob->read) continue;
        int st_ = stride_of(ob->arg);
        pr_line(p, "err = (cl_int)cuMemcpyHtoDAsync(mem[%d].mem + start * %d, staged[%d] + start * %d, size * %d, q);",
                mem_of_buf[vec[v]], st_, v, st_, st_);
        c_line(h, "if (!crisp_ok(cx, err, %s)) goto interleaved_done;", c_string(h, "cuMemcpyHtoDAsync (launch-interleaved)"));
    }
    interleave_launch(h, st, hk, s);
    for (int v = 0; v < nv; v++) {
        const AbiOrchBuf *ob = &ao->bufs[vec[v]];
        if (!ob->written) continue;
        int st_ = stride_of(ob->arg);
        pr_line(p, "err = (cl_int)cuMemcpyDtoHAsync(staged[%d] + start * %d, mem[%d].mem + start * %d, size * %d, q);", v, st_,
                mem_of_buf[vec[v]], st_, st_);
        c_line(h, "if (!crisp_ok(cx, err, %s)) goto interleaved_done;", c_string(h, "cuMemcpyDtoHAsync (launch-interleaved)"));
    }
    pr_dedent(p);
    pr_line(p, "}");
    pr_line(p, "err = (cl_int)cuStreamSynchronize(qs[0]);");
    pr_line(p, "if (err == CL_SUCCESS) err = (cl_int)cuStreamSynchronize(qs[1]);");
    c_line(h, "if (!crisp_ok(cx, err, %s)) goto interleaved_done;", c_string(h, "launch-interleaved: running it"));
    for (int v = 0; v < nv; v++) {
        const AbiOrchBuf *ob = &ao->bufs[vec[v]];
        if (!ob->written) continue;
        const char *f = orch_buf_name(h, ob);
        pr_line(p, "if (n) memcpy(%s, staged[%d], n * %d); /* the chunks' part */", f, v, stride_of(ob->arg));
    }
    pr_dedent(p);
    pr_line(p, "interleaved_done:");
    pr_indent(p);
    pr_line(p, "if (qs[1]) {");
    pr_line(p, "    cuStreamSynchronize(qs[1]);");
    pr_line(p, "    cuStreamDestroy(qs[1]);");
    pr_line(p, "}");
    pr_line(p, "cuStreamSynchronize(qs[0]);");
    pr_line(p, "for (c = 0; c < %d; c++)", n1);
    pr_line(p, "    if (staged[c]) cuMemFreeHost(staged[c]);");
    pr_line(p, "if (err != CL_SUCCESS) goto done;");
    pr_line(p, "ev[%d] = NULL;", s);
    pr_dedent(p);
    pr_line(p, "}");
}

typedef struct OrchLenCtx {
    Hc *h;
    const AbiOrch *ao;
} OrchLenCtx;

/* The length of an orchestration's buffer B, for a value the host computes. */
static const char *c_orch_len(void *ctx, int b) {
    OrchLenCtx *c = ctx;
    return arena_printf(c->h->a, "(cl_ulong)%s", orch_count(c->h, c->ao, b));
}

static int orch_in_loop(const Orchestration *o, int s) {
    for (int l = 0; l < o->nloops; l++)
        if (o->loops[l].first <= s && s < o->loops[l].end) return 1;
    return 0;
}

/* The run-time loops that begin at step S (outer first), as for loops
 * (spec "More notes on def-orchestration"; types/check.h OrchLoop). */
static void c_open_loops(Hc *h, const AbiOrch *ao, int s) {
    Printer *p = &h->pr;
    const Orchestration *o = ao->o;
    OrchLenCtx lc = {h, ao};
    for (int l = 0; l < o->nloops; l++) {
        const OrchLoop *ol = &o->loops[l];
        if (ol->first != s) continue;
        const char *v = orch_loop_var(h->a, ao, l);
        pr_blank(p);
        pr_line(p, "/* (%s (%s %s %s)) */", ol->halving ? "do-times-by-half" : "do-times-by-doubling", comment_text(h, ol->var),
                comment_text(h, orch_expr_text(h->a, ao, ol->start, ORCH_TEXT_CRISP, NULL, NULL)),
                comment_text(h, orch_expr_text(h->a, ao, ol->limit, ORCH_TEXT_CRISP, NULL, NULL)));
        const char *start = orch_expr_text(h->a, ao, ol->start, ORCH_TEXT_C, c_orch_len, &lc);
        const char *limit = orch_expr_text(h->a, ao, ol->limit, ORCH_TEXT_C, c_orch_len, &lc);
        if (ol->halving) pr_line(p, "for (%s = %s; %s >= %s && %s > 0; %s /= 2) {", v, start, v, limit, v, v);
        else pr_line(p, "for (%s = %s; %s > 0 && %s <= %s; %s *= 2) {", v, start, v, v, limit, v);
        pr_indent(p);
    }
}

/* The run-time loops that end after step S (inner first). */
static void c_close_loops(Hc *h, const AbiOrch *ao, int s) {
    for (int l = ao->o->nloops - 1; l >= 0; l--)
        if (ao->o->loops[l].end == s + 1) {
            pr_dedent(&h->pr);
            pr_line(&h->pr, "}");
        }
}

static void emit_orch_run(Hc *h, const AbiOrch *ao) {
    Printer *p = &h->pr;
    const Orchestration *o = ao->o;
    const char *svm = h->o->unified_memory ? "p->cx->has_svm" : "0";
    const char *dot = h->o->unified_memory ? "" : ".mem";
    /* device memory: one per fresh vector, then per side channel of each step */
    int *mem_of_buf = arena_alloc(h->a, sizeof(int) * (size_t)(ao->nbufs + 1));
    int nmem = 0;
    for (int b = 0; b < ao->nbufs; b++)
        mem_of_buf[b] = ao->bufs[b].fresh && ao->bufs[b].arg->role == ROLE_BUFFER && !is_local(ao->bufs[b].arg) ? nmem++ : -1;
    int *side_base = arena_alloc(h->a, sizeof(int) * (size_t)(o->nsteps + 1));
    for (int s = 0; s < o->nsteps; s++) {
        side_base[s] = nmem;
        const HostKernel *hk = &h->hks[ao->kernel[s]];
        for (int i = 0; i < hk->nsides; i++)
            if (!is_local(hk->sides[i])) nmem++;
    }
    for (int b = 0; b < ao->nbufs; b++) {
        if (ao->bufs[b].fresh) continue;
        const HostKernel *hk = &h->hks[ao->kernel[ao->bufs[b].step]];
        for (int i = 0, m = side_base[ao->bufs[b].step]; i < hk->nsides; i++) {
            if (is_local(hk->sides[i])) continue;
            if (hk->sides[i] == ao->bufs[b].arg) mem_of_buf[b] = m;
            m++;
        }
    }
    pr_blank(p);
    pr_line(p, "/* ---- orchestration %s (line %d) ---- */", comment_text(h, o->name), o->line);
    pr_blank(p);
    emit_signature(h, arena_printf(h->a, "cl_int %s", orch_fn(h, ao)), orch_params(h, ao), "");
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "CrispContext *cx = p->cx;");
    for (int s = 0; s < o->nsteps; s++) pr_line(p, "%s_args a%d; /* step %d */", o->steps[s].kernel, s, s);
    pr_line(p, "CrispLaunch launch[%d];", o->nsteps);
    pr_line(p, "cl_event ev[%d];", o->nsteps);
    pr_line(p, "CrispMem mem[%d];", nmem ? nmem : 1);
    /* launch-parallel: a queue per kernel of the largest form, past the first */
    int npq = 0; /* (CUDA: the steps of launch-parallel share the stream, as before) */
    for (int s = 0, run = 0; s < o->nsteps && !h->cuda; s++) {
        run = o->steps[s].mode == ORCH_PARALLEL ? run + 1 : 0;
        if (run - 1 > npq) npq = run - 1;
    }
    if (npq) pr_line(p, "cl_command_queue pq[%d]; /* launch-parallel: the queues of its kernels past the first */", npq);
    pr_line(p, "int i;");
    pr_line(p, "cl_int err = CL_SUCCESS;");
    if (o->nloops) {
        const char *vars = "";
        for (int l = 0; l < o->nloops; l++) {
            const char *v = orch_loop_var(h->a, ao, l);
            if (!strstr(arena_printf(h->a, " %s,", vars), arena_printf(h->a, " %s,", v)))
                vars = arena_printf(h->a, "%s%s%s", vars, *vars ? ", " : "", v);
        }
        pr_line(p, "cl_ulong %s; /* the run-time loops' variables */", vars);
        pr_line(p, "cl_event last = NULL, next = NULL; /* the latest step's event */");
    }
    pr_blank(p);
    pr_line(p, "for (i = 0; i < %d; i++) ev[i] = NULL;", o->nsteps);
    if (npq) pr_line(p, "for (i = 0; i < %d; i++) pq[i] = NULL;", npq);
    pr_line(p, "for (i = 0; i < %d; i++) memset(&mem[i], 0, sizeof mem[i]);", nmem ? nmem : 1);
    for (int s = 0; s < o->nsteps; s++) pr_line(p, "memset(&a%d, 0, sizeof a%d);", s, s);
    pr_line(p, "/* the orchestration's vectors on the device, once */");
    for (int b = 0; b < ao->nbufs; b++) {
        const AbiOrchBuf *ob = &ao->bufs[b];
        if (mem_of_buf[b] < 0 || !ob->fresh) continue;
        const char *f = orch_buf_name(h, ob);
        if (ob->like >= 0) {
            const char *lf = orch_buf_name(h, &ao->bufs[ob->like]);
            pr_line(p, "if (!%s) { /* an intermediate: made on the device, as long as %s */", f, lf);
            pr_line(p, "    %s_len = %s_len;", f, lf);
            c_line(h, "    err = crisp_mem_create(cx, &mem[%d], CL_MEM_READ_WRITE, %s_len * %d, NULL, 1, %s, %s);", mem_of_buf[b], f,
                   stride_of(ob->arg), svm, c_string(h, arena_printf(h->a, "orchestration %s: %s", o->name, ob->ident)));
            pr_line(p, "} else");
            pr_indent(p);
        }
        if (!ob->read && !orch_chunked(ao, b)) { /* only written: zeros, not the host's data */
            c_line(h, "err = crisp_mem_create(cx, &mem[%d], CL_MEM_READ_WRITE, %s_len * %d, NULL, 1, %s, %s);", mem_of_buf[b], f,
                   stride_of(ob->arg), svm, c_string(h, arena_printf(h->a, "orchestration %s: %s", o->name, ob->ident)));
            if (ob->like >= 0) pr_dedent(p);
            pr_line(p, "if (err != CL_SUCCESS) goto done;");
            continue;
        }
        c_line(h, "err = crisp_upload(cx, &mem[%d], CL_MEM_READ_WRITE, %s, %s_len, %s, %d, %d, %s, %s);", mem_of_buf[b], f, f,
               elem_size(h, ob->arg), stride_of(ob->arg), !orch_chunked(ao, b), orch_chunked(ao, b) ? "0" : svm, c_string(h, arena_printf(h->a, "orchestration %s: %s", o->name, ob->ident)));
        if (ob->like >= 0) pr_dedent(p);
        pr_line(p, "if (err != CL_SUCCESS) goto done;");
    }
    int group_first = -1; /* the first step of the current launch-parallel group */
    for (int s = 0; s < o->nsteps; s++) {
        const OrchStep *st = &o->steps[s];
        const HostKernel *hk = &h->hks[ao->kernel[s]];
        const AbiKernel *k = hk->k;
        int looped = orch_in_loop(o, s);
        c_open_loops(h, ao, s);
        pr_blank(p);
        pr_line(p, "/* step %d: %s */", s, comment_text(h, orch_step_line(h, ao, s)));
        for (int j = 0; j < st->nargs; j++) {
            const HostParam *hp = &hk->params[j];
            int b = ao->slot[s][j];
            if (st->args[j].expr) { /* a value the host computes */
                OrchLenCtx lc = {h, ao};
                pr_line(p, "a%d.%s = %s;", s, field(h, hp->arg), orch_expr_text(h->a, ao, st->args[j].expr, ORCH_TEXT_C, c_orch_len, &lc));
                continue;
            }
            const AbiOrchBuf *ob = &ao->bufs[b];
            const char *f = field(h, hp->arg);
            if (hp->kind == HP_SCALAR) {
                if (ob->fresh) pr_line(p, "a%d.%s = %s;", s, f, orch_buf_name(h, ob));
                else pr_line(p, "a%d.%s = a%d.%s;", s, f, ob->step, field(h, ob->arg));
                continue;
            }
            if (hp->kind == HP_LOCAL) {
                if (hp->len) pr_line(p, "a%d.%s = (cl_ulong)%s_len;", s, field(h, hp->len), orch_buf_name(h, ob));
                continue;
            }
            if (ob->fresh && ob->arg->role == ROLE_SCALAR) continue; /* cannot happen: a vector parameter */
            pr_line(p, "a%d.%s = mem[%d]%s;", s, f, mem_of_buf[b], dot);
            if (hp->len) pr_line(p, "a%d.%s = (cl_ulong)%s;", s, field(h, hp->len), orch_count(h, ao, b));
        }
        pr_line(p, "%s_launch_size(&a%d, &launch[%d]);", k->name, s, s);
        if (st->gsize) { /* :global-size EXPR: the step's own first dimension */
            OrchLenCtx lc = {h, ao};
            pr_line(p, "launch[%d].global[0] = (size_t)(%s); /* :global-size %s */", s,
                    orch_expr_text(h->a, ao, st->gsize, ORCH_TEXT_C, c_orch_len, &lc),
                    comment_text(h, orch_expr_text(h->a, ao, st->gsize, ORCH_TEXT_CRISP, NULL, NULL)));
            pr_line(p, "crisp_launch_round_up(&launch[%d]);", s);
        } else if (st->mode == ORCH_PARALLEL && !h->cuda && host_size_free(hk)) { /* its share of the device */
            int first = s, kn = 0;
            while (first > 0 && o->steps[first - 1].mode == ORCH_PARALLEL) first--;
            for (int t = first; t < o->nsteps && o->steps[t].mode == ORCH_PARALLEL; t++) kn += !h->hks[ao->kernel[t]].launch.single_task;
            pr_line(p, "launch[%d].global[0] = crisp_thread_share(cx, %d); /* launch-parallel: its share of the device */", s,
                    kn ? kn : 1);
            pr_line(p, "crisp_launch_round_up(&launch[%d]);", s);
        }
        if (hk->nsides > (hk->debug ? 1 : 0)) pr_line(p, "%s_side_sizes(&a%d, &launch[%d]);", k->name, s, s);
        for (int i = 0, m = side_base[s]; i < hk->nsides; i++) {
            const AbiArg *x = hk->sides[i];
            if (is_local(x)) continue;
            const AbiArg *len = length_of(k, x);
            const char *count = len ? arena_printf(h->a, "(size_t)a%d.%s", s, field(h, len)) : "1";
            const char *what = c_string(h, arena_printf(h->a, "orchestration %s: %s %s", o->name, k->name, x->name));
            if (looped) pr_line(p, "crisp_mem_release(&mem[%d]); /* the previous pass's */", m);
            if (x->role == ROLE_DEBUG) {
                pr_line(p, "if (!a%d.%s) a%d.%s = 2; /* the debug channel: not decoded by orchestrations */", s, field(h, len), s, field(h, len));
                c_line(h, "err = crisp_mem_create(cx, &mem[%d], CL_MEM_READ_WRITE, %s * 4, NULL, 1, %s, %s);", m, count, svm, what);
            } else {
                const char *bytes = x->role == ROLE_SCRATCH ? count : arena_printf(h->a, "%s * %d", count, stride_of(x));
                c_line(h, "err = crisp_mem_create(cx, &mem[%d], CL_MEM_READ_WRITE, %s, NULL, 1, %s, %s);", m, bytes, svm, what);
            }
            pr_line(p, "if (err != CL_SUCCESS) goto done;");
            pr_line(p, "a%d.%s = mem[%d]%s;", s, field(h, x), m, dot);
            m++;
        }
        if (st->mode == ORCH_INTERLEAVED) {
            emit_orch_interleaved(h, ao, s, mem_of_buf);
            continue;
        }
        if (o->nloops) { /* every step sequential: each waits for the latest one */
            c_line(h, "err = %s_enqueue(p, NULL, &a%d, &launch[%d], last ? 1 : 0, last ? &last : NULL, &next);", k->name, s, s);
            pr_line(p, "if (err != CL_SUCCESS) goto done;");
            pr_line(p, "if (ev[%d]) clReleaseEvent(ev[%d]); /* the previous pass's */", s, s);
            pr_line(p, "ev[%d] = last = next;", s);
            c_close_loops(h, ao, s);
            continue;
        }
        /* what it waits for: the step before (all of a launch-parallel group before it) */
        const char *wait = "0, NULL";
        if (st->mode == ORCH_PARALLEL) {
            if (group_first < 0 || o->steps[s - 1].mode != ORCH_PARALLEL) group_first = s;
            if (group_first > 0) wait = arena_printf(h->a, "1, &ev[%d]", group_first - 1);
        } else if (s > 0 && o->steps[s - 1].mode == ORCH_PARALLEL) {
            wait = arena_printf(h->a, "%d, &ev[%d]", s - group_first, group_first);
        } else if (s > 0) {
            wait = arena_printf(h->a, "1, &ev[%d]", s - 1);
        }
        const char *queue = "NULL";
        if (st->mode == ORCH_PARALLEL && !h->cuda && s > group_first) { /* its own queue: it does not wait for the others */
            int j = s - group_first - 1;
            pr_line(p, "if (!pq[%d]) {", j);
            pr_line(p, "    pq[%d] = clCreateCommandQueue(cx->context, cx->device, 0, &err);", j);
            c_line(h, "    if (!crisp_ok(cx, err, %s)) goto done;", c_string(h, "clCreateCommandQueue (launch-parallel)"));
            pr_line(p, "}");
            queue = arena_printf(h->a, "pq[%d]", j);
        }
        c_line(h, "err = %s_enqueue(p, %s, &a%d, &launch[%d], %s, &ev[%d]);", k->name, queue, s, s, wait, s);
        pr_line(p, "if (err != CL_SUCCESS) goto done;");
        if (queue[0] != 'N') pr_line(p, "clFlush(%s);", queue);
    }
    pr_blank(p);
    pr_line(p, "err = clFinish(cx->queue); /* every step done */");
    if (npq) {
        pr_line(p, "for (i = 0; i < %d && err == CL_SUCCESS; i++) /* and those of launch-parallel's other queues */", npq);
        pr_line(p, "    if (pq[i]) err = clFinish(pq[i]);");
    }
    c_line(h, "if (!crisp_ok(cx, err, %s)) goto done;", c_string(h, arena_printf(h->a, "orchestration %s: running it", o->name)));
    pr_line(p, "/* back to the host: what the steps may write */");
    for (int b = 0; b < ao->nbufs; b++) {
        const AbiOrchBuf *ob = &ao->bufs[b];
        if (mem_of_buf[b] < 0 || !ob->fresh || !ob->written || orch_chunked(ao, b)) continue;
        const char *f = orch_buf_name(h, ob);
        if (ob->like >= 0) pr_line(p, "if (%s) /* not left out */", f);
        c_line(h, "%serr = crisp_download(cx, cx->queue, &mem[%d], %s, %s_len, %s, %d, %s);", ob->like >= 0 ? "    " : "", mem_of_buf[b], f,
               f, elem_size(h, ob->arg), stride_of(ob->arg), c_string(h, arena_printf(h->a, "orchestration %s: %s", o->name, ob->ident)));
        pr_line(p, "if (err != CL_SUCCESS) goto done;");
    }
    for (int st = 0; st < o->nsteps; st++) {
        const HostKernel *hk = &h->hks[ao->kernel[st]];
        for (int i = 0, m = side_base[st]; i < hk->nsides; i++) {
            const AbiArg *x = hk->sides[i];
            if (is_local(x)) continue;
            if (x->role == ROLE_RESULT) {
                const char *f = orch_result_name(h, ao, st, x);
                const char *count = arena_printf(h->a, "(size_t)a%d.%s", st, field(h, length_of(hk->k, x)));
                const char *what = c_string(h, arena_printf(h->a, "orchestration %s: %s %s", o->name, hk->k->name, x->name));
                pr_line(p, "if (%s) { /* result vector %s of step %d */", f, comment_text(h, x->name), st);
                pr_indent(p);
                c_line(h, "*%s = (%s *)crisp_host_alloc(cx, %s, %s, %s);", f, elem_ctype(h, x), count, elem_size(h, x), what);
                pr_line(p, "if (!*%s) {", f);
                pr_line(p, "    err = CL_OUT_OF_HOST_MEMORY;");
                pr_line(p, "    goto done;");
                pr_line(p, "}");
                c_line(h, "err = crisp_download(cx, cx->queue, &mem[%d], *%s, %s, %s, %d, %s);", m, f, count, elem_size(h, x), stride_of(x),
                       what);
                pr_line(p, "if (err != CL_SUCCESS) {");
                pr_line(p, "    free(*%s);", f);
                pr_line(p, "    *%s = NULL;", f);
                pr_line(p, "    goto done;");
                pr_line(p, "}");
                pr_line(p, "if (%s_len) *%s_len = %s;", f, f, count);
                pr_dedent(p);
                pr_line(p, "}");
            }
            m++;
        }
    }
    pr_dedent(p);
    pr_line(p, "done:");
    pr_indent(p);
    pr_line(p, "for (i = 0; i < %d; i++)", o->nsteps);
    pr_line(p, "    if (ev[i]) clReleaseEvent(ev[i]);");
    pr_line(p, "for (i = 0; i < %d; i++) crisp_mem_release(&mem[i]);", nmem ? nmem : 1);
    if (npq) {
        pr_line(p, "for (i = 0; i < %d; i++)", npq);
        pr_line(p, "    if (pq[i]) clReleaseCommandQueue(pq[i]);");
    }
    pr_line(p, "return err;");
    pr_dedent(p);
    pr_line(p, "}");
}

/* ---- the demo ---- */

/* Read back after the kernel: whatever the kernel may write, but scratch. */
static int demo_reads_back(const AbiArg *a) {
    if (!is_pointer(a) || is_local(a) || a->role == ROLE_SCRATCH || a->role == ROLE_DEBUG) return 0;
    return a->role != ROLE_BUFFER || (a->acc != ACC_READ_ONLY && a->as != AS_CONSTANT);
}

/* 1 when struct TARGET is FROM or nested in it. */
static int struct_reaches(const StructDef *from, const StructDef *target) {
    if (from == target) return 1;
    for (int i = 0; i < from->nfields; i++)
        if (is_struct(from->fields[i].ty) && struct_reaches(from->fields[i].ty->sd, target)) return 1;
    return 0;
}

/* 1 when the demo prints values of struct SD (read back, or nested in one). */
static int struct_printed(Hc *h, const StructDef *sd) {
    for (int i = 0; i < h->abi->nkernels; i++)
        for (int j = 0; j < h->abi->kernels[i].nargs; j++) {
            const AbiArg *a = &h->abi->kernels[i].args[j];
            if (demo_reads_back(a) && is_struct(a->elem_ty) && struct_reaches(a->elem_ty->sd, sd)) return 1;
        }
    return 0;
}

/* Demo: print one struct value as {field value, ...}. */
static void emit_struct_printers(Hc *h) {
    Printer *p = &h->pr;
    for (int i = 0; i < h->nstructs; i++) {
        const StructDef *sd = h->structs[i];
        if (!struct_printed(h, sd)) continue;
        const char *name = host_name(h, sd->cname);
        pr_line(p, "static void demo_print_%s(FILE *out, const %s *v)", name, name);
        pr_line(p, "{");
        pr_indent(p);
        for (int j = 0; j < sd->nfields; j++) {
            const Field *f = &sd->fields[j];
            const char *fname = host_name(h, f->cname);
            pr_line(p, "fputs(%s, out);", c_string(h, arena_printf(h->a, "%s%s ", j ? ", " : "{", f->name)));
            if (is_struct(f->ty))
                pr_line(p, "demo_print_%s(out, &v->%s);", host_name(h, f->ty->sd->cname), fname);
            else if (f->ty->kind == TY_NUM || f->ty->kind == TY_HWVEC)
                pr_line(p, "crisp_print_value(out, %sv->%s, \"%s\");", f->as_array ? "" : "&", fname, oclc_type_name(f->ty));
            else
                pr_line(p, "fputs(\"...\", out);");
        }
        pr_line(p, "fputs(\"}\", out);");
        pr_dedent(p);
        pr_line(p, "}");
        pr_blank(p);
    }
}

/* Does the global size come from vector X (a :derive-from declaration)?
 * Such a vector keeps the demo length; the others get what the kernel
 * touches at that launch, and at least CRISP_DEMO_SLACK times as much
 * when the kernel's reach is not known. */
static int derives_launch(const HostKernel *hk, const AbiArg *x) {
    const HostLaunch *l = &hk->launch;
    const SizeDecl *g = hk->k->gsize;
    if (!g || !g->present || !g->nderive) return 0;
    for (int d = 0; d < l->nglobal; d++)
        if (l->global[d] && l->global[d]->op == SZ_LENGTH && l->global[d]->param_index >= 0 &&
            l->global[d]->param_index < hk->nparams && hk->params[l->global[d]->param_index].arg == x)
            return 1;
    return 0;
}

/* The demo passes a launch of its own when nothing declares the global size. */
static int demo_launch(const HostKernel *hk) {
    const SizeDecl *g = hk->k->gsize;
    return !hk->launch.single_task && !(g && g->present && g->nset + g->nderive);
}

/* Demo data: read-only and constant vectors and implicit vectors (memory
 * "the host fills") get the demo pattern; the rest starts as zeros (safe
 * for counters and ticket dispensers). */
static int demo_fills(const AbiArg *a) {
    if (a->role == ROLE_IMPLICIT) return 1;
    return a->role == ROLE_BUFFER && (a->acc == ACC_READ_ONLY || a->as == AS_CONSTANT);
}

static void emit_demo_kernel(Hc *h, const HostKernel *hk) {
    Printer *p = &h->pr;
    const AbiKernel *k = hk->k;
    pr_line(p, "/* ---- %s (%s) ---- */", k->name, comment_text(h, where(h, k)));
    pr_blank(p);
    pr_line(p, "static int demo_%s(%s *p)", k->name, h->prog);
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "%s_args args, need;", k->name);
    pr_line(p, "CrispLaunch launch;");
    pr_line(p, "cl_int err = CL_SUCCESS;");
    int nstruct = 0;
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if (demo_reads_back(a) && is_struct(a->elem_ty)) nstruct = 1;
        if (a->role == ROLE_BUFFER && !is_local(a)) pr_line(p, "%s *%s = NULL;", elem_ctype(h, a), field(h, a));
        if (a->role == ROLE_BUFFER && !length_of(k, a))
            pr_line(p, "size_t %s_bytes = (size_t)CRISP_DEMO_LENGTH * CRISP_DEMO_SLACK; /* a voidp: bytes */", field(h, a));
        if (a->role == ROLE_IMPLICIT || a->role == ROLE_RESULT) pr_line(p, "%s *%s = NULL;", elem_ctype(h, a), field(h, a));
        if (a->role == ROLE_RESULT) pr_line(p, "size_t %s = 0;", field(h, length_of(k, a)));
    }
    if (nstruct) pr_line(p, "size_t i;");
    pr_blank(p);
    pr_line(p, "printf(\"%%s:\\n\", %s);", c_string(h, arena_printf(h->a, "%s (%s)", k->name, where(h, k))));
    pr_line(p, "memset(&args, 0, sizeof args);");
    /* scalars */
    for (int i = 0; i < hk->nparams; i++) {
        const HostParam *hp = &hk->params[i];
        const AbiArg *a = hp->arg;
        if (hp->kind != HP_SCALAR) continue;
        const char *v = scalar_is_float(a) ? "CRISP_DEMO_FLOAT" : "CRISP_DEMO_SCALAR";
        if (is_struct(a->elem_ty))
            pr_line(p, "/* %s: a %s, all zeros */", comment_text(h, a->name), a->type);
        else if (scalar_lanes(a) > 1)
            for (int j = 0; j < scalar_lanes(a); j++)
                pr_line(p, "args.%s.s[%d] = (cl_%s)%s;", field(h, a), j, a->elem_ty ? oclc_type_name(ty_num(a->elem_ty->sc)) : "int", v);
        else
            pr_line(p, "args.%s = (%s)%s;", field(h, a), scalar_ctype(h, a), v);
    }
    /* lengths, the launch, then what the kernel touches at that launch */
    pr_line(p, "/* lengths: the demo length (a __local vector: the local size) */");
    for (int i = 0; i < hk->nparams; i++) {
        const HostParam *hp = &hk->params[i];
        const AbiArg *a = hp->arg;
        if (!hp->len) continue;
        const char *n = "CRISP_DEMO_LENGTH";
        if (a->fixed_length > 0) n = arena_printf(h->a, "%lld", (long long)a->fixed_length);
        else if (hp->kind == HP_LOCAL) {
            const SizeDecl *l = k->lsize;
            long long c = 64;
            if (l && l->present && l->nset) {
                c = 1;
                for (int d = 0; d < l->nset; d++) c *= l->set_to[d];
            }
            n = arena_printf(h->a, "%lld", c);
        }
        pr_line(p, "args.%s = %s;", field(h, hp->len), n);
    }
    if (demo_launch(hk)) {
        pr_line(p, "/* nothing declares the global size: one thread per demo element */");
        pr_line(p, "%s_launch_size(&args, &launch);", k->name);
        pr_line(p, "launch.global[0] = CRISP_DEMO_LENGTH;");
        pr_line(p, "crisp_launch_round_up(&launch);");
    } else {
        pr_line(p, "%s_launch_size(&args, &launch);", k->name);
    }
    pr_line(p, "%s_min_lengths(&args, &launch, &need);", k->name);
    for (int i = 0; i < hk->nparams; i++) {
        const HostParam *hp = &hk->params[i];
        const AbiArg *a = hp->arg;
        if (!hp->len || hp->kind == HP_LOCAL || a->fixed_length > 0 || derives_launch(hk, a)) continue;
        const char *f = field(h, hp->len);
        if (hp->need)
            pr_line(p, "if (need.%s > args.%s) args.%s = need.%s;", f, f, f, f);
        else
            pr_line(p, "args.%s *= CRISP_DEMO_SLACK; /* the kernel's reach is not known */", f);
    }
    if (hk->nsides > (hk->debug ? 1 : 0)) pr_line(p, "%s_side_sizes(&args, &launch);", k->name);
    /* host arrays */
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if ((a->role != ROLE_BUFFER || is_local(a)) && a->role != ROLE_IMPLICIT) continue;
        const AbiArg *len = length_of(k, a);
        const char *f = field(h, a);
        const char *count = len ? arena_printf(h->a, "(size_t)args.%s", field(h, len)) : arena_printf(h->a, "%s_bytes", f);
        pr_line(p, "%s = (%s *)crisp_host_alloc(p->cx, %s, %s, %s);", f, elem_ctype(h, a), count, elem_size(h, a), c_string(h, a->name));
        pr_line(p, "if (!%s) goto done;", f);
        if (demo_fills(a)) pr_line(p, "crisp_fill_demo(%s, %s, %s, \"%s\");", f, count, elem_size(h, a), elem_name(a));
    }
    /* the call */
    const char *call = "p";
    for (int i = 0; i < hk->nparams; i++) {
        const HostParam *hp = &hk->params[i];
        const AbiArg *a = hp->arg;
        if (hp->kind == HP_SCALAR) call = arena_printf(h->a, "%s, args.%s", call, field(h, a));
        else if (hp->kind == HP_LOCAL) call = arena_printf(h->a, "%s, (size_t)args.%s", call, hp->len ? field(h, hp->len) : "0");
        else if (hp->len) call = arena_printf(h->a, "%s, %s, (size_t)args.%s", call, field(h, a), field(h, hp->len));
        else call = arena_printf(h->a, "%s, %s, %s_bytes", call, field(h, a), field(h, a));
    }
    for (int i = 0; i < hk->nsides; i++) {
        const AbiArg *a = hk->sides[i];
        const AbiArg *len = length_of(k, a);
        if (a->role == ROLE_IMPLICIT) call = arena_printf(h->a, "%s, %s, (size_t)args.%s", call, field(h, a), field(h, len));
        else if (a->role == ROLE_RESULT) call = arena_printf(h->a, "%s, &%s, &%s", call, field(h, a), field(h, len));
    }
    pr_line(p, "crisp_print_launch(stdout, \"  \", &launch);");
    for (int i = 0; i < hk->nsides; i++) {
        const AbiArg *a = hk->sides[i];
        const AbiArg *len = length_of(k, a);
        if (a->role == ROLE_RESULT || a->role == ROLE_IMPLICIT || a->role == ROLE_LOCAL) {
            const char *line = arena_printf(h->a, " x %s, sized %s%s%s\n", a->element, a->size.crisp, a->comment ? " -- " : "",
                                            a->comment ? a->comment : "");
            pr_line(p, "printf(\"%%s%%lu%%s\", %s, (unsigned long)args.%s, %s);",
                    c_string(h, arena_printf(h->a, "  %s %s: ", role_text(a), a->name)), field(h, len), c_string(h, line));
        } else if (a->role == ROLE_SCRATCH) {
            for (int j = 0; j < k->nscratch; j++) {
                const AbiScratchPart *sp = &k->scratch[j];
                pr_line(p, "printf(\"%%s\", %s);", c_string(h, arena_printf(h->a, "  scratch part %s: %s x %s%s%s\n", sp->name,
                                                                            sp->count.crisp, sp->element, sp->comment ? " -- " : "",
                                                                            sp->comment ? sp->comment : "")));
            }
            pr_line(p, "printf(\"  scratch pool: %%lu bytes\\n\", (unsigned long)args.%s);", field(h, len));
        }
    }
    c_line(h, "err = %s_run(%s, %s);", k->name, call, demo_launch(hk) ? "&launch" : "NULL");
    pr_line(p, "if (err != CL_SUCCESS) goto done;");
    /* what came back */
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if (!demo_reads_back(a)) continue;
        const AbiArg *len = length_of(k, a);
        const char *f = field(h, a);
        const char *count = a->role == ROLE_RESULT ? field(h, len) : len ? arena_printf(h->a, "(size_t)args.%s", field(h, len)) : "1";
        const char *name = c_string(h, a->name);
        if (is_struct(a->elem_ty)) {
            const char *sname = host_name(h, a->elem_ty->sd->cname);
            pr_line(p, "printf(\"  %%s: %%lu x %s:\", %s, (unsigned long)%s);", comment_text(h, a->element), name, count);
            pr_line(p, "for (i = 0; i < 2 && i < (size_t)%s; i++) {", count);
            pr_indent(p);
            pr_line(p, "fputs(\" \", stdout);");
            pr_line(p, "demo_print_%s(stdout, %s + i);", sname, f);
            pr_dedent(p);
            pr_line(p, "}");
            pr_line(p, "printf(\"%%s\\n\", (size_t)%s > 2 ? \" ...\" : \"\");", count);
        } else {
            pr_line(p, "crisp_print_vector(stdout, %s, %s, %s, %s, \"%s\");", name, f, count, elem_size(h, a), elem_name(a));
        }
    }
    if (hk->debug) {
        pr_line(p, "printf(\"  debug log:\\n%%s\", %s_debug_log(p));", h->base);
    }
    pr_blank(p);
    pr_dedent(p);
    pr_line(p, "done:");
    pr_indent(p);
    pr_line(p, "if (err != CL_SUCCESS) fprintf(stderr, \"crisp: %%s\\n\", crisp_error_message(p->cx));");
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if ((a->role == ROLE_BUFFER && !is_local(a)) || a->role == ROLE_IMPLICIT || a->role == ROLE_RESULT)
            pr_line(p, "free(%s);", field(h, a));
    }
    pr_line(p, "return err == CL_SUCCESS;");
    pr_dedent(p);
    pr_line(p, "}");
    pr_blank(p);
}

/* The demo of an orchestration: every `_` a demo array of CRISP_DEMO_LENGTH
 * elements (or a demo scalar), one call, the written arrays printed. */
static void emit_demo_orch(Hc *h, const AbiOrch *ao) {
    Printer *p = &h->pr;
    const Orchestration *o = ao->o;
    pr_line(p, "/* ---- orchestration %s ---- */", comment_text(h, o->name));
    pr_blank(p);
    pr_line(p, "static int orchestration_%s(%s *p)", o->ident, h->prog);
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "cl_int err = CL_SUCCESS;");
    for (int b = 0; b < ao->nbufs; b++) {
        const AbiOrchBuf *ob = &ao->bufs[b];
        if (!ob->fresh) continue;
        const AbiArg *x = ob->arg;
        const char *f = orch_buf_name(h, ob);
        if (x->role == ROLE_SCALAR) {
            if (is_struct(x->elem_ty) || scalar_lanes(x) > 1) {
                pr_line(p, "%s %s;", scalar_ctype(h, x), f);
            } else {
                pr_line(p, "%s %s = (%s)%s;", scalar_ctype(h, x), f, scalar_ctype(h, x), scalar_is_float(x) ? "CRISP_DEMO_FLOAT" : "CRISP_DEMO_SCALAR");
            }
        } else if (is_local(x)) {
            pr_line(p, "size_t %s_len = 64;", f);
        } else {
            pr_line(p, "%s *%s = NULL;", elem_ctype(h, x), f);
            pr_line(p, "size_t %s_len = CRISP_DEMO_LENGTH;", f);
        }
    }
    pr_blank(p);
    pr_line(p, "printf(\"orchestration %%s:\\n\", %s);", c_string(h, o->name));
    for (int b = 0; b < ao->nbufs; b++) {
        const AbiOrchBuf *ob = &ao->bufs[b];
        if (!ob->fresh) continue;
        const AbiArg *x = ob->arg;
        const char *f = orch_buf_name(h, ob);
        if (x->role == ROLE_SCALAR && (is_struct(x->elem_ty) || scalar_lanes(x) > 1)) pr_line(p, "memset(&%s, 0, sizeof %s);", f, f);
        if (x->role == ROLE_SCALAR || is_local(x)) continue;
        pr_line(p, "%s = (%s *)crisp_host_alloc(p->cx, %s_len, %s, %s);", f, elem_ctype(h, x), f, elem_size(h, x), c_string(h, ob->ident));
        pr_line(p, "if (!%s) goto done;", f);
        if (ob->read) pr_line(p, "crisp_fill_demo(%s, %s_len, %s, \"%s\");", f, f, elem_size(h, x), elem_name(x));
    }
    const char *call = "p";
    for (int b = 0; b < ao->nbufs; b++) {
        const AbiOrchBuf *ob = &ao->bufs[b];
        if (!ob->fresh) continue;
        const char *f = orch_buf_name(h, ob);
        if (ob->arg->role == ROLE_SCALAR) call = arena_printf(h->a, "%s, %s", call, f);
        else if (is_local(ob->arg)) call = arena_printf(h->a, "%s, %s_len", call, f);
        else call = arena_printf(h->a, "%s, %s, %s_len", call, f, f);
    }
    for (int st = 0; st < o->nsteps; st++) {
        const HostKernel *hk = &h->hks[ao->kernel[st]];
        for (int i = 0; i < hk->nsides; i++)
            if (hk->sides[i]->role == ROLE_RESULT) call = arena_printf(h->a, "%s, NULL, NULL", call);
    }
    c_line(h, "err = %s(%s);", orch_fn(h, ao), call);
    pr_line(p, "if (err != CL_SUCCESS) {");
    pr_line(p, "    fprintf(stderr, \"  failed: %%s\\n\", crisp_error_message(p->cx));");
    pr_line(p, "    goto done;");
    pr_line(p, "}");
    for (int b = 0; b < ao->nbufs; b++) {
        const AbiOrchBuf *ob = &ao->bufs[b];
        if (!ob->fresh || !ob->written || ob->arg->role != ROLE_BUFFER || is_local(ob->arg)) continue;
        const char *f = orch_buf_name(h, ob);
        c_line(h, "crisp_print_vector(stdout, \"%s\", %s, %s_len, %s, \"%s\");", f, f, f, elem_size(h, ob->arg), elem_name(ob->arg));
    }
    pr_dedent(p);
    pr_line(p, "done:");
    pr_indent(p);
    for (int b = 0; b < ao->nbufs; b++) {
        const AbiOrchBuf *ob = &ao->bufs[b];
        if (ob->fresh && ob->arg->role == ROLE_BUFFER && !is_local(ob->arg)) pr_line(p, "free(%s);", orch_buf_name(h, ob));
    }
    pr_line(p, "return err == CL_SUCCESS;");
    pr_dedent(p);
    pr_line(p, "}");
    pr_blank(p);
}

static void emit_demo(Hc *h) {
    Printer *p = &h->pr;
    const Abi *abi = h->abi;
    const char *base = comment_text(h, h->o->base);
    int nfile = 0;
    for (int i = 0; i < abi->nkernels; i++) nfile += !is_dynamic(h, &abi->kernels[i]);
    emit_header_comment(h, arena_printf(h->a, "%s_hoist_OpenCL_demo.c", base),
                        arena_printf(h->a, "runs every kernel of %s.cl on dummy data", base));
    pr_line(p, " *");
    pr_line(p, " * Each kernel goes through its KERNEL_run function with host arrays: read-only,");
    pr_line(p, " * constant and implicit vectors hold 1 + (i + lane) %% 16, the others start as");
    pr_line(p, " * zeros; integer scalars are CRISP_DEMO_SCALAR, floating ones CRISP_DEMO_FLOAT.");
    pr_line(p, " * Vectors have CRISP_DEMO_LENGTH elements, or what the kernel touches at that");
    pr_line(p, " * launch, or CRISP_DEMO_SLACK times that when the compiler could not bound it.");
    pr_line(p, " * %s (substrings of the names) choose%s the device.", h->cuda ? "CRISP_DEVICE (or an index)" : "CRISP_PLATFORM and CRISP_DEVICE",
            h->cuda ? "s" : "");
    pr_line(p, " */");
    pr_line(p, "#include \"%s_hoist_OpenCL.h\"", base);
    pr_blank(p);
    pr_line(p, "#ifndef CRISP_DEMO_LENGTH");
    pr_line(p, "#define CRISP_DEMO_LENGTH %d", h->demo_length);
    pr_line(p, "#endif");
    pr_line(p, "#ifndef CRISP_DEMO_SCALAR");
    pr_line(p, "#define CRISP_DEMO_SCALAR 32");
    pr_line(p, "#endif");
    pr_line(p, "#ifndef CRISP_DEMO_SLACK");
    pr_line(p, "#define CRISP_DEMO_SLACK 16 /* for vectors whose reach the compiler could not bound */");
    pr_line(p, "#endif");
    pr_line(p, "#ifndef CRISP_DEMO_FLOAT");
    pr_line(p, "#define CRISP_DEMO_FLOAT 1.5");
    pr_line(p, "#endif");
    pr_blank(p);
    emit_struct_printers(h);
    for (int i = 0; i < abi->nkernels; i++) emit_demo_kernel(h, &h->hks[i]);
    int norchs = abi->norchs;
    for (int i = 0; i < norchs; i++) emit_demo_orch(h, &abi->orchs[i]);

    pr_line(p, "int main(int argc, char **argv)");
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "CrispContext cx;");
    pr_line(p, "%s prog;", h->prog);
    if (nfile) pr_line(p, "char cl_path[4096];");
    pr_line(p, "int ran = 0;");
    if (norchs) pr_line(p, "int orchs;");
    pr_blank(p);
    if (!nfile) {
        pr_line(p, "(void)argc;");
        pr_line(p, "(void)argv;");
    }
    pr_line(p, "/* the device: %s choose it (%s) */", h->cuda ? "CRISP_DEVICE" : "CRISP_PLATFORM / CRISP_DEVICE",
            h->cuda ? "crisp_runtime_cuda.h" : "crisp_runtime.h");
    pr_line(p, "if (crisp_open(&cx, 0) != CL_SUCCESS) {");
    pr_line(p, "    fprintf(stderr, \"crisp: %%s\\n\", crisp_error_message(&cx));");
    pr_line(p, "    return 1;");
    pr_line(p, "}");
    if (h->cuda) pr_line(p, "printf(\"device: %%s (sm_%%d%%d; CUDA)\\n\", cx.device_name, cx.cc_major, cx.cc_minor);");
    else pr_line(p, "printf(\"device: %%s (%%s; %%s)\\n\", cx.device_name, cx.platform_name, cx.device_version);");
    if (h->o->unified_memory) {
        pr_line(p, "/* --hoist-unified-memory: shared virtual memory where the device has it */");
        pr_line(p, "if (cx.has_svm)");
        pr_line(p, "    printf(\"memory: shared virtual memory (coarse-grained SVM buffers)\\n\");");
        pr_line(p, "else");
        pr_line(p, "    printf(\"memory: %%s has no shared virtual memory (it needs OpenCL 2.0 and \"");
        pr_line(p, "           \"CL_DEVICE_SVM_COARSE_GRAIN_BUFFER); falling back to buffers\\n\", cx.device_name);");
    }
    if (nfile) {
        pr_line(p, "/* the program: %s.cl from the command line, the working directory or the", base);
        pr_line(p, " * directory of this executable */");
        pr_line(p, "if (!crisp_find_file(argc > 1 ? argv[1] : %s, argv[0], cl_path, sizeof cl_path)) {",
                c_string(h, arena_printf(h->a, "%s.cl", h->o->base)));
        pr_indent(p);
        pr_line(p, "fprintf(stderr, \"crisp: cannot find %%s (looked in the working directory and next to %%s); \"");
        pr_line(p, "                \"pass its path as the first argument\\n\", argc > 1 ? argv[1] : %s, argv[0]);",
                c_string(h, arena_printf(h->a, "%s.cl", h->o->base)));
        pr_line(p, "crisp_close(&cx);");
        pr_line(p, "return 1;");
        pr_dedent(p);
        pr_line(p, "}");
    }
    pr_line(p, "if (%s_load(&prog, &cx, %s) != CL_SUCCESS) {", h->base, nfile ? "cl_path" : "NULL");
    pr_line(p, "    fprintf(stderr, \"crisp: %%s\\n\", crisp_error_message(&cx));");
    pr_line(p, "    crisp_close(&cx);");
    pr_line(p, "    return 1;");
    pr_line(p, "}");
    if (h->cuda) pr_line(p, "printf(\"module: %%s\\n\", cx.loaded);");
    else if ((h->o->spirv || h->o->ptx) && nfile) pr_line(p, "printf(\"program: %%s\\n\", cx.loaded);");
    pr_blank(p);
    pr_line(p, "/* every kernel, in source order */");
    for (int i = 0; i < abi->nkernels; i++) pr_line(p, "ran += demo_%s(&prog);", abi->kernels[i].name);
    pr_blank(p);
    if (norchs) {
        pr_line(p, "/* every orchestration */");
        pr_line(p, "orchs = 0;");
        for (int i = 0; i < norchs; i++) pr_line(p, "orchs += orchestration_%s(&prog);", abi->orchs[i].o->ident);
        pr_line(p, "printf(\"%%d of %d orchestrations ran\\n\", orchs);", norchs);
    }
    pr_line(p, "printf(\"%%d of %d kernels ran\\n\", ran);", abi->nkernels);
    pr_line(p, "%s_release(&prog);", h->base);
    pr_line(p, "crisp_close(&cx);");
    pr_line(p, "return ran == %d%s ? 0 : 1;", abi->nkernels, norchs ? arena_printf(h->a, " && orchs == %d", norchs) : "");
    pr_dedent(p);
    pr_line(p, "}");
}

/* ---- the files ---- */

/* Every demo vector can hold a size derived from scalars: with k scalars
 * in one global-size declaration the demo launches 32^k threads. */
static int demo_length_for(const Hc *h) {
    int len = 1024;
    for (int i = 0; i < h->abi->nkernels; i++) {
        const HostLaunch *l = &h->hks[i].launch;
        int n = 1;
        for (int d = 0; d < l->nglobal; d++)
            if (l->global[d] && l->global[d]->op == SZ_SCALAR) n *= 32;
        if (n > len) len = n;
    }
    return len;
}

/* The CUDA names of what the shared printers say in OpenCL: handle types
 * and calls (crisp_runtime_cuda.h defines the rest) and file names, as
 * whole words. */
static void cuda_words(StrBuf *b, const Hc *h) {
    const char *base = h->o->base;
    const char *guard = arena_printf(h->a, "%s_HOIST_OPENCL_H", h->base);
    const char *cguard = arena_printf(h->a, "%s_HOIST_CUDA_H", h->base);
    for (char *q = (char *)guard; q && *q; q++) *q = (char)toupper((unsigned char)*q);
    for (char *q = (char *)cguard; q && *q; q++) *q = (char)toupper((unsigned char)*q);
    const char *words[][2] = {
        {"cl_mem", "CUdeviceptr"}, {"cl_command_queue", "CUstream"}, {"cl_event", "CUevent"},
        {"cl_program", "CUmodule"}, {"cl_kernel", "CrispKernel"}, {"clSetKernelArg", "crisp_set_kernel_arg"},
        {"clReleaseKernel", "crisp_release_kernel"}, {"clReleaseProgram", "cuModuleUnload"},
        {"clReleaseEvent", "cuEventDestroy"}, {"clWaitForEvents(1, &ran)", "crisp_wait_event(ran)"},
        {"clFinish", "(cl_int)cuStreamSynchronize"},
        {"crisp_runtime.h", "crisp_runtime_cuda.h"},
        {arena_printf(h->a, "%s_hoist_OpenCL_demo.c", base), arena_printf(h->a, "%s_hoist_CUDA_demo.cpp", base)},
        {arena_printf(h->a, "%s_hoist_OpenCL.c", base), arena_printf(h->a, "%s_hoist_CUDA.cpp", base)},
        {arena_printf(h->a, "%s_hoist_OpenCL.h", base), arena_printf(h->a, "%s_hoist_CUDA.h", base)},
        {arena_printf(h->a, "%s.cl", base), arena_printf(h->a, "%s.ptx", base)},
        {guard, cguard}};
    int nwords = (int)(sizeof words / sizeof words[0]);
    if (b->oom) return;
    for (int i = 0; i < nwords; i++)
        if (!words[i][0] || !words[i][1]) {
            b->oom = 1;
            return;
        }
    char *text = arena_strdup(h->a, sb_cstr(b));
    if (!text) {
        b->oom = 1;
        return;
    }
    b->len = 0;
    for (const char *s = text; *s;) {
        int at_start = s == text || !(isalnum((unsigned char)s[-1]) || s[-1] == '_');
        int hit = -1;
        size_t n = 0;
        for (int i = 0; at_start && i < nwords && hit < 0; i++) {
            n = strlen(words[i][0]);
            if (!strncmp(s, words[i][0], n) && !(isalnum((unsigned char)s[n]) || s[n] == '_')) hit = i;
        }
        if (hit >= 0) {
            sb_puts(b, words[hit][1]);
            s += n;
        } else {
            sb_putc(b, *s++);
        }
    }
}

static void emit_c_files(StrBuf *header, StrBuf *source, StrBuf *demo, const Abi *abi, const HoistOptions *o, Arena *a,
                         int cuda) {
    Hc h;
    memset(&h, 0, sizeof h);
    h.cuda = cuda;
    h.a = a;
    h.abi = abi;
    h.o = o;
    h.hks = host_plan(a, abi);
    h.base = host_ident(a, o->base);
    h.prog = arena_printf(a, "%s_program", h.base);
    if (!h.hks || !h.prog) return;
    h.demo_length = demo_length_for(&h);
    for (int i = 0; i < abi->nkernels; i++)
        for (int j = 0; j < abi->kernels[i].nargs; j++) collect_struct(&h, abi->kernels[i].args[j].elem_ty);
    pr_init(&h.pr, header);
    emit_header(&h);
    pr_init(&h.pr, source);
    emit_source(&h);
    pr_init(&h.pr, demo);
    emit_demo(&h);
    if (cuda) {
        cuda_words(header, &h);
        cuda_words(source, &h);
        cuda_words(demo, &h);
    }
}

void emit_hoist_opencl(StrBuf *header, StrBuf *source, StrBuf *demo, const Abi *abi, const HoistOptions *o, Arena *a) {
    emit_c_files(header, source, demo, abi, o, a, 0);
}

void emit_hoist_cuda(StrBuf *header, StrBuf *source, StrBuf *demo, const Abi *abi, const HoistOptions *o, Arena *a) {
    HoistOptions co = *o;
    co.cuda = 1;
    co.ndynamic = 0;            /* the CUDA hoists load what was built ahead of time */
    co.unified_memory = 0;      /* CUDA device memory and copies */
    emit_c_files(header, source, demo, abi, &co, a, 1);
}
