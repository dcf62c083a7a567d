/// Audio thread: the A/B loop, the wrap, and the loop-head cache protocol.
///
/// The wrap is decided here, on source frames, before anything else touches the stream: the frame
/// after B−1 is A. Example, A = 100, B = 104, playing from 98: 98 99 100 101 102 103 | 100 101 …
/// (with a gap of 2: 103 · · 100). B moved behind the playhead wraps at the next frame. A new A
/// takes effect once its head is cached; until then the old A stands in if it is cached and still
/// before B, and otherwise playback goes on past B for the milliseconds the disk needs: a loop
/// never waits with silence and never splices anything but B−1 to A.
extension Engine {
    func setLoop(a: Int, b: Int) {
        guard a >= 0, a < b else {
            post(.refused(.aNotBeforeB, frame: a))
            return
        }
        loopB = min(b, configuration.sourceFrameCount)
        loopOn = true
        adoptA(a)
        post(.loop(a: loopA, b: loopB, enabled: loopOn))
    }

    func setA(_ a: Int) {
        guard a >= 0, a < loopB else {
            post(.refused(.aNotBeforeB, frame: a))
            return
        }
        adoptA(a)
        post(.loop(a: loopA, b: loopB, enabled: loopOn))
    }

    func setB(_ b: Int) {
        guard b > requestedA, b <= configuration.sourceFrameCount else {
            post(.refused(.bNotAfterA, frame: b))
            return
        }
        loopB = b
        if loopA >= b { loopA = requestedA }  // the stand-in A is no longer before B
        if readySlot(for: requestedA) < 0 { requestHead(for: requestedA) }
        loopOn = true
        post(.loop(a: loopA, b: loopB, enabled: loopOn))
    }

    func setLoopEnabled(_ on: Bool) {
        loopOn = on
        if on, readySlot(for: requestedA) < 0 { requestHead(for: requestedA) }
        post(.loop(a: loopA, b: loopB, enabled: loopOn))
    }

    /// Asks for `a`; it is in effect at once when its head is cached, or when no head is cached at
    /// all (the first wrap then jumps through the disk).
    private func adoptA(_ a: Int) {
        requestedA = a
        let cached = readySlot(for: a) >= 0
        // The old A stands in while the new head loads only if it is cached and still before B.
        var oldUsable = readySlot(for: loopA) >= 0
        if loopA >= loopB { oldUsable = false }
        if cached { loopA = a } else if !oldUsable { loopA = a }
        if !cached { requestHead(for: a) }
    }

    /// A head slot holding frames from `frame` on, or -1.
    func readySlot(for frame: Int) -> Int {
        for slot in 0..<heads.slotCount where slotFrame[slot] == frame {
            return slot
        }
        return -1
    }

    /// Asks the reader to cache the head at `frame` in a slot that is neither being read nor holding
    /// the A in effect (nor the A queued for the next wrap). One load at a time: a newer A is asked
    /// for when the current load lands.
    func requestHead(for frame: Int) {
        if loadInFlight { return }
        var chosen = -1
        for slot in 0..<heads.slotCount {
            if slot == headActive { continue }
            if slotFrame[slot] == loopA { continue }
            if queuedA >= 0, slotFrame[slot] == queuedA, frame != queuedA { continue }
            chosen = slot
            break
        }
        if chosen < 0 {
            for slot in 0..<heads.slotCount where slot != headActive {
                chosen = slot
                break
            }
        }
        slotFrame[chosen] = -1
        loadInFlight = true
        request(.loadHead(frame: frame, frameCount: heads.slotFrames, slot: chosen))
    }

    /// Takes the reader's answers: a cached head makes its A the one in effect.
    func takeHeadLoads() {
        while let loaded = headLoaded.pop() {
            loadInFlight = false
            slotFrame[loaded.slot] = loaded.frame
            slotCount[loaded.slot] = loaded.frameCount
            if loaded.frame == requestedA {
                if loopA != requestedA {
                    loopA = requestedA
                    post(.loop(a: loopA, b: loopB, enabled: loopOn), source: loopSource)
                }
            } else if loaded.frame == queuedA {
                if readySlot(for: requestedA) < 0 { requestHead(for: requestedA) }
            } else {
                requestHead(for: requestedA)
            }
        }
    }

