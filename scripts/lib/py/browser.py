"""Headless Chromium for the browser suite (scripts/lib/browser_test.py) and the readme suite's
HTML blocks (scripts/lib/readme_html.py): the one way both start it and wait on a page.

Importing this module starts nothing; chrome() does. Both callers put scripts/lib/py on sys.path.
"""
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def chrome(*extra_args):
    """Debian's chromium, headless, driven by the system chromedriver (never a downloaded one:
    the suites set SE_OFFLINE), with the browser console kept for the no-console-error checks."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--disable-extensions", *extra_args):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait_for(predicate, timeout=10.0, what="condition"):
    """predicate()'s first truthy value, polled every 50 ms; AssertionError naming `what` after
    `timeout` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
