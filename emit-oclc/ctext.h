/* ctext.h - how OpenCL C spells the checked program's types and operators.
 *
 * The checker records a type (Type) and an operator (CheckOp, types/check.h)
 * and names them only in Crisp; every emitter that prints C - the kernel
 * file, the metadata's ABI types, the C and Python hoists' element types -
 * spells them here.  Another target adds its own table beside its emitter. */
#ifndef CRISP_EMIT_OCLC_CTEXT_H
#define CRISP_EMIT_OCLC_CTEXT_H

#include "../types/check.h"

/* OpenCL C spelling of a value type ("float4", "ulong", "bool", a struct's
 * or enum's identifier; "void" for nil and the types C has no value of). */
const char *oclc_type_name(const Type *t);

/* OpenCL C text of operator OP (CheckOp): "+", "%", "&&", "<<", "=" ... */
const char *oclc_op_text(int op);

#endif
