/* fuzz_common.h - the front end on one in-memory program, for the fuzz
 * targets that feed it Crisp source (fuzz_frontend.c: libFuzzer's byte
 * mutations; fuzz_grammar.c: mutations of the program's forms).  Read,
 * expand (prelude and user macros), check and both emitters run, with the
 * outputs kept in memory.  Any crash, leak, hang or sanitizer report is a
 * bug: bad input must only ever produce diagnostics. */
#ifndef CRISP_FUZZ_COMMON_H
#define CRISP_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../src/driver.h"
#include "../../core/strbuf.h"

/* DEBUG_TOO: the input's last bit turns --debug-output on. */
static void fuzz_compile(const uint8_t *data, size_t size, int debug_too) {
    static FILE *sink;
    if (!sink) sink = fopen("/dev/null", "w");
    if (size > 256 * 1024) return;
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
    o.debug_output = debug_too && size > 0 && (data[size - 1] & 1);
    crisp_run(&o, sink);
    sb_free(&cl);
    sb_free(&meta);
}

#endif
