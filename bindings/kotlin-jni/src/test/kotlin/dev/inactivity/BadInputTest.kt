package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertThrows
import org.junit.Assert.assertTrue
import org.junit.Test
import kotlin.time.Duration
import kotlin.time.Duration.Companion.days
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds

/**
 * Every bad input the Kotlin API can express: the library rejects it with its status and its
 * message (mapped to an exception), and the engine is unchanged.
 */
class BadInputTest {
    private inline fun <reified T : Throwable> rejects(engine: InactivityEngine?, vararg words: String, noinline call: () -> Unit): T {
        val before = engine?.info()
        val e = assertThrows(T::class.java) { call() }
        val message = e.message ?: ""
        assertTrue("empty message for ${T::class.simpleName}", message.isNotBlank())
        for (w in words) assertTrue("message '$message' should mention '$w'", message.contains(w, ignoreCase = true))
        if (engine != null && before != null) {
            val after = engine.info()
            assertEquals("engine changed by a failed call", before.copy(nowMs = 0, remaining = Duration.ZERO), after.copy(nowMs = 0, remaining = Duration.ZERO))
        }
        return e
    }

    private val d = Policy.defaults()

    @Test
    fun invalid_policies_are_rejected_with_a_message_naming_the_field() {
        rejects<InvalidArgumentException>(null, "idle") { d.copy(idleTimeout = Duration.ZERO).validate() }
        rejects<InvalidArgumentException>(null, "warning") { d.copy(warning = 15.minutes).validate() }
        rejects<InvalidArgumentException>(null, "warning") { d.copy(warning = 20.minutes).validate() }
        rejects<InvalidArgumentException>(null, "background") { d.copy(backgroundTimeout = (-1).seconds).validate() }
        rejects<InvalidArgumentException>(null, "tick") { d.copy(tick = (-1).ms).validate() }
        rejects<InvalidArgumentException>(null, "grace") { d.copy(backgroundGrace = (-1).ms).validate() }
        rejects<InvalidArgumentException>(null, "absolute") { d.copy(absoluteTimeout = -Duration.INFINITE).validate() }
        rejects<InvalidArgumentException>(null, "idle") { d.copy(idleTimeout = (101 * 366).days).validate() }
        val e = rejects<InvalidArgumentException>(null, "warning") {
            InactivityEngine.create(d.copy(warning = 15.minutes), EngineConfig.manual(), Recorder())
        }
        assertEquals(Status.INVALID_ARGUMENT, e.status)
    }

    @Test
    fun invalid_configs_are_rejected() {
        rejects<InvalidArgumentException>(null) { InactivityEngine.create(d, EngineConfig.manual(startMs = -1)) }
        rejects<InvalidArgumentException>(null) { InactivityEngine.create(d, EngineConfig.manual(bootId = 0)) }
    }

    @Test
    fun inputs_the_state_does_not_allow_change_nothing() {
        manualEngine().use { engine ->
            // LOADING
            rejects<InvalidStateException>(engine) { engine.continueSession() }
            rejects<InvalidStateException>(engine) { engine.lock() }
            rejects<InvalidStateException>(engine) { engine.unlock() }
            rejects<InvalidStateException>(engine) { engine.unlockFailed() }
            rejects<InvalidStateException>(engine) { engine.snapshot() }
            engine.start()
            // ACTIVE
            rejects<InvalidStateException>(engine) { engine.start() }
            rejects<InvalidStateException>(engine) { engine.continueSession() }
            rejects<InvalidStateException>(engine) { engine.unlock() }
            rejects<InvalidStateException>(engine) { engine.unlockFailed() }
            rejects<InvalidStateException>(engine) { engine.restore(engine.snapshot()) }
            rejects<InvalidStateException>(engine) { engine.windowHidden() }
            engine.end()
            // EXPIRED
            rejects<InvalidStateException>(engine) { engine.lock() }
            assertEquals(SessionStatus(SessionState.EXPIRED, Reason.LOGOUT), engine.status)
        }
    }

