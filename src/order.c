/* order.c - definition order: --single-pass and --re-output-crisp (order.h).
 *
 * Spec: "--single-pass" (every subfunction a function uses must be defined
 * before it), "--re-output-crisp" (the files in dependency order, inferred
 * types declared, static-analysis opt-ins removed).  Both work on the forms
 * as the user wrote them (the reader's output), so the rewritten files keep
 * the user's text, comments and layout: each top-level form is a span of
 * its file, moved whole, with small edits inside.
 *
 * What a form defines: its def-* name, and for def-struct make-NAME,
 * is-NAME? and the field accessors FIELD~, for def-derived-type make-NAME
 * and as-NAME, for with-template-type the definitions inside and gen-NAME.
 * What a form uses: every symbol it mentions (calls, #'NAME, types in
 * annotations and declarations, constants) except the names it binds
 * itself (parameters, let variables, loop variables).  A local variable
 * named like a later global function is taken for a use: name it apart. */
#include "order.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/syntax.h"

/* ---- names: key -> first top-level form defining it ---- */

typedef struct NameMap {
    const char **keys;
    int *vals;
    int cap, n;
    Arena *a;
} NameMap;

static int map_get(const NameMap *m, const char *key) {
    if (!m->cap) return -1;
    for (uint32_t i = strmap_hash(key) & (uint32_t)(m->cap - 1);; i = (i + 1) & (uint32_t)(m->cap - 1)) {
        if (!m->keys[i]) return -1;
        if (!strcmp(m->keys[i], key)) return m->vals[i];
    }
}

static void map_put_first(NameMap *m, const char *key, int val) {
    if ((m->n + 1) * 2 > m->cap) {
        int cap = m->cap ? m->cap * 2 : 256;
        const char **keys = arena_alloc(m->a, sizeof(char *) * (size_t)cap);
        int *vals = arena_alloc(m->a, sizeof(int) * (size_t)cap);
        if (!keys || !vals) return;
        NameMap old = *m;
        m->keys = keys;
        m->vals = vals;
        m->cap = cap;
        m->n = 0;
        for (int i = 0; i < old.cap; i++)
            if (old.keys[i]) map_put_first(m, old.keys[i], old.vals[i]);
    }
    for (uint32_t i = strmap_hash(key) & (uint32_t)(m->cap - 1);; i = (i + 1) & (uint32_t)(m->cap - 1)) {
        if (!m->keys[i]) {
            m->keys[i] = key;
            m->vals[i] = val;
            m->n++;
            return;
        }
        if (!strcmp(m->keys[i], key)) return; /* the first definition counts */
    }
}

/* ---- what a form defines ---- */

const char *order_defined_name(const Node *n) {
    static const char *defs[] = {"def-kernel", "def-kernel-exact", "def-function", "def-grid-function", "def-struct",
                                 "def-type", "def-const", "def-constant", "def-parameter", "def-const-vec",
                                 "def-enumeration", "def-derived-type", "defmacro", "def-constraint", NULL};
    if (n->kind != N_LIST || n->nkids < 2 || n->kids[1]->kind != N_SYMBOL) return NULL;
    for (int i = 0; defs[i]; i++)
        if (syn_is_form(n, defs[i])) return n->kids[1]->key;
    return NULL;
}

static void define(NameMap *m, int top, const char *prefix, const char *key, const char *suffix) {
    const char *k = arena_printf(m->a, "%s%s%s", prefix, key, suffix);
    if (k) map_put_first(m, k, top);
}

