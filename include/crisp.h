/* crisp.h - the public face of libcrisp: options and the compile entry point.
 *
 * This is the one installed header: it is self-contained (only <stdio.h>
 * and <stddef.h>) and declares nothing but the API.  `crisp` (src/main.c)
 * only parses the command line into CrispOptions and calls crisp_compile();
 * everything else - reading, macro expansion, checking, emitting - lives in
 * the library, which never exits the process and reports problems through
 * its diagnostics. */
#ifndef CRISP_H
#define CRISP_H

#include <stddef.h>
#include <stdio.h>

struct StrBuf;

#define CRISP_VERSION "0.1.0"

typedef enum CrispDump { DUMP_NONE, DUMP_READ, DUMP_EXPAND, DUMP_CHECK, DUMP_ANALYSIS } CrispDump;

typedef struct CrispDefine {
    const char *name;   /* case-sensitive parameter name */
    const char *value;  /* text after '=' */
} CrispDefine;

typedef struct CrispOptions {
    const char **inputs;
    int ninputs;
    int transpile_oclc;       /* --transpile-to=oclc */
    int metadata;             /* --metadata */
    const char *output_dir;   /* --output-dir (default ".") */
    const char *output_base;  /* --output-base (default: last input's stem) */
    CrispDefine *defines;     /* -DNAME=VALUE */
    int ndefines;
    int hoist_opencl;         /* --hoist=OpenCL: DIR/BASE_hoist_OpenCL.c */
    int hoist_pyopencl;       /* --hoist=PyOpenCL: DIR/BASE_hoist_PyOpenCL.py */
    int debug_output;         /* --debug-output: the run-time debug channel */
    int ocl_version;          /* --ocl-version: 120, 200 or 300 (0: 120) */
    int hoist_unified_memory; /* --hoist-unified-memory: SVM in the hoists */
    const char **hoist_dynamic; /* --hoist-dynamic=KERNEL (repeatable) */
    int nhoist_dynamic;
    const char *emit_runtime_dir; /* --emit-runtime=DIR: write the shim */
    CrispDump dump;           /* --dump=read|expand|check|analysis (to dump_out) */
    int no_static_analysis;   /* --no-static-analysis: skip the opt-in checks */
    FILE *dump_out;
    int no_prelude;           /* internal/testing: skip the built-in prelude */
    /* In-memory input (fuzzer, unit tests): used instead of reading files
       when `input_text` is non-NULL; named inputs[0] (or "<input>"). */
    const char *input_text;
    int input_len;
    /* In-memory outputs: when set, the requested outputs are appended to
       these buffers instead of being written as files. */
    struct StrBuf *capture_cl;
    struct StrBuf *capture_meta;
    /* Diagnostics (docs/diagnostics.md). */
    int diagnostics_json;     /* --diagnostics-format=json: one JSON object per line */
    int diagnostics_color;    /* ANSI colours (the driver decides: a terminal, NO_COLOR unset) */
    int warnings_as_errors;   /* -Werror */
    int no_warnings;          /* -w (wins over -Werror) */
    int max_errors;           /* -fmax-errors=N: 0 = the default (50); -1 = no limit */
    /* Resource limits (0 = default). */
    long max_expansion_depth;
    long max_eval_steps;
    long max_consteval_steps; /* steps of one def-const-vec body (default 2^25);
                                 also the most (declare (max-steps N)) gets */
    size_t max_arena_bytes;
} CrispOptions;

/* Compile with these options, writing diagnostics to `diag_out`.
 * Exit status: 0 ok, 1 source errors, 2 bad invocation / unreadable file. */
int crisp_compile(const CrispOptions *opt, FILE *diag_out);

/* `crisp --explain CODE`: print the title of a diagnostic code (such as
 * "E0312") and an example program with what crisp reports on it.
 * Returns 0, or 2 (with a message on `err`) for an unknown code. */
int crisp_explain(const char *code, FILE *out, FILE *err);

#endif
