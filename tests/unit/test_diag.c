/* test_diag.c - unit tests of the diagnostics module (src/diag.c): the
 * `file:line:col: error[CODE]: message` format with the source excerpt and
 * caret, notes, the error cap, and that a message reached twice at the same
 * place (a form checked again after a first attempt) is printed once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/diag.h"

static char out_buf[8192];

/* Run BODY's diagnostics into a memory stream and return the text. */
#define CAPTURE(d, body)                                           \
    do {                                                           \
        FILE *f_ = fmemopen(out_buf, sizeof out_buf, "w");         \
        assert_non_null(f_);                                       \
        diag_init(&(d), f_);                                       \
        body;                                                      \
        fclose(f_);                                                \
    } while (0)

static SrcFile file = {.name = "k.crisp", .text = "(def-kernel k ()\n  (foo 1))\n", .len = 27};

static SrcLoc at(int line, int col) {
    SrcLoc l = {&file, line, col};
    return l;
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

static void test_format(void **state) {
    (void)state;
    Diag d;
    CAPTURE(d, diag_error(&d, at(2, 4), NULL, "E0494", "unknown function or macro `%s`", "foo");
            diag_note(&d, at(1, 1), "in kernel `%s`", "k"));
    assert_string_equal(out_buf,
                        "k.crisp:2:4: error[E0494]: unknown function or macro `foo`\n"
                        "    2 |   (foo 1))\n"
                        "      |    ^\n"
                        "k.crisp:1:1: note: in kernel `k`\n");
    assert_int_equal(d.errors, 1);
}

static void test_repeat_printed_once(void **state) {
    (void)state;
    Diag d;
    CAPTURE(d, diag_error(&d, at(2, 4), NULL, "E0494", "unknown `%s`", "foo"); diag_note(&d, at(1, 1), "first note");
            diag_error(&d, at(2, 4), NULL, "E0494", "unknown `%s`", "foo"); diag_note(&d, at(1, 1), "second note");
            diag_error(&d, at(2, 5), NULL, "E0494", "unknown `%s`", "foo");   /* another place */
            diag_warning(&d, at(2, 4), NULL, "W0301", "unknown `%s`", "foo")); /* another severity */
    assert_int_equal(count(out_buf, "k.crisp:2:4: error[E0494]"), 1);
    assert_int_equal(count(out_buf, "first note"), 1);
    assert_int_equal(count(out_buf, "second note"), 0);
    assert_int_equal(count(out_buf, "k.crisp:2:5: error[E0494]"), 1);
    assert_int_equal(count(out_buf, "warning[W0301]"), 1);
    assert_int_equal(d.errors, 3); /* still counted: the exit status is right */
}

static void test_error_cap(void **state) {
    (void)state;
    Diag d;
    CAPTURE(d, d.max_errors = 3; for (int i = 1; i <= 5; i++) diag_error(&d, at(1, i), NULL, "E0001", "error %d", i));
    assert_int_equal(count(out_buf, "error[E0001]"), 3);
    assert_int_equal(count(out_buf, "too many errors (3), stopping"), 1);
    assert_true(d.fatal);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_repeat_printed_once),
        cmocka_unit_test(test_error_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
