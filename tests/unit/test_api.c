/* test_api.c - unit tests of the in-memory compilation API (src/api.c,
 * include/crisp.h): contexts, inputs, flags, both compile forms, results,
 * messages and error codes, status codes (breaking changes), overrides,
 * bad calls, and separate contexts compiling in parallel threads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>

#include "../../include/crisp.h"
#include "../../reader/reader.h"

static const char *vadd =
    "(def-type in-vec (vector-type float :global :read-only))\n"
    "(def-type out-vec (vector-type float :global :write-only))\n"
    "(def-parameter +scale+ 1.0)\n"
    "(def-kernel vadd (A:in-vec B:in-vec &out C:out-vec)\n"
    "  (declare (global-size :derive-from A))\n"
    "  (in-each-thread (i)\n"
    "    (set! (~ C i) (* +scale+ (+ (~ A i) (~ B i))))))\n";

static void t_compile_oclc(void **state) {
    (void)state;
    crisp_context *ctx = crisp_new_context("oclc");
    assert_non_null(ctx);
    assert_int_equal(crisp_add_input_string(ctx, vadd, "vadd.crisp"), 0);
    size_t size = 0;
    assert_int_equal(crisp_compile(ctx, &size), CRISP_SUCCESS_COMPATIBLE);
    const void *data = NULL;
    size_t n = 0;
    assert_true(crisp_get_binary(ctx, &data, &n));
    assert_int_equal(n, size);
    assert_int_equal(strlen(data), n); /* OpenCL C: NUL-terminated text */
    assert_non_null(strstr(data, "__kernel void vadd("));
    assert_non_null(strstr(data, "(vadd.crisp:4)"));
    const char *meta = crisp_get_metadata(ctx);
    assert_non_null(meta);
    assert_non_null(strstr(meta, "\"name\": \"vadd\""));
    assert_int_equal(crisp_get_compilation_error_code(ctx), 0);
    assert_string_equal(crisp_get_messages(ctx), "");
    /* the same again: identical result, still compatible */
    char *first = strdup(data);
    assert_int_equal(crisp_compile(ctx, &size), CRISP_SUCCESS_COMPATIBLE);
    assert_true(crisp_get_binary(ctx, &data, &n));
    assert_string_equal(first, data);
    free(first);
    crisp_destroy_context(ctx);
}

static void t_errors(void **state) {
    (void)state;
    crisp_context *ctx = crisp_new_context("oclc");
    assert_int_equal(crisp_add_input_string(ctx, "(def-kernel k (a:int)\n  (let ((x (+ a 1.0))) x))\n", "bad.crisp"), 0);
    size_t size = 123;
    assert_int_equal(crisp_compile(ctx, &size), CRISP_ERROR_COMPILE_FAILURE);
    assert_int_equal(size, 123); /* untouched */
    const void *data = NULL;
    assert_false(crisp_get_binary(ctx, &data, NULL));
    assert_null(crisp_get_metadata(ctx));
    const char *m = crisp_get_messages(ctx);
    assert_non_null(strstr(m, "bad.crisp:2:"));
    assert_non_null(strstr(m, "error[E0304]"));
    assert_int_equal(crisp_get_compilation_error_code(ctx), 304);
    crisp_destroy_context(ctx);

    /* nothing to compile, unknown targets, NULL contexts */
    ctx = crisp_new_context("oclc");
    assert_int_equal(crisp_compile(ctx, NULL), CRISP_ERROR_COMPILE_FAILURE);
    assert_non_null(strstr(crisp_get_messages(ctx), "nothing to compile"));
    assert_int_equal(crisp_get_compilation_error_code(ctx), 2);
    assert_int_equal(crisp_add_input_file(ctx, "/nonexistent/x.crisp"), -1);
    assert_non_null(strstr(crisp_get_messages(ctx), "cannot read `/nonexistent/x.crisp`"));
    crisp_destroy_context(ctx);
    assert_null(crisp_new_context("cuda"));
    assert_null(crisp_new_context("sm_x"));
    assert_null(crisp_new_context(NULL));
    assert_non_null(ctx = crisp_new_context("sm_90"));
    crisp_destroy_context(ctx);
    assert_int_equal(crisp_compile(NULL, NULL), CRISP_ERROR_COMPILE_FAILURE);
    assert_string_equal(crisp_get_messages(NULL), "");
    crisp_destroy_context(NULL);
}

