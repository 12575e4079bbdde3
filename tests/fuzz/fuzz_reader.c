/* fuzz_reader.c - libFuzzer target for the reader alone (reader/reader.c).
 *
 * Feeds the bytes as one source file (with a -D define and a small arena
 * cap now and then, so the conditional and out-of-memory paths are
 * reached), prints every form read (the printer must cope with whatever the
 * reader builds) and frees everything.  Build:
 *   clang -std=c11 -D_POSIX_C_SOURCE=200809L -Isrc -g -O1 \
 *     -fsanitize=fuzzer,address,undefined tests/fuzz/fuzz_reader.c \
 *     reader/reader.c src/arena.c src/diag.c src/strbuf.c src/syntax.c -lm
 *   ./a.out tests/fuzz/corpus_reader */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../reader/reader.h"
#include "../../core/syntax.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stand-ins until src/compile.c (the lead's) is linked in; a strong
 * definition there wins. */
__attribute__((weak)) void forms_push(Arena *a, Forms *f, Node *n) {
    if (f->n == f->cap) {
        int cap = f->cap ? f->cap * 2 : 16;
        Node **v = arena_alloc(a, sizeof *v * (size_t)cap);
        if (!v) return;
        if (f->n) memcpy(v, f->v, sizeof *v * (size_t)f->n);
        f->v = v;
        f->cap = cap;
    }
    f->v[f->n++] = n;
}

__attribute__((weak)) const char *crisp_define(const CrispOptions *opt, const char *name) {
    for (int i = 0; i < opt->ndefines; i++)
        if (strcmp(opt->defines[i].name, name) == 0) return opt->defines[i].value;
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (size_t)1 << 24) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;

    CrispDefine defs[] = {{"D", "1"}, {"N", "nil"}};
    CrispOptions o;
    memset(&o, 0, sizeof o);
    o.defines = defs;
    o.ndefines = 2;
    Crisp c;
    memset(&c, 0, sizeof c);
    arena_init(&c.arena);
    if (size > 0 && data[0] == '!') arena_set_cap(&c.arena, 4096);  /* exercise out of memory */
    diag_init(&c.diag, NULL);
    c.opt = &o;

    Reader r;
    reader_init(&r, &c);
    SrcFile f = {"fuzz.crisp", text, (int)size};
    Forms forms = {0};
    int nerr = reader_read_file(&r, &f, &forms);
    if (nerr < 0) abort();
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < forms.n; i++) {
        if (!forms.v[i]) abort();
        syn_print(&b, forms.v[i]);
    }
    sb_free(&b);

    arena_free(&c.arena);
    free(text);
    return 0;
}
