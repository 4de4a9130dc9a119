import CPageHeightShim

/// This process's allocator for WebKit's memory: WebKit's own (libpas) unless the program starts
/// again with the C library's (`restart`). libpas's locks spin: a thread that finds one taken
/// yields and tries again until it is free. With more jobs than cores, the thread holding one waits
/// for a core behind the web processes, and this process's IPC threads spin meanwhile (a third of
/// its CPU time at four jobs on two cores, taken from the web processes). The web and network
/// processes keep libpas, which is faster for them.
public enum SystemMalloc {
    /// Starts the program again at once, same arguments, allocating WebKit's memory with the C
    /// library's malloc; returns only when it does not (a `Malloc` the user set, or this is
    /// already the second start). Call it first thing: everything before it runs twice.
    public static func restart() {
        ph_restart_with_system_malloc(CommandLine.unsafeArgv)
    }

    /// The environment a new start of this program needs to allocate with the C library's malloc
    /// from the first: WebKit's switch and the mark that makes that start take both out again
    /// before the processes it starts (which keep libpas).
    public static let environment = ["Malloc": "1", PH_SYSTEM_MALLOC_MARK: "1"]
}
