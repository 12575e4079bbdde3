/* check.h - stage 3 of the pipeline: type checking and lowering.
 *
 * The checker takes the expanded syntax forms and produces a Program: a
 * list of fully typed C-level functions (kernels included) whose bodies are
 * checked nodes (C_* kinds of node.h).  Every rule of the language that can
 * be decided at compile time is enforced here: numeric promotion, access
 * rights (&out, :read-only), grid-level contexts, recursion, kernel ABI.
 * Emitters only print a Program; they never reject anything. */
#ifndef CRISP_CHECK_H
#define CRISP_CHECK_H

#include "../core/context.h"
#include "../core/ptrmap.h"
#include "../core/strmap.h"
#include "../core/strbuf.h"
#include "sizeexpr.h"
#include "types.h"

typedef enum FnKind { FN_KERNEL, FN_FUNCTION, FN_GRID } FnKind;

typedef enum SymKind {
    SYM_LOCAL,      /* let / loop / multiple-value-bind variable */
    SYM_PARAM,      /* function or kernel parameter */
    SYM_CONST,      /* def-const: value substituted at each use */
    SYM_PARAMETER,  /* def-parameter (-D overridable) */
    SYM_TYPE,       /* def-type alias */
    SYM_RETPTR,     /* hidden out-pointer for an extra return value */
    SYM_CONSTVEC,   /* def-const-vec: a __constant array computed at compile time */
    SYM_FNVAL,      /* let-bound function value #'name: compile time only (hof.c) */
} SymKind;

typedef struct ConstVec ConstVec;

typedef struct Sym Sym;
/* The fields few symbols use (views, soa and tensor variables, constants,
 * types, function values): a local or parameter is most of a program's
 * symbols and has none of them, so they live apart (issue 14: a Sym was
 * 184 bytes, 88 now; 18,000 per megabyte of Crisp).  Read them with
 * sym_rare(s), which gives an empty set for a symbol without them, and
 * write them with sym_rare_w(arena, s), which makes the set at the first
 * write. */
typedef struct SymRare {
    struct Sym *len_sym, *off_sym; /* vector-views: their length and offset variables */
    struct Sym *dims_sym, *strides_sym; /* tensor-views (ty->ndims > 0): their ulong[ndims] arrays */
    struct Sym **soa_fields; /* soa-vectors: one vector per struct field */
    Node *value;            /* SYM_CONST/SYM_PARAMETER: checked literal */
    Node *init;             /* array initializer (#(...)) or NULL */
    Node *type_syn;         /* SYM_TYPE: the type expression */
    ConstVec *cvec;         /* SYM_CONSTVEC: the computed values (NULL: failed) */
    Node *fn_name;          /* SYM_FNVAL: the function it holds (a symbol) */
    Node *fn_sig;           /* SYM_FNVAL: its declared signature #'(...), or NULL */
    struct FuncDef *fn_inst; /* SYM_FNVAL bound to (gen-NAME ARGS...): that instance */
    const struct Sym *shadows; /* a variable it hides that is spelled
                               differently (Crisp names ignore case) */
} SymRare;

struct Sym {
    /* pointers first, then the small fields packed (issue 14: a local
       or parameter is one Sym, 224 bytes before, 88 now) */
    const char *name;       /* as written */
    const char *key;        /* canonical */
    const char *cname;      /* its identifier, as the target spells it (TargetNames) */
    const char *len_cname;  /* vectors: the identifier of the length (NULL: constant) */
    Type *ty;
    const Node *def;        /* defining syntax (for messages) */
    Node *size_init;        /* SYM_LOCAL: its initializer as written, so a
                               side-channel size may name the variable */
    SymRare *rare;          /* NULL: none of SymRare's fields set */
    SymKind kind;
    int resolving;          /* cycle detection for aliases and consts */
    int fn_depth;           /* SYM_FNVAL: branch depth of its binding (set! rule) */
    signed char immutable;  /* loop index, thread id, constant */
    signed char wg_uniform; /* the same in every work-item of the workgroup: (declare (uniform V)),
                               (declare (%workgroup-uniform V)) (warps.c's E0581 rule) */
    signed char write_only; /* &out parameter */
    signed char is_temp;    /* compiler temporary */
    signed char hoisted_local; /* __local array declared at kernel scope */
    signed char is_view;    /* pointer + length variables (side channels, marshall-vector, views) */
    signed char cv_done;    /* SYM_CONSTVEC: its body has been run */
    signed char assigned;   /* SYM_LOCAL: set! somewhere after its binding */
    signed char from_lib;   /* a global the library (lib/) defines: a
                               program's own definition replaces it */
};

