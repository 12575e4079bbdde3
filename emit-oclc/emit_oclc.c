/* emit_oclc.c - prints a checked Program as readable OpenCL C 1.2.
 *
 * One C function per Crisp function instance, kernels last in call order;
 * a comment with the Crisp name and source location above each, and above
 * every loop or guard a macro produced ("dotimes at file:12").  Support
 * functions (relative ids, floor division, CAS loops) are printed once, only
 * when used, and are named crisp_*.  Expressions get the parentheses C needs
 * plus those clang's -Wparentheses asks for. */
#include "ctext.h"
#include "emit_oclc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/printer.h"
#include "../core/syntax.h"
#include "floattext.h"
#include "names.h"
#include "reads.h"
#include "survey.h"
#include "warps.h"

typedef struct Em {
    Printer pr;
    StrBuf *out;
    Arena *a;
    const Program *p;
    int in_arith;  /* printing an operand of + - * / %: C promotes it anyway */
    OclcReads *reads; /* the function's unread variables (reads.h), or NULL */
    OclcReads *scanner; /* the emission's (reads.h), or NULL */
    int kconst;    /* a kernel takes a :constant vector: such memory is CRISP_CONSTANT (kconst_out) */
    struct FloatSpelling *floats; /* FLOAT_MEMO spellings (float_out), or NULL */
    unsigned file_fid;            /* the file file_out wrote last (its number), */
    const char *file_base;        /* its name without the folders, */
    size_t file_len;              /* and that name's length */
    OclcSurvey *sv;               /* what the header needs, noted function by function (func_out_1), or NULL */
} Em;

/* ` OP ` for a binary operator, one move (not a string copied byte by
 * byte between two characters). */
static void op_spaced_out(StrBuf *b, int op) {
    const char *t = oclc_op_text(op);
    if (t[0] && t[1] && !t[2]) {
        const char c[4] = {' ', t[0], t[1], ' '};
        sb_putn(b, c, 4);
    } else if (t[0] && !t[1]) {
        const char c[3] = {' ', t[0], ' '};
        sb_putn(b, c, 3);
    } else {
        sb_putc(b, ' ');
        sb_puts(b, t);
        sb_putc(b, ' ');
    }
}

static const char *basename_of(const char *path);
static void file_out(Em *e, SrcLoc loc);
static void survey_params(OclcSurvey *sv, const CFunc *fn);

/* ---- types ---- */

static int padded(const Type *vec) {
    return vec->align == AL_STD140 && ty_vector_stride(vec->elem, AL_STD140) != ty_sizeof(vec->elem);
}

const char *oclc_elem_type(Arena *a, const Type *vec) {
    if (padded(vec)) return arena_printf(a, "crisp_std140_%s", oclc_type_name(vec->elem));
    return oclc_type_name(vec->elem);
}

static const char *as_qual(AddrSpace as) {
    switch (as) {
    case AS_GLOBAL: return "__global ";
    case AS_LOCAL: return "__local ";
    case AS_CONSTANT: return "__constant ";
    default: return "";
    }
}

const char *oclc_pointer_type(Arena *a, const Type *vec) {
    int is_const = vec->acc == ACC_READ_ONLY && vec->as != AS_CONSTANT;
    return arena_printf(a, "%s%s%s *", as_qual(vec->as), is_const ? "const " : "", oclc_elem_type(a, vec));
}

/* The qualifier of `as` in this program's code: :constant memory is
 * CRISP_CONSTANT where a kernel takes a :constant vector (kconst_out). */
static const char *em_qual(const Em *e, AddrSpace as) {
    return as == AS_CONSTANT && e->kconst ? "CRISP_CONSTANT " : as_qual(as);
}

static const char *em_pointer_type(const Em *e, const Type *vec) {
    const char *t = oclc_pointer_type(e->a, vec);
    if (vec->as != AS_CONSTANT || !e->kconst) return t;
    return arena_printf(e->a, "%s%s", em_qual(e, AS_CONSTANT), t + strlen(as_qual(AS_CONSTANT)));
}

/* em_pointer_type's text written out, without making the string (the
 * emitter's frequent parts print with sb_* calls, not formats: issue 14) */
static void pointer_type_out(const Em *e, const Type *vec) {
    switch (vec->as) { /* em_qual's words, as literals */
    case AS_GLOBAL: SB_LIT(e->out, "__global "); break;
    case AS_LOCAL: SB_LIT(e->out, "__local "); break;
    case AS_CONSTANT: sb_puts(e->out, em_qual(e, AS_CONSTANT)); break;
    default: break;
    }
    if (vec->acc == ACC_READ_ONLY && vec->as != AS_CONSTANT) SB_LIT(e->out, "const ");
    if (padded(vec)) SB_LIT(e->out, "crisp_std140_");
    sb_puts(e->out, oclc_type_name(vec->elem));
    SB_LIT(e->out, " *");
}

static void type_out(const Em *e, const Type *t) {
    sb_puts(e->out, oclc_type_name(t));
}

/* ---- expressions ---- */

static const char *oclc_helper_name(Arena *a, const Helper *h);
static void helper_name_out(Em *e, const Helper *h);
static const char *builtin_spelling(int op, const Type *t);
static const char *barrier_spelling(int op);

static inline int prec_of(const Node *n) {
    switch (n->kind) {
    case N_C_UNARY: return 14;
    case N_C_CAST: /* convert_T(x) binds like a call; (T)x and *(T *)&x like unary operators */
        return n->op == CAST_VALUE || n->op == CAST_REINTERPRET ? 14 : 16;
    case N_C_BINARY:
        switch (n->op) {
        case OP_MUL: case OP_DIV: case OP_MOD: return 13;
        case OP_ADD: case OP_SUB: return 12;
        case OP_SHL: case OP_SHR: return 11;
        case OP_LT: case OP_GT: case OP_LE: case OP_GE: return 10;
        case OP_EQ: case OP_NE: return 9;
        case OP_BAND: return 8;
        case OP_BXOR: return 7;
        case OP_BOR: return 6;
        case OP_AND: return 5;
        case OP_OR: return 4;
        default: return 2;
        }
    case N_C_SELECT: return 3;
    case N_C_ASSIGN: return 2;
    default: return 16;
    }
}

static int narrow_int(const Type *t) {
    return t && t->kind == TY_NUM && (t->sc == SC_CHAR || t->sc == SC_UCHAR || t->sc == SC_SHORT || t->sc == SC_USHORT);
}

static void expr_out(Em *e, const Node *n, int min_prec);
static void warp_out(Em *e, const Node *n);

/* The shortest %g spelling of v that reads back as the same float or
 * double (floattext.c), with `.0` where it would read as an integer and
 * `f` on a float.  A program repeats its constants, so emit_oclc
 * remembers the spellings it made, direct-mapped by the value's bits (the
 * spelling depends on nothing else). */
#define FLOAT_MEMO_BITS 12
#define FLOAT_MEMO (1 << FLOAT_MEMO_BITS)
typedef struct FloatSpelling {
    uint64_t bits;
    unsigned char used, is_double, len;
    char text[29]; /* at most 24: "-1.2345678901234567e-308" and ".0" or "f" */
} FloatSpelling;

static void float_out(Em *e, double v, int is_double) {
    if (isnan(v)) { SB_LIT(e->out, "NAN"); return; }
    if (isinf(v)) { sb_puts(e->out, v < 0 ? "-INFINITY" : "INFINITY"); return; }
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t h = (bits ^ (uint64_t)is_double) * 0x9E3779B97F4A7C15ull;
    FloatSpelling *m = e->floats ? &e->floats[h >> (64 - FLOAT_MEMO_BITS)] : NULL;
    if (m && m->used && m->bits == bits && m->is_double == is_double) {
        sb_putn(e->out, m->text, m->len);
        return;
    }
    char buf[64];
    oclc_float_digits(buf, v, is_double);
    if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
    if (!is_double) strcat(buf, "f");
    size_t n = strlen(buf);
    sb_putn(e->out, buf, n);
    if (m && n < sizeof m->text) {
        m->used = 1;
        m->bits = bits;
        m->is_double = (unsigned char)is_double;
        m->len = (unsigned char)n;
        memcpy(m->text, buf, n + 1);
    }
}

/* The identifier of the field a member node selects (its Crisp name in
 * n->text): the one the naming pass gave the field of its struct. */
static const char *member_ident(Em *e, const Node *n) {
    const Type *st = n->kids[0]->ty;
    if (st && st->kind == TY_STRUCT)
        for (int i = 0; i < st->sd->nfields; i++)
            if (syn_streq(st->sd->fields[i].name, n->text) && st->sd->fields[i].cname) return st->sd->fields[i].cname;
    return oclc_spell(e->a, n->text);
}

static void int_out(Em *e, const Node *n) {
    if (n->ty && n->ty->kind == TY_ENUM && n->text) {
        /* a key (its Crisp key in n->text): its identifier, phylum_chordata */
        const EnumDef *ed = n->ty->ed;
        for (int j = 0; j < ed->nkeys; j++)
            if (syn_streq(ed->keys[j], n->text)) {
                sb_puts(e->out, ed->cnames[j]);
                return;
            }
    }
    Scalar s = n->ty && n->ty->kind == TY_NUM ? n->ty->sc : SC_INT;
    int64_t v = n->ival;
    if (n->radix && v < 0 && (s == SC_LONG || s == SC_INT || s == SC_SHORT || s == SC_CHAR)) {
        /* a #x / #b literal read as a bit pattern in a bit operation
           (docs/language.md): those bits, reinterpreted */
        if (s == SC_LONG) sb_printf(e->out, "as_long(0x%llxUL)", (unsigned long long)(uint64_t)v);
        else if (s == SC_INT) sb_printf(e->out, "as_int(0x%xu)", (unsigned)(uint32_t)v);
        else if (s == SC_SHORT) sb_printf(e->out, "as_short((ushort)0x%x)", (unsigned)(uint16_t)v);
        else sb_printf(e->out, "as_char((uchar)0x%x)", (unsigned)(uint8_t)v);
        return;
    }
    if (s == SC_ULONG) {
        sb_putull(e->out, (unsigned long long)(uint64_t)v);
        SB_LIT(e->out, "UL");
    } else if (s == SC_LONG) {
        if (v == INT64_MIN) SB_LIT(e->out, "(-9223372036854775807L - 1)");
        else {
            sb_putll(e->out, (long long)v);
            sb_putc(e->out, 'L');
        }
    } else if (s == SC_UINT) {
        sb_putull(e->out, (unsigned long long)(uint32_t)v);
        sb_putc(e->out, 'u');
    } else if (s == SC_INT && v == INT32_MIN) SB_LIT(e->out, "(-2147483647 - 1)");
    else {
        if (narrow_int(n->ty) && !e->in_arith) {
            sb_putc(e->out, '(');
            type_out(e, n->ty);
            sb_putc(e->out, ')');
        }
        sb_putll(e->out, (long long)v);
    }
}

/* A variable as an operand, without expr_out's call (issue 14: 30k of
 * big1's 81k expressions are variables): its C name, `*` before a hidden
 * out-pointer; a variable binds like any primary expression (prec_of 16),
 * so no parentheses where MIN_PREC <= 16.  0: not such a node. */
