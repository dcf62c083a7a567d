import Foundation
import RepeaterEngine

/// A named passage of the recording.
public struct NamedLoop: Equatable, Sendable {
    public var name: String
    /// File frames, A inclusive, B exclusive.
    public var start: Int
    public var end: Int
    /// Fields of this loop that this version does not know (kept on save).
    public var extra = JSONObject()

    public init(name: String, start: Int, end: Int) {
        self.name = name
        self.start = start
        self.end = end
    }
}

/// The loop in effect when the session was saved (which may be no named loop at all).
public struct CurrentLoop: Equatable, Sendable {
    public var a: Int
    public var b: Int
    public var on: Bool
    public var extra = JSONObject()

    public init(a: Int, b: Int, on: Bool) {
        self.a = a
        self.b = b
        self.on = on
    }
}

/// A practice session: the recording, its named loops, where you were, the speed you have reached.
///
/// Frames are the file's frames at `sampleRate`; the `…_time` fields are written for people and
/// only read when the frame field is missing. Fields this version does not know, at the top level
/// and inside loops and the trainer, are kept in order and written back.
public struct Session: Equatable, Sendable {
    public static let format = "repeater-session"
    /// The format's major version: a file with a higher one is refused; lower ones and additions
    /// within this one are read.
    public static let version = 1

    /// The audio file as written: relative to the session file's folder, or absolute.
    public var audio: String
    public var sampleRate: Int
    public var position = 0
    public var loop: CurrentLoop?
    public var activeLoop: String?
    public var loops: [NamedLoop] = []
    public var speed = 1.0
    public var pitch = 0.0
    public var volume = 1.0
    public var pan = 0.0
    public var gapSeconds = 0.0
    public var declickMilliseconds = 0.0
    public var trainer: SpeedTrainer?
    public var trainerExtra = JSONObject()
    /// The JACK transport mode ("follow" or "drive"; nil: off, and the field is not written).
    public var transport: String?
    /// The user's corrections to the recording's beats and bars (`"map"`; Session+Map.swift).
    public var mapCorrections = MapCorrections()
    /// Practising with the map: snapping of "A/B here", the count-in, the metronome.
    public var snap: SnapMode = .off
    public var countInBeats = 0
    public var click = false
    /// The line file (relative to the session's folder) or "auto" (automatic phrases), and a drill
    /// with the line it reached (Session+Lines.swift).
    public var linesSource: String?
    public var drill: DrillSpec?
    public var drillLine: Int?
    /// The takes recorded (`--record`), oldest first.
    public var takes: [Take] = []
    /// Hearing the part (Session+Hearing.swift).
    public var isolation = IsolationMode.off
    public var equalizer = EqualizerGains()
    /// Top-level fields this version does not know.
    public var extra = JSONObject()

    public init(audio: String, sampleRate: Int) {
        self.audio = audio
        self.sampleRate = sampleRate
    }

    static let knownKeys: Set<String> = Set(["format", "version", "audio", "sample_rate", "position", "position_time", "loop",
                                         "active_loop", "loops", "speed", "pitch", "volume", "pan", "gap", "declick_ms", "trainer", "transport"])
        .union(mapKeys).union(hearingKeys).union(lineKeys).union(takeKeys)

    // MARK: writing

