/* builtin.c - the built-in Crisp texts (the prelude), read once per process.
 *
 * Reading the prelude was half the time of compiling a small kernel, and
 * its text never changes, so its forms are parsed the first time any
 * compilation asks and kept, read-only, in a process-wide arena that every
 * later compilation shares: the stages after the reader never write to
 * syntax nodes (a macro's result is always a fresh copy; test_api checks
 * the shared forms stay unchanged).  A mutex guards the table, so
 * compilations in separate threads may ask at once.  A text with reader
 * conditionals (#+ / #-) depends on -D values and is read each time.
 * The library's texts come read already: the build ran the reader on them
 * (reader/libforms.h), so a run only gives their nodes their file number;
 * the build knows which texts have #+ / #- forms (not "#+" in a comment). */
#include <pthread.h>
#include <string.h>

#include "libforms.h"
#include "reader.h"

#define MAX_BUILTINS 16

typedef struct Builtin {
    const char *text;   /* the static text: the key */
    SrcFile file;       /* what the forms' locations point at */
    Forms forms;
    int ok;             /* read without diagnostics */
} Builtin;

static pthread_mutex_t builtin_lock = PTHREAD_MUTEX_INITIALIZER;
static Builtin builtins[MAX_BUILTINS];
static int nbuiltins;
static Arena builtin_arena; /* never freed: lives as long as the process */

/* The forms the build read for `b` (reader/libforms.h), with its file
 * number: 1 when there are such forms. */
static int prebuilt_builtin(Builtin *b) {
    const LibForms *lf = NULL;
    for (const LibForms *p = crisp_libforms; p->name && !lf; p++)
        if (!strcmp(p->name, b->file.name) && p->textlen == b->file.len) lf = p;
    if (!lf || lf->nforms < 0) return 0;
    /* its forms are shared by every compilation: its number is kept */
    if (!srcfile_claim(&b->file, lf->fid)) { /* taken: the one it gets */
        srcfile_keep(&b->file);
        unsigned fid = srcfile_id(&b->file);
        for (int i = 0; i < lf->nnodes; i++) lf->nodes[i].loc.fid = fid;
    }
    b->forms.v = lf->forms;
    b->forms.n = b->forms.cap = lf->nforms;
    b->ok = 1;
    return 1;
}

/* Parse `b` into the process-wide arena, with a private context whose
 * diagnostics go nowhere (a built-in text with errors is not cached: the
 * caller reads it again and reports them). */
static void parse_builtin(Builtin *b) {
    Crisp c;
    memset(&c, 0, sizeof c);
    c.arena = builtin_arena;
    diag_init(&c.diag, NULL);
    Reader r;
    reader_init(&r, &c);
    srcfile_keep(&b->file); /* its forms are shared by every compilation */
    reader_read_file(&r, &b->file, &b->forms);
    builtin_arena = c.arena;
    b->ok = !c.diag.errors && !c.arena.exhausted;
}

/* Whether `text` perhaps has a reader conditional (then it is parsed each
 * time).  Asked only of a text the build did not read: scanning the
 * library's 280 KB for them in every run was an eighth of compiling a
 * small kernel (issue 14: 307,000 of 2.45 M instructions). */
static int maybe_conditional(const char *text) {
    return strstr(text, "#+") || strstr(text, "#-");
}

int reader_read_builtin(Reader *r, const char *name, const char *text, Forms *out) {
    pthread_mutex_lock(&builtin_lock);
    Builtin *b = NULL;
    for (int i = 0; i < nbuiltins && !b; i++)
        if (builtins[i].text == text) b = &builtins[i];
    if (!b && nbuiltins < MAX_BUILTINS) {
        b = &builtins[nbuiltins];
        b->text = text;
        b->file.name = name;
        b->file.text = text;
        b->file.len = (int)strlen(text);
        if (prebuilt_builtin(b)) nbuiltins++;              /* read at build time: no #+ / #- form */
        else if (!maybe_conditional(text)) nbuiltins++, parse_builtin(b);
        else b = NULL;
    }
    pthread_mutex_unlock(&builtin_lock);
    if (b && b->ok) {
        for (int i = 0; i < b->forms.n; i++) forms_push(&r->c->arena, out, b->forms.v[i]);
        return 0;
    }
    SrcFile *f = arena_alloc(&r->c->arena, sizeof *f);
    if (!f) return 1;
    f->name = name;
    f->text = text;
    f->len = (int)strlen(text);
    return reader_read_file(r, f, out);
}

/* A checksum of every cached form, for tests: it must never change. */
static unsigned long node_sum(const Node *n, unsigned long h) {
    if (!n) return h * 31 + 7;
    h = h * 31 + (unsigned long)n->kind;
    h = h * 31 + (unsigned long)n->loc.line * 7 + (unsigned long)n->loc.col;
    h = h * 31 + (unsigned long)(size_t)srcloc_file(n->loc) + (unsigned long)(size_t)n->origin;
    if (n->kind <= N_HWVEC) { /* the syntax payload (core/node.h) */
        for (const char *s = n->name; s && *s; s++) h = h * 31 + (unsigned char)*s;
        for (const char *s = n->key; s && *s; s++) h = h * 31 + (unsigned char)*s;
    } else {
        h = h * 31 + (unsigned long)(size_t)n->ty + (unsigned long)(size_t)n->sym + (unsigned long)(size_t)n->text;
    }
    h = h * 31 + (unsigned long)n->ival + (unsigned long)n->nkids + (unsigned long)n->op;
    if (n->kind <= N_HWVEC) h = node_sum(n->ann, h);
    for (int i = 0; i < n->nkids; i++) h = node_sum(n->kids[i], h);
    return h;
}

unsigned long reader_builtin_checksum(void) {
    unsigned long h = 0;
    pthread_mutex_lock(&builtin_lock);
    for (int i = 0; i < nbuiltins; i++)
        for (int j = 0; j < builtins[i].forms.n; j++) h = node_sum(builtins[i].forms.v[j], h);
    pthread_mutex_unlock(&builtin_lock);
    return h;
}
