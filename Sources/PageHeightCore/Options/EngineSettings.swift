/// What a measurement's options ask of the engine's process, which holds one of each for its
/// life: the fonts (fontconfig reads its configuration once), the device's scale (GDK's) and
/// font families, and the languages (a web process keeps those it starts with). Pure.
public struct EngineSettings: Sendable, Equatable {
    public var fonts: FontChoice
    public var scale: Int
    public var languages: [String]
    public var families: DeviceFonts

    public init(_ options: MeasureOptions) {
        fonts = options.fonts ?? FontChoice()
        scale = options.deviceProfile.engineScale
        languages = options.languages ?? MeasureOptions.defaultLanguages
        families = DeviceFonts.of(options.deviceProfile.name)
    }
}
