/* sizeprint.c - size-expression trees as C and Python text (sizeprint.h).
 *
 * Every operator prints fully parenthesised, so the text never depends on
 * the precedence rules of the host language; literals keep their kind
 * (2ULL, 2.5) so C and Python compute the same thing.  A division whose
 * divisor is not a non-zero literal goes through a crisp_runtime.h helper
 * in C that gives 0 instead of a SIGFPE; Python raises ZeroDivisionError. */
#include "sizeprint.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

typedef struct SzPrinter {
    StrBuf *b;
    int py;                 /* 1: Python, 0: C */
    SizeInputName name;
    void *ud;
    Arena scratch;          /* default names */
} SzPrinter;

const char *size_input_default(Arena *a, const SizeExpr *in) {
    static const char *launch[] = {"global_size", "local_size", "num_groups", "max_local_size", "max_num_groups"};
    switch (in->op) {
    case SZ_LENGTH:
    case SZ_SCALAR: {
        char *s = arena_printf(a, "%s%s", in->param ? in->param : "v", in->op == SZ_LENGTH ? "_len" : "");
        for (char *p = s; p && *p; p++)
            if (!isalnum((unsigned char)*p) && *p != '_') *p = '_';
        return s ? s : "v";
    }
    case SZ_GLOBAL_SIZE:
    case SZ_LOCAL_SIZE:
    case SZ_NUM_GROUPS:
    case SZ_MAX_LOCAL_SIZE:
    case SZ_MAX_NUM_GROUPS: return arena_printf(a, "%s%d", launch[in->op - SZ_GLOBAL_SIZE], in->dim);
    case SZ_GLOBAL_LINEAR_SIZE: return "global_linear_size";
    case SZ_LOCAL_LINEAR_SIZE: return "local_linear_size";
    default: return "0";
    }
}

static const char *input_name(SzPrinter *p, const SizeExpr *in) {
    const char *n = p->name ? p->name(p->ud, in) : NULL;
    return n ? n : size_input_default(&p->scratch, in);
}

/* A floating literal that reads as one in both languages (2 -> 2.0). */
static void float_lit(StrBuf *b, double v) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", v);
    sb_puts(b, buf);
    if (!strpbrk(buf, ".eEn")) sb_puts(b, ".0"); /* n: inf, nan */
}

static int nonzero_lit(const SizeExpr *e) {
    return e->op == SZ_INT && e->ival > 0;
}

static void expr(SzPrinter *p, const SizeExpr *e, int bare);

/* (a OP b OP c), or bare without the parentheses. */
static void infix(SzPrinter *p, const SizeExpr *e, const char *op, int bare) {
    if (!bare) sb_putc(p->b, '(');
    for (int i = 0; i < e->nkids; i++) {
        if (i) sb_printf(p->b, " %s ", op);
        expr(p, e->kids[i], 0);
    }
    if (!bare) sb_putc(p->b, ')');
}

/* F(F(a, b), c): a left fold through a two-argument C helper. */
static void fold_call(SzPrinter *p, const SizeExpr *e, const char *f) {
    for (int i = 1; i < e->nkids; i++) sb_printf(p->b, "%s(", f);
    expr(p, e->kids[0], 0);
    for (int i = 1; i < e->nkids; i++) {
        sb_puts(p->b, ", ");
        expr(p, e->kids[i], 0);
        sb_putc(p->b, ')');
    }
}

