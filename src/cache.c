/* cache.c - the tree-shaking cache directory (cache.h).
 *
 * Spec: "--tree-shaking", "Fast Compilation", "Status Codes".  Both file
 * kinds are plain files a person can read: the record (BASE.crisp_libc)
 * is JSON, an entry (HASH.crisp_lib) is a one-line header naming its key
 * followed by the bytes the tools built.  Entries are found by a 64-bit
 * FNV-1a hash of the OpenCL C and checked against a second, differently
 * seeded hash and the length stored in the header, so a collision or a
 * damaged file is a miss, never a wrong binary. */
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_SOURCE_BYTES (64L * 1024 * 1024)

static uint64_t fnv(const void *data, size_t n, uint64_t h) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static uint64_t hash1(const char *s, size_t n) {
    return fnv(s, n, 14695981039346656037ull);
}

static uint64_t hash2(const char *s, size_t n) {
    return fnv(s, n, 0x9e3779b97f4a7c15ull);
}

int cache_read_source(const char *path, StrBuf *out) {
    struct stat st;
    if (stat(path, &st) != 0) return errno ? errno : ENOENT;
    if (S_ISDIR(st.st_mode)) return EISDIR;
    FILE *f = fopen(path, "rb");
    if (!f) return errno ? errno : ENOENT;
    char buf[65536];
    size_t n;
    int r = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        if ((long)(out->len + n) > MAX_SOURCE_BYTES) {
            r = EFBIG;
            break;
        }
        sb_putn(out, buf, n);
    }
    if (!r && ferror(f)) r = EIO;
    if (!r && out->oom) r = ENOMEM;
    fclose(f);
    return r;
}

/* ---- JSON, as far as the record needs it ---- */

static void json_string(StrBuf *b, const char *s) {
    sb_putc(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') sb_printf(b, "\\%c", c);
        else if (c == '\n') sb_puts(b, "\\n");
        else if (c < 32) sb_printf(b, "\\u%04x", c);
        else sb_putc(b, (char)c);
    }
    sb_putc(b, '"');
}

/* The end of the JSON value starting at p (just past it), or NULL. */
static const char *json_skip(const char *p) {
    if (*p == '"') {
        for (p++; *p && *p != '"'; p++)
            if (*p == '\\' && p[1]) p++;
        return *p ? p + 1 : NULL;
    }
    if (*p == '{' || *p == '[') {
        int depth = 0;
        for (; *p; p++) {
            if (*p == '"') {
                p = json_skip(p);
                if (!p) return NULL;
                p--;
            } else if (*p == '{' || *p == '[') {
                depth++;
            } else if (*p == '}' || *p == ']') {
                if (--depth == 0) return p + 1;
            }
        }
        return NULL;
    }
    while (*p && *p != ',' && *p != '}' && *p != ']' && *p != '\n') p++;
    return p;
}

/* The value of top-level member `key` of the object at `obj`, or NULL. */
static const char *json_member(const char *obj, const char *key, const char **end) {
    const char *p = strchr(obj, '{');
    if (!p) return NULL;
    p++;
    size_t klen = strlen(key);
    while (*p) {
        while (*p && *p != '"' && *p != '}') p++;
        if (*p != '"') return NULL;
        const char *k = p + 1, *ke = json_skip(p);
        if (!ke) return NULL;
        p = ke;
        while (*p == ' ' || *p == '\n' || *p == ':') p++;
        const char *ve = json_skip(p);
        if (!ve) return NULL;
        if ((size_t)(ke - 1 - k) == klen && !strncmp(k, key, klen)) {
            *end = ve;
            return p;
        }
        p = ve;
        while (*p == ' ' || *p == '\n' || *p == ',') p++;
    }
    return NULL;
}

