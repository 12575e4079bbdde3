/* eval.h - the compile-time evaluator: a small Lisp that runs `defmacro`s.
 *
 * Crisp kernels have no eval, lists or recursion, but their macros do: a
 * macro body is ordinary Lisp run by the compiler on syntax nodes.  This
 * module is that Lisp.  Its values are syntax Nodes (integers, floats,
 * strings, symbols, keywords, lists, vector literals) plus closures, so a
 * macro's arguments are passed in unchanged and its result is spliced back
 * into the program as it is.  The language (special forms, functions,
 * truthiness) and its resource limits are described in docs/macros.md.
 *
 * The evaluator never exits and never overflows the C stack: every error,
 * including exceeding a limit, becomes a diagnostic on c->diag and a NULL
 * result that unwinds to the caller. */
#ifndef CRISP_EVAL_H
#define CRISP_EVAL_H

#include "../core/context.h"
#include "../core/strbuf.h"
#include "../core/ptrmap.h"

/* Defaults for the limits (used when the CrispOptions field is 0). */
#define EVAL_DEFAULT_MAX_STEPS 1000000L         /* per macro call           */
#define EVAL_DEFAULT_TOTAL_STEPS 8000000L       /* per compilation          */
#define EVAL_DEFAULT_MAX_EXPANSION_DEPTH 200L   /* nested macro expansions  */
#define EVAL_DEFAULT_MAX_RECURSION 5000L        /* nested evaluations       */
#define EVAL_DEFAULT_MAX_OUTPUT_NODES 250000L   /* new nodes per expansion  */
#define EVAL_DEFAULT_TOTAL_OUTPUT_NODES 1000000L /* new nodes per compilation */
#define EVAL_DEFAULT_MAX_NESTING 2000L          /* list depth of any value  */

/* Diagnostic codes of the macro stage. */
#define EVAL_E_DEFMACRO "E0201"  /* malformed defmacro / lambda list        */
#define EVAL_E_ARGS "E0202"      /* macro call does not match lambda list   */
#define EVAL_E_EVAL "E0203"      /* compile-time evaluation error           */
#define EVAL_E_USER "E0204"      /* (error ...) raised by a macro           */
#define EVAL_E_STEPS "E0205"     /* step limit                              */
#define EVAL_E_DEPTH "E0206"     /* expansion depth limit                   */
#define EVAL_E_RECURSION "E0207" /* evaluator recursion limit               */
#define EVAL_E_SIZE "E0208"      /* expansion too large / too deeply nested */
#define EVAL_E_TOPLEVEL "E0209"  /* misplaced defmacro/%defun, bad prelude  */
#define EVAL_E_ASSERT "E0210"    /* c-t-assert failed / not known            */
#define EVAL_E_STRUCT "E0211"    /* with-struct-accessors: unknown struct    */
#define EVAL_E_ACCBIND "E0212"   /* with-struct-accessors: bad binding list  */
#define EVAL_E_ACCESS "E0213"    /* with-struct-accessors: bad :access / key */
#define EVAL_E_ELEMTYPE "E0214"  /* element-type: not a vector type          */
#define EVAL_E_NUMDIMS "E0215"   /* num-dims-of: not a tensor-view type      */
#define EVAL_E_FUNSIG "E0216"    /* return-type-of / type-signature-of: no
                                    recorded def-function signature         */
#define EVAL_E_SIG "E0217"       /* has-overload?: malformed signature       */
#define EVAL_E_TYPEOF "E0218"    /* type-of of a run-time expression         */
#define EVAL_E_DIVZERO "E0319"   /* division by zero (also the checker's)    */
#define EVAL_E_OVERFLOW "E0321"  /* integer overflow (also the checker's)    */

typedef struct Eval Eval;
typedef struct EvalLambdaList EvalLambdaList;  /* parsed lambda list  */
typedef struct EvalMapEnt EvalMapEnt;

/* A string-keyed hash table living in the compilation's arena. */
typedef struct EvalMap {
    EvalMapEnt *ents;
    int cap, n;
} EvalMap;

