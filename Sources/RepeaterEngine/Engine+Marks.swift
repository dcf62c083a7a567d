/// Audio thread: marks in the pulled stream (wraps, pass starts, clicks), acted on when the output
/// reaches them: at once in bypass, through the ring's delay, or where the stretcher's output (or
/// the loop cache's replay) carries their stream index.
extension Engine {
    /// A wrap in the pulled stream: reported now in direct bypass (the output is the stream), else
    /// when the output reaches it (carrying the output frame).
    func postWrap(count: Int, from: Int, to: Int, streamFrame: Int) {
        if streamFrame < stretchStreamBase {
            post(.wrap(count: count, from: from, to: to, outputFrame: streamFrame))
            takeAtGapStart(outputFrame: streamFrame)
            return
        }
        enqueueMark(kind: MarkKind.wrap, count: count, from: from, to: to, index: streamFrame - stretchStreamBase)
    }

    /// A pass starting in the pulled stream (source frame `frame`, A): reported like a wrap.
    func postPassStart(frame: Int, streamFrame: Int) {
        if streamFrame < stretchStreamBase {
            post(.passStarted(frame: frame, outputFrame: streamFrame))
            takeAtPassStart(outputFrame: streamFrame)
            return
        }
        enqueueMark(kind: MarkKind.passStart, count: 0, from: frame, to: frame, index: streamFrame - stretchStreamBase)
    }

    /// Queues a mark at stream index `index`, to act on when the output reaches it. Marks are queued
    /// in stream order. When more are in flight than fit, a wrap is reported now and a click dropped.
    func enqueueMark(kind: Int, count: Int, from: Int, to: Int, index: Int) {
        if pendingWrapCount == pendingWrapCapacity {
            if kind == MarkKind.wrap { post(.wrap(count: count, from: from, to: to, outputFrame: renderedFrames)) }
            if kind == MarkKind.passStart { post(.passStarted(frame: from, outputFrame: renderedFrames)) }
            return
        }
        let slot = ((pendingWrapFirst + pendingWrapCount) % pendingWrapCapacity) * markFields
        pendingWraps[slot] = kind
        pendingWraps[slot + 1] = count
        pendingWraps[slot + 2] = from
        pendingWraps[slot + 3] = to
        pendingWraps[slot + 4] = index
        pendingWrapCount += 1
    }

    /// The output has reached the first queued mark, at `outputFrame`: report the wrap or start the click.
    func reachFirstMark(outputFrame: Int) {
        let base = pendingWrapFirst * markFields
        switch pendingWraps[base] {
        case MarkKind.wrap:
            post(.wrap(count: pendingWraps[base + 1], from: pendingWraps[base + 2], to: pendingWraps[base + 3], outputFrame: outputFrame))
            takeAtGapStart(outputFrame: outputFrame)
        case MarkKind.passStart:
            post(.passStarted(frame: pendingWraps[base + 2], outputFrame: outputFrame))
            takeAtPassStart(outputFrame: outputFrame)
        default:
            startClick(accent: pendingWraps[base] == MarkKind.accent, outputFrame: outputFrame)
        }
        pendingWrapFirst = (pendingWrapFirst + 1) % pendingWrapCapacity
        pendingWrapCount -= 1
    }

    /// Raw output: acts on the waiting marks before stream index `end`; stream index i was played at
    /// output frame `outputBase + i`.
    func postRawWraps(through end: Int, outputBase: Int) {
        while pendingWrapCount > 0 {
            let index = pendingWraps[pendingWrapFirst * markFields + 4]
            if index >= end { return }
            reachFirstMark(outputFrame: outputBase &+ index)
        }
    }

    /// Acts on the waiting marks whose input frame the output has reached between input frames
    /// `fromInput` and `toInput`, which output frames [outputFrame, …) carried at `step` input
    /// frames per output frame.
    /// `live`: the running stretcher's output (the loop cache keeps what it reaches).
    func postReachedWraps(fromInput: Double, toInput: Double, outputFrame: Int, step: Double, live: Bool = false) {
        while pendingWrapCount > 0 {
            let base = pendingWrapFirst * markFields
            let input = Double(pendingWraps[base + 4])
            if input >= toInput { return }
            let offset = max(0, Int((input - fromInput) / step + 0.5))
            if live {
                if pendingWraps[base] == MarkKind.wrap {
                    cacheWrapReached(outputFrame: outputFrame + offset, position: fromInput + Double(offset) * step, index: pendingWraps[base + 4])
                } else {
                    cacheMarkReached(kind: pendingWraps[base], outputFrame: outputFrame + offset)
                }
            }
            reachFirstMark(outputFrame: outputFrame + offset)
        }
    }

    /// Drops the waiting marks (a seek: they will never be heard).
    func clearPendingWraps() {
        pendingWrapFirst = 0
        pendingWrapCount = 0
    }
}
