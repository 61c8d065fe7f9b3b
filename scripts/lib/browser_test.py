"""The browser suite's checks (issue 25), in real headless Chromium over WebDriver.

Run by scripts/lib/test-browser with the selenium it pins. argv: the demo page's URL (served by
`python3 -m http.server` from the repository root, as a user opens it), the screenshot folder.
Prints "ok NAME" / "FAIL NAME: why" per check; exit status 1 when one failed.

Each check opens the page in a fresh window with its own BroadcastChannel name (?channel=), so
that no check's tabs join another's session. The page runs short demo timings set from the URL.
"""
import base64
import os
import sys
import time
import traceback

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "py"))
from browser import chrome, wait_for  # noqa: E402  (scripts/lib/py/browser.py)

URL, SHOTS = sys.argv[1], sys.argv[2]
NO_WASM_URL = sys.argv[3] if len(sys.argv) > 3 else None   # the page served without its module
# The page served by the demo's own server (examples/web/server.py: both ends), when given.
SERVER = sys.argv[4] if len(sys.argv) > 4 else None
STATIC_ORIGIN = "/".join(URL.split("/")[:3])
SERVER_ORIGIN = "/".join(SERVER.split("/")[:3]) if SERVER else None
os.makedirs(SHOTS, exist_ok=True)

driver = chrome("--window-size=1200,900")
driver.set_script_timeout(20)

results = []
# BROWSER_CHECKS=name,name runs only those checks (for working on one; the suite runs them all).
ONLY = set(filter(None, os.environ.get("BROWSER_CHECKS", "").split(",")))
console = []   # every browser console entry seen, for the no-console-error check


def collect_console():
    console.extend(driver.get_log("browser"))


def check(name):
    def wrap(fn):
        if ONLY and name not in ONLY:
            return fn
        try:
            fn()
            results.append((name, None))
            print(f"ok   {name}", flush=True)
        except Exception as error:  # a failed assertion or a WebDriver error: both fail the check
            results.append((name, error))
            print(f"FAIL {name}: {error!r}", flush=True)
            traceback.print_exc(limit=3)
        finally:
            try:
                collect_console()
            except Exception:
                pass
        return fn
    return wrap


counter = [0]


def open_page(query="", new_window=True, channel=None, base=None):
    """A fresh window (its own sessionStorage) on the demo page; waits for the cold start."""
    if new_window:
        driver.switch_to.new_window("window")
    counter[0] += 1
    channel = channel or f"check-{counter[0]}-{time.time()}"
    driver.get(f"{base or URL}?channel={channel}{'&' + query if query else ''}")
    wait_for(lambda: driver.execute_script("return document.body.dataset.ready || null"), 15, "the page's cold start")
    return channel


def state():
    return driver.find_element(By.ID, "state").text


def engine_state():
    return driver.execute_script("return [demo.engine.state, demo.engine.reason]")


def remaining():
    return driver.execute_script("return demo.engine.remainingMs")


def press(key):
    """A trusted key press (WebDriver's input is the user agent's, isTrusted = true)."""
    ActionChains(driver).send_keys(key).perform()


def window_state(how):
    """Minimise or restore the OS window over the DevTools protocol: the one way tried that
    changes document.visibilityState in headless Chromium and fires visibilitychange (as a user
    minimising the window does). Emulation.setFocusEmulationEnabled changes focus only;
    Page.setWebLifecycleState 'frozen' hides and freezes, but 'active' does not show again."""
    window = driver.execute_cdp_cmd("Browser.getWindowForTarget", {})["windowId"]
    driver.execute_cdp_cmd("Browser.setWindowBounds", {"windowId": window, "bounds": {"windowState": how}})


def close_extra_windows():
    handles = driver.window_handles
    for h in handles[1:]:
        driver.switch_to.window(h)
        driver.close()
    driver.switch_to.window(handles[0])


