import Foundation
import RepeaterEngine
import Synchronization
import Testing

@Suite("SPSC ring")
struct RingTests {
    @Test("values come out in order across the wrap of the storage")
    func orderAcrossWrap() {
        let ring = SPSCRing<Int>(capacity: 4)
        var next = 0
        var expected = 0
        for round in 0..<50 {
            let burst = round % 4 + 1
            for _ in 0..<burst { do { let ok = ring.push(next); #expect(ok) }; next += 1 }
            for _ in 0..<burst { do { let ok = ring.pop() == expected; #expect(ok) }; expected += 1 }
        }
        do { let ok = ring.pop() == nil; #expect(ok) }
    }

    @Test("a full ring refuses a push and changes nothing; an empty one pops nil")
    func fullAndEmpty() {
        let ring = SPSCRing<Int>(capacity: 3)  // rounded up to 4
        do { let ok = ring.capacity == 4; #expect(ok) }
        for value in 0..<4 { do { let ok = ring.push(value); #expect(ok) } }
        do { let ok = !ring.push(99); #expect(ok) }
        do { let ok = ring.count == 4; #expect(ok) }
        for value in 0..<4 { do { let ok = ring.pop() == value; #expect(ok) } }
        do { let ok = ring.pop() == nil; #expect(ok) }
    }

    @Test("counters running through Int.max keep order and fill level")
    func nearIndexOverflow() {
        let ring = SPSCRing<Int>(capacity: 8, startingAt: Int.max - 5)
        var expected = 0
        for value in 0..<40 {
            do { let ok = ring.push(value); #expect(ok) }
            if value % 3 == 2 {
                while let popped = ring.pop() { #expect(popped == expected); expected += 1 }
            }
            do { let ok = ring.count <= 8; #expect(ok) }
        }
        while let popped = ring.pop() { #expect(popped == expected); expected += 1 }
        #expect(expected == 40)
        let position = ring.indices.consumerPosition()
        #expect(position < 0)  // the counters really wrapped
    }

    @Test("the two-segment read returns values split across the physical end")
    func twoSegmentRead() {
        let ring = SPSCRing<Int>(capacity: 8, startingAt: 5)
        for value in 0..<7 { ring.push(value) }
        let destination = UnsafeMutablePointer<Int>.allocate(capacity: 8)
        defer { destination.deallocate() }
        do { let ok = ring.pop(into: destination, count: 8) == 7; #expect(ok) }
        #expect(Array(UnsafeBufferPointer(start: destination, count: 7)) == Array(0..<7))
    }

    @Test("two threads: every sequence number arrives once, in order")
    func twoThreadStress() async {
        final class Box: @unchecked Sendable { let ring = SPSCRing<UInt64>(capacity: 64, startingAt: Int.max - 1000) }
        let box = Box()
        let total: UInt64 = 300_000
        let producer = Thread {
            var next: UInt64 = 0
            while next < total { if box.ring.push(next) { next += 1 } }
        }
        producer.start()
        var expected: UInt64 = 0
        var errors = 0
        while expected < total {
            if let value = box.ring.pop() {
                if value != expected { errors += 1 }
                expected += 1
            }
        }
        #expect(errors == 0)
        do { let ok = box.ring.pop() == nil; #expect(ok) }
    }
}

@Suite("Block ring")
struct BlockRingTests {
    @Test("two threads: every block arrives with its tag and its samples intact")
    func twoThreadBlocks() {
        final class Box: @unchecked Sendable {
            let ring = BlockRing(channelCount: 2, blockFrames: 16, blockCount: 4, startingAt: Int.max - 10)
        }
        let box = Box()
        let blocks = 20_000
        let producer = Thread {
            var sequence = 0
            while sequence < blocks {
                guard let slot = box.ring.writableSlot() else { continue }
                for channel in 0..<2 {
                    let samples = box.ring.channel(channel, ofSlot: slot)
                    for i in 0..<16 { samples[i] = Float(sequence * 32 + channel * 16 + i) }
                }
                box.ring.publish(BlockTag(startFrame: sequence * 16, frameCount: 16, generation: UInt32(sequence & 0xff)))
                sequence += 1
            }
        }
        producer.start()
        var sequence = 0
        var errors = 0
        while sequence < blocks {
            guard let slot = box.ring.readableSlot() else { continue }
            let tag = box.ring.tag(ofSlot: slot)
            if tag != BlockTag(startFrame: sequence * 16, frameCount: 16, generation: UInt32(sequence & 0xff)) { errors += 1 }
            for channel in 0..<2 {
                let samples = box.ring.channel(channel, ofSlot: slot)
                for i in 0..<16 where samples[i] != Float(sequence * 32 + channel * 16 + i) { errors += 1 }
            }
            box.ring.release()
            sequence += 1
        }
        #expect(errors == 0)
    }
}

/// The ring and a flag, shared by the two threads (non-copyable values live in a class).
private final class MeterRingBox: Sendable {
    let ring = MeterRing(preChannels: 1, postChannels: 2, capacity: 8)
    let done = Atomic<Bool>(false)
}

@Suite("Meter ring")
struct MeterRingTests {
    @Test("two threads: every period's figures arrive once, whole, whatever the timing (merged when the ring is full)")
    func twoThreads() async {
        let box = MeterRingBox()
        let periods = 20_000, frames = 64
        let pre = LevelMeters(channelCount: 1), post = LevelMeters(channelCount: 2)
        let producer = Thread {
            let a = UnsafeMutablePointer<Float>.allocate(capacity: frames), b = UnsafeMutablePointer<Float>.allocate(capacity: frames)
            let buffers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)
            buffers[0] = a
            buffers[1] = b
            for period in 0..<periods {
                // Values k/8: their squares and sums are exact in binary, so the totals are exact.
                let value = Float(period % 7 + 1) / 8
                for i in 0..<frames {
                    a[i] = value
                    b[i] = -value / 2
                }
                box.ring.measure(buffers, channels: 1, first: 0, frameCount: frames)
                box.ring.measure(buffers, channels: 2, first: 1, frameCount: frames)
                box.ring.publish(frameCount: frames)
            }
            while !box.ring.publish(frameCount: 0) { usleep(100) }  // what is still merged, once there is room
            box.done.store(true, ordering: .releasing)
            a.deallocate(); b.deallocate(); buffers.deallocate()
        }
        producer.start()
        while !box.done.load(ordering: .acquiring) {
            box.ring.drain(pre: pre, post: post)
            if Bool.random() { usleep(UInt32.random(in: 0...300)) }  // a consumer that keeps falling behind
        }
        box.ring.drain(pre: pre, post: post)
        var squares = 0.0
        for period in 0..<periods { squares += Double(frames) * pow(Double(period % 7 + 1) / 8, 2) }
        let meanSquare = squares / Double(periods * frames)
        let levels = pre.closeWindow(elapsed: 1), posts = post.closeWindow(elapsed: 1)
        #expect(levels[0].rmsDB == 10 * log10(meanSquare), "\(levels[0].rmsDB) vs \(10 * log10(meanSquare))")
        #expect(levels[0].peakDB == 20 * log10(0.875))
        #expect(posts[0].rmsDB == levels[0].rmsDB)
        #expect(posts[1].rmsDB == 10 * log10(meanSquare / 4) && posts[1].peakDB == 20 * log10(0.4375))
    }

    @Test("peak, RMS and clipped samples are those of the samples, at every length (eight lanes and the tail)")
    func everyLength() {
        var generator = SystemRandomNumberGenerator()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        defer { buffer.deallocate() }
        let buffers = [buffer]
        for frameCount in 0...37 {
            let ring = MeterRing(preChannels: 1, postChannels: 0)
            let meters = LevelMeters(channelCount: 1), none = LevelMeters(channelCount: 0)
            var peak: Float = 0, squares = 0.0, clipped = 0
            for i in 0..<frameCount {
                // Values beyond full scale on either side, and the largest one anywhere (also in the tail).
                let x = Float.random(in: -1.5...1.5, using: &generator)
                buffer[i] = x
                peak = max(peak, abs(x))
                squares += Double(x) * Double(x)
                clipped += abs(x) > 1 ? 1 : 0
            }
            buffers.withUnsafeBufferPointer { ring.measure($0.baseAddress!, channels: 1, first: 0, frameCount: frameCount) }
            ring.publish(frameCount: max(1, frameCount))
            ring.drain(pre: meters, post: none)
            let level = meters.closeWindow(elapsed: 1)[0]
            #expect(level.clipped == clipped, "\(frameCount) frames")
            if frameCount > 0 {
                #expect(level.peakDB == 20 * log10(Double(peak)), "\(frameCount) frames")
                let rms = 10 * log10(squares / Double(frameCount))
                #expect(abs(level.rmsDB - rms) < 1e-4, "\(frameCount) frames: \(level.rmsDB) vs \(rms)")
            }
        }
    }
}
