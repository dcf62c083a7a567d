// repeater-fuzz: the parsers and decoders that read what users and other programs send, as
// libFuzzer targets (`scripts/fuzz` builds this with -sanitize=fuzzer,address and runs each), and,
// built normally, a replayer for their corpora (the regression tests run every file found):
//
//   REPEATER_FUZZ_TARGET=time|command|session|osc|osc-packet|midi|midi-json|page  (libFuzzer build)
//   repeater-fuzz TARGET FILE…                                                (normal build: replay)
//
// A target may reject its input (that is what bad input gets); it must never crash, hang or
// leak, and what it accepts must hold together (checked with `check`).
import Foundation
import RepeaterEngine
import RepeaterKit
import RepeaterWeb

/// Feeds one input to one target.
func fuzz(target: String, _ data: Data) {
    let text = String(decoding: data, as: UTF8.self)
    switch target {
    case "time":
        if let time = try? TimeSpec(parsing: text) {
            let frame = time.frame(atRate: 48_000)
            check(frame >= 0, "a time before 0: \(time)")
        }
    case "command":
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            _ = try? ControlCommand(line: String(line))
        }
    case "session":
        if var session = try? Session.parse(data, shown: "'fuzz'") {
            // What parses writes back and parses to the same thing, once it knows its rate (as a
            // player sets it from the audio before it ever saves).
            if session.sampleRate == 0 { session.sampleRate = 48_000 }
            let again = try? Session.parse(Data(session.text.utf8), shown: "'fuzz'")
            check(again == session, "a session that does not round-trip")
        }
    case "osc":
        // A path and up to four arguments decoded from the bytes, as liblo would hand them over.
        var arguments: [OSCArgument] = []
        let bytes = Array(data)
        let path = String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
        var index = min(bytes.count, path.utf8.count + 1)
        while index < bytes.count, arguments.count < 4 {
            let tag = bytes[index]
            index += 1
            let chunk = bytes[min(index, bytes.count)..<min(index + 8, bytes.count)]
            index += 8
            var raw: UInt64 = 0
            for byte in chunk { raw = raw << 8 | UInt64(byte) }
            switch tag % 4 {
            case 0: arguments.append(.float(Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw)))))
            case 1: arguments.append(.int(Int(Int32(truncatingIfNeeded: raw))))
            case 2: arguments.append(.string(String(decoding: chunk, as: UTF8.self)))
            default: arguments.append(.other(Character(UnicodeScalar(UInt8(ascii: "a") + tag % 26))))
            }
        }
        _ = OSCRequest.decode(path: path, arguments: arguments)
    case "osc-packet":
        // A UDP packet as the OSC thread reads it: bundles split (bounded depth), messages decoded by
        // liblo, then the namespace.
        data.withUnsafeBytes { buffer in
            for message in OSCPacket.decode(buffer).messages { _ = OSCRequest.decode(path: message.path, arguments: message.arguments) }
        }
    case "midi":
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            if let message = MIDIMessage.decode(base, count: buffer.count) {
                check(buffer.count <= 3 && message.number < 128 && message.value < 128 && message.channel < 16, "a MIDI message out of range")
            }
        }
    case "midi-json":
        _ = try? MIDIBindingStore.parse(data, shown: "'fuzz'")
    case "page":
        // A practice page's WebSocket message (at most 4096 bytes reach the decoder).
        _ = try? PageMessage(decoding: Array(data.prefix(4096)))
    default:
        FileHandle.standardError.write(Data("repeater-fuzz: unknown target '\(target)'\n".utf8))
        exit(2)
    }
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        FileHandle.standardError.write(Data("repeater-fuzz: \(message())\n".utf8))
        abort()
    }
}

let fuzzTargets = ["time", "command", "session", "osc", "osc-packet", "midi", "midi-json", "page"]

#if REPEATER_LIBFUZZER
// SwiftPM links an executable's `main` to its @main type, so libFuzzer's own `main` is not used:
// `Replay.main` hands the command line to libFuzzer's driver instead.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

/// libFuzzer's archive wants this symbol too (its own `main` would call it).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let target = ProcessInfo.processInfo.environment["REPEATER_FUZZ_TARGET"] ?? "time"
    fuzz(target: target, bytes.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}
#endif

@main
struct Replay {
    static func main() {
        #if REPEATER_LIBFUZZER
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
        #else
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let target = arguments.first, fuzzTargets.contains(target) else {
            FileHandle.standardError.write(Data("usage: repeater-fuzz \(fuzzTargets.joined(separator: "|")) FILE…\n".utf8))
            exit(2)
        }
        for path in arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            fuzz(target: target, data)
        }
        print("replayed \(arguments.count - 1) inputs through \(target)")
        #endif
    }
}
