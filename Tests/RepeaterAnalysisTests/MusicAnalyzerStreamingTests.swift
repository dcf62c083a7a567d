import Foundation
import RepeaterAnalysis
import RepeaterTestSupport
import Testing

/// The streaming contract: blocks of any size give the same map, progress rises to 1,
/// cancellation stops between blocks, and a long recording is not held at its full rate.
@Suite("Music analyzer streaming")
struct MusicAnalyzerStreamingTests {
    /// A 45 s stereo 48 kHz waltz, rendered once for the suite.
    static let music: (samples: [Float], sampleRate: Int) = {
        let piece = AccuracySet.pieces.first { $0.name.hasPrefix("waltz F") }!
        let path = NSTemporaryDirectory() + "repeater-music-streaming-\(getpid()).wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            try FluidSynth.render(piece.song, to: path, sampleRate: 48_000)
            let (reader, samples) = try SoundFileReader.readAll(path: path)
            return (samples, reader.sampleRate)
        } catch {
            return ([], 48_000)
        }
    }()

    @Test("the same samples give the same map, whether in one block, 4096-frame blocks or ragged blocks of 1 to 33 333 frames")
    func blockSizesDoNotMatter() throws {
        try #require(!Self.music.samples.isEmpty, "install fluidsynth and timgm6mb-soundfont")
        let (samples, rate) = Self.music
        func analyse(blockSizes: [Int]) throws -> MusicAnalysis {
            let analyzer = try MusicAnalyzer(sampleRate: rate, channelCount: 2)
            var frame = 0, next = 0
            try samples.withUnsafeBufferPointer { buffer in
                while frame * 2 < buffer.count {
                    let frames = min(blockSizes[next % blockSizes.count], buffer.count / 2 - frame)
                    try analyzer.process(UnsafeBufferPointer(rebasing: buffer[(frame * 2)..<((frame + frames) * 2)]))
                    frame += frames
                    next += 1
                }
            }
            return try analyzer.finish()
        }
        let whole = try analyse(blockSizes: [samples.count / 2])
        let even = try analyse(blockSizes: [4096])
        let ragged = try analyse(blockSizes: [1, 7, 1000, 33_333, 560, 2])
        print("one block: \(whole.beatFrames.count) beats, \(whole.downbeatFrames.count) bars, \(String(format: "%.2f", whole.tempoBPM)) BPM, \(whole.key?.name ?? "no key")")
        #expect(whole.beatFrames.count > 50)
        #expect(whole == even)
        #expect(whole == ragged)
    }

    @Test("analyze() reads block by block, reports rising progress ending at 1, and finds the map")
    func progress() throws {
        try #require(!Self.music.samples.isEmpty, "install fluidsynth and timgm6mb-soundfont")
        let (samples, rate) = Self.music
        let frameCount = samples.count / 2
        var position = 0, reads = 0
        var reported: [Double] = []
        let analysis = try MusicAnalyzer.analyze(sampleRate: rate, channelCount: 2, frameCount: frameCount, blockFrameCount: 48_000,
            read: { buffer in
                reads += 1
                let frames = min(buffer.count / 2, frameCount - position)
                for i in 0..<(frames * 2) { buffer[i] = samples[position * 2 + i] }
                position += frames
                return frames
            },
            progress: { reported.append($0) })
        print("reads: \(reads), progress reports: \(reported.count), first \(reported.first ?? -1), last \(reported.last ?? -1)")
        #expect(reads == (frameCount + 47_999) / 48_000 + 1)  // every block, then the empty read at the end
        #expect(reported.count == reads)                       // one per block, and the final 1
        #expect(zip(reported, reported.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(reported.dropLast().allSatisfy { $0 > 0 && $0 <= 0.95 })
        #expect(reported.last == 1)
        #expect(analysis.beatsPerBar == 3)
        #expect(abs(analysis.tempoBPM - 96) < 96 * 0.02)
    }

    @Test("cancellation is checked before each block: the reader is not called again and nothing is returned")
    func cancellation() throws {
        try #require(!Self.music.samples.isEmpty, "install fluidsynth and timgm6mb-soundfont")
        let (samples, rate) = Self.music
        var reads = 0
        var checks = 0
        #expect(throws: MusicAnalysisError.cancelled) {
            _ = try MusicAnalyzer.analyze(sampleRate: rate, channelCount: 2, frameCount: samples.count / 2, blockFrameCount: 4096,
                read: { buffer in
                    reads += 1
                    for i in 0..<buffer.count { buffer[i] = samples[(reads - 1) * buffer.count + i] }
                    return buffer.count / 2
                },
                isCancelled: {
                    checks += 1
                    return checks > 5
                })
        }
        print("reads before the cancel: \(reads), checks: \(checks)")
        #expect(reads == 5)
        #expect(checks == 6)
    }

    @Test("a reader's error stops the analysis as a read failure with its message")
    func readFailure() {
        struct DiskGone: Error, CustomStringConvertible { var description: String { "disk gone" } }
        #expect(throws: MusicAnalysisError.readFailure("disk gone")) {
            _ = try MusicAnalyzer.analyze(sampleRate: 44_100, channelCount: 1, read: { _ in throw DiskGone() })
        }
    }

    @Test("what the analyzer holds grows at under 1/20 of the samples' size: it keeps no full-rate audio")
    func heldMemory() throws {
        try #require(!Self.music.samples.isEmpty, "install fluidsynth and timgm6mb-soundfont")
        let (samples, rate) = Self.music
        let analyzer = try MusicAnalyzer(sampleRate: rate, channelCount: 2)
        let half = samples.count / 4 * 2
        try samples.withUnsafeBufferPointer { try analyzer.process(UnsafeBufferPointer(rebasing: $0[0..<half])) }
        let atHalf = analyzer.heldByteCount
        try samples.withUnsafeBufferPointer { try analyzer.process(UnsafeBufferPointer(rebasing: $0[half...])) }
        let atEnd = analyzer.heldByteCount
        let addedSampleBytes = (samples.count - half) * MemoryLayout<Float>.size
        print("held: \(atHalf) B at half, \(atEnd) B at the end; the second half's samples: \(addedSampleBytes) B (growth \(String(format: "%.1f", 100 * Double(atEnd - atHalf) / Double(addedSampleBytes))) %)")
        #expect(atEnd - atHalf < addedSampleBytes / 20)
        #expect(atEnd < samples.count * MemoryLayout<Float>.size / 4)
    }
}