/* Decode the JSON string at p (malloc'd). */
static char *json_unquote(const char *p, const char *end) {
    char *s = malloc((size_t)(end - p) + 1), *o = s;
    if (!s) return NULL;
    for (p++; p < end - 1; p++) {
        if (*p == '\\' && p + 1 < end - 1) {
            p++;
            *o++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
    return s;
}

/* ---- records ---- */

void cache_record_text(StrBuf *out, const char *flags, const char *const *inputs, const char *const *texts,
                       const size_t *lens, int ninputs, const char *kept, const char *shaken, const char *metadata) {
    sb_printf(out, "{\n  \"crisp_cache\": 1,\n  \"crisp_version\": \"%s\",\n  \"flags\": ", CRISP_VERSION);
    json_string(out, flags);
    sb_puts(out, ",\n  \"inputs\": [");
    for (int i = 0; i < ninputs; i++) {
        sb_puts(out, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
        json_string(out, inputs[i]);
        sb_printf(out, ", \"fnv1a64\": \"%016llx\"}", (unsigned long long)hash1(texts[i], lens[i]));
    }
    sb_printf(out, "],\n  \"kept\": [%s],\n  \"shaken\": [%s],\n  \"metadata\": %s\n}\n", kept, shaken, metadata);
}

void cache_record_free(CacheRecord *r) {
    free(r->flags);
    free(r->metadata);
    r->flags = r->metadata = NULL;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cache_load_record(const char *dir, CacheRecord *out, StrBuf *err) {
    out->flags = out->metadata = NULL;
    DIR *d = opendir(dir);
    if (!d) {
        sb_printf(err, "cannot read the tree-shake directory `%s`: %s", dir, strerror(errno));
        return -1;
    }
    /* every BASE.crisp_libc, in name order; the newest gives the flags */
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        size_t l = strlen(e->d_name);
        if (l > 11 && !strcmp(e->d_name + l - 11, ".crisp_libc")) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    StrBuf kernels;
    sb_init(&kernels);
    time_t newest = 0;
    int records = 0, bad = 0;
    for (int i = 0; i < n; i++) {
        if (!names[i]) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        StrBuf text;
        sb_init(&text);
        struct stat st;
        int ok = stat(path, &st) == 0 && cache_read_source(path, &text) == 0;
        const char *end, *ver = ok ? json_member(sb_cstr(&text), "crisp_cache", &end) : NULL;
        const char *fl = ver ? json_member(sb_cstr(&text), "flags", &end) : NULL;
        const char *flend = end;
        const char *meta = fl ? json_member(sb_cstr(&text), "metadata", &end) : NULL;
        const char *ks = meta ? json_member(meta, "kernels", &end) : NULL;
        if (!ks || *fl != '"' || *ks != '[') {
            if (!bad) sb_printf(err, "`%s` is not a crisp cache record", path);
            bad = 1;
            sb_free(&text);
            continue;
        }
        if (!out->flags || st.st_mtime >= newest) {
            free(out->flags);
            out->flags = json_unquote(fl, flend);
            newest = st.st_mtime;
        }
        /* the kernel objects, without the array's brackets */
        const char *k = ks + 1, *ke = end - 1;
        while (k < ke && (*k == ' ' || *k == '\n')) k++;
        while (ke > k && (ke[-1] == ' ' || ke[-1] == '\n')) ke--;
        if (ke > k) {
            if (kernels.len) sb_puts(&kernels, ",\n");
            sb_putn(&kernels, k, (size_t)(ke - k));
        }
        records++;
        sb_free(&text);
    }
    for (int i = 0; i < n; i++) free(names[i]);
    if (!records) {
        if (!bad) sb_printf(err, "the tree-shake directory `%s` holds no record (.crisp_libc): compile with --tree-shaking first", dir);
        sb_free(&kernels);
        cache_record_free(out);
        return -1;
    }
    StrBuf meta;
    sb_init(&meta);
    sb_printf(&meta, "{\"kernels\": [\n%s\n]}\n", sb_cstr(&kernels));
    out->metadata = meta.oom ? NULL : strdup(sb_cstr(&meta));
    sb_free(&meta);
    sb_free(&kernels);
    if (!out->flags || !out->metadata) {
        sb_puts(err, "out of memory");
        cache_record_free(out);
        return -1;
    }
    return 0;
}

/* ---- entries ---- */

static void entry_key(StrBuf *b, const CrispTarget *t, int fat, const char *cl, size_t cl_len) {
    sb_printf(b, "crisp_lib 1 %s %s %s %zu %016llx %016llx\n", CRISP_VERSION, t->id, fat ? "fat" : "thin", cl_len,
              (unsigned long long)hash1(cl, cl_len), (unsigned long long)hash2(cl, cl_len));
}

char *cache_entry_path(const char *dir, const CrispTarget *t, int fat, const char *cl, size_t cl_len) {
    StrBuf key;
    sb_init(&key);
    entry_key(&key, t, fat, cl, cl_len);
    uint64_t h = hash1(sb_cstr(&key), key.len);
    sb_free(&key);
    size_t n = strlen(dir) + 40;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%016llx.crisp_lib", dir, (unsigned long long)h);
    return p;
}

void cache_entry_text(StrBuf *out, const CrispTarget *t, int fat, const char *cl, size_t cl_len, const StrBuf *built) {
    entry_key(out, t, fat, cl, cl_len);
    sb_putn(out, built->data ? built->data : "", built->len);
}

int cache_entry_load(const char *path, const CrispTarget *t, int fat, const char *cl, size_t cl_len, StrBuf *built) {
    StrBuf text, key;
    sb_init(&text);
    sb_init(&key);
    entry_key(&key, t, fat, cl, cl_len);
    int hit = cache_read_source(path, &text) == 0 && text.len >= key.len && !memcmp(text.data, sb_cstr(&key), key.len);
    if (hit) sb_putn(built, text.data + key.len, text.len - key.len);
    sb_free(&text);
    sb_free(&key);
    return hit && !built->oom;
}

/* ---- comparing kernels' requirements ---- */

/* The kernel object named `name` in metadata `meta` with its "line"
 * member removed, into `out`; 0 when there is none. */
static int kernel_abi(const char *meta, const char *name, size_t nlen, StrBuf *out) {
    const char *end, *ks = json_member(meta, "kernels", &end);
    if (!ks || *ks != '[') return 0;
    for (const char *p = ks + 1; p < end;) {
        while (p < end && *p != '{') p++;
        if (p >= end) break;
        const char *oe = json_skip(p);
        if (!oe) return 0;
        const char *ne, *nv = json_member(p, "name", &ne);
        if (nv && nv < oe && (size_t)(ne - nv) == nlen + 2 && !strncmp(nv + 1, name, nlen)) {
            for (const char *q = p; q < oe; q++) {
                if (!strncmp(q, "\"line\":", 7)) {
                    q = json_skip(q + 7 + (q[7] == ' '));
                    if (!q) return 0;
                    while (q < oe && (*q == ',' || *q == ' ' || *q == '\n')) q++;
                    q--;
                    continue;
                }
                if (*q != ' ' && *q != '\n') sb_putc(out, *q);
            }
            return 1;
        }
        p = oe;
    }
    return 0;
}

int cache_abi_breaks(const char *old, const char *now) {
    if (!strcmp(old, now)) return 0; /* the usual case: nothing changed */
    const char *end, *ks = json_member(old, "kernels", &end);
    if (!ks || *ks != '[') return 0;
    int breaks = 0;
    for (const char *p = ks + 1; p < end && !breaks;) {
        while (p < end && *p != '{') p++;
        if (p >= end) break;
        const char *oe = json_skip(p);
        if (!oe) break;
        const char *ne, *nv = json_member(p, "name", &ne);
        if (nv && *nv == '"') {
            size_t nlen = (size_t)(ne - nv - 2);
            StrBuf a, b;
            sb_init(&a);
            sb_init(&b);
            kernel_abi(old, nv + 1, nlen, &a);
            breaks = !kernel_abi(now, nv + 1, nlen, &b) || strcmp(sb_cstr(&a), sb_cstr(&b)) != 0;
            sb_free(&a);
            sb_free(&b);
        }
        p = oe;
    }
    return breaks;
}
