// The dealer display: the table, what is due now, and a button for each action the rules allow now.
//
// The round view (GET /v1/round) is the only source of truth: every action button comes from it
// (Mississippi: next_to_decide + legal_decisions, next_reveal, next_to_settle and the state; stud:
// legal_actions and next_card), so a tap can only ask for what the rules engine allows now, and the
// service checks it again. While a request is in flight, for a moment after it, and while the event
// stream is reconnecting, every action is disabled: a double tap cannot act twice, and nothing is
// done from a stale screen. The view is re-read after each action and on every event.

import { api, ApiError, authHeaders, askToken, initToken, withAuth } from "./api.js";
import { mountApprovals, mountStaff } from "./people.js";
import { EventFeed } from "./events.js";
import { statusChaser } from "./status.js";
import { back, card, cents, h, handName, money, placeholder, streetName } from "./cards.js";
import { deckPrompt, deckStrip, holds, offers, plainHint, readDeck } from "./deck.js";

initToken("dealer");

const GUARD_MS = 300; // after an action, before the next tap counts
const $ = (id) => document.getElementById(id);
const S = {
  view: null, // the round view; null before any round
  health: null, // GET /v1/status
  deck: null, // GET /v1/deck: the deck in the shoe (null: this service has no deck view)
  feed: "connecting",
  busy: 0, // dealer requests in flight
  guard: false,
  refreshing: 0,
  stackSeat: null, // the seat of the stack announced last (stack-for-seat), while dealing
  pause: null, // the last round-paused event
  problem: null, // the last refused action (ApiError)
  firstToAct: {}, // stud: round id + street -> the first seat to act on it
  actionsKey: "",
  history: [], // recent events of the rounds, newest first (what was done, never a card)
  shoeEvents: {}, // fault code -> the shoe's event number, until the status the service holds has caught up
};

const CAUSES = {
  "bad-stack": ["A stack came out with other than two cards", "Every wager is returned. Take the cards from the tray."],
  "extra-stack": ["An extra stack came out of the shoe", "Every wager is returned."],
  "early-stack": ["A stack came out before no more bets", "Every wager is returned."],
  "unreadable-card": ["A card could not be read after the automatic re-read", "Every wager is returned; call a technician for the card."],
  "foreign-card": ["A card that is not in the loaded deck", "Every wager is returned. Remove the deck and call security."],
  "duplicate-card": ["A duplicate card", "Every wager is returned. Remove the deck and call security."],
  "community-card-exposed": ["A community card was exposed before its street", "Every wager is returned."],
  "stub-count-wrong": ["The stub count is wrong", "Every wager is returned. Remove the deck for checking."],
  "shoe-link-lost": ["The shoe link was lost during the round", "Wait: the controller reconnects to the shoe and checks every stack by itself."],
  "shoe-link-unreconciled": ["The shoe came back but does not match the journal", "Every wager is returned."],
  "table-pc-restart": ["The table computer restarted during the round", "Wait while the round is rebuilt from the journal and checked with the shoe."],
  other: ["Voided by the floor", "Every wager is returned."],
};

// ---- data ------------------------------------------------------------------------------------

let roundQueued = false;
async function refreshRound() {
  if (S.refreshing) { roundQueued = true; return; }
  S.refreshing++;
  try {
    do {
      roundQueued = false;
      const data = await withAuth("Dealer", () => api("GET", "/v1/round"));
      S.view = data ? data.round : null;
      noteFirstToAct();
      render();
    } while (roundQueued);
  } catch (exc) {
    if (!(exc instanceof ApiError) || exc.status !== 0) S.problem = exc;
  } finally {
    S.refreshing--;
    render();
  }
}

let statusBusy = null;
let statusQueued = false;
/** Re-read /v1/status; calls made while one is in flight share one more read after it. */
async function refreshStatus() {
  if (statusBusy) { statusQueued = true; return statusBusy; }
  statusBusy = (async () => {
    do {
      statusQueued = false;
      try {
        S.health = await withAuth("Dealer", () => api("GET", "/v1/status"));
      } catch { /* the feed state says when the service is unreachable */ }
    } while (statusQueued);
    statusBusy = null;
    render();
  })();
  return statusBusy;
}

let deckBusy = null;
let deckQueued = false;
/** Re-read /v1/deck (the same sharing as refreshStatus): after every event and every action. */
async function refreshDeck() {
  if (deckBusy) { deckQueued = true; return deckBusy; }
  deckBusy = (async () => {
    do {
      deckQueued = false;
      try {
        S.deck = await readDeck("Dealer");
      } catch { /* the feed state says when the service is unreachable */ }
    } while (deckQueued);
    deckBusy = null;
    render();
  })();
  return deckBusy;
}

// Until the status has caught up with a fault event, the banner comes from the event (status.js).
const chaseStatus = statusChaser(S, refreshStatus, render);

function noteFirstToAct() {
  const v = S.view;
  if (!v || v.game !== "seven-card-stud" || v.to_act === null || v.to_act === undefined || !v.street) return;
  const key = `${v.round_id}:${v.street}`;
  if (!(key in S.firstToAct)) S.firstToAct[key] = v.to_act;
}

mountStaff(document.getElementById("staff"), () => { refreshRound(); refreshDeck(); });
const pollApprovals = mountApprovals(document.getElementById("approvals"), () => { refreshRound(); refreshDeck(); });

