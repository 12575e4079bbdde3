/* optin.c - which functions each opt-in check runs on (spec "Static
 * Analysys", "declaim", "--no-static-analysis"), the register estimate of
 * max-registers / warn-max-registers, the driver of the analysis pass and
 * --dump=analysis.
 *
 * Why: the opt-ins are elected in two places - `(declaim (check-x))` at
 * top level (every function of that file, or the ones named with #'f) and
 * `(declare (check-x))` at the top of a def-kernel / def-function - and
 * both must agree on names and shapes.  The checks themselves live in
 * uniformity.c and memory.c. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis_int.h"
#include "extent.h"
#include "localmem.h"

static const struct {
    const char *name;
    int bit;
} check_names[] = {
    {"check-barriers", CK_BARRIERS},
    {"check-divergence", CK_DIVERGENCE},
    {"check-coalesce", CK_COALESCE},
    {"check-bank-conflicts", CK_BANKS},
    {"max-registers", 0},
    {"warn-max-registers", 0},
    {NULL, 0},
};

static const char *known_list = "check-barriers, check-divergence, check-coalesce, check-bank-conflicts, max-registers, warn-max-registers";

/* The spec of an opt-in: `(check-x ARGS...)` or a bare `check-x`. */
static const char *spec_name(const Node *e) {
    if (e->kind == N_SYMBOL) return e->key;
    if (e->kind == N_LIST && e->nkids && e->kids[0]->kind == N_SYMBOL) return e->kids[0]->key;
    return NULL;
}

static int check_bit(const char *name, int *known) {
    /* every name of check_names begins with c, m or w: the others (every
       function's declare has one, issue 14) are answered at once */
    if (!name || (name[0] != 'c' && name[0] != 'm' && name[0] != 'w')) {
        *known = 0;
        return 0;
    }
    for (int i = 0; check_names[i].name; i++)
        if (syn_streq(check_names[i].name, name)) {
            *known = 1;
            return check_names[i].bit;
        }
    *known = 0;
    return 0;
}

/* A register budget: a positive integer literal. */
static int budget(Analysis *an, const Node *e) {
    if (e->kind != N_LIST || e->nkids != 2 || e->kids[1]->kind != N_INT || e->kids[1]->ival <= 0 || e->kids[1]->ival > 65536) {
        diag_error_at(an->d, e, "E1115", "expected (%s N) with a register budget N from 1 to 65536", spec_name(e));
        return 0;
    }
    return (int)e->kids[1]->ival;
}

/* (declare (check-x) ...) at the top of the function's definition. */
static void own_declarations(Analysis *an, FnSum *s) {
    const Node *def = s->fn->def;
    if (!s->fn->analysis_optin) return; /* the checker saw none (issue 14) */
    if (!def || def->kind != N_LIST) return;
    for (int i = 3; i < def->nkids; i++) {
        const Node *d = def->kids[i];
        if (d->kind == N_STRING) continue;
        if (!syn_is_form(d, "declare")) break;
        for (int j = 1; j < d->nkids; j++) {
            const Node *e = d->kids[j];
            const char *name = spec_name(e);
            int known;
            int bit = check_bit(name, &known);
            if (!known) continue; /* the checker judged the others */
            if (syn_streq(name, "max-registers") || syn_streq(name, "warn-max-registers")) {
                int n = budget(an, e);
                if (name[0] == 'm') s->max_regs = n;
                else s->warn_regs = n;
                s->regs_at = e;
                continue;
            }
            if (e->kind == N_LIST && e->nkids > 1) {
                diag_error_at(an->d, e->kids[1], "E1113",
                              "(%s) in a declare applies to its own function; name functions with #'f in a top-level (declaim (%s #'f))",
                              name, name);
                continue;
            }
            s->checks |= bit;
        }
    }
}

static FnSum *sum_at(Analysis *an, int i) {
    return &an->sumv[i];
}

