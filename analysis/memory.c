/* memory.c - check-coalesce and check-bank-conflicts (spec "Static
 * Analysys": "check-coalesce", "check-bank-conflicts").
 *
 * Why: both verdicts follow from one question about each index
 * expression: when the local id in dimension 0 grows by one (the next
 * work-item of a warp), how far does the index move?  An index is read as
 * k * lid0 + (the same for the whole warp) when it can be: ids of
 * dimension 0 count 1 (global, local and linear ids alike), ids of other
 * dimensions and uniform values 0 (a warp runs along dimension 0), sums
 * add, products with a constant scale, variables take the form of their
 * single value, loop indices that of their start when the step adds a
 * uniform value.  Anything else is unknown, and an unknown access is never
 * reported: only what the analysis can prove.
 *   - global and constant memory: k = 0 (one address for the warp) or 1
 *     (neighbours) is coalesced; another constant k, a stride that is a
 *     uniform run-time value, or an index read from memory (a gather) is
 *     not;
 *   - local memory: 32 banks of 4 bytes, a warp's request served 128 bytes
 *     at a time; distinct words of one bank in one request are a k-way
 *     conflict (thread i at slm[i * 32] is 32-way), a shared word is a
 *     broadcast. */
#include <string.h>

#include "analysis_int.h"

typedef struct Aff {
    int ok;              /* k * lid0 + (warp-uniform) */
    int64_t k;           /* the coefficient, when known */
    const Node *ksym;    /* ... or the uniform run-time value it is */
    int indirect;        /* depends on a value read from memory */
} Aff;

static Aff aff_k(int64_t k) {
    Aff a = {1, k, NULL, 0};
    return a;
}

static Aff aff_unknown(int indirect) {
    Aff a = {0, 0, NULL, indirect};
    return a;
}

static int is_zero(Aff a) {
    return a.ok && !a.ksym && a.k == 0;
}

static int const_value(const Node *e, int64_t *out) {
    e = strip_casts(e);
    if (!e) return 0;
    if (e->kind == N_C_INTLIT && !e->text) {
        *out = e->ival;
        return 1;
    }
    int64_t a, b;
    if (e->kind == N_C_BINARY && const_value(e->kids[0], &a) && const_value(e->kids[1], &b)) {
        switch (e->op) {
        case OP_ADD: *out = (int64_t)((uint64_t)a + (uint64_t)b); return 1;
        case OP_SUB: *out = (int64_t)((uint64_t)a - (uint64_t)b); return 1;
        case OP_MUL: *out = (int64_t)((uint64_t)a * (uint64_t)b); return 1;
        case OP_DIV: if (!b) return 0; *out = a / b; return 1;
        case OP_SHL: if (b < 0 || b > 62) return 0; *out = (int64_t)((uint64_t)a << b); return 1;
        default: return 0;
        }
    }
    return 0;
}

static Aff aff(Fn *f, const Node *e, int depth);

/* Does `e` use a value read from memory that differs between work-items
 * (directly, or through a variable's single value)? */
static int reads_memory(Fn *f, const Node *e, int depth) {
    if (!e || depth > 32) return 0;
    if (e->kind == N_C_INDEX) return !uni_ok(uni_peek(f, e, NULL));
    if (e->kind == N_C_ATOMIC || uni_call_info(f->an, e).atomic) return 1;
    if (e->kind == N_C_VAR) {
        VarInfo *v = uni_var(f, e->sym);
        return v && v->init && !v->nassign && reads_memory(f, v->init, depth + 1);
    }
    for (int i = 0; i < e->nkids; i++)
        if (reads_memory(f, e->kids[i], depth + 1)) return 1;
    return 0;
}

/* A loop index: the form of its start, when each step adds a uniform value. */
static Aff aff_loop_var(Fn *f, const Node *loop, const Sym *i, int depth) {
    const Node *st = loop->kids[2];
    if (st->kind == N_C_BINARY && (st->op == OP_ADD || st->op == OP_SUB) && st->kids[0]->kind == N_C_VAR &&
        st->kids[0]->sym == i && uni_ok(uni_peek(f, st->kids[1], i)))
        return aff(f, loop->kids[0], depth + 1);
    if (uni_ok(uni_peek(f, loop->kids[0], NULL)) && uni_ok(uni_peek(f, st, i))) return aff_k(0);
    return aff_unknown(0);
}

static Aff aff_1(Fn *f, const Node *e, int depth);

static Aff aff(Fn *f, const Node *e, int depth) {
    Aff a = aff_1(f, e, depth);
    if (!a.ok && !a.indirect) a.indirect = reads_memory(f, e, 0);
    return a;
}