    @Test
    fun out_of_range_arguments_change_nothing() {
        manualEngine().use { engine ->
            engine.start()
            rejects<InvalidArgumentException>(engine) { engine.end(Reason.IDLE_TIMEOUT) }
            rejects<InvalidArgumentException>(engine) { engine.end(Reason.NONE) }
            rejects<InvalidArgumentException>(engine) { engine.refreshResult(99) }
            rejects<InvalidArgumentException>(engine) { engine.refreshResult(600) }
            rejects<InvalidArgumentException>(engine) { engine.refreshResult(-1) }
            assertThrows(IllegalArgumentException::class.java) { engine.refreshResult(400, "invalid_grant\u0000x") }
            rejects<InvalidArgumentException>(engine) { engine.pushScope(Duration.ZERO) }
            rejects<InvalidArgumentException>(engine) { engine.pushScope(30.seconds) } // not above warning
            rejects<InvalidArgumentException>(engine) { engine.pushScope(-(1.seconds)) }
            rejects<InvalidArgumentException>(engine) { engine.pushScope(Duration.INFINITE) }
            rejects<NotFoundException>(engine) { engine.popScope(12345) }
            rejects<NotFoundException>(engine) { engine.releaseHold(12345) }
            rejects<InvalidArgumentException>(engine, "warning") { engine.policy = d.copy(warning = d.idleTimeout) }
            rejects<InvalidArgumentException>(engine) { engine.advanceClock((-1).ms) }
            rejects<InvalidArgumentException>(engine) { engine.rebootClock((-1).ms) }
            val scope = engine.pushScope(2.minutes)
            // warning must stay shorter than every open scope's idle timeout
            rejects<InvalidArgumentException>(engine) { engine.policy = d.copy(warning = 3.minutes) }
            scope.close()
            rejects<NotFoundException>(engine) { engine.popScope(scope.id) }
            assertEquals(SessionStatus(SessionState.ACTIVE, Reason.STARTED), engine.status)
        }
    }

    @Test
    fun manual_clock_calls_on_the_system_clock_are_wrong_clock() {
        InactivityEngine.create(d, EngineConfig(delivery = Delivery.HOST)).use { engine ->
            val e = rejects<WrongClockException>(engine) { engine.advanceClock(1.seconds) }
            assertEquals(Status.WRONG_CLOCK, e.status)
            rejects<WrongClockException>(engine) { engine.jumpWallClock(1.seconds) }
            rejects<WrongClockException>(engine) { engine.rebootClock(1.seconds) }
            assertTrue(engine.clockNow().bootId != 0L) // reading works for every clock
        }
    }

    @Test
    fun corrupt_snapshots_are_rejected_and_fail_secure() {
        val good = manualEngine().use { it.start(); it.snapshot() }
        fun restoreExpect(bytes: ByteArray, status: Status) {
            manualEngine().use { engine ->
                val e = assertThrows(SnapshotException::class.java) { engine.restore(bytes) }
                assertEquals(status, e.status)
                assertTrue(e.message!!.isNotBlank())
                assertEquals(SessionStatus(SessionState.EXPIRED, Reason.RESTORE_FAILED), engine.status)
            }
        }
        restoreExpect(ByteArray(0), Status.SNAPSHOT_TRUNCATED)
        restoreExpect(good.copyOf(good.size - 1), Status.SNAPSHOT_TRUNCATED)
        restoreExpect(good.copyOf().also { it[it.size / 2] = (it[it.size / 2] + 1).toByte() }, Status.SNAPSHOT_CHECKSUM)
    }

