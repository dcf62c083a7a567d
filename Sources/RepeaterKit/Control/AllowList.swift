import Foundation

/// `--osc-allow`, `--web-allow`: the senders whose messages (or connections) are taken. Everything
/// else is dropped before it is decoded, counted (`osc_refused`, `web_refused`) and never answered.
/// Given, the list is exactly what it names (add `loopback` to keep this computer's own programs);
/// the default is `loopback,lan`.
public struct AllowList: Equatable, Sendable, CustomStringConvertible {
    public enum Entry: Equatable, Sendable {
        case network(IPNetwork)
        /// 127.0.0.0/8 and ::1.
        case loopback
        /// The networks of the interfaces OSC listens on (every interface's for 0.0.0.0 and [::]).
        case lan
    }

    public var entries: [Entry]

    public init(_ entries: [Entry]) { self.entries = entries }

    /// This computer, and the networks of the interfaces listened on.
    public static let standard = AllowList([.loopback, .lan])

    /// Comma-separated: `192.168.1.0/24,10.0.0.7,fd00::/8,loopback,lan`. Errors name `option`.
    public init(parsing text: String, option: String = "--osc-allow") throws(RepeaterError) {
        var entries: [Entry] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            switch item {
            case "loopback": entries.append(.loopback)
            case "lan": entries.append(.lan)
            case "":
                throw .input("\(option) takes addresses or networks separated by commas (192.168.1.0/24,10.0.0.7,fd00::/8, loopback, lan), not '\(text)'")
            default:
                do {
                    entries.append(.network(try IPNetwork(parsing: item)))
                } catch {
                    throw .input("\(option): \(error.message) (give addresses or networks such as 192.168.1.0/24, 10.0.0.7, fd00::/8, loopback or lan)")
                }
            }
        }
        self.init(entries)
    }

    /// The networks the list stands for, `lan` being `lanNetworks`.
    public func networks(lan lanNetworks: [IPNetwork]) -> [IPNetwork] {
        var networks: [IPNetwork] = []
        for entry in entries {
            let more: [IPNetwork]
            switch entry {
            case .network(let network): more = [network]
            case .loopback: more = IPNetwork.loopback
            case .lan: more = lanNetworks
            }
            for network in more where !networks.contains(network) { networks.append(network) }
        }
        return networks
    }

    public var description: String {
        entries.map { entry in
            switch entry {
            case .network(let network): return network.description
            case .loopback: return "loopback"
            case .lan: return "lan"
            }
        }.joined(separator: ",")
    }
}
