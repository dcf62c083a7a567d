#!/usr/bin/python3
"""The practice page in a real headless Chromium, driven through WebDriver (python3-selenium and
chromium-driver from Debian), against a player that plays on a real jackd (the Swift test
PageBrowserTests starts both and checks what the player did against what this prints).

Each step prints one JSON object on a line of its own ({"step": NAME, ...}); the test reads them.
What is pressed, dragged and clicked goes through WebDriver's input (trusted events, as a person's),
never through events the page's script could make up.

    practice_page.py URL OUTPUT_FOLDER
"""
import json
import os
import shutil
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

url, out = sys.argv[1], sys.argv[2]


def emit(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


def wait(condition, timeout=15, what="a condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise TimeoutError(f"waited {timeout} s for {what}")


options = Options()
options.add_argument("--headless=new")
options.add_argument("--no-sandbox")
options.add_argument("--disable-gpu")
options.add_argument("--disable-dev-shm-usage")
profile = tempfile.mkdtemp(prefix="repeater-chromium-")
options.add_argument(f"--user-data-dir={profile}")
options.add_argument("--window-size=1280,800")
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
js = driver.execute_script


def viewport(width, height, phone):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 2 if phone else 1, "mobile": phone})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": phone, "maxTouchPoints": 5 if phone else 1})


def status():
    return js("return window.repeaterPage.status")


def wait_status(predicate, timeout=10, what="a status"):
    return wait(lambda: (lambda s: s if s and predicate(s) else None)(status()), timeout, what)


# Columns of a canvas with anything drawn in them (the waveform), from its pixels.
DRAWN_COLUMNS = """
const canvas = document.getElementById(arguments[0]);
const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
let columns = 0;
for (let x = 0; x < canvas.width; x++) {
  for (let y = 0; y < canvas.height; y++) {
    const i = 4 * (y * canvas.width + x);
    if (data[i + 2] > 150 && data[i] < 150) { columns++; break; }  // the waveform's blue
  }
}
return [columns, canvas.width];
"""

