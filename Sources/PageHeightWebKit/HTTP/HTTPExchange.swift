import CPageHeightShim
import CWebKit
import Foundation

/// One request to an `HTTPServer` and its answer, on the GLib thread: what the client sent (method,
/// target, headers, body) and the ways to answer it (at once, later, or as a stream of chunks).
///
/// It holds a reference to libsoup's message until libsoup reports the message finished (answered,
/// or its connection closed); from then on every answer is dropped. A request whose answer comes
/// later is held (`hold`): libsoup then reads and writes nothing on its connection, so a client
/// that goes away meanwhile is seen by looking at the socket (`clientGone`), not told.
@GLibActor
public final class HTTPExchange {
    /// What has been done with the request so far.
    public enum State: Sendable, Equatable {
        /// Its headers or body are being read, or it waits for its answer.
        case open
        /// Its answer is set (and being written).
        case answered
        /// Its answer is being written as chunks (`beginStream`); `endStream` ends it.
        case streaming
        /// libsoup is done with it: the answer was written, or the connection closed first.
        case finished
    }

    private var message: OpaquePointer?
    public private(set) var state = State.open
    /// Whether the answer began before libsoup finished the message (false: the connection
    /// closed with no answer started, or in the middle of a stream).
    public private(set) var answerCompleted = false
    /// The request's number on its server, from 1.
    public let number: Int
    /// When its headers were read.
    public let receivedAt = ContinuousClock.now
    public let method: String
    /// The decoded path, `/v1/measure`.
    public let path: String
    /// Bytes of the request target as sent (path and query).
    public let targetBytes: Int
    /// Bytes of the header fields, names and values.
    public let headerBytes: Int
    /// Body bytes received so far.
    public private(set) var bodyBytes = 0
    private var bodyLimit: (bytes: Int, refusal: () -> Void)?
    private var paused = false
    /// Whether the answer waits (`hold`).
    public var isHeld: Bool { paused }
    private var finishedWaiters: [CheckedContinuation<Void, Never>] = []
    /// The server's note that the message is done (`HTTPServer` forgets the exchange then).
    var whenFinished: (() -> Void)?

    init(retaining message: OpaquePointer, number: Int) {
        g_object_ref(UnsafeMutableRawPointer(message))
        self.message = message
        self.number = number
        let soup = message
        method = soup_server_message_get_method(soup).map { String(cString: $0) } ?? ""
        let uri = soup_server_message_get_uri(soup)
        path = uri.flatMap { g_uri_get_path($0) }.map { String(cString: $0) } ?? "/"
        let query = uri.flatMap { g_uri_get_query($0) }.map { strlen($0) + 1 } ?? 0
        targetBytes = path.utf8.count + query
        var bytes = 0
        var iterator = SoupMessageHeadersIter()
        soup_message_headers_iter_init(&iterator, soup_server_message_get_request_headers(soup))
        var name: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?
        while soup_message_headers_iter_next(&iterator, &name, &value) != 0 {
            bytes += strlen(name!) + strlen(value!) + 4
        }
        headerBytes = bytes
        let context = Unmanaged.passRetained(self).toOpaque()
        ph_connect_server_message_finished(soup, { _, data in
            GLibActor.assumeIsolated { Unmanaged<HTTPExchange>.fromOpaque(data!).takeUnretainedValue().finished() }
        }, context, { data, _ in Unmanaged<HTTPExchange>.fromOpaque(data!).release() })
        let chunkContext = Unmanaged.passRetained(self).toOpaque()
        ph_connect_server_message_got_chunk(soup, { _, chunk, data in
            GLibActor.assumeIsolated { Unmanaged<HTTPExchange>.fromOpaque(data!).takeUnretainedValue().received(Int(g_bytes_get_size(chunk))) }
        }, chunkContext, { data, _ in Unmanaged<HTTPExchange>.fromOpaque(data!).release() })
    }

    private var soup: OpaquePointer? { message }

    /// The value of the header field `name` (any case); several fields of one name, comma-joined.
    public func header(_ name: String) -> String? {
        guard let soup else { return nil }
        return soup_message_headers_get_list(soup_server_message_get_request_headers(soup), name).map { String(cString: $0) }
    }

    /// The length the request declares for its body, nil when it declares none (a chunked body).
    public var declaredBodyBytes: Int? {
        guard let soup else { return nil }
        let headers = soup_server_message_get_request_headers(soup)
        guard soup_message_headers_get_encoding(headers) == SOUP_ENCODING_CONTENT_LENGTH else { return nil }
        return Int(soup_message_headers_get_content_length(headers))
    }

    /// The client's address as text (`127.0.0.1`), nil when unknown.
    public var remoteHost: String? {
        soup.flatMap { soup_server_message_get_remote_host($0) }.map { String(cString: $0) }
    }

