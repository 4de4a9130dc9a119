import CWebKit

/// One reference to a GObject, released in `deinit`.
///
/// The init's label says where the reference comes from: `adopting` takes one the caller owns
/// (a `_new` function's result), `retaining` takes a new one, `sinking` takes a floating one
/// (a new widget's). Release it on the thread that uses the object (the GLib thread): owners
/// are held by `@GLibActor` types, whose isolated deinit releases them there.
final class GObjectReference<Pointee> {
    let pointer: UnsafeMutablePointer<Pointee>

    init(adopting pointer: UnsafeMutablePointer<Pointee>) {
        self.pointer = pointer
    }

    init(retaining pointer: UnsafeMutablePointer<Pointee>) {
        g_object_ref(UnsafeMutableRawPointer(pointer))
        self.pointer = pointer
    }

    init(sinking pointer: UnsafeMutablePointer<Pointee>) {
        g_object_ref_sink(UnsafeMutableRawPointer(pointer))
        self.pointer = pointer
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(pointer))
    }
}

/// One reference to one of WebKit's reference-counted boxed values (a user script, a user style
/// sheet, a content filter, a session state), released in `deinit`; as `GObjectReference`.
final class BoxedReference {
    /// The boxed types a view holds, each with its own ref and unref functions.
    enum Kind {
        case userScript, userStyleSheet, contentFilter, sessionState
    }

    let pointer: OpaquePointer
    let kind: Kind

    init(adopting pointer: OpaquePointer, _ kind: Kind) {
        (self.pointer, self.kind) = (pointer, kind)
    }

    init(retaining pointer: OpaquePointer, _ kind: Kind) {
        switch kind {
        case .userScript: _ = webkit_user_script_ref(pointer)
        case .userStyleSheet: _ = webkit_user_style_sheet_ref(pointer)
        case .contentFilter: _ = webkit_user_content_filter_ref(pointer)
        case .sessionState: _ = webkit_web_view_session_state_ref(pointer)
        }
        (self.pointer, self.kind) = (pointer, kind)
    }

    deinit {
        switch kind {
        case .userScript: webkit_user_script_unref(pointer)
        case .userStyleSheet: webkit_user_style_sheet_unref(pointer)
        case .contentFilter: webkit_user_content_filter_unref(pointer)
        case .sessionState: webkit_web_view_session_state_unref(pointer)
        }
    }
}
