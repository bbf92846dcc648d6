import Foundation

/// Decides which EXIF orientation displays a document photo's stored pixels upright, with two
/// readers: Tesseract, which reads the text in each candidate orientation and alone tells a
/// mirrored page, and a learned orientation classifier, which looks at the page once, orders what
/// Tesseract reads first, and answers for what Tesseract reads nothing of (handwriting, other
/// scripts, unusual print).
///
/// Thread-safe: `decide` may be called from any number of tasks or threads at once and gives the
/// same answers as serial calls. Each call borrows one Tesseract engine from an internal pool
/// (engines are created on demand up to `ResolverConfiguration.maxEngines`, then callers wait) and
/// shares one classifier with the other calls; models are loaded once per engine, never per image,
/// idle engines are freed, and every engine runs on its caller's thread.
public final class Resolver: Sendable {
    /// The configuration the resolver was made with.
    public let configuration: ResolverConfiguration
    /// The directory the Tesseract models were loaded from.
    public let modelDirectory: String
    /// The orientation classifier's model file.
    public let classifierModel: String
    /// What the stages read with, built once: the rules, the candidate policy, the engines.
    let stageInputs: StageInputs
    let pool: TesseractPool
    /// The orientation classifier, one engine every caller shares.
    let classifier: SharedEngine<ClassifierEngine>

    /// Finds and loads the models.
    /// - Throws: `.missingModel` when a language's `.traineddata` or the classifier's model is not
    ///   found (the message names what to install), `.invalidRequest` for a malformed language list.
    public convenience init(configuration: ResolverConfiguration) throws {
        try self.init(configuration: configuration, calibration: .embedded)
    }

    package init(configuration: ResolverConfiguration, calibration: Calibration) throws {
        Leptonica.silenced
        self.configuration = configuration
        self.modelDirectory = try ModelLocator.locate(
            explicit: configuration.tessdata, languages: configuration.languages)
        self.pool = TesseractPool(
            datapath: modelDirectory, languages: configuration.languages, capacity: configuration.maxEngines,
            idleTimeout: configuration.engineIdleTimeout)
        self.stageInputs = StageInputs(
            rules: DecisionRules(calibration: calibration), policy: CandidatePolicy(configuration), engines: pool,
            stacksOnly: configuration.stacksOnly)
        let model = try ClassifierLocator.locate(explicit: configuration.classifierModel)
        let runtime = try RuntimeLocator.locate()
        self.classifierModel = model
        self.classifier = SharedEngine(idleTimeout: configuration.engineIdleTimeout) {
            try ClassifierEngine(modelPath: model, runtime: runtime)
        }
        try pool.warmUp()
        try classifier.warmUp()
    }

    /// Decides the orientation of one image, with its own tag as the prior.
    /// - Parameter image: the bytes of a JPEG, PNG, TIFF or HEIF image.
    /// - Throws: `.unsupportedFormat` or `.malformed` for bytes that are no readable image,
    ///   `.invalidRequest` for a TIFF of several pages (`Fixer.fix` decides each),
    ///   `.limitExceeded` for frames over `maxPixels`, `.library` when a C library fails.
    public func decide(_ image: some DataProtocol) throws -> Decision {
        let bytes = [UInt8](image)
        let metadata = try ImageMetadata.read(bytes).singleImage()
        return try decide(imageBytes: bytes, metadata: metadata, prior: metadata.effectiveOrientation)
    }

    /// Decides the orientation of one image whose metadata the caller has read.
    /// - Parameters:
    ///   - prior: the file's current usable tag, nil when none. It stands unless the text clearly
    ///     says otherwise.
    ///   - budget: the work allowed, `configuration.budget` when nil.
    ///   - signal: stops the work with `CancellationError` when set.
    func decide(
        imageBytes: [UInt8], metadata: ImageMetadata, prior: Orientation?, budget: WorkBudget? = nil,
        signal: CancellationSignal? = nil
    ) throws -> Decision {
        try trace(imageBytes: imageBytes, metadata: metadata, prior: prior, budget: budget, signal: signal).decision
    }

    /// The decision together with the evidence behind it (for the evaluation and fitting tools).
    package func trace(
        imageBytes: [UInt8], metadata: ImageMetadata, prior: Orientation?, budget: WorkBudget? = nil,
        signal: CancellationSignal? = nil
    ) throws -> Trace {
        let meter = WorkMeter(budget: budget ?? configuration.budget, signal: signal)
        try meter.checkCancellation()
        // Decoded once; the classifier looks first, then the stages get what they read with.
        let source = try GraySource(bytes: imageBytes, metadata: metadata, maxPixels: configuration.maxPixels)
        meter.charge(WorkCost.decodeUnits(pixels: source.storedWidth * source.storedHeight))
        let probe = try classifierProbe(source, keepInput: false)
        meter.charge(probe.classes.count * WorkCost.classifierSquareUnits)
        var resolution = try ImageResolution(
            inputs: stageInputs, source: source, reading: probe.reading, prior: prior, meter: meter)
        var trace = try resolution.run()
        trace.work = meter.work
        trace.decision.work = meter.work
        return trace
    }

    /// Everything fitted on the corpus (`Models/calibration.json`), as the rules hold it.
    var calibration: Calibration { stageInputs.calibration }

    /// The decision rules, with this resolver's calibration.
    var rules: DecisionRules { stageInputs.rules }
}
