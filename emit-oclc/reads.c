/* reads.c - which local variables of a function are never read (reads.h).
 *
 * The checker declares what a form might need: a view's length and
 * offset, a tensor's dims and strides, a loop's thread id.  Many of those
 * are never read, and `clang -Wall -Werror` rejects an unused variable or
 * one that is only assigned.  Rather than teach every form to guess, the
 * emitter asks here, once per function: a declaration nobody reads whose
 * initializer has no effect is left out (repeatedly, since leaving one out
 * can leave the variables its initializer read unread in turn); one that is
 * assigned, or whose initializer has an effect, is kept and marked
 * `(void)name;`.
 *
 * A C name is unique among the variables alive at one point, but may be
 * used again once a variable's scope has ended (the checker's C-name
 * allocation), so every name is resolved the way C resolves it in the
 * printed code: through the declarations of the enclosing scopes (the
 * function, each `if` branch, each `for`; a nested checked block is
 * printed inline and opens none), innermost first.  Variables
 * that alias another (a vector bound to a side channel) carry the same C
 * name and count as the same variable.
 *
 * The scan also surveys every node for the file's header (survey.h): one
 * walk over each body, not two (issue 14).  Where the scan does not go
 * into a subtree (a name written, a view's extra kids), the survey walks it
 * there, so the survey sees every node in preorder, as its own walk did. */
#include "reads.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/ptrmap.h"

/* One declared C variable (a C_DECL declares one, or two for a view: the
 * pointer and its length). */
typedef struct Var {
    const char *name;
    const Node *init;   /* its initializer (expression or array list) */
    int reads, writes;
    int state;          /* OCLC_DECL_KEEP / _DROP / _MARK */
    int fixed;          /* a loop variable: never left out */
    int uses;           /* the variables its initializer reads: a list in
                           uses, or -1 */
} Var;

/* One variable an initializer reads, and the next of that initializer's. */
typedef struct Use {
    int var, next;
} Use;

/* Names: each C name once, with its visible binding; bindings form an
 * undo log for leaving blocks.  A name is found by its hash and length,
 * then its pointer (a variable's uses carry its Sym's very cname), then
 * its bytes. */
typedef struct Name {
    const char *name;
    uint32_t hash;
    int len;
    int top;            /* the visible binding, or -1 */
    int slot;           /* its slot, cleared for the next function */
} Name;

/* A declaration's first Var, in the order of the scan, which is the order
 * the emitter asks in (oclc_reads_decl). */
typedef struct Decl {
    const Node *node;
    int var;
} Decl;

/* The name (index in names) a C name's text read up to a '.' stands for,
 * remembered by the text's pointer (read_var): a variable's reads carry
 * its Sym's very cname, the pointer its declaration bound, so most are
 * found without hashing and comparing the text (issue 14).  Direct-mapped,
 * valid for the function of number `gen` only. */
#define SEEN_SLOTS 256
typedef struct Seen {
    const char *text;
    int name;
    unsigned gen;
} Seen;

typedef struct Bind {
    int name;           /* index in names */
    int var;            /* index in vars */
    int prev;           /* the binding it hid, or -1 */
} Bind;

/* The arrays are the emission's, reused from one function to the next
 * (heap memory: a function's arena scope would take them back), so a
 * function allocates nothing, nor clears what it did not use. */
struct OclcReads {
    Arena *a;           /* the function's: only for decl_map */
    const Program *p;
    int oom;            /* an array could not grow: keep everything */
    Var *vars;
    int nvars, capvars;
    Use *uses;
    int nuses, capuses;
    Name *names;
    int nnames, capnames;
    int *slots;         /* open addressing: name -> index in names, or -1 */
    int nslots;
    unsigned gen;       /* the function's number, from 1 (seen) */
    Seen seen[SEEN_SLOTS];
    Bind *binds;
    int nbinds, capbinds;
    Decl *decls;        /* C_DECL and C_FOR nodes, in the scan's order */
    int ndecls, capdecls;
    int cursor;         /* where oclc_reads_decl found the last one */
    PtrMap decl_map;    /* node -> 1 + index in decls, made if the order fails */
    int current;        /* the variable whose initializer is being scanned, or -1 */
    OclcSurvey *sv;     /* the survey made along (survey.h); never NULL while
                           scanning (`unseen` where nothing is to be noted) */
    OclcSurvey unseen;  /* a survey nobody reads */
};