/* One macro: `(defmacro NAME LAMBDA-LIST [DOCSTRING] BODY...)`. */
typedef struct Macro {
    const char *name;        /* as written                                 */
    const char *key;         /* canonical (lower-case)                     */
    const Node *form;        /* the defmacro form: errors in the body and
                                "defined here" notes point into it         */
    EvalLambdaList *params;
    Node **body;
    int nbody;
    const char *doc;         /* docstring or NULL                          */
    int from_prelude;
    int seq;                 /* position of its definition (Eval.seq)      */
    const struct Macro *prev; /* the definition it replaced, or NULL       */
    int code_noted;          /* its nodes are in Eval.code (eval_is_code)  */
    /* A template macro (eval_template_begin): 0 not looked at yet, 1 yes,
       -1 no; its template as instructions, and what its run would cost. */
    int tpl_state;
    const struct EvalTplOp *tpl;
    long tpl_steps;          /* evaluation steps, less the splices' lengths */
    int tpl_nsplice;         /* ,@REST forms (each charges REST's length)   */
    int tpl_depth;           /* evaluator nesting its run reaches           */
    int tpl_nodes;           /* nodes of the result, less the arguments     */
    int tpl_height;          /* their deepest level (the result's node 0)   */
    long tpl_bytes;          /* their bytes, as take_expansion lays them
                                out, less 8 per element of REST per splice  */
} Macro;

/* A template macro's template, flattened in preorder (eval_template_begin).
 * A macro whose lambda list is plain required parameters and an optional
 * &rest/&body one, and whose body is one quasiquote template whose only
 * unquotes are `,PARAM` (a required parameter) and `,@REST`, expands to the
 * template with the arguments put in: the expander builds that result
 * straight from these instructions instead of running the evaluator
 * (issue 14: `when` and its kind are a fifth of all expansions). */
enum {
    EVAL_TPL_COPY,   /* `n`, a part of the template without unquotes      */
    EVAL_TPL_LIST,   /* a new list (as the evaluator's quasiquote makes
                        it: only kind, kids and count set) of the `fixed`
                        elements that follow, and REST's elements for each
                        of its `nsplice` ,@REST elements                   */
    EVAL_TPL_ARG,    /* the call's argument number `arg` (0 = the first)  */
    EVAL_TPL_SPLICE  /* REST's elements: the call's arguments from `arg` on */
};
typedef struct EvalTplOp {
    const Node *n;
    int kind;
    int arg;
    int span;                /* instructions of this element, itself included */
    int fixed, nsplice;      /* EVAL_TPL_LIST                                 */
} EvalTplOp;

/* Hook for compile-time functions the evaluator does not know itself: the
 * type queries (type-of, is-type-of, type-equal, element-type, the
 * is-XXXX? predicates, num-dims-of, type-has-prop?, is-substitutable-for?,
 * has-overload?, return-type-of, type-signature-of, "%struct-fields" for
 * with-struct-accessors), which the checker answers (types/ctquery.c).  Called with the
 * evaluated arguments when `name` is neither a special form, a builtin nor
 * a macro.  Return 1 and set *out when handled, 0 when `name` is unknown to
 * the host too (the evaluator then reports "unknown compile-time function"),
 * or -1 after reporting an error yourself (use eval_error). */
typedef int (*EvalHostCall)(Eval *ev, void *ud, const Node *form, const char *name,
                            Node **args, int nargs, Node **out);
/* Same for a symbol that has no lexical binding (and is not a def-const the
 * expander registered): type names evaluate to themselves, constants to
 * their values.  Return 1 and set *out, or 0. */
typedef int (*EvalHostVar)(Eval *ev, void *ud, const Node *sym, Node **out);

struct Eval {
    Crisp *c;

    /* Limits, filled from c->opt (or the defaults) by eval_init; tests may
       lower them afterwards. */
    long max_steps;            /* evaluation steps per macro call          */
    long total_steps;          /* evaluation steps per compilation         */
    long max_expansion_depth;  /* nested macro expansions                  */
    long max_recursion;        /* nested evaluations (C stack guard)       */
    long max_output_nodes;     /* new nodes in one expansion               */
    long total_output_nodes;   /* new nodes in all expansions              */
    long max_nesting;          /* list depth of an expansion / value       */

    EvalMap prims;   /* special forms and builtin functions   */
    EvalMap macros;  /* name key -> Macro*                    */
    uint64_t macro_prefixes[64]; /* a bit per hash of a macro name's first
                                    three bytes (eval_find_macro) */
    EvalMap funcs;   /* name key -> closure Node (%defun)     */
    EvalMap consts;  /* def-const values visible to macros    */

    int seq;                   /* position of the top-level form being
                                  processed: stamped on new macros        */