const feed = new EventFeed({
  headers: authHeaders,
  resumeFrom: async () => {
    const status = await api("GET", "/v1/status");
    const seq = status.service.journal_seq; // null while the service starts: asked again on the next try
    return seq === null || seq === undefined ? null : Math.max(0, seq - 60); // the round's last steps for the history, then live
  },
  onUnauthorized: () => askToken("Dealer", "Enter the dealer's token to use this screen."),
  onOpen: () => { refreshRound(); refreshStatus(); refreshDeck(); },
  onState: (state) => { S.feed = state; render(); },
  onEvent: (type, event) => {
    remember(type, event);
    pollApprovals();
    if (type === "stack-for-seat") S.stackSeat = event.seat ?? null;
    if (type === "round-paused") S.pause = event;
    if (type === "round-resumed") S.pause = null;
    if (type === "round-opened") { S.pause = null; S.stackSeat = null; }
    if (type === "shoe-fault" || type === "shoe-fault-cleared") {
      S.shoeEvents[String(event.code).toLowerCase()] = { raised: type === "shoe-fault", no: event.event_no };
      chaseStatus();
    }
    if (/^(shoe-|link|round-(opened|closed|paused|resumed))/.test(type) || type === "service") refreshStatus();
    refreshRound();
    refreshDeck();
  },
});

const STEP_NAMES = {
  "round-opened": "Round opened", "no-more-bets": "No more bets", "lock-progressive": "Progressive locked",
  "chip-count": "Progressive chips counted", "release-stub": "Stub counted", "community-dealt": "Community cards down",
  "round-closed": "Round closed", irregularity: "Misdeal declared", "round-paused": "Round paused", "round-resumed": "Round resumed",
};

function describe(type, e) {
  if (type === "decision") {
    if (e.action === "decide") return `Seat ${e.seat} · ${e.multiple ? `${e.multiple}×` : "fold"}`;
    const r = e.record || {};
    return `Seat ${e.seat} · ${r.kind || "acts"}${r.amount ? ` ${money(r.amount)}` : ""}`;
  }
  if (type === "reveal") return `Community card ${e.index} revealed`;
  if (type === "settlement") return e.seat ? `Seat ${e.seat} · ${e.outcome} ${money(e.net, true)}` : "Pot awarded";
  return STEP_NAMES[type] || null;
}

function remember(type, event) {
  const text = event.round_id ? describe(type, event) : null;
  if (!text || S.history.some((x) => x.cursor === event.cursor)) return;
  const by = event.by && event.by.name ? ` · ${event.by.name}` : ""; // who did it: every entry names the employee whose command made it
  S.history.unshift({ cursor: event.cursor, round: event.round_id, text: text + by });
  S.history.length = Math.min(S.history.length, 30);
}

async function act(method, path, body) {
  if (!ready()) return;
  S.busy++;
  S.problem = null;
  render();
  try {
    await withAuth("Dealer", () => api(method, path, body));
  } catch (exc) {
    S.problem = exc;
  } finally {
    S.stackSeat = null;
    await Promise.all([refreshRound(), refreshDeck()]);
    S.busy--;
    S.guard = true;
    render();
    setTimeout(() => { S.guard = false; render(); }, GUARD_MS);
  }
}

function ready() {
  return S.busy === 0 && !S.guard && S.feed === "live";
}

// ---- what the dealer may do now --------------------------------------------------------------

const post = (path, body = {}) => () => act("POST", path, body);

function action(id, label, sub, run, { kind = "step", aria, wide = false } = {}) {
  return { id, label, sub, run, kind, aria, wide };
}

function live(v) {
  return v && !v.closed;
}

function msLockout(v) {
  return v.jurisdiction === "PA" && Object.values(v.seats).some((s) => s.side && Object.keys(s.side).includes("progressive"));
}

const STREET_OF = { "third-street": 3, "fourth-street": 4, "fifth-street": 5 };

