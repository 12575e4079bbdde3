/* api_demo.c - a program using libcrisp through its installed header only
 * (tests/e2e/api.py links it against build/libcrisp.so and libcrisp.a).
 *
 *     api_demo FILE.crisp [FLAGS]   print FILE's OpenCL C, or its diagnostics
 *                                   and the error code (exit status 1) */
#include <crisp.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: api_demo FILE.crisp [FLAGS]\n");
        return 2;
    }
    crisp_context *ctx = crisp_new_context("oclc");
    if (!ctx) return 2;
    if (crisp_add_input_file(ctx, argv[1]) != 0 || (argc > 2 && crisp_set_flags(ctx, argv[2]) != 0)) {
        fputs(crisp_get_messages(ctx), stderr);
        crisp_destroy_context(ctx);
        return 2;
    }
    size_t size = 0;
    crisp_status st = crisp_compile(ctx, &size);
    if (st == CRISP_ERROR_COMPILE_FAILURE) {
        fputs(crisp_get_messages(ctx), stderr);
        fprintf(stderr, "error code %ld\n", crisp_get_compilation_error_code(ctx));
        crisp_destroy_context(ctx);
        return 1;
    }
    const void *cl;
    if (!crisp_get_binary(ctx, &cl, &size)) return 2;
    fwrite(cl, 1, size, stdout);
    fprintf(stderr, "crisp %s: %zu bytes of OpenCL C, %s\n", crisp_version(), size,
            st == CRISP_SUCCESS_COMPATIBLE ? "compatible" : "breaking change");
    crisp_destroy_context(ctx);
    return 0;
}
