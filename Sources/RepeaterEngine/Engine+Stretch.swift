/// Audio thread: speed and pitch through Rubber Band.
///
/// At speed 1 and pitch 0 there is no stretcher at all (bypass: the source, bit for bit). Other
/// targets switch to a stretcher the control thread primed and queued (`freshStretchers`): the output
/// fades out over 5 ms, the stretcher takes over at the very source frame where bypass stopped, and
/// the output fades in. Back at 1/0 the output fades out, the used stretcher is handed back
/// (`usedStretchers`; the control thread frees it: nothing is freed here), and playback continues in
/// bypass at the source frame the stretcher had reached in its output, through the usual seek.
/// The stretcher sees one continuous stream, loop wraps included, and is never reset.
extension Engine {

    /// Reads the targets, starts a switch when bypass/stretch must change, and glides the ratios.
    func updateStretch() {
        let speed = min(4, max(0.25, controls.speed.load(ordering: .relaxed)))
        let pitch = min(24, max(-24, controls.pitchSemitones.load(ordering: .relaxed)))
        let baseRate = configuration.baseRate
        var wanted = speed != 1
        if pitch != 0 { wanted = true }
        if baseRate != 1 { wanted = true }  // a source at another rate is always resampled
        let running = stretcher != nil
        if wanted != running, !pendingModeSwitch {
            if wanted {
                if freshStretchers.count > 0 { pendingModeSwitch = true }
            } else if currentSpeed == 1, currentPitch == 0, baseRate == 1 {
                pendingModeSwitch = true  // glided back to 1/0: leave only then, so the end is smooth
            }
        }
        guard let stretcher else {
            currentSpeed = speed
            currentPitch = pitch
            return
        }
        // One-pole glide towards the targets (about 30 ms at 256-frame periods), snapping when close.
        currentSpeed += (speed - currentSpeed) * 0.3
        if abs(currentSpeed - speed) < 0.0005 { currentSpeed = speed }
        currentPitch += (pitch - currentPitch) * 0.3
        if abs(currentPitch - pitch) < 0.005 { currentPitch = pitch }
        // Pitch in whole cents: each new pitch ratio costs Rubber Band 3.1.2 a resampler rebuild.
        let cents = Double(Int((currentPitch * 100 + (currentPitch >= 0 ? 0.5 : -0.5))))
        // Rubber Band resamples too (as Mixxx folds it in): time 1/(base·speed), pitch base·shift,
        // with base = source rate / output rate. Measured: 1 kHz at 44.1 kHz → 48 kHz, THD+N −88 dB.
        stretcher.pointee.setRatios(time: 1 / (baseRate * currentSpeed), pitch: baseRate * semitoneRatio(cents / 100))
    }

    /// A wrap in the pulled stream. In bypass that is the output; through the stretcher it is heard
    /// later, so the event waits until the output reaches it (and then carries the output frame).
    func postWrap(count: Int, from: Int, to: Int, streamFrame: Int) {
        if stretcher == nil || streamFrame < stretchStreamBase {
            post(.wrap(count: count, from: from, to: to, outputFrame: streamFrame))
            return
        }
        if pendingWrapCount == pendingWrapCapacity {  // more wraps in flight than fit: report now
            post(.wrap(count: count, from: from, to: to, outputFrame: renderedFrames))
            return
        }
        let index = (pendingWrapFirst + pendingWrapCount) % pendingWrapCapacity
        pendingWraps[index * 4] = count
        pendingWraps[index * 4 + 1] = from
        pendingWraps[index * 4 + 2] = to
        pendingWraps[index * 4 + 3] = streamFrame - stretchStreamBase
        pendingWrapCount += 1
    }

    /// Posts the waiting wraps whose input frame the output has reached between input frames
    /// `fromInput` and `toInput`, which output frames [outputFrame, …) carried at `step` input
    /// frames per output frame.
    func postReachedWraps(fromInput: Double, toInput: Double, outputFrame: Int, step: Double) {
        while pendingWrapCount > 0 {
            let base = pendingWrapFirst * 4
            let input = Double(pendingWraps[base + 3])
            if input >= toInput { return }
            let offset = max(0, Int((input - fromInput) / step + 0.5))
            post(.wrap(count: pendingWraps[base], from: pendingWraps[base + 1], to: pendingWraps[base + 2], outputFrame: outputFrame + offset))
            pendingWrapFirst = (pendingWrapFirst + 1) % pendingWrapCapacity
            pendingWrapCount -= 1
        }
    }

