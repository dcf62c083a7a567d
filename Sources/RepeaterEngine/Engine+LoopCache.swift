/// Audio thread: the loop cache. A loop at a steady speed plays the same pass again and again;
/// stretching each one anew costs Rubber Band's whole work (and its bursts) every time, for a pass
/// that differs from the one before by little (consecutive stretched passes correlate at 0.994). So
/// the engine keeps one live pass as it plays and then plays it again from memory.
///
/// - **Keeping.** A pass is kept from a wrap, as heard (the wrap mark's output frame), to the next:
///   the stretcher's output frames (before the isolation, the EQ, a take, the clicks and the gains,
///   which all act on the replayed pass as on a live one) and the marks reached in it (wraps, pass
///   starts, clicks) at their offsets. Only while Rubber Band runs steadily with the loop on: the
///   stretcher settled at its ratios, its timing trusted, no hand-over, no next line queued. The
///   first pass after a start or a seek begins without a wrap, so the first kept is the second.
/// - **Into the replay, at the pass boundary.** At the next wrap, if nothing changed (A, B, speed,
///   pitch, the gap, the count-in, the metronome, the stretcher), the live stream plays on for
///   10 ms, then crossfades over `declickFrames` into the kept pass; what came out is written back
///   over the pass's first frames. That is the seam of every replayed pass: the kept pass's last
///   frame followed by the live stream's next 10 ms, as the live stream joined them (the splice and
///   its transient, measured the same), then into the pass. Every replayed pass, the first
///   included, is the same frames, bit for bit.
/// - **Marks** come from the pass as kept: each at its offset from the replayed pass's start, acting
///   on the mark the pulled stream queued for it (the stream is pulled on as if live: the wraps, the
///   head cache and the disk reader go on, and the events carry their own counts). Each replayed
///   wrap re-anchors the cursor to its mark, so "A/B here", a later hand-over and the pulled stream
///   stay on what is heard.
/// - **Out of the replay.** Any change leaves at the next cycle: a fresh stretcher is pre-rolled at
///   the replayed ratio on the stream frames before the position heard, and crossfaded in, as any
///   switch (then it glides to new targets). A drill's next line, or the last pass of `--loops`,
///   leaves half a second before the pass ends, so the wrap is live. A seek drops it at once.
/// - **Memory** comes from the control thread (`loopCacheWanted` → `LoopCacheSupply`), at most
///   `Configuration.loopCacheBytes` (64 MiB: 174 s of stereo at 48 kHz); a longer pass plays live
///   and says so (`tooLong`).
extension Engine {
    /// The crossfade into the kept pass, and at each of its seams.
    var cacheSeamFrames: Int { max(16, configuration.declickFrames) }

    /// Frames of the live stream kept after the seam before that crossfade begins (10 ms): the
    /// seam of a replayed pass is then the live seam it was kept with, to the sample.
    var cacheSeamDelay: Int { configuration.sampleRate / 100 }

    /// Input frames the stream is pulled ahead of what a replay plays.
    var replayLookahead: Int { 8192 }

    /// The most frames a pass may have (the memory budget).
    var cacheBudgetFrames: Int { configuration.loopCacheBytes / (channelCount * MemoryLayout<Float>.stride) }

    /// Takes a buffer from the control thread (only while none is in use); the one replaced goes back.
    func takeLoopCaches() {
        guard cacheState == .off, phase != .replaying, freshLoopCaches.count > 0, let bits = freshLoopCaches.pop(),
              let fresh = UnsafeMutablePointer<LoopCache>(bitPattern: bits) else { return }
        if let old = loopCache, !usedLoopCaches.push(UInt(bitPattern: old)) { status.lostRequests.add(1, ordering: .relaxed) }
        loopCache = fresh
        controlWorkPending = true
        status.loopCacheCapacity.store(fresh.pointee.capacityFrames, ordering: .relaxed)
    }

