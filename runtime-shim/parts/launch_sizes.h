/* Print the launch sizes on a line of their own, after INDENT. */
static inline void crisp_print_launch(FILE *out, const char *indent, const CrispLaunch *l) {
    char text[160];
    crisp_format_launch(text, sizeof text, l);
    fprintf(out, "%s%s\n", indent, text);
}

/* The bytes of a __local argument of LEN elements of STRIDE bytes, as the
 * hoists set it (at least one element). */
static inline unsigned long long crisp_local_arg_bytes(unsigned long long len, unsigned long long stride) {
    return (len ? len : 1) * stride;
}

/* Before a launch of KERNEL at LAUNCH, whose workgroup needs BYTES of
 * local memory (its fixed __local vectors and its __local arguments, the
 * metadata's "local_mem"; LAUNCH NULL: fixed __local vectors alone, checked
 * when the program is loaded): refuse it, saying both figures, when the device
 * has less (cx->local_mem_size, asked once when CX was made) - instead of
 * the launch's bare out-of-resources error. */
static inline cl_int crisp_check_local_mem(CrispContext *cx, const char *kernel, unsigned long long bytes,
                                           const CrispLaunch *launch) {
    char sizes[160] = "any launch";
    if (!cx->local_mem_size || bytes <= cx->local_mem_size) return CL_SUCCESS;
    if (launch) crisp_format_launch(sizes, sizeof sizes, launch);
    return crisp_errorf(cx, CRISP_OUT_OF_LOCAL_MEMORY,
                        "kernel %s (%s) needs %llu bytes of local memory per workgroup, but the device has %llu (%s): "
                        "launch it with fewer work-items a workgroup, or fewer items per thread",
                        kernel, sizes, bytes, cx->local_mem_size, CRISP_LOCAL_MEM_NAME);
}

/* Size expressions with floating arithmetic round up to whole elements
 * (the metadata's "c" expressions call this). */
static inline unsigned long long crisp_ceil_ull(double x) {
    unsigned long long u;
    if (!(x > 0)) return 0;
    if (x >= 18446744073709551615.0) return ~0ULL;
    u = (unsigned long long)x;
    return (double)u < x ? u + 1 : u;
}


/* Bounds on what a kernel sees (docs/abi.md): the local size, or the
 * global size when OpenCL chooses the local size; the number of groups, or
 * the global size then.  The hoists' length checks use these. */
static inline unsigned long long crisp_max_local_size(const CrispLaunch *l, cl_uint d) {
    return crisp_launch_has_local(l) ? crisp_local_size(l, d) : crisp_global_size(l, d);
}

static inline unsigned long long crisp_max_num_groups(const CrispLaunch *l, cl_uint d) {
    return crisp_launch_has_local(l) ? crisp_num_groups(l, d) : crisp_global_size(l, d);
}

/* What size expressions call (emit-oclc/sizeprint.c): integer helpers
 * that never divide by zero (the size is then 0), and floating ones. */
static inline unsigned long long crisp_min_ull(unsigned long long a, unsigned long long b) {
    return a < b ? a : b;
}

static inline unsigned long long crisp_max_ull(unsigned long long a, unsigned long long b) {
    return a > b ? a : b;
}

static inline double crisp_min_dbl(double a, double b) {
    return a < b ? a : b;
}

static inline double crisp_max_dbl(double a, double b) {
    return a > b ? a : b;
}

static inline unsigned long long crisp_div_ull(unsigned long long a, unsigned long long b) {
    return b ? a / b : 0;
}

static inline unsigned long long crisp_ceil_div_ull(unsigned long long a, unsigned long long b) {
    return b ? a / b + (a % b != 0) : 0;
}

static inline unsigned long long crisp_round_up_ull(unsigned long long a, unsigned long long m) {
    return m ? crisp_ceil_div_ull(a, m) * m : a;
}

/* a - b, or 0 when b is larger (never wraps). */
static inline unsigned long long crisp_monus_ull(unsigned long long a, unsigned long long b) {
    return a > b ? a - b : 0;
}

static inline double crisp_floor_dbl(double x) {
    double t = (double)(long long)x;
    return t > x ? t - 1 : t;
}

static inline double crisp_ceil_dbl(double x) {
    double t = (double)(long long)x;
    return t < x ? t + 1 : t;
}
