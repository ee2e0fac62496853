/*
 * exactquality — full-reference video quality metrics whose GPU results are
 * the same IEEE-754 bits as the sequential CPU reference.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Plain C11 public API. No GLib, no GStreamer, no CUDA types: a CUDA stream
 * is passed as an opaque pointer.
 *
 * Life cycle:
 *
 *     EqSettings s;
 *     eq_settings_init (&s);
 *     s.metrics = EQ_METRIC_PSNR | EQ_METRIC_SSIM;
 *     EqScorer *sc;
 *     if (eq_scorer_open (&sc, &s) < 0) ...
 *     EqScores r;
 *     int err = eq_scorer_score (sc, &ref, &dist, &r);
 *     ... r.psnr_y, r.ssim, or eq_value_get (&r, i) for i < eq_value_count ()
 *     eq_scorer_close (&sc);
 *
 * The library never aborts, exits or prints: errors are negative EQ_ERR_*
 * codes, and a sentence describing each one goes to the log callback.
 */
#ifndef EXACTQUALITY_H
#define EXACTQUALITY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(EQ_BUILDING_DLL)
#define EQ_API __declspec(dllexport)
#elif defined(__GNUC__)
#define EQ_API __attribute__((visibility("default")))
#else
#define EQ_API
#endif

#define EQ_VERSION_MAJOR 0
#define EQ_VERSION_MINOR 1
#define EQ_VERSION_MICRO 0

/* ---------------------------------------------------------------- errors */

enum {
    EQ_OK = 0,
    EQ_ERR_INVALID_ARGUMENT = -1,  /* NULL pointer, bad enum value, ... */
    EQ_ERR_UNSUPPORTED = -2,       /* format/bit depth/layout not handled */
    EQ_ERR_MISMATCH = -3,          /* ref and dist differ in geometry or format */
    EQ_ERR_TOO_SMALL = -4,         /* frame below a metric's minimum size */
    EQ_ERR_NO_MEMORY = -5,
    EQ_ERR_NO_DEVICE = -6,         /* CUDA requested but no usable device/driver */
    EQ_ERR_DEVICE = -7,            /* a CUDA call failed (message names it) */
    EQ_ERR_NOT_BUILT = -8,         /* backend or metric not compiled in */
    EQ_ERR_TOO_LARGE = -9,         /* frame larger than the library accepts */
    EQ_ERR_INTERNAL = -10,
};

/* A short English description of an EQ_ERR_* code; never NULL. */
EQ_API const char *eq_strerror(int err);

/* ---------------------------------------------------------------- frames */

typedef enum EqLayout {
    EQ_LAYOUT_GRAY = 0,   /* one plane: Y */
    EQ_LAYOUT_YUV420P,    /* Y, Cb, Cr planes; chroma (w+1)/2 x (h+1)/2 */
    EQ_LAYOUT_YUV422P,    /* chroma (w+1)/2 x h */
    EQ_LAYOUT_YUV444P,    /* chroma w x h */
    EQ_LAYOUT_NV12,       /* Y plane + one interleaved CbCr plane, 4:2:0 (NV12, P010, P016) */
    EQ_LAYOUT_RGB,        /* packed R,G,B (3 samples per pixel) */
    EQ_LAYOUT_RGBX,       /* packed R,G,B,X; X ignored */
    EQ_LAYOUT_BGRX,       /* packed B,G,R,X; X ignored */
    EQ_LAYOUT_RGBA,       /* packed R,G,B,A; A ignored */
    EQ_LAYOUT_COUNT
} EqLayout;

/* Colour description, used by SSIMULACRA2 to turn YUV into RGB. */
typedef enum EqMatrix {
    EQ_MATRIX_UNSPECIFIED = 0, /* BT.709 */
    EQ_MATRIX_BT601,
    EQ_MATRIX_BT709,
    EQ_MATRIX_BT2020NC,
} EqMatrix;

typedef enum EqRange {
    EQ_RANGE_UNSPECIFIED = 0, /* limited for YUV, full for RGB */
    EQ_RANGE_LIMITED,
    EQ_RANGE_FULL,
} EqRange;

/*
 * One picture in host memory (or device memory for eq_scorer_score_device).
 *
 * Samples of bit depth 8 are bytes; deeper samples are 16-bit words in the
 * machine's byte order (little-endian on every supported target), holding
 * the value in the low bits, or in the high bits when msb_aligned is set
 * (P010/P016 style; the low 16 - bitdepth bits are ignored).
 * Strides are in bytes, may be larger than a row and need not be aligned;
 * data[] need not be aligned either.
 *
 * Planes: GRAY uses data[0]; planar YUV data[0..2] = Y, Cb, Cr; NV12 uses
 * data[0] = Y and data[1] = CbCr interleaved; packed RGB uses data[0].
 * Packed RGB is 8 bits per sample, or 16 bits for EQ_LAYOUT_RGB only.
 */
typedef struct EqFrame {
    EqLayout layout;
    int width;
    int height;
    int bitdepth;       /* 8, 10, 12 or 16 */
    int msb_aligned;    /* 0 or 1; only meaningful with bitdepth > 8 */
    EqMatrix matrix;
    EqRange range;
    const void *data[3];
    ptrdiff_t stride[3];
} EqFrame;

