/* check_int.h - internals shared by the checker's files (not a public API).
 *
 * check.c      the passes (check_program), statements and scopes
 * collect.c    pass "collect": every top-level definition
 * signatures.c passes "constants", "signatures", "overloads"
 * instances.c  passes "kernels", "functions": bodies per concrete types
 * cnames.c     identifiers: what is named where; spelled by the target
 * check_expr.c expressions: node builders, literals, coercion, operands;
 *              the other form families in check_arith.c, check_vectors.c,
 *              check_logic.c, check_gpu.c, check_views.c, check_calls.c,
 *              check_forms.c (the builtin table, expr): expr_int.h
 * typeexpr.c   type expressions (vector-type, aliases, signatures)
 * constvec.c   def-const-vec: its body checked as a compile-time function
 * consteval.c  the constant evaluator: checked code run by the compiler */
#ifndef CRISP_CHECK_INT_H
#define CRISP_CHECK_INT_H

#include "../core/ptrmap.h"
#include "../core/strmap.h"
#include "../core/syntax.h"
#include "../macros/expand.h" /* expander_is_macro_call (ck_expand) */
#include "check.h"

typedef struct FuncDef FuncDef;
typedef struct Template Template;
typedef struct CtBody CtBody;

/* What a list's head names, as far as its spelling alone decides
 * (check_forms.c ck_head): the statement form it is (form_to_1), and
 * the tests of ck_expr's dispatch that can hold for it. */
typedef enum CkForm {
    CF_NONE, CF_LET, CF_LET_STAR, CF_PROGN, CF_IF, CF_LOOP, CF_NATIVE_WARP_IF, CF_RETURN, CF_MVB, CF_NO_BARRIER,
    CF_UNIFORM, CF_GRID_BODY, CF_RESULT, CF_LET_MAYBE, CF_LET_KERNEL, CF_DECLARE
} CkForm;
enum {
    HEAD_STATEMENT = 1 << 0, /* cx_statement_heads */
    HEAD_QUOTE = 1 << 1,     /* quote, function, quasiquote */
    HEAD_FUNCALL = 1 << 2,
    HEAD_WARP = 1 << 3,      /* ck_warp_form_name */
    HEAD_ATOMIC_LS = 1 << 4, /* %atomic-load, %atomic-store */
    HEAD_TILDE = 1 << 5,     /* NAME~: two bytes or more ending in ~ */
    HEAD_MAKE = 1 << 6,      /* make-... */
    HEAD_AS = 1 << 7,        /* as-... */
    HEAD_CONVERSION = 1 << 8, /* to-T or as-T with T a base type */
    HEAD_SWIZZLE = 1 << 9,   /* cx_is_swizzle_name */
    HEAD_UNIFORM_LAUNCH = 1 << 10, /* ck_uniform_launch_heads (warps.c) */
    HEAD_UNIFORM_OP = 1 << 11, /* ck_uniform_op_heads (warps.c) */
};
struct HeadEnt;
typedef struct HeadMemo {
    const char *key;         /* the head's key (pointer), NULL: empty */
    const struct HeadEnt *e; /* its entry in check_forms.c's table */
    unsigned flags;          /* HEAD_* */
    CkForm form;
} HeadMemo;
#define HEAD_MEMO_BITS 8
#define HEAD_MEMO_SLOTS (1 << HEAD_MEMO_BITS)

/* A name joined from two (ck_name_join), by their pointers. */
typedef struct JoinMemo {
    const char *base, *part, *joined;
} JoinMemo;
#define JOIN_MEMO_SLOTS 256 /* a power of two */

/* A Crisp name's Spelled record (cnames.c) by the name's pointer. */
typedef struct SpellMemo {
    const char *name;
    struct Spelled *sp;
} SpellMemo;
#define SPELL_MEMO_SLOTS 256 /* a power of two */

typedef struct Scope {
    struct Scope *up;
    Sym **syms;              /* in definition order */
    int n, cap;
    StrMap idx;              /* key -> the latest Sym of that key */
    unsigned version;        /* bumped whenever a symbol is added or replaced
                                (the globals' memo, GlobalMemo, is of one version) */
} Scope;

/* ck_global_lookup's answer for a key's pointer (NULL too), valid while the
 * globals are at the version it was found in (issue 14: a parameter's type
 * name - A:fin - is looked up in the globals for every function, 14,000
 * hashes of the name at 1 MB). */
typedef struct GlobalMemo {
    const char *key;
    Sym *sym;
    unsigned version;
} GlobalMemo;
/* ck_func_lookup's answer (the first FuncDef of the name, or NULL) for a
 * key's pointer, valid while funcs_idx is at the version it was found in
 * (issue 14: a call's head is looked up by the head memo, then ck_expr,
 * then ck_user_call: 12,000 hashes of the name at 1 MB). */
