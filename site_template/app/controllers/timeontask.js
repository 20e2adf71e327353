/**
 * Time on task (state/timeontask.js has the rule): the annotator's activity events and the tab's visibility,
 * handed to the store. Listened to on the document in the capture phase, passively: no handler of the page can
 * hide one, and none waits for these.
 */
const ACTIVITY = ['keydown', 'pointerdown', 'pointermove', 'wheel', 'scroll', 'input', 'selectionchange'];

export function mountTimeOnTask(store, doc = document) {
  const { actions } = store;
  const opts = { capture: true, passive: true };
  actions.trackTime();
  for (const type of ACTIVITY) doc.addEventListener(type, () => actions.activity(), opts);
  doc.addEventListener('visibilitychange', () => actions.tabHidden(doc.visibilityState === 'hidden'));
  // a page going away is hidden after its pagehide: a write then would come after the unload journal
  doc.defaultView.addEventListener('pagehide', () => actions.pageGone());
  if (doc.visibilityState === 'hidden') actions.tabHidden(true);
}
