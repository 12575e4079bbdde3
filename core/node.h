/* node.h - the one tree representation every stage of crisp passes along.
 *
 * The reader produces "syntax" nodes (lists, symbols, literals); the macro
 * expander rewrites syntax into syntax; the checker produces "checked" nodes
 * (typed expressions and statements) that the emitters print.  All kinds come
 * from the single NODE_KINDS X-macro list below, so dumps, golden tests and
 * debuggers agree on their names.
 *
 * Every node carries its source location (file:line:col).  A node created by
 * a macro expansion also points at the Expansion that produced it, so a
 * diagnostic can say "in expansion of macro `m` at file:line:col".  */
#ifndef CRISP_NODE_H
#define CRISP_NODE_H

#include <stddef.h>
#include <stdint.h>

typedef struct SrcFile {
    const char *name;  /* as given on the command line, or "<prelude>" */
    const char *text;  /* NUL-terminated contents */
    int len;
} SrcFile;

/* A place in a source file: 8 bytes, so that a node is 64 (issue 14:
 * the compilation's memory is mostly nodes).  The file is a number in a
 * process-wide table of the files read (srcfile_id, core/srcfile.c): build
 * a location with srcloc() and ask its file with srcloc_file().  A column
 * past SRCLOC_MAX_COL (a line longer than a megabyte) is given as
 * SRCLOC_MAX_COL. */
typedef struct SrcLoc {
    int line;          /* 1-based; 0 when unknown */
    unsigned col : 20; /* 1-based; 0 when unknown */
    unsigned fid : 12; /* srcfile_id of the file; 0: none */
} SrcLoc;

#define SRCLOC_MAX_COL 0xFFFFF
#define SRCFILE_MAX 0xFFF

/* The number of `f` in the table (registering it the first time), or 0
 * for NULL.  Thread-safe.  A file stays known while it is in use: the
 * table holds SRCFILE_MAX - 1 files, and when it is full the oldest file
 * not kept by srcfile_keep gives its number up (a compilation reads a
 * few files; the built-in texts, shared by every compilation, are kept). */
unsigned srcfile_id(const SrcFile *f);
void srcfile_keep(const SrcFile *f);
/* Give `f` the number `id` for good (kept), if `id` is free or f's
 * already: 1; else 0 (the library's forms carry numbers made at build
 * time, reader/libforms.h). */
int srcfile_claim(const SrcFile *f, unsigned id);
const SrcFile *srcfile_of(unsigned fid);

static inline SrcLoc srcloc_in(unsigned fid, int line, int col) {
    SrcLoc l;
    l.line = line;
    l.col = col < 0 ? 0u : col > SRCLOC_MAX_COL ? (unsigned)SRCLOC_MAX_COL : (unsigned)col;
    l.fid = fid;
    return l;
}

static inline SrcLoc srcloc(const SrcFile *f, int line, int col) {
    return srcloc_in(srcfile_id(f), line, col);
}

static inline const SrcFile *srcloc_file(SrcLoc l) {
    return l.fid ? srcfile_of(l.fid) : NULL;
}

/* One macro expansion step: the macro's name and where it was called.  The
 * chain through `parent` leads back to the user's own source. */
typedef struct Expansion {
    const char *macro;
    SrcLoc call;
    const struct Expansion *parent;
} Expansion;

