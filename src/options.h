/* options.h - the one table of crisp's options (options.c).
 *
 * The command line (main.c, through getopt_long) and the in-memory API's
 * crisp_set_flags (api.c, through opt_parse_string) both apply options
 * through this table, so an option is added once: a row in `opt_table`
 * and, when it needs more than a flag, an apply function. */
#ifndef CRISP_SRC_OPTIONS_H
#define CRISP_SRC_OPTIONS_H

#include "../core/arena.h"
#include "../core/options.h"
#include "../core/strbuf.h"

enum {
    OPT_NO_ARG = 0,
    OPT_ARG = 1,       /* --name=VALUE or --name VALUE; -xVALUE or -x VALUE */
};

/* Where an option applies. */
enum {
    OPT_CLI = 1,       /* the command line                                */
    OPT_API = 2,       /* respected by crisp_set_flags (docs/api.md)      */
    OPT_ACTION = 4,    /* --help, --version: handled by the command line  */
};

typedef struct OptState OptState;

typedef struct OptSpec {
    const char *name;    /* long name without "--" (lower case), or NULL */
    int short_name;      /* 'o', 'D', or 0 */
    int arg;             /* OPT_NO_ARG / OPT_ARG */
    int where;           /* OPT_CLI | OPT_API | OPT_ACTION */
    int (*apply)(OptState *st, const struct OptSpec *spec, const char *value);
    int flag_offset;     /* a plain flag: offsetof(CrispOptions, field), or -1 */
    const char *metavar; /* "DIR", "ID", ... for the help */
    const char *help;
} OptSpec;

/* Options being collected into `o`; arrays and copies live in `a`. */
struct OptState {
    CrispOptions *o;
    Arena *a;
    StrBuf *err;         /* error messages ("crisp: error: ..." lines)  */
    StrBuf *warn;        /* warnings (API: ignored flags)               */
    int api;             /* parsing for crisp_set_flags                 */
    const char *o_file;  /* -o FILE, resolved by opt_finish             */
    const char *color;   /* --color=auto|always|never (the driver decides) */
    int ndefines_cap, nhoist_cap, ntargets_cap;
};

extern const OptSpec opt_table[];

/* Apply one option; 0, or 2 with a message in st->err. */
int opt_apply(OptState *st, const OptSpec *spec, const char *value);
/* Checks across options, once all are applied (-o FILE, --fat-binary);
 * 0 or 2. */
int opt_finish(OptState *st);
/* The spec whose long name is `name` (case-insensitive, up to '=' or the
 * end); a unique prefix matches too, as getopt_long does.  *ambiguous is
 * set when several match. */
const OptSpec *opt_find_long(const char *name, int *ambiguous);
const OptSpec *opt_find_short(int c);
/* "did you mean `--metadata`?" for an unknown option, or "" */
const char *opt_suggest(Arena *a, const char *bad);
/* " (`--output-dir` or `--output-base`?)" for an ambiguous prefix */
const char *opt_candidates(Arena *a, const char *prefix);
/* The help text, generated from the table. */
void opt_help(StrBuf *out);
/* crisp_set_flags: split `flags` as a shell would (spaces, quotes,
 * backslashes) and apply every option; 0 or 2. */
int opt_parse_string(OptState *st, const char *flags);
/* The flags of `o` that the in-memory API respects, as one string
 * ("-DN=4 --debug-output"), for the cache record. */
void opt_api_flags(StrBuf *out, const CrispOptions *o);

#endif
