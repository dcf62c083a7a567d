import RepeaterEngine

extension PlanarAudio {
    /// This audio through an `Isolator` in `mode` (set at once, before the first frame), driven as
    /// the engine drives it (planar blocks of the sizes in `blocks`, repeating, processed in place),
    /// with the isolator's latency of silence appended and then cut from the front: frame n of the
    /// result is the isolator's answer to frame n. Nil for a mode the layout cannot do.
    public func isolated(_ mode: IsolationMode, blocks: [Int] = [256]) -> PlanarAudio? {
        var isolator = Isolator(channelCount: channelCount, sampleRate: sampleRate)
        guard isolator.setMode(mode, immediately: true) else { return nil }
        let latency = isolator.latencyFrames(for: mode), total = frameCount + latency
        let maxBlock = blocks.max() ?? 256
        let buffers = (0..<channelCount).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: maxBlock) }
        let pointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channelCount)
        for channel in 0..<channelCount { pointers[channel] = buffers[channel] }
        defer {
            buffers.forEach { $0.deallocate() }
            pointers.deallocate()
        }
        var output = Array(repeating: [Float](repeating: 0, count: frameCount), count: channelCount)
        var done = 0, index = 0
        while done < total {
            let count = min(blocks[index % blocks.count], total - done)
            for channel in 0..<channelCount {
                let input = channels[channel]
                for i in 0..<count { buffers[channel][i] = done + i < frameCount ? input[done + i] : 0 }
            }
            isolator.process(UnsafePointer(pointers), frameCount: count)
            for channel in 0..<channelCount {
                for i in 0..<count where done + i >= latency { output[channel][done + i - latency] = buffers[channel][i] }
            }
            done += count
            index += 1
        }
        return PlanarAudio(channels: output, sampleRate: sampleRate)
    }
}
