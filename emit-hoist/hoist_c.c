/* hoist_c.c - BASE_hoist_OpenCL.c: C host code for the kernels of BASE.cl
 * ("Hoisting Code" in the spec), printed from the kernel ABI (abi.h).
 *
 * The generated file is plain C99 that is also valid C++ and compiles
 * warning-free with gcc/g++ -Wall -Wextra and TinyCC.  It has the
 * def-structs the arguments use (host structs with the std140 layout of the
 * .cl, padding spelled out) and, per kernel:
 *
 *   KERNEL_args         one field per OpenCL argument, in the kernel's order
 *   KERNEL_launch_size  the global/local sizes the kernel declares
 *   KERNEL_side_sizes   side-channel lengths from the metadata's size
 *                       expressions (only for kernels with side channels)
 *   KERNEL_set_args     clSetKernelArg for every argument
 *   KERNEL_enqueue      set_args + clEnqueueNDRangeKernel
 *   KERNEL_build_program  (--hoist-dynamic) build from the embedded source
 *
 * and a demo main() (left out with -DCRISP_NO_DEMO) that runs every kernel
 * on dummy data.  Everything not specific to the program lives in the
 * runtime shim runtime-shim/crisp_runtime.h.  docs/hoisting-c.md describes
 * the output for users. */
#include <stdio.h>
#include <string.h>

#include "../core/context.h"
#include "../core/printer.h"
#include "hoist.h"
#include "../emit-oclc/sizeprint.h"

typedef struct Hc {
    Printer pr;
    StrBuf *out;
    Arena *a;
    const Abi *abi;
    const HoistOptions *o;
    int demo_length;    /* elements of every demo vector without a fixed length */
    const StructDef **structs;  /* def-structs the kernels' arguments use, nested first */
    int nstructs, capstructs;
} Hc;

/* ---- names ---- */

/* Identifiers a field or local of the generated C must not take: C++
 * keywords (Crisp names may be any C identifier that is not C or OpenCL
 * reserved) and the generated functions' own parameter names. */
static const char *taken_names[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "catch", "char8_t", "char16_t",
    "char32_t", "class", "co_await", "co_return", "co_yield", "compl", "concept", "const_cast",
    "consteval", "constexpr", "constinit", "decltype", "delete", "dynamic_cast", "explicit", "export",
    "friend", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
    "or_eq", "protected", "public", "reinterpret_cast", "requires", "static_assert", "static_cast",
    "template", "this", "thread_local", "throw", "try", "typeid", "typename", "using", "virtual",
    "wchar_t", "xor", "xor_eq", "args", "launch", NULL};

/* The host spelling of a kernel-side C name: the same, or with a trailing
 * underscore when the name is taken (taken_names). */
static const char *host_name(Hc *h, const char *name) {
    for (int i = 0; taken_names[i]; i++)
        if (!strcmp(taken_names[i], name)) return arena_printf(h->a, "%s_", name);
    return name;
}

static int is_ident_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident_char(char c) {
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* A size expression with every identifier spelled as host_name does. */
static const char *host_expr(Hc *h, const char *c) {
    StrBuf b;
    sb_init(&b);
    for (const char *p = c; *p;) {
        const char *s = p;
        if (is_ident_start(*p)) {
            while (is_ident_char(*p)) p++;
            const char *id = arena_strndup(h->a, s, (size_t)(p - s));
            sb_puts(&b, id ? host_name(h, id) : "");
        } else if (*p >= '0' && *p <= '9') {
            while (is_ident_char(*p) || *p == '.') p++; /* 2ULL, 1.5 */
            sb_putn(&b, s, (size_t)(p - s));
        } else {
            sb_putc(&b, *p++);
        }
    }
    const char *r = arena_strdup(h->a, sb_cstr(&b));
    sb_free(&b);
    return r;
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
    return r;
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
    return r;
}

/* ---- the ABI, as the host sees it ---- */

static int is_pointer(const AbiArg *a) {
    return a->role != ROLE_SCALAR && a->role != ROLE_LENGTH;
}

static int is_local(const AbiArg *a) {
    return is_pointer(a) && a->as == AS_LOCAL;
}

/* The struct field of an argument. */
static const char *field(Hc *h, const AbiArg *a) {
    if (a->cname) return host_name(h, a->cname);
    return host_name(h, arena_printf(h->a, "arg%d", a->index));
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

static int has_side_channels(const AbiKernel *k) {
    for (int i = 0; i < k->nargs; i++)
        if (k->args[i].role >= ROLE_RESULT) return 1;
    return 0;
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

/* The host C type of a scalar argument ("int" -> "cl_int", "float4" -> "cl_float4"). */
static const char *scalar_ctype(Hc *h, const AbiArg *a) {
    if (a->elem_ty && a->elem_ty->kind == TY_STRUCT) return host_name(h, a->elem_ty->sd->cname);
    return arena_printf(h->a, "cl_%s", a->type);
}

static int is_struct(const Type *t) {
    return t && t->kind == TY_STRUCT && t->sd;
}

/* Lanes of a scalar argument's type (1, or the hardware vector width). */
static int scalar_lanes(const AbiArg *a) {
    return a->elem_ty && a->elem_ty->kind == TY_HWVEC ? a->elem_ty->width : 1;
}

static int scalar_is_float(const AbiArg *a) {
    return a->elem_ty && ty_is_floatlike(a->elem_ty);
}

/* The argument the name of a derive-from refers to (sym when known). */
static const AbiArg *derive_arg(const AbiKernel *k, const SizeDecl *sd, int i) {
    const Sym *s = sd->derive_sym[i];
    for (int j = 0; j < k->nargs; j++) {
        const AbiArg *a = &k->args[j];
        if (a->role != ROLE_SCALAR && a->role != ROLE_BUFFER) continue;
        if (s ? a->cname && s->cname && !strcmp(a->cname, s->cname) : !strcmp(a->name, sd->derive[i])) return a;
    }
    return NULL;
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
        return arena_printf(h->a, "cl_%s %s[%d]", ty_cname(ty_num(t->sc)), name, t->width);
    if (t->kind == TY_NUM || t->kind == TY_HWVEC) return arena_printf(h->a, "cl_%s %s", ty_cname(t), name);
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
                    f->as_array ? arena_printf(h->a, ", %s", ty_cname(f->ty)) : "");
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

static int demo_reads_back(const AbiArg *a);

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
                pr_line(p, "crisp_print_value(out, %sv->%s, \"%s\");", f->as_array ? "" : "&", fname, ty_cname(f->ty));
            else
                pr_line(p, "fputs(\"...\", out);");
        }
        pr_line(p, "fputs(\"}\", out);");
        pr_dedent(p);
        pr_line(p, "}");
        pr_blank(p);
    }
}

