// The technician page: the shoe's identity, link, status and faults (with what to do), the deck in the
// shoe and its last check, two sets of counters side by side (the service's since it started, from
// /metrics, and the shoe's own lifetime ones, GET /v1/shoe/counters), recent events, the journal
// check, and maintenance (test dispense, clear fault), which the service refuses while a round is
// live: the buttons are disabled then, and say why. Loading and checking a deck are the dealer's.

import { api, apiText, authHeaders, askToken, initToken, withAuth } from "./api.js";
import { EventFeed } from "./events.js";
import { statusChaser } from "./status.js";
import { clock, h, money } from "./cards.js";
import { deckRows, problems, readDeck } from "./deck.js";
import { mountApprovals, mountStaff } from "./people.js";

initToken("technician");
mountStaff(document.getElementById("staff"), () => {});
mountApprovals(document.getElementById("approvals"), () => {}); // a technician confirms a hand-entered card here

const RECENT = 60;
const $ = (id) => document.getElementById(id);
const S = {
  health: null, metrics: {}, feed: "connecting", busy: false, events: [], shoeEvents: {},
  deck: null, // GET /v1/deck (null: this service has no deck view)
  shoeCounters: null, // GET /v1/shoe/counters: {shoe, read_at, counters}
  shoeCountersError: null, // why the last read failed (the last figures stay, with their time)
};

// ---- data ------------------------------------------------------------------------------------

let pending = null;
function refreshSoon() {
  if (pending) return;
  pending = setTimeout(async () => {
    pending = null;
    await Promise.all([refreshStatus(), refreshCounters(), refreshDeck()]);
  }, 120);
}

async function refreshDeck() {
  try {
    S.deck = await readDeck("Technician");
  } catch { /* idem */ }
  render();
}

let shoeReading = null;
/** The shoe's lifetime counters, asked of the shoe (not on every event: after what moves them, and each 30 s). */
function refreshShoeCounters() {
  if (shoeReading) return shoeReading;
  shoeReading = (async () => {
    try {
      S.shoeCounters = await withAuth("Technician", () => api("GET", "/v1/shoe/counters"));
      S.shoeCountersError = null;
    } catch (exc) {
      S.shoeCountersError = exc.status === 404 ? "this service cannot read them (upgrade shoed)" : exc.message;
    }
    shoeReading = null;
    render();
  })();
  return shoeReading;
}

async function refreshStatus() {
  try {
    S.health = await withAuth("Technician", () => api("GET", "/v1/status"));
  } catch { /* the connection pill says so */ }
  render();
}

async function refreshCounters() {
  try {
    S.metrics = parseMetrics(await withAuth("Technician", () => apiText("/metrics")));
  } catch { /* idem */ }
  render();
}

/** Prometheus text: {name: value} for unlabelled samples, plus sums of labelled families. */
function parseMetrics(text) {
  const out = {};
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line.trim());
    if (!m || line.startsWith("#")) continue;
    const value = Number(m[3]);
    if (m[2]) out[`${m[1]}:sum`] = (out[`${m[1]}:sum`] || 0) + value;
    else out[m[1]] = value;
  }
  return out;
}

// Until the status has caught up with a fault event, the fault list follows the event (status.js).
const chaseStatus = statusChaser(S, refreshStatus, render);

const feed = new EventFeed({
  headers: authHeaders,
  resumeFrom: async () => {
    const status = await api("GET", "/v1/status");
    const seq = status.service.journal_seq; // null while the service starts: asked again on the next try
    return seq === null || seq === undefined ? null : Math.max(0, seq - 30); // the last few events, then live
  },
  onUnauthorized: () => askToken("Technician", "Enter the technician's token to use this page."),
  onOpen: () => { refreshSoon(); refreshShoeCounters(); },
  onState: (state) => { S.feed = state; render(); },
  onEvent: (type, event) => {
    if (S.events.some((e) => e.cursor === event.cursor)) return;
    if ((type === "shoe-fault" || type === "shoe-fault-cleared") && S.feed === "live") {
      S.shoeEvents[String(event.code).toLowerCase()] = { raised: type === "shoe-fault", no: event.event_no };
      chaseStatus();
    }
    S.events.unshift(event);
    S.events.length = Math.min(S.events.length, RECENT);
    renderEvents();
    refreshSoon();
    if (/^(technician|round-closed|shoe-fault|link|service)/.test(type)) refreshShoeCounters();
  },
});

