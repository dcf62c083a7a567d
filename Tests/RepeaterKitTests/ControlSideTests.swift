import Foundation
import RepeaterEngine
import RepeaterKit
import RepeaterTestSupport
import Testing

@Suite("OSC namespace")
struct OSCRequestTests {
    @Test("every documented path decodes to its command; integers are taken where a float is expected", arguments: [
        ("/repeater/play", [OSCArgument](), OSCRequest.command(.play)), ("/repeater/pause", [], .command(.pause)),
        ("/repeater/toggle", [], .command(.toggle)), ("/repeater/seek", [.float(12.5)], .command(.seek(.seconds(12.5)))),
        ("/repeater/seek", [.int(3)], .command(.seek(.seconds(3)))), ("/repeater/a", [], .command(.setA(nil))),
        ("/repeater/a", [.float(1.5)], .command(.setA(.seconds(1.5)))), ("/repeater/b", [.int(2)], .command(.setB(.seconds(2)))),
        ("/repeater/b", [], .command(.setB(nil))),
        ("/repeater/loop", [.float(1), .int(2)], .command(.loop(LoopSpec(start: .seconds(1), end: .seconds(2))))),
        ("/repeater/loop/on", [], .command(.loopOn(true))), ("/repeater/loop/off", [], .command(.loopOn(false))),
        ("/repeater/loop/select", [.string("verse")], .command(.loopSelect("verse"))),
        ("/repeater/rate", [.float(0.75)], .command(.rate(0.75))), ("/repeater/rate", [.int(2)], .command(.rate(2))),
        ("/repeater/pitch", [.int(-3)], .command(.pitch(-3))), ("/repeater/volume", [.float(-6)], .command(.volume(Volume.gain(decibels: -6)))),
        ("/repeater/volume", [.int(0)], .command(.volume(1))), ("/repeater/pan", [.float(-0.5)], .command(.pan(-0.5))),
        ("/repeater/chime", [], .command(.chimeNow)), ("/repeater/save", [], .command(.save)), ("/repeater/quit", [], .command(.quit)),
        ("/repeater/subscribe", [], .subscribe(port: nil)), ("/repeater/subscribe", [.int(9001)], .subscribe(port: 9001)),
        ("/repeater/unsubscribe", [], .unsubscribe(port: nil)), ("/repeater/unsubscribe", [.int(9001)], .unsubscribe(port: 9001)),
    ])
    func decodes(path: String, arguments: [OSCArgument], request: OSCRequest) {
        #expect((try? OSCRequest.decode(path: path, arguments: arguments).get()) == request)
    }

    @Test("unknown paths, wrong types and values out of range are refused with a reason", arguments: [
        ("/repeater/jump", [OSCArgument](), "unknown OSC path /repeater/jump"), ("/other", [], "unknown OSC path"),
        ("/repeater/play", [.int(1)], "takes no arguments"), ("/repeater/seek", [], "takes one number"),
        ("/repeater/seek", [.string("1:00")], "takes one number"), ("/repeater/rate", [.float(9)], "out of range"),
        ("/repeater/rate", [.float(.nan)], "takes one number"), ("/repeater/pitch", [.float(25)], "out of range"),
        ("/repeater/loop", [.float(2), .float(1)], "A must be before B"), ("/repeater/loop", [.float(1)], "two numbers"),
        ("/repeater/loop/select", [.int(2)], "one string"), ("/repeater/volume", [.float(20)], "above the +12 dB"),
        ("/repeater/pan", [.float(2)], "out of range"), ("/repeater/subscribe", [.float(1.5)], "one integer"),
        ("/repeater/a", [.other("T")], "one number"),
    ])
    func refuses(path: String, arguments: [OSCArgument], reason: String) {
        guard case .failure(let error) = OSCRequest.decode(path: path, arguments: arguments) else {
            Issue.record("\(path) \(arguments) was accepted")
            return
        }
        #expect(error.message.contains(reason), "\(error.message)")
    }
}

