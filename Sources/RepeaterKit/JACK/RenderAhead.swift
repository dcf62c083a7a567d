import CJack
import CRepeaterSupport
import Glibc
import RepeaterEngine
import Synchronization

/// Renders the engine ahead of the ports on a real-time helper thread, so that the process callback
/// itself only copies: its worst case no longer holds Rubber Band's bursts, which get a period or
/// more on the other core instead of what is left of the callback's.
///
/// The frames travel through a single-producer/single-consumer FIFO (acquire/release indices): the
/// callback takes each period from it. The engine has one owner at a time: the helper while a job
/// runs, else the callback, which (between jobs) renders directly only what the FIFO lacks (the
/// first cycle, a larger period) and then hands the helper a job: this cycle's MIDI events and
/// transport state, and the frames that bring the FIFO back to `depth` periods ahead. A release
/// store of the job counter and a semaphore post pass the engine; the helper's release store of
/// the done counter passes it back. A job that overruns a period is absorbed by the FIFO (the
/// callback keeps playing what is there; the next job makes up); only an empty FIFO is a dropout
/// (`late`). Everything the engine renders is `depth` periods later than in the callback: MIDI
/// presses and transport changes act that much later, and "A/B here" subtracts it (`aheadFrames`).
///
/// `adaptive` (`--render-ahead auto`, the default on a real-time server): only while Rubber Band
/// runs (or is about to: `EngineStatus.wantsRenderAhead`). Bypass and the resampler cost the
/// callback next to nothing, and waking a helper every period costs more than they do (on this VM
/// the helper's wake-ups were a third of a speed-1 player's CPU): then the callback renders for
/// itself, with this cycle's MIDI events and transport. Going ahead, the
/// callback renders `depth` extra periods at once (the engine is still cheap: it starts Rubber
/// Band only once `EngineControls.renderAheadReady` says the helper renders); going back (after a
/// second without Rubber Band) it stops posting jobs and plays out what the FIFO holds. The output
/// stays one continuous stream of the engine's frames either way.
public final class RenderAhead: @unchecked Sendable {
    let engine: Engine
    let channelCount: Int
    /// The engine's render time per job, or per render in the callback (its own load, wherever it runs).
    public let load: CallbackLoad
    /// Cycles the helper had not finished in time (the callback played what it had).
    public let late = Atomic<Int>(0)
    /// The callback cycle of the last late one (for telling a start-up hiccup from a steady problem).
    public let lastLateCycle = Atomic<Int>(-1)
    private var callbackCycle = 0
    /// Periods rendered ahead.
    public let depth: Int
    private let fifo: UnsafeMutablePointer<Float>
    private let fifoCapacity = 16_384
    private let fifoIndices = RingIndices(capacity: 16_384)
    private let scratch: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let scratchFrames = 8192
    private let jobRequested = Atomic<Int>(0)
    private let jobDone = Atomic<Int>(0)
    private var jobFrames = 0
    /// The period the job was posted in: a job of several periods (catching up after one that
    /// overran) commits each period to the FIFO as soon as it is rendered, so the callback can take
    /// the first while the helper renders the next.
    private var jobChunk = 256
    private var jobRolling = true
    /// The MIDI events handed to the running job (written by the callback only between jobs).
    private let jobMIDI: MIDIEventList
    /// MIDI events the callback has taken from the port but not yet handed to a job (callback only):
    /// a cycle whose job still runs keeps its events here for the next job, so none is lost.
    private let pendingMIDI: MIDIEventList
    private let wake: UnsafeMutablePointer<sem_t>
    /// The helper renders (jobs are posted); else the callback renders for itself.
    private var aheadMode: Bool
    /// Ahead only while the engine wants it (else always).
    let adaptive: Bool
    /// Callback cycles since the engine last wanted the helper.
    private var cyclesUnwanted = 0
    private let sampleRate: Int
    private let stopRequested = Atomic<Bool>(false)
    private var thread = pthread_t()
    private var running = false

