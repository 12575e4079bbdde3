/* dump.c - `--dump=check`: the checked program as an indented tree of
 * typed nodes, one node per line, for golden tests and debugging. */
#include <stdio.h>
#include <string.h>

#include "check_int.h"

static void dump_type(StrBuf *b, const Type *t) {
    Arena a;
    arena_init(&a);
    sb_puts(b, ty_name(&a, t));
    arena_free(&a);
}

/* One node per line, children indented, closing parens Lisp-style. */
static void dump_node(StrBuf *b, const Node *n, int depth) {
    for (int i = 0; i < depth; i++) sb_puts(b, "  ");
    if (!n) {
        sb_puts(b, "(none)");
        return;
    }
    sb_printf(b, "(%s", node_kind_name(n->kind));
    switch (n->kind) {
    case N_C_INTLIT:
        if (n->text) sb_printf(b, " \"%s\"", n->text);
        else sb_printf(b, " %lld", (long long)n->ival);
        break;
    case N_C_FLOATLIT: sb_printf(b, " %.9g", n->fval); break;
    case N_C_BOOLLIT: sb_puts(b, n->ival ? " true" : " false"); break;
    case N_C_VAR:
    case N_C_LENGTH:
    case N_C_DECL:
    case N_C_FOR:
        if (n->sym) sb_printf(b, " %s", n->sym->cname ? n->sym->cname : n->sym->name); /* unnamed: the target names it */
        break;
    case N_C_UNARY:
    case N_C_BINARY:
    case N_C_ASSIGN: sb_printf(b, " %s", check_op_name(n->op)); break;
    case N_C_CALL:
        if (n->op == BI_CALL) sb_printf(b, " %s", n->text ? n->text : "?");
        else if (n->op == BI_HELPER) sb_printf(b, " helper#%lld", (long long)n->ival);
        else sb_printf(b, " %s", builtin_op_name(n->op));
        break;
    case N_C_CAST: {
        static const char *const kinds[] = {"value", "convert", "rtz", "rtn", "rtp", "rte", "bits", "same", "reinterpret"};
        if (n->op > 0 && n->op <= CAST_REINTERPRET) sb_printf(b, " %s", kinds[n->op]);
        break;
    }
    case N_C_WARP: {
        static const char *const ops[] = {"get-lane-id", "get-warp-id", "get-num-warps", "%warp-lanes", "sync-warp",
                                          "shuffle", "shuffle-up", "shuffle-down", "shuffle-xor", "read", "native", "read-native",
                                          "%warp-ballot", "ballot-native", "sync-whole"};
        if (n->op >= 0 && n->op < WARP__COUNT) sb_printf(b, " %s", ops[n->op]);
        break;
    }
    case N_C_BARRIER: {
        static const char *const kinds[] = {"barrier local", "barrier global", "barrier both", "fence local", "fence global", "fence both"};
        if (n->op >= 0 && n->op <= FENCE_BOTH) sb_printf(b, " %s", kinds[n->op]);
        break;
    }
    case N_C_SWIZZLE:
        if (n->text) sb_printf(b, " %s", n->text);
        break;
    case N_C_INDEX:
        if (n->op == INDEX_PADDED) sb_puts(b, " padded");
        break;
    default: break;
    }
    const Type *t = (n->kind == N_C_DECL || n->kind == N_C_FOR) && n->sym ? n->sym->ty : n->ty;
    if (t && n->kind != N_C_BLOCK && n->kind != N_C_EXPR && n->kind != N_C_IF && n->kind != N_C_RETURN) {
        sb_puts(b, " : ");
        dump_type(b, t);
    }
    if (n->kind == N_C_DECL && n->sym && sym_rare(n->sym)->init) {
        sb_putc(b, '\n');
        dump_node(b, sym_rare(n->sym)->init, depth + 1);
    }
    for (int i = 0; i < n->nkids; i++) {
        sb_putc(b, '\n');
        dump_node(b, n->kids[i], depth + 1);
    }
    sb_putc(b, ')');
}

void check_dump(StrBuf *b, const Program *p) {
    for (int f = 0; f < p->nfuncs; f++) {
        const CFunc *fn = p->funcs[f];
        const char *kind = fn->kind == FN_KERNEL ? "kernel" : fn->kind == FN_GRID ? "grid-function" : "function";
        sb_printf(b, "(%s %s", kind, fn->cname);
        for (int i = 0; i < fn->nparams; i++) {
            sb_printf(b, "\n  (param %s%s : ", fn->params[i]->cname, fn->params[i]->write_only ? " &out" : "");
            dump_type(b, fn->params[i]->ty);
            sb_putc(b, ')');
        }
        sb_puts(b, "\n  (returns ");
        dump_type(b, fn->ret);
        sb_puts(b, ")\n");
        for (int i = 0; i < cfunc_rare(fn)->nlocal; i++) {
            sb_printf(b, "  (local %s : ", cfunc_rare(fn)->local_arrays[i]->cname);
            dump_type(b, cfunc_rare(fn)->local_arrays[i]->ty);
            sb_puts(b, ")\n");
        }
        dump_node(b, fn->body, 1);
        sb_puts(b, ")\n\n");
    }
}
