// The machine's snapshot and restore: what a snapshot keeps of a session, and how a restore
// puts it back and catches up on the time that passed (docs/design.md, "Snapshot and restore").
// The byte format is Snapshot.swift; the outcomes a restore can land in (`RestoreRule`) and the
// rules of the inputs and deadlines the catch-up applies are SessionRules.swift.

extension SessionMachine {
    // MARK: Snapshot and restore

    func snapshot(clock: ClockReading) throws(InactivityError) -> Snapshot {
        do throws(InactivityError) {
            _ = try admits(.snapshot)   // refused in LOADING; applied elsewhere
        } catch {
            throw InactivityError(error.code, "snapshot: no session in state \(state)")
        }
        // Holds are not kept (their screens push them again), and an open hold means the idle
        // countdown is suspended: it counts from the snapshot, as it would from a release now.
        let live = state == .active || state == .warning
        var activity = live ? (holds.isEmpty ? lastActivity : max(lastActivity, clock.monotonicMs))
            : (startedAt ?? clock.monotonicMs)
        var start = startedAt ?? clock.monotonicMs
        // Another holder's deadlines have no slot of their own (the format is 96 bytes for
        // ever): each is written as the times it follows from, moved earlier, so that a restore
        // under this policy falls due no later (docs/design.md, "Other holders").
        if state != .expired, let a = adoptedAbsolute {
            if policy.absoluteTimeoutMs != SessionPolicy.never {
                start = min(start, a - policy.absoluteTimeoutMs)
            } else if live && policy.idleTimeoutMs != SessionPolicy.never {
                // No absolute lifetime to carry it: carried as an idle deadline, which the next
                // activity after the restore supersedes (the holder reports it again).
                activity = min(activity, a - policy.idleTimeoutMs)
            }
        }
        if live, let a = adoptedIdle, policy.idleTimeoutMs != SessionPolicy.never {
            activity = min(activity, a.deadline - policy.idleTimeoutMs)
        }
        if live { start = min(start, activity) }   // the format's order; only stricter
        func sessionTime(_ t: Int64?) -> Int64 { min(max(t ?? start, start), clock.monotonicMs) }
        return Snapshot(state: state, reason: reason, unlockFailures: unlockFailures,
                        startedAt: start,
                        lastActivity: activity,
                        backgroundSince: backgroundSince ?? hiddenSince,
                        lockedAt: lockedAt,
                        bootID: clock.bootID, monotonicMs: clock.monotonicMs, wallMs: clock.wallMs,
                        lastCredentialAt: sessionTime(lastCredentialAt), credentialRequired: credentialRequired,
                        lastContactAt: sessionTime(lastContactAt), newestGeneration: newestGeneration)
    }

    /// Restores snapshot bytes at `clock` (docs/design.md, "Snapshot and restore"). Refused
    /// outside LOADING without looking at the bytes; corrupt bytes throw their own error and
    /// leave the session EXPIRED (RESTORE_FAILED): a full sign-in is the safe outcome.
    mutating func restore(_ bytes: [UInt8], length: UInt64? = nil, clock: ClockReading) throws(InactivityError) {
        guard try admits(.restore) else { return }
        let snapshot: Snapshot
        do throws(InactivityError) {
            snapshot = try Snapshot.decode(bytes, length: length)
        } catch {
            transition(to: RestoreRule.corrupt.state, RestoreRule.corrupt.reason, at: clock.monotonicMs)
            throw error
        }
        let judgement = RestoreClock(snapshot, clock)
        let contactInLoading = lastContactAt
        // A background the host reported in LOADING (inact_background, inact_device_locked, or
        // every window hidden with the grace still running) is still the truth at the restore:
        // only a foreground or a shown window ends it, so the restore keeps it.
        let backgroundInLoading = backgroundSince != nil || hiddenSince != nil
        load(snapshot, at: judgement)
        let changed = catchUpAfterRestore(now: clock.monotonicMs, contactInLoading: contactInLoading,
                                          staysInBackground: backgroundInLoading)
        let untrusted = failSecure(judgement, now: clock.monotonicMs)
        let overridden = lockOnRestart(now: clock.monotonicMs) || untrusted
        let spent = expireIfFailuresSpent(at: clock.monotonicMs)
        settleRestoredReason(deadlineApplied: changed, overridden: overridden || spent, now: clock.monotonicMs)
        checkInvariants()
    }

