import Foundation

/// A time as the user writes it: seconds (`83.5`, `1:23.5`, `1:02:03.25`) or frames (`3984000f`).
public enum TimeSpec: Equatable, Sendable, CustomStringConvertible {
    case seconds(Double)
    case frames(Int)

    /// Parses the forms above. Throws a one-line error quoting the text.
    public init(parsing text: String) throws(RepeaterError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let bad = RepeaterError.input("'\(text)' is not a time: use seconds (83.5), m:ss (1:23.5), h:mm:ss (1:02:03.25) or frames (3984000f)")
        if trimmed.hasSuffix("f") {
            guard let frames = Int(trimmed.dropLast()), frames >= 0, frames <= TimeSpec.maximumFrames else { throw bad }
            self = .frames(frames)
            return
        }
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { throw bad }
        var seconds = 0.0
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || (isLast && $0 == ".")) }),
                  let value = Double(part) else { throw bad }
            if index > 0 && value >= 60 { throw bad }  // 1:75 is a typo, not 2:15
            seconds = seconds * 60 + value
        }
        // Beyond about 31 years no file reaches, and a frame count would overflow (found by fuzzing).
        guard seconds.isFinite, seconds <= TimeSpec.maximumSeconds else { throw bad }
        self = .seconds(seconds)
    }

    /// The longest time written in seconds (10⁹ s, about 31 years) or frames that is taken at all.
    public static let maximumSeconds = 1e9
    public static let maximumFrames = 1 << 50

    /// The frame this time names at `sampleRate` (seconds round to the nearest frame; clamped to
    /// 0 … 2⁵⁰, so that no value, however made, overflows).
    public func frame(atRate sampleRate: Int) -> Int {
        switch self {
        case .frames(let frames): return min(max(0, frames), TimeSpec.maximumFrames)
        case .seconds(let seconds):
            let frame = (seconds * Double(sampleRate)).rounded()
            guard frame.isFinite else { return 0 }
            return Int(min(max(0, frame), Double(TimeSpec.maximumFrames)))
        }
    }

    public var description: String {
        switch self {
        case .frames(let frames): return "\(frames)f"
        case .seconds(let seconds): return "\(seconds)"
        }
    }
}

/// Formats a frame position as `m:ss.mmm`, or `h:mm:ss.mmm` from one hour on.
public func formatTime(frame: Int, sampleRate: Int) -> String {
    // A rate of 0 (a session written without one, before it meets its audio): frames, not a crash
    // (fuzzing found the division by zero).
    guard sampleRate > 0 else { return "\(frame)f" }
    let negative = frame < 0
    let milliseconds = (abs(frame) * 1000 + sampleRate / 2) / sampleRate
    let ms = milliseconds % 1000
    let totalSeconds = milliseconds / 1000
    let s = totalSeconds % 60
    let m = (totalSeconds / 60) % 60
    let h = totalSeconds / 3600
    func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    let body = h > 0 ? "\(h):\(pad(m, 2)):\(pad(s, 2)).\(pad(ms, 3))" : "\(m):\(pad(s, 2)).\(pad(ms, 3))"
    return negative ? "-" + body : body
}
