/* test_diag.c - unit tests of the diagnostics module (core/diag.c): the
 * `file:line:col: error[CODE]: message` format with the source excerpt and
 * caret, notes, the error cap, that a message reached twice at the same
 * place (a form checked again after a first attempt) is printed once, the
 * JSON Lines format, colours, -Werror, -w, out of memory, and the registry
 * of codes (core/diag_codes.h). */
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
        memset(out_buf, 0, sizeof out_buf);                        \
        FILE *f_ = fmemopen(out_buf, sizeof out_buf, "w");         \
        assert_non_null(f_);                                       \
        diag_init(&(d), f_);                                       \
        body;                                                      \
        diag_finish(&(d));                                         \
        fclose(f_);                                                \
    } while (0)

static SrcFile file = {.name = "k.crisp", .text = "(def-kernel k ()\n  (foo 1))\n", .len = 27};

static SrcLoc at(int line, int col) {
    SrcLoc l = srcloc(&file, line, col);
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
            diag_warning(&d, at(2, 4), NULL, "W0302", "unknown `%s`", "foo")); /* another severity */
    assert_int_equal(count(out_buf, "k.crisp:2:4: error[E0494]"), 1);
    assert_int_equal(count(out_buf, "first note"), 1);
    assert_int_equal(count(out_buf, "second note"), 0);
    assert_int_equal(count(out_buf, "k.crisp:2:5: error[E0494]"), 1);
    assert_int_equal(count(out_buf, "warning[W0302]"), 1);
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

static void test_json(void **state) {
    (void)state;
    Diag d;
    Expansion ex = {"dotimes", srcloc(&file, 1, 1), NULL};
    CAPTURE(d, d.format = DIAG_FORMAT_JSON;
            diag_error(&d, at(2, 4), &ex, "E0494", "unknown `%s`\t\"x\"\\ \001 \xff \xc3\xa9", "foo");
            diag_note(&d, at(1, 1), "in kernel `%s`", "k");
            diag_warning(&d, at(2, 3), NULL, "W0302", "unknown declaration `%s` ignored", "foo");
            diag_error_plain(&d, NULL, "cannot read `%s`", "x.crisp"));
    assert_string_equal(out_buf,
                        "{\"file\": \"k.crisp\", \"line\": 2, \"column\": 4, \"severity\": \"error\", \"code\": \"E0494\", "
                        "\"message\": \"unknown `foo`\\t\\\"x\\\"\\\\ \\u0001 \\ufffd \xc3\xa9\", \"notes\": ["
                        "{\"file\": \"k.crisp\", \"line\": 1, \"column\": 1, \"message\": \"in expansion of macro `dotimes`\"}, "
                        "{\"file\": \"k.crisp\", \"line\": 1, \"column\": 1, \"message\": \"in kernel `k`\"}]}\n"
                        "{\"file\": \"k.crisp\", \"line\": 2, \"column\": 3, \"severity\": \"warning\", \"code\": \"W0302\", "
                        "\"message\": \"unknown declaration `foo` ignored\", \"notes\": []}\n"
                        "{\"file\": null, \"line\": null, \"column\": null, \"severity\": \"error\", \"code\": null, "
                        "\"message\": \"cannot read `x.crisp`\", \"notes\": []}\n");
    assert_int_equal(d.errors, 2);
    assert_int_equal(d.warnings, 1);
}

static void test_color(void **state) {
    (void)state;
    Diag d;
    CAPTURE(d, d.color = 1; diag_error(&d, at(2, 4), NULL, "E0494", "unknown `%s`", "foo"));
    assert_string_equal(out_buf,
                        "\033[1mk.crisp:2:4: \033[0m\033[1;31merror[E0494]:\033[0m \033[1munknown `foo`\033[0m\n"
                        "    2 |   (foo 1))\n"
                        "      |    \033[1;32m^\033[0m\n");
}

/* A repeated warning (same place, same text) is shown once and does not
   count toward the cap of DIAG_MAX_WARNINGS: the next new one is shown. */
static void test_repeats_not_capped(void **state) {
    (void)state;
    Diag d;
    CAPTURE(d, for (int i = 0; i < DIAG_MAX_WARNINGS + 50; i++)
                   diag_warning(&d, at(2, 3), NULL, "W0302", "unknown declaration `%s` ignored", "foo");
            diag_warning(&d, at(2, 4), NULL, "W0302", "unknown declaration `%s` ignored", "bar"));
    assert_int_equal(count(out_buf, "k.crisp:2:3: warning[W0302]: unknown declaration `foo` ignored\n"), 1);
    assert_int_equal(count(out_buf, "k.crisp:2:4: warning[W0302]: unknown declaration `bar` ignored\n"), 1);
    assert_int_equal(d.warnings, 2);
}

