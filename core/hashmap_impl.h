/* hashmap_impl.h - the open-addressing table that ptrmap.c and strmap.c are
 * both made of, written once (C has no generics): each of them defines the
 * names below and includes this file once.
 *
 *   HM_MAP, HM_ENT   the map and entry types (ptrmap.h, strmap.h)
 *   HM_KEY           the key's type
 *   HM_FN(name)      the public name of `name` (ptrmap_get ...)
 *   HM_HASH(k)       the key's 32-bit hash
 *   HM_EQ(a, b)      whether two keys are the same
 *
 * Linear probing in a power-of-two array at most half full; a table that
 * grows gives its old array back to the arena (arena_give_back), where the
 * next table of that size takes it.  Nothing is ever removed: a table is
 * given back whole (release) or emptied in place for reuse (clear). */

void *HM_FN(get)(const HM_MAP *m, HM_KEY key) {
    if (!m->cap) return NULL;
    uint32_t mask = (uint32_t)m->cap - 1;
    for (uint32_t j = HM_HASH(key) & mask; m->ents[j].key; j = (j + 1) & mask)
        if (HM_EQ(m->ents[j].key, key)) return m->ents[j].val;
    return NULL;
}

/* Grow m's table to ncap entries (a power of two). */
static int hm_grow_to(Arena *a, HM_MAP *m, int ncap) {
    HM_ENT *ne = arena_alloc_block(a, sizeof *ne * (size_t)ncap);
    if (!ne) return 0;
    for (int i = 0; i < m->cap; i++) {
        if (!m->ents[i].key) continue;
        uint32_t j = HM_HASH(m->ents[i].key) & (uint32_t)(ncap - 1);
        while (ne[j].key) j = (j + 1) & (uint32_t)(ncap - 1);
        ne[j] = m->ents[i];
    }
    arena_give_back(a, m->ents, sizeof *ne * (size_t)m->cap); /* nothing refers to it */
    m->ents = ne;
    m->cap = ncap;
    return 1;
}

int HM_FN(reserve)(Arena *a, HM_MAP *m, int n) {
    int ncap = m->cap ? m->cap : 8;
    while (ncap < (1 << 29) && (n + 1) * 2 >= ncap) ncap *= 2;
    return ncap == m->cap || hm_grow_to(a, m, ncap);
}

int HM_FN(put)(Arena *a, HM_MAP *m, HM_KEY key, void *val) {
    if ((m->n + 1) * 2 >= m->cap && !hm_grow_to(a, m, m->cap ? m->cap * 2 : 8)) /* many maps are per function, and small */
        return 0;
    uint32_t mask = (uint32_t)m->cap - 1, j = HM_HASH(key) & mask;
    while (m->ents[j].key && !HM_EQ(m->ents[j].key, key)) j = (j + 1) & mask;
    if (!m->ents[j].key) m->n++;
    m->ents[j].key = key;
    m->ents[j].val = val;
    return 1;
}

/* The value slot of `key`, made (holding NULL) when it is not there: a
 * read and a write of the same key with one probe.  NULL when out of
 * memory.  The slot is valid until the next insertion. */
void **HM_FN(slot)(Arena *a, HM_MAP *m, HM_KEY key) {
    if ((m->n + 1) * 2 >= m->cap && !hm_grow_to(a, m, m->cap ? m->cap * 2 : 8)) return NULL;
    uint32_t mask = (uint32_t)m->cap - 1, j = HM_HASH(key) & mask;
    while (m->ents[j].key && !HM_EQ(m->ents[j].key, key)) j = (j + 1) & mask;
    if (!m->ents[j].key) {
        m->n++;
        m->ents[j].key = key;
        m->ents[j].val = NULL;
    }
    return &m->ents[j].val;
}

void HM_FN(release)(Arena *a, HM_MAP *m) {
    if (m->cap) arena_give_back(a, m->ents, sizeof(HM_ENT) * (size_t)m->cap);
    m->ents = NULL;
    m->n = m->cap = 0;
}

void HM_FN(clear)(HM_MAP *m) {
    if (m->n) memset(m->ents, 0, sizeof(HM_ENT) * (size_t)m->cap);
    m->n = 0;
}
