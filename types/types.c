/* types.c - type construction, promotion rules and layout (types.h).
 *
 * The promotion rule is the spec's "hardware first" one: implicit
 * conversion only inside a category (signed, unsigned, floating) and only
 * from a smaller to a larger size; everything else needs to-XXXX/as-XXXX. */
#include "types.h"
#include "../core/syntax.h"

#include <string.h>

static const ScalarInfo scalars[SC__COUNT] = {
    [SC_CHAR] = {"char", 1, CAT_SIGNED, 0},
    [SC_UCHAR] = {"uchar", 1, CAT_UNSIGNED, 0},
    [SC_SHORT] = {"short", 2, CAT_SIGNED, 1},
    [SC_USHORT] = {"ushort", 2, CAT_UNSIGNED, 1},
    [SC_INT] = {"int", 4, CAT_SIGNED, 2},
    [SC_UINT] = {"uint", 4, CAT_UNSIGNED, 2},
    [SC_LONG] = {"long", 8, CAT_SIGNED, 3},
    [SC_ULONG] = {"ulong", 8, CAT_UNSIGNED, 3},
    [SC_HALF] = {"half", 2, CAT_FLOAT, 0},
    [SC_BFLOAT16] = {"bfloat16", 2, CAT_FLOAT, 0},
    [SC_FLOAT] = {"float", 4, CAT_FLOAT, 1},
    [SC_DOUBLE] = {"double", 8, CAT_FLOAT, 2},
};

Type ty_void = {.kind = TY_VOID};
Type ty_bool = {.kind = TY_BOOL};
Type ty_keyword = {.kind = TY_KEYWORD};
Type ty_string = {.kind = TY_STRING};
Type ty_voidp = {.kind = TY_VOIDP};

/* Interned scalar and hardware-vector types: constant tables, so they
   compare by pointer and need no initialisation. */
