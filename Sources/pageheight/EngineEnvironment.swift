import Foundation
import PageHeightWebKit

/// What an engine process (`EngineProcess`) of each command finds in its environment besides
/// this process's.
enum EngineEnvironment {
    enum Command { case measure, batch }

    static func variables(for command: Command) -> [String: String] {
        let inherited = ProcessInfo.processInfo.environment
        var variables: [String: String] = [:]
        // Swift's backtracer holds a crashed process until it has written its backtrace (here,
        // when it could not suspend WebKit's threads, for minutes): the supervisor would wait for
        // it before the next page. Left as the user set it.
        if inherited["SWIFT_BACKTRACE"] == nil { variables["SWIFT_BACKTRACE"] = "enable=no" }
        // A batch measures several pages at once: its engine allocates with the C library's malloc
        // (`SystemMalloc`), taken out of the environment again before the engine's own processes
        // start. Not over a `Malloc` the user set.
        if command == .batch, inherited["Malloc"] == nil {
            variables.merge(SystemMalloc.environment) { _, new in new }
        }
        return variables
    }
}