    /// How far the clock can be trusted across a snapshot, and the elapsed time it gives.
    private struct RestoreClock {
        /// Same boot, monotonic clock not behind: the elapsed time is exact.
        var trusted: Bool
        /// Not trusted, and the wall clock is behind the snapshot's: no estimate at all.
        var wallWentBack: Bool
        /// The snapshot's instant on this clock's timeline: `elapsed` before now.
        var snapshotInstant: Int64
        /// The snapshot's own clock.
        var snapshotClock: Int64

        init(_ s: Snapshot, _ clock: ClockReading) {
            trusted = s.bootID == clock.bootID && clock.monotonicMs >= s.monotonicMs
            wallWentBack = !trusted && clock.wallMs < s.wallMs
            // Elapsed time since the snapshot: the continuous clock when trusted, else the wall
            // clock as an estimate that can only make the outcome stricter (see `failSecure`).
            let elapsed: Int64
            if trusted {
                elapsed = clock.monotonicMs - s.monotonicMs
            } else if wallWentBack {
                elapsed = 0   // no estimate: the outcome is EXPIRED (UNTRUSTED_CLOCK)
            } else {
                let (delta, overflow) = clock.wallMs.subtractingReportingOverflow(s.wallMs)
                elapsed = overflow ? .max : delta
            }
            snapshotInstant = clock.monotonicMs &- min(elapsed, 1 << 61)
            snapshotClock = s.monotonicMs
        }

        /// A snapshot time (at most the snapshot's clock: `Snapshot.decode` checks it) on this
        /// clock: as long before the snapshot's instant as it was before the snapshot. Its age
        /// is clamped at 2^61 ms, as the elapsed time is: any age beyond the longest duration
        /// makes the same deadlines due, and the arithmetic stays in range. An age that does
        /// not fit in Int64 (forged bytes) is the oldest, never the snapshot's instant: fail
        /// secure, a time that far back cannot make a session younger.
        func map(_ t: Int64) -> Int64 {
            let (age, overflow) = snapshotClock.subtractingReportingOverflow(t)
            return snapshotInstant - (overflow ? 1 << 61 : min(max(age, 0), 1 << 61))
        }
    }

    /// Puts the snapshot's session in place as it was at its instant.
    private mutating func load(_ s: Snapshot, at clock: RestoreClock) {
        // A session that never started keeps having no start and no credential verification.
        startedAt = s.neverStarted ? nil : clock.map(s.startedAt)
        lastActivity = clock.map(s.lastActivity)
        unlockFailures = s.unlockFailures
        // What the host reported in LOADING (a biometrics change, a rotation) adds to what the
        // snapshot kept; an online check counts from its own instant (`catchUpAfterRestore`).
        lastCredentialAt = s.neverStarted ? nil : clock.map(s.lastCredentialAt)
        credentialRequired = credentialRequired || s.credentialRequired
        lastContactAt = clock.map(s.lastContactAt)
        newestGeneration = max(newestGeneration, s.newestGeneration)
        interruption = nil
        // Folded into the times above (`snapshot`); the keepalive starts quiet: the first user
        // activity after the restore asks for one at once.
        adoptedIdle = nil
        adoptedAbsolute = nil
        keepalive = Keepalive()
        // The time since the snapshot counts as background time: nothing was on screen.
        backgroundSince = clock.map(s.backgroundSince ?? s.monotonicMs)
        hiddenSince = nil
        state = s.state
        reason = s.reason
        changedAt = clock.snapshotInstant
        lockedAt = s.state == .locked ? clock.map(s.lockedAt ?? s.monotonicMs) : nil
        cursor = clock.snapshotInstant
        tickIndex = nil
        pendingTick = nil
        if state == .warning, policy.tickMs > 0, let d = idleDeadline {
            tickIndex = ceilDiv(d - cursor, policy.tickMs)
        }
    }