    /// The session as a JSON document, fields in the documented order, then unknown ones.
    public func json() -> JSONValue {
        func time(_ frame: Int) -> JSONValue { .string(formatTime(frame: frame, sampleRate: sampleRate)) }
        var object = JSONObject()
        object["format"] = .string(Session.format)
        object["version"] = .int(Session.version)
        object["audio"] = .string(audio)
        object["sample_rate"] = .int(sampleRate)
        object["position"] = .int(position)
        object["position_time"] = time(position)
        if let loop {
            var fields = JSONObject()
            fields["a"] = .int(loop.a)
            fields["b"] = .int(loop.b)
            fields["a_time"] = time(loop.a)
            fields["b_time"] = time(loop.b)
            fields["on"] = .bool(loop.on)
            for key in loop.extra.keys where fields[key] == nil { fields[key] = loop.extra[key] }
            object["loop"] = .object(fields)
        } else {
            object["loop"] = .null
        }
        object["active_loop"] = activeLoop.map { .string($0) } ?? .null
        object["loops"] = .array(loops.map { named in
            var fields = JSONObject()
            fields["name"] = .string(named.name)
            fields["start"] = .int(named.start)
            fields["end"] = .int(named.end)
            fields["start_time"] = time(named.start)
            fields["end_time"] = time(named.end)
            for key in named.extra.keys where fields[key] == nil { fields[key] = named.extra[key] }
            return .object(fields)
        })
        object["speed"] = .double(speed)
        object["pitch"] = .double(pitch)
        object["volume"] = .double(volume)
        object["pan"] = .double(pan)
        object["gap"] = .double(gapSeconds)
        object["declick_ms"] = .double(declickMilliseconds)
        if let trainer {
            var fields = JSONObject()
            fields["from"] = .double(trainer.from)
            fields["step"] = .double(trainer.step)
            fields["every"] = .int(trainer.every)
            fields["to"] = .double(trainer.to)
            fields["speed"] = .double(trainer.speed)
            fields["passes"] = .int(trainer.passes)
            fields["done"] = .bool(trainer.isDone)
            for key in trainerExtra.keys where fields[key] == nil { fields[key] = trainerExtra[key] }
            object["trainer"] = .object(fields)
        } else {
            object["trainer"] = .null
        }
        if let transport { object["transport"] = .string(transport) }
        writeMap(into: &object)
        writeHearing(into: &object)
        writeLines(into: &object)
        writeTakes(into: &object)
        for key in extra.keys where object[key] == nil { object[key] = extra[key] }
        return .object(object)
    }

    public var text: String { json().formatted() }

    // MARK: reading

