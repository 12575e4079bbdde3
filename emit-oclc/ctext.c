/* ctext.c - OpenCL C's spelling of types and operators (ctext.h).
 *
 * Why it exists: the checked program is target-neutral (issue 16): a node
 * records its Type and its CheckOp, and the checker writes them only in
 * Crisp (ty_name, check_op_name).  The C text - a scalar's or hardware
 * vector's C type (OpenCL C 1.2 s6.1.1-6.1.2, which Crisp's numeric type
 * names follow, spec "Types"), a struct's identifier, C's operator tokens
 * (s6.3) - is the emitters', in this one place. */
#include "ctext.h"

const char *oclc_type_name(const Type *t) {
    switch (t->kind) {
    case TY_VOID: return "void";
    case TY_BOOL: return "bool";
    case TY_STRUCT: return t->sd->cname;
    case TY_ENUM: return t->ed->cname;
    case TY_NUM:
    case TY_HWVEC: return ty_num_name(t);
    default: return "void";
    }
}

const char *oclc_op_text(int op) {
    static const char *const text[OP__COUNT] = {
        [OP_ADD] = "+",   [OP_SUB] = "-",  [OP_MUL] = "*",  [OP_DIV] = "/",  [OP_MOD] = "%",  [OP_LT] = "<",
        [OP_GT] = ">",    [OP_LE] = "<=",  [OP_GE] = ">=",  [OP_EQ] = "==", [OP_NE] = "!=", [OP_AND] = "&&",
        [OP_OR] = "||",   [OP_NOT] = "!",  [OP_NEG] = "-",  [OP_BAND] = "&", [OP_BOR] = "|", [OP_BXOR] = "^",
        [OP_BNOT] = "~",  [OP_SHL] = "<<", [OP_SHR] = ">>", [OP_SET] = "=",  [OP_ADDR] = "&", [OP_DEREF] = "*",
    };
    return op >= 0 && op < OP__COUNT && text[op] ? text[op] : "?";
}
