/* hoist_py.c - BASE_hoist_PyOpenCL.py, the Python half of "Hoisting Code".
 *
 * Crisp kernels take more OpenCL arguments than their Crisp parameters
 * (lengths, side channels, the debug channel), expect particular launch
 * sizes and layouts (std140), and touch a known number of elements of each
 * vector.  This file prints, from the host plan of each kernel (plan.h), a
 * Python module a careful PyOpenCL programmer could have written:
 * load(context=None, queue=None) builds the program and returns an object
 * with one method per kernel, taking its Crisp parameters in order and
 * following PyOpenCL's conventions (queue=, wait_for=, the cl.Event
 * returned).  Vectors may be numpy arrays (copied in, and back when the
 * kernel may write them; the call waits) or device memory used in place
 * (pyopencl.array.Array, cl.Buffer, SVM; the call does not wait).  Every
 * call checks dtypes, contexts and lengths before the kernel runs.
 *
 * The per-call work is straight-line code in the method; what is shared
 * (dtype checks, buffers, copies, debug decoding) is in
 * runtime-shim/crisp_runtime.py, which crisp writes beside the module and
 * which the module loads without touching sys.path.  Running the module
 * as a script runs a demo of every kernel.  docs/hoisting-python.md
 * describes the output for users.
 *
 * The same printer writes BASE_hoist_PyCUDA.py (o->cuda): the same class and
 * methods over runtime-shim/crisp_runtime_cuda.py, which loads the PTX (or
 * the cubin for the device) with the CUDA driver API instead of building
 * the .cl; only the header, the loading and some words differ
 * (docs/hoisting-cuda.md). */
#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "../core/context.h"
#include "../core/printer.h"
#include "../emit-oclc/ctext.h"
#include "../emit-oclc/sizeprint.h"
#include "hoist.h"
#include "plan.h"

#define DEMO_LENGTH 256     /* elements of every demo vector */
#define DEMO_INT "16"       /* demo value of integer scalars (16 x 16 = 256) */
#define DEMO_SLACK 16       /* other demo vectors are this many times longer */
#define PY_ABI 2            /* crisp_runtime.ABI_VERSION the module needs */

/* ------------------------------------------------------------------ */
/* Python text                                                        */

static const char *const py_keywords[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
    "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
    "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
    "return", "try", "while", "with", "yield", NULL};

/* Names the generated methods use themselves. */
static const char *const py_taken[] = {
    "self", "rt", "q", "copies", "events", "written", "results", "dev", "ev", "gs", "ls", "lz", "args", "need", "given",
    "queue", "wait_for", "global_size", "local_size", "np", "os", "sys", "math", "cl",
    "crisp_runtime", "int", "len", "type", "tuple", "local_bytes", NULL};

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
        else if (*p == '\\') *p = '/';                                   /* no escapes in docstrings */
    return r;
}

/* One line of Python code (printf FMT), wrapped inside the parentheses of
 * its first call (or of the list or tuple that is its only argument) at
 * top-level commas, or before top-level " + ", when it passes 99 columns -
 * Python's implicit line continuation; continuation lines align after the
 * opening bracket. */
static void py_line(Printer *p, Arena *a, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void py_line(Printer *p, Arena *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *line = arena_vprintf(a, fmt, ap);
    va_end(ap);
    if (!line) return;
    int col = 4 * p->indent;
    const char *open = strpbrk(line, "([");
    if (col + (int)strlen(line) <= 99 || !open) {
        pr_line(p, "%s", line);
        return;
    }
    int level = 1;
    if (open[1] == '[' || open[1] == '(') open++, level = 2;
    int align = (int)(open - line) + 1, depth = 0, quote = 0;
    const char *start = line;   /* of the piece not printed yet */
    const char *cut = NULL;     /* the last place it may break: after a comma, before a " + " */
    int lead = 0;               /* columns before START on its line */
    for (const char *c = line; *c; c++) {
        if (quote) {
            if (*c == '\\' && c[1]) c++;
            else if (*c == quote) quote = 0;
            continue;
        }
        if (*c == '"' || *c == '\'') quote = *c;
        else if (*c == '(' || *c == '[' || *c == '{') depth++;
        else if (*c == ')' || *c == ']' || *c == '}') depth--;
        int here = depth == level && c > open && ((*c == ',' && c[1] == ' ') || (*c == ' ' && c[1] == '+' && c[2] == ' '));
        if (!here) continue;
        if (col + lead + (int)(c - start) + 1 > 99 && cut) {
            pr_line(p, "%*s%.*s", lead, "", (int)(cut - start), start);
            start = cut;
            while (*start == ' ') start++;
            lead = align;
        }
        cut = *c == ',' ? c + 1 : c;
    }
    if (col + lead + (int)strlen(start) > 99 && cut && cut > start) {
        pr_line(p, "%*s%.*s", lead, "", (int)(cut - start), start);
        start = cut;
        while (*start == ' ') start++;
        lead = align;
    }
    pr_line(p, "%*s%s", lead, "", start);
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

/* The Python names of one parameter or side channel. */
typedef struct PyArg {
    const char *ident;  /* method parameter (Crisp parameters, implicit vectors) */
    const char *mem;    /* its device memory local */
    const char *len;    /* its element count local (vectors) */
} PyArg;

typedef struct PyKernel {
    const HostKernel *hk;
    const AbiKernel *k;
    const char *method;     /* the method name: the kernel's name */
    const char *attr;       /* self.ATTR holds its cl.Kernel */
    PyArg *pa;              /* parallel to k->args */
    Names names;
    Arena *a;
    int cuda;               /* BASE_hoist_PyCUDA.py */
} PyKernel;

static void py_kernel_init(PyKernel *pk, const HostKernel *hk, Arena *a) {
    const AbiKernel *k = hk->k;
    memset(pk, 0, sizeof *pk);
    pk->hk = hk;
    pk->k = k;
    pk->a = a;
    pk->method = in_list(py_keywords, k->name) ? arena_printf(a, "%s_", k->name) : k->name;
    pk->attr = arena_printf(a, "_k_%s", k->name);
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
            pk->pa[i].ident = names_take(&pk->names, host_ident(a, x->cname ? x->cname : x->name));
    }
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *x = &k->args[i];
        if (x->role == ROLE_SCALAR || x->role == ROLE_LENGTH) continue;
        const char *base = pk->pa[i].ident ? pk->pa[i].ident : host_ident(a, x->cname ? x->cname : x->name);
        pk->pa[i].mem = names_take(&pk->names, arena_printf(a, "%s_mem", base));
        pk->pa[i].len = names_take(&pk->names, x->role == ROLE_SCRATCH ? "scratch_bytes" : arena_printf(a, "%s_len", base));
    }
}

static const PyArg *param_names(const PyKernel *pk, const HostParam *p) {
    return &pk->pa[p->arg->index];
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
    char *r = arena_printf(a, "%s_DTYPE", host_ident(a, sd->cname));
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
    if (t->kind == TY_HWVEC) return arena_printf(a, "(np.%s, %d)", np_scalar(oclc_type_name(ty_num(t->sc))), t->width);
    const char *np = np_scalar(oclc_type_name(t));
    return arena_printf(a, "np.%s", np ? np : "uint8");
}

/* numpy element dtype and lanes of a vector argument. */
static const char *elem_np(const AbiArg *x, int *lanes) {
    const Type *t = x->elem_ty;
    *lanes = 1;
    if (t && t->kind == TY_HWVEC) {
        *lanes = t->width;
        return np_scalar(oclc_type_name(ty_num(t->sc)));
    }
    const char *s = np_scalar(astr(x->element));
    return s ? s : "uint8";
}

/* "float32", "float32 (n, 4)" - how the host passes the elements. */
static const char *elem_desc(Arena *a, const AbiArg *x) {
    int lanes;
    const char *np = elem_np(x, &lanes);
    if (!strcmp(astr(x->element), "void")) return "any dtype, as bytes";
    if (struct_of(x->elem_ty)) return struct_dtype_name(a, x->elem_ty->sd);
    if (lanes == 1) return np;
    return arena_printf(a, "%s with shape (n, %d)%s", np, lanes, lanes == 3 ? " or (n, 4)" : "");
}

/* The module constant of an element type: _FLOAT_S4 = crisp_runtime.element("float", 4). */
static const char *elem_const(Arena *a, const AbiArg *x) {
    const char *base = struct_of(x->elem_ty) ? host_ident(a, x->elem_ty->sd->cname) : host_ident(a, astr(x->element));
    char *r = arena_printf(a, "_E_%s_S%d", base, x->stride > 0 ? x->stride : 1);
    for (char *q = r; q && *q; q++) *q = (char)toupper((unsigned char)*q);
    return r ? r : "_E";
}

static const char *elem_def(Arena *a, const AbiArg *x) {
    if (struct_of(x->elem_ty))
        return arena_printf(a, "crisp_runtime.element(\"%s\", %d, %s)", astr(x->element), x->stride,
                            struct_dtype_name(a, x->elem_ty->sd));
    return arena_printf(a, "crisp_runtime.element(\"%s\", %d)", astr(x->element), x->stride > 0 ? x->stride : 1);
}

/* The module constant of a scalar type: _S_ULONG. */
static const char *scalar_const(Arena *a, const AbiArg *x) {
    char *r = arena_printf(a, "_S_%s", host_ident(a, struct_of(x->elem_ty) ? x->elem_ty->sd->cname : astr(x->type)));
    for (char *q = r; q && *q; q++) *q = (char)toupper((unsigned char)*q);
    return r ? r : "_S";
}

static const char *scalar_def(Arena *a, const AbiArg *x) {
    if (struct_of(x->elem_ty))
        return arena_printf(a, "crisp_runtime.scalar_type(\"%s\", %s)", astr(x->type), struct_dtype_name(a, x->elem_ty->sd));
    return arena_printf(a, "crisp_runtime.scalar_type(\"%s\")", astr(x->type));
}

static const char *vector_type_text(Arena *a, const AbiArg *x) {
    const char *s = arena_printf(a, "(vector-type %s :%s :%s :%s", astr(x->element), ty_as_name(x->as),
                                 ty_acc_name(x->acc), ty_align_name(x->align));
    if (x->fixed_length >= 0) s = arena_printf(a, "%s %lld", s, (long long)x->fixed_length);
    return arena_printf(a, "%s)", s);
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
/* Size expressions in a method                                       */

/* How an input is spelled in a method: the parameter's length local or
 * its value, or the launch (gs / ls tuples, or lz, a LaunchSizes). */
static const char *py_input(void *ud, const SizeExpr *in) {
    const PyKernel *pk = ud;
    Arena *a = pk->a;
    const HostParam *p = host_input_param(pk->hk, in);
    if (p) return in->op == SZ_LENGTH ? param_names(pk, p)->len : arena_printf(a, "int(%s)", param_names(pk, p)->ident);
    if (in->op == SZ_GLOBAL_SIZE) return in->dim == 0 ? "gs[0]" : arena_printf(a, "(gs[%d] if len(gs) > %d else 1)", in->dim, in->dim);
    return arena_printf(a, "lz.%s", size_input_default(a, in));
}

static const char *py_size(const PyKernel *pk, const SizeExpr *e) {
    return size_py(pk->a, e, py_input, (void *)pk);
}

/* Does E use a launch size other than the global size (then the method
 * builds lz, a crisp_runtime.LaunchSizes)? */
static int needs_lz(const SizeExpr *e) {
    if (!e) return 0;
    if (sz_is_input(e)) return e->op >= SZ_LOCAL_SIZE && e->op <= SZ_LOCAL_LINEAR_SIZE;
    for (int i = 0; i < e->nkids; i++)
        if (needs_lz(e->kids[i])) return 1;
    return 0;
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
            if (size_py_uses_math(k->args[i].size.expr) || size_py_uses_math(k->args[i].need)) return 1;
    }
    return 0;
}

/* The first kernel's call with its vectors and scalars, for the docstring. */
static const char *example_call(const Abi *abi, Arena *a) {
    const AbiKernel *k = &abi->kernels[0];
    const char *args = "";
    for (int i = 0; i < k->nargs; i++)
        if (k->args[i].role == ROLE_SCALAR || k->args[i].role == ROLE_BUFFER)
            args = arena_printf(a, "%s%s%s", astr(args), *astr(args) ? ", " : "", host_ident(a, k->args[i].cname));
    return arena_printf(a, "    k.%s(%s)", k->name, astr(args));
}

/* BASE_hoist_PyCUDA.py's docstring and imports: crisp_runtime_cuda, bound
 * to the name crisp_runtime so that the methods read as the PyOpenCL ones. */
