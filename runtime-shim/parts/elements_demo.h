/* ======================================================================
 * Element types and demo data
 * ====================================================================== */


/* An OpenCL element type name ("float", "uchar4", "double", "half"). */
typedef struct CrispElem {
    char kind;          /* 'i' signed, 'u' unsigned, 'f' floating, 'h' half, '?' unknown */
    int size;           /* bytes of one lane */
    int lanes;          /* 1, 2, 3, 4, 8, 16 */
    int mem_lanes;      /* lanes in memory: a 3-vector takes 4 */
} CrispElem;

static inline CrispElem crisp_elem(const char *name) {
    static const struct { const char *name; char kind; int size; } bases[] = {
        {"uchar", 'u', 1}, {"ushort", 'u', 2}, {"uint", 'u', 4}, {"ulong", 'u', 8}, {"char", 'i', 1},
        {"short", 'i', 2}, {"int", 'i', 4}, {"long", 'i', 8}, {"half", 'h', 2}, {"float", 'f', 4},
        {"double", 'f', 8}, {"size_t", 'u', 8}, {"bool", 'u', 1}};
    CrispElem e = {'?', 1, 1, 1};
    size_t i, n;
    if (!strncmp(name, "crisp_std140_", 13)) name += 13;
    for (i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        n = strlen(bases[i].name);
        if (strncmp(name, bases[i].name, n) != 0) continue;
        e.kind = bases[i].kind;
        e.size = bases[i].size;
        e.lanes = name[n] ? atoi(name + n) : 1;
        if (e.lanes < 1) e.lanes = 1;
        e.mem_lanes = e.lanes == 3 ? 4 : e.lanes;
        break;
    }
    return e;
}

/* IEEE half <-> float (the host has no half type). */
static inline float crisp_half_to_float(cl_half h) {
    unsigned sign = (h >> 15) & 1u, exp = (h >> 10) & 31u, man = h & 1023u;
    float v;
    if (exp == 0) v = (float)man / 16777216.0f;                  /* subnormal: man * 2^-24 */
    else if (exp == 31) {                                           /* NaN, infinity */
        cl_uint bits = man ? 0x7fc00000u : 0x7f800000u;
        memcpy(&v, &bits, 4);
    } else {
        v = 1.0f + (float)man / 1024.0f;
        for (; exp > 15; exp--) v *= 2.0f;
        for (; exp < 15; exp++) v *= 0.5f;
    }
    return sign ? -v : v;
}

static inline cl_half crisp_half_from_float(float f) {
    unsigned sign = f < 0 ? 0x8000u : 0u;
    int exp = 15;
    if (f != f) return (cl_half)0x7e00u;
    if (f < 0) f = -f;
    if (f >= 65520.0f) return (cl_half)(sign | 0x7c00u);
    if (f < 6.103515625e-05f) return (cl_half)(sign | (unsigned)(f * 16777216.0f + 0.5f));
    while (f >= 2.0f) f *= 0.5f, exp++;
    while (f < 1.0f) f *= 2.0f, exp--;
    return (cl_half)(sign | ((unsigned)exp << 10) | ((unsigned)((f - 1.0f) * 1024.0f + 0.5f) & 1023u));
}

/* Store V into lane LANE of the element at P. */
static inline void crisp_elem_put(CrispElem e, void *p, int lane, double v) {
    unsigned char *q = (unsigned char *)p + lane * e.size;
    if (e.kind == 'h') {
        cl_half h = crisp_half_from_float((float)v);
        memcpy(q, &h, 2);
    } else if (e.kind == 'f' && e.size == 4) {
        float f = (float)v;
        memcpy(q, &f, 4);
    } else if (e.kind == 'f') {
        memcpy(q, &v, 8);
    } else if (e.kind == 'i' || e.kind == 'u') {
        unsigned long long u = (unsigned long long)(long long)v;
        int i;
        for (i = 0; i < e.size; i++) q[i] = (unsigned char)(u >> (8 * i)); /* little endian, like every OpenCL device we target */
    }
}

/* Lane LANE of the element at P, as a double. */
static inline double crisp_elem_get(CrispElem e, const void *p, int lane) {
    const unsigned char *q = (const unsigned char *)p + lane * e.size;
    if (e.kind == 'h') {
        cl_half h;
        memcpy(&h, q, 2);
        return crisp_half_to_float(h);
    }
    if (e.kind == 'f' && e.size == 4) {
        float f;
        memcpy(&f, q, 4);
        return f;
    }
    if (e.kind == 'f') {
        double d;
        memcpy(&d, q, 8);
        return d;
    }
    {
        unsigned long long u = 0;
        int i;
        for (i = 0; i < e.size; i++) u |= (unsigned long long)q[i] << (8 * i);
        if (e.kind == 'i' && e.size < 8 && (u >> (8 * e.size - 1)) & 1u) u |= ~0ULL << (8 * e.size);
        return e.kind == 'i' ? (double)(long long)u : (double)u;
    }
}