typedef struct FuncMemo {
    const char *key;
    struct FuncDef *fd;
    unsigned version;
} FuncMemo;
#define FUNC_MEMO_BITS 6
#define FUNC_MEMO_SLOTS (1 << FUNC_MEMO_BITS)
/* ty_lookup_base's answer (NULL too) for a type name's pointer: a function
 * of the spelling alone (issue 14: every annotation, A:fin, asked it
 * before the globals: 20,000 times at 1 MB). */
typedef struct BaseMemo {
    const char *key;
    Type *t;
} BaseMemo;
#define BASE_MEMO_BITS 7
#define BASE_MEMO_SLOTS (1 << BASE_MEMO_BITS)
#define GLOBAL_MEMO_BITS 7
#define GLOBAL_MEMO_SLOTS (1 << GLOBAL_MEMO_BITS)

/* One parameter as declared (before instantiation). */
typedef struct ParamDecl {
    const Node *name;   /* the parameter symbol */
    Type *ty;           /* declared type (vectors may be incomplete) */
    int is_out;         /* after &out */
    int mode;           /* 0 required, 1 &optional, 2 &key */
    Node *deflt;        /* default value (syntax), or NULL for zero */
} ParamDecl;

struct FuncDef {
    /* pointers first, then the counts, then the flags in bytes (issue 14:
       one per definition, 200 bytes before, 144 now) */
    const char *name, *key;
    const Node *form;
    ParamDecl *params;
    Type *ret;               /* NULL until resolved */
    const Node **decls;      /* (declare ...) forms at the top of the body */
    Node **body;             /* body forms after the declarations */
    CFunc **insts;           /* instantiations (one per concrete signature) */
    const Node *hof_src;     /* made by hof.c (a specialisation: the def-function
                                taking functions; a signature wrapper: the overload
                                it calls): checked only when called */
    const char *cname_base;
    FuncDef *next_overload;  /* the next non-kernel of the same name */
    const char *outer_kernel; /* a continuation kernel (let-kernel): the kernel it continues */
    const char **outer_names; /* ... and the run-time variables it cannot capture */
    FnKind kind;
    int nparams;
    int ndecls;
    int nbody;
    int ninsts, capinsts;
    int nouter, capouter;
    signed char ret_declared;
    signed char checking;    /* on the call stack: recursion detection */
    signed char bad;         /* signature errors: do not check the body */
    signed char resolved;
    signed char exact;       /* def-kernel-exact */
    signed char overloaded;  /* shares its name with other definitions */
    signed char is_instance; /* made from a template */
    signed char from_lib;    /* defined in the library (lib/): emitted only when used */
};

typedef struct Checker {
    Crisp *c;
    Arena *a;
    Diag *d;
    Program *prog;
    Scope globals;           /* types, consts, parameters */
    Scope *spare_scopes;     /* popped scopes, for the next push (issue 14:
                                one per block, let and loop was 5 MiB of
                                the 10 MB program's peak) */
    FuncDef **funcs;         /* every def-function / def-grid-function / kernel */
    int nfuncs, capfuncs;
    const TargetNames *names; /* what the target language reserves (NULL: nothing) */
    NameTable cnames;        /* C names taken at file scope */
    PtrMap spare_memo;       /* a checked function's emptied macro memo, for
                                the next (ck_memo_release) */
    NameTable spare_names;   /* a checked function's emptied name table, for
                                the next (ck_names_release) */
    StrMap fnbases;          /* the cname_base of every function (written by
                                ck_fnbase_put only) */
    unsigned fnbases_version; /* bumped by each ck_fnbase_put */
    StrMap spelled;          /* a local's Crisp name -> its target spelling
                                and the spelling's hash (ck_local_cname) */
    StrMap funcs_idx;        /* key -> first non-kernel FuncDef of that name */
    unsigned funcs_version;  /* bumped when funcs_idx gets a name (FuncMemo) */
    FuncMemo fmemo[FUNC_MEMO_SLOTS]; /* ck_func_lookup's answers by the key's
                                pointer, direct-mapped */
    StrMap kernels_idx;      /* kernel name -> its FuncDef */
    FuncDef **stack;         /* functions being checked (recursion chain) */
    int nstack, capstack;
    int allow_voidp;         /* resolving a def-kernel-exact signature */
    int tmpl_depth;          /* template instantiations in progress (nesting) */
    int allow_incomplete;    /* resolving def-function parameter types: an
                                incomplete struct template is allowed */
    Node **setters;          /* def-setter forms */
    int nsetters, capsetters;
    Node **hofs;             /* def-functions taking functions (hof.c) */
    int nhofs, caphofs;
    Template **templates;    /* with-template-type definitions */
    int ntemplates, captemplates;
    struct Expander *x;      /* the macro expander: macro calls are expanded
                                where the checker reaches them (ck_expand) */
    struct Eval *ev;         /* its compile-time evaluator (computed struct
                                fields of templates, def-constraints) */
    struct Ctx *cur;         /* the function context being checked while a
                                macro runs: type-of looks variables up here */
    Node **sig_names, **sig_types; /* (def-type NAME #'(...)) aliases so far */
    int nsigs, capsigs;
    PtrMap internal;         /* forms the checker wrote itself whose heads
                                are internal (%debug-log): a program may not
                                write them */
    FuncDef *forced_callee;  /* the next ck_user_call calls this function (a
                                (funcall (gen-NAME T...)) instance) */
    CtBody *ct;              /* the def-const-vec whose body is being checked
                                and run (constvec.c), or NULL */
    int nfnvals;             /* SYM_FNVAL symbols made so far (ck_sym_named) */
    int nsoas;               /* soa-vector variables made so far (soa.c):
                                none, ck_soa_sym asks no scope */
    int nidents;             /* identity-tensor types made so far (TY_IDENT:
                                tensors.c, typeexpr.c): none, no variable
                                is one (ck_identity_rank asks no scope) */
    int in_library;          /* collecting the library (lib/): definitions are
                                emitted only when the program uses them */
    struct OrchForm **orch_forms; /* def-orchestrations, resolved after the gen- pass (orch.c) */
    int norch_forms, caporch_forms;
    Forms read;              /* the forms as read (check_program's input) */
    Forms forms;             /* every definition collected, macros expanded */
    int nderived_forms;      /* set-derived forms among them (collect.c) */
    int ngen_forms;          /* (gen-NAME ...) forms among them (collect.c) */
    BaseMemo bmemo[BASE_MEMO_SLOTS]; /* type_expr_any's base types by the
                                name's pointer, direct-mapped */
    GlobalMemo gmemo[GLOBAL_MEMO_SLOTS]; /* ck_global_lookup's answers by the
                                key's pointer, direct-mapped */
    SpellMemo spells[SPELL_MEMO_SLOTS]; /* Checker.spelled's records by the
                                name's pointer, direct-mapped */
    JoinMemo joins[JOIN_MEMO_SLOTS]; /* ck_name_join's answers, direct-mapped
                                (issue 14: every vector parameter's x_len) */
    HeadMemo heads[HEAD_MEMO_SLOTS]; /* ck_head's answers by the key's pointer,
                                direct-mapped (issue 14: every list's head
                                went through chains of name tests) */
} Checker;

