#ifndef REPEATER_QM_SHIM_H
#define REPEATER_QM_SHIM_H

// A C seam over Queen Mary DSP (Debian's libqm-dsp 1.7.1) for Swift. Every object is owned behind
// an opaque handle; every call catches C++ exceptions and reports them as a status (and a one-line
// message), so none crosses into Swift. Frames are sample frames at the stream's own rate.

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Status of every call that can fail.
typedef enum {
    QM_OK = 0,
    /// A parameter is out of range (the message says which).
    QM_INVALID_ARGUMENT = 1,
    /// qm-dsp threw (including out of memory); the stream is unusable afterwards.
    QM_FAILED = 2,
} qm_status;

/// How a stream analyses its input.
typedef struct {
    /// Input rate in Hz (> 0).
    int sample_rate;
    /// Detection-function hop in frames; a multiple of `decimation_factor`. The analysis window is
    /// twice this (as qm-vamp-plugins' bar-and-beat tracker uses it).
    int step_frames;
    /// Power of two ≤ 64 that brings the rate down to about 3 kHz for DownBeat's beat spectra.
    int decimation_factor;
    /// Non-zero: also run GetKeyMode (needs a rate above about 17 kHz: its chroma reaches C6).
    int key_enabled;
    /// Concert A in Hz for the key's chromagram (440).
    double key_tuning_hz;
    /// Seconds of chroma GetKeyMode averages before correlating with its key profiles.
    double key_average_seconds;
    /// Steps of silence the stream starts with, before the input's first frame: the detection
    /// function's two-frame history is then built on silence, so an onset at the very first frame
    /// counts as one. Detection-function value i is centred on input frame (i − lead_in_steps) × step.
    int lead_in_steps;
} qm_stream_config;

/// One recording's streaming analysis: a mono mixdown feeds the complex-spectral-difference onset
/// detection function (one value per step), DownBeat's decimated audio buffer, and GetKeyMode.
typedef struct qm_stream qm_stream;

/// A new stream, or NULL with `error` (capacity `error_capacity`, may be 0) saying why.
qm_stream *qm_stream_create(const qm_stream_config *config, char *error, size_t error_capacity);
void qm_stream_destroy(qm_stream *stream);

/// Feeds `frame_count` frames of interleaved `channel_count`-channel audio (mixed down to mono
/// by the mean of the channels). Any block length works; results do not depend on how the input
/// is cut into blocks.
qm_status qm_stream_push(qm_stream *stream, const float *interleaved, size_t frame_count, int channel_count);

/// Detection-function values so far; value i describes the window (2 steps long) centred on
/// input frame (i − lead_in_steps) × step.
/// The pointer is valid until the next push or destroy.
const double *qm_stream_detection_function(const qm_stream *stream, size_t *count);

/// GetKeyMode's 24 key strengths after the latest chroma frame (0–11: C…B major, 12–23: C…B
/// minor; correlations of the averaged chroma with the key profiles). Returns the number of
/// chroma frames processed (0: no key yet, `strengths` untouched).
size_t qm_stream_key_strengths(const qm_stream *stream, double strengths[24]);


/// Bytes the stream holds for the analysis (detection function, decimated audio, chroma), to
/// check that a long recording is not kept at its full rate.
size_t qm_stream_held_byte_count(const qm_stream *stream);

/// The last failure's message ("" if none). Valid until the next call on the stream.
const char *qm_stream_last_error(const qm_stream *stream);

/// DownBeat over the stream's decimated audio, for `beats` (detection-function indices, as qm_beats
/// returns them): the indices of the beats that start bars given `beats_per_bar` (DownBeat's own
/// choice: the one phase with the largest mean change; written to `downbeats`, capacity
/// `beat_count`), and the beat spectral difference: entry k is the Jensen-Shannon divergence of
/// the low spectrum (below the decimated Nyquist, about 1.4 kHz) from beat k's span to beat k + 1's
/// span, the change into beat k + 1 (`beat_count` − 2 entries, written to `beat_sd`, capacity
/// `beat_count`).
qm_status qm_stream_find_downbeats(qm_stream *stream, const double *beats, size_t beat_count, int beats_per_bar,
                                   int *downbeats, size_t *downbeat_count, double *beat_sd, size_t *beat_sd_count);

/// How TempoTrackV2 is asked to track.
typedef struct {
    /// Centre of the tempo prior in BPM (qm's default 120).
    double input_tempo_bpm;
    /// 0: the default Rayleigh prior peaking at `input_tempo_bpm`; non-zero: a Gaussian around it.
    int constrain_tempo;
    /// Beat-placement weights (qm's defaults: 0.9 and 4).
    double alpha;
    double tightness;
} qm_tempo_config;

/// The fewest detection-function values TempoTrackV2 needs for a beat period (two of its
/// 512-value windows, 128 apart: about 7.5 s at the usual step).
size_t qm_tempo_minimum_count(void);

/// TempoTrackV2's beat period (in steps) at each of `count` detection-function values (at least
/// qm_tempo_minimum_count()), written to `beat_periods` (capacity `count`). Each estimate is placed
/// at the centre of the window it was measured on (TempoTrackV2 itself puts it at the window's
/// start, 2.2 s early).
qm_status qm_beat_periods(int sample_rate, int step_frames, const double *detection_function, size_t count,
                          const qm_tempo_config *config, double *beat_periods);

/// TempoTrackV2's beat placement (dynamic programming over the detection function, guided by
/// `beat_periods`, each at least 1): the beats as detection-function indices, written to `beats`
/// (capacity `count`).
qm_status qm_beats(int sample_rate, int step_frames, const double *detection_function, const double *beat_periods,
                   size_t count, const qm_tempo_config *config, double *beats, size_t *beat_count);

#ifdef __cplusplus
}
#endif

#endif
