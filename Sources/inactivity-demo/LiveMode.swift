// --live: an engine on the real clock, driven from the keyboard.
//
// The terminal goes into non-canonical, no-echo mode (signals stay on), and is restored on
// every way out: q, end of input, and SIGINT/SIGTERM/SIGHUP (the handler restores the saved
// settings itself, async-signal-safe, then lets the main loop finish). Events arrive on the
// scheduler thread; the callback only queues them and writes a byte to a pipe that the main
// loop polls together with the keyboard, so all printing happens on the main thread.

import Foundation
import InactivityCore
import InactivityScenarios

#if canImport(Glibc)
import Glibc
#endif

/// State shared with the signal handler: plain globals, written before the handler is installed.
nonisolated(unsafe) private var savedTerminal = termios()
nonisolated(unsafe) private var terminalIsRaw: sig_atomic_t = 0
nonisolated(unsafe) private var interrupted: sig_atomic_t = 0
nonisolated(unsafe) private var wakeWriteFD: Int32 = -1

private func restoreTerminal() {
    if terminalIsRaw != 0 {
        tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
        terminalIsRaw = 0
    }
}

private func onSignal(_ signal: Int32) {
    restoreTerminal()                 // async-signal-safe: tcsetattr and write only
    interrupted = signal
    if wakeWriteFD >= 0 {
        var byte: UInt8 = 1
        _ = write(wakeWriteFD, &byte, 1)
    }
}

enum LiveMode {
    /// Short timeouts so that a person sees every state within a minute.
    static var demoPolicy: SessionPolicy {
        var p = SessionPolicy()
        p.idleTimeoutMs = 40_000
        p.warningMs = 15_000
        p.backgroundTimeoutMs = 10_000
        p.absoluteTimeoutMs = 10 * 60_000
        p.lockedTimeoutMs = 2 * 60_000
        p.maxUnlockFailures = 3
        return p
    }

    static let keys = "s sign in  c continue  l lock  u unlock  x wrong PIN  b/f back/foreground  p payment screen  n/r refresh: network error/revoked  o log out  q quit  (any key = activity)"

    static func run(presetName: String?, sets: [String]) -> Int32 {
        var policy: SessionPolicy
        switch presetName {
        case nil, "demo"?: policy = demoPolicy
        case let name?:
            guard let preset = Names.presets.first(where: { $0.0 == name })?.1 else {
                badInput("unknown preset '\(name)' (one of: demo, \(Names.list(Names.presets.map(\.0))))")
            }
            policy = SessionPolicy(preset: preset)
        }
        for assignment in sets {
            let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { badInput("--set \(assignment): write FIELD=VALUE (idle-timeout=1m)") }
            do throws(ScenarioError) {
                _ = try ScenarioParserSupport.applySet(parts, to: &policy)
            } catch {
                badInput("--set \(assignment): \(error.message)")
            }
        }
        do throws(InactivityError) {
            try policy.validate()
        } catch {
            badInput("invalid policy: \(error.message)")
        }
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &savedTerminal) == 0 else {
            badInput("--live needs a terminal on standard input")
        }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { badInput("--live: cannot create a pipe") }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        wakeWriteFD = fds[1]

        let session = LiveSession(policy: policy, wakeFD: fds[1])
        var raw = savedTerminal
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        for sig in [SIGINT, SIGTERM, SIGHUP] { signal(sig, onSignal) }
        atexit { restoreTerminal() }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        terminalIsRaw = 1

        let code = session.loop(readFD: fds[0])
        restoreTerminal()
        return code
    }
}

final class LiveSession {
    private let engine: InactivityEngine
    private let pending = EventInbox()
    private let startMs = SystemClock.monotonicMs()
    private var payment: UInt64?
    private var statusShown = false

    init(policy: SessionPolicy, wakeFD: Int32) {
        let pending = self.pending
        do throws(InactivityError) {
            // Events come on the scheduler thread: queue them and wake the main loop.
            engine = try InactivityEngine(policy: policy, clock: .system, onEvent: { event in
                pending.push(event)
                var byte: UInt8 = 0
                _ = write(wakeFD, &byte, 1)
            })
        } catch {
            badInput("--live: \(error.message)")
        }
        out("Inactivity live: real clock. policy: \(PolicyText.summary(policy))\n")
        out("keys: \(LiveMode.keys)\n\n")
    }

