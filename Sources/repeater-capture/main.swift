// repeater-capture: small JACK clients for the integration tests (and for trying things by hand).
//
//   repeater-capture --server NAME --ports N --out FILE.wav [--seconds MAX] [--name NAME] [--log FILE]
//
// Registers in_1 … in_N, prints "ready" on stdout once active, records every cycle into memory
// allocated up front, and on SIGTERM/SIGINT (or when MAX seconds are full) writes a 32-bit float
// WAV of everything it received and exits 0. With --log it also writes "first-frame T" (the JACK
// frame time of the first recorded frame) and one "transport FRAME 0|1" line per change of the JACK
// transport, FRAME counted in the recording, and one "gap FRAME N" line wherever the server ran N
// frames without calling this client (its frame time jumped: a cycle the graph skipped it in), one
// "xrun FRAME" line per xrun the server reported (FRAME: where recording was, within a cycle or
// two), and "windows N K": of N windows of 0.1 s, K had a cycle in which this client's own
// callback took a whole period (an idle client's figure, to set a player's beside).
//
//   repeater-capture --midi-send --server NAME --to PORT [--name NAME]
//
// A foot pedal: one MIDI output, connected to PORT; each stdin line "OFFSET B0 B1 [B2]" (hex bytes)
// goes out in the next cycle at frame OFFSET, and "sent T" (its JACK frame time) is printed.
//
//   repeater-capture --write-ramp FILE SECONDS
//   repeater-capture --ramp-report CAPTURE.wav --log CAPTURE.log --events PLAYER.jsonl
//
// The stereo ramp the loop checks play, and what a capture of it looping got (RampReport.swift).
//
//   repeater-capture --delay FRAMES --server NAME [--name NAME] [--ports N]
//
// A delay line: in_k comes out of out_k FRAMES later, and the ports report that latency (the
// recording tests' round trip). Prints "ready" and runs until SIGTERM/SIGINT, or until the server
// shuts down (then exit 1, with why).
//
//   repeater-capture --count-xruns SECONDS --server NAME
//
// An idle client that counts the server's xruns for SECONDS and prints "xruns N" (the benchmark's
// baseline).
import CRepeaterSupport
import Foundation
import RepeaterKit

var serverName: String?
var clientName = "capture"
var portCount = 2
var outputPath = ""
var logPath: String?
var seconds = 60.0
var midiSend = false
var countXruns: Double?
var delayFrames: Int?
var destination = ""
var rampOut: (path: String, seconds: Double)?
var reportPath: String?
var eventsPath = ""
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let name = arguments.removeFirst()
    if name == "--midi-send" {
        midiSend = true
        continue
    }
    let value = arguments.isEmpty ? "" : arguments.removeFirst()
    switch name {
    case "--server": serverName = value
    case "--name": clientName = value
    case "--ports": portCount = Int(value) ?? 2
    case "--out": outputPath = value
    case "--log": logPath = value
    case "--seconds": seconds = Double(value) ?? 60
    case "--to": destination = value
    case "--count-xruns": countXruns = Double(value) ?? 10
    case "--delay": delayFrames = Int(value) ?? 0
    case "--write-ramp": rampOut = (value, Double(arguments.isEmpty ? "60" : arguments.removeFirst()) ?? 60)
    case "--ramp-report": reportPath = value
    case "--events": eventsPath = value
    default:
        Console.error("repeater-capture: unknown option \(name)")
        exit(2)
    }
}

@MainActor func runSender() throws(RepeaterError) -> Never {
    let sender = try MIDISendClient(clientName: clientName, serverName: serverName)
    guard sender.connect(to: destination) else { throw RepeaterError(.failure, "midi-send: cannot connect to \(destination)") }
    Console.writeOut("ready \(sender.clientName)\n")
    var pending: [UInt8] = []
    var open = true
    while open && repeater_signal_take() == 0 {
        var fds = [pollfd(fd: repeater_signal_fd(), events: Int16(POLLIN), revents: 0), pollfd(fd: 0, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 2, 10)
        if fds[1].revents != 0 {
            var buffer = [UInt8](repeating: 0, count: 1024)
            let count = read(0, &buffer, buffer.count)
            if count <= 0 { open = false } else { pending += buffer[0..<count] }
            while let newline = pending.firstIndex(of: 10) {
                let words = String(decoding: pending[..<newline], as: UTF8.self).split(separator: " ")
                pending.removeSubrange(...newline)
                guard let offset = words.first.flatMap({ Int($0) }) else { continue }
                sender.send(words.dropFirst().compactMap { UInt8($0, radix: 16) }, offset: offset)
            }
        }
        for time in sender.sentTimes() { Console.writeOut("sent \(time)\n") }
    }
    usleep(50_000)
    for time in sender.sentTimes() { Console.writeOut("sent \(time)\n") }
    sender.close()
    exit(0)
}

do throws(RepeaterError) {
    if let rampOut {
        do { try writeRampFile(path: rampOut.path, seconds: rampOut.seconds) } catch { throw RepeaterError(.failure, "\(error)") }
        exit(0)
    }
    if let reportPath {
        do {
            Console.writeOut(try rampReport(capturePath: reportPath, logPath: logPath ?? "", eventsPath: eventsPath))
        } catch { throw RepeaterError(.failure, "ramp report: \(error)") }
        exit(0)
    }
    _ = repeater_signals_install()
    if midiSend { try runSender() }
    if let delayFrames {
        let delay = try DelayClient(clientName: clientName, serverName: serverName, channelCount: portCount, delayFrames: delayFrames)
        Console.writeOut("ready \(delay.clientName)\n")
        while repeater_signal_take() == 0 && !delay.serverGone {
            var fds = [pollfd(fd: repeater_signal_fd(), events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, 200)
        }
        let gone = delay.serverGone
        delay.close()
        if gone {
            Console.error("repeater-capture: the JACK server '\(serverName ?? "default")' shut down: the delay client leaves")
            exit(1)
        }
        exit(0)
    }
    if let seconds = countXruns {
        let counter = try XrunCounter(clientName: clientName, serverName: serverName)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && repeater_signal_take() == 0 { usleep(50_000) }
        Console.writeOut("xruns \(counter.count)\n")
        counter.close()
        exit(0)
    }
    guard !outputPath.isEmpty else {
        Console.error("repeater-capture needs --out FILE")
        exit(2)
    }
    let capture = try CaptureClient(clientName: clientName, serverName: serverName, portCount: portCount, seconds: seconds)
    Console.writeOut("ready \(capture.clientName)\n")
    while repeater_signal_take() == 0 && !capture.isFull && !capture.serverGone {
        var fd = pollfd(fd: repeater_signal_fd(), events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, 50)
    }
    let changes = capture.transportChanges
    let gaps = capture.frameTimeGaps
    let first = capture.firstFrame
    let xruns = capture.xruns
    let xrunPositions = capture.xrunPositions
    let windows = capture.callbackWindows
    try capture.finish(writingTo: outputPath)
    if let logPath {
        let text = "first-frame \(first)\nxruns \(xruns)\n" + changes.map { "transport \($0.frame) \($0.rolling ? 1 : 0)\n" }.joined()
            + gaps.map { "gap \($0.frame) \($0.frames)\n" }.joined() + xrunPositions.map { "xrun \($0)\n" }.joined()
            + "windows \(windows.count) \(windows.over)\n"
        _ = FileManager.default.createFile(atPath: logPath, contents: Data(text.utf8))
    }
    exit(0)
} catch {
    Console.error(error.message)
    exit(error.exitCode)
}