function msPlan(v) {
  const seats = Object.keys(v.seats).length;
  const plan = { title: "", text: "", rule: "", actions: [], secondary: [] };
  const deal = (label) => action("deal", label, `${seats} stack${seats === 1 ? "" : "s"}, in seat order`, post("/v1/round/deal"), { wide: true });
  switch (v.state) {
    case "open-for-wagers":
      plan.title = "Wagers are open";
      plan.text = "When every ante is in the circle, close wagering.";
      plan.actions.push(action("no-more-bets", "No more bets", "close wagering", post("/v1/round/no-more-bets"), { wide: true }));
      break;
    case "no-more-bets":
    case "chips-verified":
      if (v.state === "no-more-bets" && msLockout(v)) {
        plan.title = "Lock the progressive";
        plan.text = "Lock out progressive wagers before the first stack.";
        plan.actions.push(action("lock-progressive", "Lock progressive", "before the first stack", post("/v1/round/progressive/lock"), { wide: true }));
      } else {
        plan.title = "Deal";
        plan.text = `One two-card stack for each wagering seat, first for seat ${v.next_stack_seat ?? "?"}.`;
        plan.actions.push(deal("Deal"));
      }
      break;
    case "progressive-locked":
      plan.title = "Count the progressive chips";
      plan.text = "Record the count before the first stack.";
      plan.actions.push(action("chip-count", "Record chip count", "progressive drop", countChips, { wide: true }));
      break;
    case "dealing-stacks":
      if (v.next_stack_seat !== null && v.next_stack_seat !== undefined) {
        plan.title = `Next stack: seat ${v.next_stack_seat}`;
        plan.text = "The deal stopped before every seat had its stack; resume it.";
        plan.actions.push(deal("Resume deal"));
      } else {
        plan.title = "Release the stub";
        plan.text = "Every seat has its stack. The shoe counts the stub; then deal the three community cards face down.";
        plan.actions.push(action("release-stub", "Release stub", "count, then community cards", post("/v1/round/release-stub"), { wide: true }));
      }
      break;
    case "community-dealt":
      plan.title = "Release the stub";
      plan.text = "The shoe counts the stub.";
      plan.actions.push(action("release-stub", "Release stub", "count the stub", post("/v1/round/release-stub"), { wide: true }));
      break;
    case "third-street":
    case "fourth-street":
    case "fifth-street": {
      const street = streetName(STREET_OF[v.state]);
      const seat = v.next_to_decide;
      if (seat !== null && seat !== undefined) {
        const ante = v.seats[String(seat)].ante;
        plan.title = `Seat ${seat} decides`;
        plan.text = `${street} · ante ${money(ante)} · bet 1×, 2× or 3× the ante, or fold`;
        for (const m of v.legal_decisions) {
          if (m === 0) plan.actions.push(action(`decide:${seat}:0`, "Fold", `seat ${seat}`, post("/v1/round/decisions", { seat, multiple: 0 }), { kind: "fold", aria: `Seat ${seat}: fold` }));
          else plan.actions.push(action(`decide:${seat}:${m}`, `${m}×`, money(ante * m), post("/v1/round/decisions", { seat, multiple: m }), { kind: `bet${m}`, aria: `Seat ${seat}: bet ${m} times the ante, ${money(ante * m)}` }));
        }
        plan.rule = "Seats decide in order, from the dealer's left.";
      } else if (v.next_reveal !== null && v.next_reveal !== undefined) {
        const index = v.next_reveal;
        plan.title = `Reveal community card ${index}`;
        plan.text = `Every live seat has decided on ${street}. Pass the card over the reader.`;
        plan.actions.push(action(`reveal:${index}`, `Reveal card ${index}`, "read by the shoe", post("/v1/round/reveal", { index }), { wide: true }));
        plan.secondary.push(action(`enter-card:${index}`, `Enter card ${index} by hand…`, "", () => enterCard(index), { kind: "quiet" }));
      }
      break;
    }
    case "settlement":
      if (v.next_to_settle !== null && v.next_to_settle !== undefined) {
        plan.title = "Settle";
        plan.text = `Every seat still in is settled in descending seat order, seat ${v.next_to_settle} first.`;
        plan.actions.push(action("settle", "Settle", "all seats", post("/v1/round/settle"), { wide: true }));
      }
      break;
    case "paused":
      plan.title = "Round paused";
      plan.text = "Nothing can be dealt or decided until the round resumes.";
      break;
    default:
      plan.title = v.state;
  }
  return plan;
}

const STUD_KIND = { fold: "fold", check: "bet1", call: "bet1", "bring-in": "bet2", complete: "bet2", bet: "bet2", raise: "bet3" };
const STUD_LABEL = { fold: "Fold", check: "Check", call: "Call", "bring-in": "Bring-in", complete: "Complete", bet: "Bet", raise: "Raise" };

function studPlan(v) {
  const plan = { title: "", text: "", rule: "", actions: [], secondary: [] };
  if (v.state === "paused") {
    plan.title = "Hand paused";
    plan.text = "Nothing can be dealt or acted on until the hand resumes.";
    return plan;
  }
  if (v.legal_actions.length) {
    const seat = v.to_act ?? v.legal_actions[0].seat;
    plan.title = `Seat ${seat} to act`;
    const first = S.firstToAct[`${v.round_id}:${v.street}`];
    plan.text = v.phase === "bring-in" ? `${streetName(3)} · seat ${v.bring_in_seat} has the lowest up card: bring-in or complete`
      : `${streetName(v.street)} · pot ${money(v.pot)}${v.street !== "3" && first ? ` · seat ${first} first to act` : ""}`;
    for (const a of v.legal_actions) {
      const amount = a.amount ? money(a.amount) : "";
      const sub = a.to && a.to !== a.amount ? `${amount} · to ${money(a.to)}` : amount || `seat ${a.seat}`;
      const aria = `Seat ${a.seat}: ${STUD_LABEL[a.action] || a.action}${a.amount ? ` ${money(a.amount)}` : ""}`;
      plan.actions.push(action(`stud:${a.seat}:${a.action}`, STUD_LABEL[a.action] || a.action, sub,
        post("/v1/round/stud-actions", a.amount === null || a.amount === undefined ? { seat: a.seat, action: a.action } : { seat: a.seat, action: a.action, amount: a.amount }),
        { kind: STUD_KIND[a.action] || "step", aria }));
    }
    plan.rule = "N.J.A.C. 13:47-20.35";
  } else if (v.next_card && v.next_card.target !== "reshuffle") {
    const street = /^deal-(\d)/.exec(v.phase);
    const name = street ? streetName(street[1]) : "the next street";
    plan.title = `Deal ${name}`;
    plan.text = street && street[1] === "3" ? "Two cards down and one up to each player, one at a time from the shoe."
      : "The shoe burns a card, then one card to each player still in.";
    plan.actions.push(action("deal", `Deal ${name}`, "from the shoe", post("/v1/round/deal"), { wide: true }));
  } else if (v.next_card) {
    plan.title = "Reshuffle the burn cards";
    plan.text = "Too few cards are left for the street (N.J.A.C. 13:47-20.35(h)). Call the floor.";
  }
  return plan;
}

/** Between rounds with a deck that is not checked: what to do with it, and only the deck actions offered now
 * (the deck view's actions; the load only on an emulator). The step the state calls for comes first. */
