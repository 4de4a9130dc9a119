import CPageHeightShim
import CWebKit

/// What a view answers when its page asks something of a user: a hostile page must not stall
/// the run, so every dialog is answered at once (none is shown) and popups and print requests
/// are refused.
@GLibActor
enum PageDialogs {
    /// Connects the answers to `view`'s "script-dialog", "create" and "print" (for the view's life).
    static func answer(in view: UnsafeMutablePointer<WebKitWebView>) {
        ph_connect_script_dialog(view, { _, dialog, _ in
            switch webkit_script_dialog_get_dialog_type(dialog) {
            case WEBKIT_SCRIPT_DIALOG_CONFIRM:
                webkit_script_dialog_confirm_set_confirmed(dialog, 0)
            case WEBKIT_SCRIPT_DIALOG_BEFORE_UNLOAD_CONFIRM:
                // "Leave": staying would cancel every later load in this view.
                webkit_script_dialog_confirm_set_confirmed(dialog, 1)
            default:
                break // alert: nothing to answer; prompt: no text is a cancel
            }
            return 1 // handled here, synchronously: no GTK dialog is shown
        }, nil, nil)
        ph_connect_create(view, { _, _, _ in nil }, nil, nil)
        // Handled: GTK's print dialog is never shown, and window.print() returns at once.
        ph_connect_print(view, { _, _, _ in 1 }, nil, nil)
    }
}