    /// At the bottom of the fade: hands over between bypass and a stretcher.
    func switchStretcher() {
        pendingModeSwitch = false
        if let used = stretcher {
            let frame = log.sourceFrame(atOutput: stretchStreamBase &+ Int(inputCursor), fallback: playhead)
            stretcher = nil
            status.processingLatency.store(0, ordering: .relaxed)
            postReachedWraps(fromInput: inputCursor, toInput: Double(Int.max), outputFrame: renderedFrames, step: 1)
            if !usedStretchers.push(UInt(bitPattern: used)) { status.lostRequests.add(1, ordering: .relaxed) }
            currentSpeed = 1
            currentPitch = 0
            realEnd = -1
            performSeek(to: frame)
            return
        }
        guard let bits = freshStretchers.pop(), let fresh = UnsafeMutablePointer<Stretcher>(bitPattern: bits) else { return }
        stretcher = fresh
        stretchCatchingUp = true
        status.processingLatency.store(fresh.pointee.latencyFrames(), ordering: .relaxed)
        inputCursor = Double(fedFrames)
        realEnd = -1
        if sourceEnded { realEnd = fedFrames }
    }

    /// Produces up to `count` output frames through the stretcher: retrieves what is ready, else
    /// feeds exactly what it asks for from the (wrapped) source. After the source ends it feeds
    /// silence until the output has covered every real frame (the tail is played out, not cut).
    func pullStretched(into outputs: UnsafePointer<UnsafeMutablePointer<Float>>, at offset: Int, count: Int) -> Int {
        guard let stretcher else { return 0 }
        var produced = 0
        var rounds = 0
        var processed = 0
        while produced < count, rounds < 64 {
            rounds += 1
            if realEnd >= 0, inputCursor >= Double(realEnd) { break }  // the tail is out
            let ready = stretcher.pointee.available()
            if ready > 0 {
                var n = min(ready, count - produced)
                let step = currentSpeed * configuration.baseRate  // input frames per output frame
                if realEnd >= 0 { n = min(n, Int((Double(realEnd) - inputCursor) / step) + 1) }
                let got = stretcher.pointee.retrieve(into: outputs, offset: offset + produced, frameCount: n)
                if got > 0 { stretchCatchingUp = false }
                let before = inputCursor
                inputCursor += Double(got) * step
                postReachedWraps(fromInput: before, toInput: inputCursor, outputFrame: renderedFrames &+ offset &+ produced, step: step)
                produced += got
                continue
            }
            var required = stretcher.pointee.samplesRequired()
            if stretchCatchingUp { required = min(required, 512) }  // small bites while it fills
            if stretchCatchingUp, processed + required > 1024 {
                // Just switched: the stretcher fills its delay line over a few cycles of silence
                // (the fade is at zero anyway) instead of in one burst longer than a period.
                awaitingSeekData = true
                break
            }
            processed += required
            var got = 0
            if realEnd < 0 {
                got = pull(into: UnsafePointer(stretchInputs), at: 0, count: required, streamFrame: stretchStreamBase &+ fedFrames)
                if sourceEnded { realEnd = fedFrames + got }
            }
            if got < required, realEnd < 0 {
                // The disk is late: feed what came, and let the caller count an underrun.
                if got > 0 {
                    stretcher.pointee.process(UnsafePointer(stretchInputs), offset: 0, frameCount: got)
                    fedFrames += got
                }
                break
            }
            if got < required {
                for channel in 0..<channelCount {
                    let input = stretchInputs[channel]
                    for i in got..<required { input[i] = 0 }
                }
            }
            stretcher.pointee.process(UnsafePointer(stretchInputs), offset: 0, frameCount: required)
            fedFrames += required
        }
        if produced < count, realEnd >= 0, inputCursor >= Double(realEnd) { sourceEnded = true }
        return produced
    }
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

