import Foundation

/// One recorded take, as the session lists it: a pass of the loop played along with, or (in a
/// drill) the learner's answer in the gap after a line.
public struct Take: Equatable, Sendable {
    public enum Kind: String, Sendable {
        /// A pass of the loop: the take covers source frames `startFrame..<endFrame` as heard.
        case pass
        /// The gap after a drill's line: the answer to the line `startFrame..<endFrame`.
        case answer
    }

    /// Numbered from 1 in the session, never reused.
    public var number: Int
    /// The FLAC file, relative to the session's folder (or absolute).
    public var file: String
    public var kind: Kind
    /// The pass of the loop (1-based, as the `wrap` events count) it was recorded on.
    public var pass: Int
    /// The line (1-based) of a drill's answer.
    public var line: Int?
    /// The loop (or line) it goes with: source frames, B exclusive.
    public var startFrame: Int
    public var endFrame: Int
    /// The speed it was played at: the take is in output time (a pass at 0.75 lasts 4/3 as long).
    public var speed: Double
    /// Frames in the file, at the JACK rate.
    public var frameCount: Int
    /// The JACK sample rate of the file.
    public var sampleRate: Int
    /// The round trip compensated (frames), and whether it was measured (`calibrate`) or reported.
    public var roundTripFrames: Int
    public var roundTripMeasured: Bool
    /// Kept takes are never removed to make room (`--takes-max`).
    public var kept = false
    /// When it was recorded (ISO 8601, for people).
    public var recorded: String

    public init(number: Int, file: String, kind: Kind, pass: Int, line: Int?, startFrame: Int, endFrame: Int, speed: Double,
                frameCount: Int, sampleRate: Int, roundTripFrames: Int, roundTripMeasured: Bool, kept: Bool = false, recorded: String) {
        self.number = number
        self.file = file
        self.kind = kind
        self.pass = pass
        self.line = line
        self.startFrame = startFrame
        self.endFrame = endFrame
        self.speed = speed
        self.frameCount = frameCount
        self.sampleRate = sampleRate
        self.roundTripFrames = roundTripFrames
        self.roundTripMeasured = roundTripMeasured
        self.kept = kept
        self.recorded = recorded
    }
}

/// The session's `"takes"`: the takes kept on disk, oldest first.
extension Session {
    static let takeKeys: Set<String> = ["takes"]

    func writeTakes(into object: inout JSONObject) {
        guard !takes.isEmpty else { return }
        object["takes"] = .array(takes.map { take in
            var fields = JSONObject()
            fields["number"] = .int(take.number)
            fields["file"] = .string(take.file)
            fields["kind"] = .string(take.kind.rawValue)
            fields["pass"] = .int(take.pass)
            if let line = take.line { fields["line"] = .int(line) }
            fields["start"] = .int(take.startFrame)
            fields["end"] = .int(take.endFrame)
            fields["start_time"] = .string(formatTime(frame: take.startFrame, sampleRate: sampleRate))
            fields["end_time"] = .string(formatTime(frame: take.endFrame, sampleRate: sampleRate))
            fields["speed"] = .double(take.speed)
            fields["frames"] = .int(take.frameCount)
            fields["sample_rate"] = .int(take.sampleRate)
            fields["round_trip"] = .int(take.roundTripFrames)
            fields["round_trip_measured"] = .bool(take.roundTripMeasured)
            fields["kept"] = .bool(take.kept)
            fields["recorded"] = .string(take.recorded)
            return .object(fields)
        })
    }

    mutating func readTakes(from object: JSONObject, reader: inout FieldReader) throws(RepeaterError) {
        guard let value = object["takes"], value != .null else { return }
        guard case .array(let items) = value else { throw reader.fail("takes", "must be a list, not \(value.typeName)") }
        var read: [Take] = []
        for (index, item) in items.enumerated() {
            guard case .object(let fields) = item else { throw reader.fail("takes", "entry \(index + 1) must be an object") }
            reader.prefix = "takes[\(index + 1)]."
            let number = try reader.int(fields, "number", range: 1...1_000_000, required: true)!
            let file = try reader.string(fields, "file", required: true)!
            let kindName = try reader.string(fields, "kind") ?? "pass"
            guard let kind = Take.Kind(rawValue: kindName) else { throw reader.fail("takes[\(index + 1)].kind", "must be \"pass\" or \"answer\", not \"\(kindName)\"") }
            let take = Take(number: number, file: file, kind: kind,
                            pass: try reader.int(fields, "pass", range: 0...100_000_000) ?? 0,
                            line: try reader.int(fields, "line", range: 1...1_000_000),
                            startFrame: try reader.int(fields, "start", range: 0...Int.max / 4, required: true)!,
                            endFrame: try reader.int(fields, "end", range: 0...Int.max / 4, required: true)!,
                            speed: try reader.double(fields, "speed", range: 0.25...4) ?? 1,
                            frameCount: try reader.int(fields, "frames", range: 0...Int.max / 4) ?? 0,
                            sampleRate: try reader.int(fields, "sample_rate", range: 1...1_000_000) ?? sampleRate,
                            roundTripFrames: try reader.int(fields, "round_trip", range: -1_000_000...1_000_000) ?? 0,
                            roundTripMeasured: try reader.bool(fields, "round_trip_measured") ?? false,
                            kept: try reader.bool(fields, "kept") ?? false,
                            recorded: try reader.string(fields, "recorded") ?? "")
            reader.prefix = ""
            read.append(take)
        }
        takes = read
    }
}
