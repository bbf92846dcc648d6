// swift-tools-version:6.0
// docorient is licensed under the Apache License, Version 2.0 (LICENSE); NOTICE lists what it carries from others.
import PackageDescription

let package = Package(
    name: "docorient",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "DocOrient", targets: ["DocOrient"]),
        .library(name: "DocOrientBatch", targets: ["DocOrientBatch"]),
        .executable(name: "docorient", targets: ["DocOrientCLI"]),
        .executable(name: "docorient-lab", targets: ["DocOrientLab"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ],
    targets: [
        // C libraries, each through a modulemap over a one-line shim header.
        // Tesseract's C API, forwarded to libtesseract loaded on first use (dlopen), so that the
        // commands that never read text do not load it and its ~55 dependencies (start-up time).
        .target(name: "CTesseract", dependencies: ["CLeptonica"], linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(
            name: "CLeptonica", pkgConfig: "lept",
            providers: [.apt(["libleptonica-dev"])]),
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(
            name: "CExif", pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"])]),
        .systemLibrary(
            name: "CHeif", pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]),
        // glibc's malloc settings (mallopt), for the command line's process (`Heaps`).
        .systemLibrary(name: "CMalloc"),

        // The orientation classifier (an ONNX model) in onnxruntime's C library, opened with dlopen
        // (Models/runtime: neither the build nor the package links it): a C API over C++, so no C++
        // or onnxruntime type reaches Swift. The squares it is shown are cut in Swift.
        .target(name: "COrientationNet", linkerSettings: [.linkedLibrary("dl")]),

        // PDF pages through qpdf (Debian's libqpdf-dev 11, which reads and writes PDFs without
        // touching their streams): a C API over its C++ library, so no C++ or qpdf type reaches Swift.
        .target(name: "CQPDF", linkerSettings: [.linkedLibrary("qpdf")]),

        // The core: orientation model, containers, tag rewrite, bake, resolver. No GRDB; of Swift
        // packages only swift-system (FilePath).
        .target(
            name: "DocOrient",
            dependencies: [
                "CTesseract", "CLeptonica", "CTurboJPEG", "CExif", "CHeif", "COrientationNet", "CQPDF",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // Batches over folders: the walker, the SQLite journal (GRDB), resume, undo, the report.
        // The report's page is a Mustache template, compiled into the binary (nothing to install
        // beside it).
        .target(
            name: "DocOrientBatch",
            dependencies: [
                "DocOrient", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            resources: [.embedInCode("report.mustache"), .embedInCode("report-cell.mustache")]),
        // What the two commands (`docorient`, `docorient-lab`) share: standard error and the per-file loop
        // that reports each file's failure.
        .target(
            name: "DocOrientCommandLine",
            dependencies: ["DocOrient", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(
            name: "DocOrientCLI",
            dependencies: [
                "DocOrient", "DocOrientBatch", "DocOrientCommandLine", "DocOrientServer", "DocOrientReview", "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The offline lab (`docorient-lab`): recording, replay and the fits, which run the library's
        // own rules through `package` access, and the tools that show what the readers see. Not
        // installed: Scripts/package-deb.sh builds the `docorient` product alone.
        .executableTarget(
            name: "DocOrientLab",
            dependencies: [
                "DocOrient", "DocOrientCommandLine", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // The HTTP service (`docorient serve`): its own target, so the core library does not depend on Hummingbird.
        .target(
            name: "DocOrientServer",
            dependencies: [
                "DocOrient",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]),

        // The review page (`docorient review`): a batch's files served for a person to turn, with the
        // service's error answers and access log. Its own target, so the stateless service does not
        // depend on the journal (GRDB). The page is a Mustache template, compiled into the binary.
        .target(
            name: "DocOrientReview",
            dependencies: [
                "DocOrient", "DocOrientBatch", "DocOrientServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            resources: [.embedInCode("review.mustache"), .embedInCode("card.mustache")]),

        // libFuzzer targets (Scripts/fuzz.sh); without -DFUZZING it replays files. Not a product: as an
        // executable target of the root package it still builds (the DocOrientFuzz binary), and no
        // package that depends on docorient sees it.
        .executableTarget(name: "DocOrientFuzz", dependencies: ["DocOrient"]),

        // What the test targets share: where the repository's files are. Not a product.
        .target(name: "DocOrientTestSupport", path: "Tests/TestSupport"),
        // What the batch's and the review's tests share: a batch's folder and journal written by hand.
        .target(
            name: "DocOrientBatchTestSupport", dependencies: ["DocOrient", "DocOrientBatch", "DocOrientTestSupport"],
            path: "Tests/BatchTestSupport"),
        .testTarget(name: "DocOrientTests", dependencies: ["DocOrient", "CLeptonica", "DocOrientTestSupport"]),
        // The batch module on its own: the walker, shards and the journal, no engine.
        .testTarget(
            name: "DocOrientBatchTests",
            dependencies: ["DocOrient", "DocOrientBatch", "DocOrientBatchTestSupport", "DocOrientTestSupport"]),
        .testTarget(
            name: "DocOrientServerTests",
            dependencies: [
                "DocOrient", "DocOrientServer", "DocOrientTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]),
        .testTarget(
            name: "DocOrientReviewTests",
            dependencies: [
                "DocOrient", "DocOrientBatch", "DocOrientBatchTestSupport", "DocOrientReview", "DocOrientServer",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]),
        .testTarget(
            name: "DocOrientLabTests", dependencies: ["DocOrient", "DocOrientLab", "DocOrientTestSupport"]),
        .testTarget(
            name: "DocOrientCLITests",
            dependencies: ["DocOrient", "DocOrientBatch", "DocOrientCLI", "DocOrientFuzz", "DocOrientTestSupport"]),
    ]
)
