/* Read a whole file into a NUL-terminated malloc'ed string (NULL on
 * failure, with a message on CX). */
static inline char *crisp_read_file(CrispContext *cx, const char *path) {
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t len = 0, cap = 0;
    int failed = 0;
    if (!f) {
        crisp_errorf(cx, CL_INVALID_VALUE, "cannot open `%s`", path);
        return NULL;
    }
    for (;;) {
        size_t n;
        if (cap - len < 4096) {
            size_t bigger = cap ? cap * 2 : 65536;
            char *more = (char *)realloc(text, bigger);
            if (!more) {
                failed = 1;
                break;
            }
            text = more;
            cap = bigger;
        }
        n = fread(text + len, 1, cap - len - 1, f);
        len += n;
        if (n == 0) break;
    }
    if (failed || ferror(f)) {
        crisp_errorf(cx, failed ? CL_OUT_OF_HOST_MEMORY : CL_INVALID_VALUE, "cannot read `%s`%s", path,
                     failed ? ": out of memory" : "");
        free(text);
        fclose(f);
        return NULL;
    }
    fclose(f);
    text[len] = '\0';
    return text;
}

/* Find NAME: as given (relative to the working directory), else in the
 * directory of ARGV0 (a program's own path).  Writes the path found into
 * BUF; returns 0 when neither exists. */
static inline int crisp_find_file(const char *name, const char *argv0, char *buf, size_t size) {
    FILE *f;
    const char *slash;
    if (strlen(name) < size) {
        strcpy(buf, name);
        if ((f = fopen(buf, "rb")) != NULL) return fclose(f), 1;
    }
    slash = argv0 ? strrchr(argv0, '/') : NULL;
    if (slash && name[0] != '/' && (size_t)(slash - argv0) + 1 + strlen(name) < size) {
        memcpy(buf, argv0, (size_t)(slash - argv0) + 1);
        strcpy(buf + (slash - argv0) + 1, name);
        if ((f = fopen(buf, "rb")) != NULL) return fclose(f), 1;
    }
    return 0;
}
