/* expand.c - the macro expander (expand.h).
 *
 * The expander knows the program's shape only as far as a top-level form
 * goes: it expands macros in head position, registers defmacros and runs
 * compile-time directives.  Everything below the top level is expanded on
 * demand, one call at a time, when the checker reaches it
 * (expander_expand), so macro bodies can ask the types of run-time
 * variables.  expander_expand_all keeps the whole-form walk for syntax the
 * checker reads without checking it; it looks only at evaluated positions
 * (never inside quote, declare, parameter lists or type expressions, see
 * docs/core-forms.md).
 *
 * Every node a macro creates is a fresh node (made by the call, or copied)
 * carrying `origin` (macro name,
 * call site, enclosing expansion) and the call site's location, so later
 * diagnostics point at the user's call; nodes passed through from the
 * macro's arguments keep their own location and origin.  A template macro
 * (eval.h EvalTplOp: `when` and its kind) has that expansion built from
 * its template, without running the evaluator.
 *
 * The library (lib/prelude.crisp and the GPU library, compiled into the
 * binary) is loaded first; it may hold defmacro, %defun and def-constraint
 * forms, which are registered here, and definitions (def-function,
 * with-template-type, def-type ...), which the checker collects like the
 * user's own but only emits when the program uses them (docs/library.md). */
#include "expand.h"

#include "../core/ptrmap.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../reader/reader.h"
#include "eval.h"
#include "../core/syntax.h"

/* The library, compiled into the binary by scripts/embed_lib.sh. */
typedef struct LibFile {
    const char *name;   /* lib/NAME.crisp */
    const char *text;
} LibFile;
extern const LibFile crisp_library[];

/* Set of node pointers (open addressing, malloc'ed, made for one
 * expansion and freed after it): the nodes of a macro call's arguments,
 * for the expansions whose argument nodes the quick tests of is_arg do not
 * settle. */
typedef struct PtrSet {
    const Node **v;
    int cap, n;
} PtrSet;

struct Expander {
    Crisp *c;
    Eval ev;
    Forms tops;               /* top-level forms in order (dump: kept
                                 only for --dump=expand)               */
    Forms lib;                /* the library's definitions            */
    PtrMap dump;              /* macro call -> its expansion (dump)   */
    PtrMap seqs;              /* top-level form -> its position       */
    int seq;                  /* position of the top-level form being
                                 processed (the library is 0)          */
    int visible;              /* macros defined before this position
                                 apply (INT_MAX: all)                  */
    const Node *call;         /* the call whose expansion is marked   */
    PtrSet args;              /* its argument nodes, once made        */
    int args_made;            /* ... (is_arg's searches ran out)      */
    long search_left;         /* is_arg's search budget for this call */
    const Expansion *exp;     /* origin given to fresh nodes          */
    SrcLoc call_loc;          /* location given to fresh nodes        */
    const char *macro;        /* macro being expanded                 */
    long fresh;               /* fresh nodes in the current expansion */
    ArenaMark mark;           /* the arena before the current call's
                                 evaluation: later nodes are its own   */
    uintptr_t own_lo;         /* ... its first free byte then, and    */
    const void *own_chunk;    /* its newest chunk (run_own)           */
    int in_place;             /* ... and marked in place (mark_fresh)  */
    struct MacroSeen {        /* eval_find_macro's answers by the
                                 address of the spelling (macro_of)   */
        const char *key;
        long gen;             /* Eval.writes then                     */
        const Macro *m;
    } seen[512];
};

static uint32_t ptr_hash(const void *p) {
    uintptr_t x = (uintptr_t)p >> 4;
    return (uint32_t)(x * 2654435761u) ^ (uint32_t)(x >> 29);
}

/* Did the current call's run allocate `p` (arena_since(x->mark))?  While
 * the arena is in the chunk the run began in, that is the stretch from
 * its first free byte then to the current one: two comparisons, not a
 * walk of the chunks (issue 14: asked of every node of an expansion). */
static inline int run_own(const Expander *x, const void *p) {
    const Arena *a = &x->c->arena;
    if ((const void *)a->head == x->own_chunk)
        return (uintptr_t)p >= x->own_lo && (uintptr_t)p < (uintptr_t)a->cur;
    return arena_since(a, x->mark, p);
}

/* Add p: 1 when it was not there, 0 when it was, -1 out of memory. */
static int set_insert(PtrSet *s, const Node *p) {
    if ((s->n + 1) * 2 >= s->cap) {
        int ncap = s->cap ? s->cap * 2 : 256;
        const Node **nv = calloc((size_t)ncap, sizeof *nv);
        if (!nv) return -1;
        for (int i = 0; i < s->cap; i++) {
            if (!s->v[i]) continue;
            uint32_t j = ptr_hash(s->v[i]) & (uint32_t)(ncap - 1);
            while (nv[j]) j = (j + 1) & (uint32_t)(ncap - 1);
            nv[j] = s->v[i];
        }
        free(s->v);
        s->v = nv;
        s->cap = ncap;
    }
    uint32_t j = ptr_hash(p) & (uint32_t)(s->cap - 1);
    while (s->v[j]) {
        if (s->v[j] == p) return 0;
        j = (j + 1) & (uint32_t)(s->cap - 1);
    }
    s->v[j] = p;
    s->n++;
    return 1;
}

static int set_has(const PtrSet *s, const Node *p) {
    if (!s->cap) return 0;
    uint32_t j = ptr_hash(p) & (uint32_t)(s->cap - 1);
    while (s->v[j]) {
        if (s->v[j] == p) return 1;
        j = (j + 1) & (uint32_t)(s->cap - 1);
    }
    return 0;
}

/* Add `n` and everything below it.  Argument trees come from the reader or
 * from earlier (checked) expansions, so their depth is bounded. */
static void collect_args(Expander *x, const Node *n, int depth) {
    if (depth > x->ev.max_nesting + READER_MAX_DEPTH) return;
    if (set_insert(&x->args, n) != 1) return; /* there already, or out of memory */
    if (n->kind == N_SYMBOL && n->ann) collect_args(x, n->ann, depth + 1);
    if (n->kind == N_LIST || n->kind == N_VECLIT || n->kind == N_HWVEC)
        for (int i = 0; i < n->nkids; i++) collect_args(x, n->kids[i], depth + 1);
}

/* Nodes of the argument trees is_arg may visit before it makes their set. */
#define ARG_SEARCH_BUDGET 64

/* The call `call` is about to have its expansion marked. */
static void args_begin(Expander *x, const Node *call) {
    x->call = call;
    x->args_made = 0;
    x->search_left = ARG_SEARCH_BUDGET;
}

static void args_end(Expander *x) {
    free(x->args.v);
    x->args.v = NULL;
    x->args.cap = x->args.n = 0;
    x->args_made = 0;
    x->call = NULL;
}

