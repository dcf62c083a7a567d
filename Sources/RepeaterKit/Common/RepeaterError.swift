/// An error the user sees as one line, with the process exit code that goes with it.
public struct RepeaterError: Error, CustomStringConvertible, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Bad input: arguments, files, sessions. Exit 2.
        case input
        /// No JACK server, or it refused us. Exit 2.
        case jackUnavailable
        /// The JACK server went away while we played. Exit 3.
        case jackShutdown
        /// Anything else (a bug, a failing system call). Exit 1.
        case failure
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public static func input(_ message: String) -> RepeaterError { RepeaterError(.input, message) }

    public var description: String { message }

    public var exitCode: Int32 {
        switch kind {
        case .input, .jackUnavailable: return 2
        case .jackShutdown: return 3
        case .failure: return 1
        }
    }
}
