/// Audio thread: speed and pitch through Rubber Band, and switches without a hole.
///
/// The output comes from one of four places (`StretchPhase`):
/// - `direct`: the source, pulled straight into the outputs (bypass: bit for bit, nothing extra);
/// - `delayed`: the source through the stream ring (still bit for bit), used while a stretcher is
///   prepared and after one was left, until the next seek;
/// - `stretching`: a stretcher fed from the stream ring: Rubber Band, or libsoxr's resampler (the
///   `resampler` flavour) when only the file's rate differs from the output's;
/// - `replaying`: a pass of the loop kept by the loop cache (`Engine+LoopCache.swift`).
///
/// A switch never fades the music out. A fresh stretcher (primed on the control thread) is pre-rolled
/// on the audio thread with the stream frames just before the switch point, in bites that fit the
/// cycle (`feedBudget`), its output discarded until it lines up with what is playing; then one short
/// crossfade (`declickFrames`) hands over at a known stream frame. Bypass → stretcher pre-rolls at
/// speed 1 (the stretcher then glides to the target), stretcher → bypass glides to speed 1 first and
/// crossfades into the raw frames the stretcher was fed, stretcher → stretcher (when pitch needs
/// Rubber Band's PitchHighConsistency, or no longer does) pre-rolls at the running ratio. A start, or
/// a seek, at a speed other than 1 pre-rolls the stretcher before the first frame is played. The
/// hand-over itself is in `Engine+Handover.swift`, the marks in `Engine+Marks.swift`.
///
/// Loops wrap on the pull side, before all this: the stream is continuous, the stretcher is never
/// reset at a wrap, and a loop stays exact in source frames.
extension Engine {
    /// Frames a fresh stretcher may be fed per cycle while it pre-rolls, on top of what plays: about
    /// one cycle's worth more, so a switch costs at most about twice a cycle's stretching.
    var prerollBudget: Int { configuration.prerollFramesPerCycle }

    // MARK: targets and decisions (cycle start)

