/* bench_hoist_c.c - the C hoist's per-call overhead against the same OpenCL
 * calls written by hand (scripts/bench_hoist.py builds and runs it with the
 * vector_add hoist of examples/vector_add.crisp).
 *
 *     bench_hoist_c vector_add.cl ROUNDS N...
 *
 * For each N: vector_add_enqueue on the caller's buffers against
 * clSetKernelArg x 6 + clEnqueueNDRangeKernel, and vector_add_run on host
 * arrays against clCreateBuffer x 3 + the same + clEnqueueReadBuffer; every
 * call timed to its completion (clFinish / the blocking read), in
 * alternating blocks.  Prints "row KIND N RAW_SECONDS HOIST_SECONDS RATIO OK"
 * per measurement: medians per call, and the median of the rounds' ratios.  CRISP_PLATFORM chooses the device (crisp_runtime.h). */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "vector_add_hoist_OpenCL.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct Bench {
    vector_add_program *prog;
    cl_kernel raw;              /* the same kernel, for the hand-written calls */
    cl_context context;
    cl_command_queue queue;
    size_t n;
    float *a, *b, *c;
    cl_mem A, B, C;
    vector_add_args args;
    int failed;
} Bench;

/* By hand: the six arguments, the launch, wait. */
static void raw_enqueue(Bench *x) {
    cl_ulong n = x->n;
    size_t global = x->n;
    cl_int err = clSetKernelArg(x->raw, 0, sizeof(cl_mem), &x->A);
    err |= clSetKernelArg(x->raw, 1, sizeof n, &n);
    err |= clSetKernelArg(x->raw, 2, sizeof(cl_mem), &x->B);
    err |= clSetKernelArg(x->raw, 3, sizeof n, &n);
    err |= clSetKernelArg(x->raw, 4, sizeof(cl_mem), &x->C);
    err |= clSetKernelArg(x->raw, 5, sizeof n, &n);
    err |= clEnqueueNDRangeKernel(x->queue, x->raw, 1, NULL, &global, NULL, 0, NULL, NULL);
    err |= clFinish(x->queue);
    x->failed |= err != CL_SUCCESS;
}

static void hoist_enqueue(Bench *x) {
    x->failed |= vector_add_enqueue(x->prog, NULL, &x->args, NULL, 0, NULL, NULL) != CL_SUCCESS;
    x->failed |= clFinish(x->queue) != CL_SUCCESS;
}

/* By hand from host arrays: buffers (inputs copied), the call, the blocking read. */
static void raw_run(Bench *x) {
    cl_int err = CL_SUCCESS, e2 = CL_SUCCESS, e3 = CL_SUCCESS;
    size_t bytes = x->n * sizeof(float), global = x->n;
    cl_ulong n = x->n;
    cl_mem A = clCreateBuffer(x->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, x->a, &err);
    cl_mem B = clCreateBuffer(x->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, x->b, &e2);
    cl_mem C = clCreateBuffer(x->context, CL_MEM_WRITE_ONLY, bytes, NULL, &e3);
    err |= e2 | e3;
    err |= clSetKernelArg(x->raw, 0, sizeof(cl_mem), &A);
    err |= clSetKernelArg(x->raw, 1, sizeof n, &n);
    err |= clSetKernelArg(x->raw, 2, sizeof(cl_mem), &B);
    err |= clSetKernelArg(x->raw, 3, sizeof n, &n);
    err |= clSetKernelArg(x->raw, 4, sizeof(cl_mem), &C);
    err |= clSetKernelArg(x->raw, 5, sizeof n, &n);
    err |= clEnqueueNDRangeKernel(x->queue, x->raw, 1, NULL, &global, NULL, 0, NULL, NULL);
    err |= clEnqueueReadBuffer(x->queue, C, CL_TRUE, 0, bytes, x->c, 0, NULL, NULL);
    clReleaseMemObject(A);
    clReleaseMemObject(B);
    clReleaseMemObject(C);
    x->failed |= err != CL_SUCCESS;
}

