/* options.h - what one compilation is asked to do (CrispOptions).
 *
 * Below every stage, next to the per-compilation state (context.h): the
 * driver fills it from the command line (src/main.c) or the in-memory API
 * (src/api.c) through the one option table (src/options.c), and the
 * stages read it.  It is internal: the installed header, include/crisp.h,
 * declares only the API. */
#ifndef CRISP_OPTIONS_H
#define CRISP_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "../include/crisp.h"

struct StrBuf;

typedef enum CrispDump { DUMP_NONE, DUMP_READ, DUMP_EXPAND, DUMP_CHECK, DUMP_ANALYSIS } CrispDump;

typedef struct CrispDefine {
    const char *name;   /* case-sensitive parameter name */
    const char *value;  /* text after '=' */
} CrispDefine;

/* --ir-target=ID / --binary-gpu-target=ID (docs/targets.md); TARGET_NVCL
 * ("nvcl", BASE_nvcl.ptx) is never named by the user: compile.c adds it
 * for --ir-target=ptx with an OpenCL hoist (the PTX NVIDIA's OpenCL loads) */
typedef enum CrispTargetKind { TARGET_SPV, TARGET_PTX, TARGET_CUBIN, TARGET_PVC, TARGET_NVCL } CrispTargetKind;

typedef struct CrispTarget {
    CrispTargetKind kind;
    const char *id;           /* "spv", "ptx", "sm_90", "pvc", "nvcl" */
} CrispTarget;

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
    int hoist_cuda;           /* --hoist=CUDA: DIR/BASE_hoist_CUDA.h/.cpp/_demo.cpp (implies the PTX) */
    int hoist_pycuda;         /* --hoist=PyCUDA: DIR/BASE_hoist_PyCUDA.py (implies the PTX) */
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
    /* IR and binaries through the vendor tools (docs/targets.md) */
    CrispTarget *targets;     /* --ir-target, --binary-gpu-target, in order */
    int ntargets;
    int fat_binary;           /* --fat-binary: binaries carry their IR */
    /* compilation flags (docs/api.md "Flags") */
    int tree_shaking;         /* --tree-shaking: emit only what kernels use, fill the cache */
    const char *tree_shake_dir; /* --tree-shake-dir=DIR: the cache (default: output dir) */
    int skip_ct_checks;       /* --skip-c-t-checks */
    int single_pass;          /* --single-pass: definitions before uses */
    int no_inference;         /* --no-inference: every variable typed */
    const char *re_output_dir; /* --re-output-crisp=DIR */
    /* In-memory input (fuzzer, unit tests): used instead of reading files
       when `input_text` is non-NULL; named inputs[0] (or "<input>"). */
    const char *input_text;
    int input_len;
    /* In-memory inputs per file (the API): input_texts[i], when non-NULL,
       is the text of inputs[i] (input_lens[i] bytes). */
    const char *const *input_texts;
    const size_t *input_lens;
    int override_from;        /* > 0: definitions in inputs[override_from..]
                                 replace same-named earlier ones */
    /* In-memory outputs: when set, the requested outputs are appended to
       these buffers instead of being written as files. */
    struct StrBuf *capture_cl;
    struct StrBuf *capture_meta;
    struct StrBuf *capture_bin; /* the first --ir-target / --binary-gpu-target */
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

#endif