#define NODE_KINDS(X)                                                        \
    /* --- syntax (reader output, expander input and output) --- */          \
    X(LIST, "list")           /* (a b c)                                 */  \
    X(SYMBOL, "symbol")       /* foo, foo:int, foo:(vector-type float)  */   \
    X(KEYWORD, "keyword")     /* :global                                 */  \
    X(INT, "int")             /* 42 #x2A #b101010 -7                     */  \
    X(FLOAT, "float")         /* 1.0 2.5e3                               */  \
    X(STRING, "string")       /* "text"                                  */  \
    X(VECLIT, "vector")       /* #(1 2 3) - also a signature in declare  */  \
    X(HWVEC, "hwvector")      /* ##(1 2 3 4)                             */  \
    /* --- checked tree (checker output, emitter input) --- */               \
    X(C_INTLIT, "int-literal")                                               \
    X(C_FLOATLIT, "float-literal")                                           \
    X(C_BOOLLIT, "bool-literal")                                             \
    X(C_VAR, "var")           /* reference to a local/param/global       */  \
    X(C_UNARY, "unary")       /* op a                                    */  \
    X(C_BINARY, "binary")     /* a op b                                  */  \
    X(C_CALL, "call")         /* user function or builtin call           */  \
    X(C_INDEX, "index")       /* vector element  v[i]                    */  \
    X(C_SWIZZLE, "swizzle")   /* v.xy                                    */  \
    X(C_MEMBER, "member")     /* s.field (struct member)                 */  \
    X(C_CAST, "cast")         /* (type)a  or  as_type(a)                 */  \
    X(C_SELECT, "select")     /* c ? a : b                               */  \
    X(C_HWVEC, "hwvec")       /* (float4)(a, b, c, d)                    */  \
    X(C_LENGTH, "length")     /* length of a vector value                */  \
    X(C_ASSIGN, "assign")     /* lhs = rhs / lhs op= rhs                 */  \
    X(C_BLOCK, "block")       /* { stmts }                               */  \
    X(C_DECL, "decl")         /* T x = init;                             */  \
    X(C_IF, "if")             /* if (c) {..} else {..}                   */  \
    X(C_FOR, "for")           /* for (init; cond; step) {..}             */  \
    X(C_EXPR, "expr-stmt")    /* e;                                      */  \
    X(C_RETURN, "return")     /* return e; (extra values via out-params) */  \
    X(C_BARRIER, "barrier")   /* barrier / mem_fence                     */  \
    X(C_ATOMIC, "atomic")     /* atomic_xxx(&loc, v) / bounded CAS loop  */  \
    X(C_BREAK, "break")                                                      \
    X(C_WARP, "warp")         /* warp operation (op: WarpOp, types/warps.c) */ \
    X(C_COMMENT, "comment")   /* a line comment carried into the output  */

typedef enum NodeKind {
#define X(k, s) N_##k,
    NODE_KINDS(X)
#undef X
    N__COUNT
} NodeKind;

const char *node_kind_name(NodeKind k);

struct Type;
struct Sym;

typedef struct Node Node;
struct Node {
    /* 64 bytes, no padding: the compilation's memory is mostly nodes (4.7
       million of them for 10 MB of Crisp, issue 14), so the syntax payload
       and the checked payload share their storage: a node is one or the
       other by its kind (N_LIST .. N_HWVEC: syntax; N_C_*: checked), and
       ival/fval/slen by the same token (INT/C_INTLIT/C_BOOLLIT,
       FLOAT/C_FLOATLIT, STRING).  Read only the members of the node's own
       kind. */
    unsigned char kind;       /* a NodeKind */
    unsigned char is_unsigned : 1; /* INT: literal too big for int64, read as uint64 */
    unsigned char marked : 1; /* made by a macro call and given its location in
                                 place (macros/expand.c mark_fresh) */
    unsigned char radix : 5;  /* INT, C_INTLIT: 16 or 2 when written #x / #b (a
                                 bit pattern in bit operations), else 0 */
    int16_t op;        /* checked: operator / builtin / cast / barrier id
                          (small enumerations); SYMBOL: macros/eval.c's
                          closure tag */
    int nkids;
    SrcLoc loc;
    const Expansion *origin;  /* NULL for text the user wrote directly */
    Node **kids;       /* LIST / VECLIT / HWVEC elements; C_* operands    */
    union {
        int64_t ival;  /* INT value; C_INTLIT value; BI_HELPER's helper  */
        double fval;   /* FLOAT value; C_FLOATLIT value                   */
        int slen;      /* STRING: byte length (may contain NUL)          */
    };
    union {
        struct {       /* syntax payload */
            const char *name; /* SYMBOL/KEYWORD: spelling as written (keyword
                                 without ':'); STRING: contents, unescaped */
            const char *key;  /* SYMBOL/KEYWORD: canonical (lower-case) spelling */
            Node *ann;        /* SYMBOL: the type annotation after ':' (or NULL) */
        };
        struct {       /* checked payload */
            struct Type *ty;  /* type of a checked expression                */
            struct Sym *sym;  /* C_VAR, C_DECL, C_CALL target, C_FOR variable */
            const char *text; /* C_SWIZZLE component letters, C_COMMENT text,
                                 C_CALL callee identifier (BI_CALL)          */
        };
    };
};

#endif