static Aff aff_1(Fn *f, const Node *e, int depth) {
    if (!e || depth > 32) return aff_unknown(0);
    Uni u = uni_peek(f, e, NULL);
    if (u.lv <= L_WARP) return aff_k(0); /* the same along a warp */
    switch (e->kind) {
    case N_C_CAST: return strip_casts(e) != e ? aff(f, strip_casts(e), depth + 1) : aff_unknown(0);
    case N_C_CALL: {
        CallInfo ci = uni_call_info(f->an, e);
        if (ci.thread_id) return aff_k(ci.linear || ci.dim == 0 ? 1 : 0);
        return aff_unknown(0);
    }
    case N_C_VAR: {
        VarInfo *v = uni_var(f, e->sym);
        if (!v) return aff_unknown(0);
        if (v->loop) return aff_loop_var(f, v->loop, e->sym, depth);
        if (v->init && !v->nassign) return aff(f, v->init, depth + 1);
        return aff_unknown(0);
    }
    case N_C_INDEX: return aff_unknown(1); /* a value read from memory */
    case N_C_BINARY: {
        Aff a = aff(f, e->kids[0], depth + 1), b = aff(f, e->kids[1], depth + 1);
        int ind = a.indirect | b.indirect;
        if (e->op == OP_ADD || e->op == OP_SUB) {
            if (!a.ok || !b.ok) return aff_unknown(ind);
            if (is_zero(b)) return a;
            if (is_zero(a)) {
                if (e->op == OP_SUB && !b.ksym) b.k = -b.k;
                return b.ksym && e->op == OP_SUB ? aff_unknown(ind) : b;
            }
            if (a.ksym || b.ksym) return aff_unknown(ind);
            return aff_k(e->op == OP_ADD ? a.k + b.k : a.k - b.k);
        }
        if (e->op == OP_MUL || e->op == OP_SHL) {
            if (!a.ok || !b.ok) return aff_unknown(ind);
            int64_t c;
            if (e->op == OP_SHL) {
                if (!is_zero(b) || !const_value(e->kids[1], &c) || c < 0 || c > 30 || a.ksym) return aff_unknown(ind);
                return aff_k(a.k * ((int64_t)1 << c));
            }
            if (is_zero(a) && is_zero(b)) return aff_k(0);
            const Node *other = is_zero(a) ? e->kids[0] : e->kids[1];
            Aff lin = is_zero(a) ? b : a;
            if (!is_zero(a) && !is_zero(b)) return aff_unknown(ind);
            if (lin.ksym) return aff_unknown(ind);
            if (const_value(other, &c)) return aff_k(lin.k * c);
            if (lin.k == 0) return aff_k(0);
            Aff r = {1, 0, other, 0};
            return r;
        }
        if (is_zero(a) && is_zero(b)) return aff_k(0);
        return aff_unknown(ind);
    }
    case N_C_SELECT: {
        Aff a = aff(f, e->kids[1], depth + 1), b = aff(f, e->kids[2], depth + 1);
        if (a.ok && b.ok && !a.ksym && !b.ksym && a.k == b.k) return a;
        return aff_unknown(a.indirect | b.indirect);
    }
    default: return aff_unknown(0);
    }
}

/* ---- verdicts ---- */

/* One access to report, grouped with the others of the same vector and
 * pattern so a loop body writing eight fields gives one warning. */
typedef struct Finding {
    const Node *at;
    const Sym *vec;
    Aff a;
    int esize;
    int local;
    int degree;              /* local: the conflict degree */
    int count;               /* accesses in its group (on the first) */
    int lines[8];
    int nlines;
    struct Finding *group;   /* the first of its group (NULL: itself) */
} Finding;

typedef struct MemWalk {
    Fn *f;
    SrcLoc seen[256];
    int nseen;
    Finding *found;
    int nfound, capfound;
} MemWalk;

static int first_time(MemWalk *m, const Node *n) {
    for (int i = 0; i < m->nseen; i++)
        if (m->seen[i].line == n->loc.line && m->seen[i].col == n->loc.col && m->seen[i].fid == n->loc.fid) return 0;
    if (m->nseen < 256) m->seen[m->nseen++] = n->loc;
    return 1;
}

static int same_pattern(const Finding *x, const Finding *y) {
    if (x->vec != y->vec || x->local != y->local || x->a.ok != y->a.ok || x->a.indirect != y->a.indirect) return 0;
    if (!x->a.ok) return 1;
    if (x->a.ksym || y->a.ksym) return x->a.ksym && y->a.ksym && x->a.ksym->sym == y->a.ksym->sym && x->a.ksym->sym;
    return x->a.k == y->a.k;
}

