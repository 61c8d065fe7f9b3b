"""The readme suite's ```html blocks (issue 32), each a whole page, run in headless Chromium as
printed: served over HTTP beside node_modules/inactivity (bindings/js), as a user serves a page.

    PYTHON scripts/lib/readme_html.py URL WHERE [URL WHERE ...]    (PYTHON: the browser venv's)

What a README page must do, checked here (CONTRIBUTING.md, "README code blocks"): show the
session's state in the element with id `state`, which reaches ACTIVE (the engine loaded, the
session started); if the page has a button with id `lock`, a click on it (a trusted click from
WebDriver) shows LOCKED; and the browser console holds no error. Prints "ok WHERE" or
"FAIL WHERE: why" per page; exit status 1 when one failed.
"""
import os
import sys

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "py"))
from browser import chrome, wait_for  # noqa: E402  (scripts/lib/py/browser.py)


def state_text(driver):
    found = driver.find_elements(By.ID, "state")
    return found[0].text if found else None


def check_page(driver, url):
    driver.switch_to.new_window("window")   # a fresh sessionStorage: the cold start is 'new'
    driver.get(url)
    if state_text(driver) is None:
        raise AssertionError("the page has no element with id 'state' (a README page shows the session's state there)")
    wait_for(lambda: (state_text(driver) or "").startswith("ACTIVE"), 20,
             f"#state to show ACTIVE (it shows {state_text(driver)!r})")
    shown = [state_text(driver)]
    buttons = driver.find_elements(By.ID, "lock")
    if buttons:
        buttons[0].click()
        wait_for(lambda: (state_text(driver) or "").startswith("LOCKED"), 10,
                 f"#state to show LOCKED after a click on #lock (it shows {state_text(driver)!r})")
        shown.append(state_text(driver))
    # The browser's own request for /favicon.ico (a page without a <link rel=icon>) is no error
    # of the page's.
    errors = [e for e in driver.get_log("browser")
              if e.get("level") == "SEVERE" and "/favicon.ico " not in e.get("message", "")]
    if errors:
        raise AssertionError(f"console errors: {[e.get('message') for e in errors]}")
    return shown


def main(args):
    if len(args) < 2 or len(args) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    driver = chrome()
    failed = 0
    try:
        for url, where in zip(args[0::2], args[1::2]):
            try:
                shown = check_page(driver, url)
                print(f"ok   {where}: showed {' then '.join(map(repr, shown))}", flush=True)
            except Exception as error:  # an assertion or a WebDriver error: the page failed
                failed += 1
                print(f"FAIL {where}: {error}", flush=True)
    finally:
        driver.quit()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
