"""The model's rules (scripts/test readme runs these after tools/generate --check):
the annotations are read, and each form the model refuses fails naming what is wrong.

    cd tools && python3 -m unittest codegen.test_model
"""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

from . import model as model_module
from .model import HEADER, NAMES, HeaderError, load


class ModelTest(unittest.TestCase):
    text = HEADER.read_text()

    def mutated(self, old: str, new: str) -> Path:
        self.assertEqual(self.text.count(old), 1, old)
        folder = Path(tempfile.mkdtemp())
        path = folder / "inactivity.h"
        path.write_text(self.text.replace(old, new))
        return path

    def refused(self, old: str, new: str, words: str) -> None:
        with self.assertRaises(HeaderError) as caught:
            load(self.mutated(old, new))
        self.assertIn(words, str(caught.exception))

    def test_annotations_give_the_kinds(self) -> None:
        model = load()
        policy = model.structs["inact_policy"]
        self.assertEqual(policy.field("idle_timeout_ms").kind, "duration")
        self.assertEqual(policy.field("activity_dismisses_warning").kind, "flag")
        self.assertEqual((policy.field("idle_action").kind, policy.field("idle_action").enum),
                         ("enum", "inact_idle_action"))
        self.assertEqual(policy.field("activity_kinds").kind, "bits")
        self.assertEqual(policy.field("max_unlock_failures").kind, "count")
        self.assertEqual(model.structs["inact_info"].field("started_at_ms").kind, "time")
        state = model.function("inact_get_state").params[1]
        self.assertEqual((state.is_out, state.may_be_null, state.enum), (True, False, "inact_state"))
        outcome = model.function("inact_refresh_result_gen").params[-1]
        self.assertTrue(outcome.is_out and outcome.may_be_null)

    def test_a_comment_carries_no_meaning(self) -> None:
        # The comment's old "0/1:" wording without INACT_BOOL is a count, not a flag.
        path = self.mutated("INACT_BOOL int32_t activity_dismisses_warning;",
                            "int32_t activity_dismisses_warning;")
        self.assertEqual(load(path).structs["inact_policy"].field("activity_dismisses_warning").kind, "count")

    def test_a_duration_without_its_annotation_is_refused(self) -> None:
        self.refused("INACT_MS int64_t background_grace_ms;", "int64_t background_grace_ms;", "background_grace_ms")

    def test_an_out_pointer_without_its_annotation_is_refused(self) -> None:
        self.refused("INACT_OUT uint64_t *out_hold_id", "uint64_t *out_hold_id", "INACT_OUT or INACT_INOUT")

    def test_an_annotation_on_the_wrong_type_is_refused(self) -> None:
        self.refused("INACT_MS int64_t max_ms", "INACT_BOOL int64_t max_ms", "wants int32_t")

    def test_an_unknown_enum_is_refused(self) -> None:
        self.refused("INACT_ENUM(inact_auth) int32_t method);", "INACT_ENUM(inact_nothing) int32_t method);",
                     "inact_nothing")

    def test_a_function_without_a_names_row_is_refused(self) -> None:
        self.refused("INACT_EXPORT int32_t inact_poll(inact_engine engine);",
                     "INACT_EXPORT int32_t inact_poll(inact_engine engine);\n/** x */\n"
                     "INACT_EXPORT int32_t inact_screen_shared(inact_engine engine);",
                     "names.toml has no row for inact_screen_shared")


    def test_an_input_with_an_argument_is_generated_in_every_binding(self) -> None:
        # A throwaway input with a duration argument and a row with no hand layer: every
        # binding's method, every runner's op, the scenario command, the fuzz op and its model
        # declaration, the C table test's line and the docs' row are generated, converting the
        # argument by its annotation.
        header = self.mutated(
            "INACT_EXPORT int32_t inact_device_locked(inact_engine engine);",
            "INACT_EXPORT int32_t inact_device_locked(inact_engine engine);\n/** Shared. */\n"
            "INACT_EXPORT int32_t inact_screen_shared(inact_engine engine, INACT_MS int64_t ms);")
        names = header.parent / "names.toml"
        names.write_text(NAMES.read_text().replace(
            "[functions]\n", '[functions]\ninact_screen_shared = { core = "screenShared", python = "screen_shared", '
            'kotlin = "screenShared", js = "screenShared", op = "screen-shared", hand = [] }\n', 1))
        saved = model_module.NAMES
        model_module.NAMES = names
        try:
            model = load(header)
        finally:
            model_module.NAMES = saved
        from . import emit_inputs, emit_ops, emit_python, emit_verify
        files = {**emit_python.emit(model), **emit_inputs.emit(model), **emit_ops.emit(model), **emit_verify.emit(model)}
        expected = {
            "bindings/python/src/inactivity/_generated/inputs.py":
                'def screen_shared(self, duration: Duration) -> None:',
            "bindings/kotlin-jni/src/main/kotlin/dev/inactivity/generated/Inputs.kt":
                "fun InactivityEngine.screenShared(duration: Duration) = callGenerated "
                "{ NativeCalls.screenShared(it, duration.toWireMs()) }",
            "bindings/js/src/generated/inputs.js": "['screenShared', 'inact_screen_shared', [['duration', 'ms', null, 'i64']]]",
            "bindings/js/generated/inputs.d.ts": "screenShared(ms: Ms): void;",
            "verify/conformance/generated/ops.h": "int32_t rc = inact_screen_shared(engine, (int64_t)arg_i64(w, 0));",
            "Sources/inactivity-conformance/generated/OpTable.swift":
                'case "screen-shared": try e.screenShared(ms: conv.ms(a[0])); return "ok"',
            "bindings/kotlin-jni/src/test/kotlin/dev/inactivity/generated/OpTable.kt":
                '"screen-shared" -> e.screenShared(conv.ms(a[0].toLong()))',
        }
        for path, line in expected.items():
            self.assertIn(line, files[path], path)
        # The Python and JavaScript runners read the op from the vocabulary.
        import json
        vocabulary = {e["op"]: e for e in json.loads(files["verify/conformance/generated/ops.json"])["ops"]}
        self.assertEqual(vocabulary["screen-shared"]["args"][0]["kind"], "duration")
        self.assertEqual(vocabulary["screen-shared"]["python"]["member"], "screen_shared")
        self.assertEqual(vocabulary["screen-shared"]["js"]["member"], "screenShared")
        # generate.py draws it in the generated scenarios by this flag, with no line of its own
        self.assertTrue(vocabulary["screen-shared"]["scenario_command"])
        self.assertFalse(vocabulary["unlock"]["scenario_command"])  # `unlock` takes a name: hand-written
        self.assertIn('self._call(_lib.LIB.inact_screen_shared, duration_to_ms(duration, "duration"))',
                      files["bindings/python/src/inactivity/_generated/inputs.py"])
        more = {
            # Java cannot call a method taking Kotlin's Duration (a value class): it gets its own.
            "bindings/kotlin-jni/src/main/kotlin/dev/inactivity/generated/Inputs.kt":
                "fun InactivityEngine.screenShared(duration: java.time.Duration) = screenShared(duration.toKotlinDuration())",
            emit_verify.SWIFT: 'PlainInput("screen-shared", [("DURATION", .duration)]) '
                               '{ e, a throws(InactivityError) in try e.screenShared(ms: a[0]) },',
            emit_verify.FUZZ_OPS: "int64_t ms = rd_duration(r); \\\n        rc = inact_screen_shared(s->h, ms); \\\n"
                                  "        ex = m_screen_shared(m, ms); \\",
            emit_verify.FUZZ_MODEL: "int32_t m_screen_shared(model *m, int64_t ms);",
            emit_verify.DOC: "| `screen-shared DURATION` | Shared. (`inact_screen_shared`) |",
            "Tests/CTests/generated/state_inputs.inc":
                'if (strcmp(input, "screen shared") == 0) return inact_screen_shared(e, SECOND_MS);',
        }
        for path, line in more.items():
            self.assertIn(line, files[path], path)
        self.assertIn("    X(screen_shared) \\", files[emit_verify.FUZZ_OPS])
        self.assertIn("import kotlin.time.toKotlinDuration",
                      files["bindings/kotlin-jni/src/main/kotlin/dev/inactivity/generated/Inputs.kt"])

    def test_a_plain_scenario_command_with_an_enum_argument_is_refused(self) -> None:
        # inact_end's REASON is written by name in the scenario files: taken out of the hand
        # layer, the generator would make it `end 20`, and refuses instead, naming the way out.
        from . import emit_verify
        model = self.names_mutated('"js", "fuzz", "ctest", "scen"] }\ninact_refresh_result =',
                                   '"js", "fuzz", "ctest"] }\ninact_refresh_result =')
        with self.assertRaises(HeaderError) as caught:
            emit_verify.emit(model)
        self.assertIn("inact_end: its argument reason is an enum", str(caught.exception))
        self.assertIn('list "scen"', str(caught.exception))

    def test_the_c_table_test_line_of_an_enum_argument_is_refused(self) -> None:
        from . import emit_inputs
        model = self.names_mutated('"js", "fuzz", "ctest", "scen"] }\ninact_refresh_result =',
                                   '"js", "fuzz", "scen"] }\ninact_refresh_result =')
        with self.assertRaises(HeaderError) as caught:
            emit_inputs.emit(model)
        self.assertIn("inact_end: the C table test cannot choose its reason (enum)", str(caught.exception))

    def test_an_op_key_that_does_not_fit_is_refused(self) -> None:
        # names.toml's op keys name one entry per argument: a list of another length fails,
        # naming the function and the arguments, rather than calling a binding wrongly.
        folder = Path(tempfile.mkdtemp())
        names = folder / "names.toml"
        names.write_text(NAMES.read_text().replace('kotlin_order = [0, 2, 1]', 'kotlin_order = [0, 1]', 1))
        saved = model_module.NAMES
        model_module.NAMES = names
        try:
            with self.assertRaises(HeaderError) as caught:
                load()
        finally:
            model_module.NAMES = saved
        self.assertIn("inact_holder_report: kotlin_order must list one int per argument (kind, reason, ms)",
                      str(caught.exception))

    def names_mutated(self, old: str, new: str):
        folder = Path(tempfile.mkdtemp())
        names = folder / "names.toml"
        text = NAMES.read_text()
        self.assertEqual(text.count(old), 1, old)
        names.write_text(text.replace(old, new))
        saved = model_module.NAMES
        model_module.NAMES = names
        try:
            return load(HEADER)
        finally:
            model_module.NAMES = saved

    def test_wasm_false_leaves_a_function_out_of_the_js_ffi_table_only(self) -> None:
        # The server decision is left out of the browser module: not in ffi.js's table (build-wasm
        # exports that table), still in every other binding's.
        from . import emit_js, emit_python
        model = load(HEADER)
        ffi = emit_js.emit(model)[emit_js.PATH]
        self.assertNotIn("inact_server_decide:", ffi)
        self.assertIn("inact_server_contact:", ffi)
        self.assertIn("inact_server_decide", "".join(emit_python.emit(model).values()))
        # Marked back in, it is in the table again.
        model = self.names_mutated('inact_server_decide = { core = "", python = "", kotlin = "", js = "", op = "", '
                                   'hand = ["shim"], wasm = false }',
                                   'inact_server_decide = { core = "", python = "", kotlin = "", js = "", op = "", '
                                   'hand = ["shim"] }')
        self.assertIn("inact_server_decide:", emit_js.emit(model)[emit_js.PATH])

    def test_wasm_false_is_refused_for_what_the_js_binding_exposes(self) -> None:
        with self.assertRaises(HeaderError) as caught:
            self.names_mutated('inact_lock = { core = "lock"', 'inact_lock = { wasm = false, core = "lock"')
        self.assertIn("inact_lock: wasm = false, yet the JS binding exposes it", str(caught.exception))
        with self.assertRaises(HeaderError) as caught:
            self.names_mutated('inact_version_number = { core = ""', 'inact_version_number = { wasm = 0, core = ""')
        self.assertIn("wasm must be true or false", str(caught.exception))

    def test_a_status_and_a_reason_reach_every_binding_from_the_header_and_the_table(self) -> None:
        # A throwaway status in the limit category and a throwaway reason: every binding's error
        # mapping and enum has them, with no hand file edited.
        header = self.mutated('    XX(INACT_E_CEILING, -18,',
                              '    XX(INACT_E_THROWAWAY, -19, "a throwaway status") \\\n    XX(INACT_E_CEILING, -18,')
        header.write_text(header.read_text().replace(
            "INACT_REASON_DEVICE_LIMIT = 23       /*", "INACT_REASON_THROWAWAY = 24,\n    INACT_REASON_DEVICE_LIMIT = 23       /*"))
        names = header.parent / "names.toml"
        names.write_text(NAMES.read_text().replace('INACT_E_CEILING = "ceiling"\n',
                                                   'INACT_E_CEILING = "ceiling"\nINACT_E_THROWAWAY = "limit"\n'))
        saved = model_module.NAMES
        model_module.NAMES = names
        try:
            model = load(header)
        finally:
            model_module.NAMES = saved
        from . import emit_errors, emit_js
        files = {**emit_errors.emit(model), **emit_js.emit(model)}
        expected = {
            emit_errors.PY_ERRORS: "Status.E_THROWAWAY: LimitError,",
            emit_errors.PY_ENUMS: "    THROWAWAY = 24",
            emit_errors.KT_ERRORS: "Status.LIMIT, Status.THROWAWAY -> LimitException(status, text)",
            emit_errors.KT_ENUMS: "    THROWAWAY(24),",
            emit_errors.JS_ERRORS: "export class ThrowawayError extends LimitError {}",
            emit_errors.JS_ERRORS_DTS: "ThrowawayError: typeof ThrowawayError;",
            emit_errors.JS_ENUMS_DTS: "'THROWAWAY'",
            emit_js.PATH: "['INACT_E_THROWAWAY', -19, \"a throwaway status\", 'ThrowawayError'],",
        }
        for path, line in expected.items():
            self.assertIn(line, files[path], path)


    def test_nullable_is_read_from_its_annotation(self) -> None:
        info = load().structs["inact_info"]
        self.assertTrue(info.field("started_at_ms").nullable)
        self.assertFalse(info.field("now_ms").nullable)  # always holds an instant
        self.assertFalse(info.field("remaining_ms").nullable)  # INACT_NEVER is NEVER, a value

    def test_nullable_on_a_field_that_is_not_a_time_is_refused(self) -> None:
        self.refused("INACT_BOOL int32_t in_background;", "INACT_NULLABLE INACT_BOOL int32_t in_background;",
                     "in_background: INACT_NULLABLE on a field that is not")
        self.refused("INACT_BOOL int32_t in_background;", "INACT_OUT INACT_BOOL int32_t in_background;",
                     "OUT on a struct field")

    def test_a_field_override_must_name_a_field_and_a_known_key(self) -> None:
        with self.assertRaises(HeaderError) as caught:
            self.names_mutated('engine = { python = "engine_id"', 'engin = { python = "engine_id"')
        self.assertIn("inact_event.engin: the header's inact_event has no such field", str(caught.exception))
        with self.assertRaises(HeaderError) as caught:
            self.names_mutated('engine = { python = "engine_id"', 'engine = { swift = "id", python = "engine_id"')
        self.assertIn("unknown keys swift", str(caught.exception))

    def test_an_event_field_reaches_the_python_and_kotlin_views_from_the_header_alone(self) -> None:
        # A throwaway event field: the Python Event, the Kotlin NativeEvent and the JNI upcall's
        # signature and arguments have it, converted by its annotation, with no hand file edited.
        header = self.mutated("    inact_engine engine;",
                              "    inact_engine engine;\n    INACT_NULLABLE INACT_TIME_MS int64_t throwaway_ms;")
        model = load(header)
        from . import emit_kotlin, emit_python
        files = {**emit_python.emit(model), **emit_kotlin.emit(model)}
        views = files[emit_python.VIEWS_PATH]
        self.assertIn("    throwaway: Optional[timedelta]\n", views)
        self.assertIn("            throwaway=ms_to_instant(c.throwaway_ms),", views)
        # A field with a default (names.toml: required_auth) stays last, after the new one.
        self.assertLess(views.index("    throwaway: Optional"), views.index("    required_auth: Auth = Auth.NONE"))
        event = files[emit_kotlin.EVENT_PATH]
        self.assertIn("    val throwawayMs: Long?,", event)
        self.assertIn("                throwawayMs = throwawayMs.wireInstantOrNull(),", event)
        glue = files[emit_kotlin.C_PATH]
        # engine is left out of Kotlin's upcall (names.toml kotlin = ""): 5 ints, 4 longs.
        self.assertIn('#define EVENT_UPCALL_SIGNATURE "(IIIIIJJJJ)V"', glue)
        self.assertIn("(jlong)(e)->now_ms, (jlong)(e)->throwaway_ms\n", glue)

    def test_the_views_convert_each_field_by_its_kind(self) -> None:
        from . import emit_kotlin, emit_python
        model = load()
        rows = {name: (pytype, conv) for _, name, pytype, conv, _ in emit_python.view_fields(model, "inact_info")}
        self.assertEqual(rows["remaining"], ("timedelta", "ms_to_duration(c.remaining_ms)"))
        self.assertEqual(rows["started_at"], ("Optional[timedelta]", "ms_to_instant(c.started_at_ms)"))
        self.assertEqual(rows["in_background"], ("bool", "bool(c.in_background)"))
        self.assertEqual(rows["clock"], ("ClockKind", "enum_or_int(ClockKind, c.clock)"))
        info = emit_kotlin.emit(model)[emit_kotlin.INFO_PATH]
        self.assertIn("nextDeadlineAtMs = v[WireLayout.I_NEXT_DEADLINE_MS].wireInstantOrNull(),", info)
        self.assertIn('@get:JvmName("getUnlockFailures") val unlockFailures: UInt,', info)
        self.assertIn("val effectiveIdleTimeoutMillis: Long get() = effectiveIdleTimeout.toWireMs()", info)
        self.assertEqual(emit_kotlin.event_signature(model), "(IIIIIJJJ)V")

    def test_a_decision_field_reaches_the_server_view_and_its_format_from_the_header_alone(self) -> None:
        # A throwaway field of inact_decision: the server's DecisionView, its one-unpack format
        # and the dict read from the bytes have it, converted by its annotation.
        header = self.mutated("int64_t last_activity_ms;     /* as stored (coalesced)",
                              "int64_t last_activity_ms; /* as stored */\n"
                              "    INACT_NULLABLE INACT_TIME_MS int64_t throwaway_ms; /* as stored (coalesced)")
        from . import emit_python
        views = emit_python.emit(load(header))[emit_python.VIEWS_PATH]
        self.assertIn('DECISION_FORMAT = "=IiiiiIqqqqqqq"\n', views)
        self.assertIn("    throwaway_ms: Optional[int]\n", views)
        self.assertIn('        "throwaway_ms": None if throwaway_ms == _NEVER_MS else throwaway_ms,', views)
        # Today's: a flag a bool, an enum its class (a newer value stays an int), a time that is
        # not INACT_NULLABLE an int as it is.
        views = emit_python.emit(load())[emit_python.VIEWS_PATH]
        self.assertIn('        "write": write != 0,', views)
        self.assertIn('        "reason": _REASON_OF.get(reason, reason),', views)
        self.assertIn('        "now_ms": now_ms,', views)


if __name__ == "__main__":
    unittest.main()
