import Glibc

/// Volume, pan and metering.
///
/// The control thread turns volume and pan into two gains (`setLevel`) and stores them packed in
/// one 64-bit atomic, so the audio thread never sees the left gain of one setting with the right
/// gain of another. The audio thread ramps to new gains linearly over `gainRampFrames` (10 ms): no
/// zipper noise, and at unity (gains 1, 1, no ramp) the frames are left untouched, bit for bit.
///
/// Layouts:
/// - stereo: pan is a balance: left × min(1, 1 − pan), right × min(1, 1 + pan);
/// - mono to two ports: equal-power pan, left = √2·cos θ, right = √2·sin θ with θ = (pan + 1)·π/4:
///   left² + right² = 2 everywhere, so the centre sends the file to both ports unchanged and a hard
///   pan puts all of its power on one port (+3 dB);
/// - any other channel count: volume only.
extension Engine {
    /// Packs two gains into the word `EngineControls.gains` carries.
    public static func packGains(_ first: Float, _ second: Float) -> UInt64 {
        UInt64(first.bitPattern) << 32 | UInt64(second.bitPattern)
    }

    /// The gains of output channel 0 and 1 (channels from 2 on take the first: volume only).
    public static func unpackGains(_ bits: UInt64) -> (Float, Float) { gainsFromWord(bits) }

    /// The two gains for a volume (linear, ≥ 0) and a pan (−1 … 1) on a layout.
    public static func gains(volume: Double, pan: Double, sourceChannels: Int, outputChannels: Int) -> (Float, Float) {
        let pan = min(1, max(-1, pan))
        if sourceChannels == 1 && outputChannels == 2 {
            if pan == 0 { return (Float(volume), Float(volume)) }
            let angle = (pan + 1) * Double.pi / 4
            return (Float(volume * 2.0.squareRoot() * cos(angle)), Float(volume * 2.0.squareRoot() * sin(angle)))
        }
        if sourceChannels == 2 {
            return (Float(volume * min(1, 1 - pan)), Float(volume * min(1, 1 + pan)))
        }
        return (Float(volume), Float(volume))
    }

    /// Control thread. Sets volume (linear gain, 0 = silence) and pan (−1 left … 1 right); the audio
    /// thread ramps to them.
    public func setLevel(volume: Double, pan: Double) {
        let (first, second) = Engine.gains(volume: volume, pan: pan, sourceChannels: channelCount,
                                           outputChannels: outputChannelCount)
        controls.volume.store(volume, ordering: .relaxed)
        controls.pan.store(pan, ordering: .relaxed)
        controls.gains.store(Engine.packGains(first, second), ordering: .relaxed)
    }

    // MARK: audio thread

    /// Audio thread. Applies the gains to the source channels (writing the second port of a mono
    /// file), ramping after a change.
    func applyGains(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        let bits = controls.gains.load(ordering: .relaxed)
        if bits != gainTargetBits {
            gainTargetBits = bits
            let target = gainsFromWord(bits)
            gainRampLeft = gainRampFrames
            gainFrom0 = gain0
            gainFrom1 = gain1
            gainStep0 = (target.0 - gain0) / Float(gainRampFrames)
            gainStep1 = (target.1 - gain1) / Float(gainRampFrames)
        }
        let duplicate = outputChannelCount > channelCount  // mono to two ports
        var done = 0
        while gainRampLeft > 0 && done < frameCount {  // ramp, frame by frame
            gainRampLeft -= 1
            let taken = Float(gainRampFrames - gainRampLeft)  // from the start: no drift from adding up
            gain0 = gainFrom0 + gainStep0 * taken
            gain1 = gainFrom1 + gainStep1 * taken
            if gainRampLeft == 0 {
                let target = gainsFromWord(gainTargetBits)
                gain0 = target.0
                gain1 = target.1
            }
            scaleFrame(outputs, at: done, duplicate: duplicate)
            done += 1
        }
        if done == frameCount { return }
        if duplicate {
            let source = outputs[0], left = gain0, right = gain1
            let second = outputs[1]
            for i in done..<frameCount {
                let x = source[i]
                second[i] = x * right
                source[i] = x * left
            }
            return
        }
        if gain0 == 1, gain1 == 1 { return }  // unity: untouched, bit for bit
        for channel in 0..<channelCount {
            let gain = channel == 1 ? gain1 : gain0
            let samples = outputs[channel]
            for i in done..<frameCount { samples[i] *= gain }
        }
    }

    @inline(__always)
    private func scaleFrame(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, at index: Int, duplicate: Bool) {
        if duplicate {
            let x = outputs[0][index]
            outputs[1][index] = x * gain1
            outputs[0][index] = x * gain0
            return
        }
        for channel in 0..<channelCount {
            outputs[channel][index] *= channel == 1 ? gain1 : gain0
        }
    }

    /// Audio thread. Copies what is heard to the note view's tap, when it listens.
    func feedTap(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        if controls.tapOn.load(ordering: .relaxed) { tap.write(outputs, channelCount: channelCount, frameCount: frameCount) }
    }

    /// Audio thread. Measures the source (pre) stage of this cycle.
    func meterPre(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        meters.measure(outputs, channels: channelCount, first: 0, frameCount: frameCount)
    }

    /// Audio thread. Measures what leaves the ports and publishes the cycle's record.
    func meterPost(_ outputs: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        meters.measure(outputs, channels: outputChannelCount, first: channelCount, frameCount: frameCount)
        _ = meters.publish(frameCount: frameCount)
    }
}

/// The two gains packed in a word (a free function: the audio path must not touch class metadata).
@inline(__always)
func gainsFromWord(_ bits: UInt64) -> (Float, Float) {
    (Float(bitPattern: UInt32(truncatingIfNeeded: bits >> 32)), Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
}
