// The key dispatcher (keys.js mountKeys): which handler each key calls, with what, in each context (a field,
// the note, a pane, a list, a dialog, a button), and which keys it takes from the browser (preventDefault).
// Node has no DOM: the few parts mountKeys reads (instanceof, closest, id, blur) are given by a small stand-in
// whose closest() knows the selectors keys.js asks; tests/test_page_keyboard.py drives the real page.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';

import { ACTION_HELP, DEFAULT_KEYS, FORM_ACTIONS, SENTENCE_ACTIONS, actionsByKey, keyRows, resolveKeys } from '../../site_template/app/keys/keymap.js';
import { mountKeys } from '../../site_template/app/keys/keys.js';

const FIELD = 'input:not([type=checkbox]):not([type=radio]):not([type=range]), textarea, select, [contenteditable]';
const PANE = '.scroller[id^="pane-"]';
const KEEPS_ARROWS = '#record-list, .guidelines, .overlay, [role=listbox]';
const FORM = 'form, .overlay';

/** An element: `field` (a text field), `pane` ('summary' | 'source': inside that pane), `keepsArrows` (inside
 * the record list, the guidelines, an overlay or a listbox), `inForm` (inside a form or an overlay). */
class Element {
  constructor({ id = '', field = false, pane = null, keepsArrows = false, inForm = false } = {}) {
    Object.assign(this, { id, field, pane, keepsArrows, inForm, blurred: 0 });
  }

  closest(selector) {
    if (selector === FIELD) return this.field ? this : null;
    if (selector === PANE) return this.pane ? { id: `pane-${this.pane}` } : null;
    if (selector === KEEPS_ARROWS) return this.keepsArrows ? {} : null;
    if (selector === FORM) return this.inForm ? {} : null;
    throw new Error(`a selector keys.js did not ask before: ${selector}`);
  }

  blur() {
    this.blurred += 1;
  }
}
class HTMLInputElement extends Element {}
class HTMLButtonElement extends Element {}
Object.assign(globalThis, { Element, HTMLInputElement, HTMLButtonElement });

const body = () => new Element();
const inPane = (side) => new Element({ pane: side });
const input = (opts = {}) => new HTMLInputElement({ field: true, ...opts });
const note = () => new Element({ id: 'draft-note', field: true }); // a textarea
const textarea = () => new Element({ field: true });
const button = () => new HTMLButtonElement();

const HANDLERS = ['next', 'prev', 'labelDigit', 'flushNumber', 'save', 'submit', 'discard', 'escape', 'undo',
  'nextMatch', 'prevMatch', 'pairMatch', 'noSource', 'note', 'leaveField', 'otherPane', 'step', 'modal',
  'guidelines', 'help', 'nextTodo', 'toggleList', 'toggleSide', 'exportNow', 'filter', 'find', 'stepStart',
  'redo', 'nextSaved', 'prevSaved', 'deleteSaved', 'suggestions', 'nextQuestion', 'prevQuestion', 'accept'];

let listeners;
beforeEach(() => {
  listeners = [];
  globalThis.document = { addEventListener: (type, fn) => listeners.push([type, fn]) };
});

/** Mount with handlers that log their calls; `returns` gives modal/undo/redo's results, `without` leaves
 * handlers out (the questions form's three where the bundle has no questions). */
function mount({ returns = {}, without = [], byKey = actionsByKey(resolveKeys()) } = {}) {
  const calls = [];
  const handlers = {};
  for (const name of HANDLERS.filter((n) => !without.includes(n))) {
    handlers[name] = (...args) => {
      if (name !== 'modal') calls.push([name, ...args]);
      return returns[name] ?? false;
    };
  }
  const before = listeners.length;
  mountKeys(handlers, byKey);
  const added = listeners.slice(before);
  assert.deepEqual(added.map(([type]) => type), ['keydown']);
  const listener = added[0][1];
  const press = (key, { target = body(), defaultPrevented = false, ...mods } = {}) => {
    const ev = {
      key, target, defaultPrevented, isComposing: false, ctrlKey: false, shiftKey: false, altKey: false, metaKey: false,
      ...mods,
      preventDefault() {
        this.defaultPrevented = true;
      },
    };
    calls.length = 0;
    listener(ev);
    const out = calls.filter(([name]) => name !== 'flushNumber');
    assert.ok(calls.slice(calls.length - out.length).every(([name]) => name !== 'flushNumber'), 'a number is flushed first');
    return { calls: out, flushed: calls.length - out.length, prevented: ev.defaultPrevented && !defaultPrevented };
  };
  return press;
}

