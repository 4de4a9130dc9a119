import Foundation

/// The web processes this process started.
enum WebProcesses {
    /// Their pids: descendants of this process named `WebKitWebProcess` (as the kernel shortens
    /// it), found through /proc, zombies left out.
    static func ofThisProcess() -> [Int32] {
        descendants().filter { $0.name.hasPrefix("WebKitWebProces") }.map(\.pid)
    }

    /// The web processes this process started itself (not a child's), from the kernel's list
    /// of each thread's children (/proc/self/task/*/children): a view's first load asks twice,
    /// and a walk of all of /proc costs more the busier the machine.
    static func children() -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        let pids = tasks.flatMap { task in
            (read("/proc/self/task/\(task)/children") ?? "").split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
        }
        return pids.filter { pid in
            guard let (name, fields) = stat("/proc/\(pid)/stat") else { return false }
            return name.hasPrefix("WebKitWebProces") && fields.first != "Z"
        }
    }

    /// Every live descendant of `root` (this process by default), with its name (`comm`, at most
    /// 15 bytes).
    static func descendants(of root: Int32 = getpid()) -> [(pid: Int32, name: Substring)] {
        var parents: [Int32: Int32] = [:]
        var names: [Int32: Substring] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let (name, fields) = stat("/proc/\(entry)/stat"),
                  fields.count > 1, fields[0] != "Z", let parent = Int32(fields[1]) else { continue }
            parents[pid] = parent
            names[pid] = name
        }
        var result: [(pid: Int32, name: Substring)] = []
        var frontier = [root]
        while let next = frontier.popLast() {
            for (child, parent) in parents where parent == next {
                frontier.append(child)
                result.append((child, names[child] ?? ""))
            }
        }
        return result
    }
}

extension WebProcesses {
    /// Whether `pid` is still a running web process (not gone, not a zombie, not reused).
    static func isRunning(_ pid: Int32) -> Bool {
        guard let (name, fields) = stat("/proc/\(pid)/stat") else { return false }
        return name.hasPrefix("WebKitWebProces") && fields.first != "Z" && fields.first != "X"
    }

    /// The private memory (`RssAnon`, bytes) of the largest of this process's web processes, or
    /// nil when none can be read.
    static func largestPrivateMemory() -> Int? {
        ofThisProcess().compactMap(privateMemory).max()
    }

    /// A process's resident anonymous memory in bytes (`RssAnon` in /proc/PID/status).
    static func privateMemory(_ pid: Int32) -> Int? {
        guard let status = read("/proc/\(pid)/status"),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
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
