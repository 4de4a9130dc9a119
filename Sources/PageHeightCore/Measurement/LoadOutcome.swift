/// What a failed load or an ended web process means for the page: the engine reports the facts
/// (WebKit's error domain and code, how the process ended), these rules decide.
public enum LoadOutcome {
    /// What a `load-failed` signal means.
    public enum Failure: Equatable, Sendable {
        /// Not a failure of the page: a load replaced by another, or a navigation that the page
        /// started after it committed and that the engine stopped or refused.
        case ignored
        /// "Frame load interrupted" before anything committed: a download (nothing follows) or
        /// a page that replaced its own load before committing (a new load follows and
        /// commits). The engine waits `replacementWait` for a commit before it fails the page
        /// with this text, so the answer does not depend on the race.
        case waitForReplacement(String)
        case failed(String)
    }

    /// How long a load interrupted before its commit is given to be replaced.
    public static let replacementWait = 0.3

    /// Classifies a `load-failed` signal (`domain`, `code` and `message` are WebKit's).
    public static func failure(uri: String, domain: String, code: Int32, message: String, committed: Bool,
                               navigationsStopped: Bool, offline: OfflineMode?) -> Failure {
        if domain == "WebKitNetworkError" && code == 302 { return .ignored } // replaced by another load
        if committed && navigationsStopped { return .ignored }
        let blockedByFilter = domain == "WebKitPolicyError" && code == 104
        var text = "\(message) (\(domain) \(code)) loading \(uri.prefix(200))"
        if let offline, message.contains("connect to proxy") || blockedByFilter {
            text = "refused by --offline=\(offline.rawValue) (only local files and loopback load): \(uri.prefix(200))"
        }
        if domain == "WebKitPolicyError" && code == 102 && !committed { return .waitForReplacement(text) }
        return .failed(text)
    }

    /// How a page's web process ended, as the engine saw it.
    public enum ProcessEnd: Sendable {
        case crashed, exceededMemoryLimit, terminatedByAPI
    }

    /// The `crashed` status's text; `killedByWatchdog` when pageheight's memory watchdog ended it.
    public static func crash(_ end: ProcessEnd, killedByWatchdog: Bool) -> String {
        let why = end == .exceededMemoryLimit ? "exceeded its memory limit"
            : killedByWatchdog ? "exceeded its memory limit (2 GB; stopped by pageheight)"
            : end == .terminatedByAPI ? "was terminated" : "crashed"
        return "the web process \(why)"
    }
}

extension EndReason {
    /// Whether the page can still answer a final evaluation (metrics, text, snapshot) after
    /// this end. A load that never finished (a script that never yields while parsing) or an
    /// evaluation that never came back would not answer either: the engine does not wait for it
    /// past the timeout.
    public func pageCanAnswer(loadFinished: Bool) -> Bool {
        switch self {
        case .loadFailed, .crashed, .javascriptDisabled, .cancelled: false
        case .timedOut(let stalledSince): stalledSince == nil && loadFinished
        default: true
        }
    }
}