test('every default one-key action calls its handler and takes the key; on a pane, other_pane and find get its side', () => {
  const press = mount();
  const expected = {
    n: ['next'], j: ['next'], p: ['prev'], k: ['prev'], s: ['submit'], d: ['discard'], f: ['find', null],
    o: ['otherPane', null], '.': ['nextMatch'], ',': ['prevMatch'], l: ['pairMatch'], x: ['noSource'], c: ['note'],
    m: ['nextSaved'], M: ['prevSaved'], Delete: ['deleteSaved'], w: ['suggestions'], t: ['nextTodo'],
    '[': ['toggleList'], ']': ['toggleSide'], '/': ['filter'], e: ['exportNow'], g: ['guidelines'], '?': ['help'],
    q: ['nextQuestion'], Q: ['prevQuestion'], a: ['accept'], Enter: ['save'],
  };
  for (const [key, call] of Object.entries(expected)) {
    assert.deepEqual(press(key), { calls: [call], flushed: 1, prevented: true }, key);
  }
  assert.deepEqual(press('o', { target: inPane('source') }).calls, [['otherPane', 'source']]);
  assert.deepEqual(press('f', { target: inPane('summary') }).calls, [['find', 'summary']]);
  assert.deepEqual(press('f', { target: null }).calls, [['find', null]]); // the event of no element
});

test('digits pick labels and do not flush the number being typed; an unmapped key is left to the browser', () => {
  const press = mount();
  assert.deepEqual(press('7'), { calls: [['labelDigit', '7']], flushed: 0, prevented: true });
  assert.deepEqual(press('0'), { calls: [['labelDigit', '0']], flushed: 0, prevented: true });
  assert.deepEqual(press('z'), { calls: [], flushed: 1, prevented: false });
  assert.deepEqual(press('F5'), { calls: [], flushed: 1, prevented: false });
  assert.deepEqual(press('Tab'), { calls: [], flushed: 1, prevented: false });
});

test('the settings\' keys replace the defaults; a digit given an action is that action; Enter stays save', () => {
  const press = mount({ byKey: actionsByKey(resolveKeys({ find: ['F2'], next: ['5'], help: ['h'] })) });
  assert.deepEqual(press('F2').calls, [['find', null]]);
  assert.deepEqual(press('f').calls, []);
  assert.deepEqual(press('5'), { calls: [['next']], flushed: 0, prevented: true });
  assert.deepEqual(press('h').calls, [['help']]);
  assert.deepEqual(press('Enter').calls, [['save']]);
  const enterSubmits = mount({ byKey: { Enter: 'submit' } });
  assert.deepEqual(enterSubmits('Enter').calls, [['submit']]);
});

test('without the questions form its keys do nothing; a digit of a missing action is a label digit again', () => {
  const press = mount({ without: ['nextQuestion', 'prevQuestion', 'accept'], byKey: { q: 'next_question', 3: 'accept' } });
  assert.deepEqual(press('q'), { calls: [], flushed: 1, prevented: false });
  assert.deepEqual(press('3').calls, [['labelDigit', '3']]);
  assert.deepEqual(mount({ byKey: { u: 'no_such_action' } })('u').calls, []);
});

test('Enter on a button presses the button; Ctrl, Alt or Meta with a letter is the browser\'s', () => {
  const press = mount();
  assert.deepEqual(press('Enter', { target: button() }), { calls: [], flushed: 1, prevented: false });
  assert.deepEqual(press('n', { target: button() }).calls, [['next']]);
  for (const mod of ['ctrlKey', 'altKey', 'metaKey']) {
    assert.deepEqual(press('n', { [mod]: true }), { calls: [], flushed: 1, prevented: false }, mod);
    assert.deepEqual(press('5', { [mod]: true }), { calls: [], flushed: 0, prevented: false }, mod);
  }
  assert.deepEqual(press('N', { shiftKey: true }).calls, []); // Shift+n is the key 'N': no action of its own
});

