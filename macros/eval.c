/* eval.c - the compile-time evaluator that runs defmacro bodies (eval.h).
 *
 * A small tree-walking Lisp over syntax Nodes.  Lists are immutable arrays
 * (Node.kids), so `cdr` shares the tail of its argument and nothing is ever
 * mutated in place; the only mutable state is the variable bindings.
 *
 * Errors do not longjmp: every function returns NULL (or 0) after reporting,
 * `ev->failed` is set, and callers unwind.  Every evaluation step is counted
 * and every recursion (evaluation, data walks) is bounded, so a runaway
 * macro ends in a diagnostic instead of a hang or a C stack overflow.
 *
 * Layout: tables, values, errors, environments, lambda lists, the evaluator
 * core, special forms, builtin functions, the compile-time directives
 * (c-t-output, c-t-assert, line, file) and type queries, quasiquote,
 * public API. */
#include "eval.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../core/ptrmap.h"
#include "../core/strmap.h"
#include "../core/target.h"
#include "../core/syntax.h"
#include "../reader/reader.h"

/* ------------------------------------------------------------------------
 * String-keyed hash table (open addressing, arena-backed)
 * ---------------------------------------------------------------------- */

struct EvalMapEnt {
    const char *key;
    const void *val;
    uint32_t hash;      /* strmap_hash(key): most probes end at a differing hash */
};

/* The tables are at most half full and compare the hashes first, then the
 * pointers (a spelling is interned per file), and only then the strings:
 * the checker asks the macro table about every form's head, mostly for
 * names that are not macros (issue 14; the hash of the key is most of a
 * lookup's cost now). */
static const void *map_get(const EvalMap *m, const char *key) {
    if (!m->cap) return NULL;
    uint32_t mask = (uint32_t)m->cap - 1, h = strmap_hash(key);
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
        const EvalMapEnt *e = &m->ents[i];
        if (!e->key) return NULL;
        if (e->hash == h && (e->key == key || !strcmp(e->key, key))) return e->val;
    }
}

static void map_insert(EvalMapEnt *ents, int cap, const char *key, uint32_t h, const void *val, int *added) {
    uint32_t mask = (uint32_t)cap - 1;
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
        EvalMapEnt *e = &ents[i];
        if (!e->key) {
            e->key = key;
            e->val = val;
            e->hash = h;
            *added = 1;
            return;
        }
        if (e->hash == h && (e->key == key || !strcmp(e->key, key))) {
            e->val = val;
            *added = 0;
            return;
        }
    }
}

/* Returns 0 when the arena is exhausted. */
static int map_put(Arena *a, EvalMap *m, const char *key, const void *val) {
    if ((m->n + 1) * 2 >= m->cap) {
        int ncap = m->cap ? m->cap * 2 : 64;
        EvalMapEnt *ne = arena_alloc_block(a, sizeof *ne * (size_t)ncap);
        if (!ne) return 0;
        for (int i = 0; i < m->cap; i++) {
            int added;
            if (m->ents[i].key) map_insert(ne, ncap, m->ents[i].key, m->ents[i].hash, m->ents[i].val, &added);
        }
        arena_give_back(a, m->ents, sizeof *ne * (size_t)m->cap);
        m->ents = ne;
        m->cap = ncap;
    }
    int added;
    map_insert(m->ents, m->cap, key, strmap_hash(key), val, &added);
    m->n += added;
    return 1;
}

/* ------------------------------------------------------------------------
 * Values
 * ---------------------------------------------------------------------- */

typedef struct Binding Binding;
typedef struct Prim Prim;

/* A function value: a lambda with its environment, or a builtin. */
typedef struct Closure {
    const char *name;
    const Prim *prim;          /* builtin function, or NULL for a lambda */
    int host;                  /* a function the host answers (#'is-integer?) */
    EvalLambdaList *params;
    Node **body;
    int nbody;
    Binding *env;
    const Node *form;          /* %defun / def-constraint: its definition */
    int noted;                 /* form's nodes are in Eval.code           */
    int fresh;                 /* a lambda of code a macro made (Eval.fresh_code) */
} Closure;

/* Closures travel as SYMBOL nodes named "#<function ...>" (a spelling the
 * reader cannot produce) whose `ival` holds the Closure's address and whose
 * `op` holds this tag (a symbol has no `text`: core/node.h). */
#define CLOSURE_TAG EVAL_CLOSURE_TAG

static const SrcLoc no_loc;

static Closure *as_closure(const Node *v) {
    if (v && v->kind == N_SYMBOL && v->op == CLOSURE_TAG && v->ival)
        return (Closure *)(uintptr_t)v->ival;
    return NULL;
}


static int is_sym(const Node *v) {
    return v && v->kind == N_SYMBOL && v->op != CLOSURE_TAG;
}

static int is_nil(const Node *v) {
    return v && ((v->kind == N_LIST && v->nkids == 0) ||
                 (is_sym(v) && !v->ann && syn_streq(v->key, "nil")));
}

/* A proper list value: () or nil or a LIST node. */
static int is_listish(const Node *v) {
    return v && (v->kind == N_LIST || is_nil(v));
}

static int list_len(const Node *v) {
    return v->kind == N_LIST ? v->nkids : 0;
}

static inline int truthy(const Node *v) {
    if (!v) return 0;
    switch (v->kind) {
    case N_LIST: return v->nkids > 0;
    case N_INT: return v->ival != 0;
    case N_FLOAT: return v->fval != 0.0;
    case N_SYMBOL:
        return !(is_sym(v) && !v->ann && (syn_streq(v->key, "nil") || syn_streq(v->key, "false")));
    default: return 1;
    }
}

int eval_truthy(const Node *v) {
    return truthy(v);
}

static Node *mk_int(Eval *ev, int64_t v) {
    if (v >= -32 && v < 128) {
        Node **slot = &ev->small_ints[v + 32];
        if (!*slot && !ev->c->arena.exhausted) *slot = syn_int(&ev->c->arena, no_loc, v), ev->writes++;
        if (*slot) return *slot;
    }
    return syn_int(&ev->c->arena, no_loc, v);
}

static Node *mk_float(Eval *ev, double v) {
    return syn_float(&ev->c->arena, no_loc, v);
}

static Node *mk_bool(Eval *ev, int b) {
    return b ? ev->t : ev->nil;
}

static Node *mk_list(Eval *ev, Node **kids, int n) {
    return syn_list(&ev->c->arena, no_loc, kids, n);
}

static Node *mk_string(Eval *ev, const char *s, int len) {
    return syn_string(&ev->c->arena, no_loc, s, len);
}

/* The list of v's elements from `from` on, sharing v's array. */
static Node *list_tail(Eval *ev, Node *v, int from) {
    if (v->kind != N_LIST || from >= v->nkids) return mk_list(ev, NULL, 0);
    if (from <= 0) return v;
    Node *l = syn_new(&ev->c->arena, N_LIST, no_loc);
    if (ev->c->arena.exhausted) return l;
    l->kids = v->kids + from;
    l->nkids = v->nkids - from;
    return l;
}

/* A growable array of nodes in the arena (old buffers are abandoned). */
typedef struct NodeVec {
    Node **v;
    int n, cap;
} NodeVec;

static __attribute__((noinline)) int vec_grow(Eval *ev, NodeVec *nv) {
    int ncap = nv->cap ? nv->cap * 2 : 8;
    Node **nvv = arena_alloc(&ev->c->arena, sizeof *nvv * (size_t)ncap);
    if (!nvv) return 0;
    if (nv->n) memcpy(nvv, nv->v, sizeof *nvv * (size_t)nv->n);
    nv->v = nvv;
    nv->cap = ncap;
    return 1;
}

static inline int vec_push(Eval *ev, NodeVec *nv, Node *x) {
    if (nv->n == nv->cap && !vec_grow(ev, nv)) return 0;
    nv->v[nv->n++] = x;
    return 1;
}

/* Does `v` stay within `max_depth` levels and `max_nodes` nodes?  Used
 * before handing a value to a recursive printer. */
static int fits_rec(const Node *v, int depth, int max_depth, long *budget) {
    if (--*budget < 0 || depth > max_depth) return 0;
    if (v->kind == N_SYMBOL && v->ann && v->op != CLOSURE_TAG)
        return fits_rec(v->ann, depth + 1, max_depth, budget);
    if (v->kind == N_LIST || v->kind == N_VECLIT || v->kind == N_HWVEC)
        for (int i = 0; i < v->nkids; i++)
            if (!fits_rec(v->kids[i], depth + 1, max_depth, budget)) return 0;
    return 1;
}

static int value_fits(const Node *v, int max_depth, long max_nodes) {
    return fits_rec(v, 0, max_depth, &max_nodes);
}

/* A short printed form of `v` for messages. */
static const char *show(Eval *ev, const Node *v) {
    if (!v) return "<none>";
    if (!value_fits(v, 100, 2000)) return "(...)";
    return syn_to_string(&ev->c->arena, v, 80);
}

/* ------------------------------------------------------------------------
 * Errors and limits
 * ---------------------------------------------------------------------- */

static const Expansion *origin_for(const Eval *ev, const Node *at) {
    return ev->exp ? ev->exp : at ? at->origin : NULL;
}

/* In quiet mode an ordinary error is recorded instead of reported (the
 * caller turns it into "not known at compile time").  Returns 1 when the
 * error was suppressed. */
static int quiet_suppress(Eval *ev, const Node *at, const char *msg) {
    if (!ev->quiet) return 0;
    ev->failed = 1;
    if (!ev->quiet_msg) {
        ev->quiet_msg = msg;
        ev->quiet_at = at;
    }
    return 1;
}

static Node *verror(Eval *ev, const char *code, const Node *at, const char *fmt, va_list ap) {
    if (ev->failed) return NULL;
    ev->failed = 1;
    char *msg = arena_vprintf(&ev->c->arena, fmt, ap);
    if (!msg) msg = "compile-time evaluation failed";
    if (quiet_suppress(ev, at, msg)) return NULL;
    if (at && srcloc_file(at->loc))
        diag_error(&ev->c->diag, at->loc, origin_for(ev, at), code, "%s", msg);
    else if (ev->call)
        diag_error(&ev->c->diag, ev->call->loc, ev->call->origin, code, "%s", msg);
    else
        diag_error(&ev->c->diag, at ? at->loc : no_loc, origin_for(ev, at), code, "%s", msg);
    return NULL;
}

Node *eval_error(Eval *ev, const Node *at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    verror(ev, EVAL_E_EVAL, at, fmt, ap);
    va_end(ap);
    return NULL;
}

Node *eval_error_code(Eval *ev, const char *code, const Node *at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    verror(ev, code, at, fmt, ap);
    va_end(ap);
    return NULL;
}