/* The hash of `s` and its length in *len: up to its end, or with `dot` up
 * to its first '.' (s.data: a view field of struct s is a read of s). */
static uint32_t name_key(const char *s, int dot, int *len) {
    uint32_t h = STRMAP_HASH0;
    const char *p = s;
    for (; *p && !(dot && *p == '.'); p++) h = strmap_hash_step(h, (unsigned char)*p);
    *len = (int)(p - s);
    return h;
}

/* Array `v` with room for n + 1 elements (NULL when out of memory: then
 * `v` is unchanged, and r->oom set). */
static void *grow(OclcReads *r, void *v, int n, int *cap, size_t size) {
    if (n < *cap) return v;
    int nc = *cap ? *cap * 2 : 16;
    void *p = realloc(v, size * (size_t)nc);
    if (!p) {
        r->oom = 1;
        return NULL;
    }
    *cap = nc;
    return p;
}

/* The slot of the first `len` bytes of `name` (hash `h`): its index in
 * names, or -1 where it would go. */
static int *slot_of(OclcReads *r, const char *name, int len, uint32_t h) {
    uint32_t mask = (uint32_t)r->nslots - 1;
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
        int *s = &r->slots[i];
        if (*s < 0) return s;
        const Name *m = &r->names[*s];
        if (m->hash == h && m->len == len && (m->name == name || !memcmp(m->name, name, (size_t)len))) return s;
    }
}

/* The index of that name in names (created when `create`), or -1. */
static int name_index(OclcReads *r, const char *name, int len, uint32_t h, int create) {
    int *sl = NULL; /* where it goes, while the table is not remade */
    if (r->slots) {
        sl = slot_of(r, name, len, h);
        if (*sl >= 0 || !create) return *sl;
    } else if (!create) {
        return -1;
    }
    if ((r->nnames + 1) * 2 > r->nslots) {
        int n = r->nslots ? r->nslots * 2 : 32;
        int *slots = realloc(r->slots, sizeof(int) * (size_t)n);
        if (!slots) {
            r->oom = 1;
            return -1;
        }
        memset(slots, 0xff, sizeof(int) * (size_t)n); /* every slot -1 */
        r->slots = slots;
        r->nslots = n;
        for (int i = 0; i < r->nnames; i++) {
            int *s = slot_of(r, r->names[i].name, r->names[i].len, r->names[i].hash);
            *s = i;
            r->names[i].slot = (int)(s - r->slots);
        }
        sl = slot_of(r, name, len, h);
    }
    Name *v = grow(r, r->names, r->nnames, &r->capnames, sizeof(Name));
    if (!v) return -1;
    r->names = v;
    v[r->nnames] = (Name){name, h, len, -1, (int)(sl - r->slots)};
    *sl = r->nnames;
    return r->nnames++;
}

/* The variable the first `len` bytes of `name` (hash `h`) refer to here,
 * or -1 (a parameter, a global). */
static int lookup_key(OclcReads *r, const char *name, int len, uint32_t h) {
    int n = name_index(r, name, len, h, 0);
    return n < 0 || r->names[n].top < 0 ? -1 : r->binds[r->names[n].top].var;
}

static int lookup(OclcReads *r, const char *name) {
    if (!name) return -1;
    int len;
    uint32_t h = name_key(name, 0, &len);
    return lookup_key(r, name, len, h);
}

static inline Seen *seen_of(OclcReads *r, const char *text) {
    return &r->seen[((uintptr_t)text >> 3) & (SEEN_SLOTS - 1)];
}

/* Make `name` refer to variable `var` until the enclosing block ends. */
static void bind(OclcReads *r, const char *name, int var) {
    if (!name) return;
    int len;
    uint32_t h = name_key(name, 1, &len);
    int whole = !name[len]; /* no '.': read_var finds it by its pointer */
    if (!whole) h = name_key(name, 0, &len);
    int n = name_index(r, name, len, h, 1);
    if (n < 0) return;
    if (whole) *seen_of(r, name) = (Seen){name, n, r->gen};
    Bind *b = grow(r, r->binds, r->nbinds, &r->capbinds, sizeof(Bind));
    if (!b) return;
    r->binds = b;
    b[r->nbinds] = (Bind){n, var, r->names[n].top};
    r->names[n].top = r->nbinds++;
}