typedef enum DestKind { D_DISCARD, D_RETURN, D_VAR } DestKind;

typedef struct Dest {
    DestKind kind;
    Sym *var;                /* D_VAR: the variable receiving the value */
    Type *want;              /* expected type, or NULL */
} Dest;

typedef struct Ctx {
    Checker *ck;
    PtrMap memo;             /* macro calls expanded here: the same call
                                expands once per instantiation (the types
                                of its variables may differ between them) */
    const Node *plain;       /* the list ck_expand last found to be no
                                macro call (asked again right after) */
    CFunc *fn;
    FuncDef *fd;
    Scope *scope;
    Node *block;             /* statements are appended here */
    const Sym *loop_test_var; /* while checking a %loop's test: its index
                                (E0312's hint on (dotimes (i (- n 1)) ...)) */
    const Node *grid_region; /* innermost grid-level form we are inside */
    const char *grid_what;
    int grid_steps;          /* inside a grid-level progn/let: its steps */
    const char *no_barrier;  /* divergent construct we are inside */
    NameTable names;         /* C names used in this function */
    int temp_counter;
    int loop_depth;          /* inside a loop body: side channels not allowed */
    const char *bind_hint;   /* the let variable being initialised (names views) */
    const Node *body_owner;  /* the form whose body is being checked (messages) */
    int setter_depth;        /* inlining a def-setter */
    int branch_depth;        /* inside if branches, loop bodies, and/or operands */
    int consteval;           /* a def-const-vec body, checked to run in the
                                compiler: C's conversions apply (constvec.c) */

    const Node *in_warp;     /* innermost in-warp form we are inside (warps.c) */
    int native_warp;         /* inside %native-warp-if's native branch (warps.c) */
    const Node *divergent;   /* innermost construct whose threads may diverge */
    Sym **uniform;           /* variables known to be uniform across the workgroup */
    int nuniform, capuniform;
} Ctx;

/* ---- check_forms.c: def-setter ---- */
Node *ck_setter_object_type(const Node *f);

/* ---- check.c ---- */
/* ck_expand: `syn` with the macro call in its head position expanded
 * (expand.h), with this context's variables visible to the macro's type
 * queries.  Returns `syn` when it is no macro call, NULL after an error.
 * Inline up to the expander's answer (issue 14: every expression comes
 * through ck_expand, and five lists in six are no macro call: a call of
 * ck_expand's list part each, 0.7 M instructions at 1 MB);
 * ck_expand_macro expands a list the expander says is a macro call. */
Node *ck_expand_macro(Ctx *cx, Node *syn);
/* A function's macro memo (Ctx.memo) once it is checked; an empty one for
 * the next (the last released, kept). */
