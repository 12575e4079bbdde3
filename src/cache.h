/* cache.h - the tree-shaking cache directory (spec "--tree-shaking",
 * "Fast Compilation", "Status Codes"; docs/api.md "The cache").
 *
 * A `crisp --tree-shaking` compilation leaves in its cache directory
 *   BASE.crisp_libc  the record: the flags it was compiled with, its
 *                    inputs, what tree shaking kept and dropped, and the
 *                    kernels' metadata (their hoisting requirements);
 *   HASH.crisp_lib   one per IR/binary target: what the vendor tools
 *                    built from the generated OpenCL C, keyed by a hash of
 *                    that OpenCL C, the target and --fat-binary.
 * Later compilations that name the directory (--tree-shake-dir, or the
 * API's crisp_set_tree_shake_directory) take the IR and binaries from it
 * whenever their OpenCL C is the same, instead of running the tools; the
 * API also takes the record's flags and compares the kernels' metadata
 * with it (CRISP_SUCCESS_BREAKING_CHANGE). */
#ifndef CRISP_CACHE_H
#define CRISP_CACHE_H

#include <stddef.h>

#include "../core/options.h"
#include "../core/strbuf.h"

typedef struct CacheRecord {
    char *flags;     /* malloc'd */
    char *metadata;  /* malloc'd JSON (the kernels' requirements) */
} CacheRecord;

/* Read the record(s) in `dir`: the flags of the newest, the metadata of
 * all (kernels merged by name).  0, or -1 with a message in `err`. */
int cache_load_record(const char *dir, CacheRecord *out, StrBuf *err);
void cache_record_free(CacheRecord *r);

/* The record's text for a compilation. */
void cache_record_text(StrBuf *out, const char *flags, const char *const *inputs, const char *const *texts,
                       const size_t *lens, int ninputs, const char *kept, const char *shaken, const char *metadata);

/* The cache entry's file name for target `t` built from `cl`. */
char *cache_entry_path(const char *dir, const CrispTarget *t, int fat, const char *cl, size_t cl_len);
/* The entry's text (a header naming the key, then the built bytes). */
void cache_entry_text(StrBuf *out, const CrispTarget *t, int fat, const char *cl, size_t cl_len, const StrBuf *built);
/* Fill `built` from the entry at `path` when it exists and was made from
 * exactly this OpenCL C for this target; 1 on a hit, 0 otherwise. */
int cache_entry_load(const char *path, const CrispTarget *t, int fat, const char *cl, size_t cl_len, StrBuf *built);

/* Would a host that launched the kernels of metadata `old` break on those
 * of `now`?  True when a kernel of `old` is gone or its arguments, side
 * channels, sizes or debug channel changed (source lines do not count). */
int cache_abi_breaks(const char *old, const char *now);

/* Read a source file (64 MiB at most): 0, or an errno value (EFBIG). */
int cache_read_source(const char *path, StrBuf *out);

#endif