    /// The whole body, once read (in `HTTPServer`'s body handler).
    public var body: Data {
        guard let soup, let bytes = soup_message_body_flatten(soup_server_message_get_request_body(soup)) else { return Data() }
        defer { g_bytes_unref(bytes) }
        var size: gsize = 0
        guard let data = g_bytes_get_data(bytes, &size), size > 0 else { return Data() }
        return Data(bytes: data, count: Int(size))
    }

    /// Calls `refuse` (which answers) once the body passes `bytes`; what comes after is read and
    /// dropped. For bodies without a declared length, whose size shows only as they arrive.
    public func limitBody(to bytes: Int, refuse: @escaping () -> Void) {
        bodyLimit = (bytes, refuse)
    }

    private func received(_ count: Int) {
        bodyBytes += count
        guard let limit = bodyLimit, bodyBytes > limit.bytes else { return }
        bodyLimit = nil
        if let soup { soup_message_body_set_accumulate(soup_server_message_get_request_body(soup), 0) }
        limit.refusal()
    }

    /// Keeps the request open for an answer that comes later: libsoup waits for it.
    public func hold() {
        guard let soup, state == .open, !paused else { return }
        soup_server_message_pause(soup)
        paused = true
    }

    private func resume() {
        guard let soup, paused else { return }
        soup_server_message_unpause(soup)
        paused = false
    }

    /// Answers with `status` and `body`; does nothing once answered or finished.
    /// - Parameters:
    ///   - reason: the status line's phrase; nil: libsoup's for the status.
    ///   - headers: more header fields; `Content-Type` is `contentType`.
    public func respond(status: Int, reason: String? = nil, contentType: String, body: Data, headers: [(String, String)] = []) {
        guard let soup, state == .open else { return }
        state = .answered
        soup_server_message_set_status(soup, guint(status), reason)
        let fields = soup_server_message_get_response_headers(soup)
        for (name, value) in headers { soup_message_headers_replace(fields, name, value) }
        body.withUnsafeBytes { bytes in
            soup_server_message_set_response(soup, contentType, SOUP_MEMORY_COPY, bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                                             gsize(bytes.count))
        }
        // An answer before the body was read (a refusal): what is left of the body is not kept.
        soup_message_body_set_accumulate(soup_server_message_get_request_body(soup), 0)
        resume()
    }

    /// Starts a chunked answer with `status`: its header is written now, its chunks as `stream`
    /// gives them.
    public func beginStream(status: Int, contentType: String, headers: [(String, String)] = []) {
        guard let soup, state == .open else { return }
        state = .streaming
        soup_server_message_set_status(soup, guint(status), nil)
        let fields = soup_server_message_get_response_headers(soup)
        soup_message_headers_set_encoding(fields, SOUP_ENCODING_CHUNKED)
        soup_message_headers_set_content_type(fields, contentType, nil)
        for (name, value) in headers { soup_message_headers_replace(fields, name, value) }
        resume()
    }

    /// Sends `data` as the stream's next chunk.
    public func stream(_ data: Data) {
        guard let soup, state == .streaming, !data.isEmpty else { return }
        data.withUnsafeBytes { bytes in
            soup_message_body_append(soup_server_message_get_response_body(soup), SOUP_MEMORY_COPY, bytes.baseAddress, gsize(bytes.count))
        }
        // libsoup pauses a chunked answer whenever it has written every chunk it has.
        soup_server_message_unpause(soup)
    }

    /// Ends the stream.
    public func endStream() {
        guard let soup, state == .streaming else { return }
        state = .answered
        soup_message_body_complete(soup_server_message_get_response_body(soup))
        soup_server_message_unpause(soup)
    }

    private func finished() {
        answerCompleted = state == .answered
        state = .finished
        if let message { g_object_unref(UnsafeMutableRawPointer(message)) }
        message = nil
        let waiters = finishedWaiters
        finishedWaiters = []
        waiters.forEach { $0.resume() }
        whenFinished.take()?()
    }

    /// Whether the client has closed its side of the connection (or reset it): the socket reads
    /// as ended. A client that sends the next request early (pipelining) is still there.
    public var clientClosed: Bool {
        guard let soup else { return true }
        guard let socket = soup_server_message_get_socket(soup) else { return true }
        let descriptor = g_socket_get_fd(socket)
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count == 0 { return true }
        if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR }
        return false
    }

    /// Returns once the client has gone (`clientClosed`, looked at every `interval` seconds) or
    /// libsoup has finished the message; at once when the task is cancelled.
    public func clientGone(checkingEvery interval: Double = 0.2) async {
        while !Task.isCancelled {
            if state == .finished || clientClosed { return }
            await GLibClock.sleep(interval)
        }
    }

    /// Returns once libsoup has finished the message (its answer written, or its connection gone).
    public func finish() async {
        guard state != .finished else { return }
        await withCheckedContinuation { finishedWaiters.append($0) }
    }
}
