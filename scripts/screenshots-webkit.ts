// WebKitGTK for scripts/screenshots.ts: MiniBrowser through WebKitWebDriver under Xvfb, as the
// browser journeys drive it (e2e/browsers/webkit.ts), plus what a screenshot needs and the
// journeys do not: a viewport of an exact size. A GTK window will not shrink to a phone's width
// (447 px here), so the X screen is made the viewport's size and MiniBrowser runs full-screen on it;
// where the page still differs, the window is sized and corrected by the difference it reads back.
import type { WebDriver } from "selenium-webdriver";
import { startWebKitSession } from "../e2e/browsers/webkit.ts";

export interface WebKitSession {
  driver: WebDriver;
  /** Make the page's viewport exactly `width`×`height` CSS pixels (throws when the window cannot). */
  setViewport(width: number, height: number): Promise<void>;
  close(): Promise<void>;
}

/** A session whose X screen is `width`×`height` (the viewport it is for), MiniBrowser full-screen. */
export async function launchWebKitSession(miniBrowser: string, width: number, height: number): Promise<WebKitSession> {
  const { driver, stop } = await startWebKitSession(`${width}x${height}`, ["--full-screen"], miniBrowser);
  return {
    driver,
    async setViewport(width, height) {
      await driver.get("about:blank");
      const size = () => driver.executeScript<{ w: number; h: number }>("return { w: innerWidth, h: innerHeight };");
      let inner = await size();
      if (inner.w === width && inner.h === height) return;
      let rect = { width, height };
      for (let i = 0; i < 4; i++) {
        await driver
          .manage()
          .window()
          .setRect({ x: 0, y: 0, ...rect });
        inner = await size();
        if (inner.w === width && inner.h === height) return;
        rect = { width: rect.width + width - inner.w, height: rect.height + height - inner.h };
      }
      const got = await driver.executeScript<string>("return innerWidth + '×' + innerHeight;");
      throw new Error(`WebKit's viewport is ${got}, not ${width}×${height}`);
    },
    async close() {
      await driver.quit().catch(() => undefined);
      stop();
    },
  };
}
