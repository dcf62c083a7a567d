import Foundation
import RepeaterKit

/// `repeater-bench memory`: two players side by side on one private jackd for the same minutes,
/// given the same rate and pitch change every 1.5 s: one as shipped (used stretchers kept and
/// re-armed), one building a new Rubber Band stretcher for each change and freeing the old
/// (`REPEATER_STRETCHER_REUSE=0`, as before). Prints their memory every 30 s (RSS, and its parts:
/// the process's own anonymous memory and JACK's shared segment), the page faults its audio thread
/// took (the busiest thread: the process callback, stretching, on a server without real-time
/// scheduling), and how much each grew after the first minute.
func runMemory(arguments: [String]) throws(RepeaterError) {
    var minutes = 5.0, every = 1.5
    var rest = arguments
    while !rest.isEmpty {
        let name = rest.removeFirst()
        let value = rest.isEmpty ? "" : rest.removeFirst()
        switch name {
        case "--minutes": minutes = Double(value) ?? minutes
        case "--every": every = Double(value) ?? every
        default: throw .input("memory: unknown option \(name)")
        }
    }
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
    let repeater = products + "/repeater"
    guard FileManager.default.isExecutableFile(atPath: repeater) else { throw .input("build repeater first (swift build -c release)") }
    let scratch = NSTemporaryDirectory() + "repeater-bench-\(getpid())"
    try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let path = scratch + "/music.wav"
    try writeMusic(path: path, seconds: 30)
    let server = try JackServerProcess(name: "repeater-bench-memory", backend: .dummy(sampleRate: 48_000, period: 256))
    defer { server.stop() }
    stopOnSignal(server)
    let environment = ["JACK_NO_START_SERVER": "1", "JACK_DEFAULT_SERVER": server.name]
    let variants = [("as shipped", [String: String]()), ("built anew each change", ["REPEATER_STRETCHER_REUSE": "0"])]
    var players: [(process: Process, input: FileHandle)] = []
    for (index, variant) in variants.enumerated() {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: repeater)
        process.arguments = ["play", path, "--name", "memory\(index)", "--connect", "none", "--status", "none", "--no-session",
                             "--loop", "10-14"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment.merging(variant.1) { $1 }) { $1 }
        let pipe = Pipe()
        process.standardInput = pipe
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw .input("memory: cannot start repeater: \(error)") }
        players.append((process, pipe.fileHandleForWriting))
    }
    print("repeater-bench memory: \(String(format: "%g", minutes)) min, a rate and pitch change every \(every) s, two players on a private jackd (MiB; own = RssAnon, jack = RssShmem; faults: the audio thread's minor page faults)")
    print("   t      " + variants.map { $0.0.padding(toLength: 48, withPad: " ", startingAt: 0) }.joined())
    var generator = SystemRandomNumberGenerator()
    sleep(3)  // (both started and playing)
    let started = Date()
    var nextSample = 0.0
    var samples: [[Memory]] = []
    var changes = 0
    while true {
        let now = Date().timeIntervalSince(started)
        if now >= nextSample {
            let row = players.map { Memory(pid: $0.process.processIdentifier) }
            samples.append(row)
            print(String(format: "%4.0f s   ", now) + row.map {
                String(format: "rss %5.1f own %5.1f jack %5.1f faults %6d  ", $0.rss, $0.own, $0.shared, $0.audioFaults)
            }.joined())
            fflush(nil)  // (the rows as they come, also into a file)
            nextSample += 30
        }
        if now >= minutes * 60 { break }
        let line = "rate \([0.7, 0.8, 0.9, 1, 1.1, 1.2].randomElement(using: &generator)!)\npitch \([-2, -1, 0, 0, 1, 2].randomElement(using: &generator)!)\n"
        for player in players { player.input.write(Data(line.utf8)) }
        changes += 1
        usleep(UInt32(every * 1_000_000))
    }
    for player in players {
        player.input.write(Data("quit\n".utf8))
        try? player.input.close()
        player.process.waitUntilExit()
    }
    print("\(changes) changes. Own memory and audio-thread page faults after the first minute (from the sample at 60 s):")
    for (index, variant) in variants.enumerated() {
        let own = samples.map { $0[index].own }
        let later = own.dropFirst(min(2, own.count - 1))
        let base = later.first ?? 0
        let faults = samples.map { $0[index].audioFaults }
        let faultsAfter = (faults.last ?? 0) - faults[min(2, faults.count - 1)]
        print(String(format: "  %@: own memory at 1 min %.1f MiB, largest after %.1f (%+.1f), last %.1f (%+.1f); audio-thread page faults after 1 min: %d",
                     variant.0, base, later.max() ?? 0, (later.max() ?? 0) - base, own.last ?? 0, (own.last ?? 0) - base, faultsAfter))
    }
}

/// A process's resident memory in MiB, and its parts; the minor page faults of its busiest thread.
struct Memory {
    var rss = 0.0, own = 0.0, shared = 0.0
    var audioFaults = 0

    init(pid: Int32) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return }
        for line in status.split(separator: "\n") {
            let fields = line.split { $0 == " " || $0 == "\t" }
            guard fields.count >= 2, let kib = Double(fields[1]) else { continue }
            switch fields[0] {
            case "VmRSS:": rss = kib / 1024
            case "RssAnon:": own = kib / 1024
            case "RssShmem:": shared = kib / 1024
            default: break
            }
        }
        // /proc/PID/task/TID/stat: after the name in parentheses, field 10 is minflt and 14 utime.
        var busiest = (utime: -1, faults: 0)
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let faults = Int(fields[7]), let utime = Int(fields[11]) else { continue }
            if utime > busiest.utime { busiest = (utime, faults) }
        }
        audioFaults = busiest.faults
    }
}
