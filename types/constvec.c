/* constvec.c - def-const-vec: vectors computed while compiling.
 *
 * Spec "def-const-vec": the body of a def-const-vec runs at compile time and
 * the vector it returns becomes a file-scope `__constant` array.  Kernels
 * read it by name once they `(declare (use NAME))`.
 *
 * Why a small interpreter of its own rather than the macro evaluator
 * (macros/eval.c): macro values are immutable syntax nodes, while a const-vec
 * body mutates vectors element by element and its final values must follow
 * C's conversions to the element type.  The language here is the subset of
 * kernel code that makes sense without a device: let/let*, progn, if, %loop
 * (dotimes and friends), set!/inc!/dec!, ~, length~, make-vector, vector
 * views (make-vector-view, offset~, parent~, reinterpret-view), copy-vec,
 * numbers, arithmetic, comparisons, to-TYPE conversions and calls to
 * def-functions (their bodies interpreted the same way).  Integer arithmetic is exact
 * in 64 bits (overflow is an error); floating arithmetic is done in double
 * and rounded when a value is stored in a float element or variable.
 *
 * Every run is bounded (steps, vector sizes, nesting) so a runaway body ends
 * with a diagnostic, never a hang. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../core/syntax.h"
#include "check_int.h"

#define CV_MAX_STEPS 2000000L           /* evaluation steps per def-const-vec */
#define CV_MAX_LENGTH (1L << 20)        /* elements of one vector           */
#define CV_MAX_TOTAL (1L << 22)         /* elements allocated by one body   */
#define CV_MAX_DEPTH 500                /* nested forms                     */
#define CV_MAX_VARS 4096                /* live variables                   */
#define CV_MAX_VIEWS (1L << 16)         /* views made by one body           */

/* Diagnostic codes (docs/language.md "def-const-vec"). */
#define CV_E_FORM "E0180"    /* malformed def-const-vec, unsupported form in its body */
#define CV_E_NOUSE "E0181"   /* a const-vec read without (declare (use NAME))          */
#define CV_E_USE "E0182"     /* (use NAME) names no earlier def-const-vec              */
#define CV_E_STEPS "E0183"   /* step / nesting limit                                   */
#define CV_E_SIZE "E0184"    /* bad vector length or element type                      */
#define CV_E_RESULT "E0185"  /* the body does not return a vector                      */
#define CV_E_EVAL "E0186"    /* evaluation error: types, overflow, bounds, division    */
#define CV_E_WRITE "E0187"   /* writing to a const-vec                                 */
#define CV_E_REINT "E0188"   /* reinterpret-view to or from a type it cannot see       */
#define CV_E_PARENT "E0189"  /* parent~ of something not a view, or a mismatched one   */

/* A vector, or a view on one (docs/types.md "Views"): a view has a root,
 * the vector whose elements it shows, and an offset into it; its n is the
 * view's length~.  A view of a view is flattened to the root.  A
 * reinterpret-view (reint) sees the root's bytes as other elements: its
 * element i is the bytes at boff + (off + i) * size of its element type,
 * in the root's :compact, little-endian image. */
typedef struct CVec {
    Type *elem;
    int64_t n;
    int64_t *iv;          /* integer elements (raw bits); NULL for a view */
    double *fv;           /* float elements; NULL for a view */
    const char *name;     /* a const-vec's name when read-only, else NULL */
    struct CVec *root;    /* a view's vector, NULL for a vector */
    int64_t off;          /* a view's offset~, in its own elements */
    int64_t boff;         /* reint: the byte in root where offset~ 0 is */
    int reint;            /* a reinterpret-view of root's bytes */
} CVec;

typedef enum CvKind { CV_NONE, CV_INT, CV_FLOAT, CV_BOOL, CV_VEC } CvKind;

typedef struct CVal {
    CvKind k;
    int uns;              /* CV_INT: i holds uint64 bits */
    int64_t i;
    double f;
    CVec *v;
} CVal;

typedef struct CVar {
    const char *key, *name;
    CVal val;
    Type *decl;           /* annotated scalar type, or NULL */
    int immutable;        /* loop index */
} CVar;

typedef struct Interp {
    Checker *ck;
    Sym *self;
    Sym **uses;
    int nuses;
    CVar *vars;
    int nvars, capvars;
    long steps, total, views;
    int depth;
    int frame;            /* first variable visible: a called function sees only its own */
    int failed;           /* a diagnostic was reported: unwind */
    int returned;         /* (return v) was evaluated: unwind */
    CVal ret;
} Interp;

static int ev(Interp *ip, Node *x, CVal *out);

static int fail(Interp *ip, const Node *at, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(Interp *ip, const Node *at, const char *code, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!ip->failed) diag_error_at(ip->ck->d, at, code, "%s", msg);
    ip->failed = 1;
    return 0;
}

static const char *show(Interp *ip, const Node *n) {
    return syn_to_string(ip->ck->a, n, 40);
}

static const char *kind_word(CvKind k) {
    return k == CV_INT ? "an integer" : k == CV_FLOAT ? "a float" : k == CV_BOOL ? "a bool" : k == CV_VEC ? "a vector" : "no value";
}

/* ---- numbers ---- */

static int is_elem_type(const Type *t) {
    return t && t->kind == TY_NUM && t->sc != SC_HALF && t->sc != SC_BFLOAT16;
}

/* C's conversion of a value to scalar type t: integers wrap modulo 2^bits,
 * float types round; a float never becomes an integer implicitly (as in
 * kernel code: truncate, floor, ceil and round do that). */
static int convert(Interp *ip, const Node *at, Type *t, CVal v, CVal *out) {
    const ScalarInfo *si = ty_scalar_info(t->sc);
    if (v.k == CV_BOOL) v = (CVal){.k = CV_INT, .i = v.i};
    if (v.k != CV_INT && v.k != CV_FLOAT)
        return fail(ip, at, CV_E_EVAL, "expected a number for `%s`, found %s", si->name, kind_word(v.k));
    if (si->cat == CAT_FLOAT) {
        double d = v.k == CV_FLOAT ? v.f : v.uns ? (double)(uint64_t)v.i : (double)v.i;
        if (t->sc == SC_FLOAT) d = (double)(float)d;
        *out = (CVal){.k = CV_FLOAT, .f = d};
        return 1;
    }
    int bits = si->size * 8;
    uint64_t u;
    if (v.k == CV_FLOAT) {
        return fail(ip, at, CV_E_EVAL, "a float is not converted to `%s`; use truncate, floor, ceil or round",
                    si->name);
    } else {
        u = (uint64_t)v.i;
    }
    if (bits < 64) {
        u &= (UINT64_C(1) << bits) - 1;
        if (si->cat == CAT_SIGNED && (u >> (bits - 1))) u |= ~((UINT64_C(1) << bits) - 1);
    }
    *out = (CVal){.k = CV_INT, .i = (int64_t)u, .uns = si->cat == CAT_UNSIGNED && bits == 64 && (int64_t)u < 0};
    return 1;
}

static int num_arg(Interp *ip, Node *x, CVal *out) {
    if (!ev(ip, x, out)) return 0;
    if (ip->returned) return fail(ip, x, CV_E_FORM, "`return` cannot be used inside an expression");
    if (out->k == CV_BOOL) out->k = CV_INT;
    if (out->k != CV_INT && out->k != CV_FLOAT)
        return fail(ip, x, CV_E_EVAL, "expected a number, found %s: `%s`", kind_word(out->k), show(ip, x));
    if (out->k == CV_INT && out->uns)
        return fail(ip, x, CV_E_EVAL, "`%s` is above 2^63, too large for compile-time arithmetic", show(ip, x));
    return 1;
}

static double as_double(CVal v) {
    return v.k == CV_FLOAT ? v.f : (double)v.i;
}

static int truthy(Interp *ip, Node *x, int *b) {
    CVal v;
    if (!ev(ip, x, &v)) return 0;
    if (ip->returned) return fail(ip, x, CV_E_FORM, "`return` cannot be used inside a test");
    if (v.k == CV_BOOL || v.k == CV_INT) *b = v.i != 0;
    else if (v.k == CV_FLOAT) *b = v.f != 0;
    else return fail(ip, x, CV_E_EVAL, "a test needs a bool or a number, found %s", kind_word(v.k));
    return 1;
}