    /// Applies what came due while nothing ran (background time), then returns to foreground
    /// and applies what that makes due: with the idle countdown paused in background, the
    /// warning window is reached only once it resumes. With `staysInBackground` (a background
    /// reported in LOADING) the session stays in background, which began at the snapshot's
    /// background start or instant: the time since the snapshot and the time after the
    /// restore are one background. Returns true when a deadline changed the state.
    ///
    /// A server contact reported in LOADING took place at its instant, as if the process had
    /// been awake: the deadlines due by then (while the process was dead, the snapshot's own
    /// instant included) apply first, and from then on the later of the two contacts counts.
    /// A contact at the instant an offline expiry falls due does not cancel it. Fail secure:
    /// the outcome does not depend on whether the host reports the contact before or after the
    /// restore.
    private mutating func catchUpAfterRestore(now: Int64, contactInLoading: Int64?, staysInBackground: Bool) -> Bool {
        var beforeContact: DeadlineKind?
        if let c = contactInLoading {
            beforeContact = evaluate(now: min(max(c, cursor), now))
            lastContactAt = max(lastContactAt ?? c, c)
        }
        let inBackground = evaluate(now: now)
        guard !staysInBackground else { return beforeContact != nil || inBackground != nil }
        resumeForeground(now: now)
        let resumed = evaluate(now: now)
        return beforeContact != nil || inBackground != nil || resumed != nil
    }

    /// Unknown elapsed time: never ACTIVE. LOCKED at least, by the clock (a lock is never
    /// attributed to a deadline judged on the wall-clock estimate), taking effect now, with the
    /// locked timeout counted from the earliest lock the estimate shows; EXPIRED
    /// when the wall clock went back (elapsed cannot even be estimated). Returns true when it
    /// decided the outcome.
    private mutating func failSecure(_ clock: RestoreClock, now: Int64) -> Bool {
        guard !clock.trusted else { return false }
        // How long ago the credential was verified is only estimated: when the policy limits
        // it, the next unlock needs the credential.
        if policy.strongAuthTimeoutMs != SessionPolicy.never { credentialRequired = true }
        guard RestoreRule.estimated.from.contains(state) else { return false }   // EXPIRED stays
        if state == .locked && !clock.wallWentBack {
            // Already LOCKED on the estimate (a lock in the snapshot, or a lock deadline due on
            // the estimate): the estimate may shorten the locked time left, never lengthen it,
            // so the locked timeout keeps counting from that lock. A fresh lock here would let
            // a reboot stretch the locked timeout to almost twice its length.
            let since = lockedAt ?? now
            transition(to: RestoreRule.estimated.state, RestoreRule.estimated.reason, at: now)
            lockedAt = since
        } else {
            let outcome = clock.wallWentBack ? (RestoreRule.unknown.state, RestoreRule.unknown.reason)
                : (RestoreRule.estimated.state, RestoreRule.estimated.reason)
            transition(to: outcome.0, outcome.1, at: now)
        }
        return true
    }

    /// A policy that locks on every restart: LOCKED at least, whatever the elapsed time, taking
    /// effect at the restore. Returns true when it decided the outcome.
    private mutating func lockOnRestart(now: Int64) -> Bool {
        guard policy.lockOnRestart, RestoreRule.lockOnRestart.from.contains(state) else { return false }
        transition(to: RestoreRule.lockOnRestart.state, RestoreRule.lockOnRestart.reason, at: now)
        return true
    }

    /// `RestoreRule.failuresSpent`: the restoring engine's failure limit at or below the
    /// failures counted expires the session, taking effect at the restore. Returns true when
    /// it decided the outcome.
    mutating func expireIfFailuresSpent(at now: Int64) -> Bool {
        let rule = RestoreRule.failuresSpent
        guard rule.from.contains(state), holds(.failuresAtLimit, kind: nil) else { return false }
        transition(to: rule.state, rule.reason, at: now)
        return true
    }

    /// The reason of the deadline that caused the outcome, else RESTORED (also for a restore
    /// that lands inside the warning window or returns to ACTIVE).
    private mutating func settleRestoredReason(deadlineApplied: Bool, overridden: Bool, now: Int64) {
        if state == .active || state == .warning || (!deadlineApplied && !overridden) {
            reason = RestoreRule.asSaved
        }
        if !deadlineApplied && !overridden {
            changedAt = now   // restored as it was: that happens now
        }
    }
}
