package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import kotlin.time.Duration
import kotlin.time.Duration.Companion.days
import kotlin.time.Duration.Companion.microseconds
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.nanoseconds

/** Durations become milliseconds by one rule in every binding: nearest, halves away from zero. */
class DurationRuleTest {
    @Test
    fun the_shared_table_holds() {
        // The table Python's test_types.py reads too (scripts/lib/test-jvm runs from the repo root).
        val rows = File("verify/conformance/durations.txt").readLines()
            .filter { it.isNotBlank() && !it.startsWith("#") }
            .map { it.trim().split(Regex("\\s+")) }
        assertTrue(rows.size >= 10)
        for ((micros, expected) in rows) {
            assertEquals("$micros us", expected.toLong(), micros.toLong().microseconds.toWireMs())
        }
    }

    @Test
    fun nanoseconds_and_extremes() {
        assertEquals(1L, 1_499_999.nanoseconds.toWireMs())
        assertEquals(2L, 1_500_000.nanoseconds.toWireMs())
        assertEquals(-2L, (-1_500_000).nanoseconds.toWireMs())
        assertEquals(36_500L * 86_400_000L, 36_500.days.toWireMs()) // whole ms beyond ns precision
        assertEquals(NativeBridge.NEVER, Duration.INFINITE.toWireMs())
        assertEquals(Long.MIN_VALUE, (-Duration.INFINITE).toWireMs())
        // What the engine receives: a scope of 2.5 ms is a scope of 3 ms.
        manualEngine(Policy.defaults().copy(warning = Duration.ZERO)).use { engine ->
            engine.start()
            engine.pushScope(2_500.microseconds)
            assertEquals(3.milliseconds, engine.info().effectiveIdleTimeout)
        }
    }
}
