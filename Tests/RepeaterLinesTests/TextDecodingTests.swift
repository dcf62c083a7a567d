import RepeaterLines
import Testing

@Suite("Encodings")
struct TextDecodingTests {
    static let srt = "1\r\n00:00:01,000 --> 00:00:02,000\r\nÇa coûte 5 € — déjà vu ?\r\n"
    static let expected = [line(1, 2, "Ça coûte 5 € — déjà vu ?")]

    static func utf16(_ text: String, bigEndian: Bool) -> [UInt8] {
        text.utf16.flatMap { unit in bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
    }

    @Test("UTF-8 with and without a byte order mark")
    func utf8() throws {
        for bytes in [Array(Self.srt.utf8), [0xEF, 0xBB, 0xBF] + Array(Self.srt.utf8)] {
            let file = try read(bytes, "a.srt")
            expectSame(file.lines, Self.expected)
            #expect(file.encoding == .utf8 && file.notes.isEmpty)
        }
    }

    @Test("UTF-16 little- and big-endian with a byte order mark; little-endian without one, said so")
    func utf16() throws {
        let little = try read([0xFF, 0xFE] + Self.utf16(Self.srt, bigEndian: false), "le.srt")
        let big = try read([0xFE, 0xFF] + Self.utf16(Self.srt, bigEndian: true), "be.srt")
        let unmarked = try read(Self.utf16(Self.srt, bigEndian: false), "nobom.srt")
        for file in [little, big, unmarked] { expectSame(file.lines, Self.expected) }
        #expect(little.encoding == .utf16LittleEndian && little.notes.isEmpty)
        #expect(big.encoding == .utf16BigEndian && big.notes.isEmpty)
        #expect(unmarked.encoding == .utf16LittleEndian)
        #expect(unmarked.notes == ["'nobom.srt' has no byte order mark: read as UTF-16LE from its zero bytes"])
    }

    @Test("a Latin-1 file that is not UTF-8 reads as Windows-1252, and says so")
    func windows1252() throws {
        // "Ça coûte 5 € — déjà vu ?" in Windows-1252: € is 0x80, — is 0x97.
        let text: [UInt8] = Array("1\r\n00:00:01,000 --> 00:00:02,000\r\n".utf8)
            + [0xC7, 0x61, 0x20, 0x63, 0x6F, 0xFB, 0x74, 0x65, 0x20, 0x35, 0x20, 0x80, 0x20, 0x97, 0x20,
               0x64, 0xE9, 0x6A, 0xE0, 0x20, 0x76, 0x75, 0x20, 0x3F, 0x0D, 0x0A]
        let file = try read(text, "old.srt")
        expectSame(file.lines, Self.expected)
        #expect(file.encoding == .windows1252)
        #expect(file.notes == ["'old.srt' is not UTF-8: read as Windows-1252 (Western European); if letters look wrong, save it as UTF-8"])
    }
}