/* ---- per-kernel API ---- */

static void emit_section_header(Hc *h, const AbiKernel *k) {
    Printer *p = &h->pr;
    pr_blank(p);
    pr_line(p, "/* ==========================================================================");
    pr_line(p, " * Kernel %s: %s at %s", k->name, k->exact ? "def-kernel-exact" : "def-kernel",
            comment_text(h, where(h, k)));
    if (is_dynamic(h, k))
        pr_line(p, " * Built at run time from the source embedded below (--hoist-dynamic=%s).", k->name);
    pr_line(p, " * ========================================================================== */");
    pr_blank(p);
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
    pr_blank(p);
}

/* The C expression of one launch size from a declaration: DIM of SD. */
static const char *decl_size(Hc *h, const AbiKernel *k, const SizeDecl *sd, int dim, const char **why) {
    if (dim < sd->nset) {
        *why = arena_printf(h->a, ":set-to");
        return arena_printf(h->a, "%lld", (long long)sd->set_to[dim]);
    }
    if (dim < sd->nderive) {
        const AbiArg *a = derive_arg(k, sd, dim);
        const char *name = comment_text(h, sd->derive[dim]);
        if (!a) {
            *why = arena_printf(h->a, ":derive-from %s (not an argument of the kernel: 1)", name);
            return "1";
        }
        if (a->role == ROLE_SCALAR) {
            *why = arena_printf(h->a, ":derive-from %s (its value)", name);
            return arena_printf(h->a, "(size_t)args->%s", field(h, a));
        }
        const AbiArg *len = length_of(k, a);
        if (!len) {
            *why = arena_printf(h->a, ":derive-from %s, which has no length argument: set it yourself", name);
            return "1";
        }
        *why = arena_printf(h->a, ":derive-from %s (its length)", name);
        return arena_printf(h->a, "(size_t)args->%s", field(h, len));
    }
    return NULL;
}

static int launch_dims(const AbiKernel *k) {
    const SizeDecl *g = k->gsize, *l = k->lsize;
    if (g && g->present && g->dims > 0) return g->dims;
    if (l && l->present && l->dims > 0) return l->dims;
    if (g && g->present && (g->nset || g->nderive)) return g->nset ? g->nset : g->nderive;
    if (l && l->present && (l->nset || l->nderive)) return l->nset ? l->nset : l->nderive;
    return 1;
}

/* The first vector parameter with a length, the default global size. */
static const AbiArg *first_vector(const AbiKernel *k) {
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if (a->role == ROLE_BUFFER && !is_local(a) && length_of(k, a)) return a;
    }
    return NULL;
}

static void emit_launch_size(Hc *h, const AbiKernel *k) {
    Printer *p = &h->pr;
    const SizeDecl *g = k->gsize, *l = k->lsize;
    int dims = k->single_task ? 1 : launch_dims(k);
    int uses_args = 0;
    pr_line(p, "/* The global and local work sizes %s expects, from its declarations;", k->name);
    pr_line(p, " * the global size is rounded up to a multiple of the local size. */");
    pr_line(p, "void %s_launch_size(const %s_args *args, CrispLaunch *launch)", k->name, k->name);
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "crisp_launch_init(launch, %d);", dims);
    if (k->single_task) {
        pr_line(p, "/* single-task: just ONE thread */");
        pr_line(p, "launch->global[0] = 1;");
        pr_line(p, "launch->local[0] = 1;");
    } else {
        int declared = g && g->present && (g->nset || g->nderive);
        if (g && g->present && g->msg) pr_line(p, "/* global-size: %s */", comment_text(h, g->msg));
        if (declared) {
            for (int d = 0; d < dims; d++) {
                const char *why = "";
                const char *e = decl_size(h, k, g, d, &why);
                if (!e) continue;
                uses_args |= strstr(e, "args->") != NULL;
                pr_line(p, "launch->global[%d] = %s; /* global-size %s */", d, e, why);
            }
        } else {
            const AbiArg *v = first_vector(k);
            if (v) {
                pr_line(p, "/* no global-size declaration: one thread per element of %s */",
                        comment_text(h, v->name));
                pr_line(p, "launch->global[0] = (size_t)args->%s;", field(h, length_of(k, v)));
                uses_args = 1;
            } else {
                pr_line(p, "/* no global-size declaration and no vector parameter: one thread;");
                pr_line(p, " * set launch->global yourself */");
            }
        }
        if (l && l->present && l->msg) pr_line(p, "/* local-size: %s */", comment_text(h, l->msg));
        if (l && l->present && (l->nset || l->nderive)) {
            for (int d = 0; d < dims; d++) {
                const char *why = "";
                const char *e = decl_size(h, k, l, d, &why);
                if (!e) e = "1", why = "(not declared for this dimension)";
                uses_args |= strstr(e, "args->") != NULL;
                pr_line(p, "launch->local[%d] = %s; /* local-size %s */", d, e, why);
            }
            pr_line(p, "crisp_launch_round_up(launch);");
        } else {
            pr_line(p, "/* no local-size declaration: OpenCL chooses the workgroup size */");
        }
    }
    if (!uses_args) pr_line(p, "(void)args;");
    pr_dedent(p);
    pr_line(p, "}");
    pr_blank(p);
}

