/* crisp.h - libcrisp's public API: in-memory compilation of Crisp.
 *
 * This is the one installed header.  It is self-contained (<stddef.h> and
 * <stdbool.h> only), declares nothing but the API, and is C and C++.  It
 * is the spec's "In-Memory Compilation API" with the prefix `crisp_` on
 * every name (new_context -> crisp_new_context, ...; the mapping is in
 * docs/api.md):
 *
 *     crisp_context *ctx = crisp_new_context("oclc");
 *     crisp_add_input_string(ctx, source, "my_kernel.crisp");
 *     size_t size;
 *     if (crisp_compile(ctx, &size) >= 0) {
 *         const void *cl;
 *         crisp_get_binary(ctx, &cl, &size);    // OpenCL C for "oclc"
 *         puts(crisp_get_metadata(ctx));        // JSON: kernels, arguments
 *     } else {
 *         fputs(crisp_get_messages(ctx), stderr);
 *     }
 *     crisp_destroy_context(ctx);
 *
 * Contexts are independent: separate contexts may be used from separate
 * threads at the same time; one context is used by one thread at a time.
 * The library keeps no other state than a read-only cache of its own
 * parsed prelude, never exits the process and writes no file unless asked
 * (set_tree_shake_directory, add_input_file read; the binary targets run
 * vendor tools on temporary files, docs/targets.md). */
#ifndef CRISP_H
#define CRISP_H

#include <stdbool.h>
#include <stddef.h>

#define CRISP_VERSION "0.1.0"

#if defined(CRISP_BUILDING_LIBRARY) && defined(__GNUC__)
#define CRISP_API __attribute__((visibility("default")))
#else
#define CRISP_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One compilation environment: its target, inputs, flags and the results
 * of its last compilation. */
typedef struct crisp_context crisp_context;

/* What crisp_compile returns (spec "Status Codes"). */
typedef enum crisp_status {
    /* Compiled, and every kernel's hoisting/launch requirements (its
       arguments, side channels, sizes: the metadata) are those of the
       previous successful compilation of this context, or of the record in
       the tree-shake directory. */
    CRISP_SUCCESS_COMPATIBLE = 0,
    /* Compiled, BUT some kernel's requirements changed: re-read the
       metadata before launching it. */
    CRISP_SUCCESS_BREAKING_CHANGE = 1,
    /* Did not compile: crisp_get_compilation_error_code() says why and
       crisp_get_messages() has the diagnostics. */
    CRISP_ERROR_COMPILE_FAILURE = -1
} crisp_status;

/* The library's version, CRISP_VERSION of the build. */
CRISP_API const char *crisp_version(void);

/* A new context compiling for `target_identifier`: "oclc" (OpenCL C
 * text), an --ir-target ID ("spv", "ptx") or a --binary-gpu-target ID
 * ("sm_90", any sm_ the installed ptxas knows, "pvc").  NULL when the
 * identifier is unknown or out of memory. */
CRISP_API crisp_context *crisp_new_context(const char *target_identifier);

/* Use the cache a `crisp --tree-shaking` compilation wrote in `path`: its
 * recorded flags become the context's flags (crisp_get_flags), its kernels'
 * requirements the reference for CRISP_SUCCESS_BREAKING_CHANGE, and its
 * built IR/binaries are reused when the generated OpenCL C is the same.
 * Returns 0, or -1 when `path` holds no readable cache (see messages). */
CRISP_API int crisp_set_tree_shake_directory(crisp_context *ctx, const char *path);

/* Read a .crisp file and add it to the inputs.  0, or -1 when it cannot
 * be read (see messages). */
CRISP_API int crisp_add_input_file(crisp_context *ctx, const char *path);

/* Add Crisp source held in memory (NUL-terminated), named
 * `virtual_file_name` in diagnostics (NULL: "<string>").  0 or -1. */
CRISP_API int crisp_add_input_string(crisp_context *ctx, const char *crisp_source,
                                     const char *virtual_file_name);

/* Replace the context's flags by `flags`, written as on the command line
 * ("-DN=40 --single-pass --no-inference").  Not additive: each call gives
 * the complete set.  Flags that do not apply to in-memory compilation
 * (outputs, hoists) are ignored with a warning in the messages.  0, or -1
 * when a flag is unknown or malformed (see messages). */
CRISP_API int crisp_set_flags(crisp_context *ctx, const char *flags);

/* The context's flags as one string.  With `buffer` NULL, sets *size to
 * the bytes needed (with the terminating NUL); otherwise copies at most
 * *size bytes (NUL-terminated) and sets *size to the bytes needed.
 * Returns 0, or -1 when the buffer was too small (it then holds a prefix). */
CRISP_API int crisp_get_flags(crisp_context *ctx, char *buffer, size_t *size);

/* Compile every input.  On success *size (when not NULL) is the size of
 * the result (crisp_get_binary). */
CRISP_API crisp_status crisp_compile(crisp_context *ctx, size_t *size);

/* Add `crisp_source` as one more input and compile everything; its
 * top-level definitions replace earlier ones of the same name instead of
 * clashing with them (spec: the string "overrides"). */
CRISP_API crisp_status crisp_compile_string(crisp_context *ctx, const char *crisp_source, size_t *size);

/* The result of the last successful compilation: OpenCL C text ("oclc",
 * NUL-terminated), SPIR-V, PTX text, or a cubin / fat binary / Intel
 * binary, ready for clCreateProgramWithSource/WithIL/WithBinary or
 * cuModuleLoadData.  False when there is none.  Valid until the next
 * compilation or crisp_destroy_context. */
CRISP_API bool crisp_get_binary(crisp_context *ctx, const void **out_data, size_t *out_size);

/* 0 when the last compilation succeeded; otherwise the number of its first
 * error's code (E0312 -> 312), or 2 for an error without a code (an
 * unreadable input, a bad flag, a missing or failing vendor tool). */
CRISP_API long crisp_get_compilation_error_code(crisp_context *ctx);

/* Errors and warnings of the last compilation (or of the last failed
 * call), as `crisp` prints them.  Never NULL. */
CRISP_API const char *crisp_get_messages(crisp_context *ctx);

/* The metadata of the last successful compilation: the JSON that `crisp
 * --metadata` writes (README "Metadata").  NULL when there is none. */
CRISP_API const char *crisp_get_metadata(crisp_context *ctx);

/* Free the context and everything it returned. */
CRISP_API void crisp_destroy_context(crisp_context *ctx);

#ifdef __cplusplus
}
#endif

#endif