void ck_memo_release(Checker *ck, PtrMap *m);
PtrMap ck_memo_fresh(Checker *ck);
static inline Node *ck_expand(Ctx *cx, Node *syn) {
    /* the list asked about last, again (form_to_1 then ck_expr, an if's
       test then its value): no macro call still, in this body */
    if (!syn || syn->kind != N_LIST || syn == cx->plain) return syn;
    if (!cx->ck->x || !expander_is_macro_call(cx->ck->x, syn)) {
        cx->plain = syn;
        return syn;
    }
    return ck_expand_macro(cx, syn);
}
/* The same for syntax read without being checked (constant expressions,
 * sizes): every macro call in it, without run-time type information. */
Node *ck_expand_all(Checker *ck, Node *syn);
/* Not bfloat16 (E0905): for variables, parameters and results. */
int ck_value_type_ok(Checker *ck, const Type *t, const Node *at);
/* An `if` test's truth when known at compile time (1/0), else -1. */
int ck_static_truth(Ctx *cx, const Node *form, Node *test);
Node *cx_sym(Ctx *cx, const Node *at, const char *name);
Node *cx_int(Ctx *cx, const Node *at, int64_t v);
Node *cx_list(Ctx *cx, const Node *at, int n, ...);
Sym *ck_sym_named(Checker *ck, SymKind k, Node *name);
Sym *ck_new_global(Checker *ck, SymKind k, Node *name);
/* A checked node of kind K at AT's place and expansion, of type TY
 * (inline: the checker makes one per expression, 100,000 at 1 MB; issue
 * 14: two calls each); ck_node_made is the rest when the arena's window
 * has no room. */
Node *ck_node_made(Ctx *cx, Node *n, NodeKind k, const Node *at, Type *ty);
static inline Node *ck_node(Ctx *cx, NodeKind k, const Node *at, Type *ty) {
    Node *n = arena_alloc8(cx->ck->a, sizeof *n);
    if (!n) return ck_node_made(cx, NULL, k, at, ty);
    n->kind = (unsigned char)k;
    if (at) {
        n->loc = at->loc;
        n->origin = at->origin;
    }
    n->ty = ty;
    return n;
}
void ck_block_add(Ctx *cx, Node *blk, Node *stmt);
void ck_emit_stmt(Ctx *cx, Node *stmt);
Sym *ck_scope_lookup(Ctx *cx, const char *key);
Sym *ck_global_lookup(Checker *ck, const char *key);
FuncDef *ck_func_lookup(Checker *ck, const char *key);
void ck_func_index(Checker *ck, FuncDef *fd);
/* fnbases[BASE] = FD, the table's version bumped. */
void ck_fnbase_put(Checker *ck, const char *base, FuncDef *fd);

/* --skip-c-t-checks (spec "Other Flags"): the routine safety checks that
 * code generation does not need are skipped (docs/api.md "Flags"). */
static inline int ck_skip_checks(const Checker *ck) {
    return ck->c->opt && ck->c->opt->skip_ct_checks;
}
int ck_func_overloads(Checker *ck, const char *key, FuncDef **out, int max);
Sym *ck_parameter_lookup(Checker *ck, const Node *name);
Sym *ck_new_local(Ctx *cx, const Node *at, const char *name, Type *ty);
Sym *ck_new_temp(Ctx *cx, const Node *at, const char *hint, Type *ty);
/* A temporary of type TY (NULL: set later) declared in the current block,
 * with INIT as its value when INIT is not NULL; NULL when out of memory. */
Sym *ck_declare_temp(Ctx *cx, const Node *at, const char *hint, Type *ty, Node *init);
void ck_scope_push(Ctx *cx);
void ck_scope_pop(Ctx *cx);
void ck_scope_add(Ctx *cx, Sym *s);
/* Add `s` to a scope (its index too); the program's globals use it. */
void ck_scope_insert(Arena *a, Scope *sc, Sym *s);
void ck_form_to(Ctx *cx, Node *syn, Dest *d);
void ck_body_to(Ctx *cx, Node **forms, int n, Dest *d);
void ck_deliver(Ctx *cx, Node *val, Dest *d, const Node *at);
Program *ck_prog_of(Ctx *cx);
/* Whether ck_grid_op would report here (a caller makes its WHAT only
 * then). */
int ck_grid_op_reports(Ctx *cx);
void ck_grid_op(Ctx *cx, const Node *at, const char *what);
void ck_resolve_signature(Checker *ck, FuncDef *fd);
CFunc *ck_instantiate(Ctx *cx, FuncDef *fd, Type **argtys, const Node *call);
const char *ck_overload_cname(Checker *ck, const FuncDef *fd, const char *base);
Helper *ck_need_helper(Ctx *cx, HelperKind k, Type *ty, AddrSpace as);
void ck_helper_add(Arena *a, Program *p, Helper *h);
/* A call of support code `h` (a BI_HELPER C_CALL). */
Node *ck_helper_call(Ctx *cx, const Node *at, Type *ty, Helper *h, Node **args, int n);

/* ---- check.c: the passes ---- */
/* One pass of the checker over the whole program (check_passes lists
 * them in order, ending with {NULL, NULL}). */