extern const SymRare sym_rare_none;

/* S's rare fields, for reading (all NULL when it has none). */
static inline const SymRare *sym_rare(const Sym *s) {
    return s->rare ? s->rare : &sym_rare_none;
}

/* S's rare fields, for writing: made (zero) in `a` at the first call.
 * Out of memory: a scratch set (the arena is then exhausted, which stops
 * the stage at its next check). */
SymRare *sym_rare_w(Arena *a, Sym *s);

/* After `*copy = *orig`: give the copy its own rare fields (the same
 * values), so that a later write to one does not change the other. */
void sym_rare_unshare(Arena *a, Sym *copy);

/* A tensor-view's number of dimensions (0 for anything else). */
static inline int sym_ndims(const Sym *s) {
    return s && s->ty && s->ty->kind == TY_VECTOR ? s->ty->ndims : 0;
}

/* A def-const-vec after its body ran (spec "def-const-vec"): a file-scope
 * `__constant ELEM NAME[LENGTH] = {...};` in the emitted OpenCL C. */
struct ConstVec {
    const char *name;       /* Crisp name as written (+image-mask-32+) */
    const char *cname;      /* C name (image_mask_32) */
    Type *ty;               /* (vector-type ELEM :constant :read-only LENGTH) */
    int64_t *ivals;         /* integer elements (uint64 bits for ulong), or NULL */
    double *fvals;          /* float / double elements (already rounded), or NULL */
    const Node *def;        /* the def-const-vec form */
};

/* A global-size / local-size declaration (spec "Hoisting and Enqueing"). */
typedef struct SizeDecl {
    int present;
    int dims;               /* 0 when unknown */
    int64_t set_to[3];
    int nset;
    const char *derive[3];  /* parameter names as written */
    Sym *derive_sym[3];
    int nderive;
    const char *msg;
    const Node *at;
} SizeDecl;

/* A side channel of a kernel (spec "Side Channel Vectors"): memory the
 * host allocates from sizes the compiler computed. */
/* SIDE_LOCAL: (make-scratch-vector T :local N), workgroup memory the host
 * sizes (a __local kernel argument; spec "generating scratch vectors"). */
/* SIDE_UNIFORM: the one-element __local slot of a (uniform x) in a
 * function, which each caller provides (types/uniform.c); never a kernel
 * argument. */
typedef enum SideKind { SIDE_RESULT, SIDE_IMPLICIT, SIDE_SCRATCH, SIDE_DEBUG, SIDE_LOCAL, SIDE_UNIFORM } SideKind;

typedef struct SideChannel {
    SideKind kind;
    const char *name;       /* :name, or a generated one */
    const char *comment;    /* :comment, or NULL */
    Type *ty;               /* the vector type the kernel sees */
    const char *size_crisp; /* element count as Crisp text (as written, for comments) */
    SizeExpr *size;         /* ... as a tree the host evaluates (NULL: marshalled) */
    Sym *sym;               /* kernel parameter (result/implicit) or view */
    const Node *at;
} SideChannel;

/* A side channel a function needs from its caller: a hidden parameter the
 * caller fills with its own side channel (spec: side channels may be made
 * in any function a kernel calls). */
typedef struct FnSide {
    SideKind kind;
    const char *name;
    const char *comment;
    Type *ty;
    Node *count;            /* element count, syntax over the function's params */
    Sym *param;             /* the hidden vector parameter */
    const Node *at;
} FnSide;