    EvalHostCall host_call;
    EvalHostVar host_var;
    void *host_ud;
    long host_calls;           /* calls of the hooks (and macro expansion
                                  steps) so far: while a macro runs, did
                                  the checker see its nodes?
                                  (macros/expand.c mark_fresh) */
    long writes;               /* changes to the evaluator's lasting state
                                  (a definition, a cached constant): while
                                  a macro runs, did any of its memory come
                                  to outlive it? (macros/expand.c) */

    /* State of the current top-level evaluation (set by eval_macroexpand /
       eval_form). */
    const char *macro;         /* macro being run, or NULL               */
    const Node *call;          /* its call site                          */
    const Expansion *exp;      /* origin attached to errors in its body  */
    long steps;                /* steps used by the current call         */
    long steps_used;           /* steps used by the whole compilation    */
    long depth;                /* current evaluation nesting             */
    long output_nodes;         /* new nodes produced by all expansions   */
    int failed;                /* an error was reported; unwinding       */

    /* Quiet evaluation (arguments of c-t-output / c-t-assert, which may
       not be known at compile time): while `quiet` > 0 ordinary errors are
       not reported, only recorded here; limits and out-of-memory still are. */
    int quiet;
    const char *quiet_msg;     /* first suppressed message                */
    const Node *quiet_at;      /* where it would have been reported       */

    /* Staged defaults of the macro being run: a default argument that is
       run-time code (`(funcall (gen-make-...-scratch-vec ...))`) is bound
       once, to a fresh variable, by a `let` around the expansion, so that
       every use of the parameter names the same value (run_macro). */
    Node **staged;             /* pairs: variable, code                   */
    int nstaged, staged_cap;
    int staging;               /* set while binding a macro's parameters  */

    /* The nodes of every definition (defmacro, %defun, def-constraint)
       that has run, noted at its first run: a macro's quoted constants
       are among them, so the expander tells them from the call's
       arguments without a walk of the arguments (eval_is_code). */
    const Node **code;         /* open addressing, NULL = empty          */
    int code_cap, code_n;

    /* What a call's head names (special form, builtin, %defun, macro or
       none), by the address of its spelling, direct-mapped, valid while
       `writes` is unchanged (eval.c resolve_head).  Code evaluated while
       `fresh_code` > 0 (a macro's result evaluated in a macro body) may
       have spellings that die with the run: not cached. */
    struct EvalHead *heads;
    int fresh_code;
    PtrMap lambdas;            /* a definition's (lambda LIST ...) -> LIST
                                  parsed (eval.c sf_lambda)             */

    Node *nil, *t;             /* canonical false / true values          */
    Node *small_ints[160];     /* cache for -32..127                     */
};

/* Set up an evaluator for compilation `c` (limits from c->opt). */
void eval_init(Eval *ev, Crisp *c);

/* Register `(defmacro NAME LAMBDA-LIST [DOC] BODY...)`; a later definition
 * of the same name replaces the earlier one (user macros may shadow prelude
 * macros).  Returns 1 on success, 0 after reporting an error. */
int eval_define_macro(Eval *ev, const Node *form, int from_prelude);

/* Register `(%defun NAME LAMBDA-LIST [DOC] BODY...)`: a compile-time
 * function that macro bodies (and other such functions) can call - the
 * prelude's shared helpers.  It does not exist at run time.  Returns 1 on
 * success, 0 after reporting an error. */
int eval_define_function(Eval *ev, const Node *form);

/* Call fn with the name of every macro (for "did you mean"). */
void eval_each_macro(const Eval *ev, void (*fn)(void *ud, const char *name), void *ud);

/* The macro named `key` (lower-case), or NULL. */
const Macro *eval_find_macro(const Eval *ev, const char *key);

/* Run macro `m` on the call form `call` (head + arguments).  `exp` is the
 * origin given to errors reported from the macro's body (normally the
 * Expansion the expander attaches to the result).  Returns the raw
 * expansion - fresh and shared nodes mixed, no origins set - or NULL after
 * reporting an error. */
Node *eval_macroexpand(Eval *ev, const Macro *m, const Node *call, const Expansion *exp);

/* Is `m` a template macro whose run on `call` the expander may replace
 * by building the template's result itself?  That is so when the run
 * could not fail or differ: the template is known (see EvalTplOp), the
 * call's argument count fits, no limit would be reached (steps, recursion,
 * memory), and the macro has run before (its first run notes its nodes:
 * eval_is_code).  Then the evaluator's state is left as the run would
 * leave it (the steps counted), *nrest is REST's length, and the
 * instructions are returned; else NULL, and nothing changed. */
