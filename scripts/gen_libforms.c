/* gen_libforms.c - write build/gen/libforms.c: the library's forms as C
 * data (reader/libforms.h says why).
 *
 * Linked with the library's objects (and scripts/libforms_stub.c in place
 * of the file it writes), it reads each text of crisp_library the way
 * reader/builtin.c would at run time - its own context, diagnostics going
 * nowhere - and prints every node reachable from the forms (kids and
 * annotations) as a Node initializer, every distinct spelling once (nodes
 * that shared a spelling's pointer share it here), every kids array as an
 * array of pointers into the nodes.  A text with a #+ / #- form (the
 * reader counts them: "#+" in a comment is none) or with reader errors
 * gets nforms = -1: builtin.c reads it at run time.
 *
 * Usage: gen_libforms > build/gen/libforms.c */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/ptrmap.h"
#include "../reader/libforms.h"
#include "../reader/reader.h"

typedef struct LibFile {
    const char *name;
    const char *text;
} LibFile;
extern const LibFile crisp_library[];

typedef struct Gen {
    Arena *a;
    PtrMap node_ix, str_ix, kids_ix;  /* pointer -> index + 1 */
    const Node **nodes;
    int nnodes, capnodes;
    const char **strs;
    int *strlens;  /* -1: NUL-terminated */
    int nstrs, capstrs;
    const Node **kid_owners; /* the list of each kids array, in slot order */
    int nkidarrs, capkidarrs, nkidptrs;
} Gen;

static void *grow(void *v, int *cap, int need, size_t elem) {
    if (need <= *cap) return v;
    int nc = *cap ? *cap * 2 : 1024;
    while (nc < need) nc *= 2;
    void *p = realloc(v, (size_t)nc * elem);
    if (!p) {
        fprintf(stderr, "gen_libforms: out of memory\n");
        exit(1);
    }
    *cap = nc;
    return p;
}

static int str_index(Gen *g, const char *s, int len) {
    intptr_t ix = (intptr_t)ptrmap_get(&g->str_ix, s);
    if (ix) return (int)ix - 1;
    int cap = g->capstrs;
    g->strs = grow(g->strs, &cap, g->nstrs + 1, sizeof *g->strs);
    g->strlens = grow(g->strlens, &g->capstrs, g->nstrs + 1, sizeof *g->strlens);
    g->strs[g->nstrs] = s;
    g->strlens[g->nstrs] = len;
    ptrmap_put(g->a, &g->str_ix, s, (void *)(intptr_t)(g->nstrs + 1));
    return g->nstrs++;
}

/* Number every node below n (pre-order), its spellings and kids array. */
static void collect(Gen *g, const Node *n) {
    if (!n || ptrmap_get(&g->node_ix, n)) return;
    g->nodes = grow(g->nodes, &g->capnodes, g->nnodes + 1, sizeof *g->nodes);
    g->nodes[g->nnodes++] = n;
    ptrmap_put(g->a, &g->node_ix, n, (void *)(intptr_t)g->nnodes);
    if (n->kind == N_SYMBOL || n->kind == N_KEYWORD) {
        if (n->name) str_index(g, n->name, -1);
        if (n->key) str_index(g, n->key, -1);
        collect(g, n->ann);
    } else if (n->kind == N_STRING && n->name) {
        str_index(g, n->name, n->slen);
    }
    if (n->nkids > 0 && n->kids && !ptrmap_get(&g->kids_ix, n->kids)) {
        g->kid_owners = grow(g->kid_owners, &g->capkidarrs, g->nkidarrs + 1, sizeof *g->kid_owners);
        g->kid_owners[g->nkidarrs++] = n;
        ptrmap_put(g->a, &g->kids_ix, n->kids, (void *)(intptr_t)(g->nkidptrs + 1)); /* its first slot + 1 */
        g->nkidptrs += n->nkids;
    }
    for (int i = 0; i < n->nkids; i++) collect(g, n->kids[i]);
}

static void print_string(const char *s, int len) {
    size_t n = len < 0 ? strlen(s) : (size_t)len;
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20 || c >= 0x7f || c == '?') printf("\\%03o", c); /* `?`: no trigraphs */
        else putchar(c);
    }
    putchar('"');
}

static int node_index(Gen *g, const Node *n) {
    return (int)(intptr_t)ptrmap_get(&g->node_ix, n) - 1;
}