/* Is `n` below `t` (t excluded), as collect_args would find it?  1 yes, 0
 * no, -1 the budget ran out. */
static int arg_search(Expander *x, const Node *t, const Node *n, int depth) {
    if (depth > x->ev.max_nesting + READER_MAX_DEPTH) return 0;
    if (--x->search_left < 0) return -1;
    if (t->kind == N_SYMBOL && t->ann) {
        if (t->ann == n && depth + 1 <= x->ev.max_nesting + READER_MAX_DEPTH) return 1;
        int r = arg_search(x, t->ann, n, depth + 1);
        if (r) return r;
    }
    if (t->kind == N_LIST || t->kind == N_VECLIT || t->kind == N_HWVEC)
        for (int i = 0; i < t->nkids; i++) {
            if (t->kids[i] == n && depth + 1 <= x->ev.max_nesting + READER_MAX_DEPTH) return 1;
            int r = arg_search(x, t->kids[i], n, depth + 1);
            if (r) return r;
        }
    return 0;
}

/* Is `n`, a node of the expansion of x->call older than its run, one of
 * the call's argument nodes (or below one), which the expansion passes
 * through unchanged?  Issue 14: the set of every argument node was made
 * for each call, a walk of the whole body for in-each-thread; the other
 * old nodes are the macros' quoted constants (eval_is_code), so the
 * arguments are searched only for what is neither a constant nor an
 * argument itself, and their set made only when that search runs long. */
static int is_arg(Expander *x, const Node *n) {
    if (x->args_made) return set_has(&x->args, n);
    const Node *call = x->call;
    /* the constants are mostly symbols (if, progn, let), the arguments
       mostly lists: each asked first where it is likelier */
    int code_first = n->kind == N_SYMBOL;
    if (code_first && eval_is_code(&x->ev, n)) return 0;
    for (int i = 1; i < call->nkids && i <= 8; i++) /* a few first: cheaper than a probe */
        if (call->kids[i] == n) return 1;
    if (!code_first && eval_is_code(&x->ev, n)) return 0;
    for (int i = 9; i < call->nkids; i++)
        if (call->kids[i] == n) return 1;
    x->search_left -= call->nkids;
    for (int i = 1; i < call->nkids && x->search_left >= 0; i++) {
        int r = arg_search(x, call->kids[i], n, 0);
        if (r > 0) return 1;
        if (r < 0) break;
    }
    if (x->search_left >= 0) return 0;
    x->args_made = 1;
    for (int i = 1; i < call->nkids; i++) collect_args(x, call->kids[i], 0);
    return set_has(&x->args, n);
}

/* A node of an expansion that is not an argument: code (not a function
 * object), within the nesting and size limits; counts it.  0 after
 * reporting an error. */
static inline int fresh_node_ok(Expander *x, Node *n, int depth) {
    Crisp *c = x->c;
    if (eval_is_function(n)) {
        diag_error(&c->diag, x->call_loc, x->exp ? x->exp->parent : NULL, EVAL_E_SIZE,
                   "macro `%s` returned a function object, which is not code", x->macro);
        return 0;
    }
    if (depth > x->ev.max_nesting) {
        diag_fatal(&c->diag, x->call_loc, x->exp ? x->exp->parent : NULL, EVAL_E_SIZE,
                   "macro `%s` produced a form nested more than %ld levels deep", x->macro,
                   x->ev.max_nesting);
        return 0;
    }
    if (++x->fresh > x->ev.max_output_nodes) {
        diag_fatal(&c->diag, x->call_loc, x->exp ? x->exp->parent : NULL, EVAL_E_SIZE,
                   "macro `%s` exceeded the expansion size limit (%ld nodes)", x->macro,
                   x->ev.max_output_nodes);
        return 0;
    }
    return 1;
}

/* Copy the nodes of an expansion that did not come from the arguments,
 * giving them the call's location and the new origin.  Enforces the
 * output limits.  NULL after reporting an error. */
static Node *mark_fresh(Expander *x, Node *n, int depth) {
    Crisp *c = x->c;
    int since = run_own(x, n);
    if (!since && is_arg(x, n)) return n;
    if (!fresh_node_ok(x, n, depth)) return NULL;
    /* A node this call's evaluation made is this expansion's own: it is
       marked in place, the first time it is met (issue 14: copying every
       one was a tenth of the compilation's nodes).  Older nodes (the
       macro's quoted constants, values kept from earlier calls) and a
       second meeting of the same node are copied, as every fresh node
       was before, so no two places of the expansion share a node. */
    int own = x->in_place && !n->marked && since;
    Node *m = own ? n : syn_copy(&c->arena, n);
    if (c->arena.exhausted) {
        diag_fatal(&c->diag, x->call_loc, NULL, EVAL_E_SIZE, "out of memory expanding macro `%s`",
                   x->macro);
        return NULL;
    }
    m->marked = 1;
    m->loc = x->call_loc;
    m->origin = x->exp;
    if (m->kind == N_SYMBOL && m->ann && !(m->ann = mark_fresh(x, m->ann, depth + 1))) return NULL;
    if (m->kind == N_LIST || m->kind == N_VECLIT || m->kind == N_HWVEC) {
        /* an own node's kids array may still be older (shared with a list
           the macro took apart): copied before its first change */
        int own_kids = !own || !m->nkids || run_own(x, m->kids);
        for (int i = 0; i < m->nkids; i++) {
            Node *k = mark_fresh(x, m->kids[i], depth + 1);
            if (!k) return NULL;
            if (k == m->kids[i]) continue;
            if (!own_kids) {
                Node **nk = arena_alloc(&c->arena, sizeof(Node *) * (size_t)m->nkids);
                if (!nk) {
                    diag_fatal(&c->diag, x->call_loc, NULL, EVAL_E_SIZE, "out of memory expanding macro `%s`",
                               x->macro);
                    return NULL;
                }
                memcpy(nk, m->kids, sizeof(Node *) * (size_t)m->nkids);
                m->kids = nk;
                own_kids = 1;
            }
            m->kids[i] = k;
        }
    }
    return m;
}

/* ---- an expansion copied out of the run's memory ----
 *
 * A macro's run makes more temporaries (environments, argument lists,
 * closures, intermediate lists) than code: issue 14 found them a tenth of
 * the compilation's memory.  When nothing but the expansion can refer to
 * what the run allocated (the checker saw none of it, the evaluator kept
 * none of it: see macro_step), the expansion is copied into a flat buffer
 * outside the arena (the same nodes mark_fresh makes, every one fresh
 * except those of the arguments, with the strings the run made), the
 * arena takes the run's memory back (arena_scope_end), and the buffer
 * becomes one block of the arena, its inner pointers moved by where the
 * block landed. */
