// The deck in the shoe, for both pages: what the shoe holds now, the deck check's result, what to do next.
//
// Everything comes from the service's deck view (GET /v1/deck, docs/api.md): its state, the count the
// shoe senses, the back, the last check, the hint and the actions callable now. Nothing here draws a
// card: a deck check names only the cards that are wrong (missing, duplicate, foreign), never the
// deck's order or any other card of it. This module renders; the pages post (each path they post to is
// a registry action of the page's role: tests/api/test_registry.py).

import { api, withAuth } from "./api.js";
import { clock, h } from "./cards.js";

export const DECK_STATES = {
  "awaiting-deck": "Empty: awaiting a deck",
  loaded: "Loaded, not checked yet",
  checked: "Checked: ready to deal",
  "in-play": "In play",
  used: "Used: release the stub",
  refused: "Refused: never dealt from",
  unknown: "Unknown",
};

/** GET /v1/deck, or null when this service has no deck view (an older one) or cannot be reached. */
export async function readDeck(role) {
  try {
    return await withAuth(role, () => api("GET", "/v1/deck"));
  } catch (exc) {
    if (exc.status === 404) return null;
    throw exc;
  }
}

/** Whether the deck view offers an action now (its ``actions`` list); the load needs an emulator too. */
export function offers(deck, name) {
  if (!deck || !Array.isArray(deck.actions) || !deck.actions.includes(name)) return false;
  return name !== "load-deck" || deck.emulator === true;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The check's named problems, one line each: the service's own words, or built from its fields. */
export function problems(check) {
  if (!check || check.ok) return [];
  if (Array.isArray(check.problems) && check.problems.length) return check.problems.map(String);
  const out = [];
  if (check.missing?.length) out.push(`missing: ${check.missing.join(", ")}`);
  if (check.duplicates?.length) out.push(`duplicate: ${check.duplicates.join(", ")}`);
  if (check.extra) out.push(plural(check.extra, "extra card"));
  if (check.foreign?.length) out.push(`foreign (another back): ${check.foreign.join(", ")}`);
  if (check.unreadable) out.push(plural(check.unreadable, "unreadable card"));
  return out.length ? out : ["the deck did not pass the check"];
}

/** One line for the last check: passed (with its count and back) or refused. */
export function checkSummary(check) {
  if (!check) return "not checked yet";
  const count = check.count === null || check.count === undefined ? "" : ` ${plural(check.count, "card")}`;
  const back = check.back ? `, ${check.back} back` : "";
  const when = check.at ? ` · ${clock(check.at)}` : "";
  const who = check.who ? ` by ${check.who}` : "";
  if (check.ok) return `Deck check passed:${count}${back}${check.checked_faces === false ? " (count only: this shoe cannot read faces)" : ""}${who}${when}`;
  return `Deck check FAILED:${count}${back}${who}${when}`;
}

/** What the shoe holds now, in a few words: "52 cards · red back" (count unknown: "count unknown"). */
export function holds(deck) {
  const parts = [deck.count === null || deck.count === undefined ? "count unknown" : plural(deck.count, "card")];
  if (deck.back) parts.push(`${deck.back} back`);
  return parts.join(" · ");
}

/** The service's hint in the dealer's words: without the API paths it names for other clients. */
export function plainHint(hint) {
  return String(hint || "").replace(/\s*\((?:[^()]*: )?POST \/v1\/[^()]*\)/g, "").replace(/:\s*POST \/v1\/\S+/g, "").trim();
}

/** The deck strip of the dealer's panel: deck number, state, what the shoe holds, the check. ``live``: a
 * round is live (Mississippi releases its stub within the round: the shoe is then empty, as it should be). */
export function deckStrip(deck, live = false) {
  const released = live && deck.state === "awaiting-deck";
  const state = released ? "In play: the stub is released" : DECK_STATES[deck.state] || deck.state;
  const bad = deck.state === "refused" || (deck.check && deck.check.ok === false);
  const good = deck.state === "checked" || deck.state === "in-play" || released;
  return h("div", { class: `deck-strip ${bad ? "bad" : good ? "ok" : "warn"}`, dataset: { deckState: deck.state } },
    h("span", { class: "deck-state" }, `Deck${deck.deck_no ? ` #${deck.deck_no}` : ""}: ${state}`),
    h("span", { class: "deck-holds" }, `In the shoe: ${holds(deck)}`),
    deck.check ? h("span", { class: `deck-check ${deck.check.ok ? "ok" : "bad"}` }, checkSummary(deck.check)) : null,
    deck.expected_back ? h("span", { class: "deck-next" }, `Next deck: ${deck.expected_back} back`) : null);
}

/** Between rounds, when the deck is not ready: the prompt (title, text, the service's hint, the check's
 * problems); the buttons are the page's, from the view's actions. */
export function deckPrompt(deck) {
  const hint = deck.hint || "";
  switch (deck.state) {
    case "awaiting-deck":
      return {
        title: "Load a shuffled deck",
        text: deck.emulator ? "The shoe is empty. This shoe is an emulator: load a shuffled deck into it with the button."
          : "The shoe is empty. Load a shuffled deck into the shoe; it is checked when the shoe senses it.",
        hint,
      };
    case "loaded":
      return { title: "Check the deck", text: `A deck is loaded (${holds(deck)}) but not checked yet.`, hint };
    case "refused":
      return { title: "Deck refused", text: "This deck is never dealt from.", hint, problems: problems(deck.check) };
    case "used":
      return { title: "Release the stub", text: `The last round's deck is still in the shoe (${holds(deck)}).`, hint };
    default:
      return { title: "Deck not ready", text: "The deck's state is not known yet: wait for the shoe.", hint };
  }
}

const SHORT_STATES = {
  "awaiting-deck": "Empty, awaiting a deck", loaded: "Loaded, not checked", checked: "Checked", "in-play": "In play",
  used: "Used", refused: "Refused", unknown: "Unknown",
};

/** The technician page's deck box: label/value rows (the backs only when the table alternates them). */
export function deckRows(deck) {
  if (!deck) return [["State", null]];
  const check = deck.check;
  const rows = [
    ["State", `${SHORT_STATES[deck.state] || deck.state}${deck.deck_no ? ` · deck #${deck.deck_no}` : ""}`],
    ["In the shoe", `${holds(deck)}${deck.emulator ? " · emulator" : ""}`],
  ];
  if (deck.backs?.length) rows.push(["Backs", `${deck.backs.join(", ")} in turn${deck.expected_back ? ` · next ${deck.expected_back}` : ""}`]);
  rows.push(["Last check", check ? `${check.ok ? "passed" : "FAILED"}${check.count === null || check.count === undefined ? "" : ` · ${plural(check.count, "card")}`}${check.back ? ` · ${check.back}` : ""}${check.who ? ` · ${check.who}` : ""}${check.at ? ` ${clock(check.at)}` : ""}` : "not checked yet"]);
  rows.push(["What to do", deck.hint]);
  return rows;
}
