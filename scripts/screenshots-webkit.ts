// WebKitGTK for scripts/screenshots.ts: MiniBrowser through WebKitWebDriver under Xvfb, as the
// browser journeys drive it (e2e/browsers/webkit.ts), plus what a screenshot needs and the
// journeys do not: a viewport of an exact size. A GTK window will not shrink to a phone's width
// (447 px here), so the X screen is made the viewport's size and MiniBrowser runs full-screen on it;
// where the page still differs, the window is sized and corrected by the difference it reads back.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { Builder, type WebDriver } from "selenium-webdriver";

export interface WebKitSession {
  driver: WebDriver;
  /** Make the page's viewport exactly `width`×`height` CSS pixels (throws when the window cannot). */
  setViewport(width: number, height: number): Promise<void>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function startDriver(port: number, screen: string): Promise<ChildProcess> {
  // Its own process group, so closing ends Xvfb, the driver and the browser together.
  const child = spawn("xvfb-run", ["-a", "-s", `-screen 0 ${screen}x24`, "WebKitWebDriver", `--port=${port}`], { stdio: ["ignore", "ignore", "pipe"], detached: true });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const end = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`WebKitWebDriver exited (${child.exitCode}): ${stderr}`);
    if (await fetch(`http://127.0.0.1:${port}/status`).then((r) => r.ok, () => false)) return child;
    if (Date.now() > end) throw new Error(`WebKitWebDriver did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A session whose X screen is `width`×`height` (the viewport it is for), MiniBrowser full-screen. */
export async function launchWebKitSession(miniBrowser: string, width: number, height: number): Promise<WebKitSession> {
  const port = await freePort();
  const child = await startDriver(port, `${width}x${height}`);
  const stop = (): void => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // already gone
    }
  };
  let driver: WebDriver;
  try {
    driver = await new Builder()
      .usingServer(`http://127.0.0.1:${port}`)
      .withCapabilities({ browserName: "MiniBrowser", "webkitgtk:browserOptions": { binary: miniBrowser, args: ["--automation", "--full-screen"] } })
      .build();
    await driver.manage().setTimeouts({ script: 300_000, pageLoad: 300_000 });
  } catch (e) {
    stop();
    throw e;
  }
  return {
    driver,
    async setViewport(width, height) {
      await driver.get("about:blank");
      const size = () => driver.executeScript<{ w: number; h: number }>("return { w: innerWidth, h: innerHeight };");
      let inner = await size();
      if (inner.w === width && inner.h === height) return;
      let rect = { width, height };
      for (let i = 0; i < 4; i++) {
        await driver.manage().window().setRect({ x: 0, y: 0, ...rect });
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