/* Leave a block: forget the names bound since `mark`. */
static void unbind_to(OclcReads *r, int mark) {
    while (r->nbinds > mark) {
        Bind *b = &r->binds[--r->nbinds];
        r->names[b->name].top = b->prev;
    }
}

static int new_var(OclcReads *r, const char *name, const Node *init) {
    Var *v = grow(r, r->vars, r->nvars, &r->capvars, sizeof(Var));
    if (!v) return -1;
    r->vars = v;
    memset(&v[r->nvars], 0, sizeof(Var));
    v[r->nvars].name = name;
    v[r->nvars].init = init;
    v[r->nvars].uses = -1;
    return r->nvars++;
}

/* A read of `name`, the C name of `s` or of its length.  A parameter's
 * is not looked up: parameters live through the whole function, so no
 * declaration of the body has their C names (the checker's C names are
 * unique among the variables alive at one point) and the read is of no
 * local variable (issue 14: half the reads in big1, ~90 instructions each,
 * found nothing). */
static void read_var(OclcReads *r, const Sym *s, const char *name) {
    if (!name || s->kind == SYM_PARAM) return;
    Seen *sn = seen_of(r, name);
    int n;
    if (sn->text == name && sn->gen == r->gen) {
        n = sn->name;
    } else {
        int len;
        uint32_t h = name_key(name, 1, &len); /* s.data: a view field of struct s */
        if ((n = name_index(r, name, len, h, 0)) < 0) return;
        *sn = (Seen){name, n, r->gen};
    }
    if (r->names[n].top < 0) return;
    int i = r->binds[r->names[n].top].var;
    r->vars[i].reads++;
    if (r->current >= 0) { /* remembered, to be taken back if the reader goes */
        Use *u = grow(r, r->uses, r->nuses, &r->capuses, sizeof(Use));
        if (!u) return;
        r->uses = u;
        Var *c = &r->vars[r->current];
        u[r->nuses] = (Use){i, c->uses};
        c->uses = r->nuses++;
    }
}

/* A call the emitter may leave out: the work-item queries and the math
 * builtins, and crisp's own id helpers.  User functions, atomics and the
 * other helpers (divisions with a remainder out-parameter, the debug log)
 * may have effects. */
static int call_is_pure(const Node *n, const Program *p) {
    switch (n->op) {
    case BI_CALL: return 0;
    case BI_HELPER: {
        const Helper *h = p && n->ival >= 0 && n->ival < p->nhelpers ? p->helpers[n->ival] : NULL;
        return h && (h->kind == H_GLOBAL_ID || h->kind == H_GLOBAL_LINEAR_ID || h->kind == H_LOCAL_LINEAR_ID ||
                     h->kind == H_GLOBAL_LINEAR_SIZE || h->kind == H_LOCAL_LINEAR_SIZE || h->kind == H_POW2_BELOW);
    }
    default: return n->op >= BI_ABS && n->op <= BI_WORK_DIM;
    }
}

static int is_pure(const Node *n, const Program *p) {
    if (!n) return 1;
    switch (n->kind) {
    case N_C_ASSIGN:
    case N_C_ATOMIC:
    case N_C_BARRIER:
    case N_C_BLOCK: return 0;
    case N_C_CALL:
        if (!call_is_pure(n, p)) return 0;
        break;
    default: break;
    }
    for (int i = 0; i < n->nkids; i++)
        if (!is_pure(n->kids[i], p)) return 0;
    return 1;
}

static void add_decl(OclcReads *r, const Node *n, int var) {
    Decl *d = grow(r, r->decls, r->ndecls, &r->capdecls, sizeof(Decl));
    if (!d) return;
    r->decls = d;
    d[r->ndecls++] = (Decl){n, var};
}

static void scan(OclcReads *r, const Node *n);

/* The survey of n's kids from `from` on, which the scan does not visit. */
static void survey_kids(OclcReads *r, const Node *n, int from) {
    for (int i = from; i < n->nkids; i++) oclc_survey_tree(r->sv, n->kids[i]);
}