typedef struct CheckPass {
    const char *name;
    void (*run)(Checker *ck);
} CheckPass;
extern const CheckPass check_passes[];
/* check_program is checker_init, every pass, checker_finish (unit tests
 * run the passes one by one).  checker_init returns 0 when out of memory. */
int checker_init(Checker *ck, Crisp *c, struct Expander *x, Forms read, const TargetNames *target);
Program *checker_finish(Checker *ck);
/* ---- check.c ---- */
/* An empty C_BLOCK at AT. */
Node *ck_new_block(Ctx *cx, const Node *at);
/* ---- collect.c ---- */
void ck_pass_collect(Checker *ck);
/* ---- signatures.c ---- */
void ck_pass_constants(Checker *ck);
void ck_pass_signatures(Checker *ck);
void ck_pass_overloads(Checker *ck);
/* ---- instances.c ---- */
void ck_pass_kernels(Checker *ck);
void ck_pass_functions(Checker *ck);
/* ---- cnames.c ---- */
/* Each asks the target's TargetNames (ck->names; crisp_names without one).
 * NAME starts with a prefix the target reserves. */
int ck_has_reserved_prefix(const Checker *ck, const char *s);
/* NAME is a word or prefix the target reserves. */
int ck_is_reserved(const Checker *ck, const char *s);
/* A Crisp name (image-data) as the target's identifier (image_data). */
const char *ck_mangle(const Checker *ck, const char *crisp_name);
/* The identifier of PART of BASE (v_len, phylum_chordata, twice_int). */
const char *ck_name_join(Checker *ck, const char *base, const char *part);
/* A word naming type T in the names of overloads and instances (floatvec). */
const char *ck_type_part(const Checker *ck, const Type *t);
/* Names taken after `mark` die (a braced block closed). */
void ck_names_rollback(Checker *ck, NameTable *t, int mark);
/* An identifier not used yet in T (taken now): BASE, or the target's
 * variant of it (BASE_K). */
const char *ck_unique_name(Checker *ck, NameTable *t, const char *base);
/* T is dead (a function's local names, once it is checked): its tables
 * serve the next function's (issue 14). */
void ck_names_release(Checker *ck, NameTable *t);
/* An empty table for a function's names (the last one released, kept). */
NameTable ck_names_fresh(Checker *ck);
/* Record a name taken as it is (a kernel keeps its own). */
void ck_names_take(Checker *ck, NameTable *t, const char *nm);
/* The C name of a new local variable CRISP_NAME of the function being checked. */
const char *ck_local_cname(Ctx *cx, const char *crisp_name);
/* FIELD of the struct variable whose identifier is PATH, as an expression (p.x). */
const char *ck_names_member(const Checker *ck, const char *path, const char *field);
/* An orchestration's NAME as the host code's identifier (scale_then_sum). */
const char *ck_names_host_ident(const Checker *ck, const char *name);
/* The target language's name, for messages ("OpenCL C"). */
const char *ck_names_language(const Checker *ck);

/* ---- check_expr.c; ck_expr, ck_suggest_variable: check_forms.c; ck_place,
 * ck_shadow_note: check_vectors.c ---- */
/* "did you mean `x`?": a note naming the nearest visible variable. */
void ck_suggest_variable(Ctx *cx, const Node *name);
/* A note when variable `v` hides another spelled differently. */
void ck_shadow_note(Ctx *cx, const Node *syn, const Node *v);
Node *ck_expr(Ctx *cx, Node *syn, Type *want);
Node *ck_coerce_other(Ctx *cx, Node *val, Type *want, const Node *at, const char *what);
/* ck_coerce: VAL as a value of type WANT (NULL after an error, WHAT in its
 * message); the same type answered inline (most coercions), a flexible
 * literal to a hardware vector excepted; the rest ck_coerce_other. */
static inline Node *ck_coerce(Ctx *cx, Node *val, Type *want, const Node *at, const char *what) {
    if (val && want && val->ty == want &&
        !(want->kind == TY_HWVEC && (val->kind == N_C_INTLIT || val->kind == N_C_FLOATLIT) && val->op != 0))
        return val;
    return ck_coerce_other(cx, val, want, at, what);
}
/* ck_coerce of a part of something, "ROLE `NAME` of `OWNER`" in the
 * message (argument `x` of `f`, field `x` of `pt`). */
Node *ck_coerce_part(Ctx *cx, Node *val, Type *want, const Node *at, const char *role, const char *name, const char *owner);
int ck_is_value_form(Ctx *cx, const Node *syn);
Node *ck_place(Ctx *cx, Node *syn, int for_write);
int ck_const_int(Ctx *cx, Node *checked, int64_t *out);
int ck_const_syn_int(Ctx *cx, Node *syn, int64_t *out);
Node *ck_int_lit(Ctx *cx, const Node *at, int64_t v, Type *ty);
Node *ck_zero_value(Ctx *cx, const Node *at, Type *ty);
/* A reference to the variable S (inline: one per use of a variable). */
static inline Node *ck_var_ref(Ctx *cx, const Node *at, Sym *s) {
    Node *x = ck_node(cx, N_C_VAR, at, s->ty);
    x->sym = s;
    return x;
}
const char *ck_tname(Ctx *cx, const Type *t);
int ck_node_has_effects(const Node *n);

