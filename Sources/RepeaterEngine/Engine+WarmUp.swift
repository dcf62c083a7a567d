extension Engine {
    /// Control thread, before any real-time use. Drives a throwaway engine through every path of
    /// `render` (play, pause, seek, stale blocks, underrun, end) so that the Swift runtime's one-time
    /// lazy work (generic metadata, witness tables: it allocates and locks) happens here, not on the
    /// audio thread. Debug builds need this most; release builds mostly specialize it away.
    public static func warmUpRuntime() {
        let engine = Engine(.init(channelCount: 1, blockFrames: 16, blockCount: 4, declickFrames: 4))
        let output = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        let outputs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 1)
        outputs.initialize(to: output)
        defer {
            output.deallocate()
            outputs.deallocate()
        }
        var position = 0
        var generation: UInt32 = 0
        func feed(end: Bool) {
            while let request = engine.readerRequests.pop() {
                if case .seek(let frame, let newGeneration) = request { position = frame; generation = newGeneration }
            }
            guard let slot = engine.blocks.writableSlot() else { return }
            let samples = engine.blocks.channel(0, ofSlot: slot)
            for i in 0..<16 { samples[i] = Float(position + i) }
            engine.blocks.publish(BlockTag(startFrame: position, frameCount: end ? 0 : 16, generation: generation, isEnd: end))
            position += end ? 0 : 16
        }
        feed(end: false)
        engine.render(frameCount: 8, outputs: outputs)
        engine.commands.push(.pause)
        engine.render(frameCount: 8, outputs: outputs)
        engine.commands.push(.play)
        engine.commands.push(.toggle)
        engine.commands.push(.toggle)
        engine.commands.push(.seek(frame: 100))
        engine.render(frameCount: 8, outputs: outputs)  // stale block skipped, waits for the seek
        feed(end: false)
        engine.render(frameCount: 64, outputs: outputs)  // plays, then underruns
        feed(end: true)
        engine.render(frameCount: 8, outputs: outputs)  // the end
        while engine.events.pop() != nil {}
    }
}