@Suite("MIDI bindings file")
struct MIDIBindingStoreTests {
    @Test("learned bindings are written atomically, read back over the defaults, and replace what the message did")
    func roundTrip() throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("config/repeater/midi.json")
        let engine = Engine(.init(channelCount: 1))
        let store = try MIDIBindingStore(path: path, engine: engine)
        #expect(store.learned.isEmpty)
        store.bind(MIDIMessage(kind: .controlChange, channel: 3, number: 20, value: 127), to: .faster)
        store.bind(MIDIMessage(kind: .noteOff, channel: 0, number: 70, value: 0), to: .back)
        store.bind(MIDIMessage(kind: .controlChange, channel: 0, number: 64, value: 127), to: .chime)
        store.bind(MIDIMessage(kind: .controlChange, channel: 0, number: 20, value: 127), to: .slower)  // replaces
        guard case .success = store.save() else { Issue.record("save failed"); return }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\"format\": \"repeater-midi\""), "\(text)")
        let other = Engine(.init(channelCount: 1))
        let reread = try MIDIBindingStore(path: path, engine: other)
        #expect(reread.learned == store.learned)
        #expect(reread.learned.count == 3)
        // (Read into locals first: `#expect` would take the non-copyable table by value.)
        let actions = [MIDIMessage(kind: .controlChange, channel: 9, number: 20, value: 100),
                       MIDIMessage(kind: .noteOn, channel: 1, number: 70, value: 100),
                       MIDIMessage(kind: .controlChange, channel: 0, number: 64, value: 127),
                       MIDIMessage(kind: .controlChange, channel: 0, number: 65, value: 127)].map { other.midiBindings.action(for: $0) }
        #expect(actions == [.slower, .back, .chime, .abHere])  // the last one: a default kept
        #expect(MIDIBindingStore.defaultPath(environment: ["XDG_CONFIG_HOME": "/x/cfg", "HOME": "/h"]) == "/x/cfg/repeater/midi.json")
        #expect(MIDIBindingStore.defaultPath(environment: ["HOME": "/h"]) == "/h/.config/repeater/midi.json")
    }

    @Test("a broken bindings file is one line naming the file and the field", arguments: [
        ("{", "line 1, column 2"), ("[]", "is not a JSON object"), ("{\"bindings\": 3}", "\"bindings\" must be a list"),
        ("{\"bindings\": [{\"message\": \"sysex\", \"number\": 1, \"action\": \"chime\"}]}", "bindings[0].message must be"),
        ("{\"bindings\": [{\"message\": \"cc\", \"number\": 128, \"action\": \"chime\"}]}", "bindings[0].number must be a whole number"),
        ("{\"bindings\": [{\"message\": \"cc\", \"number\": 1, \"action\": \"fly\"}]}", "bindings[0].action must be one of"),
    ])
    func broken(text: String, reason: String) {
        do {
            _ = try MIDIBindingStore.parse(Data(text.utf8), shown: "'midi.json'")
            Issue.record("accepted")
        } catch {
            #expect(error.message.hasPrefix("MIDI bindings 'midi.json'"), "\(error.message)")
            #expect(error.message.contains(reason), "\(error.message)")
            #expect(!error.message.contains("\n"))
        }
    }
}

@Suite("Output")
struct OutputTests {
    @Test("an event a command caused carries its source last; the player's own events carry none")
    func eventJSON() {
        let event = PlayerEvent("a", source: .midi) { $0.add("frame", 48_000); $0.add("pos_s", 1.0) }
        #expect(event.json == #"{"event":"a","frame":48000,"pos_s":1,"source":"midi"}"#)
        #expect(PlayerEvent("wrap") { $0.add("count", 3) }.json == #"{"event":"wrap","count":3}"#)
    }

    @Test("stdout never blocks: with a reader that does not read, status lines replace each other and events stop at the bound, all counted; the next status line says so")
    func backPressure() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let writer = StdoutWriter(fd: fds[1], eventLimit: 100)
        let big = String(repeating: "x", count: 1000)
        let started = Date()
        for index in 0..<2000 {
            writer.eventLine("{\"event\":\"e\",\"n\":\(index),\"pad\":\"\(big)\"}")
            var status = JSONLine()
            status.add("n", index)
            writer.statusLine(status)
        }
        #expect(Date().timeIntervalSince(started) < 2, "the producer waited for the reader")
        let dropped = writer.dropped
        #expect(dropped.lines > 1000, "\(dropped)")
        #expect(dropped.events > 1000, "\(dropped)")
        // The reader comes back: what it gets is in order and the status line carries the counts.
        final class Collected: @unchecked Sendable { var data = Data() }
        let collected = Collected()
        let readEnd = fds[0]
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(readEnd, &buffer, buffer.count)
                if n <= 0 { break }
                collected.data.append(contentsOf: buffer[0..<n])
            }
        }
        reader.start()
        writer.finish(timeout: 5)
        close(fds[1])
        while !reader.isFinished { usleep(10_000) }
        let lines = String(decoding: collected.data, as: UTF8.self).split(separator: "\n")
        let numbers = lines.compactMap { line -> Int? in
            guard line.hasPrefix("{\"event\"") else { return nil }
            return Int(line.split(separator: ",")[1].dropFirst(4))
        }
        #expect(numbers == numbers.sorted(), "events out of order")
        #expect(numbers.count + dropped.events == 2000)
        #expect(lines.contains { $0.contains("\"dropped_lines\":") && $0.contains("\"dropped_events\":") }, "\(lines.suffix(3))")
        close(fds[0])
    }
}