static void c_expr(SzPrinter *p, const SizeExpr *e, int bare) {
    StrBuf *b = p->b;
    switch (e->op) {
    case SZ_INT: sb_printf(b, "%lldULL", (long long)e->ival); return;
    case SZ_FLOAT: float_lit(b, e->fval); return;
    case SZ_SCALAR: sb_printf(b, "(unsigned long long)%s", input_name(p, e)); return;
    case SZ_ADD: infix(p, e, "+", bare); return;
    case SZ_SUB: infix(p, e, "-", bare); return;
    case SZ_MUL: infix(p, e, "*", bare); return;
    case SZ_MONUS: fold_call(p, e, "crisp_monus_ull"); return;
    case SZ_DIV: {
        int plain = 1; /* floating division, or by non-zero literals only */
        for (int i = 1; !e->is_float && i < e->nkids; i++) plain &= nonzero_lit(e->kids[i]);
        if (plain) infix(p, e, "/", bare);
        else fold_call(p, e, "crisp_div_ull");
        return;
    }
    case SZ_MIN: fold_call(p, e, e->is_float ? "crisp_min_dbl" : "crisp_min_ull"); return;
    case SZ_MAX: fold_call(p, e, e->is_float ? "crisp_max_dbl" : "crisp_max_ull"); return;
    case SZ_CEIL_DIV:
        if (e->is_float) {
            sb_puts(b, "crisp_ceil_dbl(");
            infix(p, e, "/", 0);
            sb_putc(b, ')');
        } else if (nonzero_lit(e->kids[1])) {
            /* (a + b - 1) / b */
            sb_puts(b, "((");
            expr(p, e->kids[0], 0);
            sb_puts(b, ") + (");
            expr(p, e->kids[1], 0);
            sb_puts(b, ") - 1ULL) / (");
            expr(p, e->kids[1], 0);
            sb_putc(b, ')');
        } else {
            fold_call(p, e, "crisp_ceil_div_ull");
        }
        return;
    case SZ_FLOOR_DIV:
        if (e->is_float) {
            sb_puts(b, "crisp_floor_dbl(");
            infix(p, e, "/", 0);
            sb_putc(b, ')');
        } else if (nonzero_lit(e->kids[1])) {
            sb_putc(b, '(');
            expr(p, e->kids[0], 0);
            sb_puts(b, ") / (");
            expr(p, e->kids[1], 0);
            sb_putc(b, ')');
        } else {
            fold_call(p, e, "crisp_div_ull");
        }
        return;
    case SZ_CEIL:
        sb_puts(b, "crisp_ceil_ull(");
        expr(p, e->kids[0], 0);
        sb_putc(b, ')');
        return;
    case SZ_ROUND_UP:
        if (nonzero_lit(e->kids[1])) {
            long long m = (long long)e->kids[1]->ival;
            sb_putc(b, '(');
            expr(p, e->kids[0], 1);
            sb_printf(b, " + %lldULL) / %lldULL * %lldULL", m - 1, m, m);
        } else {
            fold_call(p, e, "crisp_round_up_ull");
        }
        return;
    case SZ_IF_POSITIVE:
        sb_putc(b, '(');
        if (e->kids[0]->op == SZ_SCALAR && e->kids[0]->is_signed) {
            sb_printf(b, "(long long)%s > 0", input_name(p, e->kids[0]));
        } else if (e->kids[0]->nkids) { /* a product as a condition: spelled out (-Wint-in-bool-context) */
            expr(p, e->kids[0], 0);
            sb_puts(b, e->kids[0]->is_float ? " > 0.0" : " != 0ULL");
        } else {
            expr(p, e->kids[0], 0);
        }
        sb_puts(b, " ? ");
        expr(p, e->kids[1], 0);
        sb_puts(b, e->is_float ? " : 0.0)" : " : 0ULL)");
        return;
    default: sb_puts(b, input_name(p, e)); return;
    }
}