static inline int var_operand_out(Em *e, const Node *k, int min_prec) {
    if (!k || k->kind != N_C_VAR || min_prec > 16) return 0;
    if (k->sym->kind == SYM_RETPTR) sb_putc(e->out, '*');
    sb_puts(e->out, k->sym->cname);
    return 1;
}

static void args_out(Em *e, Node **kids, int n) {
    int saved = e->in_arith;
    e->in_arith = 0;
    for (int i = 0; i < n; i++) {
        if (i) SB_LIT(e->out, ", ");
        if (!var_operand_out(e, kids[i], 3)) expr_out(e, kids[i], 3);
    }
    e->in_arith = saved;
}

static int is_logic_or_bit(int op) {
    return op == OP_AND || op == OP_OR || op == OP_BAND || op == OP_BOR || op == OP_BXOR || op == OP_SHL || op == OP_SHR;
}

static void binary_out(Em *e, const Node *n) {
    int p = prec_of(n);
    int saved = e->in_arith;
    e->in_arith = n->op <= OP_MOD;
    for (int side = 0; side < 2; side++) {
        const Node *k = n->kids[side];
        int need = side == 0 ? p : p + 1;
        /* clang -Wparentheses: make mixed &&/|| and bit operators explicit */
        int logic = n->op == OP_AND || n->op == OP_OR;
        if (k->kind == N_C_BINARY && k->op != n->op && is_logic_or_bit(n->op) &&
            (logic ? (k->op == OP_AND || k->op == OP_OR) : 1))
            need = 17;
        if (side) op_spaced_out(e->out, n->op);
        if (!var_operand_out(e, k, need)) expr_out(e, k, need);
    }
    e->in_arith = saved;
}

/* A warp operation (emit-oclc/warps.c): crisp_lane_id(), or for a shuffle
 * crisp_shuffle_T(VALUE, crisp_lane_xor(MASK), crisp_warp_mem, crisp_warp_mem_len); in
 * %native-warp-if's native branch (no warp memory) crisp_shuffle_native_T(VALUE, ...). */
static void warp_out(Em *e, const Node *n) {
    if (n->op == WARP_BALLOT) {
        int saved = e->in_arith;
        e->in_arith = 0;
        sb_printf(e->out, "%s(", oclc_warp_name(e->a, n->sym ? WARP_BALLOT : WARP_BALLOT_NATIVE, NULL));
        expr_out(e, n->kids[0], 3);
        if (n->sym) sb_printf(e->out, ", %s, %s", n->sym->cname, n->sym->len_cname);
        else sb_puts(e->out, n->ival ? ", true" : ", false"); /* whole warps? */
        sb_putc(e->out, ')');
        e->in_arith = saved;
        return;
    }
    if (n->op < WARP_SHUFFLE) {
        sb_printf(e->out, "%s()", oclc_warp_name(e->a, n->op == WARP_SYNC && n->ival ? WARP_SYNC_WHOLE : n->op, NULL));
        return;
    }
    int saved = e->in_arith;
    e->in_arith = 0;
    sb_printf(e->out, "%s(", oclc_warp_name(e->a, n->sym ? WARP_READ : WARP_READ_NATIVE, n->ty));
    expr_out(e, n->kids[0], 3);
    if (n->sym) {
        sb_printf(e->out, ", %s(", oclc_warp_name(e->a, n->op, NULL));
        expr_out(e, n->kids[1], 3);
        sb_printf(e->out, "), %s, %s)", n->sym->cname, n->sym->len_cname);
    } else {
        /* %native-warp-if: native shuffles need no memory, and take the
           form's own mode and operand (emit-oclc/warps.c) */
        static const char *const mode[] = {"CRISP_SHFL_IDX", "CRISP_SHFL_UP", "CRISP_SHFL_DOWN", "CRISP_SHFL_XOR"};
        sb_printf(e->out, ", %s%s, ", mode[n->op - WARP_SHUFFLE], n->ival ? " | CRISP_SHFL_WHOLE" : "");
        expr_out(e, n->kids[1], 3);
        sb_putc(e->out, ')');
    }
    e->in_arith = saved;
}

static void expr_out(Em *e, const Node *n, int min_prec) {
    if (!n) {
        SB_LIT(e->out, "0 /* missing */");
        return;
    }
    int p = prec_of(n);
    /* arithmetic on char/short happens in int in C; keep Crisp's type */
    int wrap_narrow = n->kind == N_C_BINARY && narrow_int(n->ty) && n->op <= OP_MOD;
    int paren = p < min_prec && !wrap_narrow;
    if (wrap_narrow) {
        sb_putc(e->out, '(');
        type_out(e, n->ty);
        SB_LIT(e->out, ")(");
    }
    if (paren) sb_putc(e->out, '(');
    switch (n->kind) {
    case N_C_INTLIT: int_out(e, n); break;
    case N_C_FLOATLIT: float_out(e, n->fval, n->ty->sc == SC_DOUBLE); break;
    case N_C_BOOLLIT:
        if (n->ival) SB_LIT(e->out, "true");
        else SB_LIT(e->out, "false");
        break;
    case N_C_VAR:
        if (n->sym->kind == SYM_RETPTR) sb_putc(e->out, '*');
        sb_puts(e->out, n->sym->cname);
        break;
    case N_C_LENGTH:
        if (n->sym->len_cname) sb_puts(e->out, n->sym->len_cname);
        else {
            sb_putll(e->out, (long long)n->sym->ty->length);
            SB_LIT(e->out, "UL");
        }
        break;
    case N_C_UNARY: {
        sb_puts(e->out, oclc_op_text(n->op));
        /* avoid "- -x", "--4" (a negative literal) and "&*" surprises */
        const Node *k = n->kids[0];
        int neg_lit = (k->kind == N_C_INTLIT && k->ival < 0 && !k->is_unsigned) || (k->kind == N_C_FLOATLIT && k->fval < 0);
        expr_out(e, k, k->kind == N_C_UNARY || neg_lit ? 17 : 14);
        break;
    }
    case N_C_BINARY: binary_out(e, n); break;
    case N_C_CALL:
        if (n->op == BI_CALL) sb_puts(e->out, n->text);
        else if (n->op == BI_HELPER) helper_name_out(e, e->p->helpers[n->ival]);
        /* work-item queries CUDA lacks go through macros (nvptx_guards_out) */
        else if (n->op == BI_GLOBAL_OFFSET) SB_LIT(e->out, "CRISP_GLOBAL_OFFSET");
        else if (n->op == BI_WORK_DIM) SB_LIT(e->out, "CRISP_WORK_DIM");
        else sb_puts(e->out, builtin_spelling(n->op, n->ty));
        sb_putc(e->out, '(');
        args_out(e, n->kids, n->nkids);
        sb_putc(e->out, ')');
        break;
    case N_C_INDEX:
        /* A __local vector indexed by BASE + K, K a literal: (V + BASE)[K].
           NVIDIA's OpenCL compiler does not fold the K of V[BASE + K] into the
           shared-memory instruction: each such index became a 64-bit register
           held across the loop (the grid scans' warp-striped tile, 122
           registers; docs/performance.md); V + BASE is one pointer and K an
           offset in the instruction.  (An unsigned BASE only: a negative one
           would point before the vector.) */
        if (n->kids[0]->ty && n->kids[0]->ty->kind == TY_VECTOR && n->kids[0]->ty->as == AS_LOCAL &&
            n->op != INDEX_PADDED && n->kids[1]->kind == N_C_BINARY && n->kids[1]->op == OP_ADD &&
            n->kids[1]->kids[1]->kind == N_C_INTLIT && n->kids[1]->kids[0]->kind != N_C_INTLIT &&
            n->kids[1]->kids[0]->ty && n->kids[1]->kids[0]->ty->kind == TY_NUM &&
            (n->kids[1]->kids[0]->ty->sc == SC_ULONG || n->kids[1]->kids[0]->ty->sc == SC_UINT)) {
            sb_putc(e->out, '(');
            expr_out(e, n->kids[0], 12);
            SB_LIT(e->out, " + ");
            expr_out(e, n->kids[1]->kids[0], 13);
            SB_LIT(e->out, ")[");
            expr_out(e, n->kids[1]->kids[1], 0);
            sb_putc(e->out, ']');
            break;
        }
        if (!var_operand_out(e, n->kids[0], 16)) expr_out(e, n->kids[0], 16);
        sb_putc(e->out, '[');
        if (!var_operand_out(e, n->kids[1], 0)) expr_out(e, n->kids[1], 0);
        sb_putc(e->out, ']');
        if (n->op == INDEX_PADDED) SB_LIT(e->out, ".v"); /* the field of crisp_std140_T */
        break;
    case N_C_SWIZZLE:
        expr_out(e, n->kids[0], 16);
        sb_putc(e->out, '.');
        sb_puts(e->out, n->text);
        break;
    case N_C_MEMBER:
        expr_out(e, n->kids[0], 16);
        sb_putc(e->out, '.');
        sb_puts(e->out, member_ident(e, n));
        break;
    case N_C_CAST:
        if (n->op == CAST_SAME) {
            expr_out(e, n->kids[0], min_prec); /* a derived type: the same C type */
            break;
        }
        if (n->op == CAST_REINTERPRET) {
            SB_LIT(e->out, "*("); /* set-derived: reinterpret the bytes */
            type_out(e, n->ty);
            SB_LIT(e->out, " *)&");
            expr_out(e, n->kids[0], 16);
            break;
        }
        if (n->op != CAST_VALUE) {
            static const char *const mode[] = {"", "", "_rtz", "_rtn", "_rtp", "_rte", ""};
            if (n->op == CAST_BITS) SB_LIT(e->out, "as_");
            else SB_LIT(e->out, "convert_");
            type_out(e, n->ty);
            sb_puts(e->out, n->op <= CAST_RTE ? mode[n->op] : "");
            sb_putc(e->out, '(');
            expr_out(e, n->kids[0], 0);
            sb_putc(e->out, ')');
        } else if (n->ty->kind == TY_VECTOR) {
            sb_putc(e->out, '(');
            pointer_type_out(e, n->ty);
            sb_putc(e->out, ')');
            expr_out(e, n->kids[0], 14);
        } else {
            sb_putc(e->out, '(');
            type_out(e, n->ty);
            sb_putc(e->out, ')');
            expr_out(e, n->kids[0], 14);
        }
        break;
    case N_C_SELECT:
        expr_out(e, n->kids[0], 4);
        SB_LIT(e->out, " ? ");
        expr_out(e, n->kids[1], 4);
        SB_LIT(e->out, " : ");
        expr_out(e, n->kids[2], 3);
        break;
    case N_C_HWVEC:
        sb_putc(e->out, '(');
        type_out(e, n->ty);
        SB_LIT(e->out, ")(");
        args_out(e, n->kids, n->nkids);
        sb_putc(e->out, ')');
        break;
    case N_C_ASSIGN:
        expr_out(e, n->kids[0], 14);
        sb_putc(e->out, ' ');
        if (n->op != OP_SET) sb_puts(e->out, oclc_op_text(n->op));
        SB_LIT(e->out, "= ");
        expr_out(e, n->kids[1], 2);
        break;
    case N_C_BARRIER: sb_puts(e->out, barrier_spelling(n->op)); break;
    case N_C_BLOCK: SB_LIT(e->out, "(void)0"); break;
    case N_C_WARP: warp_out(e, n); break;
    default: sb_printf(e->out, "/* %s */", node_kind_name(n->kind)); break;
    }
    if (paren) sb_putc(e->out, ')');
    if (wrap_narrow) sb_putc(e->out, ')');
}

