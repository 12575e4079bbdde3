/* hoist_py.c - BASE_hoist_PyOpenCL.py, the Python half of "Hoisting Code".
 *
 * Crisp kernels take more OpenCL arguments than their Crisp parameters
 * (lengths, side channels, the debug channel) and expect particular launch
 * sizes and layouts (std140).  Instead of leaving every user to redo that
 * by hand, this file prints, from the kernel ABI (emit-oclc/abi.h, the same
 * data as the .metacrisp), a Python module a careful person could have
 * written: load(context=None, queue=None) builds the program and returns an
 * object with one method per kernel, taking numpy arrays and Python numbers
 * in Crisp parameter order.  The shared machinery (device selection, dtype
 * checks, std140 packing, buffers, debug decoding) lives in
 * runtime-shim/crisp_runtime.py, which the module imports from beside
 * itself.  Running the module as a script runs a demo of every kernel.
 * The layout of the generated code is described in docs/hoisting-python.md. */
#include <ctype.h>
#include <string.h>

#include "../core/context.h"
#include "../core/printer.h"
#include "hoist.h"
#include "../emit-oclc/sizeprint.h"

#define DEMO_LENGTH 256     /* elements of every demo vector */
#define DEMO_INT "16"       /* demo value of integer scalars (16 x 16 = 256) */
#define DEMO_SLACK 16       /* other demo vectors are this many times longer */

/* ------------------------------------------------------------------ */
/* Python text                                                        */

static const char *const py_keywords[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
    "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
    "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
    "return", "try", "while", "with", "yield", NULL};

/* Names the generated methods use themselves. */
static const char *const py_taken[] = {
    "self", "rt", "kernel", "sizes", "global_size", "local_size", "np", "os", "sys", "math",
    "crisp_runtime", "int", NULL};

/* ... and the demo. */
static const char *const demo_taken[] = {
    "hoist", "n", "result", "line", "print", "load", "np", "crisp_runtime", "DEMO_SLACK", NULL};

static int in_list(const char *const *list, const char *s) {
    for (int i = 0; list[i]; i++)
        if (!strcmp(list[i], s)) return 1;
    return 0;
}

static const char *astr(const char *s) {
    return s ? s : "";
}

/* A Python string literal for S ("..." with escapes). */
static void py_quote(StrBuf *b, const char *s) {
    sb_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)astr(s); *p; p++) {
        if (*p == '"' || *p == '\\') sb_printf(b, "\\%c", *p);
        else if (*p == '\n') sb_puts(b, "\\n");
        else if (*p == '\t') sb_puts(b, "\\t");
        else if (*p < 32 || *p == 127) sb_printf(b, "\\x%02x", *p);
        else sb_putc(b, (char)*p);
    }
    sb_putc(b, '"');
}

static const char *quoted(Arena *a, const char *s) {
    StrBuf b;
    sb_init(&b);
    py_quote(&b, s);
    const char *r = b.oom ? "\"\"" : arena_strdup(a, sb_cstr(&b));
    sb_free(&b);
    return r ? r : "\"\"";
}

/* S on one line, for a comment or a docstring. */
static const char *one_line(Arena *a, const char *s) {
    char *r = arena_strdup(a, astr(s));
    if (!r) return "";
    for (char *p = r; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
        else if (*p == '"' && p[1] == '"' && p[2] == '"') *p = '\'';   /* no docstring end */
    return r;
}

/* docs/abi.md's identifier rule for a parameter name (image-data -> image_data). */
static const char *abi_mangle(Arena *a, const char *s) {
    char *r = arena_strdup(a, astr(s));
    if (!r) return "";
    for (char *p = r; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') *p = '_';
    return r;
}

/* ------------------------------------------------------------------ */
/* Identifiers of one generated method                                */

typedef struct Names {
    Arena *a;
    const char **v;
    int n, cap;
} Names;

static int names_has(const Names *ns, const char *s) {
    if (in_list(py_keywords, s) || in_list(py_taken, s)) return 1;
    for (int i = 0; i < ns->n; i++)
        if (!strcmp(ns->v[i], s)) return 1;
    return 0;
}

/* BASE, or BASE_ (BASE__ ...) when taken; recorded as taken. */
static const char *names_take(Names *ns, const char *base) {
    const char *s = base;
    while (names_has(ns, s)) {
        const char *t = arena_printf(ns->a, "%s_", s);
        if (!t) break;
        s = t;
    }
    if (ns->v && ns->n < ns->cap) ns->v[ns->n++] = s;
    return s;
}

typedef struct PyArg {
    const char *ident;  /* method parameter (Crisp parameters, implicit vectors) */
    const char *dev;    /* its DeviceVector local */
    const char *len;    /* its element count local (vectors) */
} PyArg;

typedef struct PyKernel {
    const AbiKernel *k;
    const char *method; /* the method name: the kernel's name */
    PyArg *pa;          /* parallel to k->args */
    Names names;
    int has_debug;
    int nresults;
    const char *scratch_bytes;
} PyKernel;

static int is_pointer(AbiRole r) {
    return r != ROLE_SCALAR && r != ROLE_LENGTH;
}

static int writeable(const AbiArg *a) {
    return a->acc != ACC_READ_ONLY && a->as != AS_CONSTANT && a->as != AS_LOCAL;
}

static void py_kernel_init(PyKernel *pk, const AbiKernel *k, Arena *a) {
    memset(pk, 0, sizeof *pk);
    pk->k = k;
    pk->method = in_list(py_keywords, k->name) ? arena_printf(a, "%s_", k->name) : k->name;
    pk->names.a = a;
    pk->names.cap = 4 * k->nargs + 16;
    pk->names.v = arena_alloc(a, sizeof(const char *) * (size_t)pk->names.cap);
    if (!pk->names.v) pk->names.cap = 0;
    pk->pa = arena_alloc(a, sizeof(PyArg) * (size_t)(k->nargs ? k->nargs : 1));
    if (!pk->pa) return;
    /* parameters first, so they keep their names */
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *x = &k->args[i];
        if (x->role == ROLE_SCALAR || x->role == ROLE_BUFFER || x->role == ROLE_IMPLICIT)
            pk->pa[i].ident = names_take(&pk->names, abi_mangle(a, x->cname ? x->cname : x->name));
    }
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *x = &k->args[i];
        if (!is_pointer(x->role)) continue;
        const char *base = pk->pa[i].ident ? pk->pa[i].ident : abi_mangle(a, x->cname ? x->cname : x->name);
        pk->pa[i].dev = names_take(&pk->names, arena_printf(a, "%s_dev", base));
        if (x->role == ROLE_SCRATCH) pk->pa[i].len = pk->scratch_bytes = names_take(&pk->names, "scratch_bytes");
        else pk->pa[i].len = names_take(&pk->names, arena_printf(a, "%s_len", base));
        if (x->role == ROLE_RESULT) pk->nresults++;
        if (x->role == ROLE_DEBUG) pk->has_debug = 1;
    }
}