    /// Cycle start, after `updateStretch` (which leaves the replay): stops keeping a pass on any
    /// change (a switch into it already begun completes, so that its crossfade is never cut: the
    /// replay is then left as any); asks for memory for the next pass.
    func updateLoopCache(frameCount: Int) {
        if cacheState == .filling, let reason = cacheChange() { dropLoopCache(reason) }
        // Memory for the next pass, asked for while nothing is kept.
        var wanted = 0
        if cacheState == .off, loopOn, phase == .stretching, controls.loopCacheOn.load(ordering: .relaxed) {
            let estimate = estimatedPassFrames()
            if estimate > cacheBudgetFrames {
                reportTooLong()
            } else if estimate > (loopCache?.pointee.capacityFrames ?? 0) {
                wanted = estimate + estimate / 8 + 4096
            }
        }
        if status.loopCacheWanted.load(ordering: .relaxed) != wanted {
            status.loopCacheWanted.store(wanted, ordering: .relaxed)
            controlWorkPending = true
        }
    }

    /// Output frames of one pass of the loop as it now plays: A…B and the gap (or the count-in).
    func estimatedPassFrames() -> Int {
        let step = max(0.01, targetSpeed * configuration.baseRate)
        let input = max(0, loopB - loopA) + max(gapFrames, countInBeats * countInPeriod)
        return Int(Double(input) / step) + 1
    }

    private func reportTooLong() {
        if cacheTooLongReported { return }
        cacheTooLongReported = true
        post(.loopCache(.off, .tooLong))
    }

    /// Replaying: why to leave now, if at all (a change, a mark that did not come as kept, or the
    /// next line or the end coming).
    func replayLeaveReason() -> LoopCacheReason? {
        if let reason = cacheLeaving { return reason }
        if let reason = cacheChange() { return reason }
        return cacheEndsSoon()
    }

    /// What changed since the pass was kept, if anything.
    private func cacheChange() -> LoopCacheReason? {
        if !controls.loopCacheOn.load(ordering: .relaxed) { return .disabled }
        if targetSpeed != cacheSpeed { return .speed }
        if targetPitch != cachePitch { return .pitch }
        if !loopOn { return .loop }
        if loopA != cacheA { return .loop }
        if loopB != cacheB { return .loop }
        if requestedA != cacheA { return .loop }
        if gapFrames != cacheGap { return .gap }
        if countInBeats * countInPeriod != cacheCountIn { return .countIn }
        if controls.clickOn.load(ordering: .relaxed) != cacheClick { return .click }
        if UInt(bitPattern: beatTable) != cacheBeats { return .click }
        if cacheState == .filling {
            if handover != .none { return .stretcher }
            if UInt(bitPattern: stretcher) != cacheStretcher { return .stretcher }
        }
        return nil
    }

    /// Replaying: a drill's next line, or the end, comes at the next wrap: leave half a second
    /// before the pass ends, so that the wrap itself is live.
    private func cacheEndsSoon() -> LoopCacheReason? {
        var reason: LoopCacheReason?
        if queuedA >= 0 { reason = .line }
        if finishQueued { reason = .line }
        if configuration.maxPasses > 0, passes + 1 >= configuration.maxPasses { reason = .end }
        guard let reason else { return nil }
        if cacheLength - replayPosition > configuration.sampleRate / 2, cacheLength > configuration.sampleRate { return nil }
        return reason
    }

    /// Stops keeping (or switching into) a pass, or marks the replay as left; reports it.
    func dropLoopCache(_ reason: LoopCacheReason) {
        if cacheState == .off { return }
        cacheState = .off
        cacheSwitchPosition = -1
        cacheLeaving = nil
        status.loopCache.store(LoopCacheState.off.rawValue, ordering: .relaxed)
        post(.loopCache(.off, reason))
    }

    // MARK: keeping a pass (live)

    /// A wrap mark reached live at `outputFrame`, where the output carried stream position
    /// `position` (input frames) and the mark sits at stream index `index`: a pass starts, or ends.
    func cacheWrapReached(outputFrame: Int, position: Double, index: Int) {
        switch cacheState {
        case .off:
            startKeeping(outputFrame: outputFrame, fraction: position - Double(index))
        case .filling:
            let length = chunkRecordBase + (outputFrame - chunkOutputFrame)
            if cacheChange() == nil, cacheEndsAtThisWrap() == nil, length > 4 * (cacheSeamDelay + cacheSeamFrames), length <= cacheFilledCapacity {
                // Complete: switch into it from here (the crossfade runs in `keepChunk`).
                cacheLength = length
                cacheSwitchPosition = 0
                replayPosition = 0
                replayMark = 1  // the wrap at offset 0: this one, acted on live
                cacheState = .replay
                status.loopCache.store(LoopCacheState.replay.rawValue, ordering: .relaxed)
                post(.loopCache(.replay, .kept))
            } else {
                dropLoopCache(cacheChange() ?? .line)
                startKeeping(outputFrame: outputFrame, fraction: position - Double(index))
            }
        case .replay:
            if cacheSwitchPosition >= 0 { replayMark += 1 }  // (cannot happen: a pass is longer than the switch)
        }
    }