/* (declaim (check-x [#'f ...]) ...) */
static void declaims(Analysis *an) {
    Program *p = an->p;
    for (int k = 0; k < p->ndeclaims; k++) {
        const Node *dm = p->declaims[k];
        for (int j = 1; j < dm->nkids; j++) {
            const Node *e = dm->kids[j];
            const char *name = spec_name(e);
            int known;
            int bit = check_bit(name, &known);
            if (!known) {
                diag_warning_at(an->d, e, "W1106", "unknown static analysis `%s` ignored (known: %s)",
                                name ? name : syn_to_string(an->a, e, 30), known_list);
                continue;
            }
            if (!bit) {
                diag_error_at(an->d, e, "E1113", "`%s` sets one function's register budget: put (%s N) in that function's declare, not in a declaim",
                              name, name);
                continue;
            }
            if (e->kind != N_LIST || e->nkids == 1) {
                /* every function and kernel of this file */
                for (int i = 0; i < p->nfuncs; i++) {
                    FnSum *s = sum_at(an, i);
                    if (s && s->fn->def && s->fn->def->loc.fid == dm->loc.fid) s->checks |= bit;
                }
                continue;
            }
            for (int a = 1; a < e->nkids; a++) {
                const Node *f = e->kids[a];
                if (syn_is_form(f, "function") && f->nkids == 2) f = f->kids[1];
                if (f->kind != N_SYMBOL) {
                    diag_error_at(an->d, e->kids[a], "E1114", "expected a function or kernel as #'NAME in (%s ...), found `%s`", name,
                                  syn_to_string(an->a, e->kids[a], 30));
                    continue;
                }
                int found = 0;
                for (int i = 0; i < p->nfuncs; i++) {
                    FnSum *s = sum_at(an, i);
                    const CFunc *fn = s ? s->fn : NULL;
                    if (!fn) continue;
                    int same = fn->kind == FN_KERNEL ? syn_streq(fn->name, f->name) : !strcasecmp(fn->name, f->name);
                    if (same) {
                        s->checks |= bit;
                        found = 1;
                    }
                }
                if (!found)
                    diag_error_at(an->d, e->kids[a], "E1114", "(%s #'%s) names no function or kernel of the program", name, f->name);
            }
        }
    }
}

/* ---- the register estimate ---- */

/* 32-bit registers a value of type `t` holds. */
static int regs_of(const Type *t) {
    if (!t) return 1;
    switch (t->kind) {
    case TY_VECTOR:
        if (t->as == AS_PRIVATE && t->length > 0) return (int)(t->length * regs_of(t->elem) > 4096 ? 4096 : t->length * regs_of(t->elem));
        return 2; /* a pointer */
    case TY_VOID:
    case TY_IDENT: return 0;
    default: {
        int n = ty_sizeof(t);
        return n <= 4 ? 1 : (n + 3) / 4;
    }
    }
}

typedef struct Live {
    const Sym *sym;
    long first, last;
    const Node *ext;     /* outermost loop it is used in after its declaration */
} Live;

typedef struct LoopSpan {
    const Node *loop;
    long start, end;
} LoopSpan;

typedef struct Need {
    long pos;
    int regs;
} Need;

typedef struct Est {
    Fn *f;
    long pos;
    Live *lv;
    int nlv, caplv;
    LoopSpan *loops;
    int nloops, caploops;
    const Node *open[64];   /* loops being walked */
    long open_start[64];
    int nopen;
    Need *needs;            /* expression temporaries of each statement */
    int nneed, capneed;
} Est;

/* Grow array *V of N elements of SIZE bytes for one more. */
static int grow(Arena *a, void **v, int n, int *cap, size_t size) {
    if (n < *cap) return 1;
    int nc = *cap ? *cap * 2 : 32;
    void *nv = arena_alloc(a, size * (size_t)nc);
    if (!nv) return 0;
    if (n) memcpy(nv, *v, size * (size_t)n);
    *v = nv;
    *cap = nc;
    return 1;
}

static Live *live_of(Est *e, const Sym *s, int create) {
    for (int i = 0; i < e->nlv; i++)
        if (e->lv[i].sym == s) return &e->lv[i];
    if (!create) return NULL;
    if (!grow(e->f->an->a, (void **)&e->lv, e->nlv, &e->caplv, sizeof(Live))) return NULL;
    Live *l = &e->lv[e->nlv++];
    l->sym = s;
    l->first = l->last = e->pos;
    l->ext = NULL;
    return l;
}

/* Registers an expression needs for its temporaries (Sethi-Ullman). */
static int need(Est *e, const Node *n) {
    if (!n || n->nkids == 0) return n && (n->kind == N_C_VAR || n->kind == N_C_INTLIT) ? 0 : 1;
    int best = 0;
    for (int i = 0; i < n->nkids; i++) {
        int k = need(e, n->kids[i]) + (i > 0);
        if (k > best) best = k;
    }
    if (n->kind == N_C_CALL) {
        FnSum *g = uni_sum_of_call(e->f->an, n);
        if (g && g->regs > best) best = g->regs; /* inlined in practice */
    }
    return best;
}

static void use(Est *e, const Sym *s) {
    Live *l = live_of(e, s, 1);
    if (!l) return;
    l->last = e->pos;
    for (int i = 0; i < e->nopen; i++)
        if (e->open_start[i] > l->first) {
            if (!l->ext) l->ext = e->open[i];
            break;
        }
}

