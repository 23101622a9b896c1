// The service worker (vite-plugin-pwa, Workbox, registerType "prompt"): it precaches the app
// shell, the JS chunks, the examples and Pyodide's files, so after one online visit the page
// reloads and runs tools offline. A new deployment shows a small "New version available" bar;
// nothing reloads by itself. Not registered under ?debug (test pages measure the runner alone)
// or ?nosw.
import { registerSW } from "virtual:pwa-register";
import { h } from "./dom.ts";

export function setupServiceWorker(): void {
  const params = new URLSearchParams(location.search);
  if (params.has("debug") || params.has("nosw") || !("serviceWorker" in navigator)) return;
  const bar = h("div", { id: "update-bar", class: "update-bar", role: "alert", hidden: true });
  document.body.appendChild(bar);
  const updateSW = registerSW({
    onNeedRefresh() {
      bar.replaceChildren(
        h("span", {}, "New version available."),
        h("button", { type: "button", class: "primary", onclick: () => void updateSW(true) }, "Reload"),
        h("button", { type: "button", class: "secondary", onclick: () => (bar.hidden = true) }, "Later"),
      );
      bar.hidden = false;
    },
    onOfflineReady() {
      document.body.dataset.offlineReady = "1";
      const note = document.getElementById("offline-note");
      if (note) note.textContent = "Ready to work offline: the app and the Python runner are cached.";
    },
    onRegisterError(error: unknown) {
      console.warn("service worker registration failed", error);
    },
  });
}