static void defs_of(NameMap *m, const Node *n, int top, int in_template) {
    if (n->kind != N_LIST || !n->nkids) return;
    if (syn_is_form(n, "progn") || syn_is_form(n, "with-template-type")) {
        for (int i = syn_is_form(n, "progn") ? 1 : 2; i < n->nkids; i++) defs_of(m, n->kids[i], top, in_template || syn_is_form(n, "with-template-type"));
        return;
    }
    const char *name = order_defined_name(n);
    if (!name) return;
    define(m, top, "", name, "");
    if (in_template) define(m, top, "gen-", name, "");
    if (syn_is_form(n, "def-struct") || syn_is_form(n, "def-derived-type")) {
        define(m, top, "make-", name, "");
        define(m, top, "is-", name, "?");
        define(m, top, "as-", name, "");
    }
    if (syn_is_form(n, "def-struct"))
        for (int i = 2; i < n->nkids; i++) {
            const Node *f = n->kids[i]->kind == N_LIST && n->kids[i]->nkids ? n->kids[i]->kids[0] : n->kids[i];
            if (f->kind == N_SYMBOL) define(m, top, "", f->key, "~");
        }
}

/* ---- what a form uses ---- */

typedef struct Uses {
    NameMap *defs;
    NameMap locals;      /* names the form binds itself */
    int top;
    void (*use)(struct Uses *u, const Node *sym, int def_top);
    Crisp *c;
    int *deps;           /* re-output: per form, 1 when used */
    int errors;
    NameMap reported;    /* single-pass: each name once per form */
    const Forms *read;
    int *list, nlist;    /* re-output: the forms used, in the order found */
} Uses;

static int is_binder(const Node *n) {
    static const char *prefixes[] = {"dotimes", "dec-", "do-", "loop-", "in-each-thread", "%loop", NULL};
    if (n->kind != N_LIST || n->nkids < 2 || n->kids[0]->kind != N_SYMBOL) return 0;
    for (int i = 0; prefixes[i]; i++)
        if (!strncmp(n->kids[0]->key, prefixes[i], strlen(prefixes[i]))) return 1;
    return 0;
}

static void local(Uses *u, const Node *s) {
    if (s && s->kind == N_SYMBOL) map_put_first(&u->locals, s->key, 1);
}

/* Collect the names a form binds: parameters, let variables, loop variables. */
static void locals_of(Uses *u, const Node *n) {
    if (n->kind != N_LIST && n->kind != N_VECLIT) return;
    if (n->kind == N_LIST && n->nkids >= 3 &&
        (syn_is_form(n, "def-function") || syn_is_form(n, "def-kernel") || syn_is_form(n, "def-grid-function") ||
         syn_is_form(n, "def-kernel-exact")) && n->kids[2]->kind == N_LIST)
        for (int i = 0; i < n->kids[2]->nkids; i++) {
            const Node *p = n->kids[2]->kids[i];
            local(u, p->kind == N_LIST && p->nkids ? p->kids[0] : p);
        }
    if (n->kind == N_LIST && n->nkids >= 2 &&
        (syn_is_form(n, "let") || syn_is_form(n, "let*") || syn_is_form(n, "let-maybe") ||
         syn_is_form(n, "multiple-value-bind")) && n->kids[1]->kind == N_LIST)
        for (int i = 0; i < n->kids[1]->nkids; i++) {
            const Node *b = n->kids[1]->kids[i];
            local(u, b->kind == N_LIST && b->nkids ? b->kids[0] : b);
        }
    if (is_binder(n) && n->kids[1]->kind == N_LIST && n->kids[1]->nkids) local(u, n->kids[1]->kids[0]);
    for (int i = 0; i < n->nkids; i++) locals_of(u, n->kids[i]);
}

static void uses_of(Uses *u, const Node *n) {
    if (n->kind == N_SYMBOL) {
        int d = map_get(u->defs, n->key);
        if (d >= 0 && d != u->top && map_get(&u->locals, n->key) < 0) u->use(u, n, d);
        if (n->ann) uses_of(u, n->ann);
        return;
    }
    for (int i = 0; i < n->nkids; i++) uses_of(u, n->kids[i]);
}