/* + - * / and friends over two values (ints exact with overflow checks). */
static int arith2(Interp *ip, const Node *at, const char *op, CVal a, CVal b, CVal *out) {
    if (a.k == CV_FLOAT || b.k == CV_FLOAT) {
        double x = as_double(a), y = as_double(b), r;
        if (!strcmp(op, "+")) r = x + y;
        else if (!strcmp(op, "-")) r = x - y;
        else if (!strcmp(op, "*")) r = x * y;
        else if (!strcmp(op, "/")) r = x / y;
        else if (!strcmp(op, "min")) r = x < y ? x : y;
        else if (!strcmp(op, "max")) r = x > y ? x : y;
        else if (!strcmp(op, "rem")) r = fmod(x, y);
        else if (!strcmp(op, "mod")) {
            r = fmod(x, y);
            if (r != 0 && ((r < 0) != (y < 0))) r += y;
        } else return fail(ip, at, CV_E_EVAL, "`%s` needs integers", op);
        *out = (CVal){.k = CV_FLOAT, .f = r};
        return 1;
    }
    int64_t x = a.i, y = b.i, r = 0;
    int ov = 0;
    if (!strcmp(op, "+")) ov = __builtin_add_overflow(x, y, &r);
    else if (!strcmp(op, "-")) ov = __builtin_sub_overflow(x, y, &r);
    else if (!strcmp(op, "*")) ov = __builtin_mul_overflow(x, y, &r);
    else if (!strcmp(op, "min")) r = x < y ? x : y;
    else if (!strcmp(op, "max")) r = x > y ? x : y;
    else if (!strcmp(op, "/") || !strcmp(op, "rem") || !strcmp(op, "mod")) {
        if (y == 0) return fail(ip, at, CV_E_EVAL, "division by zero in `%s`", show(ip, at));
        if (x == INT64_MIN && y == -1) ov = 1;
        else if (op[0] == '/') r = x / y;
        else {
            r = x % y;
            if (op[0] == 'm' && r != 0 && ((r < 0) != (y < 0))) r += y;
        }
    } else if (!strcmp(op, "bit-and") || !strcmp(op, "logand")) r = x & y;
    else if (!strcmp(op, "bit-or") || !strcmp(op, "logior")) r = x | y;
    else if (!strcmp(op, "bit-xor") || !strcmp(op, "logxor")) r = x ^ y;
    else if (!strcmp(op, "ash")) {
        if (y >= 0) {
            if (y > 62 || (x && (x > (INT64_MAX >> y) || x < (INT64_MIN >> y)))) ov = 1;
            else r = (int64_t)((uint64_t)x << y);
        } else r = y < -63 ? (x < 0 ? -1 : 0) : x >> -y;
    } else return fail(ip, at, CV_E_EVAL, "unknown operator `%s`", op);
    if (ov) return fail(ip, at, CV_E_EVAL, "integer overflow in `%s` (compile-time integers are 64-bit)", show(ip, at));
    *out = (CVal){.k = CV_INT, .i = r};
    return 1;
}

static int compare2(const char *op, CVal a, CVal b) {
    int c;
    if (a.k == CV_FLOAT || b.k == CV_FLOAT) {
        double x = as_double(a), y = as_double(b);
        if (x != x || y != y) return !strcmp(op, "/=") || !strcmp(op, "!=");
        c = x < y ? -1 : x > y ? 1 : 0;
    } else c = a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
    if (!strcmp(op, "<")) return c < 0;
    if (!strcmp(op, ">")) return c > 0;
    if (!strcmp(op, "<=")) return c <= 0;
    if (!strcmp(op, ">=")) return c >= 0;
    if (!strcmp(op, "/=") || !strcmp(op, "!=")) return c != 0;
    return c == 0;
}

/* ---- variables ---- */

static CVar *var_find(Interp *ip, const char *key) {
    for (int i = ip->nvars - 1; i >= ip->frame; i--)
        if (!strcmp(ip->vars[i].key, key)) return &ip->vars[i];
    return NULL;
}

static int var_push(Interp *ip, const Node *at, CVar v) {
    if (ip->nvars >= CV_MAX_VARS) return fail(ip, at, CV_E_STEPS, "more than %d variables alive in a def-const-vec body", CV_MAX_VARS);
    if (ip->nvars == ip->capvars) {
        int nc = ip->capvars ? ip->capvars * 2 : 32;
        CVar *nv = arena_alloc(ip->ck->a, sizeof(CVar) * (size_t)nc);
        if (!nv) return fail(ip, at, CV_E_STEPS, "out of memory");
        if (ip->nvars) memcpy(nv, ip->vars, sizeof(CVar) * (size_t)ip->nvars);
        ip->vars = nv;
        ip->capvars = nc;
    }
    ip->vars[ip->nvars++] = v;
    return 1;
}

/* The value stored in a variable: its declared type's conversion; an
 * integer variable does not silently take a float. */
static int var_store(Interp *ip, const Node *at, CVar *var, CVal v) {
    if (var->val.k == CV_VEC || v.k == CV_VEC)
        return fail(ip, at, CV_E_EVAL, "cannot assign to the vector `%s`; assign its elements with (set! (~ %s i) ...)",
                    var->name, var->name);
    if (var->decl) return convert(ip, at, var->decl, v, &var->val);
    if (var->val.k == CV_INT && v.k == CV_FLOAT)
        return fail(ip, at, CV_E_EVAL, "`%s` holds an integer; convert the float explicitly, e.g. (int ...)", var->name);
    if (var->val.k == CV_FLOAT && v.k == CV_INT) v = (CVal){.k = CV_FLOAT, .f = v.uns ? (double)(uint64_t)v.i : (double)v.i};
    var->val = v;
    return 1;
}

/* ---- vectors ---- */

static CVec *new_vec(Interp *ip, const Node *at, Type *elem, int64_t n) {
    if (n < 1 || n > CV_MAX_LENGTH) {
        fail(ip, at, CV_E_SIZE, "a def-const-vec vector needs 1 to %ld elements, found %lld", CV_MAX_LENGTH, (long long)n);
        return NULL;
    }
    if (ip->total + n > CV_MAX_TOTAL) {
        fail(ip, at, CV_E_SIZE, "this def-const-vec body allocates more than %ld elements in all", CV_MAX_TOTAL);
        return NULL;
    }
    ip->total += n;
    CVec *v = arena_alloc(ip->ck->a, sizeof *v);
    if (!v) return NULL;
    v->elem = elem;
    v->n = n;
    if (ty_is_float(elem)) v->fv = arena_alloc(ip->ck->a, sizeof(double) * (size_t)n);
    else v->iv = arena_alloc(ip->ck->a, sizeof(int64_t) * (size_t)n);
    if (!v->fv && !v->iv) {
        fail(ip, at, CV_E_SIZE, "out of memory for a %lld-element vector", (long long)n);
        return NULL;
    }
    if (v->fv) memset(v->fv, 0, sizeof(double) * (size_t)n);
    else memset(v->iv, 0, sizeof(int64_t) * (size_t)n);
    return v;
}

static CVal elem_get(const CVec *v, int64_t i) {
    if (v->fv) return (CVal){.k = CV_FLOAT, .f = v->fv[i]};
    const ScalarInfo *si = ty_scalar_info(v->elem->sc);
    return (CVal){.k = CV_INT, .i = v->iv[i], .uns = si->cat == CAT_UNSIGNED && si->size == 8 && v->iv[i] < 0};
}

/* ---- bytes (reinterpret-view) ---- */

static int elem_size(const Type *t) { return ty_scalar_info(t->sc)->size; }

/* The little-endian bytes of value C (already of type T). */
static void value_bytes(const Type *t, CVal c, unsigned char *b) {
    int sz = elem_size(t);
    uint64_t u;
    if (t->sc == SC_FLOAT) {
        float f = (float)c.f;
        uint32_t w;
        memcpy(&w, &f, 4);
        u = w;
    } else if (t->sc == SC_DOUBLE) {
        memcpy(&u, &c.f, 8);
    } else u = (uint64_t)c.i;
    for (int k = 0; k < sz; k++) b[k] = (unsigned char)(u >> (8 * k));
}

/* The value of type T whose little-endian bytes are B. */
static CVal bytes_value(const Type *t, const unsigned char *b) {
    int sz = elem_size(t);
    uint64_t u = 0;
    for (int k = 0; k < sz; k++) u |= (uint64_t)b[k] << (8 * k);
    if (t->sc == SC_FLOAT) {
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, 4);
        return (CVal){.k = CV_FLOAT, .f = f};
    }
    if (t->sc == SC_DOUBLE) {
        double d;
        memcpy(&d, &u, 8);
        return (CVal){.k = CV_FLOAT, .f = d};
    }
    const ScalarInfo *si = ty_scalar_info(t->sc);
    if (sz < 8 && si->cat == CAT_SIGNED && (u >> (sz * 8 - 1))) u |= ~((UINT64_C(1) << (sz * 8)) - 1);
    return (CVal){.k = CV_INT, .i = (int64_t)u, .uns = si->cat == CAT_UNSIGNED && sz == 8 && (int64_t)u < 0};
}

/* Copy SZ bytes at byte B of vector R's image to OUT (or, WRITE, from OUT
 * into R: each element touched is decoded again). */
static void root_bytes(CVec *r, int64_t b, int sz, unsigned char *out, int write) {
    int rs = elem_size(r->elem);
    for (int k = 0; k < sz;) {
        int64_t j = (b + k) / rs;
        int o = (int)((b + k) % rs), take = rs - o < sz - k ? rs - o : sz - k;
        unsigned char eb[8];
        CVal e = r->fv ? (CVal){.k = CV_FLOAT, .f = r->fv[j]} : (CVal){.k = CV_INT, .i = r->iv[j]};
        value_bytes(r->elem, e, eb);
        if (write) {
            memcpy(eb + o, out + k, (size_t)take);
            CVal d = bytes_value(r->elem, eb);
            if (r->fv) r->fv[j] = d.f;
            else r->iv[j] = d.i;
        } else memcpy(out + k, eb + o, (size_t)take);
        k += take;
    }
}

/* The first byte of element I of the reinterpret-view V in its root. */
static int64_t reint_byte(const CVec *v, int64_t i) { return v->boff + (v->off + i) * elem_size(v->elem); }

/* Element i of v (a vector or a view) as the vector that holds it and the
 * index there (for a reinterpret-view: its root and the element's first
 * byte); out of bounds (of the view or of its root) is an error. */