/* Largest accepted width or height, and largest accepted area. */
#define EQ_MAX_DIMENSION 16384
#define EQ_MAX_AREA (8192 * 8192)

/* ---------------------------------------------------------------- metrics */

typedef enum EqMetric {
    EQ_METRIC_PSNR = 1 << 0,        /* libvmaf "psnr": psnr_y, psnr_cb, psnr_cr */
    EQ_METRIC_SSIM = 1 << 1,        /* libvmaf "float_ssim" (+ l, c, s means) */
    EQ_METRIC_MS_SSIM = 1 << 2,     /* libvmaf "float_ms_ssim" (+ per-scale l, c, s) */
    EQ_METRIC_SSIMULACRA2 = 1 << 3, /* SSIMULACRA 2.1 (libjxl) */
} EqMetric;

#define EQ_METRIC_ALL 0xfu
#define EQ_METRIC_COUNT 4

/* Index 0..EQ_METRIC_COUNT-1 of a single metric bit, or -1. */
EQ_API int eq_metric_index(unsigned metric);
/* "psnr", "ssim", "ms_ssim", "ssimulacra2"; NULL for a bad value. */
EQ_API const char *eq_metric_name(unsigned metric);
/* Metrics this build can score (some may be CPU-only). */
EQ_API unsigned eq_metrics_available(void);

#define EQ_MS_SSIM_SCALES 5
/* SSIMULACRA2: 6 scales x 3 channels (X, Y, B) x 6 sums
 * (d, d^4, artifact, artifact^4, detail loss, detail loss^4). */
#define EQ_SSIMULACRA2_SCALES 6
#define EQ_SSIMULACRA2_SUMS (EQ_SSIMULACRA2_SCALES * 3 * 6)

/*
 * Results of one frame pair. Only the members of metrics whose bit is set
 * in `scored` hold values; status[eq_metric_index(m)] is 0 for a scored or
 * unrequested metric and a negative EQ_ERR_* for one that failed.
 */
typedef struct EqScores {
    unsigned requested;
    unsigned scored;
    int status[EQ_METRIC_COUNT];

    double psnr_y, psnr_cb, psnr_cr; /* cb/cr absent (NaN) for GRAY */

    double ssim;                     /* float_ssim */
    double ssim_l, ssim_c, ssim_s;   /* float_ssim_l/_c/_s */

    double ms_ssim;                  /* float_ms_ssim */
    double ms_ssim_l[EQ_MS_SSIM_SCALES];
    double ms_ssim_c[EQ_MS_SSIM_SCALES];
    double ms_ssim_s[EQ_MS_SSIM_SCALES];

    double ssimulacra2;
    int ssimulacra2_scales;          /* scales actually used (small images use fewer) */
    /* Raw frame sums in libjxl's order: [scale][channel][6]; unused scales 0. */
    double ssimulacra2_sums[EQ_SSIMULACRA2_SUMS];
} EqScores;

/*
 * Every published value, in the CLI's column order. `name` is libvmaf's
 * feature name (CSV column), `nick` the GStreamer message field name.
 */
typedef struct EqValueInfo {
    const char *name;
    const char *nick;
    unsigned metric;
} EqValueInfo;

EQ_API int eq_value_count(void);
EQ_API const EqValueInfo *eq_value_info(int index);
/* The value, or NaN when its metric was not scored or the value is absent. */
EQ_API double eq_value_get(const EqScores *scores, int index);
/* 1 when the value is present in `scores`, else 0. */
EQ_API int eq_value_present(const EqScores *scores, int index);

/* ---------------------------------------------------------------- scorer */

typedef enum EqBackend {
    EQ_BACKEND_AUTO = 0, /* CUDA when a device opens, else CPU */
    EQ_BACKEND_CPU,
    EQ_BACKEND_CUDA,
} EqBackend;

EQ_API const char *eq_backend_name(EqBackend backend);
/* 1 when the CUDA backend was compiled in (says nothing about a device). */
EQ_API int eq_cuda_built(void);
/* 1 when the CUDA runtime reports at least one device (0 without the CUDA
 * backend, a driver or a device). With EQ_BACKEND_AUTO, a scorer that ends
 * up on the CPU although this is 1 had a device it could not use: the
 * library then logs a warning rather than an info line. */
EQ_API int eq_cuda_device_present(void);

typedef enum EqLogLevel {
    EQ_LOG_ERROR = 0,
    EQ_LOG_WARNING,
    EQ_LOG_INFO,
    EQ_LOG_DEBUG,
} EqLogLevel;

typedef void (*EqLogCallback)(void *user, EqLogLevel level, const char *message);

typedef struct EqSettings {
    unsigned metrics;      /* EQ_METRIC_* bits; default EQ_METRIC_ALL */
    EqBackend backend;     /* default EQ_BACKEND_AUTO */
    int cuda_device;       /* default 0 */
    int threads;           /* CPU backend worker threads; 0 = one per core */
    EqMatrix matrix;       /* overrides the frame's matrix when not UNSPECIFIED */
    EqRange range;         /* overrides the frame's range when not UNSPECIFIED */
    EqLogCallback log;     /* may be NULL: messages are dropped */
    void *log_user;
} EqSettings;

