/* tools.c - child processes for the vendor tool chains (tools.h).
 *
 * posix_spawn (no shell, so no quoting problems and no injection through
 * file names), one pipe for the child's stdout and stderr, created
 * close-on-exec so a tool started from another thread does not inherit
 * it, and poll() with a deadline: a tool that hangs is killed and
 * reported, never waited for forever. */
#define _GNU_SOURCE /* pipe2: the pipe is close-on-exec from its creation */
#include "tools.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int is_executable(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *tool_which(Arena *a, const char *name) {
    if (!name || !*name) return NULL;
    if (strchr(name, '/')) return is_executable(name) ? arena_strdup(a, name) : NULL;
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    for (const char *p = path;;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char *full = n ? arena_printf(a, "%.*s/%s", (int)n, p, name) : arena_printf(a, "./%s", name);
        if (full && is_executable(full)) return full;
        if (!end) break;
        p = end + 1;
    }
    return NULL;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int tool_run(const char *const argv[], StrBuf *out, int timeout_s) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        sb_printf(out, "cannot create a pipe: %s\n", strerror(errno));
        return TOOL_NOT_STARTED;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        sb_printf(out, "cannot run %s: %s\n", argv[0], strerror(rc));
        return TOOL_NOT_STARTED;
    }
    double deadline = now_s() + timeout_s;
    int timed_out = 0;
    char buf[8192];
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0) {
            timed_out = 1;
            kill(pid, SIGKILL);
            break;
        }
        struct pollfd pfd = {fds[0], POLLIN, 0};
        int r = poll(&pfd, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (out->len < (16u << 20)) sb_putn(out, buf, (size_t)n); /* keep at most 16 MiB of chatter */
    }
    close(fds[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (timed_out) return TOOL_TIMED_OUT;
    if (WIFSIGNALED(st)) return TOOL_SIGNALLED;
    return WIFEXITED(st) ? WEXITSTATUS(st) : TOOL_SIGNALLED;
}

char *tool_tmpdir(Arena *a) {
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    char *dir = arena_printf(a, "%s/crisp-XXXXXX", base);
    return dir && mkdtemp(dir) ? dir : NULL;
}

void tool_rmdir(const char *dir) {
    if (!dir) return;
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[4096];
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

int tool_write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(data, 1, len, f) == len;
    ok &= fclose(f) == 0;
    return ok ? 0 : -1;
}

int tool_read_file(const char *path, StrBuf *out) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_putn(out, buf, n);
    int err = ferror(f);
    fclose(f);
    if (err || out->oom) {
        errno = out->oom ? ENOMEM : EIO;
        return -1;
    }
    return 0;
}
