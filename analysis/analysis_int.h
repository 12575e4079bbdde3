/* analysis_int.h - internals shared by the analysis files (not an API).
 *
 * uniformity.c  the uniformity lattice, the walk of a function to its
 *               fixpoint, function summaries, + variants, barriers,
 *               check-divergence, dropped captures
 * explain.c     words for diagnostics: what a checked node is in Crisp
 *               terms, why a value is not uniform
 * memory.c      index expressions as functions of the local id:
 *               check-coalesce, check-bank-conflicts
 * localmem.c    the __local bytes of each kernel, W0704 (localmem.h)
 * optin.c       declaim / declare opt-ins, the register estimate, the
 *               driver (analysis_run) and --dump=analysis */
#ifndef CRISP_ANALYSIS_INT_H
#define CRISP_ANALYSIS_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../core/ptrmap.h"
#include "../core/syntax.h"
#include "analysis.h"

/* How far a value is the same across work-items, lowest first. */
typedef enum Level {
    L_CONST,    /* known at compile time */
    L_UNIFORM,  /* the same in every work-item of a workgroup */
    L_WARP,     /* the same within a warp (sub-group), not across warps */
    L_VARYING,  /* may differ between work-items */
} Level;

/* A level, plus the parameters of the function being analysed that it
 * depends on (bit i: parameter i): inside a function a value computed
 * from a parameter is uniform when the caller's argument is. */
typedef struct Uni {
    int lv;
    uint64_t pm;
} Uni;

static inline Uni uni(int lv) {
    Uni u = {lv, 0};
    return u;
}

static inline Uni uni_join(Uni a, Uni b) {
    Uni u = {a.lv > b.lv ? a.lv : b.lv, a.pm | b.pm};
    return u;
}

static inline int uni_ok(Uni u) {
    return u.lv <= L_UNIFORM;
}

/* The opt-in checks (spec "Static Analysys"). */
enum {
    CK_BARRIERS = 1,
    CK_DIVERGENCE = 2,
    CK_COALESCE = 4,
    CK_BANKS = 8,
};

/* What the analysis knows about a variable of the function. */
typedef struct VarInfo {
    const Sym *sym;
    Uni u;
    int depth;             /* control depth where it is declared */
    const Node *why;       /* what made it non-uniform: a value, or the
                              condition it was assigned under */
    int why_branch;        /* `why` is a condition */
    const Node *init;      /* its initial value (thread-id proofs) */
    int nassign;           /* assignments after the declaration */
    int captured;          /* (declare (uniform ...)): shared by the workgroup */
    const Node *loop;      /* a loop index: its loop */
    int read;              /* the walk (Fn.walk) that last read its level or
                              proofs: a rise later in that walk makes it stale */
} VarInfo;

/* What callers see of a function (computed before any caller). */
typedef struct FnSum {
    CFunc *fn;
    Uni ret;               /* its values (return and extra values) */
    int has_barrier;       /* it, or a function it calls, reaches a barrier */
    const Node *barrier_at;
    uint64_t req_plus;     /* parameters a `+` variant needs uniform */
    uint64_t req_barrier;  /* parameters a barrier's condition depends on */
    const Node **req_plus_at;    /* [64], where each bit of req_plus comes from */
    const Node **req_barrier_at; /* [64], ... of req_barrier (both made by need_at) */
    int checks;            /* CK_* elected for it */
    int max_regs, warn_regs; /* register budgets (0: none) */
    const Node *regs_at;
    int regs;              /* the register estimate */
    int ndivergent;        /* check-divergence: branches found */
    int naccess_global, nuncoalesced, nunknown_global;
    int naccess_local, nconflicts, nunknown_local;
    StrBuf dump;           /* --dump=analysis lines */
} FnSum;

/* One enclosing condition: an if, or a loop's test. */
typedef struct Ctl {
    Uni u;
    const Node *at;        /* the if or loop */
    const Node *cond;      /* its condition */
    int proven;            /* certainly divergent (a thread-id equality) */
    int is_loop;
} Ctl;

struct Analysis {
    Crisp *c;
    Arena *a;
    Diag *d;
    Program *p;
    FnSum *sumv;           /* one per function, in p->funcs' order */
    PtrMap sums;           /* a function's cname -> its FnSum* (a map by
                              the CFunc too was a sixth of the analysis'
                              memory, issue 14) */
    ArenaMark scope;       /* the arena before the analysis (analysis_release) */
    Node **fix_node;       /* comments rewritten by dropped captures, and */
    char **fix_text;       /* ... their new texts, on the heap until the release */
    int nfix, capfix;
    Arena tmp;             /* the walk of one function: its variables, control
                              stack, loops (taken back after each function) */
    int optin;             /* run the opt-in checks (no --no-static-analysis) */
    unsigned char *pending; /* [i]: p->funcs[i] not analysed, to be walked when
                               a later function's walk reads its summary */
    int cur;               /* the function being walked (its index) */
    int dump;              /* --dump=analysis */
};

/* The state of the walk of one function. */
/* Give comment `n` the text `heap` (malloc'ed), kept past analysis_release. */
void analysis_set_text(Analysis *an, Node *n, char *heap);