static void scan_form(Uses *u, const Node *form, int top) {
    u->top = top;
    memset(&u->locals, 0, sizeof u->locals);
    u->locals.a = u->defs->a;
    memset(&u->reported, 0, sizeof u->reported);
    u->reported.a = u->defs->a;
    locals_of(u, form);
    /* the defined name itself (and the function's own parameters) are not uses */
    if (form->kind == N_LIST && form->nkids >= 2 && order_defined_name(form)) {
        for (int i = 2; i < form->nkids; i++) uses_of(u, form->kids[i]);
        if (form->kids[1]->ann) uses_of(u, form->kids[1]->ann);
    } else {
        uses_of(u, form);
    }
}

static void build_defs(NameMap *m, Forms read) {
    for (int i = 0; i < read.n; i++) defs_of(m, read.v[i], i, 0);
}

/* ---- --single-pass ---- */

static void use_before_definition(Uses *u, const Node *sym, int def_top) {
    if (def_top < u->top) return;
    if (map_get(&u->reported, sym->key) >= 0) return;
    map_put_first(&u->reported, sym->key, 1);
    diag_error_at(&u->c->diag, sym, "E1510",
                  "--single-pass: `%s` is used before its definition; define it first (--re-output-crisp=DIR writes "
                  "the files in that order)",
                  sym->name);
    diag_note(&u->c->diag, u->read->v[def_top]->loc, "`%s` is defined here", sym->name);
    u->errors++;
}

int order_check_single_pass(Crisp *c, Forms read) {
    NameMap defs = {.a = &c->arena};
    build_defs(&defs, read);
    Uses u = {.defs = &defs, .use = use_before_definition, .c = c, .read = &read};
    for (int i = 0; i < read.n && !c->diag.fatal; i++) scan_form(&u, read.v[i], i);
    return u.errors;
}

/* ---- --re-output-crisp ---- */

static void use_dep(Uses *u, const Node *sym, int def_top) {
    (void)sym;
    if (!u->deps[def_top]) u->list[u->nlist++] = def_top;
    u->deps[def_top] = 1;
}

/* Byte offset of line/col in `f`. */
static size_t offset_of(const SrcFile *f, int line, int col) {
    size_t i = 0;
    for (int l = 1; l < line && i < (size_t)f->len; i++)
        if (f->text[i] == '\n') l++;
    return i + (size_t)(col > 0 ? col - 1 : 0);
}

/* Skip blanks and comments (; and nested #| |#) from i. */
static size_t skip_space(const char *t, size_t n, size_t i) {
    for (;;) {
        while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r' || t[i] == '\f')) i++;
        if (i < n && t[i] == ';') {
            while (i < n && t[i] != '\n') i++;
        } else if (i + 1 < n && t[i] == '#' && t[i + 1] == '|') {
            int depth = 0;
            do {
                if (i + 1 < n && t[i] == '#' && t[i + 1] == '|') depth++, i += 2;
                else if (i + 1 < n && t[i] == '|' && t[i + 1] == '#') depth--, i += 2;
                else i++;
            } while (depth > 0 && i < n);
        } else {
            return i;
        }
    }
}

/* The end of the datum starting at i (the text was read without errors). */
static size_t datum_end(const char *t, size_t n, size_t i, int depth) {
    if (i >= n || depth > 600) return n;
    char c = t[i];
    if (c == '(') {
        i++;
        for (;;) {
            i = skip_space(t, n, i);
            if (i >= n) return n;
            if (t[i] == ')') return i + 1;
            i = datum_end(t, n, i, depth + 1);
        }
    }
    if (c == '"') {
        for (i++; i < n && t[i] != '"'; i++)
            if (t[i] == '\\') i++;
        return i < n ? i + 1 : n;
    }
    if (c == '\'' || c == '`') return datum_end(t, n, skip_space(t, n, i + 1), depth + 1);
    if (c == ',') return datum_end(t, n, skip_space(t, n, i + 1 + (i + 1 < n && t[i + 1] == '@')), depth + 1);
    if (c == '#' && i + 1 < n) {
        char d = t[i + 1];
        if (d == '(') return datum_end(t, n, i + 1, depth + 1);
        if (d == '#' && i + 2 < n && t[i + 2] == '(') return datum_end(t, n, i + 2, depth + 1);
        if (d == '\'' || d == '`') return datum_end(t, n, i + 2, depth + 1);
        if (d == '+' || d == '-') { /* a feature, then the form it guards */
            size_t f = datum_end(t, n, i + 2, depth + 1);
            return datum_end(t, n, skip_space(t, n, f), depth + 1);
        }
    }
    while (i < n && !strchr(" \t\r\n\f()\";", t[i])) i++;
    return i;
}

