/* expand.c - stage 2: replace every macro call by its expansion (expand.h).
 *
 * The expander is the part of the macro stage that knows the program's
 * shape: it walks each top-level form, looks only at evaluated positions
 * (never inside quote, declare, parameter lists or type expressions, see
 * docs/core-forms.md), runs macros on the compile-time evaluator (eval.h)
 * and re-expands their results until only core forms remain.
 *
 * Every node a macro creates is a fresh copy carrying `origin` (macro name,
 * call site, enclosing expansion) and the call site's location, so later
 * diagnostics point at the user's call; nodes passed through from the
 * macro's arguments keep their own location and origin.
 *
 * Order: the prelude's defmacros are registered first, then user forms are
 * processed in order; a macro is usable from the form after its defmacro
 * on (an earlier call stays an ordinary call for the checker to report).
 *
 * The compile-time directives are handled here too: `(c-t-output ...)` and
 * `(c-t-assert ...)` in evaluated positions run on the evaluator and leave
 * `(progn)` (nothing at top level), `(line)` / `(file)` become literals of
 * the user's call site, `def-constraint` is registered like `%defun`,
 * top-level `def-type`s are recorded for the type queries, and top-level
 * `def-struct`s (and `def-derived-type`s) for with-struct-accessors - a
 * struct is known to macros from the form after its definition on. */
#include "expand.h"

#include <stdint.h>
#include <string.h>

#include "../reader/reader.h"
#include "eval.h"
#include "../core/syntax.h"

extern const char crisp_prelude_text[];

/* Set of node pointers (open addressing): the nodes of a macro call's
 * arguments, which an expansion may pass through unchanged.  Entries are
 * stamped with a generation so the set is emptied in O(1) for each call
 * and its memory reused. */
typedef struct PtrEnt {
    const Node *p;
    unsigned gen;
} PtrEnt;

typedef struct PtrSet {
    PtrEnt *v;
    int cap, n;
    unsigned gen;
} PtrSet;

typedef struct Expander {
    Crisp *c;
    Eval ev;
    PtrSet args;              /* argument nodes of the current call   */
    const Expansion *exp;     /* origin given to fresh nodes          */
    SrcLoc call_loc;          /* location given to fresh nodes        */
    const char *macro;        /* macro being expanded                 */
    long fresh;               /* fresh nodes in the current expansion */
} Expander;

static uint32_t ptr_hash(const void *p) {
    uintptr_t x = (uintptr_t)p >> 4;
    return (uint32_t)(x * 2654435761u) ^ (uint32_t)(x >> 29);
}

static void set_clear(PtrSet *s) {
    s->gen++;
    s->n = 0;
}

static int set_add(Arena *a, PtrSet *s, const Node *p) {
    if ((s->n + 1) * 2 >= s->cap) {
        int ncap = s->cap ? s->cap * 2 : 256;
        PtrEnt *nv = arena_alloc(a, sizeof *nv * (size_t)ncap);
        if (!nv) return 0;
        for (int i = 0; i < s->cap; i++) {
            if (s->v[i].gen != s->gen || !s->v[i].p) continue;
            uint32_t j = ptr_hash(s->v[i].p) & (uint32_t)(ncap - 1);
            while (nv[j].gen == s->gen && nv[j].p) j = (j + 1) & (uint32_t)(ncap - 1);
            nv[j] = s->v[i];
        }
        s->v = nv;
        s->cap = ncap;
    }
    uint32_t j = ptr_hash(p) & (uint32_t)(s->cap - 1);
    while (s->v[j].gen == s->gen && s->v[j].p) {
        if (s->v[j].p == p) return 1;
        j = (j + 1) & (uint32_t)(s->cap - 1);
    }
    s->v[j].p = p;
    s->v[j].gen = s->gen;
    s->n++;
    return 1;
}

static int set_has(const PtrSet *s, const Node *p) {
    if (!s->cap) return 0;
    uint32_t j = ptr_hash(p) & (uint32_t)(s->cap - 1);
    while (s->v[j].gen == s->gen && s->v[j].p) {
        if (s->v[j].p == p) return 1;
        j = (j + 1) & (uint32_t)(s->cap - 1);
    }
    return 0;
}

/* Add `n` and everything below it.  Argument trees come from the reader or
 * from earlier (checked) expansions, so their depth is bounded. */
static void collect_args(Expander *x, const Node *n, int depth) {
    if (set_has(&x->args, n) || depth > x->ev.max_nesting + READER_MAX_DEPTH) return;
    if (!set_add(&x->c->arena, &x->args, n)) return;
    if (n->kind == N_SYMBOL && n->ann) collect_args(x, n->ann, depth + 1);
    if (n->kind == N_LIST || n->kind == N_VECLIT || n->kind == N_HWVEC)
        for (int i = 0; i < n->nkids; i++) collect_args(x, n->kids[i], depth + 1);
}

/* Copy the nodes of an expansion that did not come from the arguments,
 * giving them the call's location and the new origin.  Enforces the
 * output limits.  NULL after reporting an error. */