Type ty_num_types[SC__COUNT] = {
    [SC_CHAR] = {.kind = TY_NUM, .sc = SC_CHAR, .width = 1},
    [SC_UCHAR] = {.kind = TY_NUM, .sc = SC_UCHAR, .width = 1},
    [SC_SHORT] = {.kind = TY_NUM, .sc = SC_SHORT, .width = 1},
    [SC_USHORT] = {.kind = TY_NUM, .sc = SC_USHORT, .width = 1},
    [SC_INT] = {.kind = TY_NUM, .sc = SC_INT, .width = 1},
    [SC_UINT] = {.kind = TY_NUM, .sc = SC_UINT, .width = 1},
    [SC_LONG] = {.kind = TY_NUM, .sc = SC_LONG, .width = 1},
    [SC_ULONG] = {.kind = TY_NUM, .sc = SC_ULONG, .width = 1},
    [SC_HALF] = {.kind = TY_NUM, .sc = SC_HALF, .width = 1},
    [SC_BFLOAT16] = {.kind = TY_NUM, .sc = SC_BFLOAT16, .width = 1},
    [SC_FLOAT] = {.kind = TY_NUM, .sc = SC_FLOAT, .width = 1},
    [SC_DOUBLE] = {.kind = TY_NUM, .sc = SC_DOUBLE, .width = 1},
};
static Type hw_types[SC__COUNT][5] = {
    [SC_CHAR] = {{.kind = TY_HWVEC, .sc = SC_CHAR, .width = 2}, {.kind = TY_HWVEC, .sc = SC_CHAR, .width = 3}, {.kind = TY_HWVEC, .sc = SC_CHAR, .width = 4}, {.kind = TY_HWVEC, .sc = SC_CHAR, .width = 8}, {.kind = TY_HWVEC, .sc = SC_CHAR, .width = 16}},
    [SC_UCHAR] = {{.kind = TY_HWVEC, .sc = SC_UCHAR, .width = 2}, {.kind = TY_HWVEC, .sc = SC_UCHAR, .width = 3}, {.kind = TY_HWVEC, .sc = SC_UCHAR, .width = 4}, {.kind = TY_HWVEC, .sc = SC_UCHAR, .width = 8}, {.kind = TY_HWVEC, .sc = SC_UCHAR, .width = 16}},
    [SC_SHORT] = {{.kind = TY_HWVEC, .sc = SC_SHORT, .width = 2}, {.kind = TY_HWVEC, .sc = SC_SHORT, .width = 3}, {.kind = TY_HWVEC, .sc = SC_SHORT, .width = 4}, {.kind = TY_HWVEC, .sc = SC_SHORT, .width = 8}, {.kind = TY_HWVEC, .sc = SC_SHORT, .width = 16}},
    [SC_USHORT] = {{.kind = TY_HWVEC, .sc = SC_USHORT, .width = 2}, {.kind = TY_HWVEC, .sc = SC_USHORT, .width = 3}, {.kind = TY_HWVEC, .sc = SC_USHORT, .width = 4}, {.kind = TY_HWVEC, .sc = SC_USHORT, .width = 8}, {.kind = TY_HWVEC, .sc = SC_USHORT, .width = 16}},
    [SC_INT] = {{.kind = TY_HWVEC, .sc = SC_INT, .width = 2}, {.kind = TY_HWVEC, .sc = SC_INT, .width = 3}, {.kind = TY_HWVEC, .sc = SC_INT, .width = 4}, {.kind = TY_HWVEC, .sc = SC_INT, .width = 8}, {.kind = TY_HWVEC, .sc = SC_INT, .width = 16}},
    [SC_UINT] = {{.kind = TY_HWVEC, .sc = SC_UINT, .width = 2}, {.kind = TY_HWVEC, .sc = SC_UINT, .width = 3}, {.kind = TY_HWVEC, .sc = SC_UINT, .width = 4}, {.kind = TY_HWVEC, .sc = SC_UINT, .width = 8}, {.kind = TY_HWVEC, .sc = SC_UINT, .width = 16}},
    [SC_LONG] = {{.kind = TY_HWVEC, .sc = SC_LONG, .width = 2}, {.kind = TY_HWVEC, .sc = SC_LONG, .width = 3}, {.kind = TY_HWVEC, .sc = SC_LONG, .width = 4}, {.kind = TY_HWVEC, .sc = SC_LONG, .width = 8}, {.kind = TY_HWVEC, .sc = SC_LONG, .width = 16}},
    [SC_ULONG] = {{.kind = TY_HWVEC, .sc = SC_ULONG, .width = 2}, {.kind = TY_HWVEC, .sc = SC_ULONG, .width = 3}, {.kind = TY_HWVEC, .sc = SC_ULONG, .width = 4}, {.kind = TY_HWVEC, .sc = SC_ULONG, .width = 8}, {.kind = TY_HWVEC, .sc = SC_ULONG, .width = 16}},
    [SC_HALF] = {{.kind = TY_HWVEC, .sc = SC_HALF, .width = 2}, {.kind = TY_HWVEC, .sc = SC_HALF, .width = 3}, {.kind = TY_HWVEC, .sc = SC_HALF, .width = 4}, {.kind = TY_HWVEC, .sc = SC_HALF, .width = 8}, {.kind = TY_HWVEC, .sc = SC_HALF, .width = 16}},
    [SC_BFLOAT16] = {{.kind = TY_HWVEC, .sc = SC_BFLOAT16, .width = 2}, {.kind = TY_HWVEC, .sc = SC_BFLOAT16, .width = 3}, {.kind = TY_HWVEC, .sc = SC_BFLOAT16, .width = 4}, {.kind = TY_HWVEC, .sc = SC_BFLOAT16, .width = 8}, {.kind = TY_HWVEC, .sc = SC_BFLOAT16, .width = 16}},
    [SC_FLOAT] = {{.kind = TY_HWVEC, .sc = SC_FLOAT, .width = 2}, {.kind = TY_HWVEC, .sc = SC_FLOAT, .width = 3}, {.kind = TY_HWVEC, .sc = SC_FLOAT, .width = 4}, {.kind = TY_HWVEC, .sc = SC_FLOAT, .width = 8}, {.kind = TY_HWVEC, .sc = SC_FLOAT, .width = 16}},
    [SC_DOUBLE] = {{.kind = TY_HWVEC, .sc = SC_DOUBLE, .width = 2}, {.kind = TY_HWVEC, .sc = SC_DOUBLE, .width = 3}, {.kind = TY_HWVEC, .sc = SC_DOUBLE, .width = 4}, {.kind = TY_HWVEC, .sc = SC_DOUBLE, .width = 8}, {.kind = TY_HWVEC, .sc = SC_DOUBLE, .width = 16}},
};
static const char *hw_names[SC__COUNT][5] = {
    [SC_CHAR] = {"char2", "char3", "char4", "char8", "char16"},
    [SC_UCHAR] = {"uchar2", "uchar3", "uchar4", "uchar8", "uchar16"},
    [SC_SHORT] = {"short2", "short3", "short4", "short8", "short16"},
    [SC_USHORT] = {"ushort2", "ushort3", "ushort4", "ushort8", "ushort16"},
    [SC_INT] = {"int2", "int3", "int4", "int8", "int16"},
    [SC_UINT] = {"uint2", "uint3", "uint4", "uint8", "uint16"},
    [SC_LONG] = {"long2", "long3", "long4", "long8", "long16"},
    [SC_ULONG] = {"ulong2", "ulong3", "ulong4", "ulong8", "ulong16"},
    [SC_HALF] = {"half2", "half3", "half4", "half8", "half16"},
    [SC_BFLOAT16] = {"bfloat162", "bfloat163", "bfloat164", "bfloat168", "bfloat1616"},
    [SC_FLOAT] = {"float2", "float3", "float4", "float8", "float16"},
    [SC_DOUBLE] = {"double2", "double3", "double4", "double8", "double16"},
};
static const int hw_widths[5] = {2, 3, 4, 8, 16};

