/**
 * Which side columns are shown: the record list and the side panel collapse (toggle buttons, `[` / `]`).
 * The annotator's explicit choice wins; otherwise both show from 1200 px on, and below it only the side
 * panel (the list opens as a drawer over the texts), so the two texts keep at least 60% of the width.
 * A draft starting while the side panel is hidden opens it.
 * The choice lives in the store's `layout` slice; this module reflects it on <body data-list / data-side>.
 */
import { watch } from '../state/store.js';

const WIDE = window.matchMedia('(min-width: 1200px)');

/** Effective visibility of the list and side panel for a `layout` slice. */
function shown(layout, wide = WIDE.matches) {
  return {
    list: layout.list ?? wide,
    side: layout.side ?? true,
  };
}

/**
 * The columns' box as CSS variables (`--top-h`: from the window's top, `--bottom-h`: to its bottom): the
 * fixed panels (the guidelines, the phone's list drawer) sit inside it, never over the top bar or the
 * banners, and so cover no message. (CSSOM, which the page's CSP allows.)
 */
function trackColumns() {
  const layout = document.querySelector('.layout');
  if (!layout) return;
  const root = document.documentElement.style;
  const set = () => {
    const r = layout.getBoundingClientRect();
    root.setProperty('--top-h', `${Math.round(r.top)}px`);
    root.setProperty('--bottom-h', `${Math.max(0, Math.round(window.innerHeight - r.bottom))}px`);
  };
  new ResizeObserver(set).observe(layout);
  window.addEventListener('resize', set);
  set();
}

/** Mount: returns {toggle(which), show(which), closeDrawer()} for the buttons and keys. */
export function mountLayout(store) {
  trackColumns();
  const set = (part) => store.actions.setLayout({ ...store.state.layout, ...part });
  if (!store.state.layout) store.actions.setLayout({ list: null, side: null });
  const apply = () => {
    const s = shown(store.state.layout);
    document.body.dataset.list = s.list ? 'open' : 'closed';
    document.body.dataset.side = s.side ? 'open' : 'closed';
  };
  watch(store, (st) => [st.layout], apply);
  let drafting = false;
  store.subscribe((st) => {
    // A draft starting while the side panel is hidden opens it: the form is where labels and messages show.
    const now = Boolean(st.draft && (st.draft.summary || st.draft.source));
    if (now && !drafting && !shown(st.layout).side) store.actions.setLayout({ ...st.layout, side: true });
    drafting = now;
  });
  WIDE.addEventListener('change', () => {
    // a window crossing 1200 px goes back to that width's default for the list
    set({ list: null });
  });
  return {
    toggle(which) {
      const cur = shown(store.state.layout)[which];
      set({ [which]: !cur });
    },
    /** Show the list or the side panel (the filter key opens the list it types into). */
    show(which) {
      if (!shown(store.state.layout)[which]) set({ [which]: true });
    },
    /** Close the list when it is a drawer over the texts (after a record was picked in it). */
    closeDrawer() {
      if (!WIDE.matches && shown(store.state.layout).list) {
        set({ list: false });
      }
    },
  };
}