/* What few functions have (kernels' local size, side channels, hoisted
 * __local arrays, scratch pools, the debug channel, const-vecs read,
 * warp memory): apart from CFunc, made at the first write, like SymRare
 * (issue 14: a CFunc was 448 bytes, one per function instance).  Read
 * with cfunc_rare(fn), write with cfunc_rare_w(arena, fn). */
typedef struct CFuncRare {
    SizeDecl lsize;
    struct Sym **local_arrays; /* kernel: __local arrays hoisted to kernel scope */
    int nlocal, caplocal;
    SideChannel **sides;    /* kernels: side channels in source order */
    int nsides, capsides;
    struct Sym *scratch_pool; /* kernels: the scratch pool parameter, or NULL */
    Node *scratch_bytes;    /* kernels: checked byte size of the pool so far */
    FnSide **fsides;        /* functions: side channels the caller provides */
    int nfsides, capfsides;
    struct Sym *debug;      /* the debug channel parameter, or NULL */
    struct Sym **cvuses;    /* const-vecs read here or in callees */
    int ncvuses, capcvuses;
    struct Sym *warp_mem;   /* __local words for the local-memory warp lowering, or NULL */
    int warp_words;         /* ... 32-bit words per thread it needs */
} CFuncRare;

typedef struct CFunc {
    FnKind kind;
    /* For analysis/ (uni_plan, own_declarations; issue 14: without them it
       read every node of every function, a tenth of the compilation), in
       the padding after `kind` (CFunc stays 128 bytes): */
    unsigned char analysis_sync;  /* a local-barrier, a `+` form or a (uniform ...)
                                     capture here or in a callee */
    unsigned char analysis_optin; /* its declare elects a static analysis */
    const char *name;       /* Crisp name as written */
    const char *cname;      /* its identifier, as the target spells it (TargetNames) */
    /* What the identifier says, for a target that spells it its own way:
       which definition of the name (overloads: 1.. in definition order; 0
       for a name defined once) and which of its instances (0.., in the
       order they were made; the parameters' types say for what). */
    int overload, instance;
    const Node *def;
    Sym **params;
    int nparams;
    Type *ret;              /* &ty_void, a value type, or a TY_TUPLE */
    Sym **retptrs;          /* out-pointers for values 2..n of a tuple */
    Node *body;             /* C_BLOCK */
    SizeDecl *gsize_decl;   /* the global size, made at the first write
                               (cfunc_gsize_w); read it with cfunc_gsize */
    CFuncRare *rare;        /* NULL: none of CFuncRare's fields set */
    int64_t lsize_default;  /* (%default-local-size N) in the body or a
                               callee's: the local size crisp chooses
                               when none is declared (sidechan.c), or 0 */
    int single_task;
    int exact;              /* def-kernel-exact */
    int ret_side;           /* functions: 1 + the index of the side channel
                               the body's value is (a function that makes
                               and returns a scratch vector: the call is the
                               caller's vector), or 0 */
    int consteval;          /* an instance made for code the compiler runs (a
                               def-const-vec body calls it): never emitted */

    int uses_warp;          /* warp forms here or in callees (types/warps.c) */
    int warp_collective;    /* ... shuffles or sync-warp: callers must be convergent */
} CFunc;

extern const CFuncRare cfunc_rare_none;
extern const SizeDecl size_decl_none;

/* FN's rare fields, for reading (all zero when it has none). */
static inline const CFuncRare *cfunc_rare(const CFunc *fn) {
    return fn->rare ? fn->rare : &cfunc_rare_none;
}

/* ... for writing: made (zero) in `a` at the first call; out of memory,
 * a scratch set (the arena is then exhausted). */
CFuncRare *cfunc_rare_w(Arena *a, CFunc *fn);

/* FN's global size declaration, for reading (not present when none). */
static inline const SizeDecl *cfunc_gsize(const CFunc *fn) {
    return fn->gsize_decl ? fn->gsize_decl : &size_decl_none;
}

