import CJack
import CLiblo
import Foundation

/// `repeater doctor`'s options.
public struct DoctorOptions: Sendable {
    /// `--server NAME`; nil: `$JACK_DEFAULT_SERVER`, else "default".
    public var serverName: String?
    /// `--json`: one object instead of the table.
    public var json = false

    public init() {}
}

/// One line of the doctor's report.
public struct DoctorCheck: Error, Sendable, Equatable {
    public enum Status: String, Sendable {
        case ok, warn, fail
    }

    /// A stable name for scripts (`jack`, `realtime-server`, …).
    public var name: String
    public var status: Status
    /// What was found, in one line.
    public var finding: String
    /// The fix in one sentence (nil when there is nothing to do).
    public var fix: String?
}

/// What stops a JACK newcomer, checked and explained: the server, real-time scheduling and this
/// user's right to it, the CPU governor, repeater's folders, midi.json and the OSC library. Nothing
/// is changed; the server is only visited by a client that opens and closes.
public struct Doctor {
    public var options: DoctorOptions
    public var environment: [String: String]

    public init(options: DoctorOptions, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.options = options
        self.environment = environment
    }

    /// The server's facts, when one answered.
    public struct Server: Sendable {
        public var name: String
        public var implementation: String
        public var sampleRate: Int
        public var periodFrames: Int
        public var realtime: Bool
        /// The playback latency of the first physical playback port (frames), if there is one.
        public var outputLatencyFrames: Int?
    }

    public struct Report: Sendable {
        public var checks: [DoctorCheck]
        public var server: Server?
        /// Nothing failed: `repeater play` will play.
        public var playbackWorks: Bool { !checks.contains { $0.status == .fail } }
    }

    public func run() -> Report {
        let serverName = options.serverName ?? environment["JACK_DEFAULT_SERVER"] ?? "default"
        let chosenBy = options.serverName != nil ? "--server" : environment["JACK_DEFAULT_SERVER"] != nil ? "$JACK_DEFAULT_SERVER" : "the default name"
        var checks: [DoctorCheck] = []
        let server = visitServer(named: serverName, requested: options.serverName)
        switch server {
        case .success(let facts):
            let milliseconds = { (frames: Int) in String(format: "%.1f ms", Double(frames) * 1000 / Double(facts.sampleRate)) }
            var finding = "JACK server '\(facts.name)' (\(chosenBy)) answers: \(facts.implementation), \(facts.sampleRate) Hz, "
                + "\(facts.periodFrames) frames a period (\(milliseconds(facts.periodFrames)))"
            if let latency = facts.outputLatencyFrames { finding += ", \(milliseconds(latency)) from repeater's ports to the outputs" }
            checks.append(DoctorCheck(name: "jack", status: .ok, finding: finding))
            if facts.realtime {
                checks.append(DoctorCheck(name: "realtime-server", status: .ok, finding: "the server runs its audio threads with real-time scheduling"))
            } else {
                checks.append(DoctorCheck(name: "realtime-server", status: .warn,
                                          finding: "the server runs without real-time scheduling: other programs' load can make it drop periods (xruns)",
                                          fix: facts.implementation.hasPrefix("PipeWire")
                                              ? "let PipeWire use real-time scheduling (install rtkit, or grant your user rtprio as below)"
                                              : "start jackd with -R (its default) instead of --no-realtime, as a user who may use real-time scheduling"))
            }
        case .failure(let problem):
            checks.append(problem)
        }
        checks.append(realtimeUser())
        checks.append(jackdInstalled())
        checks.append(governor())
        checks += folders()
        checks.append(midiBindings())
        checks.append(oscLibrary())
        if case .success(let facts) = server { return Report(checks: checks, server: facts) }
        return Report(checks: checks, server: nil)
    }

    // MARK: the server

