/* ptrmap.c - pointer-keyed hash map (ptrmap.h), made of hashmap_impl.h. */
#include "ptrmap.h"

#include <stdint.h>
#include <string.h>

static uint32_t ptr_hash(const void *p) {
    uintptr_t x = (uintptr_t)p >> 4;
    return (uint32_t)(x * 2654435761u) ^ (uint32_t)(x >> 29);
}

#define HM_MAP PtrMap
#define HM_ENT PtrMapEnt
#define HM_KEY const void *
#define HM_FN(name) ptrmap_##name
#define HM_HASH(k) ptr_hash(k)
#define HM_EQ(a, b) ((a) == (b))
#include "hashmap_impl.h"
