/* consteval.c - the constant evaluator: checked code run by the compiler.
 *
 * Why it exists: the compiler needs values while it compiles - def-const
 * values, vector lengths, literal arithmetic folded in place, and the
 * vectors def-const-vec bodies compute (spec "def-const-vec": the body is
 * "just a function" run at compile time).  One interpreter of the checked
 * tree serves all of them, so a constant means the same thing wherever it
 * is computed, and the same thing as on the device: every operation is done
 * in the type the checker gave it, with C's conversions and OpenCL's rules.
 * What C leaves undefined is an error here (docs/language.md "Compile-time
 * evaluation"): a signed result its type cannot hold, division by zero, a
 * shift count outside the type, an index outside its vector.  Unsigned
 * arithmetic wraps, as C defines it.
 *
 * Memory is bytes: a vector is an object of little-endian element images;
 * a vector value is a pointer (object, byte offset) whose type gives the
 * element type, exactly as in the emitted C, so views, reinterpret-views
 * and function parameters need nothing of their own.  Variables live in a
 * frame per call, keyed by their C name (the emitted C guarantees that no
 * two live variables of a function share one).
 *
 * Every run is bounded: evaluated nodes (steps), elements allocated, the
 * length of one vector and nesting, so a runaway body ends with a
 * diagnostic, never a hang. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consteval.h"

/* Diagnostic codes (docs/language.md "def-const-vec", "Compile-time
 * evaluation"). */
#define CE_E_FORM "E0180"     /* a form a compile-time body cannot run        */
#define CE_E_STEPS "E0183"    /* step or nesting limit                        */
#define CE_E_SIZE "E0184"     /* vector length, allocation, element type      */
#define CE_E_EVAL "E0186"     /* bounds, views, conversions                   */
#define CE_E_WRITE "E0187"    /* writing to a const-vec                       */
#define CE_E_SHIFT "E0316"    /* shift count outside the type                 */
#define CE_E_DIVZERO "E0319"  /* division by zero                             */
#define CE_E_OVERFLOW "E0321" /* integer overflow                             */

/* Handlers kept out of eval's frame: the evaluator recurses through it. */
#define NOINLINE __attribute__((noinline))

#define CE_CONST_STEPS (1L << 20) /* a constant expression: small */

typedef struct CeSlot {
    const char *key;        /* the variable's C name (pointer identity) */
    CeVal v;
} CeSlot;

typedef struct CeFrame {
    CeSlot *slots;          /* open addressing on `key` */
    int n, cap;
    const CFunc *fn;        /* the function running here */
    const Node *call;       /* the call that made the frame (NULL: the top) */
    struct CeFrame *up;
    CeVal ret;              /* the value of its `return` */
} CeFrame;

typedef enum Flow { F_NEXT, F_BREAK, F_RETURN, F_FAIL } Flow;

typedef struct Ce {
    Checker *ck;
    int run;                /* running a compile-time function (else: a constant) */
    int report;             /* errors are reported (else: "not a constant") */
    int exact;              /* integer arithmetic exact in 64 bits */
    long steps, max_steps;
    int64_t total;          /* elements allocated */
    int depth;
    int failed;             /* an error happened (reported when `report`) */
    int unknown;            /* not a constant: nothing reported */
    const char *what;       /* "def-const-vec `+t+`", for messages */
    const Node *loop;       /* the innermost loop running */
    CeFrame *fr;
    CeObj *objs;
    PtrMap cvobjs;          /* const-vec Sym -> its CeObj */
    PtrMap callees;         /* call node -> CFunc */
} Ce;

static int eval(Ce *ce, const Node *n, CeVal *out);
static Flow exec(Ce *ce, const Node *n);

/* ------------------------------------------------------------------ */
/* errors                                                              */

#define LIVE(ce) (!(ce)->failed && !(ce)->unknown && !(ce)->ck->d->fatal)

