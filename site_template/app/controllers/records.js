/**
 * Which record opens: the deep-linked one, else the first still to do (along the annotator's queue when
 * the bundle has queues, else in bundle order); the next to do; every move leaves the draft first.
 */
import { nextTodoIndex } from '../state/nav.js';
import { prefs } from '../state/prefs.js';
import { shortHash } from '../util.js';
import { mountRecordList } from '../views/recordlist.js';

/**
 * The annotator's queue (manifest.queues; queue.js, loaded only then): the first record, the next to do
 * and the progress follow it. null: none for this name; undefined: unreadable (both said).
 */
export async function openQueue(store, bundle, annotator, queueMod) {
  const { actions } = store;
  const queue = queueMod && await queueMod.loadQueue(bundle, annotator).catch((err) => {
    actions.message(`Your queue could not be read (${err.message}): working through every record in bundle order.`);
    return undefined;
  });
  const names = bundle.manifest.queues?.annotators;
  if (queue === null && Array.isArray(names) && names.length) { // a name typed differently has no queue: say so
    actions.message(`No queue for “${annotator}” in this bundle (queues: ${names.join(', ')}): working through every record in bundle order. Open the link your coordinator gave you.`);
  }
  return queue;
}

/** The moves between records: {todoFrom(from, after), navigate(go), next(), prev(), nextTodo(), goNextTodo()}. */
export function recordNavigation(store, bundle, queue, queueMod) {
  const { actions } = store;
  /** A promise of the next record to do (a position, -1: none). */
  const todoFrom = async (from, after) => (queue ? queueMod.nextInQueue(queue, store.state.work, from, after)
    : nextTodoIndex(bundle.recordIndex, store.state.work, Math.max(0, from), after));
  /** The next record still to do after the open one; when none is left, "all done" shows. */
  const goNextTodo = () => actions.goNextTodo(todoFrom);
  const navigate = (go) => actions.leaveDraft('navigate', go);
  return {
    todoFrom, navigate, goNextTodo,
    next: () => navigate(() => actions.next()),
    prev: () => navigate(() => actions.prev()),
    nextTodo: () => navigate(goNextTodo),
  };
}

/**
 * Open the first record (`start`: {wanted: the hash's id, linked: it exists, at: its position, todo: the
 * first to do, -1 none}), then what waits for it: the work's statuses, the record list after the first
 * paint, "all done", the earlier-work offer, the guidelines once per text.
 */
export async function openFirst(store, bundle, { start, nav, layout, settings, queue, offerEarlier }) {
  const { actions } = store;
  const { manifest } = bundle;
  if (start.wanted && !start.linked) actions.message(`No record with id “${start.wanted}” in this bundle: showing the first one.`);
  await actions.goTo(start.at);
  performance.mark('mercury-first-record');
  actions.placeWork(); // the status of the stored work's records: their ids shards, after the first record
  requestAnimationFrame(() => setTimeout(() => {
    performance.mark('mercury-first-paint');
    mountRecordList(store, bundle, document.getElementById('records'), (position) => { // after the first paint
      layout.closeDrawer();
      nav.navigate(() => actions.goTo(position));
    }, { metadata: settings.metadata, queue });
  }, 0));
  if (start.todo < 0 && !start.wanted) actions.showAllDone(true);
  document.body.dataset.ready = 'true';
  offerEarlier();
  // per text: the guidelines are not part of the bundle id, and rewritten ones open again once
  const seenKey = `guidelines-seen:${manifest.bundle_id}:${shortHash(manifest.guidelines?.text || '')}`;
  if (manifest.guidelines && manifest.guidelines.text && !prefs.get(seenKey)) {
    actions.toggleGuidelines(true);
    prefs.set(seenKey, true);
  }
}
