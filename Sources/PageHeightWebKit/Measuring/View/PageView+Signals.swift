import CPageHeightShim
import CWebKit
import Foundation
import PageHeightCore

extension PageView {
    /// Connects the view's signals to its inbox: load changes, failed loads, a web process that
    /// ended, navigation targets and the probe's messages.
    func connectSignals() {
        // The trampolines run inside the signal on the GLib thread and only queue what they were told.
        let box = { Unmanaged.passRetained(self.inbox).toOpaque() }
        let release: GClosureNotify = { data, _ in Unmanaged<Inbox>.fromOpaque(data!).release() }
        ph_connect_load_changed(view, { view, event, data in
            let load: ViewEvent.Load? = switch event {
            case WEBKIT_LOAD_STARTED: .started
            case WEBKIT_LOAD_REDIRECTED: .redirected
            case WEBKIT_LOAD_COMMITTED: .committed
            case WEBKIT_LOAD_FINISHED: .finished
            default: nil
            }
            guard let load else { return }
            GLibActor.assumeIsolated {
                let inbox = PageView.inbox(data)
                // Once the page committed, a new main-frame load is the page navigating away (a
                // script, a meta refresh, a form): stopped here, inside the signal, as a local
                // page would commit before the event is read.
                if load == .started, inbox.committed { webkit_web_view_stop_loading(view) }
                if load == .committed { inbox.committed = true }
                if load == .finished { inbox.loadFinished = true }
                inbox.post(.load(load))
            }
        }, box(), release)
        ph_connect_load_failed(view, { _, _, uri, error, data in
            let domain = error.map { String(cString: g_quark_to_string($0.pointee.domain)) } ?? "unknown"
            let message = error.map { PageText.prefix($0.pointee.message, bytes: PageText.urlKept) } ?? "unknown error"
            let event = ViewEvent.loadFailed(uri: uri.map { PageText.prefix($0, bytes: PageText.urlKept) } ?? "", domain: domain,
                                             code: error?.pointee.code ?? 0, message: message)
            GLibActor.assumeIsolated { PageView.inbox(data).post(event) }
            return 1 // handled: no error page is loaded
        }, box(), release)
        ph_connect_process_terminated(view, { _, reason, data in
            let end: LoadOutcome.ProcessEnd = reason == WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT ? .exceededMemoryLimit
                : reason == WEBKIT_WEB_PROCESS_TERMINATED_BY_API ? .terminatedByAPI : .crashed
            GLibActor.assumeIsolated {
                let inbox = PageView.inbox(data)
                if inbox.renewing, end == .terminatedByAPI {
                    inbox.renewing = false
                    return
                }
                inbox.processDied = true
                inbox.post(.processTerminated(end))
            }
        }, box(), release)
        ph_connect_navigation_targets(view, { uri, data in
            let target = uri.map { PageText.prefix($0, bytes: PageText.urlKept) } ?? "" // a page chooses its length
            GLibActor.assumeIsolated {
                let inbox = PageView.inbox(data)
                inbox.lastNavigationTarget = target
                guard inbox.loadFinished else { return }
                inbox.navigationsAfterCommit += 1
                if inbox.navigationsAfterCommit == Inbox.navigationLoopAt { inbox.post(.navigationLoop(Inbox.navigationLoopAt)) }
            }
        }, box(), release)
        ph_connect_script_message(manager, ProbeScript.messageHandler, { _, result, data in
            guard let result, let value = webkit_javascript_result_get_js_value(result),
                  let text = jsc_value_to_string(value) else { return }
            // The probe's messages are small; only a page could make one huge, and it cannot reach
            // this handler (the probe's own world): a message past the cap is not the probe's.
            let message = PageText.prefix(text, bytes: 1 << 20)
            g_free(text)
            GLibActor.assumeIsolated { PageView.inbox(data).post(.probeMessage(message)) }
        }, box(), release)

    }

    /// The inbox a signal handler was connected with.
    static func inbox(_ data: UnsafeMutableRawPointer?) -> Inbox {
        Unmanaged<Inbox>.fromOpaque(data!).takeUnretainedValue()
    }
}