static int ce_error(Ce *ce, const Node *at, const char *code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int ce_error(Ce *ce, const Node *at, const char *code, const char *fmt, ...) {
    if (!LIVE(ce)) return 0;
    ce->failed = 1;
    if (!ce->report) return 0;
    char msg[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (at) diag_error_at(ce->ck->d, at, code, "%s", msg);
    else diag_error(ce->ck->d, (SrcLoc){0}, NULL, code, "%s", msg);
    return 0;
}

/* The head of the form written at N's location ("get-global-id" for the
 * call the checker made of `(get-global-id 0)`), or FALLBACK. */
static const char *source_name(Ce *ce, const Node *n, const char *fallback) {
    const SrcFile *f = n ? srcloc_file(n->loc) : NULL;
    if (!f || !f->text || n->loc.line < 1 || n->loc.col < 1) return fallback;
    const char *p = f->text, *end = f->text + f->len;
    for (int line = 1; p < end && line < n->loc.line; p++)
        if (*p == '\n') line++;
    if (end - p < n->loc.col) return fallback;
    p += n->loc.col - 1;
    if (*p != '(') return fallback;
    const char *s = ++p;
    while (p < end && !isspace((unsigned char)*p) && *p != '(' && *p != ')') p++;
    if (p == s || p - s > 60) return fallback;
    return arena_strndup(ce->ck->a, s, (size_t)(p - s));
}

/* Something the evaluator cannot run: in a constant expression it is just
 * not a constant; in a compile-time body an error (E0180). */
static NOINLINE int unsupported(Ce *ce, const Node *at, const char *what) {
    if (!LIVE(ce)) return 0;
    if (!ce->run) {
        ce->unknown = 1;
        return 0;
    }
    return ce_error(ce, at, CE_E_FORM, "`%s` is not supported in a def-const-vec body", source_name(ce, at, what));
}

static int out_of_memory(Ce *ce, const Node *at) {
    return ce_error(ce, at, CE_E_SIZE, "out of memory while running %s", ce->what);
}

/* One unit of work; 0 after the step limit (reported at the loop running). */
static int step(Ce *ce, const Node *n) {
    if (!LIVE(ce)) return 0;
    if (++ce->steps <= ce->max_steps) return 1;
    if (!ce->run) {
        ce->unknown = 1;
        return 0;
    }
    return ce_error(ce, ce->loop ? ce->loop : n, CE_E_STEPS,
                    "%s ran for more than %ld steps (a runaway loop?); if it needs more, raise its limit with "
                    "(declare (max-steps N)), N up to %ld",
                    ce->what, ce->max_steps, CE_MAX_STEPS);
}

/* ------------------------------------------------------------------ */
/* types and values                                                    */

/* Enumerations are ints; everything else as it is. */
static const Type *scalar_of(const Type *t) {
    return t && t->kind == TY_ENUM ? ty_num(SC_INT) : t;
}

static int is_int_type(const Type *t) {
    t = scalar_of(t);
    return t && t->kind == TY_NUM && ty_scalar_info(t->sc)->cat != CAT_FLOAT;
}

static int is_float_type(const Type *t) {
    return t && t->kind == TY_NUM && ty_scalar_info(t->sc)->cat == CAT_FLOAT;
}

static int is_signed_type(const Type *t) {
    t = scalar_of(t);
    return t && t->kind == TY_NUM && ty_scalar_info(t->sc)->cat == CAT_SIGNED;
}

/* Bits of an integer type; 64 for every type in exact arithmetic. */
static int width_of(const Ce *ce, const Type *t) {
    if (ce && ce->exact) return 64;
    t = scalar_of(t);
    return t->kind == TY_BOOL ? 1 : ty_scalar_info(t->sc)->size * 8;
}

/* Bytes of one element of type T in memory. */
static int elem_size(const Type *t) {
    t = scalar_of(t);
    if (t->kind == TY_BOOL) return 1;
    return t->kind == TY_NUM ? ty_scalar_info(t->sc)->size : ty_sizeof(t);
}

/* U cut to W bits, sign- (SGN) or zero-extended again. */
static uint64_t fit(uint64_t u, int w, int sgn) {
    if (w >= 64) return u;
    uint64_t m = (UINT64_C(1) << w) - 1;
    u &= m;
    if (sgn && (u >> (w - 1))) u |= ~m;
    return u;
}

/* U cut to W bits of type T. */
static uint64_t fit_bits(const Type *t, int w, uint64_t u) {
    return w >= 64 ? u : fit(u, w, is_signed_type(t));
}

static int64_t smin(int w) { return w >= 64 ? INT64_MIN : -(INT64_C(1) << (w - 1)); }
static int64_t smax(int w) { return w >= 64 ? INT64_MAX : (INT64_C(1) << (w - 1)) - 1; }

static CeVal int_val(const Type *t, uint64_t u) {
    return (CeVal){.k = CE_INT, .ty = t, .u = u};
}

static CeVal bool_val(int b) {
    return (CeVal){.k = CE_BOOL, .ty = &ty_bool, .u = b != 0};
}

static CeVal float_val(const Type *t, double d) {
    if (t->sc == SC_FLOAT) d = (double)(float)d;
    return (CeVal){.k = CE_FLOAT, .ty = t, .f = d};
}

static int truth(const CeVal *v) {
    if (v->k == CE_FLOAT) return v->f != 0;
    if (v->k == CE_PTR) return v->obj != NULL;
    return v->u != 0;
}

static double as_double(const CeVal *v) {
    if (v->k == CE_FLOAT) return v->f;
    return is_signed_type(v->ty) ? (double)(int64_t)v->u : (double)v->u;
}

/* Is T signed here?  Exact (literal-only) arithmetic is done in long, or
 * in ulong for an unsigned literal. */
static int signed_in(const Ce *ce, const Type *t) {
    return ce->exact ? scalar_of(t)->sc != SC_ULONG : is_signed_type(t);
}

/* A value for messages. */
static const char *show(Ce *ce, const CeVal *v) {
    switch (v->k) {
    case CE_INT:
        return signed_in(ce, v->ty) ? arena_printf(ce->ck->a, "%lld", (long long)(int64_t)v->u)
                                     : arena_printf(ce->ck->a, "%llu", (unsigned long long)v->u);
    case CE_FLOAT: return arena_printf(ce->ck->a, "%g", v->f);
    case CE_BOOL: return v->u ? "true" : "false";
    default: return "?";
    }
}

static const char *ce_tname(Ce *ce, const Type *t) {
    return ty_name(ce->ck->a, t);
}

/* V converted to type TO as C converts (integers modulo 2^bits, floats
 * rounded); a float is truncated toward zero only where C would (and must
 * then fit).  Vectors: the same pointer seen with TO's element type. */
static int convert(Ce *ce, const Node *at, const Type *to, CeVal v, CeVal *out) {
    if (v.ty == to && v.k != CE_PTR && !ce->exact) { /* already that type (scalars are interned) */
        *out = v;
        return 1;
    }
    if (!to || to->kind == TY_VOID || to->kind == TY_TUPLE) {
        *out = v;
        return 1;
    }
    const Type *s = scalar_of(to);
    if (s->kind == TY_BOOL) {
        if (v.k == CE_NONE) return ce_error(ce, at, CE_E_EVAL, "this has no value to convert to `bool`");
        *out = bool_val(truth(&v));
        return 1;
    }
    if (s->kind == TY_VECTOR) {
        if (v.k != CE_PTR) return ce_error(ce, at, CE_E_EVAL, "a vector is needed here");
        *out = v;
        out->ty = to;
        return 1;
    }
    if (s->kind != TY_NUM) return unsupported(ce, at, s->kind == TY_STRUCT ? "structs" : s->kind == TY_HWVEC ? "hardware vectors" : "this value");
    if (v.k != CE_INT && v.k != CE_FLOAT && v.k != CE_BOOL)
        return ce_error(ce, at, CE_E_EVAL, "a number is needed for `%s`, found %s", ce_tname(ce, to),
                        v.k == CE_PTR ? "a vector" : "no value");
    if (s->sc == SC_HALF || s->sc == SC_BFLOAT16) return unsupported(ce, at, ty_num_name(s));
    if (is_float_type(s)) {
        *out = float_val(s, as_double(&v));
        out->ty = to;
        return 1;
    }
    int w = width_of(ce, s);
    uint64_t u;
    if (v.k == CE_FLOAT) {
        double t = trunc(v.f);
        int ok = is_signed_type(s) ? t >= -ldexp(1, w - 1) && t < ldexp(1, w - 1) : t >= 0 && t < ldexp(1, w);
        if (!ok) return ce_error(ce, at, CE_E_EVAL, "%g does not fit in `%s`", v.f, ce_tname(ce, to));
        u = is_signed_type(s) ? (uint64_t)(int64_t)t : (uint64_t)t;
    } else {
        u = v.u;
    }
    *out = int_val(to, fit_bits(s, w, u));
    return 1;
}

/* C's common type of two operands: integer promotion (below int to int),
 * then the wider type, unsigned winning a tie. */
static const Type *common_type(const Type *a, const Type *b) {
    a = scalar_of(a);
    b = scalar_of(b);
    if (a->kind == TY_BOOL) a = ty_num(SC_INT);
    if (b->kind == TY_BOOL) b = ty_num(SC_INT);
    if (a->kind != TY_NUM || b->kind != TY_NUM) return a;
    if (is_float_type(a) || is_float_type(b)) {
        if (!is_float_type(a)) return b;
        if (!is_float_type(b)) return a;
        return ty_scalar_info(a->sc)->size >= ty_scalar_info(b->sc)->size ? a : b;
    }
    if (ty_scalar_info(a->sc)->size < 4) a = ty_num(SC_INT);
    if (ty_scalar_info(b->sc)->size < 4) b = ty_num(SC_INT);
    const ScalarInfo *ia = ty_scalar_info(a->sc), *ib = ty_scalar_info(b->sc);
    if (ia->size != ib->size) return ia->size > ib->size ? a : b;
    return ia->cat == CAT_UNSIGNED ? a : b;
}

/* ---- memory ---- */

static CeObj *new_obj(Ce *ce, const Node *at, const Type *elem, int64_t n) {
    if (n < 1 || n > CE_MAX_LENGTH) {
        ce_error(ce, at, CE_E_SIZE, "a def-const-vec vector needs 1 to %ld elements, found %lld (the limit cannot be raised: "
                 "a const-vec is a __constant array, and devices promise only 64 KB of constant memory)",
                 CE_MAX_LENGTH, (long long)n);
        return NULL;
    }
    if (ce->total + n > CE_MAX_TOTAL) {
        ce_error(ce, at, CE_E_SIZE,
                 "%s allocates more than %ld elements in all (vectors made in a loop count each time; the limit cannot be raised)",
                 ce->what, CE_MAX_TOTAL);
        return NULL;
    }
    int sz = elem_size(elem);
    CeObj *o = calloc(1, sizeof *o);
    unsigned char *b = o ? calloc((size_t)n, (size_t)sz) : NULL;
    if (!b) {
        free(o);
        out_of_memory(ce, at);
        return NULL;
    }
    ce->total += n;
    o->elem = elem;
    o->n = n;
    o->nbytes = n * sz;
    o->bytes = b;
    o->next = ce->objs;
    ce->objs = o;
    return o;
}

void ce_release(CeObj *objs) {
    while (objs) {
        CeObj *next = objs->next;
        free(objs->bytes);
        free(objs);
        objs = next;
    }
}

/* The little-endian image of V (of type T) at P. */
static void encode(const Type *t, const CeVal *v, unsigned char *p) {
    t = scalar_of(t);
    int sz = elem_size(t);
    uint64_t u;
    if (t->kind == TY_NUM && t->sc == SC_FLOAT) {
        float f = (float)v->f;
        uint32_t w;
        memcpy(&w, &f, 4);
        u = w;
    } else if (t->kind == TY_NUM && t->sc == SC_DOUBLE) {
        memcpy(&u, &v->f, 8);
    } else {
        u = v->u;
    }
    for (int k = 0; k < sz; k++) p[k] = (unsigned char)(u >> (8 * k));
}

/* The value of type T whose image is at P. */
static CeVal decode(const Type *t, const unsigned char *p) {
    const Type *s = scalar_of(t);
    int sz = elem_size(s);
    uint64_t u = 0;
    for (int k = 0; k < sz; k++) u |= (uint64_t)p[k] << (8 * k);
    if (s->kind == TY_BOOL) return bool_val(u != 0);
    if (s->sc == SC_FLOAT) {
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, 4);
        return (CeVal){.k = CE_FLOAT, .ty = t, .f = f};
    }
    if (s->sc == SC_DOUBLE) {
        double d;
        memcpy(&d, &u, 8);
        return (CeVal){.k = CE_FLOAT, .ty = t, .f = d};
    }
    return int_val(t, fit_bits(s, sz * 8, u));
}

/* Element types a compile-time vector may hold. */
static int storable(const Type *t) {
    t = scalar_of(t);
    return t && (t->kind == TY_BOOL || (t->kind == TY_NUM && t->sc != SC_HALF && t->sc != SC_BFLOAT16));
}

/* The object holding const-vec S's values (read-only). */
static CeObj *constvec_obj(Ce *ce, const Node *at, Sym *s) {
    CeObj *o = ptrmap_get(&ce->cvobjs, s);
    if (o) return o;
    const ConstVec *cv = sym_rare(s)->cvec;
    if (!cv) {
        ce->failed = 1; /* its body failed, and that was reported */
        return NULL;
    }
    const Type *et = cv->ty->elem;
    int sz = elem_size(et);
    o = calloc(1, sizeof *o);
    unsigned char *b = o ? calloc((size_t)cv->ty->length, (size_t)sz) : NULL;
    if (!b || !ptrmap_put(ce->ck->a, &ce->cvobjs, s, o)) {
        free(b);
        free(o);
        out_of_memory(ce, at);
        return NULL;
    }
    o->elem = et;
    o->n = cv->ty->length;
    o->nbytes = o->n * sz;
    o->bytes = b;
    o->name = s->name;
    o->next = ce->objs;
    ce->objs = o;
    for (int64_t i = 0; i < o->n; i++) {
        CeVal v = cv->fvals ? float_val(et, cv->fvals[i]) : int_val(et, (uint64_t)cv->ivals[i]);
        encode(et, &v, b + i * sz);
    }
    return o;
}

/* ------------------------------------------------------------------ */
/* variables                                                           */

static unsigned slot_hash(const char *key) {
    uint64_t x = (uint64_t)(uintptr_t)key;
    x ^= x >> 29;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    return (unsigned)(x ^ (x >> 32));
}

static CeSlot *slot_find(CeFrame *f, const char *key) {
    if (!f->cap || !key) return NULL;
    unsigned m = (unsigned)f->cap - 1;
    for (unsigned i = slot_hash(key) & m;; i = (i + 1) & m) {
        if (f->slots[i].key == key) return &f->slots[i];
        if (!f->slots[i].key) return NULL;
    }
}

/* Set KEY to V in frame F (creating the variable). */
static int slot_set(Ce *ce, const Node *at, CeFrame *f, const char *key, CeVal v) {
    if (!key) return ce_error(ce, at, CE_E_EVAL, "a variable without a name");
    CeSlot *s = slot_find(f, key);
    if (s) {
        s->v = v;
        return 1;
    }
    if ((f->n + 1) * 2 > f->cap) {
        int nc = f->cap ? f->cap * 2 : 16;
        CeSlot *ns = calloc((size_t)nc, sizeof *ns);
        if (!ns) return out_of_memory(ce, at);
        for (int i = 0; i < f->cap; i++) {
            if (!f->slots[i].key) continue;
            unsigned j = slot_hash(f->slots[i].key) & (unsigned)(nc - 1);
            while (ns[j].key) j = (j + 1) & (unsigned)(nc - 1);
            ns[j] = f->slots[i];
        }
        free(f->slots);
        f->slots = ns;
        f->cap = nc;
    }
    unsigned j = slot_hash(key) & (unsigned)(f->cap - 1);
    while (f->slots[j].key) j = (j + 1) & (unsigned)(f->cap - 1);
    f->slots[j].key = key;
    f->slots[j].v = v;
    f->n++;
    return 1;
}

/* The value of variable S in the running frame. */
static int var_get(Ce *ce, const Node *at, const Sym *s, CeVal *out) {
    CeSlot *sl = slot_find(ce->fr, s->cname);
    if (sl) {
        *out = sl->v;
        return 1;
    }
    if (!ce->run) {
        ce->unknown = 1; /* a variable of the code around a constant */
        return 0;
    }
    return ce_error(ce, at, CE_E_EVAL, "`%s` has no value in %s", s->name, ce->what);
}

static int int_of(Ce *ce, const Node *at, const CeVal *v, int64_t *out) {
    if (v->k == CE_INT || v->k == CE_BOOL) {
        if (!is_signed_type(v->ty) && v->k == CE_INT && (int64_t)v->u < 0)
            return ce_error(ce, at, CE_E_EVAL, "%llu is too large here", (unsigned long long)v->u);
        *out = (int64_t)v->u;
        return 1;
    }
    return ce_error(ce, at, CE_E_EVAL, "an integer is needed here");
}

static int var_int(Ce *ce, const Node *at, const Sym *s, int64_t *out) {
    CeVal v;
    return var_get(ce, at, s, &v) && int_of(ce, at, &v, out);
}

/* ------------------------------------------------------------------ */
/* arithmetic                                                          */

#define OP_ABS_CALL (-1) /* overflow(): the operation is (abs a) */

/* A OP B as a message shows it: + - * / infix, as the source reads in
 * arithmetic; a shift as the ash that makes it; the others as the
 * operation's Crisp name, (bit-and a b), (rem a b). */
static const char *op_shown(Ce *ce, const char *a, int op, const char *b) {
    if (op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_DIV)
        return arena_printf(ce->ck->a, "%s %s %s", a, check_op_name(op), b);
    if (op == OP_SHL || op == OP_SHR) return arena_printf(ce->ck->a, "(ash %s %s%s)", a, op == OP_SHR ? "-" : "", b);
    return arena_printf(ce->ck->a, "(%s %s %s)", check_op_name(op), a, b);
}

static int overflow(Ce *ce, const Node *at, const CeVal *a, int op, const CeVal *b, const Type *t) {
    /* exact (literal-only) arithmetic is done in long, or ulong for an
       unsigned literal */
    if (ce->exact) t = ty_num(scalar_of(t)->sc == SC_ULONG ? SC_ULONG : SC_LONG);
    const char *in = arena_printf(ce->ck->a, "`%s`", ce_tname(ce, t));
    if (!b && op == OP_ABS_CALL)
        return ce_error(ce, at, CE_E_OVERFLOW, "integer overflow: `(abs %s)` does not fit in %s", show(ce, a), in);
    if (!b) {
        const char *sa = show(ce, a);
        return ce_error(ce, at, CE_E_OVERFLOW, sa[0] == '-' ? "integer overflow: `%s(%s)` does not fit in %s"
                                                             : "integer overflow: `%s%s` does not fit in %s",
                        check_op_name(op), sa, in);
    }
    return ce_error(ce, at, CE_E_OVERFLOW, "integer overflow: `%s` does not fit in %s", op_shown(ce, show(ce, a), op, show(ce, b)),
                    in);
}

/* A OP B for the integer operators, in type T (or exactly, in 64 bits). */
static int int_arith(Ce *ce, const Node *at, int op, CeVal a, CeVal b, const Type *t, CeVal *out) {
    const ScalarInfo *si = ty_scalar_info(scalar_of(t)->sc);
    int w = ce->exact ? 64 : si->size * 8, sgn = si->cat == CAT_SIGNED;
    if (ce->exact) sgn = signed_in(ce, t);
    if (op == OP_SHL || op == OP_SHR) {
        if (!convert(ce, at, t, a, &a)) return 0;
        int64_t c = (int64_t)b.u;
        if ((!is_signed_type(b.ty) && (int64_t)b.u < 0) || c < 0 || c >= w)
            return ce_error(ce, at, CE_E_SHIFT, "shift count %s is out of range for `%s` (0 to %d)", show(ce, &b),
                            ce_tname(ce, t), w - 1);
        uint64_t r;
        if (op == OP_SHR) {
            r = sgn ? (uint64_t)((int64_t)a.u >> c) : a.u >> c;
        } else if (sgn) {
            int64_t x = (int64_t)a.u;
            if (x > (smax(w) >> c) || x < (smin(w) >> c)) return overflow(ce, at, &a, op, &b, t);
            r = (uint64_t)x << c;
        } else {
            r = a.u << c;
            if (ce->exact && (r >> c) != a.u) return overflow(ce, at, &a, op, &b, t);
        }
        *out = int_val(t, fit(r, w, sgn));
        return 1;
    }
    if ((a.ty != t && !convert(ce, at, t, a, &a)) || (b.ty != t && !convert(ce, at, t, b, &b))) return 0;
    if ((op == OP_DIV || op == OP_MOD) && b.u == 0)
        return ce_error(ce, at, CE_E_DIVZERO, "division by zero: `%s`", op_shown(ce, show(ce, &a), op, "0"));
    uint64_t r = 0;
    if (sgn) {
        int64_t x = (int64_t)a.u, y = (int64_t)b.u, v = 0;
        int ov = 0;
        switch (op) {
        case OP_ADD: ov = __builtin_add_overflow(x, y, &v); break;
        case OP_SUB: ov = __builtin_sub_overflow(x, y, &v); break;
        case OP_MUL: ov = __builtin_mul_overflow(x, y, &v); break;
        case OP_DIV:
        case OP_MOD:
            /* the quotient of MIN / -1 does not fit: C leaves both undefined */
            if (x == smin(w) && y == -1) ov = 1;
            else v = op == OP_DIV ? x / y : x % y;
            break;
        case OP_BAND: v = x & y; break;
        case OP_BOR: v = x | y; break;
        case OP_BXOR: v = x ^ y; break;
        default: return unsupported(ce, at, check_op_name(op));
        }
        if (ov || v < smin(w) || v > smax(w)) return overflow(ce, at, &a, op, &b, t);
        r = (uint64_t)v;
    } else {
        uint64_t x = a.u, y = b.u;
        int ov = 0;
        switch (op) {
        case OP_ADD: ov = __builtin_add_overflow(x, y, &r); break;
        case OP_SUB: ov = __builtin_sub_overflow(x, y, &r); break;
        case OP_MUL: ov = __builtin_mul_overflow(x, y, &r); break;
        case OP_DIV: r = x / y; break;
        case OP_MOD: r = x % y; break;
        case OP_BAND: r = x & y; break;
        case OP_BOR: r = x | y; break;
        case OP_BXOR: r = x ^ y; break;
        default: return unsupported(ce, at, check_op_name(op));
        }
        /* unsigned arithmetic wraps (C defines it); literal-only arithmetic
           is exact */
        if (ce->exact && ov) return overflow(ce, at, &a, op, &b, t);
    }
    *out = int_val(t, fit(r, w, sgn));
    return 1;
}

/* A OP B for + - * / in floating type T (computed in double, rounded). */
static int float_arith(Ce *ce, const Node *at, int op, CeVal a, CeVal b, const Type *t, CeVal *out) {
    if (!convert(ce, at, t, a, &a) || !convert(ce, at, t, b, &b)) return 0;
    double x = a.f, y = b.f, r;
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    case OP_DIV: r = x / y; break;
    default: return unsupported(ce, at, check_op_name(op));
    }
    *out = float_val(scalar_of(t), r);
    out->ty = t;
    return 1;
}

