/* strmap.c - string-keyed hash map (strmap.h). */
#include "strmap.h"

#include <stdint.h>
#include <string.h>

static uint32_t str_hash(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h;
}

void *strmap_get(const StrMap *m, const char *key) {
    if (!m->cap) return NULL;
    uint32_t mask = (uint32_t)m->cap - 1;
    for (uint32_t j = str_hash(key) & mask; m->ents[j].key; j = (j + 1) & mask)
        if (!strcmp(m->ents[j].key, key)) return m->ents[j].val;
    return NULL;
}

/* Grow m's table to ncap entries (a power of two). */
static int grow_to(Arena *a, StrMap *m, int ncap) {
    StrMapEnt *ne = arena_alloc_block(a, sizeof *ne * (size_t)ncap);
    if (!ne) return 0;
    for (int i = 0; i < m->cap; i++) {
        if (!m->ents[i].key) continue;
        uint32_t j = str_hash(m->ents[i].key) & (uint32_t)(ncap - 1);
        while (ne[j].key) j = (j + 1) & (uint32_t)(ncap - 1);
        ne[j] = m->ents[i];
    }
    arena_give_back(a, m->ents, sizeof *ne * (size_t)m->cap); /* nothing refers to it */
    m->ents = ne;
    m->cap = ncap;
    return 1;
}

int strmap_reserve(Arena *a, StrMap *m, int n) {
    int ncap = m->cap ? m->cap : 8;
    while (ncap < (1 << 29) && (n + 1) * 2 >= ncap) ncap *= 2;
    return ncap == m->cap || grow_to(a, m, ncap);
}

int strmap_put(Arena *a, StrMap *m, const char * key, void *val) {
    if ((m->n + 1) * 2 >= m->cap && !grow_to(a, m, m->cap ? m->cap * 2 : 8)) /* many maps are per function, and small */
        return 0;
    uint32_t mask = (uint32_t)m->cap - 1, j = str_hash(key) & mask;
    while (m->ents[j].key && strcmp(m->ents[j].key, key)) j = (j + 1) & mask;
    if (!m->ents[j].key) m->n++;
    m->ents[j].key = key;
    m->ents[j].val = val;
    return 1;
}

void strmap_release(Arena *a, StrMap *m) {
    if (m->cap) arena_give_back(a, m->ents, sizeof(StrMapEnt) * (size_t)m->cap);
    m->ents = NULL;
    m->n = m->cap = 0;
}
