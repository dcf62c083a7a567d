/// One line of a recording a learner can play, loop and drill: a subtitle cue, a lyric line, an
/// Audacity label or an automatically found phrase.
///
/// Times are seconds from the start of the recording (seconds only at this edge: the player turns
/// them into frames at the file's rate). `endSeconds >= startSeconds` for every line a reader
/// returns. `text` is plain text: formatting tags are gone, entities decoded, the lines of a
/// multi-line cue joined with "\n" (each trimmed, empty ones dropped).
public struct TextLine: Sendable, Hashable, Codable {
    public var startSeconds: Double
    public var endSeconds: Double
    public var text: String

    public init(startSeconds: Double, endSeconds: Double, text: String) {
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.text = text
    }

    public var durationSeconds: Double { endSeconds - startSeconds }
}

extension Array where Element == TextLine {
    /// The lines ordered by start time; lines that start together keep the order they had
    /// (a stable sort: file order is the tie-break).
    func sortedByStart() -> [TextLine] {
        enumerated()
            .sorted { $0.element.startSeconds != $1.element.startSeconds
                ? $0.element.startSeconds < $1.element.startSeconds : $0.offset < $1.offset }
            .map(\.element)
    }
}