static int arith(Ce *ce, const Node *at, int op, CeVal a, CeVal b, const Type *t, CeVal *out) {
    const Type *s = scalar_of(t);
    if (s->kind == TY_BOOL) s = t = ty_num(SC_INT);
    if (is_float_type(s)) return float_arith(ce, at, op, a, b, t, out);
    if (is_int_type(s)) return int_arith(ce, at, op, a, b, t, out);
    return unsupported(ce, at, s->kind == TY_HWVEC ? "hardware vectors" : "this operation");
}

static NOINLINE int compare(Ce *ce, const Node *at, int op, CeVal a, CeVal b, CeVal *out) {
    int c;
    if (a.k == CE_INT && b.k == CE_INT && a.ty == b.ty && ty_scalar_info(scalar_of(a.ty)->sc)->size >= 4) {
        /* the usual case: one integer type, no promotion */
        if (is_signed_type(a.ty)) c = (int64_t)a.u < (int64_t)b.u ? -1 : (int64_t)a.u > (int64_t)b.u;
        else c = a.u < b.u ? -1 : a.u > b.u;
        goto done;
    }
    if (a.k == CE_PTR || b.k == CE_PTR) {
        if (op != OP_EQ && op != OP_NE) return unsupported(ce, at, "comparing vectors");
        int same = a.k == b.k && a.obj == b.obj && a.off == b.off;
        *out = bool_val(op == OP_EQ ? same : !same);
        return 1;
    }
    const Type *t = common_type(a.ty, b.ty);
    if (!convert(ce, at, t, a, &a) || !convert(ce, at, t, b, &b)) return 0;
    if (a.k == CE_FLOAT) {
        if (isnan(a.f) || isnan(b.f)) {
            *out = bool_val(op == OP_NE);
            return 1;
        }
        c = a.f < b.f ? -1 : a.f > b.f;
    } else if (is_signed_type(t)) {
        c = (int64_t)a.u < (int64_t)b.u ? -1 : (int64_t)a.u > (int64_t)b.u;
    } else {
        c = a.u < b.u ? -1 : a.u > b.u;
    }
done:;
    int r = op == OP_LT ? c < 0 : op == OP_GT ? c > 0 : op == OP_LE ? c <= 0 : op == OP_GE ? c >= 0 : op == OP_EQ ? c == 0 : c != 0;
    *out = bool_val(r);
    return 1;
}

