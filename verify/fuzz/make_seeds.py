#!/usr/bin/env python3
"""Writes the seed corpus (verify/fuzz/corpus/) for verify/fuzz/inact_fuzz.c: one small program per behaviour.

Each seed is a byte program in the target's encoding (see run() and the op_* functions in
inact_fuzz.c). The seeds give libFuzzer a start in every area: they reach each input of the
ABI, the deadlines, ticks, catch-up after a freeze, windows and grace, scopes, holds, restores
on the same boot / after a reboot / with the clock set back / with the wall clock set back,
corrupt snapshots, stale and forged handles, bad arguments, and destroy or lock from inside a
callback. Run it after changing the encoding: python3 verify/fuzz/make_seeds.py
"""
import hashlib
import os
import struct

(CREATE, DESTROY, START, ACTIVITY, CONTINUE, LOCK, UNLOCK, UNLOCK_FAILED, END, REFRESH,
 BACKGROUND, FOREGROUND, WINDOW_SHOWN, WINDOW_HIDDEN, SCOPE_PUSH, SCOPE_POP, HOLD_ACQUIRE,
 HOLD_RELEASE, SET_POLICY, QUERY, ADVANCE, ADVANCE2, ADVANCE3, FREEZE, JUMP_WALL, REBOOT,
 SNAPSHOT, RESTART, RESTORE, STALE, BAD_ARGS, DESTROY_IN_CALLBACK, LOCK_IN_CALLBACK, TOKEN_ROTATED,
 DEVICE_LOCKED, UNLOCK_WITH, UNLOCK_FAILED_WITH, BIOMETRICS_CHANGED, SERVER_CONTACT, SET_CEILINGS,
 COMPAT_QUERY) = range(41)
EXPECT_INTERRUPTION, REQUIRED_AUTH = 41, 42
BIOMETRIC, CREDENTIAL = b"\x00", b"\x96"  # the method bytes of UNLOCK_WITH / UNLOCK_FAILED_WITH

DURATIONS = [0, 1, 2, 3, 5, 10, 100, 250, 500, 700, 999, 1000, 1001, 2000, 3000, 3500, 5000,
             7000, 10000, 30000, 60000, 900000, 3600000, -1, "NEVER", "100Y", "100Y+1"]
ADVANCES = [0, 1, 10, 100, 250, 299, 300, 500, 699, 700, 999, 1000, 2000, 2500, 3000, 4999,
            5000, 7000, 10000, 60000, 3600000]
FIELDS = {"idle": 0, "warn": 1, "bg": 2, "abs": 3, "locked": 4, "tick": 5, "grace": 6,
          "action": 7, "kinds": 8, "maxfail": 9, "dismiss": 10, "pause": 11, "strong": 16, "intr": 18,
          # the edits at the top of the byte (rd_policy_offline_edit): f % 3
          "offline": 234, "offline_expiry": 232, "size10": 233}


def dur(v):
    return bytes([DURATIONS.index(v)])


def adv(v):
    if v in ADVANCES:
        return bytes([ADVANCES.index(v)])
    assert 0 <= v < 65536
    return bytes([230]) + struct.pack("<H", v)


def policy(base="small", **edits):
    """base: small (idle 10 s, warning 3 s, tick 1 s, background 5 s, absolute 1 h) or default."""
    out = bytes([0 if base == "small" else 5, len(edits)])
    for name, value in edits.items():
        f = FIELDS[name]
        out += bytes([f])
        if f <= 6 or f in (16, 18, 232, 234):
            out += dur(value)
        elif f == 8:
            out += bytes([0, value])
        elif isinstance(value, bytes):
            out += value
        else:
            out += bytes([value])
    return out


def ceilings(*edits, how=0):
    """edits: (field, byte...) as rd_ceilings reads them: 0..7 durations (a byte < 128 then a
    duration index, or 128/129/130 for the policy's value - 1 / + 0 / + 1), 8 max_unlock_failures,
    9 lock_on_device_lock, 10 lock_on_restart, 11 size."""
    out = bytes([how, len(edits)])
    for e in edits:
        out += bytes(e)
    return out


