import Synchronization

/// Control → audio parameters where the latest value wins (relaxed atomics: each is independent).
public struct EngineControls: ~Copyable, Sendable {
    /// Frames between the engine's output and the listener (JACK's playback latency downstream):
    /// "A here" and the audible position subtract it.
    public let latencyFrames = Atomic<Int>(0)
    /// Frames the engine renders ahead of the ports (the JACK binding's render-ahead FIFO): "A here"
    /// subtracts them too. Written by whoever renders.
    public let aheadFrames = Atomic<Int>(0)
    /// Rubber Band may start: the engine renders on the render-ahead helper, periods ahead (or has
    /// no helper: offline, a server without real-time scheduling). Cleared by the JACK binding while
    /// the callback renders for itself; the engine then defers starting a stretcher (and says so in
    /// `EngineStatus.wantsRenderAhead`) until the helper has taken over. Written by whoever renders.
    public let renderAheadReady = Atomic<Bool>(true)
    /// The disk reader's wake-up (the address of its semaphore, 0: none): the JACK binding posts it
    /// when the engine has asked the reader something, so the reader can sleep long otherwise.
    public let readerWake = Atomic<UInt>(0)
    /// The control thread's wake-up (an eventfd, -1: none) and whether it sleeps on it: the JACK
    /// binding posts it after a render that handed the control thread something
    /// (`Engine.takeControlWork`), so the control thread sleeps until then or its next status.
    public let controlWake = Atomic<Int32>(-1)
    public let controlAsleep = Atomic<Bool>(false)
    /// A loop at a steady speed replays its stretched pass from memory (`--loop-cache`).
    public let loopCacheOn = Atomic<Bool>(true)
    /// Playback speed (1: as recorded; 0.8: 80 %).
    public let speed = Atomic<Double>(1)
    /// Pitch shift in semitones.
    public let pitchSemitones = Atomic<Double>(0)
    /// The gains of output channels 0 and 1 as two Float bit patterns in one word (`Engine.packGains`),
    /// set through `Engine.setLevel`: one atomic, so the pair is never torn.
    public let gains = Atomic<UInt64>(0x3F80_0000_3F80_0000)
    /// Volume (linear) and pan as last set, for display (the audio thread reads `gains`).
    public let volume = Atomic<Double>(1)
    public let pan = Atomic<Double>(0)
    /// How the engine treats the JACK transport (`TransportMode.rawValue`).
    public let transportMode = Atomic<UInt8>(TransportMode.off.rawValue)
    /// MIDI learn: while true the audio thread acts on no MIDI message and reports every one.
    public let midiLearning = Atomic<Bool>(false)
    /// The metronome clicks on the beats of the beat table.
    public let clickOn = Atomic<Bool>(false)
    /// Clicks (metronome and count-in) are mixed into the first two outputs too, not only the click port.
    public let clickMix = Atomic<Bool>(false)
    /// The note view reads `Engine.tap`: the audio thread writes it only while this is on.
    public let tapOn = Atomic<Bool>(false)
    /// "A/B here" snaps to the beat table: 0 no, 1 the nearest beat, 2 the nearest bar's first beat.
    public let snap = Atomic<UInt8>(0)

    public init() {}
}

/// How repeater treats the JACK transport.
public enum TransportMode: UInt8, Sendable, CaseIterable {
    /// Ignore it.
    case off
    /// Play while it rolls, pause (with the usual fade) while it is stopped.
    case follow
    /// Start and stop it with repeater's own play/pause, and follow it.
    case drive

    public var name: String { "\(self)" }

    public init?(name: String) {
        guard let mode = TransportMode.allCases.first(where: { $0.name == name }) else { return nil }
        self = mode
    }
}
