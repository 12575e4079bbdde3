/* targets.h - IR and binaries from the generated OpenCL C, through the
 * vendor tool chains (spec "Output Targeting Options"; docs/targets.md).
 *
 *     spv     clang -target spir64 -emit-llvm, llvm-spirv   -> BASE.spv
 *     ptx     clang -target nvptx64--nvidiacl + libclc      -> BASE.ptx
 *     nvcl    clang -target nvptx64-nvidia-nvcl + libclc    -> BASE_nvcl.ptx
 *             (not an option: ptx with an OpenCL hoist, for NVIDIA's OpenCL)
 *     sm_XX   ptx, then ptxas -arch=sm_XX                   -> BASE_sm_XX.cubin
 *             --fat-binary: fatbinary (cubin + PTX)         -> BASE_sm_XX.fatbin
 *     pvc     Intel's ocloc -device pvc                     -> BASE_pvc.bin
 *
 * Crisp never writes IR or machine code itself. */
#ifndef CRISP_TARGETS_H
#define CRISP_TARGETS_H

#include "../core/context.h"

/* The file name of target `t` in `dir` for base name `base`. */
const char *target_file(Arena *a, const CrispTarget *t, int fat, const char *dir, const char *base);

/* What loads target `t`'s file (the metadata's "binaries"). */
const char *target_loader(const CrispTarget *t, int fat);

/* Build `t` from OpenCL C `cl` (the text of BASE.cl) into `out`.  A tool
 * that is missing or fails is reported through c->diag (the failing
 * OpenCL C line mapped back to its Crisp source line where the .cl's
 * location comments allow); returns 0, or 2 on any problem. */
int target_build(Crisp *c, const CrispTarget *t, int fat, const char *base, const char *cl, size_t cl_len, StrBuf *out);

#endif