typedef struct Flat {
    unsigned char *buf;  /* the copy: nodes, kids arrays, strings, 8-aligned */
    size_t n, cap;
    size_t *rel;         /* offsets in buf of pointers that hold an offset in buf */
    size_t nrel, caprel;
    int heap;            /* buf and rel are malloc'ed (else on the stack) */
    int oom;
} Flat;

/* Room for `size` bytes: their offset, 8-aligned, not zeroed (every
 * byte of a node and of a kids array is written; strings end in a zero
 * flat_chars writes). */
static __attribute__((noinline)) int flat_grow(Flat *f, size_t size) {
    size_t ncap = f->cap, nrel = f->caprel;
    while (f->n + size > ncap) ncap *= 2;
    while (f->nrel + 2 > nrel) nrel *= 2;
    unsigned char *b = malloc(ncap);
    size_t *r = malloc(nrel * sizeof *r);
    if (!b || !r) {
        free(b), free(r);
        f->oom = 1;
        return 0;
    }
    memcpy(b, f->buf, f->n);
    memcpy(r, f->rel, f->nrel * sizeof *r);
    if (f->heap) free(f->buf), free(f->rel);
    f->buf = b, f->rel = r, f->cap = ncap, f->caprel = nrel, f->heap = 1;
    return 1;
}

static inline size_t flat_take(Flat *f, size_t size) {
    size = (size + 7) & ~(size_t)7;
    if ((f->n + size > f->cap || f->nrel + 2 > f->caprel) && !flat_grow(f, size)) return 0;
    size_t at = f->n;
    f->n += size;
    return at;
}

/* The pointer at offset `slot` of the buffer: `off` in the buffer. */
static void flat_point(Flat *f, size_t slot, size_t off) {
    uintptr_t v = (uintptr_t)off;
    memcpy(f->buf + slot, &v, sizeof v);
    f->rel[f->nrel++] = slot; /* room made by flat_take */
}

/* The string `s` of node field `slot`: copied when the run made it. */
static int flat_chars(Expander *x, Flat *f, size_t slot, const char *s, long len) {
    if (!s || !run_own(x, s)) return 1; /* the pointer stands */
    if (len < 0) len = (long)strlen(s);
    size_t at = flat_take(f, (size_t)len + 1);
    if (f->oom) return 0;
    memcpy(f->buf + at, s, (size_t)len);
    memset(f->buf + at + len, 0, ((size_t)len + 8) / 8 * 8 - (size_t)len);
    flat_point(f, slot, at);
    return 1;
}

/* Node `n` of the expansion into the pointer at offset `slot` of the
 * buffer: an argument node as it is, any other copied.  0 after an error
 * (reported as mark_fresh reports it) or out of memory (f->oom). */
static int flat_copy(Expander *x, Flat *f, Node *n, int own, int depth, size_t slot);

static int flat_node(Expander *x, Flat *f, Node *n, int depth, size_t slot) {
    int own = run_own(x, n);
    if (!own && is_arg(x, n)) {
        memcpy(f->buf + slot, &n, sizeof n);
        return 1;
    }
    return flat_copy(x, f, n, own, depth, slot);
}

/* A copy of `n` in `f`, pointed to from the pointer at offset `slot`,
 * made by the call (marked, at the call's place): its offset; SIZE_MAX
 * past a limit or out of memory.  The first step of flat_copy and
 * tpl_copy. */
static inline size_t flat_head(Expander *x, Flat *f, const Node *n, int depth, size_t slot) {
    if (!fresh_node_ok(x, (Node *)(uintptr_t)n, depth)) return SIZE_MAX;
    size_t me = flat_take(f, sizeof *n);
    if (f->oom) return SIZE_MAX;
    flat_point(f, slot, me);
    Node *m = (Node *)(void *)(f->buf + me);
    *m = *n;
    m->marked = 1;
    m->loc = x->call_loc;
    m->origin = x->exp;
    return me;
}

/* The kids array of the list copied at offset `me` (of list `n`): its
 * offset, pointed to from the copy; 0 when the list is empty (its kids
 * NULL); SIZE_MAX out of memory. */
static inline size_t flat_kids(Flat *f, const Node *n, size_t me) {
    if (!n->nkids) {
        ((Node *)(void *)(f->buf + me))->kids = NULL;
        return 0;
    }
    size_t kids = flat_take(f, sizeof(Node *) * (size_t)n->nkids);
    if (f->oom) return SIZE_MAX;
    flat_point(f, me + offsetof(Node, kids), kids);
    return kids;
}

/* flat_node for a node that is no argument (`own`: the run made it). */
static int flat_copy(Expander *x, Flat *f, Node *n, int own, int depth, size_t slot) {
    size_t me = flat_head(x, f, n, depth, slot);
    if (me == SIZE_MAX) return 0;
    int is_name = n->kind == N_SYMBOL || n->kind == N_KEYWORD;
    /* an older node's strings are older too */
    if (own && (is_name || n->kind == N_STRING)) {
        if (!flat_chars(x, f, me + offsetof(Node, name), n->name, n->kind == N_STRING ? n->slen : -1))
            return 0;
        if (is_name && n->key == n->name) {
            memcpy(f->buf + me + offsetof(Node, key), f->buf + me + offsetof(Node, name), sizeof(char *));
            if (run_own(x, n->name)) f->rel[f->nrel++] = me + offsetof(Node, key);
        } else if (is_name && !flat_chars(x, f, me + offsetof(Node, key), n->key, -1)) {
            return 0;
        }
    }
    if (n->kind == N_SYMBOL && n->ann && !flat_node(x, f, n->ann, depth + 1, me + offsetof(Node, ann)))
        return 0;
    if (n->kind == N_LIST || n->kind == N_VECLIT || n->kind == N_HWVEC) {
        size_t kids = flat_kids(f, n, me);
        if (kids == SIZE_MAX) return 0;
        if (!kids) return 1; /* no kids */
        for (int i = 0; i < n->nkids; i++) {
            /* flat_node, the arguments (a body's forms) without a call */
            Node *k = n->kids[i];
            size_t ks = kids + sizeof(Node *) * (size_t)i;
            int kown = run_own(x, k);
            /* a definition's symbol (the template's if, let, progn) is no
               argument: told in line, not by a call of is_arg */
            if (!kown && !(k->kind == N_SYMBOL && eval_is_code(&x->ev, k)) && is_arg(x, k))
                memcpy(f->buf + ks, &k, sizeof k);
            else if (!flat_copy(x, f, k, kown, depth + 1, ks)) return 0;
        }
    }
    return 1;
}

/* The buffer `f`, whose root pointer is at offset `root` (`ok`: filled
 * without error), made one block of the arena: the expansion.  NULL after
 * reporting an error. */
