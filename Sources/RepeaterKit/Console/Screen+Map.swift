import Foundation

/// The screen's parts for the recording's map: the bar numbers under the overview, and a line with
/// the bar and beat heard, the tempo, metre and key, and the practice settings.
extension Screen {
    /// Bar numbers at their bars' columns under the overview (as many as fit, one every few bars),
    /// or nil when no bars are known.
    static func barRuler(_ state: ScreenState, width: Int) -> String? {
        let bars = state.map.downbeatFrames
        guard !bars.isEmpty else { return nil }
        let duration = max(1, state.duration)
        func column(_ frame: Int) -> Int { min(width - 1, max(0, Int(Double(frame) / Double(duration) * Double(width)))) }
        // Every `step`-th bar (1, 2, 4, 8 … or multiples of 5 and 10) so that numbers keep a space apart.
        let widest = String(bars.count).count + 1
        let perColumn = Double(bars.count) / Double(width)
        var step = 1
        for candidate in [1, 2, 4, 5, 8, 10, 16, 20, 25, 50, 100, 200, 500, 1000] where Double(candidate) / perColumn >= Double(widest) {
            step = candidate
            break
        }
        if Double(step) / perColumn < Double(widest) { step = Int((Double(widest) * perColumn).rounded(.up)) }
        var row = Array(repeating: Character(" "), count: width)
        var index = 0
        while index < bars.count {
            let text = String(index + 1)
            let at = column(bars[index])
            if at + text.count <= width, row[at..<(at + text.count)].allSatisfy({ $0 == " " }), at == 0 || row[at - 1] == " " {
                for (offset, character) in text.enumerated() { row[at + offset] = character }
            }
            index += index == 0 && step > 1 ? step - 1 : step
        }
        return String(row)
    }

    /// The map's line, in forms from long to short; nil when there is nothing to say.
    static func mapForms(_ state: ScreenState) -> [String]? {
        let map = state.map
        var practice: [String] = []
        if map.click { practice.append("click") }
        if map.countIn > 0 { practice.append("count-in \(map.countIn)") }
        if map.snap != .off { practice.append("snap \(map.snap.rawValue)") }
        let settings = practice.isEmpty ? "" : "   " + practice.joined(separator: " · ")
        switch map.state {
        case .none: return practice.isEmpty ? nil : [settings.trimmingCharacters(in: .whitespaces)]
        case .analysing(let fraction):
            let percent = Int(fraction * 100)
            return ["map: analysing beats, bars and key… \(percent) %" + settings, "map: analysing \(percent) %"]
        case .failed(let message): return ["map: " + message, "map: failed"]
        case .ready:
            guard let tempo = map.tempoBPM, let bpb = map.beatsPerBar else { return ["map: no beats found" + settings, "map: no beats"] }
            let position = map.bar.map { bar in "bar \(bar) beat \(map.beat ?? 1)" } ?? "before the first beat"
            var tempoText = String(format: "%.1f BPM", tempo)
            var tempoLong = tempoText
            if let other = map.tempoAlternativeBPM {
                // Unsure of the octave: both, and the key that switches.
                tempoText += String(format: " (or %.0f?)", other)
                tempoLong += String(format: " (or %.0f? %@)", other, other > tempo ? "* doubles" : "/ halves")
            }
            let key = map.key.map { "   " + $0 } ?? ""
            return [
                "\(position)   \(tempoLong)   \(bpb) beats a bar\(key)\(settings)",
                "\(position)   \(tempoText)   \(bpb) beats a bar\(key)\(settings)",
                "\(position)  \(tempoText)  \(bpb)/bar\(key)\(settings)",
                "\(position)  \(tempoText)\(key)",
                position,
            ]
        }
    }
}
