/* fuzz_frontend.c - libFuzzer target for the whole front end: the input is
 * a .crisp program that goes through read, expand (prelude and user
 * macros, on the compile-time evaluator), check and both emitters, with the
 * outputs kept in memory.  Any crash, leak, hang or sanitizer report is a
 * bug: bad input must only ever produce diagnostics. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../include/crisp.h"
#include "../../core/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static FILE *sink;
    if (!sink) sink = fopen("/dev/null", "w");
    if (size > 256 * 1024) return 0;
    StrBuf cl, meta;
    sb_init(&cl);
    sb_init(&meta);
    const char *name = "fuzz.crisp";
    CrispOptions o = {0};
    o.inputs = &name;
    o.ninputs = 1;
    o.input_text = (const char *)data;
    o.input_len = (int)size;
    o.transpile_oclc = 1;
    o.metadata = 1;
    o.capture_cl = &cl;
    o.capture_meta = &meta;
    o.max_eval_steps = 200000;          /* keep each input fast */
    o.max_consteval_steps = 200000;     /* ... def-const-vec bodies too */
    o.max_arena_bytes = 64u << 20;
    crisp_compile(&o, sink);
    sb_free(&cl);
    sb_free(&meta);
    return 0;
}