test('Enter in a field: the note saves and is left; a one-line field of the page is left; a form\'s is not', () => {
  const press = mount();
  assert.deepEqual(press('Enter', { target: note() }), { calls: [['save'], ['leaveField']], flushed: 1, prevented: true });
  assert.deepEqual(press('Enter', { target: note(), defaultPrevented: true }), { calls: [['leaveField']], flushed: 1, prevented: false });
  assert.deepEqual(press('Enter', { target: input() }), { calls: [['leaveField']], flushed: 1, prevented: false });
  assert.deepEqual(press('Enter', { target: input({ inForm: true }) }), { calls: [], flushed: 1, prevented: false });
  assert.deepEqual(press('Enter', { target: textarea() }), { calls: [], flushed: 1, prevented: false });
  assert.deepEqual(press('Enter', { target: note(), shiftKey: true }), { calls: [], flushed: 1, prevented: false });
  assert.deepEqual(press('Enter', { target: note(), isComposing: true }), { calls: [], flushed: 1, prevented: false });
  // Ctrl+Enter in the note saves too (it is not Shift)
  assert.deepEqual(press('Enter', { target: note(), ctrlKey: true }).calls, [['save'], ['leaveField']]);
});

test('in a field letters, digits, arrows and Ctrl+Z are text; Esc leaves the field, elsewhere it is escape', () => {
  const press = mount({ returns: { undo: true, redo: true } });
  for (const [key, mods] of [['n', {}], ['5', {}], ['ArrowRight', {}], ['z', { ctrlKey: true }], ['?', {}]]) {
    const target = input();
    assert.deepEqual(press(key, { target, ...mods }), { calls: [], flushed: key === '5' ? 0 : 1, prevented: false }, key);
  }
  const target = input();
  assert.deepEqual(press('Escape', { target }), { calls: [], flushed: 1, prevented: false });
  assert.equal(target.blurred, 1);
  assert.deepEqual(press('Escape'), { calls: [['escape']], flushed: 1, prevented: false });
  assert.deepEqual(press('Escape', { target: button() }).calls, [['escape']]);
});

test('a key another listener took is left alone (after flushing the number)', () => {
  const press = mount({ returns: { undo: true } });
  for (const key of ['n', 'Escape', 'ArrowRight', '4']) {
    assert.deepEqual(press(key, { defaultPrevented: true }), { calls: [], flushed: key === '4' ? 0 : 1, prevented: false }, key);
  }
  assert.deepEqual(press('z', { ctrlKey: true, defaultPrevented: true }).calls, []);
});

test('a dialog open: only ? and g (and Esc) act', () => {
  const press = mount({ returns: { modal: true } });
  assert.deepEqual(press('?').calls, [['help']]);
  assert.deepEqual(press('g').calls, [['guidelines']]);
  assert.deepEqual(press('Escape').calls, [['escape']]);
  for (const [key, mods] of [['n', {}], ['Enter', {}], ['3', {}], ['ArrowRight', {}], ['z', { ctrlKey: true }],
    ['ArrowLeft', { altKey: true, shiftKey: true }]]) {
    assert.deepEqual(press(key, mods).calls, [], key);
    assert.equal(press(key, mods).prevented, false, key);
  }
  // a dialog with ? moved elsewhere: ? still gets through, and calls what it is mapped to (nothing here)
  assert.deepEqual(mount({ returns: { modal: true }, byKey: { h: 'help' } })('?').calls, []);
});

test('arrows step by word or sentence in the focused pane, else the summary; lists and panels keep them', () => {
  const press = mount();
  const arrows = { ArrowRight: ['word', 1], ArrowLeft: ['word', -1], ArrowDown: ['sentence', 1], ArrowUp: ['sentence', -1] };
  for (const [key, [unit, dir]] of Object.entries(arrows)) {
    assert.deepEqual(press(key), { calls: [['step', null, unit, dir, false]], flushed: 1, prevented: true }, key);
    assert.deepEqual(press(key, { shiftKey: true }).calls, [['step', null, unit, dir, true]], key);
    assert.deepEqual(press(key, { target: inPane('source') }).calls, [['step', 'source', unit, dir, false]], key);
    assert.deepEqual(press(key, { target: null }).calls, [['step', null, unit, dir, false]], key);
    const list = new Element({ keepsArrows: true });
    assert.deepEqual(press(key, { target: list }), { calls: [], flushed: 1, prevented: false }, key);
    // a pane wins over a list around it
    assert.deepEqual(press(key, { target: new Element({ keepsArrows: true, pane: 'summary' }) }).calls,
      [['step', 'summary', unit, dir, false]], key);
    for (const mod of ['ctrlKey', 'metaKey', 'altKey']) {
      assert.deepEqual(press(key, { [mod]: true }), { calls: [], flushed: 1, prevented: false }, `${mod}+${key}`);
    }
  }
});