static void emit_header_cuda(Printer *p, const Abi *abi, const HoistOptions *o, Arena *a) {
    const char *base = o->base;
    pr_line(p, "\"\"\"%s_hoist_PyCUDA.py - CUDA host code (Python) for the kernels of %s.ptx.", base, base);
    pr_blank(p);
    pr_line(p, "Generated by crisp %s from %s; edit the Crisp source, not this file.", CRISP_VERSION,
            one_line(a, abi->source));
    pr_line(p, "Needs, beside it, what crisp wrote with it: %s.ptx (and the cubins of", base);
    pr_line(p, "--binary-gpu-target) and crisp_runtime_cuda.py (an installed one works too);");
    pr_line(p, "numpy, and one Python binding of the CUDA driver API: PyCUDA, NVIDIA's");
    pr_line(p, "cuda-python (pip install cuda-python) or CuPy.");
    pr_blank(p);
    pr_line(p, "    import %s_hoist_PyCUDA as hoist", base);
    pr_line(p, "    k = hoist.load()                # or hoist.load(device, stream)");
    if (abi->nkernels) pr_line(p, "%s", example_call(abi, a));
    pr_blank(p);
    pr_line(p, "Each kernel is a method taking the Crisp parameters in order.  A vector is");
    pr_line(p, "a numpy array (copied to the device, and back when the kernel may write");
    pr_line(p, "it; the call waits) or device memory used in place - a");
    pr_line(p, "crisp_runtime_cuda.DeviceArray or any array with __cuda_array_interface__");
    pr_line(p, "(CuPy, PyCUDA, ...; the call returns at once).  A scalar is a Python number.");
    pr_line(p, "queue= (a crisp_runtime_cuda.Stream), wait_for= (Events), global_size= and");
    pr_line(p, "local_size= are as in the PyOpenCL hoist; global size = grid x block, and");
    pr_line(p, "there is no global offset.  A method returns an Event recorded after the");
    pr_line(p, "kernel, or its result vectors.  Dtypes and lengths are checked before the");
    pr_line(p, "kernel runs.  Run this file for a demo.");
    pr_line(p, "\"\"\"");
    pr_blank(p);
    pr_line(p, "import importlib.util");
    if (uses_math(abi)) pr_line(p, "import math");
    pr_line(p, "import os");
    pr_line(p, "import sys");
    pr_blank(p);
    pr_line(p, "import numpy as np");
    pr_blank(p);
    pr_line(p, "HERE = os.path.dirname(os.path.abspath(__file__))");
    pr_line(p, "ABI = %d                                 # the crisp_runtime_cuda this module speaks", PY_ABI);
    top_gap(p);
    pr_line(p, "def _runtime():");
    pr_indent(p);
    pr_line(p, "\"\"\"crisp_runtime_cuda: the copy crisp wrote beside this file, else the");
    pr_line(p, "installed one.  sys.path is left as it is.\"\"\"");
    pr_line(p, "mod = sys.modules.get(\"crisp_runtime_cuda\")");
    pr_line(p, "if mod is not None and getattr(mod, \"ABI_VERSION\", None) == ABI:");
    pr_line(p, "    return mod");
    pr_line(p, "path = os.path.join(HERE, \"crisp_runtime_cuda.py\")");
    pr_line(p, "if not os.path.isfile(path):");
    pr_line(p, "    import crisp_runtime_cuda           # installed (make install, pip install)");
    pr_line(p, "    return crisp_runtime_cuda");
    pr_line(p, "spec = importlib.util.spec_from_file_location(\"crisp_runtime_cuda\", path)");
    pr_line(p, "mod = importlib.util.module_from_spec(spec)");
    pr_line(p, "sys.modules.setdefault(\"crisp_runtime_cuda\", mod)");
    pr_line(p, "spec.loader.exec_module(mod)");
    pr_line(p, "return mod");
    pr_dedent(p);
    top_gap(p);
    pr_line(p, "crisp_runtime = _runtime()                # the CUDA runtime, named as in the PyOpenCL hoists");
    pr_line(p, "crisp_runtime.require_abi(ABI)");
    pr_line(p, "_ARRAY = crisp_runtime.DeviceArray");
    pr_line(p, "cl = crisp_runtime                           # cl.Error: what a launch raises");
    pr_blank(p);
}

static void emit_header(Printer *p, const Abi *abi, const HoistOptions *o, Arena *a, int nstatic) {
    const char *base = o->base;
    if (o->cuda) {
        emit_header_cuda(p, abi, o, a);
        return;
    }
    pr_line(p, "\"\"\"%s_hoist_PyOpenCL.py - PyOpenCL host code for the kernels of %s.cl.", base, base);
    pr_blank(p);
    pr_line(p, "Generated by crisp %s from %s; edit the Crisp source, not this file.", CRISP_VERSION,
            one_line(a, abi->source));
    if (nstatic)
        pr_line(p, "Needs, beside it, what crisp wrote with it: %s.cl and crisp_runtime.py (an", base);
    else
        pr_line(p, "Needs, beside it, what crisp wrote with it: crisp_runtime.py (an");
    pr_line(p, "installed crisp_runtime works too); and PyOpenCL and numpy (Debian:");
    pr_line(p, "python3-pyopencl python3-numpy; or pip).");
    if (nstatic && (o->spirv || o->ptx))
        pr_line(p, "It loads %s\ninstead of the .cl where the device takes it.",
                o->spirv && o->ptx ? arena_printf(a, "%s.spv (SPIR-V) or %s_nvcl.ptx (NVIDIA)", base, base)
                : o->spirv ? arena_printf(a, "%s.spv (SPIR-V)", base)
                : arena_printf(a, "%s_nvcl.ptx (NVIDIA's OpenCL)", base));
    pr_blank(p);
    pr_line(p, "    import %s_hoist_PyOpenCL as hoist", base);
    pr_line(p, "    k = hoist.load()                # or hoist.load(context, queue)");
    if (abi->nkernels) {
        const AbiKernel *k = &abi->kernels[0];
        const char *args = "";
        for (int i = 0; i < k->nargs; i++)
            if (k->args[i].role == ROLE_SCALAR || k->args[i].role == ROLE_BUFFER)
                args = arena_printf(a, "%s%s%s", astr(args), *astr(args) ? ", " : "", host_ident(a, k->args[i].cname));
        pr_line(p, "    k.%s(%s)", k->name, astr(args));
    }
    pr_blank(p);
    pr_line(p, "Each kernel is a method taking the Crisp parameters in order.  A vector is");
    pr_line(p, "a numpy array (copied to the device, and back when the kernel may write");
    pr_line(p, "it; the call waits) or device memory used in place - a");
    pr_line(p, "pyopencl.array.Array, a cl.Buffer, an SVM pointer (the call returns at");
    pr_line(p, "once).  A scalar is a Python number.  queue=, wait_for=, global_size= and");
    pr_line(p, "local_size= follow PyOpenCL.  A method returns the kernel's cl.Event, or");
    pr_line(p, "its result vectors.  Dtypes, contexts and lengths are checked before the");
    pr_line(p, "kernel runs.  Run this file for a demo.");
    pr_line(p, "\"\"\"");
    pr_blank(p);
    pr_line(p, "import functools");
    pr_line(p, "import importlib.util");
    pr_line(p, "import inspect");
    if (uses_math(abi)) pr_line(p, "import math");
    pr_line(p, "import os");
    pr_line(p, "import sys");
    pr_blank(p);
    pr_line(p, "import numpy as np");
    pr_blank(p);
    pr_line(p, "HERE = os.path.dirname(os.path.abspath(__file__))");
    pr_line(p, "ABI = %d                                 # the crisp_runtime this module speaks", PY_ABI);
    top_gap(p);
    pr_line(p, "def _runtime():");
    pr_indent(p);
    pr_line(p, "\"\"\"crisp_runtime: the copy crisp wrote beside this file, else the installed");
    pr_line(p, "one.  sys.path is left as it is.\"\"\"");
    pr_line(p, "mod = sys.modules.get(\"crisp_runtime\")");
    pr_line(p, "if mod is not None and getattr(mod, \"ABI_VERSION\", None) == ABI:");
    pr_line(p, "    return mod");
    pr_line(p, "path = os.path.join(HERE, \"crisp_runtime.py\")");
    pr_line(p, "if not os.path.isfile(path):");
    pr_line(p, "    import crisp_runtime                # installed (make install, pip install)");
    pr_line(p, "    return crisp_runtime");
    pr_line(p, "spec = importlib.util.spec_from_file_location(\"crisp_runtime\", path)");
    pr_line(p, "mod = importlib.util.module_from_spec(spec)");
    pr_line(p, "sys.modules.setdefault(\"crisp_runtime\", mod)");
    pr_line(p, "spec.loader.exec_module(mod)");
    pr_line(p, "return mod");
    pr_dedent(p);
    top_gap(p);
    pr_line(p, "crisp_runtime = _runtime()");
    pr_line(p, "crisp_runtime.require_abi(ABI)");
    pr_line(p, "cl = crisp_runtime.cl");
    pr_line(p, "_ARRAY = crisp_runtime.cl_array.Array");
    top_gap(p);
    /* the fast path's launch: PyOpenCL's generated enqueue function of the
       kernel, without the Kernel.__call__ trampoline (docs/performance.md
       "Hoist overhead") */
    pr_line(p, "def _enqueue_of(kernel):");
    pr_indent(p);
    pr_line(p, "\"\"\"KERNEL(queue, global_size, local_size, *args) without PyOpenCL's");
    pr_line(p, "Kernel.__call__ trampoline: its generated enqueue function (made by");
    pr_line(p, "set_scalar_arg_dtypes) bound to it, where this PyOpenCL has one.\"\"\"");
    pr_line(p, "enqueue = getattr(kernel, \"_enqueue\", None)");
    pr_line(p, "try:");
    pr_line(p, "    params = list(inspect.signature(enqueue).parameters)[:4]");
    pr_line(p, "except (TypeError, ValueError):");
    pr_line(p, "    params = None");
    pr_line(p, "if params != [\"self\", \"queue\", \"global_size\", \"local_size\"]:");
    pr_line(p, "    return kernel                   # another PyOpenCL: its ordinary call");
    pr_line(p, "return functools.partial(enqueue, kernel)");
    pr_dedent(p);
    pr_blank(p);
}

/* DEBUG_SITES: the --debug-output site table, as in the metadata's
 * "debug_sites" (docs/abi.md "Debug channel"); the shim decodes records
 * with it. */
static void emit_debug_sites(Printer *p, const Abi *abi, Arena *a) {
    if (!abi->debug_output) {
        pr_line(p, "DEBUG_SITES = []                        # compiled without --debug-output");
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
                pr_line(p, "    {\"type\": \"%s\", \"expr\": %s},", dp->ty ? oclc_type_name(dp->ty) : "int", quoted(a, dp->expr));
        }
        pr_line(p, "]},");
    }
    pr_dedent(p);
    pr_line(p, "]");
}

static void py_long_string(StrBuf *b, const char *name, const char *text) {
    sb_printf(b, "%s = \"\"\"\\\n", name);
    for (const unsigned char *s = (const unsigned char *)astr(text); *s; s++) {
        if (*s == '\\' || *s == '"') sb_printf(b, "\\%c", *s);
        else if (*s == '\n' || *s == '\t' || (*s >= 32 && *s != 127)) sb_putc(b, (char)*s);
        else sb_printf(b, "\\x%02x", *s);
    }
    sb_puts(b, "\"\"\"\n");
}