    /// Reads the targets, starts hand-overs, and glides the running stretcher's ratios.
    func updateStretch(frameCount: Int) {
        let speed = min(4, max(0.25, controls.speed.load(ordering: .relaxed)))
        let pitch = min(24, max(-24, controls.pitchSemitones.load(ordering: .relaxed)))
        let baseRate = configuration.baseRate
        targetSpeed = speed
        targetPitch = pitch
        let wantStretch = speed != 1 || pitch != 0 || baseRate != 1
        let wanted = Stretcher.Flavour(speed: speed, pitch: pitch, baseRate: baseRate)
        feedBudget = max(prerollBudget, frameCount * 2)
        // Rubber Band starts only once the render-ahead helper renders (its bursts need the slack);
        // the resampler and the way back to bypass are cheap enough for the callback.
        // A steady replay of the loop cache needs no stretcher: only leaving it does.
        var leaveReason: LoopCacheReason?
        if phase == .replaying, handover == .none { leaveReason = replayLeaveReason() }
        var rubberBandWanted = wantStretch && wanted != .resampler
        if phase == .replaying, leaveReason == nil { rubberBandWanted = false }
        var mayStart = true
        if rubberBandWanted { mayStart = controls.renderAheadReady.load(ordering: .relaxed) }  // (no `||`: it would capture self)
        publishRenderAheadWish(rubberBandWanted)
        // A start at a speed other than 1 stays silent until the stretcher is primed, as always.
        var waiting = !mayStart  // (no `&&` with the engine's state: it would capture self)
        if hasPlayed { waiting = false }
        if phase == .stretching { waiting = false }
        waitingForHelper = waiting
        if !mayStart {
            // (the helper is being started: nothing new until it renders)
        } else if cacheSwitchPosition >= 0 {
            // (switching into the loop cache: 15 ms; then a change leaves the replay as any)
        } else if primeOnResume, handover == .none {
            // A seek while stretching: prime a fresh stretcher at the new place, or (none at hand, or
            // none wanted) carry on with the running one.
            primeOnResume = false
            if wantStretch, let fresh = takeFresh(wanted) { beginPriming(fresh) }
        } else if handover == .none {
            if phase == .replaying {
                // Out of the loop cache: a fresh stretcher pre-rolled at the replayed ratio, crossfaded.
                // Left (and said) at once; the replay plays on until a stretcher of the right kind is
                // at hand (the supply makes it the next moment).
                if let reason = leaveReason {
                    dropLoopCache(reason)
                    cacheLeaving = reason
                    if let fresh = takeFresh(wantStretch ? wanted : .plain) {
                        cacheLeaving = nil
                        beginHandover(to: fresh)
                    }
                }
            } else if phase != .stretching {
                if wantStretch, let fresh = takeFresh(wanted) {
                    if hasPlayed { beginHandover(to: fresh) } else { beginPriming(fresh) }
                }
            } else if let running = stretcher {
                let flavour = running.pointee.flavour
                if flavour == .resampler {
                    // Speed or pitch asked for: Rubber Band takes over at the rate the resampler plays.
                    if wanted != .resampler, let fresh = takeFresh(wanted) { beginHandover(to: fresh) }
                } else if !wantStretch {
                    if currentSpeed == 1, currentPitch == 0 { beginHandoverToRaw() }
                } else if wanted == .resampler {
                    // Back at speed 1, pitch 0 with the rates differing: the resampler takes over
                    // once Rubber Band has glided there.
                    if currentSpeed == 1, currentPitch == 0, let fresh = takeFresh(.resampler) { beginHandover(to: fresh) }
                } else if wanted == .consistent, flavour != .consistent {
                    if let fresh = takeFresh(.consistent) { beginHandover(to: fresh) }
                } else if wanted == .plain, flavour == .consistent, currentPitch == 0 {
                    // Pitch back at 0 for a second: a stretcher without the high-consistency mode
                    // costs 20 % (R3) to 40 % (R2) less.
                    consistentIdleFrames += frameCount
                    if consistentIdleFrames >= configuration.sampleRate, let fresh = takeFresh(.plain) {
                        beginHandover(to: fresh)
                    }
                }
                if wanted != .plain || flavour != .consistent { consistentIdleFrames = 0 }
            }
        }
        var stretchingNow = phase == .stretching
        if handover == .priming { stretchingNow = true }  // (no `||`: its right side would capture self)
        if phase == .replaying { stretchingNow = true }
        status.stretching.store(stretchingNow, ordering: .relaxed)
        // Glide only while nothing is being lined up with the running ratio (the resampler plays at
        // speed 1, pitch 0 until Rubber Band takes over).
        guard handover == .none, cacheSwitchPosition < 0, let running = stretcher, running.pointee.flavour != .resampler else {
            var atOne = stretcher == nil
            if let running = stretcher, running.pointee.flavour == .resampler { atOne = true }  // (no `||`: it would capture self)
            if phase == .replaying { atOne = false }  // (the replay plays at the ratio it was kept at)
            if atOne, handover != .priming {
                currentSpeed = 1
                currentPitch = 0
            }
            return
        }
        // One-pole glide towards the targets (about 30 ms at 256-frame periods), snapping when close.
        currentSpeed += (speed - currentSpeed) * 0.3
        if abs(currentSpeed - speed) < 0.0005 { currentSpeed = speed }
        currentPitch += (pitch - currentPitch) * 0.3
        if abs(currentPitch - pitch) < 0.005 { currentPitch = pitch }
        if !running.pointee.pitchConsistent { currentPitch = 0 }  // it waits for its successor
        applyRatios(running)
    }

    /// Sets a stretcher to `currentSpeed` and `currentPitch` (pitch in whole cents: each new pitch
    /// ratio makes Rubber Band 3.1.2 rebuild its resampler). Rubber Band resamples too, as Mixxx
    /// folds it in: time 1/(base·speed), pitch base·shift, base = source rate / output rate.
    func applyRatios(_ target: UnsafeMutablePointer<Stretcher>) {
        let baseRate = configuration.baseRate
        let cents = Double(Int((currentPitch * 100 + (currentPitch >= 0 ? 0.5 : -0.5))))
        target.pointee.setRatios(time: 1 / (baseRate * currentSpeed), pitch: baseRate * semitoneRatio(cents / 100))
    }