static int is_compare(int op) {
    return op == OP_LT || op == OP_GT || op == OP_LE || op == OP_GE || op == OP_EQ || op == OP_NE;
}

static int binary(Ce *ce, const Node *n, CeVal *out) {
    CeVal a, b;
    int op = n->op;
    if (n->nkids != 2) return unsupported(ce, n, "this operation");
    if (op == OP_AND || op == OP_OR) {
        if (!eval(ce, n->kids[0], &a)) return 0;
        if (truth(&a) == (op == OP_OR)) {
            *out = bool_val(op == OP_OR);
            return 1;
        }
        if (!eval(ce, n->kids[1], &b)) return 0;
        *out = bool_val(truth(&b));
        return 1;
    }
    if (!eval(ce, n->kids[0], &a) || !eval(ce, n->kids[1], &b)) return 0;
    if (n->ty && n->ty->kind == TY_VECTOR) {
        /* pointer arithmetic: a view's first element */
        int64_t k;
        if (a.k != CE_PTR || (op != OP_ADD && op != OP_SUB) || !int_of(ce, n, &b, &k)) return unsupported(ce, n, "this pointer arithmetic");
        int sz = elem_size(n->kids[0]->ty->elem);
        int64_t bytes, off;
        if (k == INT64_MIN || __builtin_mul_overflow(op == OP_ADD ? k : -k, (int64_t)sz, &bytes) ||
            __builtin_add_overflow(a.off, bytes, &off))
            return ce_error(ce, n, CE_E_EVAL, "a view at offset %lld is outside its vector", (long long)k);
        *out = a;
        out->off = off;
        out->len = -1;
        out->ty = n->ty;
        return 1;
    }
    if (is_compare(op)) return compare(ce, n, op, a, b, out);
    return arith(ce, n, op, a, b, n->ty, out);
}

static NOINLINE int unary(Ce *ce, const Node *n, CeVal *out) {
    const Node *k = n->kids[0];
    if (n->op == OP_ADDR) {
        if (k->kind != N_C_VAR || !k->sym) return unsupported(ce, n, "taking this address");
        *out = (CeVal){.k = CE_REF, .ty = n->ty, .fr = ce->fr, .var = k->sym->cname};
        return 1;
    }
    CeVal a;
    if (!eval(ce, k, &a)) return 0;
    switch (n->op) {
    case OP_NOT: *out = bool_val(!truth(&a)); return 1;
    case OP_DEREF: {
        CeSlot *s = a.k == CE_REF ? slot_find(a.fr, a.var) : NULL;
        if (!s) return unsupported(ce, n, "this pointer");
        *out = s->v;
        return 1;
    }
    case OP_NEG: {
        const Type *t = n->ty;
        if (is_float_type(scalar_of(t))) {
            if (!convert(ce, n, t, a, &a)) return 0;
            *out = a;
            out->f = -a.f;
            return 1;
        }
        if (!is_int_type(t) || !convert(ce, n, t, a, &a)) return is_int_type(t) ? 0 : unsupported(ce, n, "this operation");
        int w = width_of(ce, t);
        if (signed_in(ce, t)) {
            if ((int64_t)a.u == smin(w)) return overflow(ce, n, &a, OP_NEG, NULL, t);
            *out = int_val(t, (uint64_t) - (int64_t)a.u);
        } else {
            if (ce->exact && a.u) return overflow(ce, n, &a, OP_NEG, NULL, t);
            *out = int_val(t, fit_bits(scalar_of(t), w, 0 - a.u));
        }
        return 1;
    }
    case OP_BNOT:
        if (!is_int_type(n->ty)) return unsupported(ce, n, "this operation");
        if (!convert(ce, n, n->ty, a, &a)) return 0;
        *out = int_val(n->ty, fit_bits(scalar_of(n->ty), width_of(ce, n->ty), ~a.u));
        return 1;
    default: return unsupported(ce, n, check_op_name(n->op));
    }
}

/* ---- conversions ---- */

/* Round X to an integer as MODE (CAST_RTZ ... CAST_RTE) says. */
static double round_as(int mode, double x) {
    switch (mode) {
    case CAST_RTN: return floor(x);
    case CAST_RTP: return ceil(x);
    case CAST_RTE: {
        double r = floor(x), d = x - r;
        if (d > 0.5 || (d == 0.5 && fmod(r, 2.0) != 0)) r += 1;
        return r;
    }
    default: return trunc(x);
    }
}

static NOINLINE int cast(Ce *ce, const Node *n, CeVal *out) {
    CeVal a;
    if (!eval(ce, n->kids[0], &a)) return 0;
    switch (n->op) {
    case CAST_VALUE: return convert(ce, n, n->ty, a, out);
    case CAST_RTZ:
    case CAST_RTN:
    case CAST_RTP:
    case CAST_RTE: {
        if (!is_int_type(n->ty)) return unsupported(ce, n, "hardware vectors");
        if (a.k != CE_FLOAT) return convert(ce, n, n->ty, a, out);
        double r = round_as(n->op, a.f);
        CeVal v = float_val(ty_num(SC_DOUBLE), r);
        int w = width_of(ce, n->ty);
        int ok = is_signed_type(n->ty) ? r >= -ldexp(1, w - 1) && r < ldexp(1, w - 1) : r >= 0 && r < ldexp(1, w);
        if (!ok) return ce_error(ce, n, CE_E_EVAL, "%g does not fit in `%s` after rounding", a.f, ce_tname(ce, n->ty));
        return convert(ce, n, n->ty, v, out);
    }
    case CAST_BITS: {
        if (!storable(n->ty) || !storable(a.ty) || elem_size(n->ty) != elem_size(a.ty)) return unsupported(ce, n, "this reinterpretation");
        unsigned char b[8] = {0};
        encode(a.ty, &a, b);
        *out = decode(n->ty, b);
        return 1;
    }
    case CAST_CONVERT: return unsupported(ce, n, "hardware vectors");
    default: return unsupported(ce, n, "structs");
    }
}

/* ------------------------------------------------------------------ */
/* vectors                                                             */

/* Load or store (STORE non-NULL) one element of type ET at byte BYTE of
 * the memory P points into. */
static int access(Ce *ce, const Node *at, const CeVal *p, int64_t byte, const Type *et, CeVal *out, const CeVal *store) {
    if (!p->obj) return ce_error(ce, at, CE_E_EVAL, "this vector has no memory");
    if (byte < 0 || byte > p->obj->nbytes - elem_size(et))
        return ce_error(ce, at, CE_E_EVAL, "bytes %lld to %lld are outside their vector, which has %lld bytes", (long long)byte,
                        (long long)(byte + elem_size(et) - 1), (long long)p->obj->nbytes);
    if (!store) {
        *out = decode(et, p->obj->bytes + byte);
        return 1;
    }
    if (p->obj->name)
        return ce_error(ce, at, CE_E_WRITE, "cannot write to the const-vec `%s`: const-vecs are read-only", p->obj->name);
    CeVal v;
    if (!convert(ce, at, et, *store, &v)) return 0;
    encode(et, &v, p->obj->bytes + byte);
    if (out) *out = v;
    return 1;
}

/* Is byte B of P's memory, as an element of ET, element B / size of a
 * vector of ET (a plain view), rather than bytes of another type? */
static int plain_view(const CeVal *p, const Type *et) {
    return p->obj && ty_equal(scalar_of(p->obj->elem), scalar_of(et)) && p->off % elem_size(et) == 0;
}

/* The window of N elements at P lies in its memory?  (copy-vec operands,
 * a view as a body's value.)  WHAT names it in the message. */
static int window_ok(Ce *ce, const Node *at, const CeVal *p, int64_t n, const char *what) {
    const Type *et = p->ty->elem;
    int sz = elem_size(et);
    /* (p->off + n * sz <= nbytes, without overflow for absurd offsets) */
    if (n == 0 || (p->off >= 0 && p->off <= p->obj->nbytes && n > 0 && n <= (p->obj->nbytes - p->off) / sz)) return 1;
    if (plain_view(p, et))
        return ce_error(ce, at, CE_E_EVAL, "%s: a view of length %lld at offset %lld reaches past the end of its parent (%lld elements)",
                        what, (long long)n, (long long)(p->off / sz), (long long)p->obj->n);
    return ce_error(ce, at, CE_E_EVAL, "%s: a reinterpret-view of %lld `%s` at byte %lld reaches past the end of its parent (%lld bytes)",
                    what, (long long)n, ce_tname(ce, et), (long long)p->off, (long long)p->obj->nbytes);
}

/* The memory element N (a C_INDEX) designates: *P its vector's pointer,
 * *BYTE the element's first byte.  Indices are checked against the view or
 * vector (E0186 at the index) and then against the memory. */
