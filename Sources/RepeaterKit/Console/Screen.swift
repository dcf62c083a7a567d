import Foundation
import RepeaterEngine

/// Everything the terminal screen shows: the player's status (read through, as `state.frame`) and
/// what only the screen has (the overview, the message of the moment, the key list).
@dynamicMemberLookup
public struct ScreenState: Sendable {
    public var status = StatusSnapshot()
    /// Peaks (0…1) of equal stretches of the file; the first `overviewDone` are known.
    public var overview: [Float] = []
    public var overviewDone = 0
    /// The last error or note, shown for a few seconds.
    public var message: String?
    public var messageIsError = false
    public var showHelp = false
    public var keyHelp = ""

    public init() {}

    public subscript<T>(dynamicMember keyPath: WritableKeyPath<StatusSnapshot, T>) -> T {
        get { status[keyPath: keyPath] }
        set { status[keyPath: keyPath] = newValue }
    }

    /// Where OSC listens (and whether only this computer can reach it), and what it refused.
    var oscLine: String? {
        guard let osc = status.osc else { return nil }
        var line = "OSC \(osc.listen.joined(separator: " ")) " + (osc.loopbackOnly ? "(this computer only)" : "(open to the network)")
        if osc.subscribers > 0 { line += "  subscribers \(osc.subscribers)" }
        if osc.refused > 0 { line += "  refused \(osc.refused)" }
        if osc.errors > 0 { line += "  errors \(osc.errors)" }
        if osc.dropped > 0 { line += "  dropped \(osc.dropped)" }
        return line
    }

    /// The practice page's address (whole, or not at all: a cut token is no use), and who is on it.
    var pageForms: [String]? {
        guard let page = status.page else { return nil }
        var counts = page.clients > 0 ? "  pages \(page.clients)" : ""
        if page.refused > 0 { counts += "  refused \(page.refused)" }
        let reach = page.loopbackOnly ? "(this computer only)" : "(open to the network; ? shows its QR code)"
        return ["page \(page.url) \(reach)\(counts)", "page \(page.url)\(counts)", "page \(page.url)", page.url]
    }

    /// The JACK transport's line, when it is followed or driven.
    var transportLine: String? {
        status.transport == .off ? nil : "transport \(status.transport.name): \(status.transportRolling ? "rolling" : "stopped")"
    }
}

/// Renders the player's screen as lines of text, a pure function of the state, the width and
/// whether colour is allowed, so that it is tested at fixed widths. Every line's visible width is at
/// most `width` (escape sequences do not count); all glyphs used are one column wide.
public enum Screen {
    public static let minimumWidth = 40
    /// The dB scale of the meters.
    public static let floorDB = -60.0