static void est_walk(Est *e, const Node *n, int depth) {
    if (!n || depth > 10000) return;
    e->pos++;
    if (n->kind == N_C_DECL && n->sym) {
        Live *l = live_of(e, n->sym, 1);
        if (l) l->first = l->last = e->pos;
        if (sym_rare(n->sym)->len_sym && (l = live_of(e, sym_rare(n->sym)->len_sym, 1))) l->first = l->last = e->pos;
    }
    if (n->kind == N_C_VAR && n->sym) use(e, n->sym);
    if (n->kind == N_C_LENGTH && n->sym && sym_rare(n->sym)->len_sym) use(e, sym_rare(n->sym)->len_sym);
    if ((n->kind == N_C_EXPR || n->kind == N_C_DECL || n->kind == N_C_RETURN || n->kind == N_C_IF) && n->nkids &&
        grow(e->f->an->a, (void **)&e->needs, e->nneed, &e->capneed, sizeof(Need))) {
        e->needs[e->nneed].pos = e->pos;
        e->needs[e->nneed++].regs = need(e, n->kids[0]);
    }
    int is_loop = n->kind == N_C_FOR && e->nopen < 64;
    if (is_loop) {
        e->open[e->nopen] = n;
        e->open_start[e->nopen++] = e->pos;
        if (n->sym) {
            Live *l = live_of(e, n->sym, 1);
            if (l) l->first = l->last = e->pos;
        }
    }
    if (n->kind == N_C_DECL && n->sym && sym_rare(n->sym)->init) est_walk(e, sym_rare(n->sym)->init, depth + 1);
    for (int i = 0; i < n->nkids; i++) est_walk(e, n->kids[i], depth + 1);
    if (is_loop) {
        e->nopen--;
        LoopSpan sp = {n, e->open_start[e->nopen], e->pos};
        if (!grow(e->f->an->a, (void **)&e->loops, e->nloops, &e->caploops, sizeof(LoopSpan))) return;
        e->loops[e->nloops++] = sp;
    }
}

/* The estimate: the most 32-bit registers live at once - the private
 * variables and parameters from their declaration to their last use (to
 * the end of a loop that uses them), plus the temporaries of the
 * statement there - and 2 for the work-item's ids. */
int opt_estimate_registers(Fn *f) {
    Est e;
    memset(&e, 0, sizeof e);
    e.f = f;
    for (int i = 0; i < f->fn->nparams; i++) {
        Live *l = live_of(&e, f->fn->params[i], 1);
        if (l) l->first = l->last = 0;
    }
    est_walk(&e, f->fn->body, 0);
    for (int i = 0; i < e.nlv; i++)
        if (e.lv[i].ext)
            for (int j = 0; j < e.nloops; j++)
                if (e.loops[j].loop == e.lv[i].ext && e.loops[j].end > e.lv[i].last) e.lv[i].last = e.loops[j].end;
    int best = 0;
    for (int k = 0; k < e.nneed; k++) {
        long p = e.needs[k].pos;
        int r = 2 + e.needs[k].regs;
        for (int i = 0; i < e.nlv; i++)
            if (e.lv[i].first <= p && p <= e.lv[i].last) r += regs_of(e.lv[i].sym->ty);
        if (r > best) best = r;
    }
    if (best == 0) best = 2;
    FnSum *s = f->sum;
    int limit = s->max_regs ? s->max_regs : s->warn_regs;
    if (limit && best > limit)
        diag_warning_at(f->an->d, s->regs_at ? s->regs_at : f->fn->def, "W1105",
                        "register pressure of `%s` is estimated at %d, above the declared budget of %d: fewer work-items fit on a compute unit at once%s",
                        f->fn->name, best, limit, s->max_regs ? "" : " (warn-max-registers)");
    if (limit && best > limit)
        diag_note(f->an->d, f->fn->def->loc,
                  "the estimate counts the 32-bit registers of the private values live at once (64-bit values and pointers count 2); the device compiler's own figure may differ");
    return best;
}

/* ---- the driver ---- */

void analysis_set_text(Analysis *an, Node *n, char *heap) {
    if (an->nfix == an->capfix) {
        int nc = an->capfix ? an->capfix * 2 : 8;
        Node **vn = realloc(an->fix_node, sizeof *vn * (size_t)nc);
        if (vn) an->fix_node = vn;
        char **vt = realloc(an->fix_text, sizeof *vt * (size_t)nc);
        if (vt) an->fix_text = vt;
        if (!vn || !vt) { /* out of memory: the comment keeps its old text */
            free(heap);
            return;
        }
        an->capfix = nc;
    }
    an->fix_node[an->nfix] = n;
    an->fix_text[an->nfix++] = heap;
    n->text = heap;
}

