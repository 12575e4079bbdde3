/* syntax.h - building, inspecting and printing syntax nodes.
 *
 * Shared by the reader (which builds them), the macro expander and
 * compile-time evaluator (which take them apart and build new ones) and the
 * checker (which reads them).  The printer is what `--dump=read` and
 * `--dump=expand` show, so its output is stable and re-readable. */
#ifndef CRISP_SYNTAX_H
#define CRISP_SYNTAX_H

#include <string.h>

#include "arena.h"
#include "node.h"
#include "strbuf.h"

/* Constructors.  `loc`/`origin` are copied into the node. */
Node *syn_new(Arena *a, NodeKind k, SrcLoc loc);
Node *syn_list(Arena *a, SrcLoc loc, Node **kids, int n);
Node *syn_symbol(Arena *a, SrcLoc loc, const char *name);  /* key = lower-cased */
Node *syn_keyword(Arena *a, SrcLoc loc, const char *name); /* name without ':' */
Node *syn_int(Arena *a, SrcLoc loc, int64_t v);
Node *syn_float(Arena *a, SrcLoc loc, double v);
/* The value of a -DNAME=TEXT override: a number, or t/true (1) and
 * nil/false (0); NULL when TEXT is none of these. */
Node *syn_define_value(Arena *a, SrcLoc loc, const char *text);
Node *syn_string(Arena *a, SrcLoc loc, const char *s, int len);
/* Shallow copy (kids array copied, kids shared). */
Node *syn_copy(Arena *a, const Node *n);
Node *syn_subst(Arena *a, Node *syn, Node *const *names, Node *const *by, int n);

/* Lower-case copy of `s` (ASCII). */
char *syn_lower(Arena *a, const char *s);
/* The canonical (lower-case) spelling of `s`: `s` itself when it has no
 * upper-case letter (no copy), else a lower-case copy. */
const char *syn_key(Arena *a, const char *s);

/* a and b are the same string; the first bytes compared inline, where
 * most tests of a name against a table fail (issue 14). */
static inline int syn_streq(const char *a, const char *b) {
    return a[0] == b[0] && strcmp(a, b) == 0;
}

/* Predicates. */
/* (inline: the checker and the expander ask these millions of times) */
/* LIST (possibly empty) */
static inline int syn_is_list(const Node *n) {
    return n && n->kind == N_LIST;
}
/* SYMBOL with this key */
static inline int syn_is_sym(const Node *n, const char *key) {
    return n && n->kind == N_SYMBOL && !n->ann && syn_streq(n->key, key);
}
/* KEYWORD with this key */
static inline int syn_is_kw(const Node *n, const char *key) {
    return n && n->kind == N_KEYWORD && syn_streq(n->key, key);
}
/* Head symbol key of a list, or NULL. */
static inline const char *syn_head(const Node *n) {
    if (!n || n->kind != N_LIST || n->nkids == 0) return NULL;
    const Node *h = n->kids[0];
    return h->kind == N_SYMBOL ? h->key : NULL;
}
/* List whose first element is the symbol `key`. */
static inline int syn_is_form(const Node *n, const char *key) {
    const char *h = syn_head(n);
    return h && syn_streq(h, key);
}
/* The `nil` symbol or the empty list. */
int syn_is_nil(const Node *n);

/* Printing (re-readable s-expression syntax). */
void syn_print(StrBuf *b, const Node *n);
/* Pretty printer: breaks long lists over lines, indents by two. */
void syn_pprint(StrBuf *b, const Node *n, int indent);
/* Print into the arena (for messages); truncated to `max` bytes with "...". */
const char *syn_to_string(Arena *a, const Node *n, int max);

#endif
