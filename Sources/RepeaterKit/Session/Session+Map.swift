/// The session's fields for the recording's map: the user's corrections (`"map"`), and practising
/// with it (`"snap"`, `"count_in"`, `"click"`). Each is written only when it is not the default.
extension Session {
    static let mapKeys: Set<String> = ["map", "snap", "count_in", "click"]

    func writeMap(into object: inout JSONObject) {
        if !mapCorrections.isEmpty {
            var fields = JSONObject()
            let corrections = mapCorrections
            if corrections.tempoOctaves != 0 { fields["tempo_octaves"] = .int(corrections.tempoOctaves) }
            if let bpm = corrections.tempoBPM { fields["tempo_bpm"] = .double(bpm) }
            if corrections.nudgeFrames != 0 { fields["nudge_frames"] = .int(corrections.nudgeFrames) }
            if let frame = corrections.downbeatFrame {
                fields["downbeat"] = .int(frame)
                fields["downbeat_time"] = .string(formatTime(frame: frame, sampleRate: sampleRate))
            }
            if let bpb = corrections.beatsPerBar { fields["beats_per_bar"] = .int(bpb) }
            object["map"] = .object(fields)
        }
        if snap != .off { object["snap"] = .string(snap.rawValue) }
        if countInBeats > 0 { object["count_in"] = .int(countInBeats) }
        if click { object["click"] = .bool(true) }
    }

    mutating func readMap(from object: JSONObject, reader: inout FieldReader) throws(RepeaterError) {
        if let value = object["map"], value != .null {
            guard case .object(let fields) = value else { throw reader.fail("map", "must be an object, not \(value.typeName)") }
            reader.prefix = "map."
            var corrections = MapCorrections()
            corrections.tempoOctaves = try reader.int(fields, "tempo_octaves", range: -4...4) ?? 0
            corrections.tempoBPM = try reader.double(fields, "tempo_bpm", range: 20...400)
            corrections.nudgeFrames = try reader.int(fields, "nudge_frames", range: -10_000_000...10_000_000) ?? 0
            corrections.downbeatFrame = try reader.frame(fields, "downbeat", sampleRate: sampleRate)
            corrections.beatsPerBar = try reader.int(fields, "beats_per_bar", range: 1...16)
            reader.prefix = ""
            mapCorrections = corrections
        }
        if let text = try reader.string(object, "snap") {
            guard let mode = SnapMode(rawValue: text) else { throw reader.fail("snap", "must be \"beat\", \"bar\" or \"off\", not \"\(text)\"") }
            snap = mode
        }
        countInBeats = try reader.int(object, "count_in", range: 0...16) ?? 0
        click = try reader.bool(object, "click") ?? false
    }
}

/// Where "A/B here" lands: the frame heard, or the nearest beat or bar of the map.
public enum SnapMode: String, Sendable, CaseIterable {
    case off, beat, bar
}
