import Foundation

/// An IPv4 or IPv6 address as the bytes a connection goes to, and where it leads: the public
/// network, or somewhere a page has no business (this machine, a private network). Decided on
/// the address, not on how a URL spelled it: `::ffff:127.0.0.1`, `::127.0.0.1`, `64:ff9b::7f00:1`
/// and `2002:7f00:1::` are all loopback. Pure.
package struct NetworkAddress: Hashable, Sendable, CustomStringConvertible {
    /// Where an address leads.
    package enum Scope: String, Sendable {
        case publicNetwork = "public"
        case loopback
        /// RFC 1918, shared (100.64/10), unique local (fc00::/7) and the special-purpose blocks.
        case privateNetwork = "private"
        case linkLocal = "link-local"
        /// `0.0.0.0/8` and `::`: on Linux a connection to either reaches this machine.
        case unspecified
        case multicast
    }

    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    package let bytes: [UInt8]

    package init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A literal address: dotted IPv4 or IPv6 (brackets, a zone and a trailing dot allowed).
    package init?(_ text: String) {
        var literal = text
        if literal.hasPrefix("[") && literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        if let zone = literal.firstIndex(of: "%") { literal = String(literal[..<zone]) }
        if literal.hasSuffix(".") { literal.removeLast() }
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, literal, &v6) == 1 else { return nil }
        self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
    }

    package var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return "[" + stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":") + "]"
    }

    /// The IPv4 address an IPv6 one carries and leads to: mapped (`::ffff:a.b.c.d`), compatible
    /// (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`), 6to4 (`2002:aabb:ccdd::`).
    package var embeddedIPv4: NetworkAddress? {
        guard bytes.count == 16 else { return nil }
        let head = bytes[0..<12]
        if head.allSatisfy({ $0 == 0 }) || (head.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff)
            || (bytes[0...3] == [0x00, 0x64, 0xff, 0x9b] && bytes[4..<12].allSatisfy { $0 == 0 }) {
            // `::` and `::1` are IPv6's own (handled by `scope`), not IPv4's 0.0.0.0 and 0.0.0.1.
            if head.allSatisfy({ $0 == 0 }) && bytes[12...14].allSatisfy({ $0 == 0 }) && bytes[15] <= 1 { return nil }
            return NetworkAddress(bytes: Array(bytes[12..<16]))
        }
        if bytes[0] == 0x20 && bytes[1] == 0x02 { return NetworkAddress(bytes: Array(bytes[2..<6])) }
        return nil
    }

    package var scope: Scope {
        if let inner = embeddedIPv4 { return inner.scope }
        let b = bytes
        if b.count == 4 {
            switch (b[0], b[1]) {
            case (0, _): return .unspecified
            case (127, _): return .loopback
            case (10, _), (192, 168), (172, 16...31), (100, 64...127), (198, 18...19): return .privateNetwork
            case (169, 254): return .linkLocal
            case (224...239, _): return .multicast
            case (240...255, _): return .privateNetwork // reserved, and the broadcast address
            case (192, 0) where b[2] == 0 || b[2] == 2: return .privateNetwork // IETF assignments, TEST-NET-1
            case (198, 51) where b[2] == 100, (203, 0) where b[2] == 113: return .privateNetwork // TEST-NET-2, -3
            default: return .publicNetwork
            }
        }
        if b[0..<15].allSatisfy({ $0 == 0 }) { return b[15] == 1 ? .loopback : .unspecified }
        if b[0] & 0xfe == 0xfc { return .privateNetwork }
        if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return .linkLocal }
        if b[0] == 0xfe && b[1] & 0xc0 == 0xc0 { return .privateNetwork } // site-local, deprecated
        if b[0] == 0xff { return .multicast }
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 { return .privateNetwork } // documentation
        return .publicNetwork
    }

    /// The address as a connection to an IPv4 one would be compared: an IPv6 address that
    /// carries an IPv4 one is that IPv4 address.
    package var canonical: NetworkAddress { embeddedIPv4 ?? self }
}