    /// Parses a session document. `shown` names the file in errors. Checks syntax, types and ranges
    /// that do not depend on the audio; `check(against:)` does the rest.
    public static func parse(_ data: Data, shown: String) throws(RepeaterError) -> Session {
        let value: JSONValue
        do { value = try JSONValue.parse(data) } catch {
            throw .input("session \(shown) line \(error.line), column \(error.column): \(error.message)")
        }
        var reader = FieldReader(shown: shown)
        guard case .object(let object) = value else { throw reader.fail(nil, "is \(value.typeName), not a session (a JSON object)") }
        if let format = object["format"] {
            guard case .string(let name) = format, name == Session.format else {
                throw reader.fail("format", "is not \"\(Session.format)\": this is not a repeater session")
            }
        }
        guard let versionValue = object["version"] else { throw reader.fail(nil, "has no \"version\" field: not a repeater session") }
        guard let version = versionValue.number, version >= 1 else { throw reader.fail("version", "must be a number (1), not \(versionValue.typeName)") }
        if Int(version) > Session.version {
            throw reader.fail("version", "is \(Int(version)): the file was written by a newer repeater (this one reads version \(Session.version)); update repeater")
        }
        let audio = try reader.string(object, "audio", required: true)!
        guard !audio.isEmpty else { throw reader.fail("audio", "is empty: name the audio file") }
        let sampleRate = try reader.int(object, "sample_rate", range: 1...1_000_000) ?? 0
        var session = Session(audio: audio, sampleRate: sampleRate)
        session.position = try reader.frame(object, "position", sampleRate: sampleRate) ?? 0
        if let loopValue = object["loop"], loopValue != .null {
            guard case .object(let loop) = loopValue else { throw reader.fail("loop", "must be an object or null, not \(loopValue.typeName)") }
            reader.prefix = "loop."
            let a = try reader.frame(loop, "a", sampleRate: sampleRate, required: true)!
            let b = try reader.frame(loop, "b", sampleRate: sampleRate, required: true)!
            let on = try reader.bool(loop, "on") ?? true
            reader.prefix = ""
            var current = CurrentLoop(a: a, b: b, on: on)
            current.extra = loop.unknown(["a", "b", "a_time", "b_time", "on"])
            guard a < b else { throw reader.fail("loop", "A (\(a)) must be before B (\(b))") }
            session.loop = current
        }
        if let active = object["active_loop"], active != .null {
            guard case .string(let name) = active else { throw reader.fail("active_loop", "must be a loop's name or null, not \(active.typeName)") }
            session.activeLoop = name
        }
        if let loopsValue = object["loops"] {
            guard case .array(let items) = loopsValue else { throw reader.fail("loops", "must be a list, not \(loopsValue.typeName)") }
            var names = Set<String>()
            for (index, item) in items.enumerated() {
                guard case .object(let fields) = item else { throw reader.fail("loops[\(index)]", "must be an object, not \(item.typeName)") }
                reader.prefix = "loops[\(index)]."
                let name = try reader.string(fields, "name", required: true)!
                let start = try reader.frame(fields, "start", sampleRate: sampleRate, required: true)!
                let end = try reader.frame(fields, "end", sampleRate: sampleRate, required: true)!
                reader.prefix = ""
                guard !name.isEmpty else { throw reader.fail("loops[\(index)].name", "is empty") }
                guard names.insert(name).inserted else { throw reader.fail("loops[\(index)].name", "\"\(name)\" is used by two loops") }
                guard start < end else { throw reader.fail("loops[\(index)]", "\"\(name)\" starts (\(start)) at or after its end (\(end))") }
                var named = NamedLoop(name: name, start: start, end: end)
                named.extra = fields.unknown(["name", "start", "end", "start_time", "end_time"])
                session.loops.append(named)
            }
        }
        if let active = session.activeLoop, !session.loops.contains(where: { $0.name == active }) {
            throw reader.fail("active_loop", "names \"\(active)\", which is not in \"loops\"")
        }
        session.speed = try reader.double(object, "speed", range: 0.25...4) ?? 1
        session.pitch = try reader.double(object, "pitch", range: -24...24) ?? 0
        session.volume = try reader.double(object, "volume", range: 0...Volume.maximum + 1e-9) ?? 1
        session.pan = try reader.double(object, "pan", range: -1...1) ?? 0
        session.gapSeconds = try reader.double(object, "gap", range: 0...60) ?? 0
        session.declickMilliseconds = try reader.double(object, "declick_ms", range: 0...500) ?? 0
        if let trainerValue = object["trainer"], trainerValue != .null {
            guard case .object(let fields) = trainerValue else { throw reader.fail("trainer", "must be an object or null, not \(trainerValue.typeName)") }
            reader.prefix = "trainer."
            let from = try reader.double(fields, "from", range: 0.25...4, required: true)!
            let step = try reader.double(fields, "step", range: -3.75...3.75, required: true)!
            let every = try reader.int(fields, "every", range: 1...10_000, required: true)!
            let to = try reader.double(fields, "to", range: 0.25...4, required: true)!
            let speed = try reader.double(fields, "speed", range: 0.25...4) ?? from
            let passes = try reader.int(fields, "passes", range: 0...1_000_000) ?? 0
            reader.prefix = ""
            guard step != 0, (to - from) * step >= 0 else { throw reader.fail("trainer", "steps by \(step) from \(from), which never reaches \(to)") }
            session.trainer = SpeedTrainer(from: from, step: step, every: every, to: to, speed: speed, passes: passes)
            session.trainerExtra = fields.unknown(["from", "step", "every", "to", "speed", "passes", "done"])
        }
        if let mode = try reader.string(object, "transport") {
            guard ["off", "follow", "drive"].contains(mode) else { throw reader.fail("transport", "must be \"off\", \"follow\" or \"drive\", not \"\(mode)\"") }
            session.transport = mode == "off" ? nil : mode
        }
        try session.readMap(from: object, reader: &reader)
        try session.readHearing(from: object, reader: &reader)
        try session.readLines(from: object, reader: &reader)
        try session.readTakes(from: object, reader: &reader)
        session.extra = object.unknown(knownKeys)
        return session
    }

