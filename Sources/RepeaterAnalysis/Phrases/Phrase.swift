import RepeaterLines

/// A stretch of a recording to loop and drill: one breath group of speech, found at pauses.
/// Frames are sample frames at the recording's rate; ends are exclusive.
public struct Phrase: Sendable, Hashable {
    /// Where playing the phrase starts: `soundStartFrame` less the pre-roll.
    public var startFrame: Int
    /// Where playing the phrase ends: `soundEndFrame` plus the post-roll.
    public var endFrame: Int
    /// The first frame of the 10 ms analysis frame where its sound starts.
    public var soundStartFrame: Int
    /// Just past the last analysis frame with sound in it.
    public var soundEndFrame: Int

    public init(startFrame: Int, endFrame: Int, soundStartFrame: Int, soundEndFrame: Int) {
        self.startFrame = startFrame
        self.endFrame = endFrame
        self.soundStartFrame = soundStartFrame
        self.soundEndFrame = soundEndFrame
    }

    public var frameCount: Int { endFrame - startFrame }
}

extension Array where Element == Phrase {
    /// The phrases as lines the line writers write, text `phrase 1`, `phrase 2`, …: a label a
    /// learner sees in the list and replaces with what is said (an empty text would make an SRT
    /// cue with no text line, which many editors and players mishandle).
    public func textLines(sampleRate: Int) -> [TextLine] {
        let rate = Double(sampleRate)
        return enumerated().map { index, phrase in
            TextLine(startSeconds: Double(phrase.startFrame) / rate, endSeconds: Double(phrase.endFrame) / rate, text: "phrase \(index + 1)")
        }
    }
}
