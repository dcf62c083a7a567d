// swift-tools-version:6.0
// The ring buffers under the thread sanitizer, built alone (scripts/test's TSan stage).
//
// The files are symbolic links to the real ones: Sources/RepeaterEngine holds the rings' sources
// (a module of the same name, so the tests' `import RepeaterEngine` finds them), Tests/RingTests
// the ring suites. Built here they compile in half a minute; `swift test --sanitize=thread` on the
// whole package built every target instrumented (about four minutes) to run these eight tests.
// If a ring comes to depend on more of the engine, this build fails: link the file it needs.
import PackageDescription

let package = Package(
    name: "repeater-rings",
    targets: [
        // Optimized, as the engine's debug build is (see the main Package.swift).
        .target(name: "RepeaterEngine", swiftSettings: [.unsafeFlags(["-O"])]),
        .testTarget(name: "RingTests", dependencies: ["RepeaterEngine"]),
    ]
)
