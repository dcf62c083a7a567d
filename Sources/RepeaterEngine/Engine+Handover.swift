/// Audio thread: the hand-over between stretchers (and the raw stream, and the loop cache's
/// replay): the incoming side pre-rolled until it lines up, then one crossfade (see
/// `Engine+Stretch.swift`).
extension Engine {
    /// Pre-roll: feeds the incoming stretcher (within budget) and discards its output until it lines
    /// up with the output position; then the crossfade starts.
    func lineUpIncoming() {
        guard let fresh = incoming, fadePosition < 0 else { return }
        let position = outputPosition + incomingShift
        let wantDiscard = max(0, Int((position - Double(incomingStart)) / handoverStep))
        var rounds = 0
        while rounds < 64 {
            rounds += 1
            if incomingDiscarded < wantDiscard {
                let ready = fresh.pointee.available()
                if ready > 0 {
                    let n = min(min(ready, wantDiscard - incomingDiscarded), stretchScratchFrames)
                    let got = fresh.pointee.retrieve(into: UnsafePointer(mixScratch), offset: 0, frameCount: n)
                    incomingDiscarded += got
                    incomingSinceFeed += got
                    incomingRetrieved += got
                    continue
                }
            } else if position >= incomingWarmUntil, fresh.pointee.available() > 0 {
                fadePosition = 0  // lined up: the crossfade starts at this very output frame
                return
            } else if position < incomingWarmUntil, fresh.pointee.available() > 0 {
                return  // lined up, waiting out its pad
            }
            if feedBudget <= 0 { return }
            if !feed(fresh, at: &incomingFed, budget: &feedBudget) { return }
            incomingSinceFeed = 0
        }
    }

    /// One short crossfade from the outgoing side to the incoming one, as both advance in step; at
    /// its end the incoming side runs alone.
    func crossfade(into outputs: UnsafePointer<UnsafeMutablePointer<Float>>, at offset: Int, count: Int) -> Int {
        let length = configuration.declickFrames
        let m = min(min(count, length - fadePosition), stretchScratchFrames)
        // The outgoing side into the outputs.
        let outgoing: Int
        switch phase {
        case .direct: outgoing = 0
        case .delayed: outgoing = playRaw(into: outputs, at: offset, count: m)
        case .stretching: outgoing = playStretched(into: outputs, at: offset, count: m)
        case .replaying: outgoing = playReplay(into: outputs, at: offset, count: m)
        }
        // The incoming side into the scratch.
        var incomingCount = 0
        if handover == .toRaw {
            if streamEnd < rawCursor + outgoing { pullIntoRing(rawCursor + outgoing - streamEnd) }
            incomingCount = max(0, min(outgoing, streamEnd - rawCursor))
            stream.copy(from: rawCursor, count: incomingCount, into: UnsafePointer(mixScratch), at: 0)
            rawCursor += incomingCount
        } else if let fresh = incoming {
            var unlimited = Int.max
            var rounds = 0
            while incomingCount < outgoing, rounds < 64 {
                rounds += 1
                let ready = fresh.pointee.available()
                if ready > 0 {
                    let got = fresh.pointee.retrieve(into: UnsafePointer(mixScratch), offset: incomingCount,
                                                     frameCount: min(ready, outgoing - incomingCount))
                    incomingCount += got
                    incomingSinceFeed += got
                    incomingRetrieved += got
                    continue
                }
                if !feed(fresh, at: &incomingFed, budget: &unlimited) { break }
                incomingSinceFeed = 0
            }
        }
        // Equal-gain: the two sides carry the same music at the same place, so their sum keeps its level.
        let scale = 1 / Float(length + 1)
        for i in 0..<outgoing {
            let gain = Float(fadePosition + i + 1) * scale
            for channel in 0..<channelCount {
                let incomingSample = i < incomingCount ? mixScratch[channel][i] : 0
                outputs[channel][offset + i] = outputs[channel][offset + i] * (1 - gain) + incomingSample * gain
            }
        }
        fadePosition += outgoing
        if fadePosition >= length { finishHandover() }
        return outgoing
    }

    /// The crossfade is over: the incoming side runs; the outgoing stretcher goes back to be freed.
    func finishHandover() {
        fadePosition = -1
        if handover == .toRaw {
            if let used = stretcher { giveBack(used) }
            stretcher = nil
            phase = .delayed
            outCursor = rawCursor
            currentSpeed = 1
            currentPitch = 0
            stretchDelay = 0
            publishLatency()
        } else if let fresh = incoming {
            if let used = stretcher {
                giveBack(used)
            } else if phase != .replaying {
                inputCursor = Double(outCursor)
            }
            if fresh.pointee.flavour == .resampler {
                // Exact: its next frame carries the frame after the ones it has given.
                inputCursor = Double(incomingStart) + Double(incomingRetrieved) * handoverStep
                timingOffset = 0
            }
            stretcher = fresh
            stretcherFed = incomingFed
            retrievedSinceFeed = incomingSinceFeed
            trustTiming(fresh, fedFrom: incomingStart, step: handoverStep)
            phase = .stretching
            if !fresh.pointee.pitchConsistent { currentPitch = 0 }
            stretchDelay = fresh.pointee.latencyFrames()
            publishLatency()
        }
        incoming = nil
        handover = .none
        consistentIdleFrames = 0
    }

    /// A seek or the end of a pass: any hand-over in progress is dropped (its stretcher goes back).
    func abandonHandover() {
        if let fresh = incoming { giveBack(fresh) }
        incoming = nil
        handover = .none
        fadePosition = -1
    }
}