static int width_slot(int w) {
    for (int i = 0; i < 5; i++)
        if (hw_widths[i] == w) return i;
    return -1;
}

const ScalarInfo *ty_scalar_info(Scalar s) {
    return &scalars[s];
}


Type *ty_hwvec(Scalar s, int width) {
    int slot = width_slot(width);
    if (slot < 0) return NULL;
    return &hw_types[s][slot];
}

Type *ty_vector(Arena *a, Type *elem, AddrSpace as, Access acc, Align al, int64_t len) {
    Type *t = arena_alloc(a, sizeof *t);
    if (!t) return &ty_void;
    t->kind = TY_VECTOR;
    t->elem = elem;
    t->as = as;
    t->acc = acc;
    t->align = al;
    t->length = len;
    return t;
}

Type *ty_identity(Arena *a, int rank) {
    Type *t = arena_alloc(a, sizeof *t);
    if (!t) return &ty_void;
    t->kind = TY_IDENT;
    t->ndims = rank;
    t->length = -1;
    return t;
}

Type *ty_tuple(Arena *a, Type **elems, int n) {
    Type *t = arena_alloc(a, sizeof *t);
    if (!t) return &ty_void;
    t->kind = TY_TUPLE;
    t->elems = arena_alloc(a, sizeof(Type *) * (size_t)(n ? n : 1));
    if (t->elems) memcpy(t->elems, elems, sizeof(Type *) * (size_t)n);
    t->nelems = t->elems ? n : 0;
    return t;
}

/* The one scalar type whose name KEY may begin with (no two names share
 * their first two bytes, and none is another's prefix), or -1. */
static int scalar_of_first(const char *key) {
    switch (key[0]) {
    case 'c': return SC_CHAR;
    case 's': return SC_SHORT;
    case 'i': return SC_INT;
    case 'l': return SC_LONG;
    case 'h': return SC_HALF;
    case 'b': return SC_BFLOAT16;
    case 'f': return SC_FLOAT;
    case 'd': return SC_DOUBLE;
    case 'u':
        switch (key[1]) {
        case 'c': return SC_UCHAR;
        case 's': return SC_USHORT;
        case 'i': return SC_UINT;
        case 'l': return SC_ULONG;
        }
    }
    return -1;
}