EQ_API void eq_settings_init(EqSettings *settings);

typedef struct EqScorer EqScorer;

/* Opens a scorer. With EQ_BACKEND_CUDA and no usable device, fails with
 * EQ_ERR_NO_DEVICE (or EQ_ERR_NOT_BUILT); with AUTO it falls back to CPU. */
EQ_API int eq_scorer_open(EqScorer **out, const EqSettings *settings);
EQ_API void eq_scorer_close(EqScorer **scorer);
/* The backend actually in use (never AUTO). */
EQ_API EqBackend eq_scorer_backend(const EqScorer *scorer);

/*
 * Scores one pair of host-memory frames. Returns 0 when every requested
 * metric was scored; otherwise the first metric's error code, with the other
 * metrics still scored where possible (see EqScores.status). A geometry or
 * format mismatch between ref and dist fails the whole call.
 */
EQ_API int eq_scorer_score(EqScorer *scorer, const EqFrame *ref,
                           const EqFrame *dist, EqScores *out);

/*
 * As eq_scorer_score, with data[] pointing to CUDA device memory, work
 * ordered after the caller's stream (a cudaStream_t, or NULL for the legacy
 * default stream). CUDA backend only; returns after the scores are known.
 */
EQ_API int eq_scorer_score_device(EqScorer *scorer, const EqFrame *ref,
                                  const EqFrame *dist, void *cuda_stream,
                                  EqScores *out);

/* Checks one frame description; 0 or a negative code (message logged). */
EQ_API int eq_frame_validate(const EqFrame *frame, EqLogCallback log, void *log_user);

/* ---------------------------------------------------------------- pooling */

/*
 * One value pooled over the frames of a run as libvmaf 3.2.0 pools a
 * feature (libvmaf/src/libvmaf.c, vmaf_feature_score_pooled): mean,
 * harmonic mean, minimum and maximum, in constant memory. The CLI's
 * summary and the GStreamer element's summary are both this code.
 *
 *     EqScorePool p;
 *     eq_score_pool_init (&p);
 *     for each frame: eq_score_pool_add (&p, eq_value_get (&scores, i));
 *     if (eq_score_pool_count (&p) > 0) ... eq_score_pool_mean (&p) ...
 *
 * The arithmetic, exactly: IEEE-754 doubles, round to nearest, no fused
 * multiply-add; x_1 .. x_n are the values pooled, in the order added.
 *
 *     sum     = (((+0.0 + x_1) + x_2) + ...) + x_n
 *     inv_sum = (((+0.0 + 1.0 / (x_1 + 1.0)) + 1.0 / (x_2 + 1.0)) + ...)
 *               + 1.0 / (x_n + 1.0)
 *     mean          = sum / (double)n
 *     harmonic mean = (double)n / inv_sum - 1.0
 *     min           = x_1, then x_k replaces it where x_k < min
 *     max           = x_1, then x_k replaces it where x_k > max
 *
 * so a caller's loop `for (k..) { sum += x[k]; inv_sum += 1. / (x[k] + 1.); }`
 * over the same values (NaNs skipped), from sums of +0.0, gives the same
 * bits.
 *
 * A NaN is not a value (it is how the library says "absent"): it is not
 * pooled and not counted. Every other double is pooled by the formulas
 * above with no special case: a +inf makes the mean +inf and adds +0.0 to
 * inv_sum (a -inf adds -0.0); +inf and -inf together make the mean NaN; a
 * -1.0 makes inv_sum +inf and so the harmonic mean -1.0; an inv_sum of 0
 * (only infinities, or 1.0 and -3.0) makes it +inf. -0.0 and +0.0 compare
 * equal: min and max keep the first zero seen, with its sign, and
 * +0.0 + -0.0 is +0.0.
 *
 * An empty pool (no value added, or NULL) has count 0, and its mean,
 * harmonic mean, min and max are NaN (positive sign).
 *
 * The members are the running state, public only so that a pool can be a
 * plain member or array element (no allocation); read them through the
 * functions. A pool is not locked: one thread at a time.
 */
typedef struct EqScorePool {
    uint64_t n;
    double sum, inv_sum, min, max;
} EqScorePool;

/* Empties @pool. A zero-filled EqScorePool is an empty pool too. */
EQ_API void eq_score_pool_init(EqScorePool *pool);
/* Adds the next value (a NaN is ignored). */
EQ_API void eq_score_pool_add(EqScorePool *pool, double x);
/* Values pooled (NaNs not counted). */
EQ_API uint64_t eq_score_pool_count(const EqScorePool *pool);
EQ_API double eq_score_pool_mean(const EqScorePool *pool);
EQ_API double eq_score_pool_harmonic_mean(const EqScorePool *pool);
EQ_API double eq_score_pool_min(const EqScorePool *pool);
EQ_API double eq_score_pool_max(const EqScorePool *pool);

#ifdef __cplusplus
}
#endif

#endif /* EXACTQUALITY_H */
