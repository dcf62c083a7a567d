/// Why an analysis stopped: one line for the user, saying what is wrong and what to do.
public enum MusicAnalysisError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The caller cancelled between two blocks; nothing was produced.
    case cancelled
    /// The input cannot be analysed as given (a rate or channel count out of range).
    case invalidInput(String)
    /// Queen Mary DSP failed (it threw, e.g. out of memory); the analyzer is unusable afterwards.
    case libraryFailure(String)
    /// Reading the recording failed; the reader's own message.
    case readFailure(String)

    public var description: String {
        switch self {
        case .cancelled: "analysis cancelled"
        case .invalidInput(let message): "cannot analyse this input: \(message)"
        case .libraryFailure(let message): "analysis failed in qm-dsp: \(message); try again, and report it if it persists"
        case .readFailure(let message): "analysis stopped reading the recording: \(message)"
        }
    }
}
