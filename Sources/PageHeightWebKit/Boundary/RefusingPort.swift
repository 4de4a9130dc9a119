import Foundation

/// `--offline`: a loopback TCP port that is bound but never listens, so every connection to
/// it is refused at once. The offline web context uses it as its proxy for every host but
/// loopback: a request for the network fails the way it fails on a machine with no network
/// (a broken image gets its alt-text box, a script its `error` event), without a DNS lookup
/// and without a packet leaving the machine.
///
/// Holding the socket keeps the port ours for the life of the process.
final class RefusingPort {
    let port: UInt16
    private let socket: Int32

    init() throws {
        let fd = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw EngineError.offlineUnavailable("no refusing port for the offline proxy (socket: \(String(cString: strerror(errno))))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw EngineError.offlineUnavailable("no refusing port for the offline proxy (bind 127.0.0.1: \(reason))")
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        socket = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(socket) }

    /// The proxy URI that refuses: every request sent through it fails to connect.
    var proxyURI: String { "http://127.0.0.1:\(port)" }
}