/* ... for writing, made at the first call like cfunc_rare_w. */
SizeDecl *cfunc_gsize_w(Arena *a, CFunc *fn);

/* Support code the emitted file needs (printed once, before user code). */
typedef enum HelperKind {
    H_GLOBAL_ID, H_GLOBAL_LINEAR_ID, H_LOCAL_LINEAR_ID, H_GLOBAL_LINEAR_SIZE,
    H_LOCAL_LINEAR_SIZE, H_POW2_BELOW, H_FLOOR_DIV, H_CEIL_DIV, H_ROUND_DIV,
    H_ATOMIC_RMW, H_STD140_ELEM, H_DEBUG_LOG, H_MAKE_STRUCT,
    H_ATOMIC_LOAD, H_ATOMIC_STORE, /* %atomic-load / %atomic-store (types/check_gpu.c) */
    H_DEVICE_HAS,
    H_WARP,          /* warp support: op is a WarpOp (shuffles: ty is the value type) */
} HelperKind;
#define HELPER_NKINDS (H_WARP + 1)

typedef struct Helper {
    HelperKind kind;
    int index;              /* in Program.helpers (a BI_HELPER call's ival) */
    Type *ty;               /* operand type (divisions, atomics, std140) */
    AddrSpace as;           /* atomics */
    CFunc *fn;              /* atomics: the combining function, or NULL */
    int op;                 /* atomics: builtin operator id when fn is NULL */
    int unary;              /* atomics: atomic-op! (one-argument function) */
    const char *key;        /* device-has: the property (fp64) */
    Type **tys;             /* debug log: the logged values' types */
    int ntys;
    struct Helper *next_fn; /* atomics: the one made before for the same fn (Program.helpers_by_fn) */
    struct Helper *next_type; /* the one made before of the same kind and type (Program.helpers_by_type) */
} Helper;

/* One r-t-output / r-t-assert site: what the host needs to decode its
 * records (docs/abi.md "Debug channel"). */
typedef struct DebugPart {
    const char *text;       /* literal text, or NULL for a value */
    const Type *ty;         /* value type */
    const char *expr;       /* the value's Crisp text */
} DebugPart;

typedef struct DebugSite {
    const char *file;
    int line;
    const char *kind;       /* "output" or "assert" */
    DebugPart *parts;
    int nparts;
} DebugSite;

/* A host function the hoists print, that sorts a vector with three kernels
 * (docs/library.md "Sorting"):
 *   (%host-bitonic-sort NAME CHUNKS MERGE MERGE-LOCAL WG IN-PLACE), written
 *   by gen-bitonic-sort-vector(!) (spec "Don't Make Me Think
 *   gen-bitonic-sort-vector"): CHUNKS sorts 2 x WG elements per workgroup,
 *   MERGE (data j k) is one global merge step, MERGE-LOCAL (data j k) the
 *   steps k .. 1 in local memory;
 *   (%host-radix-sort NAME COUNT SCAN SCATTER PASSES PAIRS BITS WG KPT),
 *   written by gen-radix-sort-vector (spec "Radix Sort on the GPU"): per
 *   pass of BITS bits, COUNT (keys counts shift), SCAN (counts), SCATTER
 *   (keys out counts shift [values values-out]), COUNT and SCATTER on a
 *   workgroup of WG threads per tile of WG x KPT keys; PAIRS: values move
 *   with the keys. */
enum { HOST_SORT_BITONIC, HOST_SORT_RADIX };
typedef struct HostSort {
    int kind;                   /* HOST_SORT_... */
    const char *name;           /* the host function */
    const char *kernel[3];      /* the three kernels, in the order above */
    int wg;                     /* bitonic: the local size of CHUNKS and MERGE-LOCAL */
    int in_place;               /* bitonic: 1 sorts its argument, 0 returns a sorted copy */
    int passes;                 /* radix: key bits / digit bits (32 or 64 bits) */
    int pairs;                  /* radix: key-value pairs */
    int digit_bits;             /* radix: bits a pass (1, 2, 4, 8) */
    int kpt;                    /* radix: keys per thread (a tile is wg x kpt keys) */
    int line;
} HostSort;
/* Orchestrations (spec "Hoisting and def-orchestration", "Continuation
 * Kernels"): kernels launched one after another, their arguments either
 * fresh (`_`: the caller's) or a vector an earlier step used (K::v). */