function roundLive() {
  const round = S.health?.round;
  return Boolean(round && !round.closed);
}

async function maintenance(path, body, show) {
  if (S.busy || roundLive()) return;
  S.busy = true;
  render();
  try {
    show(await withAuth("Technician", () => api("POST", path, body)), null);
  } catch (exc) {
    show(null, exc);
  } finally {
    S.busy = false;
    await Promise.all([refreshStatus(), refreshCounters(), refreshDeck(), refreshShoeCounters()]);
  }
}

function showResult(id, ok, text) {
  const box = $(id);
  box.className = `result-box ${ok ? "ok" : "bad"}`;
  box.textContent = text;
}

function problemText(exc) {
  return exc.message + (exc.hint ? ` — ${exc.hint}` : "") + (exc.rule ? ` (${exc.rule})` : "");
}

function verify() {
  maintenance("/v1/maintenance/verify-journal", {}, (result, exc) => {
    if (exc) return showResult("verify-result", false, problemText(exc));
    if (result.ok) showResult("verify-result", true, `Journal OK: ${result.checked} entries checked, the hash chain is intact.`);
    else showResult("verify-result", false, `Journal BROKEN at entry ${result.first_bad_seq}: ${result.problem}. Keep the file; call support.`);
  });
}

function dispense(event) {
  event.preventDefault();
  const stacks = Number($("stacks").value), size = Number($("size").value);
  if (!Number.isInteger(stacks) || stacks < 1 || !Number.isInteger(size) || size < 1) {
    showResult("dispense-result", false, "Enter whole numbers of stacks and cards per stack.");
    return;
  }
  maintenance("/v1/maintenance/dispense", { stacks, size }, (result, exc) => {
    if (exc) return showResult("dispense-result", false, problemText(exc));
    const parts = result.stacks.map((s) => `#${s.dispense_id}: ${s.cards} card${s.cards === 1 ? "" : "s"}${s.unreadable ? `, ${s.unreadable} unreadable` : ""}`);
    showResult("dispense-result", true, `Dispensed ${result.stacks.length} stack${result.stacks.length === 1 ? "" : "s"} (${parts.join("; ")}). Take them from the tray.`);
  });
}

function clearFault(code) {
  maintenance("/v1/maintenance/clear-fault", code ? { fault: code } : {}, (result, exc) => {
    if (exc) return showResult("dispense-result", false, problemText(exc));
    showResult("dispense-result", true, `Fault ${result.fault === "all" ? "flags" : result.fault} cleared.`);
  });
}

// ---- rendering -------------------------------------------------------------------------------

function kv(rows) {
  return rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v === null || v === undefined || v === "" ? "\u2013" : String(v))]);
}

function uptime(seconds) {
  if (seconds === undefined) return "\u2013";
  const s = Math.floor(seconds), d = Math.floor(s / 86400), hh = Math.floor((s % 86400) / 3600), mm = Math.floor((s % 3600) / 60);
  return d ? `${d} d ${hh} h` : hh ? `${hh} h ${mm} min` : `${mm} min ${s % 60} sec`;
}

// Program and firmware verification: the software identity, the firmware's verdict, an alarm waiting.
function integrityRows(integrity) {
  const program = integrity?.program, firmware = integrity?.firmware, alarm = integrity?.alarm;
  return [
    ["Program", program ? `${program.result} · release ${program.release ?? "?"} · manifest ${(program.manifest_sha256 || "none").slice(0, 16)}` : null],
    ["Firmware check", firmware ? `${firmware.verdict} · ${firmware.detail}` : null],
    ...(alarm ? [["Verification alarm", `${alarm.cause}: ${alarm.detail} (acknowledge with Clear all)`]] : []),
  ];
}

// The casino floor (docs/floor.md): how far the central copy has acknowledged this journal.
function floorRows(floor) {
  if (!floor) return [];  // no [floor] section: nothing is shipped
  const lag = floor.lag_entries ? `${floor.lag_entries} entries, ${Math.round(floor.lag_seconds)} s behind` : "caught up";
  return [
    ["Floor", `${floor.state} · ${floor.table} · ${lag}${floor.last_error ? ` · ${floor.last_error}` : ""}`],
    ...(floor.alarm ? [["Floor alarm", `${floor.alarm} (the floor's operators resolve it: docs/floor.md)`]] : []),
  ];
}

