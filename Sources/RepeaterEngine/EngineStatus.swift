import Synchronization

/// What the audio thread publishes for the control thread. Each field is written by the audio thread
/// only (relaxed: independent values, read for display and for exit decisions that are confirmed
/// through `cycles`).
public struct EngineStatus: ~Copyable, Sendable {
    /// The source frame that the next rendered frame will come from.
    public let playheadFrame: Atomic<Int>
    /// The source frame the listener hears at the start of the last cycle (latency accounted for).
    public let audibleFrame: Atomic<Int>
    /// The loop in effect: A and B (source frames) and whether it is on.
    public let loopA = Atomic<Int>(0)
    public let loopB = Atomic<Int>(0)
    public let loopOn = Atomic<Bool>(false)
    /// Frames the stretcher delays the output by (0 in bypass): the ports report it to JACK.
    public let processingLatency = Atomic<Int>(0)
    /// A stretcher runs (or is being primed): fresh ones are made at the target ratios, else at 1.
    public let stretching = Atomic<Bool>(false)
    /// Rubber Band runs, is about to, or a change waits for it: its bursts want the render-ahead
    /// helper (the JACK binding renders in the callback while only cheap work is left: bypass, the
    /// resampler; see `EngineControls.renderAheadReady`).
    public let wantsRenderAhead = Atomic<Bool>(false)
    /// The loop cache (`LoopCacheState.rawValue`): off, filling a pass, or replaying it.
    public let loopCache = Atomic<Int>(0)
    /// Frames of output the loop cache wants to hold the next pass (0: nothing wanted), and what
    /// the one it has holds: the control thread makes a larger one (`LoopCacheSupply`).
    public let loopCacheWanted = Atomic<Int>(0)
    public let loopCacheCapacity = Atomic<Int>(0)
    /// Passes played from the loop cache.
    public let replayedPasses = Atomic<Int>(0)
    /// Passes completed through B.
    public let passes = Atomic<Int>(0)
    /// Completed `render` calls.
    public let cycles = Atomic<Int>(0)
    /// Frames rendered in total (silence included).
    public let renderedFrames = Atomic<Int>(0)
    /// Cycles in which the source was late and silence was output.
    public let underruns = Atomic<Int>(0)
    /// Blocks of an older read generation skipped after a seek.
    public let staleBlocks = Atomic<Int>(0)
    /// True while playing is asked for (it may still wait for the JACK transport).
    public let playing = Atomic<Bool>(true)
    /// The JACK transport as the audio thread last saw it (true when nobody tells it otherwise).
    public let transportRolling = Atomic<Bool>(true)
    /// MIDI events ignored: not a message repeater acts on (SysEx, real-time bytes, running status,
    /// truncated or garbage), or more in one cycle than fit.
    public let midiIgnored = Atomic<Int>(0)
    /// The cycle in which the last source frame was output, or -1.
    public let finishedCycle = Atomic<Int>(-1)
    /// Events that did not fit in the event ring (the control thread was not draining it).
    public let lostEvents = Atomic<Int>(0)
    /// Reader requests that did not fit in the request ring.
    public let lostRequests = Atomic<Int>(0)
    /// Clicks started (metronome and count-in).
    public let clicks = Atomic<Int>(0)

    public init(startFrame: Int) {
        playheadFrame = Atomic(startFrame)
        audibleFrame = Atomic(startFrame)
    }
}