/* A declaration: its initializer is read before its name is visible. */
static void scan_decl(OclcReads *r, const Node *n) {
    const Sym *s = n->sym;
    if (!s || (s->ty && s->ty->kind == TY_IDENT)) { /* not emitted */
        survey_kids(r, n, 0);
        return;
    }
    int is_vec = s->ty && s->ty->kind == TY_VECTOR && !s->is_view;
    int first = new_var(r, s->cname, s->is_view ? (n->nkids > 0 ? n->kids[0] : NULL) : is_vec ? sym_rare(s)->init : n->nkids ? n->kids[0] : NULL);
    int second = s->is_view ? new_var(r, s->len_cname, n->nkids > 1 ? n->kids[1] : NULL) : -1;
    if (first < 0) {
        survey_kids(r, n, 0);
        return;
    }
    add_decl(r, n, first);
    int saved = r->current;
    r->current = first;
    if (s->is_view) {
        scan(r, n->nkids > 0 ? n->kids[0] : NULL);
        r->current = second;
        scan(r, n->nkids > 1 ? n->kids[1] : NULL);
        survey_kids(r, n, 2);
    } else if (is_vec) {
        /* the initializer is no kid: not surveyed (the kids are) */
        survey_kids(r, n, 0);
        OclcSurvey *sv = r->sv;
        r->sv = &r->unseen;
        scan(r, sym_rare(s)->init);
        r->sv = sv;
    } else {
        for (int i = 0; i < n->nkids; i++) scan(r, n->kids[i]);
    }
    r->current = saved;
    bind(r, s->cname, first);
    if (second >= 0) bind(r, s->len_cname, second);
}

static void scan(OclcReads *r, const Node *n) {
  again:
    if (!n) return;
    oclc_survey_node(r->sv, n);
    switch (n->kind) {
    case N_C_VAR:
        if (n->sym) read_var(r, n->sym, n->sym->cname);
        if (n->nkids) survey_kids(r, n, 0);
        return;
    case N_C_LENGTH:
        if (n->sym) read_var(r, n->sym, n->sym->len_cname);
        if (n->nkids) survey_kids(r, n, 0);
        return;
    case N_C_ASSIGN: {
        /* `x = e` and `x += e` do not read x in clang's sense */
        const Node *lhs = n->kids[0];
        if (lhs && lhs->kind == N_C_VAR && lhs->sym && lhs->sym->kind != SYM_RETPTR) {
            int i = lhs->sym->kind == SYM_PARAM ? -1 : lookup(r, lhs->sym->cname); /* as in read_var */
            if (i >= 0) r->vars[i].writes++;
            oclc_survey_node(r->sv, lhs);
            if (lhs->nkids) survey_kids(r, lhs, 0);
        } else {
            scan(r, lhs);
        }
        scan(r, n->kids[1]);
        survey_kids(r, n, 2);
        return;
    }
    case N_C_DECL: scan_decl(r, n); return;
    case N_C_BLOCK: /* printed inline (emit_oclc.c block_body): not a C scope */
        break;
    case N_C_FOR: {
        /* the loop variable lives in the loop; a step the emitter prints
           as `v += k` (emit_oclc.c for_out) does not read it */
        int mark = r->nbinds;
        scan(r, n->kids[0]);
        int v = n->sym ? new_var(r, n->sym->cname, NULL) : -1;
        if (v >= 0) {
            r->vars[v].fixed = 1;
            bind(r, n->sym->cname, v);
            add_decl(r, n, v);
        }
        const Node *step = n->nkids > 2 ? n->kids[2] : NULL;
        int self_step = step && step->kind == N_C_BINARY && step->kids[0]->kind == N_C_VAR && step->kids[0]->sym == n->sym &&
                        (step->op == OP_ADD || step->op == OP_SUB || step->op == OP_MUL || step->op == OP_DIV);
        for (int i = 1; i < n->nkids; i++) {
            if (i == 2 && self_step) { /* the step's variable and operator surveyed, not scanned */
                oclc_survey_node(r->sv, step);
                oclc_survey_tree(r->sv, step->kids[0]);
                scan(r, step->nkids > 1 ? step->kids[1] : NULL);
                survey_kids(r, step, 2);
            } else {
                scan(r, n->kids[i]);
            }
        }
        unbind_to(r, mark);
        return;
    }
    case N_C_IF: {
        for (int i = 0; i < n->nkids; i++) {
            int mark = r->nbinds;
            scan(r, n->kids[i]);
            unbind_to(r, mark);
        }
        return;
    }
    default: break;
    }
    /* the last kid by the loop, not a call (a body is mostly deep chains);
       the others' variables and leaves without a call (half the nodes) */
    int k = n->nkids;
    if (!k) return;
    for (int i = 0; i < k - 1; i++) {
        const Node *c = n->kids[i];
        if (!c) continue;
        if (c->kind == N_C_VAR) {
            if (c->sym) read_var(r, c->sym, c->sym->cname);
            oclc_survey_node(r->sv, c);
            if (c->nkids) survey_kids(r, c, 0);
        } else if (c->nkids || c->kind == N_C_LENGTH || c->kind == N_C_DECL || c->kind == N_C_FOR) {
            scan(r, c);
        } else {
            oclc_survey_node(r->sv, c);
        }
    }
    n = n->kids[k - 1];
    goto again;
}