static NOINLINE int index_loc(Ce *ce, const Node *n, CeVal *p, int64_t *byte) {
    const Node *b = n->kids[0], *ix = n->kids[1];
    if (n->op == INDEX_PADDED) return unsupported(ce, n, ":std140 vectors");
    if (!eval(ce, b, p)) return 0;
    if (p->k != CE_PTR || !p->obj) return ce_error(ce, b, CE_E_EVAL, "`~` needs a vector here");
    const Sym *vs = b->kind == N_C_VAR ? b->sym : NULL;
    const Type *et = n->ty;
    int64_t i, len = -1, voff = 0;
    int view = 0;
    const Node *iat = ix;
    CeVal iv;
    if (vs && sym_rare(vs)->off_sym && ix->kind == N_C_BINARY && ix->op == OP_ADD && ix->kids[0]->kind == N_C_VAR &&
        ix->kids[0]->sym == sym_rare(vs)->off_sym) {
        /* a view: element i of the view is root[offset + i] (ck_index_node) */
        view = 1;
        iat = ix->kids[1];
        if (!var_int(ce, ix, sym_rare(vs)->off_sym, &voff)) return 0;
        if (sym_rare(vs)->len_sym && !var_int(ce, ix, sym_rare(vs)->len_sym, &len)) return 0;
    } else if (vs && sym_rare(vs)->len_sym) {
        if (!var_int(ce, ix, sym_rare(vs)->len_sym, &len)) return 0;
    } else {
        len = vs && vs->ty && vs->ty->length >= 0 ? vs->ty->length : p->len;
    }
    if (!eval(ce, iat, &iv)) return 0;
    if (iat->kind == N_C_CAST && iat->nkids == 1) iat = iat->kids[0];
    int huge = iv.k == CE_INT && !is_signed_type(iv.ty) && (int64_t)iv.u < 0;
    if (iv.k != CE_INT && iv.k != CE_BOOL) return ce_error(ce, iat, CE_E_EVAL, "a vector index must be an integer");
    i = (int64_t)iv.u;
    if (huge || i < 0 || (len >= 0 && i >= len))
        return ce_error(ce, iat, CE_E_EVAL, "index %s is out of bounds for a %s of length %lld", show(ce, &iv), view ? "view" : "vector",
                        (long long)len);
    int sz = elem_size(et);
    int64_t at_elem, at_byte;
    if (__builtin_add_overflow(voff, i, &at_elem) || __builtin_mul_overflow(at_elem, (int64_t)sz, &at_byte) ||
        __builtin_add_overflow(at_byte, p->off, byte))
        *byte = -1; /* far past any parent: reported below */
    if (*byte >= 0 && *byte + sz <= p->obj->nbytes) return 1;
    if (plain_view(p, et)) {
        int64_t off = p->off / sz + voff;
        return ce_error(ce, iat, CE_E_EVAL, "index %lld of a view at offset %lld is element %lld of its parent, which has only %lld elements",
                        (long long)i, (long long)off, (long long)(off + i), (long long)p->obj->n);
    }
    return ce_error(ce, iat, CE_E_EVAL, "index %lld of a reinterpret-view at offset %lld is bytes %lld to %lld of its parent, which has only %lld bytes",
                    (long long)i, (long long)voff, (long long)*byte, (long long)(*byte + sz - 1), (long long)p->obj->nbytes);
}

/* The vector variable N as the pointer to its first element with its
 * length (a view's offset applied). */
static int vector_value(Ce *ce, const Node *n, CeVal *out) {
    if (!eval(ce, n, out)) return 0;
    if (out->k != CE_PTR || !out->obj) return ce_error(ce, n, CE_E_EVAL, "a vector is needed here");
    const Sym *s = n->kind == N_C_VAR ? n->sym : NULL;
    if (!s) return 1;
    int64_t v;
    if (sym_rare(s)->off_sym) {
        if (!var_int(ce, n, sym_rare(s)->off_sym, &v)) return 0;
        out->off += v * elem_size(out->ty->elem);
    }
    if (sym_rare(s)->len_sym) {
        if (!var_int(ce, n, sym_rare(s)->len_sym, &v)) return 0;
        out->len = v;
    } else if (s->ty && s->ty->length >= 0) {
        out->len = s->ty->length;
    }
    return 1;
}

static NOINLINE int length(Ce *ce, const Node *n, CeVal *out) {
    const Sym *s = n->sym;
    int64_t len = -1;
    if (!s) return unsupported(ce, n, "length~");
    if (sym_rare(s)->len_sym) {
        if (!var_int(ce, n, sym_rare(s)->len_sym, &len)) return 0;
    } else if (s->ty && s->ty->length >= 0) {
        len = s->ty->length;
    } else if (s->kind == SYM_CONSTVEC && sym_rare(s)->cvec) {
        len = sym_rare(s)->cvec->ty->length;
    } else {
        CeVal v;
        if (!var_get(ce, n, s, &v)) return 0;
        len = v.k == CE_PTR ? v.len : -1;
        if (len < 0) return ce_error(ce, n, CE_E_EVAL, "the length of `%s` is not known here", s->name);
    }
    *out = int_val(ty_num(SC_ULONG), (uint64_t)len);
    return 1;
}

/* (copy-vec SRC SRC-LEN DST DST-LEN): min of the lengths, converted as a
 * store converts, overlapping windows as memmove. */
static int copy_vec(Ce *ce, const Node *n, CeVal *out) {
    CeVal s, d, sl, dl;
    int64_t ns, nd;
    if (n->nkids != 4 || !eval(ce, n->kids[0], &s) || !eval(ce, n->kids[1], &sl) || !eval(ce, n->kids[2], &d) ||
        !eval(ce, n->kids[3], &dl))
        return LIVE(ce) ? unsupported(ce, n, "copy-vec") : 0;
    if (s.k != CE_PTR || d.k != CE_PTR || !int_of(ce, n, &sl, &ns) || !int_of(ce, n, &dl, &nd)) return 0;
    int64_t cnt = ns < nd ? ns : nd;
    if (!window_ok(ce, n->kids[0], &s, cnt, "copy-vec source") || !window_ok(ce, n->kids[2], &d, cnt, "copy-vec destination"))
        return 0;
    if (d.obj->name && cnt > 0)
        return ce_error(ce, n->kids[2], CE_E_WRITE, "cannot write to the const-vec `%s`: const-vecs are read-only", d.obj->name);
    ce->steps += cnt; /* each element copied is a step */
    if (!step(ce, n)) return 0;
    const Type *st = s.ty->elem, *dt = d.ty->elem;
    int ss = elem_size(st), ds = elem_size(dt);
    if (ty_equal(scalar_of(st), scalar_of(dt))) {
        memmove(d.obj->bytes + d.off, s.obj->bytes + s.off, (size_t)(cnt * ss));
    } else {
        int back = s.obj == d.obj && d.off > s.off;
        for (int64_t j = 0; j < cnt; j++) {
            int64_t k = back ? cnt - 1 - j : j;
            CeVal e;
            if (!access(ce, n->kids[0], &s, s.off + k * ss, st, &e, NULL) ||
                !access(ce, n, &d, d.off + k * ds, dt, NULL, &e))
                return 0;
        }
    }
    *out = (CeVal){.k = CE_NONE};
    return 1;
}

/* ------------------------------------------------------------------ */
/* calls                                                               */

/* The function instance a BI_CALL names (its C name). */
static const CFunc *callee(Ce *ce, const Node *n) {
    const CFunc *f = ptrmap_get(&ce->callees, n);
    if (f || !n->text) return f;
    Checker *ck = ce->ck;
    for (int i = 0; i < ck->nfuncs && !f; i++)
        for (int j = 0; j < ck->funcs[i]->ninsts && !f; j++)
            if (ck->funcs[i]->insts[j]->consteval && syn_streq(ck->funcs[i]->insts[j]->cname, n->text)) f = ck->funcs[i]->insts[j];
    if (f) ptrmap_put(ck->a, &ce->callees, n, (void *)f);
    return f;
}

static void frame_free(CeFrame *f) {
    free(f->slots);
    f->slots = NULL;
    f->cap = f->n = 0;
}

/* The arguments of call N bound to F's parameters in the new frame NF. */
static int bind_args(Ce *ce, const Node *n, const CFunc *f, CeFrame *nf) {
    int k = 0;
    for (int i = 0; i < f->nparams; i++) {
        const Sym *p = f->params[i];
        if (p->ty->kind == TY_IDENT) continue;
        if (sym_ndims(p) || sym_rare(p)->soa_fields) return unsupported(ce, n, "tensor-view and soa-vector parameters");
        if (k >= n->nkids) return unsupported(ce, n, f->name);
        CeVal v;
        if (p->ty->kind == TY_VECTOR) {
            CeVal len;
            int64_t l;
            if (k + 1 >= n->nkids || !eval(ce, n->kids[k], &v) || !eval(ce, n->kids[k + 1], &len) || !int_of(ce, n, &len, &l)) return 0;
            if (v.k != CE_PTR) return ce_error(ce, n->kids[k], CE_E_EVAL, "a vector is needed here");
            v.len = l;
            v.ty = p->ty;
            k += 2;
        } else {
            CeVal a;
            if (!eval(ce, n->kids[k], &a) || !convert(ce, n->kids[k], p->ty, a, &v)) return 0;
            k++;
        }
        if (!slot_set(ce, n, nf, p->cname, v)) return 0;
    }
    if (cfunc_rare(f)->nfsides || cfunc_rare(f)->debug) return unsupported(ce, n, "side channels");
    if (f->ret->kind == TY_TUPLE)
        for (int i = 1; i < f->ret->nelems; i++) {
            CeVal r;
            if (k >= n->nkids || !eval(ce, n->kids[k++], &r)) return LIVE(ce) ? unsupported(ce, n, f->name) : 0;
            if (!slot_set(ce, n, nf, f->retptrs[i - 1]->cname, r)) return 0;
        }
    return 1;
}