/* ---- statements ---- */

static void indent_out(Em *e) {
    pr_start(&e->pr);
}

/* A line without directives, its newline included (a literal). */
#define line_out(e, lit) (pr_start(&(e)->pr), SB_LIT((e)->out, lit))

/* A comment line: TEXT between comment marks. */
static void comment_out(Em *e, const char *text) {
    pr_start(&e->pr);
    SB_LIT(e->out, "/* ");
    sb_puts(e->out, text);
    SB_LIT(e->out, " */\n");
}

/* The user-level macro a statement came from, when worth a comment. */
static const Expansion *comment_origin(const Node *n) {
    if (!n->origin) return NULL;
    const Expansion *x = n->origin;
    while (x->parent) x = x->parent; /* the macro the user wrote */
    if (syn_streq(x->macro, "when") || syn_streq(x->macro, "unless") || syn_streq(x->macro, "cond")) return NULL;
    return x;
}

static void origin_comment(Em *e, const Node *n) {
    const Expansion *x = comment_origin(n);
    if (!x) return;
    pr_start(&e->pr);
    SB_LIT(e->out, "/* ");
    sb_puts(e->out, x->macro);
    SB_LIT(e->out, " at ");
    file_out(e, x->call);
    sb_putc(e->out, ':');
    sb_putll(e->out, x->call.line);
    SB_LIT(e->out, " */\n");
}

/* `(void)name;` after a variable nobody reads (reads.h). */
static void unread_mark(Em *e, int state, const char *name) {
    if (state != OCLC_DECL_MARK) return;
    pr_start(&e->pr);
    SB_LIT(e->out, "(void)");
    sb_puts(e->out, name);
    SB_LIT(e->out, "; /* not read */\n");
}

static void decl_out(Em *e, const Node *n) {
    Sym *s = n->sym;
    Type *t = s->ty ? s->ty : n->ty;
    if (!t) return;
    if (s->is_view) {
        /* a vector over side-channel or marshalled memory: pointer + length */
        int state = oclc_reads_decl(e->reads, n, 0);
        if (state != OCLC_DECL_DROP) {
            indent_out(e);
            pointer_type_out(e, t);
            sb_puts(e->out, s->cname);
            SB_LIT(e->out, " = ");
            expr_out(e, n->kids[0], 2);
            SB_LIT(e->out, ";\n");
            unread_mark(e, state, s->cname);
        }
        state = oclc_reads_decl(e->reads, n, 1);
        if (state != OCLC_DECL_DROP) {
            indent_out(e);
            SB_LIT(e->out, "ulong ");
            sb_puts(e->out, s->len_cname);
            SB_LIT(e->out, " = ");
            expr_out(e, n->kids[1], 2);
            SB_LIT(e->out, ";\n");
            unread_mark(e, state, s->len_cname);
        }
        return;
    }
    int state = oclc_reads_decl(e->reads, n, 0);
    if (state == OCLC_DECL_DROP) return;
    indent_out(e);
    if (t->kind == TY_VECTOR) {
        sb_puts(e->out, em_qual(e, t->as));
        if (padded(t)) SB_LIT(e->out, "crisp_std140_");
        type_out(e, t->elem);
        sb_putc(e->out, ' ');
        sb_puts(e->out, s->cname);
        sb_putc(e->out, '[');
        sb_putll(e->out, (long long)t->length);
        sb_putc(e->out, ']');
        if (sym_rare(s)->init) {
            SB_LIT(e->out, " = {");
            args_out(e, sym_rare(s)->init->kids, sym_rare(s)->init->nkids);
            sb_putc(e->out, '}');
        }
    } else {
        type_out(e, t);
        sb_putc(e->out, ' ');
        sb_puts(e->out, s->cname);
        if (n->nkids && n->kids[0]) {
            SB_LIT(e->out, " = ");
            expr_out(e, n->kids[0], 2);
        }
    }
    SB_LIT(e->out, ";\n");
    unread_mark(e, state, s->cname);
}

static void stmt_out(Em *e, const Node *n);

static void block_body(Em *e, const Node *blk) {
    if (!blk) return;
    for (int i = 0; i < blk->nkids; i++) stmt_out(e, blk->kids[i]);
}

static int is_var(const Node *n, const Sym *s) {
    return n->kind == N_C_VAR && n->sym == s;
}

static void for_out(Em *e, const Node *n) {
    Sym *v = n->sym;
    const Node *step = n->kids[2];
    origin_comment(e, n);
    indent_out(e);
    SB_LIT(e->out, "for (");
    type_out(e, v->ty);
    sb_putc(e->out, ' ');
    sb_puts(e->out, v->cname);
    SB_LIT(e->out, " = ");
    expr_out(e, n->kids[0], 2);
    SB_LIT(e->out, "; ");
    expr_out(e, n->kids[1], 0);
    SB_LIT(e->out, "; ");
    if (step->kind == N_C_BINARY && is_var(step->kids[0], v) &&
        (step->op == OP_ADD || step->op == OP_SUB || step->op == OP_MUL || step->op == OP_DIV)) {
        sb_puts(e->out, v->cname);
        sb_putc(e->out, ' ');
        sb_puts(e->out, oclc_op_text(step->op));
        SB_LIT(e->out, "= ");
        expr_out(e, step->kids[1], 2);
    } else {
        sb_puts(e->out, v->cname);
        SB_LIT(e->out, " = ");
        expr_out(e, step, 2);
    }
    SB_LIT(e->out, ") {\n");
    pr_indent(&e->pr);
    if (oclc_reads_decl(e->reads, n, 0) == OCLC_DECL_MARK) {
        pr_start(&e->pr);
        SB_LIT(e->out, "(void)");
        sb_puts(e->out, v->cname);
        SB_LIT(e->out, "; /* counts only */\n");
    }
    block_body(e, n->kids[3]);
    pr_dedent(&e->pr);
    line_out(e, "}\n");
}

/* An N_C_IF of %native-warp-if (types/check.c, docs/warps.md): the native
 * branch exists only where a native lowering is compiled; elsewhere the
 * preprocessor leaves the fallback block alone. */
static void native_warp_if_out(Em *e, const Node *n) {
    origin_comment(e, n);
    SB_LIT(e->out, "#if defined(CRISP_WARP_PTX) || defined(CRISP_WARP_SUBGROUPS)\n");
    indent_out(e);
    sb_printf(e->out, "if (%s() && ", oclc_warp_name(e->a, WARP_NATIVE, NULL));
    expr_out(e, n->kids[0], 6);
    SB_LIT(e->out, ") {\n");
    pr_indent(&e->pr);
    block_body(e, n->kids[1]);
    pr_dedent(&e->pr);
    line_out(e, "} else\n");
    SB_LIT(e->out, "#endif\n");
    line_out(e, "{\n");
    pr_indent(&e->pr);
    if (n->kids[2]) block_body(e, n->kids[2]);
    pr_dedent(&e->pr);
    line_out(e, "}\n");
}

static void if_out(Em *e, const Node *n, int chained) {
    if (n->op == IF_NATIVE_WARP) {
        if (chained) SB_LIT(e->out, "\n");
        native_warp_if_out(e, n);
        return;
    }
    if (!chained) {
        origin_comment(e, n);
        if (n->text) comment_out(e, n->text);
        indent_out(e);
    }
    SB_LIT(e->out, "if (");
    expr_out(e, n->kids[0], 0);
    SB_LIT(e->out, ") {\n");
    pr_indent(&e->pr);
    block_body(e, n->kids[1]);
    pr_dedent(&e->pr);
    const Node *els = n->kids[2];
    if (els && els->nkids == 1 && els->kids[0]->kind == N_C_IF && els->kids[0]->op != IF_NATIVE_WARP && !comment_origin(els->kids[0]) && !els->kids[0]->text) {
        indent_out(e);
        SB_LIT(e->out, "} else ");
        if_out(e, els->kids[0], 1);
        return;
    }
    if (els && els->nkids) {
        line_out(e, "} else {\n");
        pr_indent(&e->pr);
        block_body(e, els);
        pr_dedent(&e->pr);
    }
    line_out(e, "}\n");
}

static void stmt_out(Em *e, const Node *n) {
    if (!n) return;
    switch (n->kind) {
    case N_C_DECL:
        if (n->sym && n->sym->ty && n->sym->ty->kind == TY_IDENT) break; /* an identity tensor has no data */
        decl_out(e, n);
        break;
    case N_C_BLOCK: block_body(e, n); break; /* names are unique per function */
    case N_C_IF: if_out(e, n, 0); break;
    case N_C_FOR: for_out(e, n); break;
    case N_C_EXPR:
        if (n->kids[0]->kind == N_C_BLOCK) break;
        indent_out(e);
        expr_out(e, n->kids[0], 0);
        SB_LIT(e->out, ";\n");
        break;
    case N_C_RETURN:
        indent_out(e);
        if (n->nkids) {
            SB_LIT(e->out, "return ");
            expr_out(e, n->kids[0], 0);
            SB_LIT(e->out, ";\n");
        } else {
            SB_LIT(e->out, "return;\n");
        }
        break;
    case N_C_BARRIER:
        pr_start(&e->pr);
        sb_puts(e->out, barrier_spelling(n->op));
        SB_LIT(e->out, ";\n");
        break;
    case N_C_BREAK:
        pr_start(&e->pr);
        SB_LIT(e->out, "break;\n");
        break;
    case N_C_COMMENT: comment_out(e, n->text); break;
    default:
        indent_out(e);
        expr_out(e, n, 0);
        SB_LIT(e->out, ";\n");
    }
}

/* ---- support functions ---- */

/* oclc_helper_name's text written out (a call, a definition), without
 * making the string where it is a prefix and a type. */
static void helper_name_out(Em *e, const Helper *h) {
    const char *pre;
    switch (h->kind) {
    case H_GLOBAL_ID: SB_LIT(e->out, "crisp_global_id"); return;
    case H_GLOBAL_LINEAR_ID: SB_LIT(e->out, "crisp_global_linear_id"); return;
    case H_LOCAL_LINEAR_ID: SB_LIT(e->out, "crisp_local_linear_id"); return;
    case H_FLOOR_DIV: pre = "crisp_floor_div_"; break;
    case H_CEIL_DIV: pre = "crisp_ceil_div_"; break;
    case H_ROUND_DIV: pre = "crisp_round_div_"; break;
    case H_STD140_ELEM: pre = "crisp_std140_"; break;
    case H_MAKE_STRUCT: pre = "make_"; break;
    default: sb_puts(e->out, oclc_helper_name(e->a, h)); return;
    }
    sb_puts(e->out, pre);
    sb_puts(e->out, h->ty ? oclc_type_name(h->ty) : "");
}

/* The OpenCL C name of support function `h` (the checker only says what
 * it does). */
