/* fuzz_frontend.c - libFuzzer target for the whole front end, with
 * libFuzzer's own byte-level mutations (fuzz_grammar.c mutates forms
 * instead): the input is a .crisp program that goes through read, expand,
 * check and both emitters (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_compile(data, size, 0);
    return 0;
}