/* Bind every input of size expression Z as a local (once per name). */
static void bind_inputs(Hc *h, const AbiKernel *k, const AbiSize *z, const char ***bound, int *nbound, int *cap,
                        int *uses_launch) {
    Printer *p = &h->pr;
    static const struct {
        const char *name;
        const char *fmt;
    } launch_inputs[] = {
        {"global_size0", "crisp_global_size(launch, 0)"}, {"global_size1", "crisp_global_size(launch, 1)"},
        {"global_size2", "crisp_global_size(launch, 2)"}, {"local_size0", "crisp_local_size(launch, 0)"},
        {"local_size1", "crisp_local_size(launch, 1)"},   {"local_size2", "crisp_local_size(launch, 2)"},
        {"num_groups0", "crisp_num_groups(launch, 0)"},   {"num_groups1", "crisp_num_groups(launch, 1)"},
        {"num_groups2", "crisp_num_groups(launch, 2)"},   {"global_linear_size", "crisp_global_linear_size(launch)"},
        {"local_linear_size", "crisp_local_linear_size(launch)"},
    };
    const SizeExpr **ins = NULL;
    int nins = 0, capins = 0;
    sz_collect_inputs(h->a, z->expr, &ins, &nins, &capins);
    for (int i = 0; i < nins; i++) {
        const char *in = abi_input_name((void *)k, ins[i]);
        if (!in) in = size_input_default(h->a, ins[i]);
        int seen = 0;
        for (int j = 0; j < *nbound; j++) seen |= !strcmp((*bound)[j], in);
        if (seen) continue;
        if (*nbound == *cap) {
            int nc = *cap ? *cap * 2 : 8;
            const char **v = arena_alloc(h->a, sizeof(char *) * (size_t)nc);
            if (!v) return;
            if (*nbound) memcpy(v, *bound, sizeof(char *) * (size_t)*nbound);
            *bound = v;
            *cap = nc;
        }
        (*bound)[(*nbound)++] = in;
        const char *value = NULL;
        for (size_t j = 0; j < sizeof launch_inputs / sizeof launch_inputs[0]; j++)
            if (!strcmp(launch_inputs[j].name, in)) value = launch_inputs[j].fmt, *uses_launch = 1;
        for (int j = 0; !value && j < k->nargs; j++) {
            const AbiArg *a = &k->args[j];
            if ((a->role == ROLE_LENGTH || a->role == ROLE_SCALAR) && a->cname && !strcmp(a->cname, in))
                value = arena_printf(h->a, "(unsigned long long)args->%s", field(h, a));
        }
        if (value) pr_line(p, "const unsigned long long %s = %s;", host_name(h, in), value);
        else pr_line(p, "#error \"crisp: the size-expression input `%s` is unknown to the C hoist\"", in);
    }
}

static void emit_side_sizes(Hc *h, const AbiKernel *k) {
    Printer *p = &h->pr;
    const char **bound = NULL;
    int nbound = 0, cap = 0, uses_launch = 0;
    pr_line(p, "/* The lengths of %s's side channels, from the size expressions of the", k->name);
    pr_line(p, " * metadata.  Call after %s_launch_size: sizes may depend on the launch. */", k->name);
    pr_line(p, "void %s_side_sizes(%s_args *args, const CrispLaunch *launch)", k->name, k->name);
    pr_line(p, "{");
    pr_indent(p);
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if (a->role == ROLE_RESULT || a->role == ROLE_IMPLICIT || a->role == ROLE_SCRATCH || a->role == ROLE_LOCAL)
            bind_inputs(h, k, &a->size, &bound, &nbound, &cap, &uses_launch);
    }
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        const AbiArg *len = length_of(k, a);
        if (a->role < ROLE_RESULT || !len) continue;
        pr_blank(p);
        if (a->role == ROLE_RESULT || a->role == ROLE_IMPLICIT || a->role == ROLE_LOCAL) {
            pr_line(p, "/* %s %s: %s elements of %s%s%s */", role_text(a), comment_text(h, a->name),
                    comment_text(h, a->size.crisp), a->element, a->comment ? " -- " : "",
                    a->comment ? comment_text(h, a->comment) : "");
            pr_line(p, "args->%s = (cl_ulong)(%s);", field(h, len), host_expr(h, size_c(h->a, a->size.expr, abi_input_name, (void *)k)));
        } else if (a->role == ROLE_SCRATCH) {
            pr_line(p, "/* the scratch pool: every part starts at a 16-byte aligned offset");
            for (int j = 0; j < k->nscratch; j++) {
                const AbiScratchPart *sp = &k->scratch[j];
                pr_line(p, " *   %s: %s elements of %s (%d bytes each)%s%s", comment_text(h, sp->name),
                        comment_text(h, sp->count.crisp), sp->element, sp->stride, sp->comment ? " -- " : "",
                        sp->comment ? comment_text(h, sp->comment) : "");
            }
            pr_line(p, " */");
            pr_line(p, "args->%s = (cl_ulong)(%s);", field(h, len), host_expr(h, size_c(h->a, a->size.expr, abi_input_name, (void *)k)));
        } else if (a->role == ROLE_DEBUG) {
            pr_line(p, "/* the debug channel: CRISP_DEBUG_WORDS words unless already set */");
            pr_line(p, "if (args->%s == 0) args->%s = CRISP_DEBUG_WORDS;", field(h, len), field(h, len));
        }
    }
    if (!uses_launch) pr_line(p, "(void)launch;");
    pr_dedent(p);
    pr_line(p, "}");
    pr_blank(p);
}