/* The parameter called NAME (as written), or NULL. */
static const AbiArg *find_param(const AbiKernel *k, const char *name) {
    for (int i = 0; i < k->nargs; i++)
        if ((k->args[i].role == ROLE_SCALAR || k->args[i].role == ROLE_BUFFER) && !strcmp(k->args[i].name, name))
            return &k->args[i];
    return NULL;
}

/* What a size-expression input (docs/abi.md "Size expressions") is called
 * in the generated method. */
static const char *input_value(const PyKernel *pk, Arena *a, const char *in) {
    static const char *const launch[] = {
        "global_size0", "global_size1", "global_size2", "local_size0", "local_size1", "local_size2",
        "num_groups0", "num_groups1", "num_groups2", "global_linear_size", "local_linear_size", NULL};
    if (in_list(launch, in)) return arena_printf(a, "sizes.%s", in);
    const AbiKernel *k = pk->k;
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *x = &k->args[i];
        if (x->role == ROLE_LENGTH && x->measures >= 0 && x->measures < k->nargs &&
            (!strcmp(astr(x->cname), in) || !strcmp(arena_printf(a, "%s_len", abi_mangle(a, x->name)), in)))
            return pk->pa[x->measures].len;
        if (x->role == ROLE_SCALAR && (!strcmp(astr(x->cname), in) || !strcmp(abi_mangle(a, x->name), in)))
            return arena_printf(a, "int(%s)", pk->pa[i].ident);
    }
    return in;
}

typedef struct PyNames {
    const PyKernel *pk;
    Arena *a;
} PyNames;

static const char *py_input(void *ud, const SizeExpr *in) {
    PyNames *n = ud;
    const char *abi = abi_input_name((void *)n->pk->k, in);
    return input_value(n->pk, n->a, abi ? abi : size_input_default(n->a, in));
}

/* A size expression's Python text over the method's locals. */
static const char *size_expr(const PyKernel *pk, Arena *a, const AbiSize *z) {
    PyNames n = {pk, a};
    return size_py(a, z->expr, py_input, &n);
}

/* ------------------------------------------------------------------ */
/* Types                                                              */

/* numpy scalar type name for an OpenCL scalar name. */
static const char *np_scalar(const char *cl) {
    static const char *const map[][2] = {
        {"char", "int8"},     {"uchar", "uint8"},   {"short", "int16"},  {"ushort", "uint16"},
        {"int", "int32"},     {"uint", "uint32"},   {"long", "int64"},   {"ulong", "uint64"},
        {"half", "float16"},  {"float", "float32"}, {"double", "float64"}, {"bool", "uint8"},
        {"size_t", "uint64"}, {"void", "uint8"},    {NULL, NULL}};
    for (int i = 0; map[i][0]; i++)
        if (!strcmp(map[i][0], cl)) return map[i][1];
    return NULL;
}

/* The module constant holding a struct's numpy dtype: POINT_DTYPE. */
static const char *struct_dtype_name(Arena *a, const StructDef *sd) {
    char *r = arena_printf(a, "%s_DTYPE", abi_mangle(a, sd->cname));
    if (!r) return "STRUCT_DTYPE";
    for (char *q = r; *q; q++) *q = (char)toupper((unsigned char)*q);
    return r;
}

static const StructDef *struct_of(const Type *t) {
    return t && t->kind == TY_STRUCT ? t->sd : NULL;
}

/* numpy format of a struct field: np.float32, (np.float32, 3), POINT_DTYPE. */
static const char *field_format(Arena *a, const Type *t) {
    if (struct_of(t)) return struct_dtype_name(a, t->sd);
    if (t->kind == TY_HWVEC) return arena_printf(a, "(np.%s, %d)", np_scalar(ty_cname(ty_num(t->sc))), t->width);
    const char *np = np_scalar(ty_cname(t));
    return arena_printf(a, "np.%s", np ? np : "uint8");
}

/* numpy element dtype and lanes of a vector argument. */
static const char *elem_np(const AbiArg *x, int *lanes) {
    const Type *t = x->elem_ty;
    *lanes = 1;
    if (t && t->kind == TY_HWVEC) {
        *lanes = t->width;
        return np_scalar(ty_cname(ty_num(t->sc)));
    }
    const char *s = np_scalar(astr(x->element));
    return s ? s : "uint8";
}

/* "float32", "float32 (n, 4)" - how the host passes the elements. */
static const char *elem_desc(Arena *a, const AbiArg *x) {
    int lanes;
    const char *np = elem_np(x, &lanes);
    if (!strcmp(astr(x->element), "void")) return "any dtype, as bytes";
    if (struct_of(x->elem_ty)) return arena_printf(a, "numpy %s", struct_dtype_name(a, x->elem_ty->sd));
    if (lanes == 1) return arena_printf(a, "numpy %s", np);
    return arena_printf(a, "numpy %s, shape (n, %d)%s", np, lanes, lanes == 3 ? " or (n, 4)" : "");
}

/* The element arguments of the shim's buffer helpers; a struct element
 * also names its numpy dtype (the module's "Struct types"). */
static const char *elem_expr(Arena *a, const AbiArg *x) {
    if (struct_of(x->elem_ty))
        return arena_printf(a, "\"%s\", stride=%d, dtype=%s", astr(x->element), x->stride,
                            struct_dtype_name(a, x->elem_ty->sd));
    return arena_printf(a, "\"%s\", stride=%d", astr(x->element), x->stride);
}

static const char *vector_type_text(Arena *a, const AbiArg *x) {
    const char *s = arena_printf(a, "(vector-type %s :%s :%s :%s", astr(x->element), ty_as_name(x->as),
                                 ty_acc_name(x->acc), ty_align_name(x->align));
    if (x->fixed_length >= 0) s = arena_printf(a, "%s %lld", s, (long long)x->fixed_length);
    return arena_printf(a, "%s)", s);
}

/* (global-size :derive-from (width height) :msg "...") as written. */
static const char *size_decl_text(Arena *a, const char *what, const SizeDecl *sd) {
    const char *s = arena_printf(a, "(%s", what);
    if (sd->nset) {
        s = arena_printf(a, "%s :set-to %s", s, sd->nset > 1 ? "(" : "");
        for (int i = 0; i < sd->nset; i++) s = arena_printf(a, "%s%s%lld", s, i ? " " : "", (long long)sd->set_to[i]);
        if (sd->nset > 1) s = arena_printf(a, "%s)", s);
    }
    if (sd->nderive) {
        s = arena_printf(a, "%s :derive-from %s", s, sd->nderive > 1 ? "(" : "");
        for (int i = 0; i < sd->nderive; i++) s = arena_printf(a, "%s%s%s", s, i ? " " : "", sd->derive[i]);
        if (sd->nderive > 1) s = arena_printf(a, "%s)", s);
    }
    if (!sd->nset && !sd->nderive && sd->dims) s = arena_printf(a, "%s :dims %d", s, sd->dims);
    return arena_printf(a, "%s)", s);
}

