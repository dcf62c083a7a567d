import RepeaterEngine

/// The session's fields for hearing the part: `"isolate"` (a mode's name) and `"eq"` ([low, mid,
/// high] dB), each written only when not the default (off, flat).
extension Session {
    static let hearingKeys: Set<String> = ["isolate", "eq"]

    func writeHearing(into object: inout JSONObject) {
        if isolation != .off { object["isolate"] = .string(isolation.name) }
        if !equalizer.isFlat { object["eq"] = .array([.double(equalizer.lowDB), .double(equalizer.midDB), .double(equalizer.highDB)]) }
    }

    mutating func readHearing(from object: JSONObject, reader: inout FieldReader) throws(RepeaterError) {
        if let text = try reader.string(object, "isolate") {
            do { isolation = try IsolationMode(parsing: text) } catch { throw reader.fail("isolate", error.message) }
        }
        if let value = object["eq"], value != .null {
            guard case .array(let items) = value, items.count == 3, let low = items[0].number, let mid = items[1].number, let high = items[2].number else {
                throw reader.fail("eq", "must be three numbers [low, mid, high] in dB")
            }
            do { equalizer = try EqualizerGains(parsing: "\(low),\(mid),\(high)") } catch { throw reader.fail("eq", error.message) }
        }
    }
}
