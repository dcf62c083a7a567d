// The C seam over Queen Mary DSP: see include/qm_shim.h for each call's contract.
//
// Parameters follow qm-vamp-plugins' "Bar and Beat Tracker" and "Key Detector" (complex spectral
// difference, window = 2 × step, dB rise 3, no adaptive whitening; DownBeat on audio decimated to
// about 3 kHz; GetKeyMode at 440 Hz). What differs is said where it differs.

#include "qm_shim.h"

#include <dsp/keydetection/GetKeyMode.h>
#include <dsp/onsets/DetectionFunction.h>
#include <dsp/tempotracking/DownBeat.h>
#include <dsp/tempotracking/TempoTrackV2.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

// GetKeyMode::process (qm-dsp 1.7.1) rotates its file-static key profiles in place and rotates them
// back before it returns: two detectors running at once on two threads would read each other's
// half-rotated profiles. Every call into it holds this lock.
std::mutex keyProfilesLock;

void copyMessage(char *error, size_t capacity, const std::string &message) {
    if (!error || capacity == 0) return;
    std::snprintf(error, capacity, "%s", message.c_str());
}

bool isPowerOfTwo(int value) { return value > 0 && (value & (value - 1)) == 0; }

}  // namespace

struct qm_stream {
    qm_stream_config config;
    std::unique_ptr<DetectionFunction> detectionFunction;
    std::unique_ptr<DownBeat> downBeat;
    std::unique_ptr<GetKeyMode> keyMode;

    // The analysis window: the previous step and the step being filled.
    std::vector<double> window;
    std::vector<float> stepBlock;
    size_t stepFill = 0;
    std::vector<double> detection;

    std::vector<double> keyBlock;
    size_t keyFill = 0;
    size_t keyFrameCount = 0;
    double keyStrengths[24] = {};

    std::string lastError;

    explicit qm_stream(const qm_stream_config &config) : config(config) {
        const int step = config.step_frames;
        DFConfig dfConfig;
        dfConfig.DFType = DF_COMPLEXSD;
        dfConfig.stepSize = step;
        dfConfig.frameLength = 2 * step;
        dfConfig.dbRise = 3;
        dfConfig.adaptiveWhitening = false;
        dfConfig.whiteningRelaxCoeff = -1;
        dfConfig.whiteningFloor = -1;
        detectionFunction.reset(new DetectionFunction(dfConfig));
        downBeat.reset(new DownBeat(float(config.sample_rate), size_t(config.decimation_factor), size_t(step)));
        window.assign(size_t(2 * step), 0.0);
        stepBlock.assign(size_t(step), 0.0f);
        if (config.key_enabled) {
            // The median-filter length (last argument) is the shortest there is: the shim reads
            // the key strengths of the averaged chroma, not GetKeyMode's median-filtered key.
            keyMode.reset(new GetKeyMode(config.sample_rate, float(config.key_tuning_hz),
                                         config.key_average_seconds, 0.01));
            keyBlock.assign(keyMode->getBlockSize(), 0.0);
        }
        // The lead-in: whole steps of silence (the window's first half is already silent).
        for (int i = 0; i < config.lead_in_steps * step; ++i) pushMono(0.0f, false);
    }

    // One mono sample. `counted` is false for the lead-in, which the key detector does not hear.
    void pushMono(float sample, bool counted) {
        stepBlock[stepFill++] = sample;
        if (stepFill == stepBlock.size()) finishStep();
        if (counted && keyMode) {
            keyBlock[keyFill++] = sample;
            if (keyFill == keyBlock.size()) finishKeyBlock();
        }
    }

    void finishStep() {
        const size_t step = stepBlock.size();
        std::memmove(window.data(), window.data() + step, step * sizeof(double));
        for (size_t i = 0; i < step; ++i) window[step + i] = stepBlock[i];
        detection.push_back(detectionFunction->processTimeDomain(window.data()));
        downBeat->pushAudioBlock(stepBlock.data());
        stepFill = 0;
    }

