/* bench_matmul_ref.cl - the hand-written OpenCL C matmul that
 * scripts/bench_matmul.py runs next to crisp's: C = A x B, row-major float
 * matrices of any size.  The classic tiled SGEMM: a workgroup of LX x LY
 * work-items computes a TM x TN block of C (TM = LY*RM, TN = LX*RN),
 * stepping over K in slices of BK: it copies A's TM x BK block
 * (transposed) and B's BK x TN block into local memory, coalesced, zeros
 * past the edges; each work-item accumulates RM x RN elements in registers
 * (rows ly + i*LY, columns lx + j*LX; when RM and RN are multiples of 4,
 * rows 4ly..4ly+3, then LY*4 further, ..., read from local memory with
 * one float4 read, as crisp's matmul does).  Sizes are compile-time (-D).
 * (Not part of the compiler: a yardstick.) */
#ifndef RM
#define RM 4
#endif
#ifndef RN
#define RN 4
#endif
#ifndef BK
#define BK 16
#endif
#ifndef LX
#define LX 16
#endif
#ifndef LY
#define LY 16
#endif
#define TM (LY * RM)
#define TN (LX * RN)

__kernel __attribute__((reqd_work_group_size(LX, LY, 1)))
void matmul_ref(__global const float *A, __global const float *B, __global float *C,
                const int M, const int K, const int N)
{
    __local float As[BK][TM] __attribute__((aligned(16)));
    __local float Bs[BK][TN] __attribute__((aligned(16)));
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int row0 = get_group_id(1) * TM, col0 = get_group_id(0) * TN;
    float acc[RM][RN];
    for (int i = 0; i < RM; i++)
        for (int j = 0; j < RN; j++)
            acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int r = ly; r < TM; r += LY)
            for (int c = lx; c < BK; c += LX) {
                int gr = row0 + r, gc = k0 + c;
                As[c][r] = gr < M && gc < K ? A[gr * K + gc] : 0.0f;
            }
        for (int r = ly; r < BK; r += LY)
            for (int c = lx; c < TN; c += LX) {
                int gr = k0 + r, gc = col0 + c;
                Bs[r][c] = gr < K && gc < N ? B[gr * N + gc] : 0.0f;
            }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < BK; k++) {
            float a[RM], b[RN];
#if RM % 4 == 0 && RN % 4 == 0
            /* rows and columns in fours: 4ly..4ly+3, then 4LY further... */
            for (int g = 0; g < RM / 4; g++) {
                float4 v = ((__local const float4 *)As[k])[ly + g * LY];
                a[4 * g] = v.x; a[4 * g + 1] = v.y; a[4 * g + 2] = v.z; a[4 * g + 3] = v.w;
            }
            for (int g = 0; g < RN / 4; g++) {
                float4 v = ((__local const float4 *)Bs[k])[lx + g * LX];
                b[4 * g] = v.x; b[4 * g + 1] = v.y; b[4 * g + 2] = v.z; b[4 * g + 3] = v.w;
            }
#else
            for (int i = 0; i < RM; i++)
                a[i] = As[k][ly + i * LY];
            for (int j = 0; j < RN; j++)
                b[j] = Bs[k][lx + j * LX];
#endif
            for (int i = 0; i < RM; i++)
                for (int j = 0; j < RN; j++)
                    acc[i][j] = acc[i][j] + a[i] * b[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < RM; i++)
        for (int j = 0; j < RN; j++) {
#if RM % 4 == 0 && RN % 4 == 0
            int r = row0 + 4 * ly + i % 4 + 4 * (i / 4) * LY, c = col0 + 4 * lx + j % 4 + 4 * (j / 4) * LX;
#else
            int r = row0 + ly + i * LY, c = col0 + lx + j * LX;
#endif
            if (r < M && c < N)
                C[r * N + c] = acc[i][j];
        }
}
