/* types.h - Crisp's static types and the rules that relate them.
 *
 * Spec sections "Crisp Types", "Numeric Type Promotion, Casting,
 * Conversion", "Vector Types" and "Alignment".  Scalars and hardware vectors
 * (float4 ...) are interned singletons, so they compare by pointer; Crisp
 * vectors (buffers with address space, access, alignment and length) are
 * built in the compilation arena and compare structurally (ty_equal). */
#ifndef CRISP_TYPES_H
#define CRISP_TYPES_H

#include <stdint.h>

#include "../core/arena.h"

typedef enum TypeKind {
    TY_VOID,     /* nil: no value */
    TY_BOOL,
    TY_NUM,      /* scalar number */
    TY_HWVEC,    /* float4, int2 ... */
    TY_VECTOR,   /* Crisp vector: pointer + length at run time */
    TY_KEYWORD,  /* :foo values */
    TY_STRING,   /* string literals (compile-time only) */
    TY_TUPLE,    /* multiple values */
    TY_VOIDP,    /* def-kernel-exact's untyped __global pointer */
    TY_STRUCT,   /* def-struct: std140 layout */
    TY_ENUM,     /* def-enumeration: an int at run time */
    TY_IDENT,    /* an identity tensor: no data, `ndims` its rank (0: any) */
} TypeKind;

typedef enum Scalar {
    SC_CHAR, SC_UCHAR, SC_SHORT, SC_USHORT, SC_INT, SC_UINT, SC_LONG, SC_ULONG,
    SC_HALF, SC_BFLOAT16, SC_FLOAT, SC_DOUBLE, SC__COUNT
} Scalar;

typedef enum Category { CAT_SIGNED, CAT_UNSIGNED, CAT_FLOAT } Category;

typedef enum AddrSpace { AS_NONE, AS_GLOBAL, AS_LOCAL, AS_CONSTANT, AS_PRIVATE } AddrSpace;
typedef enum Access { ACC_NONE, ACC_READ_ONLY, ACC_WRITE_ONLY, ACC_READ_WRITE } Access;
typedef enum Align { AL_NONE, AL_COMPACT, AL_STD140 } Align;

typedef struct Type Type;

/* A def-struct field and the struct's std140 layout. */
typedef struct Field {
    const char *name, *key; /* Crisp name as written, canonical */
    /* The target's identifier of the field: NULL after checking, given by
       the target's naming pass (emit-oclc/names.h oclc_name_program); a
       variable derived from a field while checking (a soa-vector's field
       vector) is named from the spelled Crisp name, the same word. */
    const char *cname;
    Type *ty;
    int offset, size, align;
    int as_array;      /* 3-vectors: stored as T[3] so std140's 12-byte size holds */
    int view;          /* a vector or vector-view: a C pointer to its first element
                          and NAME_len (the struct stays on the device) */
} Field;

typedef struct StructDef {
    const char *name;  /* Crisp name as written */
    /* The target's identifier of the type: NULL after checking, given by
       the target's naming pass (emit-oclc/names.h oclc_name_program) to
       the structs of Program.structs; an incomplete template's placeholder
       (never printed) has none. */
    const char *cname;
    const void *def;   /* the defining syntax node */
    Field *fields;
    int nfields;
    int size, align;   /* std140: align 16, size a multiple of 16 */
    int state;         /* 0 unresolved, 1 resolving, 2 done, -1 failed */
    struct Type *type; /* the struct's type */
    struct StructDef *derived_from; /* def-derived-type / set-derived: the original */
    int subst;         /* 0 :no, 1 :equal, 2 :pass-orig, 3 :pass-derived */
    const void *orig_syn; /* def-derived-type: the original type's syntax */
    int has_views;     /* holds vector-views (itself or a nested struct): no
                          std140 layout, never crosses the host boundary */
    const void *pattern;  /* an incomplete struct template ((pair-type nil int)):
                             not a real struct, matches instances (templates.c) */
} StructDef;

/* A def-enumeration: keyword keys with int values. */
typedef struct EnumDef {
    const char *name;       /* Crisp name as written */
    const char **keys;      /* without ':' (lower case) */
    const char **key_names; /* as written (:Chordata), for the target to spell */
    /* The target's identifiers of the type and its keys (phylum,
       phylum_chordata): NULL after checking, filled by the target's naming
       pass (emit-oclc/names.h oclc_name_program), which spells them. */
    const char *cname;
    const char **cnames;
    int64_t *values;
    int nkeys;
    const void *def;
    struct Type *type;
} EnumDef;