static int locate(Interp *ip, const Node *at, CVec *v, int64_t i, CVec **vec, int64_t *idx) {
    if (i < 0 || i >= v->n)
        return fail(ip, at, CV_E_EVAL, "index %lld is out of bounds for a %s of length %lld", (long long)i,
                    v->root ? "view" : "vector", (long long)v->n);
    if (v->reint) {
        CVec *r = v->root;
        int64_t b = reint_byte(v, i), rbytes = r->n * elem_size(r->elem);
        if (b > rbytes - elem_size(v->elem))
            return fail(ip, at, CV_E_EVAL,
                        "index %lld of a reinterpret-view at offset %lld is bytes %lld to %lld of its parent, which has only "
                        "%lld bytes",
                        (long long)i, (long long)v->off, (long long)b, (long long)(b + elem_size(v->elem) - 1),
                        (long long)rbytes);
        *vec = r;
        *idx = b;
        return 1;
    }
    if (v->root) {
        CVec *r = v->root;
        if (v->off > r->n - 1 - i)
            return fail(ip, at, CV_E_EVAL,
                        "index %lld of a view at offset %lld is element %lld of its parent, which has only %lld elements",
                        (long long)i, (long long)v->off, (long long)(v->off + i), (long long)r->n);
        *vec = r;
        *idx = v->off + i;
        return 1;
    }
    *vec = v;
    *idx = i;
    return 1;
}

/* (~ V I): the vector or view and the index. */
static int elem_ref(Interp *ip, Node *x, CVec **vec, int64_t *idx) {
    if (x->nkids != 3) return fail(ip, x, CV_E_FORM, "expected (~ vector index), found `%s`", show(ip, x));
    CVal v, i;
    if (!ev(ip, x->kids[1], &v)) return 0;
    if (v.k != CV_VEC) return fail(ip, x->kids[1], CV_E_EVAL, "`~` needs a vector, found %s", kind_word(v.k));
    if (!num_arg(ip, x->kids[2], &i)) return 0;
    if (i.k != CV_INT) return fail(ip, x->kids[2], CV_E_EVAL, "vector index must be an integer, found a float");
    *vec = v.v;
    *idx = i.i;
    return 1;
}

static int elem_set(Interp *ip, const Node *at, CVec *v, int64_t i, CVal val);

/* Element I of V (a vector or any view), checked. */
static int vec_get(Interp *ip, const Node *at, CVec *v, int64_t i, CVal *out) {
    CVec *r;
    int64_t k;
    if (!locate(ip, at, v, i, &r, &k)) return 0;
    if (!v->reint) {
        *out = elem_get(r, k);
        return 1;
    }
    unsigned char b[8];
    root_bytes(r, k, elem_size(v->elem), b, 0);
    *out = bytes_value(v->elem, b);
    return 1;
}

/* Store VAL in element I of V, converted to V's element type (errors in
 * the index reported at AT_INDEX, others at AT). */
static int vec_set(Interp *ip, const Node *at, const Node *at_index, CVec *v, int64_t i, CVal val) {
    CVec *r;
    int64_t k;
    if (!locate(ip, at_index, v, i, &r, &k)) return 0;
    if (!v->reint) return elem_set(ip, at, r, k, val);
    if (r->name) return fail(ip, at, CV_E_WRITE, "cannot write to the const-vec `%s`: const-vecs are read-only", r->name);
    CVal c;
    if (!convert(ip, at, v->elem, val, &c)) return 0;
    unsigned char b[8];
    value_bytes(v->elem, c, b);
    root_bytes(r, k, elem_size(v->elem), b, 1);
    return 1;
}

/* The elements [0, n) of view v lie inside its root?  (Checked when a
 * copy-vec or the body's result uses the whole view.) */
static int view_in_bounds(Interp *ip, const Node *at, const CVec *v, const char *what) {
    if (v->reint) {
        int64_t rbytes = v->root->n * elem_size(v->root->elem);
        if (v->n == 0 || reint_byte(v, v->n) <= rbytes) return 1;
        return fail(ip, at, CV_E_EVAL,
                    "%s: a reinterpret-view of %lld `%s` at offset %lld reaches past the end of its parent (%lld bytes)", what,
                    (long long)v->n, ty_name(ip->ck->a, v->elem), (long long)v->off, (long long)rbytes);
    }
    if (!v->root || v->off <= v->root->n - v->n) return 1;
    return fail(ip, at, CV_E_EVAL, "%s: a view of length %lld at offset %lld reaches past the end of its parent (%lld elements)",
                what, (long long)v->n, (long long)v->off, (long long)v->root->n);
}

static int elem_set(Interp *ip, const Node *at, CVec *v, int64_t i, CVal val) {
    if (v->name)
        return fail(ip, at, CV_E_WRITE, "cannot write to the const-vec `%s`: const-vecs are read-only", v->name);
    CVal c;
    if (!convert(ip, at, v->elem, val, &c)) return 0;
    if (v->fv) v->fv[i] = c.f;
    else v->iv[i] = c.i;
    return 1;
}

/* (make-vector TYPE LENGTH) with TYPE a scalar, a vector type or an alias
 * of one (its length is the default); :length, :element-type and
 * :initial-element keys; address-space and access keywords are ignored (the
 * result is :constant anyway). */
static int make_vector(Interp *ip, Node *x, CVal *out) {
    Type *elem = NULL;
    int64_t len = -1;
    CVal init = {.k = CV_NONE};
    Checker *ck = ip->ck;
    for (int i = 1; i < x->nkids; i++) {
        Node *k = x->kids[i];
        if (k->kind == N_KEYWORD) {
            if (!strcmp(k->key, "length") || !strcmp(k->key, "element-type") || !strcmp(k->key, "initial-element")) {
                if (i + 1 >= x->nkids) return fail(ip, k, CV_E_FORM, "`:%s` needs a value", k->key);
                Node *v = x->kids[++i];
                if (k->key[0] == 'e') {
                    elem = v->kind == N_KEYWORD ? ty_lookup_base(v->key) : type_expr(ck, v);
                    if (!elem) return fail(ip, v, CV_E_SIZE, "unknown element type `%s`", show(ip, v));
                } else {
                    CVal c;
                    if (!num_arg(ip, v, &c)) return 0;
                    if (k->key[0] == 'l') {
                        if (c.k != CV_INT) return fail(ip, v, CV_E_SIZE, "vector length must be an integer");
                        len = c.i;
                    } else init = c;
                }
                continue;
            }
            Type *t = ty_lookup_base(k->key);
            if (t && !elem) elem = t;
            continue;
        }
        if (i == 1 && (k->kind == N_SYMBOL || k->kind == N_LIST) && !var_find(ip, k->kind == N_SYMBOL ? k->key : "")) {
            Sym *g = k->kind == N_SYMBOL ? global_lookup(ck, k->key) : NULL;
            if (!g || g->kind == SYM_TYPE) {
                int errs = ck->d->errors;
                Type *t = type_expr(ck, k);
                if (!t) {
                    if (ck->d->errors == errs) fail(ip, k, CV_E_SIZE, "unknown type `%s`", show(ip, k));
                    ip->failed = 1;
                    return 0;
                }
                if (t->kind == TY_VECTOR) {
                    elem = t->elem;
                    if (t->length >= 0) len = t->length;
                } else elem = t;
                continue;
            }
        }
        CVal c;
        if (!num_arg(ip, k, &c)) return 0;
        if (c.k != CV_INT) return fail(ip, k, CV_E_SIZE, "vector length must be an integer, found a float");
        len = c.i;
    }
    if (!elem) return fail(ip, x, CV_E_SIZE, "make-vector in a def-const-vec body needs an element type");
    if (!is_elem_type(elem))
        return fail(ip, x, CV_E_SIZE, "def-const-vec elements must be integer, float or double scalars, found `%s`",
                    ty_name(ck->a, elem));
    if (len < 0) return fail(ip, x, CV_E_SIZE, "make-vector in a def-const-vec body needs a length");
    CVec *v = new_vec(ip, x, elem, len);
    if (!v) return 0;
    if (init.k != CV_NONE)
        for (int64_t i = 0; i < len; i++)
            if (!elem_set(ip, x, v, i, init)) return 0;
    *out = (CVal){.k = CV_VEC, .v = v};
    return 1;
}

/* ---- views and copy-vec ---- */

/* A view's length or offset: a non-negative integer. */
static int view_count(Interp *ip, Node *x, const char *what, int64_t *out) {
    CVal c;
    if (!num_arg(ip, x, &c)) return 0;
    if (c.k != CV_INT) return fail(ip, x, CV_E_EVAL, "a view's %s must be an integer, found a float", what);
    if (c.i < 0 || c.i > CV_MAX_LENGTH)
        return fail(ip, x, CV_E_EVAL, "a view's %s must be 0 to %ld, found %lld", what, CV_MAX_LENGTH, (long long)c.i);
    *out = c.i;
    return 1;
}

static CVec *view_new(Interp *ip, const Node *at, CVec tmpl);

/* (make-vector-view PARENT LENGTH [OFFSET]): a window on PARENT, a vector
 * or a view (then on its root, the offsets added).  As at run time, the
 * window is checked against the parent when elements are used, not here. */
