// Cloze validation: mark one span of words in the passage and one in the question, choose an option,
// rate the difficulty. Each text keeps `first`/`last` (word indices, or null) and whether a mark is
// "open" (its first word chosen, its last not yet); the hidden field holds "start:end" in characters of
// the text (the words' data-start/data-end, computed by the server), or "" for no mark.
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  if (!form) { return; }
  var CONFIRM = "You did not mark both the supporting text in the passage and the part of the question. " +
    "Answers without both marks are not used. Submit anyway?";

  function Marker(box) {
    var field = document.getElementById(box.dataset.field);
    var said = document.getElementById(box.dataset.field + "-said");
    var words = Array.prototype.slice.call(box.querySelectorAll(".w"));
    var state = { first: null, last: null, open: false, dragging: false, focused: 0 };

    function bounds() {
      if (state.first === null) { return null; }
      return [Math.min(state.first, state.last), Math.max(state.first, state.last)];
    }

    function render() {
      var b = bounds();
      words.forEach(function (w, i) {
        w.classList.toggle("marked", b !== null && i >= b[0] && i <= b[1]);
        w.classList.toggle("anchor", state.open && i === state.first);
      });
      if (b === null) {
        field.value = "";
        said.textContent = "Nothing marked yet.";
      } else {
        field.value = words[b[0]].dataset.start + ":" + words[b[1]].dataset.end;
        var text = words.slice(b[0], b[1] + 1).map(function (w) { return w.textContent; }).join(" ");
        said.textContent = (state.open ? "Marked from here; click or press Space on the last word: " : "Marked: ") +
          "\u201c" + text + "\u201d";
      }
      requireBoth();
    }

    function start(i) { state.first = i; state.last = i; state.open = true; render(); }
    function extend(i) { state.last = i; render(); }
    function close(i) { state.last = i; state.open = false; render(); }
    function clear() { state.first = state.last = null; state.open = false; render(); }

    function focus(i) {
      state.focused = Math.max(0, Math.min(words.length - 1, i));
      words.forEach(function (w, n) { w.tabIndex = n === state.focused ? 0 : -1; });
      words[state.focused].focus();
    }

    function wordAt(event) {
      var target = document.elementFromPoint(event.clientX, event.clientY);
      var w = target && target.closest ? target.closest(".w") : null;
      return w && box.contains(w) ? words.indexOf(w) : -1;
    }

    // Mouse: press on a word, drag, release (or click the first word, then the last). Touch: a tap starts
    // a mark, the next tap ends it; a drag on a phone scrolls the page, as it should, and leaves the
    // marks as they were.
    var pressed = false;   // this press started the open mark: its release must not end it
    var before = null;     // the marks before that press, back when the press turns into a scroll
    box.addEventListener("pointerdown", function (event) {
      var i = wordAt(event);
      if (i < 0 || event.button > 0) { return; }
      state.focused = i;
      if (state.open) { return; }  // the release ends the open mark
      if (event.shiftKey && state.first !== null) { close(i); return; }
      before = { first: state.first, last: state.last };
      start(i);
      pressed = true;
      state.dragging = event.pointerType === "mouse";
    });
    box.addEventListener("pointermove", function (event) {
      if (!state.dragging) { return; }
      var i = wordAt(event);
      if (i >= 0 && i !== state.last) { extend(i); }
    });
    box.addEventListener("pointercancel", function () {
      if (!pressed) { return; }
      pressed = state.dragging = false;
      state.first = before.first; state.last = before.last; state.open = false;
      render();
    });
    document.addEventListener("pointerup", function (event) {
      var i = wordAt(event);
      if (pressed) {
        pressed = false;
        if (state.dragging) {
          state.dragging = false;
          if (state.last !== state.first) { close(state.last); }
        }
        focus(state.focused);
        return;
      }
      if (state.open && i >= 0) { close(i); focus(i); }
    });

    box.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) { return; }
      var i = words.indexOf(event.target);
      if (i < 0) { return; }
      var moves = { ArrowLeft: i - 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowDown: i + 1, Home: 0, End: words.length - 1 };
      if (event.key in moves) {
        event.preventDefault();
        var to = Math.max(0, Math.min(words.length - 1, moves[event.key]));
        if (event.shiftKey) {
          if (state.first === null) { state.first = i; }
          state.open = false;
          extend(to);
        }
        focus(to);
      } else if (event.key === " " || event.key === "Spacebar") {
        event.preventDefault();
        if (state.open) { close(i); } else { start(i); }
      } else if (event.key === "Escape") {
        event.preventDefault();
        clear();
      }
    });

    // After a refused submit the page comes back with the posted marks.
    var given = /^(\d+):(\d+)$/.exec(field.value || "");
    if (given) {
      var first = words.findIndex(function (w) { return w.dataset.start === given[1]; });
      var last = words.findIndex(function (w) { return w.dataset.end === given[2]; });
      if (first >= 0 && last >= first) { state.first = first; state.last = last; }
    }
    return { render: render, marked: function () { return bounds() !== null; } };
  }

  var markers = Array.prototype.slice.call(form.querySelectorAll(".cloze-text")).map(Marker);

  function requireBoth() {
    if (markers.length && markers.every(function (m) { return m.marked(); })) { delete form.dataset.confirm; }
    else { form.dataset.confirm = CONFIRM; }
  }

  var fills = Array.prototype.slice.call(form.querySelectorAll("[data-blank]"));
  function fill() {
    var chosen = form.querySelector("input[name=option]:checked");
    var text = chosen ? chosen.parentNode.querySelector(".option-text").textContent : "_____";
    fills.forEach(function (f) { f.textContent = text; });
  }
  form.addEventListener("change", function (event) { if (event.target.name === "option") { fill(); } });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    var key = event.key.toLowerCase();
    var choice = null;
    if (/^[1-5]$/.test(key)) { choice = form.querySelector('input[name=option][data-key="' + key + '"]'); }
    if (/^[emh]$/.test(key)) { choice = form.querySelector('input[name=difficulty][data-key="' + key + '"]'); }
    if (!choice) { return; }
    event.preventDefault();
    choice.checked = true;
    if (choice.name === "option") { fill(); }
  });

  markers.forEach(function (m) { m.render(); });
  fill();
})();
