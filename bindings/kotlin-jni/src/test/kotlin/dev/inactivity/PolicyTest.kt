package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test
import kotlin.time.Duration
import kotlin.time.Duration.Companion.hours
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds

class PolicyTest {
    @Test
    fun defaults_come_from_the_library_as_the_header_documents() {
        val p = Policy.defaults()
        assertEquals(15.minutes, p.idleTimeout)
        assertEquals(30.seconds, p.warning)
        assertEquals(IdleAction.LOCK, p.idleAction)
        assertEquals(60.seconds, p.backgroundTimeout)
        assertEquals(12.hours, p.absoluteTimeout)
        assertEquals(Duration.INFINITE, p.lockedTimeout) // INACT_NEVER
        assertEquals(0u, p.maxUnlockFailures)
        assertEquals(1.seconds, p.tick)
        assertEquals(700.milliseconds, p.backgroundGrace)
        assertEquals(ActivityKind.USER, p.activityKinds)
        assertFalse(p.activityDismissesWarning)
        assertFalse(p.pauseIdleInBackground)
        assertEquals(p, p.validate())
    }

    @Test
    fun presets_fill_the_documented_values() {
        assertEquals(Policy.defaults(), Policy.preset(Preset.DEFAULT))
        assertEquals(30.minutes, Policy.preset(Preset.NIST_AAL2).idleTimeout)
        assertEquals(12.hours, Policy.preset(Preset.NIST_AAL2).absoluteTimeout)
        assertEquals(15.minutes, Policy.preset(Preset.NIST_AAL3).idleTimeout)
        assertEquals(15.minutes, Policy.preset(Preset.PCI_DSS).idleTimeout)
        val banking = Policy.preset(Preset.BANKING)
        assertEquals(5.minutes, banking.idleTimeout)
        assertEquals(30.seconds, banking.warning)
        assertEquals(30.seconds, banking.backgroundTimeout)
        assertEquals(8.hours, banking.absoluteTimeout)
        assertEquals(15.minutes, banking.lockedTimeout)
        assertEquals(5u, banking.maxUnlockFailures)
        assertFalse(banking.activityDismissesWarning)
        Preset.entries.forEach { Policy.preset(it).validate() }
    }

    @Test
    fun a_policy_round_trips_through_an_engine() {
        val custom = Policy.defaults().copy(
            idleTimeout = 3.minutes,
            warning = 20.seconds,
            idleAction = IdleAction.EXPIRE,
            backgroundTimeout = Duration.ZERO,
            absoluteTimeout = Duration.INFINITE,
            lockedTimeout = 10.minutes,
            maxUnlockFailures = 3u,
            tick = 500.milliseconds,
            backgroundGrace = 1.seconds,
            activityKinds = setOf(ActivityKind.KEY, ActivityKind.PROGRAMMATIC),
            activityDismissesWarning = true,
            pauseIdleInBackground = true,
        )
        manualEngine(custom).use { engine ->
            assertEquals(custom, engine.policy)
            engine.policy = Policy.defaults()
            assertEquals(Policy.defaults(), engine.policy)
        }
    }

    @Test
    fun sub_millisecond_durations_round_to_the_nearest_millisecond() {
        val p = Policy.defaults().copy(tick = 1.5.milliseconds, backgroundGrace = 700.4.milliseconds)
        manualEngine(p).use {
            assertEquals(2.milliseconds, it.policy.tick)
            assertEquals(700.milliseconds, it.policy.backgroundGrace)
        }
    }

    @Test
    fun library_version_is_reported_and_matches_the_header_major() {
        assertTrue(InactivityEngine.libraryVersion.startsWith("1."))
        assertEquals(1, NativeBridge.libraryVersionNumber() / 10000)
        assertEquals(NativeBridge.headerVersionNumber() / 10000, NativeBridge.libraryVersionNumber() / 10000)
        // In this repository the binding, the glue's header and the library are one version.
        assertEquals(InactivityEngine.libraryVersion, InactivityEngine.bindingVersion)
        assertEquals(NativeBridge.headerVersionNumber(), NativeBridge.libraryVersionNumber())
        val (major, minor, patch) = InactivityEngine.bindingVersion.split(".").map { it.toInt() }
        assertEquals(NativeBridge.BINDING_ABI_MAJOR, major)
        assertEquals(major * 10000 + minor * 100 + patch, NativeBridge.libraryVersionNumber())
        assertEquals("success", Status.OK.description)
        assertEquals("unknown status", Status.UNKNOWN.description)
    }
}