OclcReads *oclc_reads_new(void) {
    return calloc(1, sizeof(OclcReads));
}

void oclc_reads_free(OclcReads *r) {
    if (!r) return;
    free(r->vars);
    free(r->uses);
    free(r->names);
    free(r->slots);
    free(r->binds);
    free(r->decls);
    free(r);
}

int oclc_reads_scan(OclcReads *r, Arena *a, const Node *body, const Program *p, OclcSurvey *sv) {
    if (!r) {
        if (sv) oclc_survey_tree(sv, body);
        return 0;
    }
    /* the previous function's names out of the table, its counts to 0 */
    for (int i = 0; i < r->nnames; i++) r->slots[r->names[i].slot] = -1;
    r->nvars = r->nuses = r->nnames = r->nbinds = r->ndecls = r->cursor = 0;
    r->decl_map = (PtrMap){0}; /* in the previous function's arena scope */
    r->a = a;
    r->p = p;
    r->oom = 0;
    r->gen++; /* every seen entry out of date */
    r->current = -1;
    r->sv = sv ? sv : &r->unseen;
    scan(r, body);
    r->sv = NULL;
    if (r->oom || a->exhausted) return 0;
    /* leave out what nobody reads, until nothing changes */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < r->nvars; i++) {
            Var *v = &r->vars[i];
            if (v->state != OCLC_DECL_KEEP || v->reads > 0) continue;
            if (v->fixed) { /* a loop variable only counting: marked in the loop */
                v->state = OCLC_DECL_MARK;
                continue;
            }
            if (v->writes == 0 && is_pure(v->init, p)) {
                v->state = OCLC_DECL_DROP;
                for (int k = v->uses; k >= 0; k = r->uses[k].next) r->vars[r->uses[k].var].reads--;
                changed = 1;
            } else {
                v->state = OCLC_DECL_MARK;
            }
        }
    }
    return 1;
}

/* The index in decls of `decl`, or -1: the emitter asks in the scan's
 * order, so at the cursor or a little after it; a table otherwise. */
static int decl_index(OclcReads *r, const Node *decl) {
    for (int i = r->cursor; i < r->ndecls && i < r->cursor + 4; i++)
        if (r->decls[i].node == decl) return r->cursor = i;
    if (!r->decl_map.cap) {
        for (int i = 0; i < r->ndecls; i++) ptrmap_put(r->a, &r->decl_map, r->decls[i].node, (void *)(intptr_t)(i + 1));
    }
    intptr_t k = (intptr_t)ptrmap_get(&r->decl_map, decl);
    if (!k) return -1;
    return r->cursor = (int)k - 1;
}

int oclc_reads_decl(OclcReads *r, const Node *decl, int part) {
    if (!r || !decl) return OCLC_DECL_KEEP;
    int d = decl_index(r, decl);
    if (d < 0 || r->decls[d].var + part >= r->nvars) return OCLC_DECL_KEEP;
    return r->vars[r->decls[d].var + part].state;
}
