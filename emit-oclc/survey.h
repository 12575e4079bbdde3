/* survey.h - what the header of the OpenCL C file needs to know about the
 * functions' bodies: `half` used (cl_khr_fp16), the padded std140 element
 * types (their structs, in order of first use), the work-item queries CUDA
 * lacks, the 64-bit atomic built-ins called (in order).
 *
 * Every node of a body is surveyed, in preorder.  reads.c's scan, which
 * walks every body anyway, surveys the nodes as it goes (one walk over a
 * function instead of two: issue 14); emit_oclc.c prints the header's
 * pieces from the result. */
#ifndef CRISP_OCLC_SURVEY_H
#define CRISP_OCLC_SURVEY_H

#include "../types/check.h"

typedef struct OclcSurvey {
    int half;               /* `half` anywhere: cl_khr_fp16 */
    int offset, work_dim;   /* BI_GLOBAL_OFFSET / BI_WORK_DIM called */
    const Type *std140[64]; /* padded element types in use, in order of first use */
    int nstd140;
    const char *atom64[16]; /* the 64-bit atomic built-ins (atom_*) called, in order */
    int natom64;
} OclcSurvey;

/* A vector type `t` whose elements are padded (std140): its element type
 * noted (emit_oclc.c). */
void oclc_survey_vec(OclcSurvey *sv, const Type *t);
/* A call: the work-item queries, the 64-bit atomics (emit_oclc.c). */
void oclc_survey_call(OclcSurvey *sv, const Node *n);
/* Every node of the tree at `n`, in preorder (emit_oclc.c). */
void oclc_survey_tree(OclcSurvey *sv, const Node *n);

/* What type `t` brings: `half`, a padded element type. */
static inline void oclc_survey_type(OclcSurvey *sv, const Type *t) {
    if (!t) return;
    if (t->kind == TY_VECTOR) {
        const Type *el = t->elem;
        if (el && (el->kind == TY_NUM || el->kind == TY_HWVEC) && el->sc == SC_HALF) sv->half = 1;
        if (t->align == AL_STD140) oclc_survey_vec(sv, t);
    } else if (t->sc == SC_HALF && (t->kind == TY_NUM || t->kind == TY_HWVEC)) {
        sv->half = 1;
    }
}

/* One node (not its kids). */
static inline void oclc_survey_node(OclcSurvey *sv, const Node *n) {
    /* a variable's type is mostly its node's: noting a type twice is
       noting it once */
    if (n->sym && n->sym->ty != n->ty) oclc_survey_type(sv, n->sym->ty);
    oclc_survey_type(sv, n->ty);
    if (n->kind == N_C_CALL) oclc_survey_call(sv, n);
}

#endif
