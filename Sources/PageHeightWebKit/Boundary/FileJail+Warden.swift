import CPageHeightShim
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension FileJail {
    /// The one thread of this process that lives in the jail: it builds it (a mount namespace is
    /// a thread's), keeps it, and mounts the pages' folders in it (`PageFolders`). The processes
    /// WebKit starts enter the jail as they start (`ph_jail_children`, with the namespace's
    /// descriptor); every other thread of this process keeps the machine's view. Before, the
    /// engine's thread itself moved into the jail, and the threads it started later (the
    /// concurrency runtime's, which then ran the caller's code) were in it too: a check's
    /// baseline, a snapshot or a child program of the caller's saw the jail, not the machine.
    ///
    /// The warden starts no thread and runs nothing but the jail's work, which the callers hand
    /// it and wait for (`perform`).
    final class Warden: @unchecked Sendable {
        /// A descriptor of the jail's mount namespace.
        let namespace: Int32
        private let condition = NSCondition()
        private var work: [() -> Void] = []

        private init(namespace: Int32) {
            self.namespace = namespace
        }

        /// Builds the jail on a thread of its own, which stays in it. Returns the state, and the
        /// warden and the pages' folders when the jail is on.
        static func start(_ access: Access, privateDirectory: String) -> (State, Warden?, PageFolders?) {
            let started = NSCondition()
            nonisolated(unsafe) var outcome: (State, Warden?, PageFolders?)?
            let thread = Thread {
                let (state, folders) = FileJail.enter(access, privateDirectory: privateDirectory)
                var warden: Warden?
                var result = state
                if state == .on {
                    let descriptor = open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC)
                    if descriptor >= 0 {
                        warden = Warden(namespace: descriptor)
                        folders?.warden = warden
                    } else {
                        result = .unavailable("the jail's namespace cannot be opened: \(String(cString: strerror(errno)))")
                    }
                }
                started.lock()
                outcome = (result, warden, warden == nil ? nil : folders)
                started.signal()
                started.unlock()
                warden?.serve()
            }
            thread.name = "pageheight-jail"
            thread.start()
            started.lock()
            while outcome == nil { started.wait() }
            started.unlock()
            return outcome!
        }

        /// Runs `body` on the warden's thread, in the jail, and returns its result.
        func perform<Result>(_ body: @escaping () -> Result) -> Result {
            let done = NSCondition()
            nonisolated(unsafe) var result: Result?
            condition.lock()
            work.append {
                let value = body()
                done.lock()
                result = value
                done.signal()
                done.unlock()
            }
            condition.signal()
            condition.unlock()
            done.lock()
            while result == nil { done.wait() }
            done.unlock()
            return result!
        }

        /// The warden's loop: the work handed to it, in order, for ever.
        private func serve() -> Never {
            while true {
                condition.lock()
                while work.isEmpty { condition.wait() }
                let next = work.removeFirst()
                condition.unlock()
                next()
            }
        }
    }
}
