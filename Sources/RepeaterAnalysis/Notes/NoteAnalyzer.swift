#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names what sounds in mono audio: energy per piano key, up to six notes with octave and cents
/// (A4 = 440 Hz), and a chord.
///
/// One analyser per sample rate, used by one thread at a time: the analysis thread, never the
/// audio thread (a call allocates the report and some small scratch arrays; the large buffers and
/// both FFTW plans are made in `init`). Making or dropping an analyser plans or destroys FFTW
/// plans, which FFTW's planner does not allow from two threads at once: this module serialises its
/// own plans with a lock, but other fftw3f users in the process (aubio) do not share that lock, so
/// make analysers on the thread that makes those, or not while they are being made.
///
/// Two views:
/// - **at the playhead**: `analyze(window:)` on the latest `playheadFrameCount` frames heard, a Hann
///   window of 2^k frames, the smallest of at least 150 ms (8192 frames at 44.1 and 48 kHz: 186 and
///   171 ms; 16384 at 96 kHz). Its resolution (two bins, 11.7 Hz at 48 kHz) separates notes a
///   semitone apart from F3 up; a single lower note is still named, down to A0, from the
///   interpolated frequencies of its partials;
/// - **over the whole loop**: `addToLoop(_:)` with each block as it plays, `loopReport()` to read
///   the average, `resetLoop()` when the loop, the pitch shift or the file changes (a speed change
///   keeps the pitches, and the average with them). Windows of
///   4 × `playheadFrameCount` frames (683 ms at 48 kHz), half-overlapping, power spectra averaged:
///   semitones are separated from G1 up.
///
/// Both transforms are zero-padded 2× and each spectral peak's frequency is interpolated, so a
/// steady tone's pitch is read to a fraction of a cent. Notes come from harmonic summation with
/// cancellation (`PitchEstimator`), so that overtones are not named as notes; the chord from the
/// notes (`ChordName.best`).
public final class NoteAnalyzer {
    public let sampleRate: Double
    /// Frames of the playhead window (the most recent frames of what `analyze` is given).
    public let playheadFrameCount: Int
    /// Frames of each window averaged over the loop.
    public var loopWindowFrameCount: Int { loop.windowFrameCount }
    /// How note and chord names are spelt.
    public var spelling: NoteSpelling
    /// At most this many notes are reported.
    public static let maxNotes = 6
    /// Notes more than this far below the strongest one take no part in the chord.
    public static let chordRangeDB: Float = 20
    /// Notes tuned more than this far from the strongest one take no part in the chord.
    public static let chordTuningCents: Float = 30

    static let zeroPadding = 2
    private let fft: RealFFT
    private let window: UnsafeMutableBufferPointer<Float>
    private let windowScale: Float
    private let scratchWindow: UnsafeMutableBufferPointer<Float>
    private let power: UnsafeMutableBufferPointer<Float>
    private let playheadPeaks: SpectralPeaks
    private let loopPeaks: SpectralPeaks
    private let loop: LoopSpectrum
    private var peaks: [SpectralPeak] = []
    private var keyPower: [Float]
    var estimator = PitchEstimator()

    /// Makes the buffers and FFTW plans for `sampleRate` (the server's rate; 22.05 … 192 kHz
    /// measured). A rate of zero or less is a programming error.
    public init(sampleRate: Double, spelling: NoteSpelling = .common) {
        precondition(sampleRate > 0, "NoteAnalyzer needs a positive sample rate")
        self.sampleRate = sampleRate
        self.spelling = spelling
        var frames = 1024
        while Double(frames) < 0.150 * sampleRate { frames *= 2 }
        playheadFrameCount = frames
        fft = RealFFT(length: frames * Self.zeroPadding)
        window = .allocate(capacity: frames)
        windowScale = amplitudeSquaredScale(windowSum: fillHannWindow(window))
        scratchWindow = .allocate(capacity: frames)
        scratchWindow.initialize(repeating: 0)
        power = .allocate(capacity: fft.length / 2 + 1)
        power.initialize(repeating: 0)
        playheadPeaks = SpectralPeaks(sampleRate: sampleRate, fftLength: fft.length, zeroPadding: Self.zeroPadding)
        loop = LoopSpectrum(windowFrameCount: 4 * frames, zeroPadding: Self.zeroPadding)
        loopPeaks = SpectralPeaks(sampleRate: sampleRate, fftLength: 4 * frames * Self.zeroPadding, zeroPadding: Self.zeroPadding)
        peaks.reserveCapacity(loop.binCount / 4)
        keyPower = [Float](repeating: 0, count: NoteReport.highestKey - NoteReport.lowestKey + 1)
    }

