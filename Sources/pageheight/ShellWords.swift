import Foundation

/// Commands printed for the user to paste into a shell.
enum ShellWords {
    /// `word` as one shell word: as it is when it has nothing the shell would read, else in
    /// single quotes (a single quote inside as `'\''`).
    static func quote(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "@%+=:,./_-".unicodeScalars.contains($0))
        }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// The command that resumes the batch `arguments` (this process's own, the program first)
    /// ran: the same words, every option that changes results included, with `--resume` after
    /// `batch` unless it is there already; quoted for the shell.
    static func resumeCommand(_ arguments: [String]) -> String {
        var words = arguments
        if !words.contains("--resume"), let batch = words.firstIndex(of: "batch") {
            words.insert("--resume", at: batch + 1)
        }
        return words.map(quote).joined(separator: " ")
    }
}