    /// `height`: the terminal's rows; when the screen does not fit, the least needed parts go first
    /// (the key list, the scale row, the hint, the trainer and session lines, the health line, the
    /// settings), never the header, the overview, the loop or the meters.
    public static func render(_ state: ScreenState, width requestedWidth: Int, color: Bool, height: Int = .max) -> [String] {
        let width = max(minimumWidth, requestedWidth)
        var painter = Paint(color: color)
        // (line, priority to keep: higher stays longer)
        var parts: [(String, Int)] = []
        parts.append((header(state, width: width, paint: &painter), 9))
        parts.append((fitFirst(settingsForms(state).map { $0 + hearingSettings(state) } + settingsForms(state), width: width), 3))
        if let trainer = state.trainerLine { parts.append((fit(trainer, width), 4)) }
        if let transport = state.transportLine { parts.append((fit(transport, width), 4)) }
        if let osc = state.oscLine { parts.append((fit(osc, width), 3)) }
        if let page = state.pageForms, let form = page.first(where: { $0.count <= width }) { parts.append((form, 3)) }
        for line in overview(state, width: width, paint: painter) { parts.append((line, 8)) }
        if let ruler = barRuler(state, width: width) { parts.append((painter.style(ruler, "2"), 6)) }
        parts.append((fitFirst(loopForms(state), width: width), 7))
        if let forms = mapForms(state) { parts.append((fitFirst(forms, width: width), 5)) }
        parts += lineLines(state, width: width, paint: painter)
        if let notes = noteLines(state, width: width) { for line in notes { parts.append((fit(line, width), 4)) } }
        if let session = state.sessionLine { parts.append((fit(session, width), 4)) }
        let meterLines = meters(state, width: width, paint: painter)
        for (index, line) in meterLines.enumerated() { parts.append((line, index == meterLines.count - 1 ? 1 : 8)) }
        parts += takeLines(state, width: width, paint: painter)
        parts.append((fitFirst(healthForms(state), width: width), 3))
        if let message = state.message {
            parts.append((painter.style(fit("! " + message, width), state.messageIsError ? "31;1" : "33"), 5))
        } else {
            parts.append((painter.style(fitFirst([
                "space play · a/b A/B · l loop · ←/→ seek · ↑/↓ volume · ( ) pan · ? keys · q quit",
                "space play · a/b A/B · l loop · ←→ seek · ↑↓ volume · ( ) pan · ? keys · q quit",
                "space play · a b A/B · l loop · ↑↓ vol · ? keys · q quit",
                "? keys · q quit",
            ], width: width), "2"), 2))
        }
        if state.showHelp {
            for line in state.keyHelp.split(separator: "\n") {
                for wrapped in wrap(String(line), width: width) { parts.append((wrapped, 0)) }
            }
            // The page's QR code for a phone, whole or not at all (a cut one does not scan).
            if let rows = state.status.page?.qrRows, !rows.isEmpty, parts.count + rows.count <= height,
               rows.allSatisfy({ $0.count <= width }) {
                for row in rows { parts.append((painter.style(row, "97;40"), 0)) }
            }
        }
        var keep = 0
        while parts.count > max(1, height), keep <= 9 {
            if let index = parts.lastIndex(where: { $0.1 == keep }) { parts.remove(at: index) } else { keep += 1 }
        }
        return parts.map(\.0)
    }

    // MARK: parts

    private static func header(_ state: ScreenState, width: Int, paint: inout Paint) -> String {
        let symbol = state.state == "playing" ? "▶" : (state.state == "paused" ? "‖" : (state.state == "ended" ? "■" : "…"))
        let time = "\(formatTime(frame: state.frame, sampleRate: state.sampleRate)) / \(formatTime(frame: state.duration, sampleRate: state.sampleRate))"
        let left = "\(symbol) \(state.state)  "
        let room = width - left.count - time.count - 1
        let name = room >= 4 ? truncate(state.fileName, room) : ""
        let gap = width - left.count - name.count - time.count
        let stateCode = state.state == "playing" ? "32;1" : (state.state == "paused" ? "33;1" : "2")
        return paint.style(left, stateCode) + paint.style(name, "1") + String(repeating: " ", count: max(1, gap)) + time
    }

    private static func settingsForms(_ state: ScreenState) -> [String] {
        let speed = "\(Int((state.rate * 100).rounded())) %"
        let pitchValue = (state.pitch * 100).rounded() / 100
        let pitch = (pitchValue > 0 ? "+" : "") + (pitchValue == pitchValue.rounded() ? String(Int(pitchValue)) : String(pitchValue)) + " st"
        let volume = Volume.describe(state.volume)
        let pan = Volume.describePan(state.pan)
        return [
            "speed \(speed)   pitch \(pitch)   volume \(volume)   pan \(pan)",
            "speed \(speed)  pitch \(pitch)  vol \(volume)  pan \(pan)",
            "\(speed)  \(pitch)  \(volume)  pan \(pan)",
        ]
    }

    private static func loopForms(_ state: ScreenState) -> [String] {
        func time(_ frame: Int) -> String { formatTime(frame: frame, sampleRate: state.sampleRate) }
        guard state.loopOn else {
            return ["loop off   (a / b set A and B at the playhead, l loops)", "loop off"]
        }
        let length = String(format: "%.3f s", Double(state.b - state.a) / Double(state.sampleRate))
        // A pass played from the loop cache says so (kept from the live stream: `--loop-cache`).
        let passes = "⟲ ×\(state.passes)" + (state.loopCache == .replay ? " replayed" : "")
        return [
            "A \(time(state.a))   B \(time(state.b))   length \(length)   \(passes)",
            "A \(time(state.a))  B \(time(state.b))  \(length)  \(passes)",
            "A \(time(state.a)) B \(time(state.b)) \(passes)",
        ]
    }

