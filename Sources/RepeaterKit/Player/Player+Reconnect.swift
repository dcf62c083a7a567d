import CRepeaterSupport
import Foundation
import RepeaterEngine

extension Player {
    /// `--reconnect`: the session is saved; waits (polling twice a second, no spinning) for a server
    /// of the same name to answer, then resumes at the frame it stopped. q, `quit` and signals still
    /// end the run. Returns an exit code to end with, or nil to play on.
    func waitForServer(resuming state: Session) -> Int32? {
        let name = server?.name ?? options.serverName ?? ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"] ?? "default"
        output.event(PlayerEvent("server", note: "the JACK server '\(name)' went away: waiting for it to come back (q quits)") {
            $0.add("state", "gone")
            $0.add("frame", state.position)
        })
        resume(from: state)
        let gate = WaitingSink(output: output)
        while true {
            var fds = [pollfd(fd: repeater_signal_fd(), events: Int16(POLLIN), revents: 0)]
            if stdin.isOpen { fds.append(pollfd(fd: 0, events: Int16(POLLIN), revents: 0)) }
            _ = poll(&fds, nfds_t(fds.count), 500)
            if repeater_signal_take() != 0 { return 0 }
            if stdin.poll(into: gate) == .quit || gate.quit { return 0 }
            if JackServerProcess.isAnswering(name: name) { return nil }
        }
    }

    /// After the server went away: the next connection starts from `state` (the place it stopped,
    /// the loop, speed, pitch, volume, trainer), with the command line's other options.
    func resume(from state: Session) {
        var session = state
        session.audio = keeper.session.audio
        let plan = SessionPlan(audioPath: file.info.path, sessionPath: keeper.path, session: session)
        sound = plan.sound(commandLine: options.sound, given: [], trainer: nil)
        trainer = session.trainer
        transportMode = session.transport.flatMap { TransportMode(name: $0) } ?? .off
        if var configuration = try? sound.engineConfiguration(for: file.info) {
            configuration.chimeTempo = options.chime.tempo
            self.configuration = configuration
        }
        keeper.session.loop = session.loop
    }
}

/// Where commands go while the player waits for its JACK server: only quit does anything.
private final class WaitingSink: CommandSink {
    let output: Output
    private(set) var quit = false

    init(output: Output) { self.output = output }

    func submit(_ command: Command) -> Bool {
        if command.action == .quit {
            quit = true
            return true
        }
        reject("waiting for the JACK server to come back: only quit works now", source: command.source, reply: command.reply)
        return false
    }

    func reject(_ message: String, source: CommandSource, reply: (any ReplyChannel)?) {
        output.error(message, source: source)
        reply?.replyError(message)
    }
}
