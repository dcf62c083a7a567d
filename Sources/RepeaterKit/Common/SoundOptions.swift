import Foundation
import RepeaterEngine

/// A loop as the user writes it: `A-B`, with TIMEs as everywhere and B possibly `end`.
public struct LoopSpec: Equatable, Sendable {
    public var start: TimeSpec
    /// nil: the end of the file.
    public var end: TimeSpec?
    /// `bars:17-24`: bars 17 to 24 of the recording's map (start and end are then resolved from it).
    public var bars: ClosedRange<Int>?

    public init(start: TimeSpec, end: TimeSpec?) {
        self.start = start
        self.end = end
    }

    public init(bars: ClosedRange<Int>) {
        start = .seconds(0)
        end = nil
        self.bars = bars
    }

    public init(parsing text: String) throws(RepeaterError) {
        if text.hasPrefix("bars:") {
            let numbers = text.dropFirst(5).split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
            guard numbers.count == 2, let first = numbers[0], let last = numbers[1], first >= 1, last >= first else {
                throw .input("'\(text)' is not a range of bars: write bars:FIRST-LAST, e.g. bars:17-24 (bar 1 is the first)")
            }
            self.init(bars: first...last)
            return
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw .input("'\(text)' is not a loop: write A-B, e.g. 1:02.5-1:10 or 30-end (or bars:17-24)")
        }
        self.init(start: try TimeSpec(parsing: String(parts[0])),
                  end: parts[1].trimmingCharacters(in: .whitespaces) == "end" ? nil : try TimeSpec(parsing: String(parts[1])))
    }

    /// A and B in frames, checked against the file: 0 ≤ A < B ≤ length.
    public func frames(sampleRate: Int, frameCount: Int) throws(RepeaterError) -> (a: Int, b: Int) {
        if let bars { throw .input("loop bars:\(bars.lowerBound)-\(bars.upperBound) needs the recording's map") }
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
    /// Linear gain (0: silence … `Volume.maximum`, +12 dB).
    public var volume = 1.0
    /// −1 (left) … 1 (right): a balance for stereo, an equal-power pan for mono (played to two ports).
    public var pan = 0.0
    /// Hearing the part: what the isolation lets through, and the equalizer's gains.
    public var isolation = IsolationMode.off
    public var equalizer = EqualizerGains()
    /// `--loop-cache on|off`: a loop at a steady speed replays its stretched pass from memory.
    public var loopCache = true

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
        if pan != 0 && info.channelCount > 2 {
            throw .input("--pan works on mono and stereo files; '\(info.path)' has \(info.channelCount) channels")
        }
        var configuration = Engine.Configuration(
            channelCount: info.channelCount, sourceFrameCount: info.frameCount, startFrame: start,
            headFrames: min(info.frameCount, 2 * rate), loop: loopFrames, gapFrames: gapFrames,
            seamFadeFrames: seam, maxPasses: loop == nil ? 0 : loops, sampleRate: rate)
        configuration.outputChannelCount = Self.outputChannels(for: info.channelCount)
        configuration.volume = volume
        configuration.pan = pan
        if isolation.needsStereo, info.channelCount != 2 {
            throw .input("--isolate \(isolation.name) needs a stereo file; '\(info.path)' has \(info.channelCount) channel\(info.channelCount == 1 ? "" : "s") (bass and band:LO-HI work on any)")
        }
        configuration.isolation = isolation
        configuration.equalizer = (equalizer.lowDB, equalizer.midDB, equalizer.highDB)
        configuration.loopCache = loopCache
        return configuration
    }

    /// Ports for a file: one per channel, and two for a mono file (a stereo pair it is panned across).
    public static func outputChannels(for sourceChannels: Int) -> Int { sourceChannels == 1 ? 2 : sourceChannels }
}

/// Volume as the user writes it: decibels (`-6dB`, `+3 dB`, `-inf dB`) or a linear gain (`0.5`).
public enum Volume {
    /// +12 dB.
    public static let maximum = 3.981_071_705_534_972
    /// Below this a step down reaches silence, and a step up from silence lands here.
    public static let floorDB = -60.0

    /// A linear gain from 0 (silence) to +12 dB, or a one-line error.
    public static func parse(_ text: String) throws(RepeaterError) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let lower = trimmed.lowercased()
        let usage = "volume takes decibels (-6dB, up to +12dB) or a linear gain (0 to 3.98; 0.5 is -6 dB), not '\(text)'"
        if lower == "mute" || lower == "-infdb" || lower == "-inf db" { return 0 }
        if lower.hasSuffix("db") {
            let number = lower.dropLast(2).trimmingCharacters(in: .whitespaces)
            guard let decibels = Double(number), decibels.isFinite else { throw .input(usage) }
            guard decibels <= 12.000_001 else { throw .input("volume \(trimmed) is above the +12 dB maximum") }
            return min(maximum, Self.gain(decibels: decibels))
        }
        guard let gain = Double(trimmed), gain.isFinite else { throw .input(usage) }
        guard gain >= 0 else { throw .input("volume \(trimmed): a linear gain is not negative; for decibels write \(trimmed)dB") }
        guard gain <= maximum + 1e-9 else { throw .input("volume \(trimmed) is above the +12 dB maximum (3.98)") }
        return min(maximum, gain)
    }

    public static func gain(decibels: Double) -> Double { pow(10, decibels / 20) }
    public static func decibels(gain: Double) -> Double { gain > 0 ? 20 * log10(gain) : -.infinity }

    /// The gain after a step of `delta` dB: below −60 dB is silence, silence steps up to −60 dB.
    public static func stepped(_ gain: Double, by delta: Double) -> Double {
        let current = gain > 0 ? decibels(gain: gain) : floorDB - delta.magnitude
        let next = ((current + delta) * 10).rounded() / 10
        if next < floorDB - 1e-9 { return 0 }
        return min(maximum, Self.gain(decibels: next))
    }

    /// "-6.0 dB", "+3.5 dB", "0.0 dB", "mute".
    public static func describe(_ gain: Double) -> String {
        guard gain > 0 else { return "mute" }
        let decibels = (decibels(gain: gain) * 10).rounded() / 10
        return (decibels > 0 ? "+" : "") + String(format: "%.1f dB", decibels == 0 ? 0 : decibels)
    }

    /// A pan position for a display: "C", "L 40", "R 100".
    public static func describePan(_ pan: Double) -> String {
        let percent = Int((pan * 100).rounded())
        if percent == 0 { return "C" }
        return percent < 0 ? "L \(-percent)" : "R \(percent)"
    }

    /// Parses a pan from −1 to 1, or a one-line error.
    public static func parsePan(_ text: String) throws(RepeaterError) -> Double {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), (-1...1).contains(value) else {
            throw .input("pan takes -1 (left) to 1 (right), 0 is the centre, not '\(text)'")
        }
        return value
    }
}