static int make_view(Interp *ip, Node *x, CVal *out) {
    if (x->nkids < 3 || x->nkids > 4) return fail(ip, x, CV_E_FORM, "expected (make-vector-view parent length [offset])");
    CVal p;
    int64_t len, off = 0;
    if (!ev(ip, x->kids[1], &p)) return 0;
    if (p.k != CV_VEC)
        return fail(ip, x->kids[1], CV_E_EVAL, "`make-vector-view` needs a vector, found %s", kind_word(p.k));
    if (!view_count(ip, x->kids[2], "length", &len)) return 0;
    if (x->nkids == 4 && !view_count(ip, x->kids[3], "offset", &off)) return 0;
    CVec *root = p.v->root ? p.v->root : p.v;
    CVec *v = view_new(ip, x, (CVec){.elem = p.v->elem, .n = len, .root = root, .off = off + (p.v->root ? p.v->off : 0),
                                     .boff = p.v->boff, .reint = p.v->reint});
    if (!v) return 0;
    *out = (CVal){.k = CV_VEC, .v = v};
    return 1;
}


/* A new view (counted against the limit) equal to TEMPLATE. */
static CVec *view_new(Interp *ip, const Node *at, CVec tmpl) {
    if (++ip->views > CV_MAX_VIEWS) {
        fail(ip, at, CV_E_SIZE, "this def-const-vec body makes more than %ld views", CV_MAX_VIEWS);
        return NULL;
    }
    CVec *v = arena_alloc(ip->ck->a, sizeof *v);
    if (!v) {
        fail(ip, at, CV_E_STEPS, "out of memory");
        return NULL;
    }
    *v = tmpl;
    return v;
}

/* (reinterpret-view SOURCE TYPE [:length N] [:offset K]) - spec "Creating
 * Vectors", reinterpret-view: SOURCE's bytes seen as TYPE elements, from
 * element K of the new type on; the length defaults to what fits.  Vectors
 * here are :compact (as emitted), so the :std140 alignment rule does not
 * arise; the bytes are little-endian, as on the devices OpenCL targets. */
static int reinterpret(Interp *ip, Node *x, CVal *out) {
    if (x->nkids < 3 || (x->nkids - 3) % 2)
        return fail(ip, x, CV_E_FORM, "expected (reinterpret-view source type [:length n] [:offset k])");
    CVal s;
    if (!ev(ip, x->kids[1], &s)) return 0;
    if (s.k != CV_VEC)
        return fail(ip, x->kids[1], CV_E_EVAL, "`reinterpret-view` needs a vector, found %s", kind_word(s.k));
    Node *tn = x->kids[2];
    if (syn_is_form(tn, "quote") && tn->nkids == 2) tn = tn->kids[1];
    int errs = ip->ck->d->errors;
    Type *et = type_expr(ip->ck, tn);
    if (!et) {
        if (ip->ck->d->errors == errs) fail(ip, tn, CV_E_REINT, "unknown type `%s`", show(ip, tn));
        ip->failed = 1;
        return 0;
    }
    if (!is_elem_type(et))
        return fail(ip, tn, CV_E_REINT,
                    "reinterpret-view in a def-const-vec body sees elements as integer, float or double scalars, not `%s`%s",
                    ty_name(ip->ck->a, et), et->kind == TY_STRUCT ? " (spec: the new type cannot be a struct)" : "");
    int64_t len = -1, off = 0;
    for (int i = 3; i + 1 < x->nkids; i += 2) {
        Node *k = x->kids[i];
        if (syn_is_kw(k, "length")) {
            if (!view_count(ip, x->kids[i + 1], "length", &len)) return 0;
        } else if (syn_is_kw(k, "offset")) {
            if (!view_count(ip, x->kids[i + 1], "offset", &off)) return 0;
        } else return fail(ip, k, CV_E_FORM, "reinterpret-view takes :length and :offset, found `%s`", show(ip, k));
    }
    CVec *sv = s.v, *root = sv->root ? sv->root : sv;
    int ssz = elem_size(sv->elem), nsz = elem_size(et);
    int64_t base = sv->reint ? reint_byte(sv, 0) : sv->root ? sv->off * elem_size(root->elem) : 0;
    if (len < 0) len = sv->n * ssz / nsz;
    CVec t = {.elem = et, .n = len, .root = root, .off = off, .boff = base, .reint = 1};
    if (ty_equal(et, root->elem) && base % nsz == 0) t = (CVec){.elem = et, .n = len, .root = root, .off = base / nsz + off};
    CVec *v = view_new(ip, x, t);
    if (!v) return 0;
    *out = (CVal){.k = CV_VEC, .v = v};
    return 1;
}

/* (parent~ VIEW) - spec "Vectors and Vector-View", Properties: the vector
 * VIEW looks into (views are flattened, so the root vector); a plain
 * vector is its own parent. */
static int parent_of(Interp *ip, Node *x, CVal *out) {
    if (x->nkids != 2) return fail(ip, x, CV_E_FORM, "expected (parent~ view)");
    CVal v;
    if (!ev(ip, x->kids[1], &v)) return 0;
    if (v.k != CV_VEC)
        return fail(ip, x->kids[1], CV_E_PARENT, "`parent~` needs a vector-view, found %s", kind_word(v.k));
    *out = (CVal){.k = CV_VEC, .v = v.v->root ? v.v->root : v.v};
    return 1;
}

/* (set! (parent~ VIEW) VECTOR) - spec "Settable Properties": VIEW now
 * looks into VECTOR, as at run time
 * (check_expr.c view_set_parent): a view's offset~ comes along, a plain
 * vector keeps VIEW's offset~.  The element types must agree. */
static int set_parent(Interp *ip, Node *place, CVal nv) {
    CVec *view = NULL;
    if (place->nkids != 2) return fail(ip, place, CV_E_FORM, "expected (parent~ view)");
    CVal v;
    if (!ev(ip, place->kids[1], &v)) return 0;
    if (v.k != CV_VEC || !v.v->root)
        return fail(ip, place->kids[1], CV_E_PARENT, "only a vector-view's parent~ can be set, `%s` is %s",
                    show(ip, place->kids[1]), v.k == CV_VEC ? "a vector" : kind_word(v.k));
    view = v.v;
    if (nv.k != CV_VEC) return fail(ip, place, CV_E_PARENT, "the new parent~ of `%s` must be a vector, found %s",
                                    show(ip, place->kids[1]), kind_word(nv.k));
    if (!ty_equal(nv.v->elem, view->elem))
        return fail(ip, place, CV_E_PARENT, "the new parent~ of `%s` must hold `%s`, found `%s`", show(ip, place->kids[1]),
                    ty_name(ip->ck->a, view->elem), ty_name(ip->ck->a, nv.v->elem));
    CVec *p = nv.v;
    view->root = p->root ? p->root : p;
    view->reint = p->reint;
    view->boff = p->boff;
    if (p->root) view->off = p->off;
    return 1;
}

/* (offset~ V) / (length~ V) as a place: the view V. */
static int view_place(Interp *ip, Node *place, CVec **view) {
    const char *h = syn_head(place);
    CVal v;
    if (place->nkids != 2) return fail(ip, place, CV_E_FORM, "expected (%s view)", h);
    if (!ev(ip, place->kids[1], &v)) return 0;
    if (v.k != CV_VEC || !v.v->root)
        return fail(ip, place->kids[1], CV_E_EVAL, "only a vector-view's %s can be set, `%s` is %s", h,
                    show(ip, place->kids[1]), v.k == CV_VEC ? "a vector" : kind_word(v.k));
    *view = v.v;
    return 1;
}

/* Where a copy-vec operand's elements live: its root and offset. */
static void flat(CVec *v, CVec **root, int64_t *off) {
    *root = v->root ? v->root : v;
    *off = v->root ? v->off : 0;
}

/* The byte of its root where V's element 0 is. */
static int64_t first_byte(const CVec *v) {
    if (v->reint) return reint_byte(v, 0);
    return v->root ? v->off * elem_size(v->root->elem) : 0;
}

/* (copy-vec :from SRC :to DST) or (copy-vec SRC DST): the first
 * min(length SRC, length DST) elements, converted to DST's element type as a
 * store converts them; overlapping windows copy as memmove does. */
