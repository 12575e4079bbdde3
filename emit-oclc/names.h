/* names.h - the identifiers of OpenCL C, for the checker.
 *
 * The checker knows which definitions and variables of the checked
 * program need a name but no target language: the driver hands it
 * oclc_names (the TargetNames seam of types/check.h), which spells them
 * (image-data -> image_data, x -> x_2 when x is taken, the length of v
 * v_len) and keeps them clear of what OpenCL C or crisp's support code
 * (crisp_*) takes; a kernel, whose name the host sees, is refused instead.
 * Another target (CUDA C) adds a table of its own beside its emitter. */
#ifndef CRISP_EMIT_OCLC_NAMES_H
#define CRISP_EMIT_OCLC_NAMES_H

#include "../types/check.h"

/* OpenCL C 1.2's keywords, types, built-ins and macros, and the prefixes
 * of its headers' macros and of crisp's support code. */
extern const TargetNames oclc_names;

int oclc_reserved(const char *name);
int oclc_reserved_prefix(const char *name);
/* The naming pass: after checking, before any printer (the kernel file,
 * the metadata, the ABI and hoists), give the things the checker leaves
 * unnamed their OpenCL C identifiers: each struct and its fields
 * (image_px, red_level), each enumeration and its keys (phylum,
 * phylum_chordata), spelled from the Crisp names, and the variables of
 * crisp's support code (a function's warp memory, crisp_warp_mem).  The driver
 * calls it once per program (src/compile.c); naming twice changes nothing. */
void oclc_name_program(Program *p, Arena *a);

/* The spelling hooks of oclc_names (a test's target can borrow them). */
const char *oclc_spell(Arena *a, const char *crisp_name);
const char *oclc_join(Arena *a, const char *base, const char *part);
const char *oclc_type_part(Arena *a, const Type *t);
const char *oclc_member(Arena *a, const char *path, const char *field);
const char *oclc_unique(Arena *a, const TargetNames *tn, NameTable *t, const char *base);
void oclc_take(Arena *a, NameTable *t, const char *name);
void oclc_rollback(Arena *a, NameTable *t, int mark);
const char *oclc_host_ident(Arena *a, const char *name);
const char *oclc_support(const char *what);

#endif
