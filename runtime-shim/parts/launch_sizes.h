/* Print the launch sizes on a line of their own, after INDENT. */
static inline void crisp_print_launch(FILE *out, const char *indent, const CrispLaunch *l) {
    char text[160];
    crisp_format_launch(text, sizeof text, l);
    fprintf(out, "%s%s\n", indent, text);
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
