/* Case-insensitive "HAY contains NEEDLE" (an empty needle matches). */
static inline int crisp_contains(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i]) {
            char a = hay[i], b = needle[i];
            if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
            if (b >= 'A' && b <= 'Z') b = (char)(b - 'A' + 'a');
            if (a != b) break;
            i++;
        }
        if (i == n) return 1;
    }
    return n == 0;
}

/* An environment variable, or NULL when unset or empty. */
static inline const char *crisp_env(const char *name) {
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* -1 unless S is a non-negative decimal number. */
static inline long crisp_index_of(const char *s) {
    long v = 0;
    if (!*s) return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 100000) return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}
