/* strmap.c - string-keyed hash map (strmap.h), made of hashmap_impl.h. */
#include "strmap.h"

#include <stdint.h>
#include <string.h>

#define HM_MAP StrMap
#define HM_ENT StrMapEnt
#define HM_KEY const char *
#define HM_FN(name) strmap_##name
#define HM_HASH(k) strmap_hash(k)
/* Equal keys: mostly the same pointer; else compared here, not by a call
 * of strcmp (keys are short names; a map's lookup stays a leaf function) */
static inline int key_eq(const char *a, const char *b) {
    if (a == b) return 1;
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}
#define HM_EQ(a, b) key_eq((a), (b))
#include "hashmap_impl.h"

void strmap_release(Arena *a, StrMap *m) {
    if (m->cap) arena_give_back(a, m->ents, sizeof(StrMapEnt) * (size_t)m->cap);
    m->ents = NULL;
    m->n = m->cap = 0;
}

void strmap_clear(StrMap *m) {
    if (m->n) memset(m->ents, 0, sizeof(StrMapEnt) * (size_t)m->cap);
    m->n = 0;
}