/* "(A_len, int(width))" for a size declaration's values, or NULL. */
static const char *size_decl_value(const PyKernel *pk, Arena *a, const SizeDecl *sd) {
    if (!sd || !sd->present) return NULL;
    const char *s = "(";
    if (sd->nset) {
        for (int i = 0; i < sd->nset; i++) s = arena_printf(a, "%s%s%lld", s, i ? ", " : "", (long long)sd->set_to[i]);
    } else if (sd->nderive) {
        for (int i = 0; i < sd->nderive; i++) {
            const AbiArg *x = find_param(pk->k, sd->derive[i]);
            if (!x) return NULL;
            const char *v = x->role == ROLE_BUFFER ? pk->pa[x->index].len : arena_printf(a, "int(%s)", pk->pa[x->index].ident);
            s = arena_printf(a, "%s%s%s", s, i ? ", " : "", v);
        }
    } else {
        return NULL;
    }
    int n = sd->nset ? sd->nset : sd->nderive;
    return arena_printf(a, "%s%s)", s, n == 1 ? "," : "");
}

/* The first vector parameter (the default global size), or NULL. */
static const AbiArg *first_vector(const AbiKernel *k) {
    for (int i = 0; i < k->nargs; i++)
        if (k->args[i].role == ROLE_BUFFER && k->args[i].as != AS_LOCAL) return &k->args[i];
    return NULL;
}

/* Can the method find a global size without global_size=? */
static int has_default_global(const PyKernel *pk, Arena *a) {
    const AbiKernel *k = pk->k;
    return k->single_task || size_decl_value(pk, a, k->gsize) || first_vector(k);
}

static int global_dims(const AbiKernel *k) {
    if (k->gsize && k->gsize->dims) return k->gsize->dims;
    if (k->lsize && k->lsize->dims) return k->lsize->dims;
    return 1;
}

/* "examples/vector_add.crisp:8" (or "line 8" for several input files). */
static const char *where_defined(Arena *a, const Abi *abi, const AbiKernel *k) {
    const char *src = astr(abi->source);
    if (*src && !strchr(src, ' ')) return arena_printf(a, "%s:%d", src, k->line);
    return arena_printf(a, "line %d", k->line);
}

/* (def-kernel vector_add (A B &out C)) */
static const char *signature_text(Arena *a, const AbiKernel *k) {
    const char *s = arena_printf(a, "(%s %s (", k->exact ? "def-kernel-exact" : "def-kernel", k->name);
    int first = 1;
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *x = &k->args[i];
        if (x->role != ROLE_SCALAR && x->role != ROLE_BUFFER) continue;
        s = arena_printf(a, "%s%s%s%s", s, first ? "" : " ", x->is_out ? "&out " : "", x->name);
        first = 0;
    }
    return arena_printf(a, "%s) ...)", s);
}

/* ------------------------------------------------------------------ */
/* The module                                                         */

/* Two blank lines before a top-level definition (PEP 8). */
static void top_gap(Printer *p) {
    StrBuf *b = p->out;
    pr_blank(p);
    if (b->len >= 2 && b->data[b->len - 1] == '\n' && b->data[b->len - 2] == '\n' &&
        !(b->len >= 3 && b->data[b->len - 3] == '\n'))
        sb_putc(b, '\n');
}

static int is_dynamic(const HoistOptions *o, const char *name) {
    for (int i = 0; i < o->ndynamic; i++)
        if (!strcmp(o->dynamic[i], name)) return 1;
    return 0;
}


/* Does any size expression use the math module (math.ceil)? */
static int uses_math(const Abi *abi) {
    for (int ki = 0; ki < abi->nkernels; ki++) {
        const AbiKernel *k = &abi->kernels[ki];
        for (int i = 0; i < k->nargs; i++)
            if (size_py_uses_math(k->args[i].size.expr)) return 1;
    }
    return 0;
}

static void emit_header(Printer *p, const Abi *abi, const HoistOptions *o, Arena *a, int nstatic) {
    const char *base = o->base;
    pr_line(p, "\"\"\"%s_hoist_PyOpenCL.py - PyOpenCL host code for the kernels of %s.cl.", base, base);
    pr_blank(p);
    if (nstatic)
        pr_line(p, "Needs, beside this file: crisp_runtime.py (crisp --emit-runtime=DIR) and %s.cl.", base);
    else
        pr_line(p, "Needs, beside this file: crisp_runtime.py (crisp --emit-runtime=DIR).");
    pr_line(p, "Needs PyOpenCL and numpy (Debian: python3-pyopencl python3-numpy; or pip).");
    pr_line(p, "Generated by crisp %s from %s.", CRISP_VERSION, one_line(a, abi->source));
    pr_blank(p);
    pr_line(p, "    import %s_hoist_PyOpenCL as hoist", base);
    pr_line(p, "    k = hoist.load()                # or hoist.load(context, queue)");
    if (abi->nkernels) {
        const AbiKernel *k = &abi->kernels[0];
        const char *args = "";
        for (int i = 0; i < k->nargs; i++)
            if (k->args[i].role == ROLE_SCALAR || k->args[i].role == ROLE_BUFFER)
                args = arena_printf(a, "%s%s%s", astr(args), *astr(args) ? ", " : "", abi_mangle(a, k->args[i].cname));
        pr_line(p, "    k.%s(%s)", k->name, astr(args));
    }
    pr_blank(p);
    pr_line(p, "Each kernel is a method taking the Crisp parameters in order: numpy arrays");
    pr_line(p, "for vectors (writeable ones receive the kernel's results), Python numbers");
    pr_line(p, "for scalars, and global_size= / local_size= to override the declared");
    pr_line(p, "sizes.  Result vectors are returned.  Run this file for a demo.");
    pr_line(p, "\"\"\"");
    pr_blank(p);
    if (uses_math(abi)) pr_line(p, "import math");
    pr_line(p, "import os");
    pr_line(p, "import sys");
    pr_blank(p);
    pr_line(p, "import numpy as np");
    pr_blank(p);
    pr_line(p, "HERE = os.path.dirname(os.path.abspath(__file__))");
    pr_line(p, "if HERE not in sys.path:");
    pr_line(p, "    sys.path.insert(0, HERE)        # crisp_runtime.py sits beside this file");
    pr_line(p, "import crisp_runtime  # noqa: E402");
    pr_blank(p);
    pr_line(p, "crisp_runtime.require_abi(1)");
    pr_blank(p);
}

/* DEBUG_SITES: the --debug-output site table, as in the metadata's
 * "debug_sites" (docs/abi.md "Debug channel"); the shim decodes records
 * with it. */
