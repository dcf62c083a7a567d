import Foundation
import RepeaterKit
import Testing

/// An OSC string: the bytes, a NUL, padded with NULs to a multiple of 4.
private func padded(_ text: String) -> [UInt8] {
    var bytes = Array(text.utf8) + [0]
    while bytes.count % 4 != 0 { bytes.append(0) }
    return bytes
}

private func message(_ path: String, float: Float? = nil) -> [UInt8] {
    guard let float else { return padded(path) + padded(",") }
    return padded(path) + padded(",f") + withUnsafeBytes(of: float.bitPattern.bigEndian) { Array($0) }
}

private func bundle(_ elements: [[UInt8]]) -> [UInt8] {
    var bytes = padded("#bundle") + [0, 0, 0, 0, 0, 0, 0, 1]
    for element in elements { bytes += withUnsafeBytes(of: UInt32(element.count).bigEndian) { Array($0) } + element }
    return bytes
}

private func decode(_ bytes: [UInt8]) -> (paths: [String], malformed: Bool) {
    let (messages, malformed) = bytes.withUnsafeBytes { OSCPacket.decode($0) }
    return (messages.map(\.path), malformed)
}

private func network(_ text: String) throws -> IPNetwork { try IPNetwork(parsing: text) }
private func address(_ text: String) -> IPAddress { IPAddress(parsing: text)! }

@Suite("OSC access: where it listens, whom it takes")
struct OSCAccessTests {
    @Test("--osc PORT is this computer only; HOST:PORT names an address, [v6]:PORT, or a host name")
    func listenAddresses() throws {
        #expect(try ListenAddress(parsing: "9000") == ListenAddress(port: 9000))
        #expect(try ListenAddress(parsing: "0.0.0.0:9000") == ListenAddress(host: .named("0.0.0.0"), port: 9000))
        #expect(try ListenAddress(parsing: "192.168.1.5:1") == ListenAddress(host: .named("192.168.1.5"), port: 1))
        #expect(try ListenAddress(parsing: "[::]:9000") == ListenAddress(host: .named("::"), port: 9000))
        #expect(try ListenAddress(parsing: "[fd00::2]:65535") == ListenAddress(host: .named("fd00::2"), port: 65535))
        #expect(try ListenAddress(parsing: "studio.local:9000") == ListenAddress(host: .named("studio.local"), port: 9000))
        for text in ["9000", "0.0.0.0:9000", "[::]:9000", "[fd00::2]:9000", "studio.local:9000"] {
            #expect(try ListenAddress(parsing: text).description == text)
        }
    }

    @Test("a bad --osc is one line naming the option (exit 2)", arguments: [
        ("", "--osc takes PORT (this computer only) or HOST:PORT"), ("x", "--osc takes PORT"), (":9000", "--osc takes PORT"),
        ("host:", "--osc takes PORT"), ("0", "--osc: a UDP port is 1 to 65535, not '0'"), ("70000", "a UDP port is 1 to 65535"),
        ("0.0.0.0:99999", "a UDP port is 1 to 65535"), ("::1:9000", "--osc: write an IPv6 address in brackets, as [::1]:PORT"),
        ("[::1]9000", "--osc takes PORT"), ("[1.2.3.4]:9000", "--osc: '1.2.3.4' in brackets must be an IPv6 address"),
        ("[fd00::zz]:9000", "must be an IPv6 address"), ("9000x", "--osc takes PORT"), ("-1", "--osc takes PORT"),
    ])
    func badListenAddresses(text: String, message: String) {
        do {
            _ = try Invocation.parse(["play", "x.wav", "--osc", text])
            Issue.record("--osc '\(text)' was taken")
        } catch {
            #expect(error.kind == .input && error.exitCode == 2)
            #expect(error.message.hasPrefix("--osc") && error.message.contains(message) && !error.message.contains("\n"), "\(error.message)")
        }
    }

    @Test("networks: IPv4 and IPv6, one address or a prefix; host bits ignored; an IPv4 network never takes an IPv6 sender")
    func networks() throws {
        let lan = try network("192.168.1.0/24")
        #expect(lan.contains(address("192.168.1.77")) && lan.contains(address("192.168.1.0")) && lan.contains(address("192.168.1.255")))
        #expect(!lan.contains(address("192.168.2.1")) && !lan.contains(address("10.0.0.1")) && !lan.contains(address("fd00::1")))
        #expect(lan.contains(address("::ffff:192.168.1.9")), "a dual-stack socket's IPv4 sender")
        #expect(try network("192.168.1.5/24") == lan)
        #expect(try network("192.168.1.5/24").description == "192.168.1.0/24")
        let one = try network("10.0.0.7")
        #expect(one.contains(address("10.0.0.7")) && !one.contains(address("10.0.0.8")) && one.description == "10.0.0.7")
        #expect(try network("10.0.0.7/32") == one)
        let everyIPv4 = try network("0.0.0.0/0")
        #expect(everyIPv4.contains(address("8.8.8.8")) && !everyIPv4.contains(address("2001:db8::1")))
        let ula = try network("fd00::/8")
        #expect(ula.contains(address("fd12:3456::1")) && !ula.contains(address("fe80::1")) && !ula.contains(address("10.0.0.1")))
        #expect(ula.description == "fd00::/8")
        #expect(try network("fe80::1/64").description == "fe80::/64")
        #expect(try network("::1").contains(address("::1")) && !(try network("::1")).contains(address("::2")))
        #expect(try network("2001:db8::1/127").contains(address("2001:db8::")))
        #expect(IPNetwork.loopback.contains { $0.contains(address("127.0.0.2")) })
        #expect(address("127.1.2.3").isLoopback && address("::1").isLoopback && !address("128.0.0.1").isLoopback && !address("::2").isLoopback)
        #expect(address("::ffff:10.0.0.1") == address("10.0.0.1") && address("::ffff:10.0.0.1").description == "10.0.0.1")
        #expect(address("0.0.0.0").isUnspecified && address("::").isUnspecified && !address("0.0.0.1").isUnspecified)
        #expect(address("2001:db8::8:800:200c:417a").description == "2001:db8::8:800:200c:417a")
    }

