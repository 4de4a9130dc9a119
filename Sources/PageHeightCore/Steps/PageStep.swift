import Foundation

/// Something the reader does to a page that has its height (`--then STEP`): applied in the same
/// view, on the same clock, after which the page is measured again until its next verdict.
///
/// Written `name=value`, e.g. `width=844`, `font-size=20`, `click=details > summary`.
public enum PageStep: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The viewport's width in CSS px (a rotation, a split view).
    case width(Int)
    /// The viewport's height in CSS px (fit mode fits the view again afterwards).
    case height(Int)
    /// Both at once, as a rotation does (`size=844x390`): one step, one new layout.
    case size(width: Int, height: Int)
    /// The engine's default font size in CSS px, changed live.
    case fontSize(Int)
    /// Text-only zoom, as the system text size a reader app passes on.
    case textZoom(Double)
    /// Page zoom; the viewport keeps its width in CSS px.
    case zoom(Double)
    /// `prefers-color-scheme`, changed live.
    case colorScheme(ColorScheme)
    /// A real pointer click (press and release, trusted events) at the centre of the first
    /// element `selector` matches, as a tap.
    case click(String)
    /// The page's own scroll position: to its bottom, or to `y` CSS px.
    case scroll(ScrollTarget)
    /// Lets the page run this many seconds of its time before it is measured again.
    case wait(Double)

    public enum ScrollTarget: Sendable, Equatable, Hashable {
        case bottom
        case y(Double)
    }

    public static let zoomRange = 0.1...10.0
    public static let waitRange = 0.0...600.0

    /// The steps as help and errors list them.
    public static let forms = [
        "width=PX", "height=PX", "size=WIDTHxHEIGHT", "font-size=PX", "text-zoom=FACTOR", "zoom=FACTOR", "color-scheme=dark|light",
        "click=SELECTOR", "scroll=bottom|PX", "wait=SECONDS",
    ]

    /// Reads one step as `--then` and a suite's `steps` give it.
    public init(parsing text: String) throws(UsageError) {
        let list = "steps are " + Self.forms.joined(separator: ", ")
        if let size = Self.sizeMeant(by: text) {
            throw UsageError("'\(text)' is two steps in one: a rotation is one step, size=\(size) (or give --then width=… and --then height=… apart)")
        }
        guard let equals = text.firstIndex(of: "=") else {
            throw UsageError("'\(text)' is not a step: \(list)")
        }
        let name = String(text[..<equals]).trimmingCharacters(in: .whitespaces)
        let value = String(text[text.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
        let bad = { (expected: String) in UsageError("'\(text)': \(name) takes \(expected)") }
        func whole(_ range: ClosedRange<Int>) throws(UsageError) -> Int {
            guard let number = Int(value), range.contains(number) else {
                throw bad("a whole number of CSS px, \(range.lowerBound)-\(range.upperBound)")
            }
            return number
        }
        func factor() throws(UsageError) -> Double {
            guard let number = Double(value), number.isFinite, Self.zoomRange.contains(number) else {
                throw bad("a factor, \(DecimalText.format(Self.zoomRange.lowerBound))-\(DecimalText.format(Self.zoomRange.upperBound))")
            }
            return number
        }
        switch name {
        case "width": self = .width(try whole(MeasuringOption.widthRange))
        case "height": self = .height(try whole(1...100_000))
        case "size":
            let sides = value.lowercased().split(separator: "x", omittingEmptySubsequences: false).map(String.init)
            guard sides.count == 2, let width = Int(sides[0]), let height = Int(sides[1]),
                  MeasuringOption.widthRange.contains(width), (1...100_000).contains(height) else {
                throw bad("WIDTHxHEIGHT in whole CSS px (size=844x390), each 1-100000")
            }
            self = .size(width: width, height: height)
        case "font-size": self = .fontSize(try whole(MeasuringOption.fontSizeRange))
        case "text-zoom": self = .textZoom(try factor())
        case "zoom": self = .zoom(try factor())
        case "color-scheme":
            guard let scheme = ColorScheme(rawValue: value) else { throw bad("dark or light") }
            self = .colorScheme(scheme)
        case "click":
            guard !value.isEmpty else { throw bad("a CSS selector") }
            self = .click(value)
        case "scroll":
            if value == "bottom" {
                self = .scroll(.bottom)
            } else if let y = Double(value), y.isFinite, y >= 0 {
                self = .scroll(.y(y))
            } else {
                throw bad("bottom or a position in CSS px from the top")
            }
        case "wait":
            guard let seconds = Double(value), seconds.isFinite, Self.waitRange.contains(seconds) else {
                throw bad("seconds of the page's time, 0-600")
            }
            self = .wait(seconds)
        default:
            throw UsageError("unknown step '\(name)' in '\(text)': \(list)")
        }
    }

    /// `WxH` when `text` sets the width and the height in one `--then` (`width=844,height=390`),
    /// which is the step `size=WxH`.
    static func sizeMeant(by text: String) -> String? {
        var width: String?, height: String?
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { return nil }
        for part in parts {
            if part.hasPrefix("width=") { width = String(part.dropFirst(6)) }
            if part.hasPrefix("height=") { height = String(part.dropFirst(7)) }
        }
        guard let width, let height, Int(width) != nil, Int(height) != nil else { return nil }
        return "\(width)x\(height)"
    }

    /// Whether it is a `scroll` step.
    public var isScroll: Bool { if case .scroll = self { true } else { false } }

    public var description: String {
        switch self {
        case .width(let px): "width=\(px)"
        case .height(let px): "height=\(px)"
        case .size(let width, let height): "size=\(width)x\(height)"
        case .fontSize(let px): "font-size=\(px)"
        case .textZoom(let factor): "text-zoom=\(DecimalText.format(factor))"
        case .zoom(let factor): "zoom=\(DecimalText.format(factor))"
        case .colorScheme(let scheme): "color-scheme=\(scheme.rawValue)"
        case .click(let selector): "click=\(selector)"
        case .scroll(.bottom): "scroll=bottom"
        case .scroll(.y(let y)): "scroll=\(DecimalText.format(y))"
        case .wait(let seconds): "wait=\(DecimalText.format(seconds))"
        }
    }

    /// WebKitGTK has one zoom factor for a view, for the page or for its text only: a text zoom
    /// and a page zoom other than 1 cannot both hold. Checks that `steps`, after `--zoom`, never
    /// ask for both.
    public static func checkZoom(_ steps: [PageStep], pageZoom: Double) throws(UsageError) {
        var page = pageZoom
        var text = 1.0
        for step in steps {
            switch step {
            case .zoom(let factor): page = factor
            case .textZoom(let factor): text = factor
            default: continue
            }
            if page != 1, text != 1 {
                throw UsageError("'\(step)': a text zoom and a page zoom other than 1 cannot both hold (WebKitGTK zooms "
                    + "either the page or its text); set the other back to 1 first")
            }
        }
    }
}

extension PageStep: Codable {
    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do throws(UsageError) {
            self = try PageStep(parsing: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