static void emit_set_args(Hc *h, const AbiKernel *k) {
    Printer *p = &h->pr;
    pr_line(p, "/* Set every argument of %s (clSetKernelArg). */", k->name);
    pr_line(p, "cl_int %s_set_args(cl_kernel kernel, const %s_args *args)", k->name, k->name);
    pr_line(p, "{");
    pr_indent(p);
    if (k->nargs == 0) {
        pr_line(p, "(void)kernel;");
        pr_line(p, "(void)args;");
        pr_line(p, "return CL_SUCCESS;");
        pr_dedent(p);
        pr_line(p, "}");
        pr_blank(p);
        return;
    }
    pr_line(p, "cl_int err;");
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        const char *f = field(h, a);
        const char *what = c_string(h, arena_printf(h->a, "clSetKernelArg(%s, %d: %s)", k->name, a->index,
                                                    a->role == ROLE_LENGTH ? f : a->name));
        pr_blank(p);
        if (a->role == ROLE_SCALAR) {
            pr_line(p, "err = clSetKernelArg(kernel, %d, sizeof(%s), &args->%s);", a->index, scalar_ctype(h, a), f);
        } else if (a->role == ROLE_LENGTH) {
            pr_line(p, "err = clSetKernelArg(kernel, %d, sizeof(cl_ulong), &args->%s);", a->index, f);
        } else if (is_local(a)) {
            const AbiArg *len = length_of(k, a);
            pr_line(p, "/* __local: only a size; at least one element */");
            if (len)
                pr_line(p, "err = clSetKernelArg(kernel, %d, (size_t)(args->%s > 0 ? args->%s : 1) * %d, NULL);",
                        a->index, field(h, len), field(h, len), stride_of(a));
            else
                pr_line(p, "err = clSetKernelArg(kernel, %d, %lld, NULL);", a->index,
                        (long long)(a->fixed_length > 0 ? a->fixed_length : 1) * stride_of(a));
        } else if (h->o->unified_memory) {
            pr_line(p, "err = crisp_set_arg_mem(kernel, %d, &args->%s, %s);", a->index, f, what);
            pr_line(p, "if (err != CL_SUCCESS) return err;");
            continue;
        } else {
            pr_line(p, "err = clSetKernelArg(kernel, %d, sizeof(cl_mem), &args->%s);", a->index, f);
        }
        pr_line(p, "if (err != CL_SUCCESS) return crisp_fail(err, %s);", what);
    }
    pr_line(p, "return CL_SUCCESS;");
    pr_dedent(p);
    pr_line(p, "}");
    pr_blank(p);
}

static void emit_enqueue(Hc *h, const AbiKernel *k) {
    Printer *p = &h->pr;
    pr_line(p, "/* Set the arguments and enqueue %s.  LAUNCH may be NULL: then the sizes", k->name);
    pr_line(p, " * %s_launch_size computes.  The event arguments are clEnqueueNDRangeKernel's. */", k->name);
    pr_line(p, "cl_int %s_enqueue(cl_command_queue queue, cl_kernel kernel, const %s_args *args,", k->name, k->name);
    pr_line(p, "        const CrispLaunch *launch, cl_uint num_events, const cl_event *wait_list, cl_event *event)");
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "CrispLaunch declared;");
    pr_line(p, "cl_int err = %s_set_args(kernel, args);", k->name);
    pr_line(p, "if (err != CL_SUCCESS) return err;");
    pr_line(p, "if (!launch) {");
    pr_indent(p);
    pr_line(p, "%s_launch_size(args, &declared);", k->name);
    pr_line(p, "launch = &declared;");
    pr_dedent(p);
    pr_line(p, "}");
    pr_line(p, "return crisp_enqueue(queue, kernel, launch, \"%s\", num_events, wait_list, event);", k->name);
    pr_dedent(p);
    pr_line(p, "}");
    pr_blank(p);
}

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

static void emit_dynamic(Hc *h, const AbiKernel *k) {
    Printer *p = &h->pr;
    const char *src = kernel_source(h, k);
    pr_line(p, "/* %s's OpenCL C, embedded by --hoist-dynamic=%s: the program's support", k->name, k->name);
    pr_line(p, " * functions and this kernel, built at run time by %s_build_program. */", k->name);
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
    pr_blank(p);
    pr_line(p, "/* Build the program holding %s from the embedded source (the in-memory", k->name);
    pr_line(p, " * compilation path: no file is read).  NULL on failure, with the build log. */");
    pr_line(p, "cl_program %s_build_program(cl_context context, cl_device_id device, cl_int *err)", k->name);
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "return crisp_build_program(context, device, %s_source, \"%s (embedded source)\", NULL, err);", k->name,
            k->name);
    pr_dedent(p);
    pr_line(p, "}");
    pr_blank(p);
}

static void emit_kernel_api(Hc *h, const AbiKernel *k) {
    emit_section_header(h, k);
    emit_args_struct(h, k);
    emit_launch_size(h, k);
    if (has_side_channels(k)) emit_side_sizes(h, k);
    emit_set_args(h, k);
    emit_enqueue(h, k);
    if (is_dynamic(h, k)) emit_dynamic(h, k);
}

/* ---- the demo ---- */

/* Elements of a demo vector: its fixed length, the local size for __local
 * vectors, else CRISP_DEMO_LENGTH. */
static const char *demo_count(Hc *h, const AbiKernel *k, const AbiArg *a) {
    if (a->fixed_length > 0) return arena_printf(h->a, "%lld", (long long)a->fixed_length);
    if (is_local(a)) {
        const SizeDecl *l = k->lsize;
        if (l && l->present && l->nset) {
            long long n = 1;
            for (int i = 0; i < l->nset; i++) n *= l->set_to[i];
            return arena_printf(h->a, "%lld", n);
        }
        return "64";
    }
    return "CRISP_DEMO_LENGTH";
}

static const char *mem_flags(const AbiArg *a) {
    if (a->role == ROLE_BUFFER && a->acc == ACC_READ_ONLY) return "CL_MEM_READ_ONLY";
    if (a->role == ROLE_BUFFER && a->acc == ACC_WRITE_ONLY) return "CL_MEM_WRITE_ONLY";
    return "CL_MEM_READ_WRITE";
}

/* Pointer arguments the demo allocates (global and constant memory). */
static int demo_allocates(const AbiArg *a) {
    return is_pointer(a) && !is_local(a);
}

/* Read back after the kernel: whatever the kernel may write, but scratch. */
static int demo_reads_back(const AbiArg *a) {
    if (!demo_allocates(a) || a->role == ROLE_SCRATCH) return 0;
    return a->role != ROLE_BUFFER || (a->acc != ACC_READ_ONLY && a->as != AS_CONSTANT);
}

static const char *svm_flag(Hc *h) {
    return h->o->unified_memory ? "demo_use_svm" : "0";
}

