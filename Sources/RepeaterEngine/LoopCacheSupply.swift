/// The control thread's side of the loop cache: a buffer as large as the engine asks for to keep the
/// next pass in (`EngineStatus.loopCacheWanted`, up to `Engine.Configuration.loopCacheBytes`),
/// allocated and every page touched here, never on the audio thread; the ones the engine is done
/// with are freed. At most one waits to be taken.
public final class LoopCacheSupply {
    private let engine: Engine
    /// Buffers made, and the bytes of the largest.
    public private(set) var made = 0, largestBytes = 0

    public init(engine: Engine) { self.engine = engine }

    /// Control thread, often (each loop turn).
    public func service() {
        while let bits = engine.usedLoopCaches.pop() { LoopCache.free(bits) }
        let wanted = engine.status.loopCacheWanted.load(ordering: .relaxed)
        guard wanted > 0, engine.freshLoopCaches.count == 0,
              wanted > engine.status.loopCacheCapacity.load(ordering: .relaxed) else { return }
        let budget = engine.configuration.loopCacheBytes / (engine.channelCount * MemoryLayout<Float>.stride)
        // Whole seconds, so that a loop moved a little does not ask again.
        let second = engine.configuration.sampleRate
        let frames = min(budget, (wanted + second - 1) / second * second)
        guard frames >= wanted else { return }  // (the engine reports a pass too long itself)
        let cache = LoopCache(capacityFrames: frames, channelCount: engine.channelCount)
        largestBytes = max(largestBytes, cache.byteCount)
        made += 1
        let bits = LoopCache.handOver(cache)
        if !engine.freshLoopCaches.push(bits) { LoopCache.free(bits) }
    }

    /// After the audio thread has stopped: frees what is queued either way.
    public func drain() {
        while let bits = engine.usedLoopCaches.pop() { LoopCache.free(bits) }
        while let bits = engine.freshLoopCaches.pop() { LoopCache.free(bits) }
    }
}
