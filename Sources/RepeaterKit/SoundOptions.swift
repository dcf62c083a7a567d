import RepeaterEngine

/// A loop as the user writes it: `A-B`, with TIMEs as everywhere and B possibly `end`.
public struct LoopSpec: Equatable, Sendable {
    public var start: TimeSpec
    /// nil: the end of the file.
    public var end: TimeSpec?

    public init(start: TimeSpec, end: TimeSpec?) {
        self.start = start
        self.end = end
    }

    public init(parsing text: String) throws(RepeaterError) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw .input("'\(text)' is not a loop: write A-B, e.g. 1:02.5-1:10 or 30-end")
        }
        start = try TimeSpec(parsing: String(parts[0]))
        end = parts[1].trimmingCharacters(in: .whitespaces) == "end" ? nil : try TimeSpec(parsing: String(parts[1]))
    }

    /// A and B in frames, checked against the file: 0 ≤ A < B ≤ length.
    public func frames(sampleRate: Int, frameCount: Int) throws(RepeaterError) -> (a: Int, b: Int) {
        let a = start.frame(atRate: sampleRate)
        let b = end?.frame(atRate: sampleRate) ?? frameCount
        let shown = "\(formatTime(frame: a, sampleRate: sampleRate))-\(end == nil ? "end" : formatTime(frame: b, sampleRate: sampleRate))"
        guard b <= frameCount else {
            throw .input("loop \(shown) ends after the file (\(formatTime(frame: frameCount, sampleRate: sampleRate)))")
        }
        guard a < b else { throw .input("loop \(shown): A must be before B") }
        return (a, b)
    }
}

/// The options that shape the sound, shared by `play` and `render` (render writes what play plays).
public struct SoundOptions: Sendable {
    public var from: TimeSpec?
    public var loop: LoopSpec?
    /// Passes through the loop before the end (0: forever).
    public var loops = 0
    public var gap: TimeSpec?
    public var declickMilliseconds = 0.0
    /// Playback speed, pitch kept (0.25 … 4).
    public var speed = 1.0
    /// Pitch shift in semitones (−24 … 24).
    public var pitch = 0.0
    /// Rubber Band engine: R3 (`finer`, the default: it holds pitch on pure tones) or R2 (`faster`).
    public var stretcher = Stretcher.Kind.finer

    public init() {}

    /// The engine configuration for `info`, or a one-line error naming the option at fault.
    public func engineConfiguration(for info: AudioFileInfo) throws(RepeaterError) -> Engine.Configuration {
        let rate = info.sampleRate
        var loopFrames: (a: Int, b: Int)?
        if let loop {
            do { loopFrames = try loop.frames(sampleRate: rate, frameCount: info.frameCount) } catch {
                throw .input("--" + error.message)  // "--loop 0:03.000-0:01.000: A must be before B"
            }
        }
        var start = loopFrames?.a ?? 0
        if let from {
            start = from.frame(atRate: rate)
            guard start < info.frameCount else {
                throw .input("--from \(formatTime(frame: start, sampleRate: rate)) is past the end of '\(info.path)' (\(formatTime(frame: info.frameCount, sampleRate: rate)))")
            }
        }
        let gapFrames = gap?.frame(atRate: rate) ?? 0
        let seam = Int((declickMilliseconds * Double(rate) / 1000).rounded())
        if let loopFrames, seam > loopFrames.b - loopFrames.a {
            throw .input("--declick \(declickMilliseconds) ms is longer than the loop")
        }
        return Engine.Configuration(
            channelCount: info.channelCount, sourceFrameCount: info.frameCount, startFrame: start,
            headFrames: min(info.frameCount, 2 * rate), loop: loopFrames, gapFrames: gapFrames,
            seamFadeFrames: seam, maxPasses: loop == nil ? 0 : loops, sampleRate: rate)
    }
}