static void found(MemWalk *m, Finding fd) {
    for (int i = 0; i < m->nfound; i++)
        if (!m->found[i].group && same_pattern(&m->found[i], &fd)) {
            Finding *g = &m->found[i];
            g->count++;
            if (g->nlines < 8) g->lines[g->nlines++] = fd.at->loc.line;
            return;
        }
    if (m->nfound == m->capfound) {
        int nc = m->capfound ? m->capfound * 2 : 16;
        Finding *v = arena_alloc(m->f->an->a, sizeof(Finding) * (size_t)nc);
        if (!v) return;
        if (m->nfound) memcpy(v, m->found, sizeof(Finding) * (size_t)m->nfound);
        m->found = v;
        m->capfound = nc;
    }
    fd.count = 1;
    fd.group = NULL;
    m->found[m->nfound++] = fd;
}

/* The conflict degree of 32 four-byte banks when neighbours are k
 * elements of `esize` bytes apart (one 128-byte request at a time). */
static int bank_degree(int64_t k, int esize) {
    if (esize <= 0) esize = 4;
    int threads = esize >= 128 ? 1 : 128 / esize;
    if (threads > 32) threads = 32;
    int64_t words[32][32];
    int nw[32] = {0};
    int worst = 1;
    for (int t = 0; t < threads; t++) {
        int64_t byte = (int64_t)t * k * esize;
        int64_t first = byte >= 0 ? byte / 4 : -((-byte + 3) / 4);
        int64_t last = (byte + esize - 1) >= 0 ? (byte + esize - 1) / 4 : first;
        for (int64_t w = first; w <= last && w - first < 32; w++) {
            int b = (int)(((w % 32) + 32) % 32);
            int dup = 0;
            for (int i = 0; i < nw[b]; i++) dup |= words[b][i] == w;
            if (!dup && nw[b] < 32) words[b][nw[b]++] = w;
            if (nw[b] > worst) worst = nw[b];
        }
    }
    return worst;
}

static const char *stride_text(Fn *f, Aff a, int esize) {
    if (a.ksym) return arena_printf(f->an->a, "%s elements", ex_describe(f, a.ksym));
    return arena_printf(f->an->a, "%lld element%s (%lld bytes)", (long long)a.k, a.k == 1 || a.k == -1 ? "" : "s",
                        (long long)(a.k * esize));
}

static void access(MemWalk *m, const Node *e) {
    Fn *f = m->f;
    const Node *v = e->kids[0];
    while (v && v->kind != N_C_VAR && v->nkids) v = v->kids[0];
    const Sym *s = v ? v->sym : NULL;
    const Type *t = s ? s->ty : NULL;
    if (!t || t->kind != TY_VECTOR || !t->elem) return;
    int global = t->as == AS_GLOBAL || t->as == AS_CONSTANT;
    int local = t->as == AS_LOCAL;
    if ((global && !(f->sum->checks & CK_COALESCE)) || (local && !(f->sum->checks & CK_BANKS)) || (!global && !local)) return;
    if (!first_time(m, e)) return;
    Finding fd;
    memset(&fd, 0, sizeof fd);
    fd.at = e;
    fd.vec = s;
    fd.local = local;
    fd.esize = ty_vector_stride(t->elem, t->align ? t->align : AL_COMPACT);
    fd.a = aff(f, e->kids[1], 0);
    if (global) {
        f->sum->naccess_global++;
        if (fd.a.ok && !fd.a.ksym && (fd.a.k == 0 || fd.a.k == 1)) return;
        if (!fd.a.ok && !fd.a.indirect) {
            f->sum->nunknown_global++;
            return;
        }
        f->sum->nuncoalesced++;
        found(m, fd);
        return;
    }
    f->sum->naccess_local++;
    if (!fd.a.ok || fd.a.ksym) {
        f->sum->nunknown_local++;
        return;
    }
    fd.degree = bank_degree(fd.a.k, fd.esize);
    if (fd.degree < 2) return;
    f->sum->nconflicts++;
    found(m, fd);
}

/* The read of memory an index depends on (through single-valued
 * variables), for the note of a gather. */
static const Node *read_in(Fn *f, const Node *e, int depth) {
    if (!e || depth > 32) return NULL;
    if (e->kind == N_C_INDEX && !uni_ok(uni_peek(f, e, NULL))) return e;
    if (e->kind == N_C_ATOMIC || uni_call_info(f->an, e).atomic) return e;
    if (e->kind == N_C_VAR) {
        VarInfo *v = uni_var(f, e->sym);
        return v && v->init && !v->nassign ? read_in(f, v->init, depth + 1) : NULL;
    }
    for (int i = 0; i < e->nkids; i++) {
        const Node *r = read_in(f, e->kids[i], depth + 1);
        if (r) return r;
    }
    return NULL;
}

