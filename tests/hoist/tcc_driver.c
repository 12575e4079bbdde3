/* tcc_driver.c - compile and run generated host code in memory with libtcc.
 *
 * The host-glue tests (tests/e2e/hoist_c_api.py) use it to check that a
 * BASE_hoist_OpenCL.c works as a library: a small caller #includes the
 * hoist (the library; its demo main is another file) and calls the
 * per-kernel API on real data.  libtcc compiles the caller with the hoist
 * and the runtime shim in memory, links it against the OpenCL ICD loader
 * and runs its main().  Any compiler diagnostic, warnings included, fails.
 *
 *     tcc_driver [-I DIR]... [-D NAME[=VALUE]]... CALLER.c [-- ARG...]
 *
 * Exit status: the caller's, or 3 when compiling or linking failed. */
#include <libtcc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int diagnostics;

static void on_diagnostic(void *opaque, const char *msg) {
    (void)opaque;
    fprintf(stderr, "tcc_driver: %s\n", msg);
    diagnostics++;
}

static void usage(void) {
    fprintf(stderr, "usage: tcc_driver [-I DIR]... [-D NAME[=VALUE]]... CALLER.c [-- ARG...]\n");
    exit(2);
}

int main(int argc, char **argv) {
    TCCState *s = tcc_new();
    const char *caller = NULL;
    int i;
    if (!s) {
        fprintf(stderr, "tcc_driver: tcc_new failed\n");
        return 3;
    }
    tcc_set_error_func(s, NULL, on_diagnostic);
    tcc_set_options(s, "-Wall");
    tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strncmp(a, "-I", 2)) {
            const char *dir = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (!dir) usage();
            tcc_add_include_path(s, dir);
        } else if (!strncmp(a, "-D", 2)) {
            char name[256];
            const char *def = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            const char *eq;
            size_t n;
            if (!def) usage();
            eq = strchr(def, '=');
            n = eq ? (size_t)(eq - def) : strlen(def);
            if (n >= sizeof name) usage();
            memcpy(name, def, n);
            name[n] = '\0';
            tcc_define_symbol(s, name, eq ? eq + 1 : "1");
        } else if (a[0] == '-' || caller) {
            usage();
        } else {
            caller = a;
        }
    }
    if (!caller) usage();
    if (tcc_add_file(s, caller) < 0 || tcc_add_library(s, "OpenCL") < 0 || diagnostics) {
        fprintf(stderr, "tcc_driver: compiling %s failed\n", caller);
        tcc_delete(s);
        return 3;
    }
    if (tcc_relocate(s, TCC_RELOCATE_AUTO) < 0 || diagnostics) {
        fprintf(stderr, "tcc_driver: linking %s failed\n", caller);
        tcc_delete(s);
        return 3;
    }
    {
        /* the caller's argv: its own name, then what followed "--" */
        int cargc = 1 + (argc - i);
        char **cargv = (char **)calloc((size_t)cargc + 1, sizeof(char *));
        int (*caller_main)(int, char **);
        int status;
        void *sym = tcc_get_symbol(s, "main");
        if (!cargv || !sym) {
            fprintf(stderr, "tcc_driver: %s has no main()\n", caller);
            return 3;
        }
        memcpy(&caller_main, &sym, sizeof sym); /* object pointer -> function pointer */
        cargv[0] = (char *)caller;
        memcpy(cargv + 1, argv + i, sizeof(char *) * (size_t)(argc - i));
        fflush(stdout);
        status = caller_main(cargc, cargv);
        fflush(stdout);
        free(cargv);
        tcc_delete(s);
        return status;
    }
}
