/// Audio thread: where frames come from (ring or loop-head cache) and the fades at a loop seam.
extension Engine {
    /// Copies up to `count` frames in order into the outputs at `offset`, wrapping from B to A (and
    /// inserting the gap) as it goes; returns how many. Fewer means the ring ran dry, or the source
    /// ended (`sourceEnded`).
    /// `streamFrame` indexes the pulled stream for the output log and the wrap events: the output
    /// frame when the stretcher is bypassed, its input frame (in a separate range) when it runs.
    func pull(into outputs: UnsafePointer<UnsafeMutablePointer<Float>>, at offset: Int, count: Int, streamFrame: Int) -> Int {
        if sourceEnded { return 0 }
        var got = 0
        while got < count {
            let outputFrame = streamFrame &+ got
            if pendingCountIn {
                pendingCountIn = false
                startCountIn(key: outputFrame)
            }
            if gapRemaining > 0 {
                let n = min(gapRemaining, count - got)
                silence(outputs, from: offset + got, count: n)
                finishSeam(outputs, from: offset + got, count: n, isSilence: true)
                logPulled(outputFrame, sourceFrame: playhead, frameCount: n, isSilence: true)
                gapRemaining -= n
                got += n
                continue
            }
            if loopOn, playhead >= loopB {
                if finishingAfterGap {  // the gap after a drill's last pass has played: the end
                    finishingAfterGap = false
                    sourceEnded = true
                    break
                }
                if finishQueued {  // a drill's last pass: its gap (the last answer), then the end
                    finishQueued = false
                    finishLastPass(outputFrame: outputFrame)
                    if gapFrames > 0 {
                        sourceEnded = false
                        finishingAfterGap = true
                        gapRemaining = gapFrames
                        continue
                    }
                    break
                }
                if configuration.maxPasses > 0, passes + 1 >= configuration.maxPasses {
                    finishLastPass(outputFrame: outputFrame)
                    break
                }
                if queuedA >= 0 {
                    wrapToQueued(outputFrame: outputFrame)
                    continue
                }
                let slot = usableHeadSlot()
                if slot >= 0 {
                    wrap(to: slot, outputFrame: outputFrame)
                    continue
                }
                // No head is cached for an A before B yet (the loop was just moved far away): play on
                // for the few milliseconds until it is, rather than leave a hole.
            }
            if passStartPending {
                passStartPending = false
                if loopOn, playhead == loopA { postPassStart(frame: playhead, streamFrame: outputFrame) }
            }
            var limit = count - got
            if loopOn, playhead < loopB { limit = min(limit, loopB - playhead) }
            let fromHead = headActive >= 0
            let n = fromHead ? readHead(into: outputs, at: offset + got, limit: limit)
                             : readRing(into: outputs, at: offset + got, limit: limit)
            if n == 0 {
                if fromHead { continue }  // the head ran out: the ring, parked there, continues
                break
            }
            finishSeam(outputs, from: offset + got, count: n, isSilence: false)
            logPulled(outputFrame, sourceFrame: playhead, frameCount: n, isSilence: false)
            markBeats(from: playhead, count: n, key: outputFrame)
            playhead += n
            got += n
        }
        return got
    }

    /// Records what a pull carried: straight to the outputs (keyed by output frame) in the output log,
    /// into the stream ring (keyed by stream index) in the stream log.
    @inline(__always)
    private func logPulled(_ key: Int, sourceFrame: Int, frameCount: Int, isSilence: Bool) {
        if key >= stretchStreamBase {
            streamLog.append(outputFrame: key, sourceFrame: sourceFrame, frameCount: frameCount, isSilence: isSilence)
        } else {
            log.append(outputFrame: key, sourceFrame: sourceFrame, frameCount: frameCount, isSilence: isSilence)
        }
    }

    /// Copies up to `limit` frames from the active head slot; at its end, hands over to the ring
    /// (parked at exactly that frame) and returns 0.
    private func readHead(into outputs: UnsafePointer<UnsafeMutablePointer<Float>>, at offset: Int, limit: Int) -> Int {
        let position = playhead - headStart
        let available = headCount - position
        if position < 0 || available <= 0 {
            headActive = -1
            return 0
        }
        let n = min(limit, available)
        for channel in 0..<channelCount {
            UnsafeMutableRawPointer(outputs[channel] + offset)
                .copyMemory(from: heads.channel(channel, ofSlot: headActive) + position, byteCount: n * MemoryLayout<Float>.stride)
        }
        return n
    }

