"""Every public symbol of every target under Sources/ has a `///` doc comment (DocC reads them).

The first test fails naming each undocumented declaration as `file:line: kind name`; run
`python3 Tests/Docs/check_doc_comments.py` for the same list. The second builds a small package
with documented and undocumented symbols of each kind and checks the checker names exactly the
undocumented ones, so a checker that stopped seeing symbols would fail here rather than pass.

Run: python3 -m pytest -q Tests/Docs   (builds first: seconds after `swift build`, ~20 s for the toy)
"""

import os
import subprocess

import check_doc_comments as checker

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_every_public_symbol_has_a_doc_comment():
    found = checker.undocumented(ROOT)
    assert found == [], "public declarations without a /// doc comment:\n" + "\n".join(
        f"{file}:{line}: {what}" for file, line, what in found
    )


TOY_LIBRARY = """\
/// Documented: not reported.
public struct Documented: CustomStringConvertible {
    /// Documented member.
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    // A plain comment is not a doc comment.
    public var description: String { "\\(width)x\\(height)" }
    var hidden: Int { 0 }
    package var shared: Int { 0 }
}

public extension Documented {
    func doubled() -> Documented { Documented(width: width * 2, height: height * 2) }
}

extension String {
    public var shouted: String { uppercased() }
}

public enum Bare: String {
    /// Documented case.
    case first
    case second
}

/// Documented protocol.
public protocol Shape {
    var area: Int { get }
}

@_spi(Tools) public func tooling() {}

internal func notPublic() {}
"""

TOY_TOOL = """\
/// Documented.
public func documentedEntry() {}

@inline(never)
public func bareEntry() {}

@main struct Tool { static func main() { bareEntry() } }
"""


def test_the_checker_names_exactly_the_undocumented_symbols(tmp_path):
    (tmp_path / "Sources" / "Toy").mkdir(parents=True)
    (tmp_path / "Sources" / "ToyTool").mkdir(parents=True)
    (tmp_path / "Package.swift").write_text(
        "// swift-tools-version:6.0\n"
        "import PackageDescription\n"
        'let package = Package(name: "toy", targets: [\n'
        '    .target(name: "Toy"),\n'
        '    .executableTarget(name: "ToyTool"),\n'
        "])\n"
    )
    (tmp_path / "Sources" / "Toy" / "Toy.swift").write_text(TOY_LIBRARY)
    (tmp_path / "Sources" / "ToyTool" / "Tool.swift").write_text(TOY_TOOL)
    build = subprocess.run(["swift", "build"], cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]

    found = checker.undocumented(str(tmp_path))

    toy = "Sources/Toy/Toy.swift"
    assert found == [
        (toy, 5, "var Documented.height"),
        (toy, 6, "init Documented.init(width:height:)"),
        (toy, 8, "var Documented.description"),
        (toy, 14, "func Documented.doubled()"),
        (toy, 18, "var String.shouted"),
        (toy, 21, "enum Bare"),
        (toy, 24, "case Bare.second"),
        (toy, 29, "var Shape.area"),
        (toy, 32, "func tooling()"),
        ("Sources/ToyTool/Tool.swift", 5, "public func bareEntry()"),
    ], found
