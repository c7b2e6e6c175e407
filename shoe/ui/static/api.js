// The table API from the page: the bearer token, JSON requests, the error envelope.
//
// The token comes from the address (#token=... : a fragment never leaves the browser, and it is
// removed from the address bar at once) or from the person at the screen, and is kept in
// sessionStorage (this tab only, gone when it closes). With no tokens configured (loopback only)
// the service answers without one and nothing is asked.

import { h } from "./cards.js";

let storeKey = "shoe.token";

/** Take #token=... from the address into sessionStorage under this page's key. */
export function initToken(page) {
  storeKey = `shoe.token.${page}`;
  const match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (match) {
    const value = decodeURIComponent(match[1]).trim();
    if (value) sessionStorage.setItem(storeKey, value);
    history.replaceState(null, "", location.pathname + location.search);
  }
}

export function token() {
  return sessionStorage.getItem(storeKey);
}

/** Keep a token for this tab (a sign-in session's), or forget it (null): people.js signs in and out. */
export function setToken(value) {
  if (value) sessionStorage.setItem(storeKey, value);
  else sessionStorage.removeItem(storeKey);
}

export function authHeaders() {
  const t = token();
  return t ? { Authorization: `Bearer ${t}` } : {};
}

export class ApiError extends Error {
  constructor(status, body, fallback) {
    const error = (body && body.error) || {};
    super(error.message || fallback || `the service answered ${status}`);
    this.status = status;
    this.code = error.code || (status ? `http-${status}` : "network");
    this.rule = error.rule || null;
    this.hint = error.hint || null;
  }
}

/** A JSON request to the API; throws ApiError (status 0 when the service could not be reached). */
export async function api(method, path, body) {
  const headers = { Accept: "application/json", ...authHeaders() };
  const init = { method, headers, cache: "no-store" };
  // Every POST says application/json, body or not: the service refuses one that does not (a page of
  // another origin cannot send this type without a CORS preflight, which the service never grants).
  if (body !== undefined || method === "POST") headers["Content-Type"] = "application/json";
  if (body !== undefined) init.body = JSON.stringify(body);
  let response;
  try {
    response = await fetch(path, init);
  } catch (exc) {
    throw new ApiError(0, null, "the table service did not answer (network or service down)");
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

/** GET a text resource (metrics). */
export async function apiText(path) {
  let response;
  try {
    response = await fetch(path, { headers: authHeaders(), cache: "no-store" });
  } catch {
    throw new ApiError(0, null, "the table service did not answer (network or service down)");
  }
  if (!response.ok) {
    let data = null;
    try { data = await response.json(); } catch { data = null; }
    throw new ApiError(response.status, data);
  }
  return response.text();
}

let asking = null;

/** Ask for a token (a modal dialog); resolves once one is stored. Only one dialog at a time. */
export function askToken(role, reason) {
  if (asking) return asking;
  const input = h("input", { type: "password", id: "token-input", autocomplete: "off", required: true, minlength: 8, spellcheck: "false" });
  const dialog = h("dialog", { id: "token-dialog", "aria-labelledby": "token-title" },
    h("form", { method: "dialog" },
      h("h2", { id: "token-title" }, `${role} token`),
      h("p", {}, reason || `The table service needs the ${role.toLowerCase()}'s token.`),
      h("label", { class: "field", for: "token-input" }, "Token", input),
      h("div", { class: "buttons" }, h("button", { class: "btn step", type: "submit", value: "ok" }, "Use this token"))));
  dialog.addEventListener("cancel", (event) => event.preventDefault()); // the page cannot work without one
  document.body.append(dialog);
  asking = new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      const value = input.value.trim();
      if (value) sessionStorage.setItem(storeKey, value);
      dialog.remove();
      asking = null;
      resolve(value);
    });
  });
  dialog.showModal();
  input.focus();
  return asking;
}

/** Call fn; on 401 ask for a token and try again. */
export async function withAuth(role, fn) {
  for (;;) {
    try {
      return await fn();
    } catch (exc) {
      if (!(exc instanceof ApiError) || exc.status !== 401) throw exc;
      const had = token();
      sessionStorage.removeItem(storeKey);
      await askToken(role, had ? "That token was refused: enter a valid one." : `Enter the ${role.toLowerCase()}'s token to use this screen.`);
    }
  }
}