    /// Checks the frames against the audio (a session written at another rate is scaled to the
    /// file's), and throws a one-line error naming the loop or field outside it.
    public mutating func check(against info: AudioFileInfo, shown: String) throws(RepeaterError) {
        let reader = FieldReader(shown: shown)
        if sampleRate == 0 { sampleRate = info.sampleRate }
        if sampleRate != info.sampleRate {
            let ratio = Double(info.sampleRate) / Double(sampleRate)
            func scale(_ frame: Int) -> Int { Int((Double(frame) * ratio).rounded()) }
            position = scale(position)
            loop = loop.map { var scaled = $0; scaled.a = scale($0.a); scaled.b = scale($0.b); return scaled }
            loops = loops.map { var scaled = $0; scaled.start = scale($0.start); scaled.end = scale($0.end); return scaled }
            sampleRate = info.sampleRate
        }
        let length = info.frameCount, rate = info.sampleRate
        func time(_ frame: Int) -> String { formatTime(frame: frame, sampleRate: rate) }
        let audioName = "'\((info.path as NSString).lastPathComponent)' (\(time(length)))"
        for named in loops where named.end > length {
            throw reader.fail("loops", "\"\(named.name)\" ends at \(time(named.end)), after the end of \(audioName)")
        }
        if let loop, loop.b > length {
            throw reader.fail("loop", "B \(time(loop.b)) is after the end of \(audioName)")
        }
        if position >= length {
            throw reader.fail("position", "\(time(position)) is at or after the end of \(audioName)")
        }
    }

    /// The audio file's path: `audio` as is when absolute, else relative to the session's folder.
    public func audioPath(sessionPath: String) -> String {
        if audio.hasPrefix("/") { return audio }
        let folder = (sessionPath as NSString).deletingLastPathComponent
        return folder.isEmpty ? audio : (folder as NSString).appendingPathComponent(audio)
    }

    /// How a session at `sessionPath` names `audioPath`: relative when the audio lies in the session's
    /// folder or below it, else absolute.
    public static func audioReference(_ audioPath: String, sessionPath: String) -> String {
        let audio = absolute(audioPath), folder = (absolute(sessionPath) as NSString).deletingLastPathComponent
        if audio.hasPrefix(folder + "/") { return String(audio.dropFirst(folder.count + 1)) }
        return audio
    }

    static func absolute(_ path: String) -> String {
        let joined = path.hasPrefix("/") ? path : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
        return (joined as NSString).standardizingPath
    }
}

extension JSONObject {
    /// The fields whose keys are not in `known`, in order.
    func unknown(_ known: Set<String>) -> JSONObject {
        var out = JSONObject()
        for key in keys where !known.contains(key) { out[key] = self[key] }
        return out
    }
}

/// Typed access to fields with one-line errors that name the file and the field.
struct FieldReader {
    let shown: String
    var prefix = ""

    init(shown: String) { self.shown = shown }

    func fail(_ field: String?, _ problem: String) -> RepeaterError {
        .input("session \(shown)" + (field.map { ": field \"\($0)\" " } ?? " ") + problem)
    }

    func string(_ object: JSONObject, _ key: String, required: Bool = false) throws(RepeaterError) -> String? {
        guard let value = object[key], value != .null || required else { return try missing(key, required) }
        guard case .string(let text) = value else { throw fail(prefix + key, "must be a string, not \(value.typeName)") }
        return text
    }

    func bool(_ object: JSONObject, _ key: String) throws(RepeaterError) -> Bool? {
        guard let value = object[key], value != .null else { return nil }
        guard case .bool(let flag) = value else { throw fail(prefix + key, "must be true or false, not \(value.typeName)") }
        return flag
    }

    func int(_ object: JSONObject, _ key: String, range: ClosedRange<Int>, required: Bool = false) throws(RepeaterError) -> Int? {
        guard let value = object[key], value != .null || required else { return try missing(key, required) }
        guard case .int(let number) = value else { throw fail(prefix + key, "must be a whole number, not \(value.typeName == "a number" ? "a fraction" : value.typeName)") }
        guard range.contains(number) else { throw fail(prefix + key, "is \(number), outside \(range.lowerBound)…\(range.upperBound)") }
        return number
    }

    func double(_ object: JSONObject, _ key: String, range: ClosedRange<Double>, required: Bool = false) throws(RepeaterError) -> Double? {
        guard let value = object[key], value != .null || required else { return try missing(key, required) }
        guard let number = value.number else { throw fail(prefix + key, "must be a number, not \(value.typeName)") }
        guard range.contains(number) else { throw fail(prefix + key, "is \(number), outside \(range.lowerBound)…\(range.upperBound)") }
        return number
    }