/* Demo data: read-only and constant vectors and implicit vectors (memory
 * "the host fills") get the demo pattern; the rest starts as zeros (safe
 * for counters and ticket dispensers). */
static int demo_fills(const AbiArg *a) {
    if (a->role == ROLE_IMPLICIT) return 1;
    return a->role == ROLE_BUFFER && (a->acc == ACC_READ_ONLY || a->as == AS_CONSTANT);
}

/* __global parameter vectors get CRISP_DEMO_SLACK times their length in
 * memory: kernels that write several outputs per element (Out[4*i + k])
 * stay inside the allocation.  Side channels are sized exactly. */
static int demo_slack(const AbiArg *a) {
    return a->role == ROLE_BUFFER && a->as == AS_GLOBAL && a->fixed_length < 0;
}

static void emit_demo_alloc(Hc *h, const AbiKernel *k, const AbiArg *a) {
    Printer *p = &h->pr;
    const char *f = field(h, a);
    const AbiArg *len = length_of(k, a);
    const char *count = len ? arena_printf(h->a, "args.%s", field(h, len)) : demo_count(h, k, a);
    const char *name = comment_text(h, a->name);
    const char *alloc = demo_slack(a) ? arena_printf(h->a, "(size_t)%s * CRISP_DEMO_SLACK", count)
                                      : arena_printf(h->a, "(size_t)%s", count);
    int stride = stride_of(a);
    pr_blank(p);
    if (a->role == ROLE_BUFFER) {
        pr_line(p, "/* %s: %s, %s, %d bytes per element */", name, a->type, ty_acc_name(a->acc), stride);
        if (len) pr_line(p, "args.%s = %s;", field(h, len), demo_count(h, k, a));
    } else if (a->role == ROLE_SCRATCH) {
        pr_line(p, "/* the scratch pool: %s bytes */", comment_text(h, a->size.crisp));
        for (int j = 0; j < k->nscratch; j++) {
            const AbiScratchPart *sp = &k->scratch[j];
            const char *line = arena_printf(h->a, "  scratch part %s: %s x %s%s%s\n", sp->name, sp->count.crisp,
                                            sp->element, sp->comment ? " -- " : "", sp->comment ? sp->comment : "");
            pr_line(p, "printf(\"%%s\", %s);", c_string(h, line));
        }
        pr_line(p, "printf(\"  scratch pool: %%lu bytes\\n\", (unsigned long)%s);", count);
    } else if (a->role == ROLE_DEBUG) {
        pr_line(p, "/* the debug channel: %s words, cursor 2, nothing dropped */", count);
    } else {
        const char *what = arena_printf(h->a, "  %s %s: ", role_text(a), a->name);
        const char *line = arena_printf(h->a, " x %s, sized %s%s%s\n", a->element, a->size.crisp,
                                        a->comment ? " -- " : "", a->comment ? a->comment : "");
        pr_line(p, "/* %s %s: %s elements%s%s */", role_text(a), name, comment_text(h, a->size.crisp),
                a->comment ? " -- " : "", a->comment ? comment_text(h, a->comment) : "");
        pr_line(p, "printf(\"%%s%%lu%%s\", %s, (unsigned long)%s, %s);", c_string(h, what), count, c_string(h, line));
    }
    pr_line(p, "%s_host = crisp_host_alloc(%s, %d, %s);", f, alloc, stride, c_string(h, a->name));
    pr_line(p, "if (!%s_host) {", f);
    pr_indent(p);
    pr_line(p, "err = CL_OUT_OF_HOST_MEMORY;");
    pr_line(p, "goto done;");
    pr_dedent(p);
    pr_line(p, "}");
    if (a->role == ROLE_DEBUG)
        pr_line(p, "crisp_debug_init((cl_uint *)%s_host, %s);", f, alloc);
    else if (demo_fills(a))
        pr_line(p, "crisp_fill_demo(%s_host, %s, %d, \"%s\");", f, alloc, stride, elem_name(a));
    else
        pr_line(p, "/* %s starts as zeros */", a->role == ROLE_SCRATCH ? "the pool" : name);
    pr_line(p, "err = crisp_mem_create(cx, &%s_mem, %s, %s * %d, %s_host, %s, %s);", f, mem_flags(a), alloc, stride,
            f, svm_flag(h), c_string(h, a->name));
    pr_line(p, "if (err != CL_SUCCESS) goto done;");
    pr_line(p, "args.%s = %s_mem%s;", f, f, h->o->unified_memory ? "" : ".mem");
}

