// The service's event stream (GET /v1/events, Server-Sent Events), read with fetch.
//
// fetch rather than EventSource: EventSource cannot send the Authorization header, and it gives up
// for good on an error answer. This reader sends the bearer token and Last-Event-ID (the last
// event id read), so after a drop it gets exactly the events it missed; it reconnects by itself
// with a short backoff, after a network drop, a service restart or a stream that went silent
// (the service sends a keep-alive comment every 15 s: 40 s of nothing means the link is dead).
// Its state is one of: connecting, live, reconnecting, unauthorized, stopped.

const BACKOFF_MS = [500, 1000, 2000, 4000, 5000];
const SILENT_MS = 40000;

export class EventFeed {
  /**
   * path: the stream's path; headers(): extra request headers (the token);
   * onEvent(type, event); onState(state); onOpen(): each (re)connection, before any event (re-fetch views);
   * resumeFrom(): async, the cursor to start after when there is none (null: the service has none to give yet,
   *   as while it starts: asked again before the next attempt, never a stream from its oldest event);
   * onUnauthorized(): async, resolves once a new token is stored.
   */
  constructor({ path = "/v1/events", headers = () => ({}), onEvent, onState, onOpen, resumeFrom, onUnauthorized }) {
    Object.assign(this, { path, headers, onEvent, onState, onOpen, resumeFrom, onUnauthorized });
    this.cursor = null;
    this.state = "stopped";
    this.everLive = false;
    this.stopped = true;
    this.controller = null;
    this.wake = null;
    addEventListener("online", () => this.reconnectNow());
    addEventListener("offline", () => this.controller?.abort());
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop();
  }

  stop() {
    this.stopped = true;
    this.controller?.abort();
    this.setState("stopped");
  }

  /** Drop the current connection (if any) and connect again at once. */
  reconnectNow() {
    this.controller?.abort();
    this.wake?.();
  }

  setState(state) {
    if (state === this.state) return;
    this.state = state;
    this.onState?.(state);
  }

  sleep(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => { clearTimeout(timer); resolve(); };
    });
  }

  async loop() {
    let failures = 0;
    while (!this.stopped) {
      this.setState(this.everLive ? "reconnecting" : "connecting");
      if (this.cursor === null && this.resumeFrom) {
        let answered = false;
        try { this.cursor = await this.resumeFrom(); answered = true; } catch { /* the connection attempt tells */ }
        if (answered && this.cursor === null) { await this.sleep(250); continue; }
      }
      const outcome = await this.connectOnce();
      if (this.stopped) break;
      if (outcome === "unauthorized") {
        this.setState("unauthorized");
        await this.onUnauthorized?.();
        failures = 0;
        continue;
      }
      if (outcome === "cursor-ahead") this.cursor = null; // a replaced journal: start again from its end
      failures = outcome === "ended" ? 0 : failures + 1;
      await this.sleep(failures === 0 ? 250 : BACKOFF_MS[Math.min(failures - 1, BACKOFF_MS.length - 1)]);
    }
  }

  async connectOnce() {
    const controller = new AbortController();
    this.controller = controller;
    const headers = { Accept: "text/event-stream", ...this.headers() };
    if (this.cursor !== null) headers["Last-Event-ID"] = String(this.cursor);
    let response;
    try {
      response = await fetch(this.path, { headers, signal: controller.signal, cache: "no-store" });
    } catch {
      return "failed";
    }
    if (response.status === 401) return "unauthorized";
    if (response.status === 409) return "cursor-ahead";
    if (!response.ok || !response.body) return "failed";
    this.everLive = true;
    this.setState("live");
    try { this.onOpen?.(); } catch (exc) { console.error(exc); }
    let watchdog = setTimeout(() => controller.abort(), SILENT_MS);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const frame = { id: null, type: "", data: [] };
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        clearTimeout(watchdog);
        watchdog = setTimeout(() => controller.abort(), SILENT_MS);
        buffer += value;
        const lines = buffer.split("\n");
        buffer = lines.pop();
        for (const raw of lines) this.line(raw.replace(/\r$/, ""), frame);
      }
    } catch {
      // aborted (silence, offline, reconnectNow) or the connection broke: reconnect
    } finally {
      clearTimeout(watchdog);
      controller.abort();
    }
    return "ended";
  }

  line(line, frame) {
    if (line === "") {
      if (frame.id !== null && /^\d+$/.test(frame.id)) this.cursor = Number(frame.id);
      if (frame.data.length) {
        let event = null;
        try { event = JSON.parse(frame.data.join("\n")); } catch { event = null; }
        if (event) {
          try { this.onEvent?.(frame.type || event.type || "message", event); } catch (exc) { console.error(exc); }
        }
      }
      frame.id = null; frame.type = ""; frame.data = [];
      return;
    }
    if (line.startsWith(":")) return; // a comment: the keep-alive
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "id") frame.id = value;
    else if (field === "event") frame.type = value;
    else if (field === "data") frame.data.push(value);
  }
}