/* Demo data for COUNT elements of type ELEMENT, STRIDE bytes apart: lane j
 * of element i is 1 + (i + j) % 16 (never 0: safe as a divisor, small
 * enough to be an index).  Padding stays as it was (zero from calloc). */
static inline void crisp_fill_demo(void *dst, size_t count, size_t stride, const char *element) {
    CrispElem e = crisp_elem(element);
    size_t i;
    int j;
    for (i = 0; i < count; i++)
        for (j = 0; j < e.lanes; j++) crisp_elem_put(e, (unsigned char *)dst + i * stride, j, (double)(1 + (i + (size_t)j) % 16));
}

/* Print one value of type ELEMENT: "1.5", or "(1,2,3,4)" for a vector. */
static inline void crisp_print_value(FILE *out, const void *src, const char *element) {
    CrispElem e = crisp_elem(element);
    int j;
    if (e.lanes > 1) fputc('(', out);
    for (j = 0; j < e.lanes; j++) fprintf(out, "%s%.9g", j ? "," : "", crisp_elem_get(e, src, j));
    if (e.lanes > 1) fputc(')', out);
}

/* Print "NAME: COUNT x ELEMENT: v0 v1 ... v7 ... (sum S)" on one line. */
static inline void crisp_print_vector(FILE *out, const char *name, const void *src, size_t count, size_t stride,
                                      const char *element) {
    CrispElem e = crisp_elem(element);
    double sum = 0;
    size_t i;
    int j;
    fprintf(out, "  %s: %lu x %s:", name, (unsigned long)count, element);
    for (i = 0; i < count; i++) {
        const unsigned char *p = (const unsigned char *)src + i * stride;
        for (j = 0; j < e.lanes; j++) sum += crisp_elem_get(e, p, j);
        if (i >= 8) continue;
        fputc(' ', out);
        crisp_print_value(out, p, element);
    }
    fprintf(out, "%s (sum %.9g)\n", count > 8 ? " ..." : "", sum);
}


/* ======================================================================
 * Launch sizes
 * ====================================================================== */


/* An NDRange: DIMS dimensions; local all 0 lets OpenCL choose. */
typedef struct CrispLaunch {
    cl_uint dims;
    size_t global[3];
    size_t local[3];
} CrispLaunch;

static inline void crisp_launch_init(CrispLaunch *l, cl_uint dims) {
    int i;
    l->dims = dims < 1 ? 1 : dims > 3 ? 3 : dims;
    for (i = 0; i < 3; i++) {
        l->global[i] = 1;
        l->local[i] = 0;
    }
}

/* 1 when a local size was chosen. */
static inline int crisp_launch_has_local(const CrispLaunch *l) {
    return l->local[0] != 0;
}

/* Round every global size up to a multiple of the local size. */
static inline void crisp_launch_round_up(CrispLaunch *l) {
    cl_uint i;
    if (!crisp_launch_has_local(l)) return;
    for (i = 0; i < l->dims; i++)
        if (l->local[i] && l->global[i] % l->local[i]) l->global[i] += l->local[i] - l->global[i] % l->local[i];
}

/* The size-expression inputs of docs/abi.md (1 for missing dimensions). */
static inline unsigned long long crisp_global_size(const CrispLaunch *l, cl_uint d) {
    return d < l->dims ? (unsigned long long)l->global[d] : 1ULL;
}

static inline unsigned long long crisp_local_size(const CrispLaunch *l, cl_uint d) {
    return d < l->dims && l->local[d] ? (unsigned long long)l->local[d] : 1ULL;
}

static inline unsigned long long crisp_num_groups(const CrispLaunch *l, cl_uint d) {
    unsigned long long g = crisp_global_size(l, d), s = crisp_local_size(l, d);
    return (g + s - 1) / s;
}

static inline unsigned long long crisp_global_linear_size(const CrispLaunch *l) {
    return crisp_global_size(l, 0) * crisp_global_size(l, 1) * crisp_global_size(l, 2);
}

static inline unsigned long long crisp_local_linear_size(const CrispLaunch *l) {
    return crisp_local_size(l, 0) * crisp_local_size(l, 1) * crisp_local_size(l, 2);
}