static Node *flat_finish(Expander *x, Flat *fp, size_t root, int ok) {
    Crisp *c = x->c;
    Flat f = *fp;
    Node *out = NULL;
    if (ok) {
        uintptr_t v;
        memcpy(&v, f.buf + root, sizeof v);
        if (f.nrel == 0) {
            out = (Node *)v; /* an argument node as it is */
        } else {
            size_t skip = sizeof(Node *);
            unsigned char *b = arena_alloc8(&c->arena, f.n - skip);
            if (b) {
                memcpy(b, f.buf + skip, f.n - skip);
                for (size_t i = 0; i < f.nrel; i++) {
                    if (f.rel[i] < skip) continue;
                    unsigned char *p = b + (f.rel[i] - skip);
                    uintptr_t o;
                    memcpy(&o, p, sizeof o);
                    o = (uintptr_t)(b + (o - skip));
                    memcpy(p, &o, sizeof o);
                }
                out = (Node *)(void *)(b + (v - skip));
            }
        }
    }
    if (f.heap) free(f.buf), free(f.rel);
    if (f.oom || (ok && (!out || c->arena.exhausted))) { /* as mark_fresh says it */
        diag_fatal(&c->diag, x->call_loc, NULL, EVAL_E_SIZE, "out of memory expanding macro `%s`", x->macro);
        return NULL;
    }
    return out;
}

/* The expansion `r` of a run that began at `before`, taken out of the
 * run's memory, which goes back to the arena.  NULL after reporting an
 * error.  (Not inlined into macro_step: its buffers are on the stack only
 * while it runs, never across a macro's run.) */
static __attribute__((noinline)) Node *take_expansion(Expander *x, Node *r, ArenaMark before) {
    _Alignas(16) unsigned char sbuf[4096];
    size_t srel[256];
    Flat f = {sbuf, 0, sizeof sbuf, srel, 0, sizeof srel / sizeof srel[0], 0, 0};
    size_t root = flat_take(&f, sizeof(Node *)); /* the root's slot, not copied */
    int ok = flat_node(x, &f, r, 0, root);
    arena_scope_end(&x->c->arena, before);
    return flat_finish(x, &f, root, ok);
}

/* ---- a template macro's expansion, built without a run ----
 *
 * eval_template_begin's instructions say what the evaluator's quasiquote
 * would return: the template's parts without unquotes (the definition's
 * nodes, which take_expansion copies: they are no arguments), new lists
 * (made by the run, copied too) and the call's arguments (passed
 * through).  The same buffer as take_expansion's is filled the same way,
 * node for node, so the expansion, its limits and its memory are those of
 * a run (issue 14: the run and its copy-out were 2.2 K instructions for
 * `when`'s four nodes). */

/* The definition's node `n` (and all below it) into the pointer at offset
 * `slot`: flat_copy for a node older than the run and no argument. */
static int tpl_copy(Expander *x, Flat *f, const Node *n, int depth, size_t slot) {
    size_t me = flat_head(x, f, n, depth, slot);
    if (me == SIZE_MAX) return 0;
    if (n->kind == N_SYMBOL && n->ann && !tpl_copy(x, f, n->ann, depth + 1, me + offsetof(Node, ann))) return 0;
    if (n->kind == N_LIST || n->kind == N_VECLIT || n->kind == N_HWVEC) {
        size_t kids = flat_kids(f, n, me);
        if (kids == SIZE_MAX) return 0;
        if (!kids) return 1; /* no kids */
        for (int i = 0; i < n->nkids; i++)
            if (!tpl_copy(x, f, n->kids[i], depth + 1, kids + sizeof(Node *) * (size_t)i)) return 0;
    }
    return 1;
}

/* Instruction `op` (and those of its elements) into the pointer at
 * offset `slot`, for the call `call` whose REST has `nrest` elements. */
static int tpl_emit(Expander *x, Flat *f, const EvalTplOp *op, const Node *call, int nrest, int depth,
                    size_t slot) {
    if (op->kind == EVAL_TPL_COPY) return tpl_copy(x, f, op->n, depth, slot);
    /* EVAL_TPL_LIST: a list as syn_list makes it, then marked */
    Node made;
    memset(&made, 0, sizeof made);
    made.kind = op->n->kind;
    made.nkids = op->fixed + op->nsplice * nrest;
    if (!fresh_node_ok(x, &made, depth)) return 0;
    size_t me = flat_take(f, sizeof made);
    if (f->oom) return 0;
    flat_point(f, slot, me);
    made.marked = 1;
    made.loc = x->call_loc;
    made.origin = x->exp;
    memcpy(f->buf + me, &made, sizeof made);
    if (!made.nkids) return 1;
    size_t kids = flat_take(f, sizeof(Node *) * (size_t)made.nkids);
    if (f->oom) return 0;
    flat_point(f, me + offsetof(Node, kids), kids);
    const EvalTplOp *e = op + 1, *end = op + op->span;
    for (size_t at = kids; e < end; e += e->span) {
        if (e->kind == EVAL_TPL_ARG || e->kind == EVAL_TPL_SPLICE) {
            /* the call's arguments, as they are */
            int from = 1 + e->arg, n = e->kind == EVAL_TPL_ARG ? 1 : nrest;
            memcpy(f->buf + at, call->kids + from, sizeof(Node *) * (size_t)n);
            at += sizeof(Node *) * (size_t)n;
            continue;
        }
        if (!tpl_emit(x, f, e, call, nrest, depth + 1, at)) return 0;
        at += sizeof(Node *);
    }
    return 1;
}

/* The definition's node `n` (and all below it) copied at *cur, which
 * moves past the copy: tpl_copy's nodes in its order, in their place. */
static Node *tpl_put_copy(Expander *x, unsigned char **cur, const Node *n) {
    Node *m = (Node *)(void *)*cur;
    *cur += sizeof *m;
    *m = *n;
    m->marked = 1;
    m->loc = x->call_loc;
    m->origin = x->exp;
    if (n->kind == N_SYMBOL && n->ann) m->ann = tpl_put_copy(x, cur, n->ann);
    if (n->kind == N_LIST || n->kind == N_VECLIT || n->kind == N_HWVEC) {
        if (!n->nkids) {
            m->kids = NULL;
            return m;
        }
        Node **kids = (Node **)(void *)*cur;
        *cur += sizeof(Node *) * (size_t)n->nkids;
        m->kids = kids;
        for (int i = 0; i < n->nkids; i++) kids[i] = tpl_put_copy(x, cur, n->kids[i]);
    }
    return m;
}

