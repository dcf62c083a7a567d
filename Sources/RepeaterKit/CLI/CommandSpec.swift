/// What a command line may hold, as one table: `--help` prints it, the parser checks against it,
/// and the shell completions are generated from it, so the three cannot drift apart.
public struct CommandSpec: Sendable {
    /// The subcommand (`play`), or "" for the top level.
    public var name: String
    /// One line for the top-level usage list.
    public var summary: String
    /// The usage lines (`repeater play FILE [options]`).
    public var usage: [String]
    /// What a usage line after the first does, for the top-level help.
    public var usageSummaries: [String: String]
    /// Paragraphs printed between the usage and the options.
    public var description: String?
    public var options: [OptionSpec]
    /// What the bare (positional) arguments are, for completion.
    public var operand: ValueKind?
    /// Text printed after the options (keys, the stdin protocol, exit codes).
    public var footer: String?

    public init(name: String, summary: String, usage: [String], usageSummaries: [String: String] = [:], description: String? = nil,
                options: [OptionSpec], operand: ValueKind? = nil, footer: String? = nil) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.usageSummaries = usageSummaries
        self.description = description
        self.options = options
        self.operand = operand
        self.footer = footer
    }

    /// The option called `name` (a long name or an alias such as `-o`).
    public func option(named name: String) -> OptionSpec? { options.first { $0.names.contains(name) } }
}

/// One option: its names (the long one first), its value, and its help text.
public struct OptionSpec: Sendable {
    public var names: [String]
    public var value: ValueKind?
    /// The help text; lines after the first are continuation lines.
    public var help: String

    public init(_ names: String..., value: ValueKind? = nil, help: String) {
        self.names = names
        self.value = value
        self.help = help
    }

    /// The long name (`--rate`).
    public var name: String { names[0] }
    public var takesValue: Bool { value != nil }
}

/// What an option's value (or a command's operand) is, as far as completion can know.
public enum ValueKind: Sendable, Equatable {
    /// Free text; the placeholder names it in the help (`TIME`, `R`, `NAME`).
    case text(String)
    /// One of a fixed set (`finer`, `faster`); `open` when anything else is taken too (a REGEX
    /// besides `auto` and `none`): completion offers the set, the parser decides.
    case choice(String, [String], open: Bool = false)
    /// A file of a kind.
    case file(String, FileKind)

    public var placeholder: String {
        switch self {
        case .text(let name), .choice(let name, _, _), .file(let name, _): return name
        }
    }
}

/// Kinds of files the completions offer.
public enum FileKind: String, Sendable, Equatable {
    /// What libsndfile reads.
    case audio
    /// A session (`.json`).
    case session
    /// Audio or a session (`repeater play`'s operand).
    case audioOrSession
    /// Subtitles, lyrics or labels.
    case subtitles
    /// Any file (an output to write).
    case any
    /// A folder.
    case directory

    /// File name extensions offered (empty: any file).
    public var extensions: [String] {
        switch self {
        case .audio: return FileKind.audioExtensions
        case .session: return ["json"]
        case .audioOrSession: return FileKind.audioExtensions + ["json"]
        case .subtitles: return ["srt", "vtt", "lrc", "txt"]
        case .any, .directory: return []
        }
    }

    /// The containers libsndfile 1.2 reads, by their usual extensions.
    public static let audioExtensions = ["wav", "wave", "flac", "ogg", "oga", "opus", "mp3", "aif", "aiff", "aifc", "au", "snd",
                                         "caf", "w64", "rf64", "voc", "sf", "paf"]
}
