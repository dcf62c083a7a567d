import CSndfile
import Foundation

/// What `repeater info` prints and the player needs to know about a file.
public struct AudioFileInfo: Sendable, Equatable {
    public var path: String
    /// libsndfile's names for the container and the encoding, e.g. "WAV (Microsoft)", "32 bit float".
    public var formatName: String
    public var encodingName: String
    public var sampleRate: Int
    public var channelCount: Int
    /// Frames that are really there and can be played.
    public var frameCount: Int
    /// Frames the header promised, when it promised more than the file holds; nil otherwise.
    public var headerFrameCount: Int?

    public init(path: String, formatName: String, encodingName: String, sampleRate: Int, channelCount: Int,
                frameCount: Int, headerFrameCount: Int?) {
        self.path = path
        self.formatName = formatName
        self.encodingName = encodingName
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frameCount = frameCount
        self.headerFrameCount = headerFrameCount
    }

    public var isTruncated: Bool { headerFrameCount != nil }
    public var durationSeconds: Double { Double(frameCount) / Double(sampleRate) }
}

/// A readable audio file: one owner of one libsndfile handle. Not thread-safe: the disk reader
/// thread owns it while playing.
public final class AudioFile {
    public let info: AudioFileInfo
    private var handle: OpaquePointer

    /// Opens `path` for reading and checks how much of it is really there.
    /// Throws a one-line `RepeaterError.input` naming the file and the problem.
    public init(path: String) throws(RepeaterError) {
        let shown = "'\(path)'"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .input("\(shown): no such file; check the path")
        }
        if isDirectory.boolValue { throw .input("\(shown) is a directory, not an audio file") }
        guard access(path, R_OK) == 0 else {
            throw .input("\(shown) cannot be read: \(String(cString: strerror(errno))); check its permissions")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        if size == 0 { throw .input("\(shown) is empty (0 bytes): not an audio file") }

        var sfInfo = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &sfInfo) else {
            let reason = String(cString: sf_strerror(nil))
            if reason.contains("not recognised") || reason.contains("unknown format") {
                throw .input("\(shown) is not an audio file that libsndfile can read (\(reason.trimmingCharacters(in: .punctuationCharacters)))")
            }
            throw .input("\(shown) has a broken header: \(reason.trimmingCharacters(in: .punctuationCharacters))")
        }
        self.handle = handle
        guard sfInfo.channels > 0, sfInfo.samplerate > 0 else {
            sf_close(handle)
            throw .input("\(shown) declares \(sfInfo.channels) channels at \(sfInfo.samplerate) Hz: a broken header")
        }
        let names = AudioFile.formatNames(sfInfo.format)
        var info = AudioFileInfo(path: path, formatName: names.format, encodingName: names.encoding,
                                 sampleRate: Int(sfInfo.samplerate), channelCount: Int(sfInfo.channels),
                                 frameCount: Int(sfInfo.frames), headerFrameCount: nil)
        // libsndfile already shortens a WAV/AIFF whose data chunk is cut; its log says so.
        if let promised = AudioFile.promisedFrames(handle: handle, channels: info.channelCount, format: sfInfo.format),
           promised > info.frameCount {
            info.headerFrameCount = promised
        }
        // Other formats (FLAC, MP3, Ogg) report the header's length: check that its end is there.
        // When it is not, a decoder may be left in an error state, so count on a fresh handle.
        let unknown = info.frameCount <= 0 || info.frameCount >= Int(Int64.max / 2)
        if unknown || !AudioFile.canRead(handle: handle, frame: info.frameCount - 1, channels: info.channelCount) {
            sf_close(handle)
            var again = SF_INFO()
            guard let counting = sf_open(path, Int32(SFM_READ), &again) else {
                throw .input("\(shown) could not be reopened: \(String(cString: sf_strerror(nil)))")
            }
            let real = AudioFile.decodeCount(handle: counting, channels: info.channelCount)
            sf_seek(counting, 0, SEEK_SET)
            if real < info.frameCount && info.headerFrameCount == nil && !unknown {
                info.headerFrameCount = info.frameCount
            }
            info.frameCount = real
            sf_close(counting)
            guard let reopened = sf_open(path, Int32(SFM_READ), &again) else {
                throw .input("\(shown) could not be reopened: \(String(cString: sf_strerror(nil)))")
            }
            self.handle = reopened
        }
        if info.frameCount == 0 {
            sf_close(handle)
            throw .input("\(shown) holds no audio frames")
        }
        sf_seek(handle, 0, SEEK_SET)
        self.info = info
    }

    deinit { sf_close(handle) }

    /// Positions the next read at `frame`. Returns false if the file cannot seek there.
    public func seek(to frame: Int) -> Bool {
        sf_seek(handle, sf_count_t(frame), SEEK_SET) == sf_count_t(frame)
    }

    /// Reads up to `frameCount` interleaved frames; returns how many were read (0 at the end).
    public func read(into interleaved: UnsafeMutablePointer<Float>, frameCount: Int) -> Int {
        Int(sf_readf_float(handle, interleaved, sf_count_t(frameCount)))
    }

    // MARK: helpers

    private static func formatNames(_ format: Int32) -> (format: String, encoding: String) {
        func name(_ command: Int32, _ value: Int32) -> String {
            var formatInfo = SF_FORMAT_INFO()
            formatInfo.format = value
            guard sf_command(nil, command, &formatInfo, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
                  let cName = formatInfo.name else { return String(format: "0x%x", value) }
            return String(cString: cName)
        }
        return (name(Int32(SFC_GET_FORMAT_INFO), format & Int32(SF_FORMAT_TYPEMASK)),
                name(Int32(SFC_GET_FORMAT_INFO), format & Int32(SF_FORMAT_SUBMASK)))
    }

    /// For WAV and AIFF, libsndfile's log has "data : N (should be M)" when the data chunk is cut
    /// short; N bytes is what the header promised.
    private static func promisedFrames(handle: OpaquePointer, channels: Int, format: Int32) -> Int? {
        var log = [CChar](repeating: 0, count: 8192)
        sf_command(handle, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count))
        let text = String(decoding: log.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: {
            ($0.hasPrefix("data") || $0.hasPrefix("SSND")) && $0.contains("should be")
        }) else { return nil }
        let fields = line.split(whereSeparator: { $0 == " " || $0 == ":" })
        guard fields.count >= 2, let bytes = Int(fields[1]) else { return nil }
        let bytesPerSample: Int
        switch format & Int32(SF_FORMAT_SUBMASK) {
        case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8), Int32(SF_FORMAT_ULAW), Int32(SF_FORMAT_ALAW): bytesPerSample = 1
        case Int32(SF_FORMAT_PCM_16): bytesPerSample = 2
        case Int32(SF_FORMAT_PCM_24): bytesPerSample = 3
        case Int32(SF_FORMAT_PCM_32), Int32(SF_FORMAT_FLOAT): bytesPerSample = 4
        case Int32(SF_FORMAT_DOUBLE): bytesPerSample = 8
        default: return nil
        }
        return bytes / (bytesPerSample * channels)
    }

    /// True when `frame` can be sought to and read back.
    private static func canRead(handle: OpaquePointer, frame: Int, channels: Int) -> Bool {
        var probe = [Float](repeating: 0, count: channels)
        guard sf_seek(handle, sf_count_t(frame), SEEK_SET) == sf_count_t(frame) else { return false }
        return sf_readf_float(handle, &probe, 1) == 1
    }

    private static func decodeCount(handle: OpaquePointer, channels: Int) -> Int {
        let chunk = 4096
        var buffer = [Float](repeating: 0, count: chunk * channels)
        var total = 0
        while true {
            let n = Int(sf_readf_float(handle, &buffer, sf_count_t(chunk)))
            if n <= 0 { break }
            total += n
        }
        return total
    }
}
