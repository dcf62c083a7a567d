/// The session's fields for lines: `"lines"` (the line file, relative to the session's folder, or
/// "auto" for automatic phrases) and `"drill"` (passes, gap factor and the line reached).
extension Session {
    static let lineKeys: Set<String> = ["lines", "drill"]

    func writeLines(into object: inout JSONObject) {
        if let linesSource { object["lines"] = .string(linesSource) }
        if let drill {
            var fields = JSONObject()
            fields["passes"] = .int(drill.passes)
            fields["gap_factor"] = .double(drill.gapFactor)
            fields["line"] = .int(drillLine ?? 1)
            object["drill"] = .object(fields)
        }
    }

    mutating func readLines(from object: JSONObject, reader: inout FieldReader) throws(RepeaterError) {
        linesSource = try reader.string(object, "lines")
        if let value = object["drill"], value != .null {
            guard case .object(let fields) = value else { throw reader.fail("drill", "must be an object or null, not \(value.typeName)") }
            reader.prefix = "drill."
            let passes = try reader.int(fields, "passes", range: 1...100, required: true)!
            let factor = try reader.double(fields, "gap_factor", range: 0...10) ?? DrillSpec.defaultGapFactor
            drillLine = try reader.int(fields, "line", range: 1...1_000_000) ?? 1
            reader.prefix = ""
            drill = DrillSpec(passes: passes, gapFactor: factor)
        }
    }
}
