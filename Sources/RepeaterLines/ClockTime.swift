/// Times as files write them, to seconds and back.
enum ClockTime {
    enum Style {
        /// SRT and WebVTT: `HH:MM:SS,mmm` / `HH:MM:SS.mmm` / `MM:SS.mmm`. Either decimal mark is
        /// accepted in both formats, hours may have any number of digits, a fraction 1–9 digits
        /// (read as a decimal fraction: `,5` is half a second).
        case subtitle(expected: String)
        /// LRC: `mm:ss.xx`, `mm:ss:xx`, `mm:ss`, minutes unbounded (`[75:02.10]`), or `h:mm:ss.xx`.
        case lyrics
    }

    /// The seconds `token` stands for, or the problem as a message fragment that quotes it.
    static func seconds(_ token: Substring, style: Style) -> Result<Double, LinesErrorProblem> {
        let expected: String
        let isLyrics: Bool
        switch style {
        case .subtitle(let form): expected = form; isLyrics = false
        case .lyrics: expected = "mm:ss.xx"; isLyrics = true
        }
        let garbage = LinesErrorProblem(token.isEmpty ? "expected a time (\(expected)), found nothing"
                                                      : "\(quoted(token)) is not a time: expected \(expected)")
        var fields = token.split(separator: ":", omittingEmptySubsequences: false)
        var fraction: Substring?
        if let last = fields.last, let mark = last.firstIndex(where: { $0 == "." || $0 == "," }) {
            fraction = last[last.index(after: mark)...]
            fields[fields.count - 1] = last[..<mark]
        } else if isLyrics && fields.count == 3 {
            fraction = fields.removeLast()
        }
        guard fields.count == 2 || fields.count == 3, fields.allSatisfy(\.isAllASCIIDigits) else { return .failure(garbage) }
        if let fraction, !fraction.isAllASCIIDigits || fraction.count > 9 { return .failure(garbage) }
        let hasHours = fields.count == 3
        let hoursText = hasHours ? fields[0] : "0"
        let minutesText = fields[fields.count - 2], secondsText = fields[fields.count - 1]
        let minutesBounded = hasHours || !isLyrics
        guard hoursText.count <= 6, secondsText.count <= 2, minutesText.count <= (minutesBounded ? 2 : 6),
              let hours = Int(hoursText), let minutes = Int(minutesText), let wholeSeconds = Int(secondsText) else {
            return .failure(garbage)
        }
        if wholeSeconds >= 60 { return .failure(LinesErrorProblem("\(quoted(token)) is not a time (seconds must be below 60)")) }
        if minutesBounded && minutes >= 60 {
            return .failure(LinesErrorProblem("\(quoted(token)) is not a time (minutes must be below 60)"))
        }
        let fractionSeconds = fraction.flatMap { Double("0." + $0) } ?? 0
        return .success(Double(hours * 3600 + minutes * 60 + wholeSeconds) + fractionSeconds)
    }

    /// Plain decimal seconds (Audacity labels): `12.5`, `12,5`, `12`, `.5`; no sign, exponent,
    /// `inf` or `nan` (what `Double(String)` would also accept).
    static func decimalSeconds(_ token: Substring) -> Double? {
        let parts = token.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let normalized = parts.count == 2 ? parts : token.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = normalized[0], fraction = normalized.count == 2 ? normalized[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), whole.count <= 12, fraction.count <= 12,
              whole.isEmpty || whole.isAllASCIIDigits, fraction.isEmpty || fraction.isAllASCIIDigits else { return nil }
        return Double((whole.isEmpty ? "0" : String(whole)) + "." + (fraction.isEmpty ? "0" : String(fraction)))
    }

    /// Whole milliseconds, rounded; negative, NaN and infinite times write as 0, times past
    /// 10⁹ s as 10⁹ s (a writer never traps on a bad value).
    static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int((min(seconds, 1e9) * 1000).rounded())
    }

    /// `HH:MM:SS<mark>mmm`, hours at least two digits.
    static func clock(_ seconds: Double, decimalMark: Character) -> String {
        let total = milliseconds(seconds)
        let hours = total / 3_600_000, minutes = total / 60_000 % 60, wholeSeconds = total / 1000 % 60, millis = total % 1000
        return padded(hours, 2) + ":" + padded(minutes, 2) + ":" + padded(wholeSeconds, 2) + String(decimalMark) + padded(millis, 3)
    }

    /// `S.fff…` with `decimals` digits (3 for JSON, 6 as Audacity writes).
    static func decimal(_ seconds: Double, decimals: Int) -> String {
        var scale = 1
        for _ in 0..<decimals { scale *= 10 }
        let clamped = seconds.isFinite && seconds > 0 ? min(seconds, 1e9) : 0
        let units = Int((clamped * Double(scale)).rounded())
        return String(units / scale) + "." + padded(units % scale, decimals)
    }

    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

/// A problem's text, before the reader adds the file and the line.
struct LinesErrorProblem: Error, Equatable {
    var text: String
    init(_ text: String) { self.text = text }
}