    init(engine: Engine, channelCount: Int, sampleRate: Int, depth: Int = 1, adaptive: Bool = false) {
        self.engine = engine
        self.adaptive = adaptive
        aheadMode = !adaptive
        self.depth = depth
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        load = CallbackLoad(sampleRate: sampleRate)
        fifo = .allocate(capacity: fifoCapacity * channelCount)
        fifo.initialize(repeating: 0, count: fifoCapacity * channelCount)
        scratch = .allocate(capacity: channelCount)
        for channel in 0..<channelCount {
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: scratchFrames)
            buffer.initialize(repeating: 0, count: scratchFrames)
            (scratch + channel).initialize(to: buffer)
        }
        jobMIDI = MIDIEventList(capacity: 256)
        pendingMIDI = MIDIEventList(capacity: 256)
        wake = .allocate(capacity: 1)
        sem_init(wake, 0, 0)
    }

    deinit {
        stop()
        sem_destroy(wake)
        wake.deallocate()
        for channel in 0..<channelCount { scratch[channel].deallocate() }
        scratch.deallocate()
        fifo.deallocate()
        jobMIDI.free()
        pendingMIDI.free()
    }

    /// Starts the helper with JACK's real-time settings (one priority below the process thread, so
    /// it never preempts the callback), before activation. False when no thread could be made.
    func start(client: OpaquePointer) -> Bool {
        guard !running else { return true }
        let priority = jack_client_real_time_priority(client)
        let realtime = jack_is_realtime(client)
        let argument = Unmanaged.passUnretained(self).toOpaque()
        var result = jack_client_create_thread(client, &thread, max(1, priority - 1), realtime, repeaterRenderAheadThread, argument)
        if result != 0 {  // no real-time rights: an ordinary thread still moves the bursts off the callback
            result = jack_client_create_thread(client, &thread, 0, 0, repeaterRenderAheadThread, argument)
        }
        running = result == 0
        // Adaptive, the callback renders first; Rubber Band waits until the helper does.
        if running, adaptive { engine.controls.renderAheadReady.store(false, ordering: .relaxed) }
        return running
    }

    /// After deactivation: stops and joins the helper.
    func stop() {
        guard running else { return }
        stopRequested.store(true, ordering: .releasing)
        sem_post(wake)
        pthread_join(thread, nil)
        running = false
        engine.controls.renderAheadReady.store(true, ordering: .relaxed)
    }

    /// Real-time thread (the process callback). Fills `outputs` with `frameCount` frames; returns
    /// the engine output frame the first of them is (the FIFO's read position: every frame the
    /// engine renders passes through it in order), and whether the helper was late (`short`: the
    /// cycle ends in silence, and the frames after it go out that much later).
    @inline(__always)
    @discardableResult
    func process(frameCount: Int, outputs: UnsafePointer<UnsafeMutablePointer<Float>>, client: OpaquePointer,
                 midiBuffer: UnsafeMutableRawPointer?) -> (tag: Int, short: Bool) {
        // This cycle's MIDI events are copied out now (the port's buffer is only valid in this cycle).
        if let midiBuffer {
            let count = jack_midi_get_event_count(midiBuffer)
            var event = jack_midi_event_t(time: 0, size: 0, buffer: nil)
            var index: UInt32 = 0
            while index < count {
                if jack_midi_event_get(&event, midiBuffer, index) == 0, let bytes = event.buffer {
                    pendingMIDI.append(offset: Int(event.time), bytes: bytes, count: event.size)
                }
                index &+= 1
            }
        }
        // The helper's job done? Then the engine is the callback's until the next post.
        let owned = jobDone.load(ordering: .acquiring) == jobRequested.load(ordering: .relaxed)
        let rolling = jack_transport_query(client, nil).rawValue == JackTransportRolling.rawValue
        callbackCycle &+= 1
        // (Rendering onto the FIFO's end below leaves its read position where it is.)
        let tag = fifoIndices.consumerPosition()
        if owned {
            chooseMode(frameCount: frameCount, rolling: rolling)
            if !aheadMode, fifoIndices.readableCount() == 0 {
                // Rendering for itself with nothing queued (the steady state at speed 1): straight
                // into the ports. The FIFO's counters move as if the frames had passed through it,
                // so the tags stay one stream; the two copies through it were a tenth of a speed-1
                // player's own CPU.
                renderDirectly(frameCount, rolling: rolling, into: outputs)
                fifoIndices.commitWrite(frameCount)
                fifoIndices.commitRead(frameCount)
                return (tag, false)
            }
            if fifoIndices.readableCount() < frameCount {
                // Rendering for itself, or the first cycle, or a larger period: render what is missing now.
                renderDirectly(frameCount - fifoIndices.readableCount(), rolling: rolling)
            }
        }
        let available = min(frameCount, fifoIndices.readableCount())
        takeFromFIFO(available, into: outputs)
        if available < frameCount {  // the helper has not caught up: silence, counted
            late.add(1, ordering: .relaxed)
            lastLateCycle.store(callbackCycle, ordering: .relaxed)
            for channel in 0..<channelCount { for i in available..<frameCount { outputs[channel][i] = 0 } }
        }
        // A job still runs (it overran its period): its events wait for the next job, a period later.
        guard owned, aheadMode else { return (tag, available < frameCount) }
        // The next job: this cycle's transport, the MIDI events taken since the last job, and what
        // brings the FIFO to `depth` periods.
        jobRolling = rolling
        jobMIDI.take(from: pendingMIDI)
        let queued = fifoIndices.readableCount()
        jobFrames = max(0, depth * frameCount - queued)
        jobChunk = max(1, frameCount)
        engine.controls.aheadFrames.store(queued + frameCount, ordering: .relaxed)
        jobRequested.add(1, ordering: .releasing)
        sem_post(wake)
        return (tag, available < frameCount)
    }

    /// The callback owns the engine: render ahead on the helper while the engine wants it (entering:
    /// the callback renders `depth` periods more now, then tells the engine the helper renders);
    /// after a second without, render in the callback again.
    @inline(__always)
    private func chooseMode(frameCount: Int, rolling: Bool) {
        guard adaptive else { return }
        let wanted = engine.status.wantsRenderAhead.load(ordering: .relaxed)
        if wanted {
            cyclesUnwanted = 0
            if !aheadMode {
                let want = (depth + 1) * frameCount
                if fifoIndices.readableCount() < want { renderDirectly(want - fifoIndices.readableCount(), rolling: rolling) }
                aheadMode = true
                engine.controls.renderAheadReady.store(true, ordering: .relaxed)
            }
        } else if aheadMode {
            cyclesUnwanted += 1
            if cyclesUnwanted * frameCount >= sampleRate {
                aheadMode = false
                engine.controls.renderAheadReady.store(false, ordering: .relaxed)
            }
        }
    }

    /// The callback renders `frameCount` frames itself, with this cycle's transport and the MIDI
    /// events taken since the engine last rendered: with `outputs`, into them (the FIFO empty), else
    /// onto the FIFO's end.
    @inline(__always)
    private func renderDirectly(_ frameCount: Int, rolling: Bool, into outputs: UnsafePointer<UnsafeMutablePointer<Float>>? = nil) {
        engine.setTransport(rolling: rolling)
        for index in 0..<pendingMIDI.count.pointee {
            engine.receiveMIDI(offset: pendingMIDI.offsets[index], bytes: pendingMIDI.bytes + index * 4, count: pendingMIDI.sizes[index])
        }
        pendingMIDI.count.pointee = 0
        engine.controls.aheadFrames.store(fifoIndices.readableCount(), ordering: .relaxed)
        let started = jack_get_time()
        if let outputs { engine.render(frameCount: frameCount, outputs: outputs) } else { renderIntoFIFO(frameCount) }
        repeaterWakeWaiters(engine)
        load.record(busyMicroseconds: Int(jack_get_time() &- started), frames: frameCount)  // (the engine's load, wherever it renders)
    }

    /// The helper thread's loop: a job per post.
    fileprivate func run() {
        while true {
            sem_wait(wake)
            if stopRequested.load(ordering: .acquiring) { return }
            let requested = jobRequested.load(ordering: .acquiring)
            if jobDone.load(ordering: .relaxed) == requested { continue }
            repeater_rtprobe_enter()
            let started = jack_get_time()
            engine.setTransport(rolling: jobRolling)
            for index in 0..<jobMIDI.count.pointee {
                // (events longer than 4 bytes are kept by their length only: the engine ignores them)
                engine.receiveMIDI(offset: jobMIDI.offsets[index], bytes: jobMIDI.bytes + index * 4, count: jobMIDI.sizes[index])
            }
            renderIntoFIFO(jobFrames, chunk: jobChunk)
            repeaterWakeWaiters(engine)
            if jobFrames > 0 { load.record(busyMicroseconds: Int(jack_get_time() &- started), frames: jobFrames) }
            repeater_rtprobe_leave()
            jobDone.store(requested, ordering: .releasing)
        }
    }

    /// The engine's owner (producer): renders `frameCount` frames onto the FIFO's end.
    @inline(__always)
    private func renderIntoFIFO(_ frameCount: Int, chunk: Int = Int.max) {
        var done = 0
        while done < frameCount {
            let n = min(min(frameCount - done, chunk), min(scratchFrames, fifoIndices.writableCount()))  // (two at a time: the variadic min allocates its array)
            if n <= 0 { return }
            engine.render(frameCount: n, outputs: UnsafePointer(scratch))
            let position = fifoIndices.producerPosition()
            for channel in 0..<channelCount {
                let base = fifo + channel * fifoCapacity
                for i in 0..<n { base[(position + i) & (fifoCapacity - 1)] = scratch[channel][i] }
            }
            fifoIndices.commitWrite(n)  // release: the frames before the count
            done += n
        }
    }

    /// The callback (consumer): `frameCount` frames from the FIFO's front into the ports.
    @inline(__always)
    private func takeFromFIFO(_ frameCount: Int, into outputs: UnsafePointer<UnsafeMutablePointer<Float>>) {
        guard frameCount > 0 else { return }
        let position = fifoIndices.consumerPosition()
        for channel in 0..<channelCount {
            let base = fifo + channel * fifoCapacity
            for i in 0..<frameCount { outputs[channel][i] = base[(position + i) & (fifoCapacity - 1)] }
        }
        fifoIndices.commitRead(frameCount)
    }
}