/* ---- orch.c: def-orchestration ---- */
/* Remember a def-orchestration FORM (NAME: a template instance's name, or NULL). */
void orch_collect(Checker *ck, Node *form, const char *name);
/* Resolve them (after the top-level gen- forms, before kernels are checked). */
void orch_resolve(Checker *ck);
/* Check what needs the checked kernels (KERNEL::RESULT references). */
void orch_finish(Checker *ck);
/* (let-kernel ((NAME (PARAMS) BODY...)...) BODY...) in a kernel (spec "Continuation Kernels"). */
void orch_let_kernel(Ctx *cx, Node *syn, Dest *d);
/* E1211 instead of "unknown variable" when NAME is a run-time variable of
 * the kernel a continuation kernel continues; 1 when reported. */
int orch_capture_error(Ctx *cx, const Node *name);
/* A template orchestration's instance: ${T} in strings and a T between
 * underscores in KERNEL::VAR names replaced by the argument's C name. */
Node *orch_subst_names(Checker *ck, Node *form, Node **params, const char **cnames, int n);

/* ---- constvec.c: def-const-vec ---- */
void constvec_eval(Checker *ck, Sym *s);
Node *constvec_ref(Ctx *cx, Node *syn, Sym *s);
void constvec_call(Ctx *cx, CFunc *f, const Node *call, int reused);
void constvec_decl(Ctx *cx, Node *use_decl);
void constvec_write_error(Ctx *cx, const Node *at, Sym *s);
/* The checker's hooks for a compile-time body (cx->consteval): */
Type *constvec_join(const Type *a, const Type *b);
int constvec_literals_fit(Node **args, int n, const Type *want);
Node *constvec_wrap(Ctx *cx, int64_t v, Type *target, const Node *at);
void constvec_float_error(Ctx *cx, const Type *want, const Node *at);
int constvec_convert(Ctx *cx, Node *val, Type *want, const Node *at, Node **out);
Sym *constvec_make_vector(Ctx *cx, Node *name, Node *init);
Node *constvec_form(Ctx *cx, Node *syn, int *handled);
Node *constvec_parent(Ctx *cx, Node *syn, Node *base);
int constvec_reinterpret_ok(Ctx *cx, const Node *tn, const Type *et);
int constvec_call_ok(Ctx *cx, Node *syn);
Node *ck_global_const_value(Checker *ck, Sym *s);

/* ---- uniform.c: uniform values, the + and * variants ---- */
void ck_uniform_form(Ctx *cx, Node *syn, Dest *d);
Sym *ck_uniform_bind(Ctx *cx, Node *name, Node *init, Type *declared, const Node *decl_at, int capture);
/* The one-element __local vector holding a uniform value of type T. */
Sym *ck_uniform_slot(Ctx *cx, const Node *at, const char *name, Type *t);
/* A static-analysis opt-in of a function's declare (check-barriers ...)? */
int ck_is_analysis_decl(const char *head);
/* Does N mention the symbol `it` outside quoted data (check.c)? */
int ck_syn_mentions_it(const Node *n);

/* ---- sidechan.c ---- */
Node *ck_side_make(Ctx *cx, Node *syn, Type *want);
int ck_side_call_args(Ctx *cx, CFunc *callee, Node *call_syn, FuncDef *fd, Node **extra, int *nextra);
Sym *ck_debug_sym(Ctx *cx, const Node *at);
Node *ck_debug_form(Ctx *cx, Node *syn, Type *want);
Node *ck_marshall_form(Ctx *cx, Node *syn, Type *want);
void ck_side_finish_kernel(Ctx *cx);
Sym *ck_side_uniform_param(Ctx *cx, const Node *at, const char *name, Type *vt);

/* ---- structs.c ---- */
void ck_struct_collect(Checker *ck, Node *form);
int ck_struct_resolve(Checker *ck, StructDef *sd);
Node *ck_struct_member(Ctx *cx, Node *syn, Node *base, int for_write);
Node *ck_struct_member_value(Ctx *cx, Node *m);
Node *ck_struct_component(Ctx *cx, Node *m, int k);
Node *ck_struct_make(Ctx *cx, Node *syn, StructDef *sd);
Node *ck_struct_make_checked(Ctx *cx, Node *syn, StructDef *sd, Node **pre);
int ck_struct_field_shape(Node *f, Node **name, Node **type);
void ck_derived_collect(Checker *ck, Node *form);
void ck_set_derived(Checker *ck, Node *form);
int ck_struct_subst_ok(const Type *from, const Type *to);
int ck_vector_tag_fit(const Type *from, const Type *to);
int ck_derived_subst_ok(const Type *from, const Type *to);
int ck_struct_holds_views(Checker *ck, const Type *t);
int ck_derived_subst_of(const Node *form);

