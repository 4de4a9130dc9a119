/// Why a file pageheight reads (a template, a suite, a baseline) cannot be used:
/// "<what> FILE: detail". One type per kind of file, so that callers catch the one they mean.
public struct FileError<Kind: FileKind>: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var detail: String

    public init(_ path: String, _ detail: String) {
        (self.path, self.detail) = (path, detail)
    }

    public var description: String { "\(Kind.noun) \(path): \(detail)" }
}

/// What a `FileError` names its file.
public protocol FileKind: Sendable {
    static var noun: String { get }
}

public enum TemplateFile: FileKind { public static let noun = "template" }
public enum SuiteFileKind: FileKind { public static let noun = "suite" }
public enum BaselineFile: FileKind { public static let noun = "baseline" }

public typealias TemplateError = FileError<TemplateFile>
public typealias SuiteError = FileError<SuiteFileKind>
public typealias BaselineError = FileError<BaselineFile>
