import Foundation

/// The EGL our web processes open: pageheight's own vendor library (`Sources/egl-vendor`), which
/// offers a display and no GL, in place of Mesa's.
///
/// Pages are drawn in software, yet each web process opens an EGL display as it shows its first
/// page and aborts without one. Mesa's EGL loads its driver and LLVM for it into every web
/// process, mostly LLVM's private relocations, which nothing can give back (BENCHMARKS.md). GLVND (Debian's
/// `libEGL.so.1`) loads the vendors named by `__EGL_VENDOR_LIBRARY_FILENAMES`, read once per
/// process, so pointing it at ours before the first web process starts is enough; this process
/// opened its EGL earlier (`ph_ui_process_without_egl`) and keeps it. Pages then have no WebGL,
/// as on a machine without a GPU.
///
/// The library, `libPageHeightEGL.so`, is built next to the executable (`scripts/lib/setup.sh`;
/// a plain `swift build` does not build it). Where it is missing, the web processes open Mesa's
/// EGL, which costs memory, and pages still have no WebGL (the views' settings turn it off), so
/// they measure as with it. With `PAGEHEIGHT_WEBGL=1` in the environment they open Mesa and
/// have WebGL, drawn by Mesa's software renderer.
enum DriverlessEGL {
    static let libraryName = "libPageHeightEGL.so"

    /// Whether pages get WebGL (`PAGEHEIGHT_WEBGL=1`).
    static let webGLAskedFor = ProcessInfo.processInfo.environment["PAGEHEIGHT_WEBGL"] == "1"

    /// True once `install` has named our vendor: the web processes started since have no GL.
    /// Set on the GLib thread before the first view.
    nonisolated(unsafe) private(set) static var installed = false

    /// The vendor library next to this executable, if it is there.
    static func library() -> String? {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        else { return nil }
        let path = (executable as NSString).deletingLastPathComponent + "/" + libraryName
        return FileManager.default.isReadableFile(atPath: path) ? path : nil
    }

    /// Points the processes started from now on at our vendor: writes its GLVND description into
    /// `directory` and names it in the environment. Changes nothing when WebGL is asked for, the
    /// library is missing or the description cannot be written.
    static func install(describingIn directory: String) {
        guard !webGLAskedFor, let library = library() else { return }
        let description = directory + "/egl-vendor.json"
        let json = ["file_format_version": "1.0.0", "ICD": ["library_path": library]] as [String: Any]
        guard let data = try? JSONSerialization.data(withJSONObject: json),
              (try? data.write(to: URL(fileURLWithPath: description), options: .atomic)) != nil else { return }
        EngineEnvironment.set("__EGL_VENDOR_LIBRARY_FILENAMES", description)
        installed = true
    }
}