void ck_enum_collect(Checker *ck, Node *form);
Node *ck_enum_value(Ctx *cx, Node *kw, Type *want);

/* ---- templates.c ---- */
void ck_template_collect(Checker *ck, Node *form);
void ck_template_gen(Checker *ck, Node *form);
Type *ck_template_type(Checker *ck, Node *syn);
Template *ck_template_lookup(Checker *ck, const char *key);
int ck_template_is_def_type(Checker *ck, const char *key);
FuncDef *ck_template_for_call(Checker *ck, const char *key, Node *call, Node **argv, int n);
FuncDef *ck_collect_instance(Checker *ck, Node *form, FnKind kind, const char *cname_base);
Node *ck_param_type_syntax(Node *form, int i);
int ck_template_is_gen(const Node *a);
int ck_template_is_gen_function(Checker *ck, const Node *a);
FuncDef *ck_template_function_arg(Checker *ck, Node *a);
int ck_template_make_struct(Ctx *cx, Node *syn, StructDef **sd, Node ***pre);
int ck_template_pattern_match(Checker *ck, const Type *pattern, const Type *arg);

/* ---- ctquery.c: the compile-time language's type queries ---- */
void ctquery_install(Checker *ck);
Node *ctq_type_syntax(Checker *ck, Type *t, SrcLoc loc);
Node *ctq_signature_syntax(Checker *ck, const char *f, SrcLoc loc);

/* ---- hof.c ---- */
int ck_hof_collect(Checker *ck, Node *form);
int ck_hof_lookup(Checker *ck, const char *key);
Node *ck_hof_call(Ctx *cx, Node *syn, Type *want, int *handled);
int ck_is_signature_type(const Node *ts);
Node *ck_fn_reference(Ctx *cx, Node *a);
Sym *ck_fnval_bind(Ctx *cx, Node *name, Node *init, Node *sig);
int ck_fnval_init(Ctx *cx, const Node *init);
Node *ck_fnval_set(Ctx *cx, Sym *s, Node *place_syn, Node *value);
Node *ck_fnval_call(Ctx *cx, Node *syn, Type *want);
Node *ck_fnval_use_error(Ctx *cx, const Node *at, const Sym *s);
int ck_builtin_function_value(const char *key);

/* ---- check_expr.c: node builders; check_vectors.c, check_views.c: vector
 * operands ---- */
Node *ck_mk(Ctx *cx, NodeKind k, const Node *at, Type *ty, int n);
Node *ck_mk1(Ctx *cx, NodeKind k, const Node *at, Type *ty, Node *a);
Node *ck_mk2(Ctx *cx, NodeKind k, const Node *at, Type *ty, int op, Node *a, Node *b);
/* ck_nargs_ok's error (E0320); returns 0. */
int ck_nargs_report(Ctx *cx, Node *syn, int lo, int hi);
/* Whether the form SYN has LO to HI arguments (HI < 0: no upper bound);
 * E0320 when not.  Inline: asked of every builtin form. */
static inline int ck_nargs_ok(Ctx *cx, Node *syn, int lo, int hi) {
    int n = syn->nkids - 1;
    return n < lo || (hi >= 0 && n > hi) ? ck_nargs_report(cx, syn, lo, hi) : 1;
}
Sym *ck_vector_operand(Ctx *cx, Node *syn, const char *what);
Sym *ck_view_var(Ctx *cx, const Node *at, const char *name, Type *ty);
Sym *ck_view_decl(Ctx *cx, const Node *at, Sym *v, Node *ptr, Node *len);
Sym *ck_new_view(Ctx *cx, Node *syn, const char *name, Type *ty, Node *ptr, Node *off, Node *len);
Node *ck_ulong_arg(Ctx *cx, Node *syn, const char *what);

Node *ck_index_expr(Ctx *cx, Node *isyn, const char *what);
Node *ck_index_node(Ctx *cx, Node *syn, Sym *vec, Node *isyn);

/* ---- soa.c ---- */
int ck_soa_init_form(const Node *init);
int ck_soa_struct_ok(Checker *ck, Node *at, Type *t);
int ck_soa_param_fields(Ctx *cx, Sym *s, const Node *at);
void ck_soa_call_args(Ctx *cx, Node *syn, Sym *arg, Node *call);
Sym *ck_soa_sym(Ctx *cx, Node *syn);
Sym *ck_soa_bind(Ctx *cx, Sym *s, Node *name, Node *init);
int ck_soa_access(Ctx *cx, Node *syn, int for_write, Node **out);
Node *ck_soa_get_struct(Ctx *cx, Node *syn, Type *want);
Node *ck_soa_convert(Ctx *cx, Node *syn, Type *want);

