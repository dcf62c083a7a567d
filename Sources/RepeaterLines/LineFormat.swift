/// The file formats lines are read from and written to, chosen by extension.
public enum LineFormat: String, Sendable, CaseIterable {
    /// `.srt`
    case subRip = "srt"
    /// `.vtt`
    case webVTT = "vtt"
    /// `.lrc` (written to the centisecond, with an empty tag where a line ends before the next)
    case lyrics = "lrc"
    /// `.txt`: Audacity labels, `start<TAB>end<TAB>text`
    case audacityLabels = "txt"
    /// `.json`: `[{"index":1,"start_s":…,"end_s":…,"text":…}]`
    case json = "json"

    /// The format a path's extension names (case-insensitive), or nil.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        self.init(rawValue: path[path.index(after: dot)...].lowercased())
    }

    /// The extensions a user may give, for messages: ".srt, .vtt, .lrc, .txt (Audacity labels) or .json".
    public static let extensionList = ".srt, .vtt, .lrc, .txt (Audacity labels) or .json"
}
