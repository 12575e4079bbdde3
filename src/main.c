/* main.c - the `crisp` command: parse the command line, call the library.
 *
 * All compiler logic lives in libcrisp (crisp_run, driver.h); this file
 * only turns the option table (options.c) into getopt_long's arrays, maps
 * the arguments to CrispOptions and the result to an exit status.  Options
 * are parsed as users of GNU tools expect: `--opt=VALUE` or `--opt VALUE`,
 * unique prefixes of long names, `-DNAME=1` or `-D NAME=1`, `-o FILE`,
 * `-` for standard input and `--` before inputs that start with `-`. */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "options.h"

static int usage_error(const char *msg, const char *hint) {
    fprintf(stderr, "crisp: error: %s%s\n(run `crisp --help` for usage)\n", msg, hint ? hint : "");
    return 2;
}

int main(int argc, char **argv) {
    CrispOptions o;
    memset(&o, 0, sizeof o);
    Arena a;
    arena_init(&a);
    StrBuf err;
    sb_init(&err);
    OptState st = {.o = &o, .a = &a, .err = &err};

    /* getopt_long's tables from the option table; long names are matched
       without regard to case (--IR-target), so argv's are lowered first */
    int ntable = 0;
    while (opt_table[ntable].help) ntable++;
    struct option *longopts = arena_alloc(&a, sizeof(struct option) * (size_t)(ntable + 1));
    char *shortopts = arena_alloc(&a, (size_t)(3 * ntable + 2));
    char **args = arena_alloc(&a, sizeof(char *) * (size_t)(argc + 1));
    const char **inputs = arena_alloc(&a, sizeof(char *) * (size_t)(argc + 1));
    if (!longopts || !shortopts || !args || !inputs) return usage_error("out of memory", NULL);
    int nlong = 0;
    char *sp = shortopts;
    *sp++ = ':'; /* report a missing value as ':' */
    for (int i = 0; i < ntable; i++) {
        const OptSpec *s = &opt_table[i];
        if (s->name)
            longopts[nlong++] = (struct option){s->name, s->arg == OPT_ARG ? required_argument : no_argument, NULL, 256 + i};
        if (s->short_name) {
            *sp++ = (char)s->short_name;
            if (s->arg == OPT_ARG) *sp++ = ':';
        }
    }
    int after_dashdash = 0;
    for (int i = 0; i < argc; i++) {
        args[i] = argv[i];
        if (!strcmp(argv[i], "--")) after_dashdash = 1;
        if (after_dashdash || i == 0 || strncmp(argv[i], "--", 2) != 0) continue;
        args[i] = arena_strdup(&a, argv[i]);
        if (!args[i]) return usage_error("out of memory", NULL);
        for (char *p = args[i] + 2; *p && *p != '='; p++) *p = (char)tolower((unsigned char)*p);
    }

    int status = 0, c, idx;
    opterr = 0;
    while (!status && (c = getopt_long(argc, args, shortopts, longopts, &idx)) != -1) {
        const char *arg = args[optind - 1];
        if (c == '?') {
            const char *bad = optopt > 0 && optopt < 256 ? arena_printf(&a, "-%c", optopt) : arg;
            int amb = 0;
            if (!strncmp(bad, "--", 2)) opt_find_long(bad + 2, &amb);
            const char *msg = arena_printf(&a, amb ? "ambiguous option `%s`" : "unknown option `%s`", bad);
            status = usage_error(msg, amb ? opt_candidates(&a, bad + 2) : opt_suggest(&a, bad));
        } else if (c == ':' && optopt >= 256 && !strcmp(opt_table[optopt - 256].name, "explain")) {
            status = crisp_explain("", stdout, stderr); /* says what a code looks like */
            goto done;
        } else if (c == ':') {
            const char *msg = optopt >= 256 ? arena_printf(&a, "option `--%s` needs a value (--%s=%s)", opt_table[optopt - 256].name,
                                                           opt_table[optopt - 256].name, opt_table[optopt - 256].metavar)
                              : optopt > 0 ? arena_printf(&a, "option `-%c` needs a value", optopt)
                                           : arena_printf(&a, "option `%s` needs a value", arg);
            status = usage_error(msg, NULL);
        } else {
            const OptSpec *s = c >= 256 ? &opt_table[c - 256] : opt_find_short(c);
            if (s->where & OPT_ACTION) {
                if (!strcmp(s->name, "explain")) {
                    status = crisp_explain(optarg, stdout, stderr);
                    goto done;
                }
                if (!strcmp(s->name, "version")) {
                    printf("crisp %s\n", CRISP_VERSION);
                } else {
                    StrBuf h;
                    sb_init(&h);
                    opt_help(&h);
                    fputs(sb_cstr(&h), stdout);
                    sb_free(&h);
                }
                goto done;
            }
            status = opt_apply(&st, s, optarg);
        }
    }
    if (!status) status = opt_finish(&st);
    if (status && err.len) {
        fputs(sb_cstr(&err), stderr);
        fputs("(run `crisp --help` for usage)\n", stderr);
    }
    if (!status) {
        for (int i = optind; i < argc; i++) inputs[o.ninputs++] = args[i];
        o.inputs = inputs;
        if (o.ninputs == 0) status = usage_error("no input files", NULL);
    }
    if (!status) {
        o.dump_out = stdout;
        /* colour only on a terminal, and never when NO_COLOR is set
           (https://no-color.org), unless --color=always */
        const char *color = st.color ? st.color : "auto", *no_color = getenv("NO_COLOR");
        o.diagnostics_color = !strcmp(color, "always") ||
                              (!strcmp(color, "auto") && isatty(fileno(stderr)) && !(no_color && *no_color));
        status = crisp_run(&o, stderr);
    }
done:
    sb_free(&err);
    arena_free(&a);
    return status;
}