    func loop(readFD: Int32) -> Int32 {
        defer { engine.close() }
        var pollFDs = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)]
        while true {
            drawStatus()
            let n = poll(&pollFDs, 2, 200)
            if interrupted != 0 {
                clearStatus()
                out("interrupted: terminal restored\n")
                return 130
            }
            if n < 0 { continue }   // EINTR
            if pollFDs[1].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                while read(readFD, &buffer, 64) > 0 {}
            }
            printPending()
            if pollFDs[0].revents != 0 {
                var byte: UInt8 = 0
                let got = read(STDIN_FILENO, &byte, 1)
                if got <= 0 {
                    clearStatus()
                    out("end of input\n")
                    return Exit.ok
                }
                if byte == UInt8(ascii: "q") {
                    clearStatus()
                    out("bye\n")
                    return Exit.ok
                }
                handle(key: byte)
                printPending()
            }
        }
    }

    /// Every key is activity; some keys are also an input.
    private func handle(key: UInt8) {
        try? engine.recordActivity(.key)
        let action: (String, () throws(InactivityError) -> String?)?
        switch Character(UnicodeScalar(key)) {
        case "s": action = ("sign in", { [engine] () throws(InactivityError) in try engine.start(); return nil })
        case "c": action = ("continue", { [engine] () throws(InactivityError) in try engine.continueSession(); return nil })
        case "l": action = ("lock", { [engine] () throws(InactivityError) in try engine.lock(); return nil })
        case "u": action = ("unlock", { [engine] () throws(InactivityError) in try engine.unlock(); return nil })
        case "x": action = ("wrong PIN", { [engine] () throws(InactivityError) in "\(try engine.unlockFailed()) in a row" })
        case "b": action = ("background", { [engine] () throws(InactivityError) in try engine.enterBackground(); return nil })
        case "f": action = ("foreground", { [engine] () throws(InactivityError) in try engine.enterForeground(); return nil })
        case "o": action = ("log out", { [engine] () throws(InactivityError) in try engine.end(reason: .logout); return nil })
        case "n": action = ("refresh: no network", { [engine] () throws(InactivityError) in
            "=> \(Names.refreshOutcome(try engine.refreshResult(httpStatus: 0)))" })
        case "r": action = ("refresh: 401", { [engine] () throws(InactivityError) in
            "=> \(Names.refreshOutcome(try engine.refreshResult(httpStatus: 401)))" })
        case "p":
            if let id = payment {
                action = ("payment screen closed", { [engine] () throws(InactivityError) in
                    try engine.popScope(id)
                    return nil
                })
                payment = nil
            } else {
                let idle = max(20_000, (try? engine.policy().warningMs).map { $0 + 5_000 } ?? 20_000)
                action = ("payment screen: \(TimeText.duration(idle)) idle", { [engine] () throws(InactivityError) in
                    self.payment = try engine.pushScope(idleTimeoutMs: idle)
                    return nil
                })
            }
        default:
            action = nil
        }
        guard let (name, body) = action else { return }
        do throws(InactivityError) {
            let note = try body()
            log("> \(name)" + (note.map { "  \($0)" } ?? ""))
        } catch {
            log("> \(name)  error \(Names.errorCodeName(error.code)): \(error.message)")
        }
    }

    private func printPending() {
        for e in pending.drain() where e.kind == .stateChanged {
            let late = e.nowMs - e.timeMs > 1 ? "  (took effect \(TimeText.remaining(e.nowMs - e.timeMs)) ago)" : ""
            log("  \(e.previousState) -> \(e.state)  \(Names.reasonText(e.reason))\(late)")
        }
    }

    private func log(_ text: String) {
        clearStatus()
        out(TimeText.clock(SystemClock.monotonicMs() - startMs).leftPad(9) + "  " + text + "\n")
    }

    private func drawStatus() {
        guard let state = try? engine.state(), let reason = try? engine.reason(),
              let remaining = try? engine.remainingMs() else { return }
        let seconds = remaining == SessionPolicy.never ? nil : (remaining + 999) / 1000
        var text: String
        switch state {
        case .warning:
            text = "\u{1B}[7m Still there? Locking in \(seconds ?? 0) s: press c to continue \u{1B}[0m"
        case .active:
            text = "[ACTIVE \(Names.reasonText(reason))] " + (seconds.map { "locks in \(TimeText.remaining($0 * 1000))" } ?? "")
        case .locked:
            text = "[LOCKED \(Names.reasonText(reason))] press u to unlock, x for a wrong PIN"
        case .expired:
            text = "[EXPIRED \(Names.reasonText(reason))] press s to sign in"
        case .loading:
            text = "[LOADING] press s to sign in"
        }
        out("\r\u{1B}[K" + text)
        statusShown = true
    }

    private func clearStatus() {
        if statusShown { out("\r\u{1B}[K") }
        statusShown = false
    }

    private func out(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { return }
            offset += n
        }
    }
}
