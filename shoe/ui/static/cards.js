// Rendering helpers shared by the pages: elements, playing cards, money, hand names.
// A card is only ever drawn from a code the service sent: the service filters every view, so a
// card that is not revealed yet never reaches the page (face-down cards are drawn as backs).

const SUITS = { c: ["\u2663", "clubs", false], d: ["\u2666", "diamonds", true], h: ["\u2665", "hearts", true], s: ["\u2660", "spades", false] };
const RANKS = {
  2: ["2", "two"], 3: ["3", "three"], 4: ["4", "four"], 5: ["5", "five"], 6: ["6", "six"], 7: ["7", "seven"],
  8: ["8", "eight"], 9: ["9", "nine"], T: ["10", "ten"], J: ["J", "jack"], Q: ["Q", "queen"], K: ["K", "king"], A: ["A", "ace"],
};

/** h("div", {class: "x", onclick: f}, child, "text", ...): a DOM element. */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name === "style") { // CSSOM: the page's CSP allows no inline style attribute
      for (const [key, val] of Object.entries(value)) node.style.setProperty(key, val);
    }
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function cardName(code) {
  const rank = RANKS[code[0]], suit = SUITS[code[1]];
  return rank && suit ? `${rank[1]} of ${suit[1]}` : "unknown card";
}

/** A face-up card from its code ("Qh"): the rank and suit glyph, spoken as "queen of hearts". */
export function card(code) {
  const rank = RANKS[code[0]], suit = SUITS[code[1]];
  if (!rank || !suit) return back();
  return h("span", { class: suit[2] ? "card red" : "card", role: "img", "aria-label": cardName(code), dataset: { card: code } },
    h("span", { class: "rank", "aria-hidden": "true" }, rank[0]),
    h("span", { class: "suit", "aria-hidden": "true" }, suit[0]));
}

/** A face-down card: nothing of its identity is on the page. */
export function back() {
  return h("span", { class: "card back", role: "img", "aria-label": "face-down card" });
}

export function placeholder(label = "no card yet") {
  return h("span", { class: "card placeholder", role: "img", "aria-label": label });
}

/** Cents as dollars: 1000 -> "$10", 1250 -> "$12.50"; signed: "+$10" / "\u2212$10". */
export function money(cents, signed = false) {
  if (cents === null || cents === undefined) return "\u2013";
  const abs = Math.abs(cents);
  const text = "$" + (abs % 100 === 0 ? String(abs / 100) : (abs / 100).toFixed(2)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  if (!signed) return cents < 0 ? "\u2212" + text : text;
  return (cents > 0 ? "+" : cents < 0 ? "\u2212" : "\u00b1") + text;
}

/** Dollars typed by a person ("12.5", "$12.50") as cents, or null. */
export function cents(text) {
  const clean = String(text ?? "").trim().replace(/^\$/, "").replace(/,/g, "");
  if (!/^\d+(\.\d{1,2})?$/.test(clean)) return null;
  return Math.round(Number(clean) * 100);
}

const HANDS = {
  "royal-flush": "Royal flush", "straight-flush": "Straight flush", "four-of-a-kind": "Four of a kind",
  "full-house": "Full house", flush: "Flush", straight: "Straight", "three-of-a-kind": "Three of a kind",
  "two-pair": "Two pair", pair: "Pair", "high-card": "High card",
  "pair-jacks-or-better": "Pair, jacks or better", "pair-6s-to-10s": "Pair, sixes to tens",
};

/** A hand category or paytable line for people ("pair-6s-to-10s" -> "Pair, sixes to tens"). */
export function handName(name) {
  if (!name) return "";
  return HANDS[name] || name.replace(/-/g, " ").replace(/^./, (c) => c.toUpperCase());
}

const ORDINALS = { 3: "3rd", 4: "4th", 5: "5th", 6: "6th", 7: "7th" };
export function streetName(n) {
  return `${ORDINALS[n] || n} street`;
}

export function clock(ts) {
  const d = ts ? new Date(ts) : new Date();
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleTimeString([], { hour12: false });
}
