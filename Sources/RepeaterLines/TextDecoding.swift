/// The character encoding a line file was read in.
public enum TextEncoding: String, Sendable, Equatable {
    case utf8 = "UTF-8"
    case utf16LittleEndian = "UTF-16LE"
    case utf16BigEndian = "UTF-16BE"
    /// Not valid UTF-8 and no byte order mark: read as Windows-1252, the superset of Latin-1
    /// that old Western subtitle files were written in (every byte is some character, so this
    /// never fails; the 5 bytes Windows-1252 leaves undefined become the C1 controls U+0081 …).
    case windows1252 = "Windows-1252"
}

/// Bytes to text, whatever a subtitle editor saved.
///
/// Order of decisions: a byte order mark (UTF-8, UTF-16 LE, UTF-16 BE) wins; else valid UTF-8 is
/// UTF-8; else a text whose first bytes are mostly ASCII with a zero byte beside each is UTF-16
/// without a mark (Windows tools write those); else Windows-1252. Invalid sequences after a UTF-8
/// or UTF-16 mark become U+FFFD rather than fail: the mark states the author's intent.
enum TextDecoding {
    struct Decoded: Equatable {
        var text: String
        var encoding: TextEncoding
        var hadByteOrderMark: Bool
    }

    static func decode(_ bytes: [UInt8]) -> Decoded {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return Decoded(text: String(decoding: bytes.dropFirst(3), as: UTF8.self), encoding: .utf8, hadByteOrderMark: true)
        }
        if bytes.starts(with: [0xFF, 0xFE]) {
            return Decoded(text: utf16(bytes.dropFirst(2), bigEndian: false), encoding: .utf16LittleEndian, hadByteOrderMark: true)
        }
        if bytes.starts(with: [0xFE, 0xFF]) {
            return Decoded(text: utf16(bytes.dropFirst(2), bigEndian: true), encoding: .utf16BigEndian, hadByteOrderMark: true)
        }
        if let text = String(validating: bytes, as: UTF8.self) {
            return Decoded(text: text, encoding: .utf8, hadByteOrderMark: false)
        }
        if let bigEndian = looksLikeUTF16WithoutMark(bytes) {
            return Decoded(text: utf16(bytes[...], bigEndian: bigEndian),
                           encoding: bigEndian ? .utf16BigEndian : .utf16LittleEndian, hadByteOrderMark: false)
        }
        return Decoded(text: windows1252(bytes), encoding: .windows1252, hadByteOrderMark: false)
    }

    private static func utf16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {  // an odd last byte is dropped
            let first = UInt16(bytes[index]), second = UInt16(bytes[index + 1])
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// nil, or whether the text is big-endian: in the first 512 bytes, at least 40 % of the bytes
    /// on one parity are zero and under 5 % on the other (ASCII-heavy text in UTF-16).
    private static func looksLikeUTF16WithoutMark(_ bytes: [UInt8]) -> Bool? {
        let sample = bytes.prefix(512)
        guard sample.count >= 4 else { return nil }
        var zeros = [0, 0]
        for (offset, byte) in sample.enumerated() where byte == 0 { zeros[offset % 2] += 1 }
        let half = Double(sample.count / 2)
        if Double(zeros[1]) >= 0.4 * half && Double(zeros[0]) < 0.05 * half { return false }
        if Double(zeros[0]) >= 0.4 * half && Double(zeros[1]) < 0.05 * half { return true }
        return nil
    }

    /// Windows-1252's 0x80…0x9F; 0 marks the five bytes it leaves undefined (kept as C1 controls).
    private static let high: [UInt32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ]

    private static func windows1252(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            var value = UInt32(byte)
            if (0x80...0x9F).contains(byte), high[Int(byte) - 0x80] != 0 { value = high[Int(byte) - 0x80] }
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }
}
