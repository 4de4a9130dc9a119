import Foundation

/// The web processes this process started.
enum WebProcesses {
    /// Their pids: descendants of this process named `WebKitWebProcess` (as the kernel shortens
    /// it), found through /proc, zombies left out.
    static func ofThisProcess() -> [Int32] {
        descendants().filter { $0.name.hasPrefix("WebKitWebProces") }.map(\.pid)
    }

    /// The web processes this process started itself (not a child's), each as the process it
    /// started: the web process, or the bubblewrap that runs it in its sandbox
    /// (`webProcess(runBy:)`). From the kernel's list of each thread's children
    /// (/proc/self/task/*/children): a view's first load asks twice, and a walk of all of /proc
    /// costs more the busier the machine.
    static func children() -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        let pids = tasks.flatMap { task in
            (read("/proc/self/task/\(task)/children") ?? "").split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
        }
        var buffer = ProcBuffer()
        return pids.filter { pid in
            guard let entry = buffer.stat(pid), entry.state != UInt8(ascii: "Z") else { return false }
            return entry.isWebProcess || runsWebProcessInSandbox(pid)
        }
    }

    /// The web process that `pid` (one of `children()`) runs: itself when it is one, else the one
    /// below the bubblewrap it is (bubblewrap's child in the sandbox runs it), once that has
    /// started; nil before, or once gone.
    static func webProcess(runBy pid: Int32) -> Int32? {
        var buffer = ProcBuffer()
        guard let entry = buffer.stat(pid), entry.state != UInt8(ascii: "Z") else { return nil }
        if entry.isWebProcess { return pid }
        return descendants(of: pid).first { $0.name.hasPrefix("WebKitWebProces") }?.pid
    }

    /// Whether `pid` is a bubblewrap that WebKit started to run a web process in its sandbox
    /// (not its D-Bus proxy's): `bwrap … -- …/WebKitWebProcess …`.
    private static func runsWebProcessInSandbox(_ pid: Int32) -> Bool {
        guard stat("/proc/\(pid)/stat")?.name == "bwrap", let command = read("/proc/\(pid)/cmdline") else { return false }
        let arguments = command.split(separator: "\0", omittingEmptySubsequences: false)
        guard let end = arguments.firstIndex(of: "--"), end + 1 < arguments.count else { return false }
        return arguments[end + 1].hasSuffix("/WebKitWebProcess")
    }

    /// Every live descendant of `root` (this process by default), with its name (`comm`, at most
    /// 15 bytes).
    static func descendants(of root: Int32 = getpid()) -> [(pid: Int32, name: Substring)] {
        // Every process's parent first, from bytes (the watchdog walks /proc four times a
        // second); names only for the descendants found.
        var buffer = ProcBuffer()
        var children: [Int32: [Int32]] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let stat = buffer.stat(pid), stat.state != UInt8(ascii: "Z") else { continue }
            children[stat.parent, default: []].append(pid)
        }
        var result: [(pid: Int32, name: Substring)] = []
        var frontier = [root]
        while let next = frontier.popLast() {
            for child in children[next] ?? [] {
                frontier.append(child)
                result.append((child, stat("/proc/\(child)/stat")?.name ?? ""))
            }
        }
        return result
    }
}

extension WebProcesses {
    /// Whether `pid` is still a running web process (not gone, not a zombie, not reused).
    static func isRunning(_ pid: Int32) -> Bool {
        var buffer = ProcBuffer()
        guard let stat = buffer.stat(pid) else { return false }
        return stat.isWebProcess && stat.state != UInt8(ascii: "Z") && stat.state != UInt8(ascii: "X")
    }

    /// The private memory (`RssAnon`, bytes) of the largest of this process's web processes, or
    /// nil when none can be read.
    static func largestPrivateMemory() -> Int? {
        ofThisProcess().compactMap(privateMemory).max()
    }

    /// A process's resident anonymous memory in bytes (`RssAnon` in /proc/PID/status), read
    /// from /proc/PID/statm, which the kernel writes for a fraction of the cost: resident pages
    /// less the shared ones (file and shared memory) are the anonymous ones.
    static func privateMemory(_ pid: Int32) -> Int? {
        var buffer = ProcBuffer()
        guard let fields = buffer.numbers("/proc/\(pid)/statm", count: 3), fields[1] >= fields[2] else { return nil }
        return (fields[1] - fields[2]) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// A process's or thread's `stat` file (/proc/PID/stat, /proc/PID/task/TID/stat): its name
    /// (`comm`) and the fields after it (state, parent, ...: field n of proc(5) is `fields[n - 3]`).
    static func stat(_ path: String) -> (name: Substring, fields: [Substring])? {
        guard let stat = read(path), let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
        else { return nil }
        return (stat[stat.index(after: open)..<close], stat[stat.index(after: close)...].split(separator: " "))
    }

    /// The whole text of a /proc file, read to its end (they report a size of 0, and one read
    /// returns at most a page of some of them, such as smaps).
    package static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}

/// One read of a small /proc file into a buffer kept across reads, parsed from its bytes: the
/// watchdog reads every process's `stat` four times a second.
struct ProcBuffer {
    private var bytes = [UInt8](repeating: 0, count: 4096)

    /// What `/proc/PID/stat` tells: whether the process is a web process (its `comm`), its state
    /// and its parent.
    mutating func stat(_ pid: Int32) -> (isWebProcess: Bool, state: UInt8, parent: Int32)? {
        let count = read("/proc/\(pid)/stat")
        guard count > 0 else { return nil }
        return bytes.withUnsafeBufferPointer { text -> (Bool, UInt8, Int32)? in
            let text = UnsafeBufferPointer(rebasing: text[..<count])
            guard let open = text.firstIndex(of: UInt8(ascii: "(")), let close = text.lastIndex(of: UInt8(ascii: ")")),
                  close + 4 < count else { return nil }
            let name = Array("WebKitWebProces".utf8)
            let isWeb = close - open - 1 >= name.count && text[(open + 1)..<(open + 1 + name.count)].elementsEqual(name)
            // ") S 1234 ..."
            var parent: Int32 = 0
            var index = close + 4
            while index < count, text[index] >= UInt8(ascii: "0"), text[index] <= UInt8(ascii: "9") {
                parent = parent &* 10 &+ Int32(text[index] - UInt8(ascii: "0"))
                index += 1
            }
            return (isWeb, text[close + 2], parent)
        }
    }

    /// The first `count` numbers of a file of numbers separated by spaces (`statm`).
    mutating func numbers(_ path: String, count wanted: Int) -> [Int]? {
        let count = read(path)
        guard count > 0 else { return nil }
        var numbers: [Int] = []
        var current: Int?
        for byte in bytes[..<count] {
            if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                current = (current ?? 0) &* 10 &+ Int(byte - UInt8(ascii: "0"))
            } else if let number = current {
                numbers.append(number)
                current = nil
                if numbers.count == wanted { return numbers }
            }
        }
        if let current { numbers.append(current) }
        return numbers.count >= wanted ? Array(numbers.prefix(wanted)) : nil
    }

    /// Reads the file's first bytes (as many as the buffer holds); the count, or -1.
    private mutating func read(_ path: String) -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        defer { close(fd) }
        while true {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            return count
        }
    }
}