    @Test
    fun every_status_throws_its_categorys_exception_as_in_every_binding() {
        // tools/codegen/names.toml: a status's category, and each category its parent's subclass.
        fun thrown(status: Status, errno: Int = 0) = InactivityException.fromStatus(status.code, "m", errno) as InactivityException
        for (s in listOf(Status.NULL_POINTER, Status.INVALID_ARGUMENT, Status.STRUCT_SIZE, Status.BUFFER_TOO_SMALL)) {
            assertEquals(InvalidArgumentException::class, thrown(s)::class)
            assertEquals(s, thrown(s).status)
        }
        assertTrue(thrown(Status.SNAPSHOT_CHECKSUM) is SnapshotException)
        assertTrue(thrown(Status.SNAPSHOT_CHECKSUM) is InvalidArgumentException)
        assertTrue(thrown(Status.WEAK_AUTH) is WeakAuthException && thrown(Status.WEAK_AUTH) is InvalidStateException)
        assertTrue(thrown(Status.OFFLINE) is OfflineException && thrown(Status.OFFLINE) is InvalidStateException)
        assertEquals(11, (thrown(Status.SYSTEM, 11) as SystemResourceException).errno)
        assertEquals(null, (thrown(Status.SYSTEM) as SystemResourceException).errno)
        assertEquals(InactivityException::class, thrown(Status.INTERNAL)::class)
        assertEquals(Status.UNKNOWN, (InactivityException.fromStatus(-999, "m") as InactivityException).status)
    }

    @Test
    fun forged_and_stale_handles_are_rejected_by_the_library() {
        assertThrows(InvalidHandleException::class.java) { NativeCalls.getState(0x1234_5678_9abcL) }
        assertThrows(InvalidHandleException::class.java) { NativeCalls.getState(0L) }
        assertThrows(InvalidHandleException::class.java) { NativeCalls.destroy(0x1234_5678_9abcL) }
        NativeCalls.destroy(0L) // handle 0: a documented no-op
        val engine = manualEngine()
        val h = engine.toString().substringAfter('(').substringBefore(')').toLong()
        engine.close()
        assertThrows(InvalidHandleException::class.java) { NativeCalls.start(h) }
        assertThrows(InvalidHandleException::class.java) { NativeCalls.destroy(h) }
    }

    @Test
    fun unknown_status_codes_map_to_a_plain_inactivity_exception() {
        val e = InactivityException.fromStatus(-999, "boom") as InactivityException
        assertEquals(Status.UNKNOWN, e.status)
        assertTrue(e.message!!.contains("-999"))
        assertEquals(Status.LIMIT, (InactivityException.fromStatus(-13, "x") as LimitException).status)
    }

    // Issue 32: names are the library's (any case, '-' or '_'), the same bad name gives the
    // library's message, and a closed engine says what every binding says.
    @Test
    fun names_are_read_and_printed_by_the_library() {
        assertEquals(Policy.preset(Preset.BANKING), Policy.preset("banking"))
        assertEquals(Policy.preset(Preset.PCI_DSS), Policy.preset("pci-dss"))
        assertEquals(Reason.IDLE_TIMEOUT, Reason.fromName("idle-timeout"))
        assertEquals(SessionState.LOCKED, SessionState.fromName("Locked"))
        assertEquals(ActivityKind.TOUCH_DOWN, ActivityKind.fromName("touch_down"))
        assertEquals(Preset.PSD2, Preset.fromName("psd2"))
        assertEquals("IDLE_TIMEOUT", Reason.IDLE_TIMEOUT.libraryName)
        assertEquals("unknown", Reason.UNKNOWN.libraryName)
        val e = rejects<InvalidArgumentException>(null) { Policy.preset("BANKNG") }
        assertEquals("preset (\"BANKNG\") must be one of DEFAULT, NIST_AAL2, NIST_AAL3, PCI_DSS, BANKING, PSD2, ENTERPRISE", e.message)
        val engine = manualEngine()
        engine.start()
        engine.activity("KEY")
        rejects<InvalidArgumentException>(engine, "kind (\"WINK\") must be one of TOUCH_DOWN") { engine.activity("WINK") }
        engine.end("password-changed")
        assertEquals(Reason.PASSWORD_CHANGED, engine.reason)
        engine.close()
        val closed = assertThrows(IllegalStateException::class.java) { engine.lock() }
        assertEquals("the engine is closed", closed.message)
    }
}
