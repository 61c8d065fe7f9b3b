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

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

URL, SHOTS = sys.argv[1], sys.argv[2]
NO_WASM_URL = sys.argv[3] if len(sys.argv) > 3 else None   # the page served without its module
os.makedirs(SHOTS, exist_ok=True)

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--window-size=1200,900", "--no-first-run", "--disable-extensions"):
    options.add_argument(arg)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
# The system chromedriver, never a downloaded one (SE_OFFLINE is set by the suite script).
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_script_timeout(20)

results = []
console = []   # every browser console entry seen, for the no-console-error check


def collect_console():
    console.extend(driver.get_log("browser"))


def check(name):
    def wrap(fn):
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


def wait_for(predicate, timeout=10.0, what="condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


counter = [0]


def open_page(query="", new_window=True, channel=None):
    """A fresh window (its own sessionStorage) on the demo page; waits for the cold start."""
    if new_window:
        driver.switch_to.new_window("window")
    counter[0] += 1
    channel = channel or f"check-{counter[0]}-{time.time()}"
    driver.get(f"{URL}?channel={channel}{'&' + query if query else ''}")
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


@check("no_console_error")
def _():
    collect_console()
    errors = [e for e in console if e.get("level") == "SEVERE"]
    assert not errors, errors


driver.quit()
failed = sum(1 for _, e in results if e is not None)
print(f"{len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
