// Which browser this is, for advice only (what to turn on, where to look): never to decide what
// runs — that is feature detection's job. Page or worker (both have navigator.userAgent).

export type BrowserFamily = "chromium" | "firefox" | "safari" | "webkit" | "other";

export function browserFamily(ua: string = globalThis.navigator?.userAgent ?? ""): BrowserFamily {
  if (/Firefox\/\d/.test(ua)) return "firefox";
  if (/\b(Chrome|Chromium|CriOS|Edg)\/\d/.test(ua)) return "chromium";
  // Safari is WebKit on Apple systems; the same engine elsewhere (GNOME Web, WebKitGTK) is not Safari.
  if (/AppleWebKit\//.test(ua)) return /\b(Macintosh|iPhone|iPad|iPod)\b/.test(ua) ? "safari" : "webkit";
  return "other";
}
