// A declared HIT's spans questions (templates/hits/_declared_spans.html): labelled marks over a text's words.
// Each question keeps its marks ({first, last, label}: word positions) and at most one open mark (its first word
// chosen, its last not yet); the hidden field holds the JSON list of {"start", "end", "label"} in characters of the
// text (the words' data-start / data-end, computed by the server), which the server checks (declared/spans.py).
// Mouse: drag across words, or click the first word and then the last (the same word twice: a one-word mark);
// Shift+click moves the edge of the last mark. Touch: a tap starts a mark, the next ends it.
// Keys, on the words (one Tab stop; the arrows move): Space starts a mark and ends it, Shift+Arrow stretches the
// mark (the open one, or the last one made when the cursor is on its edge, else a new one from the cursor),
// Escape cancels an open mark or removes the mark under the cursor (as Delete does), 1..9 pick the label (and
// relabel the mark under the cursor). Each mark is listed in words with a Remove button. Loaded before the
// declared HIT page's own script, which hides a question whose `when` is not met and tells it so by a
// "dq-visibility" event.
// With `edges: characters` (data-edges="characters"; docs/declared-span-edges.md) each word holds its characters
// (".sc", with their offsets): a mark keeps its own start and end in characters, is drawn on the characters it
// covers, and its entry in the list has four buttons that move its start or its end by one character, for the
// mouse, a phone's tap and the keyboard (Tab, Enter) alike.
// A question the definition's rules drop an annotation without (fieldset data-needed: a named rule's `needs`, e.g.
// ReCAM's rule b) asks once before a submit that leaves it unmarked (hit.js reads the form's data-confirm).
// With declared attributes (data-attributes; docs/declared-span-attributes.md) each mark carries a value of each,
// the first one when it is made; its entry in the list has a select per attribute, and the hidden field has them.
// Whenever the marks change (and once at the start) the question's fieldset gets a "dq-marks" event whose detail is
// {question, marks: [{unit: "<start>:<end>:<label>", text, label, caption}]}, and keeps that list as q.dqMarks: a
// relations question (declared_relations.js) follows the marks it relates by it.
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  var UNMARKED = " Answers without a mark there are not used. Submit anyway?";
  if (!form) { return; }

  function Marks(box) {
    var q = box.closest("fieldset.dq");
    var id = box.dataset.spansOf;
    var field = q.querySelector('input[type="hidden"][name="q_' + id + '"]');
    var said = q.querySelector("[data-spans-said]");
    var count = q.querySelector("[data-spans-count]");
    var list = q.querySelector("[data-spans-list]");
    var select = q.querySelector("select[data-label-of]");
    var words = Array.prototype.slice.call(box.querySelectorAll(".sw"));
    var gaps = Array.prototype.slice.call(box.querySelectorAll(".sg"));
    var labels = JSON.parse(box.dataset.labels);
    var captions = JSON.parse(box.dataset.captions);
    var attributes = JSON.parse(box.dataset.attributes || "[]");  // [{id, label, values: [[value, label], ...]}]
    var most = parseInt(box.dataset.max, 10);
    var overlap = box.dataset.overlap === "true";
    var characters = box.dataset.edges === "characters";
    var chars = Array.prototype.slice.call(box.querySelectorAll(".sc")).map(function (c) {
      return { el: c, start: parseInt(c.dataset.start, 10), end: parseInt(c.dataset.end, 10),
        word: words.indexOf(c.closest(".sw")) };
    });
    var state = { marks: [], open: null, last: null, focused: 0, pressed: null, dragging: false, drag: null };

    function label() { return select ? select.value : labels[0]; }
    function caption(value) { var i = labels.indexOf(value); return i >= 0 ? captions[i] : value; }
    function text(m) {
      if (!characters) { return words.slice(m.first, m.last + 1).map(function (w) { return w.textContent; }).join(" "); }
      var found = "";
      for (var i = m.first; i <= m.last; i++) {
        chars.forEach(function (c) { if (c.word === i && c.start >= m.start && c.end <= m.end) { found += c.el.textContent; } });
        if (i < m.last) { found += " "; }
      }
      return found;
    }
    function edgeOf(i, which) { return parseInt(words[i].dataset[which], 10); }
    function firstValues() {
      var attrs = {};
      attributes.forEach(function (a) { attrs[a.id] = a.values[0][0]; });
      return attrs;
    }
    function make(first, last, label) {  // a mark over whole words
      return { first: first, last: last, label: label, start: edgeOf(first, "start"), end: edgeOf(last, "end"), attrs: firstValues() };
    }
    function withAttrs(changed, m) { changed.attrs = m.attrs || firstValues(); return changed; }
    function answerOf(m) {
      var mark = { start: m.start, end: m.end, label: m.label };
      attributes.forEach(function (a) { mark[a.id] = (m.attrs || {})[a.id]; });
      return mark;
    }
    var announced = null;  // the marks last told to listeners (a "dq-marks" event), as JSON
    function serialise() {
      var ordered = sorted();
      if (!field.disabled) { field.value = JSON.stringify(ordered.map(function (e) { return answerOf(e.m); })); }
      var marks = ordered.map(function (e) {
        return { unit: e.m.start + ":" + e.m.end + ":" + e.m.label, text: text(e.m), label: e.m.label, caption: caption(e.m.label) };
      });
      var now = JSON.stringify(marks);
      if (now === announced) { return; }
      announced = now;
      q.dqMarks = marks;  // read by a script loaded after the first event (declared_relations.js)
      q.dispatchEvent(new CustomEvent("dq-marks", { bubbles: true, detail: { question: id, marks: marks } }));
    }
    function quoted(m) { return "\u201c" + text(m) + "\u201d"; }
    function say(message) { said.textContent = message; }
    function at(i) {  // the mark covering word i (the last made, when marks overlap), or -1
      for (var n = state.marks.length - 1; n >= 0; n--) {
        if (state.marks[n].first <= i && i <= state.marks[n].last) { return n; }
      }
      return -1;
    }
    function sameAs(m, except) {
      return state.marks.some(function (o, n) {
        return n !== except && o.start === m.start && o.end === m.end && o.label === m.label;
      });
    }
    function clash(m, except) {  // a mark this one may not share a word with, or null
      if (overlap) { return null; }
      for (var n = 0; n < state.marks.length; n++) {
        var o = state.marks[n];
        if (n !== except && o.start < m.end && m.start < o.end) { return o; }
      }
      return null;
    }
    // the turn (a dialogue) or block (Markdown) of each word (data-turn), or null for a text: a mark stays within it
    var turnOf = words.map(function (w) { var t = w.closest("[data-turn]"); return t ? t.dataset.turn : null; });
    function crossesTurns(m) {
      return turnOf[m.first] !== null && turnOf[m.first] !== turnOf[m.last];
    }
    function refused(m, except) {  // why the mark cannot be made (or changed to m), or ""
      if (crossesTurns(m)) {
        var part = box.dataset.parts || "turn";  // "turn" (a dialogue) or "block" (a Markdown field)
        return quoted(m) + " runs from " + part + " " + (parseInt(turnOf[m.first], 10) + 1) + " into " + part + " " +
          (parseInt(turnOf[m.last], 10) + 1) + "; a mark stays within one " + part + ".";
      }
      var other = clash(m, except);
      if (other) { return quoted(m) + " would overlap the mark " + quoted(other) + "; remove that one first."; }
      if (sameAs(m, except)) { return quoted(m) + " is already marked as " + caption(m.label) + "."; }
      return "";
    }

    function add(first, last) {
      var m = make(Math.min(first, last), Math.max(first, last), label());
      if (state.marks.length >= most) {
        say(most === 1 ? "Only one mark is asked for: remove it to mark another stretch." :
          "At most " + most + " marks: remove one to mark another stretch.");
        return false;
      }
      var why = refused(m, -1);
      if (why) { say(why); return false; }
      state.marks.push(m);
      state.last = state.marks.length - 1;
      say("Marked " + quoted(m) + " as " + caption(m.label) + ".");
      return true;
    }

    function remove(n) {
      var m = state.marks[n];
      state.marks.splice(n, 1);
      state.last = null;
      say("Removed " + quoted(m) + ".");
    }

    function stretch(i, to) {  // Shift+Arrow on word i towards word `to`
      if (state.open !== null) {
        var first = state.open;
        state.open = null;
        if (!add(first, to)) { return; }
        return;
      }
      var n = state.last;
      var m = n === null ? null : state.marks[n];
      if (m && (i === m.first || i === m.last)) {
        var changed = withAttrs({ first: m.first, last: m.last, label: m.label, start: m.start, end: m.end }, m);
        if (i === m.last && m.first !== m.last) { changed.last = to; } else if (i === m.first && m.first !== m.last) { changed.first = to; }
        else if (to > i) { changed.last = to; } else { changed.first = to; }
        if (changed.first > changed.last) { var t = changed.first; changed.first = changed.last; changed.last = t; }
        // a stretched edge falls on its word's edge; the other keeps its place (inside a word, with characters)
        if (changed.first !== m.first) { changed.start = edgeOf(changed.first, "start"); }
        if (changed.last !== m.last) { changed.end = edgeOf(changed.last, "end"); }
        if (changed.start >= changed.end) { changed.start = edgeOf(changed.first, "start"); changed.end = edgeOf(changed.last, "end"); }
        var why = refused(changed, n);
        if (why) { say(why); return; }
        state.marks[n] = changed;
        say("Marked " + quoted(changed) + " as " + caption(changed.label) + ".");
        return;
      }
      add(i, to);
    }

    function relabel(n, value) {
      var m = state.marks[n];
      var changed = withAttrs({ first: m.first, last: m.last, label: value, start: m.start, end: m.end }, m);
      var why = refused(changed, n);
      if (why) { say(why); return; }
      state.marks[n] = changed;
      say(quoted(changed) + " is now " + caption(value) + ".");
    }

    function askIfUnmarked(empty) {  // the form asks while a needed question of this kind has no mark
      if (!q.hasAttribute("data-needed")) { return; }
      var open = (form.dataset.unmarked || "").split(" ").filter(function (other) { return other && other !== id; });
      if (empty) { open.push(id); }
      form.dataset.unmarked = open.join(" ");
      var numbers = Array.prototype.filter.call(form.querySelectorAll("fieldset.dq[data-needed]"), function (f) {
        return open.indexOf(f.dataset.question) >= 0;
      }).map(function (f) { return f.querySelector(".dq-number").textContent.replace(".", ""); });
      if (numbers.length) {
        form.dataset.confirm = "You marked nothing in question" + (numbers.length > 1 ? "s " : " ") +
          numbers.join(" and ") + "." + UNMARKED;
      } else { delete form.dataset.confirm; }
    }

    function sorted() {
      return state.marks.map(function (m, n) { return { m: m, n: n }; }).sort(function (a, b) {
        return a.m.start - b.m.start || a.m.end - b.m.end || labels.indexOf(a.m.label) - labels.indexOf(b.m.label);
      });
    }

    function render() {
      words.forEach(function (w, i) {
        w.className = "sw";
        w.removeAttribute("data-tag");
        if (state.open === i) { w.classList.add("anchor"); }
        if (state.drag && i >= Math.min(state.drag[0], state.drag[1]) && i <= Math.max(state.drag[0], state.drag[1])) {
          w.classList.add("dragged");
        }
      });
      gaps.forEach(function (g) { g.className = "sg"; });
      chars.forEach(function (c) { c.el.className = "sc"; c.el.removeAttribute("data-tag"); });
      state.marks.forEach(function (m) {
        if (characters) { drawCharacters(m); return; }
        var colour = "lab-" + (labels.indexOf(m.label) % 8);
        for (var i = m.first; i <= m.last; i++) {
          words[i].classList.add("marked", colour);
          var gap = i < m.last ? words[i].nextElementSibling : null;  // the space inside the mark, marked too
          if (gap && gap.classList.contains("sg")) { gap.classList.add("marked", colour); }
        }
        words[m.first].classList.add("first");
        words[m.last].classList.add("last");
        var tag = words[m.last].getAttribute("data-tag");
        words[m.last].setAttribute("data-tag", tag ? tag + " " + m.label : m.label);
      });
      var ordered = sorted();
      serialise();
      askIfUnmarked(ordered.length === 0 && !field.disabled);
      count.textContent = ordered.length === 0 ? "Marked: nothing yet." :
        "Marked: " + ordered.length + (ordered.length === 1 ? " stretch." : " stretches.");
      list.textContent = "";
      ordered.forEach(function (e) {
        var li = document.createElement("li");
        var what = document.createElement("span");
        what.className = "span-text";
        what.textContent = quoted(e.m);
        var tag = document.createElement("span");
        tag.className = "span-tag lab-" + (labels.indexOf(e.m.label) % 8);
        tag.textContent = caption(e.m.label);
        var button = document.createElement("button");
        button.type = "button";
        button.className = "secondary span-remove";
        button.textContent = "Remove";
        button.setAttribute("aria-label", "Remove " + quoted(e.m) + ", " + caption(e.m.label));
        button.addEventListener("click", function () {
          var place = ordered.indexOf(e);
          remove(e.n);
          render();
          var buttons = list.querySelectorAll("button");
          if (buttons.length) { buttons[Math.min(place, buttons.length - 1)].focus(); } else { focus(state.focused); }
        });
        li.appendChild(what);
        li.appendChild(document.createTextNode(" "));
        li.appendChild(tag);
        li.appendChild(document.createTextNode(" "));
        li.appendChild(button);
        attributes.forEach(function (a) { li.appendChild(document.createTextNode(" ")); li.appendChild(attributeSelect(a, e)); });
        if (characters) { nudges(li, e, ordered); }
        list.appendChild(li);
      });
    }

    function attributeSelect(a, e) {  // one attribute of a listed mark: a select, named in words for screen readers
      var select = document.createElement("select");
      select.className = "span-attribute";
      select.dataset.attribute = a.id;
      select.setAttribute("aria-label", a.label + " of " + quoted(e.m));
      a.values.forEach(function (v) {
        var option = document.createElement("option");
        option.value = v[0];
        option.textContent = v[1];
        select.appendChild(option);
      });
      select.value = (e.m.attrs || {})[a.id];
      select.addEventListener("change", function () {
        e.m.attrs = e.m.attrs || firstValues();
        e.m.attrs[a.id] = select.value;
        serialise();
        say(quoted(e.m) + ": " + a.label + " " + select.options[select.selectedIndex].textContent + ".");
      });
      return select;
    }

    function drawCharacters(m) {  // the characters a mark covers, and the spaces between its words
      var colour = "lab-" + (labels.indexOf(m.label) % 8);
      var covered = chars.filter(function (c) { return c.start >= m.start && c.end <= m.end; });
      covered.forEach(function (c) { c.el.classList.add("marked", colour); });
      for (var i = m.first; i < m.last; i++) {
        var gap = words[i].nextElementSibling;
        if (gap && gap.classList.contains("sg")) { gap.classList.add("marked", colour); }
      }
      if (!covered.length) { return; }
      covered[0].el.classList.add("first");
      var end = covered[covered.length - 1].el;
      end.classList.add("last");
      var tag = end.getAttribute("data-tag");
      end.setAttribute("data-tag", tag ? tag + " " + m.label : m.label);
    }

    function moved(m, edge, step) {  // m with its start or end one character left (-1) or right (+1), or null
      var at = edge === "start" ? m.start : m.end;
      var edges = chars.map(function (c) { return edge === "start" ? c.start : c.end; });
      var next = step < 0 ? edges.filter(function (x) { return x < at; }).pop() :
        edges.filter(function (x) { return x > at; })[0];
      if (next === undefined) { return null; }
      var changed = withAttrs({ first: m.first, last: m.last, label: m.label, start: m.start, end: m.end }, m);
      changed[edge] = next;
      if (changed.start >= changed.end) { return null; }
      chars.forEach(function (c) {
        if (c.start === changed.start) { changed.first = c.word; }
        if (c.end === changed.end) { changed.last = c.word; }
      });
      return changed;
    }

    function nudges(li, e, ordered) {  // the four buttons that move a mark's edges by one character
      [["start", -1, "\u25c2 Start", "left"], ["start", 1, "Start \u25b8", "right"],
        ["end", -1, "\u25c2 End", "left"], ["end", 1, "End \u25b8", "right"]].forEach(function (b) {
        var button = document.createElement("button");
        button.type = "button";
        button.className = "secondary span-nudge";
        button.dataset.nudge = b[0] + (b[1] < 0 ? "-1" : "+1");
        button.textContent = b[2];
        button.setAttribute("aria-label", "Move the " + b[0] + " of " + quoted(e.m) + " one character " + b[3]);
        button.addEventListener("click", function () {
          var changed = moved(e.m, b[0], b[1]);
          if (!changed) {
            say(b[0] === "start" && b[1] > 0 || b[0] === "end" && b[1] < 0 ? quoted(e.m) + " is one character: it cannot be shorter." :
              "The " + b[0] + " of " + quoted(e.m) + " is already at the " + (b[1] < 0 ? "start" : "end") + " of the text.");
            return;
          }
          var why = refused(changed, e.n);
          if (why) { say(why); return; }
          state.marks[e.n] = changed;
          state.last = e.n;
          say("Marked " + quoted(changed) + " as " + caption(changed.label) + ".");
          var place = ordered.indexOf(e);
          render();
          var again = sorted().findIndex(function (x) { return x.n === e.n; });
          var item = list.querySelectorAll("li")[again >= 0 ? again : place];
          var same = item && item.querySelector('[data-nudge="' + button.dataset.nudge + '"]');
          if (same) { same.focus(); }
        });
        li.appendChild(document.createTextNode(" "));
        li.appendChild(button);
      });
    }

    function focus(i) {
      state.focused = Math.max(0, Math.min(words.length - 1, i));
      words.forEach(function (w, n) { w.tabIndex = n === state.focused ? 0 : -1; });
      if (words[state.focused]) { words[state.focused].focus(); }
    }

    function wordAt(event) {
      var target = document.elementFromPoint(event.clientX, event.clientY);
      var w = target && target.closest ? target.closest(".sw") : null;
      return w && box.contains(w) ? words.indexOf(w) : -1;
    }

    function click(i, shift) {  // a click or tap on word i, not a drag
      if (state.open !== null) {
        var first = state.open;
        state.open = null;
        add(first, i);
      } else if (shift && state.last !== null) {
        var m = state.marks[state.last];
        stretch(i < m.first ? m.first : m.last, i);
      } else {
        state.open = i;
        say("Marking from \u201c" + words[i].textContent + "\u201d: click (or press Space on) its last word.");
      }
    }

    box.addEventListener("pointerdown", function (event) {
      var i = wordAt(event);
      if (i < 0 || event.button > 0 || field.disabled) { return; }
      event.preventDefault();  // no text selection; the word takes the focus below
      state.pressed = i;
      state.dragging = event.pointerType === "mouse" && state.open === null && !event.shiftKey;
      state.drag = null;
    });
    box.addEventListener("pointermove", function (event) {
      if (!state.dragging || state.pressed === null) { return; }
      var i = wordAt(event);
      if (i >= 0 && (state.drag || i !== state.pressed)) { state.drag = [state.pressed, i]; render(); }
    });
    box.addEventListener("pointercancel", function () {  // a touch that turned into a scroll: nothing changes
      state.pressed = null; state.dragging = false; state.drag = null; render();
    });
    document.addEventListener("pointerup", function (event) {
      if (state.pressed === null) { return; }
      var i = wordAt(event);
      var pressed = state.pressed;
      var drag = state.drag;
      state.pressed = null; state.dragging = false; state.drag = null;
      if (drag && drag[0] !== drag[1]) { add(drag[0], drag[1]); } else if (i >= 0) { click(i, event.shiftKey); }
      focus(i >= 0 ? i : pressed);
      render();
    });

    box.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) { return; }
      var i = words.indexOf(event.target);
      if (i < 0) { return; }
      var moves = { ArrowLeft: i - 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowDown: i + 1, Home: 0, End: words.length - 1 };
      if (event.key in moves) {
        event.preventDefault();
        var to = Math.max(0, Math.min(words.length - 1, moves[event.key]));
        if (event.shiftKey && to !== i) { stretch(i, to); render(); }
        focus(to);
      } else if (event.key === " " || event.key === "Spacebar") {
        event.preventDefault();
        click(i, false);
        render();
      } else if (event.key === "Escape" || event.key === "Delete" || event.key === "Backspace") {
        event.preventDefault();
        if (state.open !== null && event.key === "Escape") {
          state.open = null;
          say("Mark cancelled.");
        } else if (at(i) >= 0) {
          remove(at(i));
        } else {
          say("No mark here to remove.");
        }
        render();
      } else if (/^[1-9]$/.test(event.key) && !event.shiftKey) {
        var n = parseInt(event.key, 10) - 1;
        if (n >= labels.length) { return; }
        event.preventDefault();
        if (select) { select.value = labels[n]; }
        var here = at(i);
        if (here >= 0 && state.marks[here].label !== labels[n]) { relabel(here, labels[n]); } else { say("Label of the next mark: " + caption(labels[n]) + "."); }
        render();
      }
    });

    q.addEventListener("dq-visibility", function () {  // hidden or shown again by its `when`: start afresh
      state.marks = []; state.open = null; state.last = null;
      say("");
      render();
    });

    try {  // after a refused submit the page comes back with the posted marks
      JSON.parse(field.value || "[]").forEach(function (s) {
        var inside = characters ? function (w, at) { return edgeOf(w, "start") <= at && at < edgeOf(w, "end"); } : null;
        var first = words.findIndex(function (w, i) { return inside ? inside(i, s.start) : parseInt(w.dataset.start, 10) === s.start; });
        var last = words.findIndex(function (w, i) { return inside ? inside(i, s.end - 1) : parseInt(w.dataset.end, 10) === s.end; });
        if (first >= 0 && last >= first && labels.indexOf(s.label) >= 0) {
          var attrs = firstValues();
          attributes.forEach(function (a) { if (s[a.id] !== undefined) { attrs[a.id] = s[a.id]; } });
          state.marks.push({ first: first, last: last, label: s.label, start: s.start, end: s.end, attrs: attrs });
        }
      });
    } catch (ignored) { /* start afresh */ }
    render();
  }

  Array.prototype.forEach.call(form.querySelectorAll(".spans-text"), Marks);
})();