static void print_file(Gen *g, int f) {
    for (int i = 0; i < g->nstrs; i++) {
        printf("static const char s%d_%d[] = ", f, i);
        print_string(g->strs[i], g->strlens[i]);
        printf(";\n");
    }
    printf("static Node n%d[%d];\n", f, g->nnodes > 0 ? g->nnodes : 1);
    printf("static Node *k%d[%d] = {\n", f, g->nkidptrs > 0 ? g->nkidptrs : 1);
    for (int i = 0; i < g->nkidarrs; i++)
        for (int k = 0; k < g->kid_owners[i]->nkids; k++)
            printf("    &n%d[%d],\n", f, node_index(g, g->kid_owners[i]->kids[k]));
    if (!g->nkidptrs) printf("    0,\n");
    printf("};\n");
    printf("static Node n%d[%d] = {\n", f, g->nnodes > 0 ? g->nnodes : 1);
    for (int i = 0; i < g->nnodes; i++) {
        const Node *n = g->nodes[i];
        printf("    {.kind = %d, .is_unsigned = %d, .radix = %d, .op = %d, .nkids = %d, .loc = {.line = %d, .col = %u, .fid = %u}",
               n->kind, n->is_unsigned, n->radix, n->op, n->nkids, n->loc.line, (unsigned)n->loc.col,
               (unsigned)(LIBFORMS_FID0 + f));
        if (n->nkids > 0 && n->kids)
            printf(", .kids = &k%d[%d]", f, (int)(intptr_t)ptrmap_get(&g->kids_ix, n->kids) - 1);
        if (n->kind == N_INT) {
            if (n->ival == INT64_MIN) printf(", .ival = INT64_MIN");
            else printf(", .ival = %" PRId64, n->ival);
        } else if (n->kind == N_FLOAT) {
            printf(", .fval = %a", n->fval);
        } else if (n->kind == N_STRING) {
            printf(", .slen = %d", n->slen);
        }
        if (n->kind == N_SYMBOL || n->kind == N_KEYWORD || n->kind == N_STRING) {
            if (n->name) printf(", .name = s%d_%d", f, (int)(intptr_t)ptrmap_get(&g->str_ix, n->name) - 1);
            if (n->kind != N_STRING && n->key) printf(", .key = s%d_%d", f, (int)(intptr_t)ptrmap_get(&g->str_ix, n->key) - 1);
            if (n->kind == N_SYMBOL && n->ann) printf(", .ann = &n%d[%d]", f, node_index(g, n->ann));
        }
        printf("},\n");
    }
    printf("};\n");
}

int main(void) {
    printf("/* generated by scripts/gen_libforms.c from lib/ (reader/libforms.h) - do not edit */\n");
    printf("#include <stdint.h>\n#include \"../../reader/libforms.h\"\n");
    int nfiles = 0;
    for (const LibFile *lf = crisp_library; lf->name; lf++) nfiles++;
    if (nfiles > LIBFORMS_MAX) {
        fprintf(stderr, "gen_libforms: %d library files, at most %d (reader/libforms.h)\n", nfiles, LIBFORMS_MAX);
        return 1;
    }
    int *ok = calloc((size_t)nfiles + 1, sizeof *ok), *nforms = calloc((size_t)nfiles + 1, sizeof *nforms),
        *nnodes = calloc((size_t)nfiles + 1, sizeof *nnodes);
    if (!ok || !nforms || !nnodes) return 1;
    for (int f = 0; f < nfiles; f++) {
        const LibFile *lf = &crisp_library[f];
        Crisp c;
        memset(&c, 0, sizeof c);
        arena_init(&c.arena);
        diag_init(&c.diag, NULL);
        Reader r;
        reader_init(&r, &c);
        SrcFile file = {lf->name, lf->text, (int)strlen(lf->text)};
        Forms forms = {0};
        reader_read_file(&r, &file, &forms);
        /* a #+ / #- form: what it keeps may depend on -D, read it each time */
        if (c.diag.errors || c.arena.exhausted || r.conditionals) continue;
        Gen g;
        memset(&g, 0, sizeof g);
        g.a = &c.arena;
        for (int i = 0; i < forms.n; i++) collect(&g, forms.v[i]);
        print_file(&g, f);
        printf("static Node *f%d[%d] = {\n", f, forms.n > 0 ? forms.n : 1);
        for (int i = 0; i < forms.n; i++) printf("    &n%d[%d],\n", f, node_index(&g, forms.v[i]));
        if (!forms.n) printf("    0,\n");
        printf("};\n");
        ok[f] = 1;
        nforms[f] = forms.n;
        nnodes[f] = g.nnodes;
        free(g.nodes);
        free(g.strs);
        free(g.strlens);
        free(g.kid_owners);
        arena_free(&c.arena);
    }
    printf("const LibForms crisp_libforms[] = {\n");
    for (int f = 0; f < nfiles; f++) {
        printf("    {\"%s\", %d, ", crisp_library[f].name, (int)strlen(crisp_library[f].text));
        if (ok[f]) printf("f%d, %d, n%d, %d, %u},\n", f, nforms[f], f, nnodes[f], (unsigned)(LIBFORMS_FID0 + f));
        else printf("0, -1, 0, 0, 0},\n");
    }
    printf("    {0, 0, 0, 0, 0, 0, 0},\n};\n");
    free(ok);
    free(nforms);
    free(nnodes);
    return ferror(stdout) ? 1 : 0;
}