function render() {
  document.body.dataset.feed = S.feed;
  document.body.dataset.live = roundLive() ? "round" : "idle";
  const health = S.health;
  const shoe = health?.shoe, service = health?.service, status = shoe?.status, id = shoe?.identity;
  const conn = $("conn");
  conn.textContent = { live: "Live", connecting: "Connecting…", reconnecting: "Reconnecting…", unauthorized: "Token needed", stopped: "Stopped" }[S.feed];
  conn.className = `pill ${S.feed === "live" ? "ok" : S.feed === "unauthorized" ? "bad" : "warn"}`;
  $("table-info").textContent = service ? `${service.table} · shoed ${service.version}` : "Table";
  const link = $("link-pill");
  link.textContent = shoe ? `Shoe link ${shoe.link}` : "Shoe link";
  link.className = `pill ${!shoe ? "" : shoe.link === "up" ? "ok" : "bad"}`;

  $("identity").replaceChildren(...kv([
    ["Model", id ? `${id.model} · firmware ${id.firmware} · protocol ${id.protocol_version}` : null], ["Serial", id?.serial],
    ["Port", shoe?.port], ["Features", id?.capabilities?.join(", ").replace(/_/g, " ")],
    ...integrityRows(health?.integrity),
  ]));
  $("status").replaceChildren(...kv([
    ["State", status?.state], ["Cards left", status ? status.cards_remaining ?? "unknown" : null],
    ["Tray · door", status ? `${status.tray_occupied ? "occupied" : "empty"} · ${status.door_open ? "OPEN" : "closed"}` : null],
    ["Last dispense", status?.last_dispense_id], ["Boot", status?.boot_id ? `${status.boot_id} · event ${status.event_counter}` : null],
  ]));

  const live = roundLive();
  const cleared = new Set(Object.entries(S.shoeEvents).filter(([, e]) => !e.raised).map(([code]) => code));
  const faults = (status?.faults || []).filter((f) => !cleared.has(f.code));
  for (const [code, e] of Object.entries(S.shoeEvents)) {
    if (e.raised && !faults.some((f) => f.code === code)) faults.push({ code, text: "reported just now", hint: "its description follows as soon as the shoe's status is read" });
  }
  $("faults").replaceChildren(...(faults.length ? faults.map((f) => h("li", { dataset: { fault: f.code } },
    h("b", {}, `${f.code.replace(/_/g, " ")}: ${f.text}`), h("span", {}, `What to do: ${f.hint}`),
    h("button", { class: "btn quiet", type: "button", disabled: live || S.busy, "aria-label": `Clear the ${f.code.replace(/_/g, " ")} fault`, onclick: () => clearFault(f.code) }, "Clear")))
    : [h("li", { class: "none" }, status ? "No fault flags set." : "\u2013")]));

  renderCounters(service);
  renderDeck();

  $("journal").replaceChildren(...kv([["File", service?.journal], ["Last entry", service?.journal_seq], ["Service up", uptime(service?.uptime_s)],
    ...floorRows(health?.floor)]));

  const round = health?.round;
  $("maint-note").textContent = live
    ? `A round is live (${round.game}, ${round.state}): maintenance and the journal check wait until it is finished or voided.`
    : "";
  for (const button of [$("dispense"), $("clear-all"), $("verify")]) button.disabled = live || S.busy || !health;
}

// Each figure says what it counts: the service's since this shoed started, the shoe's over its life.
const SHOE_COUNTERS = [
  ["cards", "Cards dispensed"], ["stacks", "Stacks"], ["jams", "Jams"], ["misreads", "Misreads"],
  ["double_feeds", "Double feeds"], ["misfeeds", "Misfeeds"], ["power_cycles", "Power cycles"],
];

function counterRows(rows, key) {
  return rows.map(([id, name, value]) => h("div", { dataset: { [key]: id } }, h("dt", {}, name), h("dd", {}, value ?? "\u2013")));
}

