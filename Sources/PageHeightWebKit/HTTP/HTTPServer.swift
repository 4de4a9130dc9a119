import CPageHeightShim
import CWebKit
import Foundation

/// An HTTP/1.1 server (libsoup's `SoupServer`) on the engine's GLib main loop: its sockets are
/// sources of the same main context as the views, so a request's handlers run on the GLib thread,
/// between the pages' events, and a measurement started from one needs no other thread.
///
/// It decides nothing: every request goes to `handler`, twice: once its headers are read (an
/// answer then refuses it before its body is read, or while it arrives: `HTTPExchange.limitBody`),
/// and once its body is. Create it with `listen`, on the thread of an engine that has started;
/// `stopAccepting` closes its listening sockets and leaves the requests in flight to finish;
/// `close` ends every connection.
@GLibActor
public final class HTTPServer {
    /// What the server does with a request.
    public struct Handler: Sendable {
        /// The request's headers are read; answering refuses it.
        public var headersRead: @GLibActor @Sendable (HTTPExchange) -> Void
        /// The body is read: answer now, or `hold` the exchange and answer later.
        public var bodyRead: @GLibActor @Sendable (HTTPExchange) -> Void

        public init(headersRead: @escaping @GLibActor @Sendable (HTTPExchange) -> Void,
                    bodyRead: @escaping @GLibActor @Sendable (HTTPExchange) -> Void) {
            (self.headersRead, self.bodyRead) = (headersRead, bodyRead)
        }
    }

    private var server: UnsafeMutablePointer<SoupServer>?
    private let handler: Handler
    /// The exchanges whose headers were read and whose message libsoup has not finished, by message.
    private var open: [OpaquePointer: HTTPExchange] = [:]
    /// Requests whose headers were read since the start.
    private var requests = 0
    /// The port listened on (the one the system chose for port 0).
    public private(set) var port = 0

    /// Listens on `host` (an IP address) and `port` (0: any free one), answering with `handler`.
    /// `engine` is the one whose GLib thread serves (it must have started).
    public static func listen(on engine: PageHeightEngine, host: String, port: Int, name: String,
                              handler: Handler) throws(HTTPServerError) -> HTTPServer {
        _ = engine
        let server = HTTPServer(name: name, handler: handler)
        do {
            try server.listen(host: host, port: port)
        } catch {
            server.close()
            throw error
        }
        return server
    }

    isolated deinit {
        precondition(server == nil, "an HTTPServer goes only once closed (close())")
    }

    private init(name: String, handler: Handler) {
        self.handler = handler
        let server = ph_server_new(name)!
        self.server = server
        let context = Unmanaged.passRetained(Callbacks(self)).toOpaque()
        let release: GDestroyNotify = { data in Unmanaged<Callbacks>.fromOpaque(data!).release() }
        soup_server_add_early_handler(server, nil, { _, message, _, _, data in
            GLibActor.assumeIsolated {
                Unmanaged<Callbacks>.fromOpaque(data!).takeUnretainedValue().server?.headersRead(message!)
            }
        }, context, release)
        let bodyContext = Unmanaged.passRetained(Callbacks(self)).toOpaque()
        soup_server_add_handler(server, nil, { _, message, _, _, data in
            GLibActor.assumeIsolated {
                Unmanaged<Callbacks>.fromOpaque(data!).takeUnretainedValue().server?.bodyRead(message!)
            }
        }, bodyContext, release)
    }

    private func listen(host: String, port: Int) throws(HTTPServerError) {
        guard let server, let address = g_inet_socket_address_new_from_string(host, guint(port)) else {
            throw .badAddress(host)
        }
        defer { g_object_unref(address) }
        var error: UnsafeMutablePointer<GError>?
        guard soup_server_listen(server, address, SoupServerListenOptions(0), &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_clear_error(&error)
            throw .listenFailed(host: host, port: port, message)
        }
        let listeners = soup_server_get_listeners(server)
        defer { g_slist_free(listeners) }
        if let socket = listeners?.pointee.data, let local = g_socket_get_local_address(socket.assumingMemoryBound(to: GSocket.self), nil) {
            self.port = Int(g_inet_socket_address_get_port(UnsafeMutableRawPointer(local).assumingMemoryBound(to: GInetSocketAddress.self)))
            g_object_unref(local)
        }
    }

    private func headersRead(_ message: OpaquePointer) {
        requests += 1
        let exchange = HTTPExchange(retaining: message, number: requests)
        open[message] = exchange
        exchange.whenFinished = { [weak self] in self?.open[message] = nil }
        handler.headersRead(exchange)
    }

    private func bodyRead(_ message: OpaquePointer) {
        guard let exchange = open[message] else { return }
        handler.bodyRead(exchange)
        precondition(exchange.state != .open || exchange.isHeld, "a request must be answered or held by its handler")
    }

    /// Requests whose headers were read and which are not finished.
    public var inFlight: Int { open.count }

    /// Closes the listening sockets: new connections are refused; the requests and connections
    /// already open go on (libsoup's `soup_server_disconnect` would close those too).
    public func stopAccepting() {
        guard let server else { return }
        let listeners = soup_server_get_listeners(server)
        defer { g_slist_free(listeners) }
        var node = listeners
        while let current = node {
            if let socket = current.pointee.data { g_socket_close(socket.assumingMemoryBound(to: GSocket.self), nil) }
            node = current.pointee.next
        }
    }

    /// Ends every connection and the server; nothing is answered after it.
    public func close() {
        guard let server else { return }
        soup_server_disconnect(server)
        g_object_unref(UnsafeMutableRawPointer(server))
        self.server = nil
    }

    /// The handlers' context: the server, weakly (the handlers go with the server's object).
    private final class Callbacks {
        weak var server: HTTPServer?
        init(_ server: HTTPServer) { self.server = server }
    }
}

/// Why the server could not listen.
public enum HTTPServerError: Error, CustomStringConvertible {
    case badAddress(String)
    case listenFailed(host: String, port: Int, String)

    public var description: String {
        switch self {
        case .badAddress(let host): "not an IP address to listen on: \(host)"
        case .listenFailed(let host, let port, let message): "cannot listen on \(host):\(port): \(message)"
        }
    }
}
