/* names.c - what a name in the emitted OpenCL C must not be (names.h).
 *
 * Why it exists: every identifier the checker chooses ends up in OpenCL C
 * source, next to the language's keywords and built-ins, the macros of the
 * OpenCL C headers and crisp's own support code; this table is the one
 * place that knows them, so the checker stays target-neutral. */
#include <stdlib.h>
#include <string.h>

#include "names.h"

/* C keywords, OpenCL C types and built-ins a user name must not take
 * (sorted: looked up by binary search). */
static const char *const reserved_c[] = {
    "__kernel", "abs", "acos", "asin", "atan", "auto", "barrier", "bool", "break", "case", "ceil",
    "char", "clamp", "const", "constant", "continue", "cos", "cross", "default", "distance", "do",
    "dot", "double", "else", "enum", "event_t", "exp", "extern", "fabs", "false", "float", "floor",
    "fma", "for", "get_global_id", "get_global_offset", "get_global_size", "get_group_id",
    "get_local_id", "get_local_size", "get_num_groups", "get_work_dim", "global", "goto", "half",
    "if", "image2d_t", "image3d_t", "inline", "int", "intptr_t", "it", "kernel", "length", "local",
    "log", "log2", "long", "mad", "main", "max", "mem_fence", "min", "mix", "normalize", "pow",
    "printf", "private", "ptrdiff_t", "read_only", "read_write", "register", "restrict", "return",
    "round", "rsqrt", "sampler_t", "select", "short", "sign", "signed", "sin", "size_t", "sizeof",
    "sqrt", "static", "step", "struct", "switch", "tan", "true", "trunc", "typedef", "uchar",
    "uint", "uintptr_t", "ulong", "union", "unsigned", "ushort", "vload", "void", "volatile",
    "vstore", "while", "write_only",
};

/* Prefixes the OpenCL C headers take for macros (M_PI, FLT_MAX, CLK_...)
 * and crisp takes for its support code: no user name may start with them. */
static const char *reserved_prefix[] = {"crisp_", "__", "M_", "FLT_", "DBL_", "HALF_", "CL_", "CLK_", "CHAR_",
                                        "SCHAR_", "UCHAR_", "SHRT_", "USHRT_", "INT_", "UINT_", "LONG_", "ULONG_",
                                        "MAX", "HUGE_", NULL};

int oclc_reserved_prefix(const char *s) {
    /* every prefix starts with `c`, `_` or an upper-case letter: most
       names are out after one comparison (issue 14: this was called for
       every name the checker makes) */
    if (s[0] != 'c' && s[0] != '_' && (s[0] < 'A' || s[0] > 'Z')) return 0;
    for (int i = 0; reserved_prefix[i]; i++)
        if (s[0] == reserved_prefix[i][0] && !strncmp(s, reserved_prefix[i], strlen(reserved_prefix[i]))) return 1;
    return 0;
}

static int cmp_word(const void *k, const void *e) {
    return strcmp((const char *)k, *(const char *const *)e);
}

int oclc_reserved(const char *s) {
    static const char *macros[] = {"NULL", "INFINITY", "NAN", "MAXFLOAT", "CHAR_BIT", "FP_FAST_FMA", NULL};
    if (bsearch(s, reserved_c, sizeof reserved_c / sizeof reserved_c[0], sizeof reserved_c[0], cmp_word))
        return strcmp(s, "it") != 0;
    if (s[0] >= 'A' && s[0] <= 'Z') /* the macros are upper case */
        for (int i = 0; macros[i]; i++)
            if (!strcmp(macros[i], s)) return 1;
    return oclc_reserved_prefix(s);
}

const TargetNames oclc_names = {"OpenCL C", oclc_reserved, oclc_reserved_prefix};
