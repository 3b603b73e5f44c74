// Warp tiling (after siboehm's SGEMM kernel 10): block tile BM x BN, each warp a WM x WN tile made of
// WMITER x WNITER sub-tiles, each thread a TM x TN register tile per sub-tile. Warps read shared
// memory in a pattern the hardware serves without bank conflicts and registers are reused across
// sub-tiles. float4 loads, A transposed in shared memory.
// Needs M % BM == 0, N % BN == 0, K % BK == 0 (the engine zero-pads other sizes).
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef WNITER
#define WNITER 4
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 4
#endif
#define WARPSIZE 32
#define NUM_THREADS ((BM / WM) * (BN / WN) * WARPSIZE)
#define WMITER ((WM * WN) / (WARPSIZE * TM * TN * WNITER))
#define WSUBM (WM / WMITER)
#define WSUBN (WN / WNITER)
#define ROW_STRIDE_A ((NUM_THREADS * 4) / BK)
#define ROW_STRIDE_B (NUM_THREADS / (BN / 4))
static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles divide the block tile");
static_assert((WM * WN) % (WARPSIZE * TM * TN * WNITER) == 0 && WMITER >= 1, "a warp tile is whole sub-tiles");
static_assert(WM % WMITER == 0 && WN % WNITER == 0 && WSUBM % TM == 0 && WSUBN % TN == 0,
              "thread tiles divide the warp sub-tiles");
static_assert((WSUBM / TM) * (WSUBN / TN) == WARPSIZE, "the 32 lanes cover a warp sub-tile");
static_assert(TN % 4 == 0 && BK % 4 == 0 && (NUM_THREADS * 4) % BK == 0 && NUM_THREADS % (BN / 4) == 0,
              "tiles load as float4 rows");
static_assert(ROW_STRIDE_A > 0 && BM % ROW_STRIDE_A == 0, "the A tile loads in whole rounds");
static_assert(ROW_STRIDE_B > 0 && BK % ROW_STRIDE_B == 0, "the B tile loads in whole rounds");

extern "C" __global__ void __launch_bounds__(NUM_THREADS)
gemm_warptile(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
              int M, int N, int K) {
    __shared__ __align__(16) float As[BM * BK];
    __shared__ __align__(16) float Bs[BK * BN];
    const int warpIdx = threadIdx.x / WARPSIZE;
    const int warpCol = warpIdx % (BN / WN);
    const int warpRow = warpIdx / (BN / WN);
    const int lane = threadIdx.x % WARPSIZE;
    const int threadColInWarp = lane % (WSUBN / TN);
    const int threadRowInWarp = lane / (WSUBN / TN);
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += (blockIdx.y * BM + warpRow * WM) * N + blockIdx.x * BN + warpCol * WN;
    const int innerRowA = threadIdx.x / (BK / 4), innerColA = threadIdx.x % (BK / 4);
    const int innerRowB = threadIdx.x / (BN / 4), innerColB = threadIdx.x % (BN / 4);
    float acc[WMITER * TM * WNITER * TN] = {0.0f};
    float regM[WMITER * TM], regN[WNITER * TN];
    for (int bk = 0; bk < K; bk += BK) {
        #pragma unroll
        for (int off = 0; off + ROW_STRIDE_A <= BM; off += ROW_STRIDE_A) {         // load A tile
            const float4 t = *reinterpret_cast<const float4*>(&A[(innerRowA + off) * K + innerColA * 4]);
            As[(innerColA * 4 + 0) * BM + innerRowA + off] = t.x;
            As[(innerColA * 4 + 1) * BM + innerRowA + off] = t.y;
            As[(innerColA * 4 + 2) * BM + innerRowA + off] = t.z;
            As[(innerColA * 4 + 3) * BM + innerRowA + off] = t.w;
        }
        #pragma unroll
        for (int off = 0; off + ROW_STRIDE_B <= BK; off += ROW_STRIDE_B)           // load B tile
            *reinterpret_cast<float4*>(&Bs[(innerRowB + off) * BN + innerColB * 4]) =
                *reinterpret_cast<const float4*>(&B[(innerRowB + off) * N + innerColB * 4]);
        __syncthreads();
        #pragma unroll
        for (int dot = 0; dot < BK; ++dot) {
            #pragma unroll
            for (int wm = 0; wm < WMITER; ++wm)
                #pragma unroll
                for (int i = 0; i < TM; ++i)
                    regM[wm * TM + i] = As[dot * BM + warpRow * WM + wm * WSUBM + threadRowInWarp * TM + i];
            #pragma unroll
            for (int wn = 0; wn < WNITER; ++wn)
                #pragma unroll
                for (int i = 0; i < TN; ++i)
                    regN[wn * TN + i] = Bs[dot * BN + warpCol * WN + wn * WSUBN + threadColInWarp * TN + i];
            #pragma unroll
            for (int wm = 0; wm < WMITER; ++wm)
                #pragma unroll
                for (int wn = 0; wn < WNITER; ++wn)
                    #pragma unroll
                    for (int m = 0; m < TM; ++m)
                        #pragma unroll
                        for (int n = 0; n < TN; ++n)
                            acc[(wm * TM + m) * (WNITER * TN) + wn * TN + n] += regM[wm * TM + m] * regN[wn * TN + n];
        }
        A += BK;
        B += BK * N;
        __syncthreads();
    }
    #pragma unroll
    for (int wm = 0; wm < WMITER; ++wm)
        #pragma unroll
        for (int wn = 0; wn < WNITER; ++wn) {
            float* Cw = C + (wm * WSUBM) * N + wn * WSUBN;
            #pragma unroll
            for (int m = 0; m < TM; ++m)
                #pragma unroll
                for (int n = 0; n < TN; n += 4) {
                    const int i = (wm * TM + m) * (WNITER * TN) + wn * TN + n;
                    *reinterpret_cast<float4*>(&Cw[(threadRowInWarp * TM + m) * N + threadColInWarp * TN + n]) =
                        make_float4(acc[i], acc[i + 1], acc[i + 2], acc[i + 3]);
                }
        }
}