    private static func healthForms(_ state: ScreenState) -> [String] {
        let load = String(format: "%.1f %%", state.load * 100), peak = String(format: "%.1f %%", state.loadPeak * 100)
        return [
            "underruns \(state.underruns)   xruns \(state.xruns)   load \(load) (worst \(peak))   meters \(state.meterStage.rawValue)-fader",
            "underruns \(state.underruns)  xruns \(state.xruns)  load \(load) (\(peak))",
            "under \(state.underruns) xrun \(state.xruns) load \(load)",
        ]
    }

    /// The waveform strip with the loop region and the playhead, and the marker row under it.
    static func overview(_ state: ScreenState, width: Int, paint: Paint) -> [String] {
        let levels: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        let buckets = state.overview.count
        let known = min(state.overviewDone, buckets)
        let loudest = max(1e-6, state.overview.prefix(known).max() ?? 0)
        let duration = max(1, state.duration)
        func column(_ frame: Int) -> Int { min(width - 1, max(0, Int(Double(frame) / Double(duration) * Double(width)))) }
        let playhead = column(state.frame)
        let a = column(state.a), b = column(max(state.a, state.b - 1))
        var strip = ""
        var marks = ""
        for c in 0..<width {
            let first = buckets * c / width, last = max(first + 1, buckets * (c + 1) / width)
            var glyph: Character = "·"
            if buckets > 0 && last <= known {
                var peak: Float = 0
                for index in first..<min(last, buckets) { peak = max(peak, state.overview[index]) }
                let level = Int((peak / loudest * 8).rounded(.up))
                glyph = levels[min(8, max(peak > 0 ? 1 : 0, level))]
            }
            let inLoop = state.loopOn && c >= a && c <= b
            var code = inLoop ? "36" : (state.loopOn ? "2" : "")
            if c == playhead { code = "7" }
            strip += paint.style(String(glyph), code)
            var mark: Character = " "
            if state.loopOn {
                if c == a { mark = "[" } else if c == b { mark = "]" } else if inLoop { mark = "─" }
            }
            if c == playhead { mark = "▲" }
            marks += paint.style(String(mark), mark == "▲" ? "1" : (inLoop ? "36" : ""))
        }
        return [strip, marks]
    }

    /// One meter per channel and a scale row.
    static func meters(_ state: ScreenState, width: Int, paint: Paint) -> [String] {
        let channels = state.levels.count
        guard channels > 0 else { return [] }
        func number(_ value: Double) -> String {
            value.isFinite ? String(format: "%6.1f", max(-99.9, value)) : "  -inf"
        }
        let clipWidth = state.levels.map { $0.clipped > 0 ? " clip \($0.clipped)".count : 0 }.max() ?? 0
        let numbersWidth = 13 + clipWidth  // " -12.3 -6.1" + clips
        let labelWidth = channels > 9 ? 3 : 2
        let barWidth = max(10, width - labelWidth - 2 - numbersWidth)
        func position(_ decibels: Double) -> Int {
            guard decibels.isFinite else { return -1 }
            let share = (min(0, decibels) - floorDB) / -floorDB
            return share < 0 ? -1 : min(barWidth - 1, Int(share * Double(barWidth)))
        }
        var lines: [String] = []
        for (index, level) in state.levels.enumerated() {
            let label = channels == 2 ? (index == 0 ? "L" : "R") : String(index + 1)
            let fill = position(level.rmsDB)
            let hold = position(level.holdDB)
            var bar = ""
            for c in 0..<barWidth {
                let decibels = floorDB + Double(c) / Double(barWidth) * -floorDB
                let zone = decibels >= -6 ? "31" : (decibels >= -18 ? "33" : "32")
                if c == hold && hold >= 0 {
                    bar += paint.style("│", level.holdDB >= -0.05 ? "31;1" : "1")
                } else if c <= fill {
                    bar += paint.style("█", zone)
                } else {
                    bar += paint.style("░", "2")
                }
            }
            let clip = level.clipped > 0 ? paint.style(" clip \(level.clipped)", "31;1") : ""
            let padding = String(repeating: " ", count: clipWidth - (level.clipped > 0 ? " clip \(level.clipped)".count : 0))
            lines.append(label.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + "▕" + bar + "▏"
                         + number(level.rmsDB) + number(level.peakDB) + clip + padding)
        }
        // The scale: dB marks under the bars, and what the numbers are.
        var scale = Array(repeating: Character(" "), count: labelWidth + 1 + barWidth + 1)
        for decibels in stride(from: floorDB, through: 0, by: barWidth >= 40 ? 6 : 12) {
            let text = decibels == 0 ? "0" : String(Int(decibels))
            let at = labelWidth + 1 + min(barWidth - 1, Int((decibels - floorDB) / -floorDB * Double(barWidth)))
            let start = min(scale.count - text.count, decibels == 0 ? at - text.count + 1 : at)
            if start >= 0 && scale[max(0, start - 1)..<min(scale.count, start + text.count + 1)].allSatisfy({ $0 == " " }) {
                for (offset, character) in text.enumerated() { scale[start + offset] = character }
            }
        }
        lines.append(paint.style(String(scale) + "   rms  peak".prefix(numbersWidth), "2"))
        return lines
    }