    /// A frame: the integer field `key`, or else its readable `key_time` twin.
    func frame(_ object: JSONObject, _ key: String, sampleRate: Int, required: Bool = false) throws(RepeaterError) -> Int? {
        if let value = object[key], value != .null {
            guard case .int(let frame) = value else { throw fail(prefix + key, "must be a whole number of frames, not \(value.typeName == "a number" ? "a fraction" : value.typeName)") }
            guard frame >= 0 else { throw fail(prefix + key, "is \(frame): frames are not negative") }
            return frame
        }
        if let value = object[key + "_time"], value != .null {
            guard case .string(let text) = value else { throw fail(prefix + key + "_time", "must be a time string such as \"1:02.500\", not \(value.typeName)") }
            guard sampleRate > 0 else { throw fail("sample_rate", "is needed to read \(prefix + key)_time") }
            do { return try TimeSpec(parsing: text).frame(atRate: sampleRate) } catch { throw fail(prefix + key + "_time", error.message) }
        }
        return try missing(key, required) as Int?
    }

    private func missing<T>(_ key: String, _ required: Bool) throws(RepeaterError) -> T? {
        if required { throw fail(prefix + key, "is missing") }
        return nil
    }
}

/// Where sessions live and how they are written.
public enum SessionStore {
    /// The folder for sessions kept per audio file: `$XDG_STATE_HOME/repeater/sessions`, by default
    /// `~/.local/state/repeater/sessions`.
    public static func stateFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        Folders.state(environment) + "/sessions"
    }

    /// The session file kept for an audio file: its name and a hash of its absolute path, so two
    /// files of the same name in different folders keep apart.
    public static func keyedPath(forAudio audioPath: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let absolute = Session.absolute(audioPath)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, 64 bit: stable across runs and machines
        for byte in absolute.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let base = (absolute as NSString).lastPathComponent.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "_" }
        let hex = String(hash, radix: 16)
        return stateFolder(environment: environment) + "/" + String(base.prefix(80)) + "-" + String(repeating: "0", count: 16 - hex.count) + hex + ".json"
    }

    /// Reads and parses the session at `path` (syntax, types, ranges); one-line errors name the file.
    public static func read(_ path: String) throws(RepeaterError) -> Session {
        let shown = "'\(path)'"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .input("session \(shown) cannot be read: \(FileManager.default.fileExists(atPath: path) ? "check its permissions" : "no such file")")
        }
        return try Session.parse(data, shown: shown)
    }

    /// Reads and checks the session at `path` against its audio. Errors are one line naming the file.
    public static func load(_ path: String) throws(RepeaterError) -> (session: Session, audioPath: String) {
        let shown = "'\(path)'"
        let session = try read(path)
        let audioPath = session.audioPath(sessionPath: path)
        guard FileManager.default.fileExists(atPath: audioPath) else {
            throw .input("session \(shown): its audio file '\(session.audio)' is missing (looked for \(audioPath)); put it back or fix \"audio\"")
        }
        return (session, audioPath)
    }

    /// Removes temporaries a killed writer left next to `path` (`.NAME.tmp-PID` of a process that is
    /// gone); returns how many.
    @discardableResult
    public static func removeStaleTemporaries(for path: String) -> Int {
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        let prefix = "." + (path as NSString).lastPathComponent + ".tmp-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH, unlink(folder + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    /// Writes `text` to `path` atomically: a temporary file in the same folder, written, fsync'ed,
    /// renamed over `path`, and the folder fsync'ed; a crash at any moment leaves the old file or the
    /// new one, never a mix. Creates the folder if needed.
    public static func writeAtomically(_ text: String, to path: String, what: String = "session") throws(RepeaterError) {
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        if !FileManager.default.fileExists(atPath: folder) {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) } catch {
                throw RepeaterError(.failure, "cannot create the \(what) folder '\(folder)': \(error.localizedDescription)")
            }
        }
        let temporary = folder + "/." + (path as NSString).lastPathComponent + ".tmp-\(getpid())"
        func failure(_ step: String) -> RepeaterError {
            RepeaterError(.failure, "cannot save the \(what) '\(path)': \(step): \(String(cString: strerror(errno)))")
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("cannot create \(temporary)") }
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else {
                let error = failure("writing")
                close(fd)
                unlink(temporary)
                throw error
            }
        }
        guard fsync(fd) == 0 else {
            let error = failure("fsync")
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = failure("rename")
            unlink(temporary)
            throw error
        }
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 {
            fsync(folderFD)
            close(folderFD)
        }
    }
}