static int copy_vec(Interp *ip, Node *x, CVal *out) {
    Node *src = NULL, *dst = NULL;
    int npos = 0;
    for (int i = 1; i < x->nkids; i++) {
        Node *k = x->kids[i];
        if (k->kind == N_KEYWORD && (!strcmp(k->key, "from") || !strcmp(k->key, "to"))) {
            if (i + 1 >= x->nkids) return fail(ip, k, CV_E_FORM, "`:%s` needs a vector", k->key);
            Node **slot = k->key[0] == 'f' ? &src : &dst;
            if (*slot) return fail(ip, k, CV_E_FORM, "`:%s` is given twice", k->key);
            *slot = x->kids[++i];
        } else if (k->kind == N_KEYWORD) {
            return fail(ip, k, CV_E_FORM, "unknown copy-vec keyword `:%s` (expected :from and :to)", k->key);
        } else {
            Node **slot = npos == 0 ? &src : &dst;
            if (npos++ >= 2 || *slot) return fail(ip, k, CV_E_FORM, "expected (copy-vec :from source :to destination)");
            *slot = k;
        }
    }
    if (!src || !dst) return fail(ip, x, CV_E_FORM, "expected (copy-vec :from source :to destination)");
    CVal s, d;
    if (!ev(ip, src, &s)) return 0;
    if (s.k != CV_VEC) return fail(ip, src, CV_E_EVAL, "`copy-vec` copies from a vector, found %s", kind_word(s.k));
    if (!ev(ip, dst, &d)) return 0;
    if (d.k != CV_VEC) return fail(ip, dst, CV_E_EVAL, "`copy-vec` copies to a vector, found %s", kind_word(d.k));
    int64_t n = s.v->n < d.v->n ? s.v->n : d.v->n;
    CVec *sr, *dr;
    int64_t unused;
    flat(s.v, &sr, &unused);
    flat(d.v, &dr, &unused);
    if (dr->name) return fail(ip, dst, CV_E_WRITE, "cannot write to the const-vec `%s`: const-vecs are read-only", dr->name);
    CVec sv = *s.v, dv = *d.v;
    sv.n = dv.n = n;
    if (!view_in_bounds(ip, src, &sv, "copy-vec source") || !view_in_bounds(ip, dst, &dv, "copy-vec destination")) return 0;
    ip->steps += n;
    if (ip->steps > CV_MAX_STEPS)
        return fail(ip, x, CV_E_STEPS, "def-const-vec `%s` ran for more than %ld steps (a runaway loop?)", ip->self->name,
                    CV_MAX_STEPS);
    int back = sr == dr && first_byte(d.v) > first_byte(s.v); /* as memmove */
    for (int64_t j = 0; j < n; j++) {
        int64_t k = back ? n - 1 - j : j;
        CVal e;
        if (!vec_get(ip, src, s.v, k, &e) || !vec_set(ip, x, x, d.v, k, e)) return 0;
    }
    *out = (CVal){.k = CV_NONE};
    return 1;
}

/* ---- forms ---- */

static int body(Interp *ip, Node **forms, int n, CVal *out) {
    *out = (CVal){.k = CV_NONE};
    for (int i = 0; i < n; i++) {
        if (syn_is_form(forms[i], "declare")) continue;
        if (!ev(ip, forms[i], out) || ip->returned) return !ip->failed;
    }
    return 1;
}

static int form_let(Interp *ip, Node *x, int sequential, CVal *out) {
    if (x->nkids < 2 || x->kids[1]->kind != N_LIST)
        return fail(ip, x, CV_E_FORM, "expected (%s ((var value)...) body...)", sequential ? "let*" : "let");
    Node *bl = x->kids[1];
    int mark = ip->nvars;
    CVar *pending = arena_alloc(ip->ck->a, sizeof(CVar) * (size_t)(bl->nkids + 1));
    if (!pending) return fail(ip, x, CV_E_STEPS, "out of memory");
    for (int i = 0; i < bl->nkids; i++) {
        Node *b = bl->kids[i], *name = b, *init = NULL;
        if (b->kind == N_LIST) {
            if (b->nkids < 1 || b->nkids > 2 || b->kids[0]->kind != N_SYMBOL)
                return fail(ip, b, CV_E_FORM, "expected (var value), found `%s`", show(ip, b));
            name = b->kids[0];
            init = b->nkids == 2 ? b->kids[1] : NULL;
        } else if (b->kind != N_SYMBOL) return fail(ip, b, CV_E_FORM, "expected a variable, found `%s`", show(ip, b));
        CVar v = {.key = name->key, .name = name->name};
        if (name->ann) {
            v.decl = type_expr(ip->ck, name->ann);
            if (!v.decl) return ip->failed = 1, 0;
            if (!is_elem_type(v.decl))
                return fail(ip, name->ann, CV_E_SIZE, "variables in a def-const-vec body hold numbers, found `%s`",
                            ty_name(ip->ck->a, v.decl));
        }
        CVal val = {.k = CV_INT, .i = 0};
        if (init) {
            if (!ev(ip, init, &val)) return 0;
            if (ip->returned) return fail(ip, init, CV_E_FORM, "`return` cannot be used in a binding");
            if (val.k == CV_NONE) return fail(ip, init, CV_E_EVAL, "`%s` has no value", show(ip, init));
        }
        if (v.decl) {
            if (!convert(ip, name, v.decl, val, &v.val)) return 0;
        } else v.val = val;
        if (sequential) {
            if (!var_push(ip, b, v)) return 0;
        } else pending[i] = v;
    }
    if (!sequential)
        for (int i = 0; i < bl->nkids; i++)
            if (!var_push(ip, bl->kids[i], pending[i])) return 0;
    int ok = body(ip, x->kids + 2, x->nkids - 2, out);
    ip->nvars = mark;
    return ok;
}

static int form_loop(Interp *ip, Node *x, CVal *out) {
    Node *spec = x->nkids >= 2 ? x->kids[1] : NULL;
    if (!spec || spec->kind != N_LIST || spec->nkids != 4 || spec->kids[0]->kind != N_SYMBOL)
        return fail(ip, x, CV_E_FORM, "malformed %%loop (expected (%%loop (var init test step) body...))");
    CVal init;
    if (!num_arg(ip, spec->kids[1], &init)) return 0;
    if (init.k != CV_INT) return fail(ip, spec->kids[1], CV_E_EVAL, "a loop index must be an integer");
    int mark = ip->nvars;
    if (!var_push(ip, spec->kids[0], (CVar){.key = spec->kids[0]->key, .name = spec->kids[0]->name, .val = init, .immutable = 1}))
        return 0;
    int slot = ip->nvars - 1;
    for (;;) {
        int go;
        if (!truthy(ip, spec->kids[2], &go)) return 0;
        if (!go) break;
        CVal ignored;
        if (!body(ip, x->kids + 2, x->nkids - 2, &ignored)) return 0;
        if (ip->returned) break;
        CVal step;
        if (!num_arg(ip, spec->kids[3], &step)) return 0;
        if (step.k != CV_INT) return fail(ip, spec->kids[3], CV_E_EVAL, "a loop step must be an integer");
        ip->vars[slot].val = step;
    }
    ip->nvars = mark;
    *out = (CVal){.k = CV_NONE};
    return 1;
}

/* (set! place value ...), (inc! place [d]), (dec! place [d]) */
static int assign(Interp *ip, Node *place, CVal v) {
    if (place->kind == N_SYMBOL) {
        CVar *var = var_find(ip, place->key);
        if (!var) {
            Sym *g = global_lookup(ip->ck, place->key);
            if (g && g->kind == SYM_CONSTVEC)
                return fail(ip, place, CV_E_WRITE, "cannot assign to the const-vec `%s`: const-vecs are read-only", g->name);
            return fail(ip, place, CV_E_EVAL, "`%s` is not a variable of this def-const-vec body", place->name);
        }
        if (var->immutable) return fail(ip, place, CV_E_EVAL, "`%s` is a loop index and cannot be assigned", var->name);
        return var_store(ip, place, var, v);
    }
    if (syn_is_form(place, "~") || syn_is_form(place, "~ref~")) {
        CVec *vec;
        int64_t i;
        if (!elem_ref(ip, place, &vec, &i)) return 0;
        return vec_set(ip, place, place->kids[2], vec, i, v);
    }
    const char *h = syn_head(place);
    if (h && (!strcmp(h, "parent~") || !strcmp(h, "~parent~"))) return set_parent(ip, place, v);
    if (h && (!strcmp(h, "offset~") || !strcmp(h, "~offset~") || !strcmp(h, "length~") || !strcmp(h, "~length~"))) {
        CVec *view = NULL;
        if (!view_place(ip, place, &view)) return 0;
        const char *what = strstr(h, "offset") ? "offset" : "length";
        if (v.k == CV_BOOL) v.k = CV_INT;
        if (v.k != CV_INT) return fail(ip, place, CV_E_EVAL, "a view's %s must be an integer, found %s", what, kind_word(v.k));
        if (v.uns || v.i < 0 || v.i > CV_MAX_LENGTH)
            return fail(ip, place, CV_E_EVAL, "a view's %s must be 0 to %ld, found %lld", what, CV_MAX_LENGTH, (long long)v.i);
        if (what[0] == 'o') view->off = v.i;
        else view->n = v.i;
        return 1;
    }
    return fail(ip, place, CV_E_FORM, "`%s` is not a place that can be assigned in a def-const-vec body", show(ip, place));
}

static int form_set(Interp *ip, Node *x, CVal *out) {
    if (x->nkids < 3 || (x->nkids - 1) % 2) return fail(ip, x, CV_E_FORM, "expected (set! place value ...)");
    for (int i = 1; i + 1 < x->nkids; i += 2) {
        CVal v;
        if (!ev(ip, x->kids[i + 1], &v)) return 0;
        if (ip->returned) return fail(ip, x, CV_E_FORM, "`return` cannot be used inside set!");
        if (!assign(ip, x->kids[i], v)) return 0;
        *out = v;
    }
    return 1;
}

static int form_incdec(Interp *ip, Node *x, CVal *out) {
    if (x->nkids < 2 || x->nkids > 3) return fail(ip, x, CV_E_FORM, "expected (%s place [amount])", x->kids[0]->name);
    CVal old, d = {.k = CV_INT, .i = 1}, r;
    if (!num_arg(ip, x->kids[1], &old)) return 0;
    if (x->nkids == 3 && !num_arg(ip, x->kids[2], &d)) return 0;
    if (!arith2(ip, x, x->kids[0]->key[0] == 'i' ? "+" : "-", old, d, &r)) return 0;
    if (!assign(ip, x->kids[1], r)) return 0;
    *out = r;
    return 1;
}