/* An edit of a file's text: replace [at, at + del) by `ins`. */
typedef struct Edit {
    size_t at, del;
    const char *ins;
} Edit;

typedef struct Edits {
    Edit *v;
    int n, cap;
    Arena *a;
} Edits;

static void edit(Edits *e, size_t at, size_t del, const char *ins) {
    if (e->n == e->cap) {
        int cap = e->cap ? e->cap * 2 : 32;
        Edit *v = arena_alloc(e->a, sizeof(Edit) * (size_t)cap);
        if (!v) return;
        if (e->n) memcpy(v, e->v, sizeof(Edit) * (size_t)e->n);
        e->v = v;
        e->cap = cap;
    }
    e->v[e->n++] = (Edit){at, del, ins};
}

/* Crisp's spelling of a type a let variable got, or NULL when it has none
 * that fits an annotation. */
static const char *type_spelling(const Type *t) {
    if (!t) return NULL;
    switch (t->kind) {
    case TY_NUM:
    case TY_HWVEC: return ty_num_name(t);
    case TY_BOOL: return "bool";
    case TY_STRUCT: return t->sd && !t->sd->pattern ? t->sd->name : NULL;
    default: return NULL;
    }
}

/* Binding name node -> the type the checker gave it (NULL: several or none). */
typedef struct Inferred {
    const Node **nodes;
    const Type **types;
    int n, cap;
    Arena *a;
} Inferred;

static void note_decls(Inferred *inf, const Node *n) {
    if (!n) return;
    if (n->kind == N_C_DECL && n->sym && n->sym->def && !n->sym->is_temp) {
        int found = 0;
        for (int i = 0; i < inf->n && !found; i++)
            if (inf->nodes[i] == n->sym->def) {
                found = 1;
                if (inf->types[i] && !ty_equal((Type *)inf->types[i], n->sym->ty)) inf->types[i] = NULL; /* differs per instance */
            }
        if (!found && inf->n == inf->cap) {
            int cap = inf->cap ? inf->cap * 2 : 256;
            const Node **nodes = arena_alloc(inf->a, sizeof(Node *) * (size_t)cap);
            const Type **types = arena_alloc(inf->a, sizeof(Type *) * (size_t)cap);
            if (!nodes || !types) return;
            if (inf->n) {
                memcpy(nodes, inf->nodes, sizeof(Node *) * (size_t)inf->n);
                memcpy(types, inf->types, sizeof(Type *) * (size_t)inf->n);
            }
            inf->nodes = nodes;
            inf->types = types;
            inf->cap = cap;
        }
        if (!found) {
            inf->nodes[inf->n] = n->sym->def;
            inf->types[inf->n++] = n->sym->ty;
        }
    }
    for (int i = 0; i < n->nkids; i++) note_decls(inf, n->kids[i]);
}

static const Type *inferred_type(const Inferred *inf, const Node *name) {
    for (int i = 0; i < inf->n; i++)
        if (inf->nodes[i] == name) return inf->types[i];
    return NULL;
}

/* Does `body` (a let's forms after the bindings) declare a type for `key`? */
static int declared_in(const Node *let, const char *key) {
    for (int i = 2; i < let->nkids; i++) {
        const Node *d = let->kids[i];
        if (!syn_is_form(d, "declare")) continue;
        for (int j = 1; j < d->nkids; j++) {
            const Node *e = d->kids[j];
            if (syn_is_form(e, "type"))
                for (int k = 1; k < e->nkids; k++)
                    if (e->kids[k]->kind == N_SYMBOL && !strcmp(e->kids[k]->key, key)) return 1;
        }
    }
    return 0;
}

