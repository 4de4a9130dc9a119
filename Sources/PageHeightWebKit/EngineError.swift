/// Why the engine itself could not start (a page that fails is a report, not an error).
public enum EngineError: Error, CustomStringConvertible {
    case displayFailed(String)
    case gtkInitFailed(display: String)
    case offlineUnavailable(String)
    case privateDirectoryFailed(String)
    case fontsUnavailable(String)
    case scaleUnavailable(String)
    case languagesUnavailable(String)
    case sandboxUnavailable(String)
    case filterUnavailable(String)
    /// The process that runs the engine for this one (`EngineProcess`) could not be started.
    case engineProcessFailed(String)

    public var description: String {
        switch self {
        case .displayFailed(let detail): "display: \(detail)"
        case .gtkInitFailed(let display): "GTK could not open the display '\(display)'"
        case .offlineUnavailable(let detail): "--offline: \(detail)"
        case .privateDirectoryFailed(let detail): "private directory: \(detail)"
        case .fontsUnavailable(let detail): "fonts: \(detail)"
        case .scaleUnavailable(let detail): "device scale: \(detail)"
        case .languagesUnavailable(let detail): "languages: \(detail)"
        case .sandboxUnavailable(let detail): "sandbox: \(detail)"
        case .filterUnavailable(let detail): "content filter: \(detail)"
        case .engineProcessFailed(let detail): "the engine's process: \(detail)"
        }
    }
}
