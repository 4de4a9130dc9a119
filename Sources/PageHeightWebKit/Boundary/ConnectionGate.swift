import Foundation
import PageHeightCore
import Synchronization

/// The online context's proxy: a SOCKS5 server on a loopback port of our own through which every
/// connection of an online page passes (but those for literal loopback addresses, which the
/// page's content filter decides). It resolves the host the page asked for, decides on the
/// addresses with `DestinationRule`, and connects to exactly the addresses it checked, so that
/// no spelling of a URL and no name that resolves to this machine or a private network reaches
/// one. WebKit's network process sends it the host name unresolved (GIO's SOCKS5 client does).
///
/// One thread accepts; each connection gets a thread of its own that answers the SOCKS
/// handshake, connects, then relays bytes both ways until both sides have closed. At most
/// `capacity` connections at once: a page that opens more gets the rest refused.
final class ConnectionGate: Sendable {
    static let capacity = 256
    /// Seconds a client has to finish the handshake, and a connection to be made.
    static let handshakeSeconds = 10

    let port: UInt16
    private let listener: Int32
    private let rule: Mutex<DestinationRule>
    private let open = Atomic<Int>(0)

    /// The gate of this process, started on first use.
    static func shared() throws -> ConnectionGate {
        try made.withLock { made in
            if let made { return made }
            let gate = try ConnectionGate()
            made = gate
            return gate
        }
    }
    private static let made = Mutex<ConnectionGate?>(nil)

    private init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw EngineError.offlineUnavailable("no connection gate (socket: \(String(cString: strerror(errno))))") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound, listen(fd, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw EngineError.offlineUnavailable("no connection gate (bind 127.0.0.1: \(reason))")
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        rule = Mutex(DestinationRule(ownAddresses: Set(BoundaryFilters.localAddresses.compactMap { NetworkAddress($0) })))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "pageheight-gate"
        thread.stackSize = 256 << 10
        thread.start()
    }

    /// The proxy URI the online context sends its connections to.
    var proxyURI: String { "socks5://127.0.0.1:\(port)" }

    /// Lets pages connect to `host` (as `--allow-host` takes it) at any address.
    func allow(_ host: String) {
        rule.withLock { $0.allow(host) }
    }