    /// Any other mark reached live: kept with its offset while filling; counted while switching.
    func cacheMarkReached(kind: Int, outputFrame: Int) {
        if cacheState == .filling {
            guard let cache = loopCache, cacheMarkCount < cache.pointee.markCapacity else {
                dropLoopCache(.marks)
                return
            }
            cache.pointee.markKinds[cacheMarkCount] = kind
            cache.pointee.markOffsets[cacheMarkCount] = chunkRecordBase + (outputFrame - chunkOutputFrame)
            cacheMarkCount += 1
        } else if cacheState == .replay, cacheSwitchPosition >= 0 {
            replayMark += 1
        }
    }

    private var cacheFilledCapacity: Int { loopCache?.pointee.capacityFrames ?? 0 }

    /// The next wrap goes elsewhere (a drill's next line, the end): a pass ending there is not kept.
    private func cacheEndsAtThisWrap() -> LoopCacheReason? {
        if queuedA >= 0 { return .line }
        if finishQueued { return .line }
        if configuration.maxPasses > 0, passes + 1 >= configuration.maxPasses { return .end }
        return nil
    }

    /// Begins keeping the pass that starts at this wrap, when everything is steady.
    private func startKeeping(outputFrame: Int, fraction: Double) {
        guard controls.loopCacheOn.load(ordering: .relaxed), loopOn, phase == .stretching, handover == .none,
              let running = stretcher, running.pointee.flavour != .resampler, let cache = loopCache else { return }
        if currentSpeed != targetSpeed { return }
        if currentPitch != targetPitch { return }
        if stretcherFed < timingTrustedFrom { return }
        if cacheEndsAtThisWrap() != nil { return }
        if estimatedPassFrames() > cache.pointee.capacityFrames { return }
        cacheSpeed = targetSpeed
        cachePitch = targetPitch
        cacheA = loopA
        cacheB = loopB
        cacheGap = gapFrames
        cacheCountIn = countInBeats * countInPeriod
        cacheClick = controls.clickOn.load(ordering: .relaxed)
        cacheBeats = UInt(bitPattern: beatTable)
        cacheStretcher = UInt(bitPattern: running)
        cacheFraction = fraction
        cacheLength = 0
        chunkRecordBase = -(outputFrame - chunkOutputFrame)  // this chunk's frames before the wrap are not the pass's
        cache.pointee.markKinds[0] = MarkKind.wrap
        cache.pointee.markOffsets[0] = 0
        cacheMarkCount = 1
        cacheState = .filling
        status.loopCache.store(LoopCacheState.filling.rawValue, ordering: .relaxed)
        post(.loopCache(.filling, .pass))
    }