/* tpl_emit's result for instruction `op`, at *cur. */
static Node *tpl_put(Expander *x, unsigned char **cur, const EvalTplOp *op, const Node *call, int nrest) {
    if (op->kind == EVAL_TPL_COPY) return tpl_put_copy(x, cur, op->n);
    Node *m = (Node *)(void *)*cur;
    *cur += sizeof *m;
    memset(m, 0, sizeof *m);
    m->kind = op->n->kind;
    m->nkids = op->fixed + op->nsplice * nrest;
    m->marked = 1;
    m->loc = x->call_loc;
    m->origin = x->exp;
    if (!m->nkids) return m;
    Node **kids = (Node **)(void *)*cur;
    *cur += sizeof(Node *) * (size_t)m->nkids;
    m->kids = kids;
    const EvalTplOp *e = op + 1, *end = op + op->span;
    for (int i = 0; e < end; e += e->span) {
        if (e->kind == EVAL_TPL_ARG) {
            kids[i++] = call->kids[1 + e->arg];
        } else if (e->kind == EVAL_TPL_SPLICE) {
            memcpy(kids + i, call->kids + 1 + e->arg, sizeof(Node *) * (size_t)nrest);
            i += nrest;
        } else {
            kids[i++] = tpl_put(x, cur, e, call, nrest);
        }
    }
    return m;
}

/* The expansion of template macro `m` on `call` (instructions `ops`, REST
 * of `nrest` elements) made in place: when no node limit can be reached,
 * the block take_expansion would make is allocated at once (its size is
 * known: Macro.tpl_bytes) and filled, without the buffer and its
 * relocation.  NULL after reporting an error. */
static Node *template_in_place(Expander *x, const Macro *m, const EvalTplOp *ops, const Node *call, int nrest) {
    Crisp *c = x->c;
    size_t size = (size_t)m->tpl_bytes + sizeof(Node *) * (size_t)nrest * (size_t)m->tpl_nsplice;
    unsigned char *b = arena_alloc8(&c->arena, size);
    if (!b || c->arena.exhausted) { /* as flat_finish says it */
        diag_fatal(&c->diag, x->call_loc, NULL, EVAL_E_SIZE, "out of memory expanding macro `%s`", x->macro);
        return NULL;
    }
    unsigned char *cur = b;
    Node *out = tpl_put(x, &cur, ops, call, nrest);
    x->fresh = m->tpl_nodes;
    return out;
}

/* The expansion of a template macro on `call` (instructions `ops`, REST
 * of `nrest` elements).
 * NULL after reporting an error. */
static __attribute__((noinline)) Node *template_expansion(Expander *x, const EvalTplOp *ops, const Node *call,
                                                          int nrest) {
    _Alignas(16) unsigned char sbuf[4096];
    size_t srel[256];
    Flat f = {sbuf, 0, sizeof sbuf, srel, 0, sizeof srel / sizeof srel[0], 0, 0};
    size_t root = flat_take(&f, sizeof(Node *));
    int ok = tpl_emit(x, &f, ops, call, nrest, 0, root);
    return flat_finish(x, &f, root, ok);
}

/* The expansion `out` of `call` counted against the compilation's
 * limit: `out`, or NULL after reporting. */
static Node *count_output(Expander *x, const Node *call, Node *out) {
    x->ev.output_nodes += x->fresh;
    if (x->ev.output_nodes > x->ev.total_output_nodes) {
        diag_fatal(&x->c->diag, call->loc, call->origin, EVAL_E_SIZE,
                   "macro expansion exceeded the total size limit of the compilation (%ld nodes)",
                   x->ev.total_output_nodes);
        return NULL;
    }
    return out;
}

/* One expansion step of macro `m` on `call`: run it and mark the result. */
static Node *macro_step(Expander *x, Node *call, const Macro *m) {
    Crisp *c = x->c;
    long depth = 1;
    for (const Expansion *e = call->origin; e; e = e->parent) depth++;
    if (depth > x->ev.max_expansion_depth) {
        diag_fatal(&c->diag, call->loc, call->origin, EVAL_E_DEPTH,
                   "macro `%s` exceeded the expansion depth limit (%ld nested expansions)",
                   m->name, x->ev.max_expansion_depth);
        return NULL;
    }
    Expansion *e = arena_alloc(&c->arena, sizeof *e);
    if (!e) {
        diag_fatal(&c->diag, call->loc, call->origin, EVAL_E_SIZE, "out of memory");
        return NULL;
    }
    e->macro = m->name;
    e->call = call->loc;
    e->parent = call->origin;
    x->ev.host_calls++; /* an expansion inside another macro's run */
    int nrest;
    const EvalTplOp *ops = eval_template_begin(&x->ev, m, call, &nrest);
    if (ops) {
        /* a template macro: its expansion built without its run */
        x->exp = e;
        x->call_loc = call->loc;
        x->macro = m->name;
        x->fresh = 0;
        /* its limits' reports are template_expansion's (fresh_node_ok) */
        Node *out = m->tpl_nodes <= x->ev.max_output_nodes && m->tpl_height <= x->ev.max_nesting
                        ? template_in_place(x, m, ops, call, nrest)
                        : template_expansion(x, ops, call, nrest);
        if (!out) return NULL;
        return count_output(x, call, out);
    }
    long calls = x->ev.host_calls, writes = x->ev.writes;
    int errors = c->diag.errors, warnings = c->diag.warnings;
    ArenaMark before = arena_scope_begin(&c->arena);
    uintptr_t own_lo = (uintptr_t)c->arena.cur;
    const void *own_chunk = c->arena.head;
    Node *r = eval_macroexpand(&x->ev, m, call, e); /* may expand other calls */
    x->mark = before; /* (nested expansions changed them) */
    x->own_lo = own_lo;
    x->own_chunk = own_chunk;
    if (r && x->ev.host_calls == calls && x->ev.writes == writes && c->diag.errors == errors &&
        c->diag.warnings == warnings && !c->arena.exhausted && !x->ev.failed) {
        /* nothing outside the expansion refers to the run's memory: take
           the expansion out, give the memory back */
        x->exp = e;
        x->call_loc = call->loc;
        x->macro = m->name;
        x->fresh = 0;
        args_begin(x, call);
        Node *out = take_expansion(x, r, before);
        args_end(x);
        if (!out) return NULL;
        return count_output(x, call, out);
    }
    arena_scope_keep(&c->arena);
    if (!r) return NULL;
    x->exp = e;
    x->mark = before;
    /* a macro that asked the checker about the code it built (type-of ...)
       may have left its nodes in the checker's tables: its output is
       copied, as all of it once was, so no table sees them change */
    x->in_place = x->ev.host_calls == calls;
    x->call_loc = call->loc;
    x->macro = m->name;
    x->fresh = 0;
    args_begin(x, call);
    r = mark_fresh(x, r, 0);
    args_end(x);
    x->ev.output_nodes += x->fresh;
    if (r && x->ev.output_nodes > x->ev.total_output_nodes) {
        diag_fatal(&c->diag, call->loc, call->origin, EVAL_E_SIZE,
                   "macro expansion exceeded the total size limit of the compilation (%ld nodes)",
                   x->ev.total_output_nodes);
        return NULL;
    }
    return r;
}


/* ---- the dump map ---- */