    // MARK: text helpers

    /// The first form that fits, or the last one cut to the width.
    static func fitFirst(_ forms: [String], width: Int) -> String {
        forms.first { $0.count <= width } ?? fit(forms.last ?? "", width)
    }

    static func fit(_ text: String, _ width: Int) -> String { text.count <= width ? text : String(text.prefix(width - 1)) + "…" }

    /// Keeps the end of a long name (it tells files apart better than the start).
    static func truncate(_ text: String, _ width: Int) -> String {
        text.count <= width ? text : "…" + String(text.suffix(width - 1))
    }

    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if line.isEmpty { line = String(word) } else if line.count + 1 + word.count <= width { line += " " + word } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(fit(line, width)) }
        return lines
    }

    /// The width a line takes on the terminal (escape sequences removed).
    public static func visibleWidth(_ line: String) -> Int { stripEscapes(line).count }

    public static func stripEscapes(_ line: String) -> String {
        var out = ""
        var inEscape = false
        for character in line {
            if inEscape {
                if character.isLetter { inEscape = false }
            } else if character == "\u{1b}" {
                inEscape = true
            } else {
                out.append(character)
            }
        }
        return out
    }
}

/// SGR styling, or none.
struct Paint {
    let color: Bool

    func style(_ text: String, _ code: String) -> String {
        guard color, !code.isEmpty, !text.isEmpty else { return text }
        return "\u{1b}[\(code)m\(text)\u{1b}[0m"
    }
}

/// Draws the screen in place on a terminal: the alternate screen (the user's scrollback is left
/// alone and comes back on exit), the cursor hidden, each frame written over the last from the top
/// left, line by line with erase-to-end-of-line, inside synchronized-output markers, so that nothing
/// scrolls or flickers.
public final class ScreenPainter {
    private let fd: Int32
    private var active = false
    public let color: Bool

    /// Colour unless `NO_COLOR` is set (any value) or the terminal is dumb.
    public init(fd: Int32 = 2, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.fd = fd
        color = environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    }

    /// A terminal that cannot move the cursor gets the one-line status instead.
    public static func terminalCanRedraw(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let term = environment["TERM"], !term.isEmpty else { return false }
        return term != "dumb"
    }

    /// Columns and rows of the terminal (80 × 24 when it cannot tell).
    public var size: (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0 else { return (80, 24) }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    public func begin() {
        guard !active else { return }
        active = true
        write("\u{1b}[?1049h\u{1b}[?25l\u{1b}[H\u{1b}[2J")
    }

    public func draw(_ lines: [String]) {
        guard active else { return }
        let shown = lines.prefix(max(1, size.rows))  // the renderer already dropped what matters least
        write("\u{1b}[?2026h\u{1b}[H" + shown.joined(separator: "\u{1b}[K\r\n") + "\u{1b}[K\u{1b}[J\u{1b}[?2026l")
    }

    /// Leaves the alternate screen and shows the cursor again; safe to call twice.
    public func end() {
        guard active else { return }
        active = false
        write("\u{1b}[?2026l\u{1b}[0m\u{1b}[?25h\u{1b}[?1049l")
    }

    private func write(_ text: String) {
        if fd == 2 { Console.writeErr(text) } else { Console.writeOut(text) }
    }
}