function deckPlan(deck) {
  const prompt = deckPrompt(deck);
  const p = { title: prompt.title, text: prompt.text, problems: prompt.problems, rule: plainHint(prompt.hint), actions: [], secondary: [] };
  const refused = deck.state === "refused", loaded = deck.state === "loaded";
  const release = action("release-stub", refused ? "Remove the refused deck" : "Release the stub", "the shoe empties: cards to the discard rack",
    post("/v1/round/release-stub"), { wide: true, kind: loaded ? "quiet" : "step" });
  const check = action("check-deck", refused ? "Check it again" : "Check the deck", "every card, before the first stack",
    post("/v1/deck/check"), { wide: true, kind: refused ? "quiet" : "step" });
  if (offers(deck, "load-deck")) p.actions.push(action("load-deck", "Load a shuffled deck", "emulator: the dealer's load", post("/v1/deck/load"), { wide: true }));
  const order = refused ? [["release-stub", release], ["check-deck", check]] : [["check-deck", check], ["release-stub", release]];
  for (const [name, step] of order) if (offers(deck, name)) p.actions.push(step);
  return p;
}

function plan() {
  const v = S.view;
  if (!live(v)) {
    const over = v ? (v.state === "void" || v.misdeal ? "Round void" : "Round complete") : null;
    if (S.deck && S.deck.state !== "checked") {
      const p = deckPlan(S.deck);
      if (over) p.text = `${over}. ${p.text}`;
      return p;
    }
    const p = { title: over || "No round", text: v ? "" : "Open a round with the players' wagers.", rule: "", actions: [], secondary: [] };
    p.actions.push(action("new-round", "New round", "enter the wagers", openRoundDialog, { wide: true }));
    return p;
  }
  const p = v.game === "seven-card-stud" ? studPlan(v) : msPlan(v);
  p.secondary.push(action("void", "Void round…", "", voidRound, { kind: "danger" }));
  return p;
}

// ---- dialogs ---------------------------------------------------------------------------------

function openRoundDialog() {
  const dialog = $("open-dialog");
  $("open-error").textContent = "";
  $("open-release").hidden = true;
  const last = localStorage.getItem("shoe.lastGame") || "mississippi-stud";
  for (const radio of dialog.querySelectorAll('input[name="game"]')) radio.checked = radio.value === last;
  syncGameFields();
  dialog.showModal();
  dialog.querySelector('input[name="game"]:checked').focus();
}

function syncGameFields() {
  const game = $("open-form").elements.game.value;
  $("ms-fields").hidden = game !== "mississippi-stud";
  $("stud-fields").hidden = game !== "seven-card-stud";
}

function buildOpenForm() {
  const antes = $("antes");
  for (let seat = 1; seat <= 6; seat++) {
    antes.append(h("label", { class: "ante", for: `ante-${seat}` }, `Seat ${seat}`,
      h("input", { id: `ante-${seat}`, name: `ante-${seat}`, inputmode: "decimal", autocomplete: "off", placeholder: "empty" })));
  }
  const studSeats = $("stud-seats");
  for (let seat = 1; seat <= 8; seat++) {
    studSeats.append(h("label", { class: "toggle" },
      h("input", { type: "checkbox", id: `player-${seat}`, name: `player-${seat}`, "aria-label": `Seat ${seat} plays` }),
      h("span", { "aria-hidden": "true" }, `Seat ${seat}`)));
  }
  const form = $("open-form");
  for (const radio of form.querySelectorAll('input[name="game"]')) radio.addEventListener("change", syncGameFields);
  $("open-cancel").addEventListener("click", () => $("open-dialog").close());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = openRoundBody();
    if (typeof body === "string") { $("open-error").textContent = body; return; }
    $("open-submit").disabled = true;
    try {
      await withAuth("Dealer", () => api("POST", "/v1/rounds", body));
      localStorage.setItem("shoe.lastGame", body.game);
      $("open-dialog").close();
      S.problem = null;
      await refreshRound();
    } catch (exc) {
      $("open-error").textContent = exc.message + (exc.hint ? `: ${exc.hint}` : "");
      // A deck not ready with cards still in the shoe (after a void): the stub can be released from here.
      $("open-release").hidden = !(exc.code === "deck-not-ready" && !/holds 0 cards/.test(exc.message));
    } finally {
      $("open-submit").disabled = false;
    }
  });
  $("open-release").addEventListener("click", async () => {
    try {
      const done = await withAuth("Dealer", () => api("POST", "/v1/round/release-stub", {}));
      $("open-error").textContent = `The shoe released ${done.count} cards. Load a shuffled deck, then open the round.`;
    } catch (exc) {
      $("open-error").textContent = exc.message + (exc.hint ? `: ${exc.hint}` : "");
    }
    $("open-release").hidden = true;
  });
}

function openRoundBody() {
  const game = $("open-form").elements.game.value;
  if (game === "mississippi-stud") {
    const seats = [];
    for (let seat = 1; seat <= 6; seat++) {
      const raw = $(`ante-${seat}`).value.trim();
      if (!raw) continue;
      const ante = cents(raw);
      if (ante === null || ante <= 0) return `Seat ${seat}: the ante must be an amount in dollars, like 10 or 12.50.`;
      seats.push({ seat, ante });
    }
    if (!seats.length) return "Enter the ante of at least one seat.";
    return { game, jurisdiction: $("jurisdiction").value, seats };
  }
  const seats = [];
  for (let seat = 1; seat <= 8; seat++) if ($(`player-${seat}`).checked) seats.push(seat);
  if (seats.length < 2) return "Pick at least two seats.";
  const table = {};
  for (const [key, id] of [["ante", "stud-ante"], ["bring_in", "stud-bring-in"], ["small_bet", "stud-small"], ["big_bet", "stud-big"]]) {
    const value = cents($(id).value);
    if (value === null) return `${$(id).parentElement.firstChild.textContent.trim()}: enter an amount in dollars.`;
    table[key] = value;
  }
  return { game, jurisdiction: "NJ", table, seats };
}

function voidRound() {
  const dialog = $("void-dialog");
  dialog.returnValue = "";
  dialog.showModal();
}