static void emit_debug_sites(Printer *p, const Abi *abi, Arena *a) {
    if (!abi->debug_output) {
        pr_line(p, "DEBUG_SITES = []                    # compiled without --debug-output");
        return;
    }
    pr_line(p, "# --debug-output: the r-t-output / r-t-assert site of each record, by id");
    pr_line(p, "DEBUG_SITES = [");
    pr_indent(p);
    for (int i = 0; i < abi->nsites; i++) {
        const DebugSite *s = abi->sites[i];
        pr_line(p, "{\"id\": %d, \"file\": %s, \"line\": %d, \"kind\": \"%s\", \"parts\": [", i, quoted(a, s->file),
                s->line, astr(s->kind));
        for (int j = 0; j < s->nparts; j++) {
            const DebugPart *dp = &s->parts[j];
            if (dp->text)
                pr_line(p, "    {\"text\": %s},", quoted(a, dp->text));
            else
                pr_line(p, "    {\"type\": \"%s\", \"expr\": %s},", dp->ty ? ty_cname(dp->ty) : "int", quoted(a, dp->expr));
        }
        pr_line(p, "]},");
    }
    pr_dedent(p);
    pr_line(p, "]");
}

static void emit_cl_source(Printer *p, const HoistOptions *o) {
    pr_blank(p);
    pr_line(p, "# --hoist-dynamic: the kernels named in DYNAMIC_KERNELS are built at run");
    pr_line(p, "# time from this text (%s.cl as crisp wrote it).", o->base);
    StrBuf *b = p->out;
    sb_puts(b, "CL_SOURCE = \"\"\"\\\n");
    for (const unsigned char *s = (const unsigned char *)astr(o->cl_source); *s; s++) {
        if (*s == '\\' || *s == '"') sb_printf(b, "\\%c", *s);
        else if (*s == '\n' || *s == '\t' || (*s >= 32 && *s != 127)) sb_putc(b, (char)*s);
        else sb_printf(b, "\\x%02x", *s);
    }
    sb_puts(b, "\"\"\"\n");
}

/* Add SD and, first, the structs of its fields to LIST (no duplicates). */
static void collect_struct(const StructDef *sd, const StructDef **list, int *n, int cap) {
    for (int i = 0; i < *n; i++)
        if (list[i] == sd) return;
    for (int f = 0; f < sd->nfields; f++)
        if (struct_of(sd->fields[f].ty)) collect_struct(sd->fields[f].ty->sd, list, n, cap);
    if (*n < cap) list[(*n)++] = sd;
}

/* Struct types: one numpy structured dtype per def-struct (nested ones
 * first), with crisp's std140 offsets and size, so arrays of it have
 * exactly the kernels' memory layout. */
static void emit_structs(Printer *p, const Abi *abi, Arena *a) {
    int cap = abi->nstructs + 64, n = 0;
    const StructDef **list = arena_alloc(a, sizeof(StructDef *) * (size_t)cap);
    for (int i = 0; list && i < abi->nstructs; i++) collect_struct(abi->structs[i], list, &n, cap);
    for (int ki = 0; list && ki < abi->nkernels; ki++)
        for (int i = 0; i < abi->kernels[ki].nargs; i++)
            if (struct_of(abi->kernels[ki].args[i].elem_ty))
                collect_struct(abi->kernels[ki].args[i].elem_ty->sd, list, &n, cap);
    pr_blank(p);
    pr_line(p, "# Struct types: numpy structured dtypes with the kernels' (std140) layout of");
    pr_line(p, "# each def-struct; pass arrays of these (fields are named as in the C code).");
    if (!n) {
        pr_line(p, "# None are used here.");
        pr_line(p, "STRUCT_DTYPES = {}");
        return;
    }
    for (int i = 0; i < n; i++) {
        const StructDef *sd = list[i];
        const char *names = "", *formats = "", *offsets = "";
        for (int f = 0; f < sd->nfields; f++) {
            const Field *fd = &sd->fields[f];
            const char *sep = f ? ", " : "";
            names = arena_printf(a, "%s%s%s", astr(names), sep, quoted(a, fd->cname));
            formats = arena_printf(a, "%s%s%s", astr(formats), sep, field_format(a, fd->ty));
            offsets = arena_printf(a, "%s%s%d", astr(offsets), sep, fd->offset);
        }
        pr_line(p, "%s = np.dtype({  # (def-struct %s ...): %d bytes", struct_dtype_name(a, sd),
                one_line(a, sd->name), sd->size);
        pr_line(p, "    \"names\": [%s],", astr(names));
        pr_line(p, "    \"formats\": [%s],", astr(formats));
        pr_line(p, "    \"offsets\": [%s],", astr(offsets));
        pr_line(p, "    \"itemsize\": %d,", sd->size);
        pr_line(p, "})");
    }
    pr_line(p, "STRUCT_DTYPES = {");
    for (int i = 0; i < n; i++) pr_line(p, "    %s: %s,", quoted(a, list[i]->name), struct_dtype_name(a, list[i]));
    pr_line(p, "}");
}

static void emit_constants(Printer *p, const Abi *abi, const HoistOptions *o, Arena *a, int nstatic, int ndynamic) {
    if (nstatic) pr_line(p, "CL_FILE = os.path.join(HERE, %s)", quoted(a, arena_printf(a, "%s.cl", o->base)));
    pr_line(p, "BUILD_OPTIONS = \"%s\"   # the .cl's OpenCL C (--ocl-version)", abi->cl_std);
    pr_line(p, "UNIFIED_MEMORY = %s%s", o->unified_memory ? "True" : "False",
            o->unified_memory ? "               # --hoist-unified-memory: SVM where the device has it" : "");
    const char *dyn = "";
    for (int i = 0; i < abi->nkernels; i++)
        if (is_dynamic(o, abi->kernels[i].name))
            dyn = arena_printf(a, "%s%s\"%s\"", astr(dyn), *astr(dyn) ? ", " : "", abi->kernels[i].name);
    pr_line(p, "DYNAMIC_KERNELS = (%s%s)", astr(dyn), ndynamic == 1 ? "," : "");
    emit_debug_sites(p, abi, a);
    if (ndynamic) emit_cl_source(p, o);
    emit_structs(p, abi, a);
}