static void emit_cl_source(Printer *p, const HoistOptions *o, Arena *a) {
    pr_blank(p);
    pr_line(p, "# --hoist-dynamic: the kernels named in DYNAMIC_KERNELS are built at run");
    pr_line(p, "# time from this text (%s.cl as crisp wrote it).", o->base);
    py_long_string(p->out, "CL_SOURCE", o->cl_source);
    if (!o->crisp_source) return;
    pr_blank(p);
    pr_line(p, "# ... or, where the `crisp` package is installed, from the Crisp it came");
    pr_line(p, "# from, compiled in memory by crisp.compile (docs/api.md) with these flags.");
    py_long_string(p->out, "CRISP_SOURCE", o->crisp_source);
    pr_line(p, "CRISP_FLAGS = %s", quoted(a, astr(o->crisp_flags)));
    pr_line(p, "DYNAMIC_ORIGIN = None     # \"crisp.compile\" or \"CL_SOURCE\" once load() ran");
    top_gap(p);
    pr_line(p, "def dynamic_source():");
    pr_indent(p);
    pr_line(p, "\"\"\"The OpenCL C of DYNAMIC_KERNELS: CRISP_SOURCE compiled now by the");
    pr_line(p, "in-memory compiler when `import crisp` works, else CL_SOURCE.\"\"\"");
    pr_line(p, "global DYNAMIC_ORIGIN");
    pr_line(p, "try:");
    pr_line(p, "    import crisp");
    pr_line(p, "except ImportError:");
    pr_line(p, "    DYNAMIC_ORIGIN = \"CL_SOURCE\"");
    pr_line(p, "    return CL_SOURCE");
    pr_line(p, "DYNAMIC_ORIGIN = \"crisp.compile\"");
    pr_line(p, "return crisp.compile(CRISP_SOURCE, flags=CRISP_FLAGS, name=%s).opencl_c",
            quoted(a, arena_printf(a, "%s.crisp", o->base)));
    pr_dedent(p);
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

/* The element and scalar types every method uses, built once at import. */
/* _D_FLOAT_S4 (device dtype) or _T_FLOAT_S4 (1-D contiguous strides) for
 * the element constant _E_FLOAT_S4. */
static const char *elem_alias(Arena *a, const char *econst, char letter) {
    return arena_printf(a, "_%c%s", letter, econst + 2);
}

static void emit_types(Printer *p, const Abi *abi, int cuda, Arena *a) {
    const char **seen = arena_alloc(a, sizeof(char *) * 256);
    int nseen = 0;
    pr_blank(p);
    pr_line(p, "# The kernels' element and scalar types (layouts and checks, built once)");
    for (int ki = 0; seen && ki < abi->nkernels; ki++)
        for (int i = 0; i < abi->kernels[ki].nargs; i++) {
            const AbiArg *x = &abi->kernels[ki].args[i];
            const char *name, *def;
            if (x->role == ROLE_SCALAR) {
                name = scalar_const(a, x);
                def = scalar_def(a, x);
            } else if (x->role != ROLE_LENGTH && x->role != ROLE_DEBUG && x->role != ROLE_SCRATCH) {
                name = elem_const(a, x);
                def = elem_def(a, x);
            } else {
                continue;
            }
            int dup = 0;
            for (int j = 0; j < nseen; j++) dup |= !strcmp(seen[j], name);
            if (dup || nseen == 256) continue;
            seen[nseen++] = name;
            pr_line(p, "%s = %s", name, def);
            if (x->role != ROLE_SCALAR && !cuda) { /* what the fast paths compare (docs/hoisting-python.md) */
                pr_line(p, "%s = %s.device_dtype       # device arrays of it", elem_alias(a, name, 'D'), name);
                pr_line(p, "%s = (%s.itemsize,)         # their strides, one-dimensional and contiguous", elem_alias(a, name, 'T'),
                        elem_alias(a, name, 'D'));
            }
        }
    if (!nseen) pr_line(p, "# (none)");
}

static void emit_constants(Printer *p, const Abi *abi, const HoistOptions *o, Arena *a, int nstatic, int ndynamic) {
    if (o->cuda) {
        pr_line(p, "# what load() may load: the device's own sm_ first, else the PTX (the driver compiles it)");
        pr_line(p, "IMAGES = [");
        for (int i = 0; i < o->ncuda_sms; i++)
            pr_line(p, "    (\"%s\", os.path.join(HERE, %s)),", o->cuda_sms[i],
                    quoted(a, arena_printf(a, "%s_%s.%s", o->base, o->cuda_sms[i], o->fat_binary ? "fatbin" : "cubin")));
        pr_line(p, "    (\"ptx\", os.path.join(HERE, %s)),", quoted(a, arena_printf(a, "%s.ptx", o->base)));
        pr_line(p, "]");
    } else {
        if (nstatic) pr_line(p, "CL_FILE = os.path.join(HERE, %s)", quoted(a, arena_printf(a, "%s.cl", o->base)));
        if (nstatic && o->spirv)
            pr_line(p, "SPV_FILE = os.path.join(HERE, %s)   # --ir-target=spv: loaded where the device takes SPIR-V",
                    quoted(a, arena_printf(a, "%s.spv", o->base)));
        if (nstatic && o->ptx)
            pr_line(p, "PTX_FILE = os.path.join(HERE, %s)   # --ir-target=ptx: the program binary on NVIDIA's OpenCL",
                    quoted(a, arena_printf(a, "%s_nvcl.ptx", o->base)));
        pr_line(p, "BUILD_OPTIONS = \"%s\"   # the .cl's OpenCL C (--ocl-version)", abi->cl_std);
    }
    pr_line(p, "UNIFIED_MEMORY = %s%s", o->unified_memory ? "True" : "False",
            o->unified_memory ? "                   # --hoist-unified-memory: SVM where the device has it" : "");
    const char *dyn = "";
    for (int i = 0; i < abi->nkernels; i++)
        if (is_dynamic(o, abi->kernels[i].name))
            dyn = arena_printf(a, "%s%s\"%s\"", astr(dyn), *astr(dyn) ? ", " : "", abi->kernels[i].name);
    pr_line(p, "DYNAMIC_KERNELS = (%s%s)", astr(dyn), ndynamic == 1 ? "," : "");
    emit_debug_sites(p, abi, a);
    if (ndynamic) emit_cl_source(p, o, a);
    emit_structs(p, abi, a);
    emit_types(p, abi, o->cuda, a);
}

static void emit_load(Printer *p, const HoistOptions *o, int nstatic, int ndynamic) {
    top_gap(p);
    pr_line(p, "def load(context=None, queue=None):");
    pr_indent(p);
    if (o->cuda) {
        pr_line(p, "\"\"\"Load the module and return a Kernels object (one method per kernel).");
        pr_blank(p);
        pr_line(p, "CONTEXT: a crisp_runtime_cuda.Device, a device index or a substring of its");
        pr_line(p, "name (None: CRISP_DEVICE, else device 0); QUEUE: a crisp_runtime_cuda.Stream");
        pr_line(p, "(None: a new stream on the device).\"\"\"");
        pr_line(p, "runtime = crisp_runtime.Runtime(context, queue, unified_memory=UNIFIED_MEMORY)");
        pr_line(p, "program = runtime.load_module(IMAGES)");
        pr_line(p, "return Kernels(runtime, program)");
        pr_dedent(p);
        pr_blank(p);
        return;
    }
    pr_line(p, "\"\"\"Build the program and return a Kernels object (one method per kernel).");
    pr_blank(p);
    pr_line(p, "Give your own context and queue, or neither: crisp_runtime picks the device");
    pr_line(p, "(environment variables CRISP_PLATFORM / CRISP_DEVICE: substrings of the");
    pr_line(p, "names).\"\"\"");
    pr_line(p, "runtime = crisp_runtime.Runtime(context, queue, unified_memory=UNIFIED_MEMORY)");
    if (nstatic && o->ptx)
        pr_line(p, "program = runtime.build_built(CL_FILE, BUILD_OPTIONS, %sptx_path=PTX_FILE)  # PTX on NVIDIA, else the .cl",
                o->spirv ? "spv_path=SPV_FILE, " : "");
    else if (nstatic && o->spirv)
        pr_line(p, "program = runtime.build_spirv_or_file(SPV_FILE, CL_FILE, BUILD_OPTIONS)  # SPIR-V, else the .cl");
    else
        pr_line(p, "program = %s", nstatic ? "runtime.build_file(CL_FILE, BUILD_OPTIONS)" : "None      # every kernel is built from CL_SOURCE");
    if (ndynamic) {
        pr_line(p, "dynamic_program = runtime.build_source(%s, BUILD_OPTIONS,", o->crisp_source ? "dynamic_source()" : "CL_SOURCE");
        pr_line(p, "                                       name=\"CL_SOURCE of %s_hoist_PyOpenCL\")", o->base);
    }
    pr_line(p, "return Kernels(runtime, program%s)", ndynamic ? ", dynamic_program" : "");
    pr_dedent(p);
    pr_blank(p);
}

/* The scalar dtypes PyOpenCL packs each argument with (None: passed as is). */
static const char *arg_dtypes(Arena *a, const AbiKernel *k) {
    const char *s = "";
    for (int i = 0; i < k->nargs; i++) {
        const AbiArg *x = &k->args[i];
        const char *t = "None";
        if (x->role == ROLE_LENGTH) t = "np.uint64";
        else if (x->role == ROLE_SCALAR && x->elem_ty && (x->elem_ty->kind == TY_NUM || x->elem_ty->kind == TY_BOOL) &&
                 np_scalar(astr(x->type)))
            t = arena_printf(a, "np.%s", np_scalar(astr(x->type)));
        else if (x->role == ROLE_SCALAR && x->elem_ty && x->elem_ty->kind == TY_ENUM)
            t = "np.int32";
        s = arena_printf(a, "%s%s%s", s, i ? ", " : "", t);
    }
    return s;
}

static int fast_path_ok(const PyKernel *pk);

/* A __local argument (workgroup scratch, a :local parameter, warp memory). */
static int is_local_arg(const AbiArg *x) {
    return x->role != ROLE_LENGTH && x->role != ROLE_SCALAR && x->as == AS_LOCAL;
}

/* 1 when K has a __local argument (its local memory depends on the call). */
static int py_local_args(const AbiKernel *k) {
    for (int i = 0; i < k->nargs; i++)
        if (is_local_arg(&k->args[i])) return 1;
    return 0;
}

static void emit_class_head(Printer *p, const Abi *abi, const HoistOptions *o, const PyKernel *pks, int ndynamic, Arena *a) {
    top_gap(p);
    pr_line(p, "class Kernels:");
    pr_indent(p);
    pr_line(p, "\"\"\"The kernels of %s.%s, one method each (see load()).", o->base, o->cuda ? "ptx" : "cl");
    pr_blank(p);
    pr_line(p, "runtime, context, queue, program: what they run on; last_sizes: the");
    pr_line(p, "crisp_runtime.LaunchSizes of the last call; debug_words: the size of the");
    pr_line(p, "debug channel (--debug-output) each call allocates.  Not thread-safe:");
    pr_line(p, "%s", o->cuda ? "the calls of one object share their stream and state.\"\"\"" : "a call sets the arguments of a shared cl.Kernel.\"\"\"");
    pr_blank(p);
    pr_line(p, "def __init__(self, runtime, program%s):", ndynamic ? ", dynamic_program" : "");
    pr_indent(p);
    pr_line(p, "self.runtime = runtime");
    pr_line(p, "self.context = runtime.context");
    pr_line(p, "self.queue = runtime.queue");
    pr_line(p, "self.program = program");
    if (ndynamic) pr_line(p, "self.dynamic_program = dynamic_program");
    pr_line(p, "self.debug_words = crisp_runtime.DEBUG_WORDS");
    pr_line(p, "self._last_sizes = None");
    pr_line(p, "self._debug = []                    # debug channels not read yet");
    for (int i = 0; i < abi->nkernels; i++) {
        const PyKernel *pk = &pks[i];
        const char *n = pk->k->name;
        pr_line(p, "self.%s = crisp_runtime.create_kernel(%s, \"%s\")", pk->attr, is_dynamic(o, n) ? "dynamic_program" : "program", n);
        py_line(p, a, "self.%s.set_scalar_arg_dtypes([%s])", pk->attr, arg_dtypes(a, pk->k));
        if (fast_path_ok(pk)) pr_line(p, "self._x_%s = _enqueue_of(self.%s)", pk->k->name, pk->attr);
        const LocalMem *lm = pk->k->lmem;
        if (lm && lm->static_bytes && !py_local_args(pk->k)) {
            /* local memory fixed at compile time: checked once, here */
            pr_line(p, "if %lld > runtime.local_mem_size:  # %s's fixed __local vectors", (long long)lm->static_bytes, n);
            pr_line(p, "    raise runtime.local_mem_error(\"%s\", %lld, None, None)", n, (long long)lm->static_bytes);
        }
    }
    if (!o->cuda) {
        pr_line(p, "# the fast paths' queue: the default one when it runs in order (False: none)");
        pr_line(p, "self._fast_q = runtime.ordered if runtime.ordered is not None else False");
    }
    if (abi->norchs && !o->cuda) pr_line(p, "self._staging = {}                 # launch-interleaved: pinned and device buffers, queues");
    pr_dedent(p);
    pr_blank(p);
    pr_line(p, "@property");
    pr_line(p, "def last_sizes(self):");
    pr_line(p, "    \"\"\"The crisp_runtime.LaunchSizes of the last call (None before any).\"\"\"");
    pr_line(p, "    return None if self._last_sizes is None else crisp_runtime.LaunchSizes(*self._last_sizes)");
    pr_blank(p);
    if (abi->norchs && !o->cuda) {
        pr_line(p, "def release_staging(self):");
        pr_line(p, "    \"\"\"Free the pinned host memory, device buffers and extra queues that");
        pr_line(p, "    launch-interleaved orchestrations keep for their next call of the same size.\"\"\"");
        pr_line(p, "    pool, self._staging = self._staging, {}");
        pr_line(p, "    for slot, kept in pool.items():");
        pr_line(p, "        if slot != \"queues\":");
        pr_line(p, "            _staging_free(self.queue, kept)");
        pr_blank(p);
    }
    pr_line(p, "def debug_log(self):");
    pr_indent(p);
    pr_line(p, "\"\"\"The debug records (r-t-output, r-t-assert) of the calls since the last");
    pr_line(p, "debug_log(), as text lines \"FILE:LINE: [thread N] ...\" (waits for those");
    pr_line(p, "calls).  Empty unless the program was compiled with --debug-output.\"\"\"");
    pr_line(p, "pending, self._debug = self._debug, []");
    pr_line(p, "lines = []");
    pr_line(p, "for q, mem, words in pending:");
    pr_line(p, "    lines += self.runtime.read_debug(q, mem, words, DEBUG_SITES)");
    pr_line(p, "return lines");
    pr_dedent(p);
    pr_dedent(p);
}

/* ---- one method per kernel ---- */

/* A need that is the vector's own length (grid-stride loops): nothing to check. */
static int own_length(const HostParam *hp, int index) {
    return hp->need && hp->need->op == SZ_LENGTH && hp->need->param_index == index;
}

static const char *access_word(const HostParam *hp) {
    return hp->uploads && hp->downloads ? "read_write" : hp->downloads ? "write_only" : "read_only";
}

static void emit_docstring(Printer *p, const Abi *abi, const PyKernel *pk) {
    const HostKernel *hk = pk->hk;
    const AbiKernel *k = pk->k;
    Arena *a = pk->a;
    pr_line(p, "\"\"\"Run kernel %s (%s).", k->name, where_defined(a, abi, k));
    pr_blank(p);
    pr_line(p, "    %s", one_line(a, signature_text(a, k)));
    pr_blank(p);
    for (int i = 0; i < hk->nparams; i++) {
        const HostParam *hp = &hk->params[i];
        const AbiArg *x = hp->arg;
        const char *id = param_names(pk, hp)->ident;
        switch (hp->kind) {
        case HP_SCALAR:
            pr_line(p, "%s: %s (a Python number%s)", id, astr(x->type),
                    x->elem_ty && x->elem_ty->kind == TY_HWVEC ? ", here a tuple" : struct_of(x->elem_ty) ? ", here a struct" : "");
            break;
        case HP_LOCAL: pr_line(p, "%s: %s: its element count", id, vector_type_text(a, x)); break;
        default:
            pr_line(p, "%s: %s%s", id, vector_type_text(a, x), x->is_out ? " &out" : "");
            pr_line(p, "    %s; %s", elem_desc(a, x),
                    hp->uploads && hp->downloads ? "read and written" : hp->downloads ? "written (numpy: not uploaded)" : "read");
            break;
        }
    }
    for (int i = 0; i < hk->nsides; i++) {
        const AbiArg *x = hk->sides[i];
        if (x->role != ROLE_IMPLICIT) continue;
        pr_line(p, "%s (keyword): implicit vector of %s, %s elements", pk->pa[x->index].ident, astr(x->element),
                one_line(a, x->size.crisp));
        pr_line(p, "    (zero-filled on the device when not given)%s%s", x->comment ? ": " : "", one_line(a, x->comment));
    }
    if (k->single_task) {
        pr_line(p, "single-task: runs one work-item (unless global_size= says otherwise).");
    } else {
        if (k->gsize && k->gsize->present) pr_line(p, "global size: %s", one_line(a, host_size_decl_text(a, "global-size", k->gsize)));
        else if (hk->launch.needs_global) pr_line(p, "global size: pass global_size= (nothing declares it)");
        else pr_line(p, "global size: the length of the first vector unless global_size= is given");
        if (k->lsize && k->lsize->present) pr_line(p, "local size: %s", one_line(a, host_size_decl_text(a, "local-size", k->lsize)));
    }
    for (int i = 0; i < hk->nparams; i++) {
        const HostParam *hp = &hk->params[i];
        if (hp->need && !own_length(hp, i))
            pr_line(p, "%s must hold at least %s elements.", param_names(pk, hp)->ident, size_py(a, hp->need, NULL, NULL));
        else if (hp->unchecked) pr_line(p, "%s's length is not checked: %s.", param_names(pk, hp)->ident, one_line(a, hp->unchecked));
    }
    pr_blank(p);
    pr_line(p, "Host memory is copied in and back and the call waits; device memory is used");
    pr_line(p, "in place and the call returns without waiting.");
    if (hk->nresults) {
        const char *names = "";
        for (int i = 0; i < hk->nsides; i++)
            if (hk->sides[i]->role == ROLE_RESULT)
                names = arena_printf(a, "%s%s%s", astr(names), *astr(names) ? ", " : "", hk->sides[i]->name);
        pr_line(p, "Returns the result vector%s %s%s:", hk->nresults > 1 ? "s" : "", astr(names),
                hk->nresults > 1 ? " (a tuple)" : "");
        pr_line(p, "numpy arrays, or %s when any vector argument was device memory.",
                pk->cuda ? "crisp_runtime_cuda.DeviceArrays" : "pyopencl arrays");
    } else {
        pr_line(p, "Returns the kernel's %s.", pk->cuda ? "Event (recorded after it)" : "cl.Event");
    }
    pr_line(p, "\"\"\"");
}

/* Bind what the checks and side-channel sizes use: lz when needed. */
static void emit_launch_inputs(Printer *p, const PyKernel *pk) {
    const HostKernel *hk = pk->hk;
    int lz = 0;
    for (int i = 0; i < hk->nparams; i++) lz |= needs_lz(hk->params[i].need);
    for (int i = 0; i < hk->nsides; i++) lz |= needs_lz(hk->sides[i]->size.expr);
    if (lz) pr_line(p, "lz = crisp_runtime.LaunchSizes(gs, ls)");
}

static void emit_sizes(Printer *p, const PyKernel *pk) {
    const HostKernel *hk = pk->hk;
    const HostLaunch *l = &hk->launch;
    const AbiKernel *k = pk->k;
    Arena *a = pk->a;
    const char *kn = k->name;
    if (l->nlocal && !l->single_task) {
        pr_line(p, "if local_size is None:");
        pr_indent(p);
        pr_line(p, "# %s", one_line(a, host_size_decl_text(a, "local-size", k->lsize)));
        if (l->local_msg) pr_line(p, "# %s", one_line(a, l->local_msg));
        const char *t = "(";
        for (int d = 0; d < l->nlocal; d++) t = arena_printf(a, "%s%s%s", t, d ? ", " : "", py_size(pk, l->local[d]));
        pr_line(p, "local_size = %s%s)", t, l->nlocal == 1 ? "," : "");
        pr_dedent(p);
    }
    if (!l->single_task && !l->needs_global && !l->nlocal && !(k->gsize && k->gsize->present && k->gsize->dims && k->gsize->dims != l->nglobal)) {
        /* the common call: the declared sizes, no local size - no checks needed */
        const char *t = "(";
        for (int d = 0; d < l->nglobal; d++) t = arena_printf(a, "%s%s%s", t, d ? ", " : "", py_size(pk, l->global[d]));
        t = arena_printf(a, "%s%s)", t, l->nglobal == 1 ? "," : "");
        pr_line(p, "if global_size is None and local_size is None:");
        pr_indent(p);
        if (k->gsize && k->gsize->present && k->gsize->nset + k->gsize->nderive)
            pr_line(p, "# %s", one_line(a, host_size_decl_text(a, "global-size", k->gsize)));
        else
            pr_line(p, "# %s", one_line(a, l->global_from));
        if (l->global_msg) pr_line(p, "# %s", one_line(a, l->global_msg));
        pr_line(p, "gs, ls = %s, None", t);
        pr_dedent(p);
        pr_line(p, "else:");
        pr_indent(p);
        if (k->gsize && k->gsize->present && k->gsize->dims)
            py_line(p, a, "gs, ls = crisp_runtime.sizes(\"%s\", %s if global_size is None else global_size, local_size, %d)", kn, t,
                    k->gsize->dims);
        else
            py_line(p, a, "gs, ls = crisp_runtime.sizes(\"%s\", %s if global_size is None else global_size, local_size)", kn, t);
        pr_dedent(p);
        pr_line(p, "self._last_sizes = (gs, ls)");
        return;
    }
    pr_line(p, "if global_size is None:");
    pr_indent(p);
    if (l->single_task) {
        pr_line(p, "global_size = (1,)                  # single-task: one work-item");
    } else if (l->needs_global) {
        pr_line(p, "raise TypeError(\"kernel %s: no global-size declaration and no vector argument: \"", kn);
        pr_line(p, "                \"pass global_size=\")");
    } else {
        if (k->gsize && k->gsize->present && k->gsize->nset + k->gsize->nderive)
            pr_line(p, "# %s", one_line(a, host_size_decl_text(a, "global-size", k->gsize)));
        else
            pr_line(p, "# %s", one_line(a, l->global_from));
        if (l->global_msg) pr_line(p, "# %s", one_line(a, l->global_msg));
        const char *t = "(";
        for (int d = 0; d < l->nglobal; d++) t = arena_printf(a, "%s%s%s", t, d ? ", " : "", py_size(pk, l->global[d]));
        pr_line(p, "global_size = %s%s)", t, l->nglobal == 1 ? "," : "");
    }
    pr_dedent(p);
    if (k->gsize && k->gsize->present && k->gsize->dims)
        pr_line(p, "gs, ls = crisp_runtime.sizes(\"%s\", global_size, local_size, %d)", kn, k->gsize->dims);
    else
        pr_line(p, "gs, ls = crisp_runtime.sizes(\"%s\", global_size, local_size)", kn);
    pr_line(p, "self._last_sizes = (gs, ls)");
}

static void emit_param(Printer *p, const PyKernel *pk, const HostParam *hp) {
    const PyArg *pa = param_names(pk, hp);
    const AbiArg *x = hp->arg;
    Arena *a = pk->a;
    const char *kn = pk->k->name;
    if (hp->kind == HP_SCALAR) {
        pr_line(p, "%s = %s(%s, \"%s\", \"%s\")  # %s", pa->ident, scalar_const(a, x), pa->ident, kn, x->name, astr(x->type));
        return;
    }
    pr_line(p, "# %s: %s%s", x->name, vector_type_text(a, x), x->is_out ? " &out" : "");
    if (hp->kind == HP_LOCAL) {
        pr_line(p, "%s, %s = rt.local(\"%s\", \"%s\", %s, %s)", pa->mem, pa->len, kn, x->name, pa->ident, elem_const(a, x));
        return;
    }
    const char *call = arena_printf(a, "rt.arg(q, \"%s\", \"%s\", %s, %s, \"%s\", copies, events, written)", kn, x->name, pa->ident,
                                    elem_const(a, x), hp->kind == HP_BYTES ? "read_write" : access_word(hp));
    if (hp->kind == HP_VECTOR) {
        /* the common device case inline (per-call cost): a pyopencl array of this queue, in its layout */
        pr_line(p, "if type(%s) is _ARRAY and %s.queue is q is rt.ordered and not %s.offset \\", pa->ident, pa->ident,
                pa->ident);
        /* the dtype by identity (numpy's own dtypes are singletons); an equal
           dtype that is another object takes rt.arg, which compares */
        pr_line(p, "        and %s.dtype is %s.device_dtype and %s.flags.c_contiguous:", pa->ident, elem_const(a, x), pa->ident);
        pr_line(p, "    %s, %s = %s.base_data, %s.size", pa->mem, pa->len, pa->ident, pa->ident);
        pr_line(p, "else:");
        pr_indent(p);
        py_line(p, a, "%s, %s = %s", pa->mem, pa->len, call);
        pr_dedent(p);
    } else {
        py_line(p, a, "%s, %s = %s", pa->mem, pa->len, call);
    }
    if (x->fixed_length > 0) {
        pr_line(p, "if %s < %lld:", pa->len, (long long)x->fixed_length);
        pr_line(p, "    crisp_runtime.too_short(\"%s\", \"%s\", %s, %lld, \"the length its type declares\")", kn, x->name,
                pa->len, (long long)x->fixed_length);
    }
}

/* Length checks: every vector against what the kernel touches. */
static void emit_checks(Printer *p, const PyKernel *pk) {
    const HostKernel *hk = pk->hk;
    const char *kn = pk->k->name;
    if (!hk->checks) return;
    pr_line(p, "# every vector must hold what the kernel may touch (crisp's extent analysis)");
    pr_line(p, "if 0 not in gs:");
    pr_indent(p);
    for (int i = 0; i < hk->nparams; i++) {
        const HostParam *hp = &hk->params[i];
        if (!hp->need || own_length(hp, i)) continue;
        const PyArg *pa = param_names(pk, hp);
        const char *need = py_size(pk, hp->need);
        const char *what = size_py(pk->a, hp->need, NULL, NULL);
        if (hp->need->op == SZ_INT || sz_is_input(hp->need)) {
            pr_line(p, "if %s < %s:", pa->len, need);
            pr_indent(p);
            py_line(p, pk->a, "crisp_runtime.too_short(\"%s\", \"%s\", %s, %s, %s)", kn, hp->arg->name, pa->len, need,
                    quoted(pk->a, what));
            pr_dedent(p);
        } else {
            pr_line(p, "need = %s", need);
            pr_line(p, "if %s < need:", pa->len);
            pr_indent(p);
            py_line(p, pk->a, "crisp_runtime.too_short(\"%s\", \"%s\", %s, need, %s)", kn, hp->arg->name, pa->len,
                    quoted(pk->a, what));
            pr_dedent(p);
        }
    }
    for (int i = 0; i < hk->nparams; i++)
        if (hk->params[i].unchecked)
            pr_line(p, "# %s: not checked: %s", hk->params[i].arg->name, one_line(pk->a, hk->params[i].unchecked));
    pr_dedent(p);
}

static void emit_side_channel(Printer *p, const PyKernel *pk, const AbiArg *x) {
    const PyArg *pa = &pk->pa[x->index];
    Arena *a = pk->a;
    const char *kn = pk->k->name;
    if (x->role == ROLE_RESULT || x->role == ROLE_IMPLICIT) {
        pr_line(p, "# %s vector %s: %s elements of %s", x->role == ROLE_RESULT ? "result" : "implicit", x->name,
                one_line(a, x->size.crisp), astr(x->element));
        if (x->comment) pr_line(p, "#   %s", one_line(a, x->comment));
        pr_line(p, "%s = %s", pa->len, py_size(pk, x->size.expr));
        if (x->role == ROLE_RESULT) {
            py_line(p, a, "%s = rt.result(q, \"%s\", \"%s\", %s, %s, dev, copies, results, written)", pa->mem, kn, x->name, pa->len,
                    elem_const(a, x));
            return;
        }
        pr_line(p, "if %s is None:", pa->ident);
        pr_indent(p);
        py_line(p, a, "%s = rt.result(q, \"%s\", \"%s\", %s, %s, True, copies, [], [])", pa->mem, kn, x->name, pa->len,
                elem_const(a, x));
        pr_dedent(p);
        pr_line(p, "else:");
        pr_indent(p);
        py_line(p, a, "%s, given = rt.arg(q, \"%s\", \"%s\", %s, %s, \"read_write\", copies, events, written)", pa->mem, kn,
                x->name, pa->ident, elem_const(a, x));
        pr_line(p, "if given < %s:", pa->len);
        pr_indent(p);
        py_line(p, a, "crisp_runtime.too_short(\"%s\", \"%s\", given, %s, %s)", kn, x->name, pa->len,
                quoted(a, one_line(a, x->size.crisp)));
        pr_dedent(p);
        pr_dedent(p);
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
        py_line(p, a, "%s = %s", pa->len, py_size(pk, x->size.expr));
        pr_line(p, "%s = rt.scratch(q, \"%s\", %s)", pa->mem, kn, pa->len);
        return;
    }
    if (x->role == ROLE_LOCAL) {
        pr_line(p, "# workgroup scratch %s: %s elements of %s (__local: only a size)", x->name, one_line(a, x->size.crisp),
                astr(x->element));
        if (x->comment) pr_line(p, "#   %s", one_line(a, x->comment));
        pr_line(p, "%s = %s", pa->len, py_size(pk, x->size.expr));
        pr_line(p, "%s, %s = rt.local(\"%s\", \"%s\", %s, %s)", pa->mem, pa->len, kn, x->name, pa->len, elem_const(a, x));
        return;
    }
    if (x->role == ROLE_DEBUG) {
        pr_line(p, "# --debug-output: the debug channel (r-t-output and r-t-assert records)");
        pr_line(p, "%s, %s = rt.debug(self.debug_words)", pa->mem, pa->len);
    }
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

static const char *arg_value(const PyKernel *pk, const AbiArg *x) {
    const PyArg *pa = &pk->pa[x->index];
    if (x->role == ROLE_SCALAR) return pa->ident;
    if (x->role == ROLE_LENGTH) {
        int m = x->measures >= 0 && x->measures < pk->k->nargs ? x->measures : x->index - 1;
        return pk->pa[m].len;
    }
    return pa->mem;
}

/* The fast path (docs/performance.md "Hoist overhead"): a kernel whose
 * parameters are all global vectors and scalars, with no side channels and
 * the declared launch sizes, called with contiguous pyopencl arrays of the
 * default (in-order) queue and no keyword arguments, is checked in one
 * condition and launched through its generated enqueue function: the
 * per-call Python is a fraction of a microsecond above a hand-written
 * kernel call.  Anything else (or a failed check) falls through to the
 * general code, which says what is wrong. */
static int fast_path_ok(const PyKernel *pk) {
    const HostKernel *hk = pk->hk;
    const HostLaunch *l = &hk->launch;
    const AbiKernel *k = pk->k;
    int nvec = 0;
    if (pk->cuda || hk->nsides || hk->nresults || hk->debug || l->single_task || l->needs_global || l->nlocal ||
        !l->nglobal)
        return 0;
    if (k->gsize && k->gsize->present && k->gsize->dims && k->gsize->dims != l->nglobal) return 0;
    for (int d = 0; d < l->nglobal; d++)
        if (!l->global[d] || needs_lz(l->global[d])) return 0;
    for (int i = 0; i < hk->nparams; i++) {
        const HostParam *hp = &hk->params[i];
        if (hp->kind == HP_VECTOR) {
            if (hp->arg->fixed_length > 0) return 0;
            nvec++;
        } else if (hp->kind != HP_SCALAR) {
            return 0;
        }
        if (needs_lz(hp->need)) return 0;
    }
    return nvec > 0;
}

/* "if C1 and C2 ...:" wrapped with backslashes before 99 columns, the
 * continuation lines indented 8 more. */
static void py_if_all(Printer *p, Arena *a, const char **conds, int n) {
    const char *line = "if ";
    int col = 4 * p->indent;
    for (int i = 0; i < n; i++) {
        const char *piece = arena_printf(a, "%s%s", conds[i], i + 1 < n ? " and" : ":");
        if (i && col + (int)strlen(line) + 1 + (int)strlen(piece) + 2 > 99) {
            pr_line(p, "%s \\", astr(line));
            line = arena_printf(a, "        %s", astr(piece));
        } else {
            line = arena_printf(a, "%s%s%s", astr(line), i ? " " : "", astr(piece));
        }
    }
    pr_line(p, "%s", astr(line));
}

static void emit_fast_path(Printer *p, const PyKernel *pk) {
    const HostKernel *hk = pk->hk;
    const HostLaunch *l = &hk->launch;
    const AbiKernel *k = pk->k;
    Arena *a = pk->a;
    int cap = 8 * hk->nparams + 8, n = 0, nvec = 0;
    const char **conds = arena_alloc(a, sizeof(const char *) * (size_t)cap);
    if (!conds) return;
    const char *offsets = "";
    conds[n++] = "queue is wait_for is global_size is local_size is None";
    for (int pass = 0; pass < 4; pass++)
        for (int i = 0; i < hk->nparams; i++) {
            const HostParam *hp = &hk->params[i];
            if (hp->kind != HP_VECTOR) continue;
            const char *v = param_names(pk, hp)->ident;
            if (pass == 0) conds[n++] = arena_printf(a, "type(%s) is _ARRAY", v);
            if (pass == 1) conds[n++] = arena_printf(a, "%s.queue is q", v);
            if (pass == 2) conds[n++] = arena_printf(a, "%s.dtype is %s", v, elem_alias(a, elem_const(a, hp->arg), 'D'));
            if (pass == 3) {
                conds[n++] = arena_printf(a, "%s.strides == %s", v, elem_alias(a, elem_const(a, hp->arg), 'T'));
                offsets = arena_printf(a, "%s%s%s.offset", offsets, nvec++ ? " or " : "", v);
            }
        }
    conds[n++] = arena_printf(a, "not (%s)", offsets);
    pr_line(p, "# the fast path: one-dimensional contiguous pyopencl arrays of the default queue, no keywords");
    pr_line(p, "q = self._fast_q");
    py_if_all(p, a, conds, n);
    pr_indent(p);
    for (int i = 0; i < hk->nparams; i++) {
        const HostParam *hp = &hk->params[i];
        const PyArg *pa = param_names(pk, hp);
        if (hp->kind == HP_VECTOR)
            pr_line(p, "%s, %s = %s.base_data, %s.size", pa->mem, pa->len, pa->ident, pa->ident);
        else
            pr_line(p, "%s = %s(%s, \"%s\", \"%s\")", pa->ident, scalar_const(a, hp->arg), pa->ident, k->name,
                    hp->arg->name);
    }
    const char *t = "(";
    for (int d = 0; d < l->nglobal; d++) t = arena_printf(a, "%s%s%s", t, d ? ", " : "", py_size(pk, l->global[d]));
    py_line(p, a, "gs = %s%s)", t, l->nglobal == 1 ? "," : "");
    n = 0;
    conds[n++] = "0 not in gs";
    if (hk->checks)
        for (int i = 0; i < hk->nparams && n < cap; i++) {
            const HostParam *hp = &hk->params[i];
            if (!hp->need || own_length(hp, i)) continue;
            conds[n++] = arena_printf(a, "%s >= %s", param_names(pk, hp)->len, py_size(pk, hp->need));
        }
    py_if_all(p, a, conds, n);
    pr_indent(p);
    pr_line(p, "self._last_sizes = (gs, None)");
    const char *args = "";
    for (int i = 0; i < k->nargs; i++) args = arena_printf(a, "%s, %s", args, arg_value(pk, &k->args[i]));
    pr_line(p, "try:");
    pr_indent(p);
    py_line(p, a, "return self._x_%s(q, gs, None%s)", k->name, args);
    pr_dedent(p);
    pr_line(p, "except cl.Error as e:");
    pr_line(p, "    raise self.runtime.launch_error(self.%s, gs, None, e) from None", pk->attr);
    pr_dedent(p);
    pr_dedent(p);
}

/* Before the launch, the local memory a workgroup needs (analysis/localmem.h:
 * the fixed __local vectors and every __local argument as rt.local sizes
 * it) against the device's (rt.local_mem_size, asked once when the runtime
 * was made): a LocalMemoryError naming both instead of the launch's
 * CL_OUT_OF_RESOURCES (the CUDA hoist: against a block's shared memory).
 * Only kernels with __local arguments, which never take the fast path. */
static void emit_local_check(Printer *p, const PyKernel *pk) {
    const AbiKernel *k = pk->k;
    if (!k->lmem || !k->lmem->nparts || !py_local_args(k)) return; /* fixed: checked by __init__ */
    Arena *a = pk->a;
    pr_line(p, "# local memory per workgroup: the fixed __local vectors and the __local arguments");
    const char **terms = arena_alloc(a, sizeof *terms * (size_t)(k->nargs + 1));
    int n = 0;
    if (!terms) return;
    if (k->lmem->static_bytes) terms[n++] = arena_printf(a, "%lld", (long long)k->lmem->static_bytes);
    for (int i = 0; i < k->nargs; i++)
        if (is_local_arg(&k->args[i]))
            terms[n++] = arena_printf(a, "(%s or 1) * %d", pk->pa[k->args[i].index].len, k->args[i].stride > 0 ? k->args[i].stride : 1);
    for (int i = 0; i < n; i++) /* one term a line */
        pr_line(p, "%s%s%s", i == 0 ? (n > 1 ? "local_bytes = (" : "local_bytes = ") : "               + ", astr(terms[i]),
                i == n - 1 && n > 1 ? ")" : "");
    pr_line(p, "if local_bytes > rt.local_mem_size:");
    pr_line(p, "    raise rt.local_mem_error(\"%s\", local_bytes, gs, ls)", k->name);
}

static void emit_method(Printer *p, const Abi *abi, const PyKernel *pk) {
    const HostKernel *hk = pk->hk;
    const AbiKernel *k = pk->k;
    Arena *a = pk->a;
    const char *params = "self";
    for (int i = 0; i < hk->nparams; i++) params = arena_printf(a, "%s, %s", params, param_names(pk, &hk->params[i])->ident);
    const char *kw = "";
    for (int i = 0; i < hk->nsides; i++)
        if (hk->sides[i]->role == ROLE_IMPLICIT) kw = arena_printf(a, "%s, %s=None", kw, pk->pa[hk->sides[i]->index].ident);
    kw = arena_printf(a, "%s, queue=None, wait_for=None, global_size=None, local_size=None", kw);
    pr_blank(p);
    emit_def(p, pk->method, arena_printf(a, "%s, *%s", params, kw), a);
    pr_indent(p);
    emit_docstring(p, abi, pk);
    if (fast_path_ok(pk)) emit_fast_path(p, pk);
    pr_line(p, "rt = self.runtime");
    pr_line(p, "q = self.queue if queue is None else rt.queue_for(queue)");
    pr_line(p, "copies, events, written = [], list(wait_for) if wait_for else [], []");
    for (int i = 0; i < hk->nparams; i++) emit_param(p, pk, &hk->params[i]);
    pr_blank(p);
    emit_sizes(p, pk);
    emit_launch_inputs(p, pk);
    emit_checks(p, pk);
    if (hk->nsides) pr_blank(p);
    if (hk->nresults) {
        const char *vecs = "";
        int nv = 0;
        for (int i = 0; i < hk->nparams; i++)
            if (hk->params[i].kind == HP_VECTOR || hk->params[i].kind == HP_BYTES) {
                vecs = arena_printf(a, "%s%s%s", vecs, nv ? ", " : "", param_names(pk, &hk->params[i])->ident);
                nv++;
            }
        pr_line(p, "# results come back as %s when any vector is device memory", pk->cuda ? "DeviceArrays" : "pyopencl arrays");
        if (nv) pr_line(p, "dev = any(type(v) is not np.ndarray for v in (%s%s))", vecs, nv == 1 ? "," : "");
        else pr_line(p, "dev = False");
        pr_line(p, "results = []");
    }
    for (int i = 0; i < hk->nsides; i++) emit_side_channel(p, pk, hk->sides[i]);
    emit_local_check(p, pk);
    pr_blank(p);
    const char *args = "";
    for (int i = 0; i < k->nargs; i++) args = arena_printf(a, "%s%s%s", args, i ? ", " : "", arg_value(pk, &k->args[i]));
    /* rt.launch inline (per-call cost: one Python call and a tuple less) */
    pr_line(p, "try:");
    pr_line(p, "    if 0 in gs:");
    pr_line(p, "        ev = rt.marker(q, events)     # nothing runs");
    pr_line(p, "    else:");
    pr_indent(p);
    pr_indent(p);
    py_line(p, a, "ev = self.%s(q, gs, ls, %s%swait_for=events or None)", pk->attr, args, k->nargs ? ", " : "");
    pr_dedent(p);
    pr_dedent(p);
    pr_line(p, "except cl.Error as e:");
    pr_line(p, "    raise rt.launch_error(self.%s, gs, ls, e) from None", pk->attr);
    pr_line(p, "if written:");
    pr_line(p, "    rt.add_event(written, ev)");
    if (hk->debug) pr_line(p, "self._debug.append((q, %s, %s))", pk->pa[hk->debug->index].mem, pk->pa[hk->debug->index].len);
    pr_line(p, "if copies:");
    pr_line(p, "    rt.copy_back(q, copies, ev)     # host memory: copy back and wait");
    if (hk->nresults == 1) pr_line(p, "return results[0]");
    else if (hk->nresults > 1) pr_line(p, "return tuple(results)");
    else pr_line(p, "return ev");
    pr_dedent(p);
    if (pk->method != k->name) {
        /* a kernel named like a Python keyword: reachable by getattr */
        pr_blank(p);
        pr_line(p, "locals()[\"%s\"] = %s", k->name, pk->method);
    }
}

/* ---- whole-vector sorts (gen-bitonic-sort-vector, lib/sort.crisp) ---- */

/* The method NAME(data) that runs the three kernels of a bitonic sort: the
 * workgroup sorts of 2 x WG elements, then for j = 4 WG, 8 WG .. (the
 * power of two >= n) the global merge steps k = j/2 .. 2 WG and the local
 * pass of the steps WG .. 1 (docs/library.md "Sorting"). */
static void emit_sort_method(Printer *p, const Abi *abi, const AbiSort *s, const PyKernel *pks, Arena *a) {
    const PyKernel *kc = &pks[s->k[0] - abi->kernels], *km = &pks[s->k[1] - abi->kernels],
                   *kl = &pks[s->k[2] - abi->kernels];
    const char *dt = arena_printf(a, "%s.device_dtype", elem_const(a, &s->k[0]->args[0]));
    pr_blank(p);
    emit_def(p, s->name, "self, data, *, queue=None, wait_for=None", a);
    pr_indent(p);
    pr_line(p, "\"\"\"%s DATA (a numpy or pyopencl array of %s) in ascending order", s->in_place ? "Sort" : "Return a sorted copy of",
            astr(s->elem));
    pr_line(p, "with the kernels %s,", kc->method);
    pr_line(p, "%s and %s", km->method, kl->method);
    pr_line(p, "(gen-bitonic-sort-vector%s, lib/sort.crisp; a bitonic sort: not stable).", s->in_place ? "!" : "");
    if (s->in_place) {
        pr_line(p, "A pyopencl array is sorted on the device and the call returns its last event");
        pr_line(p, "(None for fewer than 2 elements: nothing runs);");
    } else
        pr_line(p, "A pyopencl array gives a pyopencl array (the call returns without waiting),");
    if (s->in_place)
        pr_line(p, "a numpy array is copied in, sorted and copied back (the call waits).");
    else
        pr_line(p, "a numpy array a numpy array.");
    pr_line(p, "\"\"\"");
    pr_line(p, "rt = self.runtime");
    pr_line(p, "q = self.queue if queue is None else rt.queue_for(queue)");
    pr_line(p, "host = type(data) is np.ndarray");
    pr_line(p, "if host:");
    pr_line(p, "    d = crisp_runtime.cl_array.to_device(q, np.ascontiguousarray(data, %s)) if data.size else None", dt);
    pr_line(p, "else:");
    pr_line(p, "    d = data%s", s->in_place ? "" : ".copy(queue=q)");
    pr_line(p, "n = data.size");
    pr_line(p, "ev = None");
    pr_line(p, "wait = list(wait_for) if wait_for else None");
    pr_line(p, "if n > 1:");
    pr_indent(p);
    pr_line(p, "wg = %d", s->wg);
    pr_line(p, "groups = -(-n // (2 * wg))");
    pr_line(p, "ev = self.%s(d, queue=q, wait_for=wait, global_size=groups * wg)", kc->method);
    pr_line(p, "pairs = 1");
    pr_line(p, "while 2 * pairs < n:");
    pr_line(p, "    pairs *= 2");
    pr_line(p, "j = 4 * wg");
    pr_line(p, "while j // 2 < n:");
    pr_line(p, "    k = j // 2");
    pr_line(p, "    while k > wg:");
    pr_line(p, "        ev = self.%s(d, j, k, queue=q, wait_for=[ev], global_size=pairs)", km->method);
    pr_line(p, "        k //= 2");
    pr_line(p, "    ev = self.%s(d, j, k, queue=q, wait_for=[ev], global_size=groups * wg)", kl->method);
    pr_line(p, "    j *= 2");
    pr_dedent(p);
    pr_line(p, "if host:");
    pr_indent(p);
    pr_line(p, "out = d.get(queue=q) if d is not None else np.array(data, copy=True)");
    if (s->in_place) {
        pr_line(p, "data[...] = out");
        pr_line(p, "return None");
    } else
        pr_line(p, "return out");
    pr_dedent(p);
    pr_line(p, "return %s", s->in_place ? "ev" : "d");
    pr_dedent(p);
}

/* The method NAME(keys[, values]) of a radix sort (gen-radix-sort-vector):
 * per pass of digit_bits bits, the count, scan and scatter kernels (count
 * and scatter on a workgroup per tile), ping-ponging between KEYS and a
 * second buffer (an even number of passes: the result ends in KEYS). */
static void emit_radix_method(Printer *p, const Abi *abi, const AbiSort *s, const PyKernel *pks, Arena *a) {
    const PyKernel *kc = &pks[s->k[0] - abi->kernels], *ks = &pks[s->k[1] - abi->kernels],
                   *kx = &pks[s->k[2] - abi->kernels];
    const char *dt = arena_printf(a, "%s.device_dtype", elem_const(a, &s->k[0]->args[0]));
    const char *vdt = s->pairs ? arena_printf(a, "%s.device_dtype", elem_const(a, &s->k[2]->args[s->k[2]->param_arg[4]])) : NULL;
    pr_blank(p);
    emit_def(p, s->name, s->pairs ? "self, keys, values, *, queue=None, wait_for=None" : "self, keys, *, queue=None, wait_for=None",
             a);
    pr_indent(p);
    pr_line(p, "\"\"\"Sort KEYS (a numpy or pyopencl array of %s) in place, in ascending order%s", astr(s->elem),
            s->pairs ? "," : ":");
    if (s->pairs) pr_line(p, "moving VALUES (as long as KEYS) with their keys: a stable LSD radix sort");
    else pr_line(p, "a stable LSD radix sort");
    pr_line(p, "of %d passes of %d bits (gen-radix-sort-vector, lib/sort.crisp), each the kernels", s->passes, s->digit_bits);
    pr_line(p, "%s, %s and %s.", kc->method, ks->method, kx->method);
    pr_line(p, "Device arrays are sorted on the device and the call returns the last event (None");
    pr_line(p, "for fewer than 2 elements); numpy arrays are copied in and back (the call waits).");
    pr_line(p, "\"\"\"");
    pr_line(p, "rt = self.runtime");
    pr_line(p, "q = self.queue if queue is None else rt.queue_for(queue)");
    pr_line(p, "n = keys.size");
    if (s->pairs) {
        pr_line(p, "if values.size != n:");
        pr_line(p, "    raise ValueError(\"%s: %%d keys but %%d values\" %% (n, values.size))", s->name);
    }
    pr_line(p, "if n < 2:");
    pr_line(p, "    return None");
    pr_line(p, "host = type(keys) is np.ndarray");
    pr_line(p, "a = crisp_runtime.cl_array.to_device(q, np.ascontiguousarray(keys, %s)) if host else keys", dt);
    pr_line(p, "b = crisp_runtime.cl_array.empty(q, n, a.dtype)");
    if (s->pairs) {
        pr_line(p, "vhost = type(values) is np.ndarray");
        pr_line(p, "va = crisp_runtime.cl_array.to_device(q, np.ascontiguousarray(values, %s)) if vhost else values", vdt);
        pr_line(p, "vb = crisp_runtime.cl_array.empty(q, n, va.dtype)");
    }
    pr_line(p, "# a workgroup of %d threads per tile of %d keys; the tiles' %d digit counts", s->wg, s->wg * s->kpt,
            1 << s->digit_bits);
    pr_line(p, "tiles = -(-n // %d)", s->wg * s->kpt);
    pr_line(p, "counts = crisp_runtime.cl_array.empty(q, %d * tiles, np.uint32)", 1 << s->digit_bits);
    pr_line(p, "ev = None");
    pr_line(p, "wait = list(wait_for) if wait_for else None");
    pr_line(p, "for shift in range(0, %d, %d):", s->digit_bits * s->passes, s->digit_bits);
    pr_indent(p);
    pr_line(p, "ev = self.%s(a, counts, shift, queue=q, wait_for=wait, global_size=tiles * %d)", kc->method, s->wg);
    pr_line(p, "ev = self.%s(counts, queue=q, wait_for=[ev], global_size=min(%d * tiles, 65536))", ks->method, 1 << s->digit_bits);
    if (s->pairs) {
        pr_line(p, "ev = self.%s(a, b, counts, shift, va, vb, queue=q, wait_for=[ev], global_size=tiles * %d)", kx->method, s->wg);
        pr_line(p, "va, vb = vb, va");
    } else
        pr_line(p, "ev = self.%s(a, b, counts, shift, queue=q, wait_for=[ev], global_size=tiles * %d)", kx->method, s->wg);
    pr_line(p, "a, b = b, a");
    pr_line(p, "wait = [ev]");
    pr_dedent(p);
    pr_line(p, "if host:");
    pr_line(p, "    keys[...] = a.get(queue=q)");
    if (s->pairs) {
        pr_line(p, "if vhost:");
        pr_line(p, "    values[...] = va.get(queue=q)");
        pr_line(p, "return None if host and vhost else ev");
    } else
        pr_line(p, "return None if host else ev");
    pr_dedent(p);
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
 * vector gets DEMO_SLACK * n elements, enough for kernels that write
 * several elements per work-item. */
static int sizes_launch(const HostKernel *hk, const AbiArg *x) {
    const HostLaunch *l = &hk->launch;
    const SizeDecl *g = hk->k->gsize;
    if (!g || !g->present || !g->nderive) return 0;
    for (int d = 0; d < l->nglobal; d++)
        if (l->global[d] && l->global[d]->op == SZ_LENGTH && l->global[d]->param_index >= 0 &&
            l->global[d]->param_index < hk->nparams && hk->params[l->global[d]->param_index].arg == x)
            return 1;
    return 0;
}

/* Dummy data for a vector: 1..7 repeating for inputs, zeros for outputs.
 * Without a global-size declaration the demo passes global_size=(n,) and
 * every vector gets the slack (kernels often read several elements per
 * thread). */
/* A demo vector for argument X of HK: N elements when it sets the launch
 * size (or EVERY_N: an orchestration's, whose steps pass vectors on), else
 * DEMO_SLACK * N. */
static const char *demo_vector_n(const HostKernel *hk, const AbiArg *x, Arena *a, int every_n) {
    int lanes;
    const char *np = elem_np(x, &lanes);
    const char *n = x->fixed_length >= 0                           ? arena_printf(a, "%lld", (long long)x->fixed_length)
                    : every_n || sizes_launch(hk, x) || x->as == AS_CONSTANT ? "n"
                                                                    : "DEMO_SLACK * n";
    if (struct_of(x->elem_ty)) return arena_printf(a, "np.zeros(%s, %s)", n, struct_dtype_name(a, x->elem_ty->sd));
    if (x->acc == ACC_READ_ONLY) {
        if (lanes == 1) return arena_printf(a, "(np.arange(%s) %% 7 + 1).astype(np.%s)", n, np);
        return arena_printf(a, "(np.arange(%s * %d) %% 7 + 1).astype(np.%s).reshape(-1, %d)", n, lanes, np, lanes);
    }
    if (lanes == 1) return arena_printf(a, "np.zeros(%s, np.%s)", n, np);
    return arena_printf(a, "np.zeros((%s, %d), np.%s)", n, lanes, np);
}

static const char *demo_vector(const HostKernel *hk, const AbiArg *x, Arena *a) {
    return demo_vector_n(hk, x, a, 0);
}

static const char *orch_method(const Abi *abi, const AbiOrch *ao, Arena *a);

static void emit_demo(Printer *p, const Abi *abi, const HoistOptions *o, const PyKernel *pks, Arena *a) {
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
    pr_line(p, "print(\"%s.%s on %%s\" %% crisp_runtime.describe_device(hoist.queue.device))", o->base, o->cuda ? "ptx" : "cl");
    for (int ki = 0; ki < abi->nkernels; ki++) {
        const PyKernel *pk = &pks[ki];
        const HostKernel *hk = pk->hk;
        const AbiKernel *k = pk->k;
        pr_blank(p);
        pr_line(p, "# %s", one_line(a, signature_text(a, k)));
        const char *call = "";
        const char *show = NULL;
        for (int i = 0; i < hk->nparams; i++) {
            const HostParam *hp = &hk->params[i];
            const AbiArg *x = hp->arg;
            const char *id = param_names(pk, hp)->ident;
            if (id && in_list(demo_taken, id)) id = arena_printf(a, "%s_", id);
            if (hp->kind == HP_SCALAR) {
                pr_line(p, "%s = %s", id, demo_scalar(x, a));
            } else if (hp->kind == HP_LOCAL) {
                long long count = 64;
                if (k->lsize && k->lsize->nset) {
                    long long prod = 1;
                    for (int d = 0; d < k->lsize->nset; d++) prod *= (long long)k->lsize->set_to[d];
                    if (prod > count) count = prod;
                }
                pr_line(p, "%s = %lld                   # __local: an element count", id, count);
            } else {
                pr_line(p, "%s = %s", id, demo_vector(hk, x, a));
                if (!show && hp->downloads) show = id;
            }
            call = arena_printf(a, "%s%s%s", astr(call), *astr(call) ? ", " : "", id);
        }
        if (hk->launch.needs_global || (!hk->launch.single_task && !(k->gsize && k->gsize->present && k->gsize->nset + k->gsize->nderive))) {
            const char *g = "(n,";
            for (int d = 1; d < hk->launch.dims; d++) g = arena_printf(a, "%s 1,", g);
            call = arena_printf(a, "%s%sglobal_size=%s)", astr(call), *astr(call) ? ", " : "", g);
        }
        if (hk->nresults) {
            pr_line(p, "result = hoist.%s(%s)", pk->method, astr(call));
            show = hk->nresults > 1 ? "result[0]" : "result";
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
    for (int oi = 0; oi < abi->norchs; oi++) {
        const AbiOrch *ao = &abi->orchs[oi];
        pr_blank(p);
        pr_line(p, "# orchestration %s", ao->o->name);
        const char *call = "";
        for (int b = 0; b < ao->nbufs; b++) {
            const AbiOrchBuf *ob = &ao->bufs[b];
            if (!ob->fresh) continue;
            const HostKernel *hk = pks[ao->kernel[ob->step]].hk;
            const char *id = ob->ident;
            if (in_list(demo_taken, id)) id = arena_printf(a, "%s_", id);
            if (ob->arg->role == ROLE_SCALAR) pr_line(p, "%s = %s", id, demo_scalar(ob->arg, a));
            else pr_line(p, "%s = %s", id, demo_vector_n(hk, ob->arg, a, 1));
            call = arena_printf(a, "%s%s%s", call, *call ? ", " : "", id);
        }
        pr_line(p, "result = hoist.%s(%s)", orch_method(abi, ao, a), call);
        pr_line(p, "for name, value in result.items():");
        pr_line(p, "    print(\"%s: %%s =\" %% name, crisp_runtime.preview(value))", ao->o->name);
    }
    pr_line(p, "hoist.queue.finish()                # kernels on device memory only: done too");
    pr_line(p, "print(\"%d kernel%s ran\")", abi->nkernels, abi->nkernels == 1 ? "" : "s");
    pr_line(p, "return 0");
    pr_dedent(p);
    top_gap(p);
    pr_line(p, "if __name__ == \"__main__\":");
    pr_line(p, "    sys.exit(demo())");
}

/* ------------------------------------------------------------------ */
/* Orchestrations (spec "Hoisting and def-orchestration"): one method  */
/* each, running its steps on device memory                           */

static const char *orch_method(const Abi *abi, const AbiOrch *ao, Arena *a) {
    const char *m = ao->o->ident;
    for (int i = 0; i < abi->nkernels; i++)
        if (!strcmp(abi->kernels[i].name, m)) m = arena_printf(a, "%s_orchestration", m);
    if (in_list(py_keywords, m) || in_list(py_taken, m)) m = arena_printf(a, "%s_", m);
    return m;
}

static const char *orch_mode_name(OrchMode m) {
    return m == ORCH_PARALLEL ? "launch-parallel" : m == ORCH_INTERLEAVED ? "launch-interleaved" : "launch-sequential";
}

/* "vector_scale(vector_add::C, _, _)" */
static const char *orch_step_text(const AbiOrch *ao, int s, Arena *a) {
    const OrchStep *st = &ao->o->steps[s];
    const char *t = arena_printf(a, "%s(", st->kernel);
    for (int j = 0; j < st->nargs; j++) {
        const OrchArg *x = &st->args[j];
        const char *w = x->expr ? orch_expr_text(a, ao, x->expr, ORCH_TEXT_CRISP, NULL, NULL) : x->step < 0 ? "_" : arena_printf(a, "%s::%s", ao->o->steps[x->step].kernel,
                                                          x->side ? x->side : ao->bufs[ao->slot[s][j]].arg->name);
        t = arena_printf(a, "%s%s%s", t, j ? " " : "", w);
    }
    return arena_printf(a, "%s)", t);
}

/* The dict key of what step S's NAME is: "KERNEL::NAME", "KERNEL::NAME#S"
 * when an earlier step launched the same kernel. */
static const char *orch_key(const AbiOrch *ao, int s, const char *name, Arena *a) {
    int again = 0;
    for (int t = 0; t < s; t++) again |= !strcmp(ao->o->steps[t].kernel, ao->o->steps[s].kernel);
    return again ? arena_printf(a, "%s::%s#%d", ao->o->steps[s].kernel, name, s) : arena_printf(a, "%s::%s", ao->o->steps[s].kernel, name);
}

static void emit_orch_interleave_cuda(Printer *p);

static void emit_orch_helpers(Printer *p, int cuda) {
    const char *arrays = cuda ? "crisp_runtime.DeviceArray" : "crisp_runtime.cl_array";
    if (!cuda) {
        pr_blank(p);
        pr_line(p, "# launch-interleaved copies each chunk's results out of the pinned memory on a");
        pr_line(p, "# second thread, while this one stages the next chunks (False: after them all)");
        pr_line(p, "INTERLEAVE_COPY_THREAD = True");
    }
    top_gap(p);
    pr_line(p, "def _orch_in(q, value, host, name, upload=True):");
    pr_line(p, "    \"\"\"An orchestration's argument on the device: a numpy array is copied once");
    pr_line(p, "    (zeros instead when no step reads it) and remembered in HOST, to be copied");
    pr_line(p, "    back; device memory and scalars are used as they are.\"\"\"");
    pr_line(p, "    if isinstance(value, np.ndarray):");
    pr_line(p, "        host[name] = value");
    pr_line(p, "        if not upload:");
    pr_line(p, "            return %s.zeros(q, value.shape, value.dtype)", arrays);
    pr_line(p, "        return %s.to_device(q, np.ascontiguousarray(value))", arrays);
    if (!cuda) {
        pr_line(p, "    if type(value) is _ARRAY:");
        pr_line(p, "        host[\"\"] = True                # device memory given: results stay on the device");
    }
    pr_line(p, "    return value");
    top_gap(p);
    if (!cuda) {
        pr_line(p, "def _parallel_queues(q, pool, k):");
        pr_line(p, "    \"\"\"Q and K - 1 more queues on its device (kept in POOL for the next call):");
        pr_line(p, "    one per kernel of a launch-parallel form, so that none waits for another.\"\"\"");
        pr_line(p, "    qs = pool.setdefault(\"queues\", [])");
        pr_line(p, "    while len(qs) < k - 1:");
        pr_line(p, "        qs.append(cl.CommandQueue(q.context, q.device))");
        pr_line(p, "    return [q] + qs[:k - 1]");
        top_gap(p);
        pr_line(p, "def _thread_share(q, k):");
        pr_line(p, "    \"\"\"The work-items Q's device runs at once (compute units x its largest");
        pr_line(p, "    workgroup) divided among K kernels (spec \"launch parallel\").\"\"\"");
        pr_line(p, "    d = q.device");
        pr_line(p, "    return max(1, d.max_compute_units * d.max_work_group_size // k)");
        top_gap(p);
    }
    pr_line(p, "def _orch_len(value):");
    pr_line(p, "    \"\"\"The element count of an orchestration's vector (to size an intermediate).\"\"\"");
    pr_line(p, "    if type(value) is _ARRAY or isinstance(value, np.ndarray):");
    pr_line(p, "        return value.size");
    pr_line(p, "    raise TypeError(\"give the intermediate explicitly: its length cannot be taken from a %%s\" %% type(value).__name__)");
    top_gap(p);
    pr_line(p, "def _orch_out(q, written, host):");
    pr_line(p, "    \"\"\"What the steps wrote, by KERNEL::NAME: a numpy argument filled in place;");
    pr_line(p, "    the rest as numpy arrays, or as they are on the device (pyopencl arrays, no");
    pr_line(p, "    copy) when the caller gave a vector as a pyopencl array.\"\"\"");
    pr_line(p, "    device = host.pop(\"\", False)");
    pr_line(p, "    out = {}");
    pr_line(p, "    for name, value in written.items():");
    pr_line(p, "        if type(value) is _ARRAY and (name in host or not device):");
    pr_line(p, "            data = value.get(%s)", cuda ? "" : "queue=q");
    pr_line(p, "            if name in host:");
    pr_line(p, "                host[name][...] = data.reshape(host[name].shape)");
    pr_line(p, "                data = host[name]");
    pr_line(p, "            value = data");
    pr_line(p, "        out[name] = value");
    pr_line(p, "    return out");
    if (cuda) {
        emit_orch_interleave_cuda(p);
        return;
    }
    top_gap(p);
    pr_line(p, "def _orch_interleave(q, method, args, vectors, inputs, outputs, offset, length, chunk, queues, pool):");
    pr_line(p, "    \"\"\"launch-interleaved: ARGS with the numpy arrays at indexes VECTORS split");
    pr_line(p, "    into chunks of CHUNK elements (INPUTS: those the kernel reads, OUTPUTS: those");
    pr_line(p, "    it writes).  Each is staged in pinned host memory (CL_MEM_ALLOC_HOST_PTR,");
    pr_line(p, "    mapped) with a device buffer beside it, both kept in POOL for the next call");
    pr_line(p, "    of the same size (Kernels.release_staging() frees them).  Chunk c is copied");
    pr_line(p, "    into the pinned memory on the host, then copied in, computed (METHOD with");
    pr_line(p, "    ARGS[OFFSET] = its first element and ARGS[LENGTH] = its size) and copied out");
    pr_line(p, "    on queue c %% QUEUES, flushed at once: the host's copy of the next chunk, the");
    pr_line(p, "    transfers and the kernels of other chunks overlap.  Each chunk's result is");
    pr_line(p, "    copied out of the pinned memory, by a second thread, as soon as its transfer is");
    pr_line(p, "    done.\"\"\"");
    pr_line(p, "    import queue as queue_");
    pr_line(p, "    import threading");
    pr_line(p, "    ctx = q.context");
    pr_line(p, "    n = min(len(args[i].reshape(-1)) for i in vectors) if vectors else 0");
    pr_line(p, "    qs = pool.setdefault(\"queues\", [])");
    pr_line(p, "    while len(qs) < max(1, queues) - 1:");
    pr_line(p, "        qs.append(cl.CommandQueue(ctx, q.device))");
    pr_line(p, "    qs = [q] + qs[:max(1, queues) - 1]");
    pr_line(p, "    mf = cl.mem_flags");
    pr_line(p, "    host, staged, dev = {}, {}, {}");
    pr_line(p, "    for slot, i in enumerate(vectors):");
    pr_line(p, "        host[i] = args[i].reshape(-1)[:n]");
    pr_line(p, "        nbytes = max(host[i].nbytes, 1)");
    pr_line(p, "        kept = pool.get(slot)");
    pr_line(p, "        if kept is None or kept[0].size != nbytes:");
    pr_line(p, "            if kept is not None:");
    pr_line(p, "                _staging_free(q, kept)");
    pr_line(p, "            pinned = cl.Buffer(ctx, mf.READ_WRITE | mf.ALLOC_HOST_PTR, nbytes)");
    pr_line(p, "            raw, _ev = cl.enqueue_map_buffer(q, pinned, cl.map_flags.READ | cl.map_flags.WRITE, 0,");
    pr_line(p, "                                             (nbytes,), np.uint8, is_blocking=True)");
    pr_line(p, "            kept = pool[slot] = (pinned, raw, cl.Buffer(ctx, mf.READ_WRITE, nbytes))");
    pr_line(p, "        staged[i] = kept[1][:host[i].nbytes].view(host[i].dtype)");
    pr_line(p, "        dev[i] = kept[2]");
    pr_line(p, "    call = list(args)");
    pr_line(p, "    for i in vectors:");
    pr_line(p, "        call[i] = dev[i]             # a cl.Buffer: no events between the chunks' kernels");
    pr_line(p, "    pending = queue_.SimpleQueue()   # chunks whose results are on their way out");
    pr_line(p, "    pending_here = []");
    pr_line(p, "    failed = []");
    pr_blank(p);
    pr_line(p, "    def copy_out():                  # a thread: copies out while the host stages the next chunks");
    pr_line(p, "        try:");
    pr_line(p, "            while True:");
    pr_line(p, "                item = pending.get()");
    pr_line(p, "                if item is None:");
    pr_line(p, "                    return");
    pr_line(p, "                start, end, events = item");
    pr_line(p, "                cl.wait_for_events(events)");
    pr_line(p, "                for i in outputs:");
    pr_line(p, "                    host[i][start:end] = staged[i][start:end]");
    pr_line(p, "        except BaseException as e:   # re-raised by the caller's thread");
    pr_line(p, "            failed.append(e)");
    pr_line(p, "            while pending.get() is not None:");
    pr_line(p, "                pass");
    pr_blank(p);
    pr_line(p, "    worker = threading.Thread(target=copy_out, daemon=True) if outputs and INTERLEAVE_COPY_THREAD else None");
    pr_line(p, "    if worker:");
    pr_line(p, "        worker.start()");
    pr_line(p, "    try:");
    pr_line(p, "        for c, start in enumerate(range(0, n, chunk)):");
    pr_line(p, "            cq = qs[c %% len(qs)]");
    pr_line(p, "            end = min(n, start + chunk)");
    pr_line(p, "            for i in inputs:");
    pr_line(p, "                staged[i][start:end] = host[i][start:end]");
    pr_line(p, "                cl.enqueue_copy(cq, dev[i], staged[i][start:end], dst_offset=start * staged[i].itemsize,");
    pr_line(p, "                                is_blocking=False)");
    pr_line(p, "            call[offset], call[length] = start, end - start");
    pr_line(p, "            method(*call, queue=cq, global_size=(end - start,))");
    pr_line(p, "            events = [cl.enqueue_copy(cq, staged[i][start:end], dev[i], src_offset=start * staged[i].itemsize,");
    pr_line(p, "                                      is_blocking=False) for i in outputs]");
    pr_line(p, "            cq.flush()               # start now, while the host stages the next chunk");
    pr_line(p, "            if worker:");
    pr_line(p, "                pending.put((start, end, events))");
    pr_line(p, "            elif events:");
    pr_line(p, "                pending_here.append((start, end, events))");
    pr_line(p, "    finally:");
    pr_line(p, "        if worker:");
    pr_line(p, "            pending.put(None)");
    pr_line(p, "            worker.join()");
    pr_line(p, "    if failed:");
    pr_line(p, "        raise failed[0]");
    pr_line(p, "    for start, end, events in pending_here:   # INTERLEAVE_COPY_THREAD off: copied out here");
    pr_line(p, "        cl.wait_for_events(events)");
    pr_line(p, "        for i in outputs:");
    pr_line(p, "            host[i][start:end] = staged[i][start:end]");
    pr_line(p, "    for cq in qs:");
    pr_line(p, "        cq.finish()");
    top_gap(p);
    pr_line(p, "def _staging_free(q, kept):");
    pr_line(p, "    \"\"\"Unmap and release one (pinned, mapped view, device buffer) of a staging pool.\"\"\"");
    pr_line(p, "    pinned, raw, mem = kept");
    pr_line(p, "    raw.base.release(q)");
    pr_line(p, "    q.finish()");
    pr_line(p, "    pinned.release()");
    pr_line(p, "    mem.release()");
}

/* _orch_interleave for the PyCUDA hoist: the chunks' copies and kernels on
 * QUEUES streams, through the driver binding's asynchronous copies (from
 * the numpy arrays themselves: the bindings allocate no pinned memory). */
static void emit_orch_interleave_cuda(Printer *p) {
    top_gap(p);
    pr_line(p, "def _orch_interleave(q, method, args, vectors, inputs, outputs, offset, length, chunk, queues):");
    pr_line(p, "    \"\"\"launch-interleaved: ARGS with the numpy arrays at indexes VECTORS split");
    pr_line(p, "    into chunks of CHUNK elements (INPUTS: those the kernel reads, OUTPUTS: those");
    pr_line(p, "    it writes).  Chunk c is copied in, computed (METHOD with ARGS[OFFSET] = its");
    pr_line(p, "    first element and ARGS[LENGTH] = its size) and copied out on stream c %% QUEUES");
    pr_line(p, "    (the first is Q, the others new streams), so the copies of one chunk can");
    pr_line(p, "    overlap the kernels of others.\"\"\"");
    pr_line(p, "    b = crisp_runtime.binding()");
    pr_line(p, "    n = min(len(args[i].reshape(-1)) for i in vectors) if vectors else 0");
    pr_line(p, "    qs = [q] + [crisp_runtime.Stream(q.device) for _ in range(max(1, queues) - 1)]");
    pr_line(p, "    staged, dev = {}, {}");
    pr_line(p, "    for i in vectors:");
    pr_line(p, "        staged[i] = np.ascontiguousarray(args[i].reshape(-1)[:n])");
    pr_line(p, "        dev[i] = crisp_runtime.DeviceArray(q, staged[i].shape, staged[i].dtype)");
    pr_line(p, "    call = list(args)");
    pr_line(p, "    for i in vectors:");
    pr_line(p, "        call[i] = dev[i]");
    pr_line(p, "    for c, start in enumerate(range(0, n, chunk)):");
    pr_line(p, "        cq = qs[c %% len(qs)]");
    pr_line(p, "        size = min(chunk, n - start)");
    pr_line(p, "        for i in inputs:");
    pr_line(p, "            isz = staged[i].dtype.itemsize");
    pr_line(p, "            b.htod(dev[i].base_data + start * isz, staged[i][start:start + size], cq.handle)");
    pr_line(p, "        call[offset], call[length] = start, size");
    pr_line(p, "        method(*call, queue=cq, global_size=(size,))");
    pr_line(p, "        for i in outputs:");
    pr_line(p, "            isz = staged[i].dtype.itemsize");
    pr_line(p, "            b.dtoh(staged[i][start:start + size], dev[i].base_data + start * isz, cq.handle)");
    pr_line(p, "    for cq in qs:");
    pr_line(p, "        cq.finish()");
    pr_line(p, "    for i in outputs:");
    pr_line(p, "        args[i].reshape(-1)[:n] = staged[i]");
    pr_line(p, "    q.finish()");
}

/* The length of an orchestration's buffer B, for a value the host computes. */
static const char *py_len(void *ctx, int b) {
    return arena_printf((Arena *)ctx, "_orch_len(b%d)", b);
}

/* The run-time loops that begin at step S (outer first): a while loop each
 * (spec "More notes on def-orchestration"; types/check.h OrchLoop). */
static void py_open_loops(Printer *p, const AbiOrch *ao, int s, Arena *a) {
    const Orchestration *o = ao->o;
    for (int l = 0; l < o->nloops; l++) {
        const OrchLoop *ol = &o->loops[l];
        if (ol->first != s) continue;
        const char *v = orch_loop_var(a, ao, l);
        pr_line(p, "# (%s (%s %s %s))", ol->halving ? "do-times-by-half" : "do-times-by-doubling", ol->var,
                orch_expr_text(a, ao, ol->start, ORCH_TEXT_CRISP, NULL, NULL), orch_expr_text(a, ao, ol->limit, ORCH_TEXT_CRISP, NULL, NULL));
        pr_line(p, "%s = %s", v, orch_expr_text(a, ao, ol->start, ORCH_TEXT_PY, py_len, a));
        if (ol->halving) pr_line(p, "while %s >= %s and %s > 0:", v, orch_expr_text(a, ao, ol->limit, ORCH_TEXT_PY, py_len, a), v);
        else pr_line(p, "while 0 < %s <= %s:", v, orch_expr_text(a, ao, ol->limit, ORCH_TEXT_PY, py_len, a));
        pr_indent(p);
    }
}

/* The run-time loops that end after step S (inner first). */
static void py_close_loops(Printer *p, const AbiOrch *ao, int s, Arena *a) {
    const Orchestration *o = ao->o;
    for (int l = o->nloops - 1; l >= 0; l--) {
        const OrchLoop *ol = &o->loops[l];
        if (ol->end != s + 1) continue;
        const char *v = orch_loop_var(a, ao, l);
        pr_line(p, ol->halving ? "%s //= 2" : "%s *= 2", v);
        pr_dedent(p);
    }
}

static void emit_orch_method(Printer *p, const Abi *abi, const AbiOrch *ao, const PyKernel *pks, const char *file, Arena *a) {
    const Orchestration *o = ao->o;
    const char *params = "self";
    for (int b = 0; b < ao->nbufs; b++)
        if (ao->bufs[b].fresh) params = arena_printf(a, "%s, %s", params, ao->bufs[b].ident);
    int interleaved = 0;
    for (int s = 0; s < o->nsteps; s++) interleaved |= o->steps[s].mode == ORCH_INTERLEAVED;
    /* an event after what Q holds: a marker (OpenCL), an event recorded on the stream (CUDA) */
    const char *marker = pks[0].cuda ? "crisp_runtime.Event(q)" : "cl.enqueue_marker(q)";
    pr_blank(p);
    emit_def(p, orch_method(abi, ao, a),
             arena_printf(a, "%s, *, queue=None%s", params, interleaved ? ", chunk=None, queues=2" : ""), a);
    pr_indent(p);
    pr_line(p, "\"\"\"Run orchestration %s (%s:%d, %s).", o->name, file, o->line, o->origin);
    pr_blank(p);
    for (int s = 0; s < o->nsteps; s++)
        pr_line(p, "    %s %s", orch_mode_name(o->steps[s].mode), orch_step_text(ao, s, a));
    for (int l = 0; l < o->nloops; l++) {
        const OrchLoop *ol = &o->loops[l];
        pr_line(p, "  steps %d .. %d run in (%s (%s %s %s))", ol->first, ol->end - 1, ol->halving ? "do-times-by-half" : "do-times-by-doubling",
                ol->var, orch_expr_text(a, ao, ol->start, ORCH_TEXT_CRISP, NULL, NULL), orch_expr_text(a, ao, ol->limit, ORCH_TEXT_CRISP, NULL, NULL));
    }
    pr_blank(p);
    for (int b = 0; b < ao->nbufs; b++)
        if (ao->bufs[b].like >= 0)
            pr_line(p, "%s may be None: an intermediate, made on the device as long as %s.", ao->bufs[b].ident, ao->bufs[ao->bufs[b].like].ident);
    pr_line(p, "Arguments are the `_` of each step, named KERNEL_PARAM: numpy arrays or device");
    pr_line(p, "memory (used in place); scalars are numbers.  A numpy array a step reads is");
    pr_line(p, "copied to the device once (one only written starts as zeros there) and comes");
    pr_line(p, "back when a step writes it.  What one step passes to another stays on the");
    pr_line(p, "device.  Waits, and returns a dict of every vector the steps write, by");
    pr_line(p, "KERNEL::NAME, as numpy arrays (result vectors too), or left on the device");
    pr_line(p, "(pyopencl arrays) when a vector was given as a pyopencl array.");
    if (interleaved) {
        pr_line(p, "launch-interleaved: chunk= elements per chunk (default: an eighth), queues=");
        pr_line(p, "the number of command queues the chunks rotate over.");
    }
    pr_line(p, "\"\"\"");
    pr_line(p, "q = self.queue if queue is None else queue");
    pr_line(p, "host, written = {}, {}");
    for (int b = 0; b < ao->nbufs; b++) {
        const AbiOrchBuf *ob = &ao->bufs[b];
        if (!ob->fresh) continue;
        const char *key = orch_key(ao, ob->step, ob->arg->name, a);
        if (ob->like >= 0) {
            pr_line(p, "if %s is None:       # an intermediate: made on the device, as long as %s", ob->ident, ao->bufs[ob->like].ident);
            pr_line(p, "    b%d = None", b);
            pr_line(p, "else:");
            pr_line(p, "    b%d = _orch_in(q, %s, host, \"%s\"%s)", b, ob->ident, key, ob->read ? "" : ", upload=False");
        } else if (ob->arg->role == ROLE_BUFFER && !(o->steps[ob->step].mode == ORCH_INTERLEAVED && !o->steps[ob->step].exclude[ob->param])) {
            pr_line(p, "b%d = _orch_in(q, %s, host, \"%s\"%s)", b, ob->ident, key, ob->read ? "" : ", upload=False");
        } else {
            pr_line(p, "b%d = %s", b, ob->ident);
        }
    }
    for (int b = 0; b < ao->nbufs; b++) {
        const AbiOrchBuf *ob = &ao->bufs[b];
        if (ob->like < 0) continue;
        pr_line(p, "if b%d is None:", b);
        pr_line(p, "    b%d = %s.new_device(q, _orch_len(b%d))", b, elem_const(a, ob->arg), ob->like);
    }
    pr_line(p, "ev = None");
    int group_kn = 1; /* the kernels of the current launch-parallel form that share the device */
    for (int s = 0; s < o->nsteps; s++) {
        const OrchStep *st = &o->steps[s];
        const PyKernel *pk = &pks[ao->kernel[s]];
        const HostKernel *hk = pk->hk;
        const char *call = "";
        py_open_loops(p, ao, s, a);
        for (int j = 0; j < st->nargs; j++)
            call = st->args[j].expr ? arena_printf(a, "%s%s%s", call, j ? ", " : "", orch_expr_text(a, ao, st->args[j].expr, ORCH_TEXT_PY, py_len, a))
                                    : arena_printf(a, "%s%sb%d", call, j ? ", " : "", ao->slot[s][j]);
        pr_line(p, "# %s %s", orch_mode_name(st->mode), orch_step_text(ao, s, a));
        if (st->mode == ORCH_INTERLEAVED) {
            const char *vecs = "", *outs = "", *ins = "";
            int nv = 0, no = 0, ni = 0;
            for (int j = 0; j < st->nargs; j++)
                if (!st->exclude[j] && hk->params[j].kind == HP_VECTOR && ao->bufs[ao->slot[s][j]].fresh && ao->bufs[ao->slot[s][j]].step == s) {
                    vecs = arena_printf(a, "%s%s%d", vecs, nv ? ", " : "", j);
                    nv++;
                    if (hk->params[j].downloads) outs = arena_printf(a, "%s%s%d", outs, no++ ? ", " : "", j);
                    if (hk->params[j].uploads) ins = arena_printf(a, "%s%s%d", ins, ni++ ? ", " : "", j);
                }
            pr_line(p, "if ev is not None:");
            pr_line(p, "    ev.wait()");
            pr_line(p, "q.finish()");
            pr_line(p, "args = [%s]", call);
            pr_line(p, "vectors = [i for i in (%s%s) if isinstance(args[i], np.ndarray) and args[i].ndim == 1]", vecs, nv == 1 ? "," : "");
            pr_line(p, "n = min(len(args[i].reshape(-1)) for i in vectors) if vectors else 0");
            pr_line(p, "inputs = [i for i in (%s%s) if i in vectors]", ins, ni == 1 ? "," : "");
            pr_line(p, "outputs = [i for i in (%s%s) if i in vectors]", outs, no == 1 ? "," : "");
            py_line(p, a, "_orch_interleave(q, self.%s, args, vectors, inputs, outputs, %d, %d, chunk or max(1, -(-n // 8)), queues%s)",
                    pk->method, st->offset_param, st->length_param, pk->cuda ? "" : ", self._staging");
            for (int j = 0; j < st->nargs; j++) {
                const AbiOrchBuf *ob = &ao->bufs[ao->slot[s][j]];
                if (hk->params[j].kind == HP_VECTOR && ob->written && ob->fresh && ob->step == s)
                    pr_line(p, "written[\"%s\"] = b%d", orch_key(ao, s, ob->arg->name, a), ao->slot[s][j]);
            }
            pr_line(p, "ev = None");
            continue;
        }
        /* launch-parallel: each kernel of the form on its own queue, after
           what came before the form; a kernel any size suits gets its share
           of the device's work-items (spec "launch parallel") */
        int par = st->mode == ORCH_PARALLEL && !pk->cuda; /* PyCUDA: one stream, as before */
        int prev_par = s && o->steps[s - 1].mode == ORCH_PARALLEL;
        if (st->mode == ORCH_PARALLEL && pk->cuda && !prev_par) pr_line(p, "before = ev");
        int gfirst = s;
        while (par && gfirst > 0 && o->steps[gfirst - 1].mode == ORCH_PARALLEL) gfirst--;
        if (par && gfirst == s) {
            int gn = 0, kn = 0;
            for (int t = s; t < o->nsteps && o->steps[t].mode == ORCH_PARALLEL; t++, gn++)
                kn += !pks[ao->kernel[t]].hk->launch.single_task;
            pr_line(p, "before, group = ev, []");
            pr_line(p, "pq = _parallel_queues(q, self._staging, %d)   # a queue per kernel", gn);
            group_kn = kn ? kn : 1;
        }
        const char *qx = par ? arena_printf(a, "pq[%d]", s - gfirst) : "q";
        const char *wait = par || (st->mode == ORCH_PARALLEL && prev_par) ? "before" : "ev";
        const char *kw = arena_printf(a, "queue=%s, wait_for=None if %s is None else [%s]", qx, wait, wait);
        if (st->gsize) /* :global-size EXPR: the step's own first dimension */
            kw = arena_printf(a, "%s, global_size=(%s,)", kw, orch_expr_text(a, ao, st->gsize, ORCH_TEXT_PY, py_len, a));
        else if (par && host_size_free(hk))
            kw = arena_printf(a, "%s, global_size=(_thread_share(q, %d),)", kw, group_kn);
        if (hk->nresults) {
            const char *lhs = "";
            int nr = 0;
            for (int i = 0; i < hk->nsides; i++)
                if (hk->sides[i]->role == ROLE_RESULT) lhs = arena_printf(a, "%sr%d_%d, ", lhs, s, nr++);
            if (nr == 1) lhs = arena_printf(a, "r%d_0 ", s); /* one result: the method returns it alone */
            pr_line(p, "%s= self.%s(%s%s%s)", lhs, pk->method, call, *call ? ", " : "", kw);
            nr = 0;
            for (int i = 0; i < hk->nsides; i++) {
                const AbiArg *x = hk->sides[i];
                if (x->role != ROLE_RESULT) continue;
                for (int b = 0; b < ao->nbufs; b++)
                    if (!ao->bufs[b].fresh && ao->bufs[b].step == s && ao->bufs[b].arg == x) pr_line(p, "b%d = r%d_%d", b, s, nr);
                pr_line(p, "written[\"%s\"] = r%d_%d", orch_key(ao, s, x->name, a), s, nr);
                nr++;
            }
            if (par) pr_line(p, "group.append(cl.enqueue_marker(%s))", qx);
            else pr_line(p, "ev = %s", marker);
        } else if (par) {
            py_line(p, a, "group.append(self.%s(%s%s%s))", pk->method, call, *call ? ", " : "", kw);
        } else {
            pr_line(p, "ev = self.%s(%s%s%s)", pk->method, call, *call ? ", " : "", kw);
        }
        for (int j = 0; j < st->nargs; j++) {
            const AbiOrchBuf *ob = &ao->bufs[ao->slot[s][j]];
            if (hk->params[j].kind == HP_VECTOR && ob->written && ob->fresh && ob->step == s)
                pr_line(p, "written[\"%s\"] = b%d", orch_key(ao, s, ob->arg->name, a), ao->slot[s][j]);
        }
        if (st->mode == ORCH_PARALLEL && !(s + 1 < o->nsteps && o->steps[s + 1].mode == ORCH_PARALLEL))
            pr_line(p, "ev = %s   # every kernel of launch-parallel", par ? "cl.enqueue_marker(q, wait_for=group)" : marker);
        py_close_loops(p, ao, s, a);
    }
    pr_line(p, "q.finish()");
    pr_line(p, "return _orch_out(q, written, host)");
    pr_dedent(p);
}

static void emit_module(StrBuf *out, const Abi *abi, const HoistOptions *o, Arena *a) {
    Printer pr;
    pr_init(&pr, out);
    int ndynamic = 0;
    for (int i = 0; i < abi->nkernels; i++) ndynamic += is_dynamic(o, abi->kernels[i].name);
    int nstatic = abi->nkernels - ndynamic;
    HostKernel *hks = host_plan(a, abi);
    PyKernel *pks = arena_alloc(a, sizeof(PyKernel) * (size_t)(abi->nkernels ? abi->nkernels : 1));
    if (!pks || !hks) return;
    for (int i = 0; i < abi->nkernels; i++) {
        py_kernel_init(&pks[i], &hks[i], a);
        if (!pks[i].pa) return;
        pks[i].cuda = o->cuda;
    }
    emit_header(&pr, abi, o, a, nstatic || !abi->nkernels);
    emit_constants(&pr, abi, o, a, nstatic || !abi->nkernels, ndynamic);
    emit_load(&pr, o, nstatic || !abi->nkernels, ndynamic);
    emit_class_head(&pr, abi, o, pks, ndynamic, a);
    pr_indent(&pr);
    for (int i = 0; i < abi->nkernels; i++) emit_method(&pr, abi, &pks[i]);
    /* the sorts' methods are PyOpenCL's (events, markers): the CUDA module
       has the kernels they launch (docs/hoisting-cuda.md) */
    for (int i = 0; i < abi->nsorts && !o->cuda; i++) {
        if (abi->sorts[i].kind == HOST_SORT_RADIX) emit_radix_method(&pr, abi, &abi->sorts[i], pks, a);
        else emit_sort_method(&pr, abi, &abi->sorts[i], pks, a);
    }
    for (int i = 0; i < abi->norchs; i++) emit_orch_method(&pr, abi, &abi->orchs[i], pks, abi->source, a);
    pr_dedent(&pr);
    if (abi->norchs) emit_orch_helpers(&pr, o->cuda);
    emit_demo(&pr, abi, o, pks, a);
}

void emit_hoist_pyopencl(StrBuf *out, const Abi *abi, const HoistOptions *o, Arena *a) {
    HoistOptions po = *o;
    po.cuda = 0;
    emit_module(out, abi, &po, a);
}

void emit_hoist_pycuda(StrBuf *out, const Abi *abi, const HoistOptions *o, Arena *a) {
    HoistOptions co = *o;
    co.cuda = 1;
    co.ndynamic = 0;            /* the CUDA hoists load what was built ahead of time */
    emit_module(out, abi, &co, a);
}