static int ce_user_call(Ce *ce, const Node *n, CeVal *out) {
    if (!ce->run) return unsupported(ce, n, "a function call");
    const CFunc *f = callee(ce, n);
    if (!f) return unsupported(ce, n, n->text ? n->text : "this call");
    CeFrame nf = {.fn = f, .call = n, .up = ce->fr};
    int ok = bind_args(ce, n, f, &nf);
    Flow fl = F_FAIL;
    if (ok) {
        CeFrame *saved = ce->fr;
        const Node *saved_loop = ce->loop;
        ce->fr = &nf;
        ce->loop = NULL;
        fl = exec(ce, f->body);
        ce->fr = saved;
        ce->loop = saved_loop;
    }
    if (fl == F_FAIL || !LIVE(ce)) {
        if (ce->failed && ce->report && ok)
            diag_note(ce->ck->d, n->loc, "in `%s`, called from %s", f->name,
                      ce->fr->call ? arena_printf(ce->ck->a, "`%s` here", ce->fr->fn->name) : "this def-const-vec body");
        frame_free(&nf);
        return 0;
    }
    Type *rt = f->ret->kind == TY_TUPLE ? f->ret->elems[0] : f->ret;
    if (rt->kind != TY_VOID && fl != F_RETURN) {
        frame_free(&nf);
        return ce_error(ce, n, CE_E_EVAL, "`%s` ended without returning a value", f->name);
    }
    *out = rt->kind == TY_VOID ? (CeVal){.k = CE_NONE} : nf.ret;
    frame_free(&nf);
    return 1;
}

/* (floor a b) and friends as the emitted helpers compute them: quotient
 * and remainder, the remainder stored through REF. */
static int division(Ce *ce, const Node *n, HelperKind k, const Type *t, CeVal *out) {
    CeVal a, b, ref;
    if (n->nkids != 3 || !eval(ce, n->kids[0], &a) || !eval(ce, n->kids[1], &b) || !eval(ce, n->kids[2], &ref)) return 0;
    CeVal q, r;
    if (!int_arith(ce, n, OP_DIV, a, b, t, &q) || !int_arith(ce, n, OP_MOD, a, b, t, &r) || !convert(ce, n, t, b, &b)) return 0;
    int w = width_of(ce, t);
    if (is_signed_type(t)) {
        int64_t qi = (int64_t)q.u, ri = (int64_t)r.u, bi = (int64_t)b.u;
        if (k == H_FLOOR_DIV && ri != 0 && ((ri < 0) != (bi < 0))) qi -= 1, ri += bi;
        else if (k == H_CEIL_DIV && ri != 0 && ((ri > 0) == (bi > 0))) qi += 1, ri -= bi;
        else if (k == H_ROUND_DIV && ri != 0) {
            int64_t ar = ri < 0 ? -ri : ri, ab = bi < 0 ? -bi : bi;
            if (ar > ab - ar || (ar == ab - ar && qi % 2 != 0)) {
                if ((ri < 0) == (bi < 0)) qi += 1, ri -= bi;
                else qi -= 1, ri += bi;
            }
        }
        q = int_val(t, fit_bits(scalar_of(t), w, (uint64_t)qi));
        r = int_val(t, fit_bits(scalar_of(t), w, (uint64_t)ri));
    } else {
        uint64_t qu = q.u, ru = r.u, bu = b.u;
        if (k == H_CEIL_DIV && ru != 0) qu += 1, ru -= bu;
        else if (k == H_ROUND_DIV && ru != 0 && (ru > bu - ru || (ru == bu - ru && qu % 2 != 0))) qu += 1, ru -= bu;
        q = int_val(t, fit_bits(scalar_of(t), w, qu));
        r = int_val(t, fit_bits(scalar_of(t), w, ru));
    }
    CeSlot *s = ref.k == CE_REF ? slot_find(ref.fr, ref.var) : NULL;
    if (!s) return unsupported(ce, n, "this division");
    s->v = r;
    *out = q;
    return 1;
}

static int helper(Ce *ce, const Node *n, CeVal *out) {
    Program *p = ce->ck->prog;
    if (n->ival < 0 || n->ival >= p->nhelpers) return unsupported(ce, n, "this operation");
    const Helper *h = p->helpers[n->ival];
    switch (h->kind) {
    case H_FLOOR_DIV:
    case H_CEIL_DIV:
    case H_ROUND_DIV: return division(ce, n, h->kind, h->ty, out);
    case H_POW2_BELOW: {
        CeVal a;
        if (n->nkids != 1 || !eval(ce, n->kids[0], &a) || !convert(ce, n, ty_num(SC_ULONG), a, &a)) return 0;
        uint64_t x = a.u, r = 0;
        if (x > 1) r = UINT64_C(1) << (63 - __builtin_clzll(x - 1));
        *out = int_val(ty_num(SC_ULONG), r);
        return 1;
    }
    default: return unsupported(ce, n, "this device operation");
    }
}

/* abs, min, max, clamp and the math functions, in the call's type. */
static int builtin(Ce *ce, const Node *n, CeVal *out) {
    CeVal a[3];
    const Type *t = n->ty;
    int op = n->op;
    int nargs = op == BI_CLAMP ? 3 : op == BI_MIN || op == BI_MAX || op == BI_POW || op == BI_ATAN2 ? 2 : 1;
    if (op >= BI_GLOBAL_ID_ABS || op < BI_ABS) return unsupported(ce, n, builtin_op_name(op));
    if (n->nkids != nargs || !ty_is_num(scalar_of(t))) return unsupported(ce, n, builtin_op_name(op));
    for (int i = 0; i < nargs; i++)
        if (!eval(ce, n->kids[i], &a[i]) || !convert(ce, n->kids[i], t, a[i], &a[i])) return 0;
    int fl = is_float_type(scalar_of(t)), sg = is_signed_type(t);
#define LESS(x, y) (fl ? (x).f < (y).f : sg ? (int64_t)(x).u < (int64_t)(y).u : (x).u < (y).u)
    switch (op) {
    case BI_ABS:
    case BI_FABS:
        if (fl) {
            *out = float_val(scalar_of(t), fabs(a[0].f));
        } else if (sg && (int64_t)a[0].u < 0) {
            if ((int64_t)a[0].u == smin(width_of(ce, t))) return overflow(ce, n, &a[0], OP_ABS_CALL, NULL, t);
            *out = int_val(t, (uint64_t) - (int64_t)a[0].u);
        } else {
            *out = a[0];
        }
        out->ty = t;
        return 1;
    case BI_MIN: *out = LESS(a[1], a[0]) ? a[1] : a[0]; return 1;
    case BI_MAX: *out = LESS(a[0], a[1]) ? a[1] : a[0]; return 1;
    case BI_CLAMP: {
        CeVal v = LESS(a[0], a[1]) ? a[1] : a[0];
        *out = LESS(a[2], v) ? a[2] : v;
        return 1;
    }
    default: break;
    }
#undef LESS
    if (!fl) return unsupported(ce, n, builtin_op_name(op));
    double x = a[0].f, y = nargs > 1 ? a[1].f : 0, r;
    switch (op) {
    case BI_SQRT: r = sqrt(x); break;
    case BI_RSQRT: r = 1.0 / sqrt(x); break;
    case BI_POW: r = pow(x, y); break;
    case BI_EXP: r = exp(x); break;
    case BI_LOG: r = log(x); break;
    case BI_LOG2: r = log2(x); break;
    case BI_SIN: r = sin(x); break;
    case BI_COS: r = cos(x); break;
    case BI_TAN: r = tan(x); break;
    case BI_ASIN: r = asin(x); break;
    case BI_ACOS: r = acos(x); break;
    case BI_ATAN: r = atan(x); break;
    case BI_ATAN2: r = atan2(x, y); break;
    default: return unsupported(ce, n, builtin_op_name(op));
    }
    *out = float_val(scalar_of(t), r);
    out->ty = t;
    return 1;
}

static NOINLINE int call(Ce *ce, const Node *n, CeVal *out) {
    if (n->op == BI_HELPER) return helper(ce, n, out);
    if (n->op != BI_CALL) return builtin(ce, n, out);
    if (n->text && syn_streq(n->text, CE_COPY_VEC)) return copy_vec(ce, n, out);
    if (n->text && (syn_streq(n->text, CE_PARENT) || syn_streq(n->text, CE_PARENT_LENGTH))) {
        CeVal v;
        if (n->nkids != 1 || !eval(ce, n->kids[0], &v)) return 0;
        if (v.k != CE_PTR || !v.obj) return ce_error(ce, n, CE_E_EVAL, "`parent~` needs a vector-view");
        const Type *vt = n->kids[0]->ty;
        int64_t len = v.obj->nbytes / elem_size(vt->elem);
        if (n->text[6] == '~') *out = (CeVal){.k = CE_PTR, .ty = n->ty, .obj = v.obj, .off = 0, .len = len};
        else *out = int_val(ty_num(SC_ULONG), (uint64_t)len);
        return 1;
    }
    return ce_user_call(ce, n, out);
}

/* ------------------------------------------------------------------ */
/* places and assignment                                               */

/* Where an assignment stores: a variable (frame and name) or memory. */
typedef struct Place {
    CeFrame *fr;
    const char *var;
    CeVal ptr;              /* memory: the vector ... */
    int64_t byte;           /* ... and the element's first byte */
    const Type *ty;
} Place;

