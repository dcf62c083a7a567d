/// The real-time engine: pulls tagged source frames from the disk reader's `BlockRing` (and from
/// the loop-head cache at a wrap), follows the control thread's commands, and writes one output
/// buffer per channel.
///
/// Everything in `render` runs on the audio thread (JACK's process callback, or the offline renderer
/// standing in for it): it never allocates, locks, blocks or prints. All memory is set up in `init`.
/// Thread roles of the members:
/// - `blocks`, `headLoaded`: produced by the disk reader, consumed here;
/// - `commands`, `controls`: produced by the control thread, consumed here;
/// - `readerRequests` (and `heads`, by hand-over): produced here, consumed by the disk reader;
/// - `events`, `status`: produced here, read by the control thread.
///
/// Source-side files: `Engine+Source.swift` (ring and head reads, seam fades), `Engine+Loop.swift`
/// (A/B, wraps, the head-cache protocol).
public final class Engine: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Channels in the source.
        public var channelCount: Int
        /// Output ports: the source's channels, or 2 for a mono source played to a stereo pair
        /// (0: the same as `channelCount`).
        public var outputChannelCount = 0
        /// Frames in the source (the default B, "end").
        public var sourceFrameCount: Int
        /// The source frame playback starts at (the disk reader must start there too, generation 0).
        public var startFrame: Int
        public var blockFrames: Int
        /// A power of two.
        public var blockCount: Int
        /// Length of the fade used for pause, resume, seek and recovery from an underrun.
        public var declickFrames: Int
        /// Frames from A kept in each loop-head slot (about 2 s).
        public var headFrames: Int
        /// The loop at start (A < B), if any; it is on.
        public var loop: (a: Int, b: Int)?
        /// Silence before each repetition.
        public var gapFrames: Int
        /// Crossfade across the loop seam (0: exact splice).
        public var seamFadeFrames: Int
        /// Stop after this many passes through B (0: loop forever).
        public var maxPasses: Int
        /// Output silence without consuming anything until `.start` (the player connects its ports
        /// first, so that the first frame reaches them).
        public var startsHeld = false
        /// The output sample rate (the chime's schedule; resampling when it differs from the source's).
        public var sampleRate: Int
        /// The source's sample rate (0: the same as the output's).
        public var sourceSampleRate: Int
        /// Scales every interval of the chime (1: the standard spacing).
        public var chimeTempo: Double
        /// Frames a fresh stretcher may be fed per cycle while it is pre-rolled or primed (at least
        /// twice the cycle); the offline renderer gives it all at once.
        public var prerollFramesPerCycle = 0
        /// Volume (linear) and pan at the start: in effect from the first frame, no ramp.
        public var volume = 1.0
        public var pan = 0.0
        /// `render` writes one more buffer after the outputs: the metronome's and count-in's port.
        public var clickPort = false
        /// The loop cache (`Engine+LoopCache.swift`) at the start (`EngineControls.loopCacheOn`), and
        /// the most memory a kept pass may take: a longer one plays live.
        public var loopCache = true
        public var loopCacheBytes = 64 << 20
        /// Hearing the part at the start: the isolation and the equalizer's gains (dB), in effect
        /// from the first frame.
        public var isolation = IsolationMode.off
        public var equalizer = (lowDB: 0.0, midDB: 0.0, highDB: 0.0)

        /// Source frames per output frame at speed 1 (1 when the rates match).
        public var baseRate: Double { sourceSampleRate > 0 ? Double(sourceSampleRate) / Double(sampleRate) : 1 }

        public init(channelCount: Int, sourceFrameCount: Int = Int.max / 4, startFrame: Int = 0,
                    blockFrames: Int = 2048, blockCount: Int = 64, declickFrames: Int = 256,
                    headFrames: Int = 96_000, loop: (a: Int, b: Int)? = nil, gapFrames: Int = 0,
                    seamFadeFrames: Int = 0, maxPasses: Int = 0, sampleRate: Int = 48_000, sourceSampleRate: Int = 0,
                    chimeTempo: Double = 1) {
            self.channelCount = channelCount
            self.sourceFrameCount = sourceFrameCount
            self.startFrame = startFrame
            self.blockFrames = blockFrames
            self.blockCount = blockCount
            self.declickFrames = declickFrames
            self.headFrames = headFrames
            self.loop = loop
            self.gapFrames = gapFrames
            self.seamFadeFrames = seamFadeFrames
            self.maxPasses = maxPasses
            self.sampleRate = sampleRate
            self.sourceSampleRate = sourceSampleRate
            self.chimeTempo = chimeTempo
        }
    }

    public let configuration: Configuration
    public let channelCount: Int
    /// Output ports: `channelCount`, or 2 for a mono source panned to two ports.
    public let outputChannelCount: Int
    /// Buffers `render` writes: the outputs, then the click port when there is one.
    public var renderChannelCount: Int { outputChannelCount + (configuration.clickPort ? 1 : 0) }
    public let blocks: BlockRing
    public let heads: LoopHeadCache
    public let commands = SPSCRing<SourcedCommand>(capacity: 256)
    public let readerRequests = SPSCRing<ReaderRequest>(capacity: 256)
    public let headLoaded = SPSCRing<HeadLoaded>(capacity: 16)
    public let events = SPSCRing<SourcedEvent>(capacity: 16_384)  // a 1-frame loop wraps every frame
    public let status: EngineStatus
    public let controls = EngineControls()
    /// Control → audio: primed stretchers, ready to take over (pointers to `Stretcher`, as bits).
    public let freshStretchers = SPSCRing<UInt>(capacity: 4)
    /// Audio → control: stretchers done with, for the control thread to free.
    public let usedStretchers = SPSCRing<UInt>(capacity: 4)
    public let gongs: GongBank
    /// Audio → control: level measurements per period, pre and post fader (lossless, tear-free).
    public let meters: MeterRing
    /// Which MIDI message does what (control writes, audio reads).
    public let midiBindings = MIDIBindings()
    /// Audio → control: MIDI presses and what became of them (Engine+Control.swift).
    public let midiReports = SPSCRing<MIDIReport>(capacity: 256)
    /// The metronome's sounds.
    public let clicks: ClickBank
    /// Audio → analysis: a mono copy of what is heard, while `controls.tapOn` (the note view).
    public let tap = TapRing(capacity: 1 << 16)
    /// Control → audio: beat tables to click on (pointers to `BeatTable`, as bits).
    public let beatTables = SPSCRing<UInt>(capacity: 4)
    /// Audio → control: beat tables done with, for the control thread to free.
    public let usedBeatTables = SPSCRing<UInt>(capacity: 4)
    /// Audio → control: takes no longer played (pointers to `TakeAudio`, as bits), to be freed.
    public let usedTakes = SPSCRing<UInt>(capacity: 8)
    /// Control → audio: buffers to keep a pass in (pointers to `LoopCache`, as bits).
    public let freshLoopCaches = SPSCRing<UInt>(capacity: 4)
    /// Audio → control: loop caches done with, to be freed.
    public let usedLoopCaches = SPSCRing<UInt>(capacity: 4)

    // ---- audio-thread state (internal: shared by the Engine+… files) ----
    var playhead: Int
    var generation: UInt32 = 0
    /// Something was handed to the control thread (an event, a MIDI report, a buffer given back, a
    /// request for memory) that it has not been woken for yet (`takeControlWork`).
    var controlWorkPending = false
    /// Storage slot of the ring block being read, or -1.
    var currentSlot = -1
    var currentTag = BlockTag(startFrame: 0, frameCount: 0, generation: 0)
    var offsetInBlock = 0
    var sourceEnded = false
    /// A seek was passed to the reader and its first block has not arrived: silence, not an underrun.
    var awaitingSeekData = false
    var finishedReported = false
    var wantPlaying = true
    var held: Bool
    var pendingSeek = -1
    /// The source of the command that asked for `pendingSeek`.
    var seekSource = CommandSource.player
    /// Gain of the declick ramp, in steps of 1/declickFrames: 0 = silent, declickFrames = unity.
    var rampPosition: Int
    var cycle = 0
    var renderedFrames = 0
    /// Frames of the current cycle already rendered (MIDI events split a cycle into spans).
    var cycleOffset = 0
    var log = OutputLog(capacity: 1024)

    // loop
    var loopOn = false
    /// A in effect (its head is cached, or nothing is cached at all).
    var loopA = 0
    /// A asked for; becomes `loopA` when its head is cached.
    var requestedA = 0
    var loopB: Int
    var gapFrames: Int
    var gapRemaining = 0
    var passes = 0
    /// A loop to go on to at the next wrap (`queueLoop`; -1: none), its B and the gap after it.
    var queuedA = -1
    var queuedB = 0
    var queuedGap = 0
    /// End at the next wrap.
    var finishQueued = false

    // loop-head cache bookkeeping: slot → first source frame (-1: empty or loading) and length
    let slotFrame: UnsafeMutablePointer<Int>
    let slotCount: UnsafeMutablePointer<Int>
    var loadInFlight = false
    /// The head slot being read, or -1 (reading the ring).
    var headActive = -1
    var headStart = 0
    var headCount = 0
    /// The frame the ring was re-aimed at and nothing consumed since, or -1.
    var ringParkedAt = -1

    // seam crossfade: the continuation after B fades out while A fades in
    let seamTail: UnsafeMutablePointer<Float>
    var tailPosition: Int
    var fadeInPosition: Int

    // speed and pitch (Engine+Stretch.swift)
    /// Where the output comes from.
    var phase = StretchPhase.direct
    /// The pulled stream (after wraps and gaps), by stream index, while a stretcher runs or is prepared.
    let stream: StreamRing
    /// Stream index → source frame, for the stream in the ring (the output log's counterpart).
    var streamLog = OutputLog(capacity: 1024)
    /// The stream index the next pulled frame gets.
    var streamEnd = 0
    /// Raw phases through the ring: the stream index of the next output frame.
    var outCursor = 0
    /// The running stretcher, or nil (bypass).
    var stretcher: UnsafeMutablePointer<Stretcher>?
    /// The stream index the running stretcher has been fed up to.
    var stretcherFed = 0
    var currentSpeed = 1.0
    var currentPitch = 0.0
    var targetSpeed = 1.0
    var targetPitch = 0.0
    /// Stretching: the stream index (fractional) the next output frame corresponds to.
    var inputCursor = 0.0
    /// Output frames retrieved from the running stretcher since it was last fed (its timing counts
    /// from the feed: `followTiming`).
    var retrievedSinceFeed = 0
    /// What the running stretcher's measured timing adds to `inputCursor` for the frame heard
    /// (`followTiming`; 0 without a measured timing).
    var timingOffset = 0.0
    /// The stream index fed from which the running stretcher's timing is trusted (`trustTiming`).
    var timingTrustedFrom = 0
    /// Once the source has ended: the stream index after its last frame (-1 before).
    var realEnd = -1
    /// A hand-over in progress, and its incoming stretcher (nil for `.toRaw`).
    var handover = Handover.none
    var incoming: UnsafeMutablePointer<Stretcher>?
    var incomingStart = 0
    var incomingFed = 0
    var incomingDiscarded = 0
    /// Output frames retrieved from the incoming stretcher since it was last fed, and in all.
    var incomingSinceFeed = 0
    var incomingRetrieved = 0
    /// What the incoming side lines up with, ahead of `outputPosition` (the outgoing stretcher's
    /// measured timing, for the resampler, whose own is exact; else 0).
    var incomingShift = 0.0
    /// The output position from which the incoming stretcher's analysis rests on real frames.
    var incomingWarmUntil = 0.0
    /// Input frames per output frame while the incoming stretcher is lined up.
    var handoverStep = 1.0
    /// The crossfade's frame, or -1 when none runs.
    var fadePosition = -1
    /// `.toRaw`: the stream index the raw side continues at.
    var rawCursor = 0
    /// Frames fresh stretchers may still be fed this cycle.
    var feedBudget = 0
    /// Frames the pitch has rested at 0 on a high-consistency stretcher.
    var consistentIdleFrames = 0
    /// A seek while stretching: the next cycle primes a fresh stretcher at the new place.
    var primeOnResume = false
    /// A stretched start waits for the render-ahead helper to take over before it primes: silent.
    var waitingForHelper = false
    /// Some audio has been played (a later switch crossfades; before it, a stretcher is primed).
    var hasPlayed = false
    /// Scratch for the incoming side of a crossfade, and silence to feed after the source's end.
    let mixScratch: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let silentInput: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let stretchScratchFrames = 8192
    let stretchInputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    /// Marks pulled and not yet heard (wraps and clicks): (kind, count, from, to, stream index) × capacity.
    let pendingWraps: UnsafeMutablePointer<Int>
    let pendingWrapCapacity = 256
    let markFields = 5
    var pendingWrapFirst = 0
    var pendingWrapCount = 0

    // the loop cache (Engine+LoopCache.swift)
    /// The buffer a pass is kept in (nil until the control thread hands one over).
    var loopCache: UnsafeMutablePointer<LoopCache>?
    var cacheState = LoopCacheState.off
    /// The kept pass's length (frames), once complete.
    var cacheLength = 0
    var cacheMarkCount = 0
    /// Where the output was in the stream at the kept pass's wrap, past the wrap mark's index.
    var cacheFraction = 0.0
    /// What the pass was kept under: any change leaves the cache.
    var cacheSpeed = 1.0
    var cachePitch = 0.0
    var cacheA = 0
    var cacheB = 0
    var cacheGap = 0
    var cacheCountIn = 0
    var cacheClick = false
    var cacheBeats: UInt = 0
    var cacheStretcher: UInt = 0
    /// The current chunk of live output: its first output frame, and that frame's index in the kept pass.
    var chunkOutputFrame = 0
    var chunkRecordBase = 0
    /// The switch into the kept pass: frames crossfaded so far (-1: not switching).
    var cacheSwitchPosition = -1
    /// Replay: the offset in the pass of the next frame, and the next mark of the pass to act on.
    var replayPosition = 0
    var replayMark = 0
    /// A change waits for the replay to be left (nil: none).
    var cacheLeaving: LoopCacheReason?
    /// "Too long" is reported once per loop.
    var cacheTooLongReported = false

    // volume and pan (Engine+Level.swift)
    var gainTargetBits: UInt64 = 0x3F80_0000_3F80_0000
    var gain0: Float = 1
    var gain1: Float = 1
    var gainFrom0: Float = 1
    var gainFrom1: Float = 1
    var gainStep0: Float = 0
    var gainStep1: Float = 0
    var gainRampLeft = 0
    let gainRampFrames: Int

    // commands, MIDI and the transport (Engine+Control.swift)
    /// The source of the command being carried out: the events it causes carry it.
    var currentSource = CommandSource.player
    /// The source of the last command that moved A (its `loop` event may come later, once cached).
    var loopSource = CommandSource.player
    /// "A/B here" in turn: 0 sets A next, 1 sets B next.
    var abStep = 0
    /// The JACK transport: rolling, as last seen (true when not followed).
    var transportRolling = true
    /// MIDI events of this cycle, in order: messages and their frame offsets.
    let midiMessages: UnsafeMutablePointer<MIDIMessage>
    let midiOffsets: UnsafeMutablePointer<Int>
    let midiCapacity = 256
    var midiCount = 0

    // metronome and count-in (Engine+Click.swift)
    var beatTable: UnsafeMutablePointer<BeatTable>?
    /// The next beat of the table to mark, valid while the playhead is at `beatCursorFrame`.
    var beatCursor = 0
    var beatCursorFrame = -1
    /// Beats of count-in before each repetition, and their length in source frames (0: none).
    var countInBeats = 0
    var countInPeriod = 0
    /// The next pull starts a count-in (after a wrap, at a start or a jump to A).
    var pendingCountIn = false
    /// The next source frame pulled starts a pass if it is A with the loop on (after a wrap, a
    /// seek, or at the start): a `passStarted` mark.
    var passStartPending = true
    /// A drill's last pass has ended and its gap plays; at its end the source ends.
    var finishingAfterGap = false
    /// That count-in is the one before the first pass: it starts with a moment of silence.
    var countInLeadIn = false
    /// Clicks sounding or about to: their first output frame and whether accented.
    let clickVoiceCapacity = 32
    let clickVoiceStart: UnsafeMutablePointer<Int>
    let clickVoiceAccent: UnsafeMutablePointer<Bool>
    var clickVoiceCount = 0

    // hearing the part (Engine+Hearing.swift): after the stretcher, before the gains
    var isolator: Isolator
    var equalizer: Equalizer
    /// Frames the isolation delays the output by now (0 for `off`).
    var isolationDelay = 0
    /// The take heard beside the recording (`compare`), and how.
    var takeTrack: UnsafeMutablePointer<TakeAudio>?
    var takeMode = TakeCompare.alternate
    var takeAtGap = false
    var takePan: Float = 0
    /// The engine output frame (after the isolation's delay) the take's first frame goes with.
    var takeStart = Int.min / 2
    /// The recording is silent while the take plays (`take`, and alternate's take passes).
    var takeMuting = false
    /// The window before (its last frames may fall in the cycle that reaches the next mark).
    var earlierTakeStart = Int.min / 2
    var earlierTakeMuting = false
    var takeHeardPasses = 0
    /// Frames the stretcher delays the output by now.
    var stretchDelay = 0

    // minute repeater
    var chime = ChimeSchedule(hour: 0, minute: 0, sampleRate: 1)
    var chimeActive = false
    var chimePosition = 0
    var chimeLength = 0

    /// `gongs`: the minute repeater's sounds (silent by default). A `sourceFrameCount` of 0 makes an
    /// engine with nothing to play but chimes.
    public init(_ configuration: Configuration, gongs: consuming GongBank = GongBank.silent(),
                clicks: consuming ClickBank = ClickBank.silent()) {
        self.configuration = configuration
        self.gongs = gongs
        self.clicks = clicks
        clickVoiceStart = .allocate(capacity: 32)
        clickVoiceStart.initialize(repeating: 0, count: 32)
        clickVoiceAccent = .allocate(capacity: 32)
        clickVoiceAccent.initialize(repeating: false, count: 32)
        isolator = Isolator(channelCount: configuration.channelCount, sampleRate: configuration.sampleRate)
        equalizer = Equalizer(channelCount: configuration.channelCount, sampleRate: configuration.sampleRate)
        channelCount = configuration.channelCount
        outputChannelCount = configuration.outputChannelCount > 0 ? configuration.outputChannelCount : configuration.channelCount
        precondition(outputChannelCount == channelCount || (channelCount == 1 && outputChannelCount == 2),
                     "outputs: the source's channels, or two for a mono source")
        meters = MeterRing(preChannels: configuration.channelCount, postChannels: outputChannelCount)
        gainRampFrames = max(1, configuration.sampleRate / 100)
        blocks = BlockRing(channelCount: configuration.channelCount, blockFrames: configuration.blockFrames,
                           blockCount: configuration.blockCount)
        heads = LoopHeadCache(slotCount: 3, slotFrames: configuration.headFrames, channelCount: configuration.channelCount)
        playhead = configuration.startFrame
        held = configuration.startsHeld
        status = EngineStatus(startFrame: configuration.startFrame)
        rampPosition = configuration.declickFrames
        loopB = configuration.sourceFrameCount
        gapFrames = configuration.gapFrames
        slotFrame = .allocate(capacity: 3)
        slotFrame.initialize(repeating: -1, count: 3)
        slotCount = .allocate(capacity: 3)
        slotCount.initialize(repeating: 0, count: 3)
        midiMessages = .allocate(capacity: midiCapacity)
        midiMessages.initialize(repeating: MIDIMessage(kind: .controlChange, channel: 0, number: 0, value: 0), count: midiCapacity)
        midiOffsets = .allocate(capacity: midiCapacity)
        midiOffsets.initialize(repeating: 0, count: midiCapacity)
        pendingWraps = .allocate(capacity: 256 * 5)
        pendingWraps.initialize(repeating: 0, count: 256 * 5)
        func planar() -> UnsafeMutablePointer<UnsafeMutablePointer<Float>> {
            let pointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: configuration.channelCount)
            for channel in 0..<configuration.channelCount {
                let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 8192)
                buffer.initialize(repeating: 0, count: 8192)
                (pointers + channel).initialize(to: buffer)
            }
            return pointers
        }
        stretchInputs = planar()
        mixScratch = planar()
        silentInput = planar()
        stream = StreamRing(channelCount: configuration.channelCount, capacity: 1 << 16)
        let seam = max(1, configuration.seamFadeFrames)
        seamTail = .allocate(capacity: seam * configuration.channelCount)
        seamTail.initialize(repeating: 0, count: seam * configuration.channelCount)
        tailPosition = configuration.seamFadeFrames
        fadeInPosition = configuration.seamFadeFrames
        if let loop = configuration.loop {
            loopOn = true
            loopA = loop.a
            requestedA = loop.a
            loopB = loop.b
            requestHead(for: loop.a)
            post(.loop(a: loop.a, b: loop.b, enabled: true))
        }
        if configuration.sourceFrameCount == 0 {
            sourceEnded = true
            finishedReported = true
        }
        publishLoop()
        controls.loopCacheOn.store(configuration.loopCache, ordering: .relaxed)
        setLevel(volume: configuration.volume, pan: configuration.pan)
        gainTargetBits = controls.gains.load(ordering: .relaxed)
        (gain0, gain1) = Engine.unpackGains(gainTargetBits)
        if configuration.isolation != .off, isolator.setMode(configuration.isolation, immediately: true) {
            isolationDelay = isolator.latencyFrames(for: configuration.isolation)
        }
        let eq = configuration.equalizer
        equalizer.setGains(lowDB: eq.lowDB, midDB: eq.midDB, highDB: eq.highDB, immediately: true)
        publishLatency()
    }

    deinit {
        for pointers in [stretchInputs, mixScratch, silentInput] {
            for channel in 0..<channelCount { pointers[channel].deallocate() }
            pointers.deallocate()
        }
        if let incoming {
            incoming.deinitialize(count: 1)
            incoming.deallocate()
        }
        pendingWraps.deallocate()
        clickVoiceStart.deallocate()
        clickVoiceAccent.deallocate()
        if let beatTable { BeatTable.free(UInt(bitPattern: beatTable)) }
        if let takeTrack { TakeAudio.free(UInt(bitPattern: takeTrack)) }
        if let loopCache { LoopCache.free(UInt(bitPattern: loopCache)) }
        while let bits = freshLoopCaches.pop() { LoopCache.free(bits) }
        while let bits = usedLoopCaches.pop() { LoopCache.free(bits) }
        while let bits = usedTakes.pop() { TakeAudio.free(bits) }
        while let bits = beatTables.pop() { BeatTable.free(bits) }
        midiMessages.deallocate()
        midiOffsets.deallocate()
        if let stretcher {
            stretcher.deinitialize(count: 1)
            stretcher.deallocate()
        }
        slotFrame.deallocate()
        slotCount.deallocate()
        seamTail.deallocate()
    }

    #if REPEATER_PERFORMANCE_CHECKS
    /// Real-time thread. Renders `frameCount` frames into `outputs[0..<channelCount]`.
    ///
    /// At unity gain (no fade in progress) every output frame is a source frame copied bit for bit.
    ///
    /// `@_noLocks`: the compiler proves that nothing reachable from here locks, allocates through
    /// reference counting, or calls unspecialized generics. It can only see through calls when it
    /// compiles the whole module at once, which SwiftPM does in release builds; the debug build
    /// relies on the run-time allocation/lock counter tests instead.
    @_noLocks
    public func render(frameCount: Int, outputs: UnsafePointer<UnsafeMutablePointer<Float>>) {
        renderCycle(frameCount: frameCount, outputs: outputs)
    }
    #else
    /// Real-time thread. Renders `frameCount` frames into `outputs[0..<channelCount]`.
    /// (The release build carries the compiler-checked `@_noLocks` variant.)
    public func render(frameCount: Int, outputs: UnsafePointer<UnsafeMutablePointer<Float>>) {
        renderCycle(frameCount: frameCount, outputs: outputs)
    }
    #endif

    @inline(__always)
    private func renderCycle(frameCount: Int, outputs: UnsafePointer<UnsafeMutablePointer<Float>>) {
        cycleOffset = 0
        takeHeadLoads()
        takeBeatTables()
        takeLoopCaches()
        takeCommands()
        updateStretch(frameCount: frameCount)
        updateLoopCache(frameCount: frameCount)
        if handover == .priming { _ = advancePriming() }
        dropStaleBlocks()
        // MIDI presses act at their own frame: the cycle is rendered in spans between them.
        for index in 0..<midiCount {
            let offset = min(frameCount, max(cycleOffset, midiOffsets[index]))
            renderSpan(outputs, to: offset)
            performMIDI(midiMessages[index])
        }
        midiCount = 0
        renderSpan(outputs, to: frameCount)
        cycleOffset = 0
        isolator.process(outputs, frameCount: frameCount)
        equalizer.process(outputs, frameCount: frameCount)
        mixTake(outputs, frameCount: frameCount)
        feedTap(outputs, frameCount: frameCount)
        meterPre(outputs, frameCount: frameCount)
        applyGains(outputs, frameCount: frameCount)
        mixChime(outputs, frameCount: frameCount)
        renderClicks(outputs, frameCount: frameCount)
        meterPost(outputs, frameCount: frameCount)
        renderedFrames &+= frameCount
        status.playheadFrame.store(playhead, ordering: .relaxed)
        status.audibleFrame.store(audibleFrame(), ordering: .relaxed)
        status.renderedFrames.store(renderedFrames, ordering: .relaxed)
        publishLoop()
        cycle &+= 1
        status.cycles.store(cycle, ordering: .relaxed)
    }

    /// Renders the current cycle's frames from `cycleOffset` up to `end`.
    private func renderSpan(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, to end: Int) {
        var done = cycleOffset
        defer { cycleOffset = end }
        var silent = held
        if handover == .priming { silent = true }
        if primeOnResume { silent = true }  // (no `||`: its right side would capture self)
        if waitingForHelper { silent = true }
        if silent {
            // Held until the ports are connected, or a fresh stretcher is being primed: silence.
            silence(outputs, from: done, count: end - done)
            log.append(outputFrame: renderedFrames &+ done, sourceFrame: playhead, frameCount: end - done, isSilence: true)
            return
        }
        while done < end {
            cycleOffset = done
            let up = rampingUp
            if rampPosition == 0, !up {
                if pendingSeek >= 0 {
                    performSeek(to: pendingSeek)
                    continue
                }
                silence(outputs, from: done, count: end - done)
                log.append(outputFrame: renderedFrames &+ done, sourceFrame: playhead, frameCount: end - done, isSilence: true)
                return
            }
            var wanted = end - done
            if !up { wanted = min(wanted, rampPosition) }  // stop consuming once faded out
            if primeOnResume {  // a seek while stretching: silent until the fresh stretcher is primed
                silence(outputs, from: done, count: end - done)
                log.append(outputFrame: renderedFrames &+ done, sourceFrame: playhead, frameCount: end - done, isSilence: true)
                return
            }
            let got = produce(into: outputs, at: done, count: wanted)
            if got > 0 {
                applyRamp(outputs, from: done, count: got)
                done += got
            }
            if got < wanted {
                silence(outputs, from: done, count: end - done)
                log.append(outputFrame: renderedFrames &+ done, sourceFrame: playhead, frameCount: end - done, isSilence: true)
                if sourceEnded {
                    if !finishedReported {
                        finishedReported = true
                        status.finishedCycle.store(cycle, ordering: .relaxed)
                        post(.finished(frame: playhead, cycle: cycle, outputFrame: renderedFrames &+ done))
                    }
                } else if awaitingSeekData {
                    rampPosition = 0
                } else {
                    status.underruns.add(1, ordering: .relaxed)
                    post(.underrun(frame: playhead))
                    rampPosition = 0  // fade back in when the data arrives
                }
                return
            }
        }
    }

    /// The source frame the listener hears now: the one output `latency` frames ago carried.
    func audibleFrame() -> Int {
        let latency = controls.latencyFrames.load(ordering: .relaxed) &+ controls.aheadFrames.load(ordering: .relaxed) &+ isolationDelay
        if stretchedPhase {
            // (rounded: the file frame nearest to what the output frame carries)
            let position = inputCursor + timingOffset - Double(latency) * currentSpeed * configuration.baseRate
            let input = stretchStreamBase &+ (position >= 0 ? Int(position + 0.5) : -Int(-position + 0.5))
            return streamLog.sourceFrame(atOutput: input, fallback: playhead)
        }
        return log.sourceFrame(atOutput: renderedFrames &+ cycleOffset &- latency, fallback: playhead)
    }

    /// Fading (or faded) in: playing (the transport rolling, when followed) and no seek waiting for
    /// the fade out.
    var rampingUp: Bool {
        if !wantPlaying { return false }
        if !transportRolling { return false }
        return pendingSeek < 0
    }

    func performSeek(to frame: Int) {
        pendingSeek = -1
        abandonHandover()
        clearPendingWraps()
        realEnd = -1
        switch phase {
        case .direct: break
        case .delayed: phase = .direct  // the frames pulled ahead are not wanted: straight bypass again
        case .stretching, .replaying:
            dropLoopCache(.seek)
            if phase == .replaying { phase = .delayed }  // (nothing runs: a fresh stretcher is primed at the new place)
            // The stretcher holds the old place's frames: a fresh one is primed at the new place.
            stream.reset(at: streamEnd)
            stretcherFed = streamEnd
            outCursor = streamEnd
            inputCursor = Double(streamEnd)
            primeOnResume = true
        }
        playhead = frame
        sourceEnded = false
        finishedReported = false
        gapRemaining = 0
        cancelFutureClicks()
        if loopOn, frame == loopA, countInBeats > 0 { pendingCountIn = true }
        passStartPending = true
        finishingAfterGap = false
        tailPosition = configuration.seamFadeFrames
        fadeInPosition = configuration.seamFadeFrames
        status.finishedCycle.store(-1, ordering: .relaxed)
        let slot = readySlot(for: frame)
        if slot >= 0 {
            enterHead(slot: slot, at: frame)  // a cached loop start: no wait for the disk
        } else {
            headActive = -1
            aimRing(at: frame)
            awaitingSeekData = true
        }
        post(.seeked(frame: frame), source: seekSource)
        seekSource = .player
    }

    /// Applies the declick ramp to frames just written, advancing it one step per frame.
    private func applyRamp(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, from offset: Int, count: Int) {
        let length = configuration.declickFrames
        let up = rampingUp
        if up, rampPosition == length { return }  // unity: leave the frames bit-exact
        let scale = 1 / Float(length)
        for i in 0..<count {
            if up { rampPosition = min(length, rampPosition + 1) } else { rampPosition = max(0, rampPosition - 1) }
            let gain = Float(rampPosition) * scale
            for channel in 0..<channelCount { outputs[channel][offset + i] *= gain }
        }
    }

    func silence(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, from offset: Int, count: Int) {
        guard count > 0 else { return }
        for channel in 0..<channelCount {
            let output = outputs[channel] + offset
            for i in 0..<count { output[i] = 0 }
        }
    }

    /// Posts an event caused by the command being carried out (or by nothing: `.player`).
    func post(_ event: EngineEvent) { post(event, source: currentSource) }

    func post(_ event: EngineEvent, source: CommandSource) {
        if !events.push(SourcedEvent(event: event, source: source)) { status.lostEvents.add(1, ordering: .relaxed) }
        controlWorkPending = true
    }

    /// Real-time thread, after a render: true when the control thread has something to take from
    /// the engine and sleeps (`EngineControls.controlAsleep`): the caller then wakes it
    /// (`controlWake`). Work handed over while it is awake stays pending until it next sleeps, so a
    /// wake-up is never lost, and a control thread with nothing to do is woken by no cycle.
    @inline(__always)
    public func takeControlWork() -> Bool {
        guard controlWorkPending, controls.controlAsleep.load(ordering: .relaxed),
              controls.controlAsleep.exchange(false, ordering: .sequentiallyConsistent) else { return false }
        controlWorkPending = false
        return true
    }

    func request(_ request: ReaderRequest) {
        if !readerRequests.push(request) { status.lostRequests.add(1, ordering: .relaxed) }
    }
}
