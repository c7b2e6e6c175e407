// Catching up with the shoe's status after a fault event.
//
// The service re-reads the shoe's status only every few seconds, so a shoe-fault or
// shoe-fault-cleared event arrives before GET /v1/status shows it. Until then a page shows the fault
// from the event itself (state.shoeEvents: fault code -> {raised, no: the shoe's event number}) and
// calls the chaser, which re-reads the status each second until its event counter has reached every
// event noted (or 15 tries), then drops the notes and renders from the status alone.

/**
 * A chaseStatus() for one page: state is the page's state object (S, with .health and .shoeEvents);
 * refreshStatus(): async, re-reads /v1/status into state.health; render(): redraws the page.
 * A call while a chase is running does nothing (the running one covers the new event too).
 */
export function statusChaser(state, refreshStatus, render) {
  let chasing = null;
  return function chaseStatus() {
    if (chasing) return;
    let tries = 0;
    chasing = setInterval(async () => {
      await refreshStatus();
      const counter = state.health?.shoe?.status?.event_counter ?? 0;
      for (const [code, e] of Object.entries(state.shoeEvents)) if (counter >= e.no) delete state.shoeEvents[code];
      if (!Object.keys(state.shoeEvents).length || ++tries > 15) {
        clearInterval(chasing);
        chasing = null;
        state.shoeEvents = {};
        render();
      }
    }, 1000);
  };
}