@check("page_loads_new_session")
def _():
    open_page(new_window=False)
    assert driver.execute_script("return document.body.dataset.ready") == "new"
    wait_for(lambda: state() == "ACTIVE", 5, "ACTIVE shown")
    assert driver.find_element(By.CSS_SELECTOR, "#timeline rect.band[data-state=ACTIVE]"), "no ACTIVE band drawn"
    assert "s left" in driver.find_element(By.ID, "remaining").text


@check("activity_resets_countdown")
def _():
    open_page("idle=30000&warning=20000")
    time.sleep(2.5)
    before = remaining()
    assert 26000 <= before <= 28000, f"remaining before activity {before}"
    press(Keys.SHIFT)
    after = remaining()
    assert after >= 29500, f"remaining after a key press {after} (before {before})"
    # A script's own event is PROGRAMMATIC, which the default policy does not count.
    time.sleep(1.0)
    before = remaining()
    driver.execute_script("document.body.dispatchEvent(new KeyboardEvent('keydown', {bubbles: true}))")
    after = remaining()
    assert after <= before, f"a synthetic keydown reset the countdown ({before} -> {after})"
    close_extra_windows()


@check("hidden_page_locks_after_background_timeout")
def _():
    open_page("background=1500")
    window_state("minimized")
    wait_for(lambda: driver.execute_script("return document.visibilityState") == "hidden", 5, "visibilityState hidden")
    assert driver.execute_script("return demo.engine.info().inBackground"), "the engine is not in background"
    time.sleep(2.0)
    window_state("normal")
    wait_for(lambda: driver.execute_script("return document.visibilityState") == "visible", 5, "visible again")
    assert engine_state() == ["LOCKED", "BACKGROUND_TIMEOUT"], engine_state()
    wait_for(lambda: state() == "LOCKED", 3, "LOCKED shown")
    # A background shorter than the timeout does not lock.
    driver.find_element(By.ID, "unlock").click()
    assert engine_state()[0] == "ACTIVE"
    window_state("minimized")
    time.sleep(0.5)
    window_state("normal")
    wait_for(lambda: driver.execute_script("return document.visibilityState") == "visible", 5, "visible again")
    assert engine_state()[0] == "ACTIVE", engine_state()
    close_extra_windows()


@check("reload_restores")
def _():
    open_page()
    driver.find_element(By.ID, "lock").click()
    assert engine_state() == ["LOCKED", "MANUAL_LOCK"]
    driver.refresh()
    wait_for(lambda: driver.execute_script("return document.body.dataset.ready || null"), 15, "cold start after reload")
    assert driver.execute_script("return document.body.dataset.ready") == "restored"
    # A new session would be ACTIVE: LOCKED is the stored one.
    assert engine_state()[0] == "LOCKED", engine_state()
    wait_for(lambda: state() == "LOCKED", 3, "LOCKED shown")
    close_extra_windows()


@check("two_tabs_stay_in_step")
def _():
    channel = open_page("idle=60000&warning=20000")
    first = driver.current_window_handle
    time.sleep(2.0)
    open_page("idle=60000&warning=20000", channel=channel)
    second = driver.current_window_handle
    assert driver.execute_script("return document.body.dataset.ready") == "joined"
    assert engine_state()[0] == "ACTIVE"
    joined_remaining = remaining()
    assert joined_remaining < 58500, f"the newcomer started afresh ({joined_remaining}) instead of joining"
    # Activity in the second tab counts in the first.
    driver.switch_to.window(first)
    before = remaining()
    driver.switch_to.window(second)
    press(Keys.SHIFT)
    driver.switch_to.window(first)
    wait_for(lambda: remaining() > before + 1000, 3, "the peer's activity to count")
    # Lock in the first: both lock.
    driver.find_element(By.ID, "lock").click()
    driver.switch_to.window(second)
    wait_for(lambda: engine_state()[0] == "LOCKED", 3, "the lock to reach the second tab")
    wait_for(lambda: state() == "LOCKED", 3, "LOCKED shown in the second tab")
    # Unlock in the second: both unlock.
    driver.find_element(By.ID, "unlock").click()
    driver.switch_to.window(first)
    wait_for(lambda: engine_state() == ["ACTIVE", "UNLOCKED"], 3, "the unlock to reach the first tab")
    # Closing a tab loses nothing: the first still holds the session.
    driver.switch_to.window(second)
    driver.close()
    driver.switch_to.window(first)
    assert engine_state()[0] == "ACTIVE"
    close_extra_windows()