static const char *oclc_helper_name(Arena *a, const Helper *h) {
    const char *t = h->ty ? oclc_type_name(h->ty) : "";
    switch (h->kind) {
    case H_GLOBAL_ID: return "crisp_global_id";
    case H_GLOBAL_LINEAR_ID: return "crisp_global_linear_id";
    case H_LOCAL_LINEAR_ID: return "crisp_local_linear_id";
    case H_GLOBAL_LINEAR_SIZE: return "crisp_global_linear_size";
    case H_LOCAL_LINEAR_SIZE: return "crisp_local_linear_size";
    case H_POW2_BELOW: return "crisp_pow2_below";
    case H_FLOOR_DIV: return arena_printf(a, "crisp_floor_div_%s", t);
    case H_CEIL_DIV: return arena_printf(a, "crisp_ceil_div_%s", t);
    case H_ROUND_DIV: return arena_printf(a, "crisp_round_div_%s", t);
    case H_STD140_ELEM: return arena_printf(a, "crisp_std140_%s", t);
    case H_MAKE_STRUCT: return arena_printf(a, "make_%s", t);
    case H_DEVICE_HAS: return arena_printf(a, "crisp_device_has_%s", h->key);
    case H_ATOMIC_LOAD: return arena_printf(a, "crisp_atomic_load_%s_%s", t, ty_as_name(h->as));
    case H_ATOMIC_STORE: return arena_printf(a, "crisp_atomic_store_%s_%s", t, ty_as_name(h->as));
    case H_WARP: return oclc_warp_name(a, h->op, h->ty);
    case H_DEBUG_LOG: {
        const char *nm = "crisp_log";
        for (int j = 0; j < h->ntys; j++) nm = arena_printf(a, "%s_%s", nm, oclc_type_name(h->tys[j]));
        return nm;
    }
    case H_ATOMIC_RMW: {
        int op = h->op;
        const char *opname = h->fn ? h->fn->cname : op == -1 ? "min" : op == -2 ? "max" : op == OP_ADD ? "add" : op == OP_SUB ? "sub"
                             : op == OP_MUL ? "mul" : op == OP_BAND ? "and" : op == OP_BOR ? "or" : op == OP_BXOR ? "xor"
                             : op == OP_SET ? "xchg" : "op";
        return arena_printf(a, "crisp_atomic_%s_%s_%s", opname, t, ty_as_name(h->as));
    }
    }
    return "crisp_helper";
}

/* The OpenCL C 1.2 spelling of a builtin (check.h BUILTIN_OPS) whose
 * result has type `t`: 64-bit atomics are cl_khr_int64's atom_*. */
static const char *builtin_spelling(int op, const Type *t) {
    int wide = t && ty_sizeof(t) == 8;
    switch (op) {
    case BI_ABS: return "abs";
    case BI_FABS: return "fabs";
    case BI_MIN: return "min";
    case BI_MAX: return "max";
    case BI_CLAMP: return "clamp";
    case BI_SQRT: return "sqrt";
    case BI_RSQRT: return "rsqrt";
    case BI_POW: return "pow";
    case BI_EXP: return "exp";
    case BI_LOG: return "log";
    case BI_LOG2: return "log2";
    case BI_SIN: return "sin";
    case BI_COS: return "cos";
    case BI_TAN: return "tan";
    case BI_ASIN: return "asin";
    case BI_ACOS: return "acos";
    case BI_ATAN: return "atan";
    case BI_ATAN2: return "atan2";
    case BI_GLOBAL_ID_ABS: return "get_global_id";
    case BI_LOCAL_ID: return "get_local_id";
    case BI_GROUP_ID: return "get_group_id";
    case BI_NUM_GROUPS: return "get_num_groups";
    case BI_GLOBAL_SIZE: return "get_global_size";
    case BI_LOCAL_SIZE: return "get_local_size";
    case BI_GLOBAL_OFFSET: return "get_global_offset";
    case BI_WORK_DIM: return "get_work_dim";
    case BI_ATOMIC_ADD: return wide ? "atom_add" : "atomic_add";
    case BI_ATOMIC_SUB: return wide ? "atom_sub" : "atomic_sub";
    case BI_ATOMIC_INC: return wide ? "atom_inc" : "atomic_inc";
    case BI_ATOMIC_DEC: return wide ? "atom_dec" : "atomic_dec";
    case BI_ATOMIC_MIN: return wide ? "atom_min" : "atomic_min";
    case BI_ATOMIC_MAX: return wide ? "atom_max" : "atomic_max";
    case BI_ATOMIC_XCHG: return wide ? "atom_xchg" : "atomic_xchg";
    case BI_ATOMIC_AND: return wide ? "atom_and" : "atomic_and";
    case BI_ATOMIC_OR: return wide ? "atom_or" : "atomic_or";
    case BI_ATOMIC_XOR: return wide ? "atom_xor" : "atomic_xor";
    }
    return "?";
}

static const char *barrier_spelling(int op) {
    switch (op) {
    case BAR_LOCAL: return "barrier(CLK_LOCAL_MEM_FENCE)";
    case BAR_GLOBAL: return "barrier(CLK_GLOBAL_MEM_FENCE)";
    case BAR_BOTH: return "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)";
    case FENCE_LOCAL: return "mem_fence(CLK_LOCAL_MEM_FENCE)";
    case FENCE_GLOBAL: return "mem_fence(CLK_GLOBAL_MEM_FENCE)";
    default: return "mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)";
    }
}

/* The make-struct helper's `S.FIELDSUFFIX = FIELDTAIL`. */
static void field_set_out(Em *e, const char *sv, const char *field, const char *suffix, const char *value, const char *tail) {
    StrBuf *o = e->out;
    sb_puts(o, sv);
    sb_putc(o, '.');
    sb_puts(o, field);
    sb_puts(o, suffix);
    SB_LIT(o, " = ");
    sb_puts(o, value);
    sb_puts(o, tail);
}