function buildVoidDialog() {
  const dialog = $("void-dialog");
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "void") act("POST", "/v1/round/void", { cause: $("void-cause").value });
  });
}

let cardIndex = null;
function enterCard(index) {
  cardIndex = index;
  const dialog = $("card-dialog");
  $("card-title").textContent = `Enter community card ${index}`;
  $("card-error").textContent = "";
  for (const input of dialog.querySelectorAll("input")) input.checked = false;
  dialog.returnValue = "";
  dialog.showModal();
}

function buildCardDialog() {
  const ranks = [["A", "ace"], ["K", "king"], ["Q", "queen"], ["J", "jack"], ["T", "10"], ["9"], ["8"], ["7"], ["6"], ["5"], ["4"], ["3"], ["2"]];
  for (const [value, spoken] of ranks) {
    $("rank-picker").append(h("label", {}, h("input", { type: "radio", name: "rank", value, "aria-label": spoken || value }),
      h("span", { "aria-hidden": "true" }, value === "T" ? "10" : value)));
  }
  for (const [value, glyph, spoken, red] of [["s", "\u2660", "spades"], ["h", "\u2665", "hearts", true], ["d", "\u2666", "diamonds", true], ["c", "\u2663", "clubs"]]) {
    $("suit-picker").append(h("label", {}, h("input", { type: "radio", name: "suit", value, "aria-label": spoken }),
      h("span", { "aria-hidden": "true", class: red ? "red" : null }, glyph)));
  }
  const form = $("card-form");
  form.addEventListener("submit", (event) => {
    if (event.submitter?.value !== "reveal") return;
    const rank = form.elements.rank.value, suit = form.elements.suit.value;
    if (!rank || !suit) { event.preventDefault(); $("card-error").textContent = "Pick a rank and a suit."; }
  });
  $("card-dialog").addEventListener("close", () => {
    if ($("card-dialog").returnValue !== "reveal") return;
    const code = form.elements.rank.value + form.elements.suit.value;
    for (const input of form.querySelectorAll("input")) input.checked = false; // nothing of it stays in the page
    act("POST", "/v1/round/reveal", { index: cardIndex, card: code });
  });
}

function countChips() {
  const dialog = $("count-dialog");
  $("count-input").value = "";
  $("count-error").textContent = "";
  dialog.returnValue = "";
  dialog.showModal();
}

function buildCountDialog() {
  const form = $("count-form");
  form.addEventListener("submit", (event) => {
    if (event.submitter?.value === "ok" && !/^\d+$/.test($("count-input").value.trim())) {
      event.preventDefault();
      $("count-error").textContent = "Enter the number of chips.";
    }
  });
  $("count-dialog").addEventListener("close", () => {
    if ($("count-dialog").returnValue === "ok") act("POST", "/v1/round/progressive/chip-count", { count: Number($("count-input").value.trim()) });
  });
}

// ---- rendering -------------------------------------------------------------------------------

function render() {
  const v = S.view;
  document.body.dataset.feed = S.feed;
  document.body.dataset.ui = ready() && S.refreshing === 0 ? "idle" : "busy";
  document.body.dataset.state = v ? `${v.round_id}:${v.state}` : "none";
  renderTop(v);
  renderBanners(v);
  renderTable(v);
  renderPanel();
}

const GAME_NAME = { "mississippi-stud": "Mississippi stud", "seven-card-stud": "Seven-card stud" };

function renderTop(v) {
  const service = S.health?.service;
  $("table-name").textContent = service ? service.table : "Table";
  $("round-info").textContent = v
    ? `${GAME_NAME[v.game] || v.game} · ${v.jurisdiction} · round …${String(v.round_id).slice(-6)} · ${v.closed ? "closed" : v.state}`
    : "No round yet";
  const conn = $("conn");
  const text = { live: "Live", connecting: "Connecting…", reconnecting: "Reconnecting…", unauthorized: "Token needed", stopped: "Stopped" }[S.feed];
  conn.textContent = text;
  conn.className = `pill ${S.feed === "live" ? "ok" : S.feed === "unauthorized" ? "bad" : "warn"}`;
  const shoe = S.health?.shoe;
  const pill = $("shoe-pill");
  if (!shoe) { pill.textContent = "Shoe"; pill.className = "pill"; return; }
  const faults = shoe.status?.faults?.length || 0;
  pill.textContent = shoe.link !== "up" ? `Shoe link ${shoe.link}` : faults ? `Shoe fault` : `Shoe ${shoe.identity?.serial || ""} ready`;
  pill.className = `pill ${shoe.link !== "up" || faults ? "bad" : "ok"}`;
}

function banner(kind, tag, what, next, extra = {}) {
  return h("div", { class: `banner ${kind}`, role: kind === "alert" ? "alert" : "status", dataset: { banner: extra.id || tag.toLowerCase() } },
    h("span", { class: "tag" }, tag),
    h("span", { class: "what" }, what, extra.rule ? h("span", { class: "rule" }, extra.rule) : null),
    h("span", { class: "next" }, next),
    extra.button || null);
}

