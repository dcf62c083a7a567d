import Foundation
import RepeaterEngine

/// Measured stretcher timings kept between runs, in `$XDG_CACHE_HOME/repeater/stretch-timing.json`:
/// measuring one (`StretchTiming.measure`) costs 0.3 s (R3) to 0.7 s (R3, pitch-consistent) of CPU,
/// which every start paid before, whether or not it ever stretched (on this VM a third of a speed-1
/// player's first minute). The measurement is deterministic for a given build of the program and of
/// Rubber Band, so an entry is keyed by this executable (its size and modification time: any new
/// build, or a new librubberband linked in, measures again), the engine, the flavour and the rate.
/// A file that cannot be read or written only costs the measurement.
enum StretchTimingCache {
    static var path: String { Folders.cache() + "/stretch-timing.json" }

    /// This executable's identity, and the shared library's, as a key prefix ("" when unknown).
    static let build: String = {
        func stamp(_ path: String) -> String? {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            return "\(info.st_size)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        let library = ["/usr/lib/x86_64-linux-gnu/librubberband.so.2", "/usr/lib/aarch64-linux-gnu/librubberband.so.2"].lazy.compactMap(stamp).first
        guard let executable = stamp("/proc/self/exe") else { return "" }
        return executable + "/" + (library ?? "?")
    }()

    static func key(kind: Stretcher.Kind, pitchConsistent: Bool, sampleRate: Int) -> String {
        "\(build) \(kind) \(pitchConsistent ? "consistent" : "plain") \(sampleRate)"
    }

    static func load(kind: Stretcher.Kind, pitchConsistent: Bool, sampleRate: Int, from file: String = path) -> StretchTiming? {
        guard !build.isEmpty, let data = FileManager.default.contents(atPath: file),
              let table = try? JSONSerialization.jsonObject(with: data) as? [String: [String: [Double]]],
              let entry = table[key(kind: kind, pitchConsistent: pitchConsistent, sampleRate: sampleRate)],
              let lags = entry["lags"], let offsets = entry["start_offsets"],
              lags.count == StretchTiming.ratioCount, offsets.count == StretchTiming.ratioCount else { return nil }
        var timing = StretchTiming(lags: .init(repeating: 0))
        for index in 0..<StretchTiming.ratioCount {
            timing.lags[index] = lags[index]
            timing.startOffsets[index] = offsets[index]
        }
        return timing
    }

    /// Entries the file keeps at most: this build's, then other builds', the most recently stored
    /// first (two builds run in turn, as `repeater-bench --before` does, would otherwise evict each
    /// other's and measure at every start).
    static let maximumEntries = 32

    /// Adds an entry (with the time it was stored: `stored`, seconds since 1970), written whole and
    /// renamed into place. When the file is full, the other builds' entries stored longest ago go.
    static func store(_ timing: StretchTiming, kind: Stretcher.Kind, pitchConsistent: Bool, sampleRate: Int, in file: String = path,
                      now: Double = Date().timeIntervalSince1970) {
        guard !build.isEmpty else { return }
        var table: [String: [String: [Double]]] = [:]
        if let data = FileManager.default.contents(atPath: file),
           let read = try? JSONSerialization.jsonObject(with: data) as? [String: [String: [Double]]] {
            table = read
            // Oldest first; an entry from before `stored` was kept counts as the oldest.
            let others = read.filter { !$0.key.hasPrefix(build + " ") }
                .map { (key: $0.key, stored: $0.value["stored"]?.first ?? 0) }
                .sorted { ($0.stored, $0.key) < ($1.stored, $1.key) }
            for entry in others.prefix(max(0, read.count + 1 - maximumEntries)) { table[entry.key] = nil }
        }
        let indices = 0..<StretchTiming.ratioCount
        table[key(kind: kind, pitchConsistent: pitchConsistent, sampleRate: sampleRate)] =
            ["lags": indices.map { timing.lags[$0] }, "start_offsets": indices.map { timing.startOffsets[$0] }, "stored": [now]]
        guard let data = try? JSONSerialization.data(withJSONObject: table, options: [.sortedKeys]) else { return }
        let folder = (file as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = folder + "/.stretch-timing.\(getpid()).json"
        guard FileManager.default.createFile(atPath: temporary, contents: data) else { return }
        if rename(temporary, file) != 0 { unlink(temporary) }
    }
}