static void test_werror(void **state) {
    (void)state;
    Diag d;
    CAPTURE(d, d.werror = 1; diag_warning(&d, at(2, 4), NULL, "W0302", "unknown declaration `%s` ignored", "foo");
            diag_note(&d, at(1, 1), "a note"));
    assert_int_equal(count(out_buf, "k.crisp:2:4: error[W0302]: unknown declaration `foo` ignored [-Werror]\n"), 1);
    assert_int_equal(count(out_buf, "note: a note"), 1);
    assert_int_equal(d.errors, 1);
    assert_int_equal(d.warnings, 0);
}

static void test_no_warnings(void **state) {
    (void)state;
    Diag d;
    CAPTURE(d, d.no_warnings = 1; d.werror = 1; /* -w wins */
            diag_warning(&d, at(2, 4), NULL, "W0302", "unknown declaration `%s` ignored", "foo");
            diag_note(&d, at(1, 1), "a note of the warning"));
    assert_string_equal(out_buf, "");
    assert_int_equal(d.errors, 0);
}

static void test_unlimited_errors(void **state) {
    (void)state;
    Diag d;
    CAPTURE(d, d.max_errors = 1000000; for (int i = 1; i <= 60; i++) diag_error(&d, at(1, 1 + i % 5), NULL, "E0001", "error %d", i));
    assert_int_equal(count(out_buf, "error[E0001]"), 60);
    assert_int_equal(count(out_buf, "too many errors"), 0);
    assert_false(d.fatal);
}

/* After the arena ran out, the next message says so, once. */
static void test_out_of_memory(void **state) {
    (void)state;
    Diag d;
    int exhausted = 0;
    CAPTURE(d, d.exhausted = &exhausted; diag_error(&d, at(1, 1), NULL, "E0001", "a real error"); exhausted = 1;
            diag_error(&d, at(2, 4), NULL, "E0401", "`~` needs a vector, found `(null)`"); diag_note(&d, at(1, 1), "noise");
            diag_warning(&d, at(2, 4), NULL, "W0302", "noise"); diag_fatal(&d, at(2, 4), NULL, "E0199", "out of memory while checking"));
    assert_int_equal(count(out_buf, "a real error"), 1);
    assert_int_equal(count(out_buf, "crisp: error[E0099]: out of memory: the compilation reached its memory limit"), 1);
    assert_int_equal(count(out_buf, "E0401"), 0);
    assert_int_equal(count(out_buf, "noise"), 0);
    assert_int_equal(count(out_buf, "E0199"), 0);
    assert_true(d.fatal);
    /* a stage's own report, when it comes first, is the one */
    CAPTURE(d, d.exhausted = &exhausted; diag_fatal(&d, at(2, 4), NULL, "E0199", "out of memory while checking");
            diag_error(&d, at(2, 4), NULL, "E0401", "noise"));
    assert_int_equal(count(out_buf, "error[E0199]: out of memory while checking"), 1);
    assert_int_equal(count(out_buf, "E0099"), 0);
    assert_int_equal(count(out_buf, "noise"), 0);
}

static void test_registry(void **state) {
    (void)state;
    const DiagInfo *i = diag_info("E0312");
    assert_non_null(i);
    assert_string_equal(i->code, "E0312");
    assert_int_equal(i->severity, DIAG_SEV_ERROR);
    assert_non_null(strstr(i->title, "numeric"));
    assert_null(i->internal);
    assert_ptr_equal(diag_info("e0312"), i);
    assert_int_equal(diag_info("W0302")->severity, DIAG_SEV_WARNING);
    assert_non_null(diag_info("E0490")->internal);
    assert_null(diag_info("E9999"));
    assert_null(diag_info(""));
    assert_null(diag_info(NULL));
    int n = 0;
    for (; diag_info_at(n); n++)
        if (n) assert_true(strcmp(diag_info_at(n - 1)->code, diag_info_at(n)->code) < 0);
    assert_true(n > 300);
    const DiagExample *e = diag_example("E0312");
    assert_non_null(e);
    assert_non_null(strstr(e->file, "tests/neg/E0312"));
    assert_non_null(strstr(e->text, "(def-kernel"));
    assert_null(strstr(e->text, "; expect:"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_repeat_printed_once),
        cmocka_unit_test(test_error_cap),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_color),
        cmocka_unit_test(test_werror),
        cmocka_unit_test(test_no_warnings),
        cmocka_unit_test(test_unlimited_errors),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_repeats_not_capped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
