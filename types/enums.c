/* enums.c - def-enumeration: keyword keys with int values.
 *
 * Spec "Enumerations": (def-enumeration phylum :arthropoda (:chordata 5)
 * :nematoda).  Enumeration values are first-class run-time values (an int
 * on the device, a C enum in the emitted code).  A key written as a bare
 * keyword resolves against the type its context expects, or else against
 * every enumeration: promoted to the global namespace unless two
 * enumerations share it.  `phylum:chordata` names a key explicitly. */
#include <string.h>

#include "check_int.h"

/* (def-enumeration NAME KEY...) with KEY :name or (:name value) */
void ck_enum_collect(Checker *ck, Node *form) {
    if (form->nkids < 3 || form->kids[1]->kind != N_SYMBOL || form->kids[1]->ann) {
        diag_error_at(ck->d, form, "E0151", "expected (def-enumeration name :key...)");
        return;
    }
    Node *name = form->kids[1];
    if (ty_lookup_base(name->key) || ck_global_lookup(ck, name->key)) {
        diag_error_at(ck->d, name, "E0101", "`%s` is already defined", name->name);
        return;
    }
    EnumDef *ed = arena_alloc(ck->a, sizeof *ed);
    Type *t = arena_alloc(ck->a, sizeof *t);
    int n = form->nkids - 2;
    if (!ed || !t) return;
    ed->keys = arena_alloc(ck->a, sizeof(char *) * (size_t)n);
    ed->key_names = arena_alloc(ck->a, sizeof(char *) * (size_t)n);
    ed->values = arena_alloc(ck->a, sizeof(int64_t) * (size_t)n);
    if (!ed->keys || !ed->key_names || !ed->values) return;
    ed->name = name->name;
    ed->def = form;
    int64_t next = 0;
    Ctx tmp = {.ck = ck};
    for (int i = 0; i < n; i++) {
        Node *k = form->kids[i + 2], *v = NULL;
        if (k->kind == N_LIST && k->nkids == 2) {
            v = k->kids[1];
            k = k->kids[0];
        }
        if (k->kind != N_KEYWORD) {
            diag_error_at(ck->d, k, "E0152", "enumeration keys are keywords like :red, found `%s`", syn_to_string(ck->a, k, 30));
            return;
        }
        if (v && !ck_const_syn_int(&tmp, v, &next)) {
            diag_error_at(ck->d, v, "E0153", "the value of `:%s` must be a compile-time integer", k->name);
            return;
        }
        if (next < INT32_MIN || next > INT32_MAX) {
            diag_error_at(ck->d, v ? v : k, "E0153", "the value of `:%s` does not fit in an int", k->name);
            return;
        }
        for (int j = 0; j < ed->nkeys; j++)
            if (syn_streq(ed->keys[j], k->key)) {
                diag_error_at(ck->d, k, "E0154", "enumeration `%s` lists `:%s` twice", ed->name, k->name);
                return;
            }
        ed->keys[ed->nkeys] = k->key;
        ed->key_names[ed->nkeys] = k->name;
        ed->values[ed->nkeys++] = next++;
    }
    t->kind = TY_ENUM;
    t->ed = ed;
    ed->type = t;
    Sym *s = ck_new_global(ck, SYM_TYPE, name);
    if (!s) return;
    s->ty = t;
    arena_push(ck->a, (void ***)&ck->prog->enums, &ck->prog->nenums, &ck->prog->capenums, ed);
}

static Node *enum_literal(Ctx *cx, const Node *at, EnumDef *ed, int i) {
    Node *n = ck_int_lit(cx, at, ed->values[i], ed->type);
    n->text = ed->keys[i]; /* the key: the target spells its identifier */
    return n;
}

static int find_key(EnumDef *ed, const char *key) {
    for (int i = 0; i < ed->nkeys; i++)
        if (syn_streq(ed->keys[i], key)) return i;
    return -1;
}

/* The enumeration value a keyword names, or NULL when no enumeration has
 * it (it stays a compile-time keyword).  Reports an error (and returns
 * NULL) when the key is ambiguous or not in the expected enumeration. */
Node *ck_enum_value(Ctx *cx, Node *kw, Type *want) {
    Program *p = ck_prog_of(cx);
    if (want && want->kind == TY_ENUM) {
        int i = find_key(want->ed, kw->key);
        if (i >= 0) return enum_literal(cx, kw, want->ed, i);
        StrBuf keys;
        sb_init(&keys);
        for (int j = 0; j < want->ed->nkeys; j++) sb_printf(&keys, "%s:%s", j ? " " : "", want->ed->keys[j]);
        diag_error_at(cx->ck->d, kw, "E0155", "`:%s` is not a key of `%s` (its keys are %s)", kw->name, want->ed->name,
                      sb_cstr(&keys));
        sb_free(&keys);
        return NULL;
    }
    EnumDef *found = NULL;
    int at = -1;
    for (int e = 0; e < p->nenums; e++) {
        int i = find_key(p->enums[e], kw->key);
        if (i < 0) continue;
        if (found) {
            diag_error_at(cx->ck->d, kw, "E0156", "`:%s` is a key of both `%s` and `%s`: write %s:%s or %s:%s", kw->name, found->name,
                          p->enums[e]->name, found->name, kw->name, p->enums[e]->name, kw->name);
            return NULL;
        }
        found = p->enums[e];
        at = i;
    }
    return found ? enum_literal(cx, kw, found, at) : NULL;
}