static void helper_out(Em *e, const Helper *h) {
    Printer *p = &e->pr;
    const char *t = h->ty ? oclc_type_name(h->ty) : "";
    /* the make-struct helper writes its name itself (helper_name_out) */
    const char *hname = h->kind == H_MAKE_STRUCT ? NULL : oclc_helper_name(e->a, h);
    switch (h->kind) {
    case H_WARP: return; /* emit-oclc/warps.c */
    case H_GLOBAL_ID:
        pr_line(p, "/* get-global-id: thread id relative to the global offset */");
        pr_line(p, "ulong crisp_global_id(uint dim)");
        pr_line(p, "{");
        pr_line(p, "    return (ulong)(get_global_id(dim) - CRISP_GLOBAL_OFFSET(dim));");
        pr_line(p, "}");
        break;
    case H_GLOBAL_LINEAR_ID:
        pr_line(p, "/* get-global-linear-id: relative, flattened over all dimensions */");
        pr_line(p, "ulong crisp_global_linear_id(void)");
        pr_line(p, "{");
        pr_line(p, "    return (crisp_global_id(2) * (ulong)get_global_size(1) + crisp_global_id(1)) * (ulong)get_global_size(0) +");
        pr_line(p, "           crisp_global_id(0);");
        pr_line(p, "}");
        break;
    case H_LOCAL_LINEAR_ID:
        pr_line(p, "/* get-local-linear-id: flattened id inside the workgroup */");
        pr_line(p, "ulong crisp_local_linear_id(void)");
        pr_line(p, "{");
        pr_line(p, "    return ((ulong)get_local_id(2) * (ulong)get_local_size(1) + (ulong)get_local_id(1)) * (ulong)get_local_size(0) +");
        pr_line(p, "           (ulong)get_local_id(0);");
        pr_line(p, "}");
        break;
    case H_GLOBAL_LINEAR_SIZE:
        pr_line(p, "/* get-global-linear-size: total number of threads */");
        pr_line(p, "ulong crisp_global_linear_size(void)");
        pr_line(p, "{");
        pr_line(p, "    return (ulong)get_global_size(0) * (ulong)get_global_size(1) * (ulong)get_global_size(2);");
        pr_line(p, "}");
        break;
    case H_LOCAL_LINEAR_SIZE:
        pr_line(p, "/* get-local-linear-size: threads in a workgroup */");
        pr_line(p, "ulong crisp_local_linear_size(void)");
        pr_line(p, "{");
        pr_line(p, "    return (ulong)get_local_size(0) * (ulong)get_local_size(1) * (ulong)get_local_size(2);");
        pr_line(p, "}");
        break;
    case H_DEVICE_HAS:
        pr_line(p, "/* device-has: decided when the driver builds this source for a device */");
        pr_line(p, "bool %s(void)", hname);
        pr_line(p, "{");
        if (syn_streq(h->key, "subgroups")) /* docs/warps.md */
            pr_line(p, "#if defined(cl_khr_subgroups) || defined(__opencl_c_subgroups)");
        else
            pr_line(p, "#ifdef cl_khr_%s", h->key);
        pr_line(p, "    return true;");
        pr_line(p, "#else");
        pr_line(p, "    return false;");
        pr_line(p, "#endif");
        pr_line(p, "}");
        break;
    case H_ATOMIC_LOAD:
    case H_ATOMIC_STORE: {
        /* %atomic-load / %atomic-store (types/check_gpu.c): relaxed; on
           NVIDIA plain L2 loads and stores through inline PTX, elsewhere
           OpenCL 1.2's atomics (an add of 0 reads) */
        int wide = ty_sizeof(h->ty) == 8, load = h->kind == H_ATOMIC_LOAD;
        const char *q = em_qual(e, h->as);
        int ptx = h->as == AS_GLOBAL;
        pr_line(p, "/* %s on %s %s memory: relaxed, seen by other work-groups%s */", load ? "%atomic-load" : "%atomic-store", t,
                ty_as_name(h->as), ptx ? (load ? " (NVIDIA: a volatile load, else an atomic add of 0)" : " (NVIDIA: a volatile store, else an atomic exchange)") : "");
        if (load) pr_line(p, "%s %s(volatile %s%s *p)", t, hname, q, t);
        else pr_line(p, "void %s(volatile %s%s *p, %s v)", hname, q, t, t);
        pr_line(p, "{");
        if (ptx) {
            /* NVIDIA's OpenCL and clang's NVPTX: volatile accesses (ld/st.volatile,
               any GPU: the CUDA hoists' PTX targets sm_60); with
               -DCRISP_STATUS_RELAXED=1 on NVIDIA's OpenCL, PTX's relaxed ones
               through inline asm (sm_70 or later).  Both measured alike on
               an H200 (docs/performance.md) */
            pr_line(p, "#if defined(cl_nv_pragma_unroll) && defined(CRISP_STATUS_RELAXED)");
            if (load) {
                pr_line(p, "    %s v;", t);
                pr_line(p, "    __asm__ __volatile__(\"ld.relaxed.gpu.global.b%d %%0, [%%1];\" : \"=%s\"(v) : \"l\"((ulong)p) : \"memory\");",
                        wide ? 64 : 32, wide ? "l" : "r");
                pr_line(p, "    return v;");
            } else {
                pr_line(p, "    __asm__ __volatile__(\"st.relaxed.gpu.global.b%d [%%0], %%1;\" : : \"l\"((ulong)p), \"%s\"(v) : \"memory\");",
                        wide ? 64 : 32, wide ? "l" : "r");
            }
            pr_line(p, "#elif defined(cl_nv_pragma_unroll) || defined(__NVPTX__)");
            if (load) pr_line(p, "    return *p;");
            else pr_line(p, "    *p = v;");
            pr_line(p, "#else");
        }
        if (load) pr_line(p, "    return %s(p, %s);", wide ? "atom_add" : "atomic_add", wide ? "0UL" : "0u");
        else pr_line(p, "    (void)%s(p, v);", wide ? "atom_xchg" : "atomic_xchg");
        if (ptx) pr_line(p, "#endif");
        pr_line(p, "}");
        break;
    }
    case H_POW2_BELOW:
        pr_line(p, "/* largest power of two strictly below x (0 when x <= 1), for dec-power-step */");
        pr_line(p, "ulong crisp_pow2_below(ulong x)");
        pr_line(p, "{");
        pr_line(p, "    return x <= 1 ? 0 : (ulong)1 << (63 - clz(x - 1));");
        pr_line(p, "}");
        break;
    case H_FLOOR_DIV:
    case H_CEIL_DIV:
    case H_ROUND_DIV: {
        int uns = ty_category(h->ty) == CAT_UNSIGNED;
        const char *what = h->kind == H_FLOOR_DIV ? "floor" : h->kind == H_CEIL_DIV ? "ceil" : "round";
        pr_line(p, "/* (%s a b) on %s: quotient rounded %s, remainder a - q*b */", what, t,
                h->kind == H_FLOOR_DIV ? "toward -infinity" : h->kind == H_CEIL_DIV ? "toward +infinity" : "to nearest, ties to even");
        pr_line(p, "%s %s(%s a, %s b, %s *rem)", t, hname, t, t, t);
        pr_line(p, "{");
        pr_line(p, "    %s q = a / b;", t);
        pr_line(p, "    %s r = a %% b;", t);
        if (h->kind == H_FLOOR_DIV) {
            pr_line(p, "    if (r != 0 && ((r < 0) != (b < 0))) {");
            pr_line(p, "        q -= 1;");
            pr_line(p, "        r += b;");
            pr_line(p, "    }");
        } else if (h->kind == H_CEIL_DIV) {
            pr_line(p, uns ? "    if (r != 0) {" : "    if (r != 0 && ((r > 0) == (b > 0))) {");
            pr_line(p, "        q += 1;");
            pr_line(p, "        r -= b;");
            pr_line(p, "    }");
        } else if (uns) {
            pr_line(p, "    if (r != 0 && (r > b - r || (r == b - r && q %% 2 != 0))) {");
            pr_line(p, "        q += 1;");
            pr_line(p, "        r -= b;");
            pr_line(p, "    }");
        } else {
            pr_line(p, "    %s ar = r < 0 ? -r : r;", t);
            pr_line(p, "    %s ab = b < 0 ? -b : b;", t);
            pr_line(p, "    if (r != 0 && (ar > ab - ar || (ar == ab - ar && q %% 2 != 0))) {");
            pr_line(p, "        if ((r < 0) == (b < 0)) {");
            pr_line(p, "            q += 1;");
            pr_line(p, "            r -= b;");
            pr_line(p, "        } else {");
            pr_line(p, "            q -= 1;");
            pr_line(p, "            r += b;");
            pr_line(p, "        }");
            pr_line(p, "    }");
        }
        pr_line(p, "    *rem = r;");
        pr_line(p, "    return q;");
        pr_line(p, "}");
        break;
    }
    case H_STD140_ELEM: {
        int pad = ty_vector_stride(h->ty, AL_STD140) - ty_sizeof(h->ty);
        pr_line(p, "/* one element of a :std140 vector of %s: %d-byte stride */", t, ty_vector_stride(h->ty, AL_STD140));
        pr_line(p, "typedef struct {");
        pr_line(p, "    %s v;", t);
        pr_line(p, "    uchar pad[%d];", pad);
        pr_line(p, "} %s;", hname);
        break;
    }
    case H_DEBUG_LOG: {
        int words = 3 + 2 * h->ntys;
        SB_LIT(e->out, "/* --debug-output: append one record (docs/abi.md); never writes past the end */\n");
        sb_printf(e->out, "void %s(__global uint *log, ulong log_len, uint site", hname);
        for (int i = 0; i < h->ntys; i++) sb_printf(e->out, ", %s v%d", oclc_type_name(h->tys[i]), i);
        SB_LIT(e->out, ")\n");
        pr_line(p, "{");
        pr_line(p, "    uint at = atomic_add(&log[0], %du);", words);
        pr_line(p, "    if ((ulong)at + %d > log_len) {", words);
        pr_line(p, "        atomic_inc(&log[1]); /* dropped: the buffer is full */");
        pr_line(p, "        return;");
        pr_line(p, "    }");
        pr_line(p, "    log[at] = %du;", words);
        pr_line(p, "    log[at + 1] = site;");
        pr_line(p, "    log[at + 2] = (uint)crisp_global_linear_id();");
        for (int i = 0; i < h->ntys; i++) {
            const Type *vt = h->tys[i];
            int w = 3 + 2 * i;
            if (vt->kind == TY_BOOL) {
                pr_line(p, "    log[at + %d] = v%d ? 1u : 0u;", w, i);
                pr_line(p, "    log[at + %d] = 0u;", w + 1);
            } else if (vt->sc == SC_FLOAT) {
                pr_line(p, "    log[at + %d] = as_uint(v%d);", w, i);
                pr_line(p, "    log[at + %d] = 0u;", w + 1);
            } else if (vt->sc == SC_DOUBLE) {
                pr_line(p, "    log[at + %d] = (uint)as_ulong(v%d);", w, i);
                pr_line(p, "    log[at + %d] = (uint)(as_ulong(v%d) >> 32);", w + 1, i);
            } else if (vt->sc == SC_HALF) {
                pr_line(p, "    log[at + %d] = as_uint((float)v%d);", w, i);
                pr_line(p, "    log[at + %d] = 0u;", w + 1);
            } else {
                int sgn = ty_category(vt) == CAT_SIGNED;
                pr_line(p, "    log[at + %d] = (uint)(%s)v%d;", w, sgn ? "long" : "ulong", i);
                pr_line(p, "    log[at + %d] = (uint)((%s)v%d >> 32);", w + 1, sgn ? "long" : "ulong", i);
            }
        }
        pr_line(p, "}");
        break;
    }
    case H_MAKE_STRUCT: {
        const StructDef *sd = h->ty->sd;
        /* the result variable: `s`, unless a field (a parameter) is named so */
        const char *sv = "s";
        for (int clash = 1; clash;) {
            clash = 0;
            for (int i = 0; i < sd->nfields; i++)
                if (syn_streq(sd->fields[i].cname, sv) ||
                    (sd->fields[i].view && !strcmp(arena_printf(e->a, "%s_len", sd->fields[i].cname), sv)))
                    clash = 1;
            if (clash) sv = arena_printf(e->a, "%s_", sv);
        }
        /* written with sb_* calls: one per struct (issue 14) */
        StrBuf *o = e->out;
        pr_start(p);
        SB_LIT(o, "/* make-");
        sb_puts(o, sd->name);
        SB_LIT(o, ": a ");
        sb_puts(o, sd->name);
        SB_LIT(o, " from its fields */\n");
        sb_puts(o, sd->cname);
        sb_putc(o, ' ');
        helper_name_out(e, h);
        sb_putc(o, '(');
        for (int i = 0; i < sd->nfields; i++) {
            const Field *f = &sd->fields[i];
            if (i) SB_LIT(o, ", ");
            if (f->view) {
                pointer_type_out(e, f->ty);
                sb_puts(o, f->cname);
                SB_LIT(o, ", ulong ");
                sb_puts(o, f->cname);
                SB_LIT(o, "_len");
            } else {
                type_out(e, f->ty);
                sb_putc(o, ' ');
                sb_puts(o, f->cname);
            }
        }
        SB_LIT(o, ")\n");
        pr_start(p);
        SB_LIT(o, "{\n");
        pr_start(p);
        SB_LIT(o, "    ");
        sb_puts(o, sd->cname);
        sb_putc(o, ' ');
        sb_puts(o, sv);
        SB_LIT(o, " = {0};\n");
        for (int i = 0; i < sd->nfields; i++) {
            const Field *f = &sd->fields[i];
            pr_start(p);
            SB_LIT(o, "    ");
            if (f->view) {
                field_set_out(e, sv, f->cname, "", f->cname, "; ");
                field_set_out(e, sv, f->cname, "_len", f->cname, "_len;\n");
            } else if (f->as_array) {
                field_set_out(e, sv, f->cname, "[0]", f->cname, ".x; ");
                field_set_out(e, sv, f->cname, "[1]", f->cname, ".y; ");
                field_set_out(e, sv, f->cname, "[2]", f->cname, ".z;\n");
            } else {
                field_set_out(e, sv, f->cname, "", f->cname, ";\n");
            }
        }
        pr_start(p);
        SB_LIT(o, "    return ");
        sb_puts(o, sv);
        SB_LIT(o, ";\n");
        pr_start(p);
        SB_LIT(o, "}\n");
        break;
    }
    case H_ATOMIC_RMW: {
        int wide = ty_sizeof(h->ty) == 8;
        const char *bits = wide ? "ulong" : "uint";
        const char *q = em_qual(e, h->as);
        /* + on a float in global memory: NVIDIA's hardware has a float atomic
           add that OpenCL does not expose; inline PTX reaches it (the warp
           forms' PTX lowering uses the same device test).  A compare-and-swap
           chain on one address serialises the work-groups that finish
           together: 0.58x cupy.sum on an H100 (docs/performance.md). */
        int hw_add = !h->fn && h->op == OP_ADD && h->as == AS_GLOBAL && h->ty->kind == TY_NUM && ty_is_float(h->ty) &&
                     (ty_sizeof(h->ty) == 4 || ty_sizeof(h->ty) == 8);
        pr_line(p, "/* atomic update with %s on %s %s memory: %sbounded compare-and-swap loop */",
                h->fn ? h->fn->name : h->op == -1 ? "min" : h->op == -2 ? "max" : oclc_op_text(h->op), t, ty_as_name(h->as),
                hw_add ? e->p->ocl_version >= 200 ? "the hardware's atomic add on NVIDIA or with cl_ext_float_atomics, else a "
                                                   : "the hardware's atomic add on NVIDIA, else a "
                       : "");
        pr_line(p, "%s %s(volatile %s%s *p%s)", t, hname, q, t, h->unary || (!h->fn && h->op == OP_SET) ? "" : arena_printf(e->a, ", %s arg", t));
        if (!h->fn && h->op == OP_SET) {
            /* never happens: xchg uses the builtin */
        }
        pr_line(p, "{");
        if (hw_add) {
            pr_line(p, "#if defined(cl_nv_pragma_unroll) && !defined(CRISP_ATOMIC_CAS)");
            pr_line(p, "    %s old; /* NVIDIA: the hardware's float atomic add, through inline PTX */", t);
            pr_line(p, "    __asm__ __volatile__(\"atom.global.add.f%d %%0, [%%1], %%2;\" : \"=%s\"(old) : \"l\"((ulong)p), \"%s\"(arg) : \"memory\");",
                    wide ? 64 : 32, wide ? "d" : "f", wide ? "d" : "f");
            pr_line(p, "    return old;");
            if (e->p->ocl_version >= 200) {
                /* OpenCL C 2.0/3.0 with cl_ext_float_atomics (Intel, ...):
                   the extension's atomic_fetch_add on atomic_float */
                pr_line(p, "#elif defined(__opencl_c_ext_fp%d_global_atomic_add) && !defined(CRISP_ATOMIC_CAS)", wide ? 64 : 32);
                pr_line(p, "    /* cl_ext_float_atomics: the device's float atomic add */");
                pr_line(p, "    return atomic_fetch_add_explicit((volatile __global atomic_%s *)p, arg, memory_order_relaxed, memory_scope_device);", t);
            }
            pr_line(p, "#else");
        }
        /* the current value is read atomically (atomic_or with 0), so the
           loop has no plain read racing with other threads' updates; a failed
           compare-and-swap returns the value it found, the next guess */
        const char *ld = arena_printf(e->a, "as_%s(%s((volatile %s%s *)p, %s))", t, wide ? "atom_or" : "atomic_or", q, bits, wide ? "0UL" : "0u");
        pr_line(p, "    %s old = %s;", t, ld);
        pr_line(p, "    for (uint tries = 0; tries < 65536u; tries++) {");
        if (h->fn) {
            if (h->unary) pr_line(p, "        %s upd = %s(old);", t, h->fn->cname);
            else pr_line(p, "        %s upd = %s(old, arg);", t, h->fn->cname);
        } else if (h->op == -1 || h->op == -2) {
            pr_line(p, "        %s upd = %s(old, arg);", t, h->op == -1 ? "min" : "max");
        } else {
            pr_line(p, "        %s upd = old %s arg;", t, oclc_op_text(h->op));
        }
        pr_line(p, "        %s seen = %s((volatile %s%s *)p, as_%s(old), as_%s(upd));", bits, wide ? "atom_cmpxchg" : "atomic_cmpxchg", q, bits,
                bits, bits);
        pr_line(p, "        if (seen == as_%s(old))", bits);
        pr_line(p, "            return old;");
        pr_line(p, "        old = as_%s(seen);", t);
        pr_line(p, "    }");
        pr_line(p, "    return old; /* gave up after 65536 contended attempts */");
        if (hw_add) pr_line(p, "#endif");
        pr_line(p, "}");
        break;
    }
    }
    pr_blank(p);
}

