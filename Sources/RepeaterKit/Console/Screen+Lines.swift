import RepeaterLines

/// The screen's part for lines: the text of the line heard (wrapped, East Asian wide characters
/// counted as two columns), the next line dimmed, and a drill's progress.
extension Screen {
    static func lineLines(_ state: ScreenState, width: Int, paint: Paint) -> [(String, Int)] {
        let lines = state.lines
        guard lines.count > 0 else { return [] }
        var parts: [(String, Int)] = []
        if let drill = lines.drill {
            parts.append((fit("drill: line \(drill.line) of \(lines.count), pass \(drill.pass) of \(drill.passes)", width), 5))
        }
        if let current = lines.current {
            let head = "\(current.index)/\(lines.count)  "
            let wrapped = RepeaterLines.wrap(current.text.replacingNewlines(), width: max(10, width - head.count))
            for (index, text) in wrapped.prefix(3).enumerated() {
                parts.append(((index == 0 ? head : String(repeating: " ", count: head.count)) + paint.style(text, "1"), 6))
            }
        } else {
            parts.append((paint.style(fit("between lines (\(lines.count) from \(lines.source ?? "?"))", width), "2"), 6))
        }
        if let next = lines.next, let text = RepeaterLines.wrap("next: " + next.replacingNewlines(), width: width).first {
            parts.append((paint.style(text, "2"), 3))
        }
        return parts
    }
}

extension String {
    /// The text on one line (a cue's lines joined with a space).
    func replacingNewlines() -> String { split(whereSeparator: \.isNewline).joined(separator: " ") }
}