    private func visitServer(named name: String, requested: String?) -> Result<Server, DoctorCheck> {
        let (opened, status) = openJackClient(name: "repeater-doctor", serverName: requested)
        guard let client = opened else {
            let refused = status.rawValue & (JackServerFailed.rawValue | JackServerError.rawValue) == 0
            if refused {
                return .failure(DoctorCheck(name: "jack", status: .fail,
                                            finding: "the JACK server '\(name)' refused a client (status 0x\(String(status.rawValue, radix: 16)))",
                                            fix: "run `repeater play FILE --verbose` to see libjack's reason; a server of another user or version refuses clients"))
            }
            let others = runningServerNames().filter { $0 != name }
            var finding = "no JACK server '\(name)' is running"
            if !others.isEmpty { finding += " (running: \(others.map { "'\($0)'" }.joined(separator: ", ")))" }
            return .failure(DoctorCheck(name: "jack", status: .fail, finding: finding,
                                        fix: others.isEmpty
                                            ? "start one (`jackd -d alsa`, or `jackd -d dummy` without a sound card; or PipeWire's JACK with pw-jack), or play with --start-server"
                                            : "pass --server \(others[0]) (or set JACK_DEFAULT_SERVER), or start a server named '\(name)'"))
        }
        defer { jack_client_close(client) }
        var facts = Server(name: name, implementation: implementation(), sampleRate: Int(jack_get_sample_rate(client)),
                           periodFrames: Int(jack_get_buffer_size(client)), realtime: jack_is_realtime(client) != 0)
        let flags = UInt(JackPortIsPhysical.rawValue | JackPortIsInput.rawValue)
        if let first = jackNames(jack_get_ports(client, nil, JACK_DEFAULT_AUDIO_TYPE, flags)).first,
           let port = jack_port_by_name(client, first) {
            var range = jack_latency_range_t()
            jack_port_get_latency_range(port, JackPlaybackLatency, &range)
            facts.outputLatencyFrames = Int(range.max)
        }
        return .success(facts)
    }

    /// "jackd 1.9.21", or PipeWire's JACK library with its version (`pw-jack` puts PipeWire's libjack
    /// first in the library path; its version string says "using PipeWire").
    private func implementation() -> String {
        let version = String(cString: jack_get_version_string())
        if version.contains("PipeWire") { return "PipeWire's JACK (\(version))" }
        return "jackd \(version)"
    }

