/// Finds the tempo, beats, bars, meter and key of one recording from its samples, delivered in
/// blocks of any length: mono or interleaved multichannel Float at any rate from 1 kHz.
///
/// It keeps only what qm-dsp needs at the end: one detection-function value per 11.6 ms step, the
/// mono audio decimated to about 3 kHz for DownBeat, and GetKeyMode's chroma buffer (about 5 MB
/// for five minutes of 44.1 kHz stereo, whose samples are 106 MB). The same samples give the same
/// analysis, however they are cut into blocks. One thread at a time; analyzers on different
/// threads are independent.
public final class MusicAnalyzer {
    public let sampleRate: Int
    public let channelCount: Int
    /// Frames processed so far.
    public private(set) var frameCount = 0
    private let stream: QMStream
    /// What the last `finish()` decided on, for the tests' tables.
    private(set) var diagnostics = Diagnostics()

    struct Diagnostics {
        var octave: TempoOctave.Evidence?
        var clarity = 0.0
        var meterContrasts: [Int: Double] = [:]
        var tempoConfidence = 0.0
        var alternativeBPM = 0.0
    }

    public init(sampleRate: Int, channelCount: Int) throws(MusicAnalysisError) {
        guard (1_000...768_000).contains(sampleRate) else { throw .invalidInput("sample rate \(sampleRate) Hz is outside 1000–768000 Hz") }
        guard (1...64).contains(channelCount) else { throw .invalidInput("\(channelCount) channels (1–64 are analysed)") }
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        stream = try QMStream(layout: QMStream.Layout(sampleRate: sampleRate))
    }

    /// Analyses the next frames: `interleaved.count / channelCount` of them (a partial frame at the
    /// end is ignored).
    public func process(_ interleaved: UnsafeBufferPointer<Float>) throws(MusicAnalysisError) {
        try stream.push(interleaved, channelCount: channelCount)
        frameCount += interleaved.count / channelCount
    }

    /// Bytes held for the final analysis: it grows at 1/32 of the size of stereo Float samples
    /// (1/16 for mono), plus a fixed 1.5 MB for the key.
    public var heldByteCount: Int { stream.heldByteCount }

    /// The analysis of everything processed. Call once, at the end.
    public func finish() throws(MusicAnalysisError) -> MusicAnalysis {
        let layout = stream.layout
        let detection = stream.detectionFunction
        let tracked = try BeatTracker.track(layout: layout, detectionFunction: detection)
        diagnostics = Diagnostics(octave: tracked.octave, clarity: tracked.clarity)
        let beats = tracked.beats
        // No beats, no key: a recording without a pulse (a steady tone, speech, noise, or under
        // 7.5 s) is not judged to be music, and a key is a claim about music.
        guard beats.count >= 2, let octave = tracked.octave else { return MusicAnalysis.empty(sampleRate: sampleRate, frameCount: frameCount) }
        let key = stream.keyStrengths.flatMap(MusicalKey.init(strengths:))
        let bars = try BarFinder.find(stream: stream, beats: beats)
        diagnostics.meterContrasts = bars.contrasts
        let beatFrames = beats.map { frame(atDetectionIndex: $0) }
        let downbeatFrames = bars.downbeatIndices.map { beatFrames[$0] }
        let tempoChanges = TempoMap.changes(beatFrames: beatFrames, sampleRate: sampleRate)
        let tempo = TempoMap.mainTempo(tempoChanges, endFrame: beatFrames.last!)
        // A weak pulse makes any tempo less sure.
        let confidence = octave.confidence * min(1, tracked.clarity / Self.clearPulse)
        let alternative = tempo * octave.alternativeBPM / octave.chosenBPM
        diagnostics.tempoConfidence = confidence
        diagnostics.alternativeBPM = alternative
        return MusicAnalysis(sampleRate: sampleRate, frameCount: frameCount, tempoBPM: tempo,
                             tempoChanges: tempoChanges, beatFrames: beatFrames, downbeatFrames: downbeatFrames,
                             beatsPerBar: bars.beatsPerBar, key: key, tempoConfidence: confidence, tempoAlternativeBPM: alternative)
    }

    /// Pulse clarity from which a tempo is as sure as its octave evidence makes it.
    static let clearPulse = 0.3

    private func frame(atDetectionIndex index: Double) -> Int {
        max(0, Int(stream.layout.frame(atDetectionIndex: index - Self.detectionLatencySteps).rounded()))
    }

    /// How many steps a detection-function value comes after the onset it reports: it rises at
    /// the first window whose centre has passed the onset, so on average half a step later
    /// (measured on noise clicks at 22.05–96 kHz: 0.57 steps, 6.6 ms at 44.1 kHz).
    static let detectionLatencySteps = 0.5
}

extension MusicAnalyzer {
    /// Reads and analyses a whole recording, one block at a time.
    ///
    /// - `read` fills its buffer (room for `blockFrameCount` interleaved frames) from the
    ///   recording's next frames and returns how many it read, 0 at the end. An error it throws
    ///   stops the analysis as `.readFailure`.
    /// - `progress` is called after each block with the fraction done (reading is 95 % of it, if
    ///   `frameCount` is known), and with 1 when the analysis is complete.
    /// - `isCancelled` is checked before each block: true stops with `.cancelled`, and `read` is
    ///   not called again.
    ///
    /// Memory: one block of samples plus what `heldByteCount` describes.
    public static func analyze(sampleRate: Int, channelCount: Int, frameCount: Int? = nil, blockFrameCount: Int = 65_536,
                               read: (UnsafeMutableBufferPointer<Float>) throws -> Int,
                               progress: (Double) -> Void = { _ in },
                               isCancelled: () -> Bool = { false }) throws(MusicAnalysisError) -> MusicAnalysis {
        guard blockFrameCount > 0 else { throw .invalidInput("blocks of \(blockFrameCount) frames") }
        let analyzer = try MusicAnalyzer(sampleRate: sampleRate, channelCount: channelCount)
        var block = [Float](repeating: 0, count: blockFrameCount * channelCount)
        while true {
            if isCancelled() { throw .cancelled }
            let frames: Int
            do {
                frames = try block.withUnsafeMutableBufferPointer { try read($0) }
            } catch {
                throw .readFailure("\(error)")
            }
            guard frames > 0 else { break }
            guard frames <= blockFrameCount else { throw .readFailure("the reader returned \(frames) frames for a block of \(blockFrameCount)") }
            try block.withUnsafeBufferPointer { buffer throws(MusicAnalysisError) in
                try analyzer.process(UnsafeBufferPointer(rebasing: buffer[0..<(frames * channelCount)]))
            }
            if let frameCount, frameCount > 0 { progress(min(0.95, 0.95 * Double(analyzer.frameCount) / Double(frameCount))) }
        }
        if isCancelled() { throw .cancelled }
        let analysis = try analyzer.finish()
        progress(1)
        return analysis
    }
}