    void finishKeyBlock() {
        std::lock_guard<std::mutex> guard(keyProfilesLock);
        keyMode->process(keyBlock.data());
        const double *strengths = keyMode->getKeyStrengths();
        for (int k = 0; k < 24; ++k) keyStrengths[k] = strengths[k];
        ++keyFrameCount;
        keyFill = 0;
    }
};

extern "C" {

qm_stream *qm_stream_create(const qm_stream_config *config, char *error, size_t error_capacity) {
    if (!config) {
        copyMessage(error, error_capacity, "no configuration");
        return nullptr;
    }
    if (config->sample_rate < 1000) {
        copyMessage(error, error_capacity, "sample rate " + std::to_string(config->sample_rate) + " Hz is below 1000 Hz");
        return nullptr;
    }
    if (!isPowerOfTwo(config->decimation_factor) || config->decimation_factor > 64) {
        copyMessage(error, error_capacity, "decimation factor " + std::to_string(config->decimation_factor) + " is not a power of two up to 64");
        return nullptr;
    }
    if (config->step_frames < 16 || config->step_frames % config->decimation_factor != 0) {
        copyMessage(error, error_capacity, "step of " + std::to_string(config->step_frames) + " frames is not a multiple of the decimation factor");
        return nullptr;
    }
    if (config->lead_in_steps < 0 || config->key_average_seconds <= 0 || config->key_tuning_hz <= 0) {
        copyMessage(error, error_capacity, "lead-in, key averaging or tuning out of range");
        return nullptr;
    }
    try {
        return new qm_stream(*config);
    } catch (const std::exception &exception) {
        copyMessage(error, error_capacity, std::string("qm-dsp could not start: ") + exception.what());
    } catch (...) {
        copyMessage(error, error_capacity, "qm-dsp could not start");
    }
    return nullptr;
}

void qm_stream_destroy(qm_stream *stream) { delete stream; }

qm_status qm_stream_push(qm_stream *stream, const float *interleaved, size_t frame_count, int channel_count) {
    if (!stream || (!interleaved && frame_count > 0) || channel_count < 1) return QM_INVALID_ARGUMENT;
    try {
        const float scale = 1.0f / float(channel_count);
        for (size_t frame = 0; frame < frame_count; ++frame) {
            const float *samples = interleaved + frame * size_t(channel_count);
            float sum = 0;
            for (int channel = 0; channel < channel_count; ++channel) sum += samples[channel];
            stream->pushMono(sum * scale, true);
        }
        return QM_OK;
    } catch (const std::exception &exception) {
        stream->lastError = std::string("qm-dsp failed: ") + exception.what();
    } catch (...) {
        stream->lastError = "qm-dsp failed";
    }
    return QM_FAILED;
}

const double *qm_stream_detection_function(const qm_stream *stream, size_t *count) {
    *count = stream->detection.size();
    return stream->detection.data();
}

size_t qm_stream_key_strengths(const qm_stream *stream, double strengths[24]) {
    if (stream->keyFrameCount > 0) std::memcpy(strengths, stream->keyStrengths, sizeof(stream->keyStrengths));
    return stream->keyFrameCount;
}

size_t qm_stream_held_byte_count(const qm_stream *stream) {
    size_t decimated = 0;
    stream->downBeat->getBufferedAudio(decimated);
    size_t chroma = 0;
    if (stream->keyMode) {
        // GetKeyMode's averaging buffer: 36 bins per chroma frame, allocated once.
        const double frameSeconds = double(stream->keyMode->getHopSize()) / stream->config.sample_rate;
        chroma = size_t(stream->config.key_average_seconds / frameSeconds + 1) * 36 * sizeof(double);
    }
    return stream->detection.capacity() * sizeof(double) + decimated * sizeof(float) + chroma
         + (stream->window.size() + stream->keyBlock.size()) * sizeof(double) + stream->stepBlock.size() * sizeof(float);
}

const char *qm_stream_last_error(const qm_stream *stream) { return stream->lastError.c_str(); }

qm_status qm_stream_find_downbeats(qm_stream *stream, const double *beats, size_t beat_count, int beats_per_bar,
                                   int *downbeats, size_t *downbeat_count, double *beat_sd, size_t *beat_sd_count) {
    *downbeat_count = 0;
    *beat_sd_count = 0;
    if (!stream || beats_per_bar < 1 || (!beats && beat_count > 0)) return QM_INVALID_ARGUMENT;
    if (beat_count < 2) return QM_OK;
    try {
        std::vector<double> beatPositions(beats, beats + beat_count);
        std::vector<int> found;
        size_t length = 0;
        const float *audio = stream->downBeat->getBufferedAudio(length);
        stream->downBeat->setBeatsPerBar(beats_per_bar);
        stream->downBeat->findDownBeats(audio, length, beatPositions, found);
        std::vector<double> spectralDifference;
        stream->downBeat->getBeatSD(spectralDifference);
        for (size_t i = 0; i < found.size() && i < beat_count; ++i) downbeats[i] = found[i];
        *downbeat_count = found.size() < beat_count ? found.size() : beat_count;
        for (size_t i = 0; i < spectralDifference.size() && i < beat_count; ++i) beat_sd[i] = spectralDifference[i];
        *beat_sd_count = spectralDifference.size() < beat_count ? spectralDifference.size() : beat_count;
        return QM_OK;
    } catch (const std::exception &exception) {
        stream->lastError = std::string("qm-dsp DownBeat failed: ") + exception.what();
    } catch (...) {
        stream->lastError = "qm-dsp DownBeat failed";
    }
    return QM_FAILED;
}

// TempoTrackV2 frames its comb-filter bank in windows of 512 values hopping by 128, and its
// Viterbi decoding needs two such windows.
size_t qm_tempo_minimum_count(void) { return 512 + 128 + 1; }

qm_status qm_beat_periods(int sample_rate, int step_frames, const double *detection_function, size_t count,
                          const qm_tempo_config *config, double *beat_periods) {
    if (sample_rate <= 0 || step_frames <= 0 || !config || (!detection_function && count > 0)) return QM_INVALID_ARGUMENT;
    if (count < qm_tempo_minimum_count()) return QM_INVALID_ARGUMENT;
    try {
        std::vector<double> df(detection_function, detection_function + count);
        std::vector<double> periods(count, 0.0);
        std::vector<double> tempi;
        TempoTrackV2 tracker{float(sample_rate), size_t(step_frames)};
        tracker.calculateBeatPeriod(df, periods, tempi, config->input_tempo_bpm, config->constrain_tempo != 0);
        // calculateBeatPeriod estimates each period from a window of 512 values and assigns it to
        // the 128 values at the window's start, so the period path runs 192 values (2.2 s) ahead
        // of the music: a tempo change reaches the beats early, and the tracker squeezes in a
        // beat. Each estimate is moved to the centre of its window instead.
        const size_t lead = 192;
        for (size_t i = count; i-- > lead;) periods[i] = periods[i - lead];
        for (size_t i = 0; i < lead && i < count; ++i) periods[i] = periods[lead];
        for (size_t i = 0; i < count; ++i) beat_periods[i] = periods[i];
        return QM_OK;
    } catch (...) {
        return QM_FAILED;
    }
}

qm_status qm_beats(int sample_rate, int step_frames, const double *detection_function, const double *beat_periods,
                   size_t count, const qm_tempo_config *config, double *beats, size_t *beat_count) {
    *beat_count = 0;
    if (sample_rate <= 0 || step_frames <= 0 || !config || ((!detection_function || !beat_periods) && count > 0)) return QM_INVALID_ARGUMENT;
    for (size_t i = 0; i < count; ++i) {
        if (!(beat_periods[i] >= 1)) return QM_INVALID_ARGUMENT;
    }
    if (count == 0) return QM_OK;
    try {
        std::vector<double> df(detection_function, detection_function + count);
        std::vector<double> periods(beat_periods, beat_periods + count);
        std::vector<double> found;
        TempoTrackV2 tracker{float(sample_rate), size_t(step_frames)};
        tracker.calculateBeats(df, periods, found, config->alpha, config->tightness);
        size_t n = found.size() < count ? found.size() : count;
        for (size_t i = 0; i < n; ++i) beats[i] = found[i];
        *beat_count = n;
        return QM_OK;
    } catch (...) {
        return QM_FAILED;
    }
}

}  // extern "C"