static void t_flags(void **state) {
    (void)state;
    crisp_context *ctx = crisp_new_context("oclc");
    crisp_add_input_string(ctx, vadd, "vadd.crisp");
    assert_int_equal(crisp_set_flags(ctx, "-D+scale+=2.5 --debug-output"), 0);
    size_t need = 0;
    assert_int_equal(crisp_get_flags(ctx, NULL, &need), 0);
    assert_int_equal(need, strlen("-D+scale+=2.5 --debug-output") + 1);
    char small[8], big[64];
    size_t sz = sizeof small;
    assert_int_equal(crisp_get_flags(ctx, small, &sz), -1);
    assert_string_equal(small, "-D+scal");
    sz = sizeof big;
    assert_int_equal(crisp_get_flags(ctx, big, &sz), 0);
    assert_string_equal(big, "-D+scale+=2.5 --debug-output");
    assert_int_equal(crisp_compile(ctx, NULL), CRISP_SUCCESS_COMPATIBLE);
    const void *cl;
    crisp_get_binary(ctx, &cl, NULL);
    assert_non_null(strstr(cl, "2.5f"));
    assert_non_null(strstr(crisp_get_metadata(ctx), "\"debug_output\": true"));
    /* not additive: a new set replaces the old one */
    assert_int_equal(crisp_set_flags(ctx, "-D '+scale+=3.0'"), 0);
    assert_int_equal(crisp_compile(ctx, NULL), CRISP_SUCCESS_BREAKING_CHANGE); /* the debug channel is gone */
    crisp_get_binary(ctx, &cl, NULL);
    assert_non_null(strstr(cl, "3.0f"));
    /* output options do not apply: a warning, not an error */
    assert_int_equal(crisp_set_flags(ctx, "--output-dir=/tmp --single-pass"), 0);
    assert_non_null(strstr(crisp_get_messages(ctx), "warning: `--output-dir` has no effect in the in-memory API"));
    /* a unique prefix is the option, as with getopt_long */
    assert_int_equal(crisp_set_flags(ctx, "--output-dir=/tmp --single-pas"), 0);
    /* bad flags: an error, the old flags stay */
    assert_int_equal(crisp_set_flags(ctx, "--s"), -1);
    assert_non_null(strstr(crisp_get_messages(ctx), "ambiguous option `--s` (`--skip-c-t-checks` or `--single-pass`?)"));
    assert_int_equal(crisp_set_flags(ctx, "--no-such-flag"), -1);
    assert_non_null(strstr(crisp_get_messages(ctx), "unknown option `--no-such-flag`"));
    assert_int_equal(crisp_set_flags(ctx, "vadd.crisp"), -1);
    assert_int_equal(crisp_set_flags(ctx, "-D 'unterminated"), -1);
    assert_int_equal(crisp_set_flags(ctx, "--help"), -1);
    sz = sizeof big;
    crisp_get_flags(ctx, big, &sz);
    assert_string_equal(big, "--output-dir=/tmp --single-pas");
    crisp_destroy_context(ctx);
}