/* ---- functions ---- */

static const char *basename_of(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The name of the file `loc` is in, without its folders ("?" without a
 * file), as basename_of has it; the last one's kept by its number (a
 * definition's file is mostly the previous one's, and srcloc_file takes a
 * lock). */
static void file_out(Em *e, SrcLoc loc) {
    if (!loc.fid || loc.fid != e->file_fid) {
        const SrcFile *f = srcloc_file(loc);
        if (!f) {
            sb_putc(e->out, '?');
            return;
        }
        e->file_fid = loc.fid;
        e->file_base = basename_of(f->name);
        e->file_len = strlen(e->file_base);
    }
    sb_putn(e->out, e->file_base, e->file_len);
}

static void func_out_1(Em *e, const CFunc *f);

/* One function: what it allocates (the unread-variable tables, texts) is
 * dead once it is printed, so that memory serves the next function
 * (issue 14: it was the emitter's whole share of the peak). */
static void func_out(Em *e, const CFunc *f) {
    ArenaMark m = arena_scope_begin(e->a);
    func_out_1(e, f);
    arena_scope_end(e->a, m);
}

static void func_out_1(Em *e, const CFunc *f) {
    const SrcLoc *l = &f->def->loc;
    StrBuf *o = e->out;
    pr_start(&e->pr);
    if (f->kind == FN_KERNEL) SB_LIT(o, "/* def-kernel ");
    else if (f->kind == FN_GRID) SB_LIT(o, "/* def-grid-function ");
    else SB_LIT(o, "/* def-function ");
    sb_puts(o, f->name);
    SB_LIT(o, "  (");
    file_out(e, *l);
    sb_putc(o, ':');
    sb_putll(o, l->line);
    SB_LIT(o, ") */\n");
    if (f->kind == FN_KERNEL && f->uses_warp) SB_LIT(o, "__kernel CRISP_WARP_KERNEL void ");
    else if (f->kind == FN_KERNEL) SB_LIT(o, "__kernel void ");
    else if (f->ret->kind == TY_VOID) SB_LIT(o, "void ");
    else {
        type_out(e, f->ret->kind == TY_TUPLE ? f->ret->elems[0] : f->ret);
        sb_putc(o, ' ');
    }
    sb_puts(o, f->cname);
    sb_putc(o, '(');
    /* explicit parameters, then what the compiler adds: side channels,
       the scratch pool and the debug channel (docs/abi.md) */
    const Sym *ps[512];
    int np = 0;
    for (int i = 0; i < f->nparams && np < 500; i++)
        if (f->params[i]->ty->kind != TY_IDENT) ps[np++] = f->params[i]; /* an identity tensor has no data */
    if (f->kind == FN_KERNEL && !f->exact) {
        for (int i = 0; i < cfunc_rare(f)->nsides && np < 500; i++)
            if (cfunc_rare(f)->sides[i]->kind == SIDE_RESULT || cfunc_rare(f)->sides[i]->kind == SIDE_IMPLICIT || cfunc_rare(f)->sides[i]->kind == SIDE_LOCAL)
                ps[np++] = cfunc_rare(f)->sides[i]->sym;
        if (cfunc_rare(f)->scratch_pool) ps[np++] = cfunc_rare(f)->scratch_pool;
    }
    for (int i = 0; f->kind != FN_KERNEL && i < cfunc_rare(f)->nfsides && np < 500; i++) ps[np++] = cfunc_rare(f)->fsides[i]->param;
    if (cfunc_rare(f)->warp_mem) ps[np++] = cfunc_rare(f)->warp_mem; /* the local-memory warp lowering (docs/warps.md) */
    if (cfunc_rare(f)->debug && !(f->kind == FN_KERNEL && f->exact)) ps[np++] = cfunc_rare(f)->debug;
    int first = 1, wrap = np > 2 || f->ret->kind == TY_TUPLE;
    for (int i = 0; i < np; i++) {
        const Sym *s = ps[i];
        if (!first && wrap) SB_LIT(o, ",\n    ");
        else if (!first) SB_LIT(o, ", ");
        else if (wrap) SB_LIT(o, "\n    ");
        first = 0;
        if (sym_ndims(s)) { /* a tensor-view: root pointer, offset, the caller's dims and strides */
            pointer_type_out(e, s->ty);
            sb_puts(o, s->cname);
            SB_LIT(o, ", ulong ");
            sb_puts(o, sym_rare(s)->off_sym->cname);
            SB_LIT(o, ", ulong *");
            sb_puts(o, sym_rare(s)->dims_sym->cname);
            SB_LIT(o, ", ulong *");
            sb_puts(o, sym_rare(s)->strides_sym->cname);
        } else if (sym_rare(s)->soa_fields) { /* a soa-vector: one pointer per field, then the length */
            for (int k = 0; k < s->ty->elem->sd->nfields; k++) {
                pointer_type_out(e, sym_rare(s)->soa_fields[k]->ty);
                sb_puts(o, sym_rare(s)->soa_fields[k]->cname);
                SB_LIT(o, ", ");
            }
            SB_LIT(o, "ulong ");
            sb_puts(o, s->len_cname);
        } else if (s->ty->kind == TY_VECTOR) {
            pointer_type_out(e, s->ty);
            sb_puts(o, s->cname);
            SB_LIT(o, ", ulong ");
            sb_puts(o, s->len_cname);
        } else {
            if (s->ty->kind == TY_VOIDP) SB_LIT(o, "__global void *");
            else if (s->ty->kind == TY_ENUM && f->kind == FN_KERNEL) SB_LIT(o, "int "); /* an enumeration crosses the host boundary as int */
            else {
                type_out(e, s->ty);
                sb_putc(o, ' ');
            }
            sb_puts(o, s->cname);
        }
    }
    if (f->ret->kind == TY_TUPLE)
        for (int i = 1; i < f->ret->nelems; i++) {
            if (!first && wrap) SB_LIT(o, ",\n    ");
            else if (!first) SB_LIT(o, ", ");
            first = 0;
            type_out(e, f->ret->elems[i]);
            SB_LIT(o, " *");
            sb_puts(o, f->retptrs[i - 1]->cname);
        }
    if (first) SB_LIT(o, "void");
    SB_LIT(o, ")\n{\n");
    pr_indent(&e->pr);
    for (int i = 0; i < cfunc_rare(f)->nlocal; i++) {
        Sym *s = cfunc_rare(f)->local_arrays[i];
        pr_line(&e->pr, "__local %s %s[%lld];", oclc_elem_type(e->a, s->ty), s->cname, (long long)s->ty->length);
    }
    if (e->sv) survey_params(e->sv, f);
    /* the scan surveys the body as it goes */
    e->reads = oclc_reads_scan(e->scanner, e->a, f->body, e->p, e->sv) ? e->scanner : NULL;
    block_body(e, f->body);
    e->reads = NULL;
    pr_dedent(&e->pr);
    pr_start(&e->pr);
    SB_LIT(o, "}\n");
    pr_blank(&e->pr);
}

/* ---- std140 element structs: every padded element type in use ---- */

static int is_half(const Type *t) {
    if (t && t->kind == TY_VECTOR) t = t->elem;
    return t && (t->kind == TY_NUM || t->kind == TY_HWVEC) && t->sc == SC_HALF;
}

/* The survey (survey.h) of what the support code printed before the
 * functions depends on.  It was one whole-program walk before printing,
 * memory-bound (4.6% of the compile's time on big1 for 2% of its
 * instructions, issue 14); now reads.c's scan of each body, which finds
 * the nodes in the cache, makes it as the functions are printed. */
void oclc_survey_vec(OclcSurvey *sv, const Type *t) {
    if (!t || t->kind != TY_VECTOR || !t->elem || !padded(t)) return;
    for (int i = 0; i < sv->nstd140; i++)
        if (ty_equal(sv->std140[i], t->elem)) return;
    if (sv->nstd140 < 64) sv->std140[sv->nstd140++] = t->elem;
}

void oclc_survey_tree(OclcSurvey *sv, const Node *n) {
    while (n) { /* the last kid by the loop, not a call */
        oclc_survey_node(sv, n);
        int k = n->nkids;
        if (!k) return;
        for (int i = 0; i < k - 1; i++) {
            const Node *c = n->kids[i];
            if (c && !c->nkids) oclc_survey_node(sv, c); /* a leaf: no call */
            else oclc_survey_tree(sv, c);
        }
        n = n->kids[k - 1];
    }
}

void oclc_survey_call(OclcSurvey *sv, const Node *n) {
    if (n->op == BI_GLOBAL_OFFSET) sv->offset = 1;
    if (n->op == BI_WORK_DIM) sv->work_dim = 1;
    if (n->op >= BI_ATOMIC_ADD && n->op <= BI_ATOMIC_XOR && n->ty && ty_sizeof(n->ty) == 8) {
        const char *name = builtin_spelling(n->op, n->ty);
        int seen = 0;
        for (int i = 0; i < sv->natom64; i++) seen |= syn_streq(sv->atom64[i], name);
        if (!seen && sv->natom64 < 16) sv->atom64[sv->natom64++] = name;
    }
}