test('Alt+Shift+← / →: the start of the selection, in the focused pane else the summary; not ↑ / ↓', () => {
  const press = mount();
  assert.deepEqual(press('ArrowLeft', { altKey: true, shiftKey: true }), { calls: [['stepStart', null, -1]], flushed: 1, prevented: true });
  assert.deepEqual(press('ArrowRight', { altKey: true, shiftKey: true, target: inPane('source') }).calls, [['stepStart', 'source', 1]]);
  assert.deepEqual(press('ArrowRight', { altKey: true, shiftKey: true, target: new Element({ keepsArrows: true }) }).calls, [['stepStart', null, 1]]);
  assert.deepEqual(press('ArrowUp', { altKey: true, shiftKey: true }).calls, []);
  assert.deepEqual(press('ArrowLeft', { altKey: true, shiftKey: true, ctrlKey: true }).calls, []);
  assert.deepEqual(press('ArrowLeft', { altKey: true, shiftKey: true, metaKey: true }).calls, []);
});

test('Ctrl+Z undoes, Ctrl+Shift+Z and Ctrl+Y redo (Cmd too): the key is taken only when there was something to do', () => {
  const nothing = mount();
  assert.deepEqual(nothing('z', { ctrlKey: true }), { calls: [['undo']], flushed: 1, prevented: false });
  assert.deepEqual(nothing('Z', { ctrlKey: true, shiftKey: true }), { calls: [['redo']], flushed: 1, prevented: false });
  const press = mount({ returns: { undo: true, redo: true } });
  assert.deepEqual(press('z', { ctrlKey: true }), { calls: [['undo']], flushed: 1, prevented: true });
  assert.deepEqual(press('Z', { ctrlKey: true }).calls, [['undo']]); // Caps Lock
  assert.deepEqual(press('z', { metaKey: true }).calls, [['undo']]);
  assert.deepEqual(press('z', { ctrlKey: true, shiftKey: true }), { calls: [['redo']], flushed: 1, prevented: true });
  assert.deepEqual(press('Z', { metaKey: true, shiftKey: true }).calls, [['redo']]);
  assert.deepEqual(press('y', { ctrlKey: true }), { calls: [['redo']], flushed: 1, prevented: true });
  assert.deepEqual(press('Y', { metaKey: true }).calls, [['redo']]);
  assert.deepEqual(press('y', { ctrlKey: true, shiftKey: true }).calls, []);
  assert.deepEqual(press('z', { ctrlKey: true, altKey: true }).calls, []);
  assert.deepEqual(press('y', { ctrlKey: true, altKey: true }).calls, []);
  assert.deepEqual(press('z', { target: inPane('summary'), ctrlKey: true }).calls, [['undo']]);
});

test('the help says what every action does, in the defaults\' order; the form\'s actions only with a form, the sentences\' only with verdicts', () => {
  assert.deepEqual(Object.keys(ACTION_HELP), Object.keys(DEFAULT_KEYS));
  const rows = keyRows(resolveKeys({ find: ['F2'] }), { form: true, sentences: true });
  assert.deepEqual(rows.map(([, text]) => text), Object.values(ACTION_HELP));
  assert.ok(rows.every(([, text]) => typeof text === 'string' && text));
  assert.deepEqual(rows[Object.keys(DEFAULT_KEYS).indexOf('find')][0], 'F2');
  assert.equal(rows[0][0], 'n / j');
  assert.equal(keyRows(resolveKeys()).length, rows.length - FORM_ACTIONS.length - SENTENCE_ACTIONS.length);
  assert.equal(keyRows(resolveKeys(), { sentences: true }).length, rows.length - FORM_ACTIONS.length);
  assert.deepEqual(SENTENCE_ACTIONS.map((a) => DEFAULT_KEYS[a][0]), ['v', 'V', 'y', 'u', 'Y']);
});
