import RepeaterAnalysis
import RepeaterEngine

/// The screen's parts for hearing the part: the isolation and EQ beside the settings, and the note
/// view: a piano keyboard strip C1…C8 with each key's energy, the octave marks, and the strongest
/// notes with the chord.
extension Screen {
    /// ` · isolate centre · EQ -24,0,3` when either is not the default; "" otherwise.
    static func hearingSettings(_ state: ScreenState) -> String {
        var parts: [String] = []
        if state.hearing.isolation != .off { parts.append("isolate \(state.hearing.isolation.name)") }
        if !state.hearing.equalizer.isFlat { parts.append("EQ \(state.hearing.equalizer.text)") }
        return parts.isEmpty ? "" : "   " + parts.joined(separator: "   ")
    }

    /// The keyboard strip's lines (levels, octaves, notes and chord), with what it shows; nil when
    /// there is no note view or nothing has been heard yet.
    static func noteLines(_ state: ScreenState, width: Int) -> [String]? {
        guard let report = state.hearing.notes else { return nil }
        var lines = NoteStrip.lines(for: report, width: width)
        let mode = state.hearing.notesMode == .loop ? "over the loop" : "at the playhead"
        if let last = lines.indices.last {
            let label = "  (\(mode))"
            if lines[last].count + label.count <= width { lines[last] += label }
        }
        return lines
    }
}
