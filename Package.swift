// swift-tools-version:6.0
import PackageDescription

/// The release build of the real-time code leaves out the run-time exclusivity checks (each class
/// property access on the audio thread was a `swift_beginAccess` through thread-local storage:
/// 2.5 % of a speed-1 player's CPU under `perf`). Debug builds, which every test suite runs, keep
/// them, so a violation is still caught there.
let uncheckedExclusivity = SwiftSetting.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))

let package = Package(
    name: "repeater",
    products: [
        .executable(name: "repeater", targets: ["repeater"]),
        .executable(name: "repeater-capture", targets: ["repeater-capture"]),
        .executable(name: "repeater-bench", targets: ["repeater-bench"]),
        .executable(name: "repeater-fuzz", targets: ["repeater-fuzz"]),
        // LD_PRELOAD-able allocation/lock counter for the integration tests' real-time check.
        .library(name: "RepeaterRTCheck", type: .dynamic, targets: ["RTCheck"]),
    ],
    targets: [
        .systemLibrary(name: "CJack", path: "Sources/CJack", pkgConfig: "jack",
                       providers: [.apt(["libjack-jackd2-dev"])]),
        .systemLibrary(name: "CSndfile", path: "Sources/CSndfile", pkgConfig: "sndfile",
                       providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CLiblo", path: "Sources/CLiblo", pkgConfig: "liblo",
                       providers: [.apt(["liblo-dev"])]),
        .systemLibrary(name: "CRubberBand", path: "Sources/CRubberBand", pkgConfig: "rubberband",
                       providers: [.apt(["librubberband-dev"])]),
        // libsoxr: the sample-rate conversion where no stretching is asked for (speed 1, pitch 0).
        .systemLibrary(name: "CSoxr", path: "Sources/CSoxr", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),
        // FFTW, single precision: the isolator's STFT (planned off the audio thread) and the note view.
        .systemLibrary(name: "CFFTW", path: "Sources/CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),
        // FFTW, double precision: the hearing tests' measures only.
        .systemLibrary(name: "CFFTWDouble", path: "Sources/CFFTWDouble", pkgConfig: "fftw3", providers: [.apt(["libfftw3-dev"])]),
        // The practice page's HTTP and WebSocket server (one event-loop thread), and its QR code.
        .systemLibrary(name: "CWebSockets", path: "Sources/CWebSockets", pkgConfig: "libwebsockets",
                       providers: [.apt(["libwebsockets-dev"])]),
        .systemLibrary(name: "CQREncode", path: "Sources/CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // Small C seams: the optional real-time probe, signal flags.
        .target(name: "CRepeaterSupport", linkerSettings: [.linkedLibrary("dl")]),
        // malloc/free/pthread_mutex_lock interposer with a thread-local "real-time section" flag.
        .target(name: "RTCheck", linkerSettings: [.linkedLibrary("dl")]),
        // Queen Mary DSP (beats, bars, key) behind a small C API. Debian ships no pkg-config file for
        // it: its headers are in /usr/include/qm-dsp and include each other from that root;
        // libqm-dsp.so names its BLAS/LAPACK libraries itself.
        .target(name: "CQMDSP",
                cxxSettings: [.unsafeFlags(["-I/usr/include/qm-dsp"])],
                linkerSettings: [.linkedLibrary("qm-dsp"), .linkedLibrary("stdc++")]),
        // aubio's beat tracker: only the analysis tests use it, to compare with qm-dsp's.
        .systemLibrary(name: "CAubio", path: "Sources/CAubio", pkgConfig: "aubio", providers: [.apt(["libaubio-dev"])]),
        // Subtitle, lyrics and label files (readers, writers) and text width on a terminal. Foundation only.
        .target(name: "RepeaterLines"),
        // Analysers of a recording, off the audio and control threads: tempo, beats, bars and key
        // (Music/), phrases at pauses in speech (Phrases/).
        // The signal code (the engine, the analysers) is optimized in debug builds too: the tests run
        // the debug binary on a real jackd beside other work, and unoptimized DSP (the isolator's and
        // the timing measurement's loops, the note view) took the player seconds to start and kept
        // the note strip empty beside two busy loops. Everything else stays a plain debug build.
        .target(name: "RepeaterAnalysis", dependencies: ["CQMDSP", "RepeaterLines", "CFFTW", "CRepeaterSupport"],
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // Everything the audio thread runs. No Foundation, no JACK.
        .target(name: "RepeaterEngine", dependencies: ["CRubberBand", "CSoxr", "CFFTW", "CRepeaterSupport"],
                // The release build compiles the whole module at once, which lets the compiler check
                // the render path's @_noLocks contract (see Engine.render).
                swiftSettings: [.define("REPEATER_PERFORMANCE_CHECKS", .when(configuration: .release)),
                                .unsafeFlags(["-O"], .when(configuration: .debug)),
                                uncheckedExclusivity]),
        // The non-real-time side: files, disk reader, JACK binding, offline render, CLI helpers.
        .target(name: "RepeaterKit", dependencies: ["RepeaterEngine", "RepeaterAnalysis", "RepeaterLines", "CJack", "CSndfile", "CLiblo", "CRepeaterSupport"],
                swiftSettings: [uncheckedExclusivity]),
        // The practice page (`play --web`): a surface of its own, one more source and sink of the
        // dispatcher; its page (Page/) is embedded in the binary.
        .target(name: "RepeaterWeb", dependencies: ["RepeaterKit", "RepeaterEngine", "CWebSockets", "CQREncode"],
                resources: [.embedInCode("Page/page.html"), .embedInCode("Page/page.css"), .embedInCode("Page/page.js"),
                            .embedInCode("Page/icon.svg")]),
        .executableTarget(name: "repeater", dependencies: ["RepeaterEngine", "RepeaterKit", "RepeaterLines", "RepeaterWeb"]),
        .executableTarget(name: "repeater-capture", dependencies: ["RepeaterKit", "RepeaterTestSupport"]),
        .executableTarget(name: "repeater-bench", dependencies: ["RepeaterEngine", "RepeaterKit", "RepeaterAnalysis", "RepeaterTestSupport", "CRubberBand", "CRepeaterSupport"]),
        // libFuzzer targets for the parsers and decoders (scripts/fuzz), and their corpora's replayer.
        .executableTarget(name: "repeater-fuzz", dependencies: ["RepeaterEngine", "RepeaterKit", "RepeaterWeb", "CLiblo"]),
        // Fixtures shared by the test targets.
        // Optimized in debug builds too: it makes test material (the real-speech set: an hour and
        // a half of audio mixed sample by sample), which unoptimized takes minutes.
        .target(name: "RepeaterTestSupport", dependencies: ["RepeaterKit", "RepeaterAnalysis", "RepeaterLines", "CFFTWDouble"],
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .testTarget(name: "RepeaterEngineTests", dependencies: ["RepeaterEngine", "RepeaterTestSupport", "RTCheck"]),
        // Golden/ holds files the tests read from the source tree by path (and docs/manual.md quotes).
        .testTarget(name: "RepeaterKitTests", dependencies: ["RepeaterKit", "RepeaterLines", "RepeaterTestSupport", "RTCheck"], exclude: ["Golden"]),
        .testTarget(name: "RepeaterLinesTests", dependencies: ["RepeaterLines"]),
        .testTarget(name: "RepeaterWebTests", dependencies: ["RepeaterWeb", "RepeaterKit", "RepeaterTestSupport"]),
        .testTarget(name: "RepeaterAnalysisTests", dependencies: ["RepeaterAnalysis", "RepeaterKit", "RepeaterLines", "RepeaterTestSupport", "CAubio", "CRepeaterSupport"]),
        .testTarget(name: "IntegrationTests", dependencies: ["RepeaterEngine", "RepeaterKit", "RepeaterLines", "RepeaterTestSupport", "repeater", "repeater-capture"]),
    ],
    cxxLanguageStandard: .cxx17
)