typedef struct Fn {
    Analysis *an;
    Arena *tmp;            /* &an->tmp: what dies with the walk */
    CFunc *fn;
    FnSum *sum;
    PtrMap vars;           /* Sym* -> VarInfo* */
    VarInfo **vlist;
    int nv, capv;
    Ctl *stack;
    int depth, capdepth;
    Uni exit;              /* returns taken under these conditions */
    const Node *exit_at;
    int exit_proven;
    long changes;          /* grows whenever something rises: fixpoint test */
    int report;            /* the final walk: report */
    const Node *capture;   /* inside a (uniform ...) capture: its declaration */
    int capture_star;      /* ... made by a `*` variant */
    const Node *mark;      /* a `+` form waiting for its first if or loop */
    Node **drop;           /* `*` captures found needless */
    int ndrop, capdrop;
    /* Whether the next walk would change nothing (uni_function): a walk
       is stale when something it read changed after the read. */
    int walk;              /* the walk under way, from 1 */
    int stale;             /* ... read something that changed later in it */
    int spec;              /* a walk that reports only if it is the last */
    int spec_fail;         /* ... met a diagnostic: the report is walked again */
    int self_call;         /* ... read the function's own summary */
    int nmiss;             /* variables read before they had a VarInfo
                              (more than 16: any new one is stale) */
    int nparamvars;        /* parameters with a VarInfo (assigned) */
    /* buffers, last: uni_function clears Fn up to them (FN_CLEAR) */
    const Sym *miss[16];   /* the first nmiss of those variables */
    Ctl stack0[4];         /* the first stack and list, without the arena */
    VarInfo *vlist0[4];
} Fn;
#define FN_CLEAR offsetof(Fn, miss)

/* What a C_CALL (or any node) is to the analyses. */
typedef struct CallInfo {
    int is_call;           /* a C_CALL */
    int user;              /* a user function (BI_CALL) */
    int lv;                /* its own level: a builtin's; L_VARYING unknown */
    int pure;              /* as uniform as its arguments */
    int atomic;            /* an atomic operation */
    int thread_id;         /* a work-item id within the workgroup */
    int global;            /* ... a global one (position in the grid) */
    int linear;            /* ... flattened over the dimensions */
    int dim;               /* its dimension (0 for linear ids) */
    const char *name;      /* its Crisp name, for messages, or NULL */
} CallInfo;

CallInfo uni_call_info(const Analysis *an, const Node *e);

/* A conversion that keeps the value (C's (T)x, a derived type's alias). */
static inline const Node *strip_casts(const Node *e) {
    while (e && e->kind == N_C_CAST && e->nkids == 1 && (e->op == CAST_VALUE || e->op == CAST_SAME)) e = e->kids[0];
    return e;
}

/* A workgroup barrier (not a fence). */
static inline int is_barrier(const Node *e) {
    return e && e->kind == N_C_BARRIER && (e->op == BAR_LOCAL || e->op == BAR_GLOBAL || e->op == BAR_BOTH);
}

/* ---- uniformity.c ---- */
void uni_function(Analysis *an, FnSum *sum);
/* Which functions need uni_function (1 in [i] for p->funcs[i]), in an->tmp;
 * NULL: all of them. */
unsigned char *uni_plan(Analysis *an);
FnSum *uni_sum_of_call(Analysis *an, const Node *call);
/* The level of expression `e` (no effects); `as_uniform` counts as
 * uniform (a loop's own index when judging its bounds). */
Uni uni_peek(Fn *f, const Node *e, const Sym *as_uniform);
VarInfo *uni_var(Fn *f, const Sym *s);
/* Parameter of `callee` that argument `k` of a call passes, or -1. */
int uni_param_of_arg(const CFunc *callee, int k);

/* ---- explain.c ---- */
/* `e` in Crisp words for a message: "`n`", "`(get-local-id 0)`", "a read
 * of `A`". */
const char *ex_describe(Fn *f, const Node *e);
/* The part of `e` that makes it not uniform (level above L_UNIFORM). */
const Node *ex_culprit(Fn *f, const Node *e, const Sym *as_uniform);
/* The same, for `e` whose level (uni_peek's answer) is known already. */
const Node *ex_culprit_at(Fn *f, const Node *e, const Sym *as_uniform, Uni level);
/* Notes saying why `culprit` is not uniform, following variables. */
void ex_notes(Fn *f, const Node *culprit);
/* Where a diagnostic about `n` goes: n itself when the user wrote it,
 * else `fallback`. */
const Node *ex_site(const Node *n, const Node *fallback);

/* ---- memory.c ---- */
/* check-coalesce / check-bank-conflicts over the function's accesses. */
void mem_check(Fn *f);

/* ---- localmem.c ---- */
/* W0704 when kernel F needs more than LOCALMEM_OPENCL_MIN bytes of local
 * memory at its declared local size (or in fixed-size parts alone). */
void localmem_check(Analysis *an, const CFunc *f);

/* ---- optin.c ---- */
int opt_estimate_registers(Fn *f);

#endif