    /// Tells the JACK binding whether Rubber Band's bursts are to come: it runs or is handed in, or
    /// the targets ask for it.
    private func publishRenderAheadWish(_ rubberBandWanted: Bool) {
        var wish = rubberBandWanted
        if let running = stretcher, running.pointee.flavour != .resampler { wish = true }
        if handover == .toStretcher { wish = true }
        if let fresh = incoming, fresh.pointee.flavour != .resampler { wish = true }
        status.wantsRenderAhead.store(wish, ordering: .relaxed)
    }

    /// A fresh stretcher that can do what is needed (a high-consistency one can do anything a plain
    /// one can; the resampler only the file's rate); one that cannot goes back to be freed.
    private func takeFresh(_ wanted: Stretcher.Flavour) -> UnsafeMutablePointer<Stretcher>? {
        guard let bits = freshStretchers.pop(), let fresh = UnsafeMutablePointer<Stretcher>(bitPattern: bits) else { return nil }
        controlWorkPending = true  // (the supply primes the next)
        let flavour = fresh.pointee.flavour
        if flavour == wanted { return fresh }
        if flavour == .consistent, wanted == .plain { return fresh }
        giveBack(fresh)
        return nil
    }

    func giveBack(_ used: UnsafeMutablePointer<Stretcher>) {
        if !usedStretchers.push(UInt(bitPattern: used)) { status.lostRequests.add(1, ordering: .relaxed) }
        controlWorkPending = true
    }

    /// The output is stretched: a stretcher runs, or the loop cache replays a stretched pass.
    var stretchedPhase: Bool {
        switch phase {
        case .stretching, .replaying: return true
        case .direct, .delayed: return false
        }
    }

    /// The stream position (stream index, fractional while stretching) of the next output frame.
    var outputPosition: Double { stretchedPhase ? inputCursor : Double(outCursor) }

    /// Input frames per output frame of the running side.
    var runningStep: Double { stretchedPhase ? currentSpeed * configuration.baseRate : 1 }

    /// From the raw stream into the ring (if it was not already), so that a stretcher can be fed from it.
    private func enterRing() {
        guard phase == .direct else { return }
        phase = .delayed
        stream.reset(at: streamEnd)
        outCursor = streamEnd
    }

    /// Bypass or stretcher → a fresh stretcher: pre-roll it on the frames before the current
    /// position at the running ratio, then crossfade.
    private func beginHandover(to fresh: UnsafeMutablePointer<Stretcher>) {
        enterRing()
        incoming = fresh
        handover = .toStretcher
        handoverStep = runningStep
        // The resampler's timing is exact: it lines up with what Rubber Band's output carries by its
        // measured timing (the marks' position), and from the crossfade on the cursor is its own.
        incomingShift = phase == .stretching && fresh.pointee.flavour == .resampler ? timingOffset : 0
        let position = outputPosition + incomingShift
        // History: the stretcher's preferred start pad of real frames before the switch, where the
        // ring holds them (from a bypass just left it holds none: the fade then waits out the pad).
        let history = fresh.pointee.startPad
        incomingStart = max(stream.start, Int(position) - history)
        incomingWarmUntil = Double(incomingStart + history)
        incomingFed = incomingStart
        incomingDiscarded = 0
        incomingSinceFeed = 0
        incomingRetrieved = 0
        let stretched = stretchedPhase
        if stretched {
            currentPitch = fresh.pointee.pitchConsistent ? currentPitch : 0
        }
        // The fresh stretcher runs at the running ratio until the crossfade is over.
        let savedSpeed = currentSpeed, savedPitch = currentPitch
        if !stretched { (currentSpeed, currentPitch) = (1, 0) }
        applyRatios(fresh)
        (currentSpeed, currentPitch) = (savedSpeed, savedPitch)
        fadePosition = -1
    }

    /// Stretcher (glided to speed 1, pitch 0) → the raw stream: crossfade into the very frames it was
    /// fed, from the stream frame it has reached.
    private func beginHandoverToRaw() {
        handover = .toRaw
        rawCursor = Int(inputCursor + 0.5)
        fadePosition = 0
    }