static void dump_put(Expander *x, const Node *call, Node *exp) {
    /* only --dump=expand reads it: no memory spent otherwise */
    if (x->c->opt && x->c->opt->dump == DUMP_EXPAND) ptrmap_put(&x->c->arena, &x->dump, call, exp);
}

static Node *dump_get(const Expander *x, const Node *call) {
    return ptrmap_get(&x->dump, call);
}

/* ---- one evaluated position ---- */

/* `(c-t-output ...)` / `(c-t-assert ...)`: run at compile time. */
static int is_directive(const Node *n) {
    return syn_is_form(n, "c-t-output") || syn_is_form(n, "c-t-assert");
}

static int is_site_form(const Node *n) {
    return n->kind == N_LIST && n->nkids == 1 && (syn_is_sym(n->kids[0], "line") || syn_is_sym(n->kids[0], "file"));
}

/* `(line)` / `(file)`: the user's call site, as a literal. */
static Node *site_literal(Expander *x, Node *n, int is_line) {
    SrcLoc l = eval_user_site(n);
    Node *r;
    if (is_line) {
        r = syn_int(&x->c->arena, n->loc, l.line);
    } else {
        const char *f = srcloc_file(l) && srcloc_file(l)->name ? srcloc_file(l)->name : "";
        r = syn_string(&x->c->arena, n->loc, f, (int)strlen(f));
    }
    if (x->c->arena.exhausted) return NULL;
    r->origin = n->origin;
    return r;
}

/* The macro `n` calls, or NULL: the definition in force at the position
 * of the code being expanded (a defmacro applies from the next top-level
 * form on, and a redefinition only after it).  In line: the checker asks
 * about every list (expander_is_macro_call), and the call was a third of
 * the answer's cost. */
static inline __attribute__((always_inline)) const Macro *macro_of(Expander *x, const Node *n) {
    if (n->kind != N_LIST || n->nkids == 0) return NULL;
    const Node *h = n->kids[0];
    if (h->kind != N_SYMBOL || h->ann || eval_is_function(h)) return NULL;
    /* the checker asks about every list's head (issue 14): the answer for
       a spelling is kept by its address until a definition changes what
       a name may mean (Eval.writes).  The spellings asked about are those
       of code the checker reads, which lives as long as the compilation */
    uint64_t hh = (uint64_t)(uintptr_t)h->key * 0x9E3779B97F4A7C15ull;
    struct MacroSeen *e = &x->seen[hh >> 55 & (sizeof x->seen / sizeof x->seen[0] - 1)];
    const Macro *m;
    if (e->key == h->key && e->gen == x->ev.writes) {
        m = e->m;
    } else {
        m = eval_find_macro(&x->ev, h->key);
        e->key = h->key;
        e->gen = x->ev.writes;
        e->m = m;
    }
    while (m && m->seq >= x->visible) m = m->prev;
    return m;
}

int expander_enter(Expander *x, const Node *toplevel_form) {
    int saved = x->visible;
    intptr_t seq = (intptr_t)ptrmap_get(&x->seqs, toplevel_form);
    x->visible = seq ? (int)seq : INT_MAX;
    return saved;
}

void expander_leave(Expander *x, int saved) {
    x->visible = saved;
}

int expander_is_macro_call(Expander *x, const Node *form) {
    if (macro_of(x, form)) return 1;
    /* the other forms expander_expand rewrites, by the head's first byte
       (issue 14: the checker asks about every list it reaches) */
    const char *h = syn_head(form);
    if (!h) return 0;
    switch (h[0]) {
    case 'c': return is_directive(form);
    case 'd': return syn_streq(h, "defmacro") || syn_streq(h, "def-constraint");
    case '%': return syn_streq(h, "%defun");
    case 'l':
    case 'f': return is_site_form(form);
    default: return 0;
    }
}

Node *expander_expand(Expander *x, Node *form) {
    Crisp *c = x->c;
    if (!form || c->diag.fatal) return NULL;
    Node *n = form;
    const Macro *m;
    while ((m = macro_of(x, n)))
        if (!(n = macro_step(x, n, m))) return NULL;
    if (is_directive(n)) {
        /* evaluated now; leaves an empty statement */
        if (!eval_directive(&x->ev, n)) return NULL;
        Node *p = syn_symbol(&c->arena, n->loc, "progn");
        Node *l = syn_list(&c->arena, n->loc, &p, 1);
        if (c->arena.exhausted) return NULL;
        p->origin = l->origin = n->origin;
        n = l;
    } else if (is_site_form(n)) {
        if (!(n = site_literal(x, n, n->kids[0]->key[0] == 'l'))) return NULL;
    } else if (syn_is_form(n, "defmacro") || syn_is_form(n, "%defun") || syn_is_form(n, "def-constraint")) {
        diag_error(&c->diag, n->loc, n->origin, EVAL_E_TOPLEVEL, "`%s` is only allowed at top level",
                   n->kids[0]->name);
        return NULL;
    }
    if (n != form) dump_put(x, form, n);
    return n;
}

/* ---- whole forms (expander_expand_all) ---- */

static Node *expand_deep(Expander *x, Node *n, int depth);

/* Expand the elements of list `n` from index `from` on; returns `n` itself
 * when nothing changed. */
static Node *expand_kids(Expander *x, Node *n, int from, int depth) {
    Node *copy = NULL;
    for (int i = from; i < n->nkids; i++) {
        Node *k = expand_deep(x, n->kids[i], depth + 1);
        if (!k) return NULL;
        if (k != n->kids[i] && !copy) {
            copy = syn_copy(&x->c->arena, n);
            if (x->c->arena.exhausted) return NULL;
        }
        if (copy) copy->kids[i] = k;
    }
    return copy ? copy : n;
}

/* Replace element `i` of `n` (copying `n` once). */
static Node *with_kid(Expander *x, Node *n, int i, Node *k) {
    if (n->kids[i] == k) return n;
    Node *copy = syn_copy(&x->c->arena, n);
    if (x->c->arena.exhausted) return NULL;
    copy->kids[i] = k;
    return copy;
}

/* (let ((V E)...) BODY...): expand each E and the body, not the names. */
static Node *expand_let(Expander *x, Node *n, int depth) {
    if (n->nkids >= 2 && n->kids[1]->kind == N_LIST) {
        Node *bs = n->kids[1];
        Node *nbs = bs;
        for (int i = 0; i < bs->nkids; i++) {
            Node *b = bs->kids[i];
            if (b->kind != N_LIST || b->nkids < 2) continue;
            Node *nb = expand_kids(x, b, 1, depth + 2);
            if (!nb) return NULL;
            if (!(nbs = with_kid(x, nbs, i, nb))) return NULL;
        }
        if (!(n = with_kid(x, n, 1, nbs))) return NULL;
    }
    return expand_kids(x, n, 2, depth);
}

