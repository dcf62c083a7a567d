// repeater-capture: a small JACK client for the integration tests (and for trying things by hand).
//
//   repeater-capture --server NAME --ports N --out FILE.wav [--seconds MAX] [--name NAME]
//
// Registers in_1 … in_N, prints "ready" on stdout once active, records every cycle into memory
// allocated up front, and on SIGTERM/SIGINT (or when MAX seconds are full) writes a 32-bit float
// WAV of everything it received and exits 0.
import CRepeaterSupport
import Foundation
import RepeaterKit

var serverName: String?
var clientName = "capture"
var portCount = 2
var outputPath = ""
var seconds = 60.0
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let name = arguments.removeFirst()
    let value = arguments.isEmpty ? "" : arguments.removeFirst()
    switch name {
    case "--server": serverName = value
    case "--name": clientName = value
    case "--ports": portCount = Int(value) ?? 2
    case "--out": outputPath = value
    case "--seconds": seconds = Double(value) ?? 60
    default:
        Console.error("repeater-capture: unknown option \(name)")
        exit(2)
    }
}
guard !outputPath.isEmpty else {
    Console.error("repeater-capture needs --out FILE")
    exit(2)
}

do throws(RepeaterError) {
    _ = repeater_signals_install()
    let capture = try CaptureClient(clientName: clientName, serverName: serverName, portCount: portCount, seconds: seconds)
    Console.writeOut("ready \(capture.clientName)\n")
    while repeater_signal_take() == 0 && !capture.isFull && !capture.serverGone {
        var fd = pollfd(fd: repeater_signal_fd(), events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, 50)
    }
    try capture.finish(writingTo: outputPath)
    exit(0)
} catch {
    Console.error(error.message)
    exit(error.exitCode)
}