/* ---- tensors.c ---- */
Node *ck_tensor_index(Ctx *cx, Node *syn, Sym *t, Node **idx, int n);
Node *ck_tensor_length(Ctx *cx, Node *syn, Sym *t);
Node *ck_tensor_form(Ctx *cx, Node *syn, Type *want);
Node *ck_tensor_set_array(Ctx *cx, Node *place, Node *value);
Node *ck_tensor_as_derived(Ctx *cx, Node *syn, Type *dt);
/* derived.c: derived vector, view, soa and tensor-view types */
Type *ck_derived_vector_type(Ctx *cx, const Node *at, const char *name);
Node *ck_derived_vector_as(Ctx *cx, Node *syn, Type *dt);
Node *ck_derived_make_syntax(Ctx *cx, const Node *init, Type **dt);
int ck_derived_make_retag(Ctx *cx, const Node *at, Sym *s, Type *dt);
Node *ck_derived_form(Ctx *cx, Node *syn, int *handled);
int ck_derived_bind_declared(Ctx *cx, const Node *at, Sym *s, const Type *declared);
Node *ck_struct_as(Ctx *cx, Node *val, Type *want, const Node *at);
/* (~ref~ T ...) on a tensor: reports E0485 and returns 1. */
int ck_tensor_ref_error(Ctx *cx, Node *syn);
int ck_identity_rank(Ctx *cx, Node *syn);
Node *ck_identity_index(Ctx *cx, Node *syn, int rank);
int ck_identity_arg_ok(Ctx *cx, Node *asyn, Node *a, Type *pt, const char *pname, const char *fname);
/* (cond ? 1 : 0) whose literals take the type the context wants; with
 * COND NULL the flexible literal KONST. */
Node *ck_adopting_delta(Ctx *cx, const Node *at, Node *cond, int konst);

/* ---- check_forms.c: what a head's spelling says (HeadMemo) ---- */
/* The memo's slot for KEY's pointer. */
static inline HeadMemo *ck_head_slot(Checker *ck, const char *key) {
    return &ck->heads[((uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull) >> (64 - HEAD_MEMO_BITS)];
}
/* The slot filled for KEY. */
const HeadMemo *ck_head_fill(HeadMemo *m, const char *key);
/* (inline: asked for every list's head; mostly in the memo).  Two ways:
 * KEY's slot or its pair's (index ^ 1); a new key takes its slot and the
 * slot's key moves to the pair, the pair's goes (issue 14: direct-mapped,
 * two hot heads of one slot - the reader's `set!` and a library form's -
 * took turns, and how many did moved with the binary's layout: +-0.5 M
 * instructions at 1 MB between builds).  The answer is valid until the
 * next ck_head. */
static inline const HeadMemo *ck_head(Checker *ck, const char *key) {
    HeadMemo *m = ck_head_slot(ck, key);
    if (m->key == key) return m;
    HeadMemo *pair = &ck->heads[(m - ck->heads) ^ 1];
    if (pair->key == key) return pair;
    *pair = *m;
    return ck_head_fill(m, key);
}

/* ---- warps.c: warp forms (spec "Warps & Shuffles") ---- */
int ck_warp_form_name(const char *key);
/* The I-th warp form's name, NULL past the last. */
const char *ck_warp_form_at(int i);
/* The heads uniform_syn knows, NULL-terminated: those the same for every
 * thread of a workgroup, and the pure operators. */
extern const char *const ck_uniform_launch_heads[];
extern const char *const ck_uniform_op_heads[];
Node *ck_warp_form(Ctx *cx, Node *syn, Type *want);
Node *ck_warp_size_value(Ctx *cx, Node *syn, Type *want);
/* (device-has :subgroups): 1 when the device decides (OpenCL C 2.0+). */
int ck_warp_device_has_subgroups(Ctx *cx, const Node *syn);
/* Control flow: the divergent construct in force inside TEST's branches
 * (returns the one to restore afterwards). */
const Node *ck_warp_branch_enter(Ctx *cx, const Node *construct, const Node *test);
const Node *ck_warp_loop_enter(Ctx *cx, const Node *loop, Sym *var, const Node *init, const Node *test, const Node *step);
const Node *ck_warp_divergent_enter(Ctx *cx, const Node *construct);
void ck_warp_native_use(Ctx *cx);
/* A call of CALLEE: check convergence, pass the warp memory on. */
int ck_warp_call_args(Ctx *cx, CFunc *callee, const Node *call_syn, Node **extra, int *nextra);

/* ---- check_calls.c: calls ---- */
Node *ck_user_call(Ctx *cx, Node *syn, Type *want, Node **extra, int nextra);

/* ---- typeexpr.c ---- */
Type *ck_type_expr(Checker *ck, Node *syn);
/* Parse (vector-type ...)-style arguments starting at kids[start]. */
Type *ck_vector_type_args(Checker *ck, Node *form, int start, int allow_len_expr, Node **len_expr);
Type *ck_make_vector_type(Checker *ck, Node *form, Node **len_expr, Type **base);
int ck_parse_signature(Checker *ck, Node *sig, Type ***params, int **outs, int *nparams, Type **ret);
AddrSpace ck_as_keyword(const char *key);
Access ck_acc_keyword(const char *key);
Align ck_align_keyword(const char *key);

#endif
