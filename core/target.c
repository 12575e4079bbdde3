/* target.c - the one table of target properties (see target.h). */
#include <string.h>

#include "target.h"

static const struct {
    const char *key;
    int has;
} oclc_props[] = {
    {"fp64", -1}, {"fp16", -1}, {"images", 1}, {"local-memory", 1}, {"atomics32", 1},
    {"subgroups", 0},
};

int target_property(const char *key) {
    for (size_t i = 0; i < sizeof oclc_props / sizeof oclc_props[0]; i++)
        if (!strcmp(oclc_props[i].key, key)) return oclc_props[i].has;
    return -2;
}