const EvalTplOp *eval_template_begin(Eval *ev, const Macro *m, const Node *call, int *nrest);

/* Evaluate a standalone form in an empty environment (tests, compile-time
 * conditions).  Returns NULL after reporting an error. */
Node *eval_form(Eval *ev, const Node *form);

/* Is `n` one of the evaluator's own nodes that a macro's result may hold
 * without it being the call's: a node of a definition that has run (its
 * quoted constants: such nodes are never a macro call's arguments, since
 * every expansion copies them), nil, t or a cached small integer. */
static inline int eval_is_code(const Eval *ev, const Node *n);

/* (In line: the expander asks it of most nodes of every expansion.) */
static inline uint32_t eval_code_hash_(const void *p) {
    uintptr_t x = (uintptr_t)p >> 3;
    return (uint32_t)(x * 2654435761u) ^ (uint32_t)(x >> 29);
}

static inline int eval_is_code(const Eval *ev, const Node *n) {
    if (n == ev->nil || n == ev->t) return 1;
    if (n->kind == N_INT && n->ival >= -32 && n->ival < 128 && ev->small_ints[n->ival + 32] == n) return 1;
    if (!ev->code_cap) return 0;
    uint32_t mask = (uint32_t)ev->code_cap - 1;
    for (uint32_t j = eval_code_hash_(n) & mask;; j = (j + 1) & mask) {
        if (ev->code[j] == n) return 1;
        if (!ev->code[j]) return 0;
    }
}

/* Make a compile-time constant visible to macro bodies under `key`
 * (the expander does this for `(def-const NAME LITERAL)`). */
void eval_define_constant(Eval *ev, const char *key, Node *value);

/* Register `(def-constraint NAME (T) [DOC] BODY...)`: a compile-time
 * predicate over one type, callable like a %defun.  Returns 1 on success,
 * 0 after reporting an error. */
int eval_define_constraint(Eval *ev, const Node *form);

/* Is `key` (lower-case) a compile-time function the user or the prelude
 * defined (%defun or def-constraint)? */
int eval_has_function(const Eval *ev, const char *key);

/* Run a compile-time directive found in program code - `(c-t-output ...)`
 * or `(c-t-assert ...)` - in an empty environment, reporting at the form.
 * Returns 1 when it passed, 0 after reporting an error. */
int eval_directive(Eval *ev, const Node *form);

/* The user's source location behind `n`: `n`'s own location when the user
 * wrote it, else the call site of the outermost macro expansion that made
 * it (the root of its origin chain).  What `(line)` and `(file)` give. */
SrcLoc eval_user_site(const Node *n);

/* Is `key` (lower-case) one of the evaluator's special forms (if, when,
 * unless, cond, let, progn, quote...)?  Used to tell a computed struct
 * field of a template, `(when C '(color:C))`, from a field spec. */
int eval_is_special_form(const Eval *ev, const char *key);

/* Truthiness of the compile-time language: nil, (), false, 0 and 0.0 are
 * false; everything else is true. */
int eval_truthy(const Node *v);

/* The name of the function value `v` designates - a closure (#'+ in a
 * macro body) or the syntax (function NAME) a macro received - or NULL. */
const char *eval_function_name(const Node *v);

/* Is `v` a closure value (lambda or #'builtin)?  Closures may not appear in
 * an expansion.  (Closures travel as SYMBOL nodes whose `op` is this tag
 * and whose `ival` holds the closure: macros/eval.c.) */
#define EVAL_CLOSURE_TAG 0x434c /* fits Node.op */
static inline int eval_is_function(const Node *v) {
    return v && v->kind == N_SYMBOL && v->op == EVAL_CLOSURE_TAG && v->ival;
}

/* Report an error at `at` (a node of the macro body being run; NULL = the
 * macro's call site) with the current expansion as origin, and start
 * unwinding.  For use by EvalHostCall implementations.  Returns NULL. */
Node *eval_error(Eval *ev, const Node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same with a diagnostic code of its own (E0214 ...). */
Node *eval_error_code(Eval *ev, const char *code, const Node *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* --dump=expand: every form pretty-printed, forms separated by blank
 * lines.  (Implemented in expand.c; also meant to be declared in
 * expand.h.) */
void expand_dump(StrBuf *b, Forms f);

#endif