    @Test("--osc-allow: a list of addresses and networks, loopback and lan; `lan` stands for the networks listened on")
    func allowLists() throws {
        let list = try AllowList(parsing: "192.168.1.0/24, 10.0.0.7,fd00::/8,loopback,lan")
        #expect(list.entries == [.network(try network("192.168.1.0/24")), .network(try network("10.0.0.7")), .network(try network("fd00::/8")), .loopback, .lan])
        #expect(list.description == "192.168.1.0/24,10.0.0.7,fd00::/8,loopback,lan")
        let lan = [try network("192.0.2.0/24"), try network("10.0.0.7")]
        #expect(list.networks(lan: lan).map(\.description) == ["192.168.1.0/24", "10.0.0.7", "fd00::/8", "127.0.0.0/8", "::1", "192.0.2.0/24"])
        #expect(AllowList.standard.networks(lan: lan).map(\.description) == ["127.0.0.0/8", "::1", "192.0.2.0/24", "10.0.0.7"])
        #expect(try AllowList(parsing: "127.0.0.2").networks(lan: lan).map(\.description) == ["127.0.0.2"], "given, the list is exactly what it names")
        guard case .play(let options) = try Invocation.parse(["play", "x.wav", "--osc", "0.0.0.0:9000", "--osc-allow", "192.168.1.0/24"]) else {
            Issue.record("not play")
            return
        }
        #expect(options.osc == ListenAddress(host: .named("0.0.0.0"), port: 9000))
        #expect(options.oscAllow == AllowList([.network(try network("192.168.1.0/24"))]))
    }

    @Test("a bad --osc-allow is one line naming the option and the entry at fault (exit 2)", arguments: [
        ("192.168.1.0/33", "--osc-allow: the prefix of '192.168.1.0/33' must be 0 to 32"),
        ("fd00::/129", "--osc-allow: the prefix of 'fd00::/129' must be 0 to 128"),
        ("10.0.0.0/", "the prefix of '10.0.0.0/' must be 0 to 32"), ("10.0.0.0/x", "must be 0 to 32"), ("10.0.0.0/-1", "must be 0 to 32"),
        ("300.1.1.1", "--osc-allow: '300.1.1.1' is not an IPv4 or IPv6 address"), ("studio.local", "'studio.local' is not an IPv4 or IPv6 address"),
        ("10.0.0.1,,10.0.0.2", "--osc-allow takes addresses or networks separated by commas"), ("", "separated by commas"),
        ("[::1]", "'[::1]' is not an IPv4 or IPv6 address"), ("10.0.0.1/24/8", "must be 0 to 32"),
    ])
    func badAllowLists(text: String, message: String) {
        do {
            _ = try Invocation.parse(["play", "x.wav", "--osc", "9000", "--osc-allow", text])
            Issue.record("--osc-allow '\(text)' was taken")
        } catch {
            #expect(error.kind == .input && error.exitCode == 2)
            #expect(error.message.hasPrefix("--osc-allow") && error.message.contains(message) && !error.message.contains("\n"), "\(error.message)")
        }
    }

    @Test("packets: a message, a bundle split into its messages, nested bundles to depth 4; anything else is malformed")
    func packets() {
        #expect(decode(message("/repeater/play")) == (["/repeater/play"], false))
        let messages = decode(message("/repeater/volume", float: -6))
        #expect(messages == (["/repeater/volume"], false))
        let (decoded, _) = message("/repeater/volume", float: -6).withUnsafeBytes { OSCPacket.decode($0) }
        #expect(decoded.first?.arguments == [.float(-6)])
        #expect(decode(bundle([message("/repeater/play"), message("/repeater/rate", float: 0.8)])) == (["/repeater/play", "/repeater/rate"], false))
        var nested = message("/repeater/play")
        for _ in 0..<4 { nested = bundle([nested]) }
        #expect(decode(nested) == (["/repeater/play"], false), "depth 4")
        #expect(decode(bundle([nested])) == ([], true), "depth 5")
        #expect(decode(bundle([])) == ([], false), "an empty bundle")
        // What can be read of a bundle with a bad element is kept; the packet still counts as malformed.
        #expect(decode(bundle([message("/repeater/play"), Array("garbage".utf8) + [0]])) == (["/repeater/play"], true))
        var wrongSize = bundle([message("/repeater/play")])
        wrongSize[19] = 200  // the element's size runs past the packet
        #expect(decode(wrongSize) == ([], true))
        #expect(decode(Array("hello".utf8)) == ([], true))
        #expect(decode(padded("/repeater/play")) == ([], true), "no type tag")
        #expect(decode(padded("repeater/play") + padded(",")) == ([], true), "no leading slash")
        #expect(decode(padded("/repeater/seek") + padded(",f")) == ([], true), "a type without its value")
        #expect(decode([UInt8](repeating: 0xFF, count: 64)) == ([], true))
        #expect(decode([]) == ([], true))
    }
}
