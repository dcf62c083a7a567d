import Foundation
import RepeaterEngine

/// Recording (`--record`) for one `repeater play` run: the take writer of each connection to JACK,
/// where takes go and how they are heard, and the input meters the status shows.
final class TakeWiring {
    private let options: PlayOptions
    private let sessionPath: String?
    private var recorders: [TakeRecorder] = []
    private var inputMeters: LevelMeters?
    private let noMeters = LevelMeters(channelCount: 0)

    init(options: PlayOptions, sessionPath: String?) {
        self.options = options
        self.sessionPath = sessionPath
    }

    /// Takes live beside the session (`song.json` → `song.takes/`); without a session, in a
    /// temporary folder the start event names.
    var folder: String {
        if let sessionPath { return URL(fileURLWithPath: sessionPath).standardized.deletingPathExtension().path + ".takes" }
        return NSTemporaryDirectory() + "repeater-takes-\(getpid())"
    }

    /// The take writer on its thread for this connection, and the dispatcher's take practice.
    func attach(_ dispatcher: Dispatcher, client: JackClient, capture: InputCapture) {
        let recorder = TakeRecorder(capture: capture, sampleRate: client.sampleRate)
        recorder.start()
        recorders.append(recorder)
        dispatcher.takePractice.recorder = recorder
        dispatcher.takePractice.ports = client
        dispatcher.takePractice.folder = folder
        dispatcher.takePractice.sessionFolder = sessionPath.map { URL(fileURLWithPath: $0).standardized.deletingLastPathComponent().path }
        dispatcher.takePractice.compare = options.compare
        dispatcher.takePractice.comparePan = options.comparePan
        dispatcher.takePractice.takesMax = options.takesMax
    }

    /// The input meters over the last status window.
    func inputLevels(_ capture: InputCapture) -> [ChannelLevel] {
        if inputMeters?.channelCount != capture.channelCount { inputMeters = LevelMeters(channelCount: capture.channelCount) }
        capture.meters.drain(pre: inputMeters!, post: noMeters)
        return inputMeters!.closeWindow(elapsed: 1 / max(0.1, options.statusHz))
    }

    /// Stops the take writers (the connection is going away).
    func stop() {
        for recorder in recorders { recorder.stop() }
        recorders.removeAll()
    }
}
