/**
 * The address follows the open record (`#record=ID`), and a changed address opens its record once the
 * draft lets the page leave the open one.
 */
import { recordIdFromHash } from '../boot.js';

const addressOf = (id) => `${window.location.pathname}${window.location.search}#record=${encodeURIComponent(id)}`;

/** `navigate(go)`: records.js's (leaves the draft, then runs `go`). */
export function mountHashSync(store, navigate) {
  store.subscribe((s, prev) => {
    if (s.current.id && s.current.id !== prev.current.id) window.history.replaceState(null, '', addressOf(s.current.id));
  });
  window.addEventListener('hashchange', () => {
    const id = recordIdFromHash();
    if (!id || id === store.state.current.id) return;
    // the address shows the open record until the draft lets the page leave it
    window.history.replaceState(null, '', addressOf(store.state.current.id));
    navigate(() => store.actions.goToId(id));
  });
}
