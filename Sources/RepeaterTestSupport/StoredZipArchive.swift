import Foundation

/// The members of a zip archive whose members are stored (not compressed), as game data archives
/// of already-compressed sounds are (`warzone2100-data`'s `base.wz`: every member stored). Reads
/// the central directory once; a member is a slice of the mapped file. A compressed member, a
/// ZIP64 archive or a damaged directory is a one-line error naming the archive.
public struct StoredZipArchive {
    public let path: String
    private let data: Data
    /// Member name → (offset of its local header, size).
    private let members: [String: (headerOffset: Int, size: Int, method: Int)]

    public init(path: String) throws {
        self.path = path
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
            throw FixtureError(message: "cannot read the archive '\(path)'")
        }
        self.data = data
        func u16(_ at: Int) -> Int { Int(data[data.startIndex + at]) | Int(data[data.startIndex + at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        // The end-of-central-directory record: the last "PK\5\6" within the final 64 KiB + 22 bytes.
        let searchStart = max(0, data.count - 65_557)
        var end: Int?
        var position = data.count - 22
        while position >= searchStart {
            if u32(position) == 0x0605_4B50 { end = position; break }
            position -= 1
        }
        guard let end else { throw FixtureError(message: "'\(path)' is not a zip archive (no end of central directory)") }
        let entryCount = u16(end + 10)
        var entry = u32(end + 16)
        guard entryCount != 0xFFFF, entry != 0xFFFF_FFFF else { throw FixtureError(message: "'\(path)' is a ZIP64 archive, not read here") }
        var members: [String: (Int, Int, Int)] = [:]
        for _ in 0..<entryCount {
            guard entry + 46 <= data.count, u32(entry) == 0x0201_4B50 else {
                throw FixtureError(message: "'\(path)': damaged central directory at byte \(entry)")
            }
            let nameLength = u16(entry + 28), extraLength = u16(entry + 30), commentLength = u16(entry + 32)
            guard entry + 46 + nameLength <= data.count else { throw FixtureError(message: "'\(path)': damaged central directory") }
            let nameStart = data.startIndex + entry + 46
            let name = String(decoding: data[nameStart..<(nameStart + nameLength)], as: UTF8.self)
            members[name] = (u32(entry + 42), u32(entry + 20), u16(entry + 10))
            entry += 46 + nameLength + extraLength + commentLength
        }
        self.members = members
    }

    public var memberNames: [String] { members.keys.sorted() }

    /// The bytes of the member `name`.
    public func contents(of name: String) throws -> Data {
        guard let member = members[name] else { throw FixtureError(message: "'\(path)' has no member '\(name)'") }
        guard member.method == 0 else {
            throw FixtureError(message: "'\(path)': member '\(name)' is compressed (method \(member.method)); only stored members are read")
        }
        func u16(_ at: Int) -> Int { Int(data[data.startIndex + at]) | Int(data[data.startIndex + at + 1]) << 8 }
        let header = member.headerOffset
        guard header + 30 <= data.count, u16(header) | u16(header + 2) << 16 == 0x0403_4B50 else {
            throw FixtureError(message: "'\(path)': damaged local header of '\(name)'")
        }
        let start = header + 30 + u16(header + 26) + u16(header + 28)
        guard start + member.size <= data.count else { throw FixtureError(message: "'\(path)': member '\(name)' runs past the end") }
        return data.subdata(in: (data.startIndex + start)..<(data.startIndex + start + member.size))
    }
}