static void emit_demo_kernel(Hc *h, const AbiKernel *k) {
    Printer *p = &h->pr;
    int dyn = is_dynamic(h, k);
    int sides = has_side_channels(k);
    pr_line(p, "/* ---- %s (%s) ---- */", k->name, comment_text(h, where(h, k)));
    pr_blank(p);
    pr_line(p, "static cl_int demo_%s(const CrispContext *cx%s)", k->name, dyn ? "" : ", cl_program program");
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "%s_args args;", k->name);
    pr_line(p, "CrispLaunch launch;");
    if (dyn) pr_line(p, "cl_program program = NULL;");
    pr_line(p, "cl_kernel kernel = NULL;");
    pr_line(p, "cl_int err = CL_SUCCESS;");
    pr_line(p, "// cl_event event = NULL; /* profiling: see after the enqueue */");
    for (int i = 0; i < k->nargs; i++)
        if (demo_reads_back(&k->args[i]) && is_struct(k->args[i].elem_ty)) {
            pr_line(p, "size_t i;");
            break;
        }
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if (!demo_allocates(a)) continue;
        const char *f = field(h, a);
        pr_line(p, "void *%s_host = NULL;", f);
        pr_line(p, "CrispMem %s_mem = CRISP_MEM_INIT;", f);
    }
    pr_blank(p);
    pr_line(p, "memset(&args, 0, sizeof args);");
    pr_line(p, "printf(\"%%s:\\n\", %s);", c_string(h, arena_printf(h->a, "%s (%s)", k->name, where(h, k))));
    if (dyn) {
        pr_line(p, "program = %s_build_program(cx->context, cx->device, &err);", k->name);
        pr_line(p, "if (!program) return err;");
    }
    pr_line(p, "kernel = clCreateKernel(program, \"%s\", &err);", k->name);
    pr_line(p, "if (err != CL_SUCCESS) {");
    pr_indent(p);
    pr_line(p, "crisp_fail(err, \"clCreateKernel(%s)\");", k->name);
    pr_line(p, "goto done;");
    pr_dedent(p);
    pr_line(p, "}");

    /* parameters: scalars, then every vector */
    int nscalar = 0;
    for (int i = 0; i < k->nargs; i++) nscalar += k->args[i].role == ROLE_SCALAR;
    if (nscalar) {
        pr_blank(p);
        pr_line(p, "/* scalar parameters: demo values */");
    }
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if (a->role != ROLE_SCALAR) continue;
        const char *v = scalar_is_float(a) ? "CRISP_DEMO_FLOAT" : "CRISP_DEMO_SCALAR";
        if (is_struct(a->elem_ty))
            pr_line(p, "/* %s: a %s, all zeros (memset above) */", comment_text(h, a->name), a->type);
        else if (scalar_lanes(a) > 1)
            for (int j = 0; j < scalar_lanes(a); j++)
                pr_line(p, "args.%s.s[%d] = (cl_%s)%s;", field(h, a), j, a->elem_ty ? ty_cname(ty_num(a->elem_ty->sc)) : "int", v);
        else
            pr_line(p, "args.%s = (%s)%s;", field(h, a), scalar_ctype(h, a), v);
    }
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if (a->role != ROLE_BUFFER) continue;
        const AbiArg *len = length_of(k, a);
        if (is_local(a)) {
            pr_blank(p);
            pr_line(p, "/* %s: %s: __local memory, only its size is passed */", comment_text(h, a->name), a->type);
            if (len) pr_line(p, "args.%s = %s;", field(h, len), demo_count(h, k, a));
            continue;
        }
        emit_demo_alloc(h, k, a);
    }

    /* sizes, then the side channels whose sizes depend on them */
    pr_blank(p);
    pr_line(p, "%s_launch_size(&args, &launch);", k->name);
    pr_line(p, "crisp_print_launch(stdout, \"  \", &launch);");
    if (sides) {
        pr_line(p, "%s_side_sizes(&args, &launch);", k->name);
        for (int i = 0; i < k->nargs; i++) {
            const AbiArg *a = &k->args[i];
            if (a->role >= ROLE_RESULT && demo_allocates(a)) emit_demo_alloc(h, k, a);
        }
    }

    pr_blank(p);
    pr_line(p, "err = %s_enqueue(cx->queue, kernel, &args, &launch, 0, NULL, NULL);", k->name);
    pr_line(p, "/* Profiling: open the queue with CL_QUEUE_PROFILING_ENABLE (see main), pass");
    pr_line(p, " * &event instead of the last NULL above, and after clFinish:");
    pr_line(p, " *");
    pr_line(p, " *     cl_ulong start = 0, end = 0;");
    pr_line(p, " *     clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);");
    pr_line(p, " *     clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);");
    pr_line(p, " *     printf(\"  kernel time %%.3f ms\\n\", (double)(end - start) * 1e-6);");
    pr_line(p, " *     clReleaseEvent(event);");
    pr_line(p, " */");
    pr_line(p, "if (err != CL_SUCCESS) goto done;");
    pr_line(p, "err = clFinish(cx->queue);");
    pr_line(p, "if (err != CL_SUCCESS) {");
    pr_indent(p);
    pr_line(p, "crisp_fail(err, \"clFinish after %s\");", k->name);
    pr_line(p, "goto done;");
    pr_dedent(p);
    pr_line(p, "}");

    /* copy back and summarise */
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if (!demo_reads_back(a)) continue;
        const char *f = field(h, a);
        const AbiArg *len = length_of(k, a);
        const char *count = len ? arena_printf(h->a, "args.%s", field(h, len)) : demo_count(h, k, a);
        const char *name = c_string(h, a->name);
        pr_blank(p);
        pr_line(p, "err = crisp_mem_read(cx, &%s_mem, %s_host, (size_t)%s * %d, %s);", f, f, count, stride_of(a),
                name);
        pr_line(p, "if (err != CL_SUCCESS) goto done;");
        if (a->role == ROLE_DEBUG) {
            pr_line(p, "printf(\"  debug log:\\n\");");
            pr_line(p, "crisp_debug_decode(stdout, (const cl_uint *)%s_host, (size_t)%s, crisp_debug_sites,", f, count);
            pr_line(p, "                   sizeof crisp_debug_sites / sizeof crisp_debug_sites[0] - 1);");
        } else if (is_struct(a->elem_ty)) {
            const char *sname = host_name(h, a->elem_ty->sd->cname);
            pr_line(p, "printf(\"  %%s: %%lu x %s:\", %s, (unsigned long)%s);", comment_text(h, a->element), name, count);
            pr_line(p, "for (i = 0; i < 2 && i < (size_t)%s; i++) {", count);
            pr_indent(p);
            pr_line(p, "fputs(\" \", stdout);");
            pr_line(p, "demo_print_%s(stdout, (const %s *)%s_host + i);", sname, sname, f);
            pr_dedent(p);
            pr_line(p, "}");
            pr_line(p, "printf(\"%%s\\n\", (size_t)%s > 2 ? \" ...\" : \"\");", count);
        } else {
            pr_line(p, "crisp_print_vector(stdout, %s, %s_host, (size_t)%s, %d, \"%s\");", name, f, count,
                    stride_of(a), elem_name(a));
        }
    }

    pr_blank(p);
    pr_dedent(p);
    pr_line(p, "done:");
    pr_indent(p);
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *a = &k->args[i];
        if (!demo_allocates(a)) continue;
        pr_line(p, "crisp_mem_release(&%s_mem);", field(h, a));
        pr_line(p, "free(%s_host);", field(h, a));
    }
    pr_line(p, "if (kernel) clReleaseKernel(kernel);");
    if (dyn) pr_line(p, "if (program) clReleaseProgram(program);");
    pr_line(p, "return err;");
    pr_dedent(p);
    pr_line(p, "}");
    pr_blank(p);
}