/* (%loop (VAR INIT TEST STEP) BODY...): expand INIT TEST STEP and BODY. */
static Node *expand_loop(Expander *x, Node *n, int depth) {
    if (n->nkids >= 2 && n->kids[1]->kind == N_LIST) {
        Node *spec = expand_kids(x, n->kids[1], 1, depth + 1);
        if (!spec || !(n = with_kid(x, n, 1, spec))) return NULL;
    }
    return expand_kids(x, n, 2, depth);
}

/* Forms whose operands are not expanded at all. */
static int is_opaque(const char *k) {
    static const char *const names[] = {"quote", "function", "declare", "declaim", "def-type"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (syn_streq(k, names[i])) return 1;
    return 0;
}

/* Expand form `n` found in an evaluated position at list depth `depth`. */
static Node *expand_deep(Expander *x, Node *n, int depth) {
    Crisp *c = x->c;
    if (c->diag.fatal) return NULL;
    if (depth > x->ev.max_nesting) {
        diag_error(&c->diag, n->loc, n->origin, EVAL_E_SIZE,
                   "form nested more than %ld levels deep after macro expansion",
                   x->ev.max_nesting);
        return NULL;
    }
    if (!(n = expander_expand(x, n))) return NULL;
    if (n->kind == N_HWVEC) return expand_kids(x, n, 0, depth);
    if (n->kind != N_LIST || n->nkids == 0) return n;
    Node *h = n->kids[0];
    if (h->kind != N_SYMBOL) return expand_kids(x, n, 1, depth);
    const char *k = h->key;
    if (is_opaque(k)) return n;
    if (syn_streq(k, "def-kernel") || syn_streq(k, "def-function") || syn_streq(k, "def-grid-function"))
        return expand_kids(x, n, 3, depth);
    if (syn_streq(k, "def-const") || syn_streq(k, "def-constant") || syn_streq(k, "def-parameter") ||
        syn_streq(k, "multiple-value-bind"))
        return expand_kids(x, n, 2, depth);
    if (syn_streq(k, "let") || syn_streq(k, "let*")) return expand_let(x, n, depth);
    if (syn_streq(k, "%loop")) return expand_loop(x, n, depth);
    return expand_kids(x, n, 1, depth);
}

Node *expander_expand_all(Expander *x, Node *form) {
    return form ? expand_deep(x, form, 0) : NULL;
}

/* ---- #+ / #- decided after reading ---- */

static int is_feature_node(const Node *n) {
    return syn_is_form(n, "%feature-if") && n->nkids == 4;
}

/* `n` with each (%feature-if #+|#- FEATURE FORM) the reader left (a
 * feature expression that is a compile-time call, such as
 * (is-floating-point? T)) replaced by FORM or by nothing, in the list
 * that holds it.  NULL after an error. */
/* The first change to n's kids at `i`: the new kids start as a copy of
 * those before it.  Returns 1 (changed). */
static int features_copy_from(Expander *x, const Node *n, int i, int changed, Node ***kids, int *nk, int *cap) {
    if (!changed)
        for (int j = 0; j < i; j++) arena_push(&x->c->arena, (void ***)kids, nk, cap, n->kids[j]);
    return 1;
}

static Node *resolve_features(Expander *x, Node *n, int depth) {
    if ((n->kind != N_LIST && n->kind != N_VECLIT && n->kind != N_HWVEC) || depth > x->ev.max_nesting + READER_MAX_DEPTH)
        return n;
    /* the new kids are gathered from the first change on only: most lists
       have no feature expression anywhere (issue 14) */
    Node **kids = NULL;
    int nk = 0, cap = 0, changed = 0;
    for (int i = 0; i < n->nkids; i++) {
        Node *k = n->kids[i];
        if (is_feature_node(k)) {
            changed = features_copy_from(x, n, i, changed, &kids, &nk, &cap);
            Node *v = eval_form(&x->ev, k->kids[2]);
            if (!v) {
                diag_note(&x->c->diag, k->loc, "in the feature expression of this %s", k->kids[1]->name);
                return NULL;
            }
            int keep = eval_truthy(v) == (k->kids[1]->name[1] == '+');
            if (!keep) continue;
            k = k->kids[3];
            if (is_feature_node(k)) {
                /* #+A #+B form: decide the inner one in a list of its own */
                Node *one = syn_list(&x->c->arena, k->loc, &k, 1);
                if (!one || !(one = resolve_features(x, one, depth + 1))) return NULL;
                for (int j = 0; j < one->nkids; j++)
                    arena_push(&x->c->arena, (void ***)&kids, &nk, &cap, one->kids[j]);
                continue;
            }
        }
        Node *r = resolve_features(x, k, depth + 1);
        if (!r) return NULL;
        if (r != n->kids[i]) changed = features_copy_from(x, n, i, changed, &kids, &nk, &cap);
        if (changed) arena_push(&x->c->arena, (void ***)&kids, &nk, &cap, r);
    }
    if (!changed) return n;
    Node *c = syn_copy(&x->c->arena, n);
    if (!c) return NULL;
    c->kids = kids;
    c->nkids = nk;
    return c;
}

Node *expander_features(Expander *x, Node *form) {
    if (!form) return NULL;
    /* no (%feature-if ...) was ever made (the reader and intern count
       them): nothing to resolve, and no walk over every form (issue 14) */
    if (!x->c->feature_forms) return form;
    if (is_feature_node(form)) {
        /* a whole form under #+: a list of one, decided */
        Node *one = syn_list(&x->c->arena, form->loc, &form, 1);
        if (!one || !(one = resolve_features(x, one, 0))) return NULL;
        return one->nkids ? one->kids[0] : syn_list(&x->c->arena, form->loc, NULL, 0);
    }
    return resolve_features(x, form, 0);
}

/* ---- top level ---- */

/* `(def-const NAME VALUE)` with a literal VALUE becomes visible to macro
 * bodies as a compile-time constant. */
static void note_constant(Expander *x, const Node *n) {
    if (syn_is_form(n, "def-parameter") && n->nkids >= 2 && n->nkids <= 3 && n->kids[1]->kind == N_SYMBOL) {
        /* (def-parameter NAME [VALUE]) with its -D override: a constant of
           the compile-time language too, as in #+ */
        const char *d = x->c->opt ? crisp_define(x->c->opt, n->kids[1]->name) : NULL;
        Node *v = d ? syn_define_value(&x->c->arena, n->kids[1]->loc, d)
                    : n->nkids == 3 ? n->kids[2] : syn_int(&x->c->arena, n->kids[1]->loc, 0);
        if (v && (v->kind == N_INT || v->kind == N_FLOAT || v->kind == N_STRING))
            eval_define_constant(&x->ev, n->kids[1]->key, v);
        return;
    }
    if (!(syn_is_form(n, "def-const") || syn_is_form(n, "def-constant")) || n->nkids != 3) return;
    const Node *name = n->kids[1], *v = n->kids[2];
    if (name->kind != N_SYMBOL) return;
    if (v->kind == N_INT || v->kind == N_FLOAT || v->kind == N_STRING)
        eval_define_constant(&x->ev, name->key, (Node *)(uintptr_t)v);
}

/* A top-level form: macros in head position are expanded first, so a
 * macro may expand into `(progn ...)` of several top-level forms (defmacros
 * included), which are processed in order.  A progn starting with a
 * declare is a body, not a group of top-level forms, and is kept. */
static void toplevel(Expander *x, Node *n, Forms *out, int depth) {
    Crisp *c = x->c;
    const Macro *m;
    if (c->diag.fatal) return;
    if (x->seq) {
        /* each form, spliced ones included, is a position of its own */
        x->ev.seq = ++x->seq;
        x->visible = x->seq;
    }
    if (!syn_is_form(n, "with-template-type")) {
        /* #+(compile-time call): decided now, except in templates, where
           each instance decides with its own types */
        if (!(n = expander_features(x, n))) return;
        if (n->kind == N_LIST && n->nkids == 0) return;
    }
    Node *orig = n;
    while ((m = macro_of(x, n)))
        if (!(n = macro_step(x, n, m))) return;
    if (n != orig) dump_put(x, orig, n);
    /* defmacro, def-constraint and note_constant's def-const, def-constant
       and def-parameter, told apart from the common def-kernel,
       def-function, def-struct, def-type by their first bytes, and the
       directives by their first (issue 14: seven name comparisons per
       top-level form) */
    const char *h = syn_head(n);
    int def = h && h[0] == 'd' && h[1] == 'e' && h[2] == 'f';
    int def_m = def && h[3] == 'm';
    int def_cp = def && h[3] == '-' && (h[4] == 'c' || h[4] == 'p');
    if (def_m && syn_streq(h, "defmacro")) {
        eval_define_macro(&x->ev, n, 0);
        return;
    }
    if (syn_is_form(n, "%defun")) {
        eval_define_function(&x->ev, n);
        return;
    }
    if (def_cp && syn_streq(h, "def-constraint")) {
        eval_define_constraint(&x->ev, n);
        return;
    }
    if (h && h[0] == 'c' && is_directive(n)) { /* c-t-output, c-t-assert */
        eval_directive(&x->ev, n);
        return;
    }
    if (syn_is_form(n, "progn") && !(n->nkids > 1 && syn_is_form(n->kids[1], "declare"))) {
        if (depth >= x->ev.max_nesting) {
            diag_error(&c->diag, n->loc, n->origin, EVAL_E_SIZE,
                       "form nested more than %ld levels deep after macro expansion", x->ev.max_nesting);
            return;
        }
        for (int i = 1; i < n->nkids; i++) toplevel(x, n->kids[i], out, depth + 1);
        return;
    }
    if (def_cp) note_constant(x, n);
    if (x->seq) ptrmap_put(&c->arena, &x->seqs, n, (void *)(intptr_t)x->seq);
    forms_push(&c->arena, out, n);
}

void expander_expect(Expander *x, int n) {
    ptrmap_reserve(&x->c->arena, &x->seqs, x->seqs.n + n);
}

void expander_toplevel(Expander *x, Node *form, Forms *out) {
    int from = out->n;
    if (!x->seq) x->seq = 1;
    toplevel(x, form, out, 0);
    x->visible = INT_MAX;
    /* only --dump=expand reads them (issue 14: a second array of every
       top-level form, grown by doubling) */
    if (x->c->opt && x->c->opt->dump == DUMP_EXPAND)
        for (int i = from; i < out->n; i++) forms_push(&x->c->arena, &x->tops, out->v[i]);
}

/* The library files: macros, %defuns and def-constraints are registered
 * now; definitions are kept for the checker (expander_library). */
static void load_library(Expander *x) {
    Crisp *c = x->c;
    for (const LibFile *lf = crisp_library; lf->name && !c->diag.fatal; lf++) {
        Reader r;
        reader_init(&r, c);
        Forms forms = {0};
        reader_read_builtin(&r, lf->name, lf->text, &forms); /* parsed once per process (reader/builtin.c) */
        for (int i = 0; i < forms.n; i++) toplevel(x, forms.v[i], &x->lib, 0);
    }
}

Forms expander_library(Expander *x) {
    return x->lib;
}

Expander *expander_new(Crisp *c) {
    Expander *x = arena_alloc(&c->arena, sizeof *x);
    if (!x) return NULL;
    x->c = c;
    x->visible = INT_MAX;
    eval_init(&x->ev, c);
    if (!c->opt || !c->opt->no_prelude) load_library(x);
    return x;
}

struct Eval *expander_eval(Expander *x) {
    return &x->ev;
}

/* `n` with the expansions in the dump map substituted, copying only what
 * changes.  Depth-bounded: an expansion is never deeper than the limits
 * the expander enforced when it was made. */
static Node *dump_subst(const Expander *x, Arena *a, Node *n, int depth) {
    for (int guard = 0; guard < 1000; guard++) {
        Node *e = dump_get(x, n);
        if (!e || e == n) break;
        n = e;
    }
    if (depth > x->ev.max_nesting + READER_MAX_DEPTH) return n;
    if (n->kind != N_LIST && n->kind != N_VECLIT && n->kind != N_HWVEC) return n;
    Node *copy = NULL;
    for (int i = 0; i < n->nkids; i++) {
        Node *k = dump_subst(x, a, n->kids[i], depth + 1);
        if (k != n->kids[i] && !copy) {
            copy = syn_copy(a, n);
            if (!copy) return n;
        }
        if (copy) copy->kids[i] = k;
    }
    return copy ? copy : n;
}

void expander_dump(Expander *x, StrBuf *b) {
    for (int i = 0; i < x->tops.n; i++) {
        syn_pprint(b, dump_subst(x, &x->c->arena, x->tops.v[i], 0), 0);
        sb_putc(b, '\n');
    }
}

Forms expand_program(Crisp *c, Forms in) {
    Forms out = {0}, tops = {0};
    Expander *x = expander_new(c);
    if (!x) return out;
    for (int i = 0; i < in.n && !c->diag.fatal; i++) expander_toplevel(x, in.v[i], &tops);
    for (int i = 0; i < tops.n && !c->diag.fatal; i++) {
        int saved = expander_enter(x, tops.v[i]);
        Node *e = expander_expand_all(x, tops.v[i]);
        expander_leave(x, saved);
        if (e) forms_push(&c->arena, &out, e);
    }
    return out;
}

void expand_dump(StrBuf *b, Forms f) {
    for (int i = 0; i < f.n; i++) {
        if (i) sb_putc(b, '\n');
        syn_pprint(b, f.v[i], 0);
        sb_putc(b, '\n');
    }
}