/* The edits inside one top-level form. */
static void form_edits(Crisp *c, const SrcFile *f, const Node *n, const Inferred *inf, Edits *e) {
    if (n->kind != N_LIST && n->kind != N_VECLIT) return;
    if ((syn_is_form(n, "let") || syn_is_form(n, "let*")) && n->nkids >= 2 && n->kids[1]->kind == N_LIST) {
        for (int i = 0; i < n->kids[1]->nkids; i++) {
            const Node *b = n->kids[1]->kids[i];
            const Node *name = b->kind == N_LIST && b->nkids ? b->kids[0] : b;
            if (name->kind != N_SYMBOL || name->ann || name->origin || srcloc_file(name->loc) != f) continue;
            if (declared_in(n, name->key)) continue;
            const char *t = type_spelling(inferred_type(inf, name));
            if (!t) continue;
            size_t at = offset_of(f, name->loc.line, name->loc.col);
            size_t end = datum_end(f->text, (size_t)f->len, at, 0);
            edit(e, end, 0, arena_printf(&c->arena, ":%s", t));
        }
    }
    if (syn_is_form(n, "declare"))
        for (int i = 1; i < n->nkids; i++) {
            const Node *d = n->kids[i];
            if (d->kind == N_LIST && d->nkids && d->kids[0]->kind == N_SYMBOL && srcloc_file(d->loc) == f &&
                (!strncmp(d->kids[0]->key, "check-", 6) || !strcmp(d->kids[0]->key, "max-registers") ||
                 !strcmp(d->kids[0]->key, "warn-max-registers"))) {
                size_t at = offset_of(f, d->loc.line, d->loc.col);
                size_t end = datum_end(f->text, (size_t)f->len, at, 0);
                while (at > 0 && f->text[at - 1] == ' ') at--; /* the space before it too */
                edit(e, at, end - at, "");
            }
        }
    for (int i = 0; i < n->nkids; i++) form_edits(c, f, n->kids[i], inf, e);
}

