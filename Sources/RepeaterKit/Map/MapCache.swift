import Foundation

/// What the analysis found for a recording, kept under `$XDG_CACHE_HOME/repeater/maps/` by the
/// recording's content (a hash of its bytes), so that a renamed file is found again and a changed one
/// is analysed again. The user's corrections are not here: they live in the session and win.
public enum MapCache {
    /// Bump when the analysis changes what it finds: older entries are then analysed again.
    public static let analysisVersion = 2

    public static func folder(_ environment: Folders.Environment = ProcessInfo.processInfo.environment) -> String {
        Folders.cache(environment) + "/maps"
    }

    /// The cache entry's path for the file at `audioPath` (its content hashed: a read of the whole file).
    public static func entryPath(forAudio audioPath: String, environment: Folders.Environment = ProcessInfo.processInfo.environment) throws(RepeaterError) -> String {
        folder(environment) + "/" + (try ContentHash.of(path: audioPath)) + ".json"
    }

    public enum Lookup: Sendable {
        /// Nothing cached for this content.
        case missing
        case found(BeatGrid)
        /// An entry that cannot be used (broken, from another analysis version): why, in one line.
        case unusable(String)
    }

    public static func load(_ path: String) -> Lookup {
        guard let data = FileManager.default.contents(atPath: path) else { return .missing }
        do throws(RepeaterError) {
            return .found(try decode(data))
        } catch {
            return .unusable("the cached analysis '\(path)' cannot be used (\(error.message)); analysing again")
        }
    }

    /// Writes the entry atomically (a temporary file renamed over it). A cache that cannot be
    /// written is not an error: the next run analyses again.
    @discardableResult
    public static func save(_ grid: BeatGrid, to path: String) -> Bool {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let temporary = path + ".tmp-\(getpid())"
            try Data(encode(grid).formatted().utf8).write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else {
                unlink(temporary)
                return false
            }
            return true
        } catch {
            return false
        }
    }

    static func encode(_ grid: BeatGrid) -> JSONValue {
        var object = JSONObject()
        object["format"] = .string("repeater-map")
        object["analysis_version"] = .int(analysisVersion)
        object["sample_rate"] = .int(grid.sampleRate)
        object["frame_count"] = .int(grid.frameCount)
        object["tempo_bpm"] = .double(grid.tempoBPM)
        object["tempo_changes"] = .array(grid.tempoChanges.map { .array([.int($0.startFrame), .double($0.bpm)]) })
        object["tempo_confidence"] = .double(grid.tempoConfidence)
        object["tempo_alternative_bpm"] = grid.tempoAlternativeBPM.map { .double($0) } ?? .null
        object["beats_per_bar"] = .int(grid.beatsPerBar)
        object["key"] = grid.key.map { .string($0) } ?? .null
        object["beat_frames"] = .array(grid.beatFrames.map { .int($0) })
        object["downbeat_frames"] = .array(grid.downbeatFrames.map { .int($0) })
        return .object(object)
    }

    static func decode(_ data: Data) throws(RepeaterError) -> BeatGrid {
        let value: JSONValue
        do { value = try JSONValue.parse(data) } catch { throw .input("line \(error.line): \(error.message)") }
        guard case .object(let object) = value, object["format"] == .string("repeater-map") else { throw .input("not a map") }
        guard object["analysis_version"] == .int(analysisVersion) else { throw .input("made by another version of the analysis") }
        func int(_ key: String) throws(RepeaterError) -> Int {
            guard case .int(let number) = object[key] ?? .null else { throw .input("\"\(key)\" is missing or not a whole number") }
            return number
        }
        func frames(_ key: String) throws(RepeaterError) -> [Int] {
            guard case .array(let items) = object[key] ?? .null else { throw .input("\"\(key)\" is missing") }
            var list: [Int] = []
            for item in items {
                guard case .int(let frame) = item, frame >= 0 else { throw .input("\"\(key)\" holds something other than frames") }
                if let last = list.last, frame <= last { throw .input("\"\(key)\" is not in order") }
                list.append(frame)
            }
            return list
        }
        var changes: [TempoSpan] = []
        if case .array(let items) = object["tempo_changes"] ?? .null {
            for item in items {
                guard case .array(let pair) = item, pair.count == 2, case .int(let frame) = pair[0], let bpm = pair[1].number else {
                    throw .input("\"tempo_changes\" holds something other than [frame, bpm] pairs")
                }
                changes.append(TempoSpan(startFrame: frame, bpm: bpm))
            }
        }
        var key: String?
        if case .string(let name) = object["key"] ?? .null { key = name }
        let beats = try frames("beat_frames")
        let downbeats = try frames("downbeat_frames")
        guard Set(downbeats).isSubset(of: Set(beats)) else { throw .input("a bar starts where no beat is") }
        return BeatGrid(sampleRate: try int("sample_rate"), frameCount: try int("frame_count"), beatFrames: beats,
                        downbeatFrames: downbeats, beatsPerBar: try int("beats_per_bar"), key: key,
                        tempoBPM: object["tempo_bpm"]?.number ?? 0, tempoChanges: changes,
                        tempoConfidence: min(1, max(0, object["tempo_confidence"]?.number ?? 0)),
                        tempoAlternativeBPM: object["tempo_alternative_bpm"]?.number)
    }
}

/// A 64-bit hash of a file's bytes (and its length), as 16 hex digits: the cache's key.
public enum ContentHash {
    public static func of(path: String) throws(RepeaterError) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .input("cannot read '\(path)'") }
        defer { try? handle.close() }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var length: UInt64 = 0
        while true {
            let chunk: Data
            do { chunk = try handle.read(upToCount: 1 << 20) ?? Data() } catch { throw .input("cannot read '\(path)': \(error.localizedDescription)") }
            if chunk.isEmpty { break }
            length &+= UInt64(chunk.count)
            chunk.withUnsafeBytes { bytes in
                let words = bytes.count / 8
                for index in 0..<words {
                    let word = bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)
                    hash = (hash ^ word) &* 0x0000_0100_0000_01b3
                    hash ^= hash >> 29
                }
                for index in (words * 8)..<bytes.count {
                    hash = (hash ^ UInt64(bytes[index])) &* 0x0000_0100_0000_01b3
                }
            }
        }
        hash ^= length
        hash = (hash ^ (hash >> 33)) &* 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