    /// Copies up to `limit` frames of the current generation from the ring.
    private func readRing(into outputs: UnsafePointer<UnsafeMutablePointer<Float>>, at offset: Int, limit: Int) -> Int {
        if currentSlot < 0 {
            guard acquireBlock() else { return 0 }
        }
        ringParkedAt = -1
        let n = min(limit, currentTag.frameCount - offsetInBlock)
        for channel in 0..<channelCount {
            UnsafeMutableRawPointer(outputs[channel] + offset)
                .copyMemory(from: blocks.channel(channel, ofSlot: currentSlot) + offsetInBlock, byteCount: n * MemoryLayout<Float>.stride)
        }
        offsetInBlock += n
        if offsetInBlock == currentTag.frameCount {
            blocks.release()
            currentSlot = -1
        }
        return n
    }

    /// Makes the next usable ring block current; skips blocks of older generations. False when none
    /// is there (or the end marker came: `sourceEnded`).
    private func acquireBlock() -> Bool {
        while let slot = blocks.readableSlot() {
            let tag = blocks.tag(ofSlot: slot)
            if tag.generation != generation {
                blocks.release()
                status.staleBlocks.add(1, ordering: .relaxed)
                continue
            }
            if tag.isEnd {
                blocks.release()
                sourceEnded = true
                return false
            }
            let offset = playhead - tag.startFrame  // 0 unless the reader started mid-block
            if !(0..<tag.frameCount).contains(offset) {
                blocks.release()
                status.staleBlocks.add(1, ordering: .relaxed)
                continue
            }
            currentSlot = slot
            currentTag = tag
            offsetInBlock = offset
            awaitingSeekData = false
            return true
        }
        return false
    }

    /// Releases blocks of older generations at the front of the ring, so that the reader has room
    /// for the new stream while the engine plays from a loop head and does not read the ring.
    func dropStaleBlocks() {
        if currentSlot >= 0 { return }
        while let slot = blocks.readableSlot() {
            if blocks.tag(ofSlot: slot).generation == generation { return }
            blocks.release()
            status.staleBlocks.add(1, ordering: .relaxed)
        }
    }

    /// Re-aims the disk reader at `frame` (a new generation); the ring's older blocks become stale.
    func aimRing(at frame: Int) {
        generation &+= 1
        if currentSlot >= 0 {
            blocks.release()
            currentSlot = -1
        }
        request(.seek(frame: frame, generation: generation))
        ringParkedAt = frame
        dropStaleBlocks()  // make room for the new stream at once
    }

    // MARK: seam crossfade

    /// Captures the frames that would have followed the seam at `frame` (the continuation after B),
    /// from the head slot or the ring without consuming them; what is not at hand is silence.
    func captureSeamTail(from frame: Int) {
        let length = configuration.seamFadeFrames
        var have = 0
        if headActive >= 0 {
            let position = frame - headStart
            if position >= 0, position < headCount {
                have = min(length, headCount - position)
                for channel in 0..<channelCount {
                    let source = heads.channel(channel, ofSlot: headActive) + position
                    let tail = seamTail + channel * length
                    for i in 0..<have { tail[i] = source[i] }
                }
            }
        } else {
            var index = 0
            var next = frame
            while have < length, let slot = blocks.readableSlot(at: index) {
                let tag = blocks.tag(ofSlot: slot)
                index += 1
                if tag.generation != generation || tag.isEnd { break }
                let position = next - tag.startFrame
                if position < 0 { break }
                if position >= tag.frameCount { continue }
                let n = min(length - have, tag.frameCount - position)
                for channel in 0..<channelCount {
                    let source = blocks.channel(channel, ofSlot: slot) + position
                    let tail = seamTail + channel * length + have
                    for i in 0..<n { tail[i] = source[i] }
                }
                have += n
                next += n
            }
        }
        for channel in 0..<channelCount {
            let tail = seamTail + channel * length
            for i in have..<length { tail[i] = 0 }
        }
        tailPosition = 0
        fadeInPosition = 0
    }

    /// After a seam: fades A in (source frames only) and mixes the faded-out continuation over
    /// whatever follows (A, or the gap): an equal-gain crossfade that never changes the loop length.
    func finishSeam(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, from offset: Int, count: Int, isSilence: Bool) {
        let length = configuration.seamFadeFrames
        if tailPosition >= length, fadeInPosition >= length { return }
        let step = 1 / Float(length + 1)
        for i in 0..<count {
            if !isSilence, fadeInPosition < length {
                let gain = Float(fadeInPosition + 1) * step
                for channel in 0..<channelCount { outputs[channel][offset + i] *= gain }
                fadeInPosition += 1
            }
            if tailPosition < length {
                let gain = 1 - Float(tailPosition + 1) * step
                for channel in 0..<channelCount {
                    outputs[channel][offset + i] += seamTail[channel * length + tailPosition] * gain
                }
                tailPosition += 1
            }
        }
    }
}
