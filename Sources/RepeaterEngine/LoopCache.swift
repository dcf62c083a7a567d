/// One pass of a loop as the stretcher put it out, kept to be played again (`Engine+LoopCache.swift`):
/// planar frames, and the marks heard in the pass (wraps, pass starts, clicks) at their output
/// offsets. Made, and every page of it touched, on the control thread (`LoopCacheSupply`), handed to
/// the audio thread by pointer and handed back to be freed; the audio thread only writes into it and
/// reads it.
public struct LoopCache: ~Copyable, @unchecked Sendable {
    public let channelCount: Int
    /// Frames it can hold per channel.
    public let capacityFrames: Int
    /// Marks it can hold (a pass with more plays live).
    public let markCapacity: Int
    let samples: UnsafeMutablePointer<Float>
    /// Per mark: its kind (`MarkKind`) and output offset in the pass.
    let markKinds: UnsafeMutablePointer<Int>
    let markOffsets: UnsafeMutablePointer<Int>

    public init(capacityFrames: Int, channelCount: Int, markCapacity: Int = 4096) {
        self.channelCount = max(1, channelCount)
        self.capacityFrames = max(1, capacityFrames)
        self.markCapacity = max(1, markCapacity)
        samples = .allocate(capacity: self.capacityFrames * self.channelCount)
        samples.initialize(repeating: 0, count: self.capacityFrames * self.channelCount)  // (touched: no page fault later)
        markKinds = .allocate(capacity: self.markCapacity)
        markKinds.initialize(repeating: 0, count: self.markCapacity)
        markOffsets = .allocate(capacity: self.markCapacity)
        markOffsets.initialize(repeating: 0, count: self.markCapacity)
    }

    deinit {
        samples.deallocate()
        markKinds.deallocate()
        markOffsets.deallocate()
    }

    /// Bytes it holds.
    public var byteCount: Int { capacityFrames * channelCount * MemoryLayout<Float>.stride + markCapacity * 2 * MemoryLayout<Int>.stride }

    @inline(__always)
    func channel(_ channel: Int) -> UnsafeMutablePointer<Float> { samples + channel * capacityFrames }

    /// Control thread: the cache on the heap, as the engine takes it (its address, as bits).
    public static func handOver(_ cache: consuming LoopCache) -> UInt {
        let pointer = UnsafeMutablePointer<LoopCache>.allocate(capacity: 1)
        pointer.initialize(to: cache)
        return UInt(bitPattern: pointer)
    }

    /// Control thread: frees a cache the engine handed back (or one never handed over).
    public static func free(_ bits: UInt) {
        guard let pointer = UnsafeMutablePointer<LoopCache>(bitPattern: bits) else { return }
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}

/// The loop cache's state, as published (`EngineStatus.loopCache`) and reported.
public enum LoopCacheState: Int, Sendable, BitwiseCopyable {
    /// Every pass is stretched live.
    case off = 0
    /// A pass is being kept as it plays.
    case filling = 1
    /// The kept pass is played again.
    case replay = 2

    public var name: String {
        switch self {
        case .off: return "off"
        case .filling: return "filling"
        case .replay: return "replay"
        }
    }
}

/// Why the loop cache changed state (`EngineEvent.loopCache`).
public enum LoopCacheReason: UInt8, Sendable, BitwiseCopyable, CaseIterable {
    /// A pass began at a wrap with the stretcher running steadily: it is being kept.
    case pass
    /// The kept pass is complete and nothing changed: it plays from memory.
    case kept
    case speed, pitch
    /// A or B moved, a named loop, the loop turned off.
    case loop
    case gap
    case countIn
    /// The metronome turned on or off, or its beats changed.
    case click
    /// A drill's next line (or its end) comes at the next wrap.
    case line
    /// The last pass asked for (`--loops N`).
    case end
    case seek
    /// A hand-over of stretchers (another engine, pitch consistency), or the start of one.
    case stretcher
    /// The pass is longer than the cache may hold: it plays live.
    case tooLong
    /// Turned off (`--loop-cache off`).
    case disabled
    /// The pass did not come out as kept (its marks differ): played live again.
    case marks

    public var name: String {
        switch self {
        case .pass: return "pass"
        case .kept: return "kept"
        case .speed: return "speed"
        case .pitch: return "pitch"
        case .loop: return "loop"
        case .gap: return "gap"
        case .countIn: return "count-in"
        case .click: return "click"
        case .line: return "line"
        case .end: return "end"
        case .seek: return "seek"
        case .stretcher: return "stretcher"
        case .tooLong: return "too-long"
        case .disabled: return "off"
        case .marks: return "marks"
        }
    }
}
