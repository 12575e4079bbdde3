/* syntax.c - syntax node constructors, predicates and printer (syntax.h). */
#include "syntax.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static Node dummy_node;  /* returned when the arena is exhausted */

Node *syn_new(Arena *a, NodeKind k, SrcLoc loc) {
    Node *n = arena_alloc8(a, sizeof *n);
    if (!n) {
        memset(&dummy_node, 0, sizeof dummy_node);
        dummy_node.kind = N_LIST;
        return &dummy_node;
    }
    n->kind = k;
    n->loc = loc;
    return n;
}

Node *syn_list(Arena *a, SrcLoc loc, Node **kids, int n) {
    Node *l = syn_new(a, N_LIST, loc);
    if (l == &dummy_node) return l;
    if (n > 0) {
        l->kids = arena_alloc8(a, sizeof(Node *) * (size_t)n);
        if (!l->kids) return l;
        memcpy(l->kids, kids, sizeof(Node *) * (size_t)n);
    }
    l->nkids = n;
    return l;
}

char *syn_lower(Arena *a, const char *s) {
    char *p = arena_strdup(a, s);
    if (!p) return (char *)"";
    for (char *q = p; *q; q++) *q = (char)tolower((unsigned char)*q);
    return p;
}

const char *syn_key(Arena *a, const char *s) {
    for (const char *q = s; *q; q++)
        if (*q >= 'A' && *q <= 'Z') return syn_lower(a, s);
    return s;
}

Node *syn_symbol(Arena *a, SrcLoc loc, const char *name) {
    Node *n = syn_new(a, N_SYMBOL, loc);
    if (n == &dummy_node) return n;
    n->name = arena_strdup(a, name);
    n->key = n->name ? syn_key(a, n->name) : syn_lower(a, name);
    return n;
}

Node *syn_keyword(Arena *a, SrcLoc loc, const char *name) {
    Node *n = syn_symbol(a, loc, name);
    n->kind = N_KEYWORD;
    return n;
}

Node *syn_int(Arena *a, SrcLoc loc, int64_t v) {
    Node *n = syn_new(a, N_INT, loc);
    n->ival = v;
    return n;
}

Node *syn_float(Arena *a, SrcLoc loc, double v) {
    Node *n = syn_new(a, N_FLOAT, loc);
    n->fval = v;
    return n;
}

Node *syn_define_value(Arena *a, SrcLoc loc, const char *text) {
    char *end;
    long long iv = strtoll(text, &end, 0);
    if (*text && !*end) return syn_int(a, loc, iv);
    double fv = strtod(text, &end);
    if (*text && !*end) return syn_float(a, loc, fv);
    if (!strcasecmp(text, "t") || !strcasecmp(text, "true")) return syn_int(a, loc, 1);
    if (!strcasecmp(text, "nil") || !strcasecmp(text, "false")) return syn_int(a, loc, 0);
    return NULL;
}

Node *syn_string(Arena *a, SrcLoc loc, const char *s, int len) {
    Node *n = syn_new(a, N_STRING, loc);
    if (n == &dummy_node) return n;
    n->name = arena_strndup(a, s, (size_t)len);
    n->slen = len;
    return n;
}

Node *syn_copy(Arena *a, const Node *n) {
    Node *c = arena_alloc8(a, sizeof *c);
    if (!c) return (Node *)n;
    *c = *n;
    if (n->nkids) {
        c->kids = arena_alloc8(a, sizeof(Node *) * (size_t)n->nkids);
        if (!c->kids) return (Node *)n;
        memcpy(c->kids, n->kids, sizeof(Node *) * (size_t)n->nkids);
    }
    return c;
}

/* SYN with every unannotated symbol NAMES[i] replaced by BY[i], also inside
 * type annotations; quoted forms are left alone.  Shares what it does not
 * change. */
Node *syn_subst(Arena *a, Node *syn, Node *const *names, Node *const *by, int n) {
    if (!syn) return syn;
    if (syn->kind == N_SYMBOL) {
        if (syn->ann) {
            Node *c = syn_copy(a, syn);
            c->ann = syn_subst(a, syn->ann, names, by, n);
            return c;
        }
        for (int i = 0; i < n; i++)
            if (!strcmp(names[i]->key, syn->key)) return by[i];
        return syn;
    }
    if (syn->kind != N_LIST && syn->kind != N_VECLIT && syn->kind != N_HWVEC) return syn;
    if (syn_is_form(syn, "quote")) return syn;
    Node *c = syn_copy(a, syn);
    for (int i = 0; i < c->nkids; i++) c->kids[i] = syn_subst(a, c->kids[i], names, by, n);
    return c;
}

int syn_is_nil(const Node *n) {
    return n && ((n->kind == N_LIST && n->nkids == 0) || syn_is_sym(n, "nil"));
}

/* ---- printing ---- */

