"""The browser of the pages' tests: Debian's chromium with its chromium-driver, named
explicitly so selenium never downloads one.  Without them the browser tests skip, except
where the environment variable CI is set (CI installs them): there they fail."""

import os
import shutil

import pytest

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
except ImportError:                      # reported by browser_or_skip
    webdriver = None


def browser_or_skip():
    """(chromium, chromedriver) paths; skip when one is missing, fail when CI is set."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if chromium and driver and webdriver is not None:
        return chromium, driver
    missing = " and ".join(n for n, ok in (("selenium", webdriver is not None), ("chromium", chromium),
                                           ("chromedriver", driver)) if not ok)
    how = "apt-get install chromium chromium-driver" if chromium is None or driver is None else ""
    how += ("; " if how else "") + "pip install '.[test]'" if webdriver is None else ""
    message = f"{missing} not installed ({how})"
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the browser tests: {message}")
    pytest.skip(message)


def start(*arguments):
    """A headless Chromium (the caller quits it), given more command-line `arguments`."""
    chromium, driver = browser_or_skip()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,900", *arguments):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path=driver))
