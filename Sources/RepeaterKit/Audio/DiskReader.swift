import Foundation
import RepeaterEngine
import Synchronization

/// The disk thread: decodes the file into the engine's `BlockRing`, tagging each block with its
/// source frame and read generation, and follows the engine's seek requests.
///
/// `step()` does one unit of work and is what the thread loops over; the offline renderer calls it
/// directly (see `fill()`), which keeps offline output deterministic.
public final class DiskReader: @unchecked Sendable {
    public let file: AudioFile
    /// The engine owns the rings; the reader is their producer (blocks) and consumer (requests).
    private let engine: Engine
    private let scratch: UnsafeMutablePointer<Float>
    private var position: Int
    private var generation: UInt32 = 0
    private var atEnd = false

    /// Loop heads loaded, and the longest load (seek, decode, seek back), for the note and status.
    public let headLoads = Atomic<Int>(0)
    /// When the file became shorter while playing (truncated under us): the frame its data now ends
    /// at; -1 while it is whole. The control thread warns once.
    public let cutShortAt = Atomic<Int>(-1)
    public let longestHeadLoadMicroseconds = Atomic<Int>(0)
    private let worker = WorkerThread(name: "repeater-disk")
    /// How long the thread sleeps when the ring is full and nothing was asked, unless woken: the
    /// JACK binding posts `wake` when the engine asks for a seek or a loop head
    /// (`EngineControls.readerWake`), so the ring (2.7 s) is topped up every 100 ms and requests
    /// are read at once. (It slept 4 ms and looked: 250 wake-ups a second, a fifth of a speed-1
    /// player's CPU on this VM.)
    public var idleMicroseconds = 100_000
    private let wake = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    /// `startFrame` and generation 0 must match the engine's configuration.
    public init(file: AudioFile, engine: Engine) {
        self.file = file
        self.engine = engine
        position = engine.configuration.startFrame
        if !file.seek(to: position) { position = file.info.frameCount }  // cannot get there: the stream ends
        scratch = .allocate(capacity: engine.blocks.blockFrames * engine.channelCount)
        sem_init(wake, 0, 0)
    }

    deinit {
        stop()
        scratch.deallocate()
        sem_destroy(wake)
        wake.deallocate()
    }

    /// Does one unit of work (a request, or one block); returns false when there was nothing to do.
    @discardableResult
    public func step() -> Bool {
        if let request = engine.readerRequests.pop() {
            switch request {
            case .seek(let frame, let newGeneration):
                generation = newGeneration
                position = min(frame, file.info.frameCount)
                atEnd = false
                if position < file.info.frameCount && !file.seek(to: position) {
                    position = file.info.frameCount  // cannot get there: end this generation
                }
            case .loadHead(let frame, let frameCount, let slot):
                loadHead(frame: frame, frameCount: frameCount, slot: slot)
            }
            return true
        }
        if atEnd { return false }
        guard let slot = engine.blocks.writableSlot() else { return false }
        let blockFrames = engine.blocks.blockFrames
        let wanted = min(blockFrames, file.info.frameCount - position)
        let count = wanted > 0 ? file.read(into: scratch, frameCount: wanted) : 0
        if wanted > 0, count < wanted { noteCutShort(at: position + max(0, count)) }
        if count > 0 {
            let channels = engine.channelCount
            for channel in 0..<channels {
                let destination = engine.blocks.channel(channel, ofSlot: slot)
                for frame in 0..<count { destination[frame] = scratch[frame * channels + channel] }
            }
            engine.blocks.publish(BlockTag(startFrame: position, frameCount: count, generation: generation))
            position += count
        } else {
            engine.blocks.publish(BlockTag(startFrame: position, frameCount: 0, generation: generation, isEnd: true))
            atEnd = true
        }
        return true
    }

    /// Fills loop-head slot `slot` with frames from `frame` on, answers the engine, and puts the
    /// stream back where it was.
    private func loadHead(frame: Int, frameCount: Int, slot: Int) {
        let started = DispatchTime.now().uptimeNanoseconds
        let channels = engine.channelCount
        let chunk = engine.blocks.blockFrames
        var loaded = 0
        if frame < file.info.frameCount, file.seek(to: frame) {
            let wanted = min(frameCount, file.info.frameCount - frame)
            while loaded < wanted {
                let count = file.read(into: scratch, frameCount: min(chunk, wanted - loaded))
                if count <= 0 {
                    noteCutShort(at: frame + loaded)
                    break
                }
                for channel in 0..<channels {
                    let destination = engine.heads.channel(channel, ofSlot: slot) + loaded
                    for i in 0..<count { destination[i] = scratch[i * channels + channel] }
                }
                loaded += count
            }
        }
        if !atEnd, position < file.info.frameCount, !file.seek(to: position) { position = file.info.frameCount }
        // The ring has 16 slots; the engine asks for one load at a time, so this push cannot fail.
        _ = engine.headLoaded.push(HeadLoaded(slot: slot, frame: frame, frameCount: loaded))
        let micros = Int(DispatchTime.now().uptimeNanoseconds - started) / 1000
        headLoads.add(1, ordering: .relaxed)
        if micros > longestHeadLoadMicroseconds.load(ordering: .relaxed) {
            longestHeadLoadMicroseconds.store(micros, ordering: .relaxed)
        }
    }

    /// The file yielded fewer frames than it had when opened: it was cut short while playing.
    private func noteCutShort(at frame: Int) {
        if cutShortAt.load(ordering: .relaxed) < 0 { cutShortAt.store(frame, ordering: .relaxed) }
    }

    /// Steps until there is nothing to do (the ring is full, or the end is queued).
    public func fill() {
        while step() {}
    }

    /// Starts the disk thread.
    public func start() {
        engine.controls.readerWake.store(UInt(bitPattern: wake), ordering: .relaxed)
        worker.start(qualityOfService: .userInitiated) { [unowned self] in
            while !self.worker.stopping {
                if !self.step() { self.sleep() }
            }
        }
    }

    /// Waits for a post or `idleMicroseconds`, whichever comes first.
    private func sleep() {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + idleMicroseconds * 1000
        deadline.tv_sec += nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        _ = sem_timedwait(wake, &deadline)
    }

    /// Stops and joins the disk thread (no-op when it is not running).
    public func stop() {
        guard worker.isRunning else { return }
        engine.controls.readerWake.store(0, ordering: .relaxed)
        sem_post(wake)
        worker.stop()
    }
}