static int place_of(Ce *ce, const Node *p, Place *pl) {
    memset(pl, 0, sizeof *pl);
    pl->ty = p->ty;
    if (p->kind == N_C_VAR && p->sym) {
        const Sym *s = p->sym;
        if (s->kind == SYM_CONSTVEC)
            return ce_error(ce, p, CE_E_WRITE, "cannot assign to the const-vec `%s`: const-vecs are read-only", s->name);
        if (s->kind == SYM_RETPTR) {
            CeVal r;
            if (!var_get(ce, p, s, &r)) return 0;
            if (r.k != CE_REF) return unsupported(ce, p, "this value");
            pl->fr = r.fr;
            pl->var = r.var;
            return 1;
        }
        pl->fr = ce->fr;
        pl->var = s->cname;
        return 1;
    }
    if (p->kind == N_C_INDEX) return index_loc(ce, p, &pl->ptr, &pl->byte);
    if (p->kind == N_C_UNARY && p->op == OP_DEREF) {
        CeVal r;
        if (!eval(ce, p->kids[0], &r)) return 0;
        if (r.k != CE_REF) return unsupported(ce, p, "this pointer");
        pl->fr = r.fr;
        pl->var = r.var;
        return 1;
    }
    return unsupported(ce, p, p->kind == N_C_MEMBER ? "struct fields" : "hardware vector components");
}

static int place_get(Ce *ce, const Node *at, Place *pl, CeVal *out) {
    if (pl->var) {
        CeSlot *s = slot_find(pl->fr, pl->var);
        if (!s) return ce_error(ce, at, CE_E_EVAL, "this variable has no value yet");
        *out = s->v;
        return 1;
    }
    return access(ce, at, &pl->ptr, pl->byte, pl->ty, out, NULL);
}

static int place_set(Ce *ce, const Node *at, Place *pl, CeVal v, CeVal *out) {
    if (pl->var) {
        CeVal c;
        if (!convert(ce, at, pl->ty, v, &c)) return 0;
        if (c.k == CE_PTR) c.len = -1; /* a view's pointer: its length is its own */
        *out = c;
        return slot_set(ce, at, pl->fr, pl->var, c);
    }
    return access(ce, at, &pl->ptr, pl->byte, pl->ty, out, &v);
}

static NOINLINE int assign(Ce *ce, const Node *n, CeVal *out) {
    Place pl;
    CeVal v;
    if (n->nkids != 2 || !place_of(ce, n->kids[0], &pl)) return 0;
    if (!eval(ce, n->kids[1], &v)) return 0;
    if (n->op != OP_SET) {
        CeVal old;
        if (!place_get(ce, n, &pl, &old) || !arith(ce, n, n->op, old, v, n->ty, &v)) return 0;
    }
    return place_set(ce, n, &pl, v, out);
}

/* ------------------------------------------------------------------ */
/* expressions                                                         */

static int eval1(Ce *ce, const Node *n, CeVal *out) {
    switch (n->kind) {
    case N_C_INTLIT:
        if (!n->ty || n->ty->kind == TY_KEYWORD || n->ty->kind == TY_STRING) return unsupported(ce, n, n->text ? n->text : "this literal");
        *out = int_val(n->ty, (uint64_t)n->ival); /* the checker made it fit its type */
        return 1;
    case N_C_FLOATLIT:
        if (!is_float_type(n->ty) || n->ty->sc == SC_HALF || n->ty->sc == SC_BFLOAT16) return unsupported(ce, n, "half");
        *out = float_val(n->ty, n->fval);
        return 1;
    case N_C_BOOLLIT: *out = bool_val(n->ival != 0); return 1;
    case N_C_VAR: {
        Sym *s = n->sym;
        if (!s) return unsupported(ce, n, "this variable");
        if (s->kind == SYM_CONSTVEC) {
            if (!ce->run) return unsupported(ce, n, s->name);
            CeObj *o = constvec_obj(ce, n, s);
            if (!o) return 0;
            *out = (CeVal){.k = CE_PTR, .ty = n->ty, .obj = o, .off = 0, .len = o->n};
            return 1;
        }
        if ((s->kind == SYM_CONST || s->kind == SYM_PARAMETER) && sym_rare(s)->value) return eval(ce, sym_rare(s)->value, out);
        return var_get(ce, n, s, out);
    }
    case N_C_UNARY: return n->nkids == 1 ? unary(ce, n, out) : unsupported(ce, n, "this operation");
    case N_C_BINARY: return binary(ce, n, out);
    case N_C_CALL: return call(ce, n, out);
    case N_C_INDEX: {
        CeVal p;
        int64_t byte;
        return index_loc(ce, n, &p, &byte) && access(ce, n, &p, byte, n->ty, out, NULL);
    }
    case N_C_CAST: return n->nkids == 1 ? cast(ce, n, out) : unsupported(ce, n, "this conversion");
    case N_C_SELECT: {
        CeVal c;
        if (n->nkids != 3 || !eval(ce, n->kids[0], &c)) return 0;
        CeVal v;
        if (!eval(ce, n->kids[truth(&c) ? 1 : 2], &v)) return 0;
        return convert(ce, n, n->ty, v, out);
    }
    case N_C_LENGTH: return length(ce, n, out);
    case N_C_ASSIGN: return assign(ce, n, out);
    case N_C_BLOCK: /* a statement-like form's empty value */
        *out = (CeVal){.k = CE_NONE};
        return exec(ce, n) == F_NEXT;
    case N_C_HWVEC:
    case N_C_SWIZZLE: return unsupported(ce, n, "hardware vectors");
    case N_C_MEMBER: return unsupported(ce, n, "struct fields");
    case N_C_ATOMIC: return unsupported(ce, n, "atomics");
    default: return unsupported(ce, n, node_kind_name(n->kind));
    }
}

static int eval(Ce *ce, const Node *n, CeVal *out) {
    if (!n) return LIVE(ce) ? unsupported(ce, NULL, "a missing value") : 0;
    if (!step(ce, n)) return 0;
    if (ce->depth >= CE_MAX_DEPTH) return ce_error(ce, n, CE_E_STEPS, "expressions nested more than %d deep in %s", CE_MAX_DEPTH, ce->what);
    ce->depth++;
    int ok = eval1(ce, n, out);
    ce->depth--;
    return ok && LIVE(ce);
}

/* ------------------------------------------------------------------ */
/* statements                                                          */

/* T NAME[...] / T NAME = INIT / a view's pointer and length. */
static NOINLINE int decl(Ce *ce, const Node *n) {
    Sym *s = n->sym;
    const Type *t = s && s->ty ? s->ty : n->ty;
    if (!s || !t) return unsupported(ce, n, "this declaration");
    if (t->kind == TY_VECTOR && s->is_view) {
        CeVal p, len;
        int64_t l;
        if (n->nkids < 1 || !eval(ce, n->kids[0], &p)) return 0;
        if (p.k != CE_PTR) return ce_error(ce, n, CE_E_EVAL, "a view needs a vector");
        p.ty = t;
        p.len = -1;
        if (!slot_set(ce, n, ce->fr, s->cname, p)) return 0;
        if (n->nkids > 1 && n->kids[1] && sym_rare(s)->len_sym) {
            if (!eval(ce, n->kids[1], &len) || !int_of(ce, n->kids[1], &len, &l)) return 0;
            if (!slot_set(ce, n, ce->fr, sym_rare(s)->len_sym->cname, int_val(ty_num(SC_ULONG), (uint64_t)l))) return 0;
        }
        return 1;
    }
    if (t->kind == TY_VECTOR) {
        /* an array; in a compile-time body kids[0] may be the value of every
           element and kids[1] the length, when it was computed (constvec.c) */
        if (s->hoisted_local || t->as == AS_LOCAL || t->soa || t->ndims) return unsupported(ce, n, ":local vectors");
        if (!storable(t->elem)) return unsupported(ce, n, arena_printf(ce->ck->a, "vectors of `%s`", ce_tname(ce, t->elem)));
        int64_t len = t->length;
        if (len < 0) {
            CeVal lv;
            if (n->nkids < 2 || !n->kids[1]) return ce_error(ce, n, CE_E_SIZE, "the length of `%s` is not known", s->name);
            if (!eval(ce, n->kids[1], &lv)) return 0;
            if (lv.k != CE_INT) return ce_error(ce, n->kids[1], CE_E_SIZE, "a vector length must be an integer");
            if (!is_signed_type(lv.ty) && lv.u > (uint64_t)CE_MAX_LENGTH)
                return ce_error(ce, n->kids[1], CE_E_SIZE, "a def-const-vec vector needs 1 to %ld elements, found %s", CE_MAX_LENGTH,
                                show(ce, &lv));
            len = (int64_t)lv.u;
        }
        CeObj *o = new_obj(ce, n->kids && n->nkids > 1 && n->kids[1] ? n->kids[1] : n, t->elem, len);
        if (!o) return 0;
        int sz = elem_size(t->elem);
        if (sym_rare(s)->init && sym_rare(s)->init->kind == N_C_HWVEC) {
            for (int i = 0; i < sym_rare(s)->init->nkids && i < len; i++) {
                CeVal v, c;
                if (!eval(ce, sym_rare(s)->init->kids[i], &v) || !convert(ce, sym_rare(s)->init->kids[i], t->elem, v, &c)) return 0;
                encode(t->elem, &c, o->bytes + (int64_t)i * sz);
            }
        } else if (n->nkids > 0 && n->kids[0]) {
            CeVal v, c;
            if (!eval(ce, n->kids[0], &v) || !convert(ce, n->kids[0], t->elem, v, &c)) return 0;
            for (int64_t i = 0; i < len; i++) encode(t->elem, &c, o->bytes + i * sz);
            ce->steps += len;
            if (!step(ce, n)) return 0;
        }
        return slot_set(ce, n, ce->fr, s->cname, (CeVal){.k = CE_PTR, .ty = t, .obj = o, .off = 0, .len = len});
    }
    CeVal v;
    if (n->nkids > 0 && n->kids[0]) {
        CeVal a;
        if (!eval(ce, n->kids[0], &a) || !convert(ce, n->kids[0], t, a, &v)) return 0;
    } else {
        const Type *st = scalar_of(t);
        if (st->kind == TY_BOOL) v = bool_val(0);
        else if (is_float_type(st)) v = float_val(st, 0);
        else if (is_int_type(st)) v = int_val(t, 0);
        else return unsupported(ce, n, st->kind == TY_STRUCT ? "structs" : st->kind == TY_HWVEC ? "hardware vectors" : "this variable");
    }
    return slot_set(ce, n, ce->fr, s->cname, v);
}

