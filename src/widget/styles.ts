// The widget's styles, in its shadow root: page styles cannot reach in, these cannot leak out.
// Theming goes through CSS custom properties (they inherit across the shadow boundary) and
// ::part() names. Default colours meet WCAG AA contrast on the default background.
import { css } from "lit";

export const styles = css`
  :host {
    /* The page lays the element out (display, margin, width are its to set); what it could make
       the inside INHERIT is reset here. !important in the shadow context wins over the page's
       !important (e.g. "* { color: red !important }"). Theme with the --edge-* properties. */
    display: block;
    box-sizing: border-box;
    font-style: normal !important;
    font-variant: normal !important;
    font-weight: 400 !important;
    letter-spacing: normal !important;
    word-spacing: normal !important;
    text-transform: none !important;
    text-indent: 0 !important;
    text-shadow: none !important;
    white-space: normal !important;
    visibility: visible !important;
    cursor: auto !important;
    contain: content;
    --_accent: var(--edge-accent, #1d4ed8);
    --_accent-fg: var(--edge-accent-fg, #ffffff);
    --_bg: var(--edge-bg, #ffffff);
    --_fg: var(--edge-fg, #1f2328);
    --_muted: var(--edge-muted, #57606a);
    --_border: var(--edge-border, #d0d7de);
    --_surface: var(--edge-surface, #f6f8fa);
    --_danger: var(--edge-danger, #b42318);
    --_ok: var(--edge-ok, #1a7f37);
    --_radius: var(--edge-radius, 10px);
    --_font: var(--edge-font, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
    --_mono: var(--edge-mono-font, ui-monospace, SFMono-Regular, Menlo, Consolas, monospace);
    --_size: var(--edge-font-size, 15px);
    font-family: var(--_font) !important;
    font-size: var(--_size) !important;
    line-height: 1.45 !important;
    color: var(--_fg) !important;
    text-align: start !important;
  }
  :host([hidden]) {
    display: none !important;
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  .panel {
    display: flex;
    flex-direction: column;
    gap: 0.5em;
    background: var(--_bg);
    color: var(--_fg);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: 0.75em;
    font: inherit;
    max-width: var(--edge-max-width, 48rem);
  }
  header {
    display: flex;
    align-items: center;
    gap: 0.5em;
    flex-wrap: wrap;
  }
  h2 {
    font-size: 1.05em;
    margin: 0;
    font-weight: 600;
  }
  h3 {
    font-size: 1em;
    margin: 0 0 0.25em;
  }
  .badge {
    font-size: 0.8em;
    border: 1px solid var(--_border);
    border-radius: 999px;
    padding: 0.05em 0.6em;
    color: var(--_muted);
    background: var(--_surface);
  }
  .badge.demo {
    color: #7a4a00;
    border-color: #d4a72c;
    background: #fff8c5;
  }
  .notice {
    border: 1px solid #d4a72c;
    background: #fff8c5;
    color: #3b2300;
    border-radius: calc(var(--_radius) / 2);
    padding: 0.5em 0.75em;
  }
  .notice p {
    margin: 0 0 0.4em;
  }
  .model-file {
    display: flex;
    flex-wrap: wrap;
    gap: 0.25em 0.5em;
    align-items: center;
  }
  .model-file p {
    flex-basis: 100%;
    margin: 0;
    overflow-wrap: anywhere;
  }
  .log {
    display: flex;
    flex-direction: column;
    gap: 0.5em;
    max-height: var(--edge-max-height, 28rem);
    min-height: 3em;
    overflow-y: auto;
    padding: 0.25em;
    border-radius: calc(var(--_radius) / 2);
  }
  .empty {
    color: var(--_muted);
    margin: 0;
  }
  .msg {
    padding: 0.5em 0.75em;
    border-radius: calc(var(--_radius) / 1.5);
    max-width: 100%;
    overflow-wrap: anywhere;
  }
  .msg .text {
    white-space: pre-wrap;
  }
  .msg .who {
    display: block;
    font-size: 0.75em;
    font-weight: 600;
    color: var(--_muted);
    white-space: normal;
  }
  .user {
    align-self: flex-end;
    background: var(--_accent);
    color: var(--_accent-fg);
  }
  .user .who {
    color: var(--_accent-fg);
  }
  .assistant {
    align-self: flex-start;
    background: var(--_surface);
    border: 1px solid var(--_border);
  }
  .error {
    border: 1px solid var(--_danger);
    color: var(--_danger);
    background: var(--_bg);
  }
  .note {
    color: var(--_muted);
    font-size: 0.9em;
  }
  .card {
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) / 1.5);
    padding: 0.5em 0.75em;
    background: var(--_bg);
  }
  .card.confirm {
    border-color: var(--_accent);
    border-width: 2px;
  }
  .card .head {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5em;
    align-items: baseline;
  }
  .status {
    font-size: 0.8em;
    font-weight: 600;
    border-radius: 4px;
    padding: 0 0.4em;
    border: 1px solid currentColor;
  }
  .status.ok {
    color: var(--_ok);
  }
  .status.failed {
    color: var(--_danger);
  }
  .status.pending,
  .status.running {
    color: var(--_muted);
  }
  code,
  pre {
    font-family: var(--_mono);
    font-size: 0.85em;
  }
  pre {
    margin: 0.25em 0 0;
    padding: 0.4em 0.6em;
    background: var(--_surface);
    border-radius: 6px;
    overflow-x: auto;
    white-space: pre-wrap;
    overflow-wrap: anywhere;
    max-height: 14em;
  }
  details summary {
    cursor: pointer;
    color: var(--_muted);
    font-size: 0.85em;
  }
  .muted {
    color: var(--_muted);
    font-size: 0.85em;
  }
  .actions {
    display: flex;
    gap: 0.5em;
    margin-top: 0.5em;
  }
  form {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5em;
    align-items: center;
  }
  label {
    flex-basis: 100%;
    font-size: 0.85em;
    color: var(--_muted);
  }
  input {
    flex: 1 1 12em;
    min-width: 0;
    font: inherit;
    color: var(--_fg);
    background: var(--_bg);
    border: 1px solid var(--_muted);
    border-radius: calc(var(--_radius) / 2);
    padding: 0.45em 0.6em;
  }
  input:disabled {
    background: var(--_surface);
  }
  button {
    font: inherit;
    border-radius: calc(var(--_radius) / 2);
    padding: 0.4em 0.9em;
    border: 1px solid var(--_accent);
    background: var(--_accent);
    color: var(--_accent-fg);
    cursor: pointer;
  }
  button.secondary {
    background: var(--_bg);
    color: var(--_accent);
  }
  button:disabled {
    opacity: 0.6;
    cursor: not-allowed;
  }
  button:focus-visible,
  input:focus-visible,
  summary:focus-visible,
  .log:focus-visible {
    outline: 3px solid var(--_accent);
    outline-offset: 2px;
  }
  progress {
    width: 100%;
    accent-color: var(--_accent);
  }
  .live {
    min-height: 1.2em;
    margin: 0;
    color: var(--_muted);
    font-size: 0.85em;
  }
  .sandbox {
    position: absolute;
    width: 0;
    height: 0;
    overflow: hidden;
  }
`;