@check("warning_dialog_keyboard_and_focus")
def _():
    open_page("idle=22500&warning=20000")
    driver.execute_script("document.getElementById('preset').focus()")
    wait_for(lambda: driver.execute_script("return document.getElementById('warning').open"), 8, "the warning dialog")
    assert engine_state()[0] == "WARNING"
    at_open = remaining()
    assert at_open >= 19000, f"only {at_open} ms to respond (WCAG 2.2.1: at least 20 s)"
    info = driver.execute_script("""
        const d = document.getElementById('warning');
        const desc = document.getElementById(d.getAttribute('aria-describedby'));
        return { role: d.getAttribute('role'), modal: d.matches(':modal'), focus: document.activeElement.id,
                 live: desc.getAttribute('aria-live'), text: desc.textContent };""")
    assert info["role"] == "alertdialog" and info["modal"], info
    assert info["focus"] == "continue", f"focus is on {info['focus']!r}, not Continue"
    assert info["live"] == "assertive" and "lock in" in info["text"], info
    time.sleep(0.6)
    driver.save_screenshot(os.path.join(SHOTS, "warning.png"))
    # A key press is not Continue: activity does not dismiss the warning under the default
    # policy. (Escape is not checked: a WebDriver Escape does not reach Chromium's dialog close
    # handling here, so the check could not fail.)
    press(Keys.SHIFT)
    time.sleep(0.3)
    assert driver.execute_script("return document.getElementById('warning').open"), "a key press closed the dialog"
    assert engine_state()[0] == "WARNING"
    press(Keys.ENTER)
    wait_for(lambda: engine_state() == ["ACTIVE", "CONTINUED"], 3, "Continue by Enter")
    assert not driver.execute_script("return document.getElementById('warning').open")
    back = driver.execute_script("return document.activeElement.id")
    assert back == "preset", f"focus went to {back!r}, not back to the preset picker"
    close_extra_windows()


@check("locked_screenshot")
def _():
    open_page("idle=6000&warning=4000")
    wait_for(lambda: engine_state()[0] == "WARNING", 5, "WARNING")
    wait_for(lambda: engine_state()[0] == "LOCKED", 8, "LOCKED by the idle timeout")
    assert engine_state() == ["LOCKED", "IDLE_TIMEOUT"], engine_state()
    wait_for(lambda: state() == "LOCKED", 3, "LOCKED shown")
    assert driver.execute_script("return document.activeElement.id") == "unlock"
    assert driver.find_elements(By.CSS_SELECTOR, "#timeline .deadline"), "no deadline flag drawn"
    time.sleep(0.6)
    driver.save_screenshot(os.path.join(SHOTS, "locked.png"))
    close_extra_windows()