static int by_offset(const void *a, const void *b) {
    const Edit *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Append text[from, to) with the edits that fall in it. */
static void put_span(StrBuf *out, const char *text, size_t from, size_t to, const Edits *e) {
    size_t i = from;
    for (int k = 0; k < e->n; k++) {
        const Edit *x = &e->v[k];
        if (x->at < from || x->at >= to) continue;
        if (x->at < i) continue; /* overlaps an earlier deletion */
        sb_putn(out, text + i, x->at - i);
        sb_puts(out, x->ins);
        i = x->at + x->del;
    }
    if (i < to) sb_putn(out, text + i, to - i);
}

void order_reoutput(Crisp *c, Forms read, const Program *p, int file, StrBuf *out) {
    const SrcFile *f = c->files[file];
    const char *t = f->text;
    size_t n = (size_t)f->len;
    /* the file's top-level forms and their spans */
    int *tops = arena_alloc(&c->arena, sizeof(int) * (size_t)(read.n + 1));
    size_t *start = arena_alloc(&c->arena, sizeof(size_t) * (size_t)(read.n + 1));
    size_t *end = arena_alloc(&c->arena, sizeof(size_t) * (size_t)(read.n + 1));
    Inferred inf = {NULL, NULL, 0, 0, &c->arena};
    if (!tops || !start || !end) return;
    int nt = 0;
    for (int i = 0; i < read.n; i++)
        if (srcloc_file(read.v[i]->loc) == f) tops[nt++] = i;
    if (!nt) {
        sb_putn(out, t, n);
        return;
    }
    for (int i = 0; p && i < p->nfuncs; i++) note_decls(&inf, p->funcs[i]->body);
    /* spans: a form owns the comments and blank lines above it, back to
       the end of the previous form's line; the file's opening comment
       block (up to its last blank line) stays first */
    for (int k = 0; k < nt; k++) {
        const Node *form = read.v[tops[k]];
        size_t s = offset_of(f, form->loc.line, form->loc.col);
        size_t e = datum_end(t, n, s, 0);
        while (e < n && t[e] != '\n' && (t[e] == ' ' || t[e] == '\t')) e++;
        if (e < n && t[e] == ';') while (e < n && t[e] != '\n') e++; /* a comment on the same line */
        if (e < n && t[e] == '\n') e++;
        start[k] = s;
        end[k] = e;
    }
    size_t header = 0;
    for (size_t i = 0; i + 1 < start[0]; i++)
        if (t[i] == '\n' && t[i + 1] == '\n') header = i + 2;
    for (int k = 0; k < nt; k++) start[k] = k ? end[k - 1] : header;
    /* dependencies between this file's forms, found once */
    NameMap defs = {.a = &c->arena};
    build_defs(&defs, read);
    int *deps = arena_alloc(&c->arena, sizeof(int) * (size_t)(read.n + 1));
    int *list = arena_alloc(&c->arena, sizeof(int) * (size_t)(read.n + 1));
    int *slot = arena_alloc(&c->arena, sizeof(int) * (size_t)(read.n + 1)); /* form -> k, or -1 */
    int **needs = arena_alloc(&c->arena, sizeof(int *) * (size_t)nt);
    int *nneeds = arena_alloc(&c->arena, sizeof(int) * (size_t)nt);
    char *done = arena_alloc(&c->arena, (size_t)nt + 1);
    Edits ed = {.a = &c->arena};
    if (!deps || !list || !slot || !needs || !nneeds || !done) return;
    for (int i = 0; i < read.n; i++) slot[i] = -1;
    for (int k = 0; k < nt; k++) slot[tops[k]] = k;
    for (int k = 0; k < nt; k++) {
        Uses u = {.defs = &defs, .use = use_dep, .c = c, .deps = deps, .read = &read, .list = list};
        scan_form(&u, read.v[tops[k]], tops[k]);
        needs[k] = arena_alloc(&c->arena, sizeof(int) * (size_t)(u.nlist + 1));
        if (!needs[k]) return;
        for (int i = 0; i < u.nlist; i++) {
            if (slot[list[i]] >= 0) needs[k][nneeds[k]++] = slot[list[i]];
            deps[list[i]] = 0;
        }
    }
    for (int k = 0; k < nt; k++) form_edits(c, f, read.v[tops[k]], &inf, &ed);
    qsort(ed.v, (size_t)ed.n, sizeof(Edit), by_offset);
    sb_putn(out, t, header);
    for (int emitted = 0; emitted < nt; emitted++) {
        /* the first form whose uses (in this file) are all out, else the
           first left (a cycle, or a use of a later file's definition) */
        int pick = -1;
        for (int k = 0; k < nt && pick < 0; k++) {
            if (done[k]) continue;
            int ready = 1;
            for (int j = 0; j < nneeds[k] && ready; j++)
                if (needs[k][j] != k && !done[needs[k][j]]) ready = 0;
            if (ready) pick = k;
        }
        for (int k = 0; k < nt && pick < 0; k++)
            if (!done[k]) pick = k;
        done[pick] = 1;
        if (syn_is_form(read.v[tops[pick]], "declaim")) continue; /* static-analysis opt-in: removed */
        size_t from = start[pick];
        while (from < end[pick] && t[from] == '\n' && out->len >= 2 && !strcmp(sb_cstr(out) + out->len - 2, "\n\n"))
            from++; /* one blank line between forms is enough */
        put_span(out, t, from, end[pick], &ed);
        if (end[pick] > start[pick] && t[end[pick] - 1] != '\n') sb_putc(out, '\n');
    }
    put_span(out, t, end[nt - 1], n, &ed);
}