static Node *code_error(Eval *ev, const char *code, const Node *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static Node *code_error(Eval *ev, const char *code, const Node *at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    verror(ev, code, at, fmt, ap);
    va_end(ap);
    return NULL;
}

/* An error at a given location and origin (lambda-list mismatches are
 * reported at the user's call, not inside the macro). */
static Node *error_at(Eval *ev, const char *code, SrcLoc loc, const Expansion *origin,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static Node *error_at(Eval *ev, const char *code, SrcLoc loc, const Expansion *origin,
                      const char *fmt, ...) {
    if (ev->failed) return NULL;
    ev->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    char *msg = arena_vprintf(&ev->c->arena, fmt, ap);
    va_end(ap);
    if (quiet_suppress(ev, NULL, msg ? msg : "error")) return NULL;
    diag_error(&ev->c->diag, loc, origin, code, "%s", msg ? msg : "error");
    return NULL;
}

/* A resource limit: fatal, reported at the macro's call site. */
static Node *limit_error(Eval *ev, const char *code, const char *what, long limit) {
    if (ev->failed) return NULL;
    ev->failed = 1;
    SrcLoc loc = ev->call ? ev->call->loc : no_loc;
    const Expansion *origin = ev->call ? ev->call->origin : NULL;
    if (ev->macro)
        diag_fatal(&ev->c->diag, loc, origin, code,
                   "macro `%s` exceeded the compile-time %s limit (%ld)", ev->macro, what, limit);
    else
        diag_fatal(&ev->c->diag, loc, origin, code,
                   "compile-time evaluation exceeded the %s limit (%ld)", what, limit);
    return NULL;
}

static Node *oom_error(Eval *ev) {
    if (ev->failed) return NULL;
    ev->failed = 1;
    SrcLoc loc = ev->call ? ev->call->loc : no_loc;
    diag_fatal(&ev->c->diag, loc, ev->call ? ev->call->origin : NULL, EVAL_E_SIZE,
               "out of memory during compile-time evaluation%s%s%s",
               ev->macro ? " of macro `" : "", ev->macro ? ev->macro : "", ev->macro ? "`" : "");
    return NULL;
}

/* The limit charge() found passed: reported, 0. */
static __attribute__((noinline)) int charge_over(Eval *ev) {
    if (ev->steps > ev->max_steps) {
        limit_error(ev, EVAL_E_STEPS, "step", ev->max_steps);
        return 0;
    }
    if (ev->steps_used > ev->total_steps) {
        limit_error(ev, EVAL_E_STEPS, "total step", ev->total_steps);
        return 0;
    }
    oom_error(ev);
    return 0;
}

/* Account for `n` units of work; 0 (after reporting) when over a limit.
 * (In line, its three tests in one branch: it runs at every step.) */
static inline int charge(Eval *ev, long n) {
    if (ev->failed) return 0;
    ev->steps += n;
    ev->steps_used += n;
    if ((ev->steps > ev->max_steps) | (ev->steps_used > ev->total_steps) | ev->c->arena.exhausted)
        return charge_over(ev);
    return 1;
}

/* ------------------------------------------------------------------------
 * Environments: a chain of variable bindings
 * ---------------------------------------------------------------------- */

struct Binding {
    const char *key;
    Node *val;
    Binding *next;
};

/* Returns the extended environment; on arena exhaustion reports and
 * returns `env` unchanged (callers check ev->failed). */
static inline Binding *bind(Eval *ev, Binding *env, const char *key, Node *val) {
    Binding *b = arena_alloc(&ev->c->arena, sizeof *b);
    if (!b) {
        oom_error(ev);
        return env;
    }
    b->key = key;
    b->val = val;
    b->next = env;
    return b;
}

/* Equal spellings, compared in line: the keys of one definition are one
 * spelling (the same pointer), and two names of an environment that
 * begin alike differ within a few bytes (a call of `strcmp` cost more). */
static inline int key_eq(const char *a, const char *b) {
    if (a == b) return 1;
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

static Binding *lookup(Binding *env, const char *key) {
    for (Binding *b = env; b; b = b->next)
        if (key_eq(b->key, key)) return b;
    return NULL;
}

/* ------------------------------------------------------------------------
 * Lambda lists
 *   ([&whole W] REQ... [&optional OPT...] [&rest|&body R] [&key KEY...
 *    [&allow-other-keys]] [&aux AUX...])
 *   REQ = VAR | (NESTED LAMBDA LIST)
 *   OPT = VAR | (VAR-OR-PATTERN [DEFAULT [SUPPLIED-P]])
 *   KEY = VAR | ({VAR | (:KEYWORD VAR)} [DEFAULT [SUPPLIED-P]])
 *   AUX = VAR | (VAR [VALUE])
 * ---------------------------------------------------------------------- */

typedef struct LLParam {
    const Node *var;          /* symbol, or NULL when `pattern` is set */
    EvalLambdaList *pattern;  /* nested destructuring list             */
    Node *init;               /* default form (or NULL = nil)          */
    const Node *svar;         /* supplied-p variable or NULL           */
    const char *kw;           /* &key: keyword key                     */
} LLParam;

struct EvalLambdaList {
    const Node *src;
    const Node *whole;
    LLParam *req, *opt, *key, *aux;
    int nreq, nopt, nkey, naux;
    const Node *rest;
    int has_key, allow_other_keys;
};

static Node *ll_error(Eval *ev, const Node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static Node *ll_error(Eval *ev, const Node *at, const char *fmt, ...) {
    if (ev->failed) return NULL;
    ev->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    char *msg = arena_vprintf(&ev->c->arena, fmt, ap);
    va_end(ap);
    if (quiet_suppress(ev, at, msg ? msg : "bad lambda list")) return NULL;
    diag_error(&ev->c->diag, at->loc, origin_for(ev, at), EVAL_E_DEFMACRO, "%s",
               msg ? msg : "bad lambda list");
    return NULL;
}

static int is_ll_keyword(const Node *n) {
    return is_sym(n) && n->key[0] == '&';
}

/* A symbol usable as a variable. */
static int ll_var_ok(Eval *ev, const Node *n) {
    if (!is_sym(n) || is_ll_keyword(n) || syn_streq(n->key, "nil") || syn_streq(n->key, "t")) {
        ll_error(ev, n, "`%s` cannot be used as a variable in a lambda list", show(ev, n));
        return 0;
    }
    return 1;
}

static int ll_push(Eval *ev, LLParam **v, int *n, int *cap, LLParam p) {
    if (*n == *cap) {
        int ncap = *cap ? *cap * 2 : 4;
        LLParam *nv = arena_alloc(&ev->c->arena, sizeof *nv * (size_t)ncap);
        if (!nv) {
            oom_error(ev);
            return 0;
        }
        if (*n) memcpy(nv, *v, sizeof *nv * (size_t)*n);
        *v = nv;
        *cap = ncap;
    }
    (*v)[(*n)++] = p;
    return 1;
}

static EvalLambdaList *ll_parse(Eval *ev, const Node *src, int depth);

/* VAR | (VAR-OR-PATTERN [INIT [SVAR]]) for &optional / &key / &aux. */
static int ll_parse_spec(Eval *ev, const Node *spec, int depth, int allow_pattern, int is_key,
                         int max_parts, LLParam *p) {
    memset(p, 0, sizeof *p);
    if (spec->kind != N_LIST) {
        if (!ll_var_ok(ev, spec)) return 0;
        p->var = spec;
        if (is_key) p->kw = spec->key;
        return 1;
    }
    if (spec->nkids < 1 || spec->nkids > max_parts) {
        ll_error(ev, spec, "malformed parameter specification `%s`", show(ev, spec));
        return 0;
    }
    const Node *v = spec->kids[0];
    if (is_key && v->kind == N_LIST) {
        /* ((:keyword var) ...) */
        if (v->nkids != 2 || v->kids[0]->kind != N_KEYWORD) {
            ll_error(ev, v, "expected (:KEYWORD VARIABLE), got `%s`", show(ev, v));
            return 0;
        }
        if (!ll_var_ok(ev, v->kids[1])) return 0;
        p->kw = v->kids[0]->key;
        p->var = v->kids[1];
    } else if (v->kind == N_LIST && allow_pattern) {
        p->pattern = ll_parse(ev, v, depth + 1);
        if (!p->pattern) return 0;
    } else {
        if (!ll_var_ok(ev, v)) return 0;
        p->var = v;
        if (is_key) p->kw = v->key;
    }
    if (spec->nkids > 1) p->init = spec->kids[1];
    if (spec->nkids > 2) {
        if (!ll_var_ok(ev, spec->kids[2])) return 0;
        p->svar = spec->kids[2];
    }
    return 1;
}

static EvalLambdaList *ll_parse(Eval *ev, const Node *src, int depth) {
    if (depth > 64) {
        ll_error(ev, src, "lambda list nested too deeply");
        return NULL;
    }
    EvalLambdaList *ll = arena_alloc(&ev->c->arena, sizeof *ll);
    if (!ll) {
        oom_error(ev);
        return NULL;
    }
    ll->src = src;
    if (is_nil(src)) return ll;
    if (src->kind != N_LIST) {
        ll_error(ev, src, "a lambda list must be a list, got `%s`", show(ev, src));
        return NULL;
    }
    enum { REQ, OPT, REST, AFTER_REST, KEY, AUX } mode = REQ;
    int capreq = 0, capopt = 0, capkey = 0, capaux = 0;
    for (int i = 0; i < src->nkids; i++) {
        const Node *x = src->kids[i];
        if (is_ll_keyword(x)) {
            const char *k = x->key;
            if (syn_streq(k, "&whole")) {
                if (i != 0 || i + 1 >= src->nkids || !ll_var_ok(ev, src->kids[i + 1])) {
                    if (!ev->failed) ll_error(ev, x, "&whole must come first, followed by a variable");
                    return NULL;
                }
                ll->whole = src->kids[++i];
                continue;
            }
            if (syn_streq(k, "&optional") && mode == REQ) {
                mode = OPT;
                continue;
            }
            if ((syn_streq(k, "&rest") || syn_streq(k, "&body")) && (mode == REQ || mode == OPT)) {
                if (i + 1 >= src->nkids || !ll_var_ok(ev, src->kids[i + 1])) {
                    if (!ev->failed) ll_error(ev, x, "%s must be followed by a variable", x->name);
                    return NULL;
                }
                ll->rest = src->kids[++i];
                mode = AFTER_REST;
                continue;
            }
            if (syn_streq(k, "&key") && mode != KEY && mode != AUX) {
                ll->has_key = 1;
                mode = KEY;
                continue;
            }
            if (syn_streq(k, "&allow-other-keys") && mode == KEY) {
                ll->allow_other_keys = 1;
                continue;
            }
            if (syn_streq(k, "&aux") && mode != AUX) {
                mode = AUX;
                continue;
            }
            ll_error(ev, x, "misplaced or unsupported lambda-list keyword `%s`", x->name);
            return NULL;
        }
        LLParam p;
        switch (mode) {
        case REQ:
            memset(&p, 0, sizeof p);
            if (x->kind == N_LIST) {
                p.pattern = ll_parse(ev, x, depth + 1);
                if (!p.pattern) return NULL;
            } else {
                if (!ll_var_ok(ev, x)) return NULL;
                p.var = x;
            }
            if (!ll_push(ev, &ll->req, &ll->nreq, &capreq, p)) return NULL;
            break;
        case OPT:
            if (!ll_parse_spec(ev, x, depth, 1, 0, 3, &p)) return NULL;
            if (!ll_push(ev, &ll->opt, &ll->nopt, &capopt, p)) return NULL;
            break;
        case KEY:
            if (!ll_parse_spec(ev, x, depth, 0, 1, 3, &p)) return NULL;
            if (!ll_push(ev, &ll->key, &ll->nkey, &capkey, p)) return NULL;
            break;
        case AUX:
            if (!ll_parse_spec(ev, x, depth, 0, 0, 2, &p)) return NULL;
            if (!ll_push(ev, &ll->aux, &ll->naux, &capaux, p)) return NULL;
            break;
        default:
            ll_error(ev, x, "unexpected `%s` after the &rest/&body variable", show(ev, x));
            return NULL;
        }
    }
    return ll;
}

/* Who is being called, for mismatch messages: macro `macro`, or a lambda
 * when `macro` is NULL.  Mismatches are reported at `at` (the call) with
 * `origin`. */
typedef struct BindCtx {
    const char *macro;
    const Node *at;
    const Expansion *origin;
} BindCtx;

static Node *eval(Eval *ev, Node *x, Binding *env);

static Node *bind_error(Eval *ev, const BindCtx *bc, const Node *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static Node *bind_error(Eval *ev, const BindCtx *bc, const Node *at, const char *fmt, ...) {
    if (ev->failed) return NULL;
    va_list ap;
    va_start(ap, fmt);
    char *msg = arena_vprintf(&ev->c->arena, fmt, ap);
    va_end(ap);
    const char *what = bc->macro ? arena_printf(&ev->c->arena, "macro `%s`", bc->macro) : "lambda";
    if (!msg || !what) return oom_error(ev);
    /* An argument node from the user's text points at itself; anything else
       at the call. */
    if (at && srcloc_file(at->loc))
        return error_at(ev, EVAL_E_ARGS, at->loc, at->origin, "%s: %s", what, msg);
    return error_at(ev, EVAL_E_ARGS, bc->at->loc, bc->origin, "%s: %s", what, msg);
}

static int ll_bind(Eval *ev, const EvalLambdaList *ll, Node **args, int n, Node *whole,
                   const BindCtx *bc, int depth, Binding **envp);

static int bind_var_or_pattern(Eval *ev, const LLParam *p, Node *val, const BindCtx *bc,
                               int depth, Binding **envp) {
    if (p->var) {
        *envp = bind(ev, *envp, p->var->key, val);
        return !ev->failed;
    }
    if (!is_listish(val)) {
        bind_error(ev, bc, val, "expected a list matching %s, got `%s`", show(ev, p->pattern->src),
                   show(ev, val));
        return 0;
    }
    return ll_bind(ev, p->pattern, val->kids, list_len(val), val, bc, depth + 1, envp);
}

/* Is `v` run-time code a staged call produced: (funcall (gen-...) ...)? */
static int is_staged_code(const Node *v) {
    return v->kind == N_LIST && v->nkids >= 2 && is_sym(v->kids[0]) && syn_streq(v->kids[0]->key, "funcall") &&
           v->kids[1]->kind == N_LIST;
}

static Node *init_value(Eval *ev, const LLParam *p, Binding *env) {
    int staging = ev->staging;
    ev->staging = 0;
    Node *v = p->init ? eval(ev, p->init, env) : ev->nil;
    ev->staging = staging;
    if (!v || !staging || !is_staged_code(v) || !p->var || p->var->kind != N_SYMBOL) return v; /* a destructuring pattern has no var */
    /* A macro's default that is run-time code, such as the spec's
       (local-scratch-vec (funcall (gen-make-reduction-local-scratch-vec
       (type-of someVar) message))): evaluated once where the macro is
       called, not at every use of the parameter (run_macro binds it). */
    if (!arena_reserve(&ev->c->arena, (void **)&ev->staged, ev->nstaged, 2, &ev->staged_cap, sizeof *ev->staged))
        return oom_error(ev);
    int n = ++ev->c->gensym_counter;
    Node *var = syn_symbol(&ev->c->arena, p->init->loc, arena_printf(&ev->c->arena, "%s%%%d", p->var->name, n));
    ev->staged[ev->nstaged++] = var;
    ev->staged[ev->nstaged++] = v;
    return var;
}

/* Is `a` a keyword naming one of the &key parameters of `ll`? */
static int is_key_arg(const EvalLambdaList *ll, const Node *a) {
    if (a->kind != N_KEYWORD) return 0;
    for (int k = 0; k < ll->nkey; k++)
        if (syn_streq(ll->key[k].kw, a->key)) return 1;
    return 0;
}

/* Bind the lambda list to the argument values, extending *envp.  Returns 0
 * after reporting an error. */
static int ll_bind(Eval *ev, const EvalLambdaList *ll, Node **args, int n, Node *whole,
                   const BindCtx *bc, int depth, Binding **envp) {
    if (ll->whole) {
        *envp = bind(ev, *envp, ll->whole->key, whole ? whole : mk_list(ev, args, n));
        if (ev->failed) return 0;
    }
    int i = 0;
    if (n < ll->nreq) {
        bind_error(ev, bc, depth ? whole : NULL, "expected %s%d argument%s for %s, got %d",
                   ll->nopt || ll->rest || ll->has_key ? "at least " : "", ll->nreq,
                   ll->nreq == 1 ? "" : "s", show(ev, ll->src), n);
        return 0;
    }
    for (int k = 0; k < ll->nreq; k++, i++)
        if (!bind_var_or_pattern(ev, &ll->req[k], args[i], bc, depth, envp)) return 0;
    /* &optional defaults also see the &key arguments the call supplies
       (the spec's reductions write `&optional (scratch (... message))
       &key message`); a keyword naming a &key parameter ends the optional
       arguments, so (reduce-vec-small #'+ v 0 :message "m") works */
    int nopt_given = 0;
    while (i + nopt_given < n && nopt_given < ll->nopt && !(ll->has_key && is_key_arg(ll, args[i + nopt_given])))
        nopt_given++;
    Binding *keyenv = NULL, *base = *envp;
    if (ll->has_key && nopt_given < ll->nopt) {
        keyenv = *envp;
        for (int k = 0; k < ll->nkey; k++) {
            Node *v = ev->nil;
            for (int j = i + nopt_given; j + 1 < n; j += 2)
                if (args[j]->kind == N_KEYWORD && syn_streq(args[j]->key, ll->key[k].kw)) v = args[j + 1];
            keyenv = bind(ev, keyenv, ll->key[k].var->key, v);
        }
    }
    for (int k = 0; k < ll->nopt; k++) {
        const LLParam *p = &ll->opt[k];
        int supplied = k < nopt_given;
        Node *v = supplied ? args[i++] : NULL;
        if (!supplied) {
            /* the parameters bound so far, over the supplied keys */
            Binding *e = *envp;
            if (keyenv) {
                e = keyenv;
                for (Binding *b = *envp; b && b != base; b = b->next) e = bind(ev, e, b->key, b->val);
            }
            v = init_value(ev, p, e);
        }
        if (!v) return 0;
        if (!bind_var_or_pattern(ev, p, v, bc, depth, envp)) return 0;
        if (p->svar) *envp = bind(ev, *envp, p->svar->key, mk_bool(ev, supplied));
    }
    if (ll->rest) {
        *envp = bind(ev, *envp, ll->rest->key, mk_list(ev, i < n ? args + i : NULL, n - i));
        if (ev->failed) return 0;
    }
    if (ll->has_key) {
        if ((n - i) % 2 != 0) {
            bind_error(ev, bc, depth ? whole : NULL, "odd number of keyword arguments for %s",
                       show(ev, ll->src));
            return 0;
        }
        int allow = ll->allow_other_keys;
        for (int j = i; j < n; j += 2)
            if (syn_is_kw(args[j], "allow-other-keys") && truthy(args[j + 1])) allow = 1;
        for (int j = i; j < n; j += 2) {
            if (args[j]->kind != N_KEYWORD) {
                bind_error(ev, bc, args[j], "expected a keyword, got `%s`", show(ev, args[j]));
                return 0;
            }
            if (allow || syn_streq(args[j]->key, "allow-other-keys")) continue;
            int known = 0;
            for (int k = 0; k < ll->nkey; k++)
                if (syn_streq(ll->key[k].kw, args[j]->key)) known = 1;
            if (!known) {
                bind_error(ev, bc, args[j], "unknown keyword argument `:%s`", args[j]->name);
                return 0;
            }
        }
        for (int k = 0; k < ll->nkey; k++) {
            const LLParam *p = &ll->key[k];
            Node *v = NULL;
            for (int j = i; j < n && !v; j += 2)
                if (syn_streq(args[j]->key, p->kw)) v = args[j + 1];
            int supplied = v != NULL;
            if (!v) v = init_value(ev, p, *envp);
            if (!v) return 0;
            *envp = bind(ev, *envp, p->var->key, v);
            if (p->svar) *envp = bind(ev, *envp, p->svar->key, mk_bool(ev, supplied));
        }
    } else if (i < n && !ll->rest) {
        bind_error(ev, bc, depth ? whole : NULL, "expected at most %d argument%s for %s, got %d",
                   ll->nreq + ll->nopt, ll->nreq + ll->nopt == 1 ? "" : "s", show(ev, ll->src),
                   n);
        return 0;
    }
    for (int k = 0; k < ll->naux; k++) {
        Node *v = init_value(ev, &ll->aux[k], *envp);
        if (!v) return 0;
        *envp = bind(ev, *envp, ll->aux[k].var->key, v);
    }
    return !ev->failed;
}

/* ------------------------------------------------------------------------
 * Evaluator core
 * ---------------------------------------------------------------------- */

/* Eval.code: the nodes of the definitions that have run (eval_is_code). */
static uint32_t code_hash(const void *p) {
    return eval_code_hash_(p);
}

/* Add `n`: 1 when it was not there, 0 when it was or memory ran out. */
static int code_insert(Eval *ev, const Node *n) {
    if ((ev->code_n + 1) * 2 >= ev->code_cap) {
        int ncap = ev->code_cap ? ev->code_cap * 2 : 1024;
        const Node **nv = arena_alloc(&ev->c->arena, sizeof *nv * (size_t)ncap);
        if (!nv) return 0;
        for (int i = 0; i < ev->code_cap; i++) {
            if (!ev->code[i]) continue;
            uint32_t j = code_hash(ev->code[i]) & (uint32_t)(ncap - 1);
            while (nv[j]) j = (j + 1) & (uint32_t)(ncap - 1);
            nv[j] = ev->code[i];
        }
        ev->code = nv;
        ev->code_cap = ncap;
    }
    uint32_t mask = (uint32_t)ev->code_cap - 1;
    for (uint32_t j = code_hash(n) & mask;; j = (j + 1) & mask) {
        if (ev->code[j] == n) return 0;
        if (!ev->code[j]) {
            ev->code[j] = n;
            ev->code_n++;
            return 1;
        }
    }
}

static void note_code_rec(Eval *ev, const Node *n, int depth) {
    if (depth > ev->max_nesting + READER_MAX_DEPTH || !code_insert(ev, n)) return;
    if (n->kind == N_SYMBOL && n->ann) note_code_rec(ev, n->ann, depth + 1);
    if (n->kind == N_LIST || n->kind == N_VECLIT || n->kind == N_HWVEC)
        for (int i = 0; i < n->nkids; i++) note_code_rec(ev, n->kids[i], depth + 1);
}

/* A definition is about to run for the first time: its nodes join
 * Eval.code.  The table lives in the arena and outlasts the run, so the
 * run counts as a write (the expander keeps its memory). */
static void note_code(Eval *ev, const Node *form) {
    ev->writes++;
    note_code_rec(ev, form, 0);
}


typedef Node *(*SpecialFn)(Eval *ev, Node *form, Binding *env);
typedef Node *(*PrimFn)(Eval *ev, Node *form, Node **a, int n);

struct Prim {
    const char *name;
    SpecialFn special;  /* special form (unevaluated operands) ...     */
    PrimFn fn;          /* ... or function (evaluated arguments)        */
    int min, max;       /* argument count; max -1 = any                 */
    const char *fname;  /* a function's closure name, "#<function NAME>" */
};

static Node *apply(Eval *ev, Node *f, Node **args, int n, Node *form);
static Node *qq(Eval *ev, Node *x, int level, Binding *env);

/* What a name in head position designates, in the evaluator's order:
 * a special form or builtin, a %defun (or def-constraint), a macro, or
 * nothing (the host is asked).  Issue 14: three string-hashed lookups per
 * call, and a `strcmp` for every builtin found (its key is the table's
 * literal, the call's a spelling of the library), were a fifth of a
 * macro's run; the spellings of definitions live as long as the
 * evaluator, so their answers are kept by address until the next write
 * (a new definition) changes what a name may mean. */
enum { HEAD_NONE, HEAD_PRIM, HEAD_FUNC, HEAD_MACRO };

struct EvalHead {
    const char *key;
    long gen;            /* Eval.writes when it was filled */
    const void *what;
    int kind;
};

#define EVAL_HEADS 512   /* a power of two */

static __attribute__((noinline)) int resolve_head_slow(Eval *ev, const char *key, const void **what,
                                                      struct EvalHead *e) {
    int kind = HEAD_NONE;
    const void *w;
    if ((w = map_get(&ev->prims, key))) kind = HEAD_PRIM;
    else if ((w = map_get(&ev->funcs, key))) kind = HEAD_FUNC;
    else if ((w = eval_find_macro(ev, key))) kind = HEAD_MACRO;
    if (e) {
        e->key = key;
        e->gen = ev->writes;
        e->what = w;
        e->kind = kind;
    }
    *what = w;
    return kind;
}

static inline int resolve_head(Eval *ev, const char *key, const void **what) {
    struct EvalHead *e = NULL;
    if (!ev->fresh_code && ev->heads) {
        uint64_t h = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull;
        e = &ev->heads[h >> 55 & (EVAL_HEADS - 1)];
        if (e->key == key && e->gen == ev->writes) {
            *what = e->what;
            return e->kind;
        }
    }
    return resolve_head_slow(ev, key, what, e);
}


/* Value of the last form, nil for none.  Leading (declare ...) forms are
 * skipped. */
static Node *eval_body(Eval *ev, Node **forms, int n, Binding *env) {
    Node *v = ev->nil;
    int i = 0;
    while (i < n && syn_is_form(forms[i], "declare")) i++;
    for (; i < n; i++) {
        v = eval(ev, forms[i], env);
        if (!v) return NULL;
    }
    return v;
}

static __attribute__((noinline)) Node *eval_symbol(Eval *ev, Node *x, Binding *env) {
    if (!is_sym(x)) return x;  /* closures evaluate to themselves */
    const char *k = x->key;
    Binding *b = lookup(env, k);
    if (b) return b->val;
    if (syn_streq(k, "nil") || syn_streq(k, "false")) return !x->ann ? ev->nil : x;
    if (syn_streq(k, "t") || syn_streq(k, "true")) return x->ann ? x : ev->t;
    const Node *c = map_get(&ev->consts, k);
    if (c) return (Node *)(uintptr_t)c;
    Node *out = NULL;
    if (ev->host_var && (ev->host_calls++, ev->host_var)(ev, ev->host_ud, x, &out) == 1 && out) return out;
    if (ev->quiet) return code_error(ev, EVAL_E_EVAL, x, "`%s` has no compile-time value", x->name);
    return code_error(ev, EVAL_E_EVAL, x,
                      "unbound compile-time variable `%s` (quote it, or use it inside a "
                      "quasiquote template)",
                      x->name);
}

/* eval(ev, x, env), a variable's value found in line (issue 14: most
 * operands of a builtin and most unquotes are variables, and the call of
 * eval for each cost as much as the lookup). */
static inline Node *eval_operand(Eval *ev, Node *x, Binding *env) {
    if (x->kind != N_SYMBOL) return eval(ev, x, env);
    if (!charge(ev, 1)) return NULL;
    if (x->op != CLOSURE_TAG)
        for (Binding *b = env; b; b = b->next)
            if (key_eq(b->key, x->key)) return b->val;
    return eval_symbol(ev, x, env); /* not a variable (its lookup fails again) */
}

/* Evaluate `n` argument forms into `buf` (when it is big enough) or into
 * arena memory.  NULL after an error. */
static Node **eval_args(Eval *ev, Node **forms, int n, Binding *env, Node **buf, int bufn) {
    Node **a = n <= bufn ? buf : arena_alloc(&ev->c->arena, sizeof *a * (size_t)(n ? n : 1));
    if (!a) {
        oom_error(ev);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        a[i] = eval_operand(ev, forms[i], env);
        if (!a[i]) return NULL;
    }
    return a;
}

static Node *prim_count_error(Eval *ev, const Prim *p, Node *form, int n);

/* (In line: a builtin's call is most of the evaluator's work; the count's
 * report apart.) */
static inline Node *call_prim(Eval *ev, const Prim *p, Node *form, Node **a, int n) {
    if (n < p->min || (p->max >= 0 && n > p->max)) return prim_count_error(ev, p, form, n);
    return p->fn(ev, form, a, n);
}

static __attribute__((noinline)) Node *prim_count_error(Eval *ev, const Prim *p, Node *form, int n) {
    {
        if (p->min == p->max)
            return eval_error(ev, form, "`%s` expects %d argument%s, got %d", p->name, p->min,
                              p->min == 1 ? "" : "s", n);
        if (p->max < 0)
            return eval_error(ev, form, "`%s` expects at least %d argument%s, got %d", p->name,
                              p->min, p->min == 1 ? "" : "s", n);
        return eval_error(ev, form, "`%s` expects %d to %d arguments, got %d", p->name, p->min,
                          p->max, n);
    }
}

/* Run macro `m` on `call`: bind its lambda list to the (unevaluated)
 * arguments and evaluate its body.  Mismatches are reported at the call
 * with `origin`. */
static Node *run_macro(Eval *ev, const Macro *m, Node *call, const Expansion *origin) {
    if (!m->code_noted) {
        ((Macro *)(uintptr_t)m)->code_noted = 1;
        note_code(ev, m->form);
    }
    BindCtx bc = {m->name, call, origin};
    Binding *env = NULL;
    Node **staged = ev->staged;
    int nstaged = ev->nstaged, cap = ev->staged_cap, staging = ev->staging;
    ev->staged = NULL, ev->nstaged = ev->staged_cap = 0, ev->staging = 1;
    int ok = ll_bind(ev, m->params, call->kids + 1, call->nkids - 1, call, &bc, 0, &env);
    ev->staging = 0;
    Node *r = ok ? eval_body(ev, m->body, m->nbody, env) : NULL;
    if (r && ev->nstaged) {
        /* (let ((VAR CODE) ...) EXPANSION): the staged defaults, made once */
        int nb = ev->nstaged / 2;
        Node **binds = arena_alloc(&ev->c->arena, sizeof *binds * (size_t)nb);
        Node **k = arena_alloc(&ev->c->arena, sizeof *k * 3);
        if (!binds || !k) {
            r = oom_error(ev);
        } else {
            for (int i = 0; i < nb; i++) binds[i] = mk_list(ev, ev->staged + 2 * i, 2);
            k[0] = syn_symbol(&ev->c->arena, call->loc, "let");
            k[1] = mk_list(ev, binds, nb);
            k[2] = r;
            r = mk_list(ev, k, 3);
        }
    }
    ev->staged = staged, ev->nstaged = nstaged, ev->staged_cap = cap, ev->staging = staging;
    return r;
}

/* Call function `f` (a Prim, a closure value, or NULL for the host hook)
 * on the evaluated operands of `x`.  Kept apart from eval_call so the
 * argument buffer is only on the stack for calls that need it. */
static Node *call_with_args(Eval *ev, const Prim *p, Node *f, Node *x, Binding *env) {
    Node *buf[8];
    int n = x->nkids - 1;
    Node **a = eval_args(ev, x->kids + 1, n, env, buf, 8);
    if (!a) return NULL;
    if (p) return call_prim(ev, p, x, a, n);
    if (f) return apply(ev, f, a, n, x);
    if (ev->host_call) {
        Node *out = NULL;
        int r = (ev->host_calls++, ev->host_call)(ev, ev->host_ud, x, x->kids[0]->key, a, n, &out);
        if (r < 0) {
            ev->failed = 1;
            return NULL;
        }
        if (r > 0 && out) return out;
    }
    return eval_error(ev, x, "unknown compile-time function `%s`", x->kids[0]->name);
}

static Node *eval_call(Eval *ev, Node *x, Binding *env) {
    Node *head = x->kids[0];
    if (is_sym(head)) {
        const void *what;
        switch (resolve_head(ev, head->key, &what)) {
        case HEAD_PRIM: {
            const Prim *p = what;
            if (p->special) return p->special(ev, x, env);
            return call_with_args(ev, p, NULL, x, env);
        }
        case HEAD_FUNC: return call_with_args(ev, NULL, (Node *)(uintptr_t)what, x, env);
        case HEAD_MACRO: {
            /* a macro used inside a macro body expands at compile time */
            Node *e = run_macro(ev, what, x, ev->exp);
            if (!e) return NULL;
            ev->fresh_code++;
            Node *v = eval(ev, e, env);
            ev->fresh_code--;
            return v;
        }
        default: return call_with_args(ev, NULL, NULL, x, env);
        }
    }
    if (syn_is_form(head, "lambda")) {
        Node *f = eval(ev, head, env);
        return f ? call_with_args(ev, NULL, f, x, env) : NULL;
    }
    return eval_error(ev, x, "`%s` cannot be called: not a function name", show(ev, head));
}

static Node *eval(Eval *ev, Node *x, Binding *env) {
    if (!charge(ev, 1)) return NULL;
    if (x->kind == N_SYMBOL) {
        if (x->op != CLOSURE_TAG)
            for (Binding *b = env; b; b = b->next)
                if (key_eq(b->key, x->key)) return b->val;
        return eval_symbol(ev, x, env);
    }
    if (x->kind != N_LIST) return x;  /* numbers, strings, keywords, vectors */
    if (x->nkids == 0) return ev->nil;
    if (++ev->depth > ev->max_recursion) {
        ev->depth--;
        return limit_error(ev, EVAL_E_RECURSION, "recursion depth", ev->max_recursion);
    }
    Node *v = eval_call(ev, x, env);
    ev->depth--;
    return v;
}

static Node *apply(Eval *ev, Node *f, Node **args, int n, Node *form) {
    Closure *cl = as_closure(f);
    if (!cl && is_sym(f)) {
        const Prim *p = map_get(&ev->prims, f->key);
        if (p && p->fn) return call_prim(ev, p, form, args, n);
        const Node *fn = map_get(&ev->funcs, f->key);
        if (fn) return apply(ev, (Node *)(uintptr_t)fn, args, n, form);
        return eval_error(ev, form, "`%s` is not a function", show(ev, f));
    }
    if (!cl) return eval_error(ev, form, "`%s` is not a function", show(ev, f));
    if (cl->prim) return call_prim(ev, cl->prim, form, args, n);
    if (cl->host) {
        Node *out = NULL;
        int r = ev->host_call ? (ev->host_calls++, ev->host_call)(ev, ev->host_ud, form, cl->name, args, n, &out) : 0;
        if (r < 0) {
            ev->failed = 1;
            return NULL;
        }
        if (r > 0 && out) return out;
        return eval_error(ev, form, "unknown compile-time function `%s`", cl->name);
    }
    if (cl->form && !cl->noted) {
        cl->noted = 1;
        note_code(ev, cl->form);
    }
    if (++ev->depth > ev->max_recursion) {
        ev->depth--;
        return limit_error(ev, EVAL_E_RECURSION, "recursion depth", ev->max_recursion);
    }
    BindCtx bc = {NULL, form, origin_for(ev, form)};
    Binding *env = cl->env;
    Node *v = NULL;
    ev->fresh_code += cl->fresh;
    if (ll_bind(ev, cl->params, args, n, NULL, &bc, 0, &env))
        v = eval_body(ev, cl->body, cl->nbody, env);
    ev->fresh_code -= cl->fresh;
    ev->depth--;
    return v;
}

/* ------------------------------------------------------------------------
 * Special forms
 * ---------------------------------------------------------------------- */

static int operand_count_error(Eval *ev, Node *form, int min, int max);

static inline int want_args(Eval *ev, Node *form, int min, int max) {
    int n = form->nkids - 1;
    if (n >= min && (max < 0 || n <= max)) return 1;
    return operand_count_error(ev, form, min, max);
}

static __attribute__((noinline)) int operand_count_error(Eval *ev, Node *form, int min, int max) {
    int n = form->nkids - 1;
    if (max < 0)
        eval_error(ev, form, "`%s` expects at least %d operand%s, got %d", form->kids[0]->name, min,
                   min == 1 ? "" : "s", n);
    else if (min == max)
        eval_error(ev, form, "`%s` expects %d operand%s, got %d", form->kids[0]->name, min,
                   min == 1 ? "" : "s", n);
    else
        eval_error(ev, form, "`%s` expects %d to %d operands, got %d", form->kids[0]->name, min,
                   max, n);
    return 0;
}

/* (quote X) */
static Node *sf_quote(Eval *ev, Node *form, Binding *env) {
    (void)env;
    return want_args(ev, form, 1, 1) ? form->kids[1] : NULL;
}

/* (quasiquote TEMPLATE) - see qq() */
static Node *sf_quasiquote(Eval *ev, Node *form, Binding *env) {
    return want_args(ev, form, 1, 1) ? qq(ev, form->kids[1], 1, env) : NULL;
}

/* (unquote X) / (unquote-splicing X) outside a quasiquote */
static Node *sf_unquote(Eval *ev, Node *form, Binding *env) {
    (void)env;
    return eval_error(ev, form, "`%s` outside of a quasiquote (backquote) template",
                      form->kids[0]->name);
}

/* (if TEST THEN [ELSE]) */
static Node *sf_if(Eval *ev, Node *form, Binding *env) {
    if (!want_args(ev, form, 2, 3)) return NULL;
    Node *t = eval(ev, form->kids[1], env);
    if (!t) return NULL;
    if (truthy(t)) return eval(ev, form->kids[2], env);
    return form->nkids > 3 ? eval(ev, form->kids[3], env) : ev->nil;
}

/* (when TEST BODY...) */
static Node *sf_when(Eval *ev, Node *form, Binding *env) {
    if (!want_args(ev, form, 1, -1)) return NULL;
    Node *t = eval(ev, form->kids[1], env);
    if (!t) return NULL;
    return truthy(t) ? eval_body(ev, form->kids + 2, form->nkids - 2, env) : ev->nil;
}

/* (unless TEST BODY...) */
static Node *sf_unless(Eval *ev, Node *form, Binding *env) {
    if (!want_args(ev, form, 1, -1)) return NULL;
    Node *t = eval(ev, form->kids[1], env);
    if (!t) return NULL;
    return !truthy(t) ? eval_body(ev, form->kids + 2, form->nkids - 2, env) : ev->nil;
}

/* (cond (TEST BODY...)...) - a clause without BODY yields TEST's value */
static Node *sf_cond(Eval *ev, Node *form, Binding *env) {
    for (int i = 1; i < form->nkids; i++) {
        Node *cl = form->kids[i];
        if (cl->kind != N_LIST || cl->nkids == 0)
            return eval_error(ev, cl, "`cond` clause must be a non-empty list, got `%s`",
                              show(ev, cl));
        Node *t = eval(ev, cl->kids[0], env);
        if (!t) return NULL;
        if (truthy(t)) return cl->nkids == 1 ? t : eval_body(ev, cl->kids + 1, cl->nkids - 1, env);
    }
    return ev->nil;
}

static int val_eql(const Node *a, const Node *b);

/* (case KEY (KEYS BODY...)... [(t|otherwise BODY...)]) - KEYS is an atom or
 * a list of atoms, compared with eql */
static Node *sf_case(Eval *ev, Node *form, Binding *env) {
    if (!want_args(ev, form, 1, -1)) return NULL;
    Node *k = eval(ev, form->kids[1], env);
    if (!k) return NULL;
    for (int i = 2; i < form->nkids; i++) {
        Node *cl = form->kids[i];
        if (cl->kind != N_LIST || cl->nkids == 0)
            return eval_error(ev, cl, "`case` clause must be a non-empty list, got `%s`",
                              show(ev, cl));
        Node *keys = cl->kids[0];
        int hit = 0;
        if (i == form->nkids - 1 && (syn_is_sym(keys, "t") || syn_is_sym(keys, "otherwise")))
            hit = 1;
        else if (keys->kind == N_LIST) {
            for (int j = 0; j < keys->nkids && !hit; j++) hit = val_eql(keys->kids[j], k);
        } else
            hit = val_eql(keys, k);
        if (hit) return eval_body(ev, cl->kids + 1, cl->nkids - 1, env);
    }
    return ev->nil;
}

/* (and FORM...) */
static Node *sf_and(Eval *ev, Node *form, Binding *env) {
    Node *v = ev->t;
    for (int i = 1; i < form->nkids; i++) {
        v = eval(ev, form->kids[i], env);
        if (!v || !truthy(v)) return v;
    }
    return v;
}

/* (or FORM...) */
static Node *sf_or(Eval *ev, Node *form, Binding *env) {
    for (int i = 1; i < form->nkids; i++) {
        Node *v = eval(ev, form->kids[i], env);
        if (!v || truthy(v)) return v;
    }
    return ev->nil;
}

/* (progn FORM...) */
static Node *sf_progn(Eval *ev, Node *form, Binding *env) {
    return eval_body(ev, form->kids + 1, form->nkids - 1, env);
}

/* A binding spec of let/let*: VAR | (VAR) | (VAR INIT). */
static int let_spec(Eval *ev, Node *b, Node **var, Node **init) {
    if (b->kind == N_LIST && b->nkids >= 1 && b->nkids <= 2 && is_sym(b->kids[0])) {
        *var = b->kids[0];
        *init = b->nkids == 2 ? b->kids[1] : NULL;
    } else if (is_sym(b)) {
        *var = b;
        *init = NULL;
    } else {
        eval_error(ev, b, "malformed binding `%s`: expected VAR or (VAR VALUE)", show(ev, b));
        return 0;
    }
    if (syn_streq((*var)->key, "nil") || syn_streq((*var)->key, "t")) {
        eval_error(ev, b, "cannot bind `%s`", (*var)->name);
        return 0;
    }
    return 1;
}

/* (let ((VAR INIT)...) BODY...) and (let* ...) */
static Node *eval_let(Eval *ev, Node *form, Binding *env, int sequential) {
    if (!want_args(ev, form, 1, -1)) return NULL;
    Node *bs = form->kids[1];
    if (!is_listish(bs))
        return eval_error(ev, bs, "`%s` expects a list of bindings, got `%s`", form->kids[0]->name,
                          show(ev, bs));
    Binding *inner = env;
    for (int i = 0; i < list_len(bs); i++) {
        Node *var, *init;
        if (!let_spec(ev, bs->kids[i], &var, &init)) return NULL;
        Node *v = init ? eval(ev, init, sequential ? inner : env) : ev->nil;
        if (!v) return NULL;
        inner = bind(ev, inner, var->key, v);
        if (ev->failed) return NULL;
    }
    return eval_body(ev, form->kids + 2, form->nkids - 2, inner);
}

/* (let ((VAR INIT)...) BODY...) - inits evaluated before any binding */
static Node *sf_let(Eval *ev, Node *form, Binding *env) {
    return eval_let(ev, form, env, 0);
}

/* (let* ((VAR INIT)...) BODY...) - each init sees the earlier bindings */
static Node *sf_let_star(Eval *ev, Node *form, Binding *env) {
    return eval_let(ev, form, env, 1);
}

static Binding *settable(Eval *ev, Node *form, Node *var, Binding *env) {
    if (!is_sym(var)) {
        eval_error(ev, var, "`%s` can only assign variables, got `%s`", form->kids[0]->name,
                   show(ev, var));
        return NULL;
    }
    Binding *b = lookup(env, var->key);
    if (!b) eval_error(ev, var, "`%s`: `%s` is not a bound variable", form->kids[0]->name, var->name);
    return b;
}

/* (setq VAR VALUE [VAR VALUE]...), also set! and setf (variables only) */
static Node *sf_setq(Eval *ev, Node *form, Binding *env) {
    if ((form->nkids - 1) % 2 != 0)
        return eval_error(ev, form, "`%s` expects VARIABLE VALUE pairs", form->kids[0]->name);
    Node *v = ev->nil;
    for (int i = 1; i < form->nkids; i += 2) {
        Binding *b = settable(ev, form, form->kids[i], env);
        if (!b) return NULL;
        v = eval(ev, form->kids[i + 1], env);
        if (!v) return NULL;
        b->val = v;
    }
    return v;
}

static Node *num_add(Eval *ev, Node *form, Node *a, Node *b, int sign);

/* (incf VAR [DELTA]), (decf VAR [DELTA]), also inc! / dec! */
static Node *sf_incf(Eval *ev, Node *form, Binding *env) {
    if (!want_args(ev, form, 1, 2)) return NULL;
    Binding *b = settable(ev, form, form->kids[1], env);
    if (!b) return NULL;
    Node *d = form->nkids > 2 ? eval(ev, form->kids[2], env) : mk_int(ev, 1);
    if (!d) return NULL;
    const char *h = form->kids[0]->key;
    Node *v = num_add(ev, form, b->val, d, h[0] == 'd' ? -1 : 1);
    if (v) b->val = v;
    return v;
}

/* (push X VAR) */
static Node *sf_push(Eval *ev, Node *form, Binding *env) {
    if (!want_args(ev, form, 2, 2)) return NULL;
    Node *x = eval(ev, form->kids[1], env);
    if (!x) return NULL;
    Binding *b = settable(ev, form, form->kids[2], env);
    if (!b) return NULL;
    if (!is_listish(b->val))
        return eval_error(ev, form, "`push`: `%s` does not hold a list", form->kids[2]->name);
    int n = list_len(b->val);
    Node **k = arena_alloc(&ev->c->arena, sizeof *k * (size_t)(n + 1));
    if (!k) return oom_error(ev);
    k[0] = x;
    if (n) memcpy(k + 1, b->val->kids, sizeof *k * (size_t)n);
    if (!charge(ev, n)) return NULL;
    b->val = mk_list(ev, k, n + 1);
    return b->val;
}

/* (pop VAR) */
static Node *sf_pop(Eval *ev, Node *form, Binding *env) {
    if (!want_args(ev, form, 1, 1)) return NULL;
    Binding *b = settable(ev, form, form->kids[1], env);
    if (!b) return NULL;
    if (!is_listish(b->val))
        return eval_error(ev, form, "`pop`: `%s` does not hold a list", form->kids[1]->name);
    if (list_len(b->val) == 0) return ev->nil;
    Node *x = b->val->kids[0];
    b->val = list_tail(ev, b->val, 1);
    return x;
}

/* (dolist (VAR LIST [RESULT]) BODY...) */
static Node *sf_dolist(Eval *ev, Node *form, Binding *env) {
    if (!want_args(ev, form, 1, -1)) return NULL;
    Node *spec = form->kids[1];
    if (spec->kind != N_LIST || spec->nkids < 2 || spec->nkids > 3 || !is_sym(spec->kids[0]))
        return eval_error(ev, spec, "`dolist` expects (VAR LIST [RESULT]), got `%s`", show(ev, spec));
    Node *l = eval(ev, spec->kids[1], env);
    if (!l) return NULL;
    if (!is_listish(l)) return eval_error(ev, spec->kids[1], "`dolist`: `%s` is not a list", show(ev, l));
    const char *var = spec->kids[0]->key;
    for (int i = 0; i < list_len(l); i++) {
        if (!charge(ev, 1)) return NULL;
        Binding *inner = bind(ev, env, var, l->kids[i]);
        if (ev->failed || !eval_body(ev, form->kids + 2, form->nkids - 2, inner)) return NULL;
    }
    if (spec->nkids < 3) return ev->nil;
    Binding *inner = bind(ev, env, var, ev->nil);
    return ev->failed ? NULL : eval(ev, spec->kids[2], inner);
}

/* (dotimes (VAR COUNT [RESULT]) BODY...) - VAR = 0 .. COUNT-1 */
static Node *sf_dotimes(Eval *ev, Node *form, Binding *env) {
    if (!want_args(ev, form, 1, -1)) return NULL;
    Node *spec = form->kids[1];
    if (spec->kind != N_LIST || spec->nkids < 2 || spec->nkids > 3 || !is_sym(spec->kids[0]))
        return eval_error(ev, spec, "`dotimes` expects (VAR COUNT [RESULT]), got `%s`",
                          show(ev, spec));
    Node *cnt = eval(ev, spec->kids[1], env);
    if (!cnt) return NULL;
    if (cnt->kind != N_INT || cnt->is_unsigned)
        return eval_error(ev, spec->kids[1], "`dotimes`: count must be an integer, got `%s`",
                          show(ev, cnt));
    const char *var = spec->kids[0]->key;
    for (int64_t i = 0; i < cnt->ival; i++) {
        if (!charge(ev, 1)) return NULL;
        Binding *inner = bind(ev, env, var, mk_int(ev, i));
        if (ev->failed || !eval_body(ev, form->kids + 2, form->nkids - 2, inner)) return NULL;
    }
    if (spec->nkids < 3) return ev->nil;
    Binding *inner = bind(ev, env, var, mk_int(ev, cnt->ival > 0 ? cnt->ival : 0));
    return ev->failed ? NULL : eval(ev, spec->kids[2], inner);
}

/* The fields of the struct a with-struct-accessors names, asked of the
 * host (the checker knows every struct, template instances and derived
 * types included): STRUCT is a symbol naming the struct itself unless it
 * is a bound variable; anything else (a variable, 'point,
 * (element-type v)...) is evaluated and must give a symbol.  A list of
 * field name symbols, or NULL after reporting E0211. */
static Node *accessor_fields(Eval *ev, Node *spec, Binding *env) {
    Node *v = spec;
    if (!(is_sym(spec) && !spec->ann && !lookup(env, spec->key)) && !(v = eval(ev, spec, env)))
        return NULL;
    Node *out = NULL;
    int r = ev->host_call && is_sym(v) && !v->ann ? (ev->host_calls++, ev->host_call)(ev, ev->host_ud, spec, "%struct-fields", &v, 1, &out) : 0;
    if (r < 0) {
        ev->failed = 1;
        return NULL;
    }
    if (r > 0 && out) return out;
    if (!is_sym(v) || v->ann)
        return code_error(ev, EVAL_E_STRUCT, spec, "with-struct-accessors expects a struct type name, found `%s`",
                          show(ev, v));
    return code_error(ev, EVAL_E_STRUCT, spec, "unknown struct `%s` in with-struct-accessors: define it with def-struct",
                      v->name);
}

/* A variable of the binding list: a plain symbol that may be bound. */
static int accessor_var(const Node *v) {
    return is_sym(v) && !v->ann && v->name[0] != '&' && !is_nil(v) && strcmp(v->key, "t") != 0;
}

/* (with-struct-accessors STRUCT (AOS-VAR [SOA-VAR]) [:access :public|:raw] BODY...)
 * Spec "with-struct-accessors - ADVANCED" (and its use in the possible
 * implementation of convert-aos-to-soa): for each field of def-struct
 * STRUCT, in declaration order, bind AOS-VAR to the field's accessor
 * symbol - `x~` (:public, the default: overloads apply) or `~x~` (:raw) -
 * and evaluate BODY; the list of the body values is the result, to be
 * spliced with ,@.  soa-vectors are not implemented yet, so SOA-VAR is
 * bound to the same accessor symbol as AOS-VAR. */
static Node *sf_with_struct_accessors(Eval *ev, Node *form, Binding *env) {
    if (!want_args(ev, form, 2, -1)) return NULL;
    Node *bl = form->kids[2];
    if (bl->kind != N_LIST || bl->nkids < 1 || bl->nkids > 2 || !accessor_var(bl->kids[0]) ||
        (bl->nkids == 2 && !accessor_var(bl->kids[1])))
        return code_error(ev, EVAL_E_ACCBIND, bl,
                          "malformed binding list in with-struct-accessors: expected (AOS-VAR "
                          "[SOA-VAR]) with one or two variable names, found `%s`",
                          show(ev, bl));
    int raw = 0, body = 3;
    while (body < form->nkids && form->kids[body]->kind == N_KEYWORD) {
        Node *k = form->kids[body];
        if (!syn_is_kw(k, "access"))
            return code_error(ev, EVAL_E_ACCESS, k,
                              "unknown keyword argument `:%s` in with-struct-accessors: expected "
                              ":access",
                              k->name);
        if (body + 1 >= form->nkids)
            return code_error(ev, EVAL_E_ACCESS, k,
                              "`:access` in with-struct-accessors needs a value: expected :public "
                              "or :raw");
        Node *a = eval(ev, form->kids[body + 1], env);
        if (!a) return NULL;
        if (!syn_is_kw(a, "public") && !syn_is_kw(a, "raw"))
            return code_error(ev, EVAL_E_ACCESS, form->kids[body + 1],
                              "unknown :access value `%s` in with-struct-accessors: expected "
                              ":public or :raw",
                              show(ev, a));
        raw = syn_is_kw(a, "raw");
        body += 2;
    }
    Node *fields = accessor_fields(ev, form->kids[1], env);
    if (!fields) return NULL;
    int nfields = fields->kind == N_LIST ? fields->nkids : 0;
    Node **out = arena_alloc(&ev->c->arena, sizeof *out * (size_t)(nfields ? nfields : 1));
    if (!out) return oom_error(ev);
    for (int i = 0; i < nfields; i++) {
        if (!charge(ev, 1)) return NULL;
        const char *fname = fields->kids[i]->name;
        Node *acc = syn_symbol(&ev->c->arena, form->loc,
                               arena_printf(&ev->c->arena, "%s%s~", raw ? "~" : "", fname));
        if (ev->c->arena.exhausted) return oom_error(ev);
        Binding *inner = bind(ev, env, bl->kids[0]->key, acc);
        if (bl->nkids == 2) inner = bind(ev, inner, bl->kids[1]->key, acc);
        if (ev->failed) return NULL;
        if (!(out[i] = eval_body(ev, form->kids + body, form->nkids - body, inner))) return NULL;
    }
    return mk_list(ev, out, nfields);
}

static Node *mk_closure(Eval *ev, Closure *cl) {
    /* its name printed once (a lambda's and a builtin's are texts made at
       build time, all lower case: their own keys) */
    int fixed = (cl->prim && cl->prim->fname) || !cl->name || syn_streq(cl->name, "lambda");
    const char *name = !fixed ? arena_printf(&ev->c->arena, "#<function %s>", cl->name)
                       : cl->prim ? cl->prim->fname : "#<function lambda>";
    Node *n = syn_new(&ev->c->arena, N_SYMBOL, no_loc);
    if (ev->c->arena.exhausted || !name) return oom_error(ev);
    n->name = name;
    n->key = fixed ? name : syn_key(&ev->c->arena, name);
    n->ival = (int64_t)(uintptr_t)cl;
    n->op = CLOSURE_TAG;
    return n;
}

/* (lambda LAMBDA-LIST BODY...) */
static Node *sf_lambda(Eval *ev, Node *form, Binding *env) {
    if (!want_args(ev, form, 1, -1)) return NULL;
    /* a definition's lambda list is parsed once (issue 14: the mapcar
       lambdas of the library's macros were parsed at every call); the
       table outlasts the run, which is a write */
    EvalLambdaList *ll = ev->fresh_code ? NULL : ptrmap_get(&ev->lambdas, form->kids[1]);
    if (!ll) {
        if (!(ll = ll_parse(ev, form->kids[1], 0))) return NULL;
        if (!ev->fresh_code) {
            ev->writes++;
            ptrmap_put(&ev->c->arena, &ev->lambdas, form->kids[1], ll);
        }
    }
    Closure *cl = arena_alloc(&ev->c->arena, sizeof *cl);
    if (!cl) return oom_error(ev);
    cl->name = "lambda";
    cl->fresh = ev->fresh_code > 0;
    cl->params = ll;
    cl->body = form->kids + 2;
    cl->nbody = form->nkids - 2;
    cl->env = env;
    return mk_closure(ev, cl);
}

/* (function NAME) / #'NAME, and (function (lambda ...)) */
static Node *sf_function(Eval *ev, Node *form, Binding *env) {
    if (!want_args(ev, form, 1, 1)) return NULL;
    Node *f = form->kids[1];
    if (syn_is_form(f, "lambda")) return sf_lambda(ev, f, env);
    if (is_sym(f)) {
        const void *what;
        int kind = resolve_head(ev, f->key, &what);
        const Prim *p = kind == HEAD_PRIM ? what : NULL;
        if (p && p->fn) {
            Closure *cl = arena_alloc(&ev->c->arena, sizeof *cl);
            if (!cl) return oom_error(ev);
            cl->name = p->name;
            cl->prim = p;
            return mk_closure(ev, cl);
        }
        if (p) return eval_error(ev, form, "`%s` is a special form, not a function", f->name);
        if (kind == HEAD_FUNC) return (Node *)(uintptr_t)what;
        if (ev->host_call && !f->ann) {
            /* #'is-integer?: a function the host answers, called later */
            Closure *cl = arena_alloc(&ev->c->arena, sizeof *cl);
            if (!cl) return oom_error(ev);
            cl->name = f->key;
            cl->host = 1;
            return mk_closure(ev, cl);
        }
    }
    return eval_error(ev, form, "`%s` is not a compile-time function", show(ev, f));
}

/* (declare ...) anywhere but at the start of a body */
static Node *sf_declare(Eval *ev, Node *form, Binding *env) {
    (void)env;
    return eval_error(ev, form, "`declare` is only allowed at the start of a body");
}

/* ------------------------------------------------------------------------
 * Builtin functions: numbers
 * ---------------------------------------------------------------------- */

typedef struct Num {
    int is_float;
    int64_t i;
    double f;
} Num;

static int get_num(Eval *ev, Node *form, Node *v, const char *fn, Num *out) {
    if (v->kind == N_INT && !v->is_unsigned) {
        out->is_float = 0;
        out->i = v->ival;
        out->f = (double)v->ival;
        return 1;
    }
    if (v->kind == N_FLOAT) {
        out->is_float = 1;
        out->f = v->fval;
        return 1;
    }
    eval_error(ev, form, "`%s` expects a number, got `%s`%s", fn, show(ev, v),
               v->kind == N_INT ? " (unsigned literals are outside the compile-time range)" : "");
    return 0;
}

static int get_int(Eval *ev, Node *form, Node *v, const char *fn, int64_t *out) {
    if (v->kind == N_INT && !v->is_unsigned) {
        *out = v->ival;
        return 1;
    }
    eval_error(ev, form, "`%s` expects an integer, got `%s`", fn, show(ev, v));
    return 0;
}

static int add_ov(int64_t a, int64_t b, int64_t *r) {
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 1;
    *r = a + b;
    return 0;
}

static int sub_ov(int64_t a, int64_t b, int64_t *r) {
    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return 1;
    *r = a - b;
    return 0;
}

static int mul_ov(int64_t a, int64_t b, int64_t *r) {
    if (a == 0 || b == 0) {
        *r = 0;
        return 0;
    }
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
              : (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b))
        return 1;
    *r = a * b;
    return 0;
}

static Node *num_node(Eval *ev, Num x) {
    return x.is_float ? mk_float(ev, x.f) : mk_int(ev, x.i);
}

/* Integer overflow and division by zero end the evaluation with an error
 * wherever they happen, also in the operands of c-t-output and c-t-assert
 * (which otherwise just say "not known at compile time"): the one rule of
 * compile-time arithmetic, shared with the checker's constant evaluator
 * (types/consteval.c; docs/language.md "Compile-time evaluation"). */
static Node *arith_error(Eval *ev, const char *code, const Node *form, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static Node *arith_error(Eval *ev, const char *code, const Node *form, const char *fmt, ...) {
    int quiet = ev->quiet;
    ev->quiet = 0;
    va_list ap;
    va_start(ap, fmt);
    verror(ev, code, form, fmt, ap);
    va_end(ap);
    ev->quiet = quiet;
    return NULL;
}

/* `(FN A [B])` does not fit in 64 bits. */
static Node *overflow(Eval *ev, Node *form, const char *fn, int64_t a, int64_t b, int nargs) {
    return arith_error(ev, EVAL_E_OVERFLOW, form,
                       nargs == 1 ? "integer overflow: `(%s %lld)` does not fit in 64 bits (compile-time integers are 64-bit signed)"
                                  : "integer overflow: `(%s %lld %lld)` does not fit in 64 bits (compile-time integers are 64-bit signed)",
                       fn, (long long)a, (long long)b);
}

/* `(FN A 0)`: division by zero. */
static Node *div_zero(Eval *ev, Node *form, const char *fn, Num a) {
    if (a.is_float) return arith_error(ev, EVAL_E_DIVZERO, form, "division by zero: `(%s %g 0)`", fn, a.f);
    return arith_error(ev, EVAL_E_DIVZERO, form, "division by zero: `(%s %lld 0)`", fn, (long long)a.i);
}

/* Fold + - * / over the arguments. */
static Node *arith(Eval *ev, Node *form, Node **a, int n, char op) {
    const char *fn = op == '+' ? "+" : op == '-' ? "-" : op == '*' ? "*" : "/";
    Num acc;
    if (n == 0) return mk_int(ev, op == '*' ? 1 : 0);
    if (!get_num(ev, form, a[0], fn, &acc)) return NULL;
    if (n == 1 && op == '-') {  /* (- x) negates */
        if (acc.is_float) return mk_float(ev, -acc.f);
        if (acc.i == INT64_MIN) return overflow(ev, form, fn, acc.i, 0, 1);
        return mk_int(ev, -acc.i);
    }
    if (n == 1 && op == '/') {  /* (/ x) is 1/x */
        if (acc.is_float ? acc.f == 0.0 : acc.i == 0)
            return div_zero(ev, form, fn, (Num){0, 1, 1.0});
        return acc.is_float ? mk_float(ev, 1.0 / acc.f) : mk_int(ev, 1 / acc.i);
    }
    for (int i = 1; i < n; i++) {
        Num y;
        if (!get_num(ev, form, a[i], fn, &y)) return NULL;
        if (acc.is_float || y.is_float) {
            double p = acc.is_float ? acc.f : (double)acc.i, q = y.is_float ? y.f : (double)y.i;
            acc.is_float = 1;
            switch (op) {
            case '+': acc.f = p + q; break;
            case '-': acc.f = p - q; break;
            case '*': acc.f = p * q; break;
            default:
                if (q == 0.0) return div_zero(ev, form, fn, (Num){1, 0, p});
                acc.f = p / q;
            }
            continue;
        }
        int ov = 0;
        int64_t before = acc.i;
        switch (op) {
        case '+': ov = add_ov(acc.i, y.i, &acc.i); break;
        case '-': ov = sub_ov(acc.i, y.i, &acc.i); break;
        case '*': ov = mul_ov(acc.i, y.i, &acc.i); break;
        default:
            if (y.i == 0) return div_zero(ev, form, fn, acc);
            if (acc.i == INT64_MIN && y.i == -1) ov = 1;
            else acc.i /= y.i;
        }
        if (ov) return overflow(ev, form, fn, before, y.i, 2);
    }
    return num_node(ev, acc);
}

/* (+ N...) */
static Node *bi_add(Eval *ev, Node *form, Node **a, int n) { return arith(ev, form, a, n, '+'); }
/* (- N [N...]) */
static Node *bi_sub(Eval *ev, Node *form, Node **a, int n) { return arith(ev, form, a, n, '-'); }
/* (* N...) */
static Node *bi_mul(Eval *ev, Node *form, Node **a, int n) { return arith(ev, form, a, n, '*'); }
/* (/ N [N...]) - integer division truncates; float if any float */
static Node *bi_div(Eval *ev, Node *form, Node **a, int n) { return arith(ev, form, a, n, '/'); }

static Node *num_add(Eval *ev, Node *form, Node *a, Node *b, int sign) {
    Node *args[2] = {a, b};
    return arith(ev, form, args, 2, sign < 0 ? '-' : '+');
}

/* (1+ N) */
static Node *bi_inc(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    return num_add(ev, form, a[0], mk_int(ev, 1), 1);
}

/* (1- N) */
static Node *bi_dec(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    return num_add(ev, form, a[0], mk_int(ev, 1), -1);
}

/* mod (sign of divisor) and rem (sign of dividend) */
static Node *modrem(Eval *ev, Node *form, Node **a, int is_mod) {
    const char *fn = is_mod ? "mod" : "rem";
    Num x, y;
    if (!get_num(ev, form, a[0], fn, &x) || !get_num(ev, form, a[1], fn, &y)) return NULL;
    if (x.is_float || y.is_float) {
        double p = x.is_float ? x.f : (double)x.i, q = y.is_float ? y.f : (double)y.i;
        if (q == 0.0) return div_zero(ev, form, fn, (Num){1, 0, p});
        double r = fmod(p, q);
        if (is_mod && r != 0.0 && ((r < 0) != (q < 0))) r += q;
        return mk_float(ev, r);
    }
    if (y.i == 0) return div_zero(ev, form, fn, x);
    if (y.i == -1) return mk_int(ev, 0);
    int64_t r = x.i % y.i;
    if (is_mod && r != 0 && ((r < 0) != (y.i < 0))) r += y.i;
    return mk_int(ev, r);
}

/* (mod A B) */
static Node *bi_mod(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    return modrem(ev, form, a, 1);
}

/* (rem A B) */
static Node *bi_rem(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    return modrem(ev, form, a, 0);
}

/* floor / ceiling: (floor X) of a float, (floor A B) rounded quotient */
static Node *rounding(Eval *ev, Node *form, Node **a, int n, int up) {
    const char *fn = up ? "ceiling" : "floor";
    Num x, y = {0, 1, 1.0};
    if (!get_num(ev, form, a[0], fn, &x)) return NULL;
    if (n > 1 && !get_num(ev, form, a[1], fn, &y)) return NULL;
    if (!x.is_float && !y.is_float) {
        if (y.i == 0) return div_zero(ev, form, fn, x);
        if (x.i == INT64_MIN && y.i == -1) return overflow(ev, form, fn, x.i, y.i, 2);
        int64_t q = x.i / y.i, r = x.i % y.i;
        if (r != 0 && ((r < 0) != (y.i < 0))) q += up ? 0 : -1;
        else if (r != 0 && up) q += 1;
        return mk_int(ev, q);
    }
    double q = y.is_float ? y.f : (double)y.i;
    if (q == 0.0) return div_zero(ev, form, fn, x);
    double v = (x.is_float ? x.f : (double)x.i) / q;
    v = up ? ceil(v) : floor(v);
    if (!(v >= -9.2e18 && v <= 9.2e18))
        return arith_error(ev, EVAL_E_OVERFLOW, form, "integer overflow: `(%s %g)` does not fit in 64 bits (compile-time integers are 64-bit signed)",
                           fn, v);
    return mk_int(ev, (int64_t)v);
}

/* (floor X [DIVISOR]) */
static Node *bi_floor(Eval *ev, Node *form, Node **a, int n) { return rounding(ev, form, a, n, 0); }
/* (ceiling X [DIVISOR]) */
static Node *bi_ceiling(Eval *ev, Node *form, Node **a, int n) { return rounding(ev, form, a, n, 1); }

/* Chained numeric comparison. */
/* The function a value designates: a closure's name, or NAME of the
 * syntax (function NAME) a macro received as an argument; NULL else. */
const char *eval_function_name(const Node *v) {
    const Closure *cl = as_closure(v);
    if (cl) return cl->prim ? cl->prim->name : cl->name;
    if (syn_is_form(v, "function") && v->nkids == 2 && v->kids[1]->kind == N_SYMBOL && !v->kids[1]->ann)
        return v->kids[1]->key;
    return NULL;
}

static Node *compare(Eval *ev, Node *form, Node **a, int n, const char *op) {
    Num x, y;
    if (n == 2 && (op[0] == '=' || syn_streq(op, "/=")) && eval_function_name(a[0]) && eval_function_name(a[1])) {
        /* (= someFunction #'+): function designators compare by name
           (spec "reduce-to-1-atomic") */
        int same = !strcasecmp(eval_function_name(a[0]), eval_function_name(a[1]));
        return mk_bool(ev, op[0] == '=' ? same : !same);
    }
    for (int i = 0; i < n; i++)
        if (!get_num(ev, form, a[i], op, &x)) return NULL;
    if (syn_streq(op, "/=")) {
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) {
                get_num(ev, form, a[i], op, &x);
                get_num(ev, form, a[j], op, &y);
                if (x.is_float || y.is_float ? x.f == y.f : x.i == y.i) return ev->nil;
            }
        return ev->t;
    }
    for (int i = 0; i + 1 < n; i++) {
        get_num(ev, form, a[i], op, &x);
        get_num(ev, form, a[i + 1], op, &y);
        int c;
        if (x.is_float || y.is_float)
            c = x.f < y.f ? -1 : x.f > y.f ? 1 : x.f == y.f ? 0 : 2;
        else
            c = x.i < y.i ? -1 : x.i > y.i;
        int ok = op[0] == '=' ? c == 0
               : op[0] == '<' ? (op[1] ? c == -1 || c == 0 : c == -1)
                              : (op[1] ? c == 1 || c == 0 : c == 1);
        if (!ok) return ev->nil;
    }
    return ev->t;
}

/* (= N N...) */
static Node *bi_num_eq(Eval *ev, Node *form, Node **a, int n) { return compare(ev, form, a, n, "="); }
/* (/= N N...) - all different */
static Node *bi_num_ne(Eval *ev, Node *form, Node **a, int n) { return compare(ev, form, a, n, "/="); }
/* (< N N...) */
static Node *bi_lt(Eval *ev, Node *form, Node **a, int n) { return compare(ev, form, a, n, "<"); }
/* (> N N...) */
static Node *bi_gt(Eval *ev, Node *form, Node **a, int n) { return compare(ev, form, a, n, ">"); }
/* (<= N N...) */
static Node *bi_le(Eval *ev, Node *form, Node **a, int n) { return compare(ev, form, a, n, "<="); }
/* (>= N N...) */
static Node *bi_ge(Eval *ev, Node *form, Node **a, int n) { return compare(ev, form, a, n, ">="); }

static Node *minmax(Eval *ev, Node *form, Node **a, int n, int want_max) {
    Num best, x;
    int bi = 0;
    if (!get_num(ev, form, a[0], want_max ? "max" : "min", &best)) return NULL;
    for (int i = 1; i < n; i++) {
        if (!get_num(ev, form, a[i], want_max ? "max" : "min", &x)) return NULL;
        int gt = x.is_float || best.is_float ? x.f > best.f : x.i > best.i;
        int lt = x.is_float || best.is_float ? x.f < best.f : x.i < best.i;
        if (want_max ? gt : lt) {
            best = x;
            bi = i;
        }
    }
    return a[bi];
}

/* (min N...) */
static Node *bi_min(Eval *ev, Node *form, Node **a, int n) { return minmax(ev, form, a, n, 0); }
/* (max N...) */
static Node *bi_max(Eval *ev, Node *form, Node **a, int n) { return minmax(ev, form, a, n, 1); }

/* (abs N) */
static Node *bi_abs(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    Num x;
    if (!get_num(ev, form, a[0], "abs", &x)) return NULL;
    if (x.is_float) return mk_float(ev, fabs(x.f));
    if (x.i == INT64_MIN) return overflow(ev, form, "abs", x.i, 0, 1);
    return x.i < 0 ? mk_int(ev, -x.i) : a[0];
}

/* (ash N SHIFT) - arithmetic shift, left for positive SHIFT */
static Node *bi_ash(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    int64_t v, s;
    if (!get_int(ev, form, a[0], "ash", &v) || !get_int(ev, form, a[1], "ash", &s)) return NULL;
    if (v == 0 || s == 0) return mk_int(ev, v);
    if (s > 0) {
        int64_t r;
        if (s >= 63 || mul_ov(v, (int64_t)1 << s, &r)) return overflow(ev, form, "ash", v, s, 2);
        return mk_int(ev, r);
    }
    if (s <= -63) return mk_int(ev, v < 0 ? -1 : 0);
    int64_t d = (int64_t)1 << -s, q = v / d;
    if (v % d != 0 && v < 0) q--;
    return mk_int(ev, q);
}

static Node *logop(Eval *ev, Node *form, Node **a, int n, char op) {
    int64_t acc = op == '&' ? -1 : 0;
    for (int i = 0; i < n; i++) {
        int64_t v;
        if (!get_int(ev, form, a[i], form->kids[0]->name, &v)) return NULL;
        acc = op == '&' ? (acc & v) : op == '|' ? (acc | v) : (acc ^ v);
    }
    return mk_int(ev, acc);
}

/* (logand N...) */
static Node *bi_logand(Eval *ev, Node *form, Node **a, int n) { return logop(ev, form, a, n, '&'); }
/* (logior N...) */
static Node *bi_logior(Eval *ev, Node *form, Node **a, int n) { return logop(ev, form, a, n, '|'); }
/* (logxor N...) */
static Node *bi_logxor(Eval *ev, Node *form, Node **a, int n) { return logop(ev, form, a, n, '^'); }

/* (lognot N) */
static Node *bi_lognot(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    int64_t v;
    return get_int(ev, form, a[0], "lognot", &v) ? mk_int(ev, ~v) : NULL;
}

/* (expt BASE POWER) - exact for integers with POWER >= 0 */
static Node *bi_expt(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    Num b, p;
    if (!get_num(ev, form, a[0], "expt", &b) || !get_num(ev, form, a[1], "expt", &p)) return NULL;
    if (!b.is_float && !p.is_float && p.i >= 0) {
        int64_t r = 1, base = b.i, e = p.i;
        while (e > 0) {
            if ((e & 1) && mul_ov(r, base, &r)) return overflow(ev, form, "expt", b.i, p.i, 2);
            e >>= 1;
            if (e > 0 && mul_ov(base, base, &base)) return overflow(ev, form, "expt", b.i, p.i, 2);
        }
        return mk_int(ev, r);
    }
    return mk_float(ev, pow(b.f, p.f));
}

static Node *num_pred(Eval *ev, Node *form, Node *v, char what) {
    Num x;
    if (what == 'e' || what == 'o') {
        int64_t i;
        if (!get_int(ev, form, v, form->kids[0]->name, &i)) return NULL;
        return mk_bool(ev, (i % 2 == 0) == (what == 'e'));
    }
    if (!get_num(ev, form, v, form->kids[0]->name, &x)) return NULL;
    double d = x.is_float ? x.f : (double)x.i;
    return mk_bool(ev, what == 'z' ? d == 0.0 : what == 'p' ? d > 0.0 : d < 0.0);
}

/* (zerop N) */
static Node *bi_zerop(Eval *ev, Node *form, Node **a, int n) { (void)n; return num_pred(ev, form, a[0], 'z'); }
/* (plusp N) */
static Node *bi_plusp(Eval *ev, Node *form, Node **a, int n) { (void)n; return num_pred(ev, form, a[0], 'p'); }
/* (minusp N) */
static Node *bi_minusp(Eval *ev, Node *form, Node **a, int n) { (void)n; return num_pred(ev, form, a[0], 'm'); }
/* (evenp N) */
static Node *bi_evenp(Eval *ev, Node *form, Node **a, int n) { (void)n; return num_pred(ev, form, a[0], 'e'); }
/* (oddp N) */
static Node *bi_oddp(Eval *ev, Node *form, Node **a, int n) { (void)n; return num_pred(ev, form, a[0], 'o'); }

/* ------------------------------------------------------------------------
 * Builtin functions: predicates and equality
 * ---------------------------------------------------------------------- */

/* (null X), (not X) - true for every false value */
static Node *bi_not(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    return mk_bool(ev, !truthy(a[0]));
}

/* (listp X) - lists including nil */
static Node *bi_listp(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    return mk_bool(ev, is_listish(a[0]));
}

/* (consp X) - non-empty lists */
static Node *bi_consp(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    return mk_bool(ev, a[0]->kind == N_LIST && a[0]->nkids > 0);
}

/* (atom X) */
static Node *bi_atom(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    return mk_bool(ev, !(a[0]->kind == N_LIST && a[0]->nkids > 0));
}

/* (symbolp X) - symbols including nil and t, not keywords */
static Node *bi_symbolp(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    return mk_bool(ev, is_sym(a[0]) || is_nil(a[0]));
}

/* (keywordp X) */
static Node *bi_keywordp(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    return mk_bool(ev, a[0]->kind == N_KEYWORD);
}

/* (numberp X) */
static Node *bi_numberp(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    return mk_bool(ev, a[0]->kind == N_INT || a[0]->kind == N_FLOAT);
}

/* (integerp X) */
static Node *bi_integerp(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    return mk_bool(ev, a[0]->kind == N_INT);
}

/* (floatp X) */
static Node *bi_floatp(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    return mk_bool(ev, a[0]->kind == N_FLOAT);
}

/* (stringp X) */
static Node *bi_stringp(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    return mk_bool(ev, a[0]->kind == N_STRING);
}

/* (functionp X) */
static Node *bi_functionp(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    return mk_bool(ev, as_closure(a[0]) != NULL);
}

/* (vectorp X) - #(...) and ##(...) literals */
static Node *bi_vectorp(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    return mk_bool(ev, a[0]->kind == N_VECLIT || a[0]->kind == N_HWVEC);
}

static int val_equal(Eval *ev, const Node *a, const Node *b, int depth);

/* eq/eql: identical, or atoms of the same kind and value (symbols by
 * canonical name and annotation); nil and () are the same. */
static int val_eql(const Node *a, const Node *b) {
    if (a == b) return 1;
    if (is_nil(a) && is_nil(b)) return 1;
    if (a->kind != b->kind) return 0;
    switch (a->kind) {
    case N_INT: return a->ival == b->ival && a->is_unsigned == b->is_unsigned;
    case N_FLOAT: return a->fval == b->fval;
    case N_KEYWORD: return syn_streq(a->key, b->key);
    case N_SYMBOL:
        if (as_closure(a) && as_closure(b) && as_closure(a)->host && as_closure(b)->host)
            return !strcmp(as_closure(a)->name, as_closure(b)->name);
        if (as_closure(a) || as_closure(b)) return as_closure(a) == as_closure(b);
        if (strcmp(a->key, b->key)) return 0;
        if (!a->ann || !b->ann) return a->ann == b->ann;
        return val_equal(NULL, a->ann, b->ann, 0);
    default: return 0;
    }
}

/* Structural equality; `ev` (when set) charges a step per node and bounds
 * the depth. */
static int val_equal(Eval *ev, const Node *a, const Node *b, int depth) {
    if (ev && (!charge(ev, 1) || depth > ev->max_nesting)) {
        if (ev && !ev->failed) eval_error(ev, ev->call, "`equal`: values nested too deeply");
        return 0;
    }
    if (!ev && depth > 200) return 0;
    if (val_eql(a, b)) return 1;
    if (a->kind != b->kind) return 0;
    if (a->kind == N_STRING) return a->slen == b->slen && !memcmp(a->name, b->name, (size_t)a->slen);
    if (a->kind == N_LIST || a->kind == N_VECLIT || a->kind == N_HWVEC) {
        if (a->nkids != b->nkids) return 0;
        for (int i = 0; i < a->nkids; i++)
            if (!val_equal(ev, a->kids[i], b->kids[i], depth + 1)) return 0;
        return 1;
    }
    return 0;
}

/* (eq A B), (eql A B) */
static Node *bi_eql(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    return mk_bool(ev, val_eql(a[0], a[1]));
}

/* (equal A B) */
static Node *bi_equal(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    int r = val_equal(ev, a[0], a[1], 0);
    return ev->failed ? NULL : mk_bool(ev, r);
}

/* ------------------------------------------------------------------------
 * Builtin functions: lists
 * ---------------------------------------------------------------------- */

static int want_list(Eval *ev, Node *form, Node *v, const char *fn) {
    if (is_listish(v)) return 1;
    eval_error(ev, form, "`%s` expects a list, got `%s`", fn, show(ev, v));
    return 0;
}

/* (list X...) */
static Node *bi_list(Eval *ev, Node *form, Node **a, int n) {
    (void)form;
    return charge(ev, n) ? mk_list(ev, a, n) : NULL;
}

/* (list* X... LIST) */
static Node *bi_list_star(Eval *ev, Node *form, Node **a, int n) {
    Node *tail = a[n - 1];
    if (!want_list(ev, form, tail, "list*")) return NULL;
    int m = list_len(tail);
    if (!charge(ev, n + m)) return NULL;
    Node **k = arena_alloc(&ev->c->arena, sizeof *k * (size_t)(n - 1 + m + 1));
    if (!k) return oom_error(ev);
    memcpy(k, a, sizeof *k * (size_t)(n - 1));
    if (m) memcpy(k + n - 1, tail->kids, sizeof *k * (size_t)m);
    return mk_list(ev, k, n - 1 + m);
}

/* (cons X LIST) - crisp lists are arrays: LIST must be a list */
static Node *bi_cons(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    if (!is_listish(a[1]))
        return eval_error(ev, form,
                          "`cons`: the second argument must be a list (there are no dotted "
                          "pairs), got `%s`",
                          show(ev, a[1]));
    Node *args[2] = {a[0], a[1]};
    return bi_list_star(ev, form, args, 2);
}

/* (car LIST), (first LIST) */
static Node *bi_car(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    if (!want_list(ev, form, a[0], form->kids[0]->name)) return NULL;
    return list_len(a[0]) ? a[0]->kids[0] : ev->nil;
}

/* (cdr LIST), (rest LIST) */
static Node *bi_cdr(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    if (!want_list(ev, form, a[0], form->kids[0]->name)) return NULL;
    return list_tail(ev, a[0], 1);
}

static Node *nth_of(Eval *ev, Node *form, Node *l, int64_t i, const char *fn) {
    if (l->kind == N_VECLIT || l->kind == N_HWVEC)
        return i >= 0 && i < l->nkids ? l->kids[i] : ev->nil;
    if (!want_list(ev, form, l, fn)) return NULL;
    return i >= 0 && i < list_len(l) ? l->kids[i] : ev->nil;
}

/* (second LIST) */
static Node *bi_second(Eval *ev, Node *form, Node **a, int n) { (void)n; return nth_of(ev, form, a[0], 1, "second"); }
/* (third LIST) */
static Node *bi_third(Eval *ev, Node *form, Node **a, int n) { (void)n; return nth_of(ev, form, a[0], 2, "third"); }
/* (fourth LIST) */
static Node *bi_fourth(Eval *ev, Node *form, Node **a, int n) { (void)n; return nth_of(ev, form, a[0], 3, "fourth"); }

/* (nth INDEX LIST) - also on vector literals */
static Node *bi_nth(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    int64_t i;
    if (!get_int(ev, form, a[0], "nth", &i)) return NULL;
    if (i < 0) return eval_error(ev, form, "`nth`: negative index %lld", (long long)i);
    return nth_of(ev, form, a[1], i, "nth");
}

/* (nthcdr N LIST) */
static Node *bi_nthcdr(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    int64_t i;
    if (!get_int(ev, form, a[0], "nthcdr", &i) || !want_list(ev, form, a[1], "nthcdr")) return NULL;
    if (i < 0) return eval_error(ev, form, "`nthcdr`: negative count %lld", (long long)i);
    return list_tail(ev, a[1], i > list_len(a[1]) ? list_len(a[1]) : (int)i);
}

/* (last LIST [N]) - the list of the last N (default 1) elements */
static Node *bi_last(Eval *ev, Node *form, Node **a, int n) {
    int64_t k = 1;
    if (!want_list(ev, form, a[0], "last") || (n > 1 && !get_int(ev, form, a[1], "last", &k)))
        return NULL;
    int len = list_len(a[0]);
    if (k < 0) k = 0;
    return list_tail(ev, a[0], k >= len ? 0 : len - (int)k);
}

/* (butlast LIST [N]) - all but the last N (default 1) elements */
static Node *bi_butlast(Eval *ev, Node *form, Node **a, int n) {
    int64_t k = 1;
    if (!want_list(ev, form, a[0], "butlast") || (n > 1 && !get_int(ev, form, a[1], "butlast", &k)))
        return NULL;
    int len = list_len(a[0]);
    if (k < 0) k = 0;
    return mk_list(ev, len ? a[0]->kids : NULL, k >= len ? 0 : len - (int)k);
}

/* (append LIST...) */
static Node *bi_append(Eval *ev, Node *form, Node **a, int n) {
    long total = 0;
    for (int i = 0; i < n; i++) {
        if (!want_list(ev, form, a[i], "append")) return NULL;
        total += list_len(a[i]);
    }
    if (!charge(ev, total)) return NULL;
    if (total > ev->max_output_nodes * 4L)
        return eval_error(ev, form, "`append`: result too long (%ld elements)", total);
    Node **k = arena_alloc(&ev->c->arena, sizeof *k * (size_t)(total ? total : 1));
    if (!k) return oom_error(ev);
    int at = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < list_len(a[i]); j++) k[at++] = a[i]->kids[j];
    return mk_list(ev, k, at);
}

/* (reverse LIST) */
static Node *bi_reverse(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    if (!want_list(ev, form, a[0], "reverse")) return NULL;
    int len = list_len(a[0]);
    if (!charge(ev, len)) return NULL;
    Node **k = arena_alloc(&ev->c->arena, sizeof *k * (size_t)(len ? len : 1));
    if (!k) return oom_error(ev);
    for (int i = 0; i < len; i++) k[i] = a[0]->kids[len - 1 - i];
    return mk_list(ev, k, len);
}

/* (length SEQUENCE) - lists, strings, vector literals */
static Node *bi_length(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    Node *v = a[0];
    if (v->kind == N_STRING) return mk_int(ev, v->slen);
    if (v->kind == N_VECLIT || v->kind == N_HWVEC) return mk_int(ev, v->nkids);
    if (!want_list(ev, form, v, "length")) return NULL;
    return mk_int(ev, list_len(v));
}

/* (subseq SEQUENCE START [END]) - lists and strings */
static Node *bi_subseq(Eval *ev, Node *form, Node **a, int n) {
    int64_t s, e;
    Node *v = a[0];
    int len = v->kind == N_STRING ? v->slen : is_listish(v) ? list_len(v) : -1;
    if (len < 0) return eval_error(ev, form, "`subseq` expects a list or string, got `%s`", show(ev, v));
    if (!get_int(ev, form, a[1], "subseq", &s)) return NULL;
    e = len;
    if (n > 2 && !is_nil(a[2]) && !get_int(ev, form, a[2], "subseq", &e)) return NULL;
    if (s < 0 || e < s || e > len)
        return eval_error(ev, form, "`subseq`: bounds %lld..%lld out of range for length %d",
                          (long long)s, (long long)e, len);
    if (v->kind == N_STRING) return mk_string(ev, v->name + s, (int)(e - s));
    return mk_list(ev, (int)(e - s) ? v->kids + s : NULL, (int)(e - s));
}

/* (member X LIST) - the tail of LIST starting at the first element equal
 * to X, or nil */
static Node *bi_member(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    if (!want_list(ev, form, a[1], "member")) return NULL;
    for (int i = 0; i < list_len(a[1]); i++) {
        if (val_equal(ev, a[0], a[1]->kids[i], 0)) return list_tail(ev, a[1], i);
        if (ev->failed) return NULL;
    }
    return ev->nil;
}

/* (assoc KEY ALIST) - the first (KEY . _) element, compared with equal */
static Node *bi_assoc(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    if (!want_list(ev, form, a[1], "assoc")) return NULL;
    for (int i = 0; i < list_len(a[1]); i++) {
        Node *p = a[1]->kids[i];
        if (p->kind == N_LIST && p->nkids > 0 && val_equal(ev, a[0], p->kids[0], 0)) return p;
        if (ev->failed) return NULL;
    }
    return ev->nil;
}

/* (identity X) */
static Node *bi_identity(Eval *ev, Node *form, Node **a, int n) {
    (void)ev, (void)form, (void)n;
    return a[0];
}

/* (funcall F ARG...) */
/* (funcall F ARG...).  F may be run-time code a host call produced, as
 * (gen-make-reduction-local-scratch-vec float nil) in a macro's default
 * argument (spec "generating scratch vectors"): then the result is the
 * call as code, (funcall F ARG...), for the checker. */
static Node *bi_funcall(Eval *ev, Node *form, Node **a, int n) {
    if (a[0]->kind == N_LIST && a[0]->nkids > 0 && is_sym(a[0]->kids[0]) && !as_closure(a[0])) {
        Node **k = arena_alloc(&ev->c->arena, sizeof *k * (size_t)(n + 1));
        if (!k) return oom_error(ev);
        k[0] = syn_symbol(&ev->c->arena, form->loc, "funcall");
        memcpy(k + 1, a, sizeof *k * (size_t)n);
        return mk_list(ev, k, n + 1);
    }
    return apply(ev, a[0], a + 1, n - 1, form);
}

/* (apply F ARG... LIST) */
static Node *bi_apply(Eval *ev, Node *form, Node **a, int n) {
    Node *l = a[n - 1];
    if (!want_list(ev, form, l, "apply")) return NULL;
    int m = n - 2 + list_len(l);
    if (!charge(ev, m)) return NULL;
    Node **k = arena_alloc(&ev->c->arena, sizeof *k * (size_t)(m ? m : 1));
    if (!k) return oom_error(ev);
    if (n > 2) memcpy(k, a + 1, sizeof *k * (size_t)(n - 2));
    if (list_len(l)) memcpy(k + n - 2, l->kids, sizeof *k * (size_t)list_len(l));
    return apply(ev, a[0], k, m, form);
}

/* Shared by mapcar / every / some: call F on the i-th elements of the
 * lists a[1..n). mode 'm' collect, 'e' every, 's' some. */
static Node *map_lists(Eval *ev, Node *form, Node **a, int n, char mode) {
    const char *fn = form->kids[0]->name;
    int len = -1;
    for (int i = 1; i < n; i++) {
        if (!want_list(ev, form, a[i], fn)) return NULL;
        if (len < 0 || list_len(a[i]) < len) len = list_len(a[i]);
    }
    if (len < 0) len = 0;
    /* on the stack when small (most calls map one to three elements):
       apply's callers never keep the argument array, and mk_list copies
       the results */
    Node *outbuf[8], *argbuf[8];
    Node **out = NULL;
    if (mode == 'm') {
        out = len <= 8 ? outbuf : arena_alloc(&ev->c->arena, sizeof *out * (size_t)len);
        if (!out) return oom_error(ev);
    }
    Node **args = n <= 8 ? argbuf : arena_alloc(&ev->c->arena, sizeof *args * (size_t)n);
    if (!args) return oom_error(ev);
    for (int j = 0; j < len; j++) {
        for (int i = 1; i < n; i++) args[i - 1] = a[i]->kids[j];
        Node *v = apply(ev, a[0], args, n - 1, form);
        if (!v) return NULL;
        if (mode == 'm') out[j] = v;
        else if (mode == 'e' && !truthy(v)) return ev->nil;
        else if (mode == 's' && truthy(v)) return v;
    }
    return mode == 'm' ? mk_list(ev, out, len) : mode == 'e' ? ev->t : ev->nil;
}

/* (mapcar F LIST...) */
static Node *bi_mapcar(Eval *ev, Node *form, Node **a, int n) { return map_lists(ev, form, a, n, 'm'); }
/* (every PRED LIST...) */
static Node *bi_every(Eval *ev, Node *form, Node **a, int n) { return map_lists(ev, form, a, n, 'e'); }
/* (some PRED LIST...) */
static Node *bi_some(Eval *ev, Node *form, Node **a, int n) { return map_lists(ev, form, a, n, 's'); }

/* ------------------------------------------------------------------------
 * Builtin functions: symbols and strings
 * ---------------------------------------------------------------------- */

/* Append the `princ` text of v (strings raw, symbols and keywords by name,
 * everything else printed). */
static int princ(Eval *ev, Node *form, StrBuf *b, Node *v, int readably) {
    if (v->kind == N_STRING && !readably) {
        sb_putn(b, v->name, (size_t)v->slen);
        return 1;
    }
    if (v->kind == N_KEYWORD && !readably) {
        sb_puts(b, v->name);
        return 1;
    }
    if (!value_fits(v, (int)ev->max_nesting, 100000)) {
        eval_error(ev, form, "value too large or too deeply nested to print");
        return 0;
    }
    syn_print(b, v);
    return 1;
}

static Node *sb_result(Eval *ev, StrBuf *b) {
    if (b->oom) {
        sb_free(b);
        return oom_error(ev);
    }
    Node *s = mk_string(ev, sb_cstr(b), (int)b->len);
    sb_free(b);
    return s;
}

/* (str X...) - concatenate the printed forms (strings without quotes,
 * symbols by name) into a string */
static Node *bi_str(Eval *ev, Node *form, Node **a, int n) {
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < n; i++)
        if (!princ(ev, form, &b, a[i], 0)) {
            sb_free(&b);
            return NULL;
        }
    return sb_result(ev, &b);
}

/* (concat STRING...), (string-concat STRING...) */
static Node *bi_concat(Eval *ev, Node *form, Node **a, int n) {
    for (int i = 0; i < n; i++)
        if (a[i]->kind != N_STRING)
            return eval_error(ev, form, "`%s` expects strings, got `%s`", form->kids[0]->name,
                              show(ev, a[i]));
    return bi_str(ev, form, a, n);
}

/* Format control FMT with directives ~a ~s ~d ~% ~~ into b. */
static int format_into(Eval *ev, Node *form, StrBuf *b, Node *fmt, Node **a, int n) {
    int used = 0;
    for (int i = 0; i < fmt->slen; i++) {
        char ch = fmt->name[i];
        if (ch != '~' || i + 1 >= fmt->slen) {
            sb_putc(b, ch);
            continue;
        }
        char d = fmt->name[++i];
        if (d == '%') sb_putc(b, '\n');
        else if (d == '~') sb_putc(b, '~');
        else if (d == 'a' || d == 'A' || d == 's' || d == 'S' || d == 'd' || d == 'D') {
            if (used >= n) {
                eval_error(ev, form, "format: not enough arguments for \"%s\"", fmt->name);
                return 0;
            }
            if (!princ(ev, form, b, a[used++], d == 's' || d == 'S')) return 0;
        } else {
            eval_error(ev, form, "format: unsupported directive `~%c`", d);
            return 0;
        }
    }
    return 1;
}

/* (format nil CONTROL ARG...) - ~a ~s ~d ~% ~~ */
static Node *bi_format(Eval *ev, Node *form, Node **a, int n) {
    if (!is_nil(a[0]))
        return eval_error(ev, form, "`format`: only the destination nil (return a string) is supported");
    if (a[1]->kind != N_STRING)
        return eval_error(ev, form, "`format` expects a control string, got `%s`", show(ev, a[1]));
    StrBuf b;
    sb_init(&b);
    if (!format_into(ev, form, &b, a[1], a + 2, n - 2)) {
        sb_free(&b);
        return NULL;
    }
    return sb_result(ev, &b);
}

/* (symbol-name SYMBOL) - keywords without the colon */
static Node *bi_symbol_name(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    Node *s = a[0];
    if (is_nil(s)) return mk_string(ev, "nil", 3);
    if (!(is_sym(s) || s->kind == N_KEYWORD))
        return eval_error(ev, form, "`symbol-name` expects a symbol, got `%s`", show(ev, s));
    return mk_string(ev, s->name, (int)strlen(s->name));
}

static const char *name_arg(Eval *ev, Node *form, Node *v, const char *fn) {
    if (v->kind == N_STRING && v->slen > 0 && (int)strlen(v->name) == v->slen) return v->name;
    if (is_sym(v) || v->kind == N_KEYWORD) return v->name;
    eval_error(ev, form, "`%s` expects a non-empty string or a symbol, got `%s`", fn, show(ev, v));
    return NULL;
}

/* (intern STRING), (make-symbol STRING) */
static Node *bi_intern(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    const char *s = name_arg(ev, form, a[0], form->kids[0]->name);
    if (s && !strcasecmp(s, "%feature-if")) ev->c->feature_forms++; /* expand.c */
    return s ? syn_symbol(&ev->c->arena, no_loc, s) : NULL;
}

/* (make-keyword STRING-OR-SYMBOL) */
static Node *bi_make_keyword(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    const char *s = name_arg(ev, form, a[0], "make-keyword");
    if (s && s[0] == ':') s++;
    return s && *s ? syn_keyword(&ev->c->arena, no_loc, s) : eval_error(ev, form, "empty keyword");
}

/* (gensym [PREFIX]) - a fresh symbol %g1, %g2, ... (or %PREFIX<n>) unique in
 * the compilation */
static Node *bi_gensym(Eval *ev, Node *form, Node **a, int n) {
    const char *prefix = "g";
    if (n > 0 && !(prefix = name_arg(ev, form, a[0], "gensym"))) return NULL;
    int k = ++ev->c->gensym_counter;
    return syn_symbol(&ev->c->arena, no_loc, arena_printf(&ev->c->arena, "%%%s%d", prefix, k));
}

/* (string= A B) - strings or symbol names, case-sensitive */
static Node *bi_string_eq(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    const char *x = a[0]->kind == N_STRING ? a[0]->name : NULL;
    const char *y = a[1]->kind == N_STRING ? a[1]->name : NULL;
    if (!x && !(x = name_arg(ev, form, a[0], "string="))) return NULL;
    if (!y && !(y = name_arg(ev, form, a[1], "string="))) return NULL;
    return mk_bool(ev, syn_streq(x, y));
}

static Node *change_case(Eval *ev, Node *form, Node *v, int up) {
    if (v->kind != N_STRING)
        return eval_error(ev, form, "`%s` expects a string, got `%s`", form->kids[0]->name, show(ev, v));
    Node *s = mk_string(ev, v->name, v->slen);
    if (ev->c->arena.exhausted) return oom_error(ev);
    char *p = (char *)s->name;
    for (int i = 0; i < v->slen; i++)
        if (up ? (p[i] >= 'a' && p[i] <= 'z') : (p[i] >= 'A' && p[i] <= 'Z')) p[i] ^= 0x20;
    return s;
}

/* (string-upcase STRING) */
static Node *bi_upcase(Eval *ev, Node *form, Node **a, int n) { (void)n; return change_case(ev, form, a[0], 1); }
/* (string-downcase STRING) */
static Node *bi_downcase(Eval *ev, Node *form, Node **a, int n) { (void)n; return change_case(ev, form, a[0], 0); }

/* (bare-symbol SYMBOL) - SYMBOL without its type annotation (i:int -> i) */
static Node *bi_bare_symbol(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    if (!is_sym(a[0])) return eval_error(ev, form, "`bare-symbol` expects a symbol, got `%s`", show(ev, a[0]));
    if (!a[0]->ann) return a[0];
    Node *s = syn_copy(&ev->c->arena, a[0]);
    s->ann = NULL;
    return s;
}

/* (symbol-annotation SYMBOL) - the type after ':' (i:int -> int), or nil */
static Node *bi_symbol_annotation(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    if (!is_sym(a[0]))
        return eval_error(ev, form, "`symbol-annotation` expects a symbol, got `%s`", show(ev, a[0]));
    return a[0]->ann ? a[0]->ann : ev->nil;
}

/* (annotate-symbol SYMBOL TYPE) - SYMBOL:TYPE (TYPE nil removes it) */
static Node *bi_annotate_symbol(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    if (!is_sym(a[0]))
        return eval_error(ev, form, "`annotate-symbol` expects a symbol, got `%s`", show(ev, a[0]));
    if (!value_fits(a[1], (int)ev->max_nesting, ev->max_output_nodes))
        return eval_error(ev, form, "`annotate-symbol`: type too large");
    Node *s = syn_copy(&ev->c->arena, a[0]);
    s->ann = is_nil(a[1]) ? NULL : a[1];
    return s;
}

/* ------------------------------------------------------------------------
 * Builtin functions: errors
 * ---------------------------------------------------------------------- */

/* The message of (error ...): a format control with arguments, or the
 * printed arguments. */
static const char *error_message(Eval *ev, Node *form, Node **a, int n) {
    StrBuf b;
    sb_init(&b);
    int ok = n > 0 && a[0]->kind == N_STRING ? format_into(ev, form, &b, a[0], a + 1, n - 1) : 1;
    for (int i = 0; ok && !(n > 0 && a[0]->kind == N_STRING) && i < n; i++)
        ok = princ(ev, form, &b, a[i], 0);
    const char *msg = ok ? arena_strdup(&ev->c->arena, sb_cstr(&b)) : NULL;
    sb_free(&b);
    return msg;
}

/* (error CONTROL ARG...) - fail the expansion with a diagnostic at the
 * macro's call site */
static Node *bi_error(Eval *ev, Node *form, Node **a, int n) {
    const char *msg = error_message(ev, form, a, n);
    if (!msg) return NULL;
    if (ev->call) return error_at(ev, EVAL_E_USER, ev->call->loc, ev->call->origin, "%s", msg);
    return error_at(ev, EVAL_E_USER, form->loc, origin_for(ev, form), "%s", msg);
}

/* (%macro-error WHERE CONTROL ARG...) - like error, but reported at WHERE
 * (typically one of the macro's arguments) when it has a location */
static Node *bi_macro_error(Eval *ev, Node *form, Node **a, int n) {
    const char *msg = error_message(ev, form, a + 1, n - 1);
    if (!msg) return NULL;
    if (srcloc_file(a[0]->loc)) return error_at(ev, EVAL_E_USER, a[0]->loc, a[0]->origin, "%s", msg);
    return bi_error(ev, form, a + 1, n - 1);
}


/* ------------------------------------------------------------------------
 * Compile-time directives: c-t-output, c-t-assert
 *   Their operands may name run-time values (`(c-t-output n)` in a kernel
 *   body).  They are evaluated quietly: an operand that fails is "not
 *   known at compile time" instead of an error.  Limits and out-of-memory
 *   still stop the evaluation.
 * ---------------------------------------------------------------------- */

/* Evaluate `x` quietly.  NULL with ev->failed clear when `x` is not known
 * at compile time (*why: the suppressed message, *why_at: where), NULL
 * with ev->failed set after a reported (fatal) error. */
static Node *eval_quiet(Eval *ev, Node *x, Binding *env, const char **why, const Node **why_at) {
    long depth = ev->depth;
    int errors = ev->c->diag.errors;
    const char *saved_msg = ev->quiet_msg;
    const Node *saved_at = ev->quiet_at;
    ev->quiet++;
    ev->quiet_msg = NULL;
    ev->quiet_at = NULL;
    Node *v = eval(ev, x, env);
    ev->quiet--;
    if (why) *why = ev->quiet_msg;
    if (why_at) *why_at = ev->quiet_at;
    ev->quiet_msg = saved_msg;
    ev->quiet_at = saved_at;
    if (v && !ev->failed) return v;
    /* a limit, or an error reported even here (overflow, division by
       zero): keep unwinding */
    if (ev->c->diag.fatal || ev->c->diag.errors > errors) return NULL;
    ev->failed = 0;
    ev->depth = depth;
    return NULL;
}

/* Where a directive reports: the form when it has a location, else the
 * current call. */
static SrcLoc directive_loc(Eval *ev, const Node *form, const Expansion **origin) {
    if (srcloc_file(form->loc) || !ev->call) {
        *origin = origin_for(ev, form);
        return form->loc;
    }
    *origin = ev->call->origin;
    return ev->call->loc;
}

/* Operands FROM.. of `form` evaluated quietly, printed and separated by
 * spaces (strings without quotes, everything else as read).  NULL after
 * a fatal error. */
static const char *directive_text(Eval *ev, Node *form, int from, Binding *env) {
    StrBuf b;
    sb_init(&b);
    for (int i = from; i < form->nkids; i++) {
        if (i > from) sb_putc(&b, ' ');
        Node *v = eval_quiet(ev, form->kids[i], env, NULL, NULL);
        if (!v && ev->failed) {
            sb_free(&b);
            return NULL;
        }
        if (!v) {
            sb_puts(&b, "<not known at compile time: ");
            sb_puts(&b, show(ev, form->kids[i]));
            sb_putc(&b, '>');
        } else if (v->kind == N_STRING) {
            sb_putn(&b, v->name, (size_t)v->slen);
        } else if (!princ(ev, form, &b, v, 1)) {
            sb_free(&b);
            return NULL;
        }
    }
    if (b.oom) {
        sb_free(&b);
        oom_error(ev);
        return NULL;
    }
    const char *text = arena_strdup(&ev->c->arena, sb_cstr(&b));
    sb_free(&b);
    if (!text) oom_error(ev);
    return text;
}

/* (c-t-output EXPR...) - print the values as a note; nil */
static Node *sf_ct_output(Eval *ev, Node *form, Binding *env) {
    const char *text = directive_text(ev, form, 1, env);
    if (!text) return NULL;
    const Expansion *origin;
    SrcLoc loc = directive_loc(ev, form, &origin);
    Diag *d = &ev->c->diag;
    diag_note(d, loc, "c-t-output: %s", text);
    int n = 0;
    for (const Expansion *e = origin; e && n < 8; e = e->parent, n++)
        diag_note(d, e->call, "in expansion of macro `%s`", e->macro);
    return ev->nil;
}

/* (c-t-assert TEST MESSAGE...) - error E0210 unless TEST is known and
 * true.  The error is reported even inside a quiet evaluation (a
 * c-t-assert in an operand of c-t-output). */
static Node *sf_ct_assert(Eval *ev, Node *form, Binding *env) {
    if (ev->c->opt && ev->c->opt->skip_ct_checks) return ev->t; /* --skip-c-t-checks: not evaluated */
    if (!want_args(ev, form, 1, -1)) return NULL;
    Node *test = form->kids[1];
    const char *why = NULL;
    const Node *why_at = NULL;
    Node *v = eval_quiet(ev, test, env, &why, &why_at);
    if (!v && ev->failed) return NULL;
    if (v && truthy(v)) return ev->t;
    const char *msg = v ? directive_text(ev, form, 2, env) : "";
    if (!msg) return NULL;
    int quiet = ev->quiet;
    ev->quiet = 0;
    if (!v) {
        code_error(ev, EVAL_E_ASSERT, form, "c-t-assert: `%s` is not known at compile time",
                   show(ev, test));
        if (why)
            diag_note(&ev->c->diag, why_at && srcloc_file(why_at->loc) ? why_at->loc : test->loc, "%s", why);
    } else {
        code_error(ev, EVAL_E_ASSERT, form, "c-t-assert failed: `%s`%s%s", show(ev, test),
                   form->nkids > 2 ? ": " : "", msg);
    }
    ev->quiet = quiet;
    return NULL;
}

/* ------------------------------------------------------------------------
 * Builtin functions: (line), (file)
 * ---------------------------------------------------------------------- */

SrcLoc eval_user_site(const Node *n) {
    const Expansion *e = n->origin;
    if (!e) return n->loc;
    while (e->parent) e = e->parent;
    return e->call;
}

/* The user's call site: inside a macro body the outermost call of the
 * macro, elsewhere the form itself. */
static SrcLoc site_of(Eval *ev, const Node *form) {
    if (ev->macro && ev->call) return eval_user_site(ev->call);
    if (srcloc_file(form->loc) || !ev->call) return eval_user_site(form);
    return eval_user_site(ev->call);
}

/* (line) - line number of the user's call site */
static Node *bi_line(Eval *ev, Node *form, Node **a, int n) {
    (void)a, (void)n;
    return mk_int(ev, site_of(ev, form).line);
}

/* (file) - file name of the user's call site */
static Node *bi_file(Eval *ev, Node *form, Node **a, int n) {
    (void)a, (void)n;
    SrcLoc l = site_of(ev, form);
    const char *f = srcloc_file(l) && srcloc_file(l)->name ? srcloc_file(l)->name : "";
    return mk_string(ev, f, (int)strlen(f));
}

/* ------------------------------------------------------------------------
 * Builtin functions: macroexpand-1, macroexpand (mostly for c-t-output)
 * ---------------------------------------------------------------------- */

/* The macro FORM calls, or NULL.  FORM is program code, so `when` is the
 * prelude macro here, not the compile-time special form. */
static const Macro *macro_called(Eval *ev, const Node *form) {
    if (form->kind != N_LIST || form->nkids == 0 || !is_sym(form->kids[0]) || form->kids[0]->ann)
        return NULL;
    return eval_find_macro(ev, form->kids[0]->key);
}

/* (macroexpand-1 FORM) - FORM expanded once when it is a macro call, else
 * FORM */
static Node *bi_macroexpand_1(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    const Macro *m = macro_called(ev, a[0]);
    return m ? run_macro(ev, m, a[0], ev->exp) : a[0];
}

/* (macroexpand FORM) - expanded until its head is no macro (only the head:
 * subforms are left as they are) */
static Node *bi_macroexpand(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    Node *v = a[0];
    const Macro *m;
    for (long i = 0; (m = macro_called(ev, v)); i++) {
        if (i >= ev->max_expansion_depth)
            return eval_error(ev, form, "`macroexpand`: more than %ld nested expansions",
                              ev->max_expansion_depth);
        if (!(v = run_macro(ev, m, v, ev->exp))) return NULL;
    }
    return v;
}

/* ------------------------------------------------------------------------
 * Types
 *   Types are syntax in the compile-time language: `float`, an alias
 *   name, (vector-type float :global).  The evaluator builds type
 *   expressions (binop-type, predicate-type, vector-type) but never reads
 *   one: every question about a type - type-of a run-time variable,
 *   is-type-of, element-type, the is-XXXX? predicates, has-overload? ... -
 *   goes to the host (the checker, types/ctquery.c), which reads type
 *   syntax with the one reader the whole compiler uses.  Without a host
 *   (unit tests of this module) they are unknown functions.
 * ---------------------------------------------------------------------- */

/* Numbers and strings are values, never types. */
static int want_type(Eval *ev, Node *form, const Node *v, const char *fn) {
    if (v->kind != N_INT && v->kind != N_FLOAT && v->kind != N_STRING) return 1;
    eval_error(ev, form, "`%s` expects a type, got the value `%s`", fn, show(ev, v));
    return 0;
}

/* (is-address-space? V) - :global :local :constant :private (a value
 * predicate on keywords, no type involved) */
static Node *bi_is_address_space(Eval *ev, Node *form, Node **a, int n) {
    (void)form, (void)n;
    const Node *v = a[0];
    int ok = v->kind == N_KEYWORD && (syn_streq(v->key, "global") || syn_streq(v->key, "local") ||
                                      syn_streq(v->key, "constant") || syn_streq(v->key, "private"));
    return mk_bool(ev, ok);
}

/* (vector-type ARG...) - the type expression itself, with its arguments
 * evaluated: (vector-type float :global) */
static Node *bi_vector_type(Eval *ev, Node *form, Node **a, int n) {
    (void)form;
    Node **k = arena_alloc(&ev->c->arena, sizeof *k * (size_t)(n + 1));
    if (!k) return oom_error(ev);
    k[0] = syn_symbol(&ev->c->arena, no_loc, "vector-type");
    if (n) memcpy(k + 1, a, sizeof *k * (size_t)n);
    return mk_list(ev, k, n + 1);
}

/* The signature #(T... => R). */
static Node *signature(Eval *ev, Node **params, int np, Node *ret) {
    Node *k[4];
    for (int i = 0; i < np; i++) k[i] = params[i];
    k[np] = syn_symbol(&ev->c->arena, no_loc, "=>");
    k[np + 1] = ret;
    Node *v = syn_list(&ev->c->arena, no_loc, k, np + 2);
    if (ev->c->arena.exhausted) return oom_error(ev);
    v->kind = N_VECLIT;
    return v;
}

/* (binop-type T) - spec "binop-type": #(T T => T) */
static Node *bi_binop_type(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    if (!want_type(ev, form, a[0], "binop-type")) return NULL;
    Node *p[2] = {a[0], a[0]};
    return signature(ev, p, 2, a[0]);
}

/* (predicate-type T) - spec "filter": #(T => bool) */
static Node *bi_predicate_type(Eval *ev, Node *form, Node **a, int n) {
    (void)n;
    if (!want_type(ev, form, a[0], "predicate-type")) return NULL;
    Node *b = syn_symbol(&ev->c->arena, no_loc, "bool");
    return signature(ev, a, 1, b);
}

/* The inner list of #'(...) / (function (...)), or NULL. */
static Node *function_list(Node *v) {
    if (syn_is_form(v, "function") && v->nkids == 2 && v->kids[1]->kind == N_LIST &&
        !syn_is_form(v->kids[1], "lambda") && !syn_is_form(v->kids[1], "unquote") &&
        !syn_is_form(v->kids[1], "unquote-splicing") && !syn_is_form(v->kids[1], "quasiquote") &&
        !syn_is_form(v->kids[1], "quote"))
        return v->kids[1];
    return NULL;
}

/* The type queries the host answers (types/ctquery.c): builtins of the
 * compile-time language, so they cannot be redefined. */
static int is_host_query(const char *key) {
    static const char *const names[] = {
        "type-of", "is-type-of", "type-equal", "is-type-equal?", "element-type", "num-dims-of",
        "type-has-prop?", "is-substitutable-for?", "is-numeric?", "is-scalar?", "is-hardware-vector?",
        "is-integer?", "is-floating-point?", "is-signed?", "is-orderable?", "is-vector?", NULL};
    for (int i = 0; names[i]; i++)
        if (syn_streq(key, names[i])) return 1;
    return 0;
}

/* Ask the host; an unknown name is an error naming the query. */
static Node *host_query(Eval *ev, Node *form, const char *name, Node **a, int n) {
    Node *out = NULL;
    int r = ev->host_call ? (ev->host_calls++, ev->host_call)(ev, ev->host_ud, form, name, a, n, &out) : 0;
    if (r < 0) {
        ev->failed = 1;
        return NULL;
    }
    if (r > 0 && out) return out;
    return eval_error(ev, form, "`%s` needs the checker's type information, which is not available here", name);
}

/* The function argument of (QUERY #'f ...) as a designator (function NAME)
 * for the host: #'f as written, or a value that is one, a symbol, or a
 * builtin function object. */
static Node *function_arg(Eval *ev, Node *form, Node *arg, Binding *env, const char *fn) {
    Node *v = arg;
    if (!(syn_is_form(arg, "function") && arg->nkids == 2 && is_sym(arg->kids[1])) && !function_list(arg) &&
        !(v = eval(ev, arg, env)))
        return NULL;
    if ((syn_is_form(v, "function") && v->nkids == 2) || v->kind == N_VECLIT) return v;
    const char *name = NULL;
    Closure *cl = as_closure(v);
    if (cl && cl->prim) name = cl->prim->name;
    else if (is_sym(v) && !v->ann) name = v->name;
    if (!name) {
        code_error(ev, EVAL_E_EVAL, form, "`%s` expects a function name such as #'f, got `%s`", fn, show(ev, v));
        return NULL;
    }
    Node *k[2] = {syn_symbol(&ev->c->arena, arg->loc, "function"), syn_symbol(&ev->c->arena, arg->loc, name)};
    Node *d = syn_list(&ev->c->arena, arg->loc, k, 2);
    return ev->c->arena.exhausted ? oom_error(ev) : d;
}

/* (type-of X), (is-type-of X T), (element-type X): X names a run-time
 * value.  A symbol with no compile-time binding is passed as written - a
 * variable of the code the macro is called from, as in (c-t-output
 * (type-of n)) - anything else is evaluated (a macro's parameter gives the
 * syntax of its argument). */
static Node *sf_value_query(Eval *ev, Node *form, Binding *env) {
    const char *fn = form->kids[0]->key;
    int n = form->nkids - 1;
    int want = syn_streq(fn, "is-type-of") ? 2 : 1;
    if (!want_args(ev, form, want, want)) return NULL;
    Node *a[2];
    for (int i = 0; i < n; i++) {
        Node *x = form->kids[i + 1];
        if (i == 0 && is_sym(x) && !x->ann && !lookup(env, x->key) &&
            strcmp(x->key, "nil") && strcmp(x->key, "t") && strcmp(x->key, "true") && strcmp(x->key, "false"))
            a[i] = x;
        else if (!(a[i] = eval(ev, x, env)))
            return NULL;
    }
    return host_query(ev, form, fn, a, n);
}

/* A signature written in a macro or constraint body, #(T T => bool), with
 * the elements that are bound variables replaced by their values (T is
 * the type the constraint is asked about). */
static Node *bound_in_signature(Eval *ev, Node *sig, Binding *env) {
    Node *fl = function_list(sig), *l = fl ? fl : sig;
    Node *copy = NULL;
    for (int i = 0; i < l->nkids; i++) {
        Node *e = l->kids[i];
        Binding *b = is_sym(e) && !e->ann ? lookup(env, e->key) : NULL;
        if (!b) continue;
        if (!copy && !(copy = syn_copy(&ev->c->arena, l))) return oom_error(ev);
        copy->kids[i] = b->val;
    }
    if (!copy) return sig;
    if (!fl) return copy;
    Node *k[2] = {sig->kids[0], copy};
    Node *r = syn_list(&ev->c->arena, sig->loc, k, 2);
    return ev->c->arena.exhausted ? oom_error(ev) : r;
}

/* (%integer-variable-type X): the integer type of variable X where the
 * macro was called, or nil - also without a checker (dotimes). */
static Node *bi_int_var_type(Eval *ev, Node *form, Node **a, int n) {
    Node *out = NULL;
    int r = ev->host_call ? (ev->host_calls++, ev->host_call)(ev, ev->host_ud, form, "%integer-variable-type", a, n, &out) : 0;
    if (r < 0) {
        ev->failed = 1;
        return NULL;
    }
    return r > 0 && out ? out : ev->nil;
}

/* (has-overload? #'f SIG), (return-type-of #'f | SIG), (type-signature-of
 * #'f): special forms so #'f need not name a compile-time function; the
 * arguments go to the host as designators and signatures. */
static Node *sf_function_query(Eval *ev, Node *form, Binding *env) {
    const char *fn = form->kids[0]->key;
    int two = syn_streq(fn, "has-overload?");
    if (!want_args(ev, form, two ? 2 : 1, two ? 2 : 1)) return NULL;
    Node *a[2];
    if (!(a[0] = function_arg(ev, form, form->kids[1], env, fn))) return NULL;
    if (two) {
        Node *sig = form->kids[2];
        if (sig->kind == N_VECLIT || function_list(sig)) sig = bound_in_signature(ev, sig, env);
        else sig = eval(ev, sig, env);
        if (!(a[1] = sig)) return NULL;
    }
    return host_query(ev, form, fn, a, two ? 2 : 1);
}

/* (target-has :PROP [DEFAULT]) - t / nil; DEFAULT decides an optional
 * property */
static Node *bi_target_has(Eval *ev, Node *form, Node **a, int n) {
    if (a[0]->kind != N_KEYWORD)
        return eval_error(ev, form, "`target-has` expects a keyword property such as :fp64, got `%s`",
                          show(ev, a[0]));
    int has = target_property(a[0]->key);
    if (has == -2)
        return eval_error(ev, form, "unknown target property `:%s` in target-has: expected one of "
                          TARGET_PROPERTIES, a[0]->name);
    if (has >= 0) return mk_bool(ev, has);
    if (n > 1) return mk_bool(ev, truthy(a[1]));
    return eval_error(ev, form, "target-has :%s is not decided for target oclc (OpenCL C 1.2 "
                      "makes it optional); pass a default: (target-has :%s nil)", a[0]->name,
                      a[0]->name);
}

/* ------------------------------------------------------------------------
 * Quasiquote
 *   `X      (quasiquote X)         ,X   (unquote X)
 *   ,@X     (unquote-splicing X)   nesting levels as in Common Lisp
 * ---------------------------------------------------------------------- */

/* Which quasiquote operator form `x` is: (unquote X), (unquote-splicing
 * X), (quasiquote X) or none, its head's name compared once (issue 14:
 * three name tests per element of a template, the `unquote` ones
 * reaching `strcmp` against "unquote-splicing"). */
enum { QQ_NONE, QQ_UNQUOTE, QQ_SPLICE, QQ_QUASI };

static inline int qq_op(const Node *x) {
    if (x->kind != N_LIST || x->nkids != 2) return QQ_NONE;
    const char *h = syn_head(x);
    if (!h) return QQ_NONE;
    /* byte by byte: each test stops at the name's end */
    if (h[0] == 'u' && h[1] == 'n' && h[2] == 'q' && h[3] == 'u' && h[4] == 'o' && h[5] == 't' && h[6] == 'e')
        return !h[7] ? QQ_UNQUOTE : !strcmp(h + 7, "-splicing") ? QQ_SPLICE : QQ_NONE;
    if (h[0] == 'q' && h[1] == 'u' && h[2] == 'a' && !strcmp(h, "quasiquote")) return QQ_QUASI;
    return QQ_NONE;
}

static Node *qq_wrap(Eval *ev, Node *orig, Node *inner) {
    if (inner == orig->kids[1]) return orig;
    Node *k[2] = {orig->kids[0], inner};
    Node *l = syn_list(&ev->c->arena, orig->loc, k, 2);
    return ev->c->arena.exhausted ? oom_error(ev) : l;
}

/* ,SYM:TYPE where SYM holds a plain symbol gives that symbol with the
 * annotation TYPE. */
static Node *qq_unquote(Eval *ev, Node *e, Binding *env) {
    Node *v = eval_operand(ev, e, env);
    if (!v || !(e->kind == N_SYMBOL && e->ann)) return v;
    if (!is_sym(v) || is_nil(v))
        return eval_error(ev, e, "`,%s`: the value `%s` is not a symbol, so it cannot take a type "
                                 "annotation",
                          show(ev, e), show(ev, v));
    Node *s = syn_copy(&ev->c->arena, v);
    s->ann = e->ann;
    return s;
}

static Node *qq_list(Eval *ev, Node *x, int level, Binding *env);

/* (unquote X) or (quasiquote X) of kind `op` (qq_op) in a template. */
static Node *qq_form(Eval *ev, Node *x, int op, int level, Binding *env) {
    if (op == QQ_UNQUOTE) {
        if (level == 1) return qq_unquote(ev, x->kids[1], env);
        Node *in = qq(ev, x->kids[1], level - 1, env);
        return in ? qq_wrap(ev, x, in) : NULL;
    }
    Node *in = qq(ev, x->kids[1], level + 1, env);
    return in ? qq_wrap(ev, x, in) : NULL;
}

static Node *qq(Eval *ev, Node *x, int level, Binding *env) {
    if (ev->failed) return NULL;
    if (x->kind != N_LIST && x->kind != N_VECLIT && x->kind != N_HWVEC) return x;
    if (x->kind == N_LIST) {
        int op = qq_op(x);
        if (op == QQ_UNQUOTE || op == QQ_QUASI) return qq_form(ev, x, op, level, env);
        if (op == QQ_SPLICE && level == 1) return eval_error(ev, x, "`,@` must be inside a list");
    }
    return qq_list(ev, x, level, env);
}

/* A list (or vector literal) of a template that is no quasiquote
 * operator form: its elements, each through qq (atoms stand for
 * themselves: not called for), ,@ spliced. */
static Node *qq_list(Eval *ev, Node *x, int level, Binding *env) {
    if (!charge(ev, 1)) return NULL;
    if (++ev->depth > ev->max_recursion) {
        ev->depth--;
        return limit_error(ev, EVAL_E_RECURSION, "recursion depth", ev->max_recursion);
    }
    Node *small[8]; /* most templates' lists are short: no buffer in the arena */
    NodeVec out = {small, 0, 8};
    int changed = 0;
    for (int i = 0; i < x->nkids && !ev->failed; i++) {
        Node *k = x->kids[i], *v;
        if (k->kind != N_LIST && k->kind != N_VECLIT && k->kind != N_HWVEC) {
            if (!vec_push(ev, &out, k)) oom_error(ev);
            continue;
        }
        int op = k->kind == N_LIST ? qq_op(k) : QQ_NONE;
        if (op == QQ_SPLICE && level == 1) {
            changed = 1;
            v = eval_operand(ev, k->kids[1], env);
            if (!v) break;
            if (!is_listish(v)) {
                eval_error(ev, k, "`,@%s` must produce a list, got `%s`", show(ev, k->kids[1]),
                           show(ev, v));
                break;
            }
            if (!charge(ev, list_len(v))) break;
            for (int j = 0; j < list_len(v); j++)
                if (!vec_push(ev, &out, v->kids[j])) oom_error(ev);
            continue;
        }
        if (op == QQ_SPLICE) {
            Node *in = qq(ev, k->kids[1], level - 1, env);
            v = in ? qq_wrap(ev, k, in) : NULL;
        } else if (op == QQ_NONE) {
            v = qq_list(ev, k, level, env);
        } else {
            v = qq_form(ev, k, op, level, env);
        }
        if (!v) break;
        if (v != k) changed = 1;
        if (!vec_push(ev, &out, v)) oom_error(ev);
    }
    ev->depth--;
    if (ev->failed) return NULL;
    if (!changed) return x;
    Node *l = syn_list(&ev->c->arena, x->loc, out.v, out.n);
    if (ev->c->arena.exhausted) return oom_error(ev);
    l->kind = x->kind;
    return l;
}

/* ------------------------------------------------------------------------
 * Template macros (eval.h EvalTplOp, eval_template_begin)
 *   (defmacro NAME (REQ... [&rest|&body REST]) `TEMPLATE)
 * whose TEMPLATE's unquotes are ,REQ and ,@REST only.  Issue 14: `when`
 * ran about 12 evaluation steps (1.2 K instructions) and its copy-out
 * 1 K instructions for a four-node result; the expander now builds the
 * result from these instructions, which say what the run would make.
 * ---------------------------------------------------------------------- */

typedef struct TplBuild {
    const EvalLambdaList *ll;
    Arena *a;
    EvalTplOp *ops;
    int n, cap;
    long steps;   /* the run's steps: qq_list's (one per list it walks)
                     and each unquote's evaluation of its symbol */
    int depth;    /* the deepest list of the template (the template 1) */
    int nsplice;
    int nodes;
    int height;   /* the result's deepest level (its node 0) */
    long bytes;   /* the result's bytes (EvalTplOp) less the splices' */
    int closure;  /* a closure in the template (never from the reader) */
} TplBuild;

/* The parameter a symbol of an unquote names, as the run's environment
 * would find it (the last bound first: REST, then REQ from the last): a
 * required parameter's index, -2 for REST, -1 for none (or a symbol the
 * evaluator would treat otherwise: annotated, a closure). */
static int tpl_param(const EvalLambdaList *ll, const Node *s) {
    if (!is_sym(s) || s->ann) return -1;
    if (ll->rest && key_eq(ll->rest->key, s->key)) return -2;
    for (int k = ll->nreq - 1; k >= 0; k--)
        if (key_eq(ll->req[k].var->key, s->key)) return k;
    return -1;
}

static int is_container(const Node *n) {
    return n->kind == N_LIST || n->kind == N_VECLIT || n->kind == N_HWVEC;
}

/* Does qq_list give the list `x` back as it is (no quasiquote operator
 * form below it)? */
static int tpl_static(const Node *x) {
    for (int i = 0; i < x->nkids; i++) {
        const Node *k = x->kids[i];
        if (!is_container(k)) continue;
        if ((k->kind == N_LIST && qq_op(k) != QQ_NONE) || !tpl_static(k)) return 0;
    }
    return 1;
}

/* Nodes of `x` (with annotations), each copied into the result. */
static int tpl_size(const Node *x) {
    int n = 1;
    if (x->kind == N_SYMBOL && x->ann) n += tpl_size(x->ann);
    if (is_container(x))
        for (int i = 0; i < x->nkids; i++) n += tpl_size(x->kids[i]);
    return n;
}

/* The copy of `x` at level `level` of the result: its bytes and depth
 * (take_expansion's layout: a node, its annotation, its kids array, its
 * kids). */
static void tpl_measure(TplBuild *b, const Node *x, int level) {
    if (b->height < level) b->height = level;
    if (eval_is_function(x)) b->closure = 1;
    b->bytes += (long)sizeof(Node);
    if (x->kind == N_SYMBOL && x->ann) tpl_measure(b, x->ann, level + 1);
    if (is_container(x)) {
        b->bytes += (long)sizeof(Node *) * x->nkids;
        for (int i = 0; i < x->nkids; i++) tpl_measure(b, x->kids[i], level + 1);
    }
}

/* Count what qq_list does with the unchanged `x` at nesting `depth`
 * (annotations are copied, not walked). */
static void tpl_count(TplBuild *b, const Node *x, int depth) {
    if (!is_container(x)) {
        b->nodes += tpl_size(x);
        return;
    }
    b->nodes++;
    if (b->depth < depth) b->depth = depth;
    b->steps++;
    for (int i = 0; i < x->nkids; i++) {
        const Node *k = x->kids[i];
        if (is_container(k)) tpl_count(b, k, depth + 1);
        else tpl_count(b, k, depth);
    }
}

static int tpl_push(TplBuild *b, const Node *n, int kind, int arg) {
    if (!arena_reserve(b->a, (void **)&b->ops, b->n, 1, &b->cap, sizeof *b->ops)) return -1;
    EvalTplOp *o = &b->ops[b->n];
    o->n = n;
    o->kind = kind;
    o->arg = arg;
    o->span = 1;
    o->fixed = o->nsplice = 0;
    return b->n++;
}

/* The instructions of the template list `x` (no quasiquote operator form
 * itself) at nesting `depth`: 1, or 0 when the macro is no template
 * macro. */
static int tpl_build(TplBuild *b, const Node *x, int depth) {
    if (tpl_static(x)) {
        if (tpl_push(b, x, EVAL_TPL_COPY, 0) < 0) return 0;
        tpl_count(b, x, depth);
        tpl_measure(b, x, depth - 1);
        return 1;
    }
    if (x->kind != N_LIST) return 0;
    int at = tpl_push(b, x, EVAL_TPL_LIST, 0);
    if (at < 0) return 0;
    b->steps++;
    b->nodes++;
    if (b->depth < depth) b->depth = depth;
    if (b->height < depth - 1) b->height = depth - 1;
    b->bytes += (long)sizeof(Node);
    int fixed = 0, nsplice = 0;
    for (int i = 0; i < x->nkids; i++) {
        const Node *k = x->kids[i];
        int op = k->kind == N_LIST ? qq_op(k) : QQ_NONE;
        if (!is_container(k)) {
            if (tpl_push(b, k, EVAL_TPL_COPY, 0) < 0) return 0;
            tpl_count(b, k, depth);
            tpl_measure(b, k, depth);
            fixed++;
        } else if (op == QQ_UNQUOTE) {
            int p = tpl_param(b->ll, k->kids[1]);
            if (p < 0 || tpl_push(b, k, EVAL_TPL_ARG, p) < 0) return 0;
            b->steps++;
            fixed++;
        } else if (op == QQ_SPLICE) {
            if (tpl_param(b->ll, k->kids[1]) != -2 || tpl_push(b, k, EVAL_TPL_SPLICE, b->ll->nreq) < 0)
                return 0;
            b->steps++;
            b->nsplice++;
            nsplice++;
        } else if (op == QQ_NONE) {
            if (!tpl_build(b, k, depth + 1)) return 0;
            fixed++;
        } else {
            return 0; /* a nested quasiquote */
        }
    }
    b->ops[at].span = b->n - at;
    b->ops[at].fixed = fixed;
    b->ops[at].nsplice = nsplice;
    b->bytes += (long)sizeof(Node *) * fixed;
    return 1;
}

/* Fill m's template fields (tpl_state 1), or say it is none (-1); left
 * for a later call (0) when the arena's ready window might not hold the
 * instructions (their memory must not be what reaches the cap: at most
 * one per template node, in arrays grown by doubling). */
static void tpl_classify(Eval *ev, Macro *m) {
    m->tpl_state = -1;
    const EvalLambdaList *ll = m->params;
    if (ll->whole || ll->nopt || ll->has_key || ll->nkey || ll->naux) return;
    for (int k = 0; k < ll->nreq; k++)
        if (!ll->req[k].var) return;
    if (m->nbody != 1) return;
    const Node *q = m->body[0];
    if (q->kind != N_LIST || q->nkids != 2 || !is_sym(q->kids[0]) || !syn_streq(q->kids[0]->key, "quasiquote"))
        return;
    const Node *t = q->kids[1];
    if (t->kind != N_LIST || qq_op(t) != QQ_NONE) return;
    Arena *a = &ev->c->arena;
    if (a->exhausted || !a->cur || a->end < a->cur ||
        (size_t)(a->end - a->cur) < 4096 + 4 * sizeof(EvalTplOp) * (size_t)tpl_size(t)) {
        m->tpl_state = 0;
        return;
    }
    TplBuild b = {ll, &ev->c->arena, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    if (!tpl_build(&b, t, 1) || b.closure) return;
    m->tpl = b.ops;
    m->tpl_steps = 1 + b.steps; /* 1: evaluating the (quasiquote ...) form */
    m->tpl_nsplice = b.nsplice;
    m->tpl_depth = 1 + b.depth;
    m->tpl_nodes = b.nodes;
    m->tpl_height = b.height;
    m->tpl_bytes = b.bytes;
    m->tpl_state = 1;
}

const EvalTplOp *eval_template_begin(Eval *ev, const Macro *m, const Node *call, int *nrest_out) {
    if (m->tpl_state < 0 || !m->code_noted) return NULL; /* the first run notes its nodes: a write */
    if (!m->tpl_state) {
        tpl_classify(ev, (Macro *)(uintptr_t)m);
        if (m->tpl_state <= 0) return NULL;
    }
    const EvalLambdaList *ll = m->params;
    long n = call->nkids - 1;
    if (n < ll->nreq || (n > ll->nreq && !ll->rest)) return NULL; /* the run reports it */
    long nrest = n - ll->nreq;
    /* a splice charges 1 (its symbol, in tpl_steps) and then REST's length */
    long steps = m->tpl_steps + m->tpl_nsplice * nrest;
    if (steps > ev->max_steps || ev->steps_used > ev->total_steps - steps || m->tpl_depth > ev->max_recursion)
        return NULL;
    /* the run's memory (bindings, REST's list, the new lists and their
       growing element buffers: each instruction and each spliced element
       at most a node, a kids slot and its share of the growth) well
       within the arena's ready window: then neither its allocations nor
       the result's meet the cap or a new chunk */
    Arena *a = &ev->c->arena;
    size_t need = 8192 + 256 * ((size_t)m->tpl_nodes + (size_t)m->tpl[0].span + (size_t)ll->nreq +
                                (size_t)n * (size_t)(1 + m->tpl_nsplice));
    if (a->exhausted || !a->cur || a->end < a->cur || (size_t)(a->end - a->cur) < need) return NULL;
    /* as begin(), the run and eval_macroexpand would leave it */
    ev->steps = steps;
    ev->steps_used += steps;
    ev->depth = 0;
    ev->failed = 0;
    ev->macro = NULL;
    ev->call = NULL;
    ev->exp = NULL;
    *nrest_out = (int)nrest;
    return m->tpl;
}

/* ------------------------------------------------------------------------
 * The table of special forms and builtins
 * ---------------------------------------------------------------------- */

#define SF(name, f) {name, f, NULL, 0, -1, NULL}
#define FN(name, f, min, max) {name, NULL, f, min, max, "#<function " name ">"}

static const Prim prim_table[] = {
    SF("quote", sf_quote), SF("quasiquote", sf_quasiquote), SF("unquote", sf_unquote),
    SF("unquote-splicing", sf_unquote), SF("function", sf_function), SF("if", sf_if),
    SF("when", sf_when), SF("unless", sf_unless), SF("cond", sf_cond), SF("case", sf_case),
    SF("and", sf_and), SF("or", sf_or), SF("progn", sf_progn), SF("let", sf_let),
    SF("let*", sf_let_star), SF("setq", sf_setq), SF("set!", sf_setq), SF("setf", sf_setq),
    SF("incf", sf_incf), SF("decf", sf_incf), SF("inc!", sf_incf), SF("dec!", sf_incf),
    SF("push", sf_push), SF("pop", sf_pop), SF("dolist", sf_dolist), SF("dotimes", sf_dotimes),
    SF("lambda", sf_lambda), SF("declare", sf_declare), SF("c-t-output", sf_ct_output),
    SF("c-t-assert", sf_ct_assert), SF("with-struct-accessors", sf_with_struct_accessors),

    FN("+", bi_add, 0, -1), FN("-", bi_sub, 1, -1), FN("*", bi_mul, 0, -1),
    FN("/", bi_div, 1, -1), FN("1+", bi_inc, 1, 1), FN("1-", bi_dec, 1, 1),
    FN("mod", bi_mod, 2, 2), FN("rem", bi_rem, 2, 2), FN("floor", bi_floor, 1, 2),
    FN("ceiling", bi_ceiling, 1, 2), FN("=", bi_num_eq, 1, -1), FN("/=", bi_num_ne, 1, -1),
    FN("<", bi_lt, 1, -1), FN(">", bi_gt, 1, -1), FN("<=", bi_le, 1, -1), FN(">=", bi_ge, 1, -1),
    FN("min", bi_min, 1, -1), FN("max", bi_max, 1, -1), FN("abs", bi_abs, 1, 1),
    FN("ash", bi_ash, 2, 2), FN("logand", bi_logand, 0, -1), FN("logior", bi_logior, 0, -1),
    FN("logxor", bi_logxor, 0, -1), FN("lognot", bi_lognot, 1, 1), FN("expt", bi_expt, 2, 2),
    FN("zerop", bi_zerop, 1, 1), FN("plusp", bi_plusp, 1, 1), FN("minusp", bi_minusp, 1, 1),
    FN("evenp", bi_evenp, 1, 1), FN("oddp", bi_oddp, 1, 1),

    FN("not", bi_not, 1, 1), FN("null", bi_not, 1, 1), FN("listp", bi_listp, 1, 1),
    FN("consp", bi_consp, 1, 1), FN("atom", bi_atom, 1, 1), FN("symbolp", bi_symbolp, 1, 1),
    FN("keywordp", bi_keywordp, 1, 1), FN("numberp", bi_numberp, 1, 1),
    FN("integerp", bi_integerp, 1, 1), FN("floatp", bi_floatp, 1, 1),
    FN("stringp", bi_stringp, 1, 1), FN("functionp", bi_functionp, 1, 1),
    FN("vectorp", bi_vectorp, 1, 1), FN("eq", bi_eql, 2, 2), FN("eql", bi_eql, 2, 2),
    FN("equal", bi_equal, 2, 2),

    FN("list", bi_list, 0, -1), FN("list*", bi_list_star, 1, -1), FN("cons", bi_cons, 2, 2),
    FN("car", bi_car, 1, 1), FN("first", bi_car, 1, 1), FN("cdr", bi_cdr, 1, 1),
    FN("rest", bi_cdr, 1, 1), FN("second", bi_second, 1, 1), FN("third", bi_third, 1, 1),
    FN("fourth", bi_fourth, 1, 1), FN("nth", bi_nth, 2, 2), FN("nthcdr", bi_nthcdr, 2, 2),
    FN("last", bi_last, 1, 2), FN("butlast", bi_butlast, 1, 2), FN("append", bi_append, 0, -1),
    FN("reverse", bi_reverse, 1, 1), FN("length", bi_length, 1, 1),
    FN("subseq", bi_subseq, 2, 3), FN("member", bi_member, 2, 2), FN("assoc", bi_assoc, 2, 2),
    FN("identity", bi_identity, 1, 1), FN("funcall", bi_funcall, 1, -1),
    FN("apply", bi_apply, 2, -1), FN("mapcar", bi_mapcar, 2, -1), FN("every", bi_every, 2, -1),
    FN("some", bi_some, 2, -1),

    FN("str", bi_str, 0, -1), FN("concat", bi_concat, 0, -1),
    FN("string-concat", bi_concat, 0, -1), FN("format", bi_format, 2, -1),
    FN("symbol-name", bi_symbol_name, 1, 1), FN("intern", bi_intern, 1, 1),
    FN("make-symbol", bi_intern, 1, 1), FN("make-keyword", bi_make_keyword, 1, 1),
    FN("gensym", bi_gensym, 0, 1), FN("string=", bi_string_eq, 2, 2),
    FN("string-upcase", bi_upcase, 1, 1), FN("string-downcase", bi_downcase, 1, 1),
    FN("bare-symbol", bi_bare_symbol, 1, 1),
    FN("symbol-annotation", bi_symbol_annotation, 1, 1),
    FN("annotate-symbol", bi_annotate_symbol, 2, 2),

    FN("error", bi_error, 0, -1), FN("%macro-error", bi_macro_error, 1, -1),

    FN("line", bi_line, 0, 0), FN("file", bi_file, 0, 0),
    FN("macroexpand-1", bi_macroexpand_1, 1, 1), FN("macroexpand", bi_macroexpand, 1, 1),
    FN("is-address-space?", bi_is_address_space, 1, 1),
    FN("vector-type", bi_vector_type, 0, -1), FN("binop-type", bi_binop_type, 1, 1),
    FN("predicate-type", bi_predicate_type, 1, 1), FN("target-has", bi_target_has, 1, 2),
    SF("has-overload?", sf_function_query), SF("return-type-of", sf_function_query),
    SF("type-signature-of", sf_function_query), SF("type-of", sf_value_query),
    SF("is-type-of", sf_value_query), SF("element-type", sf_value_query),
    FN("%integer-variable-type", bi_int_var_type, 1, 1),
};

/* Core forms (docs/core-forms.md) and the forms the expander itself
 * handles: a macro may not take these names. */
static const char *const reserved_names[] = {
    "def-kernel", "def-function", "def-grid-function", "def-type", "def-const",
    "def-constant", "def-parameter", "declaim", "let", "let*", "progn", "declare",
    "set!", "inc!", "dec!", "if", "and", "or", "not", "select-if", "return",
    "multiple-value-bind", "%loop", "%no-barrier", "%grid-body", "%extent", "%pow2-below",
    "%uniform", "%uniform*", "%require-global-size", "quote", "function", "defmacro",
    "quasiquote", "unquote", "unquote-splicing", "%defun", "def-constraint", "c-t-output",
    "c-t-assert", "line", "file",
};

/* ------------------------------------------------------------------------
 * Public API
 * ---------------------------------------------------------------------- */

static long opt_or(long v, long dflt) {
    return v > 0 ? v : dflt;
}

void eval_init(Eval *ev, Crisp *c) {
    memset(ev, 0, sizeof *ev);
    ev->c = c;
    const CrispOptions *o = c->opt;
    ev->max_steps = opt_or(o ? o->max_eval_steps : 0, EVAL_DEFAULT_MAX_STEPS);
    ev->total_steps = ev->max_steps > EVAL_DEFAULT_TOTAL_STEPS ? ev->max_steps : EVAL_DEFAULT_TOTAL_STEPS;
    ev->max_expansion_depth = opt_or(o ? o->max_expansion_depth : 0, EVAL_DEFAULT_MAX_EXPANSION_DEPTH);
    ev->max_recursion = EVAL_DEFAULT_MAX_RECURSION;
    ev->max_output_nodes = EVAL_DEFAULT_MAX_OUTPUT_NODES;
    ev->total_output_nodes = EVAL_DEFAULT_TOTAL_OUTPUT_NODES;
    ev->max_nesting = EVAL_DEFAULT_MAX_NESTING;
    ev->heads = arena_alloc(&c->arena, sizeof *ev->heads * EVAL_HEADS);
    ev->nil = syn_symbol(&c->arena, no_loc, "nil");
    ev->t = syn_symbol(&c->arena, no_loc, "t");
    for (size_t i = 0; i < sizeof prim_table / sizeof prim_table[0]; i++)
        map_put(&c->arena, &ev->prims, prim_table[i].name, &prim_table[i]);
}

int eval_is_special_form(const Eval *ev, const char *key) {
    const Prim *p = map_get(&ev->prims, key);
    return p && p->special;
}

void eval_each_macro(const Eval *ev, void (*fn)(void *ud, const char *name), void *ud) {
    for (int i = 0; i < ev->macros.cap; i++)
        if (ev->macros.ents[i].key) fn(ud, ev->macros.ents[i].key);
}

/* The bit of macro_prefixes for `key`: a hash of its first three bytes
 * (fewer when it is shorter). */
static unsigned macro_prefix_bit(const char *key) {
    unsigned h = (unsigned char)key[0];
    if (key[0]) {
        h = h * 31 + (unsigned char)key[1];
        if (key[1]) h = h * 31 + (unsigned char)key[2];
    }
    return h & 4095;
}

/* The checker asks about every form's head, mostly names that are no
 * macro's: those whose first bytes begin no macro's name are answered
 * without hashing the name (issue 14). */
const Macro *eval_find_macro(const Eval *ev, const char *key) {
    unsigned b = macro_prefix_bit(key);
    if (!(ev->macro_prefixes[b >> 6] >> (b & 63) & 1)) return NULL;
    return map_get(&ev->macros, key);
}

void eval_define_constant(Eval *ev, const char *key, Node *value) {
    ev->writes++;
    map_put(&ev->c->arena, &ev->consts, key, value);
}

/* The state of one entry into the evaluator: the macro being expanded
 * and its call site (for messages), fresh limits, no error yet. */
static void begin(Eval *ev, const char *macro, const Node *call, const Expansion *exp) {
    ev->macro = macro;
    ev->call = call;
    ev->exp = exp;
    ev->steps = 0;
    ev->depth = 0;
    ev->failed = 0;
}

int eval_define_macro(Eval *ev, const Node *form, int from_prelude) {
    begin(ev, NULL, NULL, NULL);
    if (form->nkids < 3)
        return !code_error(ev, EVAL_E_DEFMACRO, form,
                           "`defmacro` expects (defmacro NAME LAMBDA-LIST [DOCSTRING] BODY...)");
    Node *name = form->kids[1];
    if (!is_sym(name) || name->ann || is_nil(name) || syn_streq(name->key, "t"))
        return !code_error(ev, EVAL_E_DEFMACRO, name, "invalid macro name `%s`", show(ev, name));
    for (size_t i = 0; i < sizeof reserved_names / sizeof reserved_names[0]; i++)
        if (syn_streq(name->key, reserved_names[i]))
            return !code_error(ev, EVAL_E_DEFMACRO, name,
                               "cannot define macro `%s`: it is a core form", name->name);
    EvalLambdaList *ll = ll_parse(ev, form->kids[2], 0);
    if (!ll) return 0;
    Macro *m = arena_alloc(&ev->c->arena, sizeof *m);
    if (!m) return !oom_error(ev);
    m->name = name->name;
    m->key = name->key;
    m->form = form;
    m->params = ll;
    m->body = form->kids + 3;
    m->nbody = form->nkids - 3;
    m->from_prelude = from_prelude;
    m->seq = ev->seq;
    m->prev = eval_find_macro(ev, m->key);
    if (m->nbody > 1 && m->body[0]->kind == N_STRING) {
        m->doc = m->body[0]->name;
        m->body++;
        m->nbody--;
    }
    ev->writes++;
    if (!map_put(&ev->c->arena, &ev->macros, m->key, m)) return !oom_error(ev);
    unsigned b = macro_prefix_bit(m->key);
    ev->macro_prefixes[b >> 6] |= (uint64_t)1 << (b & 63);
    return 1;
}

/* %defun and def-constraint (`what` names the form in messages; `ll` is
 * the parsed lambda list, or NULL to parse form->kids[2]). */
static int define_function(Eval *ev, const Node *form, const char *what, EvalLambdaList *ll) {
    Node *name = form->kids[1];
    if (!is_sym(name) || name->ann || is_nil(name) || syn_streq(name->key, "t"))
        return !code_error(ev, EVAL_E_DEFMACRO, name, "invalid %s name `%s`", what, show(ev, name));
    if (map_get(&ev->prims, name->key) || is_host_query(name->key))
        return !code_error(ev, EVAL_E_DEFMACRO, name,
                           "cannot define `%s`: it is a builtin of the compile-time language",
                           name->name);
    if (!ll && !(ll = ll_parse(ev, form->kids[2], 0))) return 0;
    Closure *cl = arena_alloc(&ev->c->arena, sizeof *cl);
    if (!cl) return !oom_error(ev);
    cl->name = name->name;
    cl->form = form;
    cl->params = ll;
    cl->body = form->kids + 3;
    cl->nbody = form->nkids - 3;
    if (cl->nbody > 1 && cl->body[0]->kind == N_STRING) {
        cl->body++;
        cl->nbody--;
    }
    Node *f = mk_closure(ev, cl);
    ev->writes++;
    if (!f || !map_put(&ev->c->arena, &ev->funcs, name->key, f)) return !oom_error(ev);
    return 1;
}

int eval_define_function(Eval *ev, const Node *form) {
    begin(ev, NULL, NULL, NULL);
    if (form->nkids < 3)
        return !code_error(ev, EVAL_E_DEFMACRO, form,
                           "`%%defun` expects (%%defun NAME LAMBDA-LIST [DOCSTRING] BODY...)");
    return define_function(ev, form, "function", NULL);
}

int eval_define_constraint(Eval *ev, const Node *form) {
    begin(ev, NULL, NULL, NULL);
    if (form->nkids < 4)
        return !code_error(ev, EVAL_E_DEFMACRO, form,
                           "`def-constraint` expects (def-constraint NAME (T) [DOCSTRING] BODY...)");
    const Node *ps = form->kids[2];
    if (ps->kind != N_LIST || ps->nkids != 1 || !is_sym(ps->kids[0]) || ps->kids[0]->ann ||
        is_ll_keyword(ps->kids[0]) || is_nil(ps->kids[0]))
        return !code_error(ev, EVAL_E_DEFMACRO, ps,
                           "a constraint takes exactly one type parameter, as in (def-constraint "
                           "NAME (T) BODY...), got `%s`",
                           show(ev, ps));
    /* The parameter is conventionally T, which a lambda list rejects (it
       is the true value): bind it directly; in the body T is the type. */
    EvalLambdaList *ll = arena_alloc(&ev->c->arena, sizeof *ll);
    LLParam *p = arena_alloc(&ev->c->arena, sizeof *p);
    if (!ll || !p) return !oom_error(ev);
    memset(p, 0, sizeof *p);
    p->var = ps->kids[0];
    ll->src = ps;
    ll->req = p;
    ll->nreq = 1;
    return define_function(ev, form, "constraint", ll);
}

int eval_has_function(const Eval *ev, const char *key) { return map_get(&ev->funcs, key) != NULL; }

Node *eval_macroexpand(Eval *ev, const Macro *m, const Node *call, const Expansion *exp) {
    begin(ev, m->name, call, exp);
    Node *r = run_macro(ev, m, (Node *)(uintptr_t)call, call->origin);
    if (ev->failed) r = NULL;
    ev->macro = NULL;
    ev->call = NULL;
    ev->exp = NULL;
    return r;
}

int eval_directive(Eval *ev, const Node *form) {
    begin(ev, NULL, form, NULL);
    Node *r = eval(ev, (Node *)(uintptr_t)form, NULL);
    ev->call = NULL;
    return r && !ev->failed;
}

Node *eval_form(Eval *ev, const Node *form) {
    begin(ev, NULL, NULL, NULL);
    Node *r = eval(ev, (Node *)(uintptr_t)form, NULL);
    return ev->failed ? NULL : r;
}