static void hoist_run(Bench *x) {
    x->failed |= vector_add_run(x->prog, x->a, x->n, x->b, x->n, x->c, x->n, NULL) != CL_SUCCESS;
}

static double per_call(void (*fn)(Bench *), Bench *x, int calls) {
    double t0 = now();
    int i;
    for (i = 0; i < calls; i++) fn(x);
    return (now() - t0) / calls;
}

static int cmp(const void *p, const void *q) {
    double a = *(const double *)p, b = *(const double *)q;
    return a < b ? -1 : a > b;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Alternating blocks of RAW and HOIST calls; prints the row. */
static void side_by_side(const char *kind, Bench *x, void (*raw)(Bench *), void (*hoist)(Bench *), int rounds) {
    double r[64], h[64], q[64];
    int calls = x->n <= 4096 ? 50 : 5, i, ok = 1;
    size_t j;
    if (rounds > 64) rounds = 64;
    raw(x);
    hoist(x);
    for (i = 0; i < rounds; i++) {
        if (i % 2) {
            h[i] = per_call(hoist, x, calls);
            r[i] = per_call(raw, x, calls);
        } else {
            r[i] = per_call(raw, x, calls);
            h[i] = per_call(hoist, x, calls);
        }
    }
    if (kind[2] == 'r') { /* the run functions leave a + b in c */
        for (j = 0; j < x->n; j++) ok &= x->c[j] == x->a[j] + x->b[j];
    }
    for (i = 0; i < rounds; i++) q[i] = h[i] / r[i];
    printf("row %s %lu %.9f %.9f %.6f %d\n", kind, (unsigned long)x->n, median(r, rounds), median(h, rounds), median(q, rounds),
           ok && !x->failed);
}

int main(int argc, char **argv) {
    CrispContext cx;
    vector_add_program prog;
    Bench x;
    int rounds, i;
    cl_int err;
    if (argc < 4) {
        fprintf(stderr, "usage: bench_hoist_c vector_add.cl ROUNDS N...\n");
        return 2;
    }
    rounds = atoi(argv[2]);
    if (crisp_open(&cx, 0) != CL_SUCCESS || vector_add_load(&prog, &cx, argv[1]) != CL_SUCCESS) {
        fprintf(stderr, "bench_hoist_c: %s\n", crisp_error_message(&cx));
        return 1;
    }
    printf("C device: %s (%s)\n", cx.device_name, cx.platform_name);
    memset(&x, 0, sizeof x);
    x.prog = &prog;
    x.context = cx.context;
    x.queue = cx.queue;
    x.raw = clCreateKernel(prog.program, "vector_add", &err);
    if (err != CL_SUCCESS) return 1;
    for (i = 3; i < argc; i++) {
        size_t j, n = (size_t)atol(argv[i]);
        x.n = n;
        x.a = (float *)malloc(n * sizeof(float));
        x.b = (float *)malloc(n * sizeof(float));
        x.c = (float *)malloc(n * sizeof(float));
        if (!x.a || !x.b || !x.c) return 1;
        for (j = 0; j < n; j++) {
            x.a[j] = (float)(j % 97);
            x.b[j] = (float)(j % 89) * 0.5f;
        }
        x.A = clCreateBuffer(cx.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(float), x.a, &err);
        x.B = clCreateBuffer(cx.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(float), x.b, &err);
        x.C = clCreateBuffer(cx.context, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &err);
        memset(&x.args, 0, sizeof x.args);
        x.args.A = x.A;
        x.args.A_len = n;
        x.args.B = x.B;
        x.args.B_len = n;
        x.args.C = x.C;
        x.args.C_len = n;
        side_by_side("C_enqueue", &x, raw_enqueue, hoist_enqueue, rounds);
        side_by_side("C_run", &x, raw_run, hoist_run, rounds);
        clReleaseMemObject(x.A);
        clReleaseMemObject(x.B);
        clReleaseMemObject(x.C);
        free(x.a);
        free(x.b);
        free(x.c);
    }
    clReleaseKernel(x.raw);
    vector_add_release(&prog);
    crisp_close(&cx);
    return 0;
}