    /// Lets pages connect to `host`, a page's own, at the addresses it resolves to now (resolved
    /// off the caller's thread), besides the public network.
    func pin(_ host: String) async {
        let addresses = await Task.detached { Self.resolve(host) }.value
        rule.withLock { $0.pin(host, to: addresses) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client >= 0 { _ = fcntl(client, F_SETFD, FD_CLOEXEC) }
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE { continue }
                return
            }
            guard open.add(1, ordering: .relaxed).newValue <= Self.capacity else {
                open.subtract(1, ordering: .relaxed)
                close(client)
                continue
            }
            let thread = Thread { [self] in
                serve(client)
                open.subtract(1, ordering: .relaxed)
            }
            thread.stackSize = 256 << 10
            thread.start()
        }
    }

    /// One SOCKS5 connection (RFC 1928, no authentication, CONNECT only).
    private func serve(_ client: Int32) {
        defer { close(client) }
        var timeout = timeval(tv_sec: Self.handshakeSeconds, tv_usec: 0)
        _ = setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let greeting = read(client, 2), greeting[0] == 5, let methods = read(client, Int(greeting[1])) else { return }
        guard methods.contains(0) else { return send(client, [5, 0xff]) }
        send(client, [5, 0])
        guard let request = read(client, 4), request[0] == 5 else { return }
        guard request[1] == 1 else { return reply(client, 7) } // only CONNECT
        let host: String
        var literal: NetworkAddress?
        switch request[3] {
        case 1:
            guard let bytes = read(client, 4) else { return }
            literal = NetworkAddress(bytes: bytes)
            host = literal!.description
        case 4:
            guard let bytes = read(client, 16) else { return }
            literal = NetworkAddress(bytes: bytes)
            host = literal!.description
        case 3:
            guard let length = read(client, 1), let name = read(client, Int(length[0])) else { return }
            host = String(decoding: name, as: UTF8.self)
            literal = NetworkAddress(host)
        default:
            return reply(client, 8)
        }
        guard let portBytes = read(client, 2) else { return }
        let port = UInt16(portBytes[0]) << 8 | UInt16(portBytes[1])
        let addresses = literal.map { [$0] } ?? Self.resolve(host)
        guard case .connect(let allowed) = rule.withLock({ $0.verdict(host: host, port: port, addresses: addresses) }) else {
            return reply(client, addresses.isEmpty ? 4 : 2) // host unreachable; not allowed by ruleset
        }
        guard let server = Self.connect(allowed, port: port) else { return reply(client, 5) }
        defer { close(server) }
        reply(client, 0)
        timeout = timeval(tv_sec: 0, tv_usec: 0)
        _ = setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        relay(client, server)
    }

    /// The host's addresses (every family), in the resolver's order; none if it has none.
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
            guard let address = current.pointee.ai_addr else { continue }
            if Int32(address.pointee.sa_family) == AF_INET {
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    var raw = v4.pointee.sin_addr
                    NetworkAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) }).map { addresses.append($0) }
                }
            } else if Int32(address.pointee.sa_family) == AF_INET6 {
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    var raw = v6.pointee.sin6_addr
                    NetworkAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) }).map { addresses.append($0) }
                }
            }
        }
        return Array(Set(addresses)).sorted { addresses.firstIndex(of: $0)! < addresses.firstIndex(of: $1)! }
    }

    /// A connected socket to the first of `addresses` that answers within the handshake time.
    private static func connect(_ addresses: [NetworkAddress], port: UInt16) -> Int32? {
        for address in addresses {
            let v4 = address.bytes.count == 4
            let fd = socket(v4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { continue }
            var started: Int32
            if v4 {
                var target = sockaddr_in()
                target.sin_family = sa_family_t(AF_INET)
                target.sin_port = port.bigEndian
                withUnsafeMutableBytes(of: &target.sin_addr) { $0.copyBytes(from: address.bytes) }
                started = withUnsafePointer(to: &target) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            } else {
                var target = sockaddr_in6()
                target.sin6_family = sa_family_t(AF_INET6)
                target.sin6_port = port.bigEndian
                withUnsafeMutableBytes(of: &target.sin6_addr) { $0.copyBytes(from: address.bytes) }
                started = withUnsafePointer(to: &target) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
                }
            }
            if started != 0 && errno == EINPROGRESS {
                var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                var problem: Int32 = 0
                var size = socklen_t(MemoryLayout<Int32>.size)
                if poll(&waiting, 1, Int32(handshakeSeconds * 1000)) == 1,
                   getsockopt(fd, SOL_SOCKET, SO_ERROR, &problem, &size) == 0, problem == 0 {
                    started = 0
                }
            }
            if started == 0 {
                let flags = fcntl(fd, F_GETFL)
                _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
                return fd
            }
            close(fd)
        }
        return nil
    }

    /// Copies bytes both ways until both sides have closed (or one fails).
    private func relay(_ a: Int32, _ b: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var ends = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        var reading = [true, true]
        while reading[0] || reading[1] {
            for i in 0..<2 { ends[i].fd = reading[i] ? (i == 0 ? a : b) : -1 }
            guard poll(&ends, 2, -1) > 0 else { if errno == EINTR { continue } else { return } }
            for i in 0..<2 where reading[i] && ends[i].revents != 0 {
                let from = i == 0 ? a : b, to = i == 0 ? b : a
                let count = Glibc.read(from, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    reading[i] = false
                    _ = shutdown(to, Int32(SHUT_WR))
                    if count < 0 { return }
                    continue
                }
                guard write(to, buffer, count) else { return }
            }
        }
    }

    private func read(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress! + done, count - done, 0) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil }
            done += got
        }
        return bytes
    }

    private func write(_ fd: Int32, _ bytes: [UInt8], _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + done, count - done, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            done += sent
        }
        return true
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) {
        _ = write(fd, bytes, bytes.count)
    }

    /// The SOCKS5 reply with `code` (0: succeeded) and an empty bound address.
    private func reply(_ fd: Int32, _ code: UInt8) {
        send(fd, [5, code, 0, 1, 0, 0, 0, 0, 0, 0])
    }
}
