import CWebKit
import Synchronization

/// GLib's log output, minus the warnings pageheight causes on purpose.
///
/// The engine's Xvfb runs without GLX (it saves loading Mesa into the X server, and
/// pageheight never composites), so WebKit warns once per process that GTK could not
/// initialize GL. Everything else goes to GLib's default writer, until the process is ending
/// (`exiting(with:)`).
enum GLibLog {
    /// Installs the filter; GLib accepts a writer once per process, before anything is logged.
    static func install() {
        g_log_set_writer_func({ level, fields, count, _ in
            let code = GLibLog.exitCode.load(ordering: .acquiring)
            if code >= 0 { _exit(code) }
            if let fields, GLibLog.isExpected(fields, Int(count)) { return G_LOG_WRITER_HANDLED }
            return g_log_writer_default(level, fields, count, nil)
        }, nil, nil)
    }

    /// The process is ending with `code`: from now on any message (it can only be about the
    /// processes being killed, such as WebKit's "short read from PID socket" for a web process
    /// that was starting, which GLib would end with a crash) ends it at once with `code`.
    static func exiting(with code: Int32) {
        exitCode.store(code, ordering: .releasing)
    }

    private static let exitCode = Atomic<Int32>(-1)

    private static let expected = ["failed to initialize GL"]

    private static func isExpected(_ fields: UnsafePointer<GLogField>, _ count: Int) -> Bool {
        for index in 0..<count where String(cString: fields[index].key) == "MESSAGE" {
            guard let value = fields[index].value else { return false }
            let message = fields[index].length < 0
                ? String(cString: value.assumingMemoryBound(to: CChar.self))
                : String(decoding: UnsafeRawBufferPointer(start: value, count: Int(fields[index].length)), as: UTF8.self)
            return expected.contains { message.contains($0) }
        }
        return false
    }
}
