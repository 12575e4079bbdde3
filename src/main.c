/* main.c - the `crisp` command: parse the command line, call the library.
 * All compiler logic lives in libcrisp (crisp_compile); this file only maps
 * arguments to CrispOptions and the result to an exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../include/crisp.h"

static const char usage[] =
    "usage: crisp [options] FILE.crisp...\n"
    "\n"
    "With no output option crisp only checks the program (exit 0 when valid).\n"
    "\n"
    "  --transpile-to=oclc    write DIR/BASE.cl (OpenCL C)\n"
    "  --ocl-version=1.2|2.0|3.0\n"
    "                         the OpenCL C version the .cl is written for (default 1.2;\n"
    "                         2.0 and 3.0 add the sub-group lowering of the warp forms)\n"
    "  --metadata             write DIR/BASE.metacrisp (JSON kernel arguments)\n"
    "  --output-dir=DIR       where outputs go (default: current directory)\n"
    "  --output-base=NAME     output file name without extension\n"
    "                         (default: the last input file's name)\n"
    "  -DNAME=VALUE           set a def-parameter (repeatable)\n"
    "  --hoist=OpenCL         write DIR/BASE_hoist_OpenCL.h/.c/_demo.c (host code in C)\n"
    "  --hoist=PyOpenCL       write DIR/BASE_hoist_PyOpenCL.py (host code in Python)\n"
    "                         (with the runtime shim crisp_runtime.h/.py beside them)\n"
    "                         (both imply --transpile-to=oclc; repeatable)\n"
    "  --hoist-unified-memory use OpenCL shared virtual memory in the hoists\n"
    "  --hoist-dynamic=KERNEL embed KERNEL's source in the hoists and build it at run time\n"
    "  --debug-output         add the run-time debug channel (r-t-output, r-t-assert)\n"
    "  --emit-runtime=DIR     write the runtime shim (crisp_runtime.h, .py) to DIR\n"
    "  --dump=read|expand|check|analysis\n"
    "                         print the program after that stage to stdout\n"
    "  --no-static-analysis   skip the opt-in checks (declaim, check-...)\n"
    "  --macroexpand          same as --dump=expand\n"
    "  --diagnostics-format=text|json\n"
    "                         json: one JSON object per diagnostic and line (stderr)\n"
    "  --color=auto|always|never\n"
    "                         colour diagnostics (auto: on a terminal, unless NO_COLOR is set)\n"
    "  -Werror                report warnings as errors\n"
    "  -w                     drop warnings\n"
    "  -fmax-errors=N         stop after N errors (default 50; 0: no limit)\n"
    "  --explain CODE         explain a diagnostic code (E0312), with an example\n"
    "  --max-memory=SIZE      memory one compilation may use (bytes, or with K, M or G;\n"
    "                         default 4G): more is reported as out of memory\n"
    "  --version              print the version\n"
    "  --help                 print this help\n"
    "\n"
    "Exit status: 0 success, 1 errors in the source, 2 bad command line or\n"
    "unreadable file.\n";

static int bad(const char *fmt, const char *arg) {
    fprintf(stderr, "crisp: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(run `crisp --help` for usage)\n");
    return 2;
}

static const char *value_of(const char *arg, const char *opt) {
    size_t n = strlen(opt);
    if (strncmp(arg, opt, n) == 0 && arg[n] == '=') return arg + n + 1;
    return NULL;
}

int main(int argc, char **argv) {
    CrispOptions o;
    memset(&o, 0, sizeof o);
    o.inputs = calloc((size_t)argc, sizeof(char *));
    o.defines = calloc((size_t)argc, sizeof(CrispDefine));
    if (!o.inputs || !o.defines) return 2;
    int status = 0;
    const char *color = "auto";
    for (int i = 1; i < argc && !status; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            goto done;
        } else if (!strcmp(a, "--version")) {
            printf("crisp %s\n", CRISP_VERSION);
            goto done;
        } else if ((v = value_of(a, "--transpile-to"))) {
            if (strcmp(v, "oclc") != 0) status = bad("unknown --transpile-to target `%s` (supported: oclc)", v);
            o.transpile_oclc = 1;
        } else if ((v = value_of(a, "--ocl-version"))) {
            if (!strcmp(v, "1.2") || !strcmp(v, "CL1.2")) o.ocl_version = 120;
            else if (!strcmp(v, "2.0") || !strcmp(v, "CL2.0")) o.ocl_version = 200;
            else if (!strcmp(v, "3.0") || !strcmp(v, "CL3.0")) o.ocl_version = 300;
            else status = bad("unknown --ocl-version `%s` (supported: 1.2, 2.0, 3.0)", v);
        } else if (!strcmp(a, "--metadata")) {
            o.metadata = 1;
        } else if ((v = value_of(a, "--output-dir"))) {
            if (!*v) status = bad("--output-dir needs a directory%s", "");
            o.output_dir = v;
        } else if ((v = value_of(a, "--output-base"))) {
            if (!*v || strchr(v, '/')) status = bad("--output-base needs a plain file name, found `%s`", v);
            o.output_base = v;
        } else if ((v = value_of(a, "--dump"))) {
            if (!strcmp(v, "read")) o.dump = DUMP_READ;
            else if (!strcmp(v, "expand")) o.dump = DUMP_EXPAND;
            else if (!strcmp(v, "check")) o.dump = DUMP_CHECK;
            else if (!strcmp(v, "analysis")) o.dump = DUMP_ANALYSIS;
            else status = bad("unknown --dump stage `%s` (expected read, expand, check or analysis)", v);
        } else if (!strcmp(a, "--no-static-analysis")) {
            o.no_static_analysis = 1;
        } else if (!strcmp(a, "--macroexpand")) {
            o.dump = DUMP_EXPAND;
        } else if (!strncmp(a, "-D", 2)) {
            const char *def = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : "");
            const char *eq = strchr(def, '=');
            size_t n = eq ? (size_t)(eq - def) : strlen(def);
            if (n == 0) {
                status = bad("-D needs NAME=VALUE, found `%s`", a);
                break;
            }
            char *name = malloc(n + 1);
            if (!name) return 2;
            memcpy(name, def, n);
            name[n] = 0;
            o.defines[o.ndefines].name = name;
            o.defines[o.ndefines].value = eq ? eq + 1 : "t";
            o.ndefines++;
        } else if ((v = value_of(a, "--hoist"))) {
            if (!strcmp(v, "OpenCL")) o.hoist_opencl = 1;
            else if (!strcmp(v, "PyOpenCL")) o.hoist_pyopencl = 1;
            else if (!strcmp(v, "L0") || !strcmp(v, "CUDA") || !strcmp(v, "PyLevelZero") || !strcmp(v, "PyCUDA"))
                status = bad("hoist target `%s` is not available in this build: crisp emits OpenCL C only (use --hoist=OpenCL or --hoist=PyOpenCL)", v);
            else status = bad("unknown hoist target `%s` (available: OpenCL, PyOpenCL)", v);
        } else if (!strcmp(a, "--hoist-unified-memory")) {
            o.hoist_unified_memory = 1;
        } else if ((v = value_of(a, "--hoist-dynamic"))) {
            if (!*v) status = bad("--hoist-dynamic needs a kernel name%s", "");
            o.hoist_dynamic = o.hoist_dynamic ? o.hoist_dynamic : calloc((size_t)argc, sizeof(char *));
            if (!o.hoist_dynamic) return 2;
            o.hoist_dynamic[o.nhoist_dynamic++] = v;
        } else if (!strcmp(a, "--debug-output")) {
            o.debug_output = 1;
        } else if ((v = value_of(a, "--emit-runtime"))) {
            if (!*v) status = bad("--emit-runtime needs a directory%s", "");
            o.emit_runtime_dir = v;
        } else if ((v = value_of(a, "--diagnostics-format"))) {
            if (!strcmp(v, "json")) o.diagnostics_json = 1;
            else if (!strcmp(v, "text")) o.diagnostics_json = 0;
            else status = bad("unknown --diagnostics-format `%s` (expected text or json)", v);
        } else if ((v = value_of(a, "--color"))) {
            if (strcmp(v, "auto") && strcmp(v, "always") && strcmp(v, "never"))
                status = bad("unknown --color `%s` (expected auto, always or never)", v);
            color = v;
        } else if (!strcmp(a, "-Werror")) {
            o.warnings_as_errors = 1;
        } else if (!strcmp(a, "-w")) {
            o.no_warnings = 1;
        } else if ((v = value_of(a, "-fmax-errors"))) {
            char *end;
            long n = strtol(v, &end, 10);
            if (!*v || *end || n < 0 || n > 1000000) status = bad("-fmax-errors needs a count from 0 (no limit) to 1000000, found `%s`", v);
            o.max_errors = n == 0 ? -1 : (int)n;
        } else if ((v = value_of(a, "--max-memory"))) {
            char *end;
            unsigned long long n = strtoull(v, &end, 10);
            unsigned long long unit = !strcmp(end, "K") || !strcmp(end, "k") ? 1ull << 10
                                      : !strcmp(end, "M") || !strcmp(end, "m") ? 1ull << 20
                                      : !strcmp(end, "G") || !strcmp(end, "g") ? 1ull << 30
                                      : !*end ? 1 : 0;
            if (!*v || *v == '-' || !unit || n == 0 || n > (64ull << 30) / unit)
                status = bad("--max-memory needs a size such as 512M (bytes, K, M or G; at most 64G), found `%s`", v);
            else o.max_arena_bytes = (size_t)(n * unit);
        } else if (!strcmp(a, "--explain") || (v = value_of(a, "--explain"))) {
            const char *code = v ? v : i + 1 < argc ? argv[++i] : "";
            status = crisp_explain(code, stdout, stderr);
            goto done;
        } else if (a[0] == '-' && a[1]) {
            status = bad("unknown option `%s`", a);
        } else {
            o.inputs[o.ninputs++] = a;
        }
    }
    if (!status && o.ninputs == 0) status = bad("no input files%s", "");
    if (!status) {
        o.dump_out = stdout;
        /* colour only on a terminal, and never when NO_COLOR is set
           (https://no-color.org), unless --color=always */
        const char *no_color = getenv("NO_COLOR");
        o.diagnostics_color = !strcmp(color, "always") ||
                              (!strcmp(color, "auto") && isatty(fileno(stderr)) && !(no_color && *no_color));
        status = crisp_compile(&o, stderr);
    }
done:
    for (int i = 0; i < o.ndefines; i++) free((char *)o.defines[i].name);
    free(o.defines);
    free(o.hoist_dynamic);
    free(o.inputs);
    return status;
}
