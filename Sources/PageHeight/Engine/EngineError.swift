/// Why the engine itself could not start (a page that fails is a report, not an error).
public enum EngineError: Error, CustomStringConvertible {
    case displayFailed(String)
    case gtkInitFailed(display: String)

    public var description: String {
        switch self {
        case .displayFailed(let detail): "display: \(detail)"
        case .gtkInitFailed(let display): "GTK could not open the display '\(display)'"
        }
    }
}