static void emit_load(Printer *p, const HoistOptions *o, int nstatic, int ndynamic) {
    top_gap(p);
    pr_line(p, "def load(context=None, queue=None):");
    pr_indent(p);
    pr_line(p, "\"\"\"Build the program and return a Kernels object (one method per kernel).");
    pr_blank(p);
    pr_line(p, "Without a context or queue crisp_runtime picks the device (environment");
    pr_line(p, "variables CRISP_PLATFORM / CRISP_DEVICE: substrings of the names).\"\"\"");
    pr_line(p, "runtime = crisp_runtime.Runtime(context, queue, unified_memory=UNIFIED_MEMORY)");
    pr_line(p, "program = %s", nstatic ? "runtime.build_file(CL_FILE, BUILD_OPTIONS)" : "None      # every kernel is built from CL_SOURCE");
    if (ndynamic) {
        pr_line(p, "dynamic_program = runtime.build_source(CL_SOURCE, BUILD_OPTIONS,");
        pr_line(p, "                                       name=\"CL_SOURCE of %s_hoist_PyOpenCL\")", o->base);
    }
    pr_line(p, "return Kernels(runtime, program%s)", ndynamic ? ", dynamic_program" : "");
    pr_dedent(p);
    pr_blank(p);
}

static void emit_class_head(Printer *p, const Abi *abi, const HoistOptions *o, int ndynamic) {
    top_gap(p);
    pr_line(p, "class Kernels:");
    pr_indent(p);
    pr_line(p, "\"\"\"The kernels of %s.cl, one method each (see load()).", o->base);
    pr_blank(p);
    pr_line(p, "runtime, context, queue, program: what they run on; last_sizes: the");
    pr_line(p, "crisp_runtime.LaunchSizes of the last call; debug_words: the size of the");
    pr_line(p, "debug channel (--debug-output) each call allocates.\"\"\"");
    pr_blank(p);
    pr_line(p, "def __init__(self, runtime, program%s):", ndynamic ? ", dynamic_program" : "");
    pr_indent(p);
    pr_line(p, "self.runtime = runtime");
    pr_line(p, "self.context = runtime.context");
    pr_line(p, "self.queue = runtime.queue");
    pr_line(p, "self.program = program");
    if (ndynamic) pr_line(p, "self.dynamic_program = dynamic_program");
    pr_line(p, "self.last_sizes = None");
    pr_line(p, "self.debug_words = crisp_runtime.DEBUG_WORDS");
    pr_line(p, "self._debug_lines = []");
    pr_line(p, "self._kernels = {");
    pr_indent(p);
    for (int i = 0; i < abi->nkernels; i++) {
        const char *n = abi->kernels[i].name;
        if (is_dynamic(o, n))
            pr_line(p, "\"%s\": crisp_runtime.create_kernel(dynamic_program, \"%s\"),", n, n);
        else
            pr_line(p, "\"%s\": crisp_runtime.create_kernel(program, \"%s\"),", n, n);
    }
    pr_dedent(p);
    pr_line(p, "}");
    pr_dedent(p);
    pr_blank(p);
    pr_line(p, "def debug_log(self):");
    pr_indent(p);
    pr_line(p, "\"\"\"The debug records (r-t-output, r-t-assert) of the calls since the last");
    pr_line(p, "debug_log(), as text lines \"FILE:LINE: [thread N] ...\".  Empty unless the");
    pr_line(p, "program was compiled with --debug-output.\"\"\"");
    pr_line(p, "lines, self._debug_lines = self._debug_lines, []");
    pr_line(p, "return lines");
    pr_dedent(p);
    pr_dedent(p);
}

/* ---- one method per kernel ---- */

static void emit_docstring(Printer *p, const Abi *abi, const PyKernel *pk, Arena *a) {
    const AbiKernel *k = pk->k;
    pr_line(p, "\"\"\"Run kernel %s (%s).", k->name, where_defined(a, abi, k));
    pr_blank(p);
    pr_line(p, "    %s", one_line(a, signature_text(a, k)));
    pr_blank(p);
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *x = &k->args[i];
        const char *id = pk->pa[i].ident;
        if (x->role == ROLE_SCALAR) {
            pr_line(p, "%s: %s scalar (a Python number%s)", id, astr(x->type),
                    x->elem_ty && x->elem_ty->kind == TY_HWVEC ? ", here a tuple" : "");
        } else if (x->role == ROLE_BUFFER && x->as == AS_LOCAL) {
            pr_line(p, "%s: %s: pass its element count", id, vector_type_text(a, x));
        } else if (x->role == ROLE_BUFFER) {
            pr_line(p, "%s: %s", id, vector_type_text(a, x));
            pr_line(p, "    %s%s", elem_desc(a, x), writeable(x) ? "; holds the kernel's writes after the call" : "");
        } else if (x->role == ROLE_IMPLICIT) {
            pr_line(p, "%s (keyword, optional): implicit vector of %s, %s elements", id, astr(x->element),
                    one_line(a, x->size.crisp));
            pr_line(p, "    (zero-filled when not given)%s%s", x->comment ? ": " : "", one_line(a, x->comment));
        }
    }
    if (k->single_task) {
        pr_line(p, "single-task: runs one work-item (unless global_size= says otherwise).");
    } else {
        if (k->gsize && k->gsize->present) pr_line(p, "global size: %s", one_line(a, size_decl_text(a, "global-size", k->gsize)));
        else pr_line(p, "global size: the length of the first vector unless global_size= is given");
        if (k->lsize && k->lsize->present) pr_line(p, "local size: %s", one_line(a, size_decl_text(a, "local-size", k->lsize)));
    }
    if (pk->nresults) {
        const char *names = "";
        for (int i = 0; i < k->nargs; i++)
            if (k->args[i].role == ROLE_RESULT)
                names = arena_printf(a, "%s%s%s", astr(names), *astr(names) ? ", " : "", k->args[i].name);
        pr_line(p, "Returns the result vector%s %s%s.", pk->nresults > 1 ? "s" : "", astr(names),
                pk->nresults > 1 ? " (a tuple)" : "");
    }
    pr_line(p, "\"\"\"");
}

/* Is the element count of vector parameter X used (a length argument, a
 * launch size, a size expression)? */
static int len_used(const PyKernel *pk, const AbiArg *x, Arena *a) {
    const AbiKernel *k = pk->k;
    if (x->index + 1 < k->nargs && k->args[x->index + 1].role == ROLE_LENGTH) return 1;
    if (first_vector(k) == x) return 1;
    const SizeDecl *decls[2] = {k->gsize, k->lsize};
    for (int d = 0; d < 2; d++)
        for (int i = 0; decls[d] && i < decls[d]->nderive; i++)
            if (!strcmp(decls[d]->derive[i], x->name)) return 1;
    for (int i = 0; i < k->nargs; i++)
    {
        const SizeExpr **ins = NULL;
        int nins = 0, cap = 0;
        sz_collect_inputs(a, k->args[i].size.expr, &ins, &nins, &cap);
        for (int j = 0; j < nins; j++) {
            const char *abi = abi_input_name((void *)k, ins[j]);
            if (input_value(pk, a, abi ? abi : size_input_default(a, ins[j])) == pk->pa[x->index].len) return 1;
        }
    }
    return 0;
}

