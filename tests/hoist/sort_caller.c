/* sort_caller.c - the host functions gen-bitonic-sort-vector writes into
 * the C hoist (tests/e2e/lib/sort_vector.crisp), and its orchestrations'
 * functions, against qsort.
 *
 * Run by tests/e2e/sort_hoists.py: compiled with the hoist of
 * sort_vector.crisp, argv[1] the .cl.  Sorts host arrays (_run, in place
 * and into another array) and device memory (_enqueue) of several sizes,
 * with duplicates, negatives, sorted and reversed inputs.  The radix
 * orchestrations' counts are sized from RADIX_TILE_INT and
 * RADIX_TILE_FLOAT_INT, the keys a tile (local_size x keys_per_thread of
 * the metadata's "sorts"), which the test passes with -D. */
#include "sort_vector_hoist_OpenCL.c"

#if !defined(RADIX_TILE_INT) || !defined(RADIX_TILE_FLOAT_INT)
#error "build with -DRADIX_TILE_INT=N -DRADIX_TILE_FLOAT_INT=N (tests/e2e/sort_hoists.py reads them from the metadata)"
#endif

#include <stdlib.h>

static int failures;

static void expect(int cond, const char *what, size_t n) {
    if (!cond) printf("FAIL %s n=%lu\n", what, (unsigned long)n);
    failures += !cond;
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int cmp_int(const void *a, const void *b) {
    cl_int x = *(const cl_int *)a, y = *(const cl_int *)b;
    return (x > y) - (x < y);
}

static int cmp_long(const void *a, const void *b) {
    cl_long x = *(const cl_long *)a, y = *(const cl_long *)b;
    return (x > y) - (x < y);
}

/* key-value pairs ordered by key, then by value (the values are the
 * original positions: a stable sort's order) */
typedef struct pair {
    float key;
    cl_int value;
} pair;

static int cmp_pair(const void *a, const void *b) {
    const pair *x = (const pair *)a, *y = (const pair *)b;
    if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
    return (x->value > y->value) - (x->value < y->value);
}

static unsigned long long seed = 88172645463325252ULL;
static unsigned long long next_random(void) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

int main(int argc, char **argv) {
    static const size_t sizes[] = {0, 1, 2, 3, 63, 64, 65, 128, 129, 1000, 4096, 4097, 100003};
    CrispContext cx;
    sort_vector_program prog;
    size_t s, i, n;
    int shape;

    if (argc < 2 || crisp_open(&cx, 0) != CL_SUCCESS || sort_vector_load(&prog, &cx, argv[1]) != CL_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", crisp_error_message(&cx));
        return 2;
    }
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (shape = 0; shape < 3; shape++) {
            float *f, *fw;
            cl_int *a, *b, *aw;
            cl_long *l, *lw;
            n = sizes[s];
            f = (float *)malloc((n + 1) * sizeof *f);
            fw = (float *)malloc((n + 1) * sizeof *fw);
            a = (cl_int *)malloc((n + 1) * sizeof *a);
            b = (cl_int *)malloc((n + 1) * sizeof *b);
            aw = (cl_int *)malloc((n + 1) * sizeof *aw);
            l = (cl_long *)malloc((n + 1) * sizeof *l);
            lw = (cl_long *)malloc((n + 1) * sizeof *lw);
            for (i = 0; i < n; i++) {
                /* 0: random with duplicates and negatives, 1: sorted, 2: reversed */
                long v = shape == 0 ? (long)(next_random() % 2001) - 1000 : shape == 1 ? (long)i : (long)(n - i);
                f[i] = (float)v * 0.5f;
                a[i] = (cl_int)v;
                l[i] = shape == 0 ? (cl_long)next_random() : (cl_long)v;
            }
            memcpy(fw, f, n * sizeof *f);
            memcpy(aw, a, n * sizeof *a);
            memcpy(lw, l, n * sizeof *l);
            qsort(fw, n, sizeof *fw, cmp_float);
            qsort(aw, n, sizeof *aw, cmp_int);
            qsort(lw, n, sizeof *lw, cmp_long);

            expect(bitonic_sort_vector_in_place_float_run(&prog, f, n) == CL_SUCCESS, "float run", n);
            expect(!memcmp(f, fw, n * sizeof *f), "float sorted", n);
            expect(bitonic_sort_vector_int_run(&prog, a, b, n) == CL_SUCCESS, "int run", n);
            expect(!memcmp(b, aw, n * sizeof *b), "int sorted into out", n);
            /* the orchestrations gen-bitonic-sort-vector makes (the same
               passes in run-time loops): they sort their argument in place */
            {
                float *of = (float *)malloc((n + 1) * sizeof *of);
                cl_int *oi = (cl_int *)malloc((n + 1) * sizeof *oi);
                for (i = 0; i < n; i++) {
                    long v = shape == 0 ? (long)(next_random() % 2001) - 1000 : shape == 1 ? (long)i : (long)(n - i);
                    of[i] = (float)v * 0.25f;
                    oi[i] = (cl_int)v;
                }
                memcpy(fw, of, n * sizeof *of);
                memcpy(aw, oi, n * sizeof *oi);
                qsort(fw, n, sizeof *fw, cmp_float);
                qsort(aw, n, sizeof *aw, cmp_int);
                expect(sort_vector_bitonic_sort_vector_in_place_float_orchestration_run(&prog, of, n) == CL_SUCCESS, "float orchestration", n);
                expect(!memcmp(of, fw, n * sizeof *of), "float orchestration sorted", n);
                expect(sort_vector_bitonic_sort_vector_int_orchestration_run(&prog, oi, n) == CL_SUCCESS, "int orchestration", n);
                expect(!memcmp(oi, aw, n * sizeof *oi), "int orchestration sorted", n);
                free(of), free(oi);
            }
            /* device memory: _enqueue, then read back */
            if (n) {
                cl_int err;
                cl_event ev = NULL;
                cl_mem m = clCreateBuffer(cx.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof *l, l, &err);
                expect(err == CL_SUCCESS, "buffer", n);
                err = bitonic_sort_vector_in_place_long_enqueue(&prog, NULL, m, (cl_ulong)n, 0, NULL, &ev);
                expect(err == CL_SUCCESS, "long enqueue", n);
                if (err == CL_SUCCESS) {
                    err = clEnqueueReadBuffer(cx.queue, m, CL_TRUE, 0, n * sizeof *l, l, 1, &ev, NULL);
                    expect(err == CL_SUCCESS, "read", n);
                    clReleaseEvent(ev);
                }
                clReleaseMemObject(m);
                expect(!memcmp(l, lw, n * sizeof *l), "long sorted on the device", n);
            }
            /* radix: int keys in place; float keys with int values, stable */
            {
                cl_int *r = (cl_int *)malloc((n + 1) * sizeof *r);
                float *rk = (float *)malloc((n + 1) * sizeof *rk);
                pair *pw = (pair *)malloc((n + 1) * sizeof *pw);
                for (i = 0; i < n; i++) {
                    r[i] = (cl_int)(next_random() % 200001) - 100000;
                    rk[i] = (float)(r[i] % 50); /* many equal keys */
                    pw[i].key = rk[i];
                    pw[i].value = (cl_int)i;
                    b[i] = (cl_int)i;
                }
                memcpy(aw, r, n * sizeof *r);
                qsort(aw, n, sizeof *aw, cmp_int);
                qsort(pw, n, sizeof *pw, cmp_pair);
                expect(radix_sort_vector_int_run(&prog, r, n) == CL_SUCCESS, "radix int run", n);
                expect(!memcmp(r, aw, n * sizeof *r), "radix int sorted", n);
                expect(radix_sort_vector_float_int_run(&prog, rk, b, n) == CL_SUCCESS, "radix pairs run", n);
                for (i = 0; i < n; i++)
                    if (rk[i] != pw[i].key || b[i] != pw[i].value) break;
                expect(i == n, "radix pairs sorted, stable", n);
                /* the orchestrations gen-radix-sort-vector makes (the same
                   passes, unrolled): the counts (16 per tile of
                   RADIX_TILE_* keys: the metadata's local_size x
                   keys_per_thread, which follow the bytes of a key and its
                   value) and a second buffer are the caller's; the result
                   ends in the keys (and values) */
                {
                    size_t tiles = (n + RADIX_TILE_INT - 1) / RADIX_TILE_INT, nc = 16 * (tiles ? tiles : 1);
                    size_t ptiles = (n + RADIX_TILE_FLOAT_INT - 1) / RADIX_TILE_FLOAT_INT, npc = 16 * (ptiles ? ptiles : 1);
                    cl_uint *counts = (cl_uint *)calloc(nc, sizeof *counts);
                    cl_uint *pcounts = (cl_uint *)calloc(npc, sizeof *pcounts);
                    cl_int *o = (cl_int *)malloc((n + 1) * sizeof *o), *ov = (cl_int *)malloc((n + 1) * sizeof *ov);
                    float *ok = (float *)malloc((n + 1) * sizeof *ok);
                    for (i = 0; i < n; i++) {
                        r[i] = (cl_int)(next_random() % 200001) - 100000;
                        rk[i] = (float)(r[i] % 50);
                        b[i] = (cl_int)i;
                    }
                    memcpy(aw, r, n * sizeof *r);
                    qsort(aw, n, sizeof *aw, cmp_int);
                    for (i = 0; i < n; i++) pw[i].key = rk[i], pw[i].value = (cl_int)i;
                    qsort(pw, n, sizeof *pw, cmp_pair);
                    expect(sort_vector_radix_sort_vector_int_orchestration_run(&prog, r, n, counts, nc, o, n) == CL_SUCCESS,
                           "radix int orchestration", n);
                    expect(!memcmp(r, aw, n * sizeof *r), "radix int orchestration sorted", n);
                    expect(sort_vector_radix_sort_vector_float_int_orchestration_run(&prog, rk, n, pcounts, npc, ok, n, b, n, ov, n) ==
                               CL_SUCCESS, "radix pairs orchestration", n);
                    for (i = 0; i < n; i++)
                        if (rk[i] != pw[i].key || b[i] != pw[i].value) break;
                    expect(i == n, "radix pairs orchestration sorted, stable", n);
                    free(counts), free(pcounts), free(o), free(ov), free(ok);
                }
                free(r), free(rk), free(pw);
            }
            /* soa data, one array per field of struct particle: the
               orchestrations of gen-bitonic-sort-soa-vector(!), by mass
               in place, by id into second arrays (distinct keys) */
            {
                float *m = (float *)malloc((n + 1) * sizeof *m), *om = (float *)malloc((n + 1) * sizeof *om);
                cl_int *id = (cl_int *)malloc((n + 1) * sizeof *id), *oid = (cl_int *)malloc((n + 1) * sizeof *oid);
                double *c = (double *)malloc((n + 1) * sizeof *c), *oc = (double *)malloc((n + 1) * sizeof *oc);
                size_t ok = 1;
                for (i = 0; i < n; i++) id[i] = (cl_int)i;
                for (i = n; i > 1; i--) { /* a permutation: distinct keys */
                    size_t j = (size_t)(next_random() % i);
                    cl_int t = id[i - 1];
                    id[i - 1] = id[j], id[j] = t;
                }
                for (i = 0; i < n; i++) {
                    m[i] = (float)(n - 1 - (size_t)id[i]) * 0.5f; /* mass: the ids backwards */
                    c[i] = (double)id[i] * 3.0 + 0.25;        /* charge follows id */
                }
                expect(sort_vector_bitonic_sort_soa_vector_in_place_particle_mass_orchestration_run(&prog, m, n, id, n, c, n) ==
                           CL_SUCCESS, "soa in place orchestration", n);
                for (i = 0; i < n; i++)
                    ok &= m[i] == (float)i * 0.5f && c[i] == (double)id[i] * 3.0 + 0.25;
                expect(ok, "soa sorted by mass, fields moved together", n);
                expect(sort_vector_bitonic_sort_soa_vector_particle_id_orchestration_run(&prog, m, n, id, n, c, n, om, n, oid, n, oc, n) ==
                           CL_SUCCESS, "soa copy orchestration", n);
                for (i = 0; i < n; i++)
                    ok &= oid[i] == (cl_int)i && oc[i] == (double)i * 3.0 + 0.25;
                expect(ok, "soa sorted by id into the second arrays", n);
                free(m), free(om), free(id), free(oid), free(c), free(oc);
            }
            if (failures) fprintf(stderr, "%s\n", crisp_error_message(&cx));
            free(f), free(fw), free(a), free(b), free(aw), free(l), free(lw);
        }
    sort_vector_release(&prog);
    crisp_close(&cx);
    printf("%s\n", failures ? "FAILED" : "all sorted");
    return failures != 0;
}