typedef enum OrchMode { ORCH_SEQUENTIAL, ORCH_PARALLEL, ORCH_INTERLEAVED } OrchMode;

/* A value the host computes while it runs an orchestration (spec "More
 * notes on def-orchestration": do-times-by-doubling, do-times-by-half):
 * an integer, a loop variable, the length of a vector a step used, or
 * + - * / of two of them (unsigned 64-bit, / rounds down, - stops at 0). */
typedef struct OrchExpr {
    char op;                /* 'n' number, 'v' loop variable, 'l' length, or + - * / */
    long long num;          /* 'n' */
    int loop;               /* 'v': the index in Orchestration.loops */
    int step, param;        /* 'l': a parameter of an earlier step */
    struct OrchExpr *l, *r; /* + - * / */
} OrchExpr;

/* A run-time loop of an orchestration around the steps [first, end):
 * do-times-by-doubling (VAR = START, 2 START, .. while VAR <= LIMIT) or
 * do-times-by-half (VAR = START, START / 2, .. while VAR >= LIMIT and VAR > 0). */
typedef struct OrchLoop {
    const char *var;        /* as written; a C and Python identifier */
    int halving;
    OrchExpr *start, *limit;
    int first, end;         /* end -1 while the checker is inside it */
    int depth;              /* 0: outermost */
    int line;
} OrchLoop;

typedef struct OrchArg {
    OrchExpr *expr;         /* a value the host computes (a loop variable ...): no buffer */
    int step;               /* -1: `_`, an argument of the orchestration; else an earlier step */
    int param;              /* that step's parameter index (step >= 0) */
    const char *side;       /* ... or the name of one of its side channels (a result vector) */
    const Node *at;         /* where it is written */
} OrchArg;

typedef struct OrchStep {
    const char *kernel;     /* the kernel's name (its C name) */
    OrchMode mode;
    OrchArg *args;          /* one per kernel parameter */
    int nargs;
    int offset_param, length_param; /* ORCH_INTERLEAVED: the kernel's offset and length parameters */
    char *exclude;          /* ORCH_INTERLEAVED: per parameter, 1 when not interleaved */
    OrchExpr *gsize;        /* `:global-size EXPR`: the step's first global size dimension
                               (the host computes it), or NULL: the kernel's own */
    int line, col;
    const Node *at;         /* the launch specification, or NULL */
} OrchStep;

typedef struct Orchestration {
    const char *name;       /* as written (or NAME_T for an instance of a template) */
    const char *ident;      /* a C and Python identifier (TargetNames.host_ident) */
    const char *origin;     /* "def-orchestration" or "let-kernel" */
    OrchStep *steps;
    int nsteps, capsteps;
    OrchLoop *loops;        /* run-time loops, in order of their first step (outer first) */
    int nloops, caploops;
    int line;
} Orchestration;

