import Foundation

/// Whether a connection a page asks for may go to the addresses its host resolved to: the rule
/// of the connection gate (`ConnectionGate`), which every request of an online page passes but
/// those for literal loopback addresses (which the page's content filter decides).
///
/// A connection may go to public addresses only. Loopback, private, link-local, unspecified and
/// multicast addresses, and this machine's own, are refused, however the name or literal reached
/// them (a public name that resolves to a private address, `[::ffff:127.0.0.1]`, `localhost.`),
/// unless the host as the page wrote it is allowed: the user's `--allow-host` (at any address), or
/// the host of a page the user asked to measure, at the addresses it had when that page was loaded
/// (`pin`): a name that resolves elsewhere later (DNS rebinding: a public name turned into
/// `127.0.0.1` once its page is loaded) reaches only the public network. A name with any address it
/// may not reach is refused whole, and the gate connects to the addresses it checked, never
/// resolving again. Pure.
package struct DestinationRule: Sendable {
    /// Hosts (lower case, without brackets or a trailing dot), each with a port or for every port.
    private var allowed: Set<String> = []
    /// Pages' hosts, each with the addresses it had when a page of it was loaded.
    private var pinned: [String: Set<NetworkAddress>] = [:]
    /// This machine's own addresses.
    package var ownAddresses: Set<NetworkAddress>

    package init(ownAddresses: Set<NetworkAddress> = []) {
        self.ownAddresses = ownAddresses
    }

    /// Allows `host` (`name`, `name:port`, `[v6]:port`, as `--allow-host` takes) to any address.
    package mutating func allow(_ host: String) {
        let (name, port) = Self.split(host)
        allowed.insert(Self.normalized(name) + (port.map { ":" + $0 } ?? ""))
    }

    /// Allows `host`, the host of a page the user asked to measure, at `addresses` (what it
    /// resolved to as its page was loaded), besides the public network.
    package mutating func pin(_ host: String, to addresses: [NetworkAddress]) {
        pinned[Self.normalized(host), default: []].formUnion(addresses)
    }

    package enum Verdict: Equatable, Sendable {
        case connect([NetworkAddress])
        case refuse(String)
    }

    /// What to do with a connection to `host` (a name or a literal, as the page wrote it) at
    /// `port`, whose addresses are `addresses` (for a literal, itself).
    package func verdict(host: String, port: UInt16, addresses: [NetworkAddress]) -> Verdict {
        let name = Self.normalized(host)
        guard !addresses.isEmpty else { return .refuse("\(name) has no address") }
        if allowed.contains(name) || allowed.contains("\(name):\(port)") { return .connect(addresses) }
        let pins = pinned[name] ?? []
        for address in addresses where !pins.contains(address) {
            let scope = address.scope
            if scope != .publicNetwork, !pins.isEmpty {
                return .refuse("\(name) is \(address.canonical) (\(scope.rawValue)) now, not the address its page was loaded from; "
                    + "a page may reach only the public network")
            }
            if scope != .publicNetwork {
                return .refuse("\(name) is \(address.canonical) (\(scope.rawValue)); a page may reach only the public network")
            }
            if ownAddresses.contains(address.canonical) {
                return .refuse("\(name) is \(address.canonical), this machine's own; a page may reach only the public network")
            }
        }
        return .connect(addresses)
    }

    /// Lower case, without brackets, a zone or a trailing dot.
    static func normalized(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// `host[:port]` and `[v6]:port` into the host and the port.
    static func split(_ text: String) -> (String, String?) {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let rest = text[text.index(after: close)...]
            return (String(text[...close]), rest.hasPrefix(":") ? String(rest.dropFirst()) : nil)
        }
        guard text.filter({ $0 == ":" }).count == 1, let colon = text.lastIndex(of: ":") else { return (text, nil) }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