function renderCounters(service) {
  const m = S.metrics;
  const counters = [
    ["Rounds", "Rounds opened", m.shoe_rounds_total], ["Cards dealt", "Cards dealt in rounds", m.shoe_cards_total],
    ["Faults", "Shoe faults", m.shoe_faults_total], ["Reconnects", "Link reconnects", m.shoe_reconnects_total],
    ["API requests", "API requests", m["shoe_api_requests_total:sum"]], ["Streams", "Open event streams", m.shoe_api_event_streams],
  ];
  $("counters").replaceChildren(...counterRows(counters, "counter"));
  $("service-counters-note").textContent = service ? `this shoed process, up ${uptime(service.uptime_s)}` : "this shoed process";
  const read = S.shoeCounters;
  const values = read?.counters || {};
  $("shoe-counters").replaceChildren(...counterRows(SHOE_COUNTERS.map(([id, name]) => [id, name, values[id]]), "shoeCounter"));
  const serial = read?.shoe ? `shoe ${read.shoe}` : "its own counters";
  $("shoe-counters-note").textContent = S.shoeCountersError
    ? `${read ? `read ${clock(read.read_at)}; ` : ""}not read now: ${S.shoeCountersError}`
    : read ? `${serial}, read from it ${clock(read.read_at)}` : "its own counters (reading…)";
}

function renderDeck() {
  $("deck").replaceChildren(...kv(deckRows(S.deck)));
  const list = problems(S.deck?.check);
  $("deck-problems").replaceChildren(...list.map((x) => h("li", {}, x)));
  $("deck-problems").hidden = !list.length;
  $("deck-box").dataset.deckState = S.deck?.state || "none";
}

const LABELS = { "round-opened": "round opened", "round-closed": "round closed", "stack-for-seat": "stack announced", "stack-dealt": "stack dealt" };

function summary(e) {
  switch (e.type) {
    case "round-opened": return `${e.game} ${e.jurisdiction}`;
    case "round-closed": return `${e.outcome}${e.cause ? ` (${e.cause})` : ""}`;
    case "stack-for-seat": return `#${e.number} for ${e.target === "seat" ? `seat ${e.seat}` : e.target}`;
    case "stack-dealt": return e.target === "seat" || e.seat ? `seat ${e.seat}` : e.target || "";
    case "decision": return `seat ${e.seat ?? "?"}${e.multiple !== undefined ? ` ${e.multiple ? `${e.multiple}×` : "fold"}` : e.record?.action ? ` ${e.record.action}` : ""}`;
    case "reveal": return `community ${e.index}`;
    case "settlement": return e.seat ? `seat ${e.seat}: ${e.outcome} ${money(e.net, true)}` : `pot to ${(e.awards || []).map((a) => `seat ${a.seat}`).join(", ")}`;
    case "shoe-fault": case "shoe-fault-cleared": return String(e.code || "").toLowerCase().replace(/_/g, " ");
    case "technician": return { "maintenance-dispense": "test dispense", "clear-fault": "fault cleared", "verify-journal": "journal check" }[e.action] || e.action || "";
    case "deck": return e.event ? `${e.event}${e.count === null || e.count === undefined ? "" : ` · ${e.count} cards`}${e.ok === false ? " · FAILED" : e.ok ? " · passed" : ""}`
      : `${e.state || ""}${e.count === null || e.count === undefined ? "" : ` · ${e.count} cards`}`;
    case "service": return e.event || "";
    case "irregularity": case "round-paused": return e.cause || "";
    default: return e.event || e.action || "";
  }
}

function renderEvents() {
  $("events").replaceChildren(...S.events.map((e) => h("li", { class: /fault|irregularity|lost|paused/.test(e.type) ? "alert" : "", dataset: { cursor: e.cursor } },
    h("time", { datetime: e.ts }, clock(e.ts)),
    h("span", {}, h("span", { class: "type" }, LABELS[e.type] || e.type), " ", summary(e)))));
}

// ---- start -----------------------------------------------------------------------------------

$("verify").addEventListener("click", verify);
$("dispense-form").addEventListener("submit", dispense);
$("clear-all").addEventListener("click", () => clearFault(null));
render();
withAuth("Technician", () => api("GET", "/v1/status")).then((status) => {
  S.health = status;
  render();
  refreshCounters();
  refreshDeck();
  refreshShoeCounters();
  feed.start();
}).catch(() => feed.start());
setInterval(() => { if (S.feed === "live") refreshSoon(); }, 5000);
setInterval(() => { if (S.feed === "live") refreshShoeCounters(); }, 30000);
