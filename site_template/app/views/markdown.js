/**
 * A small, safe Markdown renderer for the guidelines panel: it builds DOM nodes itself (never HTML
 * strings). Supported: ATX headings, paragraphs, unordered/ordered lists, fenced code blocks, pipe
 * tables, **bold**, *italic* / _italic_, `code`. Anything else (HTML tags, links, images) stays literal text.
 */

const INLINE = /(\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_|`([^`]+)`)/;

/** Append the inline content of `text` to `parent`. */
function inline(parent, text) {
  let rest = text;
  while (rest) {
    const m = INLINE.exec(rest);
    if (!m) {
      parent.append(document.createTextNode(rest));
      return;
    }
    if (m.index) parent.append(document.createTextNode(rest.slice(0, m.index)));
    let el;
    if (m[2] !== undefined || m[3] !== undefined) {
      el = document.createElement('strong');
      inline(el, m[2] ?? m[3]);
    } else if (m[4] !== undefined || m[5] !== undefined) {
      el = document.createElement('em');
      inline(el, m[4] ?? m[5]);
    } else {
      el = document.createElement('code');
      el.textContent = m[6];
    }
    parent.append(el);
    rest = rest.slice(m.index + m[0].length);
  }
}

const cells = (line) => line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
const isRule = (line) => /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(line);

/** A pipe table from its header line, rule line and body lines. */
function table(head, body) {
  const t = document.createElement('table');
  const tr = document.createElement('tr');
  for (const c of cells(head)) {
    const th = document.createElement('th');
    inline(th, c);
    tr.append(th);
  }
  const thead = document.createElement('thead');
  thead.append(tr);
  const tbody = document.createElement('tbody');
  for (const line of body) {
    const row = document.createElement('tr');
    for (const c of cells(line)) {
      const td = document.createElement('td');
      inline(td, c);
      row.append(td);
    }
    tbody.append(row);
  }
  t.append(thead, tbody);
  return t;
}

/** Render Markdown `src` into a DocumentFragment. */
export function renderMarkdown(src) {
  const frag = document.createDocumentFragment();
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  let para = [];
  let list = null;
  const flushPara = () => {
    if (para.length) {
      const p = document.createElement('p');
      inline(p, para.join(' '));
      frag.append(p);
      para = [];
    }
  };
  const closeList = () => {
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    let m;
    if (/^\s*```/.test(line)) {
      flushPara();
      closeList();
      const code = [];
      for (i += 1; i < lines.length && !/^\s*```/.test(lines[i]); i++) code.push(lines[i]);
      const pre = document.createElement('pre');
      const c = document.createElement('code');
      c.textContent = code.join('\n');
      pre.append(c);
      frag.append(pre);
    } else if (line.includes('|') && i + 1 < lines.length && isRule(lines[i + 1])) {
      flushPara();
      closeList();
      const body = [];
      for (i += 2; i < lines.length && lines[i].includes('|') && lines[i].trim(); i++) body.push(lines[i]);
      i -= 1;
      frag.append(table(line, body));
    } else if ((m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line))) {
      flushPara();
      closeList();
      const hd = document.createElement(`h${Math.min(6, m[1].length + 2)}`); // h3..h6 inside the panel
      inline(hd, m[2]);
      frag.append(hd);
    } else if ((m = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(line))) {
      flushPara();
      const tag = /\d/.test(m[1]) ? 'ol' : 'ul';
      if (!list || list.tagName.toLowerCase() !== tag) {
        list = document.createElement(tag);
        frag.append(list);
      }
      const li = document.createElement('li');
      inline(li, m[2]);
      list.append(li);
    } else if (!line.trim()) {
      flushPara();
      closeList();
    } else if (list && /^\s+\S/.test(line)) {
      list.lastChild.append(document.createTextNode(' '));
      inline(list.lastChild, line.trim());
    } else {
      closeList();
      para.push(line.trim());
    }
  }
  flushPara();
  return frag;
}

/** Render guidelines from the manifest ({format, text}) into a fragment. */
export function renderGuidelines(g) {
  if (!g || !g.text) return null;
  if (g.format === 'markdown') return renderMarkdown(g.text);
  const frag = document.createDocumentFragment();
  for (const block of g.text.replace(/\r\n?/g, '\n').split(/\n\s*\n/)) {
    const p = document.createElement('p');
    p.textContent = block;
    frag.append(p);
  }
  return frag;
}
