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