function renderBanners(v) {
  const out = [];
  if (S.feed === "reconnecting" || S.feed === "connecting") {
    out.push(banner("warn", "Link", S.feed === "reconnecting" ? "Reconnecting to the table service…" : "Connecting to the table service…",
      "Actions are paused until this screen is back in step with the table. Do not deal by hand.", { id: "reconnecting" }));
  }
  const integrity = S.health?.integrity?.alarm; // program or firmware verification failed
  if (integrity) {
    const what = integrity.cause === "program-mismatch" ? "The table software failed verification" : "The shoe's firmware is not approved";
    out.push(banner("alert", "Verification", `${what}: no new round opens`, "Call a technician: they check it and acknowledge it.", { id: "integrity" }));
  }
  const shoe = S.health?.shoe;
  if (shoe && shoe.link !== "up") {
    out.push(banner("alert", "Shoe", `The shoe link is ${shoe.link}`, "Wait: the controller reconnects and reconciles by itself. Leave the cards where they are.", { id: "shoe-link" }));
  }
  const cleared = new Set(Object.entries(S.shoeEvents).filter(([, e]) => !e.raised).map(([code]) => code));
  const faults = (shoe?.status?.faults || []).filter((f) => !cleared.has(f.code));
  for (const fault of faults) {
    out.push(banner("alert", "Shoe fault", fault.text, fault.hint, { id: `fault-${fault.code}` }));
  }
  for (const [code, e] of Object.entries(S.shoeEvents)) {
    if (e.raised && !faults.some((f) => f.code === code)) {
      out.push(banner("alert", "Shoe fault", `The shoe reported a fault: ${code.replace(/_/g, " ")}`,
        "Stop dealing. What to do shows here as soon as the shoe's status is read.", { id: `fault-${code}` }));
    }
  }
  if (v && !v.closed && v.paused) {
    const cause = S.pause?.cause;
    const [what, next] = CAUSES[cause] || ["The round is paused", "Wait: the round resumes by itself once the shoe is reconciled, or the floor voids it."];
    out.push(banner("warn", "Paused", what, next, { id: "paused" }));
  }
  const voided = v && (v.misdeal || v.void);
  if (voided) {
    const [what, next] = CAUSES[voided.cause] || [`Round void: ${voided.cause}`, "Every wager is returned."];
    out.push(banner("alert", "Misdeal", what + (voided.detail ? ` (${voided.detail})` : ""), `${next} Then open a new round.`, { id: "misdeal" }));
  }
  if (v && !v.closed && v.game === "seven-card-stud" && v.next_card && v.next_card.target === "reshuffle") {
    out.push(banner("warn", "Floor", "The burn cards must be reshuffled for the last card", "This screen cannot do it: call the floor.", { id: "reshuffle" }));
  }
  if (S.problem) {
    const p = S.problem;
    const next = p.status === 0 ? "The action may not have been taken: the screen refreshes when the service answers again."
      : p.hint || "Nothing was changed. Follow the screen: it shows what is allowed now.";
    const ok = h("button", { class: "btn quiet", type: "button", "aria-label": "Dismiss this message", onclick: () => { S.problem = null; render(); } }, "OK");
    out.push(banner(p.status >= 500 || p.status === 0 ? "alert" : "warn", p.status === 0 ? "No answer" : "Refused", p.message, next, { id: "problem", rule: p.rule, button: ok }));
  }
  const box = $("banners");
  const key = out.map((b) => b.outerHTML).join("");
  if (box.dataset.key !== key) {
    box.replaceChildren(...out);
    box.dataset.key = key;
  }
}

// Seat centres on the felt (% of its width and height), seat 1 at the dealer's left.
const SEAT_AT = {
  6: [[12.4, 82.3], [20.9, 47.0], [39.5, 24.7], [60.5, 24.7], [79.1, 47.0], [87.6, 82.3]],
  8: [[9.4, 82.1], [9.4, 50.0], [24.5, 20.3], [41.1, 15.7], [58.9, 15.7], [75.5, 20.3], [90.6, 50.0], [90.6, 82.1]],
};

function seatPosition(n, seat) {
  const [x, y] = SEAT_AT[n][seat - 1];
  return { left: `${x}%`, top: `${y}%` };
}

function emptySeat(n, seat) {
  return h("div", { class: "seat empty", style: seatPosition(n, seat), role: "group", "aria-label": `Seat ${seat}: empty`, dataset: { seat } },
    h("span", { class: "num" }, `Seat ${seat}`), "open");
}

function renderTable(v) {
  const stud = v ? v.game === "seven-card-stud" : (localStorage.getItem("shoe.lastGame") === "seven-card-stud");
  $("felt-title").textContent = stud ? "Seven-Card Stud" : "Mississippi Stud";
  $("felt-sub").textContent = v ? `${v.jurisdiction} rules` : "";
  $("felt").className = stud ? "felt stud" : "felt ms";
  const seats = stud ? studSeats(v) : msSeats(v);
  const box = $("seats");
  box.className = stud ? "seats-8" : "seats-6";
  box.replaceChildren(...seats);
  const community = $("community");
  const pot = $("pot");
  if (stud) {
    community.replaceChildren(...(v && v.common_card ? [h("div", { class: "slot" }, card(v.common_card), "Common card")] : []));
    pot.hidden = !v;
    if (v) pot.replaceChildren(h("span", { class: "chip", "aria-hidden": "true" }), h("span", {}, `Pot ${money(v.pot)}`));
  } else {
    pot.hidden = true;
    community.replaceChildren(...(v ? [0, 1, 2].map((i) => {
      const c = v.community[i];
      const face = c ? card(c) : v.community.length ? back() : placeholder("community card not dealt yet");
      return h("div", { class: "slot" }, face, `Card ${i + 1}`);
    }) : []));
  }
  $("dealer-spot").textContent = dealerSpot(v);
}

function nextStack(v) {
  if (!v || v.closed || v.game !== "mississippi-stud") return null;
  if (S.busy && S.stackSeat !== null) return S.stackSeat; // announced by the service during the deal
  return ["no-more-bets", "chips-verified", "dealing-stacks"].includes(v.state) ? v.next_stack_seat : null;
}