/* The site table of the debug channel: the metadata's "debug_sites",
 * generated from the same program so records and sites always agree. */
static void emit_debug_sites(Hc *h) {
    Printer *p = &h->pr;
    int nsites = h->abi->nsites;
    for (int i = 0; i < nsites; i++) {
        const DebugSite *s = h->abi->sites[i];
        if (!s->nparts) continue;
        pr_line(p, "static const CrispDebugPart crisp_debug_site%d_parts[] = {", i);
        pr_indent(p);
        for (int j = 0; j < s->nparts; j++) {
            const DebugPart *dp = &s->parts[j];
            if (dp->text) pr_line(p, "{%s, NULL, NULL},", c_string(h, dp->text));
            else pr_line(p, "{NULL, \"%s\", %s},", dp->ty ? ty_cname(dp->ty) : "int", c_string(h, dp->expr ? dp->expr : ""));
        }
        pr_dedent(p);
        pr_line(p, "};");
    }
    pr_blank(p);
    pr_line(p, "/* The debug channel's site table (the metadata's \"debug_sites\"): word 1 of");
    pr_line(p, " * a record indexes it.  The last entry only ends the table. */");
    pr_line(p, "static const CrispDebugSite crisp_debug_sites[] = {");
    pr_indent(p);
    for (int i = 0; i < nsites; i++) {
        const DebugSite *s = h->abi->sites[i];
        const char *parts = s->nparts ? arena_printf(h->a, "crisp_debug_site%d_parts", i) : "NULL";
        pr_line(p, "{%s, %d, \"%s\", %s, %d}, /* site %d */", c_string(h, s->file), s->line, s->kind, parts, s->nparts, i);
    }
    if (!nsites) pr_line(p, "/* (the program has no r-t-output or r-t-assert) */");
    pr_line(p, "{NULL, 0, NULL, NULL, 0}");
    pr_dedent(p);
    pr_line(p, "};");
    pr_blank(p);
}

static int any_debug(const Abi *abi) {
    for (int i = 0; i < abi->nkernels; i++)
        for (int j = 0; j < abi->kernels[i].nargs; j++)
            if (abi->kernels[i].args[j].role == ROLE_DEBUG) return 1;
    return 0;
}

static void emit_demo(Hc *h) {
    Printer *p = &h->pr;
    const Abi *abi = h->abi;
    int nfile = 0;
    for (int i = 0; i < abi->nkernels; i++) nfile += !is_dynamic(h, &abi->kernels[i]);
    pr_blank(p);
    pr_line(p, "/* ==========================================================================");
    pr_line(p, " * Demo: run every kernel on dummy data (compile with -DCRISP_NO_DEMO to leave");
    pr_line(p, " * it out and call the functions above from your own program).");
    pr_line(p, " * ========================================================================== */");
    pr_line(p, "#ifndef CRISP_NO_DEMO");
    pr_blank(p);
    pr_line(p, "/* Demo inputs: read-only, constant and implicit vectors hold 1 + (i + lane) %% 16,");
    pr_line(p, " * the others start as zeros; integer scalars are CRISP_DEMO_SCALAR, floating ones");
    pr_line(p, " * CRISP_DEMO_FLOAT.  Vectors have CRISP_DEMO_LENGTH elements (enough for a 2D size");
    pr_line(p, " * derived from two scalars, 32 x 32) and CRISP_DEMO_SLACK times that much memory");
    pr_line(p, " * behind them, so kernels that write several outputs per element (Out[4*i + k])");
    pr_line(p, " * stay inside the allocation. */");
    pr_line(p, "#ifndef CRISP_DEMO_LENGTH");
    pr_line(p, "#define CRISP_DEMO_LENGTH %d", h->demo_length);
    pr_line(p, "#endif");
    pr_line(p, "#ifndef CRISP_DEMO_SCALAR");
    pr_line(p, "#define CRISP_DEMO_SCALAR 32");
    pr_line(p, "#endif");
    pr_line(p, "#ifndef CRISP_DEMO_SLACK");
    pr_line(p, "#define CRISP_DEMO_SLACK 16 /* memory behind each __global vector, in lengths */");
    pr_line(p, "#endif");
    pr_line(p, "#ifndef CRISP_DEMO_FLOAT");
    pr_line(p, "#define CRISP_DEMO_FLOAT 1.5");
    pr_line(p, "#endif");
    pr_line(p, "#define CRISP_MEM_INIT {NULL, NULL, 0, NULL}");
    pr_blank(p);
    if (h->o->unified_memory) {
        pr_line(p, "/* --hoist-unified-memory: 1 when the device has SVM (set in main) */");
        pr_line(p, "static int demo_use_svm = 0;");
        pr_blank(p);
    }
    if (any_debug(abi)) emit_debug_sites(h);
    emit_struct_printers(h);
    for (int i = 0; i < abi->nkernels; i++) emit_demo_kernel(h, &abi->kernels[i]);

    pr_line(p, "int main(int argc, char **argv)");
    pr_line(p, "{");
    pr_indent(p);
    pr_line(p, "CrispContext cx;");
    if (nfile) {
        pr_line(p, "cl_program program = NULL;");
        pr_line(p, "char cl_path[4096];");
    }
    pr_line(p, "int failed = 0;");
    pr_line(p, "cl_int err;");
    pr_blank(p);
    if (!nfile) {
        pr_line(p, "(void)argc;");
        pr_line(p, "(void)argv;");
    }
    pr_line(p, "/* the device: CRISP_PLATFORM / CRISP_DEVICE choose it (crisp_runtime.h) */");
    pr_line(p, "err = crisp_open(&cx, 0);");
    pr_line(p, "// err = crisp_open(&cx, CL_QUEUE_PROFILING_ENABLE); /* profiling: time each kernel */");
    pr_line(p, "if (err != CL_SUCCESS) return 1;");
    pr_line(p, "printf(\"device: %%s (%%s; %%s)\\n\", cx.device_name, cx.platform_name, cx.device_version);");
    if (h->o->unified_memory) {
        pr_blank(p);
        pr_line(p, "/* --hoist-unified-memory: shared virtual memory where the device has it */");
        pr_line(p, "demo_use_svm = cx.has_svm;");
        pr_line(p, "if (demo_use_svm)");
        pr_line(p, "    printf(\"memory: shared virtual memory (coarse-grained SVM buffers)\\n\");");
        pr_line(p, "else");
        pr_line(p, "    printf(\"memory: %%s has no shared virtual memory (it needs OpenCL 2.0 and \"");
        pr_line(p, "           \"CL_DEVICE_SVM_COARSE_GRAIN_BUFFER); falling back to buffers\\n\", cx.device_name);");
    }
    if (nfile) {
        pr_blank(p);
        pr_line(p, "/* the program: %s.cl from the command line, the working directory", comment_text(h, h->o->base));
        pr_line(p, " * or the directory of this executable */");
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
        pr_line(p, "program = crisp_build_program_file(cx.context, cx.device, cl_path, NULL, &err);");
        pr_line(p, "if (!program) {");
        pr_indent(p);
        pr_line(p, "crisp_close(&cx);");
        pr_line(p, "return 1;");
        pr_dedent(p);
        pr_line(p, "}");
    }
    pr_blank(p);
    pr_line(p, "/* every kernel, in source order */");
    for (int i = 0; i < abi->nkernels; i++) {
        const AbiKernel *k = &abi->kernels[i];
        pr_line(p, "failed += demo_%s(&cx%s) != CL_SUCCESS;", k->name, is_dynamic(h, k) ? "" : ", program");
    }
    pr_blank(p);
    pr_line(p, "printf(\"%%d of %d kernels ran\\n\", %d - failed);", abi->nkernels, abi->nkernels);
    if (nfile) pr_line(p, "clReleaseProgram(program);");
    pr_line(p, "crisp_close(&cx);");
    pr_line(p, "return failed ? 1 : 0;");
    pr_dedent(p);
    pr_line(p, "}");
    pr_blank(p);
    pr_line(p, "#endif /* CRISP_NO_DEMO */");
}