void analysis_release(Crisp *c, Analysis *an) {
    if (!an) return;
    ArenaMark m = an->scope;
    Node **fn = an->fix_node;
    char **ft = an->fix_text;
    int n = an->nfix;
    arena_scope_end(&c->arena, m); /* `an` is gone from here on */
    for (int i = 0; i < n; i++) {
        fn[i]->text = arena_strdup(&c->arena, ft[i]);
        free(ft[i]);
    }
    free(fn);
    free(ft);
}

static Analysis *analysis_run_1(Crisp *c, Program *p, ArenaMark scope);

Analysis *analysis_run(Crisp *c, Program *p) {
    /* everything the analysis allocates is dead after it but the texts of
       dropped captures (analysis_set_text) */
    ArenaMark scope = arena_scope_begin(&c->arena);
    Analysis *an = analysis_run_1(c, p, scope);
    if (!an) arena_scope_keep(&c->arena);
    return an;
}

static Analysis *analysis_run_1(Crisp *c, Program *p, ArenaMark scope) {
    Analysis *an = arena_alloc(&c->arena, sizeof *an);
    if (!an) return NULL;
    memset(an, 0, sizeof *an);
    an->scope = scope;
    an->c = c;
    an->a = &c->arena;
    an->d = &c->diag;
    an->p = p;
    an->optin = !c->opt->no_static_analysis;
    an->dump = c->opt->dump == DUMP_ANALYSIS;
    ptrmap_reserve(an->a, &an->sums, p->nfuncs);
    an->sumv = arena_alloc(an->a, sizeof(FnSum) * (size_t)(p->nfuncs ? p->nfuncs : 1));
    if (!an->sumv) return NULL;
    for (int i = 0; i < p->nfuncs; i++) {
        FnSum *s = &an->sumv[i]; /* zero (arena memory): dump is an empty StrBuf */
        s->fn = p->funcs[i];
        if (!ptrmap_put(an->a, &an->sums, s->fn->cname, s)) return NULL;
    }
    if (an->optin) {
        declaims(an);
        for (int i = 0; i < p->nfuncs; i++) own_declarations(an, sum_at(an, i));
    } else {
        for (int i = 0; i < p->nfuncs; i++) sum_at(an, i)->checks = 0;
    }
    /* callees come before their callers in p->funcs */
    arena_set_cap(&an->tmp, c->arena.cap);
    unsigned char *walk = uni_plan(an);
    if (walk) {
        an->pending = arena_alloc(&an->tmp, (size_t)p->nfuncs + 1);
        if (an->pending)
            for (int i = 0; i < p->nfuncs; i++) an->pending[i] = 1;
        else
            walk = NULL;
    }
    for (int i = 0; i < p->nfuncs && !c->diag.fatal; i++)
        if (!walk || (walk[i] && an->pending[i])) uni_function(an, sum_at(an, i));
    arena_free(&an->tmp);
    for (int i = 0; i < p->nfuncs && !c->diag.fatal; i++) extent_constvec_check(an->a, p, p->funcs[i], an->d);
    /* after uniformity, which may drop `uniform` slots */
    for (int i = 0; i < p->nfuncs && !c->diag.fatal; i++) localmem_check(an, p->funcs[i]);
    return an;
}

void analysis_dump(StrBuf *b, const Analysis *an) {
    for (int i = 0; i < an->p->nfuncs; i++) {
        FnSum *s = &an->sumv[i];
        const CFunc *fn = s->fn;
        sb_printf(b, "(%s %s\n", fn->kind == FN_KERNEL ? "kernel" : fn->kind == FN_GRID ? "grid-function" : "function", fn->cname);
        sb_puts(b, sb_cstr(&s->dump));
        if (s->checks) {
            sb_puts(b, "  checks");
            for (int k = 0; check_names[k].name; k++)
                if (check_names[k].bit & s->checks) sb_printf(b, " %s", check_names[k].name);
            sb_putc(b, '\n');
        }
        if (s->regs) sb_printf(b, "  registers %d (estimate)\n", s->regs);
        const LocalMem *lm = fn->kind == FN_KERNEL ? localmem_kernel(an->a, fn) : NULL;
        if (lm && lm->nparts && lm->at_size >= 0)
            sb_printf(b, "  local memory %lld bytes at %lld work-items (%lld fixed)\n", (long long)lm->at_size,
                      (long long)lm->local_size, (long long)lm->static_bytes);
        else if (lm && lm->nparts)
            sb_printf(b, "  local memory sized at launch (%lld fixed)\n", (long long)lm->static_bytes);
        sb_puts(b, ")\n");
        sb_free(&s->dump);
    }
}