typedef struct Program {
    CFunc **funcs;          /* emission order: callees before callers */
    int nfuncs, capfuncs;
    StrMap funcs_by_cname;  /* the non-kernels of funcs by C name (the first of each) */
    Helper **helpers;
    int nhelpers, caphelpers;
    /* indexes over helpers, so that finding one is not a scan of all (issue
       14); a rollback (nhelpers cut back) leaves dead entries: helper_live */
    Helper **helpers_of_kind[HELPER_NKINDS];
    int nhelpers_of_kind[HELPER_NKINDS], caphelpers_of_kind[HELPER_NKINDS];
    PtrMap helpers_by_fn;   /* atomics: fn (or &helpers_by_fn for none) -> newest, chained by next_fn */
    PtrMap helpers_by_type[HELPER_NKINDS]; /* per kind: type -> newest of that type, chained by next_type */
    int uses_fp64, uses_fp16, uses_int64_atomics;
    int ocl_version;        /* OpenCL C version written for: 120, 200 or 300 */
    int debug_output;       /* compiled with --debug-output */
    StructDef **structs;    /* def-structs in definition order */
    EnumDef **enums;        /* def-enumerations in definition order */
    int nenums, capenums;
    int nstructs, capstructs;
    DebugSite **sites;      /* debug log sites, indexed by site id */
    int nsites, capsites;
    const char *source;     /* input file names, space separated */
    ConstVec **cvecs;       /* def-const-vecs in definition order */
    int ncvecs, capcvecs;
    Node **declaims;        /* (declaim ...) forms, for analysis/ */
    int ndeclaims, capdeclaims;
    HostSort **sorts;       /* gen-bitonic-sort-vector host functions, in order */
    int nsorts, capsorts;
    Orchestration **orchs;  /* def-orchestrations and continuation pipelines, in order */
    int norchs, caporchs;
} Program;

/* Whether `h` is still one of p's helpers (a rollback may have cut it). */
int helper_live(const Program *p, const Helper *h);

struct Expander;

/* The identifiers taken in one name space of the checked program (file
 * scope, or a function whose braced blocks let names die): each name's
 * live count, and per base whatever the target's uniquing keeps (for
 * OpenCL C the live counts of its _K suffixes, so a unique name is found
 * without a scan: issue 14). */
typedef struct NameTable {
    const char **names; /* live names, in order (rolled back by mark) */
    int n, cap;
    StrMap live;        /* name -> live count (intptr_t) */
    StrMap suffixes;    /* the target's: base -> its record of suffixes */
} NameTable;

/* The identifiers of the target language: the emitter's (emit-oclc/names.h
 * for OpenCL C), handed to the checker by the driver.  The checker knows
 * which definitions and variables need an identifier, in which name space
 * and scope, and which identifier derives from which (a vector's length
 * from the vector, a struct field's variable from the struct's, an
 * overload from its parameter types); how each is spelled - Lisp names
 * mangled, the suffix that makes a name unique, what the target reserves -
 * is the target's, through these hooks.  Without a TargetNames the
 * checked program keeps Crisp's own names (crisp_names, types/cnames.c). */
typedef struct TargetNames {
    const char *language;                     /* "OpenCL C", in messages */
    int (*reserved)(const char *name);        /* a keyword, built-in, macro or reserved prefix */
    int (*reserved_prefix)(const char *name); /* starts with a prefix the target or its support code takes */
    /* A Crisp name (image-data, ~, %tmp) as an identifier. */
    const char *(*spell)(Arena *a, const char *crisp_name);
    /* The identifier of PART of BASE (the length of a vector, a field, an
       enum key, an overload's parameter type). */
    const char *(*join)(Arena *a, const char *base, const char *part);
    /* A word naming type T, for the names of overloads and instances made
       for it (twice_int, sum_floatvec, scale_v3_float_soa). */
    const char *(*type_part)(Arena *a, const Type *t);
    /* FIELD of the struct variable PATH, as an expression. */
    const char *(*member)(Arena *a, const char *path, const char *field);
    /* BASE, or a variant of it, not live in T and not reserved by TN
       (taken now). */
    const char *(*unique)(Arena *a, const struct TargetNames *tn, NameTable *t, const char *base);
    /* NAME taken as it is (a kernel keeps its own). */
    void (*take)(Arena *a, NameTable *t, const char *name);
    /* The names T took after MARK die (a braced block closed). */
    void (*rollback)(Arena *a, NameTable *t, int mark);
    /* NAME (an orchestration's) as the identifier the host code calls it
       by, in C and in Python: two orchestrations may not share one. */
    const char *(*host_ident)(Arena *a, const char *name);
} TargetNames;

