/// Audio thread: hearing the part. The isolation and the equalizer work on the stretched output
/// before volume and pan (so both meters see them); an isolation other than `off` delays the sound
/// by its latency, which the ports report to JACK with the stretcher's, and which "A/B here", the
/// audible position and the clicks allow for.
extension Engine {
    /// Switches the isolation (crossfaded by the isolator); a mode this layout cannot do (a stereo
    /// mode on a mono file) is refused and reported.
    func isolate(_ mode: IsolationMode) {
        guard isolator.supports(mode), isolator.setMode(mode) else {
            post(.isolationRefused)
            return
        }
        isolationDelay = isolator.latencyFrames(for: mode)
        publishLatency()
        post(.isolation(delayFrames: isolationDelay))
    }

    /// Frames the isolation delays the sound by now (0 for `off`): an offline render skips them.
    public var isolationDelayFrames: Int { isolationDelay }

    /// Publishes what delays the sound: the stretcher's and the isolation's latency (the ports
    /// report their sum to JACK).
    func publishLatency() {
        status.processingLatency.store(stretchDelay &+ isolationDelay, ordering: .relaxed)
    }
}

extension IsolationMode: BitwiseCopyable {}