    /// Plays from a cached head: `frame` lies in the slot; the ring is parked just after the slot's
    /// frames, so that it is ready when the head runs out.
    func enterHead(slot: Int, at frame: Int) {
        headActive = slot
        headStart = slotFrame[slot]
        headCount = slotCount[slot]
        playhead = frame
        awaitingSeekData = false
        let park = headStart + headCount
        if ringParkedAt != park { aimRing(at: park) }
    }

    /// The cached head to continue at: the A asked for when its head is in (it becomes the A in
    /// effect), else the A in effect when its head is cached and it is still before B; else -1.
    func usableHeadSlot() -> Int {
        let requested = readySlot(for: requestedA)
        if requested >= 0 {
            if loopA != requestedA {
                loopA = requestedA
                post(.loop(a: loopA, b: loopB, enabled: loopOn), source: loopSource)
            }
            return requested
        }
        if loopA >= loopB { return -1 }
        return readySlot(for: loopA)
    }

    /// At B: counts the pass and continues at A from its cached head `slot`, after the gap.
    func wrap(to slot: Int, outputFrame: Int) {
        let from = playhead
        passes += 1
        status.passes.store(passes, ordering: .relaxed)
        if configuration.seamFadeFrames > 0 { captureSeamTail(from: from) }
        enterHead(slot: slot, at: loopA)
        gapRemaining = gapFrames
        if countInBeats > 0 { pendingCountIn = true }
        postWrap(count: passes, from: from, to: loopA, streamFrame: outputFrame)
        passStartPending = true
    }

    /// Queues the loop A…B for the next wrap (its head is cached now, so that the wrap does not
    /// wait for the disk).
    func queueLoop(a: Int, b: Int, gapFrames gap: Int) {
        guard a >= 0, a < b, b <= configuration.sourceFrameCount else {
            post(.refused(.aNotBeforeB, frame: a))
            return
        }
        queuedA = a
        queuedB = b
        queuedGap = max(0, gap)
        finishQueued = false
        if readySlot(for: a) < 0 { requestHead(for: a) }
    }

    /// At B with a loop queued: on to it, after the current gap (from its cached head, or through
    /// the disk while the gap plays if the head is not in yet); its gap applies from then on.
    func wrapToQueued(outputFrame: Int) {
        let from = playhead
        passes += 1
        status.passes.store(passes, ordering: .relaxed)
        requestedA = queuedA
        loopA = queuedA
        loopB = queuedB
        let slot = readySlot(for: queuedA)
        if slot >= 0 {
            enterHead(slot: slot, at: queuedA)
        } else {
            headActive = -1
            playhead = queuedA
            aimRing(at: queuedA)
            awaitingSeekData = true
        }
        gapRemaining = gapFrames
        gapFrames = queuedGap
        queuedA = -1
        if countInBeats > 0 { pendingCountIn = true }
        postWrap(count: passes, from: from, to: loopA, streamFrame: outputFrame)
        passStartPending = true
        post(.loop(a: loopA, b: loopB, enabled: loopOn))
    }

    /// At B on the last pass asked for (`maxPasses`): the source ends here.
    func finishLastPass(outputFrame: Int) {
        passes += 1
        status.passes.store(passes, ordering: .relaxed)
        sourceEnded = true
        postWrap(count: passes, from: playhead, to: playhead, streamFrame: outputFrame)
    }

    /// Publishes the loop in effect for the control thread.
    func publishLoop() {
        status.loopA.store(loopA, ordering: .relaxed)
        status.loopB.store(loopB, ordering: .relaxed)
        status.loopOn.store(loopOn, ordering: .relaxed)
    }
}