/* Crisp's own names (no target): identifiers as written, made unique with
 * NAME#K, nothing reserved. */
extern const TargetNames crisp_names;

/* Check the forms the reader produced, expanding macros with `x` where the
 * checker reaches them (the library's definitions first), naming things
 * as `names` spells them (NULL: crisp_names).  Returns NULL only when out
 * of memory; on source errors the returned program is incomplete and
 * c->diag has errors. */
Program *check_program(Crisp *c, struct Expander *x, Forms forms, const TargetNames *names);

/* --dump=check: the typed program as an indented tree. */
void check_dump(StrBuf *b, const Program *p);

/* Operator ids used in C_UNARY / C_BINARY / C_ASSIGN nodes, with the name
 * the checker's messages and --dump=check give each: the Crisp form where
 * there is one (+, <, =, and, bit-and, set!), else what the operation is
 * (rem: the remainder of truncate; shift-left; address-of).  Each emitter
 * spells the operator itself (emit-oclc/ctext.h: + % && << =). */
#define CHECK_OPS(X)                                                              \
    X(OP_ADD, "+") X(OP_SUB, "-") X(OP_MUL, "*") X(OP_DIV, "/")                    \
    X(OP_MOD, "rem") X(OP_LT, "<") X(OP_GT, ">") X(OP_LE, "<=")                     \
    X(OP_GE, ">=") X(OP_EQ, "=") X(OP_NE, "/=") X(OP_AND, "and")                    \
    X(OP_OR, "or") X(OP_NOT, "not") X(OP_NEG, "-") X(OP_BAND, "bit-and")            \
    X(OP_BOR, "bit-or") X(OP_BXOR, "bit-xor") X(OP_BNOT, "bit-not")                 \
    X(OP_SHL, "shift-left") X(OP_SHR, "shift-right") X(OP_SET, "set!")              \
    X(OP_ADDR, "address-of") X(OP_DEREF, "contents-of")

typedef enum CheckOp {
#define X(id, s) id,
    CHECK_OPS(X)
#undef X
    OP__COUNT
} CheckOp;

/* The Crisp name of operator OP (CHECK_OPS). */
const char *check_op_name(int op);

/* What a C_CALL node calls (Node.op), in target-neutral terms: a user
 * function (BI_CALL, Node.text its identifier), support code the program
 * needs (BI_HELPER, Node.ival its index in Program.helpers) or a builtin of
 * the language, which each emitter spells (emit-oclc: abs, atomic_add ...). */
#define BUILTIN_OPS(X)                                                                 \
    X(BI_CALL, "call") X(BI_HELPER, "helper")                                          \
    X(BI_ABS, "abs") X(BI_FABS, "fabs") X(BI_MIN, "min") X(BI_MAX, "max")             \
    X(BI_CLAMP, "clamp") X(BI_SQRT, "sqrt") X(BI_RSQRT, "rsqrt") X(BI_POW, "pow")     \
    X(BI_EXP, "exp") X(BI_LOG, "log") X(BI_LOG2, "log2") X(BI_SIN, "sin")             \
    X(BI_COS, "cos") X(BI_TAN, "tan") X(BI_ASIN, "asin") X(BI_ACOS, "acos")           \
    X(BI_ATAN, "atan") X(BI_ATAN2, "atan2")                                            \
    X(BI_GLOBAL_ID_ABS, "get-global-id-abs") X(BI_LOCAL_ID, "get-local-id")           \
    X(BI_GROUP_ID, "get-group-id") X(BI_NUM_GROUPS, "get-num-groups")                 \
    X(BI_GLOBAL_SIZE, "get-global-size") X(BI_LOCAL_SIZE, "get-local-size")           \
    X(BI_GLOBAL_OFFSET, "get-global-offset") X(BI_WORK_DIM, "get-work-dim")           \
    X(BI_ATOMIC_ADD, "atomic-add!") X(BI_ATOMIC_SUB, "atomic-sub!")                   \
    X(BI_ATOMIC_INC, "atomic-inc!") X(BI_ATOMIC_DEC, "atomic-dec!")                   \
    X(BI_ATOMIC_MIN, "atomic-min!") X(BI_ATOMIC_MAX, "atomic-max!")                   \
    X(BI_ATOMIC_XCHG, "atomic-xchg!") X(BI_ATOMIC_AND, "atomic-and!")                 \
    X(BI_ATOMIC_OR, "atomic-or!") X(BI_ATOMIC_XOR, "atomic-xor!")