static void print_string(StrBuf *b, const char *s, int len) {
    sb_putc(b, '"');
    for (int i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': sb_puts(b, "\\\""); break;
        case '\\': sb_puts(b, "\\\\"); break;
        case '\n': sb_puts(b, "\\n"); break;
        case '\t': sb_puts(b, "\\t"); break;
        case '\r': sb_puts(b, "\\r"); break;
        case 0: sb_puts(b, "\\0"); break;
        default:
            if (c < 32 || c == 127)
                sb_printf(b, "\\x%02x", c);
            else
                sb_putc(b, (char)c);
        }
    }
    sb_putc(b, '"');
}

static void print_float(StrBuf *b, double v) {
    if (isnan(v)) { sb_puts(b, "nan"); return; }
    if (isinf(v)) { sb_puts(b, v < 0 ? "-inf" : "inf"); return; }
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.17g", v);
    /* shortest representation that reads back exactly */
    for (int p = 1; p <= 17; p++) {
        char t2[64];
        snprintf(t2, sizeof t2, "%.*g", p, v);
        if (strtod(t2, NULL) == v) {
            memcpy(tmp, t2, sizeof t2);
            break;
        }
    }
    sb_puts(b, tmp);
    if (!strpbrk(tmp, ".eEn")) sb_puts(b, ".0");
}

static const char *quote_prefix(const Node *n) {
    if (!n || n->kind != N_LIST || n->nkids != 2) return NULL;
    const char *h = syn_head(n);
    if (!h) return NULL;
    if (!strcmp(h, "quote")) return "'";
    if (!strcmp(h, "quasiquote")) return "`";
    if (!strcmp(h, "unquote")) return ",";
    if (!strcmp(h, "unquote-splicing")) return ",@";
    if (!strcmp(h, "function")) return "#'";
    return NULL;
}

void syn_print(StrBuf *b, const Node *n) {
    if (!n) { sb_puts(b, "<null>"); return; }
    switch (n->kind) {
    case N_SYMBOL:
        sb_puts(b, n->name);
        if (n->ann) {
            sb_putc(b, ':');
            syn_print(b, n->ann);
        }
        return;
    case N_KEYWORD:
        sb_putc(b, ':');
        sb_puts(b, n->name);
        return;
    case N_INT:
        if (n->is_unsigned)
            sb_printf(b, "%llu", (unsigned long long)(uint64_t)n->ival);
        else
            sb_printf(b, "%lld", (long long)n->ival);
        return;
    case N_FLOAT: print_float(b, n->fval); return;
    case N_STRING: print_string(b, n->name, n->slen); return;
    case N_LIST:
    case N_VECLIT:
    case N_HWVEC: {
        const char *qp = quote_prefix(n);
        if (qp) {
            sb_puts(b, qp);
            syn_print(b, n->kids[1]);
            return;
        }
        sb_puts(b, n->kind == N_VECLIT ? "#(" : n->kind == N_HWVEC ? "##(" : "(");
        for (int i = 0; i < n->nkids; i++) {
            if (i) sb_putc(b, ' ');
            syn_print(b, n->kids[i]);
        }
        sb_putc(b, ')');
        return;
    }
    default:
        sb_printf(b, "<%s>", node_kind_name(n->kind));
    }
}

static int flat_width(const Node *n, int limit) {
    StrBuf t;
    sb_init(&t);
    syn_print(&t, n);
    int w = t.len > (size_t)limit ? limit + 1 : (int)t.len;
    sb_free(&t);
    return w;
}

void syn_pprint(StrBuf *b, const Node *n, int indent) {
    int is_seq = n && (n->kind == N_LIST || n->kind == N_VECLIT || n->kind == N_HWVEC);
    if (!is_seq || quote_prefix(n) || n->nkids < 3 || flat_width(n, 78 - indent) <= 78 - indent) {
        syn_print(b, n);
        return;
    }
    const char *open = n->kind == N_VECLIT ? "#(" : n->kind == N_HWVEC ? "##(" : "(";
    sb_puts(b, open);
    int inner = indent + (int)strlen(open);
    /* keep the head (and for def-/let-like forms the next element) on line 1 */
    syn_print(b, n->kids[0]);
    int start = 1;
    if (n->kids[0]->kind == N_SYMBOL && n->nkids > 2) {
        sb_putc(b, ' ');
        syn_pprint(b, n->kids[1], inner + (int)strlen(n->kids[0]->name) + 1);
        start = 2;
    }
    for (int i = start; i < n->nkids; i++) {
        sb_putc(b, '\n');
        for (int k = 0; k < inner + 1; k++) sb_putc(b, ' ');
        syn_pprint(b, n->kids[i], inner + 1);
    }
    sb_putc(b, ')');
}

const char *syn_to_string(Arena *a, const Node *n, int max) {
    StrBuf t;
    sb_init(&t);
    syn_print(&t, n);
    const char *s;
    if (t.len > (size_t)max && max > 3) {
        char *p = arena_strndup(a, sb_cstr(&t), (size_t)max - 3);
        s = arena_printf(a, "%s...", p ? p : "");
    } else {
        s = arena_strdup(a, sb_cstr(&t));
    }
    sb_free(&t);
    return s ? s : "";
}
