import Foundation
import RepeaterKit
import RepeaterTestSupport
import Testing

/// `repeater doctor --json`, parsed: the exit code, the server object, and the checks by name.
private func doctor(_ arguments: [String], environment: [String: String] = [:], executable: String = repeaterPath,
                    prefix: [String] = []) throws -> (status: Int32, server: [String: Any]?, checks: [String: [String: Any]], stdout: String) {
    let scratch = ScratchDirectory()
    let outcome = try run(executable, prefix + ["doctor", "--json"] + arguments, environment: environment, in: scratch.path)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any], "\(outcome.stdout) \(outcome.stderr)")
    let list = object["checks"] as? [[String: Any]] ?? []
    let checks = Dictionary(list.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    #expect(object["playback_works"] as? Bool == (outcome.status == 0))
    return (outcome.status, object["server"] as? [String: Any], checks, outcome.stdout)
}

@Test("doctor without a server: jack fails with a fix, exit 1; the table says the same")
func doctorWithoutServer() throws {
    let result = try doctor(["--server", "repeater-doctor-absent"])
    #expect(result.status == 1)
    #expect(result.server == nil)
    let jack = try #require(result.checks["jack"])
    #expect(jack["status"] as? String == "fail")
    #expect((jack["finding"] as? String)?.contains("no JACK server 'repeater-doctor-absent' is running") == true, "\(jack)")
    // With no server at all the fix is to start one; with others running (the integration suites'
    // own, beside this test) it names them.
    let fix = jack["fix"] as? String ?? ""
    #expect(fix.contains("--start-server") || (fix.contains("pass --server repeater-") && jack["finding"] as? String ?? "" != ""), "\(jack)")
    for name in ["realtime-user", "jackd", "cpu-governor", "folder-sessions", "folder-config", "folder-cache", "midi-json", "osc"] {
        #expect(result.checks[name] != nil, "\(name) missing")
    }
    // The table: one line a check, each starting with its status, and the verdict last.
    let scratch = ScratchDirectory()
    let table = try run(repeaterPath, ["doctor", "--server", "repeater-doctor-absent"], in: scratch.path)
    #expect(table.status == 1)
    let lines = table.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == "repeater doctor: can repeater play here?")
    #expect(lines.contains { $0.hasPrefix("fail  no JACK server 'repeater-doctor-absent'") })
    #expect(lines.last == "playback will not work until what failed above is fixed")
}

@Test("doctor finds a broken midi.json and an unwritable cache folder, and names the file")
func doctorFiles() throws {
    let scratch = ScratchDirectory()
    let config = scratch.file("config")
    try FileManager.default.createDirectory(atPath: config + "/repeater", withIntermediateDirectories: true)
    try Data("{\"bindings\": [".utf8).write(to: URL(fileURLWithPath: config + "/repeater/midi.json"))
    try Data("not a folder".utf8).write(to: URL(fileURLWithPath: scratch.file("cache")))
    let result = try doctor(["--server", "repeater-doctor-absent"], environment: ["XDG_CONFIG_HOME": config, "XDG_CACHE_HOME": scratch.file("cache")])
    #expect(result.checks["midi-json"]?["status"] as? String == "warn")
    #expect((result.checks["midi-json"]?["finding"] as? String)?.contains("midi.json") == true, "\(result.checks["midi-json"] ?? [:])")
    #expect(result.checks["folder-cache"]?["status"] as? String == "warn")
    #expect((result.checks["folder-cache"]?["finding"] as? String)?.contains("is a file, not a folder") == true)
}

extension JackSuites {
    @Suite("repeater doctor against real servers") struct DoctorServerTests {
        @Test("doctor on a private jackd without -R: the server's rate, period and latency; real-time a warning; exit 0")
        func plainServer() throws {
            let server = try TestServer(realtime: false)
            let result = try doctor(["--server", server.name])
            #expect(result.status == 0, "\(result.stdout)")
            let facts = try #require(result.server)
            #expect(facts["name"] as? String == server.name)
            #expect(facts["sample_rate"] as? Int == 48000)
            #expect(facts["period_frames"] as? Int == 256)
            #expect(facts["realtime"] as? Bool == false)
            #expect((facts["implementation"] as? String)?.hasPrefix("jackd ") == true, "\(facts)")
            #expect(result.checks["jack"]?["status"] as? String == "ok")
            #expect((result.checks["jack"]?["finding"] as? String)?.contains("256 frames a period (5.3 ms)") == true, "\(result.checks["jack"] ?? [:])")
            #expect(result.checks["realtime-server"]?["status"] as? String == "warn")
            #expect((result.checks["realtime-server"]?["fix"] as? String)?.contains("-R") == true)
            // $JACK_DEFAULT_SERVER is honoured when --server is not given.
            let byEnvironment = try doctor([], environment: ["JACK_DEFAULT_SERVER": server.name])
            #expect(byEnvironment.status == 0)
            #expect((byEnvironment.checks["jack"]?["finding"] as? String)?.contains("$JACK_DEFAULT_SERVER") == true)
        }

        @Test("doctor on a real-time jackd (-R): the server runs real-time")
        func realtimeServer() throws {
            let server = try TestServer(realtime: true)
            let result = try doctor(["--server", server.name])
            #expect(result.status == 0, "\(result.stdout)")
            #expect(result.server?["realtime"] as? Bool == true)
            #expect(result.checks["realtime-server"]?["status"] as? String == "ok")
        }

        @Test("doctor under PipeWire's JACK (pw-jack): the server is PipeWire's, quantum 1024", .enabled(if: PipeWireServer.available, "pipewire cannot start on this machine"))
        func pipeWire() throws {
            let pipewire = try PipeWireServer()
            defer { pipewire.stop() }
            let result = try doctor([], environment: pipewire.environment, executable: "/usr/bin/pw-jack", prefix: [repeaterPath])
            #expect(result.status == 0, "\(result.stdout)")
            #expect((result.server?["implementation"] as? String)?.hasPrefix("PipeWire's JACK") == true, "\(result.server ?? [:])")
            #expect(result.server?["period_frames"] as? Int == 1024)
        }
    }
}
