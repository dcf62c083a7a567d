/// The screen's part for recording: the input meters (`i1`, `i2`, with clips), and what recording
/// is doing (armed, a take being recorded, the takes kept, the round trip, a take heard).
extension Screen {
    static func takeLines(_ state: ScreenState, width: Int, paint: Paint) -> [(String, Int)] {
        let takes = state.takes
        guard takes.enabled else { return [] }
        var parts: [(String, Int)] = []
        var inputs = state
        inputs.levels = takes.input
        let bars = meters(inputs, width: width, paint: paint).dropLast()  // (no second scale)
        for (index, line) in bars.enumerated() {
            parts.append(("i" + (takes.input.count == 2 ? (index == 0 ? "L" : "R") : "\(index + 1)") + String(line.dropFirst(2)), 6))
        }
        let milliseconds = Double(takes.roundTrip) * 1000 / Double(max(1, state.sampleRate))
        var words: [String] = []
        if takes.recording {
            words.append(paint.style("● REC", "31;1"))
        } else {
            words.append(takes.armed ? paint.style("○ armed", "31") : "recording off (R)")
        }
        words.append("\(takes.takeCount) take\(takes.takeCount == 1 ? "" : "s")")
        words.append(String(format: "round trip %.1f ms ", milliseconds) + (takes.measured ? "measured" : "reported (C calibrates)"))
        if let playing = takes.playing { words.append(paint.style("hearing take \(playing) (t: the recording)", "1")) }
        if takes.dropped > 0 { words.append(paint.style("input dropped \(takes.dropped)", "33")) }
        parts.append((fitFirst([words.joined(separator: " · "), words.prefix(3).joined(separator: " · "), words.prefix(2).joined(separator: " · ")], width: width), 6))
        return parts
    }
}
