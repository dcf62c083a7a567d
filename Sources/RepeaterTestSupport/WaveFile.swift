import Foundation

/// Planar audio in memory: one array of samples per channel, all the same length.
public struct PlanarAudio: Sendable {
    public var channels: [[Float]]
    public var sampleRate: Int

    public init(channels: [[Float]], sampleRate: Int) {
        self.channels = channels
        self.sampleRate = sampleRate
    }

    public var frameCount: Int { channels.first?.count ?? 0 }
    public var channelCount: Int { channels.count }

    /// Silence of the given shape.
    public static func silence(channelCount: Int, frameCount: Int, sampleRate: Int) -> PlanarAudio {
        PlanarAudio(channels: Array(repeating: [Float](repeating: 0, count: frameCount), count: channelCount), sampleRate: sampleRate)
    }

    /// The same audio cut or padded with silence to `frameCount`.
    public func resized(to frameCount: Int) -> PlanarAudio {
        PlanarAudio(channels: channels.map { channel in
            channel.count >= frameCount ? Array(channel.prefix(frameCount)) : channel + [Float](repeating: 0, count: frameCount - channel.count)
        }, sampleRate: sampleRate)
    }

    /// Sample-by-sample sum (the shapes must match).
    public static func + (a: PlanarAudio, b: PlanarAudio) -> PlanarAudio {
        precondition(a.channelCount == b.channelCount && a.frameCount == b.frameCount)
        return PlanarAudio(channels: zip(a.channels, b.channels).map { zip($0, $1).map { $0 + $1 } }, sampleRate: a.sampleRate)
    }

    public func scaled(by gain: Float) -> PlanarAudio {
        PlanarAudio(channels: channels.map { $0.map { $0 * gain } }, sampleRate: sampleRate)
    }

    /// Root-mean-square over all channels.
    public var rms: Double {
        var sum = 0.0
        for channel in channels { for x in channel { sum += Double(x) * Double(x) } }
        return (sum / Double(max(1, frameCount * channelCount))).squareRoot()
    }
}

/// Reading the WAV files FluidSynth writes (IEEE float or 16-bit PCM, any channel count).
public enum WaveFile {
    public struct FormatError: Error, CustomStringConvertible {
        public let description: String
    }

    public static func read(_ path: String) throws -> PlanarAudio {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF",
              String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE" else {
            throw FormatError(description: "\(path) is not a RIFF/WAVE file")
        }
        var position = 12
        var format = 0, channelCount = 0, sampleRate = 0, bitsPerSample = 0
        while position + 8 <= bytes.count {
            let id = String(decoding: bytes[position..<position + 4], as: UTF8.self)
            let size = u32(position + 4)
            let body = position + 8
            if id == "fmt " {
                format = u16(body)
                channelCount = u16(body + 2)
                sampleRate = u32(body + 4)
                bitsPerSample = u16(body + 14)
                if format == 0xFFFE { format = u16(body + 24) }  // WAVE_FORMAT_EXTENSIBLE: the sub-format's tag
            } else if id == "data" {
                let end = min(bytes.count, body + size)
                guard channelCount > 0 else { throw FormatError(description: "\(path): data before fmt") }
                var channels = Array(repeating: [Float](), count: channelCount)
                if format == 3 && bitsPerSample == 32 {
                    let frames = (end - body) / (4 * channelCount)
                    for c in 0..<channelCount { channels[c].reserveCapacity(frames) }
                    for frame in 0..<frames {
                        for c in 0..<channelCount {
                            channels[c].append(Float(bitPattern: UInt32(truncatingIfNeeded: u32(body + (frame * channelCount + c) * 4))))
                        }
                    }
                } else if format == 1 && bitsPerSample == 16 {
                    let frames = (end - body) / (2 * channelCount)
                    for frame in 0..<frames {
                        for c in 0..<channelCount {
                            channels[c].append(Float(Int16(truncatingIfNeeded: u16(body + (frame * channelCount + c) * 2))) / 32768)
                        }
                    }
                } else {
                    throw FormatError(description: "\(path): format \(format) with \(bitsPerSample) bits is not read here")
                }
                return PlanarAudio(channels: channels, sampleRate: sampleRate)
            }
            position = body + size + (size & 1)
        }
        throw FormatError(description: "\(path) has no data chunk")
    }
}
