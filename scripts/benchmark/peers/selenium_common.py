"""The Selenium side shared by peers (a) WebKitGTK and (c) headless Chromium."""
import json
import sys
import os
import time

import common

os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must not try the network


def fit_viewport(driver, width, height):
    """Resizes the window until the viewport is width x height CSS px (window chrome corrected).

    A resize takes effect a little later: the viewport is read until it stops changing, so the
    correction is never computed from the size before the resize (which once asked for a
    negative width: "Invalid width value")."""
    def settled_inner():
        inner, deadline = None, time.monotonic() + 2
        while time.monotonic() < deadline:
            now = driver.execute_script("return [window.innerWidth, window.innerHeight];")
            if now == inner:
                break
            inner = now
            time.sleep(0.05)
        return inner

    driver.set_window_size(width, height)
    for _ in range(4):
        inner = settled_inner()
        if inner == [width, height]:
            return inner
        size = driver.get_window_size()
        driver.set_window_size(max(width, size["width"] + width - inner[0]),
                               max(height, size["height"] + height - inner[1]))
    return settled_inner()


def run(arguments, make_driver):
    from selenium.common.exceptions import TimeoutException, WebDriverException

    output = common.Output(arguments.out)
    driver = make_driver()
    try:
        driver.set_page_load_timeout(arguments.timeout)
        driver.set_script_timeout(arguments.timeout)
        driver.get("about:blank")
        inner = fit_viewport(driver, arguments.width, arguments.height)
        if inner != [arguments.width, arguments.height]:
            print(f"warning: viewport is {inner}, wanted {[arguments.width, arguments.height]}", file=sys.stderr, flush=True)

        def measure():
            return json.loads(driver.execute_script(common.MEASURE_JS))

        def fonts_ready():
            driver.execute_async_script(f"({common.FONTS_WAIT_FN})(arguments[arguments.length - 1]);")

        def images_done():
            return driver.execute_script(common.IMAGES_DONE_JS)

        for page in arguments.pages:
            start = time.monotonic()
            deadline = start + arguments.timeout
            height, facts, jumps, error = None, None, None, None
            try:
                driver.get(common.file_url(page))
                if arguments.rule == "schedule":
                    height, facts, jumps = common.schedule_rule(measure, time.sleep, deadline)
                else:
                    height, facts, jumps = common.quick_rule(fonts_ready, images_done, measure, time.sleep, deadline)
            except common.Deadline as exception:
                error = str(exception)
            except TimeoutException as exception:
                error = "timeout: " + (exception.msg or "").splitlines()[0] if exception.msg else "timeout"
            except WebDriverException as exception:
                error = ((exception.msg or type(exception).__name__).splitlines() or ["webdriver error"])[0]
                try:  # a dead session cannot be reused: start a new one and go on
                    driver.execute_script("return 1;")
                except WebDriverException:
                    try:
                        driver.quit()
                    except Exception:
                        pass
                    driver = make_driver()
                    driver.set_page_load_timeout(arguments.timeout)
                    driver.set_script_timeout(arguments.timeout)
                    driver.get("about:blank")
                    fit_viewport(driver, arguments.width, arguments.height)
            output.write(page, height, time.monotonic() - start, error, facts, jumps)
    finally:
        output.close()
        try:
            driver.quit()
        except Exception:
            pass
