package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertThrows
import org.junit.Assert.assertTrue
import org.junit.Test
import kotlin.time.Duration.Companion.seconds

/**
 * The C ABI's unsigned numbers cross the binding whole: refresh-token generations (uint64_t) as
 * ULong, compared unsigned by the library, and max_unlock_failures (uint32_t) as UInt, at the
 * values where a signed Long or Int would turn negative.
 */
class UnsignedRangeTest {
    private val base = Policy.defaults().copy(idleTimeout = 60.seconds, warning = 10.seconds)
    private val twoTo31 = 1uL shl 31
    private val twoTo63 = 1uL shl 63

    @Test
    fun generations_keep_their_whole_uint64_range_and_order() {
        manualEngine(base).use { e ->
            e.start()
            assertEquals(0uL, e.info().tokenGeneration)
            e.tokenRotated(twoTo31)
            assertEquals(twoTo31, e.info().tokenGeneration)
            e.tokenRotated(twoTo63)
            assertEquals(twoTo63, e.info().tokenGeneration)
            // 2^63 - 1 is Long.MAX_VALUE, above 2^63's negative Long: the order is unsigned.
            val justBelow = twoTo63 - 1uL
            assertEquals(RefreshOutcome.STALE, e.refreshResult(400, "invalid_grant", justBelow))
            assertThrows(InvalidArgumentException::class.java) { e.tokenRotated(justBelow) }
            assertEquals(RefreshOutcome.OK, e.refreshResult(200, generation = ULong.MAX_VALUE))
            e.tokenRotated(ULong.MAX_VALUE)
            assertEquals(ULong.MAX_VALUE, e.info().tokenGeneration)
            assertEquals(RefreshOutcome.STALE, e.refreshResult(400, "invalid_grant", twoTo63))
            assertEquals(SessionState.ACTIVE, e.state)
            val bytes = e.snapshot()
            manualEngine(base).use { restored ->
                restored.restore(bytes)
                assertEquals(ULong.MAX_VALUE, restored.info().tokenGeneration)
            }
            // Generation 0 is "not tracked": never stale, an invalid_grant revokes.
            assertEquals(RefreshOutcome.REVOKED, e.refreshResult(400, "invalid_grant", 0uL))
            assertEquals(SessionState.EXPIRED, e.state)
        }
    }

    @Test
    fun max_unlock_failures_keeps_its_whole_uint32_range() {
        for (limit in listOf(0u, twoTo31.toUInt(), UInt.MAX_VALUE)) {
            val policy = base.copy(maxUnlockFailures = limit).validate()
            manualEngine(policy).use { e ->
                assertEquals(limit, e.policy.maxUnlockFailures)
                assertEquals(policy, e.policy)
                e.start()
                e.lock()
                assertEquals(1u, e.unlockFailed())
                assertEquals(1u, e.info().unlockFailures)
                assertEquals(SessionState.LOCKED, e.state)
            }
        }
    }

    @Test
    fun ceilings_keep_the_whole_uint32_range_of_max_unlock_failures() {
        manualEngine(base.copy(maxUnlockFailures = twoTo31.toUInt())).use { e ->
            e.ceilings = Ceilings(maxUnlockFailures = UInt.MAX_VALUE)
            assertEquals(UInt.MAX_VALUE, e.ceilings.maxUnlockFailures)
            e.ceilings = Ceilings(maxUnlockFailures = twoTo31.toUInt())
            assertEquals(twoTo31.toUInt(), e.ceilings.maxUnlockFailures)
            val error = assertThrows(CeilingException::class.java) {
                e.policy = base.copy(maxUnlockFailures = twoTo31.toUInt() + 1u)
            }
            assertTrue(error.message!!, error.message!!.contains("max_unlock_failures (2147483649)"))
            assertTrue(error.message!!, error.message!!.contains("2147483648"))
            assertEquals(twoTo31.toUInt(), e.policy.maxUnlockFailures)
        }
    }
}
