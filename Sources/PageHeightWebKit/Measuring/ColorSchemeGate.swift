import CPageHeightShim
import PageHeightCore

/// `prefers-color-scheme` (`--color-scheme`) is one GTK setting for the whole process: WebKitGTK
/// answers it from `gtk-application-prefer-dark-theme`, for every view at once and live, and has
/// nothing per view. So pages that ask for different schemes take turns: a page waits while pages
/// of the other scheme are measured, and the setting changes only when none is.
@GLibActor
final class ColorSchemeGate {
    static let shared = ColorSchemeGate()

    private var current = ColorScheme.light
    /// Pages being measured with `current`.
    private var holders = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Waits until `scheme` is the process's, for a page about to load; `leave` when it is measured.
    func enter(_ scheme: ColorScheme) async {
        while holders > 0 && current != scheme {
            await withCheckedContinuation { waiters.append($0) }
        }
        if current != scheme {
            ph_set_prefer_dark(scheme == .dark ? 1 : 0)
            current = scheme
        }
        holders += 1
    }

    /// A page being measured changes its scheme (a `color-scheme` step): it leaves its own, then
    /// waits for `scheme` like a page about to load (holding nothing while it waits, so that two
    /// pages switching at once do not wait for each other).
    func change(to scheme: ColorScheme) async {
        guard scheme != current else { return }
        if holders == 1 {
            ph_set_prefer_dark(scheme == .dark ? 1 : 0)
            current = scheme
            return
        }
        leave()
        await enter(scheme)
    }

    func leave() {
        holders -= 1
        guard holders == 0 else { return }
        let woken = waiters
        waiters = []
        woken.forEach { $0.resume() }
    }
}