def create(pol=None, thread=False, mono=None):
    b = (4 if thread else 0) | (1 if mono is not None else 0)
    out = bytes([CREATE]) + (pol or policy()) + bytes([b])
    return out + (struct.pack("<H", mono) if mono is not None else b"")


def op(code, slot=0, *args):
    return bytes([code, slot]) + b"".join(args)


def restart(how, later, extra=b"", new_policy=None, mutation=b"\x00", delivery=0):
    """how: 0 same boot, 2 reboot, 3 clock went back, 4 reboot with the wall clock set back.
    delivery: bit 0 THREAD; bits 1-3: 1 the callback destroys the engine at the restore's
    event, 2 it calls inact_lock."""
    out = bytes([RESTART, 0, how]) + adv(later) + extra
    out += (b"\x01" + new_policy) if new_policy else b"\x00"
    return out + bytes([delivery]) + mutation


SEEDS = {
    "idle_warns_ticks_then_locks": create() + op(START) + op(ADVANCE, 0, adv(60000)),
    "continue_in_warning": create() + op(START) + op(ADVANCE, 0, adv(7000)) + op(CONTINUE)
    + op(ADVANCE, 0, adv(10000)),
    "activity_moves_the_deadline": create() + op(START) + op(ADVANCE, 0, adv(5000))
    + op(ACTIVITY, 0, b"\x00") + op(ADVANCE, 0, adv(5000)) + op(ACTIVITY, 0, b"\x06")
    + op(ADVANCE, 0, adv(7000)),
    "activity_dismisses_warning": create(policy(dismiss=1)) + op(START) + op(ADVANCE, 0, adv(7000))
    + op(ACTIVITY, 0, b"\x03"),
    "idle_action_expire": create(policy(action=1, warn=0)) + op(START) + op(ADVANCE, 0, adv(60000)),
    "background_locks_on_time": create() + op(START) + op(BACKGROUND) + op(ADVANCE, 0, adv(60000))
    + op(FOREGROUND) + op(UNLOCK),
    "background_zero_locks_at_once": create(policy(bg=0)) + op(START) + op(BACKGROUND),
    "pause_idle_in_background": create(policy(pause=1, bg="NEVER")) + op(START)
    + op(ADVANCE, 0, adv(2000)) + op(BACKGROUND) + op(ADVANCE, 0, adv(60000)) + op(FOREGROUND)
    + op(ADVANCE, 0, adv(10000)),
    "windows_rotation_within_grace": create() + op(START) + op(WINDOW_SHOWN) + op(WINDOW_HIDDEN)
    + op(ADVANCE, 0, adv(300)) + op(WINDOW_SHOWN) + op(ADVANCE, 0, adv(5000)),
    "windows_hidden_past_grace": create(policy(bg=100)) + op(START) + op(WINDOW_SHOWN)
    + op(WINDOW_HIDDEN) + op(ADVANCE, 0, adv(699)) + op(ADVANCE, 0, adv(1)) + op(WINDOW_SHOWN)
    + op(WINDOW_HIDDEN) + op(WINDOW_HIDDEN),
    "scopes_strictest_wins": create(policy(idle=60000)) + op(START) + op(SCOPE_PUSH, 0, dur(10000), b"\x00")
    + op(SCOPE_PUSH, 0, dur(5000), b"\x00") + op(ADVANCE, 0, adv(2500)) + op(SCOPE_POP, 0, b"\x01")
    + op(SCOPE_POP, 0, b"\x00") + op(ADVANCE, 0, adv(60000)),
    "scope_push_past_deadline_acts_now": create(policy(idle=60000, warn=0)) + op(START)
    + op(ADVANCE, 0, adv(10000)) + op(SCOPE_PUSH, 0, dur(5000), b"\x00"),
    "holds_suspend_idle": create() + op(START) + op(ADVANCE, 0, adv(7000)) + op(HOLD_ACQUIRE, 0, b"\x00")
    + op(HOLD_ACQUIRE, 0, b"\x00") + op(ADVANCE, 0, adv(60000)) + op(HOLD_RELEASE, 0, b"\x00")
    + op(HOLD_RELEASE, 0, b"\x00") + op(HOLD_RELEASE, 0, b"\x07") + op(ADVANCE, 0, adv(10000)),
    "unlock_failures_expire": create(policy(maxfail=3, locked=60000)) + op(START) + op(LOCK) + op(LOCK)
    + op(UNLOCK_FAILED, 0, b"\x00") + op(UNLOCK_FAILED, 0, b"\x01") + op(UNLOCK) + op(LOCK)
    + op(UNLOCK_FAILED, 0, b"\x00") + op(UNLOCK_FAILED, 0, b"\x00") + op(UNLOCK_FAILED, 0, b"\x00"),
    "locked_timeout_and_absolute": create(policy(locked=5000, abs=60000)) + op(START)
    + op(ADVANCE, 0, adv(60000)) + op(START) + op(LOCK) + op(ADVANCE, 0, adv(5000)),
    "end_and_refresh": create() + op(START) + op(REFRESH, 0, b"\x00", b"\x00") + op(REFRESH, 0, b"\x0a", b"\x00")
    + op(REFRESH, 0, b"\x04", b"\x02") + op(REFRESH, 0, b"\x0e", b"\x00") + op(REFRESH, 0, b"\x04", b"\x01")
    + op(END, 0, b"\x00") + op(START) + op(END, 0, b"\xf5\xff\xff\xff\x7f") + op(END, 0, b"\x02"),
    "set_policy_recomputes": create() + op(START) + op(ADVANCE, 0, adv(7000))
    + op(SET_POLICY, 0, policy(idle=60000)) + op(SET_POLICY, 0, policy(warn=10000))
    + op(SET_POLICY, 0, policy(idle=3000, warn=0)),
    "freeze_then_catch_up": create(policy(locked=60000)) + op(START) + op(FREEZE, 0, adv(3600000))
    + op(QUERY, 0, b"\x00") + op(LOCK) + op(FREEZE, 0, adv(2500)) + op(ACTIVITY, 0, b"\x00"),
    "freeze_in_warning_one_tick": create(policy(idle=60000, warn=30000)) + op(START)
    + op(ADVANCE, 0, adv(30000)) + op(FREEZE, 0, adv(10000)) + op(QUERY, 0, b"\x04"),
    "restart_same_boot": create() + op(START) + op(ADVANCE, 0, adv(2000)) + op(BACKGROUND)
    + restart(0, 1000) + op(ADVANCE, 0, adv(10000)),
    "restart_after_long_background": create() + op(START) + op(BACKGROUND) + restart(0, 60000),
    "restart_inside_warning": create(policy(bg="NEVER")) + op(START) + restart(0, 7000),
    "restart_after_reboot": create() + op(START) + restart(2, 500, b"\x05") + op(UNLOCK),
    "restart_clock_went_back": create(mono=20000) + op(START) + restart(3, 100, b"\x10\x00\x00\x00"),
    "restart_wall_set_back": create() + op(START) + restart(4, 100, b"\x01\x00\x00\x00"),
    "restart_past_absolute_by_wall": create(policy(abs=60000)) + op(START) + restart(2, 3600000, b"\x00"),
    "restart_locked_and_expired": create() + op(START) + op(LOCK) + restart(0, 10) + op(END, 0, b"\x00")
    + restart(0, 10),
    "restore_truncated": create() + op(START) + restart(0, 10, mutation=b"\x04\x20"),
    "restore_bit_flip": create() + op(START) + restart(0, 10, mutation=b"\x05\x00\x10\x03"),
    "restore_extended": create() + op(START) + restart(0, 10, mutation=b"\x06\x02\xaa\xbb\xcc"),
    "restore_random": create() + op(START) + restart(0, 10, mutation=b"\x07" + bytes(range(7, 120))),
    # format 1 (mutation byte 0x60: rewritten as a 1.0 library wrote it), intact
    "restore_format_1": create(policy(strong=3000)) + op(START) + op(ADVANCE, 0, adv(2000)) + op(BACKGROUND)
    + restart(0, 1000, mutation=b"\x60") + op(LOCK) + op(ADVANCE, 0, adv(2000)) + op(REQUIRED_AUTH, 0, b"\x00"),
    "restore_format_1_locked": create() + op(START) + op(BIOMETRICS_CHANGED) + op(LOCK) + op(TOKEN_ROTATED, 0, b"\x03")
    + restart(0, 10, mutation=b"\x60") + op(UNLOCK_WITH, 0, BIOMETRIC),
    # a session that never started (EXPIRED from LOADING), in both formats
    "restore_never_started": create() + op(END, 0, b"\x00") + restart(0, 1000)
    + op(SNAPSHOT, 0, b"\x00") + restart(0, 10, mutation=b"\x60") + op(START),
    # fields set with the checksum made right (0x15: format 2; 0x75: format 1): the unlock
    # failures to 65536, the last credential verification to the snapshot's clock, the token
    # generation to INT64_MIN; the session start one past the clock (refused)
    "restore_fields_resealed": create() + op(START) + op(ADVANCE, 0, adv(1000))
    + restart(0, 10, mutation=bytes([0x15, 2, 3, 200, 9, 12, 100, 5, 14, 0, 0])) + op(UNLOCK)
    + restart(0, 10, mutation=bytes([0x75, 0, 5, 101, 4])),
    # the callback of the restore's event destroys its engine (intact, then corrupt bytes), or
    # locks it (a live outcome, then an EXPIRED one: INVALID_STATE)
    "restore_destroy_in_callback": create() + op(START) + restart(0, 10, delivery=2) + create() + op(START)
    + restart(0, 10, mutation=b"\x04\x20", delivery=3),
    "restore_lock_in_callback": create() + op(START) + restart(0, 10, delivery=4) + op(UNLOCK)
    + restart(0, 10, mutation=b"\x04\x20", delivery=5),
    "restore_not_loading": create() + op(START) + op(SNAPSHOT, 0, b"\x00") + op(RESTORE, 0, b"\x00", b"\x00"),
    # the ends of every C type: SIZE_MAX capacities and lengths, INT64_MIN/MAX clock moves and
    # durations, INT32_MIN/MAX enums and booleans, UINT32_MAX bit sets
    "full_width_arguments": create() + op(START) + op(SNAPSHOT, 0, b"\xff") + op(SNAPSHOT, 0, b"\xfe")
    + op(ADVANCE, 0, b"\xfe\x00") + op(ADVANCE, 0, b"\xfe\x0c") + op(FREEZE, 0, b"\xfe\x01")
    + op(JUMP_WALL, 0, b"\x00\x00\x00\x00\x00\xfe\x00") + op(JUMP_WALL, 0, b"\x00\x00\x00\x00\x00\xfe\x0c")
    + op(SCOPE_PUSH, 0, b"\xf0\x00", b"\x00") + op(SCOPE_PUSH, 0, b"\xf0\x0b", b"\x00")
    + op(ACTIVITY, 0, b"\xfa\xff\xff\xff\xff") + op(END, 0, b"\xfa\x00") + op(END, 0, b"\xfa\x0b")
    + op(REFRESH, 0, b"\xf0\x00", b"\x00") + op(REFRESH, 0, b"\xf0\x0b", b"\x00")
    + op(SCOPE_POP, 0, b"\xf0" + b"\xff" * 8) + op(HOLD_RELEASE, 0, b"\xf0" + b"\xff" * 8)
    + op(SET_POLICY, 0, bytes([0, 4, 0x85, 0x00, 0x88, 0x02, 0x89, 0x0b, 0x0c, 0x06]))
    + op(SET_POLICY, 0, bytes([0, 1, 0x87, 0x03]))
    + bytes([BAD_ARGS, 4, 0, 8]) + bytes([BAD_ARGS, 8, 0, 0, 0, 0, 0, 0x80, 0x80, 0, 0])
    + bytes([CREATE]) + policy() + bytes([253, 0, 0, 0]) + bytes([CREATE]) + policy() + bytes([252, 12])
    + bytes([CREATE]) + policy() + bytes([251, 0, 0, 0, 0, 0, 0])
    + bytes([RESTART, 0, 0, 0, 0, 0, 6, 0, 0, 0xff, 8]) + op(DESTROY, 1) + op(DESTROY, 2),
    "stale_and_forged_handles": create() + op(START) + op(DESTROY) + bytes([STALE, 0, 0])
    + bytes([STALE, 0, 4]) + create() + bytes([STALE, 1, 0, 5, 7]) + bytes([STALE, 2]) + b"\x11" * 8
    + b"\x02" + bytes([STALE, 3, 0]) + bytes([STALE, 3, 1]),
    "bad_arguments": create() + bytes([BAD_ARGS, 0, 0]) + bytes([BAD_ARGS, 1, 0, 3]) + bytes([BAD_ARGS, 2, 0])
    + bytes([BAD_ARGS, 3, 0]) + bytes([BAD_ARGS, 4, 0]) + bytes([BAD_ARGS, 5, 0]) + bytes([BAD_ARGS, 6, 0])
    + bytes([BAD_ARGS, 7, 0]) + bytes([BAD_ARGS, 8, 0]) + bytes([BAD_ARGS, 9, 0, 1])
    + bytes([BAD_ARGS, 10, 0, 1]) + bytes([BAD_ARGS, 11, 0]) + op(ACTIVITY, 0, b"\xf5\x03")
    + op(SCOPE_PUSH, 0, dur(-1), b"\x00") + op(SCOPE_PUSH, 0, dur(1000), b"\xff")
    + op(HOLD_ACQUIRE, 0, b"\xff") + op(WINDOW_HIDDEN),
    "invalid_policies": create(policy(idle=0)) + create(policy(warn=10000)) + create(policy(tick="NEVER"))
    + create(policy(abs=0)) + create(policy(bg="100Y+1")) + create(policy(action=2)) + create(policy(pause=2)),
    "destroy_in_callback": create() + op(START) + bytes([DESTROY_IN_CALLBACK, 0]) + adv(60000)
    + bytes([STALE, 0, 0, 0, 1]),
    "lock_in_callback": create() + op(START) + bytes([LOCK_IN_CALLBACK, 0]) + adv(60000)
    + op(ADVANCE, 0, adv(3600000)),
    # issue 13 section 5: offline limits
    "offline_lock_then_contact": create(policy(offline=5000)) + op(START) + op(ADVANCE, 0, adv(5000))
    + op(UNLOCK) + op(SERVER_CONTACT) + op(UNLOCK) + op(ADVANCE, 0, adv(4999)) + op(REFRESH, 0, b"\x01", b"\x00")
    + op(ADVANCE, 0, adv(4999)) + op(ADVANCE, 0, adv(10000)),
    "offline_expiry_from_locked": create(policy(offline=5000, offline_expiry=10000, locked="NEVER"))
    + op(START) + op(LOCK) + op(ADVANCE, 0, adv(7000)) + op(UNLOCK) + op(UNLOCK_FAILED, 0, b"\x00")
    + op(ADVANCE, 0, adv(3000)),
    "offline_limits_survive_a_restart": create(policy(offline=7000, bg="NEVER")) + op(START)
    + op(ADVANCE, 0, adv(2000)) + op(SERVER_CONTACT) + op(SNAPSHOT, 0, b"\x00") + restart(0, 5000)
    + op(ADVANCE, 0, adv(5000)) + op(UNLOCK),
    "offline_contact_in_loading_then_restore": create(policy(offline_expiry=10000, bg="NEVER")) + op(START)
    + op(SNAPSHOT, 0, b"\x00") + bytes([CREATE]) + policy(offline_expiry=10000, bg="NEVER") + bytes([1])
    + struct.pack("<H", 20000) + op(SERVER_CONTACT, 1) + bytes([RESTORE, 1, 0, 0]),
    # issue 26: a background reported in LOADING (explicit, a device lock, every window hidden
    # with the grace running) survives the restore; a contact at the snapshot's own instant
    # does not cancel the offline expiry due then; a limit lowered to the failures counted
    # expires at once (a policy, ceilings, the restoring engine's policy)
    "background_in_loading_survives_the_restore": create(policy(bg=60000)) + op(START)
    + op(SNAPSHOT, 0, b"\x00") + bytes([CREATE]) + policy(bg=60000) + bytes([1]) + struct.pack("<H", 10000)
    + op(BACKGROUND, 1) + bytes([RESTORE, 1, 0, 0]) + op(ADVANCE, 1, adv(5000)) + op(ACTIVITY, 1, b"\x00")
    + op(ADVANCE, 1, adv(60000)),
    "device_lock_in_loading_survives_the_restore": create(policy(bg=60000)) + op(START)
    + op(SNAPSHOT, 0, b"\x00") + bytes([CREATE]) + policy(bg=60000) + bytes([1]) + struct.pack("<H", 10000)
    + op(DEVICE_LOCKED, 1) + bytes([RESTORE, 1, 0, 0]) + op(ADVANCE, 1, adv(60000)) + op(FOREGROUND, 1),
    "grace_in_loading_survives_the_restore": create(policy(bg=60000)) + op(START)
    + op(SNAPSHOT, 0, b"\x00") + bytes([CREATE]) + policy(bg=60000) + bytes([1]) + struct.pack("<H", 10000)
    + op(WINDOW_SHOWN, 1) + op(WINDOW_HIDDEN, 1) + bytes([RESTORE, 1, 0, 0]) + op(ADVANCE, 1, adv(1000))
    + op(WINDOW_SHOWN, 1) + op(ADVANCE, 1, adv(60000)),
    "contact_in_loading_at_the_snapshots_instant": create(policy(bg="NEVER")) + op(START)
    + op(ADVANCE, 0, adv(2000)) + op(SNAPSHOT, 0, b"\x00") + bytes([CREATE])
    + policy(offline_expiry=2000, bg="NEVER") + bytes([1]) + struct.pack("<H", 2000) + op(SERVER_CONTACT, 1)
    + bytes([RESTORE, 1, 0, 0]),
    "failure_limit_lowered_to_the_count": create() + op(START) + op(LOCK) + op(UNLOCK_FAILED, 0, b"\x00")
    + op(UNLOCK_FAILED, 0, b"\x00") + op(SET_POLICY, 0, policy(maxfail=3)) + op(SET_POLICY, 0, policy(maxfail=2))
    + op(UNLOCK) + op(START) + op(LOCK) + op(UNLOCK_FAILED, 0, b"\x00")
    + op(SET_CEILINGS, 0, ceilings((8, 1))),
    "restore_under_a_lower_failure_limit": create() + op(START) + op(LOCK) + op(UNLOCK_FAILED, 0, b"\x00")
    + op(UNLOCK_FAILED, 0, b"\x00") + restart(0, 10, new_policy=policy(maxfail=2)) + op(UNLOCK),
    # issue 13 section 6: managed ceilings
    "ceilings_refuse_laxer_policies": create() + op(START)
    + op(SET_CEILINGS, 0, ceilings((0, 130), (8, 3), (6, 0, DURATIONS.index(3600000))))
    + op(SET_POLICY, 0, policy(idle=60000)) + op(SET_POLICY, 0, policy(maxfail=0))
    + op(SET_POLICY, 0, policy(maxfail=3)) + op(SET_POLICY, 0, policy(maxfail=3, offline=3600000))
    + op(SET_POLICY, 0, bytes([5, 0])) + op(COMPAT_QUERY, 0, b"\x01\x00")
    + op(SET_CEILINGS, 0, ceilings((0, 0, DURATIONS.index(3000)))) + op(COMPAT_QUERY, 0, b"\x01\x02"),
    "ceilings_flags_then_restart": create() + op(START) + op(SET_CEILINGS, 0, ceilings((10, 1), (9, 1)))
    + op(SET_POLICY, 0, policy()) + op(DEVICE_LOCKED) + op(FOREGROUND) + op(UNLOCK) + restart(0, 10),
    "ceilings_bad_values": create() + op(SET_CEILINGS, 0, ceilings((0, 0, DURATIONS.index(-1))))
    + op(SET_CEILINGS, 0, ceilings((1, 0, DURATIONS.index("100Y+1")))) + op(SET_CEILINGS, 0, ceilings((9, 2)))
    + op(SET_CEILINGS, 0, ceilings((11, 4))) + op(SET_CEILINGS, 0, ceilings((11, 0x84)))
    + op(SET_CEILINGS, 0, ceilings((11, 1))) + op(SET_CEILINGS, 0, b"\xff"),
    # the 1.0 layouts: an 80-byte policy (its tail is garbage), a 104-byte info
    "policy_1_0_size": create(policy(size10=bytes([0x80, 1, 2, 3, 4, 5, 6]))) + op(START)
    + op(SET_POLICY, 0, policy(size10=bytes([0x84, 7, 8, 9, 10, 11, 12]), idle=60000)) + op(COMPAT_QUERY, 0, b"\x00\x01")
    + op(COMPAT_QUERY, 0, b"\x00\x00") + op(SET_POLICY, 0, policy(size10=4)),
    # a refused advance (INT64_MAX) still delivers the catch-up of a freeze, and a lock from
    # the callback at that event is applied (WARNING -> LOCKED) or refused (EXPIRED)
    "lock_in_callback_refused_advance": create() + op(START) + op(FREEZE, 0, adv(7000))
    + bytes([LOCK_IN_CALLBACK, 0, 0xfe, 0x0c]) + op(FREEZE, 0, adv(3600000))
    + bytes([LOCK_IN_CALLBACK, 0, 0xfe, 0x0c]),
    # unlock strength: the credential after the strong-auth timeout, after a biometrics change
    # and after an untrusted restore; a weaker method is WEAK_AUTH and not counted
    "unlock_strength": create(policy(strong=5000, maxfail=3)) + op(START) + op(LOCK) + op(UNLOCK_WITH, 0, BIOMETRIC)
    + op(LOCK) + op(ADVANCE, 0, adv(5000)) + op(REQUIRED_AUTH, 0, b"\x00") + op(UNLOCK_WITH, 0, BIOMETRIC)
    + op(UNLOCK_FAILED_WITH, 0, BIOMETRIC) + op(UNLOCK_FAILED_WITH, 0, CREDENTIAL) + op(UNLOCK_WITH, 0, CREDENTIAL)
    + op(BIOMETRICS_CHANGED) + op(LOCK) + op(UNLOCK_WITH, 0, BIOMETRIC) + op(UNLOCK_WITH, 0, b"\xf5")
    + op(UNLOCK, 0) + op(LOCK) + op(UNLOCK_FAILED_WITH, 0, CREDENTIAL) + op(UNLOCK_FAILED_WITH, 0, BIOMETRIC)
    + op(UNLOCK_FAILED_WITH, 0, CREDENTIAL),
    "unlock_strength_after_untrusted_restore": create(policy(strong=60000)) + op(START) + op(BIOMETRICS_CHANGED)
    + restart(0, 100) + op(UNLOCK_WITH, 0, CREDENTIAL) + restart(2, 500, b"\x05") + op(REQUIRED_AUTH, 0, b"\x00")
    + op(UNLOCK_WITH, 0, BIOMETRIC) + op(UNLOCK_WITH, 0, CREDENTIAL),
    # expected interruption: a covered background that ends in time does not count; one still
    # in background at the window's end locks at max(start + timeout, end); used once
    "interruption_covers_a_short_background": create(policy(idle=900000)) + op(EXPECT_INTERRUPTION, 0, b"\x00")
    + op(START) + op(EXPECT_INTERRUPTION, 0, b"\x00") + op(BACKGROUND) + op(ADVANCE, 0, adv(10000))
    + op(FOREGROUND) + op(BACKGROUND) + op(ADVANCE, 0, adv(10000)) + op(FOREGROUND) + op(UNLOCK),
    "interruption_still_in_background_at_its_end": create(policy(idle=900000, intr=10000)) + op(START)
    + op(EXPECT_INTERRUPTION, 0, b"\x00") + op(ADVANCE, 0, adv(2000)) + op(BACKGROUND) + op(ADVANCE, 0, adv(60000))
    + op(FOREGROUND) + op(UNLOCK) + op(EXPECT_INTERRUPTION, 0, b"\x00") + op(ADVANCE, 0, adv(10000))
    + op(ADVANCE, 0, adv(1)) + op(BACKGROUND) + op(ADVANCE, 0, adv(60000)),
    "interruption_windows_grace_and_lapse": create(policy(idle=900000)) + op(START) + op(WINDOW_SHOWN)
    + op(EXPECT_INTERRUPTION, 0, b"\x00") + op(WINDOW_HIDDEN) + op(EXPECT_INTERRUPTION, 0, b"\x00")
    + op(ADVANCE, 0, adv(10000)) + op(WINDOW_SHOWN) + op(EXPECT_INTERRUPTION, 0, b"\x00") + op(FREEZE, 0, adv(60000))
    + op(ADVANCE, 0, adv(1)) + op(WINDOW_HIDDEN) + op(ADVANCE, 0, adv(10000)),
    # a window back within the grace ends a covered background: it consumes the announcement
    "interruption_window_back_within_grace": create(policy(idle=900000)) + op(START) + op(WINDOW_SHOWN)
    + op(EXPECT_INTERRUPTION, 0, b"\x00") + op(WINDOW_HIDDEN) + op(ADVANCE, 0, adv(300)) + op(WINDOW_SHOWN)
    + op(WINDOW_HIDDEN) + op(ADVANCE, 0, adv(10000)),
    "interruption_refused_dropped_shortened": create(policy(idle=900000)) + op(START)
    + op(EXPECT_INTERRUPTION, 0, b"\x02") + op(EXPECT_INTERRUPTION, 0, b"\x07\x00")
    + op(EXPECT_INTERRUPTION, 0, b"\x07\x0c") + op(EXPECT_INTERRUPTION, 0, b"\x00") + op(DEVICE_LOCKED)
    + op(ADVANCE, 0, adv(10000)) + op(FOREGROUND) + op(UNLOCK) + op(EXPECT_INTERRUPTION, 0, b"\x00")
    + op(SET_POLICY, 0, policy(idle=900000, intr=1000)) + op(ADVANCE, 0, adv(500)) + op(BACKGROUND)
    + op(ADVANCE, 0, adv(60000)) + op(FOREGROUND) + op(UNLOCK) + op(EXPECT_INTERRUPTION, 0, b"\x03")
    + op(EXPECT_INTERRUPTION, 0, b"\x00") + op(LOCK) + op(UNLOCK),
    "three_engines_thread_delivery": create(thread=True) + create(policy(base="default")) + create(thread=True)
    + op(START, 0) + op(START, 1) + op(START, 2) + op(ADVANCE, 1, adv(3600000)) + op(DESTROY, 2)
    + op(LOCK, 0),
}


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, "seed-" + name), "wb") as f:
            f.write(data)
    print(f"{len(SEEDS)} seeds in {out}")


if __name__ == "__main__":
    main()