function dealerSpot(v) {
  const shoe = S.health?.shoe;
  const next = nextStack(v);
  if (next !== null && next !== undefined) return `Next stack: seat ${next}`;
  if (v && v.game === "seven-card-stud" && !v.closed) return `Shoe · burns ${v.burn_count} · stub ${v.stub_remaining}`;
  const name = shoe?.identity?.serial ? `Shoe ${shoe.identity.serial}` : "Shoe";
  return S.deck ? `${name} · ${holds(S.deck)}` : name;
}

function msSeats(v) {
  const settled = {};
  for (const line of v?.settled || []) settled[line.seat] = line;
  const next = nextStack(v);
  return [1, 2, 3, 4, 5, 6].map((seat) => {
    const s = v?.seats[String(seat)];
    const style = seatPosition(6, seat);
    if (!s) return emptySeat(6, seat);
    const classes = ["seat"];
    const tags = [];
    if (!v.closed && v.next_to_decide === seat) { classes.push("deciding"); tags.push(h("span", { class: "tag deciding" }, "Deciding")); }
    if (next === seat) {
      classes.push("next-stack"); tags.push(h("span", { class: "tag next-stack" }, "Next stack"));
    }
    if (s.status === "folded" || s.status === "forfeited") { classes.push("folded"); tags.push(h("span", { class: "tag folded" }, s.status === "folded" ? "Folded" : "Forfeited")); }
    let cards = [];
    if (s.cards) cards = s.cards.map(card);
    else if (s.status === "dealt" && !v.misdeal) cards = [back(), back()];
    const wagers = [["Ante", s.ante], ["3rd", s.bets[0]], ["4th", s.bets[1]], ["5th", s.bets[2]], ...Object.entries(s.side || {})]
      .map(([name, amount]) => h("span", {}, `${name} `, h("b", {}, amount === undefined ? "\u2013" : money(amount))));
    const result = [];
    const line = settled[seat];
    const stake = s.ante + s.bets.reduce((a, b) => a + b, 0) + Object.values(s.side || {}).reduce((a, b) => a + b, 0);
    if (v.misdeal) {
      result.push(h("div", { class: "result void" }, "Void · returned"));
    } else if (line) {
      classes.push(line.outcome === "win" ? "win" : line.outcome === "lose" ? "lose" : "push");
      result.push(h("div", { class: `result ${line.outcome}` }, `${line.outcome.toUpperCase()} ${money(line.net, true)}`));
      tags.push(h("span", { class: "tag hand-name handname" }, handName(line.line || line.hand)));
    } else if (s.status === "folded" && v.closed) {
      result.push(h("div", { class: "result lose" }, `FOLD ${money(-stake, true)}`));
    }
    return h("div", { class: classes.join(" "), style, dataset: { seat }, role: "group", "aria-label": `Seat ${seat}` },
      h("span", { class: "num" }, `Seat ${seat}`),
      h("div", { class: "hand" }, cards),
      h("div", { class: "wagers grid" }, wagers),
      result,
      h("div", { class: "tags" }, tags));
  });
}

function studSeats(v) {
  const bySeat = {};
  for (const s of v?.seats || []) bySeat[s.seat] = s;
  const first = v ? S.firstToAct[`${v.round_id}:${v.street}`] : null;
  return [1, 2, 3, 4, 5, 6, 7, 8].map((seat) => {
    const s = bySeat[seat];
    const style = seatPosition(8, seat);
    if (!s) return emptySeat(8, seat);
    const classes = ["seat"];
    const tags = [];
    const firstHere = !v.closed && first === seat && v.street && v.street !== "3";
    if (!v.closed && v.to_act === seat) {
      classes.push("deciding");
      tags.push(h("span", { class: "tag deciding" }, firstHere ? "First to act" : "To act"));
    } else if (firstHere) tags.push(h("span", { class: "tag first" }, "First to act"));
    if (v.bring_in_seat === seat && v.street === "3") tags.push(h("span", { class: "tag bring-in" }, "Bring-in"));
    if (s.folded) { classes.push("folded"); tags.push(h("span", { class: "tag folded" }, "Folded")); }
    const downs = s.down ? s.down.map(card) : Array.from({ length: s.down_count }, back);
    const cards = [...downs.slice(0, 2), ...s.up.map(card), ...downs.slice(2)];
    const step = cards.length > 1 ? Math.min(4, Math.floor((94 - 28 * cards.length) / (cards.length - 1))) : 0;
    const result = [];
    const share = v.pot_shares?.[String(seat)];
    if (v.void) {
      result.push(h("div", { class: "result void" }, `Void · ${money(v.void.returned?.[String(seat)] ?? s.contributed)} back`));
    } else if (share) {
      classes.push("win");
      result.push(h("div", { class: "result win" }, `WINS ${money(share)}`));
    } else if (v.closed && !s.folded) {
      classes.push("lose");
      result.push(h("div", { class: "result lose" }, `LOSES ${money(s.contributed)}`));
    }
    if (s.category) tags.push(h("span", { class: `tag hand-name handname${share ? " winner" : ""}` }, handName(s.category)));
    return h("div", { class: classes.join(" "), style, dataset: { seat }, role: "group", "aria-label": `Seat ${seat}` },
      h("span", { class: "num" }, `Seat ${seat}`),
      h("div", { class: "hand", style: { "--step": `${step}px` } }, cards),
      h("div", { class: "wagers" }, "In pot ", h("b", {}, money(s.contributed))),
      result,
      h("div", { class: "tags" }, tags));
  });
}

function actionButton(a) {
  const classes = ["btn", a.kind];
  if (a.wide) classes.push("wide");
  return h("button", { type: "button", class: classes.join(" "), dataset: { action: a.id }, "aria-label": a.aria || null, onclick: () => { if (ready()) a.run(); } },
    a.label, a.sub ? h("small", {}, a.sub) : null);
}