static void emit_param(Printer *p, const PyKernel *pk, const AbiArg *x, Arena *a) {
    const PyArg *pa = &pk->pa[x->index];
    const char *kn = pk->k->name;
    if (x->role == ROLE_SCALAR) {
        pr_line(p, "# %s: %s", x->name, astr(x->type));
        if (struct_of(x->elem_ty))
            pr_line(p, "%s = crisp_runtime.scalar(\"kernel %s: argument %s\", \"%s\", %s, dtype=%s)", pa->ident, kn,
                    x->name, astr(x->type), pa->ident, struct_dtype_name(a, x->elem_ty->sd));
        else
            pr_line(p, "%s = crisp_runtime.scalar(\"kernel %s: argument %s\", \"%s\", %s)", pa->ident, kn, x->name,
                    astr(x->type), pa->ident);
        return;
    }
    pr_line(p, "# %s: %s%s", x->name, vector_type_text(a, x), x->is_out ? " &out" : "");
    if (x->as == AS_LOCAL) {
        pr_line(p, "%s = rt.local_vector(\"%s\", \"%s\", %s, %s)", pa->dev, kn, x->name, pa->ident, elem_expr(a, x));
    } else {
        const char *extra = "";
        if (x->as == AS_CONSTANT) extra = ", address_space=\"constant\"";
        if (x->fixed_length >= 0) extra = arena_printf(a, "%s, min_length=%lld", extra, (long long)x->fixed_length);
        const char *head = arena_printf(a, "%s = rt.vector(", pa->dev);
        pr_line(p, "%s\"%s\", \"%s\", %s, %s,", head, kn, x->name, pa->ident, elem_expr(a, x));
        pr_line(p, "%*saccess=\"%s\"%s)", (int)strlen(astr(head)), "", ty_acc_name(x->acc), astr(extra));
    }
    if (len_used(pk, x, a)) pr_line(p, "%s = %s.length", pa->len, pa->dev);
}

static void emit_sizes(Printer *p, const PyKernel *pk, Arena *a) {
    const AbiKernel *k = pk->k;
    const char *kn = k->name;
    if (k->single_task) {
        pr_line(p, "if global_size is None:");
        pr_line(p, "    global_size = (1,)              # single-task: one work-item");
        pr_line(p, "sizes = crisp_runtime.launch_sizes(\"%s\", global_size, local_size)", kn);
        return;
    }
    const char *lv = size_decl_value(pk, a, k->lsize);
    if (lv) {
        pr_line(p, "if local_size is None:");
        pr_indent(p);
        pr_line(p, "# %s", one_line(a, size_decl_text(a, "local-size", k->lsize)));
        if (k->lsize->msg) pr_line(p, "# %s", one_line(a, k->lsize->msg));
        pr_line(p, "local_size = %s", lv);
        pr_dedent(p);
    }
    const char *gv = size_decl_value(pk, a, k->gsize);
    int dims = global_dims(k);
    pr_line(p, "if global_size is None:");
    pr_indent(p);
    if (gv) {
        pr_line(p, "# %s", one_line(a, size_decl_text(a, "global-size", k->gsize)));
        if (k->gsize->msg) pr_line(p, "# %s", one_line(a, k->gsize->msg));
        pr_line(p, "global_size = %s", gv);
    } else if (first_vector(k)) {
        const AbiArg *v = first_vector(k);
        if (k->gsize && k->gsize->present) pr_line(p, "# %s: no values declared", one_line(a, size_decl_text(a, "global-size", k->gsize)));
        pr_line(p, "# one work-item per element of %s (rounded up to the local size)", v->name);
        const char *t = arena_printf(a, "(%s,", pk->pa[v->index].len);
        for (int d = 1; d < dims; d++) t = arena_printf(a, "%s 1,", t);
        if (dims > 1) t = arena_printf(a, "%.*s", (int)strlen(t) - 1, t);
        pr_line(p, "global_size = %s)", t);
    } else {
        pr_line(p, "raise TypeError(\"kernel %s: no global-size declaration and no vector argument: \"", kn);
        pr_line(p, "                \"pass global_size=\")");
    }
    pr_dedent(p);
    if (k->gsize && k->gsize->present && k->gsize->dims)
        pr_line(p, "sizes = crisp_runtime.launch_sizes(\"%s\", global_size, local_size, dims=%d)", kn, k->gsize->dims);
    else
        pr_line(p, "sizes = crisp_runtime.launch_sizes(\"%s\", global_size, local_size)", kn);
}

static void emit_side_channel(Printer *p, const PyKernel *pk, const AbiArg *x, Arena *a) {
    const PyArg *pa = &pk->pa[x->index];
    const char *kn = pk->k->name;
    if (x->role == ROLE_RESULT || x->role == ROLE_IMPLICIT) {
        pr_line(p, "# %s vector %s: %s elements of %s", x->role == ROLE_RESULT ? "result" : "implicit", x->name,
                one_line(a, x->size.crisp), astr(x->element));
        if (x->comment) pr_line(p, "#   %s", one_line(a, x->comment));
        pr_line(p, "%s = %s", pa->len, size_expr(pk, a, &x->size));
        if (x->role == ROLE_RESULT) {
            pr_line(p, "%s = rt.allocate(\"%s\", \"%s\", %s, %s)", pa->dev, kn, x->name, pa->len, elem_expr(a, x));
            return;
        }
        pr_line(p, "if %s is None:", pa->ident);
        pr_line(p, "    %s = rt.allocate(\"%s\", \"%s\", %s, %s)", pa->dev, kn, x->name, pa->len, elem_expr(a, x));
        pr_line(p, "else:");
        const char *head = arena_printf(a, "%s = rt.vector(", pa->dev);
        pr_line(p, "    %s\"%s\", \"%s\", %s, %s,", head, kn, x->name, pa->ident, elem_expr(a, x));
        pr_line(p, "    %*smin_length=%s)", (int)strlen(astr(head)), "", pa->len);
        return;
    }
    if (x->role == ROLE_SCRATCH) {
        const AbiKernel *k = pk->k;
        pr_line(p, "# the scratch pool: every make-scratch-vector, each at a 16-byte aligned offset");
        for (int i = 0; i < k->nscratch; i++) {
            const AbiScratchPart *sp = &k->scratch[i];
            pr_line(p, "#   %s: %s elements of %s (%d bytes each)", sp->name, one_line(a, sp->count.crisp),
                    astr(sp->element), sp->stride);
            if (sp->comment) pr_line(p, "#       %s", one_line(a, sp->comment));
        }
        pr_line(p, "%s = %s", pa->len, size_expr(pk, a, &x->size));
        pr_line(p, "%s = rt.allocate(\"%s\", \"scratch\", %s, \"uchar\")", pa->dev, kn, pa->len);
        return;
    }
    if (x->role == ROLE_LOCAL) {
        pr_line(p, "# workgroup scratch %s: %s elements of %s (__local: only a size)", x->name, one_line(a, x->size.crisp),
                astr(x->element));
        if (x->comment) pr_line(p, "#   %s", one_line(a, x->comment));
        pr_line(p, "%s = %s", pa->len, size_expr(pk, a, &x->size));
        pr_line(p, "%s = rt.local_vector(\"%s\", \"%s\", %s, %s)", pa->dev, kn, x->name, pa->len, elem_expr(a, x));
        return;
    }
    if (x->role == ROLE_DEBUG) {
        pr_line(p, "# --debug-output: the debug channel (r-t-output and r-t-assert records)");
        pr_line(p, "%s = rt.debug_channel(self.debug_words)", pa->dev);
        pr_line(p, "%s = %s.length", pa->len, pa->dev);
    }
}