    /// A start or a seek at a speed other than 1: the fresh stretcher is fed from the play position
    /// (after its own silent pad, as Rubber Band starts) until its first frame is ready; the output
    /// stays silent meanwhile and then begins with stretched audio.
    private func beginPriming(_ fresh: UnsafeMutablePointer<Stretcher>) {
        enterRing()
        if let running = stretcher {
            giveBack(running)
            stretcher = nil
            phase = .delayed  // the ring was reset at the seek's place
        }
        incoming = fresh
        handover = .priming
        primeOnResume = false
        (currentSpeed, currentPitch) = (targetSpeed, fresh.pointee.pitchConsistent ? targetPitch : 0)
        applyRatios(fresh)
        incomingStart = outCursor
        incomingFed = outCursor
        incomingDiscarded = 0
        incomingSinceFeed = 0
        incomingRetrieved = 0
        incomingShift = 0
        incomingWarmUntil = Double(outCursor)
        fadePosition = -1
        stretchDelay = fresh.pointee.latencyFrames()
        publishLatency()
    }

    /// Priming at a start or seek: feeds the fresh stretcher (within the cycle's budget) until its
    /// output is ready, then makes it the running stretcher. True once it runs.
    func advancePriming() -> Bool {
        guard handover == .priming, let fresh = incoming else { return handover != .priming }
        while fresh.pointee.available() <= 0 {
            if feedBudget <= 0 { return false }
            if !feed(fresh, at: &incomingFed, budget: &feedBudget) { return false }
        }
        stretcher = fresh
        incoming = nil
        handover = .none
        phase = .stretching
        stretcherFed = incomingFed
        retrievedSinceFeed = 0
        inputCursor = Double(incomingStart)
        // Where the measured timing says a stretcher started so carries its frames, at once (its
        // pipeline fills before the lag itself can be followed).
        let step = currentSpeed * configuration.baseRate
        timingOffset = fresh.pointee.timing.startOffset(ratio: timingRatio(fresh, step: step))
        trustTiming(fresh, fedFrom: incomingStart, step: step)
        return true
    }

    // MARK: producing output

    /// Produces up to `count` output frames into `outputs` at `offset`; fewer only when the source is
    /// late (an underrun) or has ended and everything it gave has been played.
    func produce(into outputs: UnsafePointer<UnsafeMutablePointer<Float>>, at offset: Int, count: Int) -> Int {
        var done = 0
        var rounds = 0
        while done < count, rounds < 16 {
            rounds += 1
            if handover == .toStretcher { lineUpIncoming() }
            let n: Int
            if fadePosition >= 0 {
                n = crossfade(into: outputs, at: offset + done, count: count - done)
            } else {
                switch phase {
                case .direct:
                    n = pull(into: outputs, at: offset + done, count: count - done, streamFrame: renderedFrames &+ offset &+ done)
                    streamEnd += n
                case .delayed: n = playRaw(into: outputs, at: offset + done, count: count - done)
                case .stretching: n = playStretched(into: outputs, at: offset + done, count: count - done)
                case .replaying: n = playReplay(into: outputs, at: offset + done, count: count - done)
                }
            }
            if n == 0 { break }
            done += n
        }
        if done > 0 { hasPlayed = true }
        return done
    }

    /// Pulls up to `count` source frames into the ring; returns how many (fewer: the source is late,
    /// or has ended: then `realEnd` marks the stream index after its last frame).
    @discardableResult
    func pullIntoRing(_ count: Int) -> Int {
        var done = 0
        while done < count {
            let n = min(count - done, stretchScratchFrames)
            let got = pull(into: UnsafePointer(stretchInputs), at: 0, count: n, streamFrame: stretchStreamBase &+ streamEnd)
            if got > 0 {
                stream.append(UnsafePointer(stretchInputs), offset: 0, count: got)
                streamEnd += got
                done += got
            }
            if got < n {
                if sourceEnded, realEnd < 0 { realEnd = streamEnd }
                break
            }
        }
        return done
    }

