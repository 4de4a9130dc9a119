import PageHeightCore

/// What a part of the measurement leaves the driver with: go on as planned (wait for the next
/// event or wake), look again at once (the view changed), or the page's end.
enum Flow: Equatable {
    case goOn
    case again
    case ended(EndReason)
}