/* A function's part of the survey before its body: its parameters, side
 * channels and local arrays. */
static void survey_params(OclcSurvey *sv, const CFunc *fn) {
    for (int i = 0; i < fn->nparams; i++) {
        const Type *t = fn->params[i]->ty;
        sv->half |= is_half(t);
        if (t && t->kind == TY_VECTOR && t->align == AL_STD140) oclc_survey_vec(sv, t); /* padded only if std140 */
    }
    for (int i = 0; i < cfunc_rare(fn)->nsides; i++) oclc_survey_vec(sv, cfunc_rare(fn)->sides[i]->ty);
    for (int i = 0; i < cfunc_rare(fn)->nfsides; i++) oclc_survey_vec(sv, cfunc_rare(fn)->fsides[i]->ty);
    for (int i = 0; i < cfunc_rare(fn)->nlocal; i++) oclc_survey_vec(sv, cfunc_rare(fn)->local_arrays[i]->ty);
}

/* Work-item queries CUDA has no counterpart for, which libclc does not
 * provide for NVPTX: compiled for --ir-target=ptx or a --binary-gpu-target
 * sm_XX (docs/targets.md), ids start at 0 (no global offset) and a launch
 * always has 3 dimensions, so the work dimension is that of the highest
 * dimension larger than 1. */
static void nvptx_guards_out(Em *e, const Program *p, const OclcSurvey *sv) {
    int offset = sv->offset, dim = sv->work_dim;
    for (int i = 0; i < p->nhelpers_of_kind[H_GLOBAL_ID] && !offset; i++)
        offset = helper_live(p, p->helpers_of_kind[H_GLOBAL_ID][i]);
    if (!offset && !dim) return;
    pr_line(&e->pr, "/* work-item queries CUDA (NVPTX) lacks */");
    pr_line(&e->pr, "#ifdef __NVPTX__");
    if (offset) pr_line(&e->pr, "#define CRISP_GLOBAL_OFFSET(dim) 0");
    if (dim) pr_line(&e->pr, "#define CRISP_WORK_DIM() (get_global_size(2) > 1 ? 3u : get_global_size(1) > 1 ? 2u : 1u)");
    pr_line(&e->pr, "#else");
    if (offset) pr_line(&e->pr, "#define CRISP_GLOBAL_OFFSET(dim) get_global_offset(dim)");
    if (dim) pr_line(&e->pr, "#define CRISP_WORK_DIM() get_work_dim()");
    pr_line(&e->pr, "#endif");
    pr_blank(&e->pr);
}

/* :constant kernel parameters for CUDA: clang's NVPTX code reads
 * __constant memory with ld.const, from the module's constant bank, but
 * the host passes a device pointer (cuMemAlloc: global memory), so such a
 * kernel read other values there.  Where a kernel takes a :constant
 * vector, every :constant pointer and def-const-vec of the program is
 * CRISP_CONSTANT, which is __global const for NVPTX (one address space, so
 * a parameter and a table still reach the same function) and __constant
 * elsewhere.  Program-scope __global variables need OpenCL C 3.0's
 * __opencl_c_program_scope_global_variables, which the PTX build
 * (src/targets.c) enables; docs/targets.md. */
static int takes_constant_vector(const Program *p) {
    for (int i = 0; i < p->nfuncs; i++) {
        const CFunc *f = p->funcs[i];
        if (f->kind == FN_FUNCTION || f->consteval) continue;
        for (int j = 0; j < f->nparams; j++)
            if (f->params[j]->ty && f->params[j]->ty->kind == TY_VECTOR && f->params[j]->ty->as == AS_CONSTANT) return 1;
    }
    return 0;
}

static void kconst_out(Em *e) {
    if (!e->kconst) return;
    pr_line(&e->pr, "/* :constant memory: CUDA passes device (global) memory, not the constant bank */");
    pr_line(&e->pr, "#ifdef __NVPTX__");
    pr_line(&e->pr, "#define CRISP_CONSTANT __global const");
    pr_line(&e->pr, "#else");
    pr_line(&e->pr, "#define CRISP_CONSTANT __constant");
    pr_line(&e->pr, "#endif");
    pr_blank(&e->pr);
}

/* 64-bit atomics (cl_khr_int64_base/extended_atomics) for NVPTX: libclc
 * has none, so they are defined here on clang's __sync built-ins, as
 * overloads of the OpenCL names for long and ulong in __global and
 * __local memory; min and max are compare-and-swap loops. */
static void nvptx_atom64_out(Em *e, const Program *p, const OclcSurvey *sv) {
    if (!p->uses_int64_atomics) return;
    const char *names[16];
    int n = sv->natom64;
    memcpy(names, sv->atom64, sizeof names);
    for (int i = 0; i < p->nhelpers; i++) {
        const Helper *h = p->helpers[i];
        if (h->kind != H_ATOMIC_RMW || !h->ty || ty_sizeof(h->ty) != 8) continue;
        static const char *cas[2] = {"atom_or", "atom_cmpxchg"}; /* what the CAS loops use */
        for (int k = 0; k < 2; k++) {
            int seen = 0;
            for (int j = 0; j < n; j++) seen |= syn_streq(names[j], cas[k]);
            if (!seen && n < 16) names[n++] = cas[k];
        }
    }
    if (!n) return;
    Printer *pr = &e->pr;
    pr_line(pr, "/* 64-bit atomics for CUDA (NVPTX): libclc has none, clang's __sync built-ins do */");
    pr_line(pr, "#ifdef __NVPTX__");
    static const char *types[2] = {"long", "ulong"}, *spaces[2] = {"__global", "__local"};
    for (int i = 0; i < n; i++)
        for (int ti = 0; ti < 2; ti++)
            for (int si = 0; si < 2; si++) {
                const char *t = types[ti], *op = names[i] + 5;
                const char *ptr = arena_printf(e->a, "volatile %s %s *p", spaces[si], t);
                if (syn_streq(op, "inc") || syn_streq(op, "dec")) {
                    pr_line(pr, "%s __attribute__((overloadable)) %s(%s) { return __sync_fetch_and_%s(p, (%s)1); }", t,
                            names[i], ptr, op[0] == 'i' ? "add" : "sub", t);
                } else if (syn_streq(op, "cmpxchg")) {
                    pr_line(pr, "%s __attribute__((overloadable)) %s(%s, %s cmp, %s v) { return __sync_val_compare_and_swap(p, cmp, v); }",
                            t, names[i], ptr, t, t);
                } else if (syn_streq(op, "xchg")) {
                    pr_line(pr, "%s __attribute__((overloadable)) %s(%s, %s v) { return __sync_lock_test_and_set(p, v); }", t,
                            names[i], ptr, t);
                } else if (syn_streq(op, "min") || syn_streq(op, "max")) {
                    pr_line(pr, "%s __attribute__((overloadable)) %s(%s, %s v)", t, names[i], ptr, t);
                    pr_line(pr, "{");
                    pr_line(pr, "    %s old = *p;", t);
                    pr_line(pr, "    while (v %s old) {", op[1] == 'i' ? "<" : ">");
                    pr_line(pr, "        %s seen = __sync_val_compare_and_swap(p, old, v);", t);
                    pr_line(pr, "        if (seen == old) break;");
                    pr_line(pr, "        old = seen;");
                    pr_line(pr, "    }");
                    pr_line(pr, "    return old;");
                    pr_line(pr, "}");
                } else {
                    pr_line(pr, "%s __attribute__((overloadable)) %s(%s, %s v) { return __sync_fetch_and_%s(p, v); }", t, names[i],
                            ptr, t, op);
                }
            }
    pr_line(pr, "#endif");
    pr_blank(pr);
}

/* Every def-struct, in definition order, with explicit padding so each
 * field sits at its std140 offset (docs/language.md "Structs"). */
static void enums_out(Em *e, const Program *p) {
    for (int i = 0; i < p->nenums; i++) {
        const EnumDef *ed = p->enums[i];
        const Node *def = ed->def;
        pr_line(&e->pr, "/* def-enumeration %s  (%s:%d) */", ed->name, srcloc_file(def->loc) ? basename_of(srcloc_file(def->loc)->name) : "?",
                def->loc.line);
        pr_line(&e->pr, "typedef enum {");
        for (int j = 0; j < ed->nkeys; j++)
            pr_line(&e->pr, "    %s = %lld%s", ed->cnames[j], (long long)ed->values[j], j + 1 < ed->nkeys ? "," : "");
        pr_line(&e->pr, "} %s;", ed->cname);
        pr_blank(&e->pr);
    }
}

/* `    uchar padN[BYTES];` */
static void pad_out(Em *e, int n, int bytes) {
    pr_start(&e->pr);
    SB_LIT(e->out, "    uchar pad");
    sb_putll(e->out, n);
    sb_putc(e->out, '[');
    sb_putll(e->out, bytes);
    SB_LIT(e->out, "];\n");
}

static void structs_out(Em *e, const Program *p) {
    for (int i = 0; i < p->nstructs; i++) {
        const StructDef *sd = p->structs[i];
        if (sd->state != 2 || sd->orig_syn) continue;
        const Node *def = sd->def;
        if (sd->has_views) {
            /* a struct holding vector-views: device-only, C's own layout */
            pr_line(&e->pr, "/* def-struct %s  (%s:%d): holds vector-views (pointer and length), device only */", sd->name,
                    srcloc_file(def->loc) ? basename_of(srcloc_file(def->loc)->name) : "?", def->loc.line);
            pr_line(&e->pr, "typedef struct {");
            for (int j = 0; j < sd->nfields; j++) {
                const Field *f = &sd->fields[j];
                if (f->view) pr_line(&e->pr, "    %s%s; ulong %s_len;", em_pointer_type(e, f->ty), f->cname, f->cname);
                else if (f->as_array) pr_line(&e->pr, "    %s %s[3];", oclc_type_name(ty_num(f->ty->sc)), f->cname);
                else pr_line(&e->pr, "    %s %s;", oclc_type_name(f->ty), f->cname);
            }
            pr_line(&e->pr, "} %s;", sd->cname);
            pr_blank(&e->pr);
            continue;
        }
        /* written with sb_* calls: a program may have thousands (issue 14) */
        StrBuf *o = e->out;
        pr_start(&e->pr);
        SB_LIT(o, "/* def-struct ");
        sb_puts(o, sd->name);
        SB_LIT(o, "  (");
        file_out(e, def->loc);
        sb_putc(o, ':');
        sb_putll(o, def->loc.line);
        SB_LIT(o, "): std140 layout, ");
        sb_putll(o, sd->size);
        SB_LIT(o, " bytes */\n");
        pr_start(&e->pr);
        SB_LIT(o, "typedef struct __attribute__((aligned(16))) {\n");
        int off = 0, npad = 0;
        for (int j = 0; j < sd->nfields; j++) {
            const Field *f = &sd->fields[j];
            if (f->offset > off) pad_out(e, npad++, f->offset - off);
            pr_start(&e->pr);
            SB_LIT(o, "    ");
            type_out(e, f->as_array ? ty_num(f->ty->sc) : f->ty);
            sb_putc(o, ' ');
            sb_puts(o, f->cname);
            if (f->as_array) {
                SB_LIT(o, "[3]; /* ");
                type_out(e, f->ty);
                SB_LIT(o, ", offset ");
            } else {
                SB_LIT(o, "; /* offset ");
            }
            sb_putll(o, f->offset);
            SB_LIT(o, " */\n");
            off = f->offset + f->size;
        }
        if (sd->size > off) pad_out(e, npad++, sd->size - off);
        pr_start(&e->pr);
        SB_LIT(o, "} ");
        sb_puts(o, sd->cname);
        SB_LIT(o, ";\n");
        pr_blank(&e->pr);
    }
    /* derived types: the original's layout under a new Crisp type */
    for (int i = 0; i < p->nstructs; i++) {
        const StructDef *sd = p->structs[i];
        if (sd->state != 2 || !sd->orig_syn) continue;
        const Node *def = sd->def;
        pr_line(&e->pr, "/* def-derived-type %s  (%s:%d) */", sd->name, srcloc_file(def->loc) ? basename_of(srcloc_file(def->loc)->name) : "?",
                def->loc.line);
        pr_line(&e->pr, "typedef %s %s;", sd->derived_from->cname, sd->cname);
        pr_blank(&e->pr);
    }
}

