import PageHeightCore
import Testing

/// What a measurement's options ask of the engine's process (issue 61.7): a library user starts
/// the engine with `PageHeightEngine.shared(for: options)` and gets the device's scale.
struct EngineSettingsTests {
    @Test func aDevicesScaleFontsAndLanguagesComeFromTheOptions() {
        var options = MeasureOptions()
        #expect(EngineSettings(options).scale == 1 && EngineSettings(options).families == .desktop)
        #expect(EngineSettings(options).languages == MeasureOptions.defaultLanguages)
        options.device = .iphone
        options.languages = ["fr-FR", "fr"]
        let iphone = EngineSettings(options)
        #expect(iphone.scale == 3 && iphone.families == DeviceFonts.of(.iphone) && iphone.languages == ["fr-FR", "fr"])
        #expect(iphone.fonts == FontChoice())
    }
}
