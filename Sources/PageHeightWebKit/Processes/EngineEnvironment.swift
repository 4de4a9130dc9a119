import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The environment variables the engine sets for itself and the processes WebKit starts (its
/// display, bus, fonts, EGL vendor, scale), set here only, with the caller's own values kept.
///
/// The environment is the process's: a program that runs an engine and then starts another
/// program (a test process running the `pageheight` binary, a server starting a helper) passes
/// the engine's values on. Several name files in the engine's private directory, which another
/// engine's file jail does not show: a `pageheight` started so found no EGL vendor (its web
/// processes aborted) and no fonts configuration. So the caller's values travel with them, in
/// `PAGEHEIGHT_CALLER_ENVIRONMENT`, and an engine starting in a child process puts them back
/// (`restoreCallers`) before it reads anything: it starts from the environment its caller had.
enum EngineEnvironment {
    static let record = "PAGEHEIGHT_CALLER_ENVIRONMENT"

    /// One variable as the record holds it: the caller's value and the engine's (nil: unset).
    struct Change: Equatable {
        var caller: String?
        var engine: String?
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var changes: [String: Change] = [:]

    /// Puts back the caller's value of each variable an engine of a parent process set and the
    /// parent left as that engine set it (a value the parent chose for this process stays), then
    /// forgets the record. Call first as the engine starts.
    static func restoreCallers() {
        lock.lock()
        defer { lock.unlock() }
        guard let text = value(of: record) else { return }
        unsetenv(record)
        for (name, change) in decode(text) where value(of: name) == change.engine {
            if let caller = change.caller { setenv(name, caller, 1) } else { unsetenv(name) }
        }
    }

    /// Sets `name` for this process and those it starts; with `overwrite` false, a value already
    /// there stays.
    static func set(_ name: String, _ value: String, overwrite: Bool = true) {
        change(name) { setenv(name, value, overwrite ? 1 : 0) }
    }

    static func unset(_ name: String) {
        change(name) { unsetenv(name) }
    }

    private static func change(_ name: String, _ apply: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        // The caller's value is the one before the engine's first change.
        let caller: String? = changes[name].map { $0.caller } ?? value(of: name)
        apply()
        changes[name] = Change(caller: caller, engine: value(of: name))
        setenv(record, encode(changes), 1)
    }

    private static func value(of name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The record: a JSON object, each name to `{"caller": …, "engine": …}`, null for unset.
    static func encode(_ changes: [String: Change]) -> String {
        let object = changes.mapValues { change in
            ["caller": change.caller.map { $0 as Any } ?? NSNull(), "engine": change.engine.map { $0 as Any } ?? NSNull()]
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The changes of a record; nothing for a record that is not one.
    static func decode(_ text: String) -> [String: Change] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return [:] }
        var changes: [String: Change] = [:]
        for case let (name, fields as [String: Any]) in object where !name.isEmpty && !name.contains("=") {
            changes[name] = Change(caller: fields["caller"] as? String, engine: fields["engine"] as? String)
        }
        return changes
    }
}