static Node *mark_fresh(Expander *x, Node *n, int depth) {
    Crisp *c = x->c;
    if (set_has(&x->args, n)) return n;
    if (eval_is_function(n)) {
        diag_error(&c->diag, x->call_loc, x->exp ? x->exp->parent : NULL, EVAL_E_SIZE,
                   "macro `%s` returned a function object, which is not code", x->macro);
        return NULL;
    }
    if (depth > x->ev.max_nesting) {
        diag_fatal(&c->diag, x->call_loc, x->exp ? x->exp->parent : NULL, EVAL_E_SIZE,
                   "macro `%s` produced a form nested more than %ld levels deep", x->macro,
                   x->ev.max_nesting);
        return NULL;
    }
    if (++x->fresh > x->ev.max_output_nodes) {
        diag_fatal(&c->diag, x->call_loc, x->exp ? x->exp->parent : NULL, EVAL_E_SIZE,
                   "macro `%s` exceeded the expansion size limit (%ld nodes)", x->macro,
                   x->ev.max_output_nodes);
        return NULL;
    }
    Node *m = syn_copy(&c->arena, n);
    if (c->arena.exhausted) {
        diag_fatal(&c->diag, x->call_loc, NULL, EVAL_E_SIZE, "out of memory expanding macro `%s`",
                   x->macro);
        return NULL;
    }
    m->loc = x->call_loc;
    m->origin = x->exp;
    if (m->kind == N_SYMBOL && m->ann && !(m->ann = mark_fresh(x, m->ann, depth + 1))) return NULL;
    if (m->kind == N_LIST || m->kind == N_VECLIT || m->kind == N_HWVEC)
        for (int i = 0; i < m->nkids; i++)
            if (!(m->kids[i] = mark_fresh(x, m->kids[i], depth + 1))) return NULL;
    return m;
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
    Node *r = eval_macroexpand(&x->ev, m, call, e);
    if (!r) return NULL;
    set_clear(&x->args);
    for (int i = 1; i < call->nkids; i++) collect_args(x, call->kids[i], 0);
    x->exp = e;
    x->call_loc = call->loc;
    x->macro = m->name;
    x->fresh = 0;
    r = mark_fresh(x, r, 0);
    x->ev.output_nodes += x->fresh;
    if (r && x->ev.output_nodes > x->ev.total_output_nodes) {
        diag_fatal(&c->diag, call->loc, call->origin, EVAL_E_SIZE,
                   "macro expansion exceeded the total size limit of the compilation (%ld nodes)",
                   x->ev.total_output_nodes);
        return NULL;
    }
    return r;
}

/* The macro `n` calls, or NULL. */
static const Macro *macro_of(Expander *x, const Node *n) {
    if (n->kind != N_LIST || n->nkids == 0) return NULL;
    const Node *h = n->kids[0];
    if (h->kind != N_SYMBOL || h->ann || eval_is_function(h)) return NULL;
    return eval_find_macro(&x->ev, h->key);
}

static Node *expand(Expander *x, Node *n, int depth);

/* `(c-t-output ...)` / `(c-t-assert ...)`: run at compile time. */
static int is_directive(const Node *n) {
    return syn_is_form(n, "c-t-output") || syn_is_form(n, "c-t-assert");
}

/* `(line)` / `(file)`: the user's call site, as a literal. */
static Node *site_literal(Expander *x, Node *n, int is_line) {
    SrcLoc l = eval_user_site(n);
    Node *r;
    if (is_line) {
        r = syn_int(&x->c->arena, n->loc, l.line);
    } else {
        const char *f = l.file && l.file->name ? l.file->name : "";
        r = syn_string(&x->c->arena, n->loc, f, (int)strlen(f));
    }
    if (x->c->arena.exhausted) return NULL;
    r->origin = n->origin;
    return r;
}

/* Expand the elements of list `n` from index `from` on; returns `n` itself
 * when nothing changed. */
