// People at the display (docs/people.md): sign-in on a touch keypad (badge + PIN),
// "signed in: NAME" and sign-out, and the steps awaiting a second person's approval, each approved
// or rejected by that person signing in on this display for that one decision (their session ends
// at once). The session token is this tab's token (api.js): every call the page makes then names
// the employee, and the journal does too. Nothing here ever shows a card the round has not shown.

import { api, ApiError, setToken, token } from "./api.js";
import { h } from "./cards.js";

const POLL_MS = 2000;
let who = null; // {id, name, roles} of this tab's session, or null

/** A modal keypad: resolves {badge, pin}, or null when cancelled. */
export function keypad(title, reason) {
  const badge = h("input", { id: "badge-input", inputmode: "numeric", autocomplete: "off", required: true, maxlength: 32 });
  const pin = h("input", { id: "pin-input", type: "password", inputmode: "numeric", autocomplete: "off", required: true, maxlength: 12 });
  let target = badge;
  badge.addEventListener("focus", () => { target = badge; });
  pin.addEventListener("focus", () => { target = pin; });
  const key = (label, press) => h("button", { type: "button", class: "btn key", "data-key": label, onclick: press }, label);
  const digits = [..."123456789", "⌫", "0", "↵"].map((d) => key(d, () => {
    if (d === "⌫") target.value = target.value.slice(0, -1);
    else if (d === "↵") { if (target === badge) pin.focus(); else form.requestSubmit(); }
    else target.value += d;
  }));
  const problem = h("p", { class: "problem", role: "alert" }, reason || "");
  const form = h("form", { method: "dialog" },
    h("h2", { id: "keypad-title" }, title), problem,
    h("label", { class: "field", for: "badge-input" }, "Badge", badge),
    h("label", { class: "field", for: "pin-input" }, "PIN", pin),
    h("div", { class: "keypad", role: "group", "aria-label": "Keypad" }, ...digits),
    h("div", { class: "buttons" },
      h("button", { class: "btn", type: "submit", value: "cancel", formnovalidate: true }, "Cancel"),
      h("button", { class: "btn step", type: "submit", value: "ok" }, "Sign in")));
  const dialog = h("dialog", { id: "keypad-dialog", "aria-labelledby": "keypad-title" }, form);
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      const ok = dialog.returnValue === "ok" && badge.value && pin.value;
      dialog.remove();
      resolve(ok ? { badge: badge.value.trim(), pin: pin.value.trim() } : null);
    });
    dialog.showModal();
    badge.focus();
  });
}

/** Badge + PIN to a session: {token, employee}; asks again (saying why) until it works or is cancelled. */
async function signIn(title) {
  let reason = "";
  for (;;) {
    const typed = await keypad(title, reason);
    if (!typed) return null;
    try {
      return await api("POST", "/v1/sessions", typed);
    } catch (exc) {
      reason = exc instanceof ApiError ? exc.message : String(exc);
    }
  }
}

/** The staff bar in the top bar: who is signed in, sign in / sign out. */
export function mountStaff(box, onChange) {
  const render = () => {
    const label = who ? h("span", { id: "signed-in", class: "pill ok" }, `signed in: ${who.name}`) : null;
    const button = who
      ? h("button", { id: "sign-out", class: "btn", type: "button", onclick: out }, "Sign out")
      : h("button", { id: "sign-in", class: "btn step", type: "button", onclick: into }, "Sign in");
    box.replaceChildren(...[label, button].filter(Boolean));
  };
  const into = async () => {
    const signed = await signIn("Sign in");
    if (!signed) return;
    setToken(signed.token);
    who = signed.employee;
    render();
    onChange();
  };
  const out = async () => {
    try { await api("POST", "/v1/session/sign-out"); } catch { /* ended already */ }
    setToken(null);
    who = null;
    render();
    onChange();
  };
  const check = async () => {
    const t = token();
    if (!t || !t.startsWith("shoe_s_")) { if (who) { who = null; render(); } return; }
    try {
      who = (await api("GET", "/v1/session")).employee;
    } catch (exc) {
      if (exc instanceof ApiError && exc.status === 401) { setToken(null); who = null; onChange(); }
    }
    render();
  };
  render();
  check();
  setInterval(check, POLL_MS * 5);
}

function describeRequest(r) {
  const d = r.detail || {};
  if (r.kind === "payout") return `Seat ${d.seat}: ${(d.bets || []).map((b) => `${b.bet} ${b.hand}`).join(", ")}`;
  if (r.kind === "hand-entered-card") return `Community card ${d.index} entered by hand: ${d.card}`;
  return `Void the round (${d.cause || "other"})`;
}

/** The pending approvals panel: what waits, for whom, and Approve / Reject by a second person. */
export function mountApprovals(box, onChange) {
  let key = "";
  const decide = async (request, approve) => {
    const signed = await signIn(`${approve ? "Approve" : "Reject"}: a ${request.needs.join(" or ")} signs in`);
    if (!signed) return;
    const headers = { Authorization: `Bearer ${signed.token}`, "Content-Type": "application/json" };
    const path = `/v1/approvals/${approve ? "approve" : "reject"}`;
    const answer = await fetch(path, { method: "POST", headers, body: JSON.stringify({ id: request.id, digest: request.digest }) }); // what this display showed
    await fetch("/v1/session/sign-out", { method: "POST", headers });
    if (!answer.ok) {
      const body = await answer.json().catch(() => ({}));
      box.dataset.problem = (body.error && body.error.message) || `refused (${answer.status})`;
    } else {
      delete box.dataset.problem;
    }
    await poll();
    onChange();
  };
  const poll = async () => {
    let list = [];
    try { list = (await api("GET", "/v1/approvals")).approvals.filter((r) => r.state === "pending"); } catch { return; }
    const now = list.map((r) => r.id).join(",") + (box.dataset.problem || "");
    if (now === key) return;
    key = now;
    box.replaceChildren(...(box.dataset.problem ? [h("p", { class: "problem", role: "alert" }, box.dataset.problem)] : []),
      ...list.map((r) => h("div", { class: "approval", "data-id": r.id, role: "group", "aria-label": `Awaiting approval: ${r.kind}` },
        h("strong", {}, "Awaiting approval"),
        h("span", {}, describeRequest(r)),
        h("span", { class: "sub" }, `asked by ${r.requested_by.name}; a ${r.needs.join(" or ")} approves`),
        h("button", { class: "btn step", type: "button", onclick: () => decide(r, true) }, "Approve"),
        h("button", { class: "btn", type: "button", onclick: () => decide(r, false) }, "Reject"))));
    box.hidden = !list.length && !box.dataset.problem;
  };
  poll();
  setInterval(poll, POLL_MS);
  return poll;
}
