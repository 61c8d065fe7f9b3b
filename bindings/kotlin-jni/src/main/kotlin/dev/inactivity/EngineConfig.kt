package dev.inactivity

/**
 * How an engine is created (inact_config). The default is what an app wants: THREAD delivery
 * on the SYSTEM clock. Tests use [manual]. A null field keeps the library's default.
 */
data class EngineConfig(
    val delivery: Delivery = Delivery.THREAD,
    val clock: ClockKind = ClockKind.SYSTEM,
    /** Manual clock: initial monotonic time in ms (>= 0). */
    val manualStartMs: Long? = null,
    /** Manual clock: initial wall time in ms since 1970. */
    val manualWallMs: Long? = null,
    /** Manual clock: initial boot id (!= 0). */
    val manualBootId: Long? = null,
) {
    internal fun toWire(): LongArray {
        val v = LongArray(NativeBridge.CONFIG_FIELDS)
        v[NativeBridge.C_DELIVERY] = delivery.code.toLong()
        v[NativeBridge.C_CLOCK] = clock.code.toLong()
        manualStartMs?.let { v[NativeBridge.C_HAS_MANUAL_START] = 1; v[NativeBridge.C_MANUAL_START_MS] = it }
        manualWallMs?.let { v[NativeBridge.C_HAS_MANUAL_WALL] = 1; v[NativeBridge.C_MANUAL_WALL_MS] = it }
        manualBootId?.let { v[NativeBridge.C_HAS_MANUAL_BOOT_ID] = 1; v[NativeBridge.C_MANUAL_BOOT_ID] = it }
        return v
    }

    companion object {
        /** A manual-clock engine: time moves only through [InactivityEngine.advanceClock]. */
        @JvmStatic
        @JvmOverloads
        fun manual(
            delivery: Delivery = Delivery.THREAD,
            startMs: Long? = null,
            wallMs: Long? = null,
            bootId: Long? = null,
        ): EngineConfig = EngineConfig(delivery, ClockKind.MANUAL, startMs, wallMs, bootId)
    }
}
