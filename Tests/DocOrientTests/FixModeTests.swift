import DocOrient
import Testing

struct FixModeTests {
    @Test(arguments: FixMode.allCases) func optionsMadeFromAModeGiveItBack(mode: FixMode) {
        #expect(FixOptions(mode: mode).mode == mode)
        #expect(FixOptions(mode: mode, dryRun: true).dryRun)
    }

    @Test func theRawValuesAreTheJournalsAndTheServicesNames() {
        #expect(FixMode.allCases.map(\.rawValue) == ["tag", "bake", "bake-trim"])
        #expect(FixOptions(bake: true, trim: true).mode == .bakeTrim)
        #expect(FixOptions().mode == .tag)
    }
}