    deinit {
        window.deallocate()
        scratchWindow.deallocate()
        power.deallocate()
    }

    // MARK: - At the playhead

    /// The notes in `window`: its last `playheadFrameCount` frames (all of it when shorter; fewer
    /// than 1/8 of that is too little to name anything and gives `NoteReport.silent`).
    public func analyze(window frames: UnsafeBufferPointer<Float>) -> NoteReport {
        let count = min(frames.count, playheadFrameCount)
        guard count >= playheadFrameCount / 8 else { return .silent }
        let latest = UnsafeBufferPointer(rebasing: frames[(frames.count - count)...])
        if count == playheadFrameCount {
            fft.powerSpectrum(of: latest, window: UnsafeBufferPointer(window), scale: windowScale, into: power)
        } else {
            let shortWindow = UnsafeMutableBufferPointer(rebasing: scratchWindow[0..<count])
            let scale = amplitudeSquaredScale(windowSum: fillHannWindow(shortWindow))
            fft.powerSpectrum(of: latest, window: UnsafeBufferPointer(shortWindow), scale: scale, into: power)
        }
        return report(power: UnsafeBufferPointer(power), peakFinder: playheadPeaks)
    }

    /// `analyze(window:)` for an array.
    public func analyze(window frames: [Float]) -> NoteReport {
        frames.withUnsafeBufferPointer { analyze(window: $0) }
    }

    // MARK: - Over the whole loop

    /// Adds the next block heard to the loop's average (blocks of any size, in playing order).
    public func addToLoop(_ frames: UnsafeBufferPointer<Float>) { loop.add(frames) }

    /// `addToLoop(_:)` for an array.
    public func addToLoop(_ frames: [Float]) { frames.withUnsafeBufferPointer { loop.add($0) } }

    /// Forgets the loop's average: call when the loop, the pitch shift or the file changes.
    public func resetLoop() { loop.reset() }

    /// Frames added to the loop's average since the last reset.
    public var loopFrameCount: Int { loop.addedFrameCount }

    /// The notes over everything added since the last reset (`NoteReport.silent` before
    /// `playheadFrameCount / 8` frames).
    public func loopReport() -> NoteReport {
        guard let average = loop.averagePower(minimumFrameCount: playheadFrameCount / 8) else { return .silent }
        return report(power: average, peakFinder: loopPeaks)
    }

    // MARK: - From a spectrum to a report

    private func report(power: UnsafeBufferPointer<Float>, peakFinder: SpectralPeaks) -> NoteReport {
        let floorPower = peakFinder.find(in: power, into: &peaks)
        for k in keyPower.indices { keyPower[k] = 0 }
        for peak in peaks {
            let key = Int((69 + 12 * log2f(peak.frequencyHz / 440)).rounded()) - NoteReport.lowestKey
            if keyPower.indices.contains(key) { keyPower[key] += peak.amplitude * peak.amplitude }
        }
        var notes: [NoteReport.Note] = []
        for estimate in estimator.estimate(peaks: peaks, floorPower: floorPower, maxNotes: Self.maxNotes) {
            let exactKey = 69 + 12 * log2f(estimate.frequencyHz / 440)
            let midi = Int(exactKey.rounded())
            guard (NoteReport.lowestKey...NoteReport.highestKey).contains(midi) else { continue }
            notes.append(NoteReport.Note(name: spelling.name(midi: midi), midi: midi, cents: 100 * (exactKey - Float(midi)),
                                         frequencyHz: estimate.frequencyHz, levelDB: decibels(power: estimate.power)))
        }
        notes.sort { $0.levelDB > $1.levelDB }
        return NoteReport(keyLevels: keyPower.map { decibels(power: $0) }, notes: notes, chord: chord(of: notes))
    }

    /// The chord of the notes within `chordRangeDB` of the strongest and within `chordTuningCents`
    /// of the strongest note's tuning, weighted by amplitude. Notes played together share a tuning;
    /// a sound 40 cents off the others (an acoustic bass's body thump, a bell-like partial) is
    /// no chord tone.
    private func chord(of notes: [NoteReport.Note]) -> String? {
        guard let strongest = notes.first else { return nil }
        var weights = [Float](repeating: 0, count: 12)
        var bassKey: Int?
        for note in notes where note.levelDB >= strongest.levelDB - Self.chordRangeDB
            && abs(remainder(note.cents - strongest.cents, 100)) <= Self.chordTuningCents {
            weights[note.midi % 12] += pow10(note.levelDB / 20)
            bassKey = min(bassKey ?? note.midi, note.midi)
        }
        return ChordName.best(weights: weights, bass: bassKey.map { $0 % 12 }, spelling: spelling)?.description
    }
}