/* ---- the file ---- */

/* Every demo vector can hold a size derived from scalars: with k scalars
 * in one global-size declaration the demo launches 32^k threads. */
static int demo_length_for(const Abi *abi) {
    int len = 1024;
    for (int i = 0; i < abi->nkernels; i++) {
        const AbiKernel *k = &abi->kernels[i];
        const SizeDecl *g = k->gsize;
        if (!g || !g->present) continue;
        int n = 1;
        for (int d = 0; d < g->nderive; d++) {
            const AbiArg *a = derive_arg(k, g, d);
            if (a && a->role == ROLE_SCALAR) n *= 32;
        }
        if (n > len) len = n;
    }
    return len;
}

static void emit_file_header(Hc *h) {
    Printer *p = &h->pr;
    const char *base = comment_text(h, h->o->base);
    pr_line(p, "/* %s_hoist_OpenCL.c - host code for %s.cl, generated by crisp %s", base, base, CRISP_VERSION);
    pr_line(p, " * from %s.  Edit the Crisp source, not this file.", comment_text(h, h->abi->source));
    pr_line(p, " *");
    pr_line(p, " * Needs: crisp_runtime.h (`crisp --emit-runtime=DIR` writes it), the Khronos");
    pr_line(p, " * OpenCL headers and an OpenCL ICD loader (-lOpenCL).  Plain C99, also C++.");
    pr_line(p, " *");
    pr_line(p, " *     cc -std=c99 -I. %s_hoist_OpenCL.c -lOpenCL -o %s_demo", base, base);
    pr_line(p, " *     ./%s_demo [%s.cl]", base, base);
    pr_line(p, " *");
    pr_line(p, " * The demo main() at the end runs every kernel on dummy data; CRISP_PLATFORM");
    pr_line(p, " * and CRISP_DEVICE (substrings of the names) choose the device.  Compile with");
    pr_line(p, " * -DCRISP_NO_DEMO to use the per-kernel functions from your own program:");
    pr_line(p, " * KERNEL_args holds every argument, KERNEL_launch_size the declared sizes,");
    if (h->o->unified_memory)
        pr_line(p, " * KERNEL_side_sizes the side-channel lengths, KERNEL_enqueue runs it.  Vectors are");
    else
        pr_line(p, " * KERNEL_side_sizes the side-channel lengths, KERNEL_enqueue runs it.");
    if (h->o->unified_memory) {
        pr_line(p, " * CrispMem handles (--hoist-unified-memory): .svm for shared virtual memory");
        pr_line(p, " * where the device has it, else .mem, a buffer.");
    }
    pr_line(p, " *");
    pr_line(p, " * Kernels:");
    for (int i = 0; i < h->abi->nkernels; i++) {
        const AbiKernel *k = &h->abi->kernels[i];
        pr_line(p, " *   %-24s %s%s", k->name, comment_text(h, where(h, k)), is_dynamic(h, k) ? " (built from embedded source)" : "");
    }
    if (h->abi->nkernels == 0) pr_line(p, " *   (none)");
    pr_line(p, " */");
    pr_line(p, "#define CRISP_BUILD_OPTIONS \"%s\" /* the .cl's OpenCL C (--ocl-version) */", h->abi->cl_std);
    pr_line(p, "#include \"crisp_runtime.h\"");
}

void emit_hoist_opencl(StrBuf *out, const Abi *abi, const HoistOptions *o, Arena *a) {
    Hc h;
    memset(&h, 0, sizeof h);
    pr_init(&h.pr, out);
    h.out = out;
    h.a = a;
    h.abi = abi;
    h.o = o;
    h.demo_length = demo_length_for(abi);
    for (int i = 0; i < abi->nkernels; i++)
        for (int j = 0; j < abi->kernels[i].nargs; j++) collect_struct(&h, abi->kernels[i].args[j].elem_ty);
    emit_file_header(&h);
    emit_structs(&h);
    for (int i = 0; i < abi->nkernels; i++) emit_kernel_api(&h, &abi->kernels[i]);
    emit_demo(&h);
}
