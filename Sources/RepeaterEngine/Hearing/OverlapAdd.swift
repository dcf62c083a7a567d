/// One output stream of an overlap-add: the frames synthesised so far, summed. After each frame,
/// its first hop is complete (no later frame reaches back that far) and is moved to `hop`, from
/// which it is played out during the next hop.
struct OverlapAdd: ~Copyable, @unchecked Sendable {
    let frameFrames: Int
    let hopFrames: Int
    /// Output frames [frame start, frame start + N) of the latest frame, partly summed.
    let accumulator: UnsafeMutablePointer<Float>
    /// The completed hop being played out.
    let hop: UnsafeMutablePointer<Float>

    /// Control thread.
    init(frameFrames: Int, hopFrames: Int) {
        self.frameFrames = frameFrames
        self.hopFrames = hopFrames
        accumulator = .allocate(capacity: frameFrames)
        accumulator.initialize(repeating: 0, count: frameFrames)
        hop = .allocate(capacity: hopFrames)
        hop.initialize(repeating: 0, count: hopFrames)
    }

    deinit {
        accumulator.deallocate()
        hop.deallocate()
    }

    /// Real-time thread. Moves the completed first hop to `hop` (or drops it, when `keep` is false:
    /// priming) and shifts the rest down.
    @inline(__always)
    func completeHop(keep: Bool = true) {
        if keep { copySamples(accumulator, to: hop, count: hopFrames) }
        copySamples(accumulator + hopFrames, to: accumulator, count: frameFrames - hopFrames)
        zeroSamples(accumulator + (frameFrames - hopFrames), count: hopFrames)
    }

    /// Real-time thread. Silence.
    func clear() {
        zeroSamples(accumulator, count: frameFrames)
        zeroSamples(hop, count: hopFrames)
    }
}
