import CWebKit

/// GLib's log output, minus the warnings pageheight causes on purpose.
///
/// The engine's Xvfb runs without GLX (it saves about 50 MB of Mesa in the X server, and
/// pageheight never composites), so WebKit warns once per process that GTK could not
/// initialize GL. Everything else goes to GLib's default writer.
enum GLibLog {
    /// Installs the filter; GLib accepts a writer once per process, before anything is logged.
    static func install() {
        g_log_set_writer_func({ level, fields, count, _ in
            if let fields, GLibLog.isExpected(fields, Int(count)) { return G_LOG_WRITER_HANDLED }
            return g_log_writer_default(level, fields, count, nil)
        }, nil, nil)
    }

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