static Node *expand_kids(Expander *x, Node *n, int from, int depth) {
    Node *copy = NULL;
    for (int i = from; i < n->nkids; i++) {
        Node *k = expand(x, n->kids[i], depth + 1);
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
        if (!strcmp(k, names[i])) return 1;
    return 0;
}

/* Expand form `n` found in an evaluated position at list depth `depth`. */
static Node *expand(Expander *x, Node *n, int depth) {
    Crisp *c = x->c;
    if (c->diag.fatal) return NULL;
    if (depth > x->ev.max_nesting) {
        diag_error(&c->diag, n->loc, n->origin, EVAL_E_SIZE,
                   "form nested more than %ld levels deep after macro expansion",
                   x->ev.max_nesting);
        return NULL;
    }
    const Macro *m;
    while ((m = macro_of(x, n)))
        if (!(n = macro_step(x, n, m))) return NULL;
    if (n->kind == N_HWVEC) return expand_kids(x, n, 0, depth);
    if (n->kind != N_LIST || n->nkids == 0) return n;
    Node *h = n->kids[0];
    if (h->kind != N_SYMBOL) return expand_kids(x, n, 1, depth);
    const char *k = h->key;
    if (is_opaque(k)) return n;
    if (is_directive(n)) {
        /* evaluated now; leaves an empty statement */
        if (!eval_directive(&x->ev, n)) return NULL;
        Node *p = syn_symbol(&c->arena, n->loc, "progn");
        Node *l = syn_list(&c->arena, n->loc, &p, 1);
        if (c->arena.exhausted) return NULL;
        p->origin = l->origin = n->origin;
        return l;
    }
    if (n->nkids == 1 && (!strcmp(k, "line") || !strcmp(k, "file")))
        return site_literal(x, n, k[0] == 'l');
    if (!strcmp(k, "defmacro") || !strcmp(k, "%defun") || !strcmp(k, "def-constraint")) {
        diag_error(&c->diag, n->loc, n->origin, EVAL_E_TOPLEVEL,
                   "`%s` is only allowed at top level", h->name);
        return NULL;
    }
    if (!strcmp(k, "def-kernel") || !strcmp(k, "def-function") || !strcmp(k, "def-grid-function"))
        return expand_kids(x, n, 3, depth);
    if (!strcmp(k, "def-const") || !strcmp(k, "def-constant") || !strcmp(k, "def-parameter") ||
        !strcmp(k, "multiple-value-bind"))
        return expand_kids(x, n, 2, depth);
    if (!strcmp(k, "let") || !strcmp(k, "let*")) return expand_let(x, n, depth);
    if (!strcmp(k, "%loop")) return expand_loop(x, n, depth);
    return expand_kids(x, n, 1, depth);
}

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
static void expand_toplevel(Expander *x, Node *n, Forms *out, int depth) {
    Crisp *c = x->c;
    const Macro *m;
    if (c->diag.fatal) return;
    while ((m = macro_of(x, n)))
        if (!(n = macro_step(x, n, m))) return;
    if (syn_is_form(n, "defmacro")) {
        eval_define_macro(&x->ev, n, 0);
        return;
    }
    if (syn_is_form(n, "%defun")) {
        eval_define_function(&x->ev, n);
        return;
    }
    if (syn_is_form(n, "def-constraint")) {
        eval_define_constraint(&x->ev, n);
        return;
    }
    if (is_directive(n)) {
        eval_directive(&x->ev, n);
        return;
    }
    if (syn_is_form(n, "progn") && depth < x->ev.max_nesting &&
        !(n->nkids > 1 && syn_is_form(n->kids[1], "declare"))) {
        for (int i = 1; i < n->nkids; i++) expand_toplevel(x, n->kids[i], out, depth + 1);
        return;
    }
    Node *e = expand(x, n, depth);
    if (!e) return;
    note_constant(x, e);
    if (syn_is_form(e, "def-type") && e->nkids == 3 && e->kids[1]->kind == N_SYMBOL &&
        !e->kids[1]->ann)
        eval_define_type(&x->ev, e->kids[1]->key, e->kids[2]);
    eval_define_struct(&x->ev, e);
    eval_note_toplevel(&x->ev, e);
    forms_push(&c->arena, out, e);
}

static void load_prelude(Expander *x) {
    Crisp *c = x->c;
    SrcFile *f = arena_alloc(&c->arena, sizeof *f);
    if (!f) return;
    f->name = "<prelude>";
    f->text = crisp_prelude_text;
    f->len = (int)strlen(crisp_prelude_text);
    Reader r;
    reader_init(&r, c);
    Forms forms = {0};
    reader_read_file(&r, f, &forms);
    for (int i = 0; i < forms.n; i++) {
        if (syn_is_form(forms.v[i], "defmacro"))
            eval_define_macro(&x->ev, forms.v[i], 1);
        else if (syn_is_form(forms.v[i], "%defun"))
            eval_define_function(&x->ev, forms.v[i]);
        else if (syn_is_form(forms.v[i], "def-constraint"))
            eval_define_constraint(&x->ev, forms.v[i]);
        else
            diag_error_at(&c->diag, forms.v[i], EVAL_E_TOPLEVEL,
                          "the prelude may only contain defmacro, %%defun and def-constraint forms");
    }
}

Forms expand_program(Crisp *c, Forms in) {
    Forms out = {0};
    Expander *x = arena_alloc(&c->arena, sizeof *x);
    if (!x) return out;
    x->c = c;
    eval_init(&x->ev, c);
    c->ev = &x->ev;
    if (!c->opt || !c->opt->no_prelude) load_prelude(x);
    for (int i = 0; i < in.n && !c->diag.fatal; i++) expand_toplevel(x, in.v[i], &out, 0);
    return out;
}

void expand_dump(StrBuf *b, Forms f) {
    for (int i = 0; i < f.n; i++) {
        if (i) sb_putc(b, '\n');
        syn_pprint(b, f.v[i], 0);
        sb_putc(b, '\n');
    }
}
