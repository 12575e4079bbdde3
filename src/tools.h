/* tools.h - running the vendor tools (clang, llvm-spirv, ptxas, fatbinary,
 * ocloc) as child processes, for the IR and binary targets (targets.c).
 *
 * No shell is involved: programs are found on PATH and started with
 * posix_spawn, their standard output and error captured into one buffer,
 * with a time limit.  Nothing here exits or touches global state, so
 * separate compilations may run tools from separate threads. */
#ifndef CRISP_TOOLS_H
#define CRISP_TOOLS_H

#include <stddef.h>

#include "../core/arena.h"
#include "../core/strbuf.h"

enum {
    TOOL_NOT_STARTED = -1,  /* posix_spawn failed (message in the output) */
    TOOL_TIMED_OUT = -2,    /* killed after the time limit               */
    TOOL_SIGNALLED = -3,    /* ended by a signal (a crash)               */
};

/* The full path of program `name` on PATH (or `name` itself when it holds
 * a '/' and is executable), or NULL. */
char *tool_which(Arena *a, const char *name);

/* Run argv[0] (a path) with argv; its stdout and stderr go to `out`.
 * Returns its exit status (0..255) or one of TOOL_NOT_STARTED,
 * TOOL_TIMED_OUT, TOOL_SIGNALLED. */
int tool_run(const char *const argv[], StrBuf *out, int timeout_s);

/* A fresh private directory for a tool chain's files, or NULL. */
char *tool_tmpdir(Arena *a);
/* Remove `dir` and the files in it. */
void tool_rmdir(const char *dir);

/* Whole-file helpers: 0 on success, -1 with errno set. */
int tool_write_file(const char *path, const void *data, size_t len);
int tool_read_file(const char *path, StrBuf *out);

#endif