static int is_arith_op(const char *h) {
    static const char *ops[] = {"+", "-", "*", "/", "min", "max", "bit-and", "logand", "bit-or",
                                "logior", "bit-xor", "logxor", "ash", NULL};
    for (int i = 0; ops[i]; i++)
        if (!strcmp(h, ops[i])) return 1;
    return 0;
}

static int is_compare_op(const char *h) {
    static const char *ops[] = {"<", ">", "<=", ">=", "=", "==", "/=", "!=", NULL};
    for (int i = 0; ops[i]; i++)
        if (!strcmp(h, ops[i])) return 1;
    return 0;
}

static int math1(Interp *ip, Node *x, const char *h, CVal *out) {
    if (x->nkids != 2 && !(x->nkids == 3 && (!strcmp(h, "pow") || !strcmp(h, "expt") || !strcmp(h, "floor") ||
                                              !strcmp(h, "ceil") || !strcmp(h, "round") || !strcmp(h, "truncate"))))
        return fail(ip, x, CV_E_FORM, "wrong number of arguments to `%s`", h);
    CVal a, b = {.k = CV_NONE};
    if (!num_arg(ip, x->kids[1], &a)) return 0;
    if (x->nkids == 3 && !num_arg(ip, x->kids[2], &b)) return 0;
    if (!strcmp(h, "abs")) {
        if (a.k == CV_INT) {
            if (a.i == INT64_MIN) return fail(ip, x, CV_E_EVAL, "integer overflow in `%s`", show(ip, x));
            *out = (CVal){.k = CV_INT, .i = a.i < 0 ? -a.i : a.i};
        } else *out = (CVal){.k = CV_FLOAT, .f = fabs(a.f)};
        return 1;
    }
    if (!strcmp(h, "floor") || !strcmp(h, "ceil") || !strcmp(h, "round") || !strcmp(h, "truncate")) {
        if (b.k != CV_NONE) {
            /* two arguments: a division rounded that way (integer division) */
            if (a.k == CV_INT && b.k == CV_INT) {
                CVal q, r;
                if (!arith2(ip, x, "/", a, b, &q) || !arith2(ip, x, "rem", a, b, &r)) return 0;
                int neg = (r.i < 0) != (b.i < 0);
                if (r.i != 0) {
                    if (h[0] == 'f' && neg) q.i--;
                    else if (h[0] == 'c' && !neg) q.i++;
                    else if (h[0] == 'r') {
                        int64_t ar = r.i < 0 ? -r.i : r.i, ab = b.i < 0 ? -b.i : b.i;
                        if (ar > ab - ar) q.i += neg ? -1 : 1;
                    }
                }
                *out = q;
                return 1;
            }
            a = (CVal){.k = CV_FLOAT, .f = as_double(a) / as_double(b)};
        }
        if (a.k == CV_INT) {
            *out = a;
            return 1;
        }
        /* one float argument: an integer, rounding half to even for round */
        double r = h[0] == 'f' ? floor(a.f) : h[0] == 'c' ? ceil(a.f) : h[0] == 'r' ? nearbyint(a.f) : trunc(a.f);
        if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0))
            return fail(ip, x, CV_E_EVAL, "%g does not fit an integer in `%s`", a.f, show(ip, x));
        *out = (CVal){.k = CV_INT, .i = (int64_t)r};
        return 1;
    }
    double d = as_double(a), r;
    if (!strcmp(h, "sqrt")) r = sqrt(d);
    else if (!strcmp(h, "rsqrt")) r = 1.0 / sqrt(d);
    else if (!strcmp(h, "exp")) r = exp(d);
    else if (!strcmp(h, "log")) r = log(d);
    else if (!strcmp(h, "log2")) r = log2(d);
    else if (!strcmp(h, "sin")) r = sin(d);
    else if (!strcmp(h, "cos")) r = cos(d);
    else if (!strcmp(h, "tan")) r = tan(d);
    else if (!strcmp(h, "asin")) r = asin(d);
    else if (!strcmp(h, "acos")) r = acos(d);
    else if (!strcmp(h, "atan")) r = atan(d);
    else r = pow(d, as_double(b)); /* pow, expt */
    *out = (CVal){.k = CV_FLOAT, .f = r};
    return 1;
}

static int symbol(Interp *ip, Node *x, CVal *out) {
    const char *k = x->key;
    CVar *v = var_find(ip, k);
    if (v) {
        *out = v->val;
        return 1;
    }
    if (!strcmp(k, "t") || !strcmp(k, "true")) return *out = (CVal){.k = CV_BOOL, .i = 1}, 1;
    if (!strcmp(k, "nil") || !strcmp(k, "false")) return *out = (CVal){.k = CV_BOOL, .i = 0}, 1;
    Sym *s = global_lookup(ip->ck, k);
    if (!s) s = parameter_lookup(ip->ck, x);
    if (s && (s->kind == SYM_CONST || s->kind == SYM_PARAMETER)) {
        Node *c = global_const_value(ip->ck, s);
        if (!c) return ip->failed = 1, 0;
        if (c->kind == N_C_FLOATLIT) *out = (CVal){.k = CV_FLOAT, .f = c->fval};
        else if (c->kind == N_C_BOOLLIT) *out = (CVal){.k = CV_BOOL, .i = c->ival};
        else {
            int uns = c->ty && c->ty->kind == TY_NUM && c->ty->sc == SC_ULONG && c->ival < 0;
            *out = (CVal){.k = CV_INT, .i = c->ival, .uns = uns};
        }
        return 1;
    }
    if (s && s->kind == SYM_CONSTVEC) {
        int used = 0;
        for (int i = 0; i < ip->nuses; i++) used |= ip->uses[i] == s;
        if (s == ip->self)
            return fail(ip, x, CV_E_USE, "def-const-vec `%s` cannot read itself while it is being computed", s->name);
        if (!used)
            return fail(ip, x, CV_E_NOUSE, "def-const-vec `%s` reads the const-vec `%s` without declaring it: add (declare (use %s))",
                        ip->self->name, s->name, s->name);
        if (!s->cvec) return ip->failed = 1, 0; /* it failed and was reported */
        CVec *cv = arena_alloc(ip->ck->a, sizeof *cv);
        if (!cv) return fail(ip, x, CV_E_STEPS, "out of memory");
        *cv = (CVec){.elem = s->cvec->ty->elem, .n = s->cvec->ty->length, .iv = s->cvec->ivals, .fv = s->cvec->fvals,
                     .name = s->name};
        *out = (CVal){.k = CV_VEC, .v = cv};
        return 1;
    }
    if (s && s->kind == SYM_TYPE) return fail(ip, x, CV_E_EVAL, "`%s` is a type, not a value", s->name);
    return fail(ip, x, CV_E_EVAL, "unknown variable `%s` in a def-const-vec body", x->name);
}

/* How well V fits a parameter of type T: 0 not at all, 1 by a widening
 * (an integer to a float, a number to a bool), 2 its own kind. */
static int fits_param(const Type *t, CVal v) {
    if (!t) return 0;
    if (t->kind == TY_VECTOR) return v.k == CV_VEC && (!t->elem || ty_equal(t->elem, v.v->elem)) ? 2 : 0;
    if (t->kind == TY_BOOL) return v.k == CV_BOOL ? 2 : v.k == CV_INT ? 1 : 0;
    if (!is_elem_type(t) || v.k == CV_VEC || v.k == CV_NONE) return 0;
    if (v.k == CV_FLOAT) return ty_is_float(t) ? 2 : 0;
    return ty_is_float(t) ? 1 : 2;
}

/* (F ARG...) with F a def-function - spec "def-const-vec" ("think of it as
 * just a function"): F's body runs in the interpreter with its parameters
 * bound to the arguments, converted to their types, and sees nothing else
 * of the caller.  Positional number, bool and vector parameters; among
 * overloads the one whose parameters fit the arguments' kinds. */
