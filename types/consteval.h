/* consteval.h - the constant evaluator: checked code run by the compiler.
 *
 * One interpreter of the checked tree (the C_* nodes of core/node.h) serves
 * every place the compiler needs a value while compiling:
 *   - def-const / def-parameter values (check.c const_value),
 *   - integer constants in types, sizes and operators (ck_const_int,
 *     ck_const_syn_int, the folding of literal arithmetic),
 *   - the bodies of def-const-vec (constvec.c), which the normal checker
 *     checks as a compile-time function and this evaluator then runs.
 * Values follow the device: each operation in the type the checker gave it,
 * with C's conversions and OpenCL's rules; what C leaves undefined is an
 * error here (docs/language.md "Compile-time evaluation").
 *
 * Not a public API: the checker's files and the unit tests use it. */
#ifndef CRISP_CONSTEVAL_H
#define CRISP_CONSTEVAL_H

#include "check_int.h"

/* Memory: a vector made by the evaluated code, or a const-vec it reads.
 * Elements are kept as their little-endian bytes, as on the devices OpenCL
 * targets, so a reinterpret-view reads and writes the same bytes. */
typedef struct CeObj {
    const Type *elem;       /* the element type it was made with */
    int64_t n;              /* elements */
    int64_t nbytes;         /* n * sizeof elem */
    unsigned char *bytes;
    const char *name;       /* a const-vec's name: read-only; else NULL */
    struct CeObj *next;     /* every object of one run (freed together) */
} CeObj;

typedef enum CeKind { CE_NONE, CE_INT, CE_FLOAT, CE_BOOL, CE_PTR, CE_REF } CeKind;

struct CeFrame;

/* A value.  Integers are kept as 64 bits: two's complement, sign-extended
 * from a signed type's width and zero-extended from an unsigned one's.  A
 * vector is a pointer (the object and the byte of its element 0) with the
 * element type of its `ty`, and its length where the length travels with
 * the pointer (an array, a vector parameter). */
typedef struct CeVal {
    CeKind k;
    const Type *ty;
    union {
        uint64_t u;         /* CE_INT, CE_BOOL */
        double f;           /* CE_FLOAT, already rounded to `ty` */
        struct {            /* CE_PTR */
            CeObj *obj;
            int64_t off;    /* byte offset in obj */
            int64_t len;    /* elements, or -1 when unknown */
        };
        struct {            /* CE_REF: a variable's address */
            struct CeFrame *fr;
            const char *var;    /* its C name (the frame's key) */
        };
    };
} CeVal;

/* Limits of one def-const-vec run (docs/language.md "def-const-vec"). */
#define CE_DEFAULT_STEPS (1L << 25)     /* evaluated nodes, raisable per body */
#define CE_MAX_STEPS 1000000000L        /* the most (declare (max-steps N)) may ask */
#define CE_MAX_LENGTH (1L << 20)        /* elements of one vector */
#define CE_MAX_TOTAL (1L << 22)         /* elements allocated by one run */
#define CE_MAX_DEPTH 2000               /* nested nodes (C stack) */

/* The calls only a compile-time body makes (BI_CALL nodes with these
 * texts; emitters never see them, and no C identifier contains `-`):
 * (copy-vec SRC SRC-LEN DST DST-LEN), the root of a view and its length
 * in the view's elements. */
#define CE_COPY_VEC "copy-vec"
#define CE_PARENT "parent~"
#define CE_PARENT_LENGTH "parent-length~"

/* How a run ended. */
typedef enum CeResult {
    CE_DONE = 1,            /* a value */
    CE_NOT_CONSTANT = 0,    /* not a constant: no diagnostic */
    CE_FAILED = -1,         /* an error, reported */
} CeResult;

/* The value of the checked expression N when it is a constant: literals,
 * def-consts, operators, conversions, select and the math builtins, and the
 * temporaries the statements of BLK (a scratch block the checker filled
 * while checking N, or NULL) declare.  REPORT: an error that makes every
 * evaluation fail (overflow, division by zero) is reported; otherwise it
 * too is "not a constant".  EXACT: integer arithmetic is exact in 64 bits,
 * whatever the operands' types (literal-only arithmetic, which adapts to
 * its context afterwards). */
CeResult ce_constant(Checker *ck, const Node *blk, const Node *n, int report, int exact, CeVal *out);

/* The value of syntax SYN when it is a constant: checked as an expression
 * in a scratch context (CX's variables visible; nothing reported, nothing
 * added to the program), then computed as ce_constant does.  Only forms
 * without side effects are tried: literals, names, the arithmetic, bit,
 * comparison and logic operators, min/max/abs/clamp, rounding, the math
 * functions, conversions, if and select-if.  Returns 1 with *out. */
int ce_syntax(Ctx *cx, Node *syn, CeVal *out);

/* Run the compile-time function FN (a def-const-vec body, constvec.c):
 * WHAT names it in messages ("def-const-vec `+t+`"), MAX_STEPS bounds it.
 * On CE_DONE *out is the value its body returned (a vector: a pointer with
 * its length), valid until ce_release(*objs); *objs lists every object made
 * (const-vecs read included). */
CeResult ce_run(Checker *ck, const CFunc *fn, const char *what, long max_steps, CeVal *out, CeObj **objs);
void ce_release(CeObj *objs);

/* Element I of the vector V (CE_PTR with a length), as its element type. */
int ce_element(const CeVal *v, int64_t i, CeVal *out);

/* The integer value of V when it fits int64 (an integer or a bool). */
int ce_int64(const CeVal *v, int64_t *out);

/* V as a checked literal of its type, located at AT. */
Node *ce_literal(Ctx *cx, const Node *at, const CeVal *v);

#endif
