import CSndfile
import Foundation

/// The encodings `repeater render` (and the tests) can write.
public enum OutputFormat: String, CaseIterable, Sendable {
    case wav = "wav"          // 32-bit float WAV (the default: exactly what the ports carry)
    case wav16 = "wav16"
    case wav24 = "wav24"
    case aiff = "aiff"        // 32-bit float AIFF
    case flac = "flac"        // 24-bit FLAC
    case ogg = "ogg"          // Ogg Vorbis

    /// The format a path's extension implies (`.wav` is float WAV), or nil for an unknown extension.
    public static func forPath(_ path: String) -> OutputFormat? {
        switch (path as NSString).pathExtension.lowercased() {
        case "wav", "wave": return .wav
        case "aif", "aiff": return .aiff
        case "flac": return .flac
        case "ogg", "oga": return .ogg
        default: return nil
        }
    }

    var sndfileFormat: Int32 {
        switch self {
        case .wav: return Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT)
        case .wav16: return Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
        case .wav24: return Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_24)
        case .aiff: return Int32(SF_FORMAT_AIFF | SF_FORMAT_FLOAT)
        case .flac: return Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_24)
        case .ogg: return Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
        }
    }
}

/// A writable audio file: one owner of one libsndfile handle.
public final class AudioFileWriter {
    public let path: String
    public let channelCount: Int
    private var handle: OpaquePointer?

    public init(path: String, format: OutputFormat, sampleRate: Int, channelCount: Int) throws(RepeaterError) {
        self.path = path
        self.channelCount = channelCount
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = format.sndfileFormat
        guard sf_format_check(&info) != 0 else {
            throw .input("cannot write \(channelCount) channels at \(sampleRate) Hz as \(format.rawValue); choose another --format")
        }
        guard let handle = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw .input("cannot write '\(path)': \(String(cString: sf_strerror(nil)))")
        }
        self.handle = handle
    }

    deinit { close() }

    /// Appends interleaved frames.
    public func write(interleaved: UnsafePointer<Float>, frameCount: Int) throws(RepeaterError) {
        guard let handle else { return }
        let written = sf_writef_float(handle, interleaved, sf_count_t(frameCount))
        if written != frameCount {
            throw RepeaterError(.failure, "writing '\(path)' failed: \(String(cString: sf_strerror(handle)))")
        }
    }

    /// Appends planar frames (one buffer per channel).
    public func write(planar: [UnsafeMutablePointer<Float>], frameCount: Int, scratch: UnsafeMutablePointer<Float>) throws(RepeaterError) {
        for frame in 0..<frameCount {
            for channel in 0..<channelCount { scratch[frame * channelCount + channel] = planar[channel][frame] }
        }
        try write(interleaved: scratch, frameCount: frameCount)
    }

    public func close() {
        if let handle { sf_close(handle) }
        handle = nil
    }
}
