/* Intentionally empty: this target only exposes system headers to Swift. */