    /// The names of the jackd servers running (their `/dev/shm/jack_NAME_…` files).
    private func runningServerNames() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm")) ?? []
        var names = Set<String>()
        for file in files where file.hasPrefix("jack_") && !file.hasPrefix("jack_sem") {
            let parts = file.dropFirst(5).split(separator: "_")
            if let name = parts.first, parts.count > 1, JackServerProcess.isAnswering(name: String(name)) { names.insert(String(name)) }
        }
        return names.sorted()
    }

    // MARK: real-time scheduling for this user

    private func realtimeUser() -> DoctorCheck {
        var rtprio = rlimit()
        getrlimit(__rlimit_resource_t(14), &rtprio)  // RLIMIT_RTPRIO (Glibc does not export the name to Swift)
        var memlock = rlimit()
        getrlimit(__rlimit_resource_t(8), &memlock)  // RLIMIT_MEMLOCK
        let limits = "rtprio limit \(describeLimit(rtprio.rlim_cur, unit: 1)), memlock \(describeLimit(memlock.rlim_cur, unit: 1024 * 1024, suffix: " MiB"))"
        let grants = limitsFilesGranting()
        let inAudio = isInAudioGroup()
        let may = canUseRealtimeScheduling()
        var finding = may ? "this user may use real-time scheduling (\(limits)" : "this user may not use real-time scheduling (\(limits)"
        if getuid() == 0 { finding += "; root" } else { finding += inAudio ? "; in the audio group" : "; not in the audio group" }
        if let grant = grants.first { finding += "; granted in \(grant)" }
        finding += ")"
        if may { return DoctorCheck(name: "realtime-user", status: .ok, finding: finding) }
        let fix: String
        if grants.isEmpty {
            fix = "let the audio group use it: `sudo dpkg-reconfigure -p high jackd2` (answer yes: it writes /etc/security/limits.d/audio.conf), then `sudo usermod -aG audio $USER` and log in again"
        } else if !inAudio {
            fix = "add yourself to the audio group (`sudo usermod -aG audio $USER`) and log in again"
        } else {
            fix = "log out and in again so that the limits in \(grants[0]) apply to this session"
        }
        return DoctorCheck(name: "realtime-user", status: .warn, finding: finding, fix: fix)
    }

    private func describeLimit(_ value: rlim_t, unit: rlim_t, suffix: String = "") -> String {
        value == rlim_t.max ? "unlimited" : "\(value / unit)\(suffix)"
    }

    /// Tries SCHED_FIFO on this thread and gives it up at once (lowering is always allowed).
    private func canUseRealtimeScheduling() -> Bool {
        var original = sched_param()
        var policy: Int32 = 0
        pthread_getschedparam(pthread_self(), &policy, &original)
        var parameter = sched_param()
        parameter.sched_priority = 10
        let allowed = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameter) == 0
        if allowed { pthread_setschedparam(pthread_self(), policy, &original) }
        return allowed
    }

    private func isInAudioGroup() -> Bool {
        guard let group = getgrnam("audio") else { return false }
        let count = getgroups(0, nil)
        guard count > 0 else { return false }
        var groups = [gid_t](repeating: 0, count: Int(count))
        let read = getgroups(count, &groups)
        return groups.prefix(Int(max(0, read))).contains(group.pointee.gr_gid) || getgid() == group.pointee.gr_gid
    }

    /// `/etc/security/limits.conf` and `limits.d/*` lines that grant rtprio (file: line).
    private func limitsFilesGranting() -> [String] {
        var files = ["/etc/security/limits.conf"]
        let folder = "/etc/security/limits.d"
        files += ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted().map { folder + "/" + $0 }
        return files.filter { path in
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
            return text.split(separator: "\n").contains { line in
                let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                return !(words.first?.hasPrefix("#") ?? true) && words.count >= 4 && words[2] == "rtprio" && (Int(words[3]) ?? 0) > 0
            }
        }
    }

    private func jackdInstalled() -> DoctorCheck {
        if let jackd = JackServerProcess.findJackd() {
            return DoctorCheck(name: "jackd", status: .ok, finding: "jackd is installed (\(jackd)): --start-server can start a private server")
        }
        return DoctorCheck(name: "jackd", status: .warn, finding: "jackd is not installed: --start-server cannot start a private server",
                           fix: "`sudo apt-get install jackd2` (or use PipeWire's JACK: `sudo apt-get install pipewire-jack` and run repeater under pw-jack)")
    }

    // MARK: the machine

    private func governor() -> DoctorCheck {
        let folder = "/sys/devices/system/cpu"
        let cpus = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix("cpu") && $0.dropFirst(3).allSatisfy(\.isNumber) }
        let governors = Set(cpus.compactMap { cpu in
            (try? String(contentsOfFile: "\(folder)/\(cpu)/cpufreq/scaling_governor", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        })
        if governors.isEmpty {
            return DoctorCheck(name: "cpu-governor", status: .ok, finding: "the CPU frequency governor is not exposed here (a virtual machine or container: the host decides)")
        }
        let names = governors.sorted().joined(separator: ", ")
        if governors == ["performance"] {
            return DoctorCheck(name: "cpu-governor", status: .ok, finding: "CPU frequency governor: performance")
        }
        return DoctorCheck(name: "cpu-governor", status: .warn,
                           finding: "CPU frequency governor: \(names): the clock may drop between periods and make a period late",
                           fix: "for a practice session: `sudo cpupower frequency-set -g performance` (Debian's linux-cpupower)")
    }

    // MARK: repeater's own files

    private func folders() -> [DoctorCheck] {
        [("sessions", SessionStore.stateFolder(environment: environment), "where sessions are kept"),
         ("config", Folders.config(environment), "midi.json and calibrations"),
         ("cache", Folders.cache(environment), "analyses of recordings")].map { name, path, purpose in
            if let problem = writeProblem(path) {
                return DoctorCheck(name: "folder-\(name)", status: .warn, finding: "\(path) (\(purpose)): \(problem)",
                                   fix: "make it writable for you (`mkdir -p '\(path)'`, check its owner), or set XDG_\(name == "sessions" ? "STATE" : name.uppercased())_HOME")
            }
            return DoctorCheck(name: "folder-\(name)", status: .ok, finding: "\(path) (\(purpose)) is writable")
        }
    }

    /// Why repeater could not write into `path` (nil: it can, or can create it).
    private func writeProblem(_ path: String) -> String? {
        var candidate = path
        var isDirectory: ObjCBool = false
        while !FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory) {
            candidate = (candidate as NSString).deletingLastPathComponent
            if candidate.isEmpty || candidate == "/" { break }
        }
        if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue {
            return "'\(candidate)' is a file, not a folder"
        }
        if access(candidate, W_OK) != 0 { return candidate == path ? "not writable" : "cannot be created ('\(candidate)' is not writable)" }
        return nil
    }

    private func midiBindings() -> DoctorCheck {
        let path = MIDIBindingStore.defaultPath(environment: environment)
        guard FileManager.default.fileExists(atPath: path) else {
            return DoctorCheck(name: "midi-json", status: .ok, finding: "\(path) is not there: the pedal has its default bindings")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            return DoctorCheck(name: "midi-json", status: .warn, finding: "\(path) cannot be read", fix: "check its permissions")
        }
        do {
            let bindings = try MIDIBindingStore.parse(data, shown: "'\(path)'")
            return DoctorCheck(name: "midi-json", status: .ok, finding: "\(path) is valid (\(bindings.count) learnt bindings)")
        } catch {
            return DoctorCheck(name: "midi-json", status: .warn, finding: error.message + " (`play --midi` refuses to start)",
                               fix: "fix the line named, or delete the file to go back to the default bindings")
        }
    }

    private func oscLibrary() -> DoctorCheck {
        var text = [CChar](repeating: 0, count: 32)
        lo_version(&text, Int32(text.count), nil, nil, nil, 0, nil, nil, nil)
        let version = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // What `--osc 0.0.0.0:PORT` would take by default: this computer's IPv4 networks.
        let networks = BoundSocket.networks(servedBy: [IPAddress(ipv4: 0)]).filter { !$0.address.isLoopback }
        let open = networks.isEmpty ? "this computer has no IPv4 network" : "--osc 0.0.0.0:PORT would take \(networks.map(\.description).joined(separator: ", "))"
        return DoctorCheck(name: "osc", status: .ok,
                           finding: "the OSC library (liblo \(version)) is present: --osc PORT listens on this computer only (127.0.0.1, ::1); \(open)")
    }

    // MARK: output

    /// The report as a table, one line a check, the fix under a line that has one.
    public static func text(_ report: Report) -> String {
        var lines = ["repeater doctor: can repeater play here?"]
        for check in report.checks {
            lines.append(check.status.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0) + check.finding)
            if let fix = check.fix { lines.append("      fix: " + fix) }
        }
        lines.append(report.playbackWorks
            ? "playback will work" + (report.checks.contains { $0.status == .warn } ? " (the warnings above are worth a look)" : "")
            : "playback will not work until what failed above is fixed")
        return lines.joined(separator: "\n")
    }

    public static func json(_ report: Report) -> String {
        var object: [String: Any] = [
            "playback_works": report.playbackWorks,
            "checks": report.checks.map { check -> [String: Any] in
                var entry: [String: Any] = ["name": check.name, "status": check.status.rawValue, "finding": check.finding]
                entry["fix"] = check.fix ?? NSNull()
                return entry
            },
        ]
        if let server = report.server {
            var entry: [String: Any] = ["name": server.name, "implementation": server.implementation, "sample_rate": server.sampleRate,
                                        "period_frames": server.periodFrames, "realtime": server.realtime]
            entry["output_latency_frames"] = server.outputLatencyFrames ?? NSNull()
            object["server"] = entry
        } else {
            object["server"] = NSNull()
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