static int call_function(Interp *ip, Node *x, CVal *out) {
    Checker *ck = ip->ck;
    const char *name = x->kids[0]->name;
    int n = x->nkids - 1;
    CVal args[32];
    if (n > 32) return fail(ip, x, CV_E_FORM, "`%s` is called with more than 32 arguments", name);
    for (int i = 0; i < n; i++) {
        if (!ev(ip, x->kids[i + 1], &args[i])) return 0;
        if (ip->returned) return fail(ip, x->kids[i + 1], CV_E_FORM, "`return` cannot be used inside an argument");
        if (args[i].k == CV_NONE) return fail(ip, x->kids[i + 1], CV_E_EVAL, "`%s` has no value", show(ip, x->kids[i + 1]));
    }
    FuncDef *c[64], *fd = NULL;
    int nc = func_overloads(ck, x->kids[0]->key, c, 64), nfit = 0, best = -1;
    for (int k = 0; k < nc; k++) {
        resolve_signature(ck, c[k]);
        if (c[k]->bad) return ip->failed = 1, 0; /* reported */
        if (c[k]->kind != FN_FUNCTION || c[k]->nparams != n) continue;
        int score = 0;
        for (int i = 0; i < n && score >= 0; i++) {
            int f = c[k]->params[i].mode == 0 && !c[k]->params[i].is_out ? fits_param(c[k]->params[i].ty, args[i]) : 0;
            score = f ? score + f : -1;
        }
        if (score < 0 || score < best) continue;
        nfit = score == best ? nfit + 1 : 1;
        best = score;
        fd = c[k];
    }
    if (nfit != 1)
        return fail(ip, x, CV_E_FORM,
                    "`%s` cannot be called in a def-const-vec body with these arguments (%s; a def-const-vec body calls "
                    "def-functions with positional number, bool and vector parameters)",
                    name, nfit ? "more than one overload fits" : "no definition fits");
    int mark = ip->nvars, frame = ip->frame;
    for (int i = 0; i < n; i++) {
        Type *t = fd->params[i].ty;
        CVar v = {.key = fd->params[i].name->key, .name = fd->params[i].name->name, .val = args[i]};
        if (t->kind == TY_BOOL) v.val = (CVal){.k = CV_BOOL, .i = args[i].i != 0};
        else if (t->kind != TY_VECTOR) {
            v.decl = t;
            if (!convert(ip, x->kids[i + 1], t, args[i], &v.val)) return 0;
        }
        if (!var_push(ip, x->kids[i + 1], v)) return 0;
    }
    ip->frame = mark;
    CVal r;
    /* the body's macros, expanded once (types are not needed: the
       interpreter works on values) */
    for (int i = 0; i < fd->nbody; i++) {
        Node *e = ck_expand_all(ip->ck, fd->body[i]);
        if (!e) return 0;
        fd->body[i] = e;
    }
    int ok = body(ip, fd->body, fd->nbody, &r);
    if (ip->returned) {
        r = ip->ret;
        ip->returned = 0;
    }
    ip->frame = frame;
    ip->nvars = mark;
    if (!ok || ip->failed) {
        diag_note(ck->d, x->loc, "in `%s`, called from this def-const-vec body", name);
        return 0;
    }
    Type *rt = fd->ret;
    if (!rt || rt->kind == TY_VOID) *out = (CVal){.k = CV_NONE};
    else if (rt->kind == TY_BOOL) {
        if (r.k != CV_BOOL && r.k != CV_INT) return fail(ip, x, CV_E_EVAL, "`%s` returned %s, not a bool", name, kind_word(r.k));
        *out = (CVal){.k = CV_BOOL, .i = r.i != 0};
    } else if (is_elem_type(rt)) {
        if (!convert(ip, x, rt, r, out)) return 0;
    } else {
        return fail(ip, x, CV_E_FORM, "`%s` returns `%s`, which a def-const-vec body cannot use (numbers and bools only)", name,
                    ty_name(ck->a, rt));
    }
    return 1;
}

static int call(Interp *ip, Node *x, CVal *out) {
    const char *h = syn_head(x);
    if (!h) return fail(ip, x, CV_E_FORM, "expected a form, found `%s`", show(ip, x));
    int n = x->nkids - 1;
    if (!strcmp(h, "let") || !strcmp(h, "let*")) return form_let(ip, x, h[3] == '*', out);
    if (!strcmp(h, "progn")) return body(ip, x->kids + 1, n, out);
    if (!strcmp(h, "if")) {
        if (n < 2 || n > 3) return fail(ip, x, CV_E_FORM, "expected (if test then [else])");
        int b;
        if (!truthy(ip, x->kids[1], &b)) return 0;
        if (b) return ev(ip, x->kids[2], out);
        if (n == 3) return ev(ip, x->kids[3], out);
        *out = (CVal){.k = CV_NONE};
        return 1;
    }
    if (!strcmp(h, "%loop")) return form_loop(ip, x, out);
    if (!strcmp(h, "return")) {
        if (n != 1) return fail(ip, x, CV_E_RESULT, "a def-const-vec returns exactly one vector: (return v)");
        CVal v;
        if (!ev(ip, x->kids[1], &v)) return 0;
        ip->ret = v;
        ip->returned = 1;
        *out = v;
        return 1;
    }
    if (!strcmp(h, "set!")) return form_set(ip, x, out);
    if (!strcmp(h, "inc!") || !strcmp(h, "dec!")) return form_incdec(ip, x, out);
    if (!strcmp(h, "~") || !strcmp(h, "~ref~")) {
        CVec *v;
        int64_t i;
        if (!elem_ref(ip, x, &v, &i)) return 0;
        return vec_get(ip, x->kids[2], v, i, out);
    }
    if (!strcmp(h, "parent~") || !strcmp(h, "~parent~")) return parent_of(ip, x, out);
    if (!strcmp(h, "reinterpret-view")) return reinterpret(ip, x, out);
    const char *prop = h[0] == '~' ? h + 1 : h; /* ~length~ is the raw length~ */
    if (!strcmp(prop, "length~") || !strcmp(prop, "offset~")) {
        int len = prop[0] == 'l';
        CVal v;
        if (n != 1) return fail(ip, x, CV_E_FORM, len ? "expected (length~ vector)" : "expected (offset~ view)");
        if (!ev(ip, x->kids[1], &v)) return 0;
        if (v.k != CV_VEC)
            return fail(ip, x->kids[1], CV_E_EVAL, "`%s` needs a %s, found %s", prop, len ? "vector" : "vector-view", kind_word(v.k));
        *out = (CVal){.k = CV_INT, .i = len ? v.v->n : v.v->root ? v.v->off : 0};
        return 1;
    }
    if (!strcmp(h, "make-vector")) return make_vector(ip, x, out);
    if (!strcmp(h, "make-vector-view")) return make_view(ip, x, out);
    if (!strcmp(h, "copy-vec")) return copy_vec(ip, x, out);
    if (!strcmp(h, "and") || !strcmp(h, "or")) {
        int want = h[0] == 'o', b = !want;
        for (int i = 1; i <= n && b != want; i++)
            if (!truthy(ip, x->kids[i], &b)) return 0;
        *out = (CVal){.k = CV_BOOL, .i = b};
        return 1;
    }
    if (!strcmp(h, "not")) {
        int b;
        if (n != 1) return fail(ip, x, CV_E_FORM, "expected (not x)");
        if (!truthy(ip, x->kids[1], &b)) return 0;
        *out = (CVal){.k = CV_BOOL, .i = !b};
        return 1;
    }
    if (is_arith_op(h)) {
        if (n < 1) return fail(ip, x, CV_E_FORM, "`%s` needs arguments", h);
        CVal acc;
        if (!num_arg(ip, x->kids[1], &acc)) return 0;
        if (n == 1) {
            if (!strcmp(h, "-") && acc.k == CV_FLOAT) return *out = (CVal){.k = CV_FLOAT, .f = -acc.f}, 1;
            if (!strcmp(h, "-")) return arith2(ip, x, "-", (CVal){.k = CV_INT, .i = 0}, acc, out);
            if (!strcmp(h, "/")) return arith2(ip, x, "/", (CVal){.k = CV_INT, .i = 1}, acc, out);
            *out = acc;
            return 1;
        }
        for (int i = 2; i <= n; i++) {
            CVal b;
            if (!num_arg(ip, x->kids[i], &b)) return 0;
            if (!arith2(ip, x, h, acc, b, &acc)) return 0;
        }
        *out = acc;
        return 1;
    }
    if (is_compare_op(h)) {
        if (n < 2) return fail(ip, x, CV_E_FORM, "`%s` needs two or more arguments", h);
        CVal a, b;
        int r = 1;
        if (!num_arg(ip, x->kids[1], &a)) return 0;
        for (int i = 2; i <= n; i++) {
            if (!num_arg(ip, x->kids[i], &b)) return 0;
            r = r && compare2(h, a, b);
            a = b;
        }
        *out = (CVal){.k = CV_BOOL, .i = r};
        return 1;
    }
    if (!strcmp(h, "lognot") || !strcmp(h, "bit-not")) {
        CVal a;
        if (n != 1) return fail(ip, x, CV_E_FORM, "expected (%s x)", h);
        if (!num_arg(ip, x->kids[1], &a)) return 0;
        if (a.k != CV_INT) return fail(ip, x, CV_E_EVAL, "`%s` needs an integer", h);
        *out = (CVal){.k = CV_INT, .i = ~a.i};
        return 1;
    }
    static const char *math[] = {"abs", "sqrt", "rsqrt", "exp", "log", "log2", "sin", "cos", "tan", "asin", "acos",
                                 "atan", "pow", "expt", "floor", "ceil", "round", "truncate", NULL};
    for (int i = 0; math[i]; i++)
        if (!strcmp(h, math[i])) return math1(ip, x, h, out);
    Type *t = !strncmp(h, "to-", 3) ? ty_lookup_base(x->kids[0]->key + 3) : NULL;
    if (t && t->kind == TY_NUM && n == 1) {
        /* (to-float x), (to-uchar x): C conversion */
        CVal a;
        if (!is_elem_type(t)) return fail(ip, x, CV_E_SIZE, "`%s` is not supported in a def-const-vec body", h);
        if (!num_arg(ip, x->kids[1], &a)) return 0;
        return convert(ip, x, t, a, out);
    }
    if (func_lookup(ip->ck, x->kids[0]->key)) return call_function(ip, x, out);
    if (hof_lookup(ip->ck, x->kids[0]->key) || template_lookup(ip->ck, x->kids[0]->key))
        return fail(ip, x, CV_E_FORM, "`%s` is not supported in a def-const-vec body (functions taking functions and "
                    "templated functions are not interpreted)", h);
    return fail(ip, x, CV_E_FORM, "`%s` is not supported in a def-const-vec body", h);
}