static NOINLINE Flow loop(Ce *ce, const Node *n) {
    const Sym *s = n->sym;
    if (!s || n->nkids != 4) return unsupported(ce, n, "this loop"), F_FAIL;
    CeVal v;
    if (!eval(ce, n->kids[0], &v) || !convert(ce, n->kids[0], s->ty, v, &v) || !slot_set(ce, n, ce->fr, s->cname, v)) return F_FAIL;
    const Node *saved = ce->loop;
    ce->loop = n;
    Flow r = F_NEXT;
    for (;;) {
        CeVal c;
        if (!eval(ce, n->kids[1], &c)) {
            r = F_FAIL;
            break;
        }
        if (!truth(&c)) break;
        Flow f = exec(ce, n->kids[3]);
        if (f == F_BREAK) break;
        if (f != F_NEXT) {
            r = f;
            break;
        }
        if (!eval(ce, n->kids[2], &v) || !convert(ce, n->kids[2], s->ty, v, &v) || !slot_set(ce, n, ce->fr, s->cname, v)) {
            r = F_FAIL;
            break;
        }
    }
    ce->loop = saved;
    return r;
}

static Flow exec1(Ce *ce, const Node *n) {
    switch (n->kind) {
    case N_C_BLOCK:
        for (int i = 0; i < n->nkids; i++) {
            Flow f = exec(ce, n->kids[i]);
            if (f != F_NEXT) return f;
        }
        return F_NEXT;
    case N_C_DECL: return decl(ce, n) ? F_NEXT : F_FAIL;
    case N_C_IF: {
        CeVal c;
        if (n->nkids < 2 || !eval(ce, n->kids[0], &c)) return F_FAIL;
        return exec(ce, truth(&c) ? n->kids[1] : n->nkids > 2 ? n->kids[2] : NULL);
    }
    case N_C_FOR: return loop(ce, n);
    case N_C_RETURN: {
        CeFrame *f = ce->fr;
        CeVal v = {.k = CE_NONE};
        if (n->nkids > 0) {
            const Type *rt = f->fn ? f->fn->ret : NULL;
            if (rt && rt->kind == TY_TUPLE) rt = rt->elems[0];
            if (rt && rt->kind == TY_VECTOR) {
                if (!vector_value(ce, n->kids[0], &v)) return F_FAIL;
            } else {
                CeVal a;
                if (!eval(ce, n->kids[0], &a) || !convert(ce, n->kids[0], rt, a, &v)) return F_FAIL;
            }
        }
        f->ret = v;
        return F_RETURN;
    }
    case N_C_BREAK: return F_BREAK;
    case N_C_COMMENT: return F_NEXT;
    case N_C_BARRIER: return unsupported(ce, n, "barriers"), F_FAIL;
    case N_C_EXPR:
    default: {
        CeVal v;
        return eval(ce, n->kind == N_C_EXPR && n->nkids ? n->kids[0] : n, &v) ? F_NEXT : F_FAIL;
    }
    }
}

static Flow exec(Ce *ce, const Node *n) {
    if (!n) return F_NEXT;
    if (n->kind != N_C_BLOCK && n->kind != N_C_EXPR && !step(ce, n)) return F_FAIL;
    if (ce->depth >= CE_MAX_DEPTH) {
        ce_error(ce, n, CE_E_STEPS, "statements nested more than %d deep in %s", CE_MAX_DEPTH, ce->what);
        return F_FAIL;
    }
    ce->depth++;
    Flow f = exec1(ce, n);
    ce->depth--;
    return f == F_FAIL || !LIVE(ce) ? F_FAIL : f;
}

/* ------------------------------------------------------------------ */
/* entry points                                                        */

CeResult ce_constant(Checker *ck, const Node *blk, const Node *n, int report, int exact, CeVal *out) {
    Ce ce = {.ck = ck, .report = report, .exact = exact, .max_steps = CE_CONST_STEPS, .what = "a constant expression"};
    CeFrame top = {0};
    ce.fr = &top;
    int ok = (!blk || exec(&ce, blk) == F_NEXT) && eval(&ce, n, out);
    frame_free(&top);
    ce_release(ce.objs);
    if (ok && out->k != CE_PTR && out->k != CE_REF && out->k != CE_NONE) return CE_DONE;
    if (ok || ce.unknown || !report) return CE_NOT_CONSTANT;
    return CE_FAILED;
}

/* Heads whose checking changes nothing in the program. */
static int pure_head(const char *k) {
    static const char *ok[] = {"+", "-", "*", "/", "ash", "bit-and", "bit-or", "bit-xor", "logand", "logior", "logxor",
                               "lognot", "bit-not", "min", "max", "abs", "clamp", "floor", "ceil", "round", "truncate",
                               "<", ">", "<=", ">=", "=", "==", "/=", "!=", "and", "or", "not", "select-if", "if",
                               "sqrt", "rsqrt", "pow", "expt", "exp", "log", "log2", "sin", "cos", "tan", "asin",
                               "acos", "atan", NULL};
    for (int i = 0; ok[i]; i++)
        if (syn_streq(ok[i], k)) return 1;
    return (!strncmp(k, "to-", 3) || !strncmp(k, "as-", 3)) && ty_lookup_base(k + 3);
}

static int pure_syntax(const Node *n, int depth) {
    if (depth > 64) return 0;
    switch (n->kind) {
    case N_INT:
    case N_FLOAT:
    case N_KEYWORD:
    case N_SYMBOL: return 1;
    case N_LIST:
        if (n->nkids == 0 || n->kids[0]->kind != N_SYMBOL || !pure_head(n->kids[0]->key)) return 0;
        for (int i = 1; i < n->nkids; i++)
            if (!pure_syntax(n->kids[i], depth + 1)) return 0;
        return 1;
    default: return 0;
    }
}

int ce_syntax(Ctx *cx, Node *syn, CeVal *out) {
    Checker *ck = cx->ck;
    if (!syn || !pure_syntax(syn, 0)) return 0;
    Program *p = ck->prog;
    int nhelpers = p->nhelpers, fp64 = p->uses_fp64, fp16 = p->uses_fp16;
    CFunc dummy = {.kind = FN_FUNCTION, .name = "constant", .ret = &ty_void};
    Node blk = {.kind = N_C_BLOCK};
    Ctx s = cx->fn ? *cx : (Ctx){.ck = ck, .fn = &dummy};
    s.block = &blk;
    s.memo = (PtrMap){0};
    s.names = (NameTable){0}; /* temporaries named here take no C name of CX's */
    s.bind_hint = NULL;
    /* quiet: whatever fails here is just not a constant (the caller says
       what it needed); the diagnostics state comes back as it was */
    Diag saved = *ck->d;
    ck->d->out = NULL;
    Node *v = ck_expr(&s, syn, NULL);
    ptrmap_release(ck->a, &s.memo); /* its expansions are checked */
    int failed = ck->d->errors > saved.errors, fatal = ck->d->fatal;
    *ck->d = saved;
    ck->d->fatal |= fatal;
    int ok = v && !failed && !fatal && ce_constant(ck, &blk, v, 0, 0, out) == CE_DONE;
    p->nhelpers = nhelpers;
    p->uses_fp64 = fp64;
    p->uses_fp16 = fp16;
    return ok;
}

CeResult ce_run(Checker *ck, const CFunc *fn, const char *what, long max_steps, CeVal *out, CeObj **objs) {
    Ce ce = {.ck = ck, .run = 1, .report = 1, .max_steps = max_steps, .what = what};
    CeFrame top = {.fn = fn};
    ce.fr = &top;
    Flow f = exec(&ce, fn->body);
    frame_free(&top);
    *objs = ce.objs;
    if (f == F_FAIL || ce.failed || ck->d->fatal) return CE_FAILED;
    *out = f == F_RETURN ? top.ret : (CeVal){.k = CE_NONE};
    return CE_DONE;
}

int ce_element(const CeVal *v, int64_t i, CeVal *out) {
    if (v->k != CE_PTR || !v->obj) return 0;
    int sz = elem_size(v->ty->elem);
    int64_t b = v->off + i * sz;
    if (b < 0 || b + sz > v->obj->nbytes) return 0;
    *out = decode(v->ty->elem, v->obj->bytes + b);
    return 1;
}

int ce_int64(const CeVal *v, int64_t *out) {
    if (v->k != CE_INT && v->k != CE_BOOL) return 0;
    if (v->k == CE_INT && !is_signed_type(v->ty) && (int64_t)v->u < 0) return 0;
    *out = (int64_t)v->u;
    return 1;
}

Node *ce_literal(Ctx *cx, const Node *at, const CeVal *v) {
    Node *n;
    switch (v->k) {
    case CE_INT:
        n = ck_node(cx, N_C_INTLIT, at, (Type *)v->ty);
        n->ival = (int64_t)v->u;
        return n;
    case CE_FLOAT:
        n = ck_node(cx, N_C_FLOATLIT, at, (Type *)v->ty);
        n->fval = v->f;
        if (v->ty->sc == SC_DOUBLE) ck_prog_of(cx)->uses_fp64 = 1;
        return n;
    case CE_BOOL:
        n = ck_node(cx, N_C_BOOLLIT, at, &ty_bool);
        n->ival = (int64_t)v->u;
        return n;
    default: return NULL;
    }
}