function renderPanel() {
  const p = plan();
  const v = S.view;
  const prompt = [h("h2", { tabindex: "-1" }, p.title)];
  if (p.text) prompt.push(h("p", {}, p.text));
  if (p.rule) prompt.push(h("p", { class: "rule" }, p.rule));
  if (p.problems?.length) prompt.push(h("ul", { class: "deck-problems", "aria-label": "What is wrong with the deck" }, p.problems.map((x) => h("li", {}, x))));
  if (v && v.closed) prompt.push(results(v));
  const steps = progress(v);
  if (steps) prompt.push(steps);
  const promptBox = $("prompt");
  const promptKey = prompt.map((n) => n.outerHTML).join("");
  if (promptBox.dataset.key !== promptKey) { promptBox.replaceChildren(...prompt); promptBox.dataset.key = promptKey; }
  renderDeck();

  const key = [...p.actions, ...p.secondary].map((a) => `${a.id}|${a.label}|${a.sub}`).join(",");
  const actions = $("actions"), secondary = $("secondary");
  const hadFocus = document.activeElement === document.body || actions.contains(document.activeElement) || secondary.contains(document.activeElement);
  if (key !== S.actionsKey) {
    S.actionsKey = key;
    actions.replaceChildren(...p.actions.map(actionButton));
    secondary.replaceChildren(...p.secondary.map(actionButton));
  }
  const disabled = !ready();
  for (const button of [...actions.querySelectorAll("button"), ...secondary.querySelectorAll("button")]) button.disabled = disabled;
  // Keyboard flow: when the focused action went away, focus the prompt (never an action: Enter must not act twice).
  const focused = document.activeElement;
  if (hadFocus && (!focused || focused === document.body || focused.disabled) && !document.querySelector("dialog[open]")) {
    promptBox.querySelector("h2")?.focus({ preventScroll: true });
  }
  renderHistory(v);
}

function renderDeck() {
  const box = $("deck");
  const strip = S.deck ? [deckStrip(S.deck, live(S.view))] : [];
  const key = strip.map((n) => n.outerHTML).join("");
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren(...strip);
  box.hidden = !strip.length;
}

function renderHistory(v) {
  const items = v ? S.history.filter((x) => x.round === v.round_id).slice(0, 6) : [];
  const box = $("history");
  const key = items.map((x) => x.cursor).join(",");
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren(...items.map((x) => h("li", {}, x.text)));
  box.hidden = !items.length;
}

const MS_STEPS = ["Wagers", "Deal", "Stub", "3rd", "4th", "5th", "Settle"];
const MS_STEP_OF = {
  "open-for-wagers": 0, "no-more-bets": 1, "progressive-locked": 1, "chips-verified": 1, "dealing-stacks": 1,
  "stub-counted": 2, "community-dealt": 2, "third-street": 3, "fourth-street": 4, "fifth-street": 5, settlement: 6, complete: 7,
};
const STUD_STEPS = ["3rd", "4th", "5th", "6th", "7th", "Showdown"];

function progress(v) {
  if (!v) return null;
  let steps, at;
  if (v.game === "seven-card-stud") {
    steps = STUD_STEPS;
    at = v.closed ? steps.length : v.phase === "showdown" ? 5 : Math.max(0, Number(v.street || 3) - 3);
  } else {
    steps = MS_STEPS;
    at = v.closed ? steps.length : MS_STEP_OF[v.state] ?? 0;
    if (v.state === "dealing-stacks" && v.next_stack_seat === null) at = 2;
  }
  if (v.misdeal || v.void) at = -1;
  return h("ol", { class: "progress", "aria-label": "Round progress" }, steps.map((name, i) =>
    h("li", { class: i < at ? "done" : i === at ? "now" : "", "aria-current": i === at ? "step" : null }, name)));
}

function results(v) {
  const rows = [];
  if (v.game === "seven-card-stud") {
    for (const s of v.seats) {
      const share = v.pot_shares?.[String(s.seat)];
      const outcome = v.void ? "void" : share ? "win" : s.folded ? "lose" : "lose";
      const text = v.void ? "void" : share ? `wins ${money(share)}` : s.folded ? "folded" : "loses";
      rows.push(h("li", {}, h("span", {}, `Seat ${s.seat}${s.category ? ` · ${handName(s.category)}` : ""}`), h("span", { class: outcome }, text)));
    }
  } else {
    const lines = {};
    for (const line of v.settled || []) lines[line.seat] = line;
    for (const [seat, s] of Object.entries(v.seats).sort((a, b) => Number(b[0]) - Number(a[0]))) {
      const line = lines[seat];
      let outcome = "void", text = "void";
      if (line) { outcome = line.outcome; text = `${line.outcome} ${money(line.net, true)}`; }
      else if (s.status === "folded") { outcome = "lose"; text = "folded"; }
      rows.push(h("li", {}, h("span", {}, `Seat ${seat}${line ? ` · ${handName(line.line || line.hand)}` : ""}`), h("span", { class: outcome }, text)));
    }
  }
  return h("ul", { class: "results", "aria-label": "Results" }, rows);
}

// ---- start -----------------------------------------------------------------------------------

buildOpenForm();
buildVoidDialog();
buildCardDialog();
buildCountDialog();
render();
withAuth("Dealer", () => api("GET", "/v1/status")).then((status) => {
  S.health = status;
  render();
  refreshDeck();
  feed.start();
}).catch(() => feed.start());
setInterval(() => { if (S.feed === "live") refreshStatus(); }, 10000);
// The count the shoe senses moves without an event (the service re-reads the shoe's status every 5 s).
setInterval(() => { if (S.feed === "live") refreshDeck(); }, 5000);