static const char *arg_value(const PyKernel *pk, const AbiArg *x, Arena *a) {
    const PyArg *pa = &pk->pa[x->index];
    if (x->role == ROLE_SCALAR) return pa->ident;
    if (x->role == ROLE_LENGTH) {
        int m = x->measures >= 0 && x->measures < pk->k->nargs ? x->measures : x->index - 1;
        return arena_printf(a, "np.uint64(%s)", astr(pk->pa[m].len));
    }
    return arena_printf(a, "%s.arg", pa->dev);
}

/* "def NAME(PARAMS):", wrapped after commas (aligned with the parenthesis)
 * when longer than 99 columns. */
static void emit_def(Printer *p, const char *name, const char *params, Arena *a) {
    int col = 4 * p->indent;
    int open = col + (int)strlen("def (") + (int)strlen(name);
    if (open + (int)strlen(params) + 2 <= 99) {
        pr_line(p, "def %s(%s):", name, params);
        return;
    }
    const char *line = arena_printf(a, "def %s(", name);
    int width = open;
    for (const char *s = params; s && *s;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s + 1) : strlen(s);
        if (width + (int)n + 2 > 99 && width > open) {
            pr_line(p, "%s", astr(line));
            line = arena_printf(a, "%*s", open - col, "");
            width = open;
            while (*s == ' ') s++, n--;
        }
        line = arena_printf(a, "%s%.*s", astr(line), (int)n, s);
        width += (int)n;
        s += n;
    }
    pr_line(p, "%s):", astr(line));
}

static void emit_method(Printer *p, const Abi *abi, const PyKernel *pk, Arena *a) {
    const AbiKernel *k = pk->k;
    const char *params = "self";
    for (int i = 0; i < k->nargs; i++)
        if (k->args[i].role == ROLE_SCALAR || k->args[i].role == ROLE_BUFFER)
            params = arena_printf(a, "%s, %s", params, pk->pa[i].ident);
    const char *kw = "";
    for (int i = 0; i < k->nargs; i++)
        if (k->args[i].role == ROLE_IMPLICIT) kw = arena_printf(a, "%s, %s=None", kw, pk->pa[i].ident);
    kw = arena_printf(a, "%s, global_size=None, local_size=None", kw);
    pr_blank(p);
    emit_def(p, pk->method, arena_printf(a, "%s, *%s", params, kw), a);
    pr_indent(p);
    emit_docstring(p, abi, pk, a);
    pr_line(p, "rt = self.runtime");
    pr_line(p, "kernel = self._kernels[\"%s\"]", k->name);
    pr_blank(p);
    for (int i = 0; i < k->nargs; i++)
        if (k->args[i].role == ROLE_SCALAR || k->args[i].role == ROLE_BUFFER) emit_param(p, pk, &k->args[i], a);
    pr_blank(p);
    emit_sizes(p, pk, a);
    pr_line(p, "self.last_sizes = sizes");
    pr_blank(p);
    int sides = 0;
    for (int i = 0; i < k->nargs; i++)
        if (k->args[i].role != ROLE_SCALAR && k->args[i].role != ROLE_BUFFER && k->args[i].role != ROLE_LENGTH) {
            emit_side_channel(p, pk, &k->args[i], a);
            sides = 1;
        }
    if (sides) pr_blank(p);
    pr_line(p, "# the OpenCL arguments");
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *x = &k->args[i];
        const char *name = x->role == ROLE_LENGTH ? astr(x->cname) : x->name;
        pr_line(p, "rt.set_arg(kernel, %d, %s, %s)  # %s %s", i, quoted(a, name), arg_value(pk, x, a), astr(x->type),
                astr(x->cname));
    }
    pr_line(p, "rt.launch(kernel, sizes)");
    pr_blank(p);
    int reads = 0;
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *x = &k->args[i];
        const PyArg *pa = &pk->pa[i];
        if (x->role == ROLE_BUFFER && writeable(x)) {
            if (!reads++) pr_line(p, "# copy the kernel's writes back into the caller's arrays");
            pr_line(p, "%s.read_back()", pa->dev);
        } else if (x->role == ROLE_IMPLICIT && writeable(x)) {
            if (!reads++) pr_line(p, "# copy the kernel's writes back into the caller's arrays");
            pr_line(p, "if %s is not None:", pa->ident);
            pr_line(p, "    %s.read_back()", pa->dev);
        } else if (x->role == ROLE_DEBUG) {
            pr_line(p, "self._debug_lines += crisp_runtime.decode_debug(%s.read_back(), DEBUG_SITES)", pa->dev);
        }
    }
    if (pk->nresults == 1) {
        for (int i = 0; i < k->nargs; i++)
            if (k->args[i].role == ROLE_RESULT) pr_line(p, "return %s.read_back()", pk->pa[i].dev);
    } else if (pk->nresults > 1) {
        pr_line(p, "return (");
        for (int i = 0; i < k->nargs; i++)
            if (k->args[i].role == ROLE_RESULT) pr_line(p, "    %s.read_back(),", pk->pa[i].dev);
        pr_line(p, ")");
    }
    pr_dedent(p);
    if (pk->method != k->name) {
        /* a kernel named like a Python keyword: reachable by getattr */
        pr_blank(p);
        pr_line(p, "locals()[\"%s\"] = %s", k->name, pk->method);
    }
}

/* ---- the demo ---- */

static const char *demo_scalar(const AbiArg *x, Arena *a) {
    const Type *t = x->elem_ty;
    if (struct_of(t)) return arena_printf(a, "np.zeros((), %s)", struct_dtype_name(a, t->sd));
    if (t && t->kind == TY_HWVEC) {
        const char *one = ty_is_floatlike(t) ? "1.0" : "1";
        const char *s = "(";
        for (int i = 0; i < t->width; i++) s = arena_printf(a, "%s%s%s", s, i ? ", " : "", one);
        return arena_printf(a, "%s)", s);
    }
    if (t && ty_is_float(t)) return "1.5";
    if (t && t->kind == TY_BOOL) return "1";
    return DEMO_INT;
}