static void t_breaking_and_override(void **state) {
    (void)state;
    crisp_context *ctx = crisp_new_context("oclc");
    crisp_add_input_string(ctx,
                           "(def-function twice (x:float) (declare (return-type float)) (* 2.0 x))\n"
                           "(def-kernel k (A:(vector-type float :global :read-write))\n"
                           "  (declare (global-size :derive-from A))\n"
                           "  (in-each-thread (i) (set! (~ A i) (twice (~ A i)))))\n",
                           "lib.crisp");
    assert_int_equal(crisp_compile(ctx, NULL), CRISP_SUCCESS_COMPATIBLE);
    /* a string redefining `twice`: it replaces the first, no clash; the
       kernel's arguments are the same, so the change is compatible */
    assert_int_equal(crisp_compile_string(ctx, "(def-function twice (x:float) (declare (return-type float)) (+ x x))", NULL),
                     CRISP_SUCCESS_COMPATIBLE);
    const void *cl;
    crisp_get_binary(ctx, &cl, NULL);
    assert_non_null(strstr(cl, "x + x"));
    assert_null(strstr(cl, "2.0f * x"));
    /* redefining the kernel with another argument: breaking */
    assert_int_equal(crisp_compile_string(ctx,
                                          "(def-kernel k (A:(vector-type float :global :read-write) s:float)\n"
                                          "  (declare (global-size :derive-from A))\n"
                                          "  (in-each-thread (i) (set! (~ A i) (* s (twice (~ A i))))))\n",
                                          NULL),
                     CRISP_SUCCESS_BREAKING_CHANGE);
    assert_non_null(strstr(crisp_get_metadata(ctx), "\"name\": \"s\""));
    crisp_destroy_context(ctx);
}

/* Separate contexts in separate threads: every result is the same. */
typedef struct Job {
    const char *expect;
    int failures;
} Job;

static void *worker(void *arg) {
    Job *j = arg;
    for (int i = 0; i < 40; i++) {
        crisp_context *ctx = crisp_new_context("oclc");
        crisp_add_input_string(ctx, vadd, "vadd.crisp");
        const void *cl = NULL;
        if (crisp_compile(ctx, NULL) != CRISP_SUCCESS_COMPATIBLE || !crisp_get_binary(ctx, &cl, NULL) ||
            strcmp(cl, j->expect) != 0)
            j->failures++;
        crisp_destroy_context(ctx);
    }
    return NULL;
}

static void t_threads(void **state) {
    (void)state;
    crisp_context *ctx = crisp_new_context("oclc");
    crisp_add_input_string(ctx, vadd, "vadd.crisp");
    assert_int_equal(crisp_compile(ctx, NULL), CRISP_SUCCESS_COMPATIBLE);
    const void *cl;
    crisp_get_binary(ctx, &cl, NULL);
    Job jobs[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (Job){cl, 0};
        assert_int_equal(pthread_create(&th[i], NULL, worker, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(jobs[i].failures, 0);
    }
    crisp_destroy_context(ctx);
}

/* The prelude is parsed once per process and shared (reader/builtin.c):
 * compiling every example, end-to-end program and negative test (errors in
 * every stage) must leave the shared forms exactly as they were. */
static int compile_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 7 || strcmp(e->d_name + l - 6, ".crisp") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        crisp_context *ctx = crisp_new_context("oclc");
        if (crisp_add_input_file(ctx, path) == 0) {
            crisp_compile(ctx, NULL);
            n++;
        }
        crisp_destroy_context(ctx);
    }
    closedir(d);
    return n;
}

static void t_shared_prelude(void **state) {
    (void)state;
    crisp_context *ctx = crisp_new_context("oclc");
    crisp_add_input_string(ctx, vadd, "vadd.crisp");
    crisp_compile(ctx, NULL);
    crisp_destroy_context(ctx);
    unsigned long before = reader_builtin_checksum();
    assert_true(before != 0);
    int n = compile_dir("examples") + compile_dir("tests/e2e") + compile_dir("tests/neg") + compile_dir("tests/golden/emit");
    assert_true(n > 300);
    assert_true(reader_builtin_checksum() == before);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_compile_oclc), cmocka_unit_test(t_errors), cmocka_unit_test(t_flags),
        cmocka_unit_test(t_breaking_and_override), cmocka_unit_test(t_threads), cmocka_unit_test(t_shared_prelude),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