static void report(MemWalk *m, const Finding *fd) {
    Fn *f = m->f;
    Diag *d = f->an->d;
    const char *name = fd->vec->name;
    if (fd->local)
        diag_warning_at(d, fd->at, "W1104",
                        "%d-way bank conflict: neighbouring work-items access the local vector `%s` %s apart, so %d of them wait on the same memory bank (check-bank-conflicts)",
                        fd->degree, name, stride_text(f, fd->a, fd->esize), fd->degree);
    else if (!fd->a.ok)
        diag_warning_at(d, fd->at, "W1103",
                        "`%s` is accessed at an index read from memory (a gather or scatter): neighbouring work-items touch unrelated addresses, which is not coalesced (check-coalesce)",
                        name);
    else
        diag_warning_at(d, fd->at, "W1103",
                        "neighbouring work-items access `%s` %s apart, which is not coalesced: work-item i should access element i (check-coalesce)",
                        name, stride_text(f, fd->a, fd->esize));
    const Node *c = !fd->a.ok ? read_in(f, fd->at->kids[1], 0) : ex_culprit(f, fd->at->kids[1], NULL);
    if (c && !fd->local)
        diag_note(d, ex_site(c, fd->at)->loc, !fd->a.ok ? "the index is %s" : "the index depends on %s", ex_describe(f, c));
    if (fd->local)
        diag_note(d, fd->at->loc, "local memory has 32 banks of 4 bytes; a stride of an odd number of words (pad a row by one element) avoids the conflict");
    if (fd->count > 1) {
        StrBuf b;
        sb_init(&b);
        for (int i = 0; i < fd->nlines; i++) sb_printf(&b, "%s%d", i ? ", " : "", fd->lines[i]);
        if (fd->count - 1 > fd->nlines) sb_puts(&b, ", ...");
        diag_note(d, fd->at->loc, "%d more access%s of `%s` follow%s the same pattern (line%s %s)", fd->count - 1,
                  fd->count == 2 ? "" : "es", name, fd->count == 2 ? "s" : "", fd->nlines == 1 ? "" : "s", sb_cstr(&b));
        sb_free(&b);
    }
}

static void mem_walk(MemWalk *m, const Node *n, int depth) {
    if (!n || depth > 10000) return;
    if (n->kind == N_C_BLOCK && n->text && (syn_streq(n->text, "uniform") || syn_streq(n->text, "uniform*"))) {
        /* a uniform capture's slot is one broadcast word: skip the slot */
        for (int i = 0; i < n->nkids; i++)
            if (n->kids[i]->kind == N_C_IF) mem_walk(m, n->kids[i]->kids[1], depth + 1);
        return;
    }
    if (n->kind == N_C_INDEX) access(m, n);
    if (n->kind == N_C_DECL && n->sym && sym_rare(n->sym)->init) mem_walk(m, sym_rare(n->sym)->init, depth + 1);
    for (int i = 0; i < n->nkids; i++) mem_walk(m, n->kids[i], depth + 1);
}

void mem_check(Fn *f) {
    MemWalk m;
    memset(&m, 0, sizeof m);
    m.f = f;
    mem_walk(&m, f->fn->body, 0);
    for (int i = 0; i < m.nfound; i++) report(&m, &m.found[i]);
    FnSum *s = f->sum;
    Diag *d = f->an->d;
    const char *name = f->fn->name;
    if ((s->checks & CK_COALESCE) && !s->nuncoalesced) {
        if (!s->naccess_global)
            diag_note(d, f->fn->def->loc, "`%s` does not access global memory (check-coalesce)", name);
        else if (s->nunknown_global)
            diag_note(d, f->fn->def->loc, "`%s`: %d of %d global memory access%s coalesced; %d could not be classified (check-coalesce)", name,
                      s->naccess_global - s->nunknown_global, s->naccess_global, s->naccess_global == 1 ? " is" : "es are",
                      s->nunknown_global);
        else
            diag_note(d, f->fn->def->loc, "`%s`: %s global memory access%s coalesced (check-coalesce)", name,
                      s->naccess_global ? arena_printf(f->an->a, "all %d", s->naccess_global) : "no", s->naccess_global == 1 ? " is" : "es are");
    }
    if ((s->checks & CK_BANKS) && !s->nconflicts) {
        if (!s->naccess_local)
            diag_note(d, f->fn->def->loc, "`%s` does not access local memory (check-bank-conflicts)", name);
        else if (s->nunknown_local)
            diag_note(d, f->fn->def->loc, "`%s`: no bank conflict in %d local memory access%s; %d could not be classified (check-bank-conflicts)",
                      name, s->naccess_local - s->nunknown_local, s->naccess_local - s->nunknown_local == 1 ? "" : "es", s->nunknown_local);
        else
            diag_note(d, f->fn->def->loc, "`%s`: no bank conflict in %d local memory access%s (check-bank-conflicts)", name, s->naccess_local,
                      s->naccess_local == 1 ? "" : "es");
    }
}