@check("corrupt_stored_snapshot_expires")
def _():
    open_page()
    key = "inactivity.demo"
    saved = driver.execute_script(f"demo.session.save(); return sessionStorage.getItem('{key}')")
    raw = bytearray(base64.b64decode(saved))
    raw[len(raw) // 2] ^= 0x40   # one flipped bit: the checksum no longer matches
    for value in (base64.b64encode(bytes(raw)).decode(), "not a snapshot", ""):
        driver.execute_script(f"sessionStorage.setItem('{key}', arguments[0])", value)
        # pagehide would save the live session over it: clear the adapter's listeners first.
        driver.execute_script("demo.session.disconnect()")
        driver.refresh()
        wait_for(lambda: driver.execute_script("return document.body.dataset.ready || null"), 15, "cold start")
        assert engine_state() == ["EXPIRED", "RESTORE_FAILED"], f"{value!r}: {engine_state()}"
        wait_for(lambda: state() == "EXPIRED", 3, "EXPIRED shown")
    close_extra_windows()


@check("missing_module_is_shown_on_the_page")
def _():
    assert NO_WASM_URL, "no URL of the page without its module (argv[3])"
    collect_console()   # the checks' console so far, for no_console_error
    driver.switch_to.new_window("tab")
    driver.get(NO_WASM_URL)
    wait_for(lambda: driver.find_elements(By.ID, "load-error"), 10, "the load error on the page")
    text = driver.find_element(By.ID, "load-error").text
    assert driver.find_element(By.ID, "load-error").is_displayed(), "the error is not visible"
    for words in ("The engine did not load", "HTTP 404", "scripts/build-wasm", "npm install"):
        assert words in text, f"{words!r} not in {text!r}"
    assert state() == "NOT LOADED", state()
    driver.save_screenshot(os.path.join(SHOTS, "no-module.png"))
    driver.get_log("browser")   # its 404 and uncaught error are this check's, not a defect
    close_extra_windows()


@check("rolled_back_snapshot_keeps_the_lock")
def _():
    """Defect (a) of issue 30: a snapshot saved while ACTIVE, written back into sessionStorage
    after lock() by a same-origin script, must not restore ACTIVE on a reload with no other tab
    alive. The lock was reported to the server at once; the restore asks the server's status
    before the store shows anything."""
    open_page(base=SERVER or URL)
    key = "inactivity.demo"
    old = driver.execute_script(f"demo.session.save(); return sessionStorage.getItem('{key}')")
    assert engine_state()[0] == "ACTIVE"
    driver.find_element(By.ID, "lock").click()
    assert engine_state() == ["LOCKED", "MANUAL_LOCK"], engine_state()
    # The rollback: a pagehide listener added after connect writes the ACTIVE snapshot last.
    driver.execute_script(f"""addEventListener('pagehide', () => sessionStorage.setItem('{key}', arguments[0]));""", old)
    driver.refresh()
    wait_for(lambda: driver.execute_script("return document.body.dataset.ready || null"), 15, "cold start after reload")
    assert driver.execute_script("return document.body.dataset.ready") == "restored"
    assert engine_state()[0] == "LOCKED", f"the rolled-back snapshot undid the lock: {engine_state()}"
    shown = driver.execute_script("return demo.shown")
    assert "ACTIVE" not in shown, f"the page showed {shown} before the lock"
    close_extra_windows()


@check("store_right_at_first_evaluation_after_hidden_resume")
def _():
    """Defect (b): frozen (hidden) past the idle timeout, resumed while still hidden: the store
    says LOCKED in the first script evaluation after `resume`, as the engine does."""
    open_page("idle=3000&warning=1000&background=60000")
    driver.execute_script("""window.atResume = null;
        document.addEventListener('resume', () => {
            window.atResume = [document.visibilityState, demo.session.getSnapshot().state]; });""")
    driver.execute_cdp_cmd("Page.setWebLifecycleState", {"state": "frozen"})
    time.sleep(3.5)
    driver.execute_cdp_cmd("Page.setWebLifecycleState", {"state": "active"})
    seen = wait_for(lambda: driver.execute_script("return window.atResume"), 5, "the resume event")
    assert seen == ["hidden", "LOCKED"], f"at resume: {seen}, the engine: {engine_state()}"
    close_extra_windows()


@check("crashed_peer_is_dropped")
def _():
    """Defect (c): a visible tab that crashes (no pagehide) stops holding the session out of
    background: its peers drop it within the stated bound (peerTimeoutMs + heartbeatMs, 4 s)."""
    channel = open_page("background=1500&idle=60000&warning=20000")
    first = driver.current_window_handle
    open_page("background=1500&idle=60000&warning=20000", channel=channel)
    second = driver.current_window_handle
    assert driver.execute_script("return document.body.dataset.ready") == "joined"
    driver.switch_to.window(first)
    window_state("minimized")
    wait_for(lambda: driver.execute_script("return document.visibilityState") == "hidden", 5, "the first tab hidden")
    time.sleep(2.0)
    assert not driver.execute_script("return demo.engine.info().inBackground"), "background while a peer is visible"
    driver.switch_to.window(second)
    try:
        driver.execute_cdp_cmd("Page.crash", {})
    except Exception:
        pass   # the renderer is gone: the command has no answer
    driver.switch_to.window(first)
    crashed_at = time.monotonic()
    wait_for(lambda: driver.execute_script("return demo.engine.info().inBackground"), 8, "the crashed peer dropped")
    dropped = time.monotonic() - crashed_at
    assert dropped <= 4.5, f"dropped after {dropped:.1f} s"
    print(f"     the crashed peer dropped after {dropped:.2f} s (bound 4 s + the check's polling)", flush=True)
    wait_for(lambda: engine_state() == ["LOCKED", "BACKGROUND_TIMEOUT"], 5, "the background lock")
    window_state("normal")
    driver.switch_to.window(second)
    driver.close()
    driver.switch_to.window(first)
    close_extra_windows()


# ---- Both ends: the page served by examples/web/server.py (idle 6 s, the warning 2 s before
# it, a keepalive at most every 1 s; scripts/lib/test-browser starts it with these).
IDLE_S, KEEPALIVE_S, PRECISION_S = 6.0, 1.0, 1.0


def server_call(method, path, machine=False):
    """A request from the page (its cookies): [status, json or null]."""
    return driver.execute_async_script("""
        const [method, path, machine, done] = arguments;
        fetch(path, { method, credentials: 'include', headers: machine ? { 'Inactivity-Machine': '1' } : {} })
            .then(async (r) => done([r.status, await r.json().catch(() => null)]), (e) => done([0, String(e)]));""",
        method, path, machine)


def server_pings():
    return server_call("GET", "/api/pings")[1]["pings"]


def move_pointer(times=1):
    for i in range(times):
        ActionChains(driver).move_by_offset(3 if i % 2 == 0 else -3, 2 if i % 2 == 0 else -2).perform()


def open_server_page(query="", **kw):
    channel = open_page(query, base=SERVER, **kw)
    wait_for(lambda: engine_state()[0] == "ACTIVE", 5, "ACTIVE after the sign-in")
    ActionChains(driver).move_to_element(driver.find_element(By.TAG_NAME, "h1")).perform()
    return channel


def page_screenshot(path):
    """The whole page (both ends, the sessions, the timeline), not only the window's part."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                              "clip": {"x": 0, "y": 0, "width": 1200, "height": height, "scale": 1}})
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))


def server_check(name):
    return check(name) if SERVER else (lambda fn: fn)


@server_check("reader_stays_signed_in_through_keepalive")
def _():
    """A user reading (pointer moves, no request of theirs) for longer than the idle timeout
    stays signed in on the server: the keepalive carries the activity. The two ends' idle
    deadlines stay within the keepalive bound (interval + the server's precision)."""
    open_server_page("user=reader")
    started = time.monotonic()
    worst = 0.0
    while time.monotonic() - started < IDLE_S + 3:
        move_pointer()
        time.sleep(0.5)
        status = server_call("GET", "/inactivity/status")
        client = remaining()
        assert status[0] == 200 and status[1]["state"] in ("ACTIVE",), f"the server says {status}"
        worst = max(worst, abs(client - status[1]["idle_remaining_ms"]) / 1000)
    assert worst <= KEEPALIVE_S + PRECISION_S + 0.5, f"the ends' idle deadlines differ by {worst:.2f} s"
    # A request of the user's now: allowed, the server's session is live.
    answer = server_call("GET", "/api/data")
    assert answer[0] == 200 and "Statement" in answer[1]["statement"], answer
    pings = server_pings()
    assert 4 <= len(pings) <= (IDLE_S + 3) / KEEPALIVE_S + 2, f"{len(pings)} pings in {IDLE_S + 3} s"
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#timeline rect.ping-keepalive"), 3, "the pings drawn")
    wait_for(lambda: "left on the server" in driver.find_element(By.ID, "server-remaining").text, 3, "the server's time shown")
    page_screenshot(os.path.join(SHOTS, "both-ends.png"))
    print(f"     the ends' idle deadlines within {worst:.2f} s; {len(pings)} pings", flush=True)
    close_extra_windows()


@server_check("idle_tab_locks_on_both_ends")
def _():
    open_server_page("user=idler")
    move_pointer()
    moved = time.monotonic()
    wait_for(lambda: engine_state()[0] == "LOCKED", IDLE_S + 2, "the client's lock")
    client_locked = time.monotonic() - moved
    assert engine_state() == ["LOCKED", "IDLE_TIMEOUT"], engine_state()
    # The client merges the server's idle deadline, which its precision (activity-write
    # coalescing) puts up to 1 s earlier: both ends lock between IDLE - PRECISION and IDLE.
    wait_for(lambda: server_call("GET", "/inactivity/status")[1]["state"] == "LOCKED", KEEPALIVE_S + PRECISION_S + 1, "the server's lock")
    server_locked = time.monotonic() - moved
    assert IDLE_S - PRECISION_S - 0.3 <= client_locked <= IDLE_S + 1.0, f"the client locked after {client_locked:.1f} s"
    assert server_locked <= client_locked + KEEPALIVE_S + PRECISION_S, f"the server locked {server_locked - client_locked:.1f} s after the client"
    answer = server_call("GET", "/api/data")
    assert answer[0] == 403 and answer[1]["code"] == "inactivity.locked", answer
    print(f"     client locked at {client_locked:.1f} s, the server by {server_locked:.1f} s", flush=True)
    close_extra_windows()


@server_check("machine_poll_does_not_extend")
def _():
    open_server_page("user=poller")
    move_pointer()
    moved = time.monotonic()
    time.sleep(0.5)
    cookie = driver.get_cookie("inactivity_session")
    assert cookie, "no session cookie"
    # The page leaves (no more pings, no reports): the poll alone talks to the server.
    driver.execute_script("demo.session.disconnect()")
    answers = []
    while time.monotonic() - moved < IDLE_S + 3:
        answers.append((time.monotonic() - moved, server_call("GET", "/api/data", machine=True)[0]))
        time.sleep(1.0)
    allowed = [t for t, st in answers if st == 200]
    refused = [t for t, st in answers if st == 403]
    assert allowed and refused, answers
    assert max(allowed) < IDLE_S + 0.5 and min(refused) <= IDLE_S + PRECISION_S + 1.0, answers
    close_extra_windows()


@server_check("revoked_from_another_browser_signed_out_at_next_ping")
def _():
    # The second browser (its own cookies: another device of the same user) starts first: it
    # takes seconds, longer than the first session could stay unattended.
    other = chrome("--window-size=1200,900")
    try:
        other.get(f"{SERVER}?channel=other-{time.time()}&user=victim")
        open_server_page("user=victim")
        assert engine_state()[0] == "ACTIVE"
        # The page's status poll would find the revocation too: off, so that the ping is what does.
        driver.execute_script("demo.statusPolling = false")
        end = time.monotonic() + 10
        target = None
        while time.monotonic() < end and target is None:
            move_pointer()   # the first browser's user stays active meanwhile
            target = other.execute_script("""
                const li = [...document.querySelectorAll('#sessions li')].find((x) => !x.textContent.startsWith('this browser'));
                return li ? li.dataset.session : null;""")
            time.sleep(0.3)
        assert target is not None, "the second browser does not list the first one's session"
        # Its "Sign out" button (the list is redrawn every 3 s, so it is found and pressed at once).
        other.execute_script("document.querySelector(`#sessions li[data-session='${arguments[0]}'] button`).click()", target)
        revoked = time.monotonic()
    finally:
        other.quit()
    move_pointer()   # activity: pinged at once, or at the end of the interval under way
    wait_for(lambda: engine_state()[0] == "EXPIRED", KEEPALIVE_S + 2, "the revocation at the next ping")
    print(f"     signed out {time.monotonic() - revoked:.1f} s after the revocation", flush=True)
    assert engine_state() == ["EXPIRED", "REVOKED"], engine_state()
    last = driver.execute_script("return demo.record.pings.filter((p) => p.what === 'keepalive').at(-1)")
    assert last and last["status"] == 401, f"the last ping: {last}"
    wait_for(lambda: "REVOKED" in driver.find_element(By.ID, "expired-text").text, 3, "the reason shown")
    # The server's end on the page too (status poll back on; the list is refused once revoked).
    driver.execute_script("demo.statusPolling = true")
    wait_for(lambda: driver.find_element(By.ID, "server-state").text == "EXPIRED", 3, "the server's end shown EXPIRED")
    wait_for(lambda: not driver.find_elements(By.CSS_SELECTOR, "#sessions li"), 4, "the sessions list emptied")
    page_screenshot(os.path.join(SHOTS, "revoked.png"))
    close_extra_windows()


@server_check("two_tabs_one_ping_stream")
def _():
    channel = open_server_page("user=twotabs")
    first = driver.current_window_handle
    open_page("user=twotabs", channel=channel, base=SERVER)
    second = driver.current_window_handle
    assert driver.execute_script("return document.body.dataset.ready") == "joined"
    before = len(server_pings())
    started = time.monotonic()
    while time.monotonic() - started < 5:
        for handle in (first, second):
            driver.switch_to.window(handle)
            press(Keys.SHIFT)
            time.sleep(0.25)
    took = time.monotonic() - started
    time.sleep(0.5)
    pings = len(server_pings()) - before
    senders = []
    for handle in (first, second):
        driver.switch_to.window(handle)
        senders.append(driver.execute_script("return demo.record.pings.filter((p) => p.what === 'keepalive').length"))
    assert pings <= took / KEEPALIVE_S + 2, f"{pings} pings in {took:.1f} s: more than one stream"
    assert pings >= 3, f"only {pings} pings in {took:.1f} s"
    assert sorted(senders)[0] == 0, f"both tabs pinged: {senders}"
    print(f"     {pings} pings in {took:.1f} s, by tab: {senders}", flush=True)
    close_extra_windows()


@server_check("frozen_past_idle_resumes_locked_and_sends_nothing")
def _():
    open_server_page("user=sleeper")
    move_pointer()
    time.sleep(1.2)   # the ping for this activity answered
    driver.execute_script("""window.atResume = null;
        document.addEventListener('resume', () => { window.atResume = demo.session.getSnapshot().state; });""")
    before = server_pings()
    assert before, "no ping before the freeze"
    driver.execute_cdp_cmd("Page.setWebLifecycleState", {"state": "frozen"})
    time.sleep(IDLE_S + 1)
    driver.execute_cdp_cmd("Page.setWebLifecycleState", {"state": "active"})
    assert wait_for(lambda: driver.execute_script("return window.atResume"), 5, "resume") == "LOCKED"
    move_pointer(3)
    time.sleep(1.5)
    after = server_pings()
    assert after == before, f"pings after the resume: {after[len(before):]}"
    assert engine_state()[0] == "LOCKED"
    close_extra_windows()


@check("no_console_error")
def _():
    collect_console()
    # The page served by the static server asks /api/config once per load to learn whether its
    # server is there: that 404 is the expected answer, not an error of the page.
    def expected(entry):
        text = entry.get("message", "")
        if text.startswith(f"{STATIC_ORIGIN}/api/config - ") and " 404 " in text:
            return True
        # The server's refusals the checks provoke (a locked, revoked or idle session's requests
        # are 403/401, as the wire says); any other answer (a 400 included) is an error.
        return bool(SERVER_ORIGIN) and text.startswith(f"{SERVER_ORIGIN}/") and "Failed to load resource" in text \
            and (" 401 " in text or " 403 " in text)
    errors = [e for e in console if e.get("level") == "SEVERE" and not expected(e)]
    assert not errors, errors


driver.quit()
failed = sum(1 for _, e in results if e is not None)
print(f"{len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
