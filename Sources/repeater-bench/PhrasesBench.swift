import Foundation
import RepeaterAnalysis
import RepeaterKit
import RepeaterTestSupport

// One hour of espeak-ng speech (six languages, three speeds, pauses of 0.75–2.5 s in a seeded random
// order), written as WAV at espeak's 22 050 Hz mono, then converted by sox to 48 kHz stereo WAV and
// FLAC; each file is read through libsndfile in blocks and fed to the PhraseDetector, and the CPU
// time of that (getrusage: user + system, from opening the file to the phrases) is printed with
// the accuracy against the known sentence positions.
//
// Then the same for an hour of real recorded voices, plain and under a music bed
// (RealSpeechPhrasesBench.swift).
//
//   repeater-bench phrases [--minutes N] [--directory DIR] [--keep] [--espeak-only | --real-only]
//
// The files (1 GB for an hour) are removed at the end unless --keep.

/// `repeater-bench phrases`: the one-hour phrase detection measurement described above.
func runPhrasesBench(arguments commandArguments: [String]) throws {
    var minutes = 60.0
    var keep = false
    var espeak = true, real = true
    var directory = NSTemporaryDirectory() + "repeater-phrases-bench"
    var arguments = ArraySlice(commandArguments)
    while let argument = arguments.popFirst() {
        switch argument {
        case "--minutes": minutes = Double(arguments.popFirst() ?? "") ?? minutes
        case "--directory": directory = arguments.popFirst() ?? directory
        case "--keep": keep = true
        case "--espeak-only": real = false
        case "--real-only": espeak = false
        default:
            FileHandle.standardError.write("usage: repeater-bench phrases [--minutes N] [--directory DIR] [--keep] [--espeak-only | --real-only]\n".data(using: .utf8)!)
            exit(2)
        }
    }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)

    func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    if espeak { try runEspeakPhrasesBench(minutes: minutes, directory: directory, keep: keep, processCPUSeconds: processCPUSeconds) }
    if real { try runRealSpeechPhrasesBench(minutes: minutes, directory: directory, keep: keep, processCPUSeconds: processCPUSeconds) }
}

/// The espeak-ng hour described above.
private func runEspeakPhrasesBench(minutes: Double, directory: String, keep: Bool, processCPUSeconds: () -> Double) throws {
    func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError(message: "\(executable) \(arguments) failed") }
    }

    // The hour: sentences in a seeded random order with seeded random pauses, and where each one is.
    print("speaking the corpus…")
    var spoken: [SpokenSentence] = []
    for wordsPerMinute in [120, 160, 200] {
        for (voice, texts) in SentenceCorpus.byVoice {
            for text in texts { spoken.append(try SpokenSentence.speak(text, voice: voice, wordsPerMinute: wordsPerMinute)) }
        }
    }
    var random = SplitMix64(seed: 60)
    var order: [SpokenSentence] = []
    var pauses: [Double] = []
    var total = 1.0
    while total < minutes * 60 {
        let sentence = spoken[Int(random.next() % UInt64(spoken.count))]
        let pause = 0.75 + 1.75 * Double(random.nextUnit())
        order.append(sentence)
        pauses.append(pause)
        total += sentence.durationSeconds + pause
    }
    let track = SpeechTrack.join(order, pauses: pauses)
    let rate = track.sampleRate
    let basePath = directory + "/hour-\(Int(minutes))min-22k-mono.wav"
    print("writing \(basePath): \(order.count) sentences, \(String(format: "%.1f", track.durationSeconds / 60)) min")
    let writer = try AudioFileWriter(path: basePath, format: .wav16, sampleRate: rate, channelCount: 1)
    try track.samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frameCount: track.samples.count) }
    writer.close()
    let wav48 = directory + "/hour-\(Int(minutes))min-48k-stereo.wav", flac48 = directory + "/hour-\(Int(minutes))min-48k-stereo.flac"
    print("converting with sox to 48 kHz stereo WAV and FLAC…")
    try run("/usr/bin/sox", ["-v", "0.9", basePath, "-r", "48000", "-c", "2", "-b", "16", wav48])
    try run("/usr/bin/sox", [wav48, flac48])

    /// Reads `path` in blocks of 65 536 frames, handing each block to `consume`.
    func readBlocks(_ path: String, _ consume: (SoundFileReader, UnsafeBufferPointer<Float>) -> Void) throws -> SoundFileReader {
        let file = try SoundFileReader(path: path)
        let blockFrameCount = 65_536
        var block = [Float](repeating: 0, count: blockFrameCount * file.channelCount)
        while true {
            let frames = block.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frameCount: blockFrameCount) }
            if frames == 0 { break }
            block.withUnsafeBufferPointer { consume(file, UnsafeBufferPointer(rebasing: $0[0..<(frames * file.channelCount)])) }
        }
        return file
    }

    print("")
    print("file                           CPU s  (reading  detecting  deciding)  wall s  × real time  phrases  inside one  comma splits  start err  end err")
    for path in [basePath, wav48, flac48] {
        // Reading alone first, for the split of the CPU time (and so both passes find the file cached).
        let readStart = processCPUSeconds()
        _ = try readBlocks(path) { _, _ in }
        let readingOnly = processCPUSeconds() - readStart

        let wallStart = Date()
        let cpuStart = processCPUSeconds()
        var detector: PhraseDetector?
        let file = try readBlocks(path) { file, block in
            if detector == nil { detector = PhraseDetector(sampleRate: file.sampleRate, channelCount: file.channelCount) }
            detector!.process(interleaved: block)
        }
        let decideStart = processCPUSeconds()
        let phrases = detector!.phrases()
        let cpu = processCPUSeconds() - cpuStart
        let deciding = processCPUSeconds() - decideStart
        let wall = Date().timeIntervalSince(wallStart)
        // Score against the truth, scaled to this file's rate.
        let scale = Double(file.sampleRate) / Double(rate)
        var scaled = track
        scaled.sampleRate = file.sampleRate
        scaled.placed = track.placed.map { placed in
            var moved = placed
            moved.startFrame = Int((Double(placed.startFrame) * scale).rounded())
            moved.endFrame = Int((Double(placed.endFrame) * scale).rounded())
            return moved
        }
        let score = PhraseScore(phrases: phrases, track: scaled)
        let audioMinutes = Double(detector!.frameCount) / Double(file.sampleRate) / 60
        let name = (path as NSString).lastPathComponent
        let detecting = max(0, cpu - readingOnly - deciding)
        print(name.padding(toLength: 29, withPad: " ", startingAt: 0)
              + String(format: "%6.2f  (%7.2f  %9.2f  %9.3f)  %6.2f  %11.0f  %7d  %9.2f%%  %12d  %7.3f s  %6.3f s", cpu, readingOnly, detecting, deciding,
                       wall, audioMinutes * 60 / cpu, phrases.count, score.insideOnePercent, score.commaSplitCount,
                       score.meanStartErrorSeconds, score.meanEndErrorSeconds))
    }
    print("\nsentences \(track.placed.count) (\(track.placed.filter { $0.sentence.hasComma }.count) with commas); "
          + "CPU = getrusage user + system from opening the file to the phrases; reading = a separate pass that only reads")
    if !keep { for path in [basePath, wav48, flac48] { try? FileManager.default.removeItem(atPath: path) } }
}
