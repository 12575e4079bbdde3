/* explain.c - words for the analyses' diagnostics.
 *
 * Why: the analyses work on the checked tree (OpenCL-level nodes), but a
 * message must name what the user wrote: "`(get-local-id 0)`", "`n`", "a
 * read of `A`".  A node the user wrote is quoted from the source text at
 * its location; one a macro made is described by what it is.  The notes
 * follow a variable back to where it stopped being uniform. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "analysis_int.h"

const Node *ex_site(const Node *n, const Node *fallback) {
    return n && !n->origin && srcloc_file(n->loc) && n->loc.line > 0 ? n : fallback;
}

/* The source text of the form starting at `loc`, on one line (at most 60
 * characters), or NULL. */
static const char *source_form(Arena *a, SrcLoc loc) {
    const SrcFile *sf = srcloc_file(loc);
    if (!sf || !sf->text || loc.line <= 0 || loc.col <= 0) return NULL;
    const char *p = sf->text, *end = sf->text + sf->len;
    for (int l = 1; l < loc.line && p < end; p++)
        if (*p == '\n') l++;
    p += loc.col - 1;
    if (p >= end) return NULL;
    const char *q = p;
    if (*p == '(') {
        int depth = 0, in_str = 0;
        for (; q < end; q++) {
            if (in_str) {
                if (*q == '\\' && q + 1 < end) q++;
                else if (*q == '"') in_str = 0;
            } else if (*q == ';') {
                while (q + 1 < end && q[1] != '\n') q++;
            } else if (*q == '"') {
                in_str = 1;
            } else if (*q == '(') {
                depth++;
            } else if (*q == ')' && --depth == 0) {
                q++;
                break;
            }
        }
        if (depth) return NULL;
    } else {
        while (q < end && !isspace((unsigned char)*q) && *q != '(' && *q != ')') q++;
    }
    char buf[64];
    size_t n = 0;
    int space = 0;
    for (const char *r = p; r < q; r++) {
        if (*r == ';') { /* a comment inside the form */
            while (r + 1 < q && r[1] != '\n') r++;
            space = 1;
            continue;
        }
        if (isspace((unsigned char)*r)) {
            space = 1;
            continue;
        }
        if (space && n && buf[n - 1] != '(' && *r != ')') buf[n++] = ' ';
        space = 0;
        if (n >= 56) {
            memcpy(buf + n, "...", 3);
            n += 3;
            break;
        }
        buf[n++] = *r;
    }
    return n ? arena_strndup(a, buf, n) : NULL;
}

static const char *quoted(Arena *a, const char *s) {
    return arena_printf(a, "`%s`", s);
}

const char *ex_describe(Fn *f, const Node *e) {
    Arena *a = f->an->a;
    if (!e) return "a value";
    e = strip_casts(e);
    if (e->kind == N_C_VAR && e->sym) {
        /* a variable the user named (not one the compiler made for a view,
           a temporary or a macro's gensym) */
        const Sym *s = e->sym;
        int named = s->name && s->name[0] != '%' && !s->is_temp &&
                    (s->kind == SYM_PARAM || (s->def && s->def->kind == N_SYMBOL && !strcasecmp(s->def->name, s->name)));
        if (named) return quoted(a, s->name);
        VarInfo *v = uni_var(f, e->sym);
        if (v && v->init && v->init != e) return ex_describe(f, v->init);
        return "a value computed here";
    }
    if (!e->origin) {
        const char *s = source_form(a, e->loc);
        if (s && s[0] == '(') return quoted(a, s);
    }
    switch (e->kind) {
    case N_C_CALL: {
        CallInfo ci = uni_call_info(f->an, e);
        if (ci.atomic) return "the value an atomic operation returns";
        if (ci.name) {
            if (e->nkids && e->kids[0]->kind == N_C_INTLIT) return arena_printf(a, "`(%s %lld)`", ci.name, (long long)e->kids[0]->ival);
            return arena_printf(a, "`(%s)`", ci.name);
        }
        FnSum *g = uni_sum_of_call(f->an, e);
        if (g) return arena_printf(a, "the value of `%s`", g->fn->name);
        return "the value of a builtin";
    }
    case N_C_INDEX: {
        const Node *v = e->kids[0];
        while (v && v->kind != N_C_VAR && v->nkids) v = v->kids[0];
        return v && v->sym ? arena_printf(a, "a read of `%s`", v->sym->name) : "a read of memory";
    }
    case N_C_ATOMIC: return "the value an atomic operation returns";
    default: {
        const char *s = source_form(a, e->loc);
        return s ? quoted(a, s) : "a value";
    }
    }
}

const Node *ex_culprit(Fn *f, const Node *e, const Sym *as_uniform) {
    return e ? ex_culprit_at(f, e, as_uniform, uni_peek(f, e, as_uniform)) : NULL;
}

const Node *ex_culprit_at(Fn *f, const Node *e, const Sym *as_uniform, Uni level) {
    if (!e || uni_ok(level)) return NULL;
    switch (e->kind) {
    case N_C_VAR:
    case N_C_ATOMIC:
    case N_C_LENGTH: return e;
    case N_C_INDEX: {
        /* read-only memory at a varying index: the index is the cause */
        const Node *c = ex_culprit(f, e->kids[1], as_uniform);
        const Node *v = e->kids[0];
        while (v && v->kind != N_C_VAR && v->nkids) v = v->kids[0];
        const Type *t = v && v->sym ? v->sym->ty : NULL;
        if (c && t && t->kind == TY_VECTOR && (t->as == AS_PRIVATE || t->as == AS_CONSTANT || t->acc == ACC_READ_ONLY)) return c;
        return e;
    }
    case N_C_CALL: {
        FnSum *g = uni_sum_of_call(f->an, e);
        CallInfo ci = uni_call_info(f->an, e);
        if (!g && !ci.pure) return e;
        for (int i = 0; i < e->nkids; i++) {
            const Node *c = ex_culprit(f, e->kids[i], as_uniform);
            if (c) return c;
        }
        return e;
    }
    case N_C_ASSIGN: return ex_culprit(f, e->kids[1], as_uniform);
    default:
        for (int i = 0; i < e->nkids; i++) {
            const Node *c = ex_culprit(f, e->kids[i], as_uniform);
            if (c) return c;
        }
        return e;
    }
}

void ex_notes(Fn *f, const Node *culprit) {
    Diag *d = f->an->d;
    const Node *n = culprit;
    for (int step = 0; n && step < 4; step++) {
        n = strip_casts(n);
        if (n->kind == N_C_VAR) {
            VarInfo *v = uni_var(f, n->sym);
            if (!v || !v->why || v->captured) return;
            const char *name = ex_describe(f, n);
            if (v->why_branch) {
                const Node *why = ex_culprit(f, v->why, NULL);
                diag_note(d, v->why->loc, "%s is assigned under this condition, which depends on %s", name, ex_describe(f, why));
                n = why;
                continue;
            }
            if (v->why == n) return;
            diag_note(d, v->why->loc, "%s takes its value from %s here", name, ex_describe(f, v->why));
            n = v->why;
            continue;
        }
        if (n->kind == N_C_INDEX && step == 0) {
            diag_note(d, n->loc, "memory that work-items may write is not uniform; a value the whole workgroup shares can be made so with (declare (uniform ...))");
        }
        return;
    }
}