Type *ty_lookup_base(const char *key) {
    /* a name compared in place, its width read from a short table (issue
       14: asked for every type name and every to-/as- head; strlen,
       strncmp and sscanf made most of the checker's type lookups) */
    if (syn_streq(key, "bool")) return &ty_bool;
    if (syn_streq(key, "nil")) return &ty_void;
    int s = scalar_of_first(key);
    if (s < 0) return NULL;
    const char *p = scalars[s].name, *rest = key;
    while (*p && *p == *rest) p++, rest++;
    if (*p) return NULL;
    if (!*rest) return ty_num((Scalar)s);
    /* NAME followed by a width as "%d" prints it: 2, 3, 4, 8 or 16 (any
       other number is no hardware vector; bfloat16 has none) */
    int w = rest[0] == '1' && rest[1] == '6' && !rest[2] ? 16 : rest[0] >= '2' && rest[0] <= '8' && !rest[1] ? rest[0] - '0' : 0;
    return w && s != SC_BFLOAT16 ? ty_hwvec((Scalar)s, w) : NULL;
}

int ty_is_int(const Type *t) { return ty_is_num(t) && scalars[t->sc].cat != CAT_FLOAT; }
int ty_is_float(const Type *t) { return ty_is_num(t) && scalars[t->sc].cat == CAT_FLOAT; }
int ty_is_intlike(const Type *t) { return ty_is_arith(t) && scalars[t->sc].cat != CAT_FLOAT; }
int ty_is_floatlike(const Type *t) { return ty_is_arith(t) && scalars[t->sc].cat == CAT_FLOAT; }
Category ty_category(const Type *t) { return scalars[t->sc].cat; }

int ty_equal(const Type *a, const Type *b) {
    if (a == b) return 1;
    if (!a || !b || a->kind != b->kind) return 0;
    switch (a->kind) {
    case TY_NUM: return a->sc == b->sc;
    case TY_HWVEC: return a->sc == b->sc && a->width == b->width;
    case TY_VECTOR:
        return ty_equal(a->elem, b->elem) && a->as == b->as && a->acc == b->acc &&
               a->align == b->align && a->length == b->length && a->soa == b->soa && a->ndims == b->ndims &&
               (a->tag == b->tag || (a->tag && b->tag && syn_streq(a->tag, b->tag)));
    case TY_STRUCT: return a->sd == b->sd;
    case TY_ENUM: return a->ed == b->ed;
    case TY_IDENT: return a->ndims == b->ndims;
    case TY_TUPLE:
        if (a->nelems != b->nelems || a->maybe != b->maybe) return 0;
        for (int i = 0; i < a->nelems; i++)
            if (!ty_equal(a->elems[i], b->elems[i])) return 0;
        return 1;
    default: return 1;
    }
}

static int scalar_widens(Scalar from, Scalar to) {
    const ScalarInfo *f = &scalars[from], *t = &scalars[to];
    if (from == to) return 1;
    if (f->cat != t->cat) return 0;
    /* half and bfloat16 share rank 0 but do not convert into each other */
    return f->rank < t->rank;
}

int ty_widens(const Type *from, const Type *to) {
    if (!from || !to) return 0;
    if (ty_equal(from, to)) return 1;
    if (from->kind == TY_NUM && to->kind == TY_NUM) return scalar_widens(from->sc, to->sc);
    if (from->kind == TY_HWVEC && to->kind == TY_HWVEC)
        return from->width == to->width && scalar_widens(from->sc, to->sc);
    return 0;
}

Type *ty_join(const Type *a, const Type *b) {
    if (!ty_is_arith(a) || !ty_is_arith(b)) return NULL;
    if (ty_widens(a, b)) return (Type *)b;
    if (ty_widens(b, a)) return (Type *)a;
    /* scalar with hardware vector: broadcast when the scalar widens to the
       element type (OpenCL converts the scalar implicitly) */
    if (a->kind == TY_HWVEC && b->kind == TY_NUM && scalar_widens(b->sc, a->sc)) return (Type *)a;
    if (b->kind == TY_HWVEC && a->kind == TY_NUM && scalar_widens(a->sc, b->sc)) return (Type *)b;
    return NULL;
}

const char *ty_num_name(const Type *t) {
    if (t->kind == TY_NUM) return scalars[t->sc].name;
    if (t->kind == TY_HWVEC) return hw_names[t->sc][width_slot(t->width)];
    return NULL;
}

const char *ty_as_name(AddrSpace as) {
    static const char *n[] = {"unspecified", "global", "local", "constant", "private"};
    return n[as];
}

