package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertThrows
import org.junit.Assert.assertTrue
import org.junit.Test
import kotlin.time.Duration
import kotlin.time.Duration.Companion.days
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds

/** Issue 13 through the Kotlin binding, on the manual clock. */
class FeaturesTest {
    private val base = Policy.defaults().copy(idleTimeout = 60.seconds, warning = 10.seconds, backgroundTimeout = 30.seconds)

    @Test
    fun unlock_strength_follows_the_strong_auth_timeout_and_biometric_changes() {
        val rec = Recorder()
        manualEngine(base.copy(strongAuthTimeout = 20.seconds), rec).use { e ->
            e.start()
            e.lock()
            assertEquals(AuthStrength.BIOMETRIC, rec.changes().last().requiredAuth)
            e.advanceClock(20.seconds)
            assertEquals(AuthStrength.CREDENTIAL, e.requiredAuth)
            val before = e.info()
            val error = assertThrows(WeakAuthException::class.java) { e.unlock(AuthStrength.BIOMETRIC) }
            assertTrue(error.message!!, error.message!!.contains("strong_auth_timeout_ms (20000)"))
            assertThrows(WeakAuthException::class.java) { e.unlockFailed(AuthStrength.BIOMETRIC) }
            assertEquals(before, e.info())
            e.unlock(AuthStrength.CREDENTIAL)
            assertEquals(20_000L, e.info().lastCredentialMs)
            e.biometricsChanged()
            e.lock()
            assertEquals(AuthStrength.CREDENTIAL, e.requiredAuth)
            assertThrows(InvalidArgumentException::class.java) { e.unlock(AuthStrength.NONE) }
        }
    }

    @Test
    fun expected_interruption_covers_a_short_background_once() {
        val rec = Recorder()
        manualEngine(base.copy(backgroundTimeout = Duration.ZERO), rec).use { e ->
            e.start()
            e.expectInterruption(5.seconds)
            assertEquals(5_000L, e.info().interruptionUntilMs)
            e.background()
            e.advanceClock(4.seconds)
            e.foreground()
            assertEquals(SessionState.ACTIVE, e.state)
            e.background()
            assertEquals(SessionStatus(SessionState.LOCKED, Reason.BACKGROUND_TIMEOUT), e.status)
            assertThrows(InvalidStateException::class.java) { e.expectInterruption(1.seconds) }
        }
        manualEngine(base).use { e ->
            e.start()
            val error = assertThrows(InvalidArgumentException::class.java) { e.expectInterruption(61.seconds) }
            assertTrue(error.message!!.contains("expected_interruption_max_ms"))
        }
    }

    @Test
    fun device_lock_locks_per_policy() {
        manualEngine(base).use { e ->
            e.start()
            e.deviceLocked()
            assertEquals(SessionState.ACTIVE, e.state)
            assertTrue(e.info().inBackground)
            e.foreground()
            e.policy = base.copy(lockOnDeviceLock = true)
            e.deviceLocked()
            assertEquals(SessionStatus(SessionState.LOCKED, Reason.DEVICE_LOCKED), e.status)
        }
    }

    @Test
    fun token_generations_make_a_rotation_race_stale() {
        manualEngine(base).use { e ->
            e.start()
            assertEquals(RefreshOutcome.OK, e.refreshResult(200, generation = 1u))
            e.tokenRotated(2u)
            assertEquals(RefreshOutcome.STALE, e.refreshResult(400, "invalid_grant", 1u))
            assertEquals(SessionState.ACTIVE, e.state)
            assertThrows(InvalidArgumentException::class.java) { e.tokenRotated(1u) }
            assertEquals(2uL, e.info().tokenGeneration)
            assertEquals(RefreshOutcome.REVOKED, e.refreshResult(400, "invalid_grant", 2u))
        }
    }

    @Test
    fun offline_limits_lock_block_unlock_and_expire() {
        manualEngine(base.copy(offlineTimeout = 40.seconds, offlineExpiry = 50.seconds)).use { e ->
            e.start()
            e.advanceClock(40.seconds)
            assertEquals(SessionStatus(SessionState.LOCKED, Reason.OFFLINE_TIMEOUT), e.status)
            assertTrue(e.info().needsServerContact)
            assertThrows(OfflineException::class.java) { e.unlock() }
            e.serverContact()
            e.unlock()
            e.advanceClock(50.seconds)
            assertEquals(SessionStatus(SessionState.EXPIRED, Reason.OFFLINE_EXPIRY), e.status)
        }
    }

    @Test
    fun ceilings_tighten_and_hold_every_later_policy() {
        manualEngine(base).use { e ->
            e.start()
            assertEquals(Ceilings(), Ceilings.none())
            val limits = Ceilings(idleTimeout = 30.seconds, maxUnlockFailures = 5u)
            e.ceilings = limits
            assertEquals(limits, e.ceilings)
            assertEquals(30.seconds, e.policy.idleTimeout)
            val error = assertThrows(CeilingException::class.java) { e.policy = base }
            assertEquals("policy.idle_timeout_ms (60000) exceeds the managed ceiling (30000)", error.message)
            assertThrows(CeilingException::class.java) { e.policy = Policy.preset(Preset.PSD2) }
        }
    }

    @Test
    fun lock_on_restart_restores_locked_from_snapshot_format_2() {
        val policy = base.copy(lockOnRestart = true)
        val bytes = manualEngine(policy).use { e ->
            e.start()
            e.tokenRotated(7u)
            e.snapshot()
        }
        assertEquals(96, bytes.size)
        assertEquals(3, bytes[4].toInt())
        val rec = Recorder()
        manualEngine(policy, rec).use { e ->
            e.restore(bytes)
            assertEquals(SessionStatus(SessionState.LOCKED, Reason.RESTART), e.status)
            assertEquals(7uL, e.info().tokenGeneration)
        }
    }

    @Test
    fun presets_with_sources() {
        val psd2 = Policy.preset(Preset.PSD2)
        assertEquals(5.minutes, psd2.idleTimeout)
        assertEquals(5u, psd2.maxUnlockFailures)
        val enterprise = Policy.preset(Preset.ENTERPRISE)
        assertEquals(30.minutes, enterprise.strongAuthTimeout)
        assertEquals(720.minutes, enterprise.offlineTimeout)
        assertEquals(90.days, enterprise.offlineExpiry)
        assertEquals(Duration.INFINITE, enterprise.absoluteTimeout)
    }
}
