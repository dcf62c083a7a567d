/// Audio thread: the metronome and the count-in.
///
/// The control thread never computes when a click sounds: it hands over the beats (`BeatTable`, in
/// source frames, from the recording's map) and the count-in (beats and their length in source
/// frames), and the engine marks each beat in the pulled stream as it pulls that source frame, and
/// each count-in beat inside the gap it inserts before a repetition. A mark is heard when the output
/// reaches its stream index, by the same path that reports a wrap (straight away in bypass, through
/// the ring's delay, or when the stretcher's output reaches its input frame), so a click lands on the
/// output frame that carries its beat at any speed, and a count-in plays at the stretched tempo.
/// Clicks are mixed after the stretcher (they are never stretched) into the `click` port and, with
/// `clickMix`, into the first two outputs.
extension Engine {
    /// Takes newly handed-over beat tables; the one replaced goes back to be freed.
    func takeBeatTables() {
        while let bits = beatTables.pop() {
            guard let table = UnsafeMutablePointer<BeatTable>(bitPattern: bits) else { continue }
            if let old = beatTable, !usedBeatTables.push(UInt(bitPattern: old)) { status.lostRequests.add(1, ordering: .relaxed) }
            controlWorkPending = true
            beatTable = table
            beatCursorFrame = -1
        }
    }

    /// Marks the beats among source frames [`from`, `from + count`), pulled at stream index `key`
    /// onwards (while the metronome is on).
    @inline(__always)
    func markBeats(from: Int, count: Int, key: Int) {
        guard let table = beatTable else { return }
        if beatCursorFrame != from { beatCursor = table.pointee.firstIndex(atOrAfter: from) }
        let end = from + count
        let on = controls.clickOn.load(ordering: .relaxed)
        while beatCursor < table.pointee.count {
            let frame = table.pointee.frames[beatCursor]
            if frame >= end { break }
            if on { scheduleClick(accent: table.pointee.accents[beatCursor], key: key &+ (frame - from)) }
            beatCursor += 1
        }
        beatCursorFrame = end
    }

    /// The count-in before a repetition: the gap grows to hold it (a gap longer than the count-in
    /// keeps its length, the count-in ends it) and its beats are marked, the first accented. `key`
    /// is the stream index of the first frame of the gap.
    func startCountIn(key: Int) {
        var total = countInBeats * countInPeriod
        if total <= 0 { return }
        // Before the first pass, a breath of silence (about 85 ms) first: the first click is not on
        // the very first frame, where a stretcher just started cannot place it exactly.
        if countInLeadIn { total += 4096 }
        countInLeadIn = false
        if gapRemaining < total { gapRemaining = total }
        for beat in 0..<countInBeats {
            scheduleClick(accent: beat == 0, key: key &+ gapRemaining &- (countInBeats - beat) * countInPeriod)
        }
    }

    /// A click at stream index `key`: started now in bypass (the key is the output frame), else
    /// queued until the output reaches it.
    func scheduleClick(accent: Bool, key: Int) {
        if key < stretchStreamBase {
            startClick(accent: accent, outputFrame: key)
            return
        }
        enqueueMark(kind: accent ? MarkKind.accent : MarkKind.click, count: 0, from: 0, to: 0, index: key - stretchStreamBase)
    }

    /// A click voice from `outputFrame` on (now or later in bypass). With every voice busy, the one
    /// that started first gives way.
    func startClick(accent: Bool, outputFrame unheard: Int) {
        // The music is heard after the isolation's delay; so is its click.
        let outputFrame = unheard &+ isolationDelay
        var slot = clickVoiceCount
        if clickVoiceCount == clickVoiceCapacity {
            slot = 0
            for index in 1..<clickVoiceCapacity where clickVoiceStart[index] < clickVoiceStart[slot] { slot = index }
        } else {
            clickVoiceCount += 1
        }
        clickVoiceStart[slot] = outputFrame
        clickVoiceAccent[slot] = accent
        status.clicks.add(1, ordering: .relaxed)
    }

    /// A seek: clicks that have not started yet will not be heard.
    func cancelFutureClicks() {
        let now = renderedFrames &+ cycleOffset
        var index = 0
        while index < clickVoiceCount {
            if clickVoiceStart[index] >= now {
                clickVoiceCount -= 1
                clickVoiceStart[index] = clickVoiceStart[clickVoiceCount]
                clickVoiceAccent[index] = clickVoiceAccent[clickVoiceCount]
            } else {
                index += 1
            }
        }
    }

    /// Writes this cycle's clicks into the click port (silence when none sound) and, with
    /// `clickMix`, adds them to the first two outputs.
    func renderClicks(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let port: UnsafeMutablePointer<Float>? = configuration.clickPort ? outputs[outputChannelCount] : nil
        if let port { for i in 0..<frameCount { port[i] = 0 } }
        if clickVoiceCount == 0 { return }
        let mix = controls.clickMix.load(ordering: .relaxed)
        let targets = mix ? min(2, outputChannelCount) : 0
        let cycleStart = renderedFrames
        let cycleEnd = renderedFrames &+ frameCount
        var index = 0
        while index < clickVoiceCount {
            let start = clickVoiceStart[index]
            let accent = clickVoiceAccent[index]
            let length = accent ? clicks.accentFrames : clicks.beatFrames
            let sound = accent ? clicks.accent : clicks.beat
            let from = max(start, cycleStart)
            let to = min(start &+ length, cycleEnd)
            if from < to {
                for frame in from..<to {
                    let value = sound[frame &- start]
                    let offset = frame &- cycleStart
                    if let port { port[offset] += value }
                    for channel in 0..<targets { outputs[channel][offset] += value }
                }
            }
            if start &+ length <= cycleEnd {
                clickVoiceCount -= 1
                clickVoiceStart[index] = clickVoiceStart[clickVoiceCount]
                clickVoiceAccent[index] = clickVoiceAccent[clickVoiceCount]
            } else {
                index += 1
            }
        }
    }
}

/// What a mark in the pulled stream stands for (the first field of a pending mark).
enum MarkKind {
    static let wrap = 0
    static let click = 1
    static let accent = 2
    static let passStart = 3
}