static int ev(Interp *ip, Node *x, CVal *out) {
    if (ip->failed || ip->ck->d->fatal) return 0;
    if (++ip->steps > CV_MAX_STEPS)
        return fail(ip, x, CV_E_STEPS, "def-const-vec `%s` ran for more than %ld steps (a runaway loop?)", ip->self->name,
                    CV_MAX_STEPS);
    switch (x->kind) {
    case N_INT:
        *out = (CVal){.k = CV_INT, .i = x->ival, .uns = x->is_unsigned && x->ival < 0};
        return 1;
    case N_FLOAT: *out = (CVal){.k = CV_FLOAT, .f = x->fval}; return 1;
    case N_SYMBOL: return symbol(ip, x, out);
    case N_LIST: {
        if (ip->depth >= CV_MAX_DEPTH)
            return fail(ip, x, CV_E_STEPS, "forms nested more than %d deep in a def-const-vec body", CV_MAX_DEPTH);
        ip->depth++;
        int ok = call(ip, x, out);
        ip->depth--;
        return ok && !ip->failed;
    }
    default:
        return fail(ip, x, CV_E_FORM, "`%s` is not supported in a def-const-vec body", show(ip, x));
    }
}

/* ---- entry points ---- */

/* Run the body of a def-const-vec (collected as Sym s, s->init the form). */
void constvec_eval(Checker *ck, Sym *s) {
    s->cv_done = 1;
    Node *form = ck_expand_all(ck, s->init);
    if (!form) return;
    s->init = form;
    Interp ip = {.ck = ck, .self = s};
    /* (declare (use A B ...)): the earlier const-vecs the body reads */
    Sym *uses[256];
    int nuses = 0;
    for (int i = 2; i < form->nkids && syn_is_form(form->kids[i], "declare"); i++) {
        Node *d = form->kids[i];
        for (int j = 1; j < d->nkids; j++) {
            Node *e = d->kids[j];
            if (!syn_is_form(e, "use")) {
                diag_warning_at(ck->d, e, "W0302", "unknown declaration `%s` ignored", syn_to_string(ck->a, e, 40));
                continue;
            }
            for (int k = 1; k < e->nkids; k++) {
                Node *nm = e->kids[k];
                Sym *u = nm->kind == N_SYMBOL ? global_lookup(ck, nm->key) : NULL;
                if (!u || u->kind != SYM_CONSTVEC) {
                    fail(&ip, nm, CV_E_USE, "(use %s): no def-const-vec named `%s` is defined", show(&ip, nm), show(&ip, nm));
                    return;
                }
                if (u == s || !u->cv_done) {
                    fail(&ip, nm, CV_E_USE, "(use %s): `%s` must be defined before `%s` (a def-const-vec can only use earlier ones)",
                         u->name, u->name, s->name);
                    return;
                }
                if (!u->cvec) return; /* it failed and was reported */
                if (nuses < 256) uses[nuses++] = u;
            }
        }
    }
    ip.uses = uses;
    ip.nuses = nuses;
    CVal v;
    if (!body(&ip, form->kids + 2, form->nkids - 2, &v) || ip.failed) return;
    if (ip.returned) v = ip.ret;
    if (v.k != CV_VEC) {
        diag_error_at(ck->d, form, CV_E_RESULT, "def-const-vec `%s` must return a vector, but its body returns %s", s->name,
                      kind_word(v.k));
        return;
    }
    if (v.v->root) {
        /* a view: its elements, copied out of its root */
        if (!view_in_bounds(&ip, form, v.v, "the returned view")) return;
        if (v.v->n < 1) {
            diag_error_at(ck->d, form, CV_E_SIZE, "def-const-vec `%s` returns an empty view; a const-vec needs 1 or more elements",
                          s->name);
            return;
        }
        CVec *fv = arena_alloc(ck->a, sizeof *fv);
        if (!fv) return;
        *fv = (CVec){.elem = v.v->elem, .n = v.v->n};
        if (ty_is_float(fv->elem)) fv->fv = arena_alloc(ck->a, sizeof(double) * (size_t)fv->n);
        else fv->iv = arena_alloc(ck->a, sizeof(int64_t) * (size_t)fv->n);
        if (!fv->fv && !fv->iv) return;
        for (int64_t i = 0; i < fv->n; i++) {
            CVal e;
            if (!vec_get(&ip, form, v.v, i, &e)) return;
            if (fv->fv) fv->fv[i] = e.f;
            else fv->iv[i] = e.i;
        }
        v.v = fv;
    }
    ConstVec *cv = arena_alloc(ck->a, sizeof *cv);
    if (!cv) return;
    cv->name = s->name;
    cv->def = form;
    cv->ty = ty_vector(ck->a, v.v->elem, AS_CONSTANT, ACC_READ_ONLY, AL_COMPACT, v.v->n);
    /* a copy: the body's vector may be a used const-vec or change no more */
    size_t n = (size_t)v.v->n;
    if (v.v->fv) {
        cv->fvals = arena_alloc(ck->a, sizeof(double) * n);
        if (!cv->fvals) return;
        memcpy(cv->fvals, v.v->fv, sizeof(double) * n);
    } else {
        cv->ivals = arena_alloc(ck->a, sizeof(int64_t) * n);
        if (!cv->ivals) return;
        memcpy(cv->ivals, v.v->iv, sizeof(int64_t) * n);
    }
    if (v.v->elem->sc == SC_DOUBLE) ck->prog->uses_fp64 = 1;
    s->cvec = cv;
    s->ty = cv->ty;
}

/* Does a kernel/function declare (use KEY)? */
static int declares_use(const FuncDef *fd, const char *key) {
    for (int i = 0; i < fd->ndecls; i++) {
        const Node *d = fd->decls[i];
        for (int j = 1; j < d->nkids; j++)
            if (syn_is_form(d->kids[j], "use"))
                for (int k = 1; k < d->kids[j]->nkids; k++)
                    if (d->kids[j]->kids[k]->kind == N_SYMBOL && !strcmp(d->kids[j]->kids[k]->key, key)) return 1;
    }
    return 0;
}

static void note_use(Ctx *cx, Sym *s) {
    CFunc *fn = cx->fn;
    for (int i = 0; i < fn->ncvuses; i++)
        if (fn->cvuses[i] == s) return;
    arena_push(cx->ck->a, (void ***)&fn->cvuses, &fn->ncvuses, &fn->capcvuses, s);
}

/* Is const-vec s readable here?  The kernel at the root of the call chain
 * must declare (use s).  Reports at `at` and returns 0 when not. */
static int use_ok(Ctx *cx, const Node *at, Sym *s, const char *via) {
    Checker *ck = cx->ck;
    FuncDef *root = ck->nstack ? ck->stack[0] : NULL;
    if (!root || root->kind != FN_KERNEL || declares_use(root, s->key)) return 1;
    if (via)
        diag_error_at(ck->d, at, CV_E_NOUSE,
                      "kernel `%s` calls `%s`, which reads the const-vec `%s`, but the kernel does not declare it: add (declare (use %s))",
                      root->name, via, s->name, s->name);
    else if (cx->fn->kind != FN_KERNEL)
        diag_error_at(ck->d, at, CV_E_NOUSE,
                      "`%s` reads the const-vec `%s`, but kernel `%s`, which calls it, does not declare it: add (declare (use %s)) to the kernel",
                      cx->fn->name, s->name, root->name, s->name);
    else
        diag_error_at(ck->d, at, CV_E_NOUSE,
                      "kernel `%s` reads the const-vec `%s` without declaring it: add (declare (use %s)) to the kernel",
                      root->name, s->name, s->name);
    return 0;
}

/* A const-vec named in kernel code: a reference to the __constant array. */
Node *constvec_ref(Ctx *cx, Node *syn, Sym *s) {
    if (!s->cvec) return NULL; /* its body failed and was reported */
    if (!use_ok(cx, syn, s, NULL)) return NULL;
    note_use(cx, s);
    return var_ref(cx, syn, s);
}

/* After a call to function instance f: the caller reads what f reads.  A
 * reused instance was checked under another kernel, so check it again. */
void constvec_call(Ctx *cx, CFunc *f, const Node *call, int reused) {
    for (int i = 0; i < f->ncvuses; i++) {
        if (reused && !use_ok(cx, call, f->cvuses[i], f->name)) return;
        note_use(cx, f->cvuses[i]);
    }
}

/* (declare (use NAME...)) in a kernel or function: every NAME a def-const-vec. */
void constvec_decl(Ctx *cx, Node *e) {
    for (int k = 1; k < e->nkids; k++) {
        Node *nm = e->kids[k];
        Sym *s = nm->kind == N_SYMBOL ? global_lookup(cx->ck, nm->key) : NULL;
        if (!s || s->kind != SYM_CONSTVEC)
            diag_error_at(cx->ck->d, nm, CV_E_USE, "(use %s): no def-const-vec named `%s` is defined",
                          syn_to_string(cx->ck->a, nm, 40), syn_to_string(cx->ck->a, nm, 40));
    }
}

/* Writing to a const-vec from kernel code. */
void constvec_write_error(Ctx *cx, const Node *at, Sym *s) {
    diag_error_at(cx->ck->d, at, CV_E_WRITE, "cannot write to the const-vec `%s`: const-vecs are read-only", s->name);
}