try:
    viewport(1280, 800, False)
    started = time.time()
    driver.get(url)
    wait(lambda: js("const p = window.repeaterPage; return !!(p && p.doc && p.peaks && p.status)"), 30, "the document, peaks and status")
    wait(lambda: js(DRAWN_COLUMNS, "overview")[0] > 0, 5, "the overview drawn")
    time.sleep(0.3)
    overview, overview_width = js(DRAWN_COLUMNS, "overview")
    zoom, zoom_width = js(DRAWN_COLUMNS, "zoom")
    doc = js("return window.repeaterPage.doc")
    emit("loaded", seconds=round(time.time() - started, 2), overview_columns=overview, overview_width=overview_width,
         zoom_columns=zoom, zoom_width=zoom_width, frames=doc["frames"], sample_rate=doc["sample_rate"],
         buckets=js("return window.repeaterPage.peaks.count"), lines=len(doc["lines"]), beats=len(doc["beats"]))

    # The playhead, sampled at each animation frame for half a second: it moves between status lines.
    samples = driver.execute_async_script("""
const done = arguments[arguments.length - 1], samples = [];
function sample(now) {
  samples.push([now, Number(document.getElementById('position').dataset.frame), window.repeaterPage.status.frame]);
  if (samples.length < 30) requestAnimationFrame(sample); else done(samples);
}
requestAnimationFrame(sample);
""")
    emit("playhead", samples=samples, rate=status()["rate"], loop=[status()["a"], status()["b"]])

    # Keys: the terminal's ] and [ (speed ±5 %), timed from the key's keydown to the status that has
    # the new speed arriving in the page.
    body = driver.find_element(By.TAG_NAME, "body")
    latencies = []
    for index in range(20):
        key = "]" if index % 2 == 0 else "["
        before = status()["rate"]
        js("""
window.__timing = {};
document.addEventListener('keydown', e => { window.__timing.down = performance.now(); }, { once: true, capture: true });
const before = arguments[0];
const listener = e => {
  if (Math.abs(e.detail.rate - before) > 0.001) { window.__timing.status = performance.now(); document.removeEventListener('repeater-status', listener); }
};
document.addEventListener('repeater-status', listener);
""", before)
        ActionChains(driver).send_keys(key).perform()
        timing = wait(lambda: (lambda t: t if t and "status" in t and "down" in t else None)(js("return window.__timing")), 5, f"the status after {key}")
        latencies.append(round(timing["status"] - timing["down"], 2))
        emit("key", key=key, rate_before=before, rate_after=status()["rate"])
    emit("latency", milliseconds=latencies)

    # , and . move A by 10 ms: the frames the page shows move by 10 ms of the file.
    a_before = status()["a"]
    ActionChains(driver).send_keys(".").perform()
    moved = wait_status(lambda s: s["a"] != a_before, 5, "A moved")
    emit("nudge", a_before=a_before, a_after=moved["a"], shown=int(js("return document.getElementById('a-time').dataset.frame")))

    # The speed control: a click on the slider's track at 30 % of its length.
    slider = driver.find_element(By.ID, "speed")
    width = slider.size["width"]
    ActionChains(driver).move_to_element_with_offset(slider, int(-width / 2 + 0.3 * width), 0).click().perform()
    value = int(slider.get_attribute("value"))
    changed = wait_status(lambda s: abs(s["rate"] * 100 - value) < 0.5, 5, f"the speed {value} %")
    emit("speed", slider=value, rate=changed["rate"])

    # Drag B 80 pixels to the left on the zoomed view, in steps as a hand does.
    zoom_canvas = driver.find_element(By.ID, "zoom")
    b_x = js("""
const s = window.repeaterPage.status, canvas = document.getElementById('zoom'), box = canvas.getBoundingClientRect();
const doc = window.repeaterPage.doc;
const margin = Math.max((s.b - s.a) * 0.12, doc.sample_rate * 0.25);
const from = Math.max(0, s.a - margin), to = Math.min(doc.frames, s.b + margin);
return (s.b - from) / (to - from) * box.width;
""")
    b_before = status()["b"]
    chain = ActionChains(driver).move_to_element_with_offset(zoom_canvas, int(b_x - zoom_canvas.size["width"] / 2), 40).click_and_hold()
    for _ in range(8):
        chain.move_by_offset(-10, 0)
    chain.perform()
    during = int(js("return document.getElementById('b-time').dataset.frame"))
    ActionChains(driver).release().perform()
    shown = int(js("return document.getElementById('b-time').dataset.frame"))
    moved = wait_status(lambda s: s["b"] != b_before, 5, "B moved")
    emit("drag", b_before=b_before, shown_during=during, shown=shown, status_b=moved["b"])

    # Snapping: with `snap beat`, a dragged B lands on a beat of the map.
    Select(driver.find_element(By.ID, "snap")).select_by_visible_text("beat")
    wait_status(lambda s: s["snap"] == "beat", 5, "snap beat")
    driver.find_element(By.ID, "mapline").click()  # the focus off the select
    b_before = status()["b"]
    b_x = js("""
const s = window.repeaterPage.status, box = document.getElementById('zoom').getBoundingClientRect();
const [from, to] = [window.repeaterPage.zoomLoop[0], window.repeaterPage.zoomLoop[1]];
return (s.b - from) / (to - from) * box.width;
""")
    chain = ActionChains(driver).move_to_element_with_offset(zoom_canvas, int(b_x - zoom_canvas.size["width"] / 2), 40).click_and_hold()
    for _ in range(5):
        chain.move_by_offset(-9, 0)
    chain.release().perform()
    shown = int(js("return document.getElementById('b-time').dataset.frame"))
    moved = wait_status(lambda s: s["b"] != b_before, 5, "B moved with snapping")
    emit("snap", shown=shown, status_b=moved["b"], beats=doc["beats"])

    # A line of the list, clicked: the player goes to it.
    driver.find_element(By.CSS_SELECTOR, "#lines summary").click()
    item = driver.find_element(By.CSS_SELECTOR, "#line-list li:nth-child(3)")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", item)
    item.click()
    heard = wait_status(lambda s: s.get("line") and s["line"]["index"] == 3, 5, "line 3 heard")
    emit("line", index=heard["line"]["index"], frame=heard["frame"], shown=js("return document.getElementById('line-now').textContent"))

    # Captures: the desktop, then a phone (360 × 740 CSS pixels, twice as many device pixels).
    js("window.scrollTo(0, 0)")
    time.sleep(0.5)
    desktop = os.path.join(out, "page-desktop-1280x800.png")
    driver.save_screenshot(desktop)
    viewport(360, 740, True)
    driver.get(url)
    wait(lambda: js("const p = window.repeaterPage; return !!(p && p.doc && p.peaks && p.status)"), 20, "the page on a phone")
    time.sleep(1)
    width = js("return document.documentElement.scrollWidth")
    phone = os.path.join(out, "page-phone-360x740.png")
    driver.save_screenshot(phone)
    emit("captures", desktop=desktop, phone=phone, phone_scroll_width=width)
    errors = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    emit("console", errors=errors)
finally:
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)