    /// After a chunk of live output (`count` frames in `outputs` at `offset`, output frames from
    /// `chunkOutputFrame`, its marks acted on): keeps its frames of the pass; while switching,
    /// crossfades them into the kept pass (and writes the mix back over the pass's first frames).
    /// True when the switch is over: the replay takes over from the chunk's end (the frames of the
    /// chunk past the crossfade are the kept pass's already).
    func keepChunk(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, at offset: Int, count: Int) -> Bool {
        guard cacheState != .off, let cache = loopCache else { return false }
        let end = cacheState == .replay ? cacheLength : cache.pointee.capacityFrames
        var i = max(0, -chunkRecordBase)
        // The pass itself.
        while i < count {
            let index = chunkRecordBase + i
            if index >= end { break }
            if cacheState == .filling, index >= cache.pointee.capacityFrames {
                dropLoopCache(.tooLong)
                return false
            }
            let n = min(count - i, end - index)
            for channel in 0..<channelCount {
                UnsafeMutableRawPointer(cache.pointee.channel(channel) + index)
                    .copyMemory(from: outputs[channel] + offset + i, byteCount: n * MemoryLayout<Float>.stride)
            }
            i += n
        }
        chunkRecordBase += count
        guard cacheState == .replay, cacheSwitchPosition >= 0 else { return false }
        // The switch: the live stream plays on through the seam (`cacheSeamDelay`: the splice
        // itself, its transient included, is the live one), then fades out while the kept pass's
        // frames fade in; all of it is written over the pass's first frames: the seam every replay plays.
        let delay = cacheSeamDelay, length = cacheSeamFrames
        let scale = 1 / Float(length + 1)
        while i < count {
            let o = chunkRecordBase - count + i - cacheLength  // offset in the new pass
            if cacheSwitchPosition >= delay + length {
                // Past the crossfade: the kept pass, as the replay will play it.
                for channel in 0..<channelCount { outputs[channel][offset + i] = cache.pointee.channel(channel)[o] }
            } else {
                let gain = cacheSwitchPosition < delay ? 0 : Float(cacheSwitchPosition - delay + 1) * scale
                for channel in 0..<channelCount {
                    let kept = cache.pointee.channel(channel)
                    let mixed = outputs[channel][offset + i] * (1 - gain) + kept[o] * gain
                    kept[o] = mixed
                    outputs[channel][offset + i] = mixed
                }
                cacheSwitchPosition += 1
            }
            replayPosition = o + 1
            i += 1
        }
        guard cacheSwitchPosition >= delay + length else { return false }
        // Over: the live stretcher goes back; the replay plays on from `replayPosition`.
        cacheSwitchPosition = -1
        if let used = stretcher { giveBack(used) }
        stretcher = nil
        phase = .replaying
        status.replayedPasses.add(1, ordering: .relaxed)
        return true
    }

    // MARK: replaying

    /// Plays up to `count` frames of the kept pass into `outputs` at `offset`, acting on its marks at
    /// their offsets, and pulls the stream on as the live stretcher would have been fed.
    func playReplay(into outputs: UnsafePointer<UnsafeMutablePointer<Float>>, at offset: Int, count: Int) -> Int {
        guard let cache = loopCache, cacheLength > 0 else { return 0 }
        let step = currentSpeed * configuration.baseRate
        // The stream a little ahead of what is heard: its marks are queued before they are due.
        let wanted = Int(inputCursor + timingOffset) + replayLookahead - streamEnd
        if wanted > 0 { pullIntoRing(wanted) }
        var done = 0
        while done < count {
            if replayPosition >= cacheLength {
                replayPosition = 0
                replayMark = 0
                status.replayedPasses.add(1, ordering: .relaxed)
            }
            let n = min(count - done, cacheLength - replayPosition)
            let outputFrame = renderedFrames &+ offset &+ done
            // The pass's marks in these frames, at their offsets.
            while replayMark < cacheMarkCount, cache.pointee.markOffsets[replayMark] < replayPosition + n {
                let at = outputFrame + max(0, cache.pointee.markOffsets[replayMark] - replayPosition)
                replayMarkReached(kind: cache.pointee.markKinds[replayMark], outputFrame: at, step: step,
                                  offsetInPass: cache.pointee.markOffsets[replayMark])
                replayMark += 1
            }
            for channel in 0..<channelCount {
                UnsafeMutableRawPointer(outputs[channel] + offset + done)
                    .copyMemory(from: cache.pointee.channel(channel) + replayPosition, byteCount: n * MemoryLayout<Float>.stride)
            }
            replayPosition += n
            inputCursor += Double(n) * step
            done += n
        }
        return done
    }

    /// A mark of the kept pass is due at `outputFrame`: the stream's next queued mark is acted on
    /// there (it is of the same kind while nothing changed; otherwise the replay is left). A wrap
    /// re-anchors the cursor: its mark's index, plus where the kept pass's wrap fell past its own.
    private func replayMarkReached(kind: Int, outputFrame: Int, step: Double, offsetInPass: Int) {
        guard pendingWrapCount > 0 else {
            if cacheLeaving == nil { cacheLeaving = .marks }
            return
        }
        let base = pendingWrapFirst * markFields
        if pendingWraps[base] != kind, cacheLeaving == nil { cacheLeaving = .marks }
        if pendingWraps[base] == MarkKind.wrap {
            inputCursor = Double(pendingWraps[base + 4]) + cacheFraction - timingOffset + Double(replayPosition - offsetInPass) * step
        }
        reachFirstMark(outputFrame: outputFrame)
    }
}
