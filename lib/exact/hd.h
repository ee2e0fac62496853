/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Where host and device meet: EQ_HD, and a loop hint for the device.
 * Every function that computes a term or an exact sum is `EQ_HD static
 * inline` in a header under lib/exact/ and is compiled both by the host C
 * compiler (-ffp-contract=off) and by nvcc (--fmad=false): one text, no
 * second copy of any formula.
 */
#ifndef EQ_EXACT_HD_H
#define EQ_EXACT_HD_H

#if defined(__CUDACC__)
#define EQ_HD __host__ __device__
#else
#define EQ_HD
#endif

/* A loop unrolled n times in device code (__CUDA_ARCH__: nvcc's device
 * pass; the host compilers, nvcc's host pass among them, are left to
 * themselves): a hint for the schedule, never for the order of
 * operations. */
#if defined(__CUDA_ARCH__)
#define EQ_HD_PRAGMA(x) _Pragma(#x)
#define EQ_DEVICE_UNROLL(n) EQ_HD_PRAGMA(unroll n)
#else
#define EQ_DEVICE_UNROLL(n)
#endif

#endif /* EQ_EXACT_HD_H */
