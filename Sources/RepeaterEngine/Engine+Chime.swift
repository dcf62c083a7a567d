/// Audio thread: the minute repeater's strikes, mixed over whatever plays.
extension Engine {
    /// Starts a chime for h:m at the first frame of this cycle, unless one is sounding: then it is
    /// refused (and reported), never queued.
    func startChime(hour: Int, minute: Int) {
        if chimeActive {
            post(.chimeBusy)
            return
        }
        chime = ChimeSchedule(hour: hour, minute: minute, sampleRate: configuration.sampleRate, tempo: configuration.chimeTempo)
        let count = chime.count
        chimePosition = 0
        chimeLength = count > 0 ? chime.onset(count - 1) + max(gongs.lowFrames, gongs.highFrames) : 0
        chimeActive = true
        post(.chimeStarted(hour: hour, minute: minute, strikes: count))
    }

    /// Adds the strikes that sound during the next `frameCount` frames to the first two outputs.
    func mixChime(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        if !chimeActive { return }
        let start = chimePosition
        let end = start + frameCount
        let targets = min(2, outputChannelCount)
        for index in 0..<chime.count {
            let onset = chime.onset(index)
            let isHigh = chime.kind(index) == .high
            let length = isHigh ? gongs.highFrames : gongs.lowFrames
            let samples = isHigh ? gongs.high : gongs.low
            let from = max(start, onset)
            let to = min(end, onset + length)
            if from >= to { continue }
            for frame in from..<to {
                let value = samples[frame - onset]
                for channel in 0..<targets { outputs[channel][frame - start] += value }
            }
        }
        chimePosition = end
        if chimePosition >= chimeLength {
            chimeActive = false
            post(.chimeEnded)
        }
    }
}