#define TY_ANY_RANK (-1)

struct Type {
    TypeKind kind;
    Scalar sc;        /* NUM, HWVEC: element scalar */
    int width;        /* HWVEC: 2, 3, 4, 8 or 16 */
    /* VECTOR */
    Type *elem;       /* NULL when unspecified (incomplete type) */
    AddrSpace as;
    Access acc;
    Align align;
    int64_t length;   /* -1 when not known at compile time */
    int view;         /* a vector-view: a window (offset, length) on a root */
    int soa;          /* a soa-vector of a struct: one vector per field */
    int ndims;        /* a tensor-view (view = 1) of this many dimensions, else 0;
                         TY_ANY_RANK: (tensor-view-type), a parameter type
                         taking any rank (instantiated per rank);
                         IDENT: the rank (0 in a parameter type: any rank) */
    const char *tag;  /* a derived vector, view, soa or tensor-view type
                         (def-derived-type): its name */
    int tag_subst;    /* its :subst (0 :no, 1 :equal, 2 :pass-orig, 3 :pass-derived) */
    /* TUPLE */
    Type **elems;
    int nelems;
    int maybe;        /* (maybe T...): elems[0] is the bool success flag */
    /* STRUCT */
    StructDef *sd;
    /* ENUM */
    EnumDef *ed;
};

typedef struct ScalarInfo {
    const char *name;   /* Crisp and OpenCL C spelling */
    int size;           /* bytes */
    Category cat;
    int rank;           /* widening order within the category */
} ScalarInfo;

const ScalarInfo *ty_scalar_info(Scalar s);

extern Type ty_void, ty_bool, ty_keyword, ty_string, ty_voidp;
extern Type ty_num_types[SC__COUNT]; /* the interned scalar types (ty_num) */
static inline Type *ty_num(Scalar s) {
    return &ty_num_types[s];
}
Type *ty_hwvec(Scalar s, int width);  /* NULL for an invalid width */
Type *ty_vector(Arena *a, Type *elem, AddrSpace as, Access acc, Align al, int64_t len);
/* An identity tensor of RANK dimensions (0: any rank, parameter types). */
Type *ty_identity(Arena *a, int rank);
Type *ty_tuple(Arena *a, Type **elems, int n);

/* Base type by (lower-case) name: scalars, hardware vectors, bool, nil,
 * voidp is not a base type here.  NULL when unknown. */
Type *ty_lookup_base(const char *key);

/* scalar number (inline, as ty_is_arith: asked of most operands) */
static inline int ty_is_num(const Type *t) {
    return t && t->kind == TY_NUM;
}
int ty_is_int(const Type *t);       /* integer scalar */
int ty_is_float(const Type *t);     /* floating scalar */
/* scalar number or hardware vector */
static inline int ty_is_arith(const Type *t) {
    return t && (t->kind == TY_NUM || t->kind == TY_HWVEC);
}
int ty_is_intlike(const Type *t);   /* integer scalar or integer hw vector */
int ty_is_floatlike(const Type *t);
Category ty_category(const Type *t); /* of the scalar / element */
int ty_equal(const Type *a, const Type *b);

/* Implicit conversion from `from` to `to` (same category, widening only,
 * element-wise for hardware vectors of equal width). */
int ty_widens(const Type *from, const Type *to);
/* Common type of a binary arithmetic operation, or NULL when the operands
 * need an explicit conversion. A scalar joins a hw vector of its category. */
Type *ty_join(const Type *a, const Type *b);

/* Crisp's name of a number or hardware vector type ("ulong", "float4"), NULL
 * for another kind.  A target spells types its own way (emit-oclc/ctext.h
 * oclc_type_name); the checker names them only in Crisp. */
const char *ty_num_name(const Type *t);
/* Crisp spelling for messages ("float4", "(vector-type float :global ...)"). */
const char *ty_name(Arena *a, const Type *t);

/* OpenCL sizeof / alignof of a value type (3-vectors take 4 slots). */
int ty_sizeof(const Type *t);
/* Bytes between consecutive elements of a vector with this element type and
 * alignment (std140 arrays round every element up to 16 bytes). */
int ty_vector_stride(const Type *elem, Align al);
/* std140 base alignment and size of a value type inside a struct. */
int ty_std140_align(const Type *t);
int ty_std140_size(const Type *t);

const char *ty_as_name(AddrSpace as);    /* "global" ... */
const char *ty_acc_name(Access acc);     /* "read_only" ... */
const char *ty_align_name(Align al);     /* "compact" / "std140" */

#endif
