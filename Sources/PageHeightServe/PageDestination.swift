import Foundation
import PageHeightCore

/// Where an `http(s)` page a client names may be: on the public network only, unless the server
/// allows its host (`--allow-host`). The command line lets the page a user names be anywhere (the
/// user may reach it anyway); a client of the server may not make it reach what only the server
/// can: its loopback, a private network, the cloud's metadata address, the machine's own
/// addresses. The host is resolved here, and a name with any address it may not reach is refused
/// (the connection gate resolves it again when the page loads: a name that changes its answer in
/// between is not caught here).
enum PageDestination {
    /// Refuses `url` (an http(s) URL) when its host is not public and not allowed.
    static func check(_ url: String, allowedHosts: [String]) throws(APIError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              ["http", "https"].contains(scheme), var host = components.host?.lowercased() else { return }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        let written = host.contains(":") ? "[\(host)]" : host
        if allowedHosts.contains(written) || allowedHosts.contains("\(written):\(port)") { return }
        let addresses = NetworkAddress(host).map { [$0] } ?? resolve(host)
        guard !addresses.isEmpty else { return } // no address: the load fails, and the report says so
        let own = ownAddresses()
        for address in addresses.map(\.canonical) {
            if address.scope != .publicNetwork {
                throw .badRequest("\(host) is \(address) (\(address.scope.rawValue)): this server measures pages on the public "
                    + "network only (start it with --allow-host \(written) to allow this host)", field: "url")
            }
            if own.contains(address) {
                throw .badRequest("\(host) is \(address), this machine's own address: this server measures pages on the public "
                    + "network only", field: "url")
            }
        }
    }

    private static func resolve(_ host: String) -> [NetworkAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [NetworkAddress] = []
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ai_next }
            if let address = current.pointee.ai_addr, let found = Self.address(address) { addresses.append(found) }
        }
        return addresses
    }

    /// Every interface's address on this machine.
    private static func ownAddresses() -> Set<NetworkAddress> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var addresses: Set<NetworkAddress> = []
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            if let address = current.pointee.ifa_addr, let found = Self.address(address) { addresses.insert(found.canonical) }
        }
        return addresses
    }

    private static func address(_ address: UnsafeMutablePointer<sockaddr>) -> NetworkAddress? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                var raw = v4.pointee.sin_addr
                return NetworkAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) })
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                var raw = v6.pointee.sin6_addr
                return NetworkAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) })
            }
        default:
            return nil
        }
    }
}
