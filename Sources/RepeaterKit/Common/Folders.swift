import Foundation

/// Where repeater keeps its files, by the XDG base directory rules: a variable that is set to an
/// absolute path wins, otherwise the default under `$HOME`.
public enum Folders {
    public typealias Environment = [String: String]

    /// `$XDG_STATE_HOME/repeater` (default `~/.local/state/repeater`): sessions, takes.
    public static func state(_ environment: Environment = ProcessInfo.processInfo.environment) -> String {
        base("XDG_STATE_HOME", ".local/state", environment) + "/repeater"
    }

    /// `$XDG_CONFIG_HOME/repeater` (default `~/.config/repeater`): midi.json, calibrations.
    public static func config(_ environment: Environment = ProcessInfo.processInfo.environment) -> String {
        base("XDG_CONFIG_HOME", ".config", environment) + "/repeater"
    }

    /// `$XDG_CACHE_HOME/repeater` (default `~/.cache/repeater`): analyses that can be made again.
    public static func cache(_ environment: Environment = ProcessInfo.processInfo.environment) -> String {
        base("XDG_CACHE_HOME", ".cache", environment) + "/repeater"
    }

    private static func base(_ variable: String, _ fallback: String, _ environment: Environment) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/" + fallback
    }
}
