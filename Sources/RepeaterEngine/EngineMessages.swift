/// Where a command came from. Every event a command causes carries its source back, so that the
/// control thread can say who did what (`"source"` in JSON).
public enum CommandSource: UInt8, BitwiseCopyable, Sendable, CaseIterable {
    /// The player itself: start-up, a resumed session, the way out.
    case player
    case key, stdin, osc, midi, transport, trainer
    /// The practice page (`--web`).
    case web

    /// The name JSON uses, or nil for the player itself.
    public var name: String? { self == .player ? nil : "\(self)" }
}

/// A command and where it came from: what travels through the engine's command ring.
public struct SourcedCommand: BitwiseCopyable, Sendable, Equatable {
    public var command: EngineCommand
    public var source: CommandSource

    public init(_ command: EngineCommand, source: CommandSource = .player) {
        self.command = command
        self.source = source
    }
}

/// An event and the source of the command that caused it (`.player` for what happens by itself:
/// wraps, underruns, the end).
public struct SourcedEvent: BitwiseCopyable, Sendable, Equatable {
    public var event: EngineEvent
    public var source: CommandSource
}

/// Control → audio: events that must arrive in order and must not be lost. (Parameters where the
/// latest value wins travel as atomics in `EngineControls` instead.)
public enum EngineCommand: BitwiseCopyable, Sendable, Equatable {
    case play
    case pause
    /// Ends the initial hold (`Configuration.startsHeld`): playback begins, with no fade.
    case start
    case toggle
    /// Continue from this source frame (after a short fade out; the fade in follows).
    case seek(frame: Int)
    /// Seek to the loop start A.
    case seekToA
    /// Sets A and B (A < B) and turns the loop on.
    case setLoop(a: Int, b: Int)
    /// Sets A; `frame` nil means "the frame the listener hears now".
    case setA(frame: Int?)
    /// Sets B; `frame` nil means "the frame the listener hears now".
    case setB(frame: Int?)
    case loopEnabled(Bool)
    /// Silence inserted before each repetition.
    case gap(frames: Int)
    /// Strike the minute repeater for h:m (refused while one sounds).
    case chime(hour: Int, minute: Int)
    /// "A/B here" in turn, as a foot pedal does it: the first press sets A, the second sets B and
    /// turns the loop on, the next turns the loop off and clears A and B.
    case abHere
    /// A count-in of `beats` clicks, `periodFrames` source frames apart, before each repetition and
    /// when playing starts at A (0 beats: none). The gap before a repetition grows to hold it.
    case countIn(beats: Int, periodFrames: Int)
    /// At the next wrap (at B), go on to the loop A…B instead of repeating the current one, after
    /// the current gap; from then on the gap is `gapFrames`. A drill moves to its next line so.
    case setLoopAtWrap(a: Int, b: Int, gapFrames: Int)
    /// Hear a take (a `TakeAudio` handed over, as bits) beside the recording, from the next pass
    /// (`atGap`: in the gaps after each pass, a drill's answer); `pan` 0…1 separates them in `both`.
    case compare(take: UInt, mode: TakeCompare, atGap: Bool, pan: Float)
    /// Back to the recording alone.
    case compareOff
    /// At the next wrap, end (the source ends there): a drill's last pass.
    case finishAtWrap
    /// Forget a loop or an end queued for the next wrap.
    case cancelAtWrap
    /// Hearing the part: what the isolation lets through (a switch is crossfaded).
    case isolate(IsolationMode)
    /// The equalizer's gains in dB (ramped over 20 ms).
    case equalize(lowDB: Double, midDB: Double, highDB: Double)
}

/// Audio → disk reader: where the block stream must continue, and which loop heads to cache.
public enum ReaderRequest: BitwiseCopyable, Sendable, Equatable {
    /// Read from `frame` on, tagging blocks with `generation`.
    case seek(frame: Int, generation: UInt32)
    /// Fill head-cache `slot` with up to `frameCount` frames from `frame` and answer `HeadLoaded`.
    case loadHead(frame: Int, frameCount: Int, slot: Int)
}

/// Why the engine refused a command.
public enum EngineRefusal: BitwiseCopyable, Sendable, Equatable {
    /// A would not be before B (the frame it resolved to is given with the event).
    case aNotBeforeB
    /// B would not be after A.
    case bNotAfterA
}

/// Audio → control: things that happened, in order.
public enum EngineEvent: BitwiseCopyable, Sendable, Equatable {
    /// The last source frame has been written to the outputs in cycle `cycle`; silence starts at
    /// output frame `outputFrame` (counted over all cycles).
    case finished(frame: Int, cycle: Int, outputFrame: Int)
    /// A seek took effect at this source frame.
    case seeked(frame: Int)
    /// The source had no data in time; silence was output from this source frame.
    case underrun(frame: Int)
    /// The loop in effect changed: A, B (source frames, A < B), on or off.
    case loop(a: Int, b: Int, enabled: Bool)
    /// Playback wrapped: after source frame `from - 1` came `to` (after the gap, if any), at output
    /// frame `outputFrame`. `count` is the number of completed passes.
    case wrap(count: Int, from: Int, to: Int, outputFrame: Int)
    /// A pass of the loop starts: source frame `frame` (A) is output at `outputFrame` (after the
    /// gap, when there is one; the first pass when playback starts or seeks to A with the loop on).
    /// Output frames here and in `wrap` are the engine's, before the isolation's delay.
    case passStarted(frame: Int, outputFrame: Int)
    /// A "here" command resolved to this source frame.
    case pointSet(isB: Bool, frame: Int)
    /// A command was refused; nothing changed.
    case refused(EngineRefusal, frame: Int)
    /// A chime started (its first strike is at the first frame of this cycle).
    case chimeStarted(hour: Int, minute: Int, strikes: Int)
    /// The last strike of the chime has died away.
    case chimeEnded
    /// A chime was asked for while one sounds: refused, not queued.
    case chimeBusy
    /// Play (true) or pause (false) was asked for.
    case playing(Bool)
    /// The JACK transport started (true) or stopped rolling, seen in the cycle it happened
    /// (reported while the engine follows the transport).
    case transport(rolling: Bool)
    /// The isolation switched; the sound is now delayed by this many frames.
    case isolation(delayFrames: Int)
    /// An isolation the file's channels cannot do (the dispatcher checks first: should not happen).
    case isolationRefused
    /// The loop cache changed state (`Engine+LoopCache.swift`), and why.
    case loopCache(LoopCacheState, LoopCacheReason)
}