    /// Raw frames from the ring at `outCursor` (pulling what is missing), logged and with their
    /// wraps reported as they are played.
    func playRaw(into outputs: UnsafePointer<UnsafeMutablePointer<Float>>, at offset: Int, count: Int) -> Int {
        if streamEnd < outCursor + count { pullIntoRing(outCursor + count - streamEnd) }
        let n = min(count, streamEnd - outCursor)
        if n <= 0 { return 0 }
        stream.copy(from: outCursor, count: n, into: outputs, at: offset)
        logRawOutput(from: outCursor, count: n, outputFrame: renderedFrames &+ offset)
        postRawWraps(through: outCursor + n, outputBase: renderedFrames &+ offset &- outCursor)
        outCursor += n
        return n
    }

    /// Copies the stream log's runs for stream frames [`index`, +`count`) into the output log at
    /// `outputFrame`: "A/B here" stays exact through the ring.
    private func logRawOutput(from index: Int, count: Int, outputFrame: Int) {
        var done = 0
        while done < count {
            guard let run = streamLog.run(at: stretchStreamBase &+ index &+ done) else {
                log.append(outputFrame: outputFrame &+ done, sourceFrame: playhead, frameCount: count - done, isSilence: true)
                return
            }
            let n = min(count - done, run.remaining)
            log.append(outputFrame: outputFrame &+ done, sourceFrame: run.sourceFrame, frameCount: n, isSilence: run.isSilence)
            done += n
        }
    }

    /// The running stretcher's output: retrieves what is ready, else feeds what it asks for from the
    /// ring (silence after the source's end until every real frame is out).
    func playStretched(into outputs: UnsafePointer<UnsafeMutablePointer<Float>>, at offset: Int, count: Int) -> Int {
        guard let running = stretcher else { return 0 }
        var produced = 0
        var rounds = 0
        var unlimited = Int.max
        while produced < count, rounds < 64 {
            rounds += 1
            // The end: once both the cursor (Rubber Band's own timing, which its offline mode
            // shares: the length is the source's over the step) and the stretcher's measured timing
            // (where the last frames are heard, and the last pass's wrap mark) have passed the last
            // real frame. A pitch-consistent stretcher is heard up to a few hundred frames behind
            // the cursor; ending at the cursor alone cut that tail, and the last wrap with it.
            let last = min(inputCursor, inputCursor + timingOffset)
            if realEnd >= 0, last >= Double(realEnd) {
                sourceEnded = true
                break  // the tail is out
            }
            let ready = running.pointee.available()
            if ready > 0 {
                let step = currentSpeed * configuration.baseRate  // input frames per output frame
                var n = min(ready, count - produced)
                if realEnd >= 0 { n = min(n, Int((Double(realEnd) - last) / step) + 1) }
                let got = running.pointee.retrieve(into: outputs, offset: offset + produced, frameCount: n)
                let before = inputCursor
                inputCursor += Double(got) * step
                retrievedSinceFeed += got
                followTiming(running, step: step, frames: got)
                chunkOutputFrame = renderedFrames &+ offset &+ produced
                postReachedWraps(fromInput: before + timingOffset, toInput: inputCursor + timingOffset,
                                 outputFrame: chunkOutputFrame, step: step, live: true)
                let replayFromHere = keepChunk(outputs, at: offset + produced, count: got)
                produced += got
                if replayFromHere { return produced }  // (the loop cache took over: the stretcher is gone)
                continue
            }
            if !feed(running, at: &stretcherFed, budget: &unlimited) { break }  // the source is late
            retrievedSinceFeed = 0
        }
        return produced
    }

    /// Keeps `timingOffset`: how far the stream index the output carries (by the running stretcher's
    /// measured timing: the input fed, less the lag at this ratio, plus what was retrieved since) is
    /// from `inputCursor`, smoothed over about 100 ms. `inputCursor` counts output frames × step from
    /// where the stretcher started (the output's length and the hand-overs rest on it); the marks
    /// (wraps, clicks) and "A/B here" add the offset, so that they stay on what is heard after a
    /// change of speed, which changes the stretcher's lag (17 ms from 1 to 0.75 with R3).
    @inline(__always)
    func followTiming(_ running: UnsafeMutablePointer<Stretcher>, step: Double, frames: Int) {
        let timing = running.pointee.timing
        guard timing.isKnown, frames > 0, stretcherFed >= timingTrustedFrom else { return }
        let heard = Double(stretcherFed) - timing.lag(ratio: timingRatio(running, step: step)) + Double(retrievedSinceFeed) * step
        let gain = min(1, Double(frames) / Double(max(1, configuration.sampleRate / 10)))
        timingOffset += (heard - inputCursor - timingOffset) * gain
    }