const char *ty_acc_name(Access acc) {
    static const char *n[] = {"unspecified", "read_only", "write_only", "read_write"};
    return n[acc];
}

const char *ty_align_name(Align al) {
    static const char *n[] = {"unspecified", "compact", "std140"};
    return n[al];
}

const char *ty_name(Arena *a, const Type *t) {
    if (!t) return "<unknown>";
    switch (t->kind) {
    case TY_VOID: return "nil";
    case TY_BOOL: return "bool";
    case TY_NUM:
    case TY_HWVEC: return ty_num_name(t);
    case TY_KEYWORD: return "keyword";
    case TY_VOIDP: return "voidp";
    case TY_STRUCT: return t->sd->name;
    case TY_ENUM: return t->ed->name;
    case TY_STRING: return "string";
    case TY_IDENT: return t->ndims ? arena_printf(a, "(identity-tensor-type %d)", t->ndims) : "(identity-tensor-type)";
    case TY_VECTOR: {
        if (t->tag) return t->tag;
        if (t->ndims) {
            /* (tensor-view-type N (vector-type ...)), or just N when the parent is open */
            Type p = *t;
            p.ndims = 0;
            p.view = 0;
            int open = !t->elem && !t->as && !t->acc && !t->align && t->length < 0;
            if (t->ndims < 0) return "(tensor-view-type)";
            return open ? arena_printf(a, "(tensor-view-type %d)", t->ndims)
                        : arena_printf(a, "(tensor-view-type %d %s)", t->ndims, ty_name(a, &p));
        }
        const char *s = arena_printf(a, "(%s %s", t->soa ? "soa-vector-type" : "vector-type", t->elem ? ty_name(a, t->elem) : "?");
        if (t->as) s = arena_printf(a, "%s :%s", s, ty_as_name(t->as));
        if (t->acc) s = arena_printf(a, "%s :%s", s, ty_acc_name(t->acc));
        if (t->align) s = arena_printf(a, "%s :%s", s, ty_align_name(t->align));
        if (t->length >= 0) s = arena_printf(a, "%s %lld", s, (long long)t->length);
        return arena_printf(a, "%s)", s);
    }
    case TY_TUPLE: {
        const char *s = t->maybe ? "(maybe" : "(values";
        for (int i = t->maybe ? 1 : 0; t->maybe && i < t->nelems; i++) s = arena_printf(a, "%s %s", s, ty_name(a, t->elems[i]));
        if (t->maybe) return arena_printf(a, "%s)", s);
        for (int i = 0; i < t->nelems; i++) s = arena_printf(a, "%s %s", s, ty_name(a, t->elems[i]));
        return arena_printf(a, "%s)", s);
    }
    }
    return "?";
}

int ty_sizeof(const Type *t) {
    switch (t->kind) {
    case TY_BOOL: return 1;
    case TY_NUM: return scalars[t->sc].size;
    case TY_HWVEC: return scalars[t->sc].size * (t->width == 3 ? 4 : t->width);
    case TY_STRUCT: return t->sd->size;
    case TY_ENUM: return 4;
    default: return 0;
    }
}

/* std140 (Vulkan "Offset and Stride Assignment", extended to 1- and 2-byte
 * scalars by their size): scalars align to their size, 2-vectors to twice
 * it, 3- and 4-vectors to four times it; structs to 16. */
int ty_std140_align(const Type *t) {
    switch (t->kind) {
    case TY_NUM: return scalars[t->sc].size;
    case TY_HWVEC: return scalars[t->sc].size * (t->width == 2 ? 2 : 4);
    case TY_STRUCT: return 16;
    case TY_ENUM: return 4;
    default: return 1;
    }
}

int ty_std140_size(const Type *t) {
    switch (t->kind) {
    case TY_NUM: return scalars[t->sc].size;
    case TY_HWVEC: return scalars[t->sc].size * t->width; /* a 3-vector is 12 bytes */
    case TY_STRUCT: return t->sd->size;
    case TY_ENUM: return 4;
    default: return 0;
    }
}

int ty_vector_stride(const Type *elem, Align al) {
    int size = ty_sizeof(elem);
    if (al != AL_STD140) return size;
    int s = size < 16 ? 16 : size;
    return (s + 15) & ~15;
}
