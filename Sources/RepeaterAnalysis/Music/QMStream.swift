import CQMDSP

/// Owns one `qm_stream` (qm-dsp's detection function, DownBeat's decimated audio and GetKeyMode
/// for one recording) and turns its status codes into `MusicAnalysisError`s.
final class QMStream {
    /// The layout chosen for a sample rate: qm-vamp-plugins' 11.61 ms step, rounded to a multiple
    /// of the decimation factor. (At 48 kHz the plugin's 557-frame step is not one: DownBeat's
    /// decimator then keeps 34 of 34.8 frames per step and its beat windows drift 2.4 % late.)
    struct Layout: Equatable {
        let sampleRate: Int
        let decimationFactor: Int
        let stepFrameCount: Int
        /// Steps of silence before the first frame (see `qm_stream_config.lead_in_steps`).
        let leadInSteps: Int
        let keyEnabled: Bool

        init(sampleRate: Int) {
            self.sampleRate = sampleRate
            var factor = 1
            while factor * 3000 < sampleRate && factor < 64 { factor *= 2 }
            decimationFactor = factor
            let step = (Double(sampleRate) * 0.01161 / Double(factor)).rounded() * Double(factor)
            stepFrameCount = max(Int(step), 16, factor)
            leadInSteps = 2
            // GetKeyMode decimates by 8 and its chroma reaches C6 (1047 Hz).
            keyEnabled = sampleRate / 16 > 1047
        }

        /// The input frame at the centre of detection-function value `index` (fractional).
        func frame(atDetectionIndex index: Double) -> Double {
            (index - Double(leadInSteps)) * Double(stepFrameCount)
        }
    }

    let layout: Layout
    private let handle: OpaquePointer

    /// Seconds of chroma GetKeyMode averages: an hour, so that the key strengths describe the whole
    /// recording (a longer one: its last hour).
    static let keyAverageSeconds = 3600.0

    init(layout: Layout) throws(MusicAnalysisError) {
        self.layout = layout
        var config = qm_stream_config(sample_rate: Int32(layout.sampleRate), step_frames: Int32(layout.stepFrameCount),
                                      decimation_factor: Int32(layout.decimationFactor), key_enabled: layout.keyEnabled ? 1 : 0,
                                      key_tuning_hz: 440, key_average_seconds: Self.keyAverageSeconds,
                                      lead_in_steps: Int32(layout.leadInSteps))
        var message = [CChar](repeating: 0, count: 256)
        guard let handle = qm_stream_create(&config, &message, message.count) else {
            throw .invalidInput(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.handle = handle
    }

    deinit { qm_stream_destroy(handle) }

    func push(_ interleaved: UnsafeBufferPointer<Float>, channelCount: Int) throws(MusicAnalysisError) {
        let frames = interleaved.count / channelCount
        guard frames > 0, let base = interleaved.baseAddress else { return }
        let status = qm_stream_push(handle, base, frames, Int32(channelCount))
        guard status == QM_OK else { throw .libraryFailure(String(cString: qm_stream_last_error(handle))) }
    }

    var detectionFunction: [Double] {
        var count = 0
        guard let values = qm_stream_detection_function(handle, &count), count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: values, count: count))
    }

    /// The 24 key strengths (C…B major, then C…B minor) of the chroma averaged so far, or nil
    /// before the first chroma frame.
    var keyStrengths: [Double]? {
        var strengths = [Double](repeating: 0, count: 24)
        let frames = strengths.withUnsafeMutableBufferPointer { qm_stream_key_strengths(handle, $0.baseAddress!) }
        return frames > 0 ? strengths : nil
    }

    var heldByteCount: Int { qm_stream_held_byte_count(handle) }

    /// DownBeat for `beats` (detection-function indices): the indices of the beats that start
    /// bars for `beatsPerBar` (DownBeat's single-phase choice), and the beat spectral difference
    /// (entry k: the change into beat k + 1; `beats.count` − 2 entries).
    func downbeats(beats: [Double], beatsPerBar: Int) throws(MusicAnalysisError) -> (downbeats: [Int], spectralDifference: [Double]) {
        var downbeats = [Int32](repeating: 0, count: beats.count)
        var difference = [Double](repeating: 0, count: beats.count)
        var downbeatCount = 0, differenceCount = 0
        let status = qm_stream_find_downbeats(handle, beats, beats.count, Int32(beatsPerBar), &downbeats, &downbeatCount,
                                              &difference, &differenceCount)
        guard status == QM_OK else { throw .libraryFailure(String(cString: qm_stream_last_error(handle))) }
        return (downbeats.prefix(downbeatCount).map(Int.init), Array(difference.prefix(differenceCount)))
    }

    /// TempoTrackV2's beat period, in steps, at each detection-function value (each estimate at the
    /// centre of the window it was measured on), or nil when the function is shorter than the
    /// tracker's minimum (about 7.5 s).
    static func beatPeriods(layout: Layout, detectionFunction: [Double], inputTempoBPM: Double = 120,
                            constrainTempo: Bool = false) throws(MusicAnalysisError) -> [Double]? {
        guard detectionFunction.count >= qm_tempo_minimum_count() else { return nil }
        var config = tempoConfig(inputTempoBPM: inputTempoBPM, constrainTempo: constrainTempo)
        var periods = [Double](repeating: 0, count: detectionFunction.count)
        let status = qm_beat_periods(Int32(layout.sampleRate), Int32(layout.stepFrameCount), detectionFunction,
                                     detectionFunction.count, &config, &periods)
        guard status == QM_OK else { throw .libraryFailure("TempoTrackV2 could not estimate the beat period") }
        return periods
    }

    /// TempoTrackV2's beats (detection-function indices) for a beat-period path.
    static func beats(layout: Layout, detectionFunction: [Double], periods: [Double]) throws(MusicAnalysisError) -> [Double] {
        var config = tempoConfig(inputTempoBPM: 120, constrainTempo: false)
        var beats = [Double](repeating: 0, count: detectionFunction.count)
        var count = 0
        let status = qm_beats(Int32(layout.sampleRate), Int32(layout.stepFrameCount), detectionFunction, periods,
                              detectionFunction.count, &config, &beats, &count)
        guard status == QM_OK else { throw .libraryFailure("TempoTrackV2 could not place the beats") }
        return Array(beats.prefix(count))
    }

    /// qm-vamp-plugins' beat-placement weights (alpha 0.9, tightness 4).
    private static func tempoConfig(inputTempoBPM: Double, constrainTempo: Bool) -> qm_tempo_config {
        qm_tempo_config(input_tempo_bpm: inputTempoBPM, constrain_tempo: constrainTempo ? 1 : 0, alpha: 0.9, tightness: 4)
    }
}