static void py_expr(SzPrinter *p, const SizeExpr *e, int bare) {
    StrBuf *b = p->b;
    switch (e->op) {
    case SZ_INT: sb_printf(b, "%lld", (long long)e->ival); return;
    case SZ_FLOAT: float_lit(b, e->fval); return;
    case SZ_ADD: infix(p, e, "+", bare); return;
    case SZ_SUB: infix(p, e, "-", bare); return;
    case SZ_MUL: infix(p, e, "*", bare); return;
    case SZ_MONUS:
        for (int i = 1; i < e->nkids; i++) sb_puts(b, "max(0, ");
        expr(p, e->kids[0], 0);
        for (int i = 1; i < e->nkids; i++) {
            sb_puts(b, " - ");
            expr(p, e->kids[i], 0);
            sb_putc(b, ')');
        }
        return;
    case SZ_DIV: infix(p, e, e->is_float ? "/" : "//", bare); return;
    case SZ_MIN:
    case SZ_MAX:
        sb_puts(b, e->op == SZ_MIN ? "min(" : "max(");
        for (int i = 0; i < e->nkids; i++) {
            if (i) sb_puts(b, ", ");
            expr(p, e->kids[i], 0);
        }
        sb_putc(b, ')');
        return;
    case SZ_CEIL_DIV:
        sb_puts(b, "(-(-(");
        expr(p, e->kids[0], 0);
        sb_puts(b, ") // (");
        expr(p, e->kids[1], 0);
        sb_puts(b, ")))");
        return;
    case SZ_FLOOR_DIV:
        sb_puts(b, "((");
        expr(p, e->kids[0], 0);
        sb_puts(b, ") // (");
        expr(p, e->kids[1], 0);
        sb_puts(b, "))");
        return;
    case SZ_CEIL:
        sb_puts(b, "math.ceil(");
        expr(p, e->kids[0], 0);
        sb_putc(b, ')');
        return;
    case SZ_ROUND_UP:
        if (nonzero_lit(e->kids[1])) {
            long long m = (long long)e->kids[1]->ival;
            sb_putc(b, '(');
            expr(p, e->kids[0], 1);
            sb_printf(b, " + %lld) // %lld * %lld", m - 1, m, m);
        } else {
            sb_puts(b, "(-(-(");
            expr(p, e->kids[0], 0);
            sb_puts(b, ") // (");
            expr(p, e->kids[1], 0);
            sb_puts(b, ")) * (");
            expr(p, e->kids[1], 0);
            sb_puts(b, "))");
        }
        return;
    case SZ_IF_POSITIVE:
        sb_putc(b, '(');
        expr(p, e->kids[1], 0);
        sb_puts(b, " if ");
        expr(p, e->kids[0], 0);
        sb_puts(b, " > 0 else 0)");
        return;
    default: sb_puts(b, input_name(p, e)); return;
    }
}

static void expr(SzPrinter *p, const SizeExpr *e, int bare) {
    if (!e) {
        sb_puts(p->b, "0");
        return;
    }
    if (p->py) py_expr(p, e, bare);
    else c_expr(p, e, bare);
}

static void print(StrBuf *b, const SizeExpr *e, SizeInputName name, void *ud, int py) {
    SzPrinter p = {b, py, name, ud, {0}};
    arena_init(&p.scratch);
    expr(&p, e, 0);
    arena_free(&p.scratch);
}

void size_print_c(StrBuf *b, const SizeExpr *e, SizeInputName name, void *ud) {
    print(b, e, name, ud, 0);
}

void size_print_py(StrBuf *b, const SizeExpr *e, SizeInputName name, void *ud) {
    print(b, e, name, ud, 1);
}

static const char *to_string(Arena *a, const SizeExpr *e, SizeInputName name, void *ud, int py) {
    StrBuf b;
    sb_init(&b);
    print(&b, e, name, ud, py);
    const char *r = b.oom ? NULL : arena_strdup(a, sb_cstr(&b));
    sb_free(&b);
    return r ? r : "0";
}

const char *size_c(Arena *a, const SizeExpr *e, SizeInputName name, void *ud) {
    return to_string(a, e, name, ud, 0);
}

const char *size_py(Arena *a, const SizeExpr *e, SizeInputName name, void *ud) {
    return to_string(a, e, name, ud, 1);
}

int size_py_uses_math(const SizeExpr *e) {
    if (!e) return 0;
    if (e->op == SZ_CEIL) return 1;
    for (int i = 0; i < e->nkids; i++)
        if (size_py_uses_math(e->kids[i])) return 1;
    return 0;
}
