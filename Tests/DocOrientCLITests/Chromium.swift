import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Headless Chromium driven through the DevTools protocol over a pipe (`--remote-debugging-pipe`:
/// commands in on descriptor 3, answers and events out on 4, each a JSON object ended by a NUL),
/// so a test clicks, types and reads a page in a real browser with no WebSocket client.
/// Chromium is installed by Scripts/bootstrap.sh. One test's browser; not thread-safe.
final class Chromium {
    /// The Chromium binary, nil when none is installed.
    static var executable: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private let pid: pid_t
    private let commands: Int32
    private let answers: Int32
    private var buffer: [UInt8] = []
    private var nextID = 0
    /// The page's session (`Target.attachToTarget`, flattened).
    private var session: String?

    /// Starts Chromium headless with a profile in `profile`, and opens one blank page.
    init(profile: URL) throws {
        let executable = try #require(Self.executable, "chromium is not installed: run Scripts/bootstrap.sh")
        var toChromium: [Int32] = [0, 0]
        var fromChromium: [Int32] = [0, 0]
        guard pipe(&toChromium) == 0, pipe(&fromChromium) == 0 else {
            throw BrowserError("pipe failed: errno \(errno)")
        }
        // Only Chromium's copies (3 and 4) cross into it; another child would hold these open.
        for fd in [toChromium[1], fromChromium[0]] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // Out of the way of descriptors 3 and 4, so that the dup2s below never meet themselves.
        let (childReads, childWrites) = (
            fcntl(toChromium[0], F_DUPFD_CLOEXEC, 10), fcntl(fromChromium[1], F_DUPFD_CLOEXEC, 10)
        )
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, childReads, 3)
        posix_spawn_file_actions_adddup2(&actions, childWrites, 4)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = [
            executable, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
            "--no-first-run", "--hide-scrollbars", "--user-data-dir=\(profile.path)", "about:blank",
        ]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, environ)
        for fd in [toChromium[0], fromChromium[1], childReads, childWrites] { close(fd) }
        guard spawned == 0 else {
            close(toChromium[1])
            close(fromChromium[0])
            throw BrowserError("posix_spawn \(executable) failed: \(spawned)")
        }
        pid = child
        commands = toChromium[1]
        answers = fromChromium[0]
        let target = try send("Target.createTarget", ["url": "about:blank"])
        let id = try #require(target["targetId"] as? String)
        let attached = try send("Target.attachToTarget", ["targetId": id, "flatten": true])
        session = try #require(attached["sessionId"] as? String)
        _ = try send("Page.enable")
        _ = try send("Runtime.enable")
    }

    deinit {
        close(commands)
        close(answers)
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// Sends one command (to the page once attached) and returns its result, skipping events.
    @discardableResult
    func send(_ method: String, _ params: [String: Any] = [:], timeout: Double = 30) throws -> [String: Any] {
        nextID += 1
        var message: [String: Any] = ["id": nextID, "method": method, "params": params]
        if let session { message["sessionId"] = session }
        var data = [UInt8](try JSONSerialization.data(withJSONObject: message))
        data.append(0)
        var written = 0
        while written < data.count {
            let n = data[written...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            guard n > 0 else { throw BrowserError("writing to chromium failed: errno \(errno)") }
            written += n
        }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let answer = try nextMessage(until: deadline)
            guard answer["id"] as? Int == nextID else { continue }
            if let error = answer["error"] as? [String: Any] { throw BrowserError("\(method): \(error)") }
            return answer["result"] as? [String: Any] ?? [:]
        }
    }

    private func nextMessage(until deadline: Date) throws -> [String: Any] {
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let message = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                return try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any] ?? [:]
            }
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            guard left > 0 else { throw BrowserError("chromium did not answer in time") }
            var poller = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, left) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(answers, $0.baseAddress, $0.count) }
            guard n > 0 else { throw BrowserError("chromium closed its pipe") }
            buffer += chunk[..<n]
        }
    }

    /// The value of a JavaScript expression in the page (awaited when it is a promise).
    @discardableResult
    func evaluate(_ expression: String) throws -> Any? {
        let result = try send(
            "Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] { throw BrowserError("\(expression): \(exception)") }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Waits until `expression` is true in the page.
    func wait(for expression: String, timeout: Double = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try evaluate(expression) as? Bool == true { return }
            usleep(100_000)
        }
        throw BrowserError("timed out waiting for \(expression)")
    }

    /// Sets the viewport: a desktop window, or a phone's (`mobile`: touch, its own viewport rules).
    func resize(width: Int, height: Int, mobile: Bool = false) throws {
        try send(
            "Emulation.setDeviceMetricsOverride",
            ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile])
    }

    /// Opens `url` and waits until the page has loaded.
    func open(_ url: String) throws {
        try send("Page.navigate", ["url": url])
        try wait(for: "document.readyState === 'complete' && location.href !== 'about:blank'")
    }

    /// Clicks the middle of the element `selector` finds, with the mouse, as a person does.
    func click(_ selector: String) throws {
        let quoted = String(decoding: try JSONSerialization.data(withJSONObject: [selector]), as: UTF8.self)
        let point = try #require(
            try evaluate(
                """
                (() => { const e = document.querySelector(\(quoted)[0]); e.scrollIntoView({block: 'center'});
                  const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()
                """) as? [Double], "no element \(selector)")
        for type in ["mousePressed", "mouseReleased"] {
            try send(
                "Input.dispatchMouseEvent",
                ["type": type, "x": point[0], "y": point[1], "button": "left", "clickCount": 1])
        }
    }

    /// Presses and releases a key (`key` as KeyboardEvent.key names it: "ArrowRight", "n").
    func press(_ key: String) throws {
        let codes = ["ArrowLeft": 37, "ArrowUp": 38, "ArrowRight": 39, "ArrowDown": 40]
        let code = codes[key] ?? Int(key.uppercased().unicodeScalars.first!.value)
        var down: [String: Any] = ["type": "keyDown", "key": key, "windowsVirtualKeyCode": code]
        if key.count == 1 { down["text"] = key }
        try send("Input.dispatchKeyEvent", down)
        try send("Input.dispatchKeyEvent", ["type": "keyUp", "key": key, "windowsVirtualKeyCode": code])
    }

    /// A PNG of the viewport, or of the whole page with `fullPage`.
    func screenshot(fullPage: Bool = false) throws -> Data {
        let shot = try send("Page.captureScreenshot", ["format": "png", "captureBeyondViewport": fullPage])
        let data = try #require(shot["data"] as? String)
        return try #require(Data(base64Encoded: data))
    }
}

/// What went wrong driving the browser.
struct BrowserError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
