import Foundation
import RepeaterEngine
import RepeaterKit

/// The practice page as a sink: every page gets what the JSON lines carry (the status, with
/// `mono_ms`, the player's monotonic clock when it was taken, so that the page can move its
/// playhead smoothly from position, speed and time; the events; the errors), the notes, and the
/// document (the lists the status does not carry) whenever it changes. It encodes once and posts to
/// the server's mailboxes: the control thread never waits on a page.
final class PageFeed: OutputSink {
    private let server: WebServer
    private var lastDocument: PracticeDocument?
    private var lastPeaksDone = false
    private let info: () -> (file: AudioFileInfo?, peaks: PeakState)

    /// How far the peaks are.
    struct PeakState: Equatable {
        var ready: Bool
        var buckets: Int
    }

    init(server: WebServer, info: @escaping () -> (file: AudioFileInfo?, peaks: PeakState)) {
        self.server = server
        self.info = info
    }

    func status(_ snapshot: StatusSnapshot, force: Bool) {
        guard server.clientCount.load(ordering: .relaxed) > 0 || force else { return }
        var line = JSONSink.statusLine(snapshot)
        line.add("mono_ms", RateLimit.now() * 1000)
        server.publish(status: Array(line.text.utf8))
    }

    func event(_ event: PlayerEvent) { server.publish(event: Array(event.json.utf8)) }

    func note(_ text: String) {
        var line = JSONLine()
        line.add("note", text)
        server.publish(event: Array(line.text.utf8))
    }

    func error(_ text: String, source: CommandSource) {
        server.publish(event: Array(PlayerEvent("error", source: source) { $0.add("message", text) }.json.utf8))
    }

    /// The document, if it (or the peaks' readiness) changed since the last.
    func update(_ document: PracticeDocument) {
        let (file, peaks) = info()
        guard let file, document != lastDocument || peaks.ready != lastPeaksDone else { return }
        lastDocument = document
        lastPeaksDone = peaks.ready
        server.publish(document: Array(Self.encode(document, file: file, peaks: peaks).utf8))
    }

    /// `{"document": {...}}`: the file, the peaks' shape, the map's beats and bars, the lines, the
    /// named loops, the takes and the keys (frames of the file).
    static func encode(_ document: PracticeDocument, file: AudioFileInfo, peaks: PeakState) -> String {
        var line = JSONLine()
        line.add("file", (file.path as NSString).lastPathComponent)
        line.add("sample_rate", file.sampleRate)
        line.add("frames", file.frameCount)
        line.add("channels", file.channelCount)
        var peakFields = JSONLine()
        peakFields.add("ready", peaks.ready)
        peakFields.add("buckets", peaks.buckets)
        line.addRaw("peaks", peakFields.text)
        line.addRaw("beats", "[" + document.beatFrames.map(String.init).joined(separator: ",") + "]")
        line.addRaw("downbeats", "[" + document.downbeatFrames.map(String.init).joined(separator: ",") + "]")
        line.addRaw("lines", "[" + document.lines.map { "[\($0.startFrame),\($0.endFrame),\(JSONLine.quote($0.text))]" }.joined(separator: ",") + "]")
        line.addRaw("loops", "[" + document.loops.map { loop in
            var fields = JSONLine()
            fields.add("name", loop.name)
            fields.add("a", loop.start)
            fields.add("b", loop.end)
            return fields.text
        }.joined(separator: ",") + "]")
        line.addRaw("takes", "[" + document.takes.map { take in
            var fields = JSONLine()
            fields.add("number", take.number)
            fields.add("kind", take.kind.rawValue)
            fields.add("pass", take.pass)
            if let number = take.line { fields.add("line", number) }
            fields.add("a", take.startFrame)
            fields.add("b", take.endFrame)
            fields.add("speed", take.speed)
            fields.add("kept", take.kept)
            fields.add("recorded", take.recorded)
            return fields.text
        }.joined(separator: ",") + "]")
        line.add("keys", KeyMap.help)
        return "{\"document\":\(line.text)}"
    }
}