/* Does the global size come from vector X (derive-from, or the default:
 * the first vector)?  Such a vector gets the demo length n; every other
 * vector gets DEMO_SLACK * n elements, because kernels are not bounds
 * checked and often write several elements per work-item. */
static int sizes_launch(const PyKernel *pk, const AbiArg *x) {
    const AbiKernel *k = pk->k;
    if (k->gsize && k->gsize->nset) return 0;
    if (k->gsize && k->gsize->nderive) {
        for (int i = 0; i < k->gsize->nderive; i++)
            if (!strcmp(k->gsize->derive[i], x->name)) return 1;
        return 0;
    }
    return first_vector(k) == x;
}

/* Dummy data for a vector: 1..7 repeating for inputs, zeros for outputs. */
static const char *demo_vector(const PyKernel *pk, const AbiArg *x, Arena *a) {
    int lanes;
    const char *np = elem_np(x, &lanes);
    const char *n = x->fixed_length >= 0                         ? arena_printf(a, "%lld", (long long)x->fixed_length)
                    : sizes_launch(pk, x) || x->as == AS_CONSTANT ? "n"
                                                                  : "DEMO_SLACK * n";
    if (struct_of(x->elem_ty)) return arena_printf(a, "np.zeros(%s, %s)", n, struct_dtype_name(a, x->elem_ty->sd));
    if (x->acc == ACC_READ_ONLY) {
        if (lanes == 1) return arena_printf(a, "(np.arange(%s) %% 7 + 1).astype(np.%s)", n, np);
        return arena_printf(a, "(np.arange(%s * %d) %% 7 + 1).astype(np.%s).reshape(-1, %d)", n, lanes, np, lanes);
    }
    if (lanes == 1) return arena_printf(a, "np.zeros(%s, np.%s)", n, np);
    return arena_printf(a, "np.zeros((%s, %d), np.%s)", n, lanes, np);
}

static void emit_demo(Printer *p, const Abi *abi, const HoistOptions *o, PyKernel *pks, Arena *a) {
    top_gap(p);
    pr_line(p, "DEMO_SLACK = %d", DEMO_SLACK);
    top_gap(p);
    pr_line(p, "def demo(n=%d):", DEMO_LENGTH);
    pr_indent(p);
    pr_line(p, "\"\"\"Run every kernel once with dummy data and print a short summary.");
    pr_blank(p);
    pr_line(p, "Inputs hold 1..7 repeating, outputs zeros, integer scalars %s.  The", DEMO_INT);
    pr_line(p, "vector the global size comes from has N elements, the others");
    pr_line(p, "DEMO_SLACK * N: kernels may write several elements per work-item.\"\"\"");
    pr_line(p, "hoist = load()");
    pr_line(p, "print(\"%s.cl on %%s\" %% crisp_runtime.describe_device(hoist.queue.device))", o->base);
    for (int ki = 0; ki < abi->nkernels; ki++) {
        const PyKernel *pk = &pks[ki];
        const AbiKernel *k = pk->k;
        pr_blank(p);
        pr_line(p, "# %s", one_line(a, signature_text(a, k)));
        const char *call = "";
        const char *show = NULL;
        for (int i = 0; i < k->nargs; i++) {
            const AbiArg *x = &k->args[i];
            const char *id = pk->pa[i].ident;
            if (id && in_list(demo_taken, id)) id = arena_printf(a, "%s_", id);
            if (x->role == ROLE_SCALAR) {
                pr_line(p, "%s = %s", id, demo_scalar(x, a));
            } else if (x->role == ROLE_BUFFER && x->as == AS_LOCAL) {
                long long count = 64;
                if (k->lsize && k->lsize->nset) {
                    long long prod = 1;
                    for (int d = 0; d < k->lsize->nset; d++) prod *= (long long)k->lsize->set_to[d];
                    if (prod > count) count = prod;
                }
                pr_line(p, "%s = %lld                   # __local: an element count", id, count);
            } else if (x->role == ROLE_BUFFER) {
                pr_line(p, "%s = %s", id, demo_vector(pk, x, a));
                if (!show && writeable(x)) show = id;
            } else {
                continue;
            }
            call = arena_printf(a, "%s%s%s", astr(call), *astr(call) ? ", " : "", id);
        }
        if (!has_default_global(pk, a)) {
            const char *g = "(n,";
            for (int d = 1; d < global_dims(k); d++) g = arena_printf(a, "%s 1,", g);
            call = arena_printf(a, "%s%sglobal_size=%s)", astr(call), *astr(call) ? ", " : "", g);
        }
        if (pk->nresults) {
            pr_line(p, "result = hoist.%s(%s)", pk->method, astr(call));
            show = pk->nresults > 1 ? "result[0]" : "result";
        } else {
            pr_line(p, "hoist.%s(%s)", pk->method, astr(call));
        }
        if (show)
            pr_line(p, "print(\"%s:\", hoist.last_sizes, \"- %s =\", crisp_runtime.preview(%s))", k->name, show, show);
        else
            pr_line(p, "print(\"%s:\", hoist.last_sizes)", k->name);
        if (abi->debug_output) {
            pr_line(p, "for line in hoist.debug_log()[:4]:");
            pr_line(p, "    print(\"    \" + line)");
        }
    }
    pr_line(p, "print(\"%d kernel%s ran\")", abi->nkernels, abi->nkernels == 1 ? "" : "s");
    pr_line(p, "return 0");
    pr_dedent(p);
    top_gap(p);
    pr_line(p, "if __name__ == \"__main__\":");
    pr_line(p, "    sys.exit(demo())");
}

void emit_hoist_pyopencl(StrBuf *out, const Abi *abi, const HoistOptions *o, Arena *a) {
    Printer pr;
    pr_init(&pr, out);
    int ndynamic = 0;
    for (int i = 0; i < abi->nkernels; i++) ndynamic += is_dynamic(o, abi->kernels[i].name);
    int nstatic = abi->nkernels - ndynamic;
    PyKernel *pks = arena_alloc(a, sizeof(PyKernel) * (size_t)(abi->nkernels ? abi->nkernels : 1));
    if (!pks) return;
    for (int i = 0; i < abi->nkernels; i++) py_kernel_init(&pks[i], &abi->kernels[i], a);
    for (int i = 0; i < abi->nkernels; i++)
        if (!pks[i].pa) return;
    emit_header(&pr, abi, o, a, nstatic || !abi->nkernels);
    emit_constants(&pr, abi, o, a, nstatic || !abi->nkernels, ndynamic);
    emit_load(&pr, o, nstatic || !abi->nkernels, ndynamic);
    emit_class_head(&pr, abi, o, ndynamic);
    pr_indent(&pr);
    for (int i = 0; i < abi->nkernels; i++) emit_method(&pr, abi, &pks[i], a);
    pr_dedent(&pr);
    emit_demo(&pr, abi, o, pks, a);
}