    /// A stretcher starts running whose feeding began at stream index `fedFrom`: its measured timing
    /// holds once its pipeline is full (it was measured so), after it has been fed twice its lag;
    /// until then the offset stays as it is (0 at a start or a seek, where Rubber Band's start delay
    /// lines the first frame up).
    func trustTiming(_ running: UnsafeMutablePointer<Stretcher>, fedFrom: Int, step: Double) {
        timingTrustedFrom = fedFrom + Int(2 * running.pointee.timing.lag(ratio: timingRatio(running, step: step)))
    }

    /// The ratio a stretcher's timing is a function of (`StretchTiming`): the step over its pitch
    /// scale (the file's rate and the pitch, for a pitch-consistent one; 1 for a plain one).
    @inline(__always)
    func timingRatio(_ running: UnsafeMutablePointer<Stretcher>, step: Double) -> Double {
        guard running.pointee.pitchConsistent else { return step }
        return step / (configuration.baseRate * semitoneRatio(currentPitch))
    }

    /// Feeds `target` what it asks for from the ring at `cursor` (pulling into the ring first; after
    /// the source's end, silence). False when the source is late.
    func feed(_ target: UnsafeMutablePointer<Stretcher>, at cursor: inout Int, budget: inout Int) -> Bool {
        // A fresh stretcher (on a budget) takes bites of at most the budget left, so that its first
        // window (R3 asks for 4096 frames at once) spreads over cycles; Rubber Band takes any amount.
        var required = target.pointee.samplesRequired()
        if budget != Int.max { required = max(1, min(required, max(64, budget))) }
        if realEnd >= 0, cursor >= realEnd {
            target.pointee.process(UnsafePointer(silentInput), offset: 0, frameCount: required)
            cursor += required
            budget -= required
            return true
        }
        if streamEnd < cursor + required { pullIntoRing(cursor + required - streamEnd) }
        var available = streamEnd - cursor
        if available < required {
            if realEnd < 0 { return false }
            available = max(0, available)
        }
        var done = 0
        while done < min(required, available) {
            let n = stream.contiguous(from: cursor + done, limit: min(required, available) - done)
            target.pointee.process(UnsafePointer(stream.run), offset: 0, frameCount: n)
            done += n
        }
        if done < required {  // past the end: silence
            target.pointee.process(UnsafePointer(silentInput), offset: 0, frameCount: required - done)
        }
        cursor += required
        budget -= required
        return true
    }
}

/// Where the output comes from (see `Engine+Stretch.swift`).
enum StretchPhase: BitwiseCopyable {
    case direct, delayed, stretching
    /// The loop cache plays a kept pass (`Engine+LoopCache.swift`); no stretcher runs.
    case replaying
}

/// A hand-over in progress.
enum Handover: BitwiseCopyable {
    case none
    /// A fresh stretcher is pre-rolled, then crossfaded in.
    case toStretcher
    /// The running stretcher crossfades into the raw stream.
    case toRaw
    /// A start or seek: a fresh stretcher is fed until its first frame is ready (the output is silent).
    case priming
}

/// Stretcher input frames live in their own range of the output log's index.
let stretchStreamBase = 1 << 50

/// 2^(semitones/12), without Foundation: exp2 by squaring-free series on the fractional part.
func semitoneRatio(_ semitones: Double) -> Double {
    let octaves = semitones / 12
    var whole = Int(octaves)
    var fraction = octaves - Double(whole)
    if fraction < 0 { fraction += 1; whole -= 1 }
    // 2^f = e^(f ln 2), |f ln 2| < 0.7: the series converges to double precision in 20 terms.
    let x = fraction * 0.693_147_180_559_945_3
    var term = 1.0, sum = 1.0
    for n in 1...20 {
        term *= x / Double(n)
        sum += term
    }
    var scale = 1.0
    if whole >= 0 { for _ in 0..<whole { scale *= 2 } } else { for _ in 0..<(-whole) { scale *= 0.5 } }
    return sum * scale
}