typedef enum BuiltinOp {
#define X(id, s) id,
    BUILTIN_OPS(X)
#undef X
    BI__COUNT
} BuiltinOp;

const char *builtin_op_name(int op);

/* What a C_CAST node does (Node.op). */
typedef enum CastKind {
    CAST_VALUE,       /* a value conversion of a scalar, C's (T)x        */
    CAST_CONVERT,     /* component-wise conversion of a hardware vector   */
    CAST_RTZ, CAST_RTN, CAST_RTP, CAST_RTE, /* floating to integer, rounded
                         toward zero, down, up, to nearest even           */
    CAST_BITS,        /* the same bits seen as another type (as-T)        */
    CAST_SAME,        /* a derived struct type: the same value            */
    CAST_REINTERPRET, /* set-derived: the bytes of one struct as another  */
} CastKind;

/* What a C_INDEX node reads (Node.op): the element itself, or one of a
 * :std140 vector whose elements are padded to a wider stride (spec
 * "Alignment"): the emitter reads the value out of the padded element. */
typedef enum IndexKind {
    INDEX_ELEM,       /* v[i]                                             */
    INDEX_PADDED,     /* the value in the padded element v[i]             */
} IndexKind;

/* What a C_BARRIER node does (Node.op): a workgroup barrier or a memory
 * fence, on local memory, global memory or both. */
typedef enum BarrierKind {
    BAR_LOCAL, BAR_GLOBAL, BAR_BOTH, FENCE_LOCAL, FENCE_GLOBAL, FENCE_BOTH,
} BarrierKind;

/* Operations of N_C_WARP nodes (types/warps.c, docs/warps.md).  The
 * shuffles have kids (VALUE LANE-ARG) and `sym`, the warp memory; `ival`
 * is 1 on the native shuffles, ballots and syncs of a region where the
 * workgroup is whole warps (%native-warp-if :whole-warps). */
typedef enum WarpOp {
    WARP_LANE_ID,       /* get-lane-id */
    WARP_ID,            /* get-warp-id */
    WARP_NUM,           /* get-num-warps */
    WARP_LANES,         /* %warp-lanes: threads in this warp */
    WARP_SYNC,          /* sync-warp */
    WARP_SHUFFLE,       /* shuffle: from lane LANE-ARG */
    WARP_SHUFFLE_UP,    /* shuffle-up: from lane - LANE-ARG */
    WARP_SHUFFLE_DOWN,  /* shuffle-down: from lane + LANE-ARG */
    WARP_SHUFFLE_XOR,   /* shuffle-xor: from lane ^ LANE-ARG */
    WARP_READ,          /* helper only: a value as held by another lane */
    WARP_NATIVE,        /* helper only: crisp_warp_native, for %native-warp-if */
    WARP_READ_NATIVE,   /* helper only: WARP_READ without the local-memory path */
    WARP_BALLOT,        /* %warp-ballot: the lanes whose PREDICATE holds, as bits */
    WARP_BALLOT_NATIVE, /* helper only: WARP_BALLOT without the local-memory path */
    WARP_SYNC_WHOLE,    /* helper only: sync-warp where the workgroup is whole warps */
    WARP__COUNT
} WarpOp;

/* Node.op of an N_C_IF made by %native-warp-if (check.c): the OpenCL
 * emitter keeps its then-branch for devices with native shuffles only. */
#define IF_NATIVE_WARP 1

/* Crisp's warp: 32 lanes on every device (docs/warps.md). */
#define CRISP_WARP_SIZE 32

#endif