/// The render-ahead helper thread's entry point (a plain C function, outside main.swift).
func repeaterRenderAheadThread(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    Unmanaged<RenderAhead>.fromOpaque(argument!)._withUnsafeGuaranteedRef { $0.run() }
    return nil
}

/// A fixed-capacity list of MIDI events (offset in the cycle, length, and the first 4 bytes: the
/// engine ignores anything longer), allocated up front; real-time safe to fill and copy.
private struct MIDIEventList {
    let capacity: Int
    let offsets: UnsafeMutablePointer<Int>
    let sizes: UnsafeMutablePointer<Int>
    let bytes: UnsafeMutablePointer<UInt8>
    /// Behind a pointer, so that the list, held as a `let`, needs no exclusive access to change.
    let count: UnsafeMutablePointer<Int>

    init(capacity: Int) {
        self.capacity = capacity
        offsets = .allocate(capacity: capacity)
        offsets.initialize(repeating: 0, count: capacity)
        sizes = .allocate(capacity: capacity)
        sizes.initialize(repeating: 0, count: capacity)
        bytes = .allocate(capacity: capacity * 4)
        bytes.initialize(repeating: 0, count: capacity * 4)
        count = .allocate(capacity: 1)
        count.initialize(to: 0)
    }

    func free() {
        offsets.deallocate()
        sizes.deallocate()
        bytes.deallocate()
        count.deallocate()
    }

    /// Adds an event (dropped when the list is full: 256 events between two jobs).
    @inline(__always)
    func append(offset: Int, bytes source: UnsafePointer<UInt8>, count size: Int) {
        let index = count.pointee
        guard index < capacity else { return }
        offsets[index] = offset
        sizes[index] = size
        for k in 0..<min(4, size) { bytes[index * 4 + k] = source[k] }
        count.pointee = index + 1
    }

    /// Replaces this list's events with `other`'s and empties `other`.
    @inline(__always)
    func take(from other: MIDIEventList) {
        let n = other.count.pointee
        for index in 0..<n {
            offsets[index] = other.offsets[index]
            sizes[index] = other.sizes[index]
            for k in 0..<4 { bytes[index * 4 + k] = other.bytes[index * 4 + k] }
        }
        count.pointee = n
        other.count.pointee = 0
    }
}