/* Every def-const-vec as a file-scope __constant array, values wrapped a
 * few per line (spec "def-const-vec"). */
static void constvecs_out(Em *e, const Program *p) {
    for (int i = 0; i < p->ncvecs; i++) {
        const ConstVec *cv = p->cvecs[i];
        const Node *def = cv->def;
        const Type *el = cv->ty->elem;
        int64_t n = cv->ty->length;
        pr_line(&e->pr, "/* def-const-vec %s  (%s:%d) */", cv->name, srcloc_file(def->loc) ? basename_of(srcloc_file(def->loc)->name) : "?",
                def->loc.line);
        pr_line(&e->pr, "%s%s %s[%lld] = {", em_qual(e, AS_CONSTANT), oclc_type_name(el), cv->cname, (long long)n);
        int per_line = cv->fvals ? 8 : 16;
        Node lit = {.kind = N_C_INTLIT, .ty = (Type *)el};
        for (int64_t j = 0; j < n; j++) {
            if (j % per_line == 0) SB_LIT(e->out, "    ");
            if (cv->fvals) float_out(e, cv->fvals[j], el->sc == SC_DOUBLE);
            else {
                lit.ival = cv->ivals[j];
                e->in_arith = 1; /* no (uchar) casts in an initializer */
                int_out(e, &lit);
                e->in_arith = 0;
            }
            if (j + 1 < n) sb_putc(e->out, ',');
            sb_putc(e->out, (j + 1) % per_line == 0 || j + 1 == n ? '\n' : ' ');
        }
        pr_line(&e->pr, "};");
        pr_blank(&e->pr);
    }
}

static void std140_types(Em *e, const OclcSurvey *sv) {
    for (int i = 0; i < sv->nstd140; i++) {
        Helper h = {.kind = H_STD140_ELEM, .ty = (Type *)sv->std140[i]};
        helper_out(e, &h);
    }
}

typedef struct FnHelpers {
    Helper **v;
    int n, cap;
} FnHelpers;

/* The header is printed before the functions but the survey, made as the
 * functions are printed (reads.c's scan), is known only after them.  What
 * depends on it, three pieces of a few lines, is printed in place with an
 * empty survey (what a program without half, std140 vectors, 64-bit
 * atomics or work-item queries needs; the guards and atomics the helpers
 * need are not the survey's), and printed again after the functions with
 * the real one; a piece that differs is put in place then (pieces_in), the
 * text after it moved.  Printing the whole header after the functions and
 * moving it in front would hold a second copy of it (2.3 MB for 10 MB of
 * Crisp) and move the whole text (issue 14).  The pieces: */
enum { PIECE_FP16, PIECE_NVPTX, PIECE_STD140, NPIECES };

typedef struct Pieces {
    size_t at[NPIECES];  /* where each is in the text printed */
    size_t old[NPIECES]; /* its length there (empty survey) */
    size_t len[NPIECES]; /* its length in `text` (the real survey), one after the other */
    StrBuf text;
} Pieces;

/* Piece `i` as survey `sv` has it.  A piece's text with the empty survey
 * is a part of its text with any other (lines added, never removed), so a
 * piece only grows (pieces_in). */
static void piece_out(Em *e, const Program *p, const OclcSurvey *sv, int i) {
    switch (i) {
    case PIECE_FP16:
        if (sv->half) pr_line(&e->pr, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable");
        break;
    case PIECE_NVPTX:
        nvptx_guards_out(e, p, sv);
        nvptx_atom64_out(e, p, sv);
        break;
    default: std140_types(e, sv); break;
    }
}

static void piece_at(Em *e, const Program *p, Pieces *pc, int i) {
    static const OclcSurvey none; /* the empty survey */
    pc->at[i] = e->out->len;
    piece_out(e, p, &none, i);
    pc->old[i] = e->out->len - pc->at[i];
}

/* Each section of the header, like each function, starts with a line and
 * ends with pr_blank (so the text before the next ends in a blank line),
 * which makes a section's text the same wherever it is printed: a piece
 * made longer in place reads as printed in order.  The fp16 pragma is a
 * line among the pragmas. */
static void header_out(Em *e, const Program *p, Pieces *pc) {
    pr_line(&e->pr, "/* Generated by crisp %s from %s - edit the Crisp source, not this file. */", CRISP_VERSION, p->source);
    pr_line(&e->pr, "/* OpenCL C %d.%d */", p->ocl_version / 100, p->ocl_version / 10 % 10); /* --ocl-version */
    if (p->uses_fp64) pr_line(&e->pr, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable");
    piece_at(e, p, pc, PIECE_FP16);
    if (p->uses_int64_atomics) {
        pr_line(&e->pr, "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable");
        pr_line(&e->pr, "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable");
    }
    pr_blank(&e->pr);
    oclc_warp_header(&e->pr, p);
    piece_at(e, p, pc, PIECE_NVPTX);
    /* support code that does not depend on user functions, in a fixed order */
    kconst_out(e);
    enums_out(e, p);
    structs_out(e, p);
    constvecs_out(e, p);
    piece_at(e, p, pc, PIECE_STD140);
    for (int k = H_GLOBAL_ID; k <= H_DEVICE_HAS; k++)
        for (int i = 0; i < p->nhelpers; i++)
            if ((int)p->helpers[i]->kind == k && k != H_ATOMIC_RMW && k != H_STD140_ELEM) helper_out(e, p->helpers[i]);
    for (int i = 0; i < p->nhelpers; i++)
        if (p->helpers[i]->kind == H_ATOMIC_RMW && !p->helpers[i]->fn) helper_out(e, p->helpers[i]);
    oclc_warp_helpers(&e->pr, p, e->a);
}

/* The pieces with the real survey, into pc->text. */
static void pieces_out(Em *e, const Program *p, const OclcSurvey *sv, Pieces *pc) {
    StrBuf *out = e->out;
    sb_init(&pc->text);
    e->out = &pc->text;
    pr_init(&e->pr, &pc->text);
    for (int i = 0; i < NPIECES; i++) {
        size_t at = pc->text.len;
        piece_out(e, p, sv, i);
        pc->len[i] = pc->text.len - at;
    }
    e->out = out;
    pr_init(&e->pr, out);
}

/* The pieces of the real survey in place of those of the empty one in
 * `out`, where they differ: the text after a longer piece moved up, the
 * last first, in one pass (none when no piece changed, the usual case). */
static void pieces_in(StrBuf *out, Pieces *pc) {
    if (pc->text.oom) out->oom = 1;
    if (out->oom) return;
    size_t grow = 0, from = 0;
    int same = 1;
    for (int i = 0; i < NPIECES; i++) {
        if (pc->len[i] < pc->old[i]) { /* never: a piece only grows (piece_out) */
            out->oom = 1;
            return;
        }
        grow += pc->len[i] - pc->old[i];
        same &= pc->len[i] == pc->old[i] && (!pc->len[i] || !memcmp(out->data + pc->at[i], pc->text.data + from, pc->len[i]));
        from += pc->len[i];
    }
    if (same) return;
    size_t end = out->len;
    if (grow) sb_putn(out, pc->text.data, grow); /* the room (any bytes) */
    if (out->oom) return;
    size_t shift = grow;
    for (int i = NPIECES - 1; i >= 0; i--) {
        size_t after = pc->at[i] + pc->old[i], upto = i + 1 < NPIECES ? pc->at[i + 1] : end;
        if (shift) memmove(out->data + after + shift, out->data + after, upto - after);
        shift -= pc->len[i] - pc->old[i];
        from -= pc->len[i];
        memcpy(out->data + pc->at[i] + shift, pc->text.data + from, pc->len[i]);
    }
}

/* The header, the functions surveyed as they are printed (reads.c's scan),
 * then the survey's pieces of the header. */
void emit_oclc(StrBuf *out, const Program *p, Arena *scratch) {
    /* the memo is the arena's: in a large program, memory populated in
       bulk, where calloc's was faulted in a page at a time (issue 14) */
    OclcSurvey sv;
    memset(&sv, 0, sizeof sv);
    Em e = {.out = out, .a = scratch, .p = p, .floats = arena_alloc(scratch, FLOAT_MEMO * sizeof(FloatSpelling)), .sv = &sv};
    pr_init(&e.pr, out);
    e.kconst = takes_constant_vector(p);
    Pieces pc;
    header_out(&e, p, &pc);
    /* each function's own atomics follow it: index them by function once
       (a scan of every helper per function grew quadratically, issue 14) */
    PtrMap own = {0};
    for (int j = 0; j < p->nhelpers; j++) {
        Helper *h = p->helpers[j];
        if (h->kind != H_ATOMIC_RMW || !h->fn) continue;
        FnHelpers *fh = ptrmap_get(&own, h->fn);
        if (!fh) {
            fh = arena_alloc(e.a, sizeof *fh);
            if (!fh || !ptrmap_put(e.a, &own, h->fn, fh)) return;
        }
        arena_push(e.a, (void ***)&fh->v, &fh->n, &fh->cap, h);
    }
    e.scanner = oclc_reads_new(); /* NULL: every variable kept */
    for (int i = 0; i < p->nfuncs; i++) {
        func_out(&e, p->funcs[i]);
        const FnHelpers *fh = ptrmap_get(&own, p->funcs[i]);
        for (int j = 0; fh && j < fh->n; j++) helper_out(&e, fh->v[j]);
    }
    oclc_reads_free(e.scanner);
    pieces_out(&e, p, &sv, &pc);
    pieces_in(out, &pc);
    sb_free(&pc.text);
}

void emit_oclc_expr(StrBuf *out, const Program *p, const Node *n, Arena *scratch) {
    Em e = {.out = out, .a = scratch, .p = p};
    pr_init(&e.pr, out);
    expr_out(&e, n, 0);
}

void emit_oclc_stmt(StrBuf *out, const Program *p, const Node *n, Arena *scratch) {
    Em e = {.out = out, .a = scratch, .p = p};
    pr_init(&e.pr, out);
    stmt_out(&e, n);
}
