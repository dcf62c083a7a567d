import Foundation

/// The controlling terminal in raw (non-canonical, no echo) mode, restored by `restore()` on every
/// way out (the player calls it from its single exit path; signals only set flags).
public final class Terminal {
    private var saved = termios()
    private var isRaw = false
    public let inputFD: Int32 = 0

    public static var stdinIsTerminal: Bool { isatty(0) == 1 }
    public static var stderrIsTerminal: Bool { isatty(2) == 1 }

    public init() {}

    /// Keys arrive one by one and are not echoed; Ctrl-C still raises SIGINT.
    public func enterRawMode() {
        guard !isRaw, tcgetattr(inputFD, &saved) == 0 else { return }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutablePointer(to: &raw.c_cc) {
            $0.withMemoryRebound(to: cc_t.self, capacity: Int(NCCS)) { cc in
                cc[Int(VMIN)] = 0
                cc[Int(VTIME)] = 0
            }
        }
        if tcsetattr(inputFD, TCSAFLUSH, &raw) == 0 { isRaw = true }
    }

    public func restore() {
        guard isRaw else { return }
        tcsetattr(inputFD, TCSAFLUSH, &saved)
        isRaw = false
    }

    deinit { restore() }
}

/// A key, decoded from the bytes a terminal sends.
public enum Key: Equatable, Sendable {
    case character(Character)
    case left, right, up, down, home, end
    case unknown

    /// Splits `bytes` into keys (escape sequences for arrows, Home and End included).
    public static func decode(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x1b, index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "[") || bytes[index + 1] == UInt8(ascii: "O") {
                var end = index + 2
                while end < bytes.count, !(0x40...0x7e).contains(bytes[end]) { end += 1 }
                let sequence = String(decoding: bytes[(index + 2)...min(end, bytes.count - 1)], as: UTF8.self)
                switch sequence {
                case "A": keys.append(.up)
                case "B": keys.append(.down)
                case "C": keys.append(.right)
                case "D": keys.append(.left)
                case "H", "1~", "7~": keys.append(.home)
                case "F", "4~", "8~": keys.append(.end)
                default: keys.append(.unknown)
                }
                index = end + 1
                continue
            }
            if byte < 0x80 {
                keys.append(.character(Character(UnicodeScalar(byte))))
            } else {
                keys.append(.unknown)
            }
            index += 1
        }
        return keys
    }
}
