extension Engine {
    /// Control thread, before any real-time use. Drives a throwaway engine through every path of
    /// `render` (play, pause, seek, stale blocks, underrun, end) so that the Swift runtime's one-time
    /// lazy work (generic metadata, witness tables: it allocates and locks) happens here, not on the
    /// audio thread. Debug builds need this most; release builds mostly specialize it away.
    ///
    /// `stretching` false leaves out Rubber Band's paths (resampling, bypass and everything else
    /// stay in): they cost about a quarter second of CPU, most of a speed-1 player's start-up, and a
    /// run that never stretches need not pay it. Whoever then asks for stretching calls
    /// `warmUpStretchingOnce()` before the engine can see the request.
    public static func warmUpRuntime(stretching: Bool = true) {
        Isolator.warmUpRuntime()
        var configuration = Engine.Configuration(channelCount: 1, sourceFrameCount: 1000, blockFrames: 16, blockCount: 4,
                                                 declickFrames: 4, headFrames: 8, loop: (a: 4, b: 12), gapFrames: 2,
                                                 seamFadeFrames: 2, sampleRate: 10)
        configuration.outputChannelCount = 2  // mono to two ports: the pan path too
        let engine = Engine(configuration, gongs: GongBank(low: [0.1, 0.1], high: [0.2, 0.2]))
        let output = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        let outputs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)
        outputs.initialize(to: output)
        (outputs + 1).initialize(to: output + 64)
        defer {
            output.deallocate()
            outputs.deallocate()
        }
        var position = 0
        var generation: UInt32 = 0
        func feed(end: Bool) {
            while let request = engine.readerRequests.pop() {
                switch request {
                case .seek(let frame, let newGeneration):
                    position = frame
                    generation = newGeneration
                case .loadHead(let frame, let count, let slot):
                    let samples = engine.heads.channel(0, ofSlot: slot)
                    for i in 0..<count { samples[i] = Float(frame + i) }
                    engine.headLoaded.push(HeadLoaded(slot: slot, frame: frame, frameCount: count))
                }
            }
            guard let slot = engine.blocks.writableSlot() else { return }
            let samples = engine.blocks.channel(0, ofSlot: slot)
            for i in 0..<16 { samples[i] = Float(position + i) }
            engine.blocks.publish(BlockTag(startFrame: position, frameCount: end ? 0 : 16, generation: generation, isEnd: end))
            position += end ? 0 : 16
        }
        let steps: [EngineCommand?] = [nil, .start, .pause, .play, .toggle, .toggle, .setA(frame: nil), .setB(frame: nil),
                                       .setLoop(a: 2, b: 30), .setA(frame: 6), .setB(frame: 20), .gap(frames: 1),
                                       .loopEnabled(false), .loopEnabled(true), .seekToA, .seek(frame: 100),
                                       .setA(frame: 50), .loopEnabled(false), .chime(hour: 1, minute: 1),
                                       .chime(hour: 1, minute: 1), .abHere, .abHere, .abHere]
        // MIDI presses of every real-time action, a release, garbage, and the transport both ways.
        let midi: [[UInt8]] = [[0xB0, 64, 127], [0xB0, 65, 127], [0x90, 62, 100], [0xB0, 66, 127], [0xB0, 67, 127],
                               [0xB0, 64, 0], [0xC0, 2], [0xF0, 1, 0xF7], [0x40]]
        engine.controls.transportMode.store(TransportMode.follow.rawValue, ordering: .relaxed)
        for (index, step) in steps.enumerated() {
            if let step { engine.send(step, source: .key) }
            let bytes = midi[index % midi.count]
            bytes.withUnsafeBufferPointer { engine.receiveMIDI(offset: 10, bytes: $0.baseAddress!, count: $0.count) }
            engine.setTransport(rolling: index % 5 != 4)
            engine.setLevel(volume: index % 3 == 0 ? 1 : 0.5, pan: index % 2 == 0 ? 0 : -0.5)
            feed(end: false)
            engine.render(frameCount: 40, outputs: outputs)
        }
        engine.render(frameCount: 64, outputs: outputs)  // underrun
        feed(end: true)
        engine.render(frameCount: 64, outputs: outputs)  // the end
        while engine.events.pop() != nil {}
        while engine.midiReports.pop() != nil {}
        if stretching { warmUpStretchingOnce() } else { warmUpStretching(sourceRate: 44_100, stretching: false) }
        engine.meters.drain(pre: LevelMeters(channelCount: 1), post: LevelMeters(channelCount: 2))
    }

    /// Control thread (any thread but the audio one). The stretch stage's paths, once per process
    /// (later calls return at once, after the first one has finished): priming at the start,
    /// bypass → stretcher, stretcher → stretcher (pitch on, pitch off), a seek while stretching,
    /// stretcher → bypass, with fresh stretchers handed in as the control thread's supply does.
    public static func warmUpStretchingOnce() { _ = stretchingWarmedUp }

    private static let stretchingWarmedUp: Void = {
        warmUpStretching(sourceRate: 0, stretching: true)
        warmUpStretching(sourceRate: 44_100, stretching: true)
    }()

    /// At the output's rate (`sourceRate` 0): the paths above; at another: the resampler primed at
    /// the start, resampler → stretcher and back, a seek while resampling (without `stretching`:
    /// the resampler alone, primed, then a seek).
    private static func warmUpStretching(sourceRate: Int, stretching: Bool) {
        var configuration = Engine.Configuration(channelCount: 1, sourceFrameCount: 400_000, blockFrames: 1024, blockCount: 16,
                                                 declickFrames: 32, headFrames: 1024, sampleRate: 48_000, sourceSampleRate: sourceRate)
        configuration.prerollFramesPerCycle = 2048
        let engine = Engine(configuration)
        let output = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        var outputs = output
        defer { output.deallocate() }
        var position = 0
        var generation: UInt32 = 0
        func cycles(_ count: Int) {
            for _ in 0..<count {
                while let request = engine.readerRequests.pop() {
                    if case .seek(let frame, let newGeneration) = request { (position, generation) = (frame, newGeneration) }
                    if case .loadHead(let frame, _, let slot) = request {
                        engine.headLoaded.push(HeadLoaded(slot: slot, frame: frame, frameCount: 0))
                    }
                }
                while let slot = engine.blocks.writableSlot() {
                    let samples = engine.blocks.channel(0, ofSlot: slot)
                    for i in 0..<1024 { samples[i] = Float((position + i) % 97) / 97 - 0.5 }
                    engine.blocks.publish(BlockTag(startFrame: position, frameCount: 1024, generation: generation))
                    position += 1024
                }
                withUnsafePointer(to: &outputs) { engine.render(frameCount: 256, outputs: $0) }
                while let bits = engine.usedStretchers.pop() {
                    let used = UnsafeMutablePointer<Stretcher>(bitPattern: bits)!
                    used.deinitialize(count: 1)
                    used.deallocate()
                }
                while engine.events.pop() != nil {}
            }
        }
        func supply(speed: Double, pitch: Double) {
            engine.controls.speed.store(speed, ordering: .relaxed)
            engine.controls.pitchSemitones.store(pitch, ordering: .relaxed)
            let stretcher = UnsafeMutablePointer<Stretcher>.allocate(capacity: 1)
            if sourceRate > 0, speed == 1, pitch == 0, let resampler = Stretcher(resamplingFrom: sourceRate, to: 48_000, channelCount: 1) {
                stretcher.initialize(to: resampler)
            } else {
                stretcher.initialize(to: Stretcher(kind: .faster, sampleRate: 48_000, channelCount: 1, pitchConsistent: pitch != 0 || sourceRate > 0))
            }
            engine.freshStretchers.push(UInt(bitPattern: stretcher))
        }
        if sourceRate > 0 {
            supply(speed: 1, pitch: 0)
            cycles(12)                  // the resampler primed at the start
            if stretching {
                supply(speed: 0.9, pitch: 0)
                cycles(40)              // → a stretcher
                supply(speed: 1, pitch: 0)
                cycles(60)              // glided back to 1 → the resampler
            }
            engine.send(.seek(frame: 1000))
            supply(speed: 1, pitch: 0)
            cycles(20)                  // a seek while resampling: primed at the new place
            while let bits = engine.freshStretchers.pop() {
                let fresh = UnsafeMutablePointer<Stretcher>(bitPattern: bits)!
                fresh.deinitialize(count: 1)
                fresh.deallocate()
            }
            return
        }
        supply(speed: 0.9, pitch: 0)
        cycles(12)                      // primed at the start
        supply(speed: 0.9, pitch: 1)
        cycles(40)                      // → a high-consistency stretcher
        supply(speed: 0.9, pitch: 0)
        cycles(260)                     // pitch back at 0 for a second → a plain one again
        engine.send(.seek(frame: 1000))
        supply(speed: 0.9, pitch: 0)
        cycles(20)                      // a seek while stretching: primed at the new place
        engine.controls.speed.store(1, ordering: .relaxed)
        cycles(40)                      // → bypass through the ring
        supply(speed: 1.1, pitch: 0)
        cycles(40)                      // bypass → stretcher, crossfaded
        engine.controls.speed.store(1, ordering: .relaxed)
        cycles(40)
        while let bits = engine.freshStretchers.pop() {
            let fresh = UnsafeMutablePointer<Stretcher>(bitPattern: bits)!
            fresh.deinitialize(count: 1)
            fresh.deallocate()
        }
    }
}

extension Engine {
    /// Control thread: sets the speed target. The first one that asks for stretching warms the
    /// stretch stage up first (`warmUpStretchingOnce`: a quarter second of CPU, once a process).
    public func setSpeed(_ speed: Double) {
        if speed != 1 { Engine.warmUpStretchingOnce() }
        controls.speed.store(speed, ordering: .relaxed)
    }

    /// Control thread: sets the pitch target in semitones, as `setSpeed` does the speed.
    public func setPitch(semitones: Double) {
        if semitones != 0 { Engine.warmUpStretchingOnce() }
        controls.pitchSemitones.store(semitones, ordering: .relaxed)
    }
}
